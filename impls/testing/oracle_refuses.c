/* oracle_refuses.c - an oracle stand-in that refuses every config (as ref
 * refuses one it does not know): checks must report the oracle's refusal
 * with its message, never the plugin under test's failure. */
#include "pecert/plugin.h"

static const char *const caps[] = {"pecert.rope/1", NULL};

static const char *refusal(void *instance)
{
    (void)instance;
    return "rope_freqs: config refused by the test oracle";
}

static pecert_status refuse_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                  const pecert_rope_config *config, int64_t seq_len)
{
    (void)instance;
    (void)out_inv_freq;
    (void)out_scaling;
    (void)config;
    (void)seq_len;
    return PECERT_E_INVAL;
}

static pecert_status refuse_apply(void *instance, const pecert_rope_apply_args *args)
{
    (void)instance;
    (void)args;
    return PECERT_E_INVAL;
}

static const pecert_plugin desc = {
    .abi_version = PECERT_ABI_VERSION, .struct_size = sizeof(pecert_plugin), .id = "org.pecert.testing.oracle_refuses",
    .name = "oracle_refuses", .version = "0", .vendor = "pecert tests", .capabilities = caps,
    .last_error = refusal, .rope_freqs = refuse_freqs, .rope_apply = refuse_apply,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return &desc;
}
