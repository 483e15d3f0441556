/* abi_v2.c - a plugin built for a future ABI major: the host must refuse it. */
#include "misbehave.h"

static const pecert_plugin desc = MISBEHAVE_DESCRIPTOR(2u << 16, sizeof(pecert_plugin), NULL);

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return &desc;
}
