/*
 * cases.c - what `pecert bench` times: rope_apply on q[T, 32, 128]
 * (Llama-style: 32 heads of 128 channels, default RoPE, theta 10000,
 * positions 0..T-1), the same tensors through mrope_apply and
 * rope2d_apply, and the rope_cos_sin table, plus the table's error
 * against `ref`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

const char *bench_dtype_name(pecert_dtype dtype)
{
    return dtype == PECERT_DTYPE_F16 ? "f16" : dtype == PECERT_DTYPE_BF16 ? "bf16" : "f32";
}

static size_t dtype_size(pecert_dtype dtype)
{
    return dtype == PECERT_DTYPE_F32 ? 4 : 2;
}

size_t bench_case_bytes(const bench_case *c)
{
    return (size_t)c->tokens * BENCH_HEADS * BENCH_HEAD_DIM * dtype_size(c->dtype);
}

int bench_buffers_init(bench_buffers *b, int64_t max_tokens)
{
    int64_t i;

    memset(b, 0, sizeof(*b));
    b->bytes = (size_t)max_tokens * BENCH_HEADS * BENCH_HEAD_DIM * sizeof(float);
    b->x = aligned_alloc(64, b->bytes);
    b->out = aligned_alloc(64, b->bytes);
    b->positions = malloc((size_t)max_tokens * sizeof(int64_t));
    if (b->x == NULL || b->out == NULL || b->positions == NULL) {
        bench_buffers_free(b);
        return -1;
    }
    /* Touch every page now: a first touch costs 11-14 us per 4 KiB page
     * here and must never land inside a timed call. */
    memset(b->x, 0, b->bytes);
    memset(b->out, 0, b->bytes);
    for (i = 0; i < max_tokens; i++) {
        b->positions[i] = i;
    }
    b->max_tokens = max_tokens;
    b->filled = PECERT_DTYPE_INVALID;
    /* The probes copy x before any case fills it: not zeros, which this
     * machine stores ~2.7x faster than other data (probe.c). */
    bench_buffers_fill(b, PECERT_DTYPE_F32);
    return 0;
}

void bench_buffers_free(bench_buffers *b)
{
    free(b->x);
    free(b->out);
    free(b->positions);
    memset(b, 0, sizeof(*b));
}

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A random value in [-1, 1) exact in dtype, as its bits. f16 keeps 11
 * significant bits and bf16 8, so k / 2^11 and k / 2^7 are exact. */
static uint32_t random_bits(uint64_t *state, pecert_dtype dtype)
{
    int64_t k = (int64_t)(next_random(state) >> 52) - 2048; /* [-2048, 2048) */
    float v = dtype == PECERT_DTYPE_BF16 ? (float)(k / 16) / 128.0f : (float)k / 2048.0f;
    uint32_t bits;

    memcpy(&bits, &v, sizeof(bits));
    if (dtype == PECERT_DTYPE_BF16) {
        return bits >> 16;
    }
    if (dtype == PECERT_DTYPE_F16) {
        uint32_t sign = (bits >> 16) & 0x8000u;
        uint32_t mag = bits & 0x7fffffffu;

        return mag == 0 ? sign : sign | (((mag >> 23) - 112u) << 10) | ((mag >> 13) & 0x3ffu);
    }
    return bits;
}

void bench_fill_f32(float *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)((double)(next_random(&seed) >> 11) * 0x1p-52 - 1.0);
    }
}

void bench_buffers_fill(bench_buffers *b, pecert_dtype dtype)
{
    uint64_t state = 42;
    size_t n = b->bytes / dtype_size(dtype);
    size_t i;

    if (b->filled == dtype) {
        return;
    }
    for (i = 0; i < n; i++) {
        uint32_t bits = random_bits(&state, dtype);

        if (dtype == PECERT_DTYPE_F32) {
            ((uint32_t *)b->x)[i] = bits;
        } else {
            ((uint16_t *)b->x)[i] = (uint16_t)bits;
        }
    }
    b->filled = dtype;
}

static pecert_rope_config bench_config(int32_t rotary_dim)
{
    pecert_rope_config c;

    memset(&c, 0, sizeof(c));
    c.struct_size = sizeof(c);
    c.rope_type = PECERT_ROPE_DEFAULT;
    c.head_dim = BENCH_HEAD_DIM;
    c.rotary_dim = rotary_dim;
    c.rope_theta = 10000.0;
    c.max_position_embeddings = 4096;
    return c;
}

static pecert_tensor tensor3(void *data, pecert_dtype dtype, int64_t tokens)
{
    pecert_tensor t;

    memset(&t, 0, sizeof(t));
    t.struct_size = sizeof(t);
    t.dtype = dtype;
    t.ndim = 3;
    t.data = data;
    t.shape[0] = tokens;
    t.shape[1] = BENCH_HEADS;
    t.shape[2] = BENCH_HEAD_DIM;
    t.strides[0] = BENCH_HEADS * BENCH_HEAD_DIM;
    t.strides[1] = BENCH_HEAD_DIM;
    t.strides[2] = 1;
    return t;
}

static pecert_tensor tensor2(void *data, pecert_dtype dtype, int64_t rows, int64_t cols)
{
    pecert_tensor t;

    memset(&t, 0, sizeof(t));
    t.struct_size = sizeof(t);
    t.dtype = dtype;
    t.ndim = 2;
    t.data = data;
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.strides[0] = cols;
    t.strides[1] = 1;
    return t;
}

static int apply_once(void *context)
{
    bench_apply_call *call = context;

    call->status = call->subject->plugin.desc->rope_apply(call->subject->instance, &call->args);
    return call->status == PECERT_OK ? 0 : -1;
}

static int mrope_once(void *context)
{
    bench_apply_call *call = context;

    call->status = call->subject->plugin.desc->mrope_apply(call->subject->instance, &call->margs);
    return call->status == PECERT_OK ? 0 : -1;
}

static int rope2d_once(void *context)
{
    bench_apply_call *call = context;

    call->status = call->subject->plugin.desc->rope2d_apply(call->subject->instance, &call->rargs);
    return call->status == PECERT_OK ? 0 : -1;
}

const int32_t bench_mrope_sections[3] = {16, 24, 24};

/* Image grid width of the M-RoPE case, in merged patches. */
#define MROPE_GRID_WIDTH 64

int64_t *bench_mrope_positions(int64_t tokens)
{
    int64_t *pos = malloc((size_t)(3 * tokens) * sizeof(int64_t));

    for (int64_t t = 0; pos != NULL && t < tokens; t++) {
        pos[t] = 0;
        pos[tokens + t] = t / MROPE_GRID_WIDTH;
        pos[2 * tokens + t] = t % MROPE_GRID_WIDTH;
    }
    return pos;
}

int64_t *bench_rope2d_positions(int64_t tokens)
{
    int64_t *pos = malloc((size_t)(2 * tokens) * sizeof(int64_t));

    for (int64_t t = 0; pos != NULL && t < tokens; t++) {
        pos[t] = t / MROPE_GRID_WIDTH;
        pos[tokens + t] = t % MROPE_GRID_WIDTH;
    }
    return pos;
}

/* The 2-D form of a case: the same tensors through rope2d_apply (head_dim
 * 128, theta 10000, Qwen2-VL's vision conventions). */
static int prepare_rope2d(bench_apply_call *call)
{
    const pecert_plugin *d = call->subject->plugin.desc;

    if (!PECERT_HAS_FIELD(d, pecert_plugin, rope2d_apply) || d->rope2d_apply == NULL) {
        call->status = PECERT_E_UNSUPPORTED;
        return -1;
    }
    call->rope2d_positions = bench_rope2d_positions(call->c.tokens);
    if (call->rope2d_positions == NULL) {
        call->status = PECERT_E_NOMEM;
        return -1;
    }
    call->rargs.struct_size = sizeof(call->rargs);
    call->rargs.pairing = call->args.pairing;
    call->rargs.frequencies = PECERT_ROPE2D_BLOCKS;
    call->rargs.head_dim = BENCH_HEAD_DIM;
    call->rargs.theta = 10000.0;
    call->rargs.positions = call->rope2d_positions;
    call->rargs.x = call->args.x;
    call->rargs.out = call->args.out;
    return 0;
}

/* The M-RoPE form of a case: the same tensors through mrope_apply. */
static int prepare_mrope(bench_apply_call *call)
{
    const pecert_plugin *d = call->subject->plugin.desc;

    if (!PECERT_HAS_FIELD(d, pecert_plugin, mrope_apply) || d->mrope_apply == NULL) {
        call->status = PECERT_E_UNSUPPORTED;
        return -1;
    }
    call->mrope_positions = bench_mrope_positions(call->c.tokens);
    if (call->mrope_positions == NULL) {
        call->status = PECERT_E_NOMEM;
        return -1;
    }
    call->margs.struct_size = sizeof(call->margs);
    call->margs.pairing = call->args.pairing;
    call->margs.config = call->args.config;
    call->margs.num_axes = 3;
    memcpy(call->margs.section, bench_mrope_sections, sizeof(bench_mrope_sections));
    call->margs.positions = call->mrope_positions;
    call->margs.x = call->args.x;
    call->margs.out = call->args.out;
    return 0;
}

int bench_apply_prepare(bench_apply_call *call, bench_subject *s, const bench_case *c,
                        bench_buffers *b)
{
    memset(call, 0, sizeof(*call));
    call->subject = s;
    call->c = *c;
    call->config = bench_config(c->rotary_dim);
    call->x = tensor3(b->x, c->dtype, c->tokens);
    call->y = tensor3(b->out, c->dtype, c->tokens);
    bench_buffers_fill(b, c->dtype);
    call->args.struct_size = sizeof(call->args);
    call->args.pairing = c->pairing;
    call->args.config = &call->config;
    call->args.positions = b->positions;
    call->args.x = &call->x;
    call->args.out = c->placement == BENCH_IN_PLACE ? &call->x : &call->y;
    return c->mrope ? prepare_mrope(call) : c->rope2d ? prepare_rope2d(call) : 0;
}

void bench_apply_member(bench_member *m, bench_apply_call *call)
{
    *m = (bench_member){.fn = call->c.mrope ? mrope_once : call->c.rope2d ? rope2d_once : apply_once,
                        .context = call};
}

void bench_apply_release(bench_apply_call *call)
{
    free(call->mrope_positions);
    call->mrope_positions = NULL;
    free(call->rope2d_positions);
    call->rope2d_positions = NULL;
}

static void note_failure(bench_subject *s, pecert_status status, const char *op, char *err,
                         size_t err_len)
{
    const char *msg = s->plugin.desc->last_error(s->instance);

    snprintf(err, err_len, "%s %s returned %d (%s): %s", s->name, op, (int)status,
             pecert_status_name(status), msg != NULL ? msg : "");
}

void bench_apply_error(const bench_apply_call *call, char *err, size_t err_len)
{
    note_failure(call->subject, call->status,
                 call->c.mrope ? "mrope_apply" : call->c.rope2d ? "rope2d_apply" : "rope_apply", err, err_len);
}

int bench_apply(bench_stats *out, bench_subject *s, const bench_case *c, bench_buffers *b,
                int reps, int *unsupported, char *err, size_t err_len)
{
    bench_apply_call call;
    bench_member m;
    int rc = bench_apply_prepare(&call, s, c, b);

    if (rc == 0) {
        bench_apply_member(&m, &call);
        rc = bench_measure_group(&m, 1, reps, BENCH_MIN_SAMPLE_S);
        *out = m.stats;
    }
    *unsupported = rc != 0 && call.status == PECERT_E_UNSUPPORTED;
    if (rc != 0) {
        bench_apply_error(&call, err, err_len);
    }
    bench_apply_release(&call);
    return rc;
}

/* ---- cos/sin tables -------------------------------------------------------- */

/* The table's frequency half for rotary_dim 128. */
#define TABLE_HALF 64

typedef struct table_call {
    bench_subject *subject;
    pecert_rope_config config;
    pecert_tensor cos;
    pecert_tensor sin;
    const int64_t *positions;
    int64_t n;
    pecert_status status;
} table_call;

static int table_once(void *context)
{
    table_call *call = context;

    call->status = call->subject->plugin.desc->rope_cos_sin(call->subject->instance, &call->cos,
                                                            &call->sin, &call->config, 0,
                                                            call->positions, call->n);
    return call->status == PECERT_OK ? 0 : -1;
}

static void table_setup(table_call *call, bench_subject *s, void *data, pecert_dtype dtype,
                        const int64_t *positions, int64_t n)
{
    size_t size = dtype == PECERT_DTYPE_F64 ? sizeof(double) : sizeof(float);

    memset(call, 0, sizeof(*call));
    call->subject = s;
    call->config = bench_config(2 * TABLE_HALF);
    call->cos = tensor2(data, dtype, n, TABLE_HALF);
    call->sin = tensor2((char *)data + (size_t)n * TABLE_HALF * size, dtype, n, TABLE_HALF);
    call->positions = positions;
    call->n = n;
}

int bench_table(bench_stats *out, bench_subject *s, int64_t tokens, bench_buffers *b, int reps,
                char *err, size_t err_len)
{
    table_call call;

    if (s->plugin.desc->rope_cos_sin == NULL) {
        snprintf(err, err_len, "%s has no rope_cos_sin", s->name);
        return -1;
    }
    table_setup(&call, s, b->out, PECERT_DTYPE_F32, b->positions, tokens);
    if (bench_measure(out, table_once, &call, reps, BENCH_MIN_SAMPLE_S) != 0) {
        note_failure(s, call.status, "rope_cos_sin", err, err_len);
        return -1;
    }
    return 0;
}

/* Largest |got - want| over the f32 table against the f64 one. */
static double max_error(const float *got, const double *want, size_t n)
{
    double worst = 0.0;
    size_t i;

    for (i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]);

        worst = e > worst || isnan(e) ? e : worst;
    }
    return worst;
}

int bench_table_error(double *out_max_error, bench_subject *s, bench_subject *oracle,
                      int64_t first, int64_t n, char *err, size_t err_len)
{
    size_t count = 2 * (size_t)n * TABLE_HALF;
    int64_t *positions = malloc((size_t)n * sizeof(int64_t));
    float *got = malloc(count * sizeof(float));
    double *want = malloc(count * sizeof(double));
    table_call call;
    int rc = -1;
    int64_t i;

    if (positions == NULL || got == NULL || want == NULL) {
        snprintf(err, err_len, "out of memory");
        goto out_free;
    }
    for (i = 0; i < n; i++) {
        positions[i] = first + i;
    }
    table_setup(&call, s, got, PECERT_DTYPE_F32, positions, n);
    if (table_once(&call) != 0) {
        note_failure(s, call.status, "rope_cos_sin", err, err_len);
        goto out_free;
    }
    table_setup(&call, oracle, want, PECERT_DTYPE_F64, positions, n);
    if (table_once(&call) != 0) {
        note_failure(oracle, call.status, "rope_cos_sin", err, err_len);
        goto out_free;
    }
    *out_max_error = max_error(got, want, count);
    rc = 0;
out_free:
    free(positions);
    free(got);
    free(want);
    return rc;
}

/* ---- ALiBi bias ------------------------------------------------------------------ */

#define ALIBI_HEADS 32

typedef struct alibi_call {
    bench_subject *subject;
    pecert_alibi_bias_args args;
    pecert_tensor out;
    pecert_status status;
} alibi_call;

static int alibi_once(void *context)
{
    alibi_call *call = context;

    call->status = call->subject->plugin.desc->alibi_bias(call->subject->instance, &call->args);
    return call->status == PECERT_OK ? 0 : -1;
}

int bench_alibi(bench_stats *out, bench_subject *s, int64_t n_q, int64_t n_k, bench_buffers *b,
                int reps, char *err, size_t err_len)
{
    const pecert_plugin *d = s->plugin.desc;
    alibi_call call;

    if (!PECERT_HAS_FIELD(d, pecert_plugin, alibi_bias) || d->alibi_bias == NULL) {
        snprintf(err, err_len, "%s has no alibi_bias", s->name);
        return -1;
    }
    if ((size_t)(ALIBI_HEADS * n_q * n_k) * sizeof(float) > b->bytes || n_k > b->max_tokens) {
        snprintf(err, err_len, "[%d, %lld, %lld] does not fit the buffers", ALIBI_HEADS,
                 (long long)n_q, (long long)n_k);
        return -1;
    }
    memset(&call, 0, sizeof(call));
    call.subject = s;
    call.out = tensor2(b->out, PECERT_DTYPE_F32, ALIBI_HEADS, n_q * n_k);
    call.out.ndim = 3;
    call.out.shape[1] = n_q;
    call.out.shape[2] = n_k;
    call.out.strides[0] = n_q * n_k;
    call.out.strides[1] = n_k;
    call.out.strides[2] = 1;
    call.args.struct_size = sizeof(call.args);
    call.args.num_heads = ALIBI_HEADS;
    call.args.max_bias = 8.0;
    call.args.q_positions = b->positions + (n_k - n_q);
    call.args.n_q = n_q;
    call.args.k_positions = b->positions;
    call.args.n_k = n_k;
    call.args.out = &call.out;
    if (bench_measure(out, alibi_once, &call, reps, BENCH_MIN_SAMPLE_S) != 0) {
        note_failure(s, call.status, "alibi_bias", err, err_len);
        return -1;
    }
    return 0;
}
