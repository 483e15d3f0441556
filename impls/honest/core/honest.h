/*
 * honest.h - the frame of the honest variants: float32 RoPE engines that
 * are right, each computing as one formulation real engines ship does.
 *
 * pecert's bounds must admit every correct float32 engine, not only the
 * official code and our double-precision `ref`. An honest variant is
 * such an engine, written here from the formulation's published
 * description (the engine and source file it follows are named in its
 * file); `make check` requires it to pass every check it implements and
 * to be CERTIFIED for every profile it supports (impls/honest/README.md).
 *
 * The core (this folder) exports one complete plugin; each variant's file
 * defines the one honest_formulation that selects its arithmetic.
 * Argument validation and Hugging Face's defaulting rules are `ref`'s own
 * (validate.c, params.c, overlap.c are linked in): they are not what a
 * variant differs in, and sharing them keeps "honest" meaning "the same
 * answer to the same question", so that any failure is the arithmetic's.
 */
#ifndef PECERT_HONEST_H
#define PECERT_HONEST_H

#include <stdint.h>

#include "../../ref/ref.h"

#pragma GCC visibility push(hidden)

/* How the base angle p * theta^(-2i/d) is formed in float32. */
typedef enum honest_freq_form {
    /* transformers: inv_freq = 1 / theta ** (arange(0, d, 2).float() / d),
     * the exponent rounded to float32; angle = float(p) * inv_freq. */
    HONEST_FREQ_TORCH,
    /* ggml-cpu: theta_scale = powf(theta, -2/d); the angle starts at
     * float(p) and is multiplied by theta_scale once per pair. */
    HONEST_FREQ_RECURRENCE,
    /* ggml-cuda: angle = float(p) * powf(theta_scale, i). */
    HONEST_FREQ_POW_INDEX
} honest_freq_form;

/* How cos/sin of a float32 angle are evaluated. */
typedef enum honest_trig {
    HONEST_TRIG_LIBM, /* cosf/sinf of the C library (correctly reduced)   */
    HONEST_TRIG_FAST  /* Cody-Waite reduction in float32 + polynomials    */
} honest_trig;

/* How a pair is rotated. */
typedef enum honest_rotation {
    HONEST_ROTATE_HF,      /* x * cos + rotate_half(x) * sin, float32      */
    HONEST_ROTATE_COMPLEX, /* (a + ib)(cos + i sin) as float complex       */
    HONEST_ROTATE_IN_DTYPE /* f16/bf16 x: cos/sin cast to x's dtype, the
                              products and the sum rounded to it (HF on a
                              half-precision model); f32 x as ROTATE_HF    */
} honest_rotation;

/* A formulation. The first value of each enum and 0 for each flag is the
 * official float32 arithmetic (official_f32.c, which spells every field
 * out), so a variant's file names only the fields it departs in. */
typedef struct honest_formulation {
    const char *name;        /* file name without .c                      */
    const char *follows;     /* the engine and source file it reproduces  */
    honest_freq_form freqs;
    /* 1: the scaled types' constants (YaRN correction range and mscale,
     * llama3 wavelength bounds, dynamic NTK base, LongRoPE attention
     * factor) in float32, where the official code uses Python floats. */
    int scaled_in_f32;
    honest_trig trig;
    honest_rotation rotation;
    /* 1: cos/sin come from a float32 table over positions
     * [0, max_position_embeddings), built once per frequency set; other
     * positions are declined (E_UNSUPPORTED), as a serving engine's cache
     * cannot hold them. */
    int position_cache;
} honest_formulation;

/* Defined by each variant's file. */
extern const honest_formulation honest;

/* An instance: ref's error buffer first (ref's validators write it), then
 * the variant's cos/sin cache. */
typedef struct honest_instance {
    pecert__ref_instance ref;
    struct honest_cache *cache; /* NULL until the first cached call      */
} honest_instance;

/* The float32 frequency set of one call (freqs.c). */
typedef struct honest_freqs {
    int32_t half;        /* rotary_dim / 2                                 */
    float scaling;       /* attention scaling, multiplies cos and sin      */
    float theta_scale;   /* recurrence / pow-index forms                   */
    float freq_scale;    /* 1 / factor for linear and yarn, else 1         */
    float *inv_freq;     /* [half] torch form; the others' angle at p = 1  */
    float *freq_factor;  /* [half] angle divisor (llama3, longrope), or 1  */
    float *ramp;         /* [half] yarn extrapolation weight, else 0       */
} honest_freqs;

/* honest_freqs_init resolves a checked config (ref's params.c) and fills
 * the float32 frequency set at seq_len (0 = derived from positions). On
 * failure it owns nothing. */
pecert_status honest_freqs_init(const pecert__ref_call *call, honest_freqs *f,
                                const pecert_rope_config *config, int64_t seq_len,
                                const int64_t *positions, int64_t n_positions);
void honest_freqs_free(honest_freqs *f);

/* honest_angles writes the half float32 angles of position p. */
void honest_angles(const honest_freqs *f, int64_t p, float *out_theta);

/* honest_sincos: sin and cos of a float32 angle, by the variant's trig. */
void honest_sincos(float theta, float *out_sin, float *out_cos);

/* honest_row: cos/sin (scaled) of position p into out_cos/out_sin
 * ([half] each), from the cache when the variant has one. Returns
 * E_UNSUPPORTED (with the reason in call) for a position outside it. */
pecert_status honest_row(const pecert__ref_call *call, honest_instance *self,
                         const honest_freqs *f, const pecert_rope_config *config, int64_t p,
                         float *out_cos, float *out_sin);

/* The cos/sin cache (cache.c). */
void honest_cache_free(struct honest_cache *cache);

/* Half-precision storage (half.c): round to nearest even, and widen. */
uint16_t honest_f32_to_f16(float v);
float honest_f16_to_f32(uint16_t h);
uint16_t honest_f32_to_bf16(float v);
float honest_bf16_to_f32(uint16_t h);

/* The ops (ops.c, apply.c). */
pecert_status honest_rope_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                const pecert_rope_config *config, int64_t seq_len);
pecert_status honest_rope_cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                                  const pecert_rope_config *config, int64_t seq_len,
                                  const int64_t *positions, int64_t n_positions);
pecert_status honest_rope_apply(void *instance, const pecert_rope_apply_args *args);

/* honest_rotate_pair: the rotated pair (a', b') of (a, b) by cos c and sin
 * s (the attention scaling folded in), in the variant's arithmetic for data
 * of dtype (apply.c). */
void honest_rotate_pair(pecert_dtype dtype, float a, float b, float c, float s, float *ra, float *rb);

/* The decode session in float32 (session.c). */
pecert_status honest_session_create(void *instance, void **out_session, const pecert_session_config *config);
void honest_session_destroy(void *instance, void *session);
pecert_status honest_session_append(void *instance, void *session, const pecert_session_append_args *args);
pecert_status honest_session_read_keys(void *instance, void *session, pecert_tensor *out_keys, int32_t seq);

/* T5 buckets in the official float32 arithmetic (t5.c); learned rows are
 * ref's own lookup (an exact copy is the same bits in any engine). */
pecert_status honest_t5_bucket(void *instance, const pecert_t5_bucket_args *args);
pecert_status honest_swin_index(void *instance, const pecert_swin_index_args *args);

/* Sinusoidal tables in the float32 arithmetic of torch's formulations
 * (sinusoidal.c): every variant an honest float32 engine computes. */
pecert_status honest_sinusoidal(void *instance, const pecert_sinusoidal_args *args);

/* The 2-D vision RoPE in the variant's float32 arithmetic (rope2d.c);
 * patch positions are ref's own (integers: the same in any engine). */
pecert_status honest_rope2d_apply(void *instance, const pecert_rope2d_apply_args *args);
/* The resize of a learned position grid in float32 (posinterp.c; one for all variants). */
pecert_status honest_pos_interpolate(void *instance, const pecert_posinterp_args *args);
/* CoPE's positions and logits in float32 (cope.c; one for all variants). */
pecert_status honest_cope_logits(void *instance, const pecert_cope_args *args);
/* CPVT's PEG in float32 (peg.c; one for all variants). */
pecert_status honest_peg_apply(void *instance, const pecert_peg_args *args);
/* DETR's 2-D sine embedding in torch's float32 (sine2d.c; one for all variants). */
pecert_status honest_sine2d(void *instance, const pecert_sine2d_args *args);
pecert_status honest_sincos_2d(void *instance, const pecert_sincos2d_args *args);

/* MViTv2's and SAM's decomposed relative positions in torch's float32
 * (relpos2d.c; one for all variants). */
pecert_status honest_relpos2d_bias(void *instance, const pecert_relpos2d_args *args);

/* DeBERTa's disentangled relative positions in torch's float32
 * (deberta.c; one for all variants). */
pecert_status honest_deberta_bias(void *instance, const pecert_deberta_args *args);

#pragma GCC visibility pop

#endif /* PECERT_HONEST_H */
