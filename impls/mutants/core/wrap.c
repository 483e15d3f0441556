/*
 * wrap.c - the plugin every mutant exports: its base (ref, or a float32
 * honest variant), routed through the mutant's hooks. See mutant.h.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutant.h"

static const pecert_plugin *ref;

const pecert_plugin *mutant_ref(void)
{
    return ref;
}

/* The base, relative to the mutants' directory:
 * build/impls/mutants/NAME.so -> build/impls/ref.so, and
 * build/impls/mutants-f32/NAME.so -> build/impls/honest/<variant>.so. */
#ifndef MUTANT_BASE
#define MUTANT_BASE "ref.so"
#endif

static const pecert_plugin *load_ref(void)
{
    Dl_info info;
    char self[PATH_MAX];
    char path[PATH_MAX + 16];
    if (dladdr((void *)&ref, &info) == 0 || info.dli_fname == NULL) {
        return NULL;
    }
    snprintf(self, sizeof(self), "%s", info.dli_fname);
    snprintf(path, sizeof(path), "%s/../%s", dirname(self), MUTANT_BASE);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        return NULL;
    }
    pecert_plugin_entry_fn entry;
    *(void **)&entry = dlsym(handle, PECERT_PLUGIN_ENTRY_SYMBOL);
    return entry != NULL ? entry(PECERT_ABI_VERSION) : NULL;
}

pecert_tensor mutant_channel_view(const pecert_tensor *t, int64_t first, int64_t count)
{
    pecert_tensor v = *t;
    v.data = (float *)t->data + first * t->strides[2];
    v.shape[2] = count;
    return v;
}

static pecert_rope_config edited_config(const pecert_rope_config *config)
{
    pecert_rope_config c = *config;
    if (mutant.edit_config != NULL) {
        mutant.edit_config(&c);
    }
    return c;
}

static int64_t edited_seq_len(const pecert_rope_config *c, int64_t seq_len, const int64_t *pos,
                              int64_t n)
{
    return mutant.edit_seq_len != NULL ? mutant.edit_seq_len(c, seq_len, pos, n) : seq_len;
}

/* A private copy of the positions with the mutant's edit applied. */
static int64_t *edited_positions(const pecert_rope_config *c, const int64_t *pos, int64_t n)
{
    int64_t *copy = malloc((size_t)(n > 0 ? n : 1) * sizeof(*copy));
    if (copy != NULL && n > 0) {
        memcpy(copy, pos, (size_t)n * sizeof(*copy));
        if (mutant.edit_positions != NULL) {
            mutant.edit_positions(c, copy, n);
        }
    }
    return copy;
}

pecert_status mutant_ref_freqs(void *ref_instance, double *out, double *scaling,
                               const pecert_rope_config *config, int64_t seq_len,
                               const int64_t *positions, int64_t n)
{
    if (seq_len == 0) {
        int64_t max = 0;
        for (int64_t i = 0; i < n; i++) {
            max = positions[i] > max ? positions[i] : max;
        }
        seq_len = max + 1;
    }
    return ref->rope_freqs(ref_instance, out, scaling, config, seq_len);
}

pecert_status mutant_apply_rows(void *ref_instance, const pecert_rope_apply_args *args,
                                mutant_row_fn row)
{
    int64_t n = args->x->shape[0];
    double *inv = malloc((size_t)(args->config->rotary_dim / 2 + 1) * sizeof(double));
    double scaling = 1.0;
    if (inv == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert_status st = mutant_ref_freqs(ref_instance, inv, &scaling, args->config, args->seq_len,
                                        args->positions, n);
    for (int64_t t = 0; st == PECERT_OK && t < n; t++) {
        for (int64_t h = 0; h < args->x->shape[1]; h++) {
            row(args, t, h, inv, scaling);
        }
    }
    free(inv);
    return st;
}

static double scaling_factor(const pecert_rope_config *c, double scaling)
{
    return mutant.scaling_factor != NULL ? mutant.scaling_factor(c, scaling) : 1.0;
}

static pecert_status w_create(void **out)
{
    return ref->create(out);
}

static void w_destroy(void *instance)
{
    ref->destroy(instance);
}

static const char *w_last_error(void *instance)
{
    return ref->last_error(instance);
}

/* Frequencies of the edited config, cut to the caller's rotary_dim/2. */
static pecert_status w_freqs(void *instance, double *out, double *scaling,
                             const pecert_rope_config *config, int64_t seq_len)
{
    pecert_rope_config c = edited_config(config);
    int32_t half = c.rotary_dim > config->rotary_dim ? c.rotary_dim / 2 : config->rotary_dim / 2;
    double *tmp = calloc((size_t)(half > 0 ? half : 1), sizeof(double));
    if (tmp == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert_status st = ref->rope_freqs(instance, tmp, scaling, &c, edited_seq_len(&c, seq_len, NULL, 0));
    if (st == PECERT_OK) {
        memcpy(out, tmp, (size_t)(config->rotary_dim / 2) * sizeof(double));
        *scaling *= scaling_factor(&c, *scaling);
    }
    free(tmp);
    return st;
}

static void store(pecert_tensor *t, int64_t p, int64_t i, double v)
{
    char *base = (char *)t->data;
    int64_t off = p * t->strides[0] + i * t->strides[1];
    if (t->dtype == PECERT_DTYPE_F64) {
        ((double *)(void *)base)[off] = v;
    } else {
        ((float *)(void *)base)[off] = (float)v;
    }
}

/* cos/sin of the edited config, computed in f64 at its own width, then
 * copied into the caller's [n, rotary_dim/2] tables. */
static pecert_status w_cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                               const pecert_rope_config *config, int64_t seq_len,
                               const int64_t *positions, int64_t n)
{
    pecert_rope_config c = edited_config(config);
    int64_t half = c.rotary_dim / 2;
    int64_t *pos = edited_positions(&c, positions, n);
    double *buf = malloc((size_t)(2 * (n > 0 ? n : 1) * (half > 0 ? half : 1)) * sizeof(double));
    pecert_status st = PECERT_E_NOMEM;
    if (pos != NULL && buf != NULL) {
        pecert_tensor tc = *out_cos;
        pecert_tensor ts = *out_sin;
        tc.dtype = ts.dtype = PECERT_DTYPE_F64;
        tc.data = buf;
        ts.data = buf + n * half;
        tc.shape[1] = ts.shape[1] = half;
        tc.strides[0] = ts.strides[0] = half;
        tc.strides[1] = ts.strides[1] = 1;
        st = ref->rope_cos_sin(instance, &tc, &ts, &c, edited_seq_len(&c, seq_len, positions, n), pos, n);
        double s = 1.0;
        double *inv = malloc((size_t)(half > 0 ? half : 1) * sizeof(double));
        if (st == PECERT_OK && inv != NULL &&
            mutant_ref_freqs(instance, inv, &s, &c, seq_len, positions, n) == PECERT_OK) {
            double k = scaling_factor(&c, s);
            for (int64_t p = 0; p < n; p++) {
                for (int64_t i = 0; i < config->rotary_dim / 2 && i < half; i++) {
                    store(out_cos, p, i, k * buf[p * half + i]);
                    store(out_sin, p, i, k * buf[n * half + p * half + i]);
                }
            }
        }
        free(inv);
    }
    free(buf);
    free(pos);
    return st;
}

/* Multiplies the rotated channels of out by k. */
static void scale_rotated(const pecert_rope_apply_args *a, int64_t rotary_dim, double k)
{
    const pecert_tensor *o = a->out;
    for (int64_t t = 0; t < o->shape[0]; t++) {
        for (int64_t h = 0; h < o->shape[1]; h++) {
            for (int64_t d = 0; d < rotary_dim; d++) {
                float *e = mutant_elem(o, t, h, d);
                *e = (float)(*e * k);
            }
        }
    }
}

/* 1 when apply's arguments are f32 tensors a hand-written hook can index. */
static int plain_f32(const pecert_rope_apply_args *args)
{
    return args != NULL && args->x != NULL && args->out != NULL && args->config != NULL &&
           args->positions != NULL && args->x->dtype == PECERT_DTYPE_F32 &&
           args->out->dtype == PECERT_DTYPE_F32 && args->x->ndim == 3 && args->out->ndim == 3;
}

static pecert_status w_apply(void *instance, const pecert_rope_apply_args *args)
{
    /* The hand-written hooks (kernels, output scaling) know f32 only; a
     * float32 base also takes f16/bf16, which they would overrun. */
    int hooked = mutant.apply != NULL || mutant.scaling_factor != NULL || mutant.post_apply != NULL;
    if (hooked && !plain_f32(args)) {
        return PECERT_E_UNSUPPORTED;
    }
    if (mutant.apply != NULL) {
        return mutant.apply(instance, args);
    }
    int64_t n = args->x->shape[0];
    pecert_rope_config c = edited_config(args->config);
    int64_t *pos = edited_positions(&c, args->positions, n);
    if (pos == NULL) {
        return PECERT_E_NOMEM;
    }
    pecert_rope_apply_args a = *args;
    a.config = &c;
    a.positions = pos;
    a.seq_len = edited_seq_len(&c, args->seq_len, args->positions, n);
    a.pairing = mutant.edit_pairing != NULL ? mutant.edit_pairing(args->pairing) : args->pairing;
    pecert_status st = ref->rope_apply(instance, &a);
    if (st == PECERT_OK && (mutant.scaling_factor != NULL || mutant.post_apply != NULL)) {
        double *inv = malloc((size_t)(c.rotary_dim / 2 + 1) * sizeof(double));
        double s = 1.0;
        if (inv != NULL && mutant_ref_freqs(instance, inv, &s, &c, a.seq_len, pos, n) == PECERT_OK) {
            scale_rotated(&a, c.rotary_dim, scaling_factor(&c, s));
            if (mutant.post_apply != NULL) {
                mutant.post_apply(&c, s, &a);
            }
        }
        free(inv);
    }
    free(pos);
    return st;
}

/* ---- decode session: ref's, with the same edits as apply ---------------- */

typedef struct mutant_session {
    void *ref_session;
    pecert_rope_config config; /* the edited config ref's session points to */
} mutant_session;

static pecert_status w_session_create(void *instance, void **out, const pecert_session_config *config)
{
    mutant_session *ms = calloc(1, sizeof(*ms));
    if (ms == NULL || out == NULL || config == NULL) {
        free(ms);
        return out == NULL || config == NULL ? PECERT_E_INVAL : PECERT_E_NOMEM;
    }
    pecert_session_config c = *config;
    if (config->rope != NULL) { /* ALiBi-only sessions have no rope to edit */
        ms->config = edited_config(config->rope);
        c.rope = &ms->config;
    }
    c.pairing = mutant.edit_pairing != NULL ? mutant.edit_pairing(config->pairing) : config->pairing;
    pecert_status st = ref->session_create(instance, &ms->ref_session, &c);
    if (st != PECERT_OK) {
        free(ms);
        ms = NULL;
    }
    *out = ms;
    return st;
}

static void w_session_destroy(void *instance, void *session)
{
    mutant_session *ms = session;
    if (ms != NULL) {
        ref->session_destroy(instance, ms->ref_session);
        free(ms);
    }
}

static pecert_status w_session_append(void *instance, void *session, const pecert_session_append_args *args)
{
    mutant_session *ms = session;
    if (ms == NULL || args == NULL || args->n_tokens < 0 || (args->n_tokens > 0 && args->positions == NULL)) {
        return ref->session_append(instance, ms != NULL ? ms->ref_session : NULL, args);
    }
    int64_t n = args->n_tokens;
    int64_t *pos = edited_positions(&ms->config, args->positions, n);
    uint8_t *valid = malloc((size_t)(n > 0 ? n : 1));
    pecert_status st = PECERT_E_NOMEM;
    if (pos != NULL && valid != NULL) {
        for (int64_t t = 0; t < n; t++) {
            valid[t] = args->valid == NULL || args->valid[t] != 0;
        }
        if (mutant.edit_append != NULL) {
            mutant.edit_append(pos, valid, args->seq_ids, n);
        }
        pecert_session_append_args a = *args;
        a.positions = pos;
        a.valid = valid;
        st = ref->session_append(instance, ms->ref_session, &a);
    }
    free(valid);
    free(pos);
    return st;
}

static pecert_status w_session_read_keys(void *instance, void *session, pecert_tensor *out, int32_t seq)
{
    mutant_session *ms = session;
    return ref->session_read_keys(instance, ms != NULL ? ms->ref_session : NULL, out, seq);
}


static pecert_plugin desc = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.mutant",
    .version = "1",
    .vendor = "pecert mutants",
    .create = w_create,
    .destroy = w_destroy,
    .last_error = w_last_error,
    .rope_freqs = w_freqs,
    .rope_cos_sin = w_cos_sin,
    .rope_apply = w_apply,
    .session_create = w_session_create,
    .session_destroy = w_session_destroy,
    .session_append = w_session_append,
    .session_read_keys = w_session_read_keys,
};

void mutant_store_1d(const pecert_tensor *t, int64_t i, double v)
{
    char *p = (char *)t->data;
    int64_t off = i * t->strides[0];
    switch (t->dtype) {
    case PECERT_DTYPE_F64: ((double *)(void *)p)[off] = v; break;
    case PECERT_DTYPE_F32: ((float *)(void *)p)[off] = (float)v; break;
    case PECERT_DTYPE_I64: ((int64_t *)(void *)p)[off] = (int64_t)v; break;
    case PECERT_DTYPE_I32: ((int32_t *)(void *)p)[off] = (int32_t)v; break;
    default: break;
    }
}

void mutant_store_2d(const pecert_tensor *t, int64_t i, int64_t j, double v)
{
    int64_t off = i * t->strides[0] + j * t->strides[1];
    if (t->dtype == PECERT_DTYPE_F64) {
        ((double *)t->data)[off] = v;
    } else {
        ((float *)t->data)[off] = (float)v;
    }
}

void mutant_store_2d_int(const pecert_tensor *t, int64_t i, int64_t j, int64_t v)
{
    int64_t off = i * t->strides[0] + j * t->strides[1];
    if (t->dtype == PECERT_DTYPE_I64) {
        ((int64_t *)t->data)[off] = v;
    } else {
        ((int32_t *)t->data)[off] = (int32_t)v;
    }
}

static pecert_status alibi_slopes(void *instance, const pecert_alibi_slopes_args *a)
{
    mutant_slope_fn slope = mutant.alibi_slope;

    (void)instance;
    if (a == NULL || a->out == NULL || a->num_heads < 1 || a->out->shape[0] != a->num_heads) {
        return PECERT_E_INVAL;
    }
    for (int32_t h = 0; h < a->num_heads; h++) {
        mutant_store_1d(a->out, h, (mutant_real)slope(h, a->num_heads, a->max_bias));
    }
    return PECERT_OK;
}

static pecert_status alibi_bias(void *instance, const pecert_alibi_bias_args *a)
{
    mutant_slope_fn slope = mutant.alibi_slope;

    (void)instance;
    if (a == NULL || a->out == NULL || a->num_heads < 1 || a->out->ndim != 3) {
        return PECERT_E_INVAL;
    }
    for (int32_t h = 0; h < a->num_heads; h++) {
        mutant_real m = (mutant_real)slope(h, a->num_heads, a->max_bias);
        for (int64_t i = 0; i < a->n_q; i++) {
            for (int64_t j = 0; j < a->n_k; j++) {
                mutant_real d = (mutant_real)(a->q_positions[i] - a->k_positions[j]);
                mutant_real v = -m * (a->symmetric ? (d < 0 ? -d : d) : d);
                int64_t off = h * a->out->strides[0] + i * a->out->strides[1] + j * a->out->strides[2];
                if (a->out->dtype == PECERT_DTYPE_F64) {
                    ((double *)a->out->data)[off] = v;
                } else {
                    ((float *)a->out->data)[off] = (float)v;
                }
            }
        }
    }
    return PECERT_OK;
}

/* A float32-base mutant's name: "NAME.f32", so that reports never mistake
 * it for the ref-base mutant of the same bug. */
static char mutant_f32_name[96];

/* ref's descriptor with the RoPE and session entries wrapped: every family
 * ref implements is exported, unchanged unless the mutant patches it. */
static void build_descriptor(void)
{
    pecert_plugin wrapped = desc;
    desc = *ref;
    desc.id = wrapped.id;
    desc.name = MUTANT_F32 ? mutant_f32_name : mutant.name;
    desc.version = wrapped.version;
    desc.vendor = wrapped.vendor;
    desc.create = wrapped.create;
    desc.destroy = wrapped.destroy;
    desc.last_error = wrapped.last_error;
    desc.rope_freqs = wrapped.rope_freqs;
    desc.rope_cos_sin = wrapped.rope_cos_sin;
    desc.rope_apply = wrapped.rope_apply;
    desc.session_create = wrapped.session_create;
    desc.session_destroy = wrapped.session_destroy;
    desc.session_append = wrapped.session_append;
    desc.session_read_keys = wrapped.session_read_keys;
    if (mutant.alibi_slope != NULL) {
        desc.alibi_slopes = alibi_slopes;
        desc.alibi_bias = alibi_bias;
    }
    if (mutant.patch != NULL) {
        mutant.patch(&desc);
    }
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    static int built;
    if (PECERT_ABI_MAJOR_OF(host_abi_version) != PECERT_ABI_MAJOR) {
        return NULL;
    }
    if (ref == NULL) {
        ref = load_ref();
    }
    if (ref == NULL) {
        return NULL;
    }
    if (!built) {
        snprintf(mutant_f32_name, sizeof(mutant_f32_name), "%s.f32", mutant.name);
        build_descriptor();
        built = 1;
    }
    return &desc;
}
