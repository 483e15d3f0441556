/* refuses.c - a plugin whose entry refuses every host (returns NULL). */
#include "pecert/plugin.h"

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return NULL;
}
