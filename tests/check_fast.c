/*
 * check_fast.c - the engine properties of `fast` that conformance checks
 * cannot see: every ISA variant (PECERT_ISA) gives the scalar variant's
 * bits, on f32 and on every f16/bf16 bit pattern (conversions included);
 * streaming and threaded calls give the plain call's bits; angles far
 * past the vector range stay accurate; bad arguments and a bad
 * PECERT_ISA are refused with a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

static pecert_rope_config make_config(int32_t head_dim, int32_t rotary_dim)
{
    return (pecert_rope_config){.struct_size = sizeof(pecert_rope_config), .rope_type = PECERT_ROPE_DEFAULT,
                                .head_dim = head_dim, .rotary_dim = rotary_dim, .rope_theta = 10000.0,
                                .max_position_embeddings = 4096};
}

static pecert_tensor view3(void *data, pecert_dtype dtype, int64_t t, int64_t h, int64_t d,
                           int64_t chan_stride)
{
    const int64_t row = d * chan_stride + 3; /* padded rows */
    pecert_tensor v = pecert_tensor_3d(data, t, h, d, h * row, row, chan_stride);

    v.dtype = dtype;
    return v;
}

/* One apply shape; x holds `bytes` of random (or given) bits. */
typedef struct apply_shape {
    pecert_rope_pairing pairing;
    pecert_dtype dtype;
    int32_t head_dim;
    int32_t rotary_dim;
    int64_t heads;
    int64_t tokens;
    int64_t chan_stride; /* 1 = contiguous channels (SIMD kernels) */
    int in_place;
} apply_shape;

static size_t elem_size(pecert_dtype dtype)
{
    return dtype == PECERT_DTYPE_F32 ? 4 : 2;
}

static size_t shape_bytes(const apply_shape *s)
{
    pecert_tensor v = view3(NULL, s->dtype, s->tokens, s->heads, s->head_dim, s->chan_stride);

    return (size_t)(v.strides[0] * s->tokens) * elem_size(s->dtype);
}

/* Positions through every path: small, negative, past 2^24, past the
 * 2^36 vector range (far_angle.c). */
static void fill_positions(int64_t *pos, int64_t n)
{
    static const int64_t specials[] = {0, 1, -5, 100000, (1 << 24) + 3, ((int64_t)1 << 36) + 1,
                                       (int64_t)1 << 40, -((int64_t)1 << 45)};

    for (int64_t i = 0; i < n; i++) {
        pos[i] = i < (int64_t)ARRAY_LEN(specials) ? specials[i] : 7 * i;
    }
}

/* Runs one shape on an instance; returns the whole output buffer. */
static unsigned char *run_shape(fast_handle *h, const apply_shape *s, const unsigned char *x_bits,
                                const int64_t *pos)
{
    pecert_rope_config config = make_config(s->head_dim, s->rotary_dim);
    size_t bytes = shape_bytes(s);
    unsigned char *x = malloc(bytes);
    unsigned char *out = malloc(bytes);
    pecert_tensor tx;
    pecert_tensor tout;
    pecert_rope_apply_args args = {.struct_size = sizeof(args), .pairing = s->pairing, .config = &config,
                                   .positions = pos, .x = &tx, .out = &tout};

    ck_assert(x != NULL && out != NULL);
    memcpy(x, x_bits, bytes);
    memset(out, 0x5a, bytes);
    tx = view3(x, s->dtype, s->tokens, s->heads, s->head_dim, s->chan_stride);
    tout = view3(s->in_place ? x : out, s->dtype, s->tokens, s->heads, s->head_dim,
                 s->chan_stride);
    ck_assert_msg(h->plugin.desc->rope_apply(h->instance, &args) == PECERT_OK, "%s",
                  h->plugin.desc->last_error(h->instance));
    if (s->in_place) {
        free(out);
        return x;
    }
    free(x);
    return out;
}

/* 1 if the element at byte offset `at` is a NaN. */
static int is_nan_at(const unsigned char *buffer, size_t at, pecert_dtype dtype)
{
    if (dtype == PECERT_DTYPE_F32) {
        uint32_t bits;

        memcpy(&bits, buffer + at, 4);
        return (bits & 0x7fffffffu) > 0x7f800000u;
    }
    uint16_t bits;

    memcpy(&bits, buffer + at, 2);
    return dtype == PECERT_DTYPE_F16 ? (bits & 0x7fffu) > 0x7c00u : (bits & 0x7fffu) > 0x7f80u;
}

/* Byte equality, except that any two NaNs match: when two NaNs meet in
 * one addition, which payload survives depends on the operand order the
 * compiler picked for a commutative operation, not on the kernel. */
static size_t first_difference(const unsigned char *a, const unsigned char *b, size_t bytes,
                               pecert_dtype dtype)
{
    size_t size = elem_size(dtype);

    for (size_t at = 0; at + size <= bytes; at += size) {
        if (memcmp(a + at, b + at, size) != 0 &&
            !(is_nan_at(a, at, dtype) && is_nan_at(b, at, dtype))) {
            return at;
        }
    }
    return bytes;
}

/* Every ISA this CPU runs must reproduce the scalar variant's bytes. */
static void assert_isas_agree(const apply_shape *s, const unsigned char *x_bits)
{
    int64_t *pos = malloc((size_t)s->tokens * sizeof(int64_t));
    fast_handle scalar;
    unsigned char *want;

    fill_positions(pos, s->tokens);
    ck_assert_int_eq(fast_open(&scalar, "scalar"), PECERT_OK);
    want = run_shape(&scalar, s, x_bits, pos);
    for (size_t i = 1; i < ARRAY_LEN(fast_isas); i++) {
        fast_handle h;
        unsigned char *got;

        if (fast_open(&h, fast_isas[i]) != PECERT_OK) {
            fast_close(&h); /* the CPU lacks it */
            continue;
        }
        got = run_shape(&h, s, x_bits, pos);
        size_t at = first_difference(want, got, shape_bytes(s), s->dtype);
        ck_assert_msg(at == shape_bytes(s),
                      "%s differs from scalar at byte %zu: pairing %d dtype %d rot %d/%d "
                      "in_place %d stride %lld",
                      fast_isas[i], at, s->pairing, s->dtype, s->rotary_dim, s->head_dim, s->in_place,
                      (long long)s->chan_stride);
        free(got);
        fast_close(&h);
    }
    free(want);
    fast_close(&scalar);
    free(pos);
}

/* Random values in [-2, 2) in the shape's dtype (finite). */
static unsigned char *random_input(const apply_shape *s, uint64_t seed)
{
    size_t bytes = shape_bytes(s);
    unsigned char *x = malloc(bytes);

    ck_assert(x != NULL);
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        float v = (float)((double)(test_next_random(&seed) >> 40) * 0x1p-22 - 2.0);
        uint32_t bits;

        memcpy(&bits, &v, 4);
        if (s->dtype != PECERT_DTYPE_F32) {
            /* two half-width values from the top bits of two floats */
            uint16_t pair[2] = {(uint16_t)(bits >> 16), (uint16_t)((bits >> 16) ^ 0x1234)};

            pair[0] = (uint16_t)(pair[0] & 0xbfff); /* keep the exponent finite */
            pair[1] = (uint16_t)(pair[1] & 0xbfff);
            memcpy(x + i, pair, 4);
        } else {
            memcpy(x + i, &bits, 4);
        }
    }
    return x;
}

START_TEST(isa_variants_agree_on_every_layout)
{
    static const int32_t dims[][2] = {{128, 128}, {128, 64}, {37, 34}, {6, 2}, {80, 48}};
    static const pecert_dtype dtypes[] = {PECERT_DTYPE_F32, PECERT_DTYPE_F16, PECERT_DTYPE_BF16};

    for (size_t d = 0; d < ARRAY_LEN(dims); d++) {
        for (size_t t = 0; t < ARRAY_LEN(dtypes); t++) {
            for (int variant = 0; variant < 8; variant++) {
                apply_shape s = {(pecert_rope_pairing)(variant & 1), dtypes[t], dims[d][0],
                                 dims[d][1], 5, 11, (variant & 2) ? 2 : 1, (variant & 4) != 0};
                unsigned char *x = random_input(&s, 17 + d * 31 + t * 7 + (uint64_t)variant);

                assert_isas_agree(&s, x);
                free(x);
            }
        }
    }
}
END_TEST

/* All 65536 bit patterns of a half type (NaN, inf, subnormals included)
 * as x, so the scalar conversions must match F16C and the vector bf16
 * rounding bit for bit. */
START_TEST(isa_variants_agree_on_every_half_pattern)
{
    static const pecert_dtype dtypes[] = {PECERT_DTYPE_F16, PECERT_DTYPE_BF16};

    for (size_t t = 0; t < ARRAY_LEN(dtypes); t++) {
        for (int pairing = 0; pairing < 2; pairing++) {
            apply_shape s = {(pecert_rope_pairing)pairing, dtypes[t], 128, 128, 32, 16, 1, 0};
            unsigned char *x = calloc(1, shape_bytes(&s));
            pecert_tensor v = view3(NULL, s.dtype, s.tokens, s.heads, s.head_dim, 1);
            uint32_t pattern = 0;

            ck_assert(x != NULL);
            for (int64_t r = 0; r < s.tokens * s.heads; r++) {
                for (int64_t d = 0; d < s.head_dim; d++, pattern++) {
                    uint16_t bits = (uint16_t)pattern;

                    memcpy(x + (size_t)(r * v.strides[1] + d) * 2, &bits, 2);
                }
            }
            ck_assert_uint_eq(pattern, 65536);
            assert_isas_agree(&s, x);
            free(x);
        }
    }
}
END_TEST

/* cos/sin tables, f32 and f64, contiguous and strided, near and far. */
static double *run_table(fast_handle *h, pecert_dtype dtype, int64_t stride, const int64_t *pos,
                         int64_t n, int32_t half)
{
    pecert_rope_config config = make_config(2 * half, 2 * half);
    size_t size = dtype == PECERT_DTYPE_F64 ? 8 : 4;
    size_t count = (size_t)(n * half * stride);
    unsigned char *buffer = calloc(2 * count, size);
    double *values = malloc(2 * (size_t)(n * half) * sizeof(double));
    pecert_tensor t[2];

    ck_assert(buffer != NULL && values != NULL);
    for (int k = 0; k < 2; k++) {
        t[k] = (pecert_tensor){.struct_size = sizeof(pecert_tensor), .dtype = dtype, .ndim = 2,
                               .data = buffer + (size_t)k * count * size, .shape = {n, half},
                               .strides = {half * stride, stride}};
    }
    ck_assert_msg(h->plugin.desc->rope_cos_sin(h->instance, &t[0], &t[1], &config, 0, pos, n) ==
                      PECERT_OK,
                  "%s", h->plugin.desc->last_error(h->instance));
    for (int k = 0; k < 2; k++) {
        for (int64_t i = 0; i < n * half; i++) {
            size_t at = (size_t)(i * stride);

            values[(size_t)k * (size_t)(n * half) + (size_t)i] =
                dtype == PECERT_DTYPE_F64 ? ((double *)t[k].data)[at] : ((float *)t[k].data)[at];
        }
    }
    free(buffer);
    return values;
}

START_TEST(isa_variants_agree_on_tables)
{
    int64_t pos[64];
    const int32_t half = 37; /* not a multiple of any vector width */

    fill_positions(pos, 64);
    for (int dtype = 0; dtype < 2; dtype++) {
        for (int64_t stride = 1; stride <= 2; stride++) {
            pecert_dtype dt = dtype ? PECERT_DTYPE_F64 : PECERT_DTYPE_F32;
            fast_handle scalar;
            double *want;

            ck_assert_int_eq(fast_open(&scalar, "scalar"), PECERT_OK);
            want = run_table(&scalar, dt, stride, pos, 64, half);
            for (size_t i = 1; i < ARRAY_LEN(fast_isas); i++) {
                fast_handle h;

                if (fast_open(&h, fast_isas[i]) == PECERT_OK) {
                    double *got = run_table(&h, dt, stride, pos, 64, half);

                    ck_assert_msg(memcmp(want, got, 2 * 64 * half * sizeof(double)) == 0,
                                  "%s table differs (dtype %d stride %lld)", fast_isas[i], dt,
                                  (long long)stride);
                    free(got);
                }
                fast_close(&h);
            }
            free(want);
            fast_close(&scalar);
        }
    }
}
END_TEST

/* One dtype and pairing: the whole tensor of `mib` MiB in one call with
 * 1, 2 and 5 threads, out of place and in place, against the same rows
 * rotated by 1 MiB calls (plain stores, one thread). ~25 MiB passes the
 * 8 MiB streaming and 24 MiB in-place rewrite thresholds; 64 MiB and a
 * token more has one thread move 128 MiB, and so rotate four ranges in
 * turn (apply.c, choose_streams), each starting mid-token. */
static void stream_case(fast_handle *h, pecert_dtype dtype, pecert_rope_pairing pairing, int64_t mib)
{
    size_t size = elem_size(dtype);
    int64_t tokens = (int64_t)((size_t)mib << 20) / (int64_t)(32 * 128 * size) + 1;
    int64_t chunk = (int64_t)((1u << 20) / (32 * 128 * size));
    size_t row = 32 * 128;
    size_t bytes = (size_t)tokens * row * size;
    pecert_rope_config config = make_config(128, 64);
    /* 64-byte aligned rows: the condition for streaming stores. */
    unsigned char *x = aligned_alloc(64, bytes);
    unsigned char *want = aligned_alloc(64, bytes);
    unsigned char *got = aligned_alloc(64, bytes);
    int64_t *pos = malloc((size_t)tokens * sizeof(int64_t));
    const int32_t counts[] = {1, 2, 5};
    pecert_tensor tx = {sizeof(tx), dtype, 3, 0, NULL, {chunk, 32, 128}, {32 * 128, 128, 1}};
    pecert_tensor tout = tx;
    pecert_rope_apply_args args = {.struct_size = sizeof(args), .pairing = pairing, .config = &config,
                                   .x = &tx, .out = &tout};
    uint64_t seed = 99;

    ck_assert(x != NULL && want != NULL && got != NULL && pos != NULL);
    for (size_t i = 0; i < bytes; i += 2) { /* finite halves; f32 from pairs of them */
        uint16_t bits = (uint16_t)(test_next_random(&seed) >> 48) & 0xbbff;
        memcpy(x + i, &bits, 2);
    }
    fill_positions(pos, tokens);
    ck_assert_int_eq(h->plugin.desc->set_num_threads(h->instance, 1), PECERT_OK);
    for (int64_t t = 0; t < tokens; t += chunk) {
        tx.shape[0] = tokens - t < chunk ? tokens - t : chunk;
        tout.shape[0] = tx.shape[0];
        tx.data = x + (size_t)t * row * size;
        tout.data = want + (size_t)t * row * size;
        args.positions = pos + t;
        ck_assert_int_eq(h->plugin.desc->rope_apply(h->instance, &args), PECERT_OK);
    }
    tx.data = x;
    tx.shape[0] = tokens;
    tout = tx;
    tout.data = got;
    args.positions = pos;
    for (size_t k = 0; k < 2 * ARRAY_LEN(counts); k++) {
        int in_place = k >= ARRAY_LEN(counts); /* in place rewrites passthrough at this size */

        memcpy(got, x, bytes);
        if (!in_place) {
            memset(got, 0, bytes);
        }
        tx.data = in_place ? got : x;
        args.out = in_place ? &tx : &tout;
        ck_assert_int_eq(h->plugin.desc->set_num_threads(h->instance, counts[k % 3]), PECERT_OK);
        ck_assert_int_eq(h->plugin.desc->rope_apply(h->instance, &args), PECERT_OK);
        ck_assert_msg(first_difference(want, got, bytes, dtype) == bytes,
                      "dtype %d pairing %d, %d threads, in place %d: differs from the small calls",
                      dtype, pairing, counts[k % 3], in_place);
    }
    free(x);
    free(want);
    free(got);
    free(pos);
}

START_TEST(streaming_and_threads_do_not_change_bits)
{
    static const pecert_dtype dtypes[] = {PECERT_DTYPE_F32, PECERT_DTYPE_F16, PECERT_DTYPE_BF16};

    for (size_t i = 1; i < ARRAY_LEN(fast_isas); i++) { /* the SIMD variants stream */
        fast_handle h;

        if (fast_open(&h, fast_isas[i]) == PECERT_OK) {
            for (size_t d = 0; d < ARRAY_LEN(dtypes); d++) {
                stream_case(&h, dtypes[d], PECERT_PAIRING_SPLIT_HALF, 25);
                stream_case(&h, dtypes[d], PECERT_PAIRING_INTERLEAVED, 25);
            }
            if (i + 1 == ARRAY_LEN(fast_isas)) { /* the ranges are apply.c's, not a kernel's */
                stream_case(&h, PECERT_DTYPE_F32, PECERT_PAIRING_INTERLEAVED, 64);
                stream_case(&h, PECERT_DTYPE_BF16, PECERT_PAIRING_SPLIT_HALF, 64);
            }
        }
        fast_close(&h);
    }
}
END_TEST

/* f64 tables against ref's: the vector path near, the far path beyond
 * 2^36 (angles up to 2^50 here). */
START_TEST(angles_match_ref_near_and_far)
{
    static const int64_t starts[] = {0, 1 << 24, ((int64_t)1 << 36) - 3, (int64_t)1 << 44,
                                     ((int64_t)1 << 50) + 12345};
    static const double bounds[] = {2e-14, 2e-14, 2e-14, 1e-12, 1e-12};
    char path[1024];
    char err[1024] = "";
    pecert_loaded_plugin ref;
    void *ref_instance = NULL;
    fast_handle fast;

    snprintf(path, sizeof(path), "%s/impls/ref.so", test_build_dir());
    ck_assert_msg(pecert_plugin_open(&ref, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(ref.desc->create(&ref_instance), PECERT_OK);
    ck_assert_int_eq(fast_open(&fast, NULL), PECERT_OK);
    for (size_t i = 0; i < ARRAY_LEN(starts); i++) {
        int64_t pos[16];
        fast_handle r = {ref, ref_instance};
        double worst = 0.0;

        for (int k = 0; k < 16; k++) {
            pos[k] = starts[i] + k;
        }
        double *want = run_table(&r, PECERT_DTYPE_F64, 1, pos, 16, 64);
        double *got = run_table(&fast, PECERT_DTYPE_F64, 1, pos, 16, 64);
        for (int k = 0; k < 2 * 16 * 64; k++) {
            worst = fmax(worst, fabs(got[k] - want[k]));
        }
        ck_assert_msg(worst <= bounds[i], "positions from %lld: max error %g > %g",
                      (long long)starts[i], worst, bounds[i]);
        free(want);
        free(got);
    }
    fast_close(&fast);
    ref.desc->destroy(ref_instance);
    pecert_plugin_close(&ref);
}
END_TEST

/* ---- errors ------------------------------------------------------------------ */

static void assert_refused(fast_handle *h, const pecert_rope_apply_args *args, pecert_status want,
                           const char *mention)
{
    pecert_status got = h->plugin.desc->rope_apply(h->instance, args);
    const char *msg = h->plugin.desc->last_error(h->instance);

    ck_assert_msg(got == want, "status %d, want %d (%s)", got, want, msg);
    ck_assert_msg(strstr(msg, mention) != NULL, "message '%s' lacks '%s'", msg, mention);
}

START_TEST(bad_arguments_are_refused_with_a_message)
{
    pecert_rope_config config = make_config(8, 8);
    float x[2 * 2 * 8];
    float y[2 * 2 * 8];
    uint16_t halves[2 * 2 * 8];
    int64_t pos[2] = {0, 1};
    pecert_tensor tx = {sizeof(tx), PECERT_DTYPE_F32, 3, 0, x, {2, 2, 8}, {16, 8, 1}};
    pecert_tensor ty = tx;
    pecert_rope_apply_args args = {.struct_size = sizeof(args), .config = &config, .positions = pos, .x = &tx,
                                   .out = &ty};
    fast_handle h;

    memset(x, 0, sizeof(x));
    ty.data = y;
    ck_assert_int_eq(fast_open(&h, NULL), PECERT_OK);
    ck_assert_int_eq(h.plugin.desc->rope_apply(h.instance, &args), PECERT_OK);
    ck_assert_str_eq(h.plugin.desc->last_error(h.instance), "");

    ty.data = x + 1; /* shifted by one element: partial overlap */
    assert_refused(&h, &args, PECERT_E_INVAL, "partial overlap");
    ty.data = y;
    ty.dtype = PECERT_DTYPE_F16;
    ty.data = halves;
    assert_refused(&h, &args, PECERT_E_UNSUPPORTED, "differs from x.dtype");
    ty = tx;
    ty.data = y;
    ty.strides[1] = 0;
    assert_refused(&h, &args, PECERT_E_INVAL, "out.strides[1]=0");
    ty.strides[1] = 8;
    ty.data = (char *)y + 2;
    assert_refused(&h, &args, PECERT_E_INVAL, "aligned");
    ty.data = y;
    pos[1] = (int64_t)1 << 53;
    assert_refused(&h, &args, PECERT_E_INVAL, "positions[1]");
    pos[1] = 1;
    args.pairing = 7;
    assert_refused(&h, &args, PECERT_E_INVAL, "args.pairing=7");
    args.pairing = PECERT_PAIRING_SPLIT_HALF;
    config.rotary_dim = 9;
    assert_refused(&h, &args, PECERT_E_INVAL, "rotary_dim=9");
    config.rotary_dim = 8;
    args.reserved[3] = 1;
    assert_refused(&h, &args, PECERT_E_UNSUPPORTED, "args.reserved[3]");
    args.reserved[3] = 0;
    tx.dtype = PECERT_DTYPE_I32;
    assert_refused(&h, &args, PECERT_E_INVAL, "x.dtype");
    ck_assert_int_eq(h.plugin.desc->rope_apply(h.instance, NULL), PECERT_E_INVAL);
    ck_assert_int_eq(h.plugin.desc->rope_apply(NULL, &args), PECERT_E_INVAL);
    fast_close(&h);
}
END_TEST

START_TEST(isa_choice_and_threads_are_described)
{
    fast_handle h;
    const char *text;

    ck_assert_int_eq(fast_open(&h, "sse9"), PECERT_E_INVAL);
    text = h.plugin.desc->last_error(NULL);
    ck_assert_msg(strstr(text, "PECERT_ISA='sse9'") != NULL, "create error: '%s'", text);
    fast_close(&h);

    ck_assert_int_eq(fast_open(&h, "scalar"), PECERT_OK);
    ck_assert_str_eq(h.plugin.desc->last_error(NULL), "");
    ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, 3), PECERT_OK);
    ck_assert_str_eq(h.plugin.desc->describe(h.instance), "isa=scalar threads=3");
    ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, 0), PECERT_E_INVAL);
    ck_assert_msg(strstr(h.plugin.desc->last_error(h.instance), "n=0") != NULL, "%s",
                  h.plugin.desc->last_error(h.instance));
    ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, 100000), PECERT_E_INVAL);
    ck_assert_str_eq(h.plugin.desc->describe(h.instance), "isa=scalar threads=3");
    fast_close(&h);

    ck_assert_int_eq(fast_open(&h, NULL), PECERT_OK);
    text = h.plugin.desc->describe(h.instance);
    ck_assert_msg(strncmp(text, "isa=", 4) == 0 && strstr(text, " threads=") != NULL, "%s", text);
    fast_close(&h);
}
END_TEST

/* An output view whose heads overlap (head stride 1) is not rejected by
 * the ABI; fast runs it in one canonical order on one thread, the same
 * on every ISA. */
START_TEST(self_overlapping_output_runs_canonically)
{
    pecert_rope_config config = make_config(8, 8);
    float x[3 * 4 * 8];
    float want[64];
    float got[64];
    int64_t pos[3] = {1, 2, 3};
    pecert_tensor tx = {sizeof(tx), PECERT_DTYPE_F32, 3, 0, x, {3, 4, 8}, {32, 8, 1}};
    pecert_tensor ty = {sizeof(ty), PECERT_DTYPE_F32, 3, 0, NULL, {3, 4, 8}, {11, 1, 1}};
    pecert_rope_apply_args args = {.struct_size = sizeof(args), .pairing = PECERT_PAIRING_INTERLEAVED,
                                   .config = &config, .positions = pos, .x = &tx, .out = &ty};

    for (size_t i = 0; i < ARRAY_LEN(x); i++) {
        x[i] = (float)i / 97.0f;
    }
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        fast_handle h;

        if (fast_open(&h, fast_isas[i]) != PECERT_OK) {
            fast_close(&h);
            continue;
        }
        memset(got, 0, sizeof(got));
        ty.data = got;
        ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, 2), PECERT_OK);
        ck_assert_int_eq(h.plugin.desc->rope_apply(h.instance, &args), PECERT_OK);
        if (i == 0) {
            memcpy(want, got, sizeof(want));
        }
        ck_assert_msg(memcmp(want, got, sizeof(want)) == 0, "%s differs", fast_isas[i]);
        fast_close(&h);
    }
}
END_TEST

Suite *make_fast_suite(void)
{
    return test_suite_of("fast",
                         TEST_TCASE("core", 60,
                                    isa_variants_agree_on_every_layout,
                                    isa_variants_agree_on_every_half_pattern,
                                    isa_variants_agree_on_tables,
                                    streaming_and_threads_do_not_change_bits,
                                    angles_match_ref_near_and_far),
                         TEST_TCASE("errors", 0,
                                    bad_arguments_are_refused_with_a_message,
                                    isa_choice_and_threads_are_described,
                                    self_overlapping_output_runs_canonically),
                         NULL);
}
