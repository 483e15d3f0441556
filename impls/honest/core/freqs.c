/*
 * freqs.c - the float32 frequency set of a call, per rope type and form.
 *
 * Torch form: transformers v4.57.6 modeling_rope_utils.py, whose tensors
 * are float32 and whose scalars (the YaRN correction range and mscale,
 * llama3's wavelength bounds, the dynamic NTK base) are Python floats;
 * with scaled_in_f32 those scalars are float32 too.
 * Recurrence / pow-index forms: ggml's rope (ggml-cpu ops.cpp,
 * ggml-cuda rope.cu): the base angle p * theta_scale^i, then
 * rope_yarn's blend of an interpolated (freq_scale * t) and an
 * extrapolated (t) angle, t = base / freq_factor; llama3 and LongRoPE
 * enter as freq_factors (llama.cpp's rope_freqs tensor), linear as
 * freq_scale, YaRN as freq_scale plus the ramp.
 */
#include <math.h>
#include <stdlib.h>

#include "honest.h"

static const double two_pi = 2.0 * 3.141592653589793;

/* torch: base ** (arange(0, d, 2).float() / d), all in float32. */
static float pow_exponent(double theta, int32_t i, int32_t dim)
{
    float e = (float)(2 * i) / (float)dim;
    return powf((float)theta, e);
}

/* YaRN's correction dimension, in double (official) or float32. */
static double correction_dim(const pecert__ref_params *p, double rotations)
{
    if (honest.scaled_in_f32) {
        float r = (float)p->original_max_pos / ((float)rotations * 2.0f * (float)M_PI);
        return (float)p->dim * logf(r) / (2.0f * logf((float)p->theta));
    }
    return (double)p->dim * log((double)p->original_max_pos / (rotations * two_pi)) /
           (2.0 * log(p->theta));
}

static void yarn_range(const pecert__ref_params *p, double *low, double *high)
{
    *low = correction_dim(p, p->beta_fast);
    *high = correction_dim(p, p->beta_slow);
    if (p->truncate) {
        *low = floor(*low);
        *high = ceil(*high);
    }
    *low = *low > 0.0 ? *low : 0.0;
    *high = *high < p->dim - 1 ? *high : p->dim - 1;
    if (*low == *high) {
        *high += 0.001;
    }
}

/* The extrapolation weight of pair i: 1 - clamp((i - low) / (high - low)). */
static float yarn_weight(float i, double low, double high)
{
    float ramp = (i - (float)low) / (float)(high - low);
    ramp = ramp < 0.0f ? 0.0f : (ramp > 1.0f ? 1.0f : ramp);
    return 1.0f - ramp;
}

/* The dynamic NTK base at the call's length. */
static double dynamic_base(const pecert__ref_params *p, int64_t seq_len)
{
    int64_t length = seq_len > p->max_pos ? seq_len : p->max_pos;
    if (honest.scaled_in_f32) {
        float growth = (float)p->factor * (float)length / (float)p->max_pos - ((float)p->factor - 1.0f);
        return (float)p->theta * powf(growth, (float)p->dim / (float)(p->dim - 2));
    }
    double growth = p->factor * (double)length / (double)p->max_pos - (p->factor - 1.0);
    return p->theta * pow(growth, (double)p->dim / (double)(p->dim - 2));
}

/* llama3: the smoothing weight s of a wavelength, and which band it is in
 * (-1 long: divided by factor, 1 short: kept, 0 medium: smoothed). */
static int llama3_band(const pecert__ref_params *p, float wavelen, float *smooth)
{
    double low_wavelen = (double)p->original_max_pos / p->low_freq_factor;
    double high_wavelen = (double)p->original_max_pos / p->high_freq_factor;
    if (honest.scaled_in_f32) {
        low_wavelen = (float)p->original_max_pos / (float)p->low_freq_factor;
        high_wavelen = (float)p->original_max_pos / (float)p->high_freq_factor;
    }
    *smooth = ((float)p->original_max_pos / wavelen - (float)p->low_freq_factor) /
              ((float)p->high_freq_factor - (float)p->low_freq_factor);
    if (wavelen > low_wavelen) {
        return -1;
    }
    return wavelen < high_wavelen ? 1 : 0;
}

/* The torch form's inverse frequencies (modeling_rope_utils.py). */
static void torch_inv_freq(const pecert__ref_params *p, int64_t seq_len, float *out)
{
    double theta = p->type == PECERT_ROPE_DYNAMIC ? dynamic_base(p, seq_len) : p->theta;
    const double *ext = NULL;
    double low = 0.0;
    double high = 1.0;
    if (p->type == PECERT_ROPE_LONGROPE) {
        ext = seq_len > p->original_max_pos ? p->long_factor : p->short_factor;
    }
    if (p->type == PECERT_ROPE_YARN) {
        yarn_range(p, &low, &high);
    }
    for (int32_t i = 0; i < p->dim / 2; i++) {
        float pos_freq = pow_exponent(theta, i, p->dim);
        float inv = 1.0f / pos_freq;
        if (p->type == PECERT_ROPE_LINEAR) {
            inv = inv / (float)p->factor;
        } else if (p->type == PECERT_ROPE_LONGROPE) {
            inv = 1.0f / ((float)ext[i] * pos_freq);
        } else if (p->type == PECERT_ROPE_YARN) {
            float w = yarn_weight((float)i, low, high);
            float interp = 1.0f / ((float)p->factor * pos_freq);
            inv = interp * (1.0f - w) + inv * w;
        } else if (p->type == PECERT_ROPE_LLAMA3) {
            float wavelen = (float)two_pi / inv;
            float smooth;
            int band = llama3_band(p, wavelen, &smooth);
            float scaled = band < 0 ? inv / (float)p->factor : inv;
            inv = band == 0 ? (1.0f - smooth) * scaled / (float)p->factor + smooth * scaled : scaled;
        }
        out[i] = inv;
    }
}

/* ggml's per-pair factors: llama3's rope_freqs (computed in double by
 * llama.cpp's converter, stored float32) and LongRoPE's factor lists. */
static void ggml_factors(const pecert__ref_params *p, int64_t seq_len, honest_freqs *f)
{
    double low = 0.0;
    double high = 1.0;
    if (p->type == PECERT_ROPE_YARN) {
        yarn_range(p, &low, &high);
    }
    for (int32_t i = 0; i < f->half; i++) {
        f->freq_factor[i] = 1.0f;
        f->ramp[i] = 0.0f;
        if (p->type == PECERT_ROPE_LONGROPE) {
            const double *ext = seq_len > p->original_max_pos ? p->long_factor : p->short_factor;
            f->freq_factor[i] = (float)ext[i];
        } else if (p->type == PECERT_ROPE_YARN) {
            f->ramp[i] = yarn_weight((float)i, low, high);
        } else if (p->type == PECERT_ROPE_LLAMA3) {
            float base = 1.0f / pow_exponent(p->theta, i, p->dim);
            float smooth;
            int band = llama3_band(p, (float)two_pi / base, &smooth);
            double s = smooth;
            f->freq_factor[i] = band < 0 ? (float)p->factor
                                : band > 0 ? 1.0f
                                           : (float)(1.0 / ((1.0 - s) / p->factor + s));
        }
    }
    f->freq_scale = (p->type == PECERT_ROPE_LINEAR || p->type == PECERT_ROPE_YARN)
                        ? 1.0f / (float)p->factor
                        : 1.0f;
    double theta = p->type == PECERT_ROPE_DYNAMIC ? dynamic_base(p, seq_len) : p->theta;
    f->theta_scale = powf((float)theta, -2.0f / (float)p->dim);
}

/* The attention scaling: the resolved double rounded once, or (scaled in
 * float32) YaRN's 0.1 ln(factor) + 1 and LongRoPE's
 * sqrt(1 + ln(factor) / ln(L0)) in float32. */
static float attention_scaling(const pecert_rope_config *c, const pecert__ref_params *p)
{
    if (!honest.scaled_in_f32 || (c->present & PECERT_ROPE_HAS_ATTENTION_FACTOR) ||
        p->factor <= 1.0) {
        return (float)p->attention_factor;
    }
    float factor = (float)p->factor;
    if (p->type == PECERT_ROPE_YARN) {
        int both = (c->present & PECERT_ROPE_HAS_MSCALE) && c->mscale != 0.0 &&
                   (c->present & PECERT_ROPE_HAS_MSCALE_ALL_DIM) && c->mscale_all_dim != 0.0;
        if (both) {
            return (0.1f * (float)c->mscale * logf(factor) + 1.0f) /
                   (0.1f * (float)c->mscale_all_dim * logf(factor) + 1.0f);
        }
        return 0.1f * logf(factor) + 1.0f;
    }
    if (p->type == PECERT_ROPE_LONGROPE) {
        return sqrtf(1.0f + logf(factor) / logf((float)p->original_max_pos));
    }
    return (float)p->attention_factor;
}

pecert_status honest_freqs_init(const pecert__ref_call *call, honest_freqs *f,
                                const pecert_rope_config *config, int64_t seq_len,
                                const int64_t *positions, int64_t n_positions)
{
    pecert__ref_params p;
    pecert_status st = pecert__ref_resolve_params(call, config, &p);
    if (st != PECERT_OK) {
        return st;
    }
    if (seq_len == 0 && n_positions > 0) { /* transformers' forward: max(position) + 1 */
        int64_t max = positions[0];
        for (int64_t t = 1; t < n_positions; t++) {
            max = positions[t] > max ? positions[t] : max;
        }
        seq_len = max + 1;
    }
    f->half = p.dim / 2;
    size_t n = (size_t)(f->half > 0 ? f->half : 1);
    f->inv_freq = calloc(n, sizeof(float));
    f->freq_factor = calloc(n, sizeof(float));
    f->ramp = calloc(n, sizeof(float));
    if (f->inv_freq == NULL || f->freq_factor == NULL || f->ramp == NULL) {
        honest_freqs_free(f);
        return pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory for %d frequencies", (int)f->half);
    }
    f->scaling = attention_scaling(config, &p);
    if (honest.freqs == HONEST_FREQ_TORCH) {
        torch_inv_freq(&p, seq_len, f->inv_freq);
    } else {
        ggml_factors(&p, seq_len, f);
        honest_angles(f, 1, f->inv_freq); /* the angle at p = 1 */
    }
    for (int32_t i = 0; i < f->half; i++) {
        if (!isfinite(f->inv_freq[i])) {
            int32_t bad = i;
            honest_freqs_free(f);
            return pecert__ref_fail(call, PECERT_E_INVAL, "the config gives a non-finite float32 inv_freq[%d]",
                                    (int)bad);
        }
    }
    return PECERT_OK;
}

void honest_freqs_free(honest_freqs *f)
{
    free(f->inv_freq);
    free(f->freq_factor);
    free(f->ramp);
    f->inv_freq = f->freq_factor = f->ramp = NULL;
}

/* ggml's rope_yarn angle from the base angle of pair i. */
static float ggml_angle(const honest_freqs *f, int32_t i, float base)
{
    float extrapolated = base / f->freq_factor[i];
    float interpolated = f->freq_scale * extrapolated;
    float w = f->ramp[i];
    return interpolated * (1.0f - w) + extrapolated * w;
}

void honest_angles(const honest_freqs *f, int64_t p, float *out_theta)
{
    float position = (float)p;
    if (honest.freqs == HONEST_FREQ_TORCH) {
        for (int32_t i = 0; i < f->half; i++) {
            out_theta[i] = position * f->inv_freq[i];
        }
    } else if (honest.freqs == HONEST_FREQ_RECURRENCE) {
        float base = position;
        for (int32_t i = 0; i < f->half; i++) {
            out_theta[i] = ggml_angle(f, i, base);
            base *= f->theta_scale;
        }
    } else {
        for (int32_t i = 0; i < f->half; i++) {
            out_theta[i] = ggml_angle(f, i, position * powf(f->theta_scale, (float)i));
        }
    }
}
