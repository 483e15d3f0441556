/* small_struct.c - a descriptor whose struct_size ends before rope_apply:
 * the host must refuse it rather than read past it. */
#include <stddef.h>

#include "misbehave.h"

static const pecert_plugin desc =
    MISBEHAVE_DESCRIPTOR(PECERT_ABI_VERSION, offsetof(pecert_plugin, rope_freqs), NULL);

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return &desc;
}
