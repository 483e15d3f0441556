/* int32_whole_head.c - fast narrowed to int32 positions and whole heads,
 * declining the rest, declaring nothing (narrowed_fast.h). */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#define NARROWED_DECLARES_SCOPE 0
#define NARROWED_ID "org.pecert.testing.int32_whole_head"
#define NARROWED_NAME "int32_whole_head"
#include "narrowed_fast.h"
