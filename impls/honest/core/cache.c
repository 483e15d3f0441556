/*
 * cache.c - cos/sin per position, computed on the fly or, for a variant
 * with position_cache, read from a float32 table over positions
 * [0, max_position_embeddings) as serving engines keep one (vLLM's
 * RotaryEmbedding._compute_cos_sin_cache: t = arange(max_position) in
 * float32, freqs = einsum(t, inv_freq), cos/sin times the scaling). The
 * table is rebuilt when the frequency set changes (dynamic NTK, LongRoPE's
 * switch). A row depends on its position alone, so each is computed when
 * first read: the values are the whole table's, without the cost of
 * filling the rows no call reads (a far position would otherwise cost
 * every row below it, for every frequency set a run meets).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "honest.h"

struct honest_cache {
    honest_freqs key;   /* the frequency set the rows belong to (copies) */
    int64_t capacity;   /* rows allocated                                */
    float *cos;         /* [capacity, half]                              */
    float *sin;
    uint8_t *filled;    /* [capacity]: row computed                      */
};

void honest_cache_free(struct honest_cache *cache)
{
    if (cache != NULL) {
        honest_freqs_free(&cache->key);
        free(cache->cos);
        free(cache->sin);
        free(cache->filled);
        free(cache);
    }
}

static void compute_row(const honest_freqs *f, int64_t p, float *out_cos, float *out_sin, float *theta)
{
    honest_angles(f, p, theta);
    for (int32_t i = 0; i < f->half; i++) {
        float s;
        float c;
        honest_sincos(theta[i], &s, &c);
        out_cos[i] = c * f->scaling;
        out_sin[i] = s * f->scaling;
    }
}

static int same_set(const honest_freqs *a, const honest_freqs *b)
{
    size_t n = (size_t)a->half * sizeof(float);
    return a->half == b->half && a->scaling == b->scaling && a->theta_scale == b->theta_scale &&
           a->freq_scale == b->freq_scale && memcmp(a->inv_freq, b->inv_freq, n) == 0 &&
           memcmp(a->freq_factor, b->freq_factor, n) == 0 && memcmp(a->ramp, b->ramp, n) == 0;
}

static struct honest_cache *cache_for(honest_instance *self, const honest_freqs *f)
{
    struct honest_cache *c = self->cache;
    if (c != NULL && same_set(&c->key, f)) {
        return c;
    }
    honest_cache_free(c);
    self->cache = c = calloc(1, sizeof(*c));
    size_t n = (size_t)(f->half > 0 ? f->half : 1) * sizeof(float);
    if (c == NULL) {
        return NULL;
    }
    c->key = *f;
    c->key.inv_freq = malloc(n);
    c->key.freq_factor = malloc(n);
    c->key.ramp = malloc(n);
    if (c->key.inv_freq == NULL || c->key.freq_factor == NULL || c->key.ramp == NULL) {
        honest_cache_free(c);
        self->cache = NULL;
        return NULL;
    }
    memcpy(c->key.inv_freq, f->inv_freq, n);
    memcpy(c->key.freq_factor, f->freq_factor, n);
    memcpy(c->key.ramp, f->ramp, n);
    return c;
}

/* Makes row p of the table, growing it by doubling (rows past the
 * filled ones are computed when read). */
static int fill_row(struct honest_cache *c, int64_t p, int64_t limit)
{
    int32_t half = c->key.half;
    if (p >= c->capacity) {
        int64_t cap = c->capacity > 0 ? 2 * c->capacity : 1024;
        cap = cap > p + 1 ? cap : p + 1;
        cap = cap < limit ? cap : limit;
        float *nc = realloc(c->cos, (size_t)cap * (size_t)half * sizeof(float));
        if (nc != NULL) {
            c->cos = nc;
        }
        float *ns = realloc(c->sin, (size_t)cap * (size_t)half * sizeof(float));
        if (ns != NULL) {
            c->sin = ns;
        }
        uint8_t *nf = realloc(c->filled, (size_t)cap);
        if (nf != NULL) {
            c->filled = nf;
        }
        if (nc == NULL || ns == NULL || nf == NULL) {
            return -1;
        }
        memset(c->filled + c->capacity, 0, (size_t)(cap - c->capacity));
        c->capacity = cap;
    }
    if (c->filled[p]) {
        return 0;
    }
    float *theta = malloc((size_t)(half > 0 ? half : 1) * sizeof(float));
    if (theta == NULL) {
        return -1;
    }
    compute_row(&c->key, p, c->cos + p * half, c->sin + p * half, theta);
    c->filled[p] = 1;
    free(theta);
    return 0;
}

pecert_status honest_row(const pecert__ref_call *call, honest_instance *self, const honest_freqs *f,
                         const pecert_rope_config *config, int64_t p, float *out_cos, float *out_sin)
{
    int64_t limit = config->max_position_embeddings;
    if (honest.position_cache && (p < 0 || p >= limit)) {
        return pecert__ref_fail(call, PECERT_E_UNSUPPORTED,
                                "position %" PRId64 " is outside the cos/sin cache [0, "
                                "max_position_embeddings=%" PRId64 ")",
                                p, limit);
    }
    if (!honest.position_cache || self == NULL) {
        float *theta = malloc((size_t)(f->half > 0 ? f->half : 1) * sizeof(float));
        if (theta == NULL) {
            return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
        }
        compute_row(f, p, out_cos, out_sin, theta);
        free(theta);
        return PECERT_OK;
    }
    struct honest_cache *c = cache_for(self, f);
    if (c == NULL || fill_row(c, p, limit) != 0) {
        return pecert__ref_fail(call, PECERT_E_NOMEM,
                                "out of memory for the cos/sin cache up to position %" PRId64, p);
    }
    memcpy(out_cos, c->cos + p * f->half, (size_t)f->half * sizeof(float));
    memcpy(out_sin, c->sin + p * f->half, (size_t)f->half * sizeof(float));
    return PECERT_OK;
}
