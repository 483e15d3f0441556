/*
 * checks.h - what a conformance check is, and the helpers checks share.
 *
 * A check has a stable id, a one-line purpose, the ABI operations it needs
 * and a run function. The runner calls run() in a forked child, so a check
 * may call into a plugin that crashes or hangs.
 */
#ifndef PECERT_CONFORMANCE_CHECKS_H
#define PECERT_CONFORMANCE_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "pecert/plugin.h"
#include "results.h"
#include "vectors.h"

/* ABI operations a check needs (bit set). */
enum {
    PECERT_NEED_ROPE_FREQS = 1u << 0,
    PECERT_NEED_ROPE_COS_SIN = 1u << 1,
    PECERT_NEED_ROPE_APPLY = 1u << 2,
    PECERT_NEED_SESSION = 1u << 3, /* session_create/destroy/append (ABI 1.2) */
    /* The other families (ABI 1.2): one bit per descriptor field. */
    PECERT_NEED_ALIBI_SLOPES = 1u << 4,
    PECERT_NEED_ALIBI_BIAS = 1u << 5,
    PECERT_NEED_T5_BUCKET = 1u << 6,
    PECERT_NEED_SINUSOIDAL = 1u << 7,
    PECERT_NEED_LEARNED = 1u << 8,
    PECERT_NEED_SINCOS_2D = 1u << 9,
    PECERT_NEED_SWIN_INDEX = 1u << 10,
    PECERT_NEED_SHAW_INDEX = 1u << 11,
    PECERT_NEED_TXL_POS_EMB = 1u << 12,
    PECERT_NEED_TXL_REL_SHIFT = 1u << 13,
    PECERT_NEED_MROPE_INDEX = 1u << 14,
    PECERT_NEED_MROPE_APPLY = 1u << 15,
    PECERT_NEED_ROPE2D_INDEX = 1u << 16, /* ABI 1.6 */
    PECERT_NEED_ROPE2D_APPLY = 1u << 17,
    PECERT_NEED_POS_INTERPOLATE = 1u << 18, /* ABI 1.7 */
    PECERT_NEED_COPE_LOGITS = 1u << 19,     /* ABI 1.8 */
    PECERT_NEED_PEG_APPLY = 1u << 20,       /* ABI 1.9 */
    PECERT_NEED_SINE2D = 1u << 21,          /* ABI 1.11 */
    PECERT_NEED_RELPOS2D = 1u << 22,        /* ABI 1.12 */
    PECERT_NEED_DEBERTA = 1u << 23          /* ABI 1.13 */
};

/* A plugin with one live instance. */
typedef struct pecert_subject {
    const pecert_plugin *desc;
    void *instance;
    int is_oracle;   /* its refusals are the oracle's outcome, never the
                      * plugin's failure (pecert_case_status)          */
} pecert_subject;

/* Everything a check may use. */
typedef struct pecert_check_env {
    pecert_subject plugin;         /* under test                          */
    pecert_subject oracle;         /* `ref`: angle magnitudes, expectations */
    const pecert_vfile *files;     /* loaded golden vectors               */
    size_t n_files;
    struct pecert_case_slot *case_slot; /* names the running case (isolate.h) */
    /* certify's checks: the checkpoint they run at (certify_config.h);
     * NULL in `pecert run`, whose checks need none. */
    const struct pecert_certify_model *certify_model;
    /* The output views the check hands the plugin: packed, or (the second
     * pass of pecert_for_each_golden, family.h) every stride wider. */
    int strided_outputs;
} pecert_check_env;

/*
 * A check's id is a named constant declared once, beside the check's own
 * declaration (PECERT_ID_ROPE_APPLY_GOLDEN next to
 * pecert_check_rope_apply_golden in rope_checks.h), and so is every symptom
 * tag the diagnosis reads (PECERT_SYMPTOM_*, beside the check that leaves
 * it): the check writes it and diagnose.c reads it through the one name, so
 * a typo on either side is a compile error, not a diagnosis silently lost.
 */
typedef struct pecert_check {
    const char *id;        /* stable: its PECERT_ID_* constant          */
    const char *purpose;   /* one line                                     */
    uint32_t needs;        /* PECERT_NEED_* of the plugin under test       */
    void (*run)(const pecert_check_env *env, pecert_check_result *result);
} pecert_check;

/* The registry (conformance/registry.c), in run order. */
extern const pecert_check *const pecert_checks[];
extern const size_t pecert_num_checks;

/* pecert_check_find: the check with this id, or NULL. */
const pecert_check *pecert_check_find(const char *id);

/* pecert_check_reads: 1 if the check reads the tensors of op's vectors
 * (those of its own family: rope.* checks read rope.freq, rope.apply and
 * rope.cos_sin; the session checks none). A run loads the payloads of the
 * ops its checks read (pecert_vfile_load_for), and a check that reads
 * another aborts its child: the declaration here cannot drop cases
 * unseen. */
int pecert_check_reads(const pecert_check *check, const char *op);

/* 1 if the plugin implements every op in needs. */
int pecert_plugin_meets(const pecert_plugin *desc, uint32_t needs);

/* ---- case bookkeeping -------------------------------------------------- */

/* The worst element of one case: |got - want| / bound, maximised. */
typedef struct pecert_case_worst {
    double ratio;      /* worst err/bound; +inf for NaN or a wrong bit      */
    double got;
    double want;
    double err;
    double bound;
    int64_t index;     /* flat element index, -1 if none                    */
    int64_t n_bad;     /* elements outside their bound                      */
    int64_t n_checked; /* elements compared                                 */
} pecert_case_worst;

void pecert_case_worst_init(pecert_case_worst *w);
/* The ratio of an element where got or want is a NaN or an infinity: +inf
 * where the two disagree on it, 0 where they agree. */
double pecert_case_nonfinite_ratio(double got, double want);
/* pecert_case_worst_add compares one element against its bound. Inline:
 * every check compares each element of each case through it (a tenth of
 * a mutant run's time went to the call). */
static inline void pecert_case_worst_add(pecert_case_worst *w, int64_t index, double got, double want,
                                         double bound)
{
    double err = __builtin_fabs(got - want);
    double ratio;
    if (__builtin_isfinite(got) && __builtin_isfinite(want)) {
        ratio = bound > 0 ? err / bound : (err == 0 ? 0.0 : __builtin_inf());
    } else {
        ratio = pecert_case_nonfinite_ratio(got, want);
    }
    w->n_checked++;
    if (ratio > 1.0) {
        w->n_bad++;
    }
    if (ratio > w->ratio || w->index < 0) {
        *w = (pecert_case_worst){ratio, got, want, err, bound, index, w->n_bad, w->n_checked};
    }
}
/* pecert_case_worst_holds: 1 if w compared something and every element lay
 * within its bound: how a replay (the oracle, or a model, asked with one
 * convention changed) is judged to reproduce the plugin's output. */
int pecert_case_worst_holds(const pecert_case_worst *w);
/* pecert_case_worst_symptom: a property case that failed (w has elements
 * outside their bound) leaves the symptom tag. */
void pecert_case_worst_symptom(pecert_check_result *r, const pecert_case_worst *w, const char *tag);
/* pecert_case_worst_add_pair: both channels a and b of one rotated pair
 * of the row at base, under the pair's one bound. */
void pecert_case_worst_add_pair(pecert_case_worst *w, int64_t base, int64_t a, int64_t b, const float *got,
                                const float *want, double bound);

/*
 * pecert_case_finish records a finished case into the result: counts it,
 * keeps the worst ratio, and on failure adds a detail line
 * "<where> <what>[elem]: want .. got .. err .. > tol .." (the element is
 * described by elem_fmt, e.g. "[t=3,h=1,d=5]").
 */
void pecert_case_finish(pecert_check_result *r, const pecert_case_worst *w,
                        const char *where, const char *elem_desc);
/* pecert_case_finish_at: pecert_case_finish for a case whose worst element
 * has a position id (a rotation's), recorded as data beside its words. */
void pecert_case_finish_at(pecert_check_result *r, const pecert_case_worst *w, const char *where,
                           const char *elem_desc, int64_t position);

/* pecert_case_status records a case whose plugin call did not return OK:
 * unsupported is counted as such, anything else is a failure citing the
 * plugin's last_error. Returns 1 if status was OK (the case goes on). */
int pecert_case_status(pecert_check_result *r, const pecert_subject *s,
                       pecert_status status, const char *where, const char *op);

/* pecert_case_passed records a case that held (a property, an exact
 * answer): counted, and kept with what it held when the run keeps every
 * case (--verbose). */
void pecert_case_passed(pecert_check_result *r, const char *where, const char *what);

/* pecert_case_fail records a failed case with a free-form detail line. */
void pecert_case_fail(pecert_check_result *r, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* pecert_check_engine_violation: the engine wrote outside its outputs
 * during the check (engine.h, pecert_engine_violation: into an input, past
 * an output, between a strided output's elements). The check fails with
 * that line as its diagnosis, whatever its cases concluded: a result
 * computed next to such a write proves nothing. */
void pecert_check_engine_violation(pecert_check_result *r, const char *line);
#define PECERT_SYMPTOM_ENGINE_WROTE_OUTSIDE "engine:wrote-outside-outputs"

/* pecert_check_conclude sets verdict and diagnosis from the counts. */
void pecert_check_conclude(pecert_check_result *r, const char *what);

/* ---- data helpers ------------------------------------------------------ */

/* A deterministic generator for test inputs (splitmix64). */
typedef struct pecert_rng {
    uint64_t state;
} pecert_rng;
/* Uniform float in [-1, 1). */
float pecert_rng_float(pecert_rng *rng);

/* pecert_tensor_3d describes a packed-or-strided f32 [n0, n1, n2] view. */
pecert_tensor pecert_tensor_3d(float *data, int64_t n0, int64_t n1, int64_t n2,
                               int64_t s0, int64_t s1, int64_t s2);
pecert_tensor pecert_tensor_2d(void *data, pecert_dtype dtype, int64_t n0, int64_t n1);
/* pecert_tensor_rows: the packed f32 [tokens, heads, head_dim] view every
 * rotation takes and gives. data is const for an input: the ABI's tensor
 * has one pointer type for both, and a plugin never writes its x. */
pecert_tensor pecert_tensor_rows(const float *data, int64_t tokens, int64_t heads, int64_t head_dim);

/* The views of one rotation call on packed [tokens, heads, head_dim]
 * rows: the caller's x, and out over fresh floats (data, the caller's to
 * free) all NaN, so an element the plugin forgets to write shows up. */
typedef struct pecert_rows_call {
    float *data;
    pecert_tensor x;
    pecert_tensor out;
} pecert_rows_call;
/* pecert_rows_open: 1 when io is ready, else 0 after recording "out of
 * memory" as the case's failure. */
int pecert_rows_open(pecert_rows_call *io, pecert_check_result *r, const float *x, int64_t tokens, int64_t heads,
                     int64_t head_dim, const char *where);
/* pecert_floats_kept: out when the call's status lets the case go on
 * (pecert_case_status), else NULL with out freed: what a run that hands
 * back its output returns. */
float *pecert_floats_kept(pecert_check_result *r, const pecert_subject *s, pecert_status st, float *out,
                          const char *where, const char *op);

/* Reads element i of a packed f32/f64/i64 vector tensor as double. */
double pecert_vtensor_get(const pecert_vtensor *t, int64_t i);

/* pecert_oracle_inv_freq: the oracle's inverse frequencies (rotary_dim/2
 * doubles into out) and scaling at seq_len. Returns the oracle's status. */
pecert_status pecert_oracle_inv_freq(const pecert_check_env *env, double *out,
                                     double *scaling, const pecert_rope_config *cfg,
                                     int64_t seq_len);

/* pecert_oracle_freqs: the oracle's frequencies for one case into out
 * (NULL: its buffer could not be allocated). 1 when they are there; else
 * 0 after recording why in r: out of memory as the case's failure, the
 * oracle's refusal (a config ref rejects) as its own outcome with ref's
 * message, never the plugin's failure (pecert_case_status). */
int pecert_oracle_freqs(const pecert_check_env *env, pecert_check_result *r, const char *where, double *out,
                        double *scaling, const pecert_rope_config *cfg, int64_t seq_len);

/* pecert_oracle_alibi_slopes: the oracle's n ALiBi slopes (doubles) into
 * out. Returns the oracle's status (E_UNSUPPORTED if it has no such op). */
pecert_status pecert_oracle_alibi_slopes(const pecert_check_env *env, int32_t n, double max_bias, double *out);

/*
 * A sweep's far positions, held to the plugin's declared max_position
 * (plugin.h, pecert_scope) position by position rather than the whole call
 * refused: an engine with a cos/sin cache of 2^22 rows keeps every check it
 * can take, certified up to its scope. Either helper leaves the symptom
 * PECERT_SYMPTOM_SCOPED_POSITIONS "scope:max_position:M" on r when it
 * changed anything, which the certificate reads as "certified up to M".
 * pecert_scope_trim drops those positions (order kept) and returns the new
 * count; pecert_scope_fold, for arrays sized by their token count, puts
 * M, M-1, ... in their place and returns how many it replaced. Both do
 * nothing for a plugin that declares no max_position.
 */
#define PECERT_SYMPTOM_SCOPED_POSITIONS "scope:max_position:"
int64_t pecert_scope_trim(const pecert_check_env *env, pecert_check_result *r, int64_t *pos, int64_t n);
int64_t pecert_scope_fold(const pecert_check_env *env, pecert_check_result *r, int64_t *pos, int64_t n);

/* pecert_scope_excludes: 1, with the reason in why, when a case lies
 * outside the declared scope (plugin.h, pecert_scope) of subject s: a
 * position past max_position, a partial head (cfg's rotary_dim <
 * head_dim) for a whole-heads-only plugin, or a data dtype (0: none) it
 * does not list. 0 for the oracle and for plugins that declare nothing. */
int pecert_scope_excludes(const pecert_subject *s, const pecert_rope_config *cfg, const int64_t *positions,
                          int64_t n, pecert_dtype dtype, char *why, size_t why_len);

/* pecert_case_beyond_scope: a case the plugin's declared scope excludes,
 * not run: counted as not supported, the first reason kept for the
 * diagnosis ("beyond the plugin's declared scope: ..."). */
void pecert_case_beyond_scope(pecert_check_result *r, const char *why);

/* pecert_plugin_speaks: 1 if desc is of this ABI major and at least this
 * minor (a field appended in that minor means something to it). */
int pecert_plugin_speaks(const pecert_plugin *desc, uint32_t minor);

/* pecert_case_needs_abi: a case not asked of subject s because what it
 * needs (what) came in ABI minor, past the plugin's: not supported. */
void pecert_case_needs_abi(pecert_check_result *r, const pecert_subject *s, const char *where, const char *what,
                           uint32_t minor);

/* pecert_case_declined: a case the subject declined (PECERT_E_UNSUPPORTED,
 * counted in n_unsupported, never failed); the first one's where, op and
 * last_error are kept in r->declined. */
void pecert_case_declined(pecert_check_result *r, const pecert_subject *s, const char *where, const char *op);

/* pecert_scope_guard_install: in a check's child, route s's RoPE calls
 * through guards that refuse (E_UNSUPPORTED) what lies outside the
 * plugin's declared scope (scope_guard.c); no-op for the oracle and for
 * plugins that declare nothing. pecert_scope_guard_take: why the last
 * call was refused by a guard (and forget it), or NULL. */
void pecert_scope_guard_install(pecert_subject *s);
const char *pecert_scope_guard_take(void);

/* Effective seq_len of an apply: explicit, else max(positions)+1. */
int64_t pecert_effective_seq_len(int64_t seq_len, const int64_t *positions, int64_t n);

/* Formats a float with its bits: "0x3f800000 (1)". */
void pecert_format_f32(char *out, size_t out_len, double v);

/* pecert_values_nonfinite: 1 when any of v[0..n) is NaN or infinite. A
 * check that reads what a failure looks like (which rope type is off, a
 * rotation at position 0) reads nothing from such an output: the NaN is
 * its own finding (PECERT_SYMPTOM_NONFINITE), not a moved rotation. */
int pecert_values_nonfinite(const float *v, size_t n);

#endif /* PECERT_CONFORMANCE_CHECKS_H */
