/*
 * peg.c - peg_apply, CPVT's Position Encoding Generator (plugin.h,
 * pecert_peg_args): a depthwise k x k convolution over the patch grid,
 * zero padded, with bias, added to its input.
 *
 * The kernel is re-laid once per call as [k * k, C] (tap-major), so that a
 * patch's output is a sum of whole C-wide rows: the taps inside the grid,
 * in kernel order, acc += w[tap] * x[neighbour] in float32 per channel,
 * then out = x + (acc + bias), by the ISA's peg_cell (scalar/taps.c: the
 * channels in blocks held in registers across the taps). Taps outside
 * the grid read zeros and are skipped. Where the ISA has peg_row3 (AVX2,
 * AVX-512) a 3 x 3 kernel's rows are swept by it instead, edge cells and
 * all (their taps inside the grid only): the same operations per
 * channel, the taps and a window of source cells in registers. Threads
 * split the grid rows; a patch's arithmetic is the same whatever the
 * split. Strided inputs are packed once per call.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../family.h"

#define MAX_GRID 4096
#define MAX_PREFIX 64
#define MAX_KERNEL 31
#define MAX_CHANNELS 65536

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_args(const pecert__fast_call *call, const pecert_peg_args *a)
{
    pecert_status status = pecert__fast_fam_check_reserved(call, "args", a->reserved, 4);
    if (status != PECERT_OK) {
        return status;
    }
    if (a->grid_h < 1 || a->grid_h > MAX_GRID || a->grid_w < 1 || a->grid_w > MAX_GRID) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "grid_h=%" PRId64 ", grid_w=%" PRId64 " must be in 1..%d",
                                 a->grid_h, a->grid_w, MAX_GRID);
    }
    if (a->prefix_tokens < 0 || a->prefix_tokens > MAX_PREFIX) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "prefix_tokens=%" PRId32 " must be in 0..%d",
                                 a->prefix_tokens, MAX_PREFIX);
    }
    if (a->kernel < 1 || a->kernel > MAX_KERNEL || a->kernel % 2 == 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "kernel=%" PRId64 " must be odd and in 1..%d", a->kernel,
                                 MAX_KERNEL);
    }
    status = pecert__fast_fam_check_view(call, "x", a->x, 2, NULL, PECERT__FAM_F32, 0);
    int64_t rows = a->prefix_tokens + a->grid_h * a->grid_w;
    if (status == PECERT_OK && (a->x->shape[0] != rows || a->x->shape[1] < 1 || a->x->shape[1] > MAX_CHANNELS)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "x.shape=[%" PRId64 ", %" PRId64 "] must be [prefix_tokens + grid_h * grid_w = %"
                                 PRId64 ", 1..%d]",
                                 a->x->shape[0], a->x->shape[1], rows, MAX_CHANNELS);
    }
    int64_t c = status == PECERT_OK ? a->x->shape[1] : 0;
    int64_t wshape[3] = {c, a->kernel, a->kernel}, bshape[1] = {c}, oshape[2] = {rows, c};
    status = status == PECERT_OK ? pecert__fast_fam_check_view(call, "weight", a->weight, 3, wshape, PECERT__FAM_F32, 0)
                                 : status;
    status = status == PECERT_OK ? pecert__fast_fam_check_view(call, "bias", a->bias, 1, bshape, PECERT__FAM_F32, 0)
                                 : status;
    status = status == PECERT_OK ? pecert__fast_fam_check_view(call, "out", a->out, 2, oshape, PECERT__FAM_F32, 1)
                                 : status;
    if (status == PECERT_OK && (pecert__fast_views_overlap(a->x, a->out) ||
                                pecert__fast_views_overlap(a->weight, a->out) ||
                                pecert__fast_views_overlap(a->bias, a->out))) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "out overlaps an input (x, weight or bias)");
    }
    return status;
}

/* ---- the plan ------------------------------------------------------------------ */

typedef struct peg_plan {
    const pecert_peg_args *a;
    int64_t channels;
    const float *x;  /* [rows, C], packed */
    float *x_owned;  /* x when the view was strided */
    float *taps;     /* [k * k, C]: the kernel tap-major, then the bias row */
    float *scratch;  /* per thread: one C-wide row, then the taps' pointers */
    size_t acc_floats;
    int swept;  /* every grid row by peg_row3 */
    int stream; /* peg_row3 with streaming stores */
    const pecert__fast_kernels *kernels;
} peg_plan;

static int plan_inputs(peg_plan *pl)
{
    const pecert_peg_args *a = pl->a;
    int64_t rows = a->x->shape[0], c = pl->channels, kk = a->kernel * a->kernel;
    pl->taps = malloc((size_t)((kk + 1) * c) * sizeof(float));
    if (pl->taps == NULL) {
        return 0;
    }
    for (int64_t ch = 0; ch < c; ch++) {
        for (int64_t t = 0; t < kk; t++) {
            pl->taps[t * c + ch] = ((const float *)a->weight->data)[ch * a->weight->strides[0] +
                                                                   (t / a->kernel) * a->weight->strides[1] +
                                                                   (t % a->kernel) * a->weight->strides[2]];
        }
        pl->taps[kk * c + ch] = ((const float *)a->bias->data)[ch * a->bias->strides[0]];
    }
    if (a->x->strides[1] == 1 && a->x->strides[0] == c) {
        pl->x = a->x->data;
        return 1;
    }
    pl->x_owned = malloc((size_t)(rows * c) * sizeof(float));
    if (pl->x_owned == NULL) {
        return 0;
    }
    for (int64_t r = 0; r < rows; r++) {
        for (int64_t ch = 0; ch < c; ch++) {
            pl->x_owned[r * c + ch] = ((const float *)a->x->data)[r * a->x->strides[0] + ch * a->x->strides[1]];
        }
    }
    pl->x = pl->x_owned;
    return 1;
}

/* ---- the convolution -------------------------------------------------------------- */

static void store_prefix(const pecert_tensor *out, int64_t row, const float *v, int64_t c)
{
    float *dst = (float *)out->data + row * out->strides[0];
    for (int64_t ch = 0; ch < c; ch++) {
        dst[ch * out->strides[1]] = v[ch];
    }
}

/* Channels per pass over a grid row: the block's kernel taps stay in L1
 * while the row's cells are computed, and each source row is read from
 * L1 by the three (k) cells that use it. 384 channels (a 3 x 3 cell's
 * taps and inputs 27 KiB) measured best of 128..768 (64 x 64 x 768, one
 * thread, in cache: 128 1.70-1.75 ms, 256-512 1.56-1.60, 768 2.07). */
#define CHANNEL_BLOCK 384

/* The taps of patch (y, x) inside the grid, in kernel order: their source
 * rows and kernel rows; returns how many. */
static int32_t patch_taps(const peg_plan *pl, int64_t y, int64_t x, const float **src, const float **w)
{
    const pecert_peg_args *a = pl->a;
    int64_t c = pl->channels, k = a->kernel, r = k / 2;
    int32_t taps = 0;

    for (int64_t i = 0; i < k; i++) {
        int64_t sy = y + i - r;
        if (sy < 0 || sy >= a->grid_h) {
            continue;
        }
        for (int64_t j = 0; j < k; j++) {
            int64_t sx = x + j - r;
            if (sx < 0 || sx >= a->grid_w) {
                continue;
            }
            w[taps] = pl->taps + (i * k + j) * c;
            src[taps] = pl->x + (a->prefix_tokens + sy * a->grid_w + sx) * c;
            taps++;
        }
    }
    return taps;
}

/* Cells [x0, x1) of grid row y: every cell's taps, then the channels
 * block by block, each block across the cells (peg_cell's arithmetic per
 * channel does not depend on the blocks). */
static void cells_by_taps(const peg_plan *pl, int64_t y, int64_t x0, int64_t x1, float *acc, const float **ptrs,
                          int32_t *taps)
{
    const pecert_peg_args *a = pl->a;
    int64_t c = pl->channels, kk = a->kernel * a->kernel;
    int direct = a->out->strides[1] == 1;

    for (int64_t x = x0; x < x1; x++) {
        taps[x] = patch_taps(pl, y, x, ptrs + 2 * kk * x, ptrs + 2 * kk * x + kk);
    }
    for (int64_t c0 = 0; c0 < c; c0 += CHANNEL_BLOCK) {
        int64_t c1 = c - c0 < CHANNEL_BLOCK ? c : c0 + CHANNEL_BLOCK;

        for (int64_t x = x0; x < x1; x++) {
            int64_t row = a->prefix_tokens + y * a->grid_w + x;
            float *out = direct ? (float *)a->out->data + row * a->out->strides[0] : acc;

            pl->kernels->peg_cell(out, ptrs + 2 * kk * x, ptrs + 2 * kk * x + kk, taps[x], pl->taps + kk * c,
                                  pl->x + row * c, c0, c1);
            if (!direct) {
                float *dst = (float *)a->out->data + row * a->out->strides[0];

                for (int64_t ch = c0; ch < c1; ch++) {
                    dst[ch * a->out->strides[1]] = acc[ch];
                }
            }
        }
    }
}

/* Whether the grid's rows go to the ISA's peg_row3: a 3 x 3 kernel, an
 * out of unit channel stride and rows `channels` apart (the sweep's
 * addressing). */
static int rows_swept(const peg_plan *pl)
{
    const pecert_peg_args *a = pl->a;

    return pl->kernels->peg_row3 != NULL && a->kernel == 3 && a->out->strides[1] == 1 &&
           a->out->strides[0] == pl->channels;
}

/* Grid row y: swept by peg_row3 where it applies (the rows above and
 * below it, NULL outside the grid), else every cell by its taps. */
static void grid_row(const peg_plan *pl, int64_t y, float *acc, const float **ptrs, int32_t *taps)
{
    const pecert_peg_args *a = pl->a;
    int64_t c = pl->channels, first = a->prefix_tokens + y * a->grid_w;

    if (!pl->swept) {
        cells_by_taps(pl, y, 0, a->grid_w, acc, ptrs, taps);
        return;
    }
    const float *src[3] = {y > 0 ? pl->x + (first - a->grid_w) * c : NULL, pl->x + first * c,
                           y + 1 < a->grid_h ? pl->x + (first + a->grid_w) * c : NULL};
    const float *ahead = y + 2 < a->grid_h ? src[2] + a->grid_w * c : NULL;

    pl->kernels->peg_row3((float *)a->out->data + first * c, src, pl->taps, c, a->grid_w, pl->stream, ahead);
}

static void peg_share(void *context, int ith, int nth)
{
    const peg_plan *pl = context;
    const pecert_peg_args *a = pl->a;
    float *acc = pl->scratch + (size_t)ith * pl->acc_floats;
    const float **ptrs = (const float **)(void *)(acc + ((size_t)pl->channels + 15) / 16 * 16);
    int32_t *taps = (int32_t *)(void *)(ptrs + 2 * a->kernel * a->kernel * a->grid_w);
    int64_t first, end;
    pecert__fast_share(a->grid_h, ith, nth, &first, &end);
    for (int64_t y = first; y < end; y++) {
        grid_row(pl, y, acc, ptrs, taps);
    }
    if (pl->stream) {
        pl->kernels->store_fence(); /* before the region's barrier */
    }
}

pecert_status pecert__fast_peg_apply(void *instance, const pecert_peg_args *args)
{
    pecert__fast_call call;
    pecert_status status = pecert__fast_fam_enter(&call, instance, "peg_apply", args, sizeof(*args));
    status = status == PECERT_OK ? check_args(&call, args) : status;
    if (status != PECERT_OK) {
        return status;
    }
    peg_plan pl;
    memset(&pl, 0, sizeof(pl));
    pl.a = args;
    pl.channels = args->x->shape[1];
    /* Each output element is kernel^2 multiply-adds: weigh the threads by
     * that work, not by the output bytes alone. */
    size_t work = (size_t)args->x->shape[0] * (size_t)pl.channels * sizeof(float) *
                  (size_t)(args->kernel * args->kernel);
    int threads = pecert__fast_threads(&call, work, args->grid_h);
    pl.kernels = call.instance->kernels;
    /* Streamed where the output is past the caches; a swept row's stores
     * are 4 * C bytes apart (one line per cell and slice), and a plain
     * store there reads the line first. */
    pl.swept = rows_swept(&pl);
    pl.stream = pl.swept && pl.kernels->store_fence != NULL && (uintptr_t)args->out->data % 64 == 0 &&
                pl.channels % 16 == 0 &&
                (size_t)args->x->shape[0] * (size_t)pl.channels * sizeof(float) >= PECERT__FAST_STREAM_MIN_BYTES;
    /* Per thread: a C-wide row, then a grid row's 2 k^2 tap pointers per
     * cell (sources, weights) and tap counts. */
    pl.acc_floats = ((size_t)pl.channels + 15) / 16 * 16 +
                    ((size_t)(2 * args->kernel * args->kernel * args->grid_w) * sizeof(float *) +
                     (size_t)args->grid_w * sizeof(int32_t) + 63) / 64 * 16;
    pl.scratch = pecert__fast_scratch(&call, (size_t)threads * pl.acc_floats * sizeof(float));
    if (pl.scratch == NULL || !plan_inputs(&pl)) {
        free(pl.taps);
        free(pl.x_owned);
        return pecert__fast_fail(&call, PECERT_E_NOMEM, "out of memory");
    }
    for (int64_t r = 0; r < args->prefix_tokens; r++) {
        store_prefix(args->out, r, pl.x + r * pl.channels, pl.channels);
    }
    pecert__fast_run(threads, peg_share, &pl);
    free(pl.taps);
    free(pl.x_owned);
    return PECERT_OK;
}
