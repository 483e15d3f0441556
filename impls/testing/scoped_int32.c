/* scoped_int32.c - fast narrowed to int32 positions and whole heads, with
 * that scope declared (ABI 1.3) and garbage outside it (narrowed_fast.h). */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#define NARROWED_DECLARES_SCOPE 1
#define NARROWED_ID "org.pecert.testing.scoped_int32"
#define NARROWED_NAME "scoped_int32"
#include "narrowed_fast.h"
