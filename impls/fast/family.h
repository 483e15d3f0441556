/*
 * family.h - the ABI 1.2 operations of `fast` beyond RoPE: the decode
 * session (session.c) and the other positional-encoding families
 * (the .c files of family/): ALiBi, T5 buckets, sinusoidal, learned, 2-D sin-cos,
 * Swin, Shaw, Transformer-XL, M-RoPE, 2-D vision RoPE, the resizing of
 * learned position grids, CoPE, CPVT's PEG, DETR's sine embedding and the
 * decomposed relative positions of MViTv2 and SAM.
 *
 * Semantics are plugin.h's (the same as `ref`, the double oracle); the
 * code is fast's own: angles reduced by fast's trig (scalar/trig.c for
 * |angle| < 2^36, far_angle.c beyond), hot loops over contiguous rows.
 * Every op validates all of its arguments before writing a byte and
 * reports one line through last_error (plugin.c's pecert__fast_fail).
 */
#ifndef PECERT_FAST_FAMILY_H
#define PECERT_FAST_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "fast.h"

#pragma GCC visibility push(hidden)

/* 1 if no two rows (indices of axis 0) of a checked output share an
 * element (family/rows.c): only then may rows go to different threads. */
int pecert__fast_fam_rows_disjoint(const pecert_tensor *t);

/* Dtype sets of pecert__fast_fam_check_view (bits 1 << PECERT_DTYPE_*). */
#define PECERT__FAM_FLOAT ((1u << PECERT_DTYPE_F32) | (1u << PECERT_DTYPE_F64))
#define PECERT__FAM_INT ((1u << PECERT_DTYPE_I64) | (1u << PECERT_DTYPE_I32))
#define PECERT__FAM_F32 (1u << PECERT_DTYPE_F32)

/* ---- family/common.c ---------------------------------------------------- */

/* args non-NULL (E_INVAL) and its struct_size (plugin.h: the first field of
 * every argument struct) >= need (E_ABI). */
pecert_status pecert__fast_fam_check_args(const pecert__fast_call *call, const void *args,
                                          size_t need);
/* The start of every family op (plugin.h: one argument struct, struct_size
 * first): pecert__fast_begin_call (E_INVAL for a NULL instance), then args
 * non-NULL (E_INVAL) and its struct_size >= need (E_ABI). */
pecert_status pecert__fast_fam_enter(pecert__fast_call *call, void *instance, const char *op,
                                     const void *args, size_t need);
/* Every word zero, else E_UNSUPPORTED naming the first non-zero one. */
pecert_status pecert__fast_fam_check_reserved(const pecert__fast_call *call, const char *name,
                                              const uint64_t *words, size_t n);
/* n >= 0, values non-NULL and 8-byte aligned when n > 0, each in
 * (-2^53, 2^53). */
pecert_status pecert__fast_fam_check_ints(const pecert__fast_call *call, const char *name,
                                          const int64_t *values, int64_t n);
/* A view: header, a dtype of the set (f64 / i32 / f16 / bf16 outside it
 * are E_UNSUPPORTED, the rest E_INVAL), the exact shape (NULL: any),
 * extents that fit the address space, data and alignment, and for
 * outputs no zero stride on an axis of extent > 1. */
pecert_status pecert__fast_fam_check_view(const pecert__fast_call *call, const char *name,
                                          const pecert_tensor *tensor, uint32_t ndim,
                                          const int64_t *shape, uint32_t dtypes, int is_output);
/* Element access of a checked view. */
void *pecert__fast_fam_elem(const pecert_tensor *t, const int64_t *index);
void pecert__fast_fam_store_float(const pecert_tensor *t, const int64_t *index, double value);
void pecert__fast_fam_store_int(const pecert_tensor *t, const int64_t *index, int64_t value);
/* sin and cos of position * freq (|angle| < 2^64), accurately reduced. */
void pecert__fast_fam_sincos(double position, double freq, double *out_sin, double *out_cos);

/* ---- family/rows.c ------------------------------------------------------- */

/* A table written row by row: row(job, r, scratch) writes row r with the
 * scratch of the thread that runs it. */
typedef struct pecert__fast_row_job {
    void (*row)(const struct pecert__fast_row_job *job, int64_t r, void *scratch);
    /* Called by each thread before its first row (NULL: nothing to do). */
    void (*begin)(const struct pecert__fast_row_job *job, void *scratch);
    const void *op;              /* the op's arguments                     */
    const void *plan;            /* what the op computed once per call     */
    const pecert__fast_kernels *kernels;
    int64_t rows;
    int threads;                 /* set by pecert__fast_fam_row_memory     */
    int streaming;               /* set there too: rows may be streamed    */
    unsigned char *scratch;      /* thread i's at i * scratch_len          */
    size_t scratch_len;
} pecert__fast_row_job;

/* The memory of a row job whose rows are set: plan_len bytes for the op's
 * plan (returned), then scratch_len bytes for each of the threads that
 * the checked output view calls for (job->threads, job->scratch: one
 * thread for a small output, or one whose rows may share an element).
 * NULL after recording E_NOMEM. */
void *pecert__fast_fam_row_memory(const pecert__fast_call *call, const pecert_tensor *out, size_t plan_len,
                                  size_t scratch_len, pecert__fast_row_job *job);
/* Every row, split statically over job->threads. */
void pecert__fast_fam_run_rows(pecert__fast_row_job *job);
/* Row r of a checked 2-D float view from values[0, cols): one rounding to
 * f32 where the view is f32. */
void pecert__fast_fam_store_row(const pecert__fast_row_job *job, const pecert_tensor *t, int64_t r,
                                 const double *values, int64_t cols);
/* A contiguous f32 row of a job's output: (float)a[i]; (float)a[i],
 * (float)b[i] interleaved; a copy. Streamed where the job streams (the
 * kernels store plainly up to the row's first vector boundary). */
void pecert__fast_fam_narrow(const pecert__fast_row_job *job, float *out, const double *a, int64_t n);
void pecert__fast_fam_interleave(const pecert__fast_row_job *job, float *out, const double *a, const double *b,
                                 int64_t n);
void pecert__fast_fam_copy(const pecert__fast_row_job *job, float *out, const float *a, int64_t n);
/* A table's frequencies as the rows of table.c read them: inv_freq[n]
 * given, max_inv_freq, and the step cos/sin(inv_freq) into step[2n]
 * (freqs.c's arithmetic, the scalar kernel's bits). */
void pecert__fast_fam_table_freqs(pecert__fast_freqs *out, const double *inv_freq, int32_t n, double *step);
/* A thread's table rows (table.c: anchors, one-position steps) over
 * positions, in scratch: the state, then cos and sin [n]. Bytes it takes. */
size_t pecert__fast_fam_rows_bytes(int32_t n);
pecert__fast_rows *pecert__fast_fam_rows_start(void *scratch, const pecert__fast_kernels *kernels,
                                               const pecert__fast_freqs *freqs, const int64_t *positions);

/* cos and sin of position * inv_freq[i], i < n, each exactly as
 * pecert__fast_fam_sincos computes it: the kernels' vector row when every
 * angle is below PECERT__FAST_NEAR_LIMIT (max_inv_freq >= every inv_freq). */
void pecert__fast_fam_sincos_row(const pecert__fast_kernels *kernels, const double *inv_freq, int32_t n,
                                 double max_inv_freq, double position, double *cos, double *sin);

/* ---- family/alibi.c ------------------------------------------------------ */

/* Slope of head h (0-based) of n heads. */
double pecert__fast_alibi_slope(int64_t n, double max_bias, int64_t h);

/* ---- ops ------------------------------------------------------------------ */

pecert_status pecert__fast_session_create(void *instance, void **out_session,
                                          const pecert_session_config *config);
void pecert__fast_session_destroy(void *instance, void *session);
pecert_status pecert__fast_session_append(void *instance, void *session,
                                          const pecert_session_append_args *args);
pecert_status pecert__fast_session_read_keys(void *instance, void *session,
                                             pecert_tensor *out_keys, int32_t seq);

pecert_status pecert__fast_alibi_slopes(void *instance, const pecert_alibi_slopes_args *args);
pecert_status pecert__fast_alibi_bias(void *instance, const pecert_alibi_bias_args *args);
pecert_status pecert__fast_t5_bucket(void *instance, const pecert_t5_bucket_args *args);
pecert_status pecert__fast_sinusoidal(void *instance, const pecert_sinusoidal_args *args);
pecert_status pecert__fast_learned_lookup(void *instance, const pecert_learned_args *args);
pecert_status pecert__fast_sincos_2d(void *instance, const pecert_sincos2d_args *args);
pecert_status pecert__fast_swin_index(void *instance, const pecert_swin_index_args *args);
pecert_status pecert__fast_shaw_index(void *instance, const pecert_shaw_index_args *args);
pecert_status pecert__fast_txl_pos_emb(void *instance, const pecert_txl_pos_emb_args *args);
pecert_status pecert__fast_txl_rel_shift(void *instance, const pecert_txl_rel_shift_args *args);
pecert_status pecert__fast_mrope_index(void *instance, const pecert_mrope_index_args *args);
pecert_status pecert__fast_mrope_apply(void *instance, const pecert_mrope_apply_args *args);
pecert_status pecert__fast_rope2d_index(void *instance, const pecert_rope2d_index_args *args);
pecert_status pecert__fast_rope2d_apply(void *instance, const pecert_rope2d_apply_args *args);
pecert_status pecert__fast_pos_interpolate(void *instance, const pecert_posinterp_args *args);
pecert_status pecert__fast_cope_logits(void *instance, const pecert_cope_args *args);
pecert_status pecert__fast_peg_apply(void *instance, const pecert_peg_args *args);
pecert_status pecert__fast_sine2d(void *instance, const pecert_sine2d_args *args);
pecert_status pecert__fast_relpos2d_bias(void *instance, const pecert_relpos2d_args *args);
/* get_rel_pos' row for query a and key b of an axis with q queries and k
 * keys (family/relpos2d.c: the float32 index torch computes, truncated). */
int64_t pecert__fast_relpos2d_row(int64_t q, int64_t k, int64_t a, int64_t b);
pecert_status pecert__fast_deberta_bias(void *instance, const pecert_deberta_args *args);

#pragma GCC visibility pop

#endif /* PECERT_FAST_FAMILY_H */
