/* sin_interleaved.c - a plugin implementing only the interleaved sinusoidal variant
 * (sinusoidal_as.h): it must pass vectors/sinusoidal/interleaved.json and fail the
 * other variants' files. */
#define SINUSOIDAL_AS_VARIANT PECERT_SINUSOIDAL_INTERLEAVED
#define SINUSOIDAL_AS_NAME "sin_interleaved"
#include "sinusoidal_as.h"
