/*
 * session_args.c - the argument checks of the decode session (plugin.h,
 * "Decode session"): the config at create, each append's header and
 * views. Shared by every engine that answers the same question (ref and
 * the honest variants), so that they differ in arithmetic only.
 */
#include <inttypes.h>
#include <math.h>

#include "ref.h"

pecert_status pecert__ref_check_session_config(const pecert__ref_call *call, const pecert_session_config *c)
{
    if (c == NULL || c->struct_size < sizeof(*c)) {
        return pecert__ref_fail(call, c == NULL ? PECERT_E_INVAL : PECERT_E_ABI,
                                "config is NULL or its struct_size is too small");
    }
    for (size_t i = 0; i < sizeof(c->reserved) / sizeof(c->reserved[0]); i++) {
        if (c->reserved[i] != 0) {
            return pecert__ref_fail(call, PECERT_E_UNSUPPORTED, "config.reserved[%zu] is not 0", i);
        }
    }
    if (c->n_seqs < 1 || c->n_seqs > 4096 || c->max_tokens < 1 || c->max_tokens > (1 << 20)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.n_seqs=%d (1..4096) or max_tokens=%d (1..2^20) out of range",
                                c->n_seqs, c->max_tokens);
    }
    if (c->n_heads < 1 || c->n_kv_heads < 1 || c->n_heads % c->n_kv_heads != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.n_heads=%d must be a positive multiple of n_kv_heads=%d",
                                c->n_heads, c->n_kv_heads);
    }
    if (c->pairing != PECERT_PAIRING_SPLIT_HALF && c->pairing != PECERT_PAIRING_INTERLEAVED) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "config.pairing=%d is not a pairing", c->pairing);
    }
    if (!(c->softmax_scale >= 0) || !isfinite(c->softmax_scale)) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "config.softmax_scale must be finite and >= 0");
    }
    if (c->alibi != 0 && (c->alibi != 1 || !(c->alibi_max_bias > 0) || !isfinite(c->alibi_max_bias))) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "config.alibi=%d needs 0, or 1 with alibi_max_bias > 0",
                                c->alibi);
    }
    if (!(c->alibi_bias_scale >= 0) || !isfinite(c->alibi_bias_scale) || (c->alibi == 0 && c->alibi_bias_scale != 0)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.alibi_bias_scale=%.17g needs to be finite and >= 0, and 0 without ALiBi",
                                c->alibi_bias_scale);
    }
    if (c->rope == NULL && (c->alibi == 0 || c->head_dim < 1 || c->head_dim > 65536)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.rope is NULL: needs alibi=1 and head_dim in 1..65536 (got %d)", c->head_dim);
    }
    if (c->rope != NULL && c->head_dim != 0 && c->head_dim != c->rope->head_dim) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "config.head_dim=%d differs from rope->head_dim=%d",
                                c->head_dim, c->rope->head_dim);
    }
    return pecert__ref_check_seq_len(call, c->seq_len);
}

pecert_status pecert__ref_check_session_append(const pecert__ref_call *call, const pecert_session_append_args *a,
                                              int64_t n_heads, int64_t n_kv_heads, int64_t head_dim)
{
    if (a == NULL || a->struct_size < sizeof(*a) || a->reserved0 != 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "args NULL, too small, or reserved0 set");
    }
    for (size_t i = 0; i < sizeof(a->reserved) / sizeof(a->reserved[0]); i++) {
        if (a->reserved[i] != 0) {
            return pecert__ref_fail(call, PECERT_E_UNSUPPORTED, "args.reserved[%zu] is not 0", i);
        }
    }
    if (a->n_tokens < 0 || (a->n_tokens > 0 && (a->positions == NULL || a->seq_ids == NULL))) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "n_tokens=%" PRId64 " with NULL positions/seq_ids",
                                a->n_tokens);
    }
    const pecert_tensor *t[4] = {a->q, a->k, a->v, a->out};
    const char *names[4] = {"q", "k", "v", "out"};
    const int64_t heads[4] = {n_heads, n_kv_heads, n_kv_heads, n_heads};
    for (int i = 0; i < 4; i++) {
        pecert_status st = pecert__ref_check_tensor(call, names[i], t[i], 3, 0, i == 3);
        if (st != PECERT_OK) {
            return st;
        }
        if (t[i]->shape[0] != a->n_tokens || t[i]->shape[1] != heads[i] || t[i]->shape[2] != head_dim) {
            return pecert__ref_fail(call, PECERT_E_INVAL, "%s shape [%" PRId64 ",%" PRId64 ",%" PRId64
                                    "], want [%" PRId64 ",%" PRId64 ",%" PRId64 "]", names[i], t[i]->shape[0],
                                    t[i]->shape[1], t[i]->shape[2], a->n_tokens, heads[i], head_dim);
        }
    }
    return pecert__ref_check_positions(call, a->positions, a->n_tokens);
}

pecert_status pecert__ref_check_read_keys(const pecert__ref_call *call, const pecert_tensor *out_keys,
                                          int64_t count, int32_t n_kv_heads, int32_t head_dim)
{
    pecert_status st = pecert__ref_check_tensor(call, "out_keys", out_keys, 3, 0, 1);
    if (st == PECERT_OK && (out_keys->shape[0] != count || out_keys->shape[1] != n_kv_heads ||
                            out_keys->shape[2] != head_dim)) {
        st = pecert__ref_fail(call, PECERT_E_INVAL, "out_keys must be [%" PRId64 ",%d,%d]", count,
                              n_kv_heads, head_dim);
    }
    return st;
}
