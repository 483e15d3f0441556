/*
 * ref.h - internals of the pecert scalar reference plugin `ref`.
 *
 * `ref` is the oracle: it computes every RoPE quantity in double, with
 * exact argument reduction for the angle position * inv_freq, following
 * Hugging Face transformers v4.57.6 (src/transformers/modeling_rope_utils.py,
 * models/llama/modeling_llama.py, models/gptj/modeling_gptj.py) formula for
 * formula and default for default.
 *
 * Files: plugin.c (descriptor, instance, errors), validate.c (argument
 * checks), overlap.c (exact aliasing test for two strided views),
 * params.c (config -> resolved parameters, HF defaulting rules),
 * freqs.c (inverse frequencies per rope type), angle.c (accurate sin/cos),
 * rotation.c (per-call frequency table), cos_sin.c and apply.c (the ops).
 * The other families (ABI 1.2), one file each: alibi.c, t5.c,
 * sinusoidal.c, learned.c, sincos2d.c, swin.c, shaw.c, txl.c,
 * mrope_index.c, mrope_apply.c, rope2d.c, posinterp.c, cope.c, peg.c, sine2d.c, relpos2d.c, deberta.c; their argument and view checks are in
 * validate.c (pecert__ref_check_view and friends).
 *
 * Only pecert_plugin_entry is exported; everything declared between the
 * visibility pragmas below stays inside the shared object.
 */
#ifndef PECERT_REF_H
#define PECERT_REF_H

#include <stdint.h>

#include "pecert/plugin.h"

/* The one exported symbol, pecert_plugin_entry, is declared by plugin.h,
 * before the hidden region below. */

#pragma GCC visibility push(hidden)

/* Longest last_error() message, including the terminating NUL. */
#define PECERT__REF_ERROR_LEN 256

/* Positions must lie in (-2^53, 2^53): every such integer is exact in
 * double (2^53 itself, as an int64 limit). */
#define PECERT__REF_POSITION_LIMIT ((int64_t)1 << 53)

/* Largest |position * inv_freq| the argument reduction is specified for
 * (2^64); see angle.c for the error bound inside this range. */
#define PECERT__REF_ANGLE_LIMIT 18446744073709551616.0

/* An instance: only the error buffer (the plugin keeps no other state). */
typedef struct pecert__ref_instance {
    char error[PECERT__REF_ERROR_LEN]; /* one line, "" after success      */
} pecert__ref_instance;

/* The context of one ABI call, threaded through the helpers so that every
 * error message can name the operation. */
typedef struct pecert__ref_call {
    pecert__ref_instance *instance; /* may be NULL (host passed none)    */
    const char *op;                 /* "rope_apply", ...                 */
} pecert__ref_call;

/* A rope config with every Hugging Face default applied: the formulas in
 * freqs.c read only this, never `present` bits. */
typedef struct pecert__ref_params {
    pecert_rope_type type;       /* PECERT_ROPE_*                         */
    int32_t dim;                 /* rotary_dim: frequencies = dim / 2     */
    double theta;                /* rope_theta                            */
    double factor;               /* scaling factor (resolved)             */
    int64_t max_pos;             /* max_position_embeddings               */
    int64_t original_max_pos;    /* yarn/llama3/longrope context length   */
    double attention_factor;     /* multiplies cos and sin                */
    double beta_fast;            /* yarn, after `or 32`                   */
    double beta_slow;            /* yarn, after `or 1`                    */
    int truncate;                /* yarn: floor/ceil the ramp range       */
    double low_freq_factor;      /* llama3                                */
    double high_freq_factor;     /* llama3                                */
    const double *short_factor;  /* longrope, dim / 2 values              */
    const double *long_factor;   /* longrope, dim / 2 values              */
} pecert__ref_params;

/* A frequency table for one call: inverse frequencies at the call's
 * sequence length and the attention scaling. */
typedef struct pecert__ref_rotation {
    int32_t half;           /* rotary_dim / 2                              */
    double scaling;         /* attention scaling                           */
    double *inv_freq;       /* [half], owned (malloc)                      */
    double *row_cos;        /* [half] scratch for one position, owned      */
    double *row_sin;        /* [half] scratch for one position, owned      */
} pecert__ref_rotation;

/* ---- plugin.c ---------------------------------------------------------- */

/* pecert__ref_fail records "op: message" in the call's instance (if any)
 * and returns status, so callers can write `return pecert__ref_fail(...)`. */
pecert_status pecert__ref_fail(const pecert__ref_call *call,
                               pecert_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- validate.c -------------------------------------------------------- */

/* pecert__ref_check_config checks the structure and ranges of a config that
 * do not depend on rope type (sizes, dims, theta, reserved fields). */
pecert_status pecert__ref_check_config(const pecert__ref_call *call,
                                       const pecert_rope_config *config);

/* pecert__ref_check_layer_config: pecert__ref_check_config for the calls
 * that take a NoPE layer too (rope_apply, session_create): layer_kind may
 * also be PECERT_LAYER_NOPE. */
pecert_status pecert__ref_check_layer_config(const pecert__ref_call *call,
                                             const pecert_rope_config *config);

/* pecert__ref_check_seq_len rejects a negative sequence length. */
pecert_status pecert__ref_check_seq_len(const pecert__ref_call *call,
                                        int64_t seq_len);

/* pecert__ref_check_positions checks n >= 0, the pointer, its alignment and
 * that every position is in (-2^53, 2^53). */
pecert_status pecert__ref_check_positions(const pecert__ref_call *call,
                                          const int64_t *positions,
                                          int64_t n_positions);

/* pecert__ref_check_tensor checks one tensor view: struct size, ndim,
 * reserved field, dtype (f32, or also f64 when allow_f64), non-negative
 * shape and strides, offsets that fit the address space, data pointer and
 * alignment and, when is_output, no zero stride on an axis of extent > 1. */
pecert_status pecert__ref_check_tensor(const pecert__ref_call *call,
                                       const char *name,
                                       const pecert_tensor *tensor,
                                       uint32_t ndim, int allow_f64,
                                       int is_output);

/* pecert__ref_check_in_place accepts out == x exactly (same data, shape
 * and strides) or views that share no element; anything else is a
 * partial overlap. */
pecert_status pecert__ref_check_in_place(const pecert__ref_call *call,
                                         const pecert_tensor *x,
                                         const pecert_tensor *out,
                                         size_t element_size);

/* pecert__ref_max_offset is the largest element offset a checked tensor
 * view reaches (0 for an empty view). */
int64_t pecert__ref_max_offset(const pecert_tensor *tensor);

/* pecert__ref_is_empty is 1 when some axis of the view has extent 0. */
int pecert__ref_is_empty(const pecert_tensor *tensor);

/* Dtype sets of pecert__ref_check_view: F32 (F64 optional) for float
 * outputs, I64 (I32 optional) for integer ones. Bits are 1 << dtype. */
#define PECERT__REF_FLOAT ((1u << PECERT_DTYPE_F32) | (1u << PECERT_DTYPE_F64))
#define PECERT__REF_INT ((1u << PECERT_DTYPE_I64) | (1u << PECERT_DTYPE_I32))
#define PECERT__REF_F32_ONLY (1u << PECERT_DTYPE_F32)

/* pecert__ref_check_view checks a view of the ABI 1.2 ops: header, a dtype
 * of the set, the exact shape (NULL: any), extents, and for outputs no
 * zero stride on an axis of extent > 1. */
pecert_status pecert__ref_check_view(const pecert__ref_call *call, const char *name,
                                     const pecert_tensor *tensor, uint32_t ndim,
                                     const int64_t *shape, uint32_t dtypes, int is_output);

/* pecert__ref_check_reserved_of: every word zero, else E_UNSUPPORTED
 * saying that ABI abi ("1.0") gives the word no meaning. */
pecert_status pecert__ref_check_reserved_of(const pecert__ref_call *call, const char *name,
                                            const uint64_t *words, size_t n, const char *abi);
/* pecert__ref_check_reserved: the same for the families of ABI 1.2. */
pecert_status pecert__ref_check_reserved(const pecert__ref_call *call, const char *name,
                                         const uint64_t *words, size_t n);

/* The checks and the computation of an op of the families, run by
 * pecert__ref_run: each is given the op's own argument struct as const
 * void * (as qsort gives its comparator the elements), so that one runner
 * serves every op. */
typedef pecert_status (*pecert__ref_step)(const pecert__ref_call *call, const void *args);

/* pecert__ref_run carries out an op: pecert__ref_enter (op, args of
 * args_size bytes), then check, then compute; the first failure's status. */
pecert_status pecert__ref_run(void *instance, const char *op, const void *args, size_t args_size,
                              pecert__ref_step check, pecert__ref_step compute);

/* pecert__ref_enter starts an op that takes one argument struct (plugin.h:
 * struct_size first): pecert__ref_begin_call, then args non-NULL (E_INVAL)
 * and its struct_size >= need (E_ABI). */
pecert_status pecert__ref_enter(pecert__ref_call *call, void *instance, const char *op,
                                const void *args, size_t need);

/* pecert__ref_check_ints: n >= 0, values non-NULL and aligned when n > 0,
 * each in (-2^53, 2^53). */
pecert_status pecert__ref_check_ints(const pecert__ref_call *call, const char *name,
                                     const int64_t *values, int64_t n);

/* Element access of a checked view: address, and stores that convert to
 * its dtype (f32/f64, i64/i32). */
void *pecert__ref_elem(const pecert_tensor *t, const int64_t *index);
void pecert__ref_store_float(const pecert_tensor *t, const int64_t *index, double value);
void pecert__ref_store_int(const pecert_tensor *t, const int64_t *index, int64_t value);

/* ---- overlap.c --------------------------------------------------------- */

/* pecert__ref_views_overlap is 1 when two checked, aligned views of
 * element_size-byte elements share an element (exact for all layouts that
 * need fewer than 10^6 search steps, conservatively 1 beyond). */
int pecert__ref_views_overlap(const pecert_tensor *x, const pecert_tensor *out,
                              size_t element_size);

/* ---- params.c ---------------------------------------------------------- */

/* pecert__ref_resolve_params applies the rope type's Hugging Face defaults
 * to a structurally valid config and checks the values the formulas use. */
pecert_status pecert__ref_resolve_params(const pecert__ref_call *call,
                                         const pecert_rope_config *config,
                                         pecert__ref_params *out_params);

/* ---- freqs.c ----------------------------------------------------------- */

/* pecert__ref_inv_freq writes params->dim / 2 inverse frequencies at
 * sequence length seq_len (<= 0 = none given, the init-time value). */
void pecert__ref_inv_freq(const pecert__ref_params *params, int64_t seq_len,
                          double *out_inv_freq);

/* pecert__ref_check_inv_freq rejects a config whose frequencies came out
 * non-finite (e.g. a tiny yarn factor overflowing 1 / (factor * pos)). */
pecert_status pecert__ref_check_inv_freq(const pecert__ref_call *call,
                                         const double *inv_freq, int32_t half);

/* ---- angle.c ----------------------------------------------------------- */

/* pecert__ref_sin_cos computes sin and cos of position * inv_freq with the
 * product taken exactly; needs |position * inv_freq| < 2^64. */
void pecert__ref_sin_cos(double position, double inv_freq, double *out_sin,
                         double *out_cos);

/* ---- rotation.c -------------------------------------------------------- */

/* pecert__ref_effective_seq_len is seq_len, or max(positions) + 1 when
 * seq_len is 0 and there are positions (what transformers' forward uses). */
int64_t pecert__ref_effective_seq_len(int64_t seq_len,
                                      const int64_t *positions,
                                      int64_t n_positions);

/* pecert__ref_rotation_init resolves a checked config (params.c), computes
 * the frequency table at seq_len (0 = derived from the checked positions)
 * and checks that every angle stays within the accurate reduction range.
 * On success the rotation owns memory that pecert__ref_rotation_free
 * releases; on failure it owns nothing. */
pecert_status pecert__ref_rotation_init(const pecert__ref_call *call,
                                        pecert__ref_rotation *rotation,
                                        const pecert_rope_config *config,
                                        int64_t seq_len,
                                        const int64_t *positions,
                                        int64_t n_positions);

/* pecert__ref_rotation_row fills rotation->row_cos / row_sin with
 * cos(p * inv_freq[i]) * scaling and sin(...) * scaling. */
void pecert__ref_rotation_row(pecert__ref_rotation *rotation,
                              int64_t position);

/* pecert__ref_rotation_free releases what init allocated (idempotent). */
void pecert__ref_rotation_free(pecert__ref_rotation *rotation);

/* ---- ops (freqs.c, cos_sin.c, apply.c) --------------------------------- */

/* Decode session arguments (session_args.c): the config at create, and an
 * append's header, views and their shapes [n_tokens, heads, head_dim]. */
pecert_status pecert__ref_check_session_config(const pecert__ref_call *call,
                                               const pecert_session_config *config);
pecert_status pecert__ref_check_session_append(const pecert__ref_call *call,
                                               const pecert_session_append_args *args,
                                               int64_t n_heads, int64_t n_kv_heads,
                                               int64_t head_dim);
/* The view session_read_keys writes: an f32 [count, n_kv_heads, head_dim]
 * output (the session and seq already found). */
pecert_status pecert__ref_check_read_keys(const pecert__ref_call *call, const pecert_tensor *out_keys,
                                          int64_t count, int32_t n_kv_heads, int32_t head_dim);

/* Decode session (session.c): attention over a KV cache in double. */
pecert_status pecert__ref_session_create(void *instance, void **out_session,
                                         const pecert_session_config *config);
void pecert__ref_session_destroy(void *instance, void *session);
pecert_status pecert__ref_session_append(void *instance, void *session,
                                         const pecert_session_append_args *args);
pecert_status pecert__ref_session_read_keys(void *instance, void *session,
                                            pecert_tensor *out_keys, int32_t seq);

pecert_status pecert__ref_rope_freqs(void *instance, double *out_inv_freq,
                                     double *out_attention_scaling,
                                     const pecert_rope_config *config,
                                     int64_t seq_len);

pecert_status pecert__ref_rope_cos_sin(void *instance, pecert_tensor *out_cos,
                                       pecert_tensor *out_sin,
                                       const pecert_rope_config *config,
                                       int64_t seq_len,
                                       const int64_t *positions,
                                       int64_t n_positions);

pecert_status pecert__ref_rope_apply(void *instance,
                                     const pecert_rope_apply_args *args);

/* ---- the other families (ABI 1.2), one file each ---------------------- */

/* alibi.c */
pecert_status pecert__ref_alibi_slopes(void *instance, const pecert_alibi_slopes_args *args);
double pecert__ref_alibi_slope(int64_t n, double max_bias, int64_t h);
pecert_status pecert__ref_alibi_bias(void *instance, const pecert_alibi_bias_args *args);

/* t5.c */
pecert_status pecert__ref_t5_bucket(void *instance, const pecert_t5_bucket_args *args);
/* pecert__ref_check_t5_args: the fields and views of t5_bucket's args
 * (struct_size checked before). */
pecert_status pecert__ref_check_t5_args(const pecert__ref_call *call, const void *args);

/* sinusoidal.c */
pecert_status pecert__ref_sinusoidal(void *instance, const pecert_sinusoidal_args *args);
/* pecert__ref_check_sinusoidal_args: the fields and views of sinusoidal's
 * args (struct_size checked before). */
pecert_status pecert__ref_check_sinusoidal_args(const pecert__ref_call *call, const void *args);

/* learned.c */
pecert_status pecert__ref_learned_lookup(void *instance, const pecert_learned_args *args);

/* sincos2d.c */
pecert_status pecert__ref_sincos_2d(void *instance, const pecert_sincos2d_args *args);
/* pecert__ref_check_sincos2d: the fields and views of sincos_2d's args
 * (the honest variants run their float32 table behind it). */
pecert_status pecert__ref_check_sincos2d(const pecert__ref_call *call, const void *args);

/* swin.c */
pecert_status pecert__ref_swin_index(void *instance, const pecert_swin_index_args *args);
/* pecert__ref_check_swin_args: the fields and views of swin_index's args
 * (struct_size checked before). */
pecert_status pecert__ref_check_swin_args(const pecert__ref_call *call, const void *args);

/* shaw.c */
pecert_status pecert__ref_shaw_index(void *instance, const pecert_shaw_index_args *args);

/* txl.c */
pecert_status pecert__ref_txl_pos_emb(void *instance, const pecert_txl_pos_emb_args *args);
pecert_status pecert__ref_txl_rel_shift(void *instance, const pecert_txl_rel_shift_args *args);

/* mrope_index.c, mrope_apply.c */
pecert_status pecert__ref_mrope_index(void *instance, const pecert_mrope_index_args *args);
pecert_status pecert__ref_mrope_apply(void *instance, const pecert_mrope_apply_args *args);

/* rope2d.c; the argument checks of rope2d_apply (struct size excepted),
 * shared with the honest variants. */
pecert_status pecert__ref_check_rope2d_apply(const pecert__ref_call *call, const void *args);
pecert_status pecert__ref_rope2d_index(void *instance, const pecert_rope2d_index_args *args);
pecert_status pecert__ref_rope2d_apply(void *instance, const pecert_rope2d_apply_args *args);

/* posinterp.c; the argument checks of pos_interpolate (struct size
 * excepted). */
pecert_status pecert__ref_check_posinterp(const pecert__ref_call *call, const void *args);
pecert_status pecert__ref_pos_interpolate(void *instance, const pecert_posinterp_args *args);

/* cope.c; the argument checks of cope_logits (struct size excepted). */
pecert_status pecert__ref_check_cope(const pecert__ref_call *call, const void *args);
pecert_status pecert__ref_cope_logits(void *instance, const pecert_cope_args *args);

/* peg.c; the argument checks of peg_apply (struct size excepted). */
pecert_status pecert__ref_check_peg(const pecert__ref_call *call, const void *args);
pecert_status pecert__ref_peg_apply(void *instance, const pecert_peg_args *args);

/* sine2d.c; the argument checks of sine2d (struct size excepted), the
 * mask's element (r, c) and its cumulative counts (y down each column, x
 * along each row, [h * w] row-major), shared with the honest variants. */
pecert_status pecert__ref_check_sine2d(const pecert__ref_call *call, const void *args);
int64_t pecert__ref_sine2d_mask_at(const pecert_tensor *mask, int64_t r, int64_t c);
void pecert__ref_sine2d_counts(const pecert_tensor *mask, int64_t *y, int64_t *x);
pecert_status pecert__ref_sine2d(void *instance, const pecert_sine2d_args *args);

/* relpos2d.c; the argument checks of relpos2d_bias (struct size
 * excepted), and the row of the resized table query a and key b of an
 * axis with q queries and k keys read (float32, as get_rel_pos computes it),
 * shared with the honest variants. */
pecert_status pecert__ref_check_relpos2d(const pecert__ref_call *call, const void *args);
int64_t pecert__ref_relpos2d_row(int64_t q, int64_t k, int64_t a, int64_t b);
pecert_status pecert__ref_relpos2d_bias(void *instance, const pecert_relpos2d_args *args);

/* deberta.c; the argument checks of deberta_bias (struct size excepted),
 * the log bucket b(r) of a relative position r = i - j, the span (the
 * tables have 2 span rows) and the row both terms read, clamp(b + span),
 * shared with the honest variants. */
pecert_status pecert__ref_check_deberta(const pecert__ref_call *call, const void *args);
int64_t pecert__ref_deberta_bucket(int64_t r, int64_t bucket_size, int64_t max_position);
int64_t pecert__ref_deberta_span(int64_t bucket_size, int64_t max_position);
int64_t pecert__ref_deberta_row(int64_t r, int64_t bucket_size, int64_t max_position);
pecert_status pecert__ref_deberta_bias(void *instance, const pecert_deberta_args *args);

/* pecert__ref_begin_call clears the instance's error and fills *call. */
void pecert__ref_begin_call(pecert__ref_call *call, void *instance,
                            const char *op);

#pragma GCC visibility pop

#endif /* PECERT_REF_H */
