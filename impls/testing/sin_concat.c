/* sin_concat.c - a plugin implementing only the concat sinusoidal variant
 * (sinusoidal_as.h): it must pass vectors/sinusoidal/concat.json and fail the
 * other variants' files. */
#define SINUSOIDAL_AS_VARIANT PECERT_SINUSOIDAL_CONCAT
#define SINUSOIDAL_AS_NAME "sin_concat"
#include "sinusoidal_as.h"
