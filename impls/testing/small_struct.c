/* small_struct.c - a descriptor whose struct_size ends before rope_apply:
 * the host must refuse it rather than read past it. */
#include <stddef.h>

#include "misbehave.h"

static const pecert_plugin misbehave_desc =
    MISBEHAVE_DESCRIPTOR(PECERT_ABI_VERSION, offsetof(pecert_plugin, rope_freqs), NULL);
