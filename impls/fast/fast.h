/*
 * fast.h - internals of `fast`, pecert's optimized RoPE plugin.
 *
 * `fast` computes what `ref` computes (Hugging Face transformers v4.57.6
 * semantics, angles formed in double) at memory speed: SIMD kernels picked
 * once per process by CPUID (scalar always built, AVX2+FMA+F16C,
 * AVX-512), OpenMP over (token, head) rows, and a cos/sin table built once
 * per token and streamed over its heads. README.md in this directory has
 * the design, the accuracy bounds and the measured speed.
 *
 * Files
 *   plugin.c     descriptor, instances, errors, threads, describe
 *   dispatch.c   ISA choice (CPUID, PECERT_ISA) and the kernel tables
 *   x86/cpu.c    CPUID / XGETBV feature detection
 *   validate.c   argument checks; overlap.c exact aliasing test
 *   params.c     config -> resolved parameters (HF defaults)
 *   freqs.c      inverse frequencies, the rope_freqs op, the per-instance
 *                frequency cache
 *   far_angle.c  sin/cos for angles past the vector range (scalar)
 *   parallel.c   the only OpenMP region: a static split over work items
 *   apply.c      rope_apply;  cos_sin.c  rope_cos_sin
 *   scalar/      portable kernels (the fallback and the bit-exact model
 *                every SIMD kernel reproduces)
 *   x86/avx2/, x86/avx512/   the same kernels in intrinsics
 *
 * Bit-exactness contract: every kernel of every ISA performs the same IEEE
 * operations in the same order (fma exactly where the scalar code calls
 * fma(), none elsewhere; -ffp-contract=off), so results are identical for
 * any ISA, any thread count and any split of rows. (One exception: when
 * two NaNs meet in one addition, which payload survives follows the
 * operand order the compiler chose; any NaN stays a NaN.)
 */
#ifndef PECERT_FAST_H
#define PECERT_FAST_H

#include <stddef.h>
#include <stdint.h>

#include "pecert/plugin.h"

#pragma GCC visibility push(hidden)

/* Longest last_error() / describe() text, including the NUL. */
#define PECERT__FAST_ERROR_LEN 256
#define PECERT__FAST_DESCRIBE_LEN 64

/* Positions must lie in (-2^53, 2^53): each is then an exact double. */
#define PECERT__FAST_POSITION_LIMIT ((int64_t)1 << 53)

/* Largest |position * inv_freq| accepted (2^64), as in `ref`. */
#define PECERT__FAST_ANGLE_LIMIT 0x1p64

/* Rows whose largest angle stays below 2^36 use the vector reduction
 * (scalar/trig.c explains the bound); larger ones use far_angle.c. */
#define PECERT__FAST_NEAR_LIMIT 0x1p36

/* Calls moving less than this (bytes of one tensor) run on the calling
 * thread: an OpenMP region costs 1.25-3.4 us here, a 1 MiB tensor takes
 * ~10 us per thread (../../../shared/design/performance.md). */
#define PECERT__FAST_PARALLEL_MIN_BYTES ((size_t)1 << 20)

/* set_num_threads accepts 1..this. */
#define PECERT__FAST_MAX_THREADS 1024

/* Out-of-place calls of at least this many bytes per tensor use streaming
 * (non-temporal) stores where the kernel has them: input and output then
 * take half of the 32 MiB L3 or more, which a VM's core shares with other
 * tenants; the output would not stay cached, and reading it for ownership
 * is wasted bandwidth. Measured on one thread, Zen 4: 16 MiB tensors
 * 1.14 -> 0.68 ms, 8 MiB even, 2 MiB 57 -> 76 us; Zen 3 (AVX2), rope_apply
 * q[512, 32, 128] f32 (8 MiB): 0.72-1.10 -> 0.46-0.52 ms (the threshold
 * was 12 MiB until then). */
#define PECERT__FAST_STREAM_MIN_BYTES ((size_t)8 << 20)

/* Ranges of rows a thread rotates in turn when it reads and writes at
 * least PECERT__FAST_APPLY_STREAM_BYTES and less than its kernel table's
 * row_ranges_below (apply.c, choose_streams; the 2-D RoPE too). */
#define PECERT__FAST_APPLY_STREAMS 4
#define PECERT__FAST_APPLY_STREAM_BYTES ((size_t)128 << 20)

/* In-place calls with partial rotary of at least this many bytes rewrite
 * their passthrough channels (apply.c, rewrite_in_place): the tensor then
 * no longer fits the L3. */
#define PECERT__FAST_REWRITE_MIN_BYTES ((size_t)24 << 20)

/* ---- ISAs and kernels ------------------------------------------------- */

typedef enum pecert__fast_isa {
    PECERT__FAST_ISA_SCALAR = 0,
    PECERT__FAST_ISA_AVX2 = 1,
    PECERT__FAST_ISA_AVX512 = 2,
    PECERT__FAST_ISA_COUNT
} pecert__fast_isa;

/* Element types rope_apply moves (index into the kernel tables). */
typedef enum pecert__fast_dtype {
    PECERT__FAST_F32 = 0,
    PECERT__FAST_F16 = 1,
    PECERT__FAST_BF16 = 2,
    PECERT__FAST_DTYPE_COUNT
} pecert__fast_dtype;

/* Table-row layouts (index into the rotate tables, = pecert_rope_pairing).
 *   SPLIT: cos[i], sin[i] for i < half (channel i pairs with i + half).
 *   PAIRS: cos[2i] = cos[2i+1] = c_i, sin[2i] = -s_i, sin[2i+1] = s_i, so
 *          that out = x * cos + swap_pairs(x) * sin, lane for lane. */
enum {
    PECERT__FAST_SPLIT = PECERT_PAIRING_SPLIT_HALF,
    PECERT__FAST_PAIRS = PECERT_PAIRING_INTERLEAVED
};

/* One token's heads to rotate: head h of the span starts at
 * x + h * x_head (elements of the span's dtype); channels are contiguous
 * for the SIMD kernels and x_chan / out_chan apart for the generic one. */
typedef struct pecert__fast_span {
    const void *x;        /* first head of the span in x                   */
    void *out;            /* first head of the span in out                 */
    int64_t x_head;       /* x head stride, elements                       */
    int64_t out_head;     /* out head stride, elements                     */
    int64_t x_chan;       /* x channel stride, elements                    */
    int64_t out_chan;     /* out channel stride, elements                  */
    int64_t n_heads;      /* heads in the span                             */
    int32_t half;         /* rotary_dim / 2                                */
    int32_t head_dim;     /* channels per head                             */
    int copy_pass;        /* copy channels rotary_dim.. (not in place)     */
    const float *cos;     /* table row in the pairing's layout             */
    const float *sin;     /* table row in the pairing's layout             */
} pecert__fast_span;

/* rotate: every head of a span, row by row: the first rotary_dim
 * channels rotated, the rest copied when copy_pass (one pass per row). */
typedef void (*pecert__fast_rotate_fn)(const pecert__fast_span *span);

/* Table rows are built in double, unscaled, in a per-thread state
 * (table.c), then emitted in float32 for the kernels:
 * sincos_row: cos/sin(p * inv_freq[i]) for one position, SPLIT layout;
 *   needs |p| * max(inv_freq) < PECERT__FAST_NEAR_LIMIT.
 * step_row: advances a row by one position: c' = c*C - s*S,
 *   s' = s*C + c*S with C, S = cos, sin(inv_freq[i]) (no fma).
 * emit_f32: float(c * scaling) and float(s * scaling) in layout
 *   PECERT__FAST_SPLIT or PECERT__FAST_PAIRS. */
typedef void (*pecert__fast_sincos_row_fn)(const double *inv_freq, int32_t half,
                                           double position, double *out_cos,
                                           double *out_sin);
typedef void (*pecert__fast_step_row_fn)(const double *step_cos, const double *step_sin,
                                         int32_t half, double *cos, double *sin);
typedef void (*pecert__fast_emit_f32_fn)(const double *cos, const double *sin, int32_t half,
                                         double scaling, int layout, float *out_cos,
                                         float *out_sin);

/* One row of ALiBi biases (family/alibi.c; scalar/alibi.c has the
 * formula). */
typedef void (*pecert__fast_alibi_row_f32_fn)(float *out, const double *k, int64_t n, double m,
                                              double q, int symmetric);
typedef void (*pecert__fast_alibi_row_f64_fn)(double *out, const double *k, int64_t n, double m,
                                              double q, int symmetric);

/* The decode session's attention kernels (session.c; scalar/attend.c has
 * the arithmetic every ISA reproduces), for the g query heads of one kv
 * head at once (they read the same rows):
 * dot_rows: out[h * out_stride + j] = q_h . rows[j * stride ..] over d
 *   channels, float32 in 16 lanes (q_h = q + h * q_stride);
 * softmax_weights: w[j] = float(exp(scores[j] - max)), returns their sum
 *   in double (one head);
 * weighted_rows: out[h * out_stride + c] = sum_j w_h[j] rows[j * stride + c]
 *   in float32 (w_h = w + h * w_stride), rows whose weight is 0 skipped
 *   for that head; at most PECERT__FAST_ATTEND_BLOCK rows per call. */
typedef void (*pecert__fast_dot_rows_fn)(const float *q, size_t q_stride, int32_t g,
                                         const float *rows, size_t stride, int64_t n, int32_t d,
                                         float *out, size_t out_stride);
typedef double (*pecert__fast_softmax_weights_fn)(const double *scores, int64_t n, double max,
                                                  float *w);
typedef void (*pecert__fast_weighted_rows_fn)(const float *w, size_t w_stride, int32_t g,
                                              const float *rows, size_t stride, int64_t n,
                                              int32_t d, float *out, size_t out_stride);

/* The kernels serve this many heads at once; PECERT__FAST_BY_GROUP calls
 * fn(G, ...) for the next min(left, PECERT__FAST_MAX_GROUP) of them, G a
 * constant, so that fn's loops over heads unroll into registers. */
#define PECERT__FAST_MAX_GROUP 4
#define PECERT__FAST_BY_GROUP(left, fn, ...)                                          \
    switch ((left) >= PECERT__FAST_MAX_GROUP ? PECERT__FAST_MAX_GROUP : (left)) {     \
    case 4: fn(4, __VA_ARGS__); break;                                                \
    case 3: fn(3, __VA_ARGS__); break;                                                \
    case 2: fn(2, __VA_ARGS__); break;                                                \
    default: fn(1, __VA_ARGS__); break;                                               \
    }

/* Rows whose float32 weighted sum the session adds in double, a block at
 * a time: the float rounding of an output never spans more terms. */
#define PECERT__FAST_ATTEND_BLOCK 64

/* The exponential of softmax_weights (scalar/attend.c): ln 2 split so that
 * k * LN2_HI is exact for |k| < 2^21 (its last 21 bits are zero) and
 * LN2_HI + LN2_LO = ln 2 to 2^-86; 1 / ln 2 rounded; below EXP_FLOOR
 * exp(x) < 2^-150, which rounds to +0 in float32. */
#define PECERT__FAST_LN2_HI 0x1.62e42feep-1
#define PECERT__FAST_LN2_LO 0x1.a39ef35793c76p-33
#define PECERT__FAST_INV_LN2 0x1.71547652b82fep0
#define PECERT__FAST_EXP_FLOOR (-104.0)
/* exp(r)'s Taylor coefficients 1/11! .. 1/0!, highest first (Horner). */
#define PECERT__FAST_EXP_TERMS 12
#define PECERT__FAST_EXP_TAYLOR                                                                   \
    {1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, \
     1.0 / 120.0,      1.0 / 24.0,      1.0 / 6.0,      0.5,           1.0,          1.0}

/* T5's buckets past max_exact as thresholds (family/t5.c builds them from
 * the bucket function, exactly): a distance a >= max_exact has bucket
 * max_exact + #{i : a >= threshold[i]}. */
#define PECERT__FAST_T5_MAX_THRESHOLDS 64
typedef struct pecert__fast_t5_table {
    int32_t bidirectional;
    int32_t count;                /* n - 1 - max_exact                     */
    int32_t stream;               /* a kernel may stream its stores (the
                                     caller fences; portable ones do not) */
    int64_t n;                    /* buckets per side                      */
    int64_t max_exact;
    int64_t threshold[PECERT__FAST_T5_MAX_THRESHOLDS];
} pecert__fast_t5_table;

/* Integer rows of the relative-position ops (scalar/index.c), into a
 * contiguous i64 (wide) or i32 row. */
typedef void (*pecert__fast_swin_row_fn)(void *out, int wide, int64_t base, const int64_t *col, int64_t n);
typedef void (*pecert__fast_shaw_row_fn)(void *out, int wide, const int64_t *k, int64_t n, int64_t q,
                                         int64_t max);
typedef void (*pecert__fast_t5_row_fn)(void *out, int wide, const int64_t *rel, int64_t n,
                                       const pecert__fast_t5_table *t);

/* f64 rows rounded to f32 (scalar/narrow.c): out[i] = (float)a[i], and
 * out[2i], out[2i+1] = (float)a[i], (float)b[i]. */
typedef void (*pecert__fast_narrow_row_fn)(float *out, const double *a, int64_t n);
typedef void (*pecert__fast_interleave_row_fn)(float *out, const double *a, const double *b, int64_t n);

/* Weighted sums of the filtering ops (scalar/taps.c). */
typedef void (*pecert__fast_axpy_row_fn)(float *acc, float w, const float *x, int64_t n);
typedef void (*pecert__fast_sum_rows_fn)(float *out, const float *const *x, const float *w, int32_t taps, int64_t n,
                                         int from_zero);
typedef void (*pecert__fast_peg_cell_fn)(float *out, const float *const *src, const float *const *w, int32_t taps,
                                         const float *bias, const float *centre, int64_t begin, int64_t end);

/* A kernel table: one per ISA, chosen once per instance (dispatch.c). */
typedef struct pecert__fast_kernels {
    pecert__fast_isa isa;
    const char *name;                   /* "scalar", "avx2", "avx512"      */
    pecert__fast_sincos_row_fn sincos_row;
    pecert__fast_step_row_fn step_row;
    pecert__fast_emit_f32_fn emit_f32;
    /* Contiguous channels, [dtype][pairing]. */
    pecert__fast_rotate_fn rotate[PECERT__FAST_DTYPE_COUNT][2];
    /* The same with streaming stores for large out-of-place calls; the
     * caller guarantees 64-byte aligned output rows and calls
     * store_fence once its share is done. NULL: use rotate. */
    pecert__fast_rotate_fn rotate_stream[PECERT__FAST_DTYPE_COUNT][2];
    void (*store_fence)(void);
    /* ALiBi bias rows (family/alibi.c, scalar/alibi.c has the formula):
     * alibi_keys converts positions (|k| < 2^53) to doubles, exactly;
     * alibi_row_*: out[j] = m (k[j] - q), or -m |k[j] - q| when
     * symmetric, in double, rounded once to the output dtype. The
     * _stream variants need a 64-byte aligned out and store_fence once
     * the share is done; NULL: use the plain ones. */
    void (*alibi_keys)(double *out, const int64_t *k, int64_t n);
    pecert__fast_alibi_row_f32_fn alibi_row_f32;
    pecert__fast_alibi_row_f64_fn alibi_row_f64;
    pecert__fast_alibi_row_f32_fn alibi_row_f32_stream;
    pecert__fast_alibi_row_f64_fn alibi_row_f64_stream;
    pecert__fast_dot_rows_fn dot_rows;
    pecert__fast_softmax_weights_fn softmax_weights;
    pecert__fast_weighted_rows_fn weighted_rows;
    pecert__fast_swin_row_fn swin_row;
    pecert__fast_shaw_row_fn shaw_row;
    pecert__fast_t5_row_fn t5_row;
    pecert__fast_narrow_row_fn narrow_row;
    pecert__fast_interleave_row_fn interleave_row;
    /* The same with streaming stores, and a float copy (x86/<isa>/
     * stream.c: plain stores up to a row's first vector boundary);
     * store_fence once a thread's rows are done. NULL in the scalar table. */
    pecert__fast_narrow_row_fn narrow_row_stream;
    pecert__fast_interleave_row_fn interleave_row_stream;
    void (*copy_row_stream)(float *out, const float *a, int64_t n);
    /* out[j * n + i] = base[j] + row[i] for j < runs, i < n, streamed: out
     * 64-byte aligned, n a multiple of 16 (relpos2d's output rows: k_h
     * runs of the k_w sums). NULL in the scalar table. */
    void (*outer_sum_stream)(float *out, const float *base, int64_t runs, const float *row, int64_t n);
    /* step_row and the new row's streamed emission in one pass, rows
     * 64-byte aligned (NULL: step_row, then the emission): interleaved
     * (out[2i] sin, out[2i + 1] cos) or as halves. */
    void (*step_interleave_stream)(const double *step_cos, const double *step_sin, int32_t half, double *cos,
                                   double *sin, float *out);
    void (*step_halves_stream)(const double *step_cos, const double *step_sin, int32_t half, double *cos,
                               double *sin, float *out_sin, float *out_cos);
    /* sum_rows from zero of 1 to 4 taps into outs (1 to 4) outputs over
     * the same rows x, output k's weights w[k * taps, (k + 1) * taps),
     * streamed into 64-byte aligned outs (NULL: sum_rows into a row, then
     * a streamed copy). */
    void (*sum_rows_stream)(float *const *out, int32_t outs, const float *const *x, const float *w, int32_t taps,
                            int64_t n);
    pecert__fast_axpy_row_fn axpy_row;
    pecert__fast_sum_rows_fn sum_rows;
    /* sum_rows from zero into outs (1 to 4) outputs over the same taps'
     * rows x, output k's weights w[k * taps, (k + 1) * taps). */
    void (*sum_rows_shared)(float *const *out, int32_t outs, const float *const *x, const float *w, int32_t taps,
                            int64_t n);
    pecert__fast_peg_cell_fn peg_cell;
    /* peg_cell's sums for every cell of a grid row under a 3 x 3 kernel
     * (the taps inside the grid: the edge cells' and those of a row at the
     * top or bottom without the rest), the kernel's taps and the window of
     * source cells held in registers as the row is swept, each channel
     * slice in turn; src: the rows above, at and below (cell 0, channel 0;
     * NULL outside the grid), cells `channels` floats apart; taps: [9 + 1,
     * channels], the bias row last; out: the row's cell 0; stream:
     * streaming stores (out 64-byte aligned, channels a multiple of 16, a
     * store_fence after); ahead: the row the next row's sweep adds (NULL:
     * none), prefetched on the way. NULL: peg_cell for every cell. */
    void (*peg_row3)(float *out, const float *const *src, const float *taps, int64_t channels, int64_t cells,
                     int stream, const float *ahead);
    /* A thread rotates PECERT__FAST_APPLY_STREAMS ranges of rows in turn
     * while it moves at least PECERT__FAST_APPLY_STREAM_BYTES and less than
     * this (apply.c, pecert__fast_row_ranges), as measured on the machine
     * each table was tuned on (dispatch.c says which). */
    size_t row_ranges_below;
} pecert__fast_kernels;

/* ---- instances and calls ---------------------------------------------- */

/* A rope config with every Hugging Face default applied (params.c). */
typedef struct pecert__fast_params {
    pecert_rope_type type;       /* PECERT_ROPE_*                          */
    int32_t dim;                 /* rotary_dim                             */
    double theta;                /* rope_theta                             */
    double factor;               /* resolved scaling factor                */
    int64_t max_pos;             /* max_position_embeddings                */
    int64_t original_max_pos;    /* L0 of yarn / llama3 / longrope         */
    double attention_factor;     /* multiplies cos and sin                 */
    double beta_fast;            /* yarn                                   */
    double beta_slow;            /* yarn                                   */
    int truncate;                /* yarn: floor/ceil the ramp bounds       */
    double low_freq_factor;      /* llama3                                 */
    double high_freq_factor;     /* llama3                                 */
    const double *short_factor;  /* longrope, dim / 2 values               */
    const double *long_factor;   /* longrope, dim / 2 values               */
} pecert__fast_params;

/* The frequencies of one call (owned by the instance's cache). */
typedef struct pecert__fast_freqs {
    int32_t half;                /* rotary_dim / 2                         */
    double scaling;              /* attention scaling                      */
    double max_inv_freq;         /* largest inv_freq                       */
    const double *inv_freq;      /* [half]                                 */
    const double *step_cos;      /* [half] cos(inv_freq): one position on  */
    const double *step_sin;      /* [half] sin(inv_freq)                   */
} pecert__fast_freqs;

/* The last frequency table computed, reused while the config and the
 * length it depends on repeat (frequencies need `half` pow() calls, more
 * than a whole T=1 apply is allowed to take). Holds copies only. */
typedef struct pecert__fast_freq_cache {
    int valid;
    pecert_rope_config config;   /* pointers cleared                       */
    int64_t length_key;          /* seq_len, where the type depends on it  */
    double *factors;             /* short then long factors, copied        */
    size_t factors_cap;          /* doubles allocated in factors           */
    double *inv_freq;            /* [half], then step_cos, step_sin [half]  */
    size_t inv_freq_cap;
    pecert__fast_freqs freqs;    /* the cached result                      */
} pecert__fast_freq_cache;

typedef struct pecert__fast_instance {
    char error[PECERT__FAST_ERROR_LEN];       /* "" after success         */
    char description[PECERT__FAST_DESCRIBE_LEN];
    const pecert__fast_kernels *kernels;      /* chosen at create         */
    int32_t n_threads;                        /* set_num_threads          */
    pecert__fast_freq_cache cache;
    void *scratch;                            /* per-thread table rows    */
    size_t scratch_len;                       /* bytes                    */
} pecert__fast_instance;

/* The context of one ABI call: every error message names the op. */
typedef struct pecert__fast_call {
    pecert__fast_instance *instance; /* never NULL past begin_call        */
    const char *op;                  /* "rope_apply", ...                 */
} pecert__fast_call;

/* What validation learned about the positions of a call. */
typedef struct pecert__fast_positions {
    int64_t max_position;       /* largest position (0 if none)          */
    int64_t max_magnitude;      /* largest |position|                    */
} pecert__fast_positions;

/* ---- plugin.c ---------------------------------------------------------- */

/* pecert__fast_begin_call clears the instance's error and fills *call;
 * E_INVAL for a NULL instance (every op starts with it). */
pecert_status pecert__fast_begin_call(pecert__fast_call *call, void *instance,
                                      const char *op);

/* pecert__fast_fail records "op: message" and returns status. */
pecert_status pecert__fast_fail(const pecert__fast_call *call, pecert_status status,
                                const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* pecert__fast_scratch returns at least len bytes of instance memory,
 * 64-byte aligned, kept across calls (no page faults in the hot path);
 * NULL after recording E_NOMEM. */
void *pecert__fast_scratch(const pecert__fast_call *call, size_t len);

/* pecert__fast_threads: threads for a call moving `bytes` per tensor over
 * `items` independent work items (1 below PECERT__FAST_PARALLEL_MIN_BYTES). */
int pecert__fast_threads(const pecert__fast_call *call, size_t bytes, int64_t items);

/* ---- dispatch.c -------------------------------------------------------- */

/* pecert__fast_select_kernels picks the kernels for a new instance: the
 * best the CPU runs, or PECERT_ISA's choice. On failure returns
 * E_INVAL (unknown name) or E_UNSUPPORTED (the CPU lacks it) with a
 * message in error[len]. */
pecert_status pecert__fast_select_kernels(const pecert__fast_kernels **out,
                                          char *error, size_t len);

/* ---- x86/cpu.c --------------------------------------------------------- */

/* pecert__fast_cpu_best_isa: the best ISA this CPU and OS run (cached). */
pecert__fast_isa pecert__fast_cpu_best_isa(void);

/* pecert__fast_cpu_has_avx512_bf16: 1 if the AVX-512 variant may use
 * AVX512-BF16 instructions (cached). */
int pecert__fast_cpu_has_avx512_bf16(void);

/* ---- validate.c -------------------------------------------------------- */

pecert_status pecert__fast_check_config(const pecert__fast_call *call,
                                        const pecert_rope_config *config);
/* pecert__fast_check_layer_config: the same for rope_apply and sessions,
 * which take a NoPE layer (layer_kind PECERT_LAYER_NOPE) too. */
pecert_status pecert__fast_check_layer_config(const pecert__fast_call *call,
                                              const pecert_rope_config *config);
pecert_status pecert__fast_check_seq_len(const pecert__fast_call *call, int64_t seq_len);
/* Checks count, pointer, alignment and range; fills *out (may be NULL). */
pecert_status pecert__fast_check_positions(const pecert__fast_call *call,
                                           const int64_t *positions, int64_t n_positions,
                                           pecert__fast_positions *out);
/* The header of a view: non-NULL (E_INVAL), struct_size (E_ABI), ndim and
 * reserved0 (E_INVAL). */
pecert_status pecert__fast_check_tensor_header(const pecert__fast_call *call, const char *name,
                                               const pecert_tensor *tensor, uint32_t ndim);
/* The data of a non-empty view: non-NULL and aligned to its dtype. */
pecert_status pecert__fast_check_tensor_data(const pecert__fast_call *call, const char *name,
                                             const pecert_tensor *tensor);
/* Checks one tensor view of ndim axes whose dtype is in the allowed mask
 * (bit 1 << PECERT_DTYPE_*); is_output forbids zero strides on extents > 1. */
pecert_status pecert__fast_check_tensor(const pecert__fast_call *call, const char *name,
                                        const pecert_tensor *tensor, uint32_t ndim,
                                        uint32_t dtypes, int is_output);
/* No shared byte between two checked views, or (allow_same) exactly the
 * same view; else E_INVAL. */
pecert_status pecert__fast_check_aliasing(const pecert__fast_call *call, const char *a_name,
                                          const pecert_tensor *a, const char *b_name,
                                          const pecert_tensor *b, int allow_same);
size_t pecert__fast_dtype_size(pecert_dtype dtype);
int pecert__fast_is_empty(const pecert_tensor *tensor);
/* Bytes of the elements a checked view holds (SIZE_MAX past size_t; only
 * ever compared with thresholds). */
size_t pecert__fast_view_bytes(const pecert_tensor *tensor);
int64_t pecert__fast_max_offset(const pecert_tensor *tensor);
int pecert__fast_same_view(const pecert_tensor *a, const pecert_tensor *b);

/* ---- overlap.c --------------------------------------------------------- */

/* 1 if two checked views share a byte (their dtypes may differ); exact up
 * to a work cap, conservatively 1 past it. */
int pecert__fast_views_overlap(const pecert_tensor *a, const pecert_tensor *b);

/* ---- params.c / freqs.c ------------------------------------------------ */

pecert_status pecert__fast_resolve_params(const pecert__fast_call *call,
                                          const pecert_rope_config *config,
                                          pecert__fast_params *out);
/* Inverse frequencies at seq_len (<= 0: the init-time value). */
void pecert__fast_inv_freq(const pecert__fast_params *params, int64_t seq_len,
                           double *out_inv_freq);
/* The effective length: seq_len, or max(positions) + 1 when it is 0. */
int64_t pecert__fast_effective_seq_len(int64_t seq_len, int64_t n_positions,
                                       const pecert__fast_positions *positions);
/* The call's frequencies (cached per instance); checks they are finite
 * and that |position| * inv_freq stays below PECERT__FAST_ANGLE_LIMIT. */
pecert_status pecert__fast_call_freqs(const pecert__fast_call *call,
                                      const pecert_rope_config *config, int64_t seq_len,
                                      const pecert__fast_positions *positions,
                                      pecert__fast_freqs *out);
void pecert__fast_freq_cache_free(pecert__fast_freq_cache *cache);

/* ---- far_angle.c ------------------------------------------------------- */

/* sin and cos of position * inv_freq for any |angle| < 2^64. */
void pecert__fast_far_sincos(double position, double inv_freq, double *out_sin,
                             double *out_cos);
/* A row by the far path (rows past PECERT__FAST_NEAR_LIMIT), unscaled
 * double SPLIT layout like sincos_row. */
void pecert__fast_far_row(const double *inv_freq, int32_t half, double position,
                          double *out_cos, double *out_sin);

/* ---- table.c ----------------------------------------------------------- */

/* Rows of a table are built by a recurrence on a grid fixed by the row
 * index, so any thread computing row t gets the same bits:
 *   row t is computed directly (sincos_row / far path) when
 *   t % PECERT__FAST_ANCHOR == 0 or positions[t] is neither
 *   positions[t-1] nor positions[t-1] + 1; it equals row t-1 when the
 *   position repeats, and is row t-1 advanced by step_row when it is one
 *   more. Steps add ~3 double roundings each: < 2e-14 after 31 of them,
 *   far below the float32 output's half ulp (3e-8). */
#define PECERT__FAST_ANCHOR 32

typedef struct pecert__fast_rows {
    const pecert__fast_kernels *kernels;
    const pecert__fast_freqs *freqs;
    const int64_t *positions;
    double *cos;            /* [half] the row held, unscaled              */
    double *sin;            /* [half]                                      */
    int64_t current;        /* its index, -1 for none                      */
    int changed;            /* set when the values changed since cleared   */
} pecert__fast_rows;

/* pecert__fast_rows_init: a row state over positions, holding none.
 * cos and sin are [half] doubles of the caller's (per-thread) scratch. */
void pecert__fast_rows_init(pecert__fast_rows *rows, const pecert__fast_kernels *kernels,
                            const pecert__fast_freqs *freqs, const int64_t *positions,
                            double *cos, double *sin);

/* pecert__fast_rows_seek brings the state to row t (cheapest when t is
 * the row after the one held). */
void pecert__fast_rows_seek(pecert__fast_rows *rows, int64_t t);

/* pecert__fast_rows_step_out: where row t is one step from the row held
 * and the ISA has the fused kernel, steps and streams the new row out
 * (interleaved into out_sin when out_cos is NULL, else as halves; every
 * row pointer 64-byte aligned) and returns 1; else 0, nothing done. */
int pecert__fast_rows_step_out(pecert__fast_rows *rows, int64_t t, float *out_sin, float *out_cos);

/* ---- parallel.c -------------------------------------------------------- */

/* A work function: process share ith of nth of the call's items. */
typedef void (*pecert__fast_work_fn)(void *context, int ith, int nth);

/* pecert__fast_run runs fn on n_threads threads (one OpenMP region), or
 * on the calling thread when n_threads <= 1. */
void pecert__fast_run(int n_threads, pecert__fast_work_fn fn, void *context);

/* pecert__fast_share: the half-open range [*begin, *end) of n items that
 * share ith of nth gets (a static split independent of timing). */
void pecert__fast_share(int64_t n, int ith, int nth, int64_t *begin, int64_t *end);

/* ---- ops --------------------------------------------------------------- */

pecert_status pecert__fast_rope_freqs(void *instance, double *out_inv_freq,
                                      double *out_attention_scaling,
                                      const pecert_rope_config *config, int64_t seq_len);
pecert_status pecert__fast_rope_cos_sin(void *instance, pecert_tensor *out_cos,
                                        pecert_tensor *out_sin,
                                        const pecert_rope_config *config, int64_t seq_len,
                                        const int64_t *positions, int64_t n_positions);
pecert_status pecert__fast_rope_apply(void *instance, const pecert_rope_apply_args *args);

/* The rotation behind rope_apply and mrope_apply (apply.c), on checked
 * arguments: axis k turns the next section[k] frequencies by positions
 * [k * tokens, (k + 1) * tokens) (section NULL: one axis, every
 * frequency). x and out are f32/f16/bf16 [tokens, heads, head_dim]. */
#define PECERT__FAST_MAX_AXES PECERT_MROPE_MAX_AXES
typedef struct pecert__fast_rotation {
    const pecert_rope_config *config;
    int32_t pairing;                     /* PECERT_PAIRING_*                */
    int64_t seq_len;                     /* as given: 0 = max position + 1  */
    int32_t num_axes;                    /* 1 .. PECERT__FAST_MAX_AXES      */
    const int32_t *section;              /* [num_axes], or NULL             */
    /* 1: Qwen3-VL's interleaved sections (num_axes 3; plugin.h's
     * pecert_mrope_apply_args.interleaved) instead of blocks. */
    int32_t interleaved;
    const int64_t *positions;            /* [num_axes, tokens]              */
    const pecert__fast_positions *seen;  /* over every axis                 */
    const pecert_tensor *x;
    const pecert_tensor *out;            /* x itself, or no shared byte     */
} pecert__fast_rotation;

/* pecert__fast_pick_rotate: the ISA's rotation kernel for x and out with
 * contiguous channels (NULL otherwise), its streaming variant where a
 * large out-of-place call's rows lie on lines (*streaming then 1). */
pecert__fast_rotate_fn pecert__fast_pick_rotate(const pecert__fast_kernels *kernels, const pecert_tensor *x,
                                                const pecert_tensor *out, pecert__fast_dtype dtype, int layout,
                                                int32_t half, size_t bytes, int *streaming);

/* pecert__fast_row_ranges: how many ranges of rows each of `threads`
 * rotates in turn for a call of `bytes` per tensor (apply.c). */
int pecert__fast_row_ranges(const pecert__fast_kernels *kernels, size_t bytes, int threads, pecert__fast_dtype dtype,
                            int in_place);

pecert_status pecert__fast_rotate_tensor(const pecert__fast_call *call,
                                         const pecert__fast_rotation *job);

/* ---- kernels (scalar/, x86/avx2/, x86/avx512/) ------------------------- */

/* sin and cos of |r| <= pi/4 (+ a little) by the minimax polynomials every
 * kernel uses (scalar/trig.c). */
void pecert__fast_sincos_poly(double r, double *out_sin, double *out_cos);
/* sin and cos of r + quadrant * pi/2 from those of r. */
void pecert__fast_sincos_quadrant(int quadrant, double sin_r, double cos_r, double *out_sin,
                                  double *out_cos);

/* The scalar sin/cos of one angle, bit-identical to every SIMD lane. */
void pecert__fast_sincos_scalar(double position, double inv_freq, double *out_sin,
                                double *out_cos);

void pecert__fast_sincos_row_scalar(const double *inv_freq, int32_t half, double position,
                                   double *out_cos, double *out_sin);
void pecert__fast_step_row_scalar(const double *step_cos, const double *step_sin, int32_t half,
                                 double *cos, double *sin);
void pecert__fast_emit_f32_scalar(const double *cos, const double *sin, int32_t half, double scaling,
                                 int layout, float *out_cos, float *out_sin);
void pecert__fast_sincos_row_avx2(const double *inv_freq, int32_t half, double position,
                                   double *out_cos, double *out_sin);
void pecert__fast_step_row_avx2(const double *step_cos, const double *step_sin, int32_t half,
                                 double *cos, double *sin);
void pecert__fast_emit_f32_avx2(const double *cos, const double *sin, int32_t half, double scaling,
                                 int layout, float *out_cos, float *out_sin);
void pecert__fast_sincos_row_avx512(const double *inv_freq, int32_t half, double position,
                                   double *out_cos, double *out_sin);
void pecert__fast_step_row_avx512(const double *step_cos, const double *step_sin, int32_t half,
                                 double *cos, double *sin);
void pecert__fast_emit_f32_avx512(const double *cos, const double *sin, int32_t half, double scaling,
                                 int layout, float *out_cos, float *out_sin);

/* Scalar conversions, bit-identical to F16C and to the SIMD bf16 code. */
float pecert__fast_f16_to_f32(uint16_t h);
uint16_t pecert__fast_f32_to_f16(float f);
float pecert__fast_bf16_to_f32(uint16_t h);
uint16_t pecert__fast_f32_to_bf16(float f);

/* Rotate kernels: pecert__fast_rotate_<dtype>_<split|pairs>_<isa>. */
#define PECERT__FAST_DECLARE_ROTATE(suffix)                                       \
    void pecert__fast_rotate_f32_split_##suffix(const pecert__fast_span *span);    \
    void pecert__fast_rotate_f32_pairs_##suffix(const pecert__fast_span *span);    \
    void pecert__fast_rotate_f16_split_##suffix(const pecert__fast_span *span);    \
    void pecert__fast_rotate_f16_pairs_##suffix(const pecert__fast_span *span);    \
    void pecert__fast_rotate_bf16_split_##suffix(const pecert__fast_span *span);   \
    void pecert__fast_rotate_bf16_pairs_##suffix(const pecert__fast_span *span)
PECERT__FAST_DECLARE_ROTATE(scalar);
PECERT__FAST_DECLARE_ROTATE(avx2);
PECERT__FAST_DECLARE_ROTATE(avx512);
PECERT__FAST_DECLARE_ROTATE(avx2_stream);
PECERT__FAST_DECLARE_ROTATE(avx512_stream);
void pecert__fast_store_fence_avx2(void);
void pecert__fast_store_fence_avx512(void);
void pecert__fast_rotate_bf16_split_avx512bf16(const pecert__fast_span *span);
void pecert__fast_rotate_bf16_pairs_avx512bf16(const pecert__fast_span *span);
void pecert__fast_rotate_bf16_split_avx512bf16_stream(const pecert__fast_span *span);
void pecert__fast_rotate_bf16_pairs_avx512bf16_stream(const pecert__fast_span *span);

/* ALiBi rows: pecert__fast_alibi_row_<dtype>_<isa>[_stream]. */
#define PECERT__FAST_DECLARE_ALIBI(suffix)                                                \
    void pecert__fast_alibi_row_f32_##suffix(float *out, const double *k, int64_t n,       \
                                             double m, double q, int symmetric);          \
    void pecert__fast_alibi_row_f64_##suffix(double *out, const double *k, int64_t n,      \
                                             double m, double q, int symmetric)
void pecert__fast_alibi_keys_scalar(double *out, const int64_t *k, int64_t n);
void pecert__fast_alibi_keys_avx2(double *out, const int64_t *k, int64_t n);
void pecert__fast_alibi_keys_avx512(double *out, const int64_t *k, int64_t n);
PECERT__FAST_DECLARE_ALIBI(scalar);
PECERT__FAST_DECLARE_ALIBI(avx2);
PECERT__FAST_DECLARE_ALIBI(avx512);
PECERT__FAST_DECLARE_ALIBI(avx2_stream);
PECERT__FAST_DECLARE_ALIBI(avx512_stream);

/* Attention kernels: pecert__fast_<op>_<isa>; exp_weight_scalar is the
 * exponential of one weight (x = score - max), bit-identical to every lane. */
#define PECERT__FAST_DECLARE_ATTEND(suffix)                                                    \
    void pecert__fast_dot_rows_##suffix(const float *q, size_t q_stride, int32_t g,              \
                                        const float *rows, size_t stride, int64_t n, int32_t d, \
                                        float *out, size_t out_stride);                        \
    double pecert__fast_softmax_weights_##suffix(const double *scores, int64_t n, double max,   \
                                                 float *w);                                    \
    void pecert__fast_weighted_rows_##suffix(const float *w, size_t w_stride, int32_t g,         \
                                             const float *rows, size_t stride, int64_t n,      \
                                             int32_t d, float *out, size_t out_stride)
#define PECERT__FAST_DECLARE_INDEX(suffix)                                                          \
    void pecert__fast_swin_row_##suffix(void *out, int wide, int64_t base, const int64_t *col, int64_t n); \
    void pecert__fast_shaw_row_##suffix(void *out, int wide, const int64_t *k, int64_t n, int64_t q,       \
                                        int64_t max);                                                  \
    void pecert__fast_t5_row_##suffix(void *out, int wide, const int64_t *rel, int64_t n,                  \
                                      const pecert__fast_t5_table *t)
#define PECERT__FAST_DECLARE_NARROW(suffix)                                                    \
    void pecert__fast_narrow_row_##suffix(float *out, const double *a, int64_t n);             \
    void pecert__fast_interleave_row_##suffix(float *out, const double *a, const double *b, int64_t n)
#define PECERT__FAST_DECLARE_STREAM(suffix)                                                           \
    void pecert__fast_narrow_row_stream_##suffix(float *out, const double *a, int64_t n);             \
    void pecert__fast_interleave_row_stream_##suffix(float *out, const double *a, const double *b, int64_t n); \
    void pecert__fast_copy_row_stream_##suffix(float *out, const float *a, int64_t n);                 \
    void pecert__fast_outer_sum_stream_##suffix(float *out, const float *base, int64_t runs, const float *row, \
                                                int64_t n);                                            \
    void pecert__fast_step_interleave_stream_##suffix(const double *step_cos, const double *step_sin,  \
                                                      int32_t half, double *cos, double *sin, float *out); \
    void pecert__fast_step_halves_stream_##suffix(const double *step_cos, const double *step_sin,      \
                                                  int32_t half, double *cos, double *sin,              \
                                                  float *out_sin, float *out_cos);                     \
    void pecert__fast_sum_rows_stream_##suffix(float *const *out, int32_t outs, const float *const *x, \
                                               const float *w, int32_t taps, int64_t n);               \
    void pecert__fast_peg_row3_##suffix(float *out, const float *const *src, const float *taps,        \
                                        int64_t channels, int64_t cells, int stream, const float *ahead)
/* fn(K, T, ...) with K = outs and T = taps (1 to 4 each) as constants:
 * each ISA's always-inline weighted sum instantiated once per pair
 * (x86/<isa>/stream.c, sum_rows_stream). */
#define PECERT__FAST_TAPS_CASES(fn, K, taps, ...)                                                  \
    switch (taps) {                                                                                \
    case 1: fn(K, 1, __VA_ARGS__); break;                                                          \
    case 2: fn(K, 2, __VA_ARGS__); break;                                                          \
    case 3: fn(K, 3, __VA_ARGS__); break;                                                          \
    default: fn(K, 4, __VA_ARGS__); break;                                                         \
    }
#define PECERT__FAST_BY_OUTS_AND_TAPS(fn, outs, taps, ...)                                         \
    switch (outs) {                                                                                \
    case 1: PECERT__FAST_TAPS_CASES(fn, 1, taps, __VA_ARGS__) break;                               \
    case 2: PECERT__FAST_TAPS_CASES(fn, 2, taps, __VA_ARGS__) break;                               \
    case 3: PECERT__FAST_TAPS_CASES(fn, 3, taps, __VA_ARGS__) break;                               \
    default: PECERT__FAST_TAPS_CASES(fn, 4, taps, __VA_ARGS__) break;                              \
    }
/* fn(UP, DOWN, ...) with UP = src[0] != NULL and DOWN = src[2] != NULL as
 * constants: each ISA's peg_row3 sweep instantiated once per grid edge
 * (x86/<isa>/peg.c). */
#define PECERT__FAST_BY_ROWS_PRESENT(fn, src, ...)                                                 \
    do {                                                                                           \
        if ((src)[0] != NULL && (src)[2] != NULL) {                                                \
            fn(1, 1, __VA_ARGS__);                                                                 \
        } else if ((src)[0] != NULL) {                                                             \
            fn(1, 0, __VA_ARGS__);                                                                 \
        } else if ((src)[2] != NULL) {                                                             \
            fn(0, 1, __VA_ARGS__);                                                                 \
        } else {                                                                                   \
            fn(0, 0, __VA_ARGS__);                                                                 \
        }                                                                                          \
    } while (0)
#define PECERT__FAST_DECLARE_TAPS(suffix)                                                            \
    void pecert__fast_axpy_row_##suffix(float *acc, float w, const float *x, int64_t n);             \
    void pecert__fast_sum_rows_##suffix(float *out, const float *const *x, const float *w, int32_t taps, \
                                        int64_t n, int from_zero);                                   \
    void pecert__fast_sum_rows_shared_##suffix(float *const *out, int32_t outs, const float *const *x, \
                                               const float *w, int32_t taps, int64_t n);              \
    void pecert__fast_peg_cell_##suffix(float *out, const float *const *src, const float *const *w,  \
                                        int32_t taps, const float *bias, const float *centre,        \
                                        int64_t begin, int64_t end)
PECERT__FAST_DECLARE_TAPS(scalar);
PECERT__FAST_DECLARE_TAPS(avx2);
PECERT__FAST_DECLARE_TAPS(avx512);
PECERT__FAST_DECLARE_STREAM(avx2);
PECERT__FAST_DECLARE_STREAM(avx512);
PECERT__FAST_DECLARE_NARROW(scalar);
PECERT__FAST_DECLARE_NARROW(avx2);
PECERT__FAST_DECLARE_NARROW(avx512);
PECERT__FAST_DECLARE_INDEX(scalar);
PECERT__FAST_DECLARE_INDEX(avx2);
PECERT__FAST_DECLARE_INDEX(avx512);
PECERT__FAST_DECLARE_ATTEND(scalar);
PECERT__FAST_DECLARE_ATTEND(avx2);
PECERT__FAST_DECLARE_ATTEND(avx512);
double pecert__fast_exp_weight_scalar(double x);
/* weighted_rows of one head (w its weights) over channels [0, d): the
 * SIMD kernels' tail channels. */
void pecert__fast_weighted_head_scalar(const float *w, const float *rows, size_t stride, int64_t n,
                                       int32_t d, float *out);

/* The generic kernel: any channel strides, any dtype (scalar; used by
 * every ISA for views whose channels are not contiguous). */
void pecert__fast_rotate_strided(const pecert__fast_span *span, pecert__fast_dtype dtype,
                                 int layout);

/* Pairs [first, half) of one head (rows x, out; contiguous channels):
 * the tails of the SIMD kernels, in the scalar arithmetic. */
void pecert__fast_rotate_tail(const pecert__fast_span *span, const void *x, void *out,
                              int32_t first, pecert__fast_dtype dtype, int layout);

#pragma GCC visibility pop

#endif /* PECERT_FAST_H */
