/*
 * decode.h - a logical batch of sequences fed to a decode session in
 * different ways (one prefill, prefill + decode steps, uneven chunks,
 * padded and batched), with outputs gathered back in logical order and
 * compared under the attention error model (TOLERANCES.md, "Attention").
 */
#ifndef PECERT_CONFORMANCE_DECODE_H
#define PECERT_CONFORMANCE_DECODE_H

#include "checks.h"

#define PECERT_DECODE_MAX_SEQS 4

/* The sequences: token i of sequence s has q, k, v and a position. */
typedef struct pecert_logical_batch {
    const pecert_rope_config *rope;       /* NULL: an ALiBi-only model  */
    int32_t alibi;                        /* 1: linear ALiBi bias        */
    double alibi_max_bias;
    double alibi_bias_scale;              /* 0 = 1; Falcon 1/sqrt(d), ABI 1.5 */
    /* 1: the model's reference rounds slopes and biases to bfloat16
     * (Falcon): the bound admits that rounding as well as exact ones. */
    int32_t alibi_bf16_reference;
    pecert_rope_pairing pairing;
    int32_t n_seqs;
    int32_t n_heads;
    int32_t n_kv_heads;
    int32_t head_dim;
    int64_t len[PECERT_DECODE_MAX_SEQS];
    int64_t *pos[PECERT_DECODE_MAX_SEQS]; /* [len] */
    float *q[PECERT_DECODE_MAX_SEQS];     /* [len, n_heads, head_dim] */
    float *k[PECERT_DECODE_MAX_SEQS];     /* [len, n_kv_heads, head_dim] */
    float *v[PECERT_DECODE_MAX_SEQS];     /* [len, n_kv_heads, head_dim] */
} pecert_logical_batch;

/* One entry of an append call: token `index` of sequence `seq`, or a
 * padding token (index < 0) at `pad_position`. */
typedef struct pecert_feed_entry {
    int32_t seq;
    int64_t index;
    int64_t pad_position;
} pecert_feed_entry;

/* A way to feed the batch: calls[c] has n_entries[c] entries. */
typedef struct pecert_feed {
    const char *name;
    int n_calls;
    const pecert_feed_entry *const *calls;
    const int64_t *n_entries;
} pecert_feed;

/* Fills a batch with deterministic data; positions start at start[s]. */
int pecert_logical_batch_init(pecert_logical_batch *b, const pecert_rope_config *rope,
                              pecert_rope_pairing pairing, int32_t n_seqs, const int64_t *len,
                              const int64_t *start, uint64_t seed);
/* The same for an ALiBi-only model (no RoPE): n_heads query heads over
 * n_kv_heads kv heads of head_dim channels, slopes for max_bias. */
int pecert_logical_batch_init_alibi(pecert_logical_batch *b, int32_t n_heads, int32_t n_kv_heads,
                                    int32_t head_dim, double max_bias, int32_t n_seqs, const int64_t *len,
                                    const int64_t *start, uint64_t seed);
void pecert_logical_batch_free(pecert_logical_batch *b);

/* pecert_decode_equivalence_case: one sequence of b fed as one prefill,
 * as a prefill and 5 decode steps, and in uneven chunks (7, 1, 9, 7): each
 * run must equal the oracle's prefill and the plugin's own prefill
 * (decode.prefill_equivalence; certify's checkpoint cases). b holds 24
 * tokens of one sequence. */
#define PECERT_DECODE_PREFILL_LEN 24
void pecert_decode_equivalence_case(const pecert_check_env *env, pecert_check_result *r,
                                    const pecert_logical_batch *b, const char *label);

/* Outputs in logical order: out[s] is [len[s], n_heads, head_dim]. */
typedef struct pecert_logical_out {
    float *out[PECERT_DECODE_MAX_SEQS];
} pecert_logical_out;

/*
 * pecert_feed_run runs a session on subject s, appends every call of feed
 * and gathers the valid outputs into *out. Returns 0, or -1 after
 * recording why as a failed (or unsupported) case of r.
 */
int pecert_feed_run(pecert_logical_out *out, const pecert_subject *s, pecert_check_result *r,
                    const pecert_logical_batch *b, const pecert_feed *feed, const char *where);
void pecert_logical_out_free(pecert_logical_out *out, int32_t n_seqs);

/*
 * The attention error bound of every query (s, i, h) of a batch
 * (TOLERANCES.md, "Attention"): it depends on the batch and the oracle's
 * frequencies only, so every comparison of one batch shares one table.
 * at[s] is [len[s], n_heads]; ready is 0 when it could not be made.
 */
typedef struct pecert_decode_bounds {
    double *at[PECERT_DECODE_MAX_SEQS];
    int ready;
} pecert_decode_bounds;

/* Asks the oracle for b's frequencies (and ALiBi slopes) and fills *bd.
 * Returns 0, or -1 after recording why as a failed case of r. */
int pecert_decode_bounds_init(pecert_decode_bounds *bd, const pecert_check_env *env, pecert_check_result *r,
                              const pecert_logical_batch *b, const char *where);
void pecert_decode_bounds_free(pecert_decode_bounds *bd);

/*
 * pecert_decode_compare compares got with want for every token of every
 * sequence under b's bounds bd (times bound_factor) and records one case,
 * with the worst element named by sequence, token, head, channel. Records
 * nothing when bd is not ready (its init recorded why).
 */
void pecert_decode_compare(pecert_check_result *r, const pecert_logical_batch *b, const pecert_decode_bounds *bd,
                           const pecert_logical_out *got, const pecert_logical_out *want, double bound_factor,
                           const char *where);

extern const pecert_check pecert_check_decode_prefill_equivalence;
#define PECERT_ID_DECODE_PREFILL_EQUIVALENCE "decode.prefill_equivalence"
/* Symptoms it leaves, read by diagnose.c: decode_checks.c: + the feed whose output differs; the ALiBi scale the plugin
 * got wrong (also certify.alibi.attention). */
#define PECERT_SYMPTOM_DIFFERS             "differs:"
#define PECERT_SYMPTOM_ALIBI_SCALE         "alibi_scale:"
#define PECERT_SYMPTOM_ALIBI_SCALE_IGNORED PECERT_SYMPTOM_ALIBI_SCALE "ignored"
#define PECERT_SYMPTOM_ALIBI_SCALE_APPLIED PECERT_SYMPTOM_ALIBI_SCALE "applied"
extern const pecert_check pecert_check_batch_padding_independence;
#define PECERT_ID_BATCH_PADDING_INDEPENDENCE "batch.padding_independence"

#endif /* PECERT_CONFORMANCE_DECODE_H */
