/*
 * ops_subset.c - the `ref` plugin with only some of its operations, for
 * the verdict-class tests (tests/check_certificate.c): an engine as they
 * come, partial. PECERT_TEST_OPS names the families kept, comma-separated
 * (rope, threads, session, mrope, alibi, t5, learned, vision); every other
 * entry point is NULL. PECERT_TEST_SESSION_FULL_ROTARY=1 makes the session
 * decline a config whose rotary_dim is not the whole head (a KV-cache path
 * that cannot run gpt-neox-20b's rotary_pct), with E_UNSUPPORTED.
 * PECERT_TEST_LEARNED_UNSUPPORTED=1 refuses a row outside the table with
 * E_UNSUPPORTED where the ABI asks E_INVAL (the row is still never read).
 * PECERT_TEST_DEFAULT_ROPE_ONLY=1 declines every scaled rope_type in
 * rope_freqs, rope_cos_sin and rope_apply (an engine without llama3 or YaRN
 * scaling, as docs/certify.md's adapter).
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdlib.h>
#include <string.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref_desc;

/* 1 if family is in $PECERT_TEST_OPS. */
static int kept(const char *family)
{
    const char *ops = getenv("PECERT_TEST_OPS");
    size_t n = strlen(family);
    for (const char *p = ops; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, family, n) == 0) {
            return 1;
        }
        p = end != NULL ? end + 1 : p + len;
    }
    return 0;
}

static const char *declined = "session: rotary_dim below head_dim is not supported";

static const char *subset_last_error(void *instance)
{
    const char *e = ref_desc->last_error(instance);
    return e != NULL && e[0] != '\0' ? e : declined;
}

static pecert_status session_full_rotary_only(void *instance, void **out, const pecert_session_config *config)
{
    if (config->rope != NULL && config->rope->rotary_dim != config->rope->head_dim) {
        *out = NULL;
        return PECERT_E_UNSUPPORTED;
    }
    return ref_desc->session_create(instance, out, config);
}

static pecert_status learned_refused_unsupported(void *instance, const pecert_learned_args *args)
{
    pecert_status st = ref_desc->learned_lookup(instance, args);
    return st == PECERT_E_INVAL ? PECERT_E_UNSUPPORTED : st;
}

static const char *scaled_declined = "rope: only the default rope_type";

static int scaled(const pecert_rope_config *config)
{
    return config != NULL && config->rope_type != PECERT_ROPE_DEFAULT;
}

static pecert_status default_freqs(void *instance, double *inv, double *scaling, const pecert_rope_config *config,
                                   int64_t seq_len)
{
    declined = scaled_declined;
    return scaled(config) ? PECERT_E_UNSUPPORTED : ref_desc->rope_freqs(instance, inv, scaling, config, seq_len);
}

static pecert_status default_cos_sin(void *instance, pecert_tensor *c, pecert_tensor *s,
                                     const pecert_rope_config *config, int64_t seq_len, const int64_t *positions,
                                     int64_t n)
{
    declined = scaled_declined;
    return scaled(config) ? PECERT_E_UNSUPPORTED
                          : ref_desc->rope_cos_sin(instance, c, s, config, seq_len, positions, n);
}

static pecert_status default_apply(void *instance, const pecert_rope_apply_args *args)
{
    declined = scaled_declined;
    return scaled(args->config) ? PECERT_E_UNSUPPORTED : ref_desc->rope_apply(instance, args);
}

static void keep_families(void)
{
    if (!kept("rope")) {
        desc.rope_freqs = NULL;
        desc.rope_cos_sin = NULL;
        desc.rope_apply = NULL;
    } else if (getenv("PECERT_TEST_DEFAULT_ROPE_ONLY") != NULL) {
        desc.rope_freqs = default_freqs;
        desc.rope_cos_sin = default_cos_sin;
        desc.rope_apply = default_apply;
    }
    if (!kept("threads")) {
        desc.set_num_threads = NULL;
    }
    if (!kept("session")) {
        desc.session_create = NULL;
        desc.session_destroy = NULL;
        desc.session_append = NULL;
        desc.session_read_keys = NULL;
    } else if (getenv("PECERT_TEST_SESSION_FULL_ROTARY") != NULL) {
        desc.session_create = session_full_rotary_only;
    }
    if (!kept("mrope")) {
        desc.mrope_index = NULL;
        desc.mrope_apply = NULL;
    }
    if (!kept("alibi")) {
        desc.alibi_slopes = NULL;
        desc.alibi_bias = NULL;
    }
    if (!kept("t5")) {
        desc.t5_bucket = NULL;
    }
    if (!kept("learned")) {
        desc.learned_lookup = NULL;
    } else if (getenv("PECERT_TEST_LEARNED_UNSUPPORTED") != NULL) {
        desc.learned_lookup = learned_refused_unsupported;
    }
    if (!kept("vision")) {
        desc.rope2d_index = NULL;
        desc.rope2d_apply = NULL;
        desc.pos_interpolate = NULL;
    }
    /* Families no profile certifies: never kept. */
    desc.sinusoidal = NULL;
    desc.sincos_2d = NULL;
    desc.swin_index = NULL;
    desc.shaw_index = NULL;
    desc.txl_pos_emb = NULL;
    desc.txl_rel_shift = NULL;
    desc.cope_logits = NULL;
    desc.peg_apply = NULL;
    desc.sine2d = NULL;
    desc.relpos2d_bias = NULL;
    desc.deberta_bias = NULL;
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (ref_desc == NULL && (ref_desc = testing_ref_copy(&desc, "ops_subset")) != NULL) {
        desc.id = "org.pecert.testing.ops_subset";
        desc.last_error = subset_last_error;
        keep_families();
    }
    return ref_desc != NULL ? &desc : NULL;
}
