/* sin_t2t.c - a plugin implementing only the t2t sinusoidal variant
 * (sinusoidal_as.h): it must pass vectors/sinusoidal/t2t.json and fail the
 * other variants' files. */
#define SINUSOIDAL_AS_VARIANT PECERT_SINUSOIDAL_T2T
#define SINUSOIDAL_AS_NAME "sin_t2t"
#include "sinusoidal_as.h"
