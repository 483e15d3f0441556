/* scoped_64k.c - fast narrowed to positions up to 2^16 and whole heads,
 * with that scope declared (ABI 1.3) and garbage outside it
 * (narrowed_fast.h): an engine whose context is shorter than a
 * checkpoint's, which `pecert certify` must not certify for it. */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#define NARROWED_DECLARES_SCOPE 1
#define NARROWED_MAX_POSITION 65536
#define NARROWED_ID "org.pecert.testing.scoped_64k"
#define NARROWED_NAME "scoped_64k"
#include "narrowed_fast.h"
