/*
 * dump_diagnosis.c - hypotheses, recovery and findings for a RoPE dump
 * (dump_diagnosis.h).
 */
#include "dump_diagnosis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rope_checks.h"

/* rope_theta values a port falls back to or copies from a sibling model:
 * Llama 2's and most defaults, Llama 3's, Qwen's, Gemma 3 / Qwen3-Next's. */
static const double common_thetas[] = {10000.0, 100000.0, 500000.0, 1000000.0, 5000000.0, 10000000.0};
#define N_COMMON_THETAS (sizeof(common_thetas) / sizeof(common_thetas[0]))

static void finding(pecert_dump_report *r, const char *id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void finding(pecert_dump_report *r, const char *id, const char *fmt, ...)
{
    if (r->n_findings == PECERT_DUMP_MAX_FINDINGS) {
        return;
    }
    pecert_dump_finding *f = &r->findings[r->n_findings++];
    snprintf(f->id, sizeof(f->id), "%s", id);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof(f->text), fmt, ap);
    va_end(ap);
}

static const char *pairing_words(pecert_rope_pairing p)
{
    return p == PECERT_PAIRING_INTERLEAVED ? "interleaved (2i, 2i+1)" : "split-half (i, i + rotary_dim/2)";
}

/* ---- hypotheses ---------------------------------------------------------- */

static void add_hypothesis(pecert_dump_report *r, const pecert_rope_config *rope, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_hypothesis(pecert_dump_report *r, const pecert_rope_config *rope, const char *fmt, ...)
{
    if (r->n_hypotheses == PECERT_DUMP_MAX_HYPOTHESES) {
        return;
    }
    pecert_dump_hypothesis *h = &r->hypotheses[r->n_hypotheses++];
    memset(h, 0, sizeof(*h));
    h->rope = *rope;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->label, sizeof(h->label), fmt, ap);
    va_end(ap);
}

/* The config's rope with its rotary width set to what was rotated (a
 * rotary_dim bug rotates other channels with other frequencies). */
static pecert_rope_config rotated_config(const pecert_certify_model *m, int32_t width)
{
    pecert_rope_config c = m->rope;
    c.layer_kind = PECERT_LAYER_ROPE;
    if (width >= 2 && width % 2 == 0 && width <= c.head_dim && width != c.rotary_dim) {
        c.rotary_dim = width;
    }
    return c;
}

/* The bugs of the config's own scaling, each as the frequencies it gives
 * (impls/mutants/ holds one engine of each). */
static void add_scaling_bugs(pecert_dump_report *r, const pecert_rope_config *cfg, int64_t tokens)
{
    pecert_rope_config c = *cfg;
    switch (cfg->rope_type) {
    case PECERT_ROPE_LINEAR:
        c.factor = 1.0 / cfg->factor;
        add_hypothesis(r, &c, "linear factor=%g (the config's %g applied inverted)", c.factor, cfg->factor);
        break;
    case PECERT_ROPE_DYNAMIC:
        add_hypothesis(r, &c, "dynamic at length %lld (factor x max_position_embeddings: scaled statically)",
                       (long long)(cfg->factor * (double)cfg->max_position_embeddings));
        r->hypotheses[r->n_hypotheses - 1].seq_len = (int64_t)(cfg->factor * (double)cfg->max_position_embeddings);
        add_hypothesis(r, &c, "dynamic at length %lld (the call's token count, not max(position)+1)",
                       (long long)tokens);
        r->hypotheses[r->n_hypotheses - 1].seq_len = tokens;
        break;
    case PECERT_ROPE_LONGROPE:
        add_hypothesis(r, &c, "longrope short factors (at every length)");
        r->hypotheses[r->n_hypotheses - 1].seq_len = 1;
        add_hypothesis(r, &c, "longrope long factors (at every length)");
        r->hypotheses[r->n_hypotheses - 1].seq_len = pecert_rope_l0(cfg) + 1;
        break;
    case PECERT_ROPE_YARN:
        if ((cfg->present & (PECERT_ROPE_HAS_BETA_FAST | PECERT_ROPE_HAS_BETA_SLOW)) &&
            (cfg->beta_fast != 32.0 || cfg->beta_slow != 1.0)) {
            c.present &= ~(uint32_t)(PECERT_ROPE_HAS_BETA_FAST | PECERT_ROPE_HAS_BETA_SLOW);
            add_hypothesis(r, &c, "yarn with beta_fast 32, beta_slow 1 (the config's betas not read)");
            c = *cfg;
        }
        c.present |= PECERT_ROPE_HAS_TRUNCATE;
        c.truncate = !((cfg->present & PECERT_ROPE_HAS_TRUNCATE) ? cfg->truncate : 1);
        add_hypothesis(r, &c, "yarn with truncate %s (the config's %s not read)", c.truncate ? "true" : "false",
                       c.truncate ? "truncate: false" : "default truncate");
        break;
    default:
        break;
    }
}

static void build_hypotheses(pecert_dump_report *r, const pecert_certify_model *m, int32_t width, int64_t tokens)
{
    pecert_rope_config cfg = rotated_config(m, width);
    add_hypothesis(r, &cfg, "%s theta=%g", pecert_rope_type_name(cfg.rope_type), cfg.rope_theta);
    add_scaling_bugs(r, &cfg, tokens);
    pecert_rope_config plain = cfg;
    plain.rope_type = PECERT_ROPE_DEFAULT;
    plain.present = 0;
    plain.num_factors = 0;
    plain.short_factor = plain.long_factor = NULL;
    if (cfg.rope_type != PECERT_ROPE_DEFAULT) {
        add_hypothesis(r, &plain, "default theta=%g (rope_scaling left out)", cfg.rope_theta);
    }
    for (size_t i = 0; i < N_COMMON_THETAS; i++) {
        if (common_thetas[i] == cfg.rope_theta) {
            continue;
        }
        pecert_rope_config t = cfg;
        t.rope_theta = common_thetas[i];
        add_hypothesis(r, &t, "%s theta=%g", pecert_rope_type_name(cfg.rope_type), common_thetas[i]);
        if (cfg.rope_type != PECERT_ROPE_DEFAULT) {
            plain.rope_theta = common_thetas[i];
            add_hypothesis(r, &plain, "default theta=%g", common_thetas[i]);
        }
    }
}

/* ---- rope_theta fitted to the angles --------------------------------------- */

/* Angles below this are too close to the dump's rounding for their
 * logarithm to be measured (float32: 1e-7 rad absolute, 1e-4 relative);
 * at 1 rad and above an angle may have wrapped. */
#define FIT_MIN_ANGLE 1e-3
#define FIT_MAX_ANGLE 1.0
#define FIT_MIN_PAIRS 4

/* One token's theta: under default RoPE omega_i = theta^(-2i/w), so the
 * pairs whose angles have not wrapped yet lie on the line
 * log|phi_i| = log p - (2i/w) log theta, whatever p is. Those pairs are
 * the lowest frequencies: taken from the lowest up while the angle grows
 * and stays below 1 rad, fitted by least squares. NaN when too few. */
static double fit_token_theta(const double *phi, const double *weight, int32_t n_pairs, int32_t width)
{
    double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
    int32_t n = 0;
    double previous = 0.0;
    for (int32_t i = n_pairs - 1; i >= 0; i--) {
        double mag = fabs(phi[i]);
        if (weight[i] <= 0.0 || mag < FIT_MIN_ANGLE) {
            continue;
        }
        if (mag >= FIT_MAX_ANGLE || mag < previous) {
            break;
        }
        previous = mag;
        double x = (double)i;
        double y = log(mag);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        n++;
    }
    double den = (double)n * sxx - sx * sx;
    if (n < FIT_MIN_PAIRS || den <= 0.0) {
        return NAN;
    }
    double slope = ((double)n * sxy - sx * sy) / den;
    double theta = exp(-slope * (double)width / 2.0);
    return isfinite(theta) && theta > 1.0 ? theta : NAN;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the tokens' fitted thetas, or NaN. */
static double fit_theta(const double *phi, const double *weight, int64_t n_tokens, int32_t n_pairs)
{
    double *fits = malloc(((size_t)n_tokens + 1) * sizeof(double));
    int64_t n = 0;
    for (int64_t t = 0; fits != NULL && t < n_tokens; t++) {
        double theta = fit_token_theta(phi + t * n_pairs, weight + t * n_pairs, n_pairs, 2 * n_pairs);
        if (!isnan(theta)) {
            fits[n++] = theta;
        }
    }
    double median = NAN;
    if (n > 0) {
        qsort(fits, (size_t)n, sizeof(double), compare_doubles);
        median = fits[n / 2];
    }
    free(fits);
    return median;
}

/* x to `digits` significant decimal digits: a config's rope_theta is a
 * round number, the fit is within about 1e-5 of it. */
static double round_significant(double x, int digits)
{
    double unit = pow(10.0, floor(log10(x)) - (digits - 1));
    return nearbyint(x / unit) * unit;
}

/* Default RoPE (and the config's rope type) at the fitted theta, to 3 and
 * to 6 significant digits; returns how many were added. */
static int add_fitted_hypotheses(pecert_dump_report *r, const pecert_certify_model *m, int32_t width, double theta)
{
    pecert_rope_config plain = rotated_config(m, width);
    pecert_rope_type type = plain.rope_type;
    plain.rope_type = PECERT_ROPE_DEFAULT;
    plain.present = 0;
    plain.num_factors = 0;
    plain.short_factor = plain.long_factor = NULL;
    int added = 0;
    static const int digits[] = {3, 6};
    for (size_t k = 0; k < sizeof(digits) / sizeof(digits[0]); k++) {
        double t = round_significant(theta, digits[k]);
        if (k > 0 && t == round_significant(theta, digits[0])) {
            break;
        }
        plain.rope_theta = t;
        int before = r->n_hypotheses;
        add_hypothesis(r, &plain, "default theta=%.9g (fitted to the angles)", t);
        if (type != PECERT_ROPE_DEFAULT) {
            pecert_rope_config typed = rotated_config(m, width);
            typed.rope_theta = t;
            add_hypothesis(r, &typed, "%s theta=%.9g (fitted to the angles)", pecert_rope_type_name(type), t);
        }
        added += r->n_hypotheses - before;
    }
    return added;
}

/* ---- recovery under one hypothesis --------------------------------------- */

typedef struct angle_table {
    double *phi;       /* [n_tokens][n_pairs] */
    double *weight;
    int32_t n_pairs;
} angle_table;

static int64_t seq_len_of(const int64_t *positions, int64_t n)
{
    int64_t top = -1;
    for (int64_t i = 0; positions != NULL && i < n; i++) {
        top = positions[i] > top ? positions[i] : top;
    }
    return top + 1 > 0 ? top + 1 : 0;
}

/* The oracle's frequencies of h (0 on success); the oracle may refuse a
 * hypothesis (a LongRoPE list that does not fit another width). */
static int hypothesis_freqs(const pecert_loaded_plugin *oracle, void *inst, const pecert_rope_config *cfg,
                            int64_t seq_len, double *omega, double *scaling)
{
    return oracle->desc->rope_freqs(inst, omega, scaling, cfg, seq_len) == PECERT_OK ? 0 : -1;
}

static void score_hypothesis(pecert_dump_hypothesis *h, const angle_table *a, const double *omega,
                             const pecert_dump_view *v, const int64_t *positions, pecert_recovered_position *tokens)
{
    h->explained = h->matched = 0;
    h->worst_residual = 0.0;
    for (int64_t t = 0; t < v->n_tokens; t++) {
        double start = positions != NULL ? (double)positions[t] : NAN;
        pecert_recovered_position *p = &tokens[t];
        pecert_recover_position(a->phi + t * a->n_pairs, a->weight + t * a->n_pairs, omega, a->n_pairs, start,
                                v->eps, p);
        if (p->integer) {
            h->explained++;
            h->worst_residual = fmax(h->worst_residual, p->residual);
            h->matched += positions != NULL && p->nearest == positions[t];
        }
    }
}

static int better(const pecert_dump_hypothesis *a, const pecert_dump_hypothesis *b)
{
    if (a->matched != b->matched) {
        return a->matched > b->matched;
    }
    if (a->explained != b->explained) {
        return a->explained > b->explained;
    }
    return a->worst_residual < b->worst_residual;
}

/* Every hypothesis scored; r->tokens left at the best one's recovery. */
static int run_hypotheses(pecert_dump_report *r, const pecert_loaded_plugin *oracle, const angle_table *a,
                          const pecert_dump_view *v, const int64_t *positions, char *err, size_t err_len)
{
    void *inst = NULL;
    int have_inst = 0;
    double *omega = malloc((size_t)(a->n_pairs + 1) * sizeof(double));
    pecert_recovered_position *scratch = calloc((size_t)v->n_tokens + 1, sizeof(*scratch));
    int rc = -1;
    if (omega == NULL || scratch == NULL || !(have_inst = pecert_plugin_instance(oracle->desc, &inst) == PECERT_OK)) {
        snprintf(err, err_len, "diagnose: %s", omega == NULL || scratch == NULL ? "out of memory"
                                                                                 : "the oracle cannot create an instance");
        goto out;
    }
    int64_t seq_len = positions != NULL ? seq_len_of(positions, v->n_tokens) : r->implied_seq_len;
    r->best = -1;
    for (int32_t i = 0; i < r->n_hypotheses; i++) {
        pecert_dump_hypothesis *h = &r->hypotheses[i];
        double scaling = 1.0;
        if (hypothesis_freqs(oracle, inst, &h->rope, h->seq_len > 0 ? h->seq_len : seq_len, omega, &scaling) != 0) {
            h->explained = h->matched = -1; /* not a frequency set this width has */
            continue;
        }
        if (i == 0) {
            r->expected_factor = scaling;
        }
        score_hypothesis(h, a, omega, v, positions, scratch);
        if (r->best < 0 || better(h, &r->hypotheses[r->best])) {
            r->best = i;
            memcpy(r->tokens, scratch, (size_t)v->n_tokens * sizeof(*scratch));
        }
    }
    if (r->best < 0) {
        snprintf(err, err_len, "diagnose: the oracle refuses the config's rope (%s)",
                 oracle->desc->last_error(inst));
        goto out;
    }
    rc = 0;
out:
    if (have_inst) {
        pecert_plugin_release(oracle->desc, inst);
    }
    free(omega);
    free(scratch);
    return rc;
}

/* Without positions the sequence length a scaling depends on (dynamic
 * NTK, LongRoPE past original_max_position_embeddings) is not known: the
 * first pass evaluates at length 0; when the best set put tokens on
 * integer positions, the config is tried again at the length they imply
 * (the largest + 1), and that pass is kept. */
static int rerun_at_recovered_length(pecert_dump_report *r, const pecert_loaded_plugin *oracle, const angle_table *a,
                                     const pecert_dump_view *v, char *err, size_t err_len)
{
    int64_t top = -1;
    for (int64_t t = 0; t < v->n_tokens; t++) {
        if (r->tokens[t].integer && r->tokens[t].nearest > top) {
            top = r->tokens[t].nearest;
        }
    }
    if (top < 1) {
        return 0;
    }
    r->implied_seq_len = top + 1;
    return run_hypotheses(r, oracle, a, v, NULL, err, err_len);
}

/* ---- findings ------------------------------------------------------------ */

static void find_rotary_dim(pecert_dump_report *r, const pecert_certify_model *m)
{
    int32_t rot = m->rope.rotary_dim;
    if (r->rotated_hi == 0) {
        finding(r, "no_rotation", "no channel changed: nothing was rotated (a NoPE layer, a dump taken before RoPE, "
                "or every token at position 0)");
    } else if (r->rotated_lo != 0 || r->rotated_hi - r->rotated_lo != rot) {
        finding(r, "rotary_dim", "channels %d..%d were rotated; rotary_dim is %d (the config rotates 0..%d of "
                "head_dim %d)", (int)r->rotated_lo, (int)r->rotated_hi - 1, (int)rot, (int)rot - 1,
                (int)m->rope.head_dim);
    }
}

static void find_pairing(pecert_dump_report *r, const pecert_certify_model *m)
{
    if (r->rotated_hi == 0) {
        return;
    }
    if (!r->pairing_found) {
        finding(r, "pairing", "no pairing rotates the channels rigidly (norm ratios spread %.3g split-half, %.3g "
                "interleaved): not a RoPE rotation of the dumped tensor", r->spread[0], r->spread[1]);
    } else if (r->pairing != m->pairing) {
        finding(r, "pairing", "pairs %s rotate together: %s; the config's model uses %s",
                r->pairing == PECERT_PAIRING_INTERLEAVED ? "(2i, 2i+1)" : "(i, i + rotary_dim/2)",
                r->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split-half", pairing_words(m->pairing));
    }
}

static void find_attention_factor(pecert_dump_report *r, const pecert_dump_view *v)
{
    double tol = 16.0 * v->eps + 64.0 / 16777216.0;
    if (r->rotated_hi == 0 || !r->pairing_found || fabs(r->attention_factor / r->expected_factor - 1.0) <= tol) {
        return;
    }
    finding(r, "attention_factor", "the rotated channels are scaled by %.9g; the config's attention factor is %.9g "
            "(ratio %.6g)", r->attention_factor, r->expected_factor, r->attention_factor / r->expected_factor);
}

/* Tokens no frequency set puts on an integer position (position 0 is the
 * identity under every one, so "explained" alone proves little). */
static int64_t moved_explained(const pecert_dump_report *r, int64_t n)
{
    int64_t k = 0;
    for (int64_t t = 0; t < n; t++) {
        k += r->tokens[t].integer && r->tokens[t].nearest != 0;
    }
    return k;
}

static void find_frequencies(pecert_dump_report *r, const int64_t *positions, int64_t n)
{
    const pecert_dump_hypothesis *cfg = &r->hypotheses[0];
    const pecert_dump_hypothesis *best = &r->hypotheses[r->best];
    int64_t unexplained = n - best->explained;
    if (r->reversed) {
        finding(r, "rotation_reversed", "every pair is rotated by minus its angle (sin's sign flipped: the inverse "
                "rotation): the angles are -p * omega of %s for the given positions", best->label);
    } else if (r->half_angles != NULL) {
        finding(r, "precision", "the angles are the config's at the given positions only to %s precision (each "
                "pair within %s rounding of p * omega, not within float32's): the angle p * inv_freq is computed "
                "in %s; compute it in float32 (transformers autocasts it off for this reason)", r->half_angles,
                r->half_angles, r->half_angles);
    } else if (best->explained <= 0 || moved_explained(r, n) == 0) {
        finding(r, "frequencies", "the angles fit none of the %d frequency sets tried (the config's, other "
                "rope_theta values%s, rope_scaling left out): no token lands on an integer position",
                (int)r->n_hypotheses, isnan(r->fitted_theta) ? "" : ", a rope_theta fitted to the angles");
    } else if (r->best != 0 && positions != NULL) {
        finding(r, "frequencies", "angles match %s (%lld of %lld tokens at their given positions); the config says "
                "%s (%lld of %lld)", best->label, (long long)best->matched, (long long)n, cfg->label,
                (long long)(cfg->matched > 0 ? cfg->matched : 0), (long long)n);
    } else if (r->best != 0) {
        finding(r, "frequencies", "angles match %s (%lld of %lld tokens at integer positions); the config says %s "
                "(%lld of %lld)", best->label, (long long)best->explained, (long long)n, cfg->label,
                (long long)(cfg->explained > 0 ? cfg->explained : 0), (long long)n);
    } else if (unexplained > 0) {
        int64_t first = 0;
        while (first < n && r->tokens[first].integer) {
            first++;
        }
        finding(r, "frequencies", "%lld of %lld tokens land on no integer position under any frequency set tried "
                "(first: token %lld, residual %.3g of its bound): angles computed with less precision, or by "
                "another formula", (long long)unexplained, (long long)n, (long long)first, r->tokens[first].residual);
    }
}

/* p rounded to `bits` significant bits, to nearest even (float16: 11,
 * bfloat16: 8): the position a half-precision position id holds. */
static int64_t round_to_bits(int64_t p, int bits)
{
    if (p <= 0) {
        return p;
    }
    int e = ilogb((double)p);
    if (e < bits) {
        return p;
    }
    double unit = ldexp(1.0, e - (bits - 1));
    return (int64_t)(nearbyint((double)p / unit) * unit);
}

/* What every wrong token has in common: the given positions rounded to
 * float16 or bfloat16, or one position they are all clamped to. */
static const char *wrong_pattern(const pecert_dump_report *r, const int64_t *positions, int64_t n, int64_t *clamp)
{
    int fp16 = 1;
    int bf16 = 1;
    int clamped = 1;
    *clamp = -1;
    for (int64_t t = 0; t < n; t++) {
        const pecert_recovered_position *p = &r->tokens[t];
        if (!p->integer || p->nearest == positions[t]) {
            continue;
        }
        fp16 &= p->nearest == round_to_bits(positions[t], 11);
        bf16 &= p->nearest == round_to_bits(positions[t], 8);
        clamped &= (*clamp < 0 || p->nearest == *clamp) && positions[t] > p->nearest;
        *clamp = p->nearest;
    }
    return fp16 ? "float16" : bf16 ? "bfloat16" : clamped ? "clamped" : NULL;
}

/* Tokens rotated for other positions than given, in words: one constant
 * offset from a token on (the decode off-by-one), positions held in half
 * precision or clamped, or a count. */
static void find_positions(pecert_dump_report *r, const int64_t *positions, int64_t n)
{
    int64_t first = -1;
    int64_t wrong = 0;
    int64_t offset = 0;
    int same_offset = 1;
    for (int64_t t = 0; positions != NULL && t < n; t++) {
        const pecert_recovered_position *p = &r->tokens[t];
        if (!p->integer || p->nearest == positions[t]) {
            continue;
        }
        int64_t d = p->nearest - positions[t];
        if (first < 0) {
            first = t;
            offset = d;
        }
        same_offset &= d == offset;
        wrong++;
    }
    if (first < 0) {
        return;
    }
    const pecert_recovered_position *p = &r->tokens[first];
    int suffix = same_offset && wrong == n - first;
    int64_t clamp = -1;
    const char *pattern = same_offset ? NULL : wrong_pattern(r, positions, n, &clamp);
    if (pattern != NULL && strcmp(pattern, "clamped") == 0) {
        finding(r, "position", "positions clamped at %lld: token %lld (expected %lld) and %lld more were rotated for "
                "%lld", (long long)clamp, (long long)first, (long long)positions[first], (long long)(wrong - 1),
                (long long)clamp);
        return;
    }
    if (pattern != NULL) {
        finding(r, "position", "positions held in %s: token %lld was rotated for position %lld (expected %lld), and "
                "%lld of %lld tokens for their position rounded to %s", pattern, (long long)first,
                (long long)p->nearest, (long long)positions[first], (long long)wrong, (long long)n, pattern);
        return;
    }
    if (suffix && (offset == 1 || offset == -1)) {
        finding(r, "position", "token %lld was rotated for position %lld (expected %lld): off by %s from token %lld "
                "on (%lld tokens)", (long long)first, (long long)p->nearest, (long long)positions[first],
                offset > 0 ? "one (+1)" : "one (-1)", (long long)first, (long long)wrong);
    } else if (same_offset) {
        finding(r, "position", "token %lld was rotated for position %lld (expected %lld): %lld tokens shifted by "
                "%+lld", (long long)first, (long long)p->nearest, (long long)positions[first], (long long)wrong,
                (long long)offset);
    } else {
        finding(r, "position", "token %lld was rotated for position %lld (expected %lld); %lld of %lld tokens "
                "at other positions than given", (long long)first, (long long)p->nearest,
                (long long)positions[first], (long long)wrong, (long long)n);
    }
}

/* Nothing moved is explained: the same angles negated (the inverse
 * rotation, sin's sign flipped) are tried; kept when they explain more. */
static int try_reversed(pecert_dump_report *r, const pecert_loaded_plugin *oracle, angle_table *a,
                        const pecert_dump_view *v, const int64_t *positions, char *err, size_t err_len)
{
    size_t cells = (size_t)v->n_tokens * (size_t)a->n_pairs;
    pecert_dump_report *kept = malloc(sizeof(*kept));
    pecert_recovered_position *tokens = malloc(((size_t)v->n_tokens + 1) * sizeof(*tokens));
    if (kept == NULL || tokens == NULL) {
        free(kept);
        free(tokens);
        snprintf(err, err_len, "diagnose: out of memory");
        return -1;
    }
    *kept = *r;
    memcpy(tokens, r->tokens, (size_t)v->n_tokens * sizeof(*tokens));
    for (size_t i = 0; i < cells; i++) {
        a->phi[i] = -a->phi[i];
    }
    int rc = run_hypotheses(r, oracle, a, v, positions, err, err_len);
    if (rc == 0 && moved_explained(r, v->n_tokens) > 0) {
        r->reversed = 1;
    } else if (rc == 0) {
        for (size_t i = 0; i < cells; i++) { /* the angles as measured, for what reads them next */
            a->phi[i] = -a->phi[i];
        }
        pecert_recovered_position *mine = r->tokens;
        *r = *kept;
        r->tokens = mine;
        memcpy(r->tokens, tokens, (size_t)v->n_tokens * sizeof(*tokens));
    }
    free(kept);
    free(tokens);
    return rc;
}

/* ---- angles computed in half precision ------------------------------------ */

/* The error of an angle p * omega computed in a half-precision type of
 * unit roundoff u (float16 2^-11, bfloat16 2^-8): omega rounded to it
 * (relative u, or half the float16 subnormal spacing 2^-25 for the
 * lowest frequencies, which float16 holds as subnormals), p rounded to it
 * (u |p|), the product rounded (u |p omega|), and the float32 bound of the
 * rest (rope_recover.h). */
static double half_angle_bound(double p, double omega, int32_t pair, double u, int subnormal, double eps)
{
    double omega_err = fmax(u * omega, subnormal ? ldexp(1.0, -25) : 0.0);
    return fabs(p) * omega_err + 2.0 * u * fabs(p * omega) + pecert_recover_angle_bound(p, omega, pair, eps);
}

/* Whether every token's angles are the config's at its given position
 * within the half-precision bound of u. */
static int angles_within_half(const angle_table *a, const double *omega, const pecert_dump_view *v,
                              const int64_t *positions, double u, int subnormal)
{
    for (int64_t t = 0; t < v->n_tokens; t++) {
        double p = (double)positions[t];
        for (int32_t i = 0; i < a->n_pairs; i++) {
            if (a->weight[t * a->n_pairs + i] <= 0.0) {
                continue;
            }
            double d = remainder(a->phi[t * a->n_pairs + i] - p * omega[i], 2.0 * M_PI);
            if (fabs(d) > half_angle_bound(p, omega[i], i, u, subnormal, v->eps)) {
                return 0;
            }
        }
    }
    return 1;
}

/* No frequency set puts the tokens on their given positions: are the
 * angles the config's, only computed in float16 or bfloat16? */
static void find_half_angles(pecert_dump_report *r, const pecert_loaded_plugin *oracle, const angle_table *a,
                             const pecert_dump_view *v, const int64_t *positions)
{
    void *inst = NULL;
    double *omega = malloc((size_t)(a->n_pairs + 1) * sizeof(double));
    double scaling = 1.0;
    const pecert_dump_hypothesis *cfg = &r->hypotheses[0];
    int64_t seq_len = 0;
    for (int64_t t = 0; t < v->n_tokens; t++) {
        seq_len = positions[t] + 1 > seq_len ? positions[t] + 1 : seq_len;
    }
    int have_inst = omega != NULL && pecert_plugin_instance(oracle->desc, &inst) == PECERT_OK;
    if (have_inst &&
        hypothesis_freqs(oracle, inst, &cfg->rope, cfg->seq_len > 0 ? cfg->seq_len : seq_len, omega, &scaling) == 0) {
        if (angles_within_half(a, omega, v, positions, ldexp(1.0, -11), 1)) {
            r->half_angles = "float16";
        } else if (angles_within_half(a, omega, v, positions, ldexp(1.0, -8), 0)) {
            r->half_angles = "bfloat16";
        }
    }
    if (have_inst) {
        pecert_plugin_release(oracle->desc, inst);
    }
    free(omega);
}

/* ---- the whole ----------------------------------------------------------- */

static void detect_pairing(pecert_dump_report *r, const pecert_dump_view *v, const pecert_certify_model *m)
{
    double median[2] = {1.0, 1.0};
    r->spread[0] = pecert_recover_pairing_spread(v, PECERT_PAIRING_SPLIT_HALF, r->rotated_lo, r->rotated_hi,
                                                 &median[0]);
    r->spread[1] = pecert_recover_pairing_spread(v, PECERT_PAIRING_INTERLEAVED, r->rotated_lo, r->rotated_hi,
                                                 &median[1]);
    double rigid = fmax(1e-3, 16.0 * v->eps);
    int best = r->spread[1] >= 0 && (r->spread[0] < 0 || r->spread[1] < r->spread[0]) ? 1 : 0;
    r->pairing_found = r->spread[best] >= 0 && r->spread[best] <= rigid;
    r->pairing = r->pairing_found ? (best ? PECERT_PAIRING_INTERLEAVED : PECERT_PAIRING_SPLIT_HALF) : m->pairing;
    r->attention_factor = median[r->pairing == PECERT_PAIRING_INTERLEAVED ? 1 : 0];
}

/* The common factor of after / before on channels [lo, hi), or NaN. */
static double channel_factor(const pecert_dump_view *v, int32_t lo, int32_t hi)
{
    double first = NAN;
    double rigid = fmax(1e-3, 16.0 * v->eps);
    for (int64_t t = 0; t < v->n_tokens; t++) {
        for (int32_t h = 0; h < v->n_heads; h++) {
            size_t at = ((size_t)t * (size_t)v->n_heads + (size_t)h) * (size_t)v->head_dim;
            for (int32_t d = lo; d < hi; d++) {
                double x = v->before[at + (size_t)d];
                if (fabs(x) < 1e-6) {
                    continue;
                }
                double f = v->after[at + (size_t)d] / x;
                if (isnan(first)) {
                    first = f;
                } else if (fabs(f - first) > rigid * fabs(first)) {
                    return NAN;
                }
            }
        }
    }
    return first;
}

/* The changed range is wider than the config's rotary channels and rotates
 * rigidly under no pairing: when [0, rotary_dim) alone does, the rest was
 * modified where it should have been passed through. */
static void detect_passthrough(pecert_dump_report *r, const pecert_dump_view *v, const pecert_certify_model *m)
{
    int32_t rot = m->rope.rotary_dim;
    if (r->pairing_found || r->rotated_lo != 0 || r->rotated_hi <= rot || rot < 2) {
        return;
    }
    double median = 1.0;
    double spread = pecert_recover_pairing_spread(v, m->pairing, 0, rot, &median);
    if (spread < 0 || spread > fmax(1e-3, 16.0 * v->eps)) {
        return;
    }
    r->passthrough_lo = rot;
    r->passthrough_hi = r->rotated_hi;
    r->passthrough_scale = channel_factor(v, rot, r->rotated_hi);
    r->rotated_hi = rot;
    r->pairing_found = 1;
    r->pairing = m->pairing;
    r->spread[m->pairing == PECERT_PAIRING_INTERLEAVED ? 1 : 0] = spread;
    r->attention_factor = median;
}

static void find_passthrough(pecert_dump_report *r)
{
    if (r->passthrough_hi == 0) {
        return;
    }
    if (r->passthrough_scale == 0.0) {
        finding(r, "passthrough", "channels %d..%d past rotary_dim %d are zero: not copied from the input (they must "
                "pass through as they came in)", (int)r->passthrough_lo, (int)r->passthrough_hi - 1,
                (int)r->passthrough_lo);
    } else if (isnan(r->passthrough_scale)) {
        finding(r, "passthrough", "channels %d..%d past rotary_dim %d changed (not one factor of their input: not "
                "copied, or rotated with another layout): they must pass through as they came in",
                (int)r->passthrough_lo, (int)r->passthrough_hi - 1, (int)r->passthrough_lo);
    } else {
        finding(r, "passthrough", "channels %d..%d past rotary_dim %d are scaled by %.9g (the attention factor "
                "applied to the pass-through channels too): they must pass through as they came in",
                (int)r->passthrough_lo, (int)r->passthrough_hi - 1, (int)r->passthrough_lo, r->passthrough_scale);
    }
}

int pecert_dump_diagnose(pecert_dump_report *out, const pecert_certify_model *m, const pecert_loaded_plugin *oracle,
                         const pecert_dump_view *v, const int64_t *positions, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    out->n_tokens = v->n_tokens;
    out->expected_factor = 1.0;
    out->fitted_theta = NAN;
    out->tokens = calloc((size_t)v->n_tokens + 1, sizeof(*out->tokens));
    pecert_recover_rotated_range(v, &out->rotated_lo, &out->rotated_hi);
    if (m->rope.layer_kind == PECERT_LAYER_NOPE) { /* no frequency to recover: nothing may change */
        if (out->rotated_hi > 0) {
            finding(out, "nope_rotated", "channels %d..%d of a NoPE layer changed: the layer kind is ignored and "
                    "RoPE applied on every layer (no_rope_layers / layer_types); a NoPE layer passes q and k "
                    "through bit for bit", (int)out->rotated_lo, (int)out->rotated_hi - 1);
        }
        return out->tokens != NULL ? 0 : -1;
    }
    int32_t width = (out->rotated_hi - out->rotated_lo) & ~1;
    if (width < 2) { /* nothing rotated: recover against the config's own channels */
        out->rotated_lo = 0;
        width = m->rope.rotary_dim;
    }
    detect_pairing(out, v, m);
    detect_passthrough(out, v, m);
    width = out->passthrough_hi > 0 ? out->rotated_hi - out->rotated_lo : width;
    angle_table a = {NULL, NULL, width / 2};
    size_t cells = (size_t)v->n_tokens * (size_t)a.n_pairs + 1;
    a.phi = malloc(cells * sizeof(double));
    a.weight = malloc(cells * sizeof(double));
    if (out->tokens == NULL || a.phi == NULL || a.weight == NULL) {
        free(a.phi);
        free(a.weight);
        snprintf(err, err_len, "diagnose: out of memory");
        return -1;
    }
    pecert_recover_angles(v, out->pairing, out->rotated_lo, out->rotated_lo + width, a.phi, a.weight);
    build_hypotheses(out, m, width, v->n_tokens);
    int rc = run_hypotheses(out, oracle, &a, v, positions, err, err_len);
    if (rc == 0 && positions == NULL) {
        rc = rerun_at_recovered_length(out, oracle, &a, v, err, err_len);
    }
    if (rc == 0 && out->rotated_hi > 0 && out->pairing_found && moved_explained(out, v->n_tokens) == 0) {
        double theta = fit_theta(a.phi, a.weight, v->n_tokens, a.n_pairs);
        if (!isnan(theta) && add_fitted_hypotheses(out, m, width, theta) > 0) {
            out->fitted_theta = theta;
            rc = run_hypotheses(out, oracle, &a, v, positions, err, err_len);
        }
    }
    if (rc == 0 && out->rotated_hi > 0 && moved_explained(out, v->n_tokens) == 0) {
        rc = try_reversed(out, oracle, &a, v, positions, err, err_len);
    }
    if (rc == 0 && out->rotated_hi > 0 && !out->reversed && positions != NULL && out->pairing_found &&
        moved_explained(out, v->n_tokens) == 0) {
        find_half_angles(out, oracle, &a, v, positions);
    }
    free(a.phi);
    free(a.weight);
    if (rc != 0) {
        return -1;
    }
    if (out->rotated_hi == 0) {
        out->rotated_lo = 0;
    }
    find_passthrough(out);
    find_rotary_dim(out, m);
    find_pairing(out, m);
    find_attention_factor(out, v);
    if (out->rotated_hi > 0) {
        find_frequencies(out, positions, v->n_tokens);
        if (!out->reversed) {
            find_positions(out, positions, v->n_tokens);
        }
    }
    return 0;
}

void pecert_dump_report_free(pecert_dump_report *r)
{
    free(r->tokens);
    r->tokens = NULL;
}
