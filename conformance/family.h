/*
 * family.h - helpers shared by the checks of the encoding families beyond
 * RoPE (ABI 1.2): walking the vectors of one op, output buffers with a NaN
 * (or sentinel) fill and guard zones, exact and bounded comparisons.
 */
#ifndef PECERT_CONFORMANCE_FAMILY_H
#define PECERT_CONFORMANCE_FAMILY_H

#include "checks.h"

/* Called for one test of an op, its vector open in r (results.h); where is
 * "FILE:tcId=N" for the detail lines. */
typedef void (*pecert_test_fn)(const pecert_check_env *env, pecert_check_result *r,
                               const pecert_vtest *t, const char *where);

/* pecert_for_each_test runs fn on every test of op in the loaded files,
 * each named as the running case (isolate.h) before fn sees it, and
 * returns how many there were. */
size_t pecert_for_each_test(const pecert_check_env *env, pecert_check_result *r,
                            const char *op, pecert_test_fn fn);

/* pecert_for_each_golden runs fn on every test of op twice: with packed
 * output views, then with strided ones (every stride wider than packed,
 * the gaps checked like the guards), "(strided output)" in the case name.
 * Golden checks use it; the ABI's views are strided. */
size_t pecert_for_each_golden(const pecert_check_env *env, pecert_check_result *r,
                              const char *op, pecert_test_fn fn);

/*
 * A check over one op's vectors is "run fn on each, then conclude", and
 * the conclusion names the cases alike in every family, by kind:
 *   pecert_run_golden           golden, packed and strided outputs
 *                               ("<op> cases (packed and strided)");
 *   pecert_run_vectors          each vector once ("<op> vectors");
 *   pecert_run_configurations   a property over each vector's
 *                               configuration ("<op> configurations").
 */
void pecert_run_golden(const pecert_check_env *env, pecert_check_result *r, const char *op, pecert_test_fn fn);
void pecert_run_vectors(const pecert_check_env *env, pecert_check_result *r, const char *op, pecert_test_fn fn);
void pecert_run_configurations(const pecert_check_env *env, pecert_check_result *r, const char *op,
                               pecert_test_fn fn);

/* Elements of guard zone on each side of an output buffer. */
#define PECERT_GUARD_ELEMS 16

/*
 * pecert_out_buf: a packed output view of n elements with guard zones on
 * both sides. Floats are pre-filled with NaN and integers with a sentinel,
 * so an element the plugin forgets shows up; the guards hold a byte
 * pattern, so a write outside the view shows up.
 */
typedef struct pecert_out_buf {
    unsigned char *base;     /* allocation: guard, storage, guard       */
    size_t elem_size;
    int64_t n;               /* elements in the view                    */
    int64_t storage;         /* elements between the guards             */
    int padded;              /* strides wider than packed (gaps checked) */
    pecert_tensor view;      /* what the plugin gets                    */
} pecert_out_buf;

/* pecert_out_init allocates and fills a view laid out as env's outputs
 * are (strided_outputs); returns 0 or -1 (no memory). */
int pecert_out_init(pecert_out_buf *b, const pecert_check_env *env, pecert_dtype dtype, uint32_t ndim,
                    const int64_t *shape);
/* pecert_out_open: pecert_out_init for a case: 1 when the view is ready,
 * else 0 after recording "out of memory" as the case's failure. */
int pecert_out_open(pecert_out_buf *b, const pecert_check_env *env, pecert_check_result *r, pecert_dtype dtype,
                    uint32_t ndim, const int64_t *shape, const char *where);
void pecert_out_free(pecert_out_buf *b);
/* pecert_out_guards_ok: 1 if no byte outside the view changed. */
int pecert_out_guards_ok(const pecert_out_buf *b);
/* pecert_out_get: element i (in packed order, whatever the strides). */
double pecert_out_get(const pecert_out_buf *b, int64_t i);

/* The sentinel integer outputs are filled with (no op produces it). */
#define PECERT_INT_SENTINEL INT64_C(-0x5A5A5A5A5A5A5A5B)

/* pecert_out_status records a call's status as the case (E_UNSUPPORTED
 * counts as unsupported); when OK, also checks the guards (a write
 * outside the output fails the case). Returns 1 if the case goes on. */
int pecert_out_status(pecert_check_result *r, const pecert_subject *s, pecert_status st,
                      const pecert_out_buf *b, const char *where, const char *op);
/* pecert_out_within: 1 if every element of got lies within tol[i] of
 * want[i] (a replayed misreading explains the plugin's output). */
int pecert_out_within(const pecert_out_buf *got, const double *want, const double *tol);
/* pecert_out_kept: pecert_out_status, and b freed when the case does not
 * go on: what a subject's run returns (1: b holds its answer). */
int pecert_out_kept(pecert_check_result *r, const pecert_subject *s, pecert_status st, pecert_out_buf *b,
                    const char *where, const char *op);

/* pecert_elem_name writes "name[i,j,k]" for packed index i of a shape. */
void pecert_elem_name(char *out, size_t len, const char *name, uint32_t ndim,
                      const int64_t *shape, int64_t index);

/* pecert_compare_exact: integer output against the golden tensor, element
 * for element, bound 0. Records one case. */
void pecert_compare_exact(pecert_check_result *r, const pecert_out_buf *got,
                          const pecert_vtensor *want, const char *where);

/* pecert_out_worst_exact adds elements 0..n-1 of got to w against the
 * floats want, bit for bit (bound 0). */
void pecert_out_worst_exact(pecert_case_worst *w, const pecert_out_buf *got, const float *want, int64_t n);

/* pecert_elem_bound: the tolerance of one element (index i, golden w). */
typedef double (*pecert_elem_bound)(const void *ctx, int64_t index, double want);

/* pecert_compare_bounded: float output against the golden tensor under
 * bound(ctx, i, want). Records one case. */
void pecert_compare_bounded(pecert_check_result *r, const pecert_out_buf *got,
                            const pecert_vtensor *want, pecert_elem_bound bound,
                            const void *ctx, const char *where);
/* pecert_judge_bounded ends a golden case: the call's status
 * (pecert_out_status), then got against want (pecert_compare_bounded);
 * got is freed either way. */
void pecert_judge_bounded(pecert_check_result *r, const pecert_subject *s, pecert_status st, pecert_out_buf *got,
                          const pecert_vtensor *want, pecert_elem_bound bound, const void *ctx, const char *where,
                          const char *op);

/* ---- the checks of each family (registry.c lists them) ----------------- */

extern const pecert_check pecert_check_alibi_slopes_golden;
#define PECERT_ID_ALIBI_SLOPES_GOLDEN "alibi.slopes.golden"
extern const pecert_check pecert_check_alibi_bias_golden;
#define PECERT_ID_ALIBI_BIAS_GOLDEN "alibi.bias.golden"
extern const pecert_check pecert_check_alibi_shift_invariance;
#define PECERT_ID_ALIBI_SHIFT_INVARIANCE "alibi.shift_invariance"
extern const pecert_check pecert_check_t5_bucket_golden;
#define PECERT_ID_T5_BUCKET_GOLDEN "t5.bucket.golden"
extern const pecert_check pecert_check_t5_bucket_monotone;
#define PECERT_ID_T5_BUCKET_MONOTONE "t5.bucket.monotone"
extern const pecert_check pecert_check_t5_bucket_saturation;
#define PECERT_ID_T5_BUCKET_SATURATION "t5.bucket.saturation"
extern const pecert_check pecert_check_sinusoidal_golden;
#define PECERT_ID_SINUSOIDAL_GOLDEN "sinusoidal.golden"
/* What a failed sinusoidal table matches instead (pecert_sinusoidal_
 * suspect): fairseq's rows read at p (the padding_idx + 1 offset dropped),
 * the other layout (sin/cos interleaved vs halves) at the right
 * frequencies, the other frequencies (base^(-2i/d) vs tensor2tensor's
 * base^(-i/(d/2 - 1))) in the right layout. */
#define PECERT_SYMPTOM_SINUSOIDAL_OFFSET      "sinusoidal:offset_dropped"
#define PECERT_SYMPTOM_SINUSOIDAL_LAYOUT      "sinusoidal:layout"
#define PECERT_SYMPTOM_SINUSOIDAL_FREQUENCIES "sinusoidal:frequencies"
/* A tensor2tensor or fairseq table (Whisper's encoder) computed as the
 * paper's: interleaved, at base^(-2i/d). */
#define PECERT_SYMPTOM_SINUSOIDAL_PAPER_TABLE "sinusoidal:paper_table"
/* pecert_sinusoidal_suspect: after a's call gave got outside its bound,
 * the oracle's tables of those porting bugs, each held to got; the one it
 * matches leaves its symptom on r. */
void pecert_sinusoidal_suspect(const pecert_check_env *env, pecert_check_result *r, const pecert_sinusoidal_args *a,
                               const pecert_out_buf *got);
/* pecert_sinusoidal_elem_bound: element i's bound in the [n, dim] output
 * of the call args (a pecert_sinusoidal_args *): pecert_sinusoidal_bound
 * at its token's position and its channel (pecert_elem_bound's form). */
double pecert_sinusoidal_elem_bound(const void *args, int64_t i, double want);
extern const pecert_check pecert_check_learned_golden;
#define PECERT_ID_LEARNED_GOLDEN "learned.golden"
extern const pecert_check pecert_check_learned_out_of_range;
#define PECERT_ID_LEARNED_OUT_OF_RANGE "learned.out_of_range"
/* Symptoms it leaves, read by diagnose.c: learned_checks.c. */
#define PECERT_SYMPTOM_LEARNED_WRONG_STATUS "learned:wrong_status"
/* certify.learned.reference read the rows through the checkpoint's
 * padding_idx + 1 offset (RoBERTa's positions): a failure there names it. */
#define PECERT_SYMPTOM_LEARNED_PADDING_OFFSET "learned:padding_offset"
#define PECERT_SYMPTOM_LEARNED_NOT_REFUSED  "learned:not_refused"
extern const pecert_check pecert_check_sincos2d_golden;
#define PECERT_ID_SINCOS2D_GOLDEN "sincos2d.golden"
/* A symptom sincos2d.golden leaves: an RT-DETR table that is the
 * row-major patches' (transformers after v4.57.6, PR #41380). */
#define PECERT_SYMPTOM_SINCOS2D_RTDETR_ROW_MAJOR "sincos2d:rtdetr_row_major"
/* pecert_sincos2d_against_oracle: one certify case, the plugin's table of
 * shape's embed_dim, grid, cls row, layout and base against ref's under
 * sincos2d.golden's bound (out is the check's to allocate). */
void pecert_sincos2d_against_oracle(const pecert_check_env *env, pecert_check_result *r,
                                    const pecert_sincos2d_args *shape, const char *where);
extern const pecert_check pecert_check_swin_index_golden;
#define PECERT_ID_SWIN_INDEX_GOLDEN "swin.index.golden"
extern const pecert_check pecert_check_swin_index_bijective;
#define PECERT_ID_SWIN_INDEX_BIJECTIVE "swin.index.bijective"
/* pecert_swin_bijection_error: the first rule a window's index output
 * breaks (an entry outside the table, two offsets on one row, one offset
 * on two), *at the flat element where; NULL when it is a bijection onto
 * the relative offsets. swin.index.bijective and certify.swin.reference
 * leave PECERT_SYMPTOM_SWIN_ROWS when it is not (diagnose.c reads it). */
const char *pecert_swin_bijection_error(const pecert_out_buf *out, int32_t wh, int32_t ww, int64_t *at);
#define PECERT_SYMPTOM_SWIN_ROWS "swin:rows_not_one_per_offset"
extern const pecert_check pecert_check_shaw_index_golden;
#define PECERT_ID_SHAW_INDEX_GOLDEN "shaw.index.golden"
extern const pecert_check pecert_check_shaw_shift_invariance;
#define PECERT_ID_SHAW_SHIFT_INVARIANCE "shaw.shift_invariance"
extern const pecert_check pecert_check_txl_pos_emb_golden;
#define PECERT_ID_TXL_POS_EMB_GOLDEN "txl.pos_emb.golden"
extern const pecert_check pecert_check_txl_rel_shift_golden;
#define PECERT_ID_TXL_REL_SHIFT_GOLDEN "txl.rel_shift.golden"
extern const pecert_check pecert_check_mrope_index_golden;
#define PECERT_ID_MROPE_INDEX_GOLDEN "mrope.index.golden"
extern const pecert_check pecert_check_mrope_apply_golden;
#define PECERT_ID_MROPE_APPLY_GOLDEN "mrope.apply.golden"
/* Symptoms it leaves, read by diagnose.c: mrope_checks.c: the section layout that reproduces the plugin's output. */
#define PECERT_SYMPTOM_MROPE_BLOCKS      "mrope_layout:blocks"
#define PECERT_SYMPTOM_MROPE_INTERLEAVED "mrope_layout:interleaved"
extern const pecert_check pecert_check_mrope_text_only_is_rope;
#define PECERT_ID_MROPE_TEXT_ONLY_IS_ROPE "mrope.text_only_is_rope"
/* The 2-D RoPE of vision towers at one call (rope2d_checks.c), for the
 * golden checks and certify's reference check at a checkpoint's tower. */
typedef struct pecert_rope2d_index_call {
    int32_t scheme;           /* PECERT_ROPE2D_MERGE_WINDOWS ...    */
    int32_t merge;            /* spatial_merge_size                 */
    const int64_t *grid;      /* [n_images, 3]                      */
    int64_t n_images;
    int64_t tokens;
    int32_t window_units;     /* ATTENTION_WINDOWS (ABI 1.10); else 0 */
} pecert_rope2d_index_call;

typedef struct pecert_rope2d_apply_call {
    pecert_rope_pairing pairing;
    int32_t frequencies;      /* PECERT_ROPE2D_*                    */
    int32_t columns_first;
    int32_t head_dim;
    double theta;
    const int64_t *positions; /* [2, tokens]: rows, then columns    */
    int64_t tokens;
    int64_t heads;
} pecert_rope2d_apply_call;

/* The subject's positions into *pos (free with pecert_out_free); 0 (and a
 * failed or declined case in r) when it returns none. */
int pecert_rope2d_run_index(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r,
                            const pecert_rope2d_index_call *c, pecert_out_buf *pos, const char *where);
/* got exactly want, or the failure and the replay that explains it. */
void pecert_rope2d_judge_index(const pecert_check_env *env, pecert_check_result *r,
                               const pecert_rope2d_index_call *c, const pecert_out_buf *got,
                               const pecert_vtensor *want, const char *where);
/* The subject's rotation of x [tokens, heads, head_dim], malloc'ed; NULL
 * (and the case in r) when it returns none. */
float *pecert_rope2d_run_apply(const pecert_subject *s, pecert_check_result *r, const pecert_rope2d_apply_call *c,
                               const float *x, const char *where);
/* got against want under the RoPE error model at each pair's angle, and
 * on failure the convention change that reproduces got (its symptom). */
void pecert_rope2d_judge_apply(const pecert_check_env *env, pecert_check_result *r,
                               const pecert_rope2d_apply_call *c, const float *x, const float *got,
                               const float *want, const char *where);

/* One position-table resize as the ABI takes it, with its table
 * (posinterp_checks.c), for the golden checks and certify's reference
 * check at a checkpoint's tower. */
typedef struct pecert_posinterp_call {
    pecert_posinterp_args a;  /* table and out left NULL         */
    const float *table;       /* [prefix + grid_h * grid_w, dim] */
    int64_t dim;
} pecert_posinterp_call;

/* The subject's resize into a fresh *out (free with pecert_out_free); 0
 * (and the case in r) when it returns none. */
int pecert_posinterp_run(const pecert_check_env *env, const pecert_subject *s, pecert_check_result *r,
                         const pecert_posinterp_call *c, pecert_out_buf *out, const char *where);
/* got against want under each element's bound (TOLERANCES.md), and on
 * failure the convention change that reproduces got (its symptom). */
void pecert_posinterp_judge(const pecert_check_env *env, pecert_check_result *r, const pecert_posinterp_call *c,
                            const pecert_out_buf *got, const pecert_out_buf *want, const char *where);

extern const pecert_check pecert_check_rope2d_index_golden;
#define PECERT_ID_ROPE2D_INDEX_GOLDEN "rope2d.index.golden"
/* Symptoms it leaves, read by diagnose.c: rope2d_checks.c and certify.rope2d.reference (certify_vision_checks.c). */
#define PECERT_SYMPTOM_ROPE2D_INDEX_WRONG         "rope2d_index_wrong"
#define PECERT_SYMPTOM_ROPE2D_ORDER_ROW_MAJOR     "rope2d_order:row_major"
#define PECERT_SYMPTOM_ROPE2D_ORDER_MERGE_WINDOWS "rope2d_order:merge_windows"
#define PECERT_SYMPTOM_ROPE2D_FRAMES_INTERLEAVED  "rope2d_frames_interleaved"
#define PECERT_SYMPTOM_ROPE2D_INDEX_AXES_SWAPPED  "rope2d_index_axes_swapped"
extern const pecert_check pecert_check_rope2d_apply_golden;
#define PECERT_ID_ROPE2D_APPLY_GOLDEN "rope2d.apply.golden"
/* Symptoms it leaves, read by diagnose.c: rope2d_checks.c and certify.rope2d.reference: the convention change that
 * reproduces the plugin's rotation. */
#define PECERT_SYMPTOM_ROPE2D_ROTATION_WRONG        "rope2d_rotation_wrong"
#define PECERT_SYMPTOM_ROPE2D_AXES_SWAPPED          "rope2d_axes_swapped"
#define PECERT_SYMPTOM_ROPE2D_FREQUENCIES_BLOCKS    "rope2d_frequencies:blocks"
#define PECERT_SYMPTOM_ROPE2D_FREQUENCIES_ALTERNATE "rope2d_frequencies:alternate"
#define PECERT_SYMPTOM_ROPE2D_PAIRING               "rope2d_pairing"
#define PECERT_SYMPTOM_ROPE2D_ONE_AXIS              "rope2d_one_axis"
#define PECERT_SYMPTOM_ROPE2D_COS_LAYOUT            "rope2d_cos_layout"
extern const pecert_check pecert_check_rope2d_norm_preservation;
#define PECERT_ID_ROPE2D_NORM_PRESERVATION "rope2d.norm_preservation"
extern const pecert_check pecert_check_rope2d_axis_separation;
#define PECERT_ID_ROPE2D_AXIS_SEPARATION "rope2d.axis_separation"
extern const pecert_check pecert_check_posinterp_golden;
#define PECERT_ID_POSINTERP_GOLDEN "posinterp.golden"
/* Symptoms it leaves, read by diagnose.c: posinterp_checks.c: the convention change that reproduces the plugin's
 * resize. */
#define PECERT_SYMPTOM_POSINTERP_SHORTCUT            "posinterp_shortcut:same_count"
#define PECERT_SYMPTOM_POSINTERP_AXES_SWAPPED        "posinterp_axes:swapped"
#define PECERT_SYMPTOM_POSINTERP_ALIGN_CORNERS_TRUE  "posinterp_align_corners:true"
#define PECERT_SYMPTOM_POSINTERP_ALIGN_CORNERS_FALSE "posinterp_align_corners:false"
#define PECERT_SYMPTOM_POSINTERP_ANTIALIAS_DROPPED   "posinterp_antialias:dropped"
#define PECERT_SYMPTOM_POSINTERP_ANTIALIAS_ADDED     "posinterp_antialias:added"
#define PECERT_SYMPTOM_POSINTERP_MODE_BICUBIC        "posinterp_mode:bicubic"
#define PECERT_SYMPTOM_POSINTERP_MODE_BILINEAR       "posinterp_mode:bilinear"
#define PECERT_SYMPTOM_POSINTERP_SCALE_FORM_SIZE     "posinterp_scale_form:size"
#define PECERT_SYMPTOM_POSINTERP_SCALE_FORM_OFFSET   "posinterp_scale_form:offset"
#define PECERT_SYMPTOM_POSINTERP_CUBIC_COEFFICIENT   "posinterp_cubic_coefficient"
#define PECERT_SYMPTOM_POSINTERP_ORDER_ROW_MAJOR     "posinterp_order:row_major"
extern const pecert_check pecert_check_posinterp_native_identity;
#define PECERT_ID_POSINTERP_NATIVE_IDENTITY "posinterp.native_identity"
extern const pecert_check pecert_check_posinterp_constant;
#define PECERT_ID_POSINTERP_CONSTANT "posinterp.constant"
extern const pecert_check pecert_check_posinterp_mirror_symmetry;
#define PECERT_ID_POSINTERP_MIRROR_SYMMETRY "posinterp.mirror_symmetry"
extern const pecert_check pecert_check_cope_golden;
#define PECERT_ID_COPE_GOLDEN "cope.golden"
/* Symptoms it leaves, read by diagnose.c: cope_checks.c: the convention change that reproduces the plugin's logits. */
#define PECERT_SYMPTOM_COPE_GATE_UNSCALED          "cope_gate_scale:missing"
#define PECERT_SYMPTOM_COPE_CUMSUM_FORWARD         "cope_cumsum:forward"
#define PECERT_SYMPTOM_COPE_GATES_UNMASKED         "cope_gates:unmasked"
#define PECERT_SYMPTOM_COPE_POSITION_SCALE_FLIPPED "cope_position_scale:flipped"
#define PECERT_SYMPTOM_COPE_CLAMP_PREFIX           "cope_clamp:prefix"
extern const pecert_check pecert_check_cope_saturated_gates;
#define PECERT_ID_COPE_SATURATED_GATES "cope.saturated_gates"
extern const pecert_check pecert_check_cope_gate_monotone;
#define PECERT_ID_COPE_GATE_MONOTONE "cope.gate_monotone"
extern const pecert_check pecert_check_cope_linear_embedding;
#define PECERT_ID_COPE_LINEAR_EMBEDDING "cope.linear_embedding"
extern const pecert_check pecert_check_peg_golden;
#define PECERT_ID_PEG_GOLDEN "peg.golden"
/* Symptoms it leaves, read by diagnose.c: peg_checks.c: the token layout that reproduces the plugin's output. */
#define PECERT_SYMPTOM_PEG_TRANSPOSED   "peg_layout:transposed"
#define PECERT_SYMPTOM_PEG_AXES_SWAPPED "peg_layout:axes_swapped"
#define PECERT_SYMPTOM_PEG_SQUARE       "peg_layout:square"
extern const pecert_check pecert_check_peg_zero_kernel;
#define PECERT_ID_PEG_ZERO_KERNEL "peg.zero_kernel"
extern const pecert_check pecert_check_peg_translation;
#define PECERT_ID_PEG_TRANSLATION "peg.translation"
extern const pecert_check pecert_check_peg_zero_padding;
#define PECERT_ID_PEG_ZERO_PADDING "peg.zero_padding"
extern const pecert_check pecert_check_sine2d_golden;
#define PECERT_ID_SINE2D_GOLDEN "sine2d.golden"
/* Symptoms it leaves, read by diagnose.c: sine2d_checks.c: the misreading
 * whose replay reproduces the plugin's output. */
#define PECERT_SYMPTOM_SINE2D_MASK_IGNORED "sine2d:mask_ignored"
#define PECERT_SYMPTOM_SINE2D_OFFSET       "sine2d:offset"
#define PECERT_SYMPTOM_SINE2D_HALVES       "sine2d:halves"
#define PECERT_SYMPTOM_SINE2D_AXES_SWAPPED "sine2d:axes_swapped"
extern const pecert_check pecert_check_sine2d_padding;
#define PECERT_ID_SINE2D_PADDING "sine2d.padding"
/* One sine2d call (plugin.h, pecert_sine2d_args): its numbers and its
 * mask [h, w] of 0 and 1 (owned by whoever built it). */
typedef struct pecert_sine2d_call {
    int64_t h, w, f;
    int normalize;
    double temperature_y, temperature_x, scale, offset, eps;
    int64_t *mask;
} pecert_sine2d_call;
/* The plugin's sine2d on c against the oracle's, under sine2d.golden's
 * bound (TOLERANCES.md), one case; a failure replayed as the golden check
 * replays it (the symptom names the misreading that explains it). */
void pecert_sine2d_against_oracle(const pecert_check_env *env, pecert_check_result *r, const pecert_sine2d_call *c,
                                  const char *where);

extern const pecert_check pecert_check_relpos2d_golden;
#define PECERT_ID_RELPOS2D_GOLDEN "relpos2d.golden"
/* Symptoms it leaves, read by diagnose.c: relpos2d_checks.c: the
 * misreading whose replay reproduces the plugin's output. */
#define PECERT_SYMPTOM_RELPOS2D_ALIGN_CORNERS "relpos2d:align_corners"
#define PECERT_SYMPTOM_RELPOS2D_ASYMMETRIC    "relpos2d:asymmetric"
extern const pecert_check pecert_check_relpos2d_shapes;
#define PECERT_ID_RELPOS2D_SHAPES "relpos2d.shapes"
/* The plugin's relpos2d_bias against the oracle's on seeded inputs of
 * sizes {q_h, q_w, k_h, k_w, n, C, L_h, L_w}, under relpos2d.golden's bound
 * (TOLERANCES.md), one case; a failure replayed as the golden check
 * replays it. */
void pecert_relpos2d_against_oracle(const pecert_check_env *env, pecert_check_result *r, const int64_t sizes[8],
                                    uint64_t seed, const char *where);

extern const pecert_check pecert_check_deberta_bias_golden;
#define PECERT_ID_DEBERTA_BIAS_GOLDEN "deberta.bias.golden"
extern const pecert_check pecert_check_deberta_index_golden;
#define PECERT_ID_DEBERTA_INDEX_GOLDEN "deberta.index.golden"
/* The plugin's deberta_bias against the oracle's on seeded inputs of
 * sizes {n, L, d, heads} at the buckets, max_position and terms
 * (PECERT_DEBERTA_*) given, under deberta.bias.golden's bound
 * (TOLERANCES.md), one case; a failure replayed as the golden check
 * replays it. */
void pecert_deberta_against_oracle(const pecert_check_env *env, pecert_check_result *r, const int64_t sizes[4],
                                   int64_t bucket_size, int64_t max_position, uint32_t terms, uint64_t seed,
                                   const char *where);
/* Symptoms they leave, read by diagnose.c: deberta_checks.c: the
 * misreading whose replay reproduces the plugin's output. */
#define PECERT_SYMPTOM_DEBERTA_P2C_SIGN        "deberta:p2c_sign"
#define PECERT_SYMPTOM_DEBERTA_LENGTH_AS_MAX   "deberta:length_as_max_position"
#define PECERT_SYMPTOM_DEBERTA_INTEGER_RATIO   "deberta:integer_ratio"
#define PECERT_SYMPTOM_DEBERTA_C2P_NO_SPAN     "deberta:c2p_no_span"
#define PECERT_SYMPTOM_DEBERTA_SCALE_NO_SQRT   "deberta:scale_no_sqrt"

#endif /* PECERT_CONFORMANCE_FAMILY_H */
