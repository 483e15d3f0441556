/* abi_v2.c - a plugin built for a future ABI major: the host must refuse it. */
#include "misbehave.h"

static const pecert_plugin misbehave_desc = MISBEHAVE_DESCRIPTOR(2u << 16, sizeof(pecert_plugin), NULL);
