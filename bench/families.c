/*
 * families.c - the other families' operations, timed: each at one size
 * where it moves megabytes, on every thread count, beside the machine's
 * limit for the bytes it must move and beside the baseline (ref).
 *
 * An operation is held to a probe that moves its bytes: one that reads
 * what it writes to the fastest copy probe (plain, streaming, memcpy),
 * one that only writes to the fill probe, any other to the mix probe,
 * which reads the op's R bytes in step with writing its W (probe.c). GB/s
 * counts the bytes it must read plus those it writes (a copy of N bytes
 * moves 2N), so an operation's GB/s over its probe's is its share of the
 * limit. (Until 2026-12-08 an op that read less or more than it wrote was
 * held to the copy's GB/s, and one that read under a sixteenth of what it
 * wrote to the fill's: a copy's rate charges a read byte as much as a
 * written one, which on these hosts it is not - a bicubic resize reading
 * a sixteenth of what it writes was held to half a copy of its output,
 * faster than filling it; T5's distances, read twice, were charged at
 * the copy's rate, slower than loads alone.) Each case's samples
 * alternate with its probes' (bench_measure_group). What an op must read
 * includes its argument checks' pass over an input (every value is
 * checked before the first write): t5_bucket reads its distances twice.
 *
 * `memory_bound` tells the summary which cases its memory target applies
 * to: every op whose arithmetic per byte a vector unit outruns the memory
 * on (a compare or a few per element, a table row by steps, a 3 x 3 or
 * 4 x 4 filter per value). CoPE and DeBERTa's bias are not: each of
 * their scores is a dot product over head_dim (DeBERTa's 402 M
 * multiply-adds write 12 MB); their share of the limit says how far that
 * leaves them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* One prepared call of an operation: its arguments and the buffers they
 * point to (owned), shared by the subject and the baseline. */
typedef struct family_call {
    union {
        pecert_t5_bucket_args t5;
        pecert_shaw_index_args shaw;
        pecert_swin_index_args swin;
        pecert_learned_args learned;
        pecert_sinusoidal_args sinusoidal;
        pecert_sincos2d_args sincos2d;
        pecert_txl_pos_emb_args txl_emb;
        pecert_txl_rel_shift_args rel_shift;
        pecert_peg_args peg;
        pecert_sine2d_args sine2d;
        pecert_relpos2d_args relpos2d;
        pecert_deberta_args deberta;
        pecert_posinterp_args posinterp;
        pecert_cope_args cope;
        pecert_mrope_index_args mrope_index;
        pecert_rope2d_index_args rope2d_index;
        pecert_alibi_slopes_args alibi_slopes;
        struct {
            pecert_rope_config rope;
            pecert_session_config config;
            pecert_session_append_args append;
            void *session; /* the measured plugin's, filled by setup_read_keys */
        } read_keys;
        struct {
            pecert_rope_config config;
            double inv_freq[64];
            double scaling;
        } rope_freqs;
    } args;
    pecert_tensor views[8];
    void *owned[16];
    int n_owned;
    double read_bytes;
    double written_bytes;
} family_call;

typedef struct family_case {
    const char *op;
    const char *shape;
    int memory_bound;
    int tiny;            /* a few hundred bytes out: timed, no limit        */
    int (*prepare)(family_call *c);
    pecert_status (*run)(const pecert_plugin *d, void *instance, family_call *c);
    int (*has)(const pecert_plugin *d); /* the descriptor has the op, non-NULL */
    /* Per plugin instance, untimed, around its samples (NULL: none): the
     * state an op reads that only the plugin can build (a session). */
    int (*setup)(const pecert_plugin *d, void *instance, family_call *c);
    void (*teardown)(const pecert_plugin *d, void *instance, family_call *c);
} family_case;

/* run_OP and has_OP of an operation whose arguments are c->args.FIELD. */
#define FAMILY_OP(op, field)                                                                \
    static pecert_status run_##op(const pecert_plugin *d, void *instance, family_call *c)   \
    {                                                                                       \
        return d->op(instance, &c->args.field);                                             \
    }                                                                                       \
    static int has_##op(const pecert_plugin *d)                                             \
    {                                                                                       \
        return PECERT_HAS_FIELD(d, pecert_plugin, op) && d->op != NULL;                     \
    }

FAMILY_OP(t5_bucket, t5)
FAMILY_OP(shaw_index, shaw)
FAMILY_OP(swin_index, swin)
FAMILY_OP(learned_lookup, learned)
FAMILY_OP(txl_rel_shift, rel_shift)
FAMILY_OP(sinusoidal, sinusoidal)
FAMILY_OP(sincos_2d, sincos2d)
FAMILY_OP(txl_pos_emb, txl_emb)
FAMILY_OP(peg_apply, peg)
FAMILY_OP(sine2d, sine2d)
FAMILY_OP(relpos2d_bias, relpos2d)
FAMILY_OP(deberta_bias, deberta)
FAMILY_OP(pos_interpolate, posinterp)
FAMILY_OP(cope_logits, cope)
FAMILY_OP(mrope_index, mrope_index)
FAMILY_OP(rope2d_index, rope2d_index)
FAMILY_OP(alibi_slopes, alibi_slopes)

/* session_read_keys copies one sequence's cache, which a session of the
 * plugin's own must hold: setup creates it and appends every token as
 * padding (cached and rotated, attended by none: no attention to pay). */
static pecert_status run_session_read_keys(const pecert_plugin *d, void *instance, family_call *c)
{
    return d->session_read_keys(instance, c->args.read_keys.session, &c->views[0], 0);
}

static int has_session_read_keys(const pecert_plugin *d)
{
    return PECERT_HAS_FIELD(d, pecert_plugin, session_read_keys) && d->session_read_keys != NULL &&
           d->session_create != NULL && d->session_append != NULL && d->session_destroy != NULL;
}

static int setup_read_keys(const pecert_plugin *d, void *instance, family_call *c)
{
    c->args.read_keys.session = NULL;
    if (d->session_create(instance, &c->args.read_keys.session, &c->args.read_keys.config) != PECERT_OK) {
        return -1;
    }
    return d->session_append(instance, c->args.read_keys.session, &c->args.read_keys.append) == PECERT_OK ? 0 : -1;
}

static void teardown_read_keys(const pecert_plugin *d, void *instance, family_call *c)
{
    if (c->args.read_keys.session != NULL) {
        d->session_destroy(instance, c->args.read_keys.session);
        c->args.read_keys.session = NULL;
    }
}

static pecert_status run_rope_freqs(const pecert_plugin *d, void *instance, family_call *c)
{
    return d->rope_freqs(instance, c->args.rope_freqs.inv_freq, &c->args.rope_freqs.scaling,
                         &c->args.rope_freqs.config, 0);
}

static int has_rope_freqs(const pecert_plugin *d)
{
    return d->rope_freqs != NULL;
}

/* ---- buffers ------------------------------------------------------------ */

static void *own(family_call *c, size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);

    if (p != NULL) {
        memset(p, 0, bytes); /* pre-faulted */
        c->owned[c->n_owned++] = p;
    }
    return p;
}

static float *random_f32(family_call *c, size_t n, uint64_t seed)
{
    float *p = own(c, n * sizeof(float));

    if (p != NULL) {
        bench_fill_f32(p, n, seed);
    }
    return p;
}

static int64_t *arange(family_call *c, int64_t n)
{
    int64_t *p = own(c, (size_t)n * sizeof(int64_t));

    for (int64_t i = 0; p != NULL && i < n; i++) {
        p[i] = i;
    }
    return p;
}

/* A contiguous view of ndim axes (shape given, strides derived). */
static pecert_tensor *view(family_call *c, int slot, void *data, pecert_dtype dtype, int ndim, const int64_t *shape)
{
    pecert_tensor *t = &c->views[slot];
    int64_t stride = 1;

    *t = (pecert_tensor){.struct_size = sizeof(pecert_tensor), .dtype = dtype, .ndim = (uint32_t)ndim, .data = data};
    for (int i = ndim - 1; i >= 0; i--) {
        t->shape[i] = shape[i];
        t->strides[i] = stride;
        stride *= shape[i];
    }
    return t;
}

/* ---- the cases ---------------------------------------------------------- */

/* T5 buckets of every (query, key) pair of 2048 x 2048: int64 in, int32 out. */
#define T5_SIDE 2048
static int prepare_t5(family_call *c)
{
    int64_t n = (int64_t)T5_SIDE * T5_SIDE;
    int64_t *rel = own(c, (size_t)n * sizeof(int64_t));
    int32_t *out = own(c, (size_t)n * sizeof(int32_t));

    if (rel == NULL || out == NULL) {
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        rel[i] = i % T5_SIDE - i / T5_SIDE;
    }
    c->args.t5 = (pecert_t5_bucket_args){.struct_size = sizeof(pecert_t5_bucket_args), .bidirectional = 1,
                                         .num_buckets = 32, .max_distance = 128, .relative_positions = rel,
                                         .n = n, .out = view(c, 0, out, PECERT_DTYPE_I32, 1, &n)};
    c->read_bytes = 2.0 * (double)n * sizeof(int64_t); /* checked, then mapped */
    c->written_bytes = (double)n * sizeof(int32_t);
    return 0;
}


/* Shaw's clipped distances, 2048 x 2048 int32, K = 16 (positions read once). */
static int prepare_shaw(family_call *c)
{
    int64_t shape[2] = {2048, 2048};
    int64_t *pos = arange(c, 2048);
    int32_t *out = own(c, 2048 * 2048 * sizeof(int32_t));

    if (pos == NULL || out == NULL) {
        return -1;
    }
    c->args.shaw = (pecert_shaw_index_args){.struct_size = sizeof(pecert_shaw_index_args), .max_relative_position = 16,
                                            .q_positions = pos, .n_q = 2048, .k_positions = pos, .n_k = 2048,
                                            .out = view(c, 0, out, PECERT_DTYPE_I32, 2, shape)};
    c->written_bytes = 2048.0 * 2048 * sizeof(int32_t);
    return 0;
}


/* Swin's window index at its largest window, 48 x 48: [2304, 2304] int32. */
static int prepare_swin(family_call *c)
{
    int64_t shape[2] = {48 * 48, 48 * 48};
    int32_t *out = own(c, (size_t)(shape[0] * shape[1]) * sizeof(int32_t));

    if (out == NULL) {
        return -1;
    }
    c->args.swin = (pecert_swin_index_args){.struct_size = sizeof(pecert_swin_index_args), .window_h = 48,
                                            .window_w = 48, .out = view(c, 0, out, PECERT_DTYPE_I32, 2, shape)};
    c->written_bytes = (double)(shape[0] * shape[1]) * sizeof(int32_t);
    return 0;
}


/* A learned table [8192, 1024] f32 gathered at positions 0..8191. */
static int prepare_learned(family_call *c)
{
    int64_t shape[2] = {8192, 1024};
    float *table = random_f32(c, 8192 * 1024, 7);
    float *out = own(c, 8192 * 1024 * sizeof(float));
    int64_t *pos = arange(c, 8192);

    if (table == NULL || out == NULL || pos == NULL) {
        return -1;
    }
    c->args.learned = (pecert_learned_args){.struct_size = sizeof(pecert_learned_args),
                                            .convention = PECERT_LEARNED_PLAIN, .padding_idx = -1,
                                            .table = view(c, 0, table, PECERT_DTYPE_F32, 2, shape),
                                            .positions = pos, .n = 8192,
                                            .out = view(c, 1, out, PECERT_DTYPE_F32, 2, shape)};
    c->read_bytes = 8192.0 * 1024 * sizeof(float) + 8192.0 * sizeof(int64_t);
    c->written_bytes = 8192.0 * 1024 * sizeof(float);
    return 0;
}


/* The Vaswani table [8192, 1024] f32 at positions 0..8191. */
static int prepare_sinusoidal(family_call *c)
{
    int64_t shape[2] = {8192, 1024};
    float *out = own(c, 8192 * 1024 * sizeof(float));
    int64_t *pos = arange(c, 8192);

    if (out == NULL || pos == NULL) {
        return -1;
    }
    c->args.sinusoidal = (pecert_sinusoidal_args){.struct_size = sizeof(pecert_sinusoidal_args),
                                                  .variant = PECERT_SINUSOIDAL_INTERLEAVED, .dim = 1024,
                                                  .padding_idx = -1, .base = 10000.0, .positions = pos, .n = 8192,
                                                  .out = view(c, 0, out, PECERT_DTYPE_F32, 2, shape)};
    c->read_bytes = 8192.0 * sizeof(int64_t);
    c->written_bytes = 8192.0 * 1024 * sizeof(float);
    return 0;
}


/* MAE's 2-D sin-cos table: a 64 x 64 grid, embed_dim 1024, f32. */
static int prepare_sincos2d(family_call *c)
{
    int64_t shape[2] = {64 * 64, 1024};
    float *out = own(c, 64 * 64 * 1024 * sizeof(float));

    if (out == NULL) {
        return -1;
    }
    c->args.sincos2d = (pecert_sincos2d_args){.struct_size = sizeof(pecert_sincos2d_args), .embed_dim = 1024,
                                              .grid_h = 64, .grid_w = 64, .base = 10000.0,
                                              .out = view(c, 0, out, PECERT_DTYPE_F32, 2, shape)};
    c->written_bytes = 64.0 * 64 * 1024 * sizeof(float);
    return 0;
}


/* Transformer-XL's relative table, klen 8192, d_model 1024, f32. */
static int prepare_txl_emb(family_call *c)
{
    int64_t shape[2] = {8192, 1024};
    float *out = own(c, 8192 * 1024 * sizeof(float));

    if (out == NULL) {
        return -1;
    }
    c->args.txl_emb = (pecert_txl_pos_emb_args){.struct_size = sizeof(pecert_txl_pos_emb_args), .d_model = 1024,
                                                .klen = 8192, .out = view(c, 0, out, PECERT_DTYPE_F32, 2, shape)};
    c->written_bytes = 8192.0 * 1024 * sizeof(float);
    return 0;
}


/* Transformer-XL's relative shift of scores [512, 1024, 16] f32. */
static int prepare_rel_shift(family_call *c)
{
    int64_t shape[3] = {512, 1024, 16};
    size_t n = 512 * 1024 * 16;
    float *x = random_f32(c, n, 11);
    float *out = own(c, n * sizeof(float));

    if (x == NULL || out == NULL) {
        return -1;
    }
    c->args.rel_shift = (pecert_txl_rel_shift_args){.struct_size = sizeof(pecert_txl_rel_shift_args),
                                                    .x = view(c, 0, x, PECERT_DTYPE_F32, 3, shape),
                                                    .out = view(c, 1, out, PECERT_DTYPE_F32, 3, shape)};
    c->read_bytes = c->written_bytes = (double)n * sizeof(float);
    return 0;
}


/* PEG: a 3 x 3 depthwise filter over a 64 x 64 grid of 768 channels and a
 * class token. */
static int prepare_peg(family_call *c)
{
    int64_t rows = 1 + 64 * 64;
    int64_t shape[2] = {rows, 768}, wshape[3] = {768, 3, 3}, bshape[1] = {768};
    float *x = random_f32(c, (size_t)(rows * 768), 13);
    float *w = random_f32(c, 768 * 9, 17);
    float *b = random_f32(c, 768, 19);
    float *out = own(c, (size_t)(rows * 768) * sizeof(float));

    if (x == NULL || w == NULL || b == NULL || out == NULL) {
        return -1;
    }
    c->args.peg = (pecert_peg_args){.struct_size = sizeof(pecert_peg_args), .prefix_tokens = 1, .grid_h = 64,
                                    .grid_w = 64, .kernel = 3, .x = view(c, 0, x, PECERT_DTYPE_F32, 2, shape),
                                    .weight = view(c, 1, w, PECERT_DTYPE_F32, 3, wshape),
                                    .bias = view(c, 2, b, PECERT_DTYPE_F32, 1, bshape),
                                    .out = view(c, 3, out, PECERT_DTYPE_F32, 2, shape)};
    c->read_bytes = c->written_bytes = (double)(rows * 768) * sizeof(float);
    return 0;
}

/* DETR's sine embedding of a Deformable DETR batch's largest map (1066 x
 * 1333 at stride 8: 134 x 167), 256 channels, the image padded at the
 * bottom and right (120 x 150 valid). */
static int prepare_sine2d(family_call *c)
{
    int64_t h = 134, w = 167, mshape[2] = {h, w}, oshape[2] = {h * w, 256};
    int64_t *mask = own(c, (size_t)(h * w) * sizeof(int64_t));
    float *out = own(c, (size_t)(h * w * 256) * sizeof(float));

    if (mask == NULL || out == NULL) {
        return -1;
    }
    for (int64_t i = 0; i < h * w; i++) {
        mask[i] = i / w < 120 && i % w < 150;
    }
    c->args.sine2d = (pecert_sine2d_args){.struct_size = sizeof(pecert_sine2d_args), .num_pos_feats = 128,
                                          .normalize = 1, .temperature_y = 10000.0, .temperature_x = 10000.0,
                                          .scale = 2 * M_PI, .offset = -0.5, .eps = 1e-6,
                                          .mask = view(c, 0, mask, PECERT_DTYPE_I64, 2, mshape),
                                          .out = view(c, 1, out, PECERT_DTYPE_F32, 2, oshape)};
    c->read_bytes = (double)(h * w) * sizeof(int64_t);
    c->written_bytes = (double)(h * w * 256) * sizeof(float);
    return 0;
}

/* SAM ViT-B's global attention (image encoder layers 2, 5, 8, 11): a 64 x
 * 64 grid on itself, 12 heads of 64 channels, the 127-row tables as
 * trained (no resize). Output-bound: 16.8M floats a head. One head here
 * (67 MB), as a batch of one image's heads is twelve of them. */
static int prepare_relpos2d(family_call *c)
{
    int64_t side = 64, tokens = side * side, ch = 64, rows = 2 * side - 1;
    int64_t qshape[3] = {1, tokens, ch}, tshape[2] = {rows, ch}, oshape[3] = {1, tokens, tokens};
    float *query = own(c, (size_t)(tokens * ch) * sizeof(float));
    float *th = own(c, (size_t)(rows * ch) * sizeof(float));
    float *tw = own(c, (size_t)(rows * ch) * sizeof(float));
    float *out = own(c, (size_t)(tokens * tokens) * sizeof(float));

    if (query == NULL || th == NULL || tw == NULL || out == NULL) {
        return -1;
    }
    for (int64_t i = 0; i < tokens * ch; i++) {
        query[i] = (float)((i * 37) % 101) / 101.0f - 0.5f;
    }
    for (int64_t i = 0; i < rows * ch; i++) {
        th[i] = (float)((i * 13) % 97) / 97.0f - 0.5f;
        tw[i] = (float)((i * 29) % 89) / 89.0f - 0.5f;
    }
    c->args.relpos2d = (pecert_relpos2d_args){.struct_size = sizeof(pecert_relpos2d_args), .q_h = side,
                                              .q_w = side, .k_h = side, .k_w = side,
                                              .query = view(c, 0, query, PECERT_DTYPE_F32, 3, qshape),
                                              .rel_pos_h = view(c, 1, th, PECERT_DTYPE_F32, 2, tshape),
                                              .rel_pos_w = view(c, 2, tw, PECERT_DTYPE_F32, 2, tshape),
                                              .out = view(c, 3, out, PECERT_DTYPE_F32, 3, oshape)};
    c->read_bytes = (double)(tokens * ch + 2 * rows * ch) * sizeof(float);
    c->written_bytes = (double)(tokens * tokens) * sizeof(float);
    return 0;
}

/* DeBERTa-v3-base's relative positions at its trained length: 512 tokens,
 * 12 heads of 64, both terms over 256 buckets (512-row tables). */
static int prepare_deberta(family_call *c)
{
    int64_t heads = 12, len = 512, d = 64, rows = 512;
    int64_t xshape[3] = {heads, len, d}, tshape[3] = {heads, rows, d}, oshape[3] = {heads, len, len};
    float *q = random_f32(c, (size_t)(heads * len * d), 31);
    float *k = random_f32(c, (size_t)(heads * len * d), 37);
    float *pk = random_f32(c, (size_t)(heads * rows * d), 41);
    float *pq = random_f32(c, (size_t)(heads * rows * d), 43);
    float *out = own(c, (size_t)(heads * len * len) * sizeof(float));

    if (q == NULL || k == NULL || pk == NULL || pq == NULL || out == NULL) {
        return -1;
    }
    c->args.deberta = (pecert_deberta_args){.struct_size = sizeof(pecert_deberta_args),
                                            .terms = PECERT_DEBERTA_C2P | PECERT_DEBERTA_P2C, .bucket_size = 256,
                                            .max_position = 512,
                                            .q = view(c, 0, q, PECERT_DTYPE_F32, 3, xshape),
                                            .k = view(c, 1, k, PECERT_DTYPE_F32, 3, xshape),
                                            .pos_key = view(c, 2, pk, PECERT_DTYPE_F32, 3, tshape),
                                            .pos_query = view(c, 3, pq, PECERT_DTYPE_F32, 3, tshape),
                                            .out = view(c, 4, out, PECERT_DTYPE_F32, 3, oshape)};
    c->read_bytes = (double)(2 * heads * len * d + 2 * heads * rows * d) * sizeof(float);
    c->written_bytes = (double)(heads * len * len) * sizeof(float);
    return 0;
}

/* A ViT's 16 x 16 table of 1024 channels resized bicubically to 64 x 64. */
static int prepare_posinterp(family_call *c)
{
    int64_t tshape[2] = {1 + 16 * 16, 1024}, oshape[2] = {1 + 64 * 64, 1024};
    float *table = random_f32(c, (size_t)(tshape[0] * tshape[1]), 23);
    float *out = own(c, (size_t)(oshape[0] * oshape[1]) * sizeof(float));

    if (table == NULL || out == NULL) {
        return -1;
    }
    c->args.posinterp = (pecert_posinterp_args){.struct_size = sizeof(pecert_posinterp_args),
                                                .mode = PECERT_POSINTERP_BICUBIC, .prefix_tokens = 1,
                                                .merge_size = 1, .grid_h = 16, .grid_w = 16, .out_h = 64,
                                                .out_w = 64, .table = view(c, 0, table, PECERT_DTYPE_F32, 2, tshape),
                                                .out = view(c, 1, out, PECERT_DTYPE_F32, 2, oshape)};
    c->read_bytes = (double)(tshape[0] * tshape[1]) * sizeof(float);
    c->written_bytes = (double)(oshape[0] * oshape[1]) * sizeof(float);
    return 0;
}


/* CoPE: 1024 queries x 1024 keys, head_dim 128, 64 positions, causal. */
static int prepare_cope(family_call *c)
{
    int64_t qshape[2] = {1024, 128}, pshape[2] = {128, 64}, sshape[2] = {1024, 1024};
    float *q = random_f32(c, 1024 * 128, 29);
    float *k = random_f32(c, 1024 * 128, 31);
    float *pos_emb = random_f32(c, 128 * 64, 37);
    float *mask = own(c, 1024 * 1024 * sizeof(float));
    float *positions = own(c, 1024 * 1024 * sizeof(float));
    float *logits = own(c, 1024 * 1024 * sizeof(float));

    if (q == NULL || k == NULL || pos_emb == NULL || mask == NULL || positions == NULL || logits == NULL) {
        return -1;
    }
    for (int64_t i = 0; i < 1024; i++) {
        for (int64_t j = 0; j <= i; j++) {
            mask[i * 1024 + j] = 1.0f;
        }
    }
    c->args.cope = (pecert_cope_args){.struct_size = sizeof(pecert_cope_args), .npos = 64,
                                      .q = view(c, 0, q, PECERT_DTYPE_F32, 2, qshape),
                                      .k = view(c, 1, k, PECERT_DTYPE_F32, 2, qshape),
                                      .gate_k = view(c, 2, k, PECERT_DTYPE_F32, 2, qshape),
                                      .pos_emb = view(c, 3, pos_emb, PECERT_DTYPE_F32, 2, pshape),
                                      .mask = view(c, 4, mask, PECERT_DTYPE_F32, 2, sshape),
                                      .positions = view(c, 5, positions, PECERT_DTYPE_F32, 2, sshape),
                                      .logits = view(c, 6, logits, PECERT_DTYPE_F32, 2, sshape)};
    c->read_bytes = 1024.0 * 1024 * sizeof(float) + 2 * 1024.0 * 128 * sizeof(float);
    c->written_bytes = 2 * 1024.0 * 1024 * sizeof(float);
    return 0;
}


/* Qwen2-VL's M-RoPE position ids of 4 prompts of 16384 tokens, each 100
 * text tokens, an image of 64 x 64 patches merged 2 x 2 (1024 tokens), then
 * text: [3, 4, 16384] i64 and the deltas. */
#define MROPE_SEQ 16384
static int prepare_mrope_index(family_call *c)
{
    static const int64_t image = 151655, start = 151652;
    int64_t shape[3] = {3, 4, MROPE_SEQ}, dshape[1] = {4};
    int64_t *ids = own(c, 4 * MROPE_SEQ * sizeof(int64_t));
    int64_t *grid = own(c, 4 * 3 * sizeof(int64_t));
    int64_t *pos = own(c, 3 * 4 * MROPE_SEQ * sizeof(int64_t));
    int64_t *deltas = own(c, 4 * sizeof(int64_t));

    if (ids == NULL || grid == NULL || pos == NULL || deltas == NULL) {
        return -1;
    }
    for (int64_t b = 0; b < 4; b++) {
        for (int64_t t = 0; t < MROPE_SEQ; t++) {
            ids[b * MROPE_SEQ + t] = t == 100 ? start : (t > 100 && t <= 1124 ? image : 1000 + t % 5000);
        }
        grid[3 * b] = 1;
        grid[3 * b + 1] = grid[3 * b + 2] = 64;
    }
    c->args.mrope_index = (pecert_mrope_index_args){.struct_size = sizeof(pecert_mrope_index_args),
                                                    .spatial_merge_size = 2, .image_token_id = image,
                                                    .video_token_id = image + 1, .vision_start_token_id = start,
                                                    .batch = 4, .seq_len = MROPE_SEQ, .input_ids = ids,
                                                    .image_grid_thw = grid, .n_images = 4,
                                                    .out_position_ids = view(c, 0, pos, PECERT_DTYPE_I64, 3, shape),
                                                    .out_deltas = view(c, 1, deltas, PECERT_DTYPE_I64, 1, dshape)};
    c->read_bytes = 4.0 * MROPE_SEQ * sizeof(int64_t);
    c->written_bytes = 3.0 * 4 * MROPE_SEQ * sizeof(int64_t);
    return 0;
}

/* Qwen2-VL's vision positions of a 256 x 256 patch image in 2 x 2 merge
 * windows: [2, 65536] i64. */
static int prepare_rope2d_index(family_call *c)
{
    int64_t shape[2] = {2, 256 * 256};
    int64_t *grid = own(c, 3 * sizeof(int64_t));
    int64_t *pos = own(c, 2 * 256 * 256 * sizeof(int64_t));

    if (grid == NULL || pos == NULL) {
        return -1;
    }
    grid[0] = 1;
    grid[1] = grid[2] = 256;
    c->args.rope2d_index = (pecert_rope2d_index_args){.struct_size = sizeof(pecert_rope2d_index_args),
                                                      .scheme = PECERT_ROPE2D_MERGE_WINDOWS, .spatial_merge_size = 2,
                                                      .grid_thw = grid, .n_images = 1,
                                                      .out_positions = view(c, 0, pos, PECERT_DTYPE_I64, 2, shape)};
    c->written_bytes = 2.0 * 256 * 256 * sizeof(int64_t);
    return 0;
}

/* The keys of a Llama-3-8B layer's cache (8 kv heads, head_dim 128) for
 * 4096 tokens, 16 MiB, f32: head-major in fast's cache, token-major out. */
#define READ_KEYS_TOKENS 4096
static int prepare_read_keys(family_call *c)
{
    int64_t keys_shape[3] = {READ_KEYS_TOKENS, 8, 128};
    size_t n = (size_t)READ_KEYS_TOKENS * 8 * 128;
    float *out = own(c, n * sizeof(float));
    float *q = random_f32(c, n, 5);
    float *k = random_f32(c, n, 6);
    float *v = random_f32(c, n, 7);
    float *attended = own(c, n * sizeof(float));
    int64_t *positions = arange(c, READ_KEYS_TOKENS);
    int32_t *seq_ids = own(c, READ_KEYS_TOKENS * sizeof(int32_t));
    uint8_t *valid = own(c, READ_KEYS_TOKENS); /* zeros: every token padding */

    if (out == NULL || q == NULL || k == NULL || v == NULL || attended == NULL || positions == NULL ||
        seq_ids == NULL || valid == NULL) {
        return -1;
    }
    c->args.read_keys.rope = (pecert_rope_config){.struct_size = sizeof(pecert_rope_config), .head_dim = 128,
                                                  .rotary_dim = 128, .rope_theta = 500000.0,
                                                  .max_position_embeddings = 8192, .factor = 1.0};
    c->args.read_keys.config = (pecert_session_config){.struct_size = sizeof(pecert_session_config),
                                                       .pairing = PECERT_PAIRING_SPLIT_HALF,
                                                       .rope = &c->args.read_keys.rope, .n_seqs = 1,
                                                       .max_tokens = READ_KEYS_TOKENS, .n_heads = 8,
                                                       .n_kv_heads = 8};
    c->args.read_keys.append = (pecert_session_append_args){
        .struct_size = sizeof(pecert_session_append_args), .n_tokens = READ_KEYS_TOKENS, .positions = positions,
        .seq_ids = seq_ids, .valid = valid, .q = view(c, 1, q, PECERT_DTYPE_F32, 3, keys_shape),
        .k = view(c, 2, k, PECERT_DTYPE_F32, 3, keys_shape), .v = view(c, 3, v, PECERT_DTYPE_F32, 3, keys_shape),
        .out = view(c, 4, attended, PECERT_DTYPE_F32, 3, keys_shape)};
    (void)view(c, 0, out, PECERT_DTYPE_F32, 3, keys_shape);
    c->read_bytes = (double)n * sizeof(float);
    c->written_bytes = (double)n * sizeof(float);
    return 0;
}

/* The slopes of 64 heads, f64. */
static int prepare_alibi_slopes(family_call *c)
{
    int64_t shape[1] = {64};
    double *out = own(c, 64 * sizeof(double));

    if (out == NULL) {
        return -1;
    }
    c->args.alibi_slopes = (pecert_alibi_slopes_args){.struct_size = sizeof(pecert_alibi_slopes_args),
                                                      .num_heads = 64, .max_bias = 8.0,
                                                      .out = view(c, 0, out, PECERT_DTYPE_F64, 1, shape)};
    c->written_bytes = 64.0 * sizeof(double);
    return 0;
}

/* Llama 3.1's frequencies: llama3 scaling, head_dim 128. */
static int prepare_rope_freqs(family_call *c)
{
    c->args.rope_freqs.config = (pecert_rope_config){.struct_size = sizeof(pecert_rope_config),
                                                     .rope_type = PECERT_ROPE_LLAMA3, .head_dim = 128,
                                                     .rotary_dim = 128, .rope_theta = 500000.0, .factor = 8.0,
                                                     .max_position_embeddings = 131072,
                                                     .original_max_position_embeddings = 8192,
                                                     .present = PECERT_ROPE_HAS_FACTOR |
                                                                PECERT_ROPE_HAS_ORIGINAL_MAX_POS |
                                                                PECERT_ROPE_HAS_LOW_FREQ_FACTOR |
                                                                PECERT_ROPE_HAS_HIGH_FREQ_FACTOR,
                                                     .low_freq_factor = 1.0, .high_freq_factor = 4.0};
    c->written_bytes = 64.0 * sizeof(double);
    return 0;
}

#define CASE(op, shape, memory_bound, prepare) {#op, shape, memory_bound, 0, prepare, run_##op, has_##op, NULL, NULL}
#define TINY(op, shape, prepare) {#op, shape, 0, 1, prepare, run_##op, has_##op, NULL, NULL}

static const family_case cases[] = {
    CASE(t5_bucket, "[2048 x 2048] i64 -> i32, 32 buckets", 1, prepare_t5),
    CASE(shaw_index, "[2048, 2048] i32, K 16", 1, prepare_shaw),
    CASE(swin_index, "[2304, 2304] i32, window 48", 1, prepare_swin),
    CASE(learned_lookup, "[8192, 1024] f32", 1, prepare_learned),
    CASE(txl_rel_shift, "[512, 1024, 16] f32", 1, prepare_rel_shift),
    CASE(sinusoidal, "[8192, 1024] f32, interleaved", 1, prepare_sinusoidal),
    CASE(sincos_2d, "[4096, 1024] f32, 64 x 64 grid", 1, prepare_sincos2d),
    CASE(txl_pos_emb, "[8192, 1024] f32", 1, prepare_txl_emb),
    CASE(peg_apply, "[4097, 768] f32, 3 x 3", 1, prepare_peg),
    CASE(sine2d, "[134 x 167, 256] f32, padded mask", 1, prepare_sine2d),
    CASE(relpos2d_bias, "SAM-B global, 64 x 64 on 64 x 64, C 64, 127-row tables", 1, prepare_relpos2d),
    CASE(deberta_bias, "DeBERTa-v3-base, 512 tokens, 12 heads of 64, c2p + p2c, 256 buckets", 0, prepare_deberta),
    CASE(pos_interpolate, "16x16 -> 64x64, 1024 f32, bicubic", 1, prepare_posinterp),
    CASE(cope_logits, "[1024, 1024], head_dim 128, causal", 0, prepare_cope),
    CASE(mrope_index, "[3, 4, 16384] i64, an image per prompt", 0, prepare_mrope_index),
    CASE(rope2d_index, "[2, 65536] i64, 2 x 2 windows", 0, prepare_rope2d_index),
    {"session_read_keys", "[4096, 8, 128] f32, Llama-3-8B's kv heads", 1, 0, prepare_read_keys,
     run_session_read_keys, has_session_read_keys, setup_read_keys, teardown_read_keys},
    TINY(alibi_slopes, "64 heads, f64", prepare_alibi_slopes),
    TINY(rope_freqs, "llama3, head_dim 128", prepare_rope_freqs),
};

/* ---- measuring ------------------------------------------------------------ */

/* Samples per figure of the baseline, which may take a second a call. */
#define BASELINE_REPS 3

typedef struct family_once {
    const family_case *fc;
    family_call *call;
    bench_subject *subject;
    pecert_status status;
} family_once;

static int family_run_once(void *context)
{
    family_once *o = context;

    o->status = o->fc->run(o->subject->plugin.desc, o->subject->instance, o->call);
    return o->status == PECERT_OK ? 0 : -1;
}

static void release(family_call *c)
{
    for (int i = 0; i < c->n_owned; i++) {
        free(c->owned[i]);
    }
    c->n_owned = 0;
}

/* What a row says: the op at a thread count, its limit, its ratio. */
typedef struct family_row {
    const family_case *fc;
    const family_call *call;
    const char *impl;
    int threads;
    bench_stats stats;
    double limit_gbps;        /* the probe's; 0: not measured            */
    const char *probe;
    double ref_median;        /* 0: no baseline                          */
} family_row;

static double row_gbps(const family_row *r)
{
    return r->stats.median > 0 ? (r->call->read_bytes + r->call->written_bytes) / r->stats.median * 1e-9 : 0.0;
}

static void emit_row(cJSON *rows, const family_row *r, family_tally *tally)
{
    double gbps = row_gbps(r);
    double pct = r->limit_gbps > 0 ? 100.0 * gbps / r->limit_gbps : 0.0;
    cJSON *o = cJSON_CreateObject();

    if (r->stats.median < 1e-3) {
        printf("  %-15s %-5s thr=%d  median %10.3f us  %7.2f GB/s", r->fc->op, r->impl, r->threads,
               r->stats.median * 1e6, gbps);
    } else {
        printf("  %-15s %-5s thr=%d  median %10.3f ms  %7.2f GB/s", r->fc->op, r->impl, r->threads,
               r->stats.median * 1e3, gbps);
    }
    if (r->limit_gbps > 0) {
        printf("  %5.1f%% of %s", pct, r->probe);
    }
    if (r->ref_median > 0) {
        printf("  %7.1fx ref", r->ref_median / r->stats.median);
    }
    printf("\n");
    cJSON_AddStringToObject(o, "op", r->fc->op);
    cJSON_AddStringToObject(o, "shape", r->fc->shape);
    cJSON_AddStringToObject(o, "impl", r->impl);
    cJSON_AddNumberToObject(o, "threads", r->threads);
    cJSON_AddBoolToObject(o, "memory_bound", r->fc->memory_bound);
    cJSON_AddNumberToObject(o, "bytes_read", r->call->read_bytes);
    cJSON_AddNumberToObject(o, "bytes_written", r->call->written_bytes);
    cJSON_AddItemToObject(o, "time", bench_stats_json(&r->stats));
    cJSON_AddNumberToObject(o, "gbps", gbps);
    if (r->limit_gbps > 0) {
        cJSON_AddNumberToObject(o, "limit_gbps", r->limit_gbps);
        cJSON_AddStringToObject(o, "limit_probe", r->probe);
        cJSON_AddNumberToObject(o, "pct_of_limit", pct);
    }
    if (r->ref_median > 0) {
        cJSON_AddNumberToObject(o, "speedup_vs_ref", r->ref_median / r->stats.median);
    }
    cJSON_AddItemToArray(rows, o);
    if (tally != NULL && r->fc->memory_bound && r->limit_gbps > 0) {
        tally->n++;
        tally->met += pct >= FAMILY_TARGET_PCT;
        tally->worst_pct = tally->n == 1 || pct < tally->worst_pct ? pct : tally->worst_pct;
    }
}

/* The baseline alone on one thread; its median (0 if it failed). */
static double measure_baseline(cJSON *rows, const family_case *fc, family_call *call, bench_subject *baseline,
                               int reps)
{
    family_once once = {fc, call, baseline, PECERT_OK};
    family_row row = {.fc = fc, .call = call, .impl = baseline->name, .threads = 1, .probe = ""};

    if (!fc->has(baseline->plugin.desc) || bench_subject_threads(baseline, 1) != 0 ||
        bench_measure(&row.stats, family_run_once, &once, reps < BASELINE_REPS ? reps : BASELINE_REPS,
                      BENCH_MIN_SAMPLE_S) != 0) {
        return 0.0;
    }
    emit_row(rows, &row, NULL);
    return row.stats.median;
}

/* The probes a case is timed beside, by its op's bytes read (R) and
 * written (W): where R = W the three copies (rope_apply's yardstick),
 * where R = 0 the fill (ALiBi's), else the mix of R and W. Its limit is
 * the fastest. */
typedef struct limit_probes {
    bench_probe_kind kinds[3];
    int n;
} limit_probes;

static limit_probes limit_probes_for(const family_call *call)
{
    if (call->read_bytes == call->written_bytes) {
        return (limit_probes){{BENCH_PROBE_COPY, BENCH_PROBE_COPY_NT, BENCH_PROBE_MEMCPY}, 3};
    }
    if (call->read_bytes <= 0) {
        return (limit_probes){{BENCH_PROBE_FILL}, 1};
    }
    return (limit_probes){{BENCH_PROBE_MIX}, 1};
}

/* The subject at `threads` beside its probes (team: the pinned team of the
 * multi-thread probes, parked). */
static void measure_subject(cJSON *rows, const family_case *fc, family_call *call, bench_subject *subject,
                            int threads, bench_team *team, void *src, void *dst, int reps, double ref_median,
                            family_tally *tally)
{
    limit_probes lp = limit_probes_for(call);
    family_once once = {fc, call, subject, PECERT_OK};
    bench_probe_call probes[3];
    bench_member members[4];
    family_row row = {.fc = fc, .call = call, .impl = subject->name, .threads = threads, .ref_median = ref_median};

    if (bench_subject_threads(subject, threads) != 0) {
        return;
    }
    lp.n = fc->tiny ? 0 : lp.n; /* a call's cost, not bytes: no yardstick */
    memset(members, 0, sizeof(members));
    members[0] = (bench_member){.fn = family_run_once, .context = &once};
    for (int i = 0; i < lp.n; i++) {
        bench_probe_member_mix(&members[1 + i], &probes[i], lp.kinds[i], (size_t)call->read_bytes,
                               (size_t)call->written_bytes, threads > 1 ? team : NULL, src, dst);
    }
    if (bench_measure_group(members, 1 + lp.n, reps, BENCH_MIN_SAMPLE_S) != 0) {
        printf("  %-15s %s failed (status %d): %s\n", fc->op, subject->name, once.status,
               subject->plugin.desc->last_error != NULL ? subject->plugin.desc->last_error(subject->instance) : "");
        return;
    }
    row.stats = members[0].stats;
    for (int i = 0; i < lp.n; i++) {
        double gbps = (call->read_bytes + call->written_bytes) / members[1 + i].stats.median * 1e-9;

        if (gbps > row.limit_gbps) {
            row.limit_gbps = gbps;
            row.probe = bench_probe_name(lp.kinds[i]);
        }
    }
    emit_row(rows, &row, tally);
}

static void tear_down(const family_case *fc, bench_subject *s, family_call *call)
{
    if (fc->teardown != NULL) {
        fc->teardown(s->plugin.desc, s->instance, call);
    }
}

/* A case's setup for one plugin; 0 (said why) if it failed. */
static int set_up(const family_case *fc, bench_subject *s, family_call *call)
{
    const pecert_plugin *d = s->plugin.desc;

    if (fc->setup == NULL || fc->setup(d, s->instance, call) == 0) {
        return 1;
    }
    printf("  %-15s %s: setting up failed: %s\n", fc->op, s->name,
           d->last_error != NULL ? d->last_error(s->instance) : "");
    tear_down(fc, s, call);
    return 0;
}

/* The probes' source: the copies read W bytes, the mix R. */
static double probe_source_bytes(const family_call *call)
{
    return call->read_bytes > call->written_bytes ? call->read_bytes : call->written_bytes;
}

int bench_families(cJSON *root, bench_subject *subject, bench_subject *baseline, const int *threads,
                   int n_threads, int reps, bench_team *team, family_tally *tally)
{
    cJSON *rows = cJSON_AddArrayToObject(root, "families");

    printf("\nother families' operations: GB/s counts the bytes each must read and write; the limit is a probe "
           "moving the same bytes (copy where it reads what it writes, fill where it reads nothing, else mix) at the "
           "same thread count\n");
    memset(tally, 0, sizeof(*tally));
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const family_case *fc = &cases[i];
        family_call call;
        void *src, *dst;
        double ref_median = 0.0;

        if (!fc->has(subject->plugin.desc)) {
            printf("  %-15s %s does not implement it\n", fc->op, subject->name);
            continue;
        }
        memset(&call, 0, sizeof(call));
        /* The probes copy random floats: this host writes zero lines
         * faster than any data (impls/fast/README.md, ALiBi). */
        if (fc->prepare(&call) != 0 ||
            (src = random_f32(&call, (size_t)probe_source_bytes(&call) / sizeof(float) + 16, 41)) == NULL ||
            (dst = own(&call, (size_t)call.written_bytes)) == NULL) {
            printf("  %-15s no memory for its buffers\n", fc->op);
            release(&call);
            continue;
        }
        printf("  %s %s\n", fc->op, fc->shape);
        if (baseline != NULL && set_up(fc, baseline, &call)) {
            ref_median = measure_baseline(rows, fc, &call, baseline, reps);
            tear_down(fc, baseline, &call);
        }
        if (set_up(fc, subject, &call)) {
            for (int t = 0; t < n_threads; t++) {
                measure_subject(rows, fc, &call, subject, threads[t], team, src, dst, reps, ref_median, tally);
            }
            tear_down(fc, subject, &call);
        }
        release(&call);
    }
    return 0;
}
