/*
 * apply.c - the rope_apply op: rotate x [tokens, heads, head_dim] by each
 * token's position into out (which may be x itself).
 *
 * Plan, then run. The plan fixes everything that does not depend on the
 * row: frequencies (cached per instance), the kernel (SIMD for
 * contiguous channels, the generic scalar kernel otherwise), streaming
 * stores, the thread count. Each thread then takes a static share of the
 * tokens * heads rows; per token it brings its table row up to date
 * (table.c: usually one recurrence step from the previous token's) and
 * streams the token's heads of its share through the kernel.
 *
 * Semantics: models/llama/modeling_llama.py apply_rotary_pos_emb
 * (split-half) and models/gptj/modeling_gptj.py (interleaved) of
 * transformers v4.57.6, see scalar/rotate.c; channels from rotary_dim on
 * are copied bit for bit.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "fast.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* dtype masks for pecert__fast_check_tensor. */
#define APPLY_DTYPES \
    ((1u << PECERT_DTYPE_F32) | (1u << PECERT_DTYPE_F16) | (1u << PECERT_DTYPE_BF16))

typedef struct apply_plan {
    const pecert_tensor *x;
    const pecert_tensor *out;
    pecert__fast_freqs freqs;
    /* Axis k turns frequencies [first[k], first[k] + axis_freqs[k].half)
     * by positions[k] (rope_apply: one axis holding all of them). */
    int32_t num_axes;
    const int64_t *positions[PECERT__FAST_MAX_AXES];
    int32_t first[PECERT__FAST_MAX_AXES];
    pecert__fast_freqs axis_freqs[PECERT__FAST_MAX_AXES];
    /* Interleaved M-RoPE (Qwen3-VL): every axis walks the whole table into
     * its own row and merge_axes() picks each frequency from its axis'
     * (section[1], section[2]: how far the height and width axes reach). */
    int interleaved;
    int32_t section[PECERT__FAST_MAX_AXES];
    const pecert__fast_kernels *kernels;
    pecert__fast_rotate_fn rotate;  /* NULL: the generic kernel          */
    int streaming;                  /* rotate uses streaming stores      */
    pecert__fast_dtype dtype;
    int layout;                     /* PECERT__FAST_SPLIT / _PAIRS       */
    int copy_pass;                  /* copy channels >= rotary_dim       */
    int canonical;                  /* generic kernel, one thread        */
    size_t size;                    /* bytes per element                 */
    unsigned char *scratch;         /* per-cursor rows (row_bytes each)  */
    int streams;                    /* cursors per thread, in turn       */
    int64_t visit;                  /* rows a cursor rotates per turn    */
    size_t row_bytes;               /* double state + float32 table row  */
} apply_plan;

/* ---- validation --------------------------------------------------------- */

static pecert_status check_header(const pecert__fast_call *call,
                                  const pecert_rope_apply_args *args)
{
    size_t i;

    if (args == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "args is NULL");
    }
    if (args->struct_size < sizeof(pecert_rope_apply_args)) {
        return pecert__fast_fail(call, PECERT_E_ABI,
                                 "args.struct_size=%" PRIu32 " is below "
                                 "sizeof(pecert_rope_apply_args)=%zu",
                                 args->struct_size, sizeof(pecert_rope_apply_args));
    }
    if (args->pairing != PECERT_PAIRING_SPLIT_HALF && args->pairing != PECERT_PAIRING_INTERLEAVED) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "args.pairing=%" PRId32 " must be 0 (split-half) or 1 "
                                 "(interleaved)",
                                 args->pairing);
    }
    for (i = 0; i < ARRAY_LEN(args->reserved); i++) {
        if (args->reserved[i] != 0) {
            return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                     "args.reserved[%zu]=0x%" PRIx64 " is non-zero; this plugin "
                                     "gives it no meaning",
                                     i, args->reserved[i]);
        }
    }
    return PECERT_OK;
}

static pecert_status check_shapes(const pecert__fast_call *call, const pecert_tensor *x,
                                  const pecert_tensor *out, int32_t head_dim)
{
    uint32_t k;

    if (out->dtype != x->dtype) {
        return pecert__fast_fail(call, PECERT_E_UNSUPPORTED,
                                 "out.dtype=%" PRId32 " differs from x.dtype=%" PRId32
                                 " (converting rope_apply is not supported)",
                                 out->dtype, x->dtype);
    }
    for (k = 0; k < 3; k++) {
        if (out->shape[k] != x->shape[k]) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "out.shape[%" PRIu32 "]=%" PRId64 " differs from x.shape[%" PRIu32
                                     "]=%" PRId64,
                                     k, out->shape[k], k, x->shape[k]);
        }
    }
    if (x->shape[2] != head_dim) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "x.shape[2]=%" PRId64 " must equal config.head_dim=%" PRId32,
                                 x->shape[2], head_dim);
    }
    /* tokens * heads indexes rows; an output view that large cannot exist
     * without self-overlap, but the product must not overflow either way. */
    if (x->shape[1] > 0 && x->shape[0] > INT64_MAX / x->shape[1]) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "x.shape[0] * x.shape[1] = %" PRId64 " * %" PRId64 " overflows",
                                 x->shape[0], x->shape[1]);
    }
    return PECERT_OK;
}

static pecert_status check_arguments(const pecert__fast_call *call,
                                     const pecert_rope_apply_args *args,
                                     pecert__fast_positions *positions)
{
    pecert_status status = check_header(call, args);

    if (status == PECERT_OK) {
        status = pecert__fast_check_layer_config(call, args->config);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_seq_len(call, args->seq_len);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_tensor(call, "x", args->x, 3, APPLY_DTYPES, 0);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_tensor(call, "out", args->out, 3, APPLY_DTYPES, 1);
    }
    if (status == PECERT_OK) {
        status = check_shapes(call, args->x, args->out, args->config->head_dim);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_positions(call, args->positions, args->x->shape[0], positions);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_check_aliasing(call, "x", args->x, "out", args->out, 1);
    }
    return status;
}

/* ---- planning ------------------------------------------------------------ */

static pecert__fast_dtype fast_dtype(pecert_dtype dtype)
{
    return dtype == PECERT_DTYPE_F16    ? PECERT__FAST_F16
           : dtype == PECERT_DTYPE_BF16 ? PECERT__FAST_BF16
                                        : PECERT__FAST_F32;
}

/* 1 if no two indices of the view address the same element, shown by
 * nesting: sorted by stride, each axis steps past everything the smaller
 * axes reach. (Views that fail it may still be injective; they run in
 * the canonical order, which is then as well defined as `ref`'s.) */
static int nested_layout(const pecert_tensor *t)
{
    int64_t strides[3];
    int64_t extents[3];
    int64_t reach = 0;
    int n = 0;
    int i;
    int j;

    for (i = 0; i < 3; i++) {
        if (t->shape[i] > 1) {
            for (j = n; j > 0 && strides[j - 1] > t->strides[i]; j--) {
                strides[j] = strides[j - 1];
                extents[j] = extents[j - 1];
            }
            strides[j] = t->strides[i];
            extents[j] = t->shape[i];
            n++;
        }
    }
    for (i = 0; i < n; i++) {
        if (strides[i] <= reach) {
            return 0;
        }
        reach += (extents[i] - 1) * strides[i];
    }
    return 1;
}

/* Streaming stores: large out-of-place calls whose every output row (and,
 * split-half, its second half) starts on a 64-byte line. */
static int use_stream(const pecert__fast_kernels *kernels, const pecert_tensor *x, const pecert_tensor *out,
                      pecert__fast_dtype dtype, int layout, int32_t half, size_t bytes)
{
    int64_t line = 64 / (int64_t)(dtype == PECERT__FAST_F32 ? sizeof(float) : sizeof(uint16_t));

    return !pecert__fast_same_view(x, out) && bytes >= PECERT__FAST_STREAM_MIN_BYTES &&
           kernels->rotate_stream[dtype][layout] != NULL && kernels->store_fence != NULL &&
           (uintptr_t)out->data % 64 == 0 && out->strides[0] % line == 0 && out->strides[1] % line == 0 &&
           (layout == PECERT__FAST_PAIRS || half % line == 0);
}

pecert__fast_rotate_fn pecert__fast_pick_rotate(const pecert__fast_kernels *kernels, const pecert_tensor *x,
                                                const pecert_tensor *out, pecert__fast_dtype dtype, int layout,
                                                int32_t half, size_t bytes, int *streaming)
{
    *streaming = 0;
    if (x->strides[2] != 1 || out->strides[2] != 1) {
        return NULL;
    }
    if (use_stream(kernels, x, out, dtype, layout, half, bytes)) {
        *streaming = 1;
        return kernels->rotate_stream[dtype][layout];
    }
    return kernels->rotate[dtype][layout];
}

static void choose_kernel(apply_plan *plan, size_t bytes)
{
    plan->rotate = NULL;
    if (plan->canonical) {
        return;
    }
    plan->rotate = pecert__fast_pick_rotate(plan->kernels, plan->x, plan->out, plan->dtype, plan->layout,
                                            plan->freqs.half, bytes, &plan->streaming);
}

/* In place with partial rotary, the passthrough channels need no write.
 * But past the caches, skipping them leaves gaps in the read and
 * write-back streams, and measured here a rotation of half of every row
 * takes ~25% longer than one of whole rows. So at DRAM sizes the SIMD
 * kernels rewrite the passthrough channels onto themselves (same bits;
 * their copy is plain vector loads and stores, never memcpy). */
static int rewrite_in_place(const apply_plan *plan, const pecert_rope_config *config,
                            size_t bytes)
{
    return config->rotary_dim < config->head_dim && pecert__fast_same_view(plan->x, plan->out) &&
           plan->rotate != NULL && plan->kernels->isa != PECERT__FAST_ISA_SCALAR &&
           bytes >= PECERT__FAST_REWRITE_MIN_BYTES;
}

/* Where DRAM's latency bounds a core, one sequential stream of reads and
 * (streaming) writes leaves its bandwidth unused: the prefetchers ramp up
 * page by page. Measured on one thread at T = 32768 (1 GiB moved): split
 * in four ranges rotated in turn, 512 bytes of each at a time, f32 out of
 * place 60 -> 52 ms, f16 36 -> 27 ms, f16 in place 34 -> 24 ms (glibc's
 * memcpy visits four pages in turn for the same reason); turns of 4 KiB
 * or more gain nothing. Where the cache still serves (T = 4096 on two
 * threads, 64 MiB moved by each) the extra calls cost 10%, so a thread
 * takes four ranges only when it moves PECERT__FAST_APPLY_STREAM_BYTES;
 * and f32 in place, whose one stream already ran at 85-96% of the
 * read-modify-write limit, lost 2-10% to them (rotary_dim 64: 46.6 ->
 * 50.9 ms), so it keeps one. All of that was Zen 4 (the AVX-512 table).
 * On Zen 3 (the AVX2 table) four ranges win at 128 MiB a thread and lose
 * from 512 MiB: one `pecert bench` run, one thread, f32 out of place,
 * four ranges against one, T = 4096 7.0-9.8 against 9.0-12.6 ms, T =
 * 32768 75-89 against 65-66 ms (and in earlier runs 84-111 against 60-74
 * ms); at T = 16384 f32 lost with four, f16 (half the bytes) won. On a
 * Zen 4 of 2026-12-07 they lost at every size (T = 32768: 53 against
 * 32.6 ms, the single stream at 88% of a streaming copy): the 60 ms
 * above was a single stream on a slower day. So the kernel table bounds
 * the bytes a thread may move in four ranges (dispatch.c; AVX-512: 0,
 * never). Heads are independent: the order changes no bit. */
int pecert__fast_row_ranges(const pecert__fast_kernels *kernels, size_t bytes, int threads, pecert__fast_dtype dtype,
                            int in_place)
{
    size_t moved = 2 * bytes / (size_t)threads;

    return moved >= PECERT__FAST_APPLY_STREAM_BYTES && moved < kernels->row_ranges_below &&
                   !(dtype == PECERT__FAST_F32 && in_place)
               ? PECERT__FAST_APPLY_STREAMS
               : 1;
}

static void choose_streams(apply_plan *plan, size_t bytes, int threads)
{
    int64_t row_bytes = plan->x->shape[2] * (int64_t)plan->size;

    plan->streams = plan->rotate != NULL ? pecert__fast_row_ranges(plan->kernels, bytes, threads, plan->dtype,
                                                                   pecert__fast_same_view(plan->x, plan->out))
                                         : 1;
    plan->visit = plan->streams == 1 ? plan->x->shape[1] : row_bytes >= 512 ? 1 : 512 / row_bytes;
}

/* ---- the work ------------------------------------------------------------- */

static pecert__fast_span make_span(const apply_plan *plan, int64_t token, int64_t head,
                                   int64_t n_heads, const float *cos, const float *sin)
{
    const pecert_tensor *x = plan->x;
    const pecert_tensor *out = plan->out;
    size_t x_offset = (size_t)(token * x->strides[0] + head * x->strides[1]) * plan->size;
    size_t out_offset = (size_t)(token * out->strides[0] + head * out->strides[1]) * plan->size;

    return (pecert__fast_span){
        .x = (const char *)x->data + x_offset,
        .out = (char *)out->data + out_offset,
        .x_head = x->strides[1],
        .out_head = out->strides[1],
        .x_chan = x->strides[2],
        .out_chan = out->strides[2],
        .n_heads = n_heads,
        .half = plan->freqs.half,
        .head_dim = (int32_t)x->shape[2],
        .copy_pass = plan->copy_pass,
        .cos = cos,
        .sin = sin,
    };
}

/* The canonical order (plan->canonical) is the generic kernel's: head
 * by head, rotation then passthrough, on one thread. */
static void rotate_heads(const apply_plan *plan, const pecert__fast_span *span)
{
    if (plan->rotate != NULL) {
        plan->rotate(span);
    } else {
        pecert__fast_rotate_strided(span, plan->dtype, plan->layout);
    }
}

/* Cursor k of thread ith: the double row state (one walker per axis,
 * each over its slice of the frequencies), then the float32 table row in
 * the pairing's layout (cos and sin, 2 * half floats each). */
typedef struct apply_cursor {
    pecert__fast_rows rows[PECERT__FAST_MAX_AXES];
    double *state;
    float *cos;
    float *sin;
    int64_t row;             /* next of the tokens * heads rows         */
    int64_t end;             /* one past the cursor's last row          */
    pecert__fast_span span;  /* the rest of row's token (n_heads left)  */
} apply_cursor;

static void init_cursor(const apply_plan *plan, int slot, apply_cursor *cursor)
{
    unsigned char *base = plan->scratch + (size_t)slot * plan->row_bytes;
    size_t half = (size_t)plan->freqs.half;
    /* Interleaved: axis k's own row after the merged one. */
    size_t rows_of_axes = plan->interleaved ? (size_t)plan->num_axes : 0;

    cursor->state = (double *)(void *)base;
    for (int32_t k = 0; k < plan->num_axes; k++) {
        double *row = plan->interleaved ? cursor->state + 2 * half * (size_t)(k + 1) : cursor->state;
        pecert__fast_rows_init(&cursor->rows[k], plan->kernels, &plan->axis_freqs[k],
                               plan->positions[k], row + plan->first[k],
                               row + half + plan->first[k]);
    }
    cursor->cos = (float *)(void *)(cursor->state + 2 * half * (1 + rows_of_axes));
    cursor->sin = cursor->cos + 2 * half;
}

/* Interleaved M-RoPE: frequency i of the merged row from its axis' row. */
static void merge_axes(const apply_plan *plan, double *state)
{
    size_t half = (size_t)plan->freqs.half;

    for (size_t i = 0; i < half; i++) {
        size_t axis = 0;
        for (size_t k = 1; k <= 2; k++) {
            axis = i % 3 == k && i < 3 * (size_t)plan->section[k] ? k : axis;
        }
        const double *row = state + 2 * half * (axis + 1);
        state[i] = row[i];
        state[half + i] = row[half + i];
    }
}

/* Brings every axis to token t; 1 if the double row changed. */
static int seek_token(const apply_plan *plan, pecert__fast_rows *rows, int64_t token, double *state)
{
    int changed = 0;

    for (int32_t k = 0; k < plan->num_axes; k++) {
        pecert__fast_rows_seek(&rows[k], token);
        changed |= rows[k].changed;
        rows[k].changed = 0;
    }
    if (changed && plan->interleaved) {
        merge_axes(plan, state);
    }
    return changed;
}

/* The cursor's next token: its table row (re-emitted only when it
 * changed) and its heads up to the cursor's end. */
static void next_token(const apply_plan *plan, apply_cursor *cursor)
{
    int64_t heads = plan->x->shape[1];
    int64_t token = cursor->row / heads;
    int64_t head = cursor->row % heads;
    int64_t n = cursor->end - cursor->row < heads - head ? cursor->end - cursor->row : heads - head;

    if (seek_token(plan, cursor->rows, token, cursor->state)) {
        plan->kernels->emit_f32(cursor->state, cursor->state + plan->freqs.half, plan->freqs.half,
                                plan->freqs.scaling, plan->layout, cursor->cos, cursor->sin);
    }
    cursor->span = make_span(plan, token, head, n, cursor->cos, cursor->sin);
}

/* Rotates the cursor's next rows: at most `limit`, never past its token. */
static void advance_cursor(const apply_plan *plan, apply_cursor *cursor, int64_t limit)
{
    pecert__fast_span *span = &cursor->span;
    pecert__fast_span part;

    if (span->n_heads == 0) {
        next_token(plan, cursor);
    }
    part = *span;
    part.n_heads = span->n_heads < limit ? span->n_heads : limit;
    rotate_heads(plan, &part);
    span->x = (const char *)span->x + (size_t)(part.n_heads * span->x_head) * plan->size;
    span->out = (char *)span->out + (size_t)(part.n_heads * span->out_head) * plan->size;
    span->n_heads -= part.n_heads;
    cursor->row += part.n_heads;
}

/* Share ith of nth of the tokens * heads rows, split in plan->streams
 * ranges rotated in turn, plan->visit rows of each at a time. */
static void apply_share(void *context, int ith, int nth)
{
    const apply_plan *plan = context;
    apply_cursor cursors[PECERT__FAST_APPLY_STREAMS];
    int64_t begin;
    int64_t end;
    int busy = 1;

    pecert__fast_share(plan->x->shape[0] * plan->x->shape[1], ith, nth, &begin, &end);
    for (int k = 0; k < plan->streams; k++) {
        init_cursor(plan, ith * plan->streams + k, &cursors[k]);
        cursors[k].span.n_heads = 0;
        pecert__fast_share(end - begin, k, plan->streams, &cursors[k].row, &cursors[k].end);
        cursors[k].row += begin;
        cursors[k].end += begin;
    }
    while (busy) {
        busy = 0;
        for (int k = 0; k < plan->streams; k++) {
            if (cursors[k].row < cursors[k].end) {
                advance_cursor(plan, &cursors[k], plan->visit);
                busy = 1;
            }
        }
    }
    if (plan->streaming) {
        plan->kernels->store_fence(); /* before the region's barrier */
    }
}

/* The axes: each with a non-empty section walks its slice of the
 * frequencies. A slice keeps the whole table's max_inv_freq, so a row
 * takes the near or the far path exactly as rope_apply's would: with
 * identical axes mrope_apply gives rope_apply's bits. */
/* Interleaved M-RoPE: axes 1 and 2 take every third frequency (from 1
 * and 2) below 3 * section[k], axis 0 the rest; each axis walks the
 * whole table (apply_interleaved_mrope overwrites the temporal row). */
static void plan_interleaved_axes(apply_plan *plan, const pecert__fast_rotation *job)
{
    int64_t tokens = job->x->shape[0];

    plan->interleaved = 1;
    plan->num_axes = job->num_axes;
    for (int32_t k = 0; k < job->num_axes; k++) {
        plan->axis_freqs[k] = plan->freqs;
        plan->positions[k] = job->positions + k * tokens;
        plan->first[k] = 0;
    }
    for (int32_t k = 0; k < job->num_axes; k++) {
        plan->section[k] = job->section[k];
    }
}

static void plan_axes(apply_plan *plan, const pecert__fast_rotation *job)
{
    int64_t tokens = job->x->shape[0];
    int32_t first = 0;

    if (job->interleaved) {
        plan_interleaved_axes(plan, job);
        return;
    }
    plan->num_axes = 0;
    for (int32_t k = 0; k < job->num_axes; k++) {
        int32_t count = job->section != NULL ? job->section[k] : plan->freqs.half;
        pecert__fast_freqs *slice = &plan->axis_freqs[plan->num_axes];

        if (count > 0) {
            *slice = plan->freqs;
            slice->half = count;
            slice->inv_freq += first;
            slice->step_cos += first;
            slice->step_sin += first;
            plan->positions[plan->num_axes] = job->positions + k * tokens;
            plan->first[plan->num_axes] = first;
            plan->num_axes++;
        }
        first += count;
    }
}

static pecert_status make_plan(const pecert__fast_call *call, const pecert__fast_rotation *job,
                               apply_plan *plan, int *out_threads)
{
    const pecert_rope_config *config = job->config;
    int64_t tokens = job->x->shape[0];
    int64_t length = pecert__fast_effective_seq_len(job->seq_len, job->num_axes * tokens,
                                                    job->seen);
    size_t bytes = pecert__fast_view_bytes(job->x);
    pecert_status status;

    memset(plan, 0, sizeof(*plan));
    plan->x = job->x;
    plan->out = job->out;
    plan->kernels = call->instance->kernels;
    plan->dtype = fast_dtype(job->x->dtype);
    plan->size = pecert__fast_dtype_size(job->x->dtype);
    plan->layout = job->pairing == PECERT_PAIRING_INTERLEAVED ? PECERT__FAST_PAIRS
                                                               : PECERT__FAST_SPLIT;
    plan->copy_pass = config->rotary_dim < config->head_dim &&
                      !pecert__fast_same_view(job->x, job->out);
    plan->canonical = !nested_layout(job->out);
    status = pecert__fast_call_freqs(call, config, length, job->seen, &plan->freqs);
    if (status != PECERT_OK) {
        return status;
    }
    plan_axes(plan, job);
    choose_kernel(plan, bytes);
    plan->copy_pass = plan->copy_pass || rewrite_in_place(plan, config, bytes);
    *out_threads = plan->canonical ? 1 : pecert__fast_threads(call, bytes, tokens * job->x->shape[1]);
    /* 2 * half doubles (and as many per axis, interleaved) and 4 * half
     * floats, whole 64-byte lines apart. */
    size_t double_rows = 1 + (plan->interleaved ? (size_t)plan->num_axes : 0);
    plan->row_bytes = ((size_t)plan->freqs.half * (2 * double_rows * sizeof(double) + 4 * sizeof(float)) + 63) &
                      ~(size_t)63;
    choose_streams(plan, bytes, *out_threads);
    plan->scratch = pecert__fast_scratch(call, (size_t)*out_threads * (size_t)plan->streams *
                                                   plan->row_bytes);
    return plan->scratch != NULL ? PECERT_OK : PECERT_E_NOMEM;
}

pecert_status pecert__fast_rotate_tensor(const pecert__fast_call *call,
                                         const pecert__fast_rotation *job)
{
    apply_plan plan;
    int threads = 1;
    pecert_status status = make_plan(call, job, &plan, &threads);

    if (status != PECERT_OK || pecert__fast_is_empty(job->x)) {
        return status;
    }
    pecert__fast_run(threads, apply_share, &plan);
    return PECERT_OK;
}

/* A NoPE layer (plugin.h: layer_kind): out is x, bit for bit. In place
 * there is nothing to do; otherwise each head row is copied (memcpy when
 * both rows are contiguous, which is every engine's layout). */
static void copy_nope_layer(const pecert_rope_apply_args *args)
{
    const pecert_tensor *x = args->x;
    const pecert_tensor *out = args->out;
    size_t size = pecert__fast_dtype_size(x->dtype);

    if (pecert__fast_same_view(x, out)) {
        return;
    }
    for (int64_t t = 0; t < x->shape[0]; t++) {
        for (int64_t h = 0; h < x->shape[1]; h++) {
            const char *in = (const char *)x->data + (size_t)(t * x->strides[0] + h * x->strides[1]) * size;
            char *o = (char *)out->data + (size_t)(t * out->strides[0] + h * out->strides[1]) * size;
            if (x->strides[2] == 1 && out->strides[2] == 1) {
                memcpy(o, in, (size_t)x->shape[2] * size);
                continue;
            }
            for (int64_t d = 0; d < x->shape[2]; d++) {
                memcpy(o + (size_t)(d * out->strides[2]) * size, in + (size_t)(d * x->strides[2]) * size, size);
            }
        }
    }
}

pecert_status pecert__fast_rope_apply(void *instance, const pecert_rope_apply_args *args)
{
    pecert__fast_call call;
    pecert__fast_positions positions;
    pecert__fast_rotation job;
    pecert_status status;

    if (pecert__fast_begin_call(&call, instance, "rope_apply") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    status = check_arguments(&call, args, &positions);
    if (status != PECERT_OK) {
        return status;
    }
    if (args->config->layer_kind == PECERT_LAYER_NOPE) {
        copy_nope_layer(args);
        return PECERT_OK;
    }
    job = (pecert__fast_rotation){
        .config = args->config,
        .pairing = args->pairing,
        .seq_len = args->seq_len,
        .num_axes = 1,
        .section = NULL,
        .positions = args->positions,
        .seen = &positions,
        .x = args->x,
        .out = args->out,
    };
    return pecert__fast_rotate_tensor(&call, &job);
}
