/*
 * freqs.c - inverse frequencies per rope type, and the rope_freqs op.
 *
 * One function per _compute_*_parameters function of transformers v4.57.6
 * src/transformers/modeling_rope_utils.py, evaluated in double where the
 * original uses float32 tensors. Defaults are already applied (params.c).
 * Frequencies are indexed i = 0 .. dim/2 - 1 with dim = rotary_dim.
 */
#include <math.h>

#include "ref.h"

/* 2 * math.pi: doubling the double nearest pi is exact. */
static const double two_pi = 2.0 * 3.141592653589793;

/* theta ** (2i / dim): the exponent `arange(0, dim, 2) / dim` of
 * _compute_default_rope_parameters. */
static double theta_power(double theta, int32_t i, int32_t dim)
{
    return pow(theta, (double)(2 * i) / (double)dim);
}

/* _compute_default_rope_parameters: 1 / theta ** (2i / dim). */
static void inv_freq_default(const pecert__ref_params *params, double theta,
                             double *out)
{
    int32_t i;

    for (i = 0; i < params->dim / 2; i++) {
        out[i] = 1.0 / theta_power(theta, i, params->dim);
    }
}

/* _compute_linear_scaling_rope_parameters: the default frequencies divided
 * by factor (equivalent to dividing the positions). */
static void inv_freq_linear(const pecert__ref_params *params, double *out)
{
    int32_t i;

    inv_freq_default(params, params->theta, out);
    for (i = 0; i < params->dim / 2; i++) {
        out[i] /= params->factor;
    }
}

/* _compute_dynamic_ntk_parameters: seq_len = max(seq_len,
 * max_position_embeddings) (none given, or <= 0 -> max_position_embeddings), then
 * base = theta * (factor * seq_len / max_pos - (factor - 1)) ** (dim / (dim - 2)). */
static void inv_freq_dynamic(const pecert__ref_params *params, int64_t seq_len,
                             double *out)
{
    int64_t length = seq_len > params->max_pos ? seq_len : params->max_pos;
    double growth = params->factor * (double)length / (double)params->max_pos -
                    (params->factor - 1.0);
    double exponent = (double)params->dim / (double)(params->dim - 2);

    inv_freq_default(params, params->theta * pow(growth, exponent), out);
}

/* _compute_yarn_parameters, find_correction_dim: the dimension whose
 * wavelength makes num_rotations turns over the original context. */
static double yarn_correction_dim(const pecert__ref_params *params,
                                  double num_rotations)
{
    return ((double)params->dim *
            log((double)params->original_max_pos / (num_rotations * two_pi))) /
           (2.0 * log(params->theta));
}

/* _compute_yarn_parameters, find_correction_range and linear_ramp_factor:
 * low/high from beta_fast/beta_slow (floor/ceil when truncate), clamped to
 * [0, dim - 1]; equal bounds get high += 0.001. */
static void yarn_ramp_bounds(const pecert__ref_params *params, double *out_low,
                             double *out_high)
{
    double low = yarn_correction_dim(params, params->beta_fast);
    double high = yarn_correction_dim(params, params->beta_slow);

    if (params->truncate) {
        low = floor(low);
        high = ceil(high);
    }
    low = low > 0.0 ? low : 0.0;
    high = high < (double)(params->dim - 1) ? high : (double)(params->dim - 1);
    if (low == high) {
        high += 0.001;
    }
    *out_low = low;
    *out_high = high;
}

/* _compute_yarn_parameters: blend of interpolated (1 / (factor * pos))
 * and extrapolated (1 / pos) frequencies, the extrapolation weight being
 * 1 - clamp((i - low) / (high - low), 0, 1). */
static void inv_freq_yarn(const pecert__ref_params *params, double *out)
{
    double low;
    double high;
    int32_t i;

    yarn_ramp_bounds(params, &low, &high);
    for (i = 0; i < params->dim / 2; i++) {
        double pos_freq = theta_power(params->theta, i, params->dim);
        double ramp = ((double)i - low) / (high - low);
        double extrapolation;

        ramp = ramp < 0.0 ? 0.0 : (ramp > 1.0 ? 1.0 : ramp);
        extrapolation = 1.0 - ramp;
        out[i] = (1.0 / (params->factor * pos_freq)) * (1.0 - extrapolation) +
                 (1.0 / pos_freq) * extrapolation;
    }
}

/* _compute_longrope_parameters: 1 / (ext_factor[i] * theta ** (2i / dim)),
 * long factors when a seq_len is given and exceeds L0, short otherwise. */
static void inv_freq_longrope(const pecert__ref_params *params, int64_t seq_len,
                              double *out)
{
    const double *ext = (seq_len > 0 && seq_len > params->original_max_pos)
                             ? params->long_factor
                             : params->short_factor;
    int32_t i;

    for (i = 0; i < params->dim / 2; i++) {
        out[i] = 1.0 / (ext[i] * theta_power(params->theta, i, params->dim));
    }
}

/* _compute_llama3_parameters: with wavelen = 2 pi / inv_freq and L the
 * original context, wavelengths above L / low_freq_factor are divided by
 * factor, those below L / high_freq_factor kept, and the ones in between
 * smoothed with s = (L / wavelen - low) / (high - low):
 * (1 - s) * inv / factor + s * inv. */
static void inv_freq_llama3(const pecert__ref_params *params, double *out)
{
    double context = (double)params->original_max_pos;
    double low_freq_wavelen = context / params->low_freq_factor;
    double high_freq_wavelen = context / params->high_freq_factor;
    int32_t i;

    inv_freq_default(params, params->theta, out);
    for (i = 0; i < params->dim / 2; i++) {
        double wavelen = two_pi / out[i];
        double inv = wavelen > low_freq_wavelen ? out[i] / params->factor : out[i];
        double smooth = (context / wavelen - params->low_freq_factor) /
                        (params->high_freq_factor - params->low_freq_factor);

        if (!(wavelen < high_freq_wavelen) && !(wavelen > low_freq_wavelen)) {
            inv = (1.0 - smooth) * inv / params->factor + smooth * inv;
        }
        out[i] = inv;
    }
}

void pecert__ref_inv_freq(const pecert__ref_params *params, int64_t seq_len,
                          double *out_inv_freq)
{
    switch (params->type) {
    case PECERT_ROPE_LINEAR:
        inv_freq_linear(params, out_inv_freq);
        break;
    case PECERT_ROPE_DYNAMIC:
        inv_freq_dynamic(params, seq_len, out_inv_freq);
        break;
    case PECERT_ROPE_YARN:
        inv_freq_yarn(params, out_inv_freq);
        break;
    case PECERT_ROPE_LONGROPE:
        inv_freq_longrope(params, seq_len, out_inv_freq);
        break;
    case PECERT_ROPE_LLAMA3:
        inv_freq_llama3(params, out_inv_freq);
        break;
    default:
        inv_freq_default(params, params->theta, out_inv_freq);
        break;
    }
}

pecert_status pecert__ref_check_inv_freq(const pecert__ref_call *call,
                                         const double *inv_freq, int32_t half)
{
    int32_t i;

    for (i = 0; i < half; i++) {
        if (!isfinite(inv_freq[i])) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "the config gives a non-finite inv_freq[%d]=%g",
                                    (int)i, inv_freq[i]);
        }
    }
    return PECERT_OK;
}

/* rope_freqs: every argument is checked before the first write; only a
 * degenerate config whose frequencies overflow is caught afterwards. */
pecert_status pecert__ref_rope_freqs(void *instance, double *out_inv_freq,
                                     double *out_attention_scaling,
                                     const pecert_rope_config *config,
                                     int64_t seq_len)
{
    pecert__ref_call call;
    pecert__ref_params params;
    pecert_status status;

    pecert__ref_begin_call(&call, instance, "rope_freqs");
    if (out_inv_freq == NULL || out_attention_scaling == NULL) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "%s is NULL",
                                out_inv_freq == NULL ? "out_inv_freq"
                                                     : "out_attention_scaling");
    }
    status = pecert__ref_check_config(&call, config);
    if (status == PECERT_OK) {
        status = pecert__ref_check_seq_len(&call, seq_len);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_resolve_params(&call, config, &params);
    }
    if (status != PECERT_OK) {
        return status;
    }
    pecert__ref_inv_freq(&params, seq_len, out_inv_freq);
    status = pecert__ref_check_inv_freq(&call, out_inv_freq, params.dim / 2);
    if (status == PECERT_OK) {
        *out_attention_scaling = params.attention_factor;
    }
    return status;
}
