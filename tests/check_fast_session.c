/*
 * check_fast_session.c - fast's decode session (impls/fast/session.c and
 * the attention kernels, scalar/attend.c) against its own promises:
 *   - every ISA variant and every thread count gives the scalar variant's
 *     bits, on shapes that reach every SIMD tail (head_dim 7, 40, 128,
 *     200; query groups of 1, 3, 4, 5), with RoPE of both pairings,
 *     partial rotary, ALiBi alone and padding;
 *   - one prefill, decode steps and uneven chunks give the same bits (the
 *     64-row blocks start at cached token 0, whatever the calls);
 *   - a padding token's key and value rows (inf, NaN) never reach an
 *     output: the outputs equal those with zero rows there;
 *   - against attention computed exactly (long double, a NoPE layer, so q
 *     and k enter as given), every output stays within the error fast's
 *     README states: scores to (ceil(d/16) + 4) u sum |q k|, the output to
 *     2 delta V + (min(n, 64) + 3) u V;
 *   - the exponential: two-token sequences whose one score is x give
 *     float(e^x / (1 + e^x)) to one rounding of each side, for x over
 *     [-110, 0] (the float range's bottom and the cut at -104 included).
 * The conformance checks (decode.prefill_equivalence, batch.padding_
 * independence, rope.nope_layer) hold fast to ref under the general
 * bound; these hold it to its own, which is tighter.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast_handle.h"
#include "suites.h"

#define U32 0x1p-24

/* A session's shape and its tokens. */
typedef struct session_case {
    const char *name;
    int32_t n_heads, n_kv_heads, head_dim;
    int32_t rotary_dim;        /* 0: ALiBi alone (rope NULL)               */
    int32_t nope;              /* 1: a NoPE layer (rope given, no rotation) */
    pecert_rope_pairing pairing;
    int32_t alibi;
    int32_t n_seqs;
    int64_t n_tokens;
    /* filled by make_tokens */
    int64_t *positions;
    int32_t *seq_ids;
    uint8_t *valid;
    float *q, *k, *v;
} session_case;

#define SHAPE(NAME, HEADS, KV, DIM, ROTARY, PAIRING, ALIBI, SEQS, TOKENS)                                       \
    {.name = (NAME), .n_heads = (HEADS), .n_kv_heads = (KV), .head_dim = (DIM), .rotary_dim = (ROTARY),        \
     .pairing = (PAIRING), .alibi = (ALIBI), .n_seqs = (SEQS), .n_tokens = (TOKENS)}

static const session_case shapes[] = {
    SHAPE("llama-like, GQA 4, padding", 8, 2, 128, 128, PECERT_PAIRING_SPLIT_HALF, 0, 2, 150),
    SHAPE("head_dim 40, groups of 3, partial", 6, 2, 40, 24, PECERT_PAIRING_INTERLEAVED, 0, 2, 90),
    SHAPE("ALiBi alone, head_dim 7, groups of 5", 5, 1, 7, 0, PECERT_PAIRING_SPLIT_HALF, 1, 1, 70),
    SHAPE("head_dim 200, MHA, ALiBi + RoPE", 2, 2, 200, 64, PECERT_PAIRING_SPLIT_HALF, 1, 3, 80),
};

static float random_value(uint64_t *state)
{
    return (float)((double)(test_next_random(state) >> 11) * 0x1p-52 - 1.0);
}

/* Tokens of c: sequences taken in turn, positions from 3 up in each, every
 * seventh token padding (its rows hold `pad`: inf in keys, NaN in values,
 * or 0). */
static void make_tokens(session_case *c, int pad_nonfinite)
{
    size_t qn = (size_t)c->n_tokens * (size_t)c->n_heads * (size_t)c->head_dim;
    size_t kn = (size_t)c->n_tokens * (size_t)c->n_kv_heads * (size_t)c->head_dim;
    size_t krow = (size_t)c->n_kv_heads * (size_t)c->head_dim;
    int64_t next[8] = {3, 3, 3, 3, 3, 3, 3, 3};
    uint64_t state = 42;

    c->positions = malloc((size_t)c->n_tokens * sizeof(int64_t));
    c->seq_ids = malloc((size_t)c->n_tokens * sizeof(int32_t));
    c->valid = malloc((size_t)c->n_tokens);
    c->q = malloc(qn * sizeof(float));
    c->k = malloc(kn * sizeof(float));
    c->v = malloc(kn * sizeof(float));
    ck_assert(c->positions && c->seq_ids && c->valid && c->q && c->k && c->v);
    for (size_t i = 0; i < qn; i++) {
        c->q[i] = random_value(&state);
    }
    for (size_t i = 0; i < kn; i++) {
        c->k[i] = random_value(&state);
        c->v[i] = random_value(&state);
    }
    for (int64_t t = 0; t < c->n_tokens; t++) {
        int32_t s = (int32_t)(t % c->n_seqs);

        c->seq_ids[t] = s;
        c->positions[t] = next[s]++;
        /* The first token of a sequence is never padding: its query sees
         * itself, so every valid query has something to attend to. */
        c->valid[t] = t < c->n_seqs || t % 7 != 3;
        for (size_t i = 0; !c->valid[t] && i < krow; i++) {
            c->k[(size_t)t * krow + i] = pad_nonfinite ? INFINITY : 0.0f;
            c->v[(size_t)t * krow + i] = pad_nonfinite ? NAN : 0.0f;
        }
    }
}

static void free_tokens(session_case *c)
{
    free(c->positions);
    free(c->seq_ids);
    free(c->valid);
    free(c->q);
    free(c->k);
    free(c->v);
}

static pecert_tensor view(float *data, int64_t tokens, int32_t heads, int32_t head_dim)
{
    return (pecert_tensor){sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, data, {tokens, heads, head_dim},
                           {(int64_t)heads * head_dim, head_dim, 1}};
}

/* Runs c on f with `threads` threads, appending the tokens in chunks of
 * the given sizes (cycled; 0 ends the list); outputs into out [T, heads,
 * head_dim]. */
static void run_case(const fast_handle *f, const session_case *c, int threads, const int64_t *chunks, float *out)
{
    const pecert_plugin *d = f->plugin.desc;
    pecert_rope_config rope = {.struct_size = sizeof(rope), .head_dim = c->head_dim, .rotary_dim = c->rotary_dim,
                               .rope_theta = 10000.0, .max_position_embeddings = 4096, .factor = 1.0,
                               .layer_kind = c->nope ? PECERT_LAYER_NOPE : PECERT_LAYER_ROPE};
    pecert_session_config config = {.struct_size = sizeof(config), .pairing = c->pairing,
                                    .rope = c->rotary_dim > 0 ? &rope : NULL, .n_seqs = c->n_seqs,
                                    .max_tokens = (int32_t)c->n_tokens, .n_heads = c->n_heads,
                                    .n_kv_heads = c->n_kv_heads, .alibi = c->alibi,
                                    .head_dim = c->rotary_dim > 0 ? 0 : c->head_dim,
                                    .alibi_max_bias = c->alibi ? 8.0 : 0.0};
    size_t qrow = (size_t)c->n_heads * (size_t)c->head_dim;
    size_t krow = (size_t)c->n_kv_heads * (size_t)c->head_dim;
    void *session = NULL;
    int64_t t = 0;

    ck_assert_int_eq(d->set_num_threads(f->instance, threads), PECERT_OK);
    ck_assert_msg(d->session_create(f->instance, &session, &config) == PECERT_OK, "%s: %s", c->name,
                  d->last_error(f->instance));
    for (int i = 0; t < c->n_tokens; i = chunks[i + 1] == 0 ? 0 : i + 1) {
        int64_t n = chunks[i] < c->n_tokens - t ? chunks[i] : c->n_tokens - t;
        pecert_tensor q = view(c->q + (size_t)t * qrow, n, c->n_heads, c->head_dim);
        pecert_tensor k = view(c->k + (size_t)t * krow, n, c->n_kv_heads, c->head_dim);
        pecert_tensor v = view(c->v + (size_t)t * krow, n, c->n_kv_heads, c->head_dim);
        pecert_tensor o = view(out + (size_t)t * qrow, n, c->n_heads, c->head_dim);
        pecert_session_append_args a = {.struct_size = sizeof(a), .n_tokens = n, .positions = c->positions + t,
                                        .seq_ids = c->seq_ids + t, .valid = c->valid + t,
                                        .q = &q, .k = &k, .v = &v, .out = &o};

        ck_assert_msg(d->session_append(f->instance, session, &a) == PECERT_OK, "%s: %s", c->name,
                      d->last_error(f->instance));
        t += n;
    }
    d->session_destroy(f->instance, session);
}

static size_t out_len(const session_case *c)
{
    return (size_t)c->n_tokens * (size_t)c->n_heads * (size_t)c->head_dim;
}

/* Padding queries' rows are unspecified: compare the valid tokens' rows. */
static void assert_same_valid_rows(const session_case *c, const float *want, const float *got, const char *what)
{
    size_t qrow = (size_t)c->n_heads * (size_t)c->head_dim;

    for (int64_t t = 0; t < c->n_tokens; t++) {
        if (c->valid[t]) {
            ck_assert_msg(memcmp(want + (size_t)t * qrow, got + (size_t)t * qrow, qrow * sizeof(float)) == 0,
                          "%s: %s changes token %lld's output bits", c->name, what, (long long)t);
        }
    }
}

static const int64_t whole[] = {1 << 20, 0};

START_TEST(every_isa_and_thread_count_gives_the_scalar_bits)
{
    for (size_t s = 0; s < ARRAY_LEN(shapes); s++) {
        session_case c = shapes[s];
        float *want = malloc(out_len(&c) * sizeof(float));
        float *got = malloc(out_len(&c) * sizeof(float));
        fast_handle f;

        make_tokens(&c, 1);
        ck_assert_int_eq(fast_open(&f, "scalar"), PECERT_OK);
        run_case(&f, &c, 1, whole, want);
        fast_close(&f);
        for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
            if (fast_open(&f, fast_isas[i]) != PECERT_OK) {
                fast_close(&f); /* this CPU lacks it */
                continue;
            }
            for (int threads = 1; threads <= 3; threads++) {
                char what[64];

                snprintf(what, sizeof(what), "PECERT_ISA=%s with %d threads", fast_isas[i], threads);
                run_case(&f, &c, threads, whole, got);
                assert_same_valid_rows(&c, want, got, what);
            }
            fast_close(&f);
        }
        free(want);
        free(got);
        free_tokens(&c);
    }
}
END_TEST

START_TEST(prefill_decode_and_chunks_give_the_same_bits)
{
    static const int64_t steps[] = {1, 0};
    static const int64_t uneven[] = {37, 1, 64, 5, 0};

    for (size_t s = 0; s < ARRAY_LEN(shapes); s++) {
        session_case c = shapes[s];
        float *want = malloc(out_len(&c) * sizeof(float));
        float *got = malloc(out_len(&c) * sizeof(float));
        fast_handle f;

        make_tokens(&c, 0);
        ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
        run_case(&f, &c, 2, whole, want);
        run_case(&f, &c, 2, steps, got);
        assert_same_valid_rows(&c, want, got, "one token per call");
        run_case(&f, &c, 1, uneven, got);
        assert_same_valid_rows(&c, want, got, "chunks of 37, 1, 64, 5");
        fast_close(&f);
        free(want);
        free(got);
        free_tokens(&c);
    }
}
END_TEST

START_TEST(padding_rows_never_reach_an_output)
{
    for (size_t s = 0; s < ARRAY_LEN(shapes); s++) {
        session_case zeros = shapes[s], poison = shapes[s];
        float *want = malloc(out_len(&zeros) * sizeof(float));
        float *got = malloc(out_len(&zeros) * sizeof(float));
        fast_handle f;

        make_tokens(&zeros, 0);
        make_tokens(&poison, 1);
        ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
        run_case(&f, &zeros, 1, whole, want);
        run_case(&f, &poison, 1, whole, got);
        assert_same_valid_rows(&zeros, want, got, "inf keys and NaN values in the padding's rows");
        for (size_t i = 0; i < out_len(&zeros); i++) {
            ck_assert_msg(isfinite(want[i]), "%s: output %zu is %g", zeros.name, i, (double)want[i]);
        }
        fast_close(&f);
        free(want);
        free(got);
        free_tokens(&zeros);
        free_tokens(&poison);
    }
}
END_TEST

/* |fast - exact| for query (t, h) against fast's stated bound; returns
 * the largest error / bound. */
static double exact_ratio(const session_case *c, const float *got, int64_t t, int32_t h)
{
    int32_t d = c->head_dim, group = c->n_heads / c->n_kv_heads;
    size_t qrow = (size_t)c->n_heads * (size_t)d, krow = (size_t)c->n_kv_heads * (size_t)d;
    const float *q = c->q + (size_t)t * qrow + (size_t)h * (size_t)d;
    long double scale = 1.0L / sqrtl((long double)d), max = -INFINITY, total = 0.0L, delta = 0.0L, vmax = 0.0L;
    long double *score = malloc((size_t)(t + 1) * sizeof(long double));
    long double out[256] = {0};
    int64_t n = 0;
    double worst = 0.0;

    for (int64_t j = 0; j <= t; j++) {
        const float *k = c->k + (size_t)j * krow + (size_t)(h / group) * (size_t)d;
        long double dot = 0.0L, abs_sum = 0.0L;

        score[j] = -INFINITY;
        if (c->seq_ids[j] != c->seq_ids[t] || !c->valid[j]) {
            continue;
        }
        n++;
        for (int32_t i = 0; i < d; i++) {
            dot += (long double)q[i] * (long double)k[i];
            abs_sum += fabsl((long double)q[i] * (long double)k[i]);
        }
        score[j] = dot * scale;
        max = score[j] > max ? score[j] : max;
        /* scores: (ceil(d / 16) + 4) u sum |q k|, times the scale */
        delta = fmaxl(delta, scale * (long double)((d + 15) / 16 + 4) * U32 * abs_sum);
        for (int32_t i = 0; i < d; i++) {
            vmax = fmaxl(vmax, fabsl((long double)c->v[(size_t)j * krow + (size_t)(h / group) * (size_t)d + i]));
        }
    }
    for (int64_t j = 0; j <= t; j++) {
        if (score[j] > -INFINITY) {
            long double w = expl(score[j] - max);

            total += w;
            for (int32_t i = 0; i < d; i++) {
                out[i] += w * (long double)c->v[(size_t)j * krow + (size_t)(h / group) * (size_t)d + i];
            }
        }
    }
    for (int32_t i = 0; i < d; i++) {
        long double bound = 2.0L * delta * vmax + (long double)((n < 64 ? n : 64) + 3) * U32 * vmax;
        long double err = fabsl((long double)got[(size_t)t * qrow + (size_t)h * (size_t)d + i] - out[i] / total);

        worst = fmax(worst, (double)(err / bound));
    }
    free(score);
    return worst;
}

START_TEST(outputs_stay_within_the_stated_error)
{
    session_case c = SHAPE("NoPE, head_dim 128, GQA 4, 3 sequences", 8, 2, 128, 128, PECERT_PAIRING_SPLIT_HALF, 0, 3,
                           300);
    float *got = malloc(out_len(&c) * sizeof(float));
    double worst = 0.0;
    fast_handle f;

    c.nope = 1;
    make_tokens(&c, 0);
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        if (fast_open(&f, fast_isas[i]) != PECERT_OK) {
            fast_close(&f);
            continue;
        }
        run_case(&f, &c, 2, whole, got);
        for (int64_t t = 0; t < c.n_tokens; t++) {
            for (int32_t h = 0; c.valid[t] && h < c.n_heads; h++) {
                worst = fmax(worst, exact_ratio(&c, got, t, h));
            }
        }
        fast_close(&f);
    }
    ck_assert_msg(worst <= 1.0, "an output is %.3g times fast's stated error bound", worst);
    free(got);
    free_tokens(&c);
}
END_TEST

/* The exponential, one weight per sequence: token A (key 0, value 0) then
 * token B (query 1, key x, value 1), softmax scale 1, NoPE: B's output is
 * w / (1 + w) with w fast's float(exp(x)). */
START_TEST(the_exponential_rounds_once)
{
    enum { SEQS = 4096 };
    static float q[2 * SEQS * 2], k[2 * SEQS * 2], v[2 * SEQS * 2], out[2 * SEQS * 2];
    static int64_t positions[2 * SEQS];
    static int32_t seq_ids[2 * SEQS];
    pecert_rope_config rope = {.struct_size = sizeof(rope), .head_dim = 2, .rotary_dim = 2, .rope_theta = 10000.0,
                               .max_position_embeddings = 4096, .factor = 1.0, .layer_kind = PECERT_LAYER_NOPE};
    pecert_session_config config = {.struct_size = sizeof(config), .rope = &rope, .n_seqs = SEQS, .max_tokens = 2,
                                    .n_heads = 1, .n_kv_heads = 1, .softmax_scale = 1.0};
    double worst = 0.0, worst_x = 0.0;
    int64_t checked = 0;

    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        fast_handle f;

        if (fast_open(&f, fast_isas[i]) != PECERT_OK) {
            fast_close(&f);
            continue;
        }
        /* x from -110 to 0 in 24 calls of 4096 steps of 110 / 98304. */
        for (int call = 0; call < 24; call++) {
            pecert_tensor tq = view(q, 2 * SEQS, 1, 2), tk = view(k, 2 * SEQS, 1, 2);
            pecert_tensor tv = view(v, 2 * SEQS, 1, 2), to = view(out, 2 * SEQS, 1, 2);
            pecert_session_append_args a = {.struct_size = sizeof(a), .n_tokens = 2 * SEQS, .positions = positions,
                                            .seq_ids = seq_ids, .q = &tq, .k = &tk, .v = &tv, .out = &to};
            void *session = NULL;

            memset(q, 0, sizeof(q));
            memset(k, 0, sizeof(k));
            memset(v, 0, sizeof(v));
            for (int s = 0; s < SEQS; s++) {
                float x = (float)(-110.0 + 110.0 * (double)(call * SEQS + s) / (24.0 * SEQS));

                seq_ids[2 * s] = seq_ids[2 * s + 1] = s;
                positions[2 * s] = 0;
                positions[2 * s + 1] = 1;
                q[4 * s + 2] = 1.0f;
                k[4 * s + 2] = x;
                v[4 * s + 2] = 1.0f;
            }
            ck_assert_int_eq(f.plugin.desc->session_create(f.instance, &session, &config), PECERT_OK);
            ck_assert_int_eq(f.plugin.desc->session_append(f.instance, session, &a), PECERT_OK);
            f.plugin.desc->session_destroy(f.instance, session);
            for (int s = 0; s < SEQS; s++) {
                long double e = expl((long double)k[4 * s + 2]);
                long double want = e / (1.0L + e);
                /* the weight's rounding and the output's: u each, relative,
                 * or 2^-150 each where float32 is subnormal */
                long double bound = 2.0L * (long double)U32 * want + 0x1p-149L;
                double ratio = (double)(fabsl((long double)out[4 * s + 2] - want) / bound);

                if (ratio > worst) {
                    worst = ratio;
                    worst_x = k[4 * s + 2];
                }
                checked++;
            }
        }
        fast_close(&f);
    }
    ck_assert_msg(worst <= 1.0, "e^x / (1 + e^x) at x = %.9g is off by %.3g times one rounding per side", worst_x,
                  worst);
    ck_assert(checked >= 24 * SEQS);
}
END_TEST

/* session_read_keys: a 12 MiB cache (past the 8 MiB streaming threshold) read
 * into contiguous views at three row offsets on 1, 2 and 3 threads (and
 * the streamed path's plain head) equals the same keys read one channel
 * at a time into a strided view on one thread; a view whose tokens share
 * elements is written in token order, as `ref` does. The cache is filled
 * with padding tokens: cached and rotated, attended by none. */
START_TEST(read_keys_gives_the_same_keys_on_every_path)
{
    enum { TOKENS = 3072, KV = 8, DIM = 128 };
    const size_t n = (size_t)TOKENS * KV * DIM;
    pecert_rope_config rope = {.struct_size = sizeof(rope), .head_dim = DIM, .rotary_dim = DIM,
                               .rope_theta = 500000.0, .max_position_embeddings = 8192, .factor = 1.0};
    pecert_session_config config = {.struct_size = sizeof(config), .pairing = PECERT_PAIRING_SPLIT_HALF,
                                    .rope = &rope, .n_seqs = 1, .max_tokens = TOKENS, .n_heads = KV,
                                    .n_kv_heads = KV};
    float *k = malloc(n * sizeof(float));
    float *scratch = malloc(n * sizeof(float));
    float *attended = calloc(n, sizeof(float));
    float *want = malloc(2 * n * sizeof(float));
    float *got = aligned_alloc(64, (n + 64) * sizeof(float));
    int64_t *positions = malloc(TOKENS * sizeof(int64_t));
    int32_t *seq_ids = calloc(TOKENS, sizeof(int32_t));
    uint8_t *valid = calloc(TOKENS, 1);
    pecert_tensor kt = view(k, TOKENS, KV, DIM);
    pecert_tensor st = view(scratch, TOKENS, KV, DIM);
    pecert_tensor ot = view(attended, TOKENS, KV, DIM);
    pecert_session_append_args a = {.struct_size = sizeof(a), .n_tokens = TOKENS, .positions = positions,
                                    .seq_ids = seq_ids, .valid = valid, .q = &st, .k = &kt, .v = &kt, .out = &ot};
    uint64_t seed = 17;
    fast_handle f;
    void *session = NULL;

    ck_assert(k != NULL && scratch != NULL && attended != NULL && want != NULL && got != NULL && positions != NULL && seq_ids != NULL &&
              valid != NULL);
    for (size_t i = 0; i < n; i++) {
        k[i] = random_value(&seed);
        scratch[i] = 0.0f;
    }
    for (int64_t t = 0; t < TOKENS; t++) {
        positions[t] = 3 * t;
    }
    ck_assert_int_eq(fast_open(&f, NULL), PECERT_OK);
    ck_assert_int_eq(f.plugin.desc->session_create(f.instance, &session, &config), PECERT_OK);
    ck_assert_msg(f.plugin.desc->session_append(f.instance, session, &a) == PECERT_OK, "%s",
                  f.plugin.desc->last_error(f.instance));
    /* The reference read: channel stride 2, one thread, element by element. */
    {
        pecert_tensor wt = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, want, {TOKENS, KV, DIM},
                            {2 * KV * DIM, 2 * DIM, 2}};

        ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, 1), PECERT_OK);
        ck_assert_int_eq(f.plugin.desc->session_read_keys(f.instance, session, &wt, 0), PECERT_OK);
    }
    for (int threads = 1; threads <= 3; threads++) {
        for (size_t offset = 0; offset <= 2; offset++) {
            pecert_tensor gt = view(got + offset, TOKENS, KV, DIM);

            ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, threads), PECERT_OK);
            memset(got, 0xff, (n + 64) * sizeof(float));
            ck_assert_int_eq(f.plugin.desc->session_read_keys(f.instance, session, &gt, 0), PECERT_OK);
            size_t i = 0;

            while (i < n && memcmp(&got[offset + i], &want[2 * i], sizeof(float)) == 0) {
                i++;
            }
            ck_assert_msg(i == n, "%d threads, offset %zu: key element %zu differs", threads, offset, i);
        }
    }
    /* Tokens 1 row apart in a view 2 rows wide: token j + 1's first head
     * overwrites token j's second, so the last token's rows win. */
    {
        pecert_tensor lt = {sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, got, {TOKENS, KV, DIM},
                            {DIM, DIM, 1}};

        ck_assert_int_eq(f.plugin.desc->set_num_threads(f.instance, 2), PECERT_OK);
        ck_assert_int_eq(f.plugin.desc->session_read_keys(f.instance, session, &lt, 0), PECERT_OK);
        int64_t j = 0;

        while (j < TOKENS && memcmp(&got[(size_t)j * DIM], &want[2 * (size_t)j * KV * DIM], sizeof(float)) == 0) {
            j++;
        }
        ck_assert_msg(j == TOKENS, "overlapping view: row %lld is not token %lld's head 0", (long long)j,
                      (long long)j);
    }
    f.plugin.desc->session_destroy(f.instance, session);
    fast_close(&f);
    free(k);
    free(scratch);
    free(attended);
    free(want);
    free(got);
    free(positions);
    free(seq_ids);
    free(valid);
}
END_TEST

Suite *make_fast_session_suite(void)
{
    return test_suite_of("fast_session",
                         TEST_TCASE("core", 120, every_isa_and_thread_count_gives_the_scalar_bits,
                                    prefill_decode_and_chunks_give_the_same_bits, padding_rows_never_reach_an_output,
                                    outputs_stay_within_the_stated_error, the_exponential_rounds_once,
                                    read_keys_gives_the_same_keys_on_every_path),
                         NULL);
}
