/*
 * rope_checks.h - helpers shared by the RoPE checks: one apply call,
 * its comparison under the error model, and the config grid.
 */
#ifndef PECERT_CONFORMANCE_ROPE_CHECKS_H
#define PECERT_CONFORMANCE_ROPE_CHECKS_H

#include "checks.h"

/* One rope_apply on packed [tokens, heads, head_dim] f32 data. */
typedef struct pecert_rope_call {
    const pecert_rope_config *config;
    pecert_rope_pairing pairing;
    int64_t seq_len;          /* 0 = max(positions) + 1 */
    const int64_t *positions; /* [tokens] */
    int64_t tokens;
    int64_t heads;
    int64_t head_dim;
} pecert_rope_call;

/* Elements of a packed tensor of the call. */
static inline size_t pecert_rope_call_size(const pecert_rope_call *c)
{
    return (size_t)(c->tokens * c->heads * c->head_dim);
}

/* pecert_rope_pair: the two channels rotated together as pair i of a
 * rotary_dim-wide slice. */
static inline void pecert_rope_pair(pecert_rope_pairing pairing, int64_t rotary_dim,
                                    int64_t i, int64_t *a, int64_t *b)
{
    if (pairing == PECERT_PAIRING_INTERLEAVED) {
        *a = 2 * i;
        *b = 2 * i + 1;
    } else {
        *a = i;
        *b = i + rotary_dim / 2;
    }
}

/*
 * pecert_rope_run_packed runs the subject's rope_apply out of place on
 * packed x and returns the malloc'ed output, or NULL after recording why
 * (unsupported, error status, no memory) as a case of r.
 */
float *pecert_rope_run_packed(const pecert_check_env *env, pecert_check_result *r,
                              const pecert_rope_call *call, const float *x, const char *where);

/* pecert_rope_run_both: the plugin's output (*got), then, if it gave one,
 * the oracle's (*want), both run as pecert_rope_run_packed does; 1 when
 * both are there to compare. The caller frees both (NULL is fine). */
int pecert_rope_run_both(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                         const float *x, const char *where, float **got, float **want);

/* pecert_rope_versus_oracle: one case on random input (seed): the
 * plugin's rotation against the oracle's under the error model
 * (pecert_rope_compare, up to max_points samples). */
void pecert_rope_versus_oracle(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                               uint64_t seed, size_t max_points, const char *where);

/* pecert_rope_apply_views: the subject's rope_apply of call on views x
 * and out (out may be x: in place), its status as returned. */
pecert_status pecert_rope_apply_views(const pecert_subject *s, const pecert_rope_call *call, const pecert_tensor *x,
                                      pecert_tensor *out);
/* pecert_rope_apply_packed: the same on packed x and out (pecert_tensor_rows). */
pecert_status pecert_rope_apply_packed(const pecert_subject *s, const pecert_rope_call *call, const float *x,
                                       float *out);

/* pecert_rope_worst_passthrough: channels rotary_dim..head_dim of the row
 * at base, which no rotation touches: bit-exact (bound 0). */
void pecert_rope_worst_passthrough(pecert_case_worst *w, int64_t base, int64_t rotary_dim, int64_t head_dim,
                                   const float *got, const float *want);

/* pecert_rope_run_with: pecert_rope_run_packed with an explicit subject (the oracle). */
float *pecert_rope_run_with(const pecert_subject *s, pecert_check_result *r,
                            const pecert_rope_call *call, const float *x, const char *where);

/*
 * pecert_rope_compare compares got with want element by element: rotated
 * channels under pecert_tol_rotated (angle magnitudes from the oracle's
 * frequencies), channels past rotary_dim exactly. Records one case, and up
 * to max_points per-token error samples. bound_factor widens every bound
 * (2|s| for two successive rotations, 1 otherwise).
 */
void pecert_rope_compare(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_rope_call *call, const float *x, const float *got,
                         const float *want, const char *where, size_t max_points,
                         double bound_factor);

/* pecert_rope_worst: the same comparison as pecert_rope_compare (bounds
 * widened by bound_factor), into *w, recording nothing (for testing
 * hypotheses). 0, or -1 if the oracle's frequencies are unavailable. */
int pecert_rope_worst(pecert_case_worst *w, const pecert_check_env *env, const pecert_rope_call *call,
                      const float *x, const float *got, const float *want, double bound_factor);

/* pecert_rope_explain: when a plugin's apply output got disagrees with the
 * reference, tests hypotheses against it with the oracle (positions shifted
 * by +-1/+-2, token index as position, pairing swapped, rotary_dim = head_dim,
 * attention scaling missing or doubled, rope scaling ignored) and records
 * the first one that explains got within the error model of the
 * hypothesis's own call (its pairing, rotary_dim, frequencies): a symptom
 * "hypothesis:<name>" and a detail line naming it. */
void pecert_rope_explain(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                         const float *x, const float *got, const char *where);

/* pecert_rope_recover_explain: when no hypothesis explains got, reads the
 * case as `pecert diagnose` reads a dump (dump_diagnosis.h: each token's
 * position, the pairing, the rotated channels, the frequency set,
 * recovered from x and got) and records its findings: a symptom
 * PECERT_SYMPTOM_RECOVERED "recovered:<id>" and a note line
 * "WHERE: recovered from the output: <the finding, diagnose's words>".
 * The first failing case of a check only (rope_recovered.c). */
#define PECERT_SYMPTOM_RECOVERED "recovered:"
#define PECERT_RECOVERED_NOTE "recovered from the output: "
void pecert_rope_recover_explain(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                                 const float *x, const float *got, const char *where);

/* pecert_rope_heatmap: the worst error/bound ratio over the tokens of
 * each (head, channel pair) of one apply case, under pecert_rope_compare's
 * bounds; r keeps the grid of its worst case (the report's heatmap). */
void pecert_rope_heatmap(const pecert_check_env *env, pecert_check_result *r,
                         const pecert_rope_call *call, const float *x, const float *got,
                         const float *want, const char *where);

/* pecert_rope_hypothesis: the i-th replay hypothesis of a wrong apply
 * (rope_hypotheses.c): its tag (the symptom "hypothesis:TAG"), the finding
 * diagnose.c makes of it and that finding's words; NULL past the last. */
const char *pecert_rope_hypothesis(size_t i, const char **finding, const char **bug);

/* pecert_rope_scaling_symptom: when the attention scaling got is outside
 * want's bound, the symptom saying how: "scaling:missing" (got is 1),
 * "scaling:squared" or "scaling:wrong". The golden and the certify checks
 * leave the same symptoms, so one diagnosis reads both (diagnose.c). */
void pecert_rope_scaling_symptom(pecert_check_result *r, double got, double want);

/* The distinct rope configs found in the loaded vectors (a static list,
 * built on first use; the pointers stay valid while the files live). */
size_t pecert_rope_configs(const pecert_check_env *env, const pecert_rope_config ***out);

/* A short label for a config: "yarn d=64/64 theta=10000". */
void pecert_rope_config_label(char *out, size_t len, const pecert_rope_config *c);

/* The pretraining length L0 that switches scaled RoPE's behaviour is
 * pecert_rope_l0 (vectors.h). */

/* pecert_rope_case_begin: where = "<config label> <pairing><tail>", the
 * name of one case of a config x pairing sweep, and the running case
 * (isolate.h) named so. */
void pecert_rope_case_begin(const pecert_check_env *env, char *where, size_t len, const pecert_rope_config *c,
                            pecert_rope_pairing pairing, const char *tail);

/* pecert_rope_sweep_pairings runs fn on every config of the vectors
 * (pecert_rope_configs) with split-half, then interleaved pairing, each
 * case begun and named by pecert_rope_case_begin(tail). */
typedef void (*pecert_rope_pairing_fn)(const pecert_check_env *env, pecert_check_result *r,
                                       const pecert_rope_config *config, pecert_rope_pairing pairing,
                                       const char *where);
void pecert_rope_sweep_pairings(const pecert_check_env *env, pecert_check_result *r, const char *tail,
                                pecert_rope_pairing_fn fn);

/* Fill n floats deterministically from seed. */
void pecert_fill_random(float *x, size_t n, uint64_t seed);
/* pecert_random_floats: n floats of pecert_fill_random(seed), malloc'ed;
 * NULL after recording "out of memory" as the case's failure. */
float *pecert_random_floats(pecert_check_result *r, size_t n, uint64_t seed, const char *where);

/* pecert_rope_describe_elem: "[t=..,h=..,d=..] pos=.." of flat element
 * index of a packed [tokens, heads, head_dim] call. */
void pecert_rope_describe_elem(char *out, size_t len, const pecert_rope_call *call, int64_t index);

/* ---- precision grade (precision_grade.c) ---------------------------------
 * The plugin's error against the exact oracle next to the official
 * float32 code's (the golden output) at the same element, in u of the
 * element's scale; the element where the plugin's is the largest multiple
 * of the official's is the grade (results.h, pecert_precision). */
typedef struct pecert_grade {
    double ratio;      /* error_u / official_u at index                  */
    double error_u;
    double official_u; /* floored at floor_u                             */
    int64_t index;     /* -1 until an element is graded                  */
} pecert_grade;

void pecert_grade_init(pecert_grade *g);
void pecert_grade_add(pecert_grade *g, int64_t index, double got, double official, double exact, double scale,
                      double floor_u);
/* pecert_grade_note keeps g as r's grade if it is the worst so far. */
void pecert_grade_note(pecert_check_result *r, const pecert_grade *g, const char *measure, const char *where,
                       const char *elem);
/* The grade of one rope.freq vector: got against the oracle's exact
 * frequencies, official = the golden inv_freq. */
void pecert_grade_freqs(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_config *config,
                        int64_t seq_len, const double *got, const pecert_vtensor *official, const char *where);
/* The grade of one apply call: got against the oracle's output, official
 * = the golden output (packed [tokens, heads, head_dim], as x). */
void pecert_grade_apply(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                        const float *x, const float *got, const float *official, const char *where);

/* The checks this file family defines (registry.c lists them). */
extern const pecert_check pecert_check_rope_freq_golden;
#define PECERT_ID_ROPE_FREQ_GOLDEN "rope.freq.golden"
/* Symptoms it leaves, read by diagnose.c: rope_golden.c and certify.rope.reference (certify_checks.c): a rope type's
 * frequencies off, or the attention scaling. */
#define PECERT_SYMPTOM_FREQ_OFF        "freq_off:"
#define PECERT_SYMPTOM_SCALING         "scaling:"
#define PECERT_SYMPTOM_SCALING_MISSING PECERT_SYMPTOM_SCALING "missing"
#define PECERT_SYMPTOM_SCALING_SQUARED PECERT_SYMPTOM_SCALING "squared"
#define PECERT_SYMPTOM_SCALING_WRONG   PECERT_SYMPTOM_SCALING "wrong"
extern const pecert_check pecert_check_rope_cos_sin_golden;
#define PECERT_ID_ROPE_COS_SIN_GOLDEN "rope.cos_sin.golden"
extern const pecert_check pecert_check_rope_apply_golden;
#define PECERT_ID_ROPE_APPLY_GOLDEN "rope.apply.golden"
/* Symptoms it leaves, read by diagnose.c: rope_golden.c and certify.rope.reference: a rope type's rotations off (+
 * pecert_rope_type_name); rope_hypotheses.c: the replay that explains them (+ its tag). */
#define PECERT_SYMPTOM_APPLY_OFF  "apply_off:"
#define PECERT_SYMPTOM_HYPOTHESIS "hypothesis:"
extern const pecert_check pecert_check_rope_norm_preservation;
#define PECERT_ID_ROPE_NORM_PRESERVATION "rope.norm_preservation"
extern const pecert_check pecert_check_rope_shift_invariance;
#define PECERT_ID_ROPE_SHIFT_INVARIANCE "rope.shift_invariance"
extern const pecert_check pecert_check_rope_identity_at_zero;
#define PECERT_ID_ROPE_IDENTITY_AT_ZERO "rope.identity_at_zero"
/* Symptoms it leaves, read by diagnose.c: rope_props.c. */
#define PECERT_SYMPTOM_MOVES_AT_ZERO "moves_at_position_zero"
extern const pecert_check pecert_check_rope_inverse;
#define PECERT_ID_ROPE_INVERSE "rope.inverse"
extern const pecert_check pecert_check_rope_partial_passthrough;
#define PECERT_ID_ROPE_PARTIAL_PASSTHROUGH "rope.partial_passthrough"
/* Symptoms it leaves, read by diagnose.c: rope_layout.c. */
#define PECERT_SYMPTOM_PASSTHROUGH_CHANGED "passthrough_changed"
extern const pecert_check pecert_check_rope_inplace_and_strides;
#define PECERT_ID_ROPE_INPLACE_AND_STRIDES "rope.inplace_and_strides"
/* Symptoms it leaves, read by diagnose.c: rope_layout.c. */
#define PECERT_SYMPTOM_IN_PLACE_DIFFERS "layout:in_place_differs"
#define PECERT_SYMPTOM_STRIDED_DIFFERS  "layout:strided_differs"
extern const pecert_check pecert_check_rope_boundary_lengths;
#define PECERT_ID_ROPE_BOUNDARY_LENGTHS "rope.boundary_lengths"
extern const pecert_check pecert_check_rope_pairing_convention;
#define PECERT_ID_ROPE_PAIRING_CONVENTION "rope.pairing_convention"
/* Symptoms it leaves, read by diagnose.c: rope_probe.c: the partner channel 0 rotates into. */
#define PECERT_SYMPTOM_PAIRING                          "pairing:"
#define PECERT_SYMPTOM_PAIRING_UNROTATED                PECERT_SYMPTOM_PAIRING "unrotated"
#define PECERT_SYMPTOM_PAIRING_INTERLEAVED              PECERT_SYMPTOM_PAIRING "interleaved"
#define PECERT_SYMPTOM_PAIRING_SPLIT_HALF               PECERT_SYMPTOM_PAIRING "split_half"
#define PECERT_SYMPTOM_PAIRING_SPLIT_HALF_OVER_HEAD_DIM PECERT_SYMPTOM_PAIRING "split_half_over_head_dim"
#define PECERT_SYMPTOM_PAIRING_OTHER                    PECERT_SYMPTOM_PAIRING "other"
#define PECERT_SYMPTOM_PAIRING_SIGN                     PECERT_SYMPTOM_PAIRING "sign"
extern const pecert_check pecert_check_rope_nope_layer;
#define PECERT_ID_ROPE_NOPE_LAYER "rope.nope_layer"
/* Symptoms it leaves, read by diagnose.c: rope_nope.c. */
#define PECERT_SYMPTOM_NOPE_ROTATED         "nope_rotated"
#define PECERT_SYMPTOM_NOPE_CHANGED         "nope_changed"
#define PECERT_SYMPTOM_NOPE_SESSION_ROTATED "nope_session_rotated"
extern const pecert_check pecert_check_rope_long_position_precision;
#define PECERT_ID_ROPE_LONG_POSITION_PRECISION "rope.long_position_precision"
/* Symptoms it leaves, read by diagnose.c: rope_precision.c: + the first far position that fails. */
#define PECERT_SYMPTOM_PRECISION_LOST_FROM "precision_lost_from:"
extern const pecert_check pecert_check_rope_thread_determinism;
#define PECERT_ID_ROPE_THREAD_DETERMINISM "rope.thread_determinism"
extern const pecert_check pecert_check_rope_half_precision;
#define PECERT_ID_ROPE_HALF_PRECISION "rope.half_precision"

#endif /* PECERT_CONFORMANCE_ROPE_CHECKS_H */
