/*
 * check_fast_mrope.c - `fast`'s mrope_apply runs on rope_apply's engine
 * (one table walker per axis, each over its section of the frequencies).
 * What the conformance checks cannot see: every ISA variant gives the
 * scalar variant's bits, thread counts and streaming stores change no
 * bit, and with identical axes the result is rope_apply's, bit for bit
 * (a slice of the frequencies must take the near or far path exactly as
 * the whole row does). The golden vectors (mrope.apply.golden) show the
 * sections turn by the right axis.
 */
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

/* One mrope_apply shape: [tokens, heads, head_dim] f32, channels
 * chan_stride apart (1: the SIMD kernels). */
typedef struct mrope_shape {
    pecert_rope_pairing pairing;
    int32_t head_dim;
    int32_t rotary_dim;
    int32_t num_axes;
    int32_t section[PECERT_MROPE_MAX_AXES];
    int64_t heads;
    int64_t tokens;
    int64_t chan_stride;
    int in_place;
} mrope_shape;

static pecert_rope_config make_config(const mrope_shape *s)
{
    return (pecert_rope_config){.struct_size = sizeof(pecert_rope_config), .rope_type = PECERT_ROPE_DEFAULT,
                                .head_dim = s->head_dim, .rotary_dim = s->rotary_dim, .rope_theta = 1000000.0,
                                .max_position_embeddings = 32768};
}

static pecert_tensor view(const mrope_shape *s, float *data)
{
    const int64_t row = s->head_dim * s->chan_stride;

    return pecert_tensor_3d(data, s->tokens, s->heads, s->head_dim, s->heads * row, row, s->chan_stride);
}

static size_t shape_floats(const mrope_shape *s)
{
    return (size_t)(s->tokens * s->heads * s->head_dim * s->chan_stride);
}

/* 64-byte aligned: streaming stores need aligned rows. */
static float *alloc_floats(size_t n)
{
    float *x = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);

    ck_assert(x != NULL);
    return x;
}

/* Values in [-2, 2). */
static float *random_floats(size_t n, uint64_t seed)
{
    float *x = alloc_floats(n);

    for (size_t i = 0; i < n; i++) {
        x[i] = (float)((double)(test_next_random(&seed) >> 40) * 0x1p-22 - 2.0);
    }
    return x;
}

/* Per axis, the walks table.c distinguishes: runs of +1 (recurrence
 * steps), repeats (image patches sharing t), jumps, negatives, and
 * positions whose angles leave the vector range (far_angle.c). */
static int64_t *make_positions(const mrope_shape *s, int identical)
{
    static const int64_t specials[] = {5, 5, 6, -3, ((int64_t)1 << 37) + 1, 40, 41, 41};
    int64_t *pos = malloc((size_t)(s->num_axes * s->tokens) * sizeof(int64_t));

    ck_assert(pos != NULL);
    for (int32_t k = 0; k < s->num_axes; k++) {
        for (int64_t t = 0; t < s->tokens; t++) {
            int64_t walk = t < (int64_t)ARRAY_LEN(specials) ? specials[t] : 100 + t + t / 7;

            pos[k * s->tokens + t] = identical ? walk : walk + k * (t % 3) + (k == 2 ? t / 5 : 0);
        }
    }
    return pos;
}

/* The buffers of one call: x holds a copy of the input; out is x (in
 * place) or holds a stale value (never zeros). */
typedef struct call_io {
    pecert_rope_config config;
    float *x;
    float *out;
    pecert_tensor tx;
    pecert_tensor tout;
} call_io;

static void io_open(call_io *io, const mrope_shape *s, const float *x_in)
{
    size_t n = shape_floats(s);

    io->config = make_config(s);
    io->x = alloc_floats(n);
    io->out = s->in_place ? io->x : alloc_floats(n);
    memcpy(io->x, x_in, n * sizeof(float));
    if (!s->in_place) {
        memset(io->out, 0x5a, n * sizeof(float));
    }
    io->tx = view(s, io->x);
    io->tout = view(s, io->out);
}

/* Asserts the call succeeded; returns the output, frees the rest. */
static float *io_close(call_io *io, fast_handle *h, pecert_status status)
{
    ck_assert_msg(status == PECERT_OK, "%s", h->plugin.desc->last_error(h->instance));
    if (io->out != io->x) {
        free(io->x);
    }
    return io->out;
}

/* mrope_apply of x (copied) on an instance; returns the output. */
static float *run_mrope(fast_handle *h, const mrope_shape *s, const float *x_in,
                        const int64_t *pos)
{
    call_io io;
    pecert_mrope_apply_args a = {.struct_size = sizeof(a), .pairing = s->pairing, .config = &io.config,
                                 .num_axes = s->num_axes, .positions = pos, .x = &io.tx, .out = &io.tout};

    io_open(&io, s, x_in);
    memcpy(a.section, s->section, sizeof(a.section));
    return io_close(&io, h, h->plugin.desc->mrope_apply(h->instance, &a));
}

/* rope_apply of the same shape with axis 0's positions. */
static float *run_rope(fast_handle *h, const mrope_shape *s, const float *x_in,
                       const int64_t *pos)
{
    call_io io;
    pecert_rope_apply_args a = {.struct_size = sizeof(a), .pairing = s->pairing, .config = &io.config,
                                .positions = pos, .x = &io.tx, .out = &io.tout};

    io_open(&io, s, x_in);
    return io_close(&io, h, h->plugin.desc->rope_apply(h->instance, &a));
}

/* (Check records every ck_assert it passes, so compare first, assert once.) */
static void assert_same_bits(const float *want, const float *got, const mrope_shape *s,
                             const char *what)
{
    size_t n = shape_floats(s);
    size_t i = 0;

    while (i < n && memcmp(&want[i], &got[i], sizeof(float)) == 0) {
        i++;
    }
    ck_assert_msg(i == n,
                  "%s: float %zu differs (%a vs %a): pairing %d rot %d/%d sections %d,%d,%d "
                  "in_place %d stride %lld",
                  what, i, i < n ? (double)want[i] : 0.0, i < n ? (double)got[i] : 0.0,
                  s->pairing, s->rotary_dim, s->head_dim, s->section[0], s->section[1],
                  s->section[2], s->in_place, (long long)s->chan_stride);
}

/* The layouts: Qwen2-VL's [16, 24, 24] of 128, partial rotary with odd
 * sections, an empty middle section, strided channels, in place. */
static mrope_shape layout(int variant)
{
    static const struct {
        int32_t head_dim, rotary_dim, section[3];
    } dims[] = {{128, 128, {16, 24, 24}}, {40, 34, {5, 3, 9}}, {64, 48, {8, 0, 16}}};
    mrope_shape s;

    memset(&s, 0, sizeof(s));
    s.pairing = (pecert_rope_pairing)(variant & 1);
    s.chan_stride = (variant & 2) ? 2 : 1;
    s.in_place = (variant & 4) != 0;
    s.head_dim = dims[variant / 8].head_dim;
    s.rotary_dim = dims[variant / 8].rotary_dim;
    s.num_axes = 3;
    memcpy(s.section, dims[variant / 8].section, sizeof(dims[0].section));
    s.heads = 3;
    s.tokens = 45;
    return s;
}

START_TEST(mrope_isa_variants_agree)
{
    for (int variant = 0; variant < 24; variant++) {
        mrope_shape s = layout(variant);
        float *x = random_floats(shape_floats(&s), 7 + (uint64_t)variant);
        int64_t *pos = make_positions(&s, 0);
        fast_handle scalar;
        float *want;

        ck_assert_int_eq(fast_open(&scalar, "scalar"), PECERT_OK);
        want = run_mrope(&scalar, &s, x, pos);
        for (size_t i = 1; i < ARRAY_LEN(fast_isas); i++) {
            fast_handle h;

            if (fast_open(&h, fast_isas[i]) == PECERT_OK) {
                float *got = run_mrope(&h, &s, x, pos);

                assert_same_bits(want, got, &s, fast_isas[i]);
                free(got);
            }
            fast_close(&h);
        }
        fast_close(&scalar);
        free(want);
        free(pos);
        free(x);
    }
}
END_TEST

START_TEST(mrope_with_identical_axes_is_rope_apply)
{
    fast_handle h;

    ck_assert_int_eq(fast_open(&h, NULL), PECERT_OK);
    for (int variant = 0; variant < 24; variant++) {
        mrope_shape s = layout(variant);
        float *x = random_floats(shape_floats(&s), 11 + (uint64_t)variant);
        int64_t *pos = make_positions(&s, 1);
        float *want = run_rope(&h, &s, x, pos);
        float *got = run_mrope(&h, &s, x, pos);

        assert_same_bits(want, got, &s, "identical axes");
        free(want);
        free(got);
        free(pos);
        free(x);
    }
    fast_close(&h);
}
END_TEST

/* The tokens [t0, t0 + n) of an [3, tokens] position array. */
static void axis_slice(const int64_t *pos, int64_t tokens, int64_t t0, int64_t n, int64_t *out)
{
    for (int32_t k = 0; k < 3; k++) {
        memcpy(out + k * n, pos + k * tokens + t0, (size_t)n * sizeof(int64_t));
    }
}

/* 16 MiB per tensor: past the streaming and the parallel thresholds.
 * The reference is the same tokens in calls of 32 (whole blocks of
 * table.c's anchor grid: the same rows, below both thresholds). */
START_TEST(mrope_threads_and_streaming_do_not_change_bits)
{
    enum { TOKENS = 1170, HEADS = 28, CHUNK = 32 }; /* 1170 * 28 * 128 * 4 B = 16.0 MiB */
    static const int32_t counts[] = {1, 2, 3};
    const size_t row = HEADS * 128;
    fast_handle h;

    ck_assert_int_eq(fast_open(&h, NULL), PECERT_OK);
    for (int pairing = 0; pairing < 2; pairing++) {
        mrope_shape s = layout(pairing);
        float *x;
        int64_t *pos;
        float *want = malloc(TOKENS * row * sizeof(float));
        int64_t chunk_pos[3 * CHUNK];

        s.heads = HEADS;
        s.tokens = TOKENS;
        x = random_floats(shape_floats(&s), 5 + (uint64_t)pairing);
        pos = make_positions(&s, 0);
        ck_assert(want != NULL);
        ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, 1), PECERT_OK);
        for (int64_t t = 0; t < TOKENS; t += CHUNK) {
            mrope_shape c = s;
            float *part;

            c.tokens = TOKENS - t < CHUNK ? TOKENS - t : CHUNK;
            axis_slice(pos, TOKENS, t, c.tokens, chunk_pos);
            part = run_mrope(&h, &c, x + (size_t)t * row, chunk_pos);
            memcpy(want + (size_t)t * row, part, (size_t)c.tokens * row * sizeof(float));
            free(part);
        }
        for (size_t k = 0; k < ARRAY_LEN(counts); k++) {
            float *got;

            ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, counts[k]), PECERT_OK);
            got = run_mrope(&h, &s, x, pos);
            assert_same_bits(want, got, &s, counts[k] == 1 ? "1 thread" : "threads");
            free(got);
        }
        free(want);
        free(pos);
        free(x);
    }
    fast_close(&h);
}
END_TEST

Suite *make_fast_mrope_suite(void)
{
    return test_suite_of("fast_mrope",
                         TEST_TCASE("core", 60,
                                    mrope_isa_variants_agree,
                                    mrope_with_identical_axes_is_rope_apply,
                                    mrope_threads_and_streaming_do_not_change_bits),
                         NULL);
}
