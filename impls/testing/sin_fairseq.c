/* sin_fairseq.c - a plugin implementing only the fairseq sinusoidal variant
 * (sinusoidal_as.h): it must pass vectors/sinusoidal/fairseq.json and fail the
 * other variants' files. */
#define SINUSOIDAL_AS_VARIANT PECERT_SINUSOIDAL_FAIRSEQ
#define SINUSOIDAL_AS_NAME "sin_fairseq"
#include "sinusoidal_as.h"
