/* check_util.c - bookkeeping and data helpers shared by every check. */
#include "checks.h"
#include "plugin_load.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pecert_case_worst_init(pecert_case_worst *w)
{
    memset(w, 0, sizeof(*w));
    w->index = -1;
}

double pecert_case_nonfinite_ratio(double got, double want)
{
    if (isnan(got) != isnan(want) || isinf(got) != isinf(want)) {
        return INFINITY; /* a NaN or infinity where there was none */
    }
    return isnan(want) || got == want ? 0.0 : INFINITY; /* the same NaN, or the same infinity */
}

int pecert_case_worst_holds(const pecert_case_worst *w)
{
    return w->n_bad == 0 && w->n_checked > 0;
}

void pecert_case_worst_symptom(pecert_check_result *r, const pecert_case_worst *w, const char *tag)
{
    if (w->n_bad > 0) {
        pecert_check_symptom(r, "%s", tag);
    }
}

void pecert_case_worst_add_pair(pecert_case_worst *w, int64_t base, int64_t a, int64_t b, const float *got,
                                const float *want, double bound)
{
    pecert_case_worst_add(w, base + a, got[base + a], want[base + a], bound);
    pecert_case_worst_add(w, base + b, got[base + b], want[base + b], bound);
}

/* A failure record of kind for the case where, its line already made. */
static void add_failure(pecert_check_result *r, pecert_failure *f, const char *where, const char *line)
{
    snprintf(f->where, sizeof(f->where), "%s", where);
    snprintf(f->line, sizeof(f->line), "%s", line);
    (void)pecert_check_result_add_failure(r, f); /* out of memory: the counts still say it */
}

int pecert_values_nonfinite(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return 1;
        }
    }
    return 0;
}

void pecert_format_f32(char *out, size_t out_len, double v)
{
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, sizeof(bits));
    snprintf(out, out_len, "0x%08x (%.9g)", bits, v);
}

static void note_worst(pecert_check_result *r, double ratio, const char *where)
{
    if (isnan(ratio)) {
        ratio = INFINITY;
    }
    if (ratio > r->worst_ratio || r->worst_case[0] == '\0') {
        r->worst_ratio = ratio;
        snprintf(r->worst_case, sizeof(r->worst_case), "%s", where);
        r->worst_vector = r->open_vector;
    }
}

void pecert_case_finish(pecert_check_result *r, const pecert_case_worst *w,
                        const char *where, const char *elem_desc)
{
    pecert_case_finish_at(r, w, where, elem_desc, -1);
}

void pecert_case_finish_at(pecert_check_result *r, const pecert_case_worst *w, const char *where,
                           const char *elem_desc, int64_t position)
{
    r->n_cases++;
    if (w->index < 0) {
        (void)pecert_check_result_add_case(r, PECERT_CASE_WITHIN, NAN, where); /* nothing to compare */
        return;
    }
    char at[PECERT_RESULT_LINE_MAX];
    snprintf(at, sizeof(at), "%s %s", where, elem_desc);
    note_worst(r, w->ratio, at);
    if (w->n_bad == 0) {
        char line[PECERT_RESULT_LINE_MAX];
        snprintf(line, sizeof(line), "%s: worst %.3g of tol (%lld elements)", at, w->ratio, (long long)w->n_checked);
        (void)pecert_check_result_add_case(r, PECERT_CASE_WITHIN, w->ratio, line);
        return;
    }
    r->n_failed++;
    /* A NaN on either side (a property compares two outputs of the
     * plugin), or an infinity where a number is due; not a number where
     * the official value is an infinity (an ALiBi mask's -inf). */
    if (isnan(w->got) || isnan(w->want) || (isinf(w->got) && isfinite(w->want))) {
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_NONFINITE);
    }
    char want[64];
    char got[64];
    char line[PECERT_RESULT_LINE_MAX];
    pecert_format_f32(want, sizeof(want), w->want);
    pecert_format_f32(got, sizeof(got), w->got);
    snprintf(line, sizeof(line), "%s: want %s got %s err %.3g > tol %.3g (%lld of %lld elements off)",
             at, want, got, w->err, w->bound, (long long)w->n_bad, (long long)w->n_checked);
    pecert_failure f = pecert_failure_blank(PECERT_FAILURE_VALUE);
    snprintf(f.element, sizeof(f.element), "%s", elem_desc);
    f.position = position;
    f.want = w->want;
    f.got = w->got;
    f.error = w->err;
    f.bound = w->bound;
    f.n_bad = w->n_bad;
    f.n_checked = w->n_checked;
    add_failure(r, &f, where, line);
}

int pecert_case_status(pecert_check_result *r, const pecert_subject *s,
                       pecert_status status, const char *where, const char *op)
{
    if (status == PECERT_OK) {
        return 1;
    }
    const char *beyond = status == PECERT_E_UNSUPPORTED ? pecert_scope_guard_take() : NULL;
    if (beyond != NULL) {
        pecert_case_beyond_scope(r, beyond);
        return 0;
    }
    r->n_cases++;
    if (s->is_oracle) {
        const char *msg = s->desc->last_error != NULL ? s->desc->last_error(s->instance) : NULL;
        /* The oracle cannot answer this case (a config it refuses): the
         * plugin is neither right nor wrong here, and the user sees why. */
        char line[PECERT_RESULT_LINE_MAX];
        snprintf(line, sizeof(line), "%s: the oracle (%s) refused %s (status %d): %s", where,
                 s->desc->name != NULL ? s->desc->name : "ref", op, (int)status,
                 msg != NULL && msg[0] != '\0' ? msg : "(no message)");
        if (r->n_oracle_refused++ == 0) {
            snprintf(r->oracle_refusal, sizeof(r->oracle_refusal), "%s", line);
        }
        pecert_failure f = pecert_failure_blank(PECERT_FAILURE_ORACLE);
        add_failure(r, &f, where, line);
        return 0;
    }
    if (status == PECERT_E_UNSUPPORTED) {
        r->n_cases--; /* pecert_case_declined counts it */
        pecert_case_declined(r, s, where, op);
        return 0;
    }
    const char *msg = s->desc->last_error(s->instance);
    pecert_case_fail(r, where, "%s returned %d: %s", op, (int)status,
                     msg != NULL ? msg : "(no message)");
    r->n_cases--; /* pecert_case_fail counted it again */
    return 0;
}

void pecert_case_passed(pecert_check_result *r, const char *where, const char *what)
{
    char line[PECERT_RESULT_LINE_MAX];
    snprintf(line, sizeof(line), "%s: %s", where, what);
    r->n_cases++;
    (void)pecert_check_result_add_case(r, PECERT_CASE_WITHIN, NAN, line);
}

void pecert_case_fail(pecert_check_result *r, const char *where, const char *fmt, ...)
{
    char msg[PECERT_RESULT_LINE_MAX];
    char line[PECERT_RESULT_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(line, sizeof(line), "%s: %s", where, msg);
    r->n_cases++;
    r->n_failed++;
    note_worst(r, INFINITY, where);
    pecert_failure f = pecert_failure_blank(PECERT_FAILURE_STATUS);
    add_failure(r, &f, where, line);
}

/* Appends "; N declined by the plugin (first: ...)", "; N beyond its
 * declared scope (first: ...)" and "; the oracle refused N more: ..." to
 * r->diagnosis from offset used: a verdict must not hide what the plugin
 * would not do, nor what could not be judged. */
static void append_not_run(pecert_check_result *r, int used)
{
    size_t cap = sizeof(r->diagnosis);
    int64_t declined = r->n_unsupported - r->n_beyond_scope;
    if (declined > 0 && used >= 0 && (size_t)used < cap) {
        used += snprintf(r->diagnosis + used, cap - (size_t)used, "; %lld declined by the plugin (first: %s)",
                         (long long)declined, r->declined[0] != '\0' ? r->declined : "no message");
    }
    if (r->n_beyond_scope > 0 && used >= 0 && (size_t)used < cap) {
        used += snprintf(r->diagnosis + used, cap - (size_t)used, "; %lld beyond the plugin's declared scope (first: %s)",
                         (long long)r->n_beyond_scope, r->beyond_scope);
    }
    if (r->n_oracle_refused > 0 && used >= 0 && (size_t)used < cap) {
        snprintf(r->diagnosis + used, cap - (size_t)used, "; the oracle refused %lld: %s",
                 (long long)r->n_oracle_refused, r->oracle_refusal);
    }
}

void pecert_check_engine_violation(pecert_check_result *r, const char *line)
{
    pecert_case_fail(r, "engine", "%s", line);
    pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ENGINE_WROTE_OUTSIDE);
    if (r->verdict < PECERT_VERDICT_FAIL) {
        r->verdict = PECERT_VERDICT_FAIL;
    }
    snprintf(r->diagnosis, sizeof(r->diagnosis), "%s", line);
}

void pecert_check_conclude(pecert_check_result *r, const char *what)
{
    int64_t answered = r->n_cases - r->n_unsupported - r->n_oracle_refused;
    if (r->n_failed == 0 && r->n_oracle_refused > 0 && answered == 0) {
        r->verdict = PECERT_VERDICT_UNSUPPORTED;
        snprintf(r->diagnosis, sizeof(r->diagnosis), "the oracle refused all %lld %s it was asked; first: %s",
                 (long long)r->n_oracle_refused, what, r->oracle_refusal);
        return;
    }
    if (r->n_failed > 0) {
        r->verdict = PECERT_VERDICT_FAIL;
        /* "; first: <the first failure's line>": the terminal drops this
         * tail when it prints the failure lines under it (check_print.c). */
        snprintf(r->diagnosis, sizeof(r->diagnosis), "%lld of %lld %s outside the bound; first: %s",
                 (long long)r->n_failed, (long long)r->n_cases, what,
                 pecert_check_result_first_line(r));
    } else if (r->n_cases > 0 && r->n_unsupported == r->n_cases) {
        r->verdict = PECERT_VERDICT_UNSUPPORTED;
        int used = snprintf(r->diagnosis, sizeof(r->diagnosis), "the plugin declined all %lld %s", (long long)r->n_cases,
                            what);
        append_not_run(r, used);
    } else if (r->n_cases == 0) {
        /* Nothing to run is not a pass (it proves nothing) and not the
         * plugin's failure (a vector directory of other families): "not
         * applicable". The bundled directory gives every check cases, and
         * `make conformance` requires ref to pass them all. */
        r->verdict = PECERT_VERDICT_UNSUPPORTED;
        snprintf(r->diagnosis, sizeof(r->diagnosis), "not applicable: no %s in the vector directory", what);
    } else {
        r->verdict = PECERT_VERDICT_PASS;
        int used = answered == r->n_cases
                       ? snprintf(r->diagnosis, sizeof(r->diagnosis), "%lld %s within bound (worst %.3g of tol)",
                                  (long long)answered, what, r->worst_ratio)
                       : snprintf(r->diagnosis, sizeof(r->diagnosis), "%lld of %lld %s within bound (worst %.3g of tol)",
                                  (long long)answered, (long long)r->n_cases, what, r->worst_ratio);
        append_not_run(r, used);
    }
}

float pecert_rng_float(pecert_rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    /* 24 random bits -> [-1, 1) exactly representable in float. */
    return (float)((double)(z >> 40) * 0x1p-23 - 1.0);
}

/* A view of ndim axes (at most PECERT_MAX_DIMS) given its shape and strides. */
static pecert_tensor tensor_view(void *data, pecert_dtype dtype, uint32_t ndim, const int64_t *shape,
                                 const int64_t *strides)
{
    pecert_tensor t;
    memset(&t, 0, sizeof(t));
    t.struct_size = sizeof(t);
    t.dtype = dtype;
    t.ndim = ndim;
    t.data = data;
    memcpy(t.shape, shape, ndim * sizeof(shape[0]));
    memcpy(t.strides, strides, ndim * sizeof(strides[0]));
    return t;
}

pecert_tensor pecert_tensor_3d(float *data, int64_t n0, int64_t n1, int64_t n2,
                               int64_t s0, int64_t s1, int64_t s2)
{
    const int64_t shape[3] = {n0, n1, n2};
    const int64_t strides[3] = {s0, s1, s2};
    return tensor_view(data, PECERT_DTYPE_F32, 3, shape, strides);
}

pecert_tensor pecert_tensor_rows(const float *data, int64_t tokens, int64_t heads, int64_t head_dim)
{
    return pecert_tensor_3d((float *)(uintptr_t)data, tokens, heads, head_dim, heads * head_dim, head_dim, 1);
}

/* n floats (room for one when n is 0), all NaN; NULL after recording "out
 * of memory" as the case's failure. */
static float *nan_floats(pecert_check_result *r, size_t n, const char *where)
{
    float *v = malloc((n > 0 ? n : 1) * sizeof(float));
    if (v == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = NAN;
    }
    return v;
}

int pecert_rows_open(pecert_rows_call *io, pecert_check_result *r, const float *x, int64_t tokens, int64_t heads,
                     int64_t head_dim, const char *where)
{
    io->data = nan_floats(r, (size_t)(tokens * heads * head_dim), where);
    if (io->data == NULL) {
        return 0;
    }
    io->x = pecert_tensor_rows(x, tokens, heads, head_dim);
    io->out = pecert_tensor_rows(io->data, tokens, heads, head_dim);
    return 1;
}

float *pecert_floats_kept(pecert_check_result *r, const pecert_subject *s, pecert_status st, float *out,
                          const char *where, const char *op)
{
    if (!pecert_case_status(r, s, st, where, op)) {
        free(out);
        return NULL;
    }
    return out;
}

pecert_tensor pecert_tensor_2d(void *data, pecert_dtype dtype, int64_t n0, int64_t n1)
{
    const int64_t shape[2] = {n0, n1};
    const int64_t strides[2] = {n1, 1};
    return tensor_view(data, dtype, 2, shape, strides);
}

double pecert_vtensor_get(const pecert_vtensor *t, int64_t i)
{
    switch (t->dtype) {
    case PECERT_DTYPE_F32: {
        float v;
        memcpy(&v, (const char *)t->data + (size_t)i * sizeof(v), sizeof(v));
        return v;
    }
    case PECERT_DTYPE_F64: {
        double v;
        memcpy(&v, (const char *)t->data + (size_t)i * sizeof(v), sizeof(v));
        return v;
    }
    case PECERT_DTYPE_I64: {
        int64_t v;
        memcpy(&v, (const char *)t->data + (size_t)i * sizeof(v), sizeof(v));
        return (double)v;
    }
    case PECERT_DTYPE_I32: {
        int32_t v;
        memcpy(&v, (const char *)t->data + (size_t)i * sizeof(v), sizeof(v));
        return v;
    }
    default:
        return NAN;
    }
}

pecert_status pecert_oracle_inv_freq(const pecert_check_env *env, double *out,
                                     double *scaling, const pecert_rope_config *cfg,
                                     int64_t seq_len)
{
    if (env->oracle.desc == NULL || env->oracle.desc->rope_freqs == NULL) {
        return PECERT_E_UNSUPPORTED;
    }
    return env->oracle.desc->rope_freqs(env->oracle.instance, out, scaling, cfg, seq_len);
}

int pecert_scope_excludes(const pecert_subject *s, const pecert_rope_config *cfg, const int64_t *positions,
                          int64_t n, pecert_dtype dtype, char *why, size_t why_len)
{
    const pecert_scope *scope = s->is_oracle ? NULL : pecert_plugin_scope(s->desc);
    if (scope == NULL) {
        return 0;
    }
    for (int64_t i = 0; scope->max_position > 0 && positions != NULL && i < n; i++) {
        if (positions[i] > scope->max_position || positions[i] < -scope->max_position) {
            snprintf(why, why_len, "position %lld past the declared max_position %lld", (long long)positions[i],
                     (long long)scope->max_position);
            return 1;
        }
    }
    if ((scope->flags & PECERT_SCOPE_WHOLE_HEAD_ONLY) && cfg != NULL && cfg->rotary_dim < cfg->head_dim) {
        snprintf(why, why_len, "rotary_dim %d of head_dim %d: the plugin declares whole heads only",
                 (int)cfg->rotary_dim, (int)cfg->head_dim);
        return 1;
    }
    if (dtype != 0 && scope->rope_apply_dtypes != 0 && !(scope->rope_apply_dtypes & (1u << dtype))) {
        snprintf(why, why_len, "data type %d not among the declared rope_apply dtypes", (int)dtype);
        return 1;
    }
    return 0;
}

/* The plugin's declared max_position, or 0 when it declares none. */
static int64_t declared_max_position(const pecert_check_env *env)
{
    const pecert_scope *scope = env->plugin.is_oracle ? NULL : pecert_plugin_scope(env->plugin.desc);
    return scope != NULL && scope->max_position > 0 ? scope->max_position : 0;
}

static int beyond(int64_t p, int64_t max)
{
    return p > max || p < -max;
}

int64_t pecert_scope_trim(const pecert_check_env *env, pecert_check_result *r, int64_t *pos, int64_t n)
{
    int64_t max = declared_max_position(env);
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++) {
        if (max == 0 || !beyond(pos[i], max)) {
            pos[kept++] = pos[i];
        }
    }
    if (kept < n) {
        pecert_check_symptom(r, "%s%lld", PECERT_SYMPTOM_SCOPED_POSITIONS, (long long)max);
    }
    return kept;
}

int64_t pecert_scope_fold(const pecert_check_env *env, pecert_check_result *r, int64_t *pos, int64_t n)
{
    int64_t max = declared_max_position(env);
    int64_t folded = 0;
    for (int64_t i = 0; max > 0 && i < n; i++) {
        if (beyond(pos[i], max)) {
            pos[i] = max - folded < 0 ? 0 : max - folded;
            folded++;
        }
    }
    if (folded > 0) {
        pecert_check_symptom(r, "%s%lld", PECERT_SYMPTOM_SCOPED_POSITIONS, (long long)max);
    }
    return folded;
}

void pecert_case_beyond_scope(pecert_check_result *r, const char *why)
{
    r->n_cases++;
    r->n_unsupported++;
    if (r->n_beyond_scope++ == 0) {
        snprintf(r->beyond_scope, sizeof(r->beyond_scope), "%s", why);
    }
    (void)pecert_check_result_add_case(r, PECERT_CASE_BEYOND_SCOPE, NAN, why);
}

void pecert_case_declined(pecert_check_result *r, const pecert_subject *s, const char *where, const char *op)
{
    int64_t declined_before = r->n_unsupported - r->n_beyond_scope;
    r->n_cases++;
    r->n_unsupported++;
    if (declined_before == 0 || r->keep_cases) {
        const char *msg = s->desc->last_error != NULL ? s->desc->last_error(s->instance) : NULL;
        char line[PECERT_RESULT_LINE_MAX];
        snprintf(line, sizeof(line), "%s: %s declined: %s", where, op,
                 msg != NULL && msg[0] != '\0' ? msg : "(no message from last_error)");
        if (declined_before == 0) {
            snprintf(r->declined, sizeof(r->declined), "%s", line);
        }
        (void)pecert_check_result_add_case(r, PECERT_CASE_DECLINED, NAN, line);
    }
}

int pecert_plugin_speaks(const pecert_plugin *desc, uint32_t minor)
{
    return PECERT_ABI_MAJOR_OF(desc->abi_version) == PECERT_ABI_MAJOR && (desc->abi_version & 0xffffu) >= minor;
}

void pecert_case_needs_abi(pecert_check_result *r, const pecert_subject *s, const char *where, const char *what,
                           uint32_t minor)
{
    char line[PECERT_RESULT_LINE_MAX];
    snprintf(line, sizeof(line), "%s: %s is ABI %u.%u, the plugin speaks %u.%u", where, what,
             (unsigned)PECERT_ABI_MAJOR, (unsigned)minor, (unsigned)PECERT_ABI_MAJOR_OF(s->desc->abi_version),
             (unsigned)(s->desc->abi_version & 0xffffu));
    r->n_cases++;
    r->n_unsupported++;
    if (r->declined[0] == '\0') {
        snprintf(r->declined, sizeof(r->declined), "%s", line);
    }
    (void)pecert_check_result_add_case(r, PECERT_CASE_DECLINED, NAN, line);
}

int pecert_oracle_freqs(const pecert_check_env *env, pecert_check_result *r, const char *where, double *out,
                        double *scaling, const pecert_rope_config *cfg, int64_t seq_len)
{
    if (out == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return 0;
    }
    return pecert_case_status(r, &env->oracle, pecert_oracle_inv_freq(env, out, scaling, cfg, seq_len), where,
                              "rope_freqs");
}

pecert_status pecert_oracle_alibi_slopes(const pecert_check_env *env, int32_t n, double max_bias, double *out)
{
    const pecert_plugin *o = env->oracle.desc;
    if (o == NULL || !PECERT_HAS_FIELD(o, pecert_plugin, alibi_slopes) || o->alibi_slopes == NULL) {
        return PECERT_E_UNSUPPORTED;
    }
    pecert_tensor t;
    memset(&t, 0, sizeof(t));
    t = (pecert_tensor){.struct_size = sizeof(t), .dtype = PECERT_DTYPE_F64, .ndim = 1, .data = out};
    t.shape[0] = n;
    t.strides[0] = 1;
    pecert_alibi_slopes_args a;
    memset(&a, 0, sizeof(a));
    a = (pecert_alibi_slopes_args){.struct_size = sizeof(a), .num_heads = n, .max_bias = max_bias, .out = &t};
    return o->alibi_slopes(env->oracle.instance, &a);
}

int64_t pecert_effective_seq_len(int64_t seq_len, const int64_t *positions, int64_t n)
{
    if (seq_len > 0) {
        return seq_len;
    }
    int64_t max = 0;
    for (int64_t i = 0; i < n; i++) {
        if (positions[i] > max) {
            max = positions[i];
        }
    }
    return max + 1;
}

/* Whether a descriptor has an ABI 1.2 family op: the field must lie within
 * its struct_size (a 1.0/1.1 plugin is shorter) and be non-NULL. */
#define HAS_OP(desc, field) (PECERT_HAS_FIELD(desc, pecert_plugin, field) && (desc)->field != NULL)

static int meets_families(const pecert_plugin *desc, uint32_t needs)
{
    const struct {
        uint32_t bit;
        int has;
    } ops[] = {
        {PECERT_NEED_ALIBI_SLOPES, HAS_OP(desc, alibi_slopes)},
        {PECERT_NEED_ALIBI_BIAS, HAS_OP(desc, alibi_bias)},
        {PECERT_NEED_T5_BUCKET, HAS_OP(desc, t5_bucket)},
        {PECERT_NEED_SINUSOIDAL, HAS_OP(desc, sinusoidal)},
        {PECERT_NEED_LEARNED, HAS_OP(desc, learned_lookup)},
        {PECERT_NEED_SINCOS_2D, HAS_OP(desc, sincos_2d)},
        {PECERT_NEED_SWIN_INDEX, HAS_OP(desc, swin_index)},
        {PECERT_NEED_SHAW_INDEX, HAS_OP(desc, shaw_index)},
        {PECERT_NEED_TXL_POS_EMB, HAS_OP(desc, txl_pos_emb)},
        {PECERT_NEED_TXL_REL_SHIFT, HAS_OP(desc, txl_rel_shift)},
        {PECERT_NEED_MROPE_INDEX, HAS_OP(desc, mrope_index)},
        {PECERT_NEED_MROPE_APPLY, HAS_OP(desc, mrope_apply)},
        {PECERT_NEED_ROPE2D_INDEX, HAS_OP(desc, rope2d_index)},
        {PECERT_NEED_ROPE2D_APPLY, HAS_OP(desc, rope2d_apply)},
        {PECERT_NEED_POS_INTERPOLATE, HAS_OP(desc, pos_interpolate)},
        {PECERT_NEED_COPE_LOGITS, HAS_OP(desc, cope_logits)},
        {PECERT_NEED_PEG_APPLY, HAS_OP(desc, peg_apply)},
        {PECERT_NEED_SINE2D, HAS_OP(desc, sine2d)},
        {PECERT_NEED_RELPOS2D, HAS_OP(desc, relpos2d_bias)},
        {PECERT_NEED_DEBERTA, HAS_OP(desc, deberta_bias)},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if ((needs & ops[i].bit) != 0 && !ops[i].has) {
            return 0;
        }
    }
    return 1;
}

int pecert_plugin_meets(const pecert_plugin *desc, uint32_t needs)
{
    if (!meets_families(desc, needs)) {
        return 0;
    }
    if ((needs & PECERT_NEED_ROPE_FREQS) && desc->rope_freqs == NULL) {
        return 0;
    }
    if ((needs & PECERT_NEED_ROPE_COS_SIN) && desc->rope_cos_sin == NULL) {
        return 0;
    }
    if ((needs & PECERT_NEED_ROPE_APPLY) && desc->rope_apply == NULL) {
        return 0;
    }
    if ((needs & PECERT_NEED_SESSION) &&
        (!PECERT_HAS_FIELD(desc, pecert_plugin, session_append) || desc->session_create == NULL ||
         desc->session_destroy == NULL || desc->session_append == NULL)) {
        return 0;
    }
    return 1;
}
