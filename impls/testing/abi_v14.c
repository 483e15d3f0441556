/*
 * abi_v14.c - ref speaking ABI 1.4: an engine built against the header
 * before session_config.alibi_bias_scale existed (its reserved[0]). pecert
 * must never send it a scaled ALiBi session, and must say so: Falcon's
 * ALiBi attention is declined as ABI 1.5, Bloom's still certifies.
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdio.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (testing_ref_copy(&desc, "abi_v14") == NULL) {
        return NULL;
    }
    desc.id = "org.pecert.testing.abi_v14";
    desc.abi_version = (uint32_t)((PECERT_ABI_MAJOR << 16) | 4);
    return &desc;
}
