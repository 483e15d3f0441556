/*
 * check_fast_alibi.c - fast's alibi_bias against an independent double
 * model, bit for bit: every ISA variant (PECERT_ISA) the CPU runs, both
 * forms, f32 and f64, contiguous, padded, strided and transposed views,
 * every row length 1..67 (all SIMD tails), positions near +-2^53 (where
 * k - q rounds) and negative ones; 1, 2 and 3 threads and outputs past
 * the streaming threshold give the same bits; rows that overlap are
 * written in the canonical order; nothing outside the view is touched;
 * bad arguments write nothing.
 *
 * The model computes (float)(m * (k - q)) or (float)(-m * |k - q|) in
 * double (the tree builds with -ffp-contract=off), so a kernel that
 * rounds to float early, fuses a multiply-add or drops the sign of a
 * symmetric zero fails here.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast_handle.h"
#include "suites.h"

/* Bytes before and after every view, and the byte they are filled with. */
#define GUARD 256
#define SENTINEL 0xa5

/* Largest position magnitude the op accepts, 2^53 - 1. */
#define POS_MAX (((int64_t)1 << 53) - 1)

/* fast with PECERT_ISA=isa; 0 (and nothing open) if the CPU lacks it. */
static int open_variant(fast_handle *f, const char *isa)
{
    pecert_status status = fast_open(f, isa);

    if (status == PECERT_E_UNSUPPORTED) {
        fast_close(f);
        return 0;
    }
    ck_assert_msg(status == PECERT_OK, "create with PECERT_ISA=%s: %s", isa,
                  f->plugin.desc->last_error(NULL));
    return 1;
}

/* ---- the model ------------------------------------------------------------ */

/* The slopes of the ALiBi paper (ofirpress/attention_with_linear_biases
 * get_slopes): for a power of two n the geometric sequence start^1 ..
 * start^n with start = 2^(-max_bias / n); otherwise those of the largest
 * power of two c below n, then every other slope of 2c heads. Each term
 * is 2 to its exact exponent (c is a power of two: no rounding in it). */
static void paper_slopes(int32_t n, double max_bias, double *out)
{
    int32_t c = 1;

    while (c <= n / 2) {
        c *= 2;
    }
    for (int32_t i = 0; i < c; i++) {
        out[i] = exp2(-max_bias * (double)(i + 1) / (double)c);
    }
    if (c < n) {
        double *more = malloc(2 * (size_t)c * sizeof(double));

        ck_assert(more != NULL);
        paper_slopes(2 * c, max_bias, more);
        for (int32_t j = 0; c + j < n; j++) {
            out[c + j] = more[2 * j];
        }
        free(more);
    }
}

static double model_bias(double m, int64_t k, int64_t q, int symmetric)
{
    double d = (double)k - (double)q;

    return symmetric ? -m * fabs(d) : m * d;
}

/* ---- one call ----------------------------------------------------------------- */

typedef struct bias_case {
    int32_t heads;
    double max_bias;
    int64_t n_q;
    int64_t n_k;
    int symmetric;
    pecert_dtype dtype;
    int64_t strides[3];      /* elements                                   */
    size_t offset;           /* elements from a 64-byte boundary           */
    const int64_t *q;
    const int64_t *k;
} bias_case;

typedef struct bias_buffer {
    unsigned char *base;     /* GUARD bytes, the view's span, GUARD bytes  */
    size_t bytes;
    void *data;              /* the view's first element                   */
} bias_buffer;

static size_t dtype_size(pecert_dtype dtype)
{
    return dtype == PECERT_DTYPE_F64 ? 8 : 4;
}

static size_t elem_offset(const bias_case *c, int64_t h, int64_t i, int64_t j)
{
    return (size_t)(h * c->strides[0] + i * c->strides[1] + j * c->strides[2]);
}

/* A buffer covering the view plus guards, all SENTINEL; data 64-byte
 * aligned plus offset elements. (A view with no heads, which a call
 * must refuse, gets the span of one.) */
static bias_buffer make_buffer(const bias_case *c)
{
    size_t size = dtype_size(c->dtype);
    int64_t last_head = c->heads > 0 ? c->heads - 1 : 0;
    size_t span = (elem_offset(c, last_head, c->n_q - 1, c->n_k - 1) + 1 + c->offset) * size;
    bias_buffer b;

    b.bytes = (GUARD + span + GUARD + 63) & ~(size_t)63;
    b.base = aligned_alloc(64, b.bytes);
    ck_assert(b.base != NULL);
    memset(b.base, SENTINEL, b.bytes);
    b.data = b.base + GUARD + c->offset * size;
    return b;
}

static pecert_status call_bias(fast_handle *f, const bias_case *c, void *data)
{
    pecert_tensor out = {.struct_size = sizeof(out), .dtype = c->dtype, .ndim = 3, .data = data,
                         .shape = {c->heads, c->n_q, c->n_k}};
    pecert_alibi_bias_args args = {.struct_size = sizeof(args), .num_heads = c->heads, .max_bias = c->max_bias,
                                   .symmetric = c->symmetric, .q_positions = c->q, .n_q = c->n_q,
                                   .k_positions = c->k, .n_k = c->n_k, .out = &out};

    memcpy(out.strides, c->strides, sizeof(c->strides));
    return f->plugin.desc->alibi_bias(f->instance, &args);
}

static bias_buffer run_case(fast_handle *f, const bias_case *c, int32_t threads)
{
    bias_buffer b = make_buffer(c);

    ck_assert_int_eq(f->plugin.desc->set_num_threads(f->instance, threads), PECERT_OK);
    ck_assert_msg(call_bias(f, c, b.data) == PECERT_OK, "%s",
                  f->plugin.desc->last_error(f->instance));
    return b;
}

/* The model's buffer: SENTINEL, then every element written in the
 * canonical order (head, query, key), so for rows that share elements
 * the last write is the one that stays. */
static bias_buffer model_buffer(const bias_case *c)
{
    bias_buffer b = make_buffer(c);
    double *slopes = malloc((size_t)c->heads * sizeof(double));

    ck_assert(slopes != NULL);
    paper_slopes(c->heads, c->max_bias, slopes);
    for (int64_t h = 0; h < c->heads; h++) {
        for (int64_t i = 0; i < c->n_q; i++) {
            for (int64_t j = 0; j < c->n_k; j++) {
                double v = model_bias(slopes[h], c->k[j], c->q[i], c->symmetric);
                size_t at = elem_offset(c, h, i, j);

                if (c->dtype == PECERT_DTYPE_F32) {
                    ((float *)b.data)[at] = (float)v;
                } else {
                    ((double *)b.data)[at] = v;
                }
            }
        }
    }
    free(slopes);
    return b;
}

static double element_value(const unsigned char *bytes, size_t size)
{
    float f;
    double d;

    if (size == 4) {
        memcpy(&f, bytes, 4);
        return f;
    }
    memcpy(&d, bytes, 8);
    return d;
}

/* Byte-exact comparison; names the first differing element. */
static void assert_same(const bias_buffer *want, const bias_buffer *got, const bias_case *c,
                        const char *what)
{
    size_t size = dtype_size(c->dtype);

    for (size_t at = 0; at < want->bytes; at += size) {
        if (memcmp(want->base + at, got->base + at, size) != 0) {
            double w = element_value(want->base + at, size);
            double g = element_value(got->base + at, size);

            ck_abort_msg("%s: byte %zu of %zu differs: want %.17g got %.17g (heads %d n_q %lld "
                         "n_k %lld symmetric %d dtype %d strides %lld/%lld/%lld offset %zu)",
                         what, at, want->bytes, w, g, c->heads, (long long)c->n_q,
                         (long long)c->n_k, c->symmetric, c->dtype, (long long)c->strides[0],
                         (long long)c->strides[1], (long long)c->strides[2], c->offset);
        }
    }
}

/* ---- positions and layouts ------------------------------------------------ */

/* A value in [-POS_MAX, POS_MAX]. */
static int64_t random_position(uint64_t *state)
{
    return (int64_t)(test_next_random(state) % (2 * (uint64_t)POS_MAX + 1)) - POS_MAX;
}

enum { SET_SMALL, SET_HUGE, SET_RANDOM, SET_WORDS, SET_COUNT };

/* n_k key and n_q query positions of set `set`:
 *   SMALL   keys 0..n-1, queries inside, past and before them;
 *   HUGE    keys just below 2^53, queries at +-(2^53 - 1): k - q reaches
 *           2^54 - 2 and is rounded in double;
 *   RANDOM  anywhere in (-2^53, 2^53), negatives included;
 *   WORDS   keys t 2^32 - 1, t 2^32, t 2^32 + 1 for t = -11 .. 11: both
 *           32-bit halves of an int64 near their carries (the AVX2
 *           conversion of keys to double splits them there). */
static void fill_positions(int set, int64_t *k, int64_t n_k, int64_t *q, int64_t n_q)
{
    static const int64_t small_q[] = {0, 66, -3, 5};
    static const int64_t huge_q[] = {-POS_MAX, POS_MAX, 12345, -1};
    static const int64_t words_q[] = {0, -1, (int64_t)1 << 32, -((int64_t)1 << 32)};
    uint64_t seed = 1234567 + (uint64_t)n_k;

    for (int64_t j = 0; j < n_k; j++) {
        k[j] = set == SET_SMALL   ? j
               : set == SET_HUGE  ? POS_MAX - 3 * j
               : set == SET_WORDS ? (j / 3 - 11) * ((int64_t)1 << 32) + j % 3 - 1
                                  : random_position(&seed);
    }
    for (int64_t i = 0; i < n_q; i++) {
        q[i] = set == SET_SMALL   ? small_q[i % 4]
               : set == SET_HUGE  ? huge_q[i % 4]
               : set == SET_WORDS ? words_q[i % 4]
                                  : random_position(&seed);
    }
    if (set == SET_RANDOM && n_q > 1) {
        q[1] = k[n_k / 2]; /* a zero difference: -0.0 in the symmetric form */
    }
}

enum { LAYOUT_DENSE, LAYOUT_PADDED, LAYOUT_STRIDED, LAYOUT_TRANSPOSED, LAYOUT_COUNT };

/* Strides and alignment offset of a layout:
 *   DENSE       [heads][n_q][n_k], 64-byte aligned;
 *   PADDED      rows 3 elements apart, heads 1 more, data off alignment;
 *   STRIDED     keys 2 elements apart (the generic path);
 *   TRANSPOSED  [n_q][heads][n_k] in memory. */
static void set_layout(bias_case *c, int layout)
{
    int64_t row = c->n_k;

    c->offset = 0;
    switch (layout) {
    case LAYOUT_PADDED:
        row = c->n_k + 3;
        c->strides[0] = c->n_q * row + 1;
        c->strides[1] = row;
        c->strides[2] = 1;
        c->offset = 1;
        break;
    case LAYOUT_STRIDED:
        c->strides[0] = c->n_q * 2 * row;
        c->strides[1] = 2 * row;
        c->strides[2] = 2;
        break;
    case LAYOUT_TRANSPOSED:
        c->strides[0] = row;
        c->strides[1] = c->heads * row;
        c->strides[2] = 1;
        break;
    default:
        c->strides[0] = c->n_q * row;
        c->strides[1] = row;
        c->strides[2] = 1;
        break;
    }
}

/* ---- core ----------------------------------------------------------------- */

/* The paper's slopes for 8 heads are 1/2 .. 1/256 (its Section 3), and for
 * 12 heads the 8 of 8 then the odd ones of 16 (2^-0.5, 2^-1.5, ...). */
START_TEST(model_slopes_are_the_papers)
{
    double s[12];

    paper_slopes(8, 8.0, s);
    for (int h = 0; h < 8; h++) {
        ck_assert_double_eq(s[h], ldexp(1.0, -(h + 1)));
    }
    paper_slopes(12, 8.0, s);
    for (int h = 0; h < 4; h++) {
        ck_assert_double_eq(s[8 + h], exp2(-0.5 - h));
    }
}
END_TEST

/* The variants this CPU runs; scalar (always there) first. */
typedef struct variants {
    fast_handle f[ARRAY_LEN(fast_isas)];
    const char *name[ARRAY_LEN(fast_isas)];
    size_t n;
} variants;

static void open_variants(variants *v)
{
    v->n = 0;
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        if (open_variant(&v->f[v->n], fast_isas[i])) {
            v->name[v->n++] = fast_isas[i];
        }
    }
    ck_assert_msg(v->n >= 1 && v->name[0] == fast_isas[0], "the scalar variant must always run");
}

static void close_variants(variants *v)
{
    for (size_t i = 0; i < v->n; i++) {
        fast_close(&v->f[i]);
    }
}

/* One case on every variant: scalar gives the model's bytes, every other
 * variant the scalar variant's (guards included). */
static void check_variants(variants *v, const bias_case *c, int set, int layout)
{
    bias_buffer model = model_buffer(c);
    bias_buffer scalar = run_case(&v->f[0], c, 1);
    char what[64];

    snprintf(what, sizeof(what), "scalar against the model, set %d layout %d", set, layout);
    assert_same(&model, &scalar, c, what);
    for (size_t i = 1; i < v->n; i++) {
        bias_buffer got = run_case(&v->f[i], c, 1);

        snprintf(what, sizeof(what), "%s against scalar, set %d layout %d", v->name[i], set,
                 layout);
        assert_same(&scalar, &got, c, what);
        free(got.base);
    }
    free(model.base);
    free(scalar.base);
}

/* Every layout, form, dtype, position set and row length 1..67 (every
 * tail of 4-, 8- and 16-lane loops, unrolled or not). 12 heads with the
 * paper's max_bias 8: slopes 2^-1 .. 2^-8, where an early rounding to
 * float can go unnoticed, then 2^-0.5, 2^-1.5, ..., where it cannot. */
START_TEST(every_isa_gives_the_scalar_bits_on_every_tail)
{
    int64_t k[67];
    int64_t q[4];
    variants v;

    open_variants(&v);
    for (int set = 0; set < SET_COUNT; set++) {
        for (int layout = 0; layout < LAYOUT_COUNT; layout++) {
            for (int64_t n_k = 1; n_k <= 67; n_k++) {
                fill_positions(set, k, n_k, q, 4);
                for (int form = 0; form < 4; form++) {
                    bias_case c = {12, 8.0, 4, n_k, form & 1,
                                   (form & 2) ? PECERT_DTYPE_F64 : PECERT_DTYPE_F32,
                                   {0, 0, 0}, 0, q, k};

                    set_layout(&c, layout);
                    check_variants(&v, &c, set, layout);
                }
            }
        }
    }
    close_variants(&v);
}
END_TEST

/* Large calls: past the 1 MiB threshold for threads and, where rows are
 * 64-byte aligned, the 8 MiB one for streaming stores. */
typedef struct large_case {
    pecert_dtype dtype;
    int symmetric;
    double max_bias;         /* not 8: slopes that are not powers of two   */
    int64_t heads;
    int64_t n_q;
    int64_t n_k;
    int64_t row;             /* elements between rows                      */
    int64_t key_stride;
    size_t offset;
    int transposed;          /* [n_q][heads][n_k] in memory                */
} large_case;

static const large_case large_cases[] = {
    {PECERT_DTYPE_F32, 0, 7.0, 8, 104, 4096, 4096, 1, 0, 0}, /* 13 MiB, streams       */
    {PECERT_DTYPE_F64, 1, 5.0, 4, 104, 4096, 4096, 1, 0, 0}, /* 13 MiB f64, streams   */
    {PECERT_DTYPE_F32, 1, 3.0, 8, 100, 4109, 4112, 1, 0, 0}, /* aligned rows, tails   */
    {PECERT_DTYPE_F32, 0, 7.5, 8, 100, 4099, 4099, 1, 1, 0}, /* unaligned: plain      */
    {PECERT_DTYPE_F32, 1, 6.0, 3, 64, 2051, 4102, 2, 0, 0},  /* strided keys, 1.5 MiB */
    {PECERT_DTYPE_F32, 0, 4.0, 8, 104, 4096, 4096, 1, 0, 1}, /* transposed, streams   */
};

static void check_large(fast_handle *f, const char *isa, const large_case *l)
{
    static const int32_t counts[] = {1, 2, 3};
    int64_t *k = malloc((size_t)l->n_k * sizeof(int64_t));
    int64_t *q = malloc((size_t)l->n_q * sizeof(int64_t));
    bias_case c = {(int32_t)l->heads, l->max_bias, l->n_q, l->n_k, l->symmetric, l->dtype,
                   {l->n_q * l->row, l->row, l->key_stride}, l->offset, q, k};

    if (l->transposed) {
        c.strides[0] = l->row;
        c.strides[1] = l->heads * l->row;
    }
    bias_buffer want;

    ck_assert(k != NULL && q != NULL);
    for (int64_t j = 0; j < l->n_k; j++) {
        k[j] = j - 17;
    }
    for (int64_t i = 0; i < l->n_q; i++) {
        q[i] = l->n_k - l->n_q + i;
    }
    q[l->n_q / 2] = POS_MAX; /* one row of rounded differences */
    want = model_buffer(&c);
    for (size_t t = 0; t < ARRAY_LEN(counts); t++) {
        bias_buffer got = run_case(f, &c, counts[t]);
        char what[64];

        snprintf(what, sizeof(what), "%s, %d threads", isa, counts[t]);
        assert_same(&want, &got, &c, what);
        free(got.base);
    }
    free(want.base);
    free(k);
    free(q);
}

START_TEST(threads_and_streaming_do_not_change_bits)
{
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        fast_handle f;

        if (!open_variant(&f, fast_isas[i])) {
            continue;
        }
        for (size_t l = 0; l < ARRAY_LEN(large_cases); l++) {
            check_large(&f, fast_isas[i], &large_cases[l]);
        }
        fast_close(&f);
    }
}
END_TEST

/* Rows that share elements must come out as written in the canonical
 * order (head, query, key), threads allowed, on every variant. Head h's
 * rows start h elements after head 0's, so each element is written by
 * rows of every head: two threads writing at once (each a half of the
 * heads) would leave a mix. 2 MiB of writes, past the threads'
 * threshold; repeated, since only interleaved threads show it. */
START_TEST(overlapping_rows_are_written_in_order)
{
    int64_t k[128];
    int64_t q[512];
    bias_case c = {8, 7.0, 512, 128, 0, PECERT_DTYPE_F32, {1, 128, 1}, 0, q, k};
    variants v;
    bias_buffer want;

    for (int64_t j = 0; j < 128; j++) {
        k[j] = 3 * j;
    }
    for (int64_t i = 0; i < 512; i++) {
        q[i] = i;
    }
    want = model_buffer(&c);
    open_variants(&v);
    for (size_t i = 0; i < v.n; i++) {
        for (int rep = 0; rep < 50; rep++) {
            bias_buffer got = run_case(&v.f[i], &c, 2);

            assert_same(&want, &got, &c, v.name[i]);
            free(got.base);
        }
    }
    close_variants(&v);
    free(want.base);
}
END_TEST

/* ---- errors --------------------------------------------------------------- */

/* A refused call returns status, says `mention` in one line, and leaves
 * the output untouched. */
static void assert_refused(fast_handle *f, const bias_case *c, pecert_status status,
                           const char *mention)
{
    bias_buffer b = make_buffer(c);
    const char *msg;

    ck_assert_int_eq(call_bias(f, c, b.data), status);
    msg = f->plugin.desc->last_error(f->instance);
    ck_assert_msg(strstr(msg, mention) != NULL && strchr(msg, '\n') == NULL,
                  "message '%s' lacks '%s' or is not one line", msg, mention);
    for (size_t at = 0; at < b.bytes; at++) {
        ck_assert_msg(b.base[at] == SENTINEL, "byte %zu written by a refused call", at);
    }
    free(b.base);
}

START_TEST(bad_arguments_write_nothing)
{
    int64_t k[40];
    int64_t q[3] = {0, 1, 2};
    bias_case c = {4, 8.0, 3, 40, 0, PECERT_DTYPE_F32, {120, 40, 1}, 0, q, k};
    fast_handle f;

    for (int64_t j = 0; j < 40; j++) {
        k[j] = j;
    }
    ck_assert(open_variant(&f, "scalar"));
    k[39] = (int64_t)1 << 53;
    assert_refused(&f, &c, PECERT_E_INVAL, "k_positions[39]");
    k[39] = INT64_MIN; /* the extremes wrap in the range test's unsigned sum */
    assert_refused(&f, &c, PECERT_E_INVAL, "k_positions[39]");
    k[39] = INT64_MAX;
    assert_refused(&f, &c, PECERT_E_INVAL, "k_positions[39]");
    k[39] = 39;
    q[2] = -((int64_t)1 << 53);
    assert_refused(&f, &c, PECERT_E_INVAL, "q_positions[2]");
    q[2] = 2;
    c.symmetric = 2;
    assert_refused(&f, &c, PECERT_E_INVAL, "symmetric=2");
    c.symmetric = 0;
    c.strides[1] = 0;
    assert_refused(&f, &c, PECERT_E_INVAL, "out.strides[1]=0");
    c.strides[1] = 40;
    c.dtype = PECERT_DTYPE_I32;
    assert_refused(&f, &c, PECERT_E_INVAL, "out.dtype=");
    c.dtype = PECERT_DTYPE_F32;
    c.heads = 0;
    assert_refused(&f, &c, PECERT_E_INVAL, "num_heads=0");
    fast_close(&f);
}
END_TEST

Suite *make_fast_alibi_suite(void)
{
    return test_suite_of("fast_alibi",
                         TEST_TCASE("core", 60,
                                    model_slopes_are_the_papers,
                                    every_isa_gives_the_scalar_bits_on_every_tail,
                                    threads_and_streaming_do_not_change_bits,
                                    overlapping_rows_are_written_in_order),
                         TEST_TCASE("errors", 0, bad_arguments_write_nothing),
                         NULL);
}
