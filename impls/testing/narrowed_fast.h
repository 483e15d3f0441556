/*
 * narrowed_fast.h - `fast` narrowed to what many C/C++ and GPU engines
 * support: positions within int32 and whole heads only (rotary_dim ==
 * head_dim). Inside that scope it is fast, bit for bit. Two test plugins
 * include it:
 *   int32_whole_head.c  declares nothing and declines (E_UNSUPPORTED) what
 *                       lies outside: the checks must fall back to cases
 *                       inside (int32 positions, a whole-head probe);
 *   scoped_64k.c        the same with positions up to 2^16 only: a context
 *                       shorter than a checkpoint's, which certify must
 *                       not certify;
 *   scoped_int32.c      declares the scope (ABI 1.3, pecert_scope) and,
 *                       trusting it, writes zeros for what lies outside (a
 *                       decode session of a partial-rotary config rotates
 *                       the whole head): pecert must never call it there.
 * Both must still get verdicts from rope.thread_determinism and
 * rope.pairing_convention, and pass every check they take.
 */
#ifndef PECERT_TESTING_NARROWED_FAST_H
#define PECERT_TESTING_NARROWED_FAST_H

#include <stdint.h>
#include <string.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

/* The largest position taken (a plugin may narrow further). */
#ifndef NARROWED_MAX_POSITION
#define NARROWED_MAX_POSITION INT32_MAX
#endif

static pecert_plugin desc;
static const pecert_plugin *fast;

static const pecert_scope narrowed_scope = {
    .struct_size = sizeof(pecert_scope),
    .flags = PECERT_SCOPE_WHOLE_HEAD_ONLY,
    .max_position = NARROWED_MAX_POSITION,
};

static int in_scope(const pecert_rope_config *config, const int64_t *positions, int64_t n)
{
    for (int64_t i = 0; positions != NULL && i < n; i++) {
        if (positions[i] > NARROWED_MAX_POSITION || positions[i] < -(int64_t)NARROWED_MAX_POSITION) {
            return 0;
        }
    }
    return config == NULL || config->rotary_dim == config->head_dim;
}

/* Out of scope: declined, or (declared scope) garbage that the host must
 * never see. */
static pecert_status outside(pecert_tensor *out)
{
#if NARROWED_DECLARES_SCOPE
    int64_t n = 1;
    for (uint32_t k = 0; k < out->ndim; k++) {
        n *= out->shape[k];
    }
    if (out->dtype == PECERT_DTYPE_F32 && n > 0) {
        float *d = out->data;
        for (int64_t i = 0; i < n; i++) {
            d[i] = 0.0f; /* packed views only: enough to be wrong */
        }
    }
    return PECERT_OK;
#else
    (void)out;
    return PECERT_E_UNSUPPORTED;
#endif
}

static pecert_status apply(void *instance, const pecert_rope_apply_args *a)
{
    if (a != NULL && a->x != NULL && a->out != NULL && !in_scope(a->config, a->positions, a->x->shape[0])) {
        return outside(a->out);
    }
    return fast->rope_apply(instance, a);
}

static pecert_status cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                             const pecert_rope_config *config, int64_t seq_len, const int64_t *positions,
                             int64_t n_positions)
{
    if (!in_scope(config, positions, n_positions)) {
        pecert_status st = outside(out_cos);
        return st == PECERT_OK ? outside(out_sin) : st;
    }
    return fast->rope_cos_sin(instance, out_cos, out_sin, config, seq_len, positions, n_positions);
}

static pecert_status mrope(void *instance, const pecert_mrope_apply_args *a)
{
    if (a != NULL && a->x != NULL && a->out != NULL && a->num_axes > 0 &&
        !in_scope(a->config, a->positions, a->num_axes * a->x->shape[0])) {
        return outside(a->out);
    }
    return fast->mrope_apply(instance, a);
}

/* A decode session of a partial-rotary config: declined, or (declared
 * scope) a session that rotates the whole head, wrong for that config. */
static pecert_status session_create(void *instance, void **out_session, const pecert_session_config *config)
{
    if (config != NULL && config->rope != NULL && !in_scope(config->rope, NULL, 0)) {
#if NARROWED_DECLARES_SCOPE
        pecert_rope_config whole = *config->rope;
        pecert_session_config c = *config;
        whole.rotary_dim = whole.head_dim;
        c.rope = &whole;
        return fast->session_create(instance, out_session, &c);
#else
        return PECERT_E_UNSUPPORTED;
#endif
    }
    return fast->session_create(instance, out_session, config);
}

static pecert_status session_append(void *instance, void *session, const pecert_session_append_args *a)
{
    if (a != NULL && a->out != NULL && !in_scope(NULL, a->positions, a->n_tokens)) {
        return outside(a->out);
    }
    return fast->session_append(instance, session, a);
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    fast = testing_load_beside(&desc, "fast.so");
    if (fast == NULL) {
        return NULL;
    }
    desc = *fast;
    desc.id = NARROWED_ID;
    desc.name = NARROWED_NAME;
    desc.rope_apply = apply;
    desc.rope_cos_sin = cos_sin;
    desc.mrope_apply = mrope;
    desc.session_create = session_create;
    desc.session_append = session_append;
#if NARROWED_DECLARES_SCOPE
    desc.scope = &narrowed_scope;
#else
    (void)narrowed_scope;
#endif
    return &desc;
}

#endif /* PECERT_TESTING_NARROWED_FAST_H */
