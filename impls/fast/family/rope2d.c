/*
 * rope2d.c - the 2-D RoPE of vision towers (ops rope2d_index,
 * rope2d_apply; plugin.h states both).
 *
 * rope2d_index walks each image's grid window by window (MERGE_WINDOWS,
 * Qwen2-VL's rot_pos_emb order; ATTENTION_WINDOWS, Qwen2.5-VL's, the merge
 * windows in turn grouped by attention window, the k-th unit of a
 * rows x cols window at (k / cols, k % cols) inside it) or row by row
 * (ROW_MAJOR, ROW_MAJOR_CLS: windows of one patch), writing straight into
 * the output view.
 *
 * rope2d_apply: a vision grid has few distinct rows and columns (a 64 x 64
 * grid: 64 of each for 4096 tokens), so each axis' cos/sin rows are
 * computed once per distinct position, accurately reduced in double and
 * rounded to float, into a table over the axis' span; a token's row is the
 * first axis' D/4 entries then the other's. When an axis' span is wider
 * than the tokens (scattered positions) the rows are computed per token
 * instead. Each head is rotated by a float loop the compiler vectorizes,
 * straight from x to out when the channels are contiguous (out may be x),
 * else through a gathered row; tokens are shared among threads.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_TOKENS ((int64_t)1 << 40)
#define MAX_WINDOW_UNITS (1 << 20)

/* ---- rope2d_index ---------------------------------------------------------- */

static int64_t image_tokens(const pecert_rope2d_index_args *a, int64_t k)
{
    const int64_t *g = a->grid_thw + 3 * k;

    return g[0] * g[1] * g[2] + (a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS ? 1 : 0);
}

static int takes_frames(const pecert_rope2d_index_args *a)
{
    return a->scheme == PECERT_ROPE2D_MERGE_WINDOWS || a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS;
}

static pecert_status check_grid(const pecert__fast_call *call, const pecert_rope2d_index_args *a,
                                int64_t k, int64_t total)
{
    const int64_t *g = a->grid_thw + 3 * k;
    int64_t m = a->spatial_merge_size;

    for (int d = 0; d < 3; d++) {
        if (g[d] < 1 || g[d] > MAX_TOKENS) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "grid_thw[%" PRId64 "][%d]=%" PRId64 " must be in 1..2^40",
                                     k, d, g[d]);
        }
    }
    if (!takes_frames(a) && g[0] != 1) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "grid_thw[%" PRId64 "]: t=%" PRId64
                                 ", a row-major scheme takes single images (t=1)",
                                 k, g[0]);
    }
    if (g[1] % m != 0 || g[2] % m != 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "grid_thw[%" PRId64 "]: h=%" PRId64 ", w=%" PRId64
                                 " must be multiples of spatial_merge_size=%" PRId64,
                                 k, g[1], g[2], m);
    }
    if (g[1] > MAX_TOKENS / g[2] || g[0] > MAX_TOKENS / (g[1] * g[2]) ||
        image_tokens(a, k) > MAX_TOKENS - total) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "grid_thw: more than 2^40 tokens by image %" PRId64, k);
    }
    return PECERT_OK;
}

static pecert_status check_index_args(const pecert__fast_call *call,
                                      const pecert_rope2d_index_args *a, int64_t *out_tokens)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    int64_t total = 0;

    if (status == PECERT_OK && (a->scheme < PECERT_ROPE2D_MERGE_WINDOWS ||
                                a->scheme > PECERT_ROPE2D_ATTENTION_WINDOWS)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "scheme=%" PRId32 " must be 0, 1, 2 or 3",
                                   a->scheme);
    }
    int windowed = a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS;
    if (status == PECERT_OK && windowed && (a->window_units < 1 || a->window_units > MAX_WINDOW_UNITS)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "window_units=%" PRId32 " must be in 1..2^20 for ATTENTION_WINDOWS",
                                   a->window_units);
    }
    if (status == PECERT_OK && !windowed && a->window_units != 0) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "window_units=%" PRId32 " must be 0 outside ATTENTION_WINDOWS",
                                   a->window_units);
    }
    if (status == PECERT_OK &&
        (a->spatial_merge_size < 1 || (!takes_frames(a) && a->spatial_merge_size != 1))) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "spatial_merge_size=%" PRId32
                                   " must be >= 1 (1 for a row-major scheme)",
                                   a->spatial_merge_size);
    }
    if (status == PECERT_OK && (a->n_images < 0 || a->n_images > MAX_TOKENS)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "n_images=%" PRId64 " must be in 0..2^40",
                                   a->n_images);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_ints(call, "grid_thw", a->grid_thw, 3 * a->n_images);
    }
    for (int64_t k = 0; status == PECERT_OK && k < a->n_images; k++) {
        status = check_grid(call, a, k, total);
        total += status == PECERT_OK ? image_tokens(a, k) : 0;
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {2, total};
        status = pecert__fast_fam_check_view(call, "out_positions", a->out_positions, 2, shape,
                                             PECERT__FAM_INT, 1);
    }
    *out_tokens = total;
    return status;
}

static void put(const pecert_tensor *out, int64_t token, int64_t row, int64_t col)
{
    int64_t idx[2] = {0, token};

    if (out->dtype == PECERT_DTYPE_I64) { /* the ABI's type: no generic store */
        int64_t *p = (int64_t *)out->data + token * out->strides[1];

        p[0] = row;
        p[out->strides[0]] = col;
        return;
    }
    pecert__fast_fam_store_int(out, idx, row);
    idx[0] = 1;
    pecert__fast_fam_store_int(out, idx, col);
}

/* One frame's merge units, attention window after attention window (one
 * window of the whole frame unless ATTENTION_WINDOWS); returns the next
 * free token. */
static int64_t place_frame(const pecert_rope2d_index_args *a, const int64_t *g, int64_t lift, int64_t next)
{
    int64_t m = a->spatial_merge_size;
    int64_t units_h = g[1] / m;
    int64_t units_w = g[2] / m;
    int windowed = a->scheme == PECERT_ROPE2D_ATTENTION_WINDOWS;
    int64_t side_h = windowed ? a->window_units : units_h;
    int64_t side_w = windowed ? a->window_units : units_w;
    int64_t windows_h = (units_h + side_h - 1) / side_h;
    int64_t windows_w = (units_w + side_w - 1) / side_w;

    for (int64_t win = 0; win < windows_h * windows_w; win++) {
        int64_t u0 = win / windows_w * side_h; /* the window's first unit row, column */
        int64_t v0 = win % windows_w * side_w;
        int64_t rows = units_h - u0 < side_h ? units_h - u0 : side_h;
        int64_t cols = units_w - v0 < side_w ? units_w - v0 : side_w;

        for (int64_t k = 0; k < rows * cols; k++) {
            int64_t r0 = (u0 + k / cols) * m;
            int64_t c0 = (v0 + k % cols) * m;

            for (int64_t i = 0; i < m * m; i++) {
                put(a->out_positions, next++, r0 + i / m + lift, c0 + i % m + lift);
            }
        }
    }
    return next;
}

static int64_t place_image(const pecert_rope2d_index_args *a, const int64_t *g, int64_t next)
{
    int64_t lift = a->scheme == PECERT_ROPE2D_ROW_MAJOR_CLS ? 1 : 0;

    for (int64_t frame = 0; frame < g[0]; frame++) {
        next = place_frame(a, g, lift, next);
    }
    if (lift) {
        put(a->out_positions, next++, 0, 0); /* the class token */
    }
    return next;
}

pecert_status pecert__fast_rope2d_index(void *instance, const pecert_rope2d_index_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    int64_t tokens = 0;
    int64_t next = 0;

    status = pecert__fast_fam_enter(&call, instance, "rope2d_index", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_index_args(&call, args, &tokens);
    }
    for (int64_t k = 0; status == PECERT_OK && k < args->n_images; k++) {
        next = place_image(args, args->grid_thw + 3 * k, next);
    }
    return status;
}

/* ---- rope2d_apply ---------------------------------------------------------- */

/* One axis' cos/sin rows: a table over [lo, lo + span) or, when NULL,
 * computed per token. */
typedef struct axis_rows {
    const int64_t *positions; /* [tokens]                                  */
    const double *freq;       /* [D/4]                                     */
    int64_t lo;
    float *table;             /* [span][2][D/4]: cos, then sin             */
} axis_rows;

typedef struct apply_plan {
    const pecert_rope2d_apply_args *a;
    int32_t quarter;          /* D/4                                       */
    axis_rows axes[2];        /* the first half's axis, the second's       */
    /* per thread: c[D/2], s[D/2], v[D], w[D], the scratch of an axis row
     * (D/2), then the interleaved table row cos[D], sin[D] */
    float *rows;
    size_t row_floats;
    const pecert__fast_kernels *kernels;
    pecert__fast_rotate_fn rotate; /* contiguous channels: the ISA's rotation */
    int streaming;            /* rotate streams its stores                 */
    int streams;              /* row ranges per thread (apply_streams)     */
} apply_plan;

static pecert_status check_apply_args(const pecert__fast_call *call,
                                      const pecert_rope2d_apply_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__fast_fail(call, PECERT_E_UNSUPPORTED, "reserved0=%" PRId32 " must be 0",
                                   a->reserved0);
    }
    if (status == PECERT_OK && a->pairing != PECERT_PAIRING_SPLIT_HALF &&
        a->pairing != PECERT_PAIRING_INTERLEAVED) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "pairing=%" PRId32 " must be 0 or 1",
                                   a->pairing);
    }
    if (status == PECERT_OK && a->frequencies != PECERT_ROPE2D_BLOCKS &&
        a->frequencies != PECERT_ROPE2D_ALTERNATE) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "frequencies=%" PRId32 " must be 0 or 1",
                                   a->frequencies);
    }
    if (status == PECERT_OK && a->columns_first != 0 && a->columns_first != 1) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "columns_first=%" PRId32 " must be 0 or 1",
                                   a->columns_first);
    }
    if (status == PECERT_OK && (a->head_dim < 4 || a->head_dim % 4 != 0 || a->head_dim > 65536)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "head_dim=%" PRId32 " must be a multiple of 4 in 4..65536",
                                   a->head_dim);
    }
    if (status == PECERT_OK && !(isfinite(a->theta) && a->theta > 1.0)) {
        status = pecert__fast_fail(call, PECERT_E_INVAL, "theta=%g must be finite and > 1",
                                   a->theta);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "x", a->x, 3, NULL, PECERT__FAM_F32, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_fam_check_view(call, "out", a->out, 3, a->x->shape, PECERT__FAM_F32, 1);
    }
    if (status == PECERT_OK && a->x->shape[2] != a->head_dim) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "x.shape[2]=%" PRId64 " must be head_dim=%" PRId32,
                                   a->x->shape[2], a->head_dim);
    }
    if (status == PECERT_OK && a->x->shape[0] > MAX_TOKENS) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "x.shape[0]=%" PRId64 " exceeds 2^40 tokens", a->x->shape[0]);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_positions(call, a->positions, 2 * a->x->shape[0], NULL);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_aliasing(call, "x", a->x, "out", a->out, 1);
    }
    return status;
}

/* cos then sin of position * freq[i], i < quarter, rounded to float. */
static void compute_row(double position, const double *freq, int32_t quarter, float *cs)
{
    for (int32_t i = 0; i < quarter; i++) {
        double s;
        double c;

        pecert__fast_fam_sincos(position, freq[i], &s, &c);
        cs[i] = (float)c;
        cs[quarter + i] = (float)s;
    }
}

/* The span of an axis' positions when a table over it is worth building:
 * no wider than the tokens (each row then serves one token or more). */
static int64_t table_span(const int64_t *positions, int64_t tokens, int64_t *out_lo)
{
    int64_t lo = positions[0];
    int64_t hi = positions[0];

    for (int64_t t = 1; t < tokens; t++) {
        lo = positions[t] < lo ? positions[t] : lo;
        hi = positions[t] > hi ? positions[t] : hi;
    }
    *out_lo = lo;
    return hi - lo < tokens ? hi - lo + 1 : 0; /* |positions| < 2^53: no overflow */
}

static const float *axis_row(const axis_rows *ax, int64_t t, int32_t quarter, float *scratch)
{
    int64_t p = ax->positions[t];

    if (ax->table != NULL) {
        return ax->table + (size_t)(p - ax->lo) * 2 * (size_t)quarter;
    }
    compute_row((double)p, ax->freq, quarter, scratch);
    return scratch;
}

/* The token's D/2 cos and sin: the first axis' quarter, then the other's. */
static void token_row(const apply_plan *plan, int64_t t, float *c, float *s, float *scratch)
{
    int32_t q = plan->quarter;

    for (int k = 0; k < 2; k++) {
        const float *cs = axis_row(&plan->axes[k], t, q, scratch);

        memcpy(c + k * q, cs, (size_t)q * sizeof(float));
        memcpy(s + k * q, cs + q, (size_t)q * sizeof(float));
    }
}

/* w = v rotated; w may be v: each iteration reads its two channels before
 * it writes either and no other iteration touches them, which is what
 * `omp simd` asserts (no loop-carried dependence), in place or not. */
static void rotate_row(const float *v, const float *c, const float *s, int32_t half, int pairing,
                       float *w)
{
    if (pairing == PECERT_PAIRING_SPLIT_HALF) {
#pragma omp simd
        for (int32_t j = 0; j < half; j++) {
            float a = v[j];
            float b = v[j + half];
            w[j] = a * c[j] - b * s[j];
            w[j + half] = b * c[j] + a * s[j];
        }
        return;
    }
#pragma omp simd
    for (int32_t j = 0; j < half; j++) {
        float a = v[2 * j];
        float b = v[2 * j + 1];
        w[2 * j] = a * c[j] - b * s[j];
        w[2 * j + 1] = b * c[j] + a * s[j];
    }
}

/* The token's table row in the ISA kernels' layout: split-half as
 * token_row makes it, interleaved as cos[2i] = cos[2i+1] = c_i,
 * sin[2i] = -s_i, sin[2i+1] = s_i (fast.h, PECERT__FAST_PAIRS; a * c +
 * b * -s is a * c - b * s exactly). */
static void kernel_row(const apply_plan *plan, const float *c, const float *s, float *pairs)
{
    int32_t half = plan->a->head_dim / 2;

    if (plan->a->pairing == PECERT_PAIRING_SPLIT_HALF) {
        return;
    }
    for (int32_t i = 0; i < half; i++) {
        pairs[2 * i] = pairs[2 * i + 1] = c[i];
        pairs[2 * half + 2 * i] = -s[i];
        pairs[2 * half + 2 * i + 1] = s[i];
    }
}

/* Heads [h, h + n) of token t through the ISA's rotation kernel
 * (scalar/rotate.c's arithmetic, lane for lane: rotate_row's products and
 * sums, the same bits). */
static void rotate_heads(const apply_plan *plan, int64_t t, int64_t h, int64_t n, const float *c, const float *s,
                         const float *pairs)
{
    const pecert_rope2d_apply_args *a = plan->a;
    int split = a->pairing == PECERT_PAIRING_SPLIT_HALF;

    plan->rotate(&(pecert__fast_span){
        .x = (const float *)a->x->data + t * a->x->strides[0] + h * a->x->strides[1],
        .out = (float *)a->out->data + t * a->out->strides[0] + h * a->out->strides[1],
        .x_head = a->x->strides[1],
        .out_head = a->out->strides[1],
        .x_chan = 1,
        .out_chan = 1,
        .n_heads = n,
        .half = a->head_dim / 2,
        .head_dim = a->head_dim,
        .copy_pass = 0,
        .cos = split ? c : pairs,
        .sin = split ? s : pairs + a->head_dim,
    });
}

static void rotate_token(const apply_plan *plan, int64_t t, float *row)
{
    const pecert_rope2d_apply_args *a = plan->a;
    int32_t d = a->head_dim;
    float *c = row;
    float *s = row + d / 2;
    float *v = row + d;
    float *w = row + 2 * d;
    float *scratch = row + 3 * d;

    token_row(plan, t, c, s, scratch);
    if (plan->rotate != NULL) {
        kernel_row(plan, c, s, scratch + d / 2);
        rotate_heads(plan, t, 0, a->x->shape[1], c, s, scratch + d / 2);
        return;
    }
    for (int64_t h = 0; h < a->x->shape[1]; h++) {
        const float *in = (const float *)a->x->data + t * a->x->strides[0] + h * a->x->strides[1];
        float *out = (float *)a->out->data + t * a->out->strides[0] + h * a->out->strides[1];

        if (a->x->strides[2] == 1 && a->out->strides[2] == 1) {
            rotate_row(in, c, s, d / 2, a->pairing, out); /* out is in, or shares none of it */
            continue;
        }
        for (int32_t i = 0; i < d; i++) {
            v[i] = in[i * a->x->strides[2]];
        }
        rotate_row(v, c, s, d / 2, a->pairing, w);
        for (int32_t i = 0; i < d; i++) {
            out[i * a->out->strides[2]] = w[i];
        }
    }
}

/* A range of the tokens * heads rows and its current token's table row
 * (apply_streams). */
typedef struct cursor {
    int64_t row;
    int64_t end;
    int64_t token; /* whose row c, s, pairs hold; -1: none */
    float *c, *s, *scratch, *pairs;
} cursor;

/* Where pecert__fast_row_ranges gives a thread four ranges (apply.c), its
 * share is rotated as four ranges of rows in turn, 512 bytes of each at a
 * time, as rope_apply's. Each range keeps its own token row. */
static void apply_streams(const apply_plan *plan, int ith, int64_t first, int64_t end)
{
    const pecert_rope2d_apply_args *a = plan->a;
    int64_t heads = a->x->shape[1];
    int32_t d = a->head_dim;
    int64_t visit = d * (int64_t)sizeof(float) >= 512 ? 1 : 512 / (d * (int64_t)sizeof(float));
    cursor cur[PECERT__FAST_APPLY_STREAMS];
    int busy = 1;

    for (int k = 0; k < PECERT__FAST_APPLY_STREAMS; k++) {
        float *row = plan->rows + ((size_t)ith * PECERT__FAST_APPLY_STREAMS + (size_t)k) * plan->row_floats;

        pecert__fast_share((end - first) * heads, k, PECERT__FAST_APPLY_STREAMS, &cur[k].row, &cur[k].end);
        cur[k].row += first * heads;
        cur[k].end += first * heads;
        cur[k].token = -1;
        cur[k].c = row;
        cur[k].s = row + d / 2;
        cur[k].scratch = row + 3 * d;
        cur[k].pairs = cur[k].scratch + d / 2;
    }
    while (busy) {
        busy = 0;
        for (int k = 0; k < PECERT__FAST_APPLY_STREAMS; k++) {
            cursor *q = &cur[k];
            int64_t t = q->row / heads;
            int64_t h = q->row % heads;
            int64_t n = heads - h < visit ? heads - h : visit;

            if (q->row >= q->end) {
                continue;
            }
            n = q->end - q->row < n ? q->end - q->row : n;
            if (q->token != t) {
                token_row(plan, t, q->c, q->s, q->scratch);
                kernel_row(plan, q->c, q->s, q->pairs);
                q->token = t;
            }
            rotate_heads(plan, t, h, n, q->c, q->s, q->pairs);
            q->row += n;
            busy = 1;
        }
    }
}

static void apply_share(void *context, int ith, int nth)
{
    const apply_plan *plan = context;
    float *row = plan->rows + (size_t)ith * plan->streams * plan->row_floats;
    int64_t first;
    int64_t end;

    pecert__fast_share(plan->a->x->shape[0], ith, nth, &first, &end);
    if (plan->streams > 1) {
        apply_streams(plan, ith, first, end);
    } else {
        for (int64_t t = first; t < end; t++) {
            rotate_token(plan, t, row);
        }
    }
    if (plan->streaming) {
        plan->kernels->store_fence(); /* before the region's barrier */
    }
}

/* Contiguous channels take the ISA's rotation kernels, streaming stores
 * and row ranges by rope_apply's rules (apply.c). */
static void choose_kernel(apply_plan *plan, size_t bytes, int threads)
{
    const pecert_rope2d_apply_args *a = plan->a;
    int layout = a->pairing == PECERT_PAIRING_SPLIT_HALF ? PECERT__FAST_SPLIT : PECERT__FAST_PAIRS;

    plan->rotate = pecert__fast_pick_rotate(plan->kernels, a->x, a->out, PECERT__FAST_F32, layout, a->head_dim / 2,
                                            bytes, &plan->streaming);
    plan->streams = plan->rotate != NULL ? pecert__fast_row_ranges(plan->kernels, bytes, threads, PECERT__FAST_F32,
                                                                   pecert__fast_same_view(a->x, a->out))
                                         : 1;
}

/* Frequencies, tables and per-thread rows in one scratch block. */
static pecert_status make_plan(const pecert__fast_call *call, apply_plan *plan, double *freq,
                               int threads)
{
    const pecert_rope2d_apply_args *a = plan->a;
    int64_t tokens = a->x->shape[0];
    int32_t q = plan->quarter;
    int64_t span[2];
    size_t table_floats = 0;

    for (int k = 0; k < 2; k++) {
        int is_column = a->columns_first == (k == 0);
        plan->axes[k].positions = a->positions + (is_column ? tokens : 0);
        plan->axes[k].freq = freq + k * q;
        span[k] = table_span(plan->axes[k].positions, tokens, &plan->axes[k].lo);
        table_floats += (size_t)span[k] * 2 * (size_t)q;
    }
    plan->row_floats = ((size_t)a->head_dim * 5 + 2 * (size_t)q + 15) / 16 * 16;
    float *block = pecert__fast_scratch(call, (table_floats + (size_t)threads * (size_t)plan->streams *
                                                                  plan->row_floats) *
                                                  sizeof(float));
    if (block == NULL) {
        return PECERT_E_NOMEM;
    }
    plan->rows = block + table_floats;
    for (int k = 0; k < 2; k++) {
        plan->axes[k].table = span[k] > 0 ? block : NULL;
        for (int64_t r = 0; r < span[k]; r++) {
            compute_row((double)(plan->axes[k].lo + r), plan->axes[k].freq, q,
                        block + (size_t)r * 2 * (size_t)q);
        }
        block += (size_t)span[k] * 2 * (size_t)q;
    }
    return PECERT_OK;
}

/* f_i = theta^(-4i/D) for the first half; the second half's g_i the same
 * (BLOCKS) or theta^(-(4i+2)/D) (ALTERNATE). */
static void pair_freqs(const pecert_rope2d_apply_args *a, double *freq)
{
    int32_t q = a->head_dim / 4;

    for (int32_t i = 0; i < q; i++) {
        freq[i] = pow(a->theta, -4.0 * i / a->head_dim);
        freq[q + i] = a->frequencies == PECERT_ROPE2D_ALTERNATE
                          ? pow(a->theta, -(4.0 * i + 2.0) / a->head_dim)
                          : freq[i];
    }
}

pecert_status pecert__fast_rope2d_apply(void *instance, const pecert_rope2d_apply_args *args)
{
    pecert__fast_call call;
    pecert_status status;
    apply_plan plan;
    double *freq;

    status = pecert__fast_fam_enter(&call, instance, "rope2d_apply", args, sizeof(*args));
    if (status == PECERT_OK) {
        status = check_apply_args(&call, args);
    }
    if (status != PECERT_OK || pecert__fast_is_empty(args->x)) {
        return status;
    }
    freq = malloc((size_t)(args->head_dim / 2) * sizeof(double));
    if (freq == NULL) {
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    pair_freqs(args, freq);
    memset(&plan, 0, sizeof(plan));
    plan.a = args;
    plan.quarter = args->head_dim / 4;
    size_t bytes = (size_t)args->x->shape[0] * (size_t)args->x->shape[1] *
                   (size_t)args->head_dim * sizeof(float);
    int threads = pecert__fast_threads(&call, bytes, args->x->shape[0]);
    plan.kernels = call.instance->kernels;
    choose_kernel(&plan, bytes, threads);
    status = make_plan(&call, &plan, freq, threads);
    if (status == PECERT_OK) {
        pecert__fast_run(threads, apply_share, &plan);
    }
    free(freq);
    return status;
}
