/*
 * freqs.c - inverse frequencies per rope type, the rope_freqs op, and the
 * per-instance cache that keeps them across calls.
 *
 * One function per _compute_*_parameters of transformers v4.57.6
 * (src/transformers/modeling_rope_utils.py), in double where the original
 * computes float32 tensors (the golden check's tolerance covers the
 * float32 rounding of the official code). Frequency i of d = rotary_dim
 * is indexed i = 0 .. d/2 - 1.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fast.h"

/* 2 * math.pi (doubling the double nearest pi is exact). */
static const double two_pi = 2.0 * 3.141592653589793;

/* base ** (2i / d): the exponent arange(0, d, 2) / d of the default. */
static double base_power(double base, int32_t i, int32_t dim)
{
    return pow(base, (double)(2 * i) / (double)dim);
}

/* _compute_default_rope_parameters: 1 / base ** (2i / d). */
static void default_freqs(int32_t dim, double base, double *out)
{
    int32_t i;

    for (i = 0; i < dim / 2; i++) {
        out[i] = 1.0 / base_power(base, i, dim);
    }
}

/* _compute_linear_scaling_rope_parameters: default / factor. */
static void linear_freqs(const pecert__fast_params *p, double *out)
{
    int32_t i;

    default_freqs(p->dim, p->theta, out);
    for (i = 0; i < p->dim / 2; i++) {
        out[i] /= p->factor;
    }
}

/* _compute_dynamic_ntk_parameters: L = max(seq_len, max_pos); the base
 * grows to theta * (factor * L / max_pos - (factor - 1)) ** (d / (d - 2)). */
static void dynamic_freqs(const pecert__fast_params *p, int64_t seq_len, double *out)
{
    int64_t length = seq_len > p->max_pos ? seq_len : p->max_pos;
    double growth = p->factor * (double)length / (double)p->max_pos - (p->factor - 1.0);

    default_freqs(p->dim, p->theta * pow(growth, (double)p->dim / (double)(p->dim - 2)), out);
}

/* find_correction_dim: the dimension that turns num_rotations times over
 * the original context. */
static double yarn_dim(const pecert__fast_params *p, double num_rotations)
{
    return ((double)p->dim * log((double)p->original_max_pos / (num_rotations * two_pi))) /
           (2.0 * log(p->theta));
}

/* _compute_yarn_parameters: the ramp from find_correction_range (floor /
 * ceil when truncate, clamped to [0, d - 1], +0.001 if equal) blends
 * interpolated 1 / (factor * pos_freq) with extrapolated 1 / pos_freq. */
static void yarn_freqs(const pecert__fast_params *p, double *out)
{
    double low = yarn_dim(p, p->beta_fast);
    double high = yarn_dim(p, p->beta_slow);
    int32_t i;

    if (p->truncate) {
        low = floor(low);
        high = ceil(high);
    }
    low = low > 0.0 ? low : 0.0;
    high = high < (double)(p->dim - 1) ? high : (double)(p->dim - 1);
    if (low == high) {
        high += 0.001;
    }
    for (i = 0; i < p->dim / 2; i++) {
        double pos_freq = base_power(p->theta, i, p->dim);
        double ramp = fmin(fmax(((double)i - low) / (high - low), 0.0), 1.0);
        double extrapolation = 1.0 - ramp;

        out[i] = (1.0 / (p->factor * pos_freq)) * (1.0 - extrapolation) +
                 (1.0 / pos_freq) * extrapolation;
    }
}

/* _compute_longrope_parameters: 1 / (ext[i] * base ** (2i / d)), the long
 * factors once a given seq_len exceeds L0, the short ones otherwise. */
static void longrope_freqs(const pecert__fast_params *p, int64_t seq_len, double *out)
{
    const double *ext = seq_len > 0 && seq_len > p->original_max_pos ? p->long_factor
                                                                       : p->short_factor;
    int32_t i;

    for (i = 0; i < p->dim / 2; i++) {
        out[i] = 1.0 / (ext[i] * base_power(p->theta, i, p->dim));
    }
}

/* _compute_llama3_parameters: wavelengths 2 pi / f above L / low are
 * divided by factor, those below L / high kept, the ones between smoothed
 * by s = (L / wavelen - low) / (high - low): (1 - s) f / factor + s f. */
static void llama3_freqs(const pecert__fast_params *p, double *out)
{
    double context = (double)p->original_max_pos;
    double long_wavelen = context / p->low_freq_factor;
    double short_wavelen = context / p->high_freq_factor;
    int32_t i;

    default_freqs(p->dim, p->theta, out);
    for (i = 0; i < p->dim / 2; i++) {
        double wavelen = two_pi / out[i];
        double f = wavelen > long_wavelen ? out[i] / p->factor : out[i];
        double smooth = (context / wavelen - p->low_freq_factor) /
                        (p->high_freq_factor - p->low_freq_factor);

        if (!(wavelen < short_wavelen) && !(wavelen > long_wavelen)) {
            f = (1.0 - smooth) * f / p->factor + smooth * f;
        }
        out[i] = f;
    }
}

void pecert__fast_inv_freq(const pecert__fast_params *params, int64_t seq_len,
                           double *out_inv_freq)
{
    switch (params->type) {
    case PECERT_ROPE_LINEAR:
        linear_freqs(params, out_inv_freq);
        break;
    case PECERT_ROPE_DYNAMIC:
        dynamic_freqs(params, seq_len, out_inv_freq);
        break;
    case PECERT_ROPE_YARN:
        yarn_freqs(params, out_inv_freq);
        break;
    case PECERT_ROPE_LONGROPE:
        longrope_freqs(params, seq_len, out_inv_freq);
        break;
    case PECERT_ROPE_LLAMA3:
        llama3_freqs(params, out_inv_freq);
        break;
    default:
        default_freqs(params->dim, params->theta, out_inv_freq);
        break;
    }
}

/* A degenerate config (a tiny yarn factor) can overflow 1 / (f * pos). */
static pecert_status check_finite(const pecert__fast_call *call, const double *inv_freq,
                                  int32_t half)
{
    int32_t i;

    for (i = 0; i < half; i++) {
        if (!isfinite(inv_freq[i])) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "the config gives a non-finite inv_freq[%" PRId32 "]=%g", i,
                                     inv_freq[i]);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__fast_rope_freqs(void *instance, double *out_inv_freq,
                                      double *out_attention_scaling,
                                      const pecert_rope_config *config, int64_t seq_len)
{
    pecert__fast_call call;
    pecert__fast_params params;
    pecert_status status;

    if (pecert__fast_begin_call(&call, instance, "rope_freqs") != PECERT_OK) {
        return PECERT_E_INVAL;
    }
    if (out_inv_freq == NULL || out_attention_scaling == NULL) {
        return pecert__fast_fail(&call, PECERT_E_INVAL, "%s is NULL",
                                 out_inv_freq == NULL ? "out_inv_freq" : "out_attention_scaling");
    }
    status = pecert__fast_check_config(&call, config);
    if (status == PECERT_OK) {
        status = pecert__fast_check_seq_len(&call, seq_len);
    }
    if (status == PECERT_OK) {
        status = pecert__fast_resolve_params(&call, config, &params);
    }
    if (status != PECERT_OK) {
        return status;
    }
    pecert__fast_inv_freq(&params, seq_len, out_inv_freq);
    status = check_finite(&call, out_inv_freq, params.dim / 2);
    if (status == PECERT_OK) {
        *out_attention_scaling = params.attention_factor;
    }
    return status;
}

/* ---- the per-call frequencies and their cache --------------------------- */

int64_t pecert__fast_effective_seq_len(int64_t seq_len, int64_t n_positions,
                                       const pecert__fast_positions *positions)
{
    /* dynamic_rope_update derives the length as max(position_ids) + 1; a
     * result <= 0 selects the init-time frequencies, like seq_len 0. */
    if (seq_len != 0 || n_positions == 0) {
        return seq_len;
    }
    return positions->max_position + 1;
}

/* Only dynamic and longrope frequencies depend on the length. */
static int64_t length_key(const pecert_rope_config *config, int64_t length)
{
    int depends = config->rope_type == PECERT_ROPE_DYNAMIC ||
                  config->rope_type == PECERT_ROPE_LONGROPE;

    return depends ? length : 0;
}

static size_t factor_count(const pecert_rope_config *config)
{
    return config->rope_type == PECERT_ROPE_LONGROPE && config->num_factors > 0
               ? (size_t)config->num_factors
               : 0;
}

static int factors_equal(const double *cached, const double *given, size_t n)
{
    return n == 0 || (given != NULL && memcmp(cached, given, n * sizeof(double)) == 0);
}

/* A hit needs the same config bytes (pointers excluded), the same factor
 * values and the same length key. */
static int cache_hit(const pecert__fast_freq_cache *cache, const pecert_rope_config *config,
                     int64_t key)
{
    size_t n = factor_count(config);

    return cache->valid && cache->length_key == key &&
           memcmp(&cache->config, config, offsetof(pecert_rope_config, short_factor)) == 0 &&
           memcmp(cache->config.reserved, config->reserved, sizeof(config->reserved)) == 0 &&
           factors_equal(cache->factors, config->short_factor, n) &&
           factors_equal(cache->factors + n, config->long_factor, n);
}

/* Grows *buffer to hold n doubles; 0, or -1 when out of memory. */
static int reserve(double **buffer, size_t *cap, size_t n)
{
    double *fresh;

    if (n <= *cap) {
        return 0;
    }
    fresh = malloc(n * sizeof(double));
    if (fresh == NULL) {
        return -1;
    }
    free(*buffer);
    *buffer = fresh;
    *cap = n;
    return 0;
}

static pecert_status cache_fill(const pecert__fast_call *call, pecert__fast_freq_cache *cache,
                                const pecert_rope_config *config, int64_t length)
{
    pecert__fast_params params;
    size_t n = factor_count(config);
    int32_t half = config->rotary_dim / 2;
    pecert_status status = pecert__fast_resolve_params(call, config, &params);
    int32_t i;

    cache->valid = 0;
    if (status != PECERT_OK) {
        return status;
    }
    if (reserve(&cache->inv_freq, &cache->inv_freq_cap, 3 * (size_t)half) != 0 ||
        reserve(&cache->factors, &cache->factors_cap, 2 * n) != 0) {
        return pecert__fast_fail(call, PECERT_E_NOMEM, "cannot allocate %" PRId32 " frequencies",
                                 half);
    }
    pecert__fast_inv_freq(&params, length, cache->inv_freq);
    status = check_finite(call, cache->inv_freq, half);
    if (status != PECERT_OK) {
        return status;
    }
    cache->freqs = (pecert__fast_freqs){half, params.attention_factor, 0.0, cache->inv_freq,
                                        cache->inv_freq + half, cache->inv_freq + 2 * half};
    for (i = 0; i < half; i++) {
        cache->freqs.max_inv_freq = fmax(cache->freqs.max_inv_freq, fabs(cache->inv_freq[i]));
    }
    /* The recurrence's step, one position: the scalar kernel's exact
     * bits, whatever the instance's ISA (all ISAs agree on them). */
    if (cache->freqs.max_inv_freq < PECERT__FAST_NEAR_LIMIT) {
        pecert__fast_sincos_row_scalar(cache->inv_freq, half, 1.0, cache->inv_freq + half,
                                       cache->inv_freq + 2 * half);
    } else {
        pecert__fast_far_row(cache->inv_freq, half, 1.0, cache->inv_freq + half,
                             cache->inv_freq + 2 * half);
    }
    if (n > 0) { /* longrope only: the other types may pass NULL factors */
        memcpy(cache->factors, config->short_factor, n * sizeof(double));
        memcpy(cache->factors + n, config->long_factor, n * sizeof(double));
    }
    cache->config = *config;
    cache->config.short_factor = NULL;
    cache->config.long_factor = NULL;
    cache->length_key = length_key(config, length);
    cache->valid = 1;
    return PECERT_OK;
}

pecert_status pecert__fast_call_freqs(const pecert__fast_call *call,
                                      const pecert_rope_config *config, int64_t seq_len,
                                      const pecert__fast_positions *positions,
                                      pecert__fast_freqs *out)
{
    pecert__fast_freq_cache *cache = &call->instance->cache;
    pecert_status status = PECERT_OK;
    double largest;

    if (!cache_hit(cache, config, length_key(config, seq_len))) {
        status = cache_fill(call, cache, config, seq_len);
    }
    if (status != PECERT_OK) {
        return status;
    }
    *out = cache->freqs;
    /* The angle bound of far_angle.c: |p * inv_freq| < 2^64. */
    largest = (double)positions->max_magnitude * out->max_inv_freq;
    if (largest >= PECERT__FAST_ANGLE_LIMIT) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "|position| %" PRId64 " * inv_freq %.17g = %.17g reaches 2^64, "
                                 "past the accurate argument-reduction range",
                                 positions->max_magnitude, out->max_inv_freq, largest);
    }
    return PECERT_OK;
}

void pecert__fast_freq_cache_free(pecert__fast_freq_cache *cache)
{
    free(cache->inv_freq);
    free(cache->factors);
    memset(cache, 0, sizeof(*cache));
}
