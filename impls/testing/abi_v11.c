/*
 * abi_v11.c - an ABI 1.1 plugin (descriptor ends after `describe`) whose
 * memory past its struct_size holds pointers to functions that abort: a
 * host that reads an ABI 1.2 field without PECERT_HAS_FIELD calls one of
 * them and crashes the check. pecert must load it and report every check
 * of the 1.2 families as not supported.
 */
#include <stddef.h>
#include <stdlib.h>

#include "pecert/plugin.h"

static const char *v11_last_error(void *instance)
{
    (void)instance;
    return "";
}

static pecert_status v11_apply(void *instance, const pecert_rope_apply_args *args)
{
    (void)instance;
    (void)args;
    return PECERT_E_UNSUPPORTED;
}

static pecert_status boom_alibi(void *instance, const pecert_alibi_slopes_args *args)
{
    (void)instance;
    (void)args;
    abort();
}

static pecert_status boom_t5(void *instance, const pecert_t5_bucket_args *args)
{
    (void)instance;
    (void)args;
    abort();
}

static pecert_status boom_mrope(void *instance, const pecert_mrope_index_args *args)
{
    (void)instance;
    (void)args;
    abort();
}

static const char *const caps[] = {"pecert.rope/1", NULL};

static const pecert_plugin desc = {
    .abi_version = (1u << 16) | 1u,
    .struct_size = offsetof(pecert_plugin, describe) + sizeof(((pecert_plugin *)0)->describe),
    .id = "org.pecert.testing.abi_v11",
    .name = "abi_v11",
    .version = "0",
    .vendor = "pecert tests",
    .capabilities = caps,
    .last_error = v11_last_error,
    .rope_apply = v11_apply,
    /* Past struct_size: never to be read. */
    .alibi_slopes = boom_alibi,
    .t5_bucket = boom_t5,
    .mrope_index = boom_mrope,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return &desc;
}
