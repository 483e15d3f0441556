/*
 * mutant.h - the frame every mutant plugin is built on.
 *
 * A mutant is a correct engine with exactly one real-world bug put back
 * in. Every mutant is built twice (Makefile): on `ref` (double precision;
 * build/impls/mutants/) and on a float32 honest variant (impls/honest/;
 * build/impls/mutants-f32/, MUTANT_F32 = 1), because a diagnosis that only
 * works when the buggy engine is otherwise exact would fail the porters of
 * float32 engines it exists for. The core (wrap.c) loads the base, exports
 * a complete plugin, and routes each call through the hooks of the one
 * mutant_def the mutant's file defines; a NULL hook means "as the base
 * does". Keeping the bug a small edit of the base's inputs or outputs makes
 * it exactly the bug and nothing else. ("ref" below names the base.)
 */
#ifndef PECERT_MUTANT_H
#define PECERT_MUTANT_H

#include <math.h>
#include <stdint.h>

#include "pecert/plugin.h"

#ifndef MUTANT_F32
#define MUTANT_F32 0
#endif

/* The arithmetic of hand-written buggy kernels: the base's own precision,
 * so that a float32 mutant differs from its base by the bug alone. */
#if MUTANT_F32
typedef float mutant_real;
#else
typedef double mutant_real;
#endif

/* sin and cos in the mutant's precision. */
static inline void mutant_sincos(mutant_real angle, mutant_real *out_sin, mutant_real *out_cos)
{
#if MUTANT_F32
    *out_sin = sinf(angle);
    *out_cos = cosf(angle);
#else
    *out_sin = sin(angle);
    *out_cos = cos(angle);
#endif
}

/* A per-head ALiBi slope rule (h 0-based of n heads). */
typedef double (*mutant_slope_fn)(int32_t h, int32_t n, double max_bias);

typedef struct mutant_def {
    const char *name; /* file name without .c, e.g. "pairing_swapped" */

    /* Rewrite the config ref sees (a private copy). */
    void (*edit_config)(pecert_rope_config *config);
    /* Rewrite the sequence length that selects dynamic/longrope
     * frequencies. positions is NULL (n = 0) for rope_freqs. */
    int64_t (*edit_seq_len)(const pecert_rope_config *config, int64_t seq_len,
                            const int64_t *positions, int64_t n);
    /* Rewrite the position ids (a private copy). */
    void (*edit_positions)(const pecert_rope_config *config, int64_t *positions, int64_t n);
    /* Rewrite the pairing convention. */
    pecert_rope_pairing (*edit_pairing)(pecert_rope_pairing pairing);
    /* Factor applied to the attention scaling ref reports, to cos/sin and
     * to the rotated channels of apply (scaling = ref's true scaling). */
    double (*scaling_factor)(const pecert_rope_config *config, double scaling);
    /* After ref's apply: change the output further (passthrough etc.). */
    void (*post_apply)(const pecert_rope_config *config, double scaling,
                       const pecert_rope_apply_args *args);
    /* Replace apply entirely (bugs that are not an edit of ref's I/O). */
    pecert_status (*apply)(void *ref_instance, const pecert_rope_apply_args *args);
    /* Decode session: rewrite one append call's positions and padding
     * flags (private copies) before ref's session sees them. */
    void (*edit_append)(int64_t *positions, uint8_t *valid, const int32_t *seq_ids, int64_t n);
    /* ALiBi: a (buggy) slope rule; alibi_slopes and alibi_bias are computed
     * from it, so an ALiBi mutant states only its rule. */
    mutant_slope_fn alibi_slope;
    /* Other families: patch the exported descriptor (a copy of ref's with
     * the RoPE and session entries wrapped), e.g. replace alibi_slopes. */
    void (*patch)(pecert_plugin *desc);
} mutant_def;

/* Stores v at element i of a 1-D tensor of f32/f64/i32/i64. */
void mutant_store_1d(const pecert_tensor *t, int64_t i, double v);

/* The 2-D vision RoPE (plugin.h, rope2d_apply) in the base's precision,
 * with the conventions a rule breaks (core/rope2d.c). All zero = right. */
typedef struct mutant_rope2d_rule {
    int swap_axes;          /* the first half turned by the other axis      */
    int blocks_always;      /* ALTERNATE ignored: both axes on theta^(-4i/D) */
    int first_half_twice;   /* the second half reuses the first half's angles */
    int cos_repeated;       /* split-half: channel d turns by pair d/2's angle */
} mutant_rope2d_rule;
pecert_status mutant_rope2d_apply(const pecert_rope2d_apply_args *a, const mutant_rope2d_rule *rule);

/* The resize of a learned position grid (plugin.h, pos_interpolate) in
 * the base's precision, with the conventions a rule breaks
 * (core/posinterp.c). All zero = right. */
typedef struct mutant_posinterp_rule {
    int half_pixel;        /* align_corners ignored: (i + 0.5) s - 0.5     */
    int no_antialias;      /* antialias ignored: the plain taps            */
    int keys_cubic;        /* bicubic with a = -0.5 instead of A = -0.75   */
    int bicubic_always;    /* bilinear asked, bicubic done                 */
    int ignore_scale;      /* the scale_factor form taken as the size form */
    int weights_truncated; /* weights cast to an integer type              */
    int count_shortcut;    /* as many patches as the grid: table returned  */
    int axes_swapped;      /* the output's h and w exchanged, row-major    */
} mutant_posinterp_rule;
pecert_status mutant_posinterp(const pecert_posinterp_args *a, const mutant_posinterp_rule *rule);

/* CoPE's positions and logits (plugin.h, cope_logits) in the base's
 * precision, with the conventions a rule breaks (core/cope.c). All zero =
 * right. */
typedef struct mutant_cope_rule {
    int gate_unscaled;          /* sigmoid(q . gk): no 1/sqrt(d)              */
    int forward_cumsum;         /* gates summed from the first key to j       */
    int gates_unmasked;         /* the mask on the logits only, not the gates */
    int position_scale_flipped; /* z scaled by 1/sqrt(d) the other way        */
    int prefix_clamped;         /* C(P_last) - C(P_{j-1}), C the clamp        */
} mutant_cope_rule;
/* Replaces desc->cope_logits by the rule's kernel, run after the base's
 * own call has validated the arguments. */
void mutant_patch_cope(pecert_plugin *desc, const mutant_cope_rule *rule);

/* CPVT's PEG (plugin.h, peg_apply) in the base's precision, with the grid
 * read the way a rule says (core/peg.c). All zero = right. */
typedef struct mutant_peg_rule {
    int transposed_read; /* tokens transposed to [C, N], read as the grid [H, W, C] */
    int axes_swapped;   /* the grid viewed as W rows of H                          */
    int square;         /* the grid taken as sqrt(N) x sqrt(N)                     */
} mutant_peg_rule;
/* Replaces desc->peg_apply by the rule's kernel, run after the base's own
 * call has validated the arguments. */
void mutant_patch_peg(pecert_plugin *desc, const mutant_peg_rule *rule);

/* DETR's 2-D sine embedding (plugin.h, sine2d) in the base's precision,
 * with one step done the way a rule says (core/sine2d.c). All zero = right. */
typedef struct mutant_sine2d_rule {
    int mask_ignored;   /* every pixel valid: the padded map's extent       */
    int offset_swapped; /* -0.5 where the model has 0, 0 where it has -0.5  */
    int halves;         /* each axis sin | cos in halves, not interleaved   */
    int axes_swapped;   /* the columns' F channels before the rows'         */
} mutant_sine2d_rule;
/* Replaces desc->sine2d by the rule's kernel, run after the base's own
 * call has validated the arguments. */
void mutant_patch_sine2d(pecert_plugin *desc, const mutant_sine2d_rule *rule);

/* 2-D sin-cos tables (plugin.h, sincos_2d) in the base's precision, with
 * RT-DETR's rows numbered the way a rule says (core/sincos2d.c). All zero
 * = right. */
typedef struct mutant_sincos2d_rule {
    int rt_detr_row_major; /* RT-DETR's rows as the row-major patches       */
} mutant_sincos2d_rule;
/* Replaces desc->sincos_2d by the rule's kernel, run after the base's own
 * call has validated the arguments. */
void mutant_patch_sincos2d(pecert_plugin *desc, const mutant_sincos2d_rule *rule);

/* MViTv2's and SAM's decomposed relative positions (plugin.h,
 * relpos2d_bias) in the base's precision, with the tables resized the way
 * a rule says (core/relpos2d.c). All zero = right. */
typedef struct mutant_relpos2d_rule {
    int align_corners; /* src = i (L - 1) / (L' - 1)                        */
    int asymmetric;    /* src = i L / L': no half-pixel offset               */
} mutant_relpos2d_rule;
/* Replaces desc->relpos2d_bias by the rule's kernel, run after the base's
 * own call has validated the arguments. */
void mutant_patch_relpos2d(pecert_plugin *desc, const mutant_relpos2d_rule *rule);

/* DeBERTa's disentangled relative positions (plugin.h, deberta_bias) in
 * the base's precision, with the buckets or the p2c row read the way a
 * rule says (core/deberta.c). All zero = right. */
typedef struct mutant_deberta_rule {
    int p2c_sign;      /* p2c reads row clamp(-b(i - j) + span)               */
    int length_as_max; /* the log buckets spread over L, not max_position     */
    int integer_ratio; /* (max_position - 1) / mid in integer division        */
    int c2p_no_span;   /* c2p reads row clamp(b(i - j)): no + span            */
    int scale_no_sqrt; /* the terms divided by d sf, not its square root      */
} mutant_deberta_rule;
/* Replaces desc->deberta_bias by the rule's kernel, run after the base's
 * own call has validated the arguments. */
void mutant_patch_deberta(pecert_plugin *desc, const mutant_deberta_rule *rule);

/* A sinusoidal table (plugin.h, sinusoidal) read the way a rule says
 * (core/sinusoidal.c), each token's row from the base: a call of a
 * variant in `from` (bits 1u << variant) becomes the base's table of
 * variant `as`, at the row the right
 * table reads (FAIRSEQ: padding_idx + 1 + p), or at p when offset_dropped;
 * a padding token keeps its zero row. */
typedef struct mutant_sinusoidal_rule {
    uint32_t from;
    int32_t as;
    int offset_dropped;
} mutant_sinusoidal_rule;
/* Replaces desc->sinusoidal by the rule's, run after the base's own call
 * has validated the arguments. */
void mutant_patch_sinusoidal(pecert_plugin *desc, const mutant_sinusoidal_rule *rule);

/* Stores v at element (i, j) of a 2-D f32/f64 tensor. */
void mutant_store_2d(const pecert_tensor *t, int64_t i, int64_t j, double v);
/* Stores v at element (i, j) of a 2-D i64/i32 tensor. */
void mutant_store_2d_int(const pecert_tensor *t, int64_t i, int64_t j, int64_t v);

/* A Swin relative_position_index whose row offset is multiplied by
 * row_length(window_h, window_w) instead of 2 * window_w - 1
 * (core/swin.c): replaces desc->swin_index, run after the base's own. */
typedef int64_t (*mutant_swin_row_length)(int32_t window_h, int32_t window_w);
void mutant_patch_swin_index(pecert_plugin *desc, mutant_swin_row_length row_length);

/* Defined by each mutant's file. */
extern const mutant_def mutant;

/* The loaded ref plugin (NULL until the entry point ran). */
const pecert_plugin *mutant_ref(void);

/* ref's frequencies and scaling for an apply-like call: seq_len 0 is
 * derived from positions as ref does. out holds rotary_dim/2 doubles. */
pecert_status mutant_ref_freqs(void *ref_instance, double *out, double *scaling,
                               const pecert_rope_config *config, int64_t seq_len,
                               const int64_t *positions, int64_t n);

/* A rope_apply of whole rows: ref's frequencies and scaling for the call
 * (mutant_ref_freqs), then row(a, t, h, inv, scaling) for every token t and
 * head h; for a mutant whose bug is in how one row is rotated. */
typedef void (*mutant_row_fn)(const pecert_rope_apply_args *a, int64_t t, int64_t h,
                              const double *inv, double scaling);
pecert_status mutant_apply_rows(void *ref_instance, const pecert_rope_apply_args *args,
                                mutant_row_fn row);

/* Pointer to element (t, h, d) of a 3-D f32 tensor. */
static inline float *mutant_elem(const pecert_tensor *t, int64_t i0, int64_t i1, int64_t i2)
{
    return (float *)t->data + i0 * t->strides[0] + i1 * t->strides[1] + i2 * t->strides[2];
}

/* Channels of the pair i of a rotary_dim-wide slice. */
static inline void mutant_pair(pecert_rope_pairing pairing, int64_t rotary_dim, int64_t i,
                               int64_t *a, int64_t *b)
{
    *a = pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
    *b = pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + rotary_dim / 2;
}

/* A view of the channels [first, first + count) of a 3-D tensor. */
pecert_tensor mutant_channel_view(const pecert_tensor *t, int64_t first, int64_t count);

#endif /* PECERT_MUTANT_H */
