/*
 * params.c - a rope config's Hugging Face defaults, applied once.
 *
 * Each resolve_* function mirrors what the matching _compute_*_parameters
 * function in transformers v4.57.6 src/transformers/modeling_rope_utils.py
 * reads from config.rope_scaling: which keys it requires (a KeyError there
 * is PECERT_E_INVAL here), what an absent key defaults to (the `present`
 * bits say which keys exist), and which values would make its arithmetic
 * fail (division by zero, log of a non-positive number).
 */
#include <inttypes.h>
#include <math.h>

#include "ref.h"

static const char *const rope_type_names[] = {
    "default", "linear", "dynamic", "yarn", "longrope", "llama3",
};

static int has(const pecert_rope_config *config, uint32_t bit)
{
    return (config->present & bit) != 0;
}

/* factor is read as rope_scaling["factor"] by linear, dynamic, yarn and
 * llama3: absent is a KeyError; every use divides by it or takes its log. */
static pecert_status require_factor(const pecert__ref_call *call,
                                    const pecert_rope_config *config)
{
    if (!has(config, PECERT_ROPE_HAS_FACTOR)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.factor is absent; rope_type=%s requires it",
                                rope_type_names[config->rope_type]);
    }
    if (!isfinite(config->factor) || config->factor <= 0.0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.factor=%.17g must be finite and > 0",
                                config->factor);
    }
    return PECERT_OK;
}

static pecert_status require_positive_length(const pecert__ref_call *call,
                                             const char *name, int64_t value)
{
    if (value <= 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.%s=%" PRId64 " must be > 0", name, value);
    }
    return PECERT_OK;
}

static pecert_status require_finite(const pecert__ref_call *call,
                                    const char *name, double value)
{
    if (!isfinite(value)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.%s=%.17g must be finite", name, value);
    }
    return PECERT_OK;
}

/* _compute_dynamic_ntk_parameters: base * (...) ** (dim / (dim - 2)) and
 * factor * seq_len / max_position_embeddings. */
static pecert_status resolve_dynamic(const pecert__ref_call *call,
                                     const pecert_rope_config *config,
                                     pecert__ref_params *params)
{
    pecert_status status = require_factor(call, config);

    if (status == PECERT_OK) {
        status = require_positive_length(call, "max_position_embeddings",
                                         config->max_position_embeddings);
    }
    if (status == PECERT_OK && config->rotary_dim == 2) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "config.rotary_dim=2 is too small for dynamic: the "
                                  "NTK exponent dim/(dim-2) divides by zero");
    }
    params->factor = config->factor;
    return status;
}

/* _compute_yarn_parameters, get_mscale: 1 when scale <= 1, else
 * 0.1 * mscale * log(scale) + 1. */
static double yarn_get_mscale(double scale, double mscale)
{
    if (scale <= 1.0) {
        return 1.0;
    }
    return 0.1 * mscale * log(scale) + 1.0;
}

/* _compute_yarn_parameters: attention_factor absent -> the ratio of two
 * get_mscale values when mscale and mscale_all_dim are both truthy
 * (present and non-zero, DeepSeek-V2), else get_mscale(factor). */
static pecert_status resolve_yarn_attention(const pecert__ref_call *call,
                                            const pecert_rope_config *config,
                                            pecert__ref_params *params)
{
    int both_mscales = has(config, PECERT_ROPE_HAS_MSCALE) && config->mscale != 0.0 &&
                       has(config, PECERT_ROPE_HAS_MSCALE_ALL_DIM) &&
                       config->mscale_all_dim != 0.0;

    if (has(config, PECERT_ROPE_HAS_ATTENTION_FACTOR)) {
        params->attention_factor = config->attention_factor;
        return require_finite(call, "attention_factor", config->attention_factor);
    }
    if (!both_mscales) {
        params->attention_factor = yarn_get_mscale(config->factor, 1.0);
        return PECERT_OK;
    }
    params->attention_factor = yarn_get_mscale(config->factor, config->mscale) /
                               yarn_get_mscale(config->factor, config->mscale_all_dim);
    if (!isfinite(params->attention_factor)) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.mscale=%.17g, mscale_all_dim=%.17g give a "
                                "non-finite attention factor",
                                config->mscale, config->mscale_all_dim);
    }
    return PECERT_OK;
}

/* _compute_yarn_parameters: `rope_scaling.get(key) or default` for beta
 * (absent or 0 -> 32 / 1) and original_max_position_embeddings (absent or
 * 0 -> max_position_embeddings); truncate absent -> True. The betas and the
 * length enter log(length / (beta * 2 pi)), so all must be positive. */
static pecert_status resolve_yarn(const pecert__ref_call *call,
                                  const pecert_rope_config *config,
                                  pecert__ref_params *params)
{
    int has_beta_fast = has(config, PECERT_ROPE_HAS_BETA_FAST) && config->beta_fast != 0.0;
    int has_beta_slow = has(config, PECERT_ROPE_HAS_BETA_SLOW) && config->beta_slow != 0.0;
    int has_original = has(config, PECERT_ROPE_HAS_ORIGINAL_MAX_POS) &&
                       config->original_max_position_embeddings != 0;
    pecert_status status = require_factor(call, config);

    params->factor = config->factor;
    params->beta_fast = has_beta_fast ? config->beta_fast : 32.0;
    params->beta_slow = has_beta_slow ? config->beta_slow : 1.0;
    params->original_max_pos = has_original ? config->original_max_position_embeddings
                                            : config->max_position_embeddings;
    params->truncate = has(config, PECERT_ROPE_HAS_TRUNCATE) ? config->truncate != 0 : 1;
    if (status == PECERT_OK) {
        status = require_positive_length(call, has_original
                                                   ? "original_max_position_embeddings"
                                                   : "max_position_embeddings",
                                         params->original_max_pos);
    }
    if (status == PECERT_OK && (!isfinite(params->beta_fast) || params->beta_fast <= 0.0 ||
                                !isfinite(params->beta_slow) || params->beta_slow <= 0.0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "config.beta_fast=%.17g, beta_slow=%.17g must be "
                                  "finite and > 0",
                                  params->beta_fast, params->beta_slow);
    }
    if (status == PECERT_OK) {
        status = resolve_yarn_attention(call, config, params);
    }
    return status;
}

static pecert_status check_longrope_factors(const pecert__ref_call *call,
                                            const char *name,
                                            const double *factors,
                                            int32_t half)
{
    int32_t i;

    if (factors == NULL) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "config.%s is NULL; longrope needs rotary_dim/2=%" PRId32
                                " values", name, half);
    }
    for (i = 0; i < half; i++) {
        if (!isfinite(factors[i]) || factors[i] <= 0.0) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "config.%s[%" PRId32 "]=%.17g must be finite and > 0",
                                    name, i, factors[i]);
        }
    }
    return PECERT_OK;
}

/* _compute_longrope_parameters: a top-level original_max_position_embeddings
 * (Phi-3) replaces factor by max_position_embeddings / it and is the
 * switch length L0; otherwise L0 = max_position_embeddings. A top-level
 * value of 0 is rejected: transformers' init (truthiness) and forward
 * (hasattr) would disagree about it. */
static pecert_status resolve_longrope_length(const pecert__ref_call *call,
                                             const pecert_rope_config *config,
                                             pecert__ref_params *params,
                                             int *out_has_factor)
{
    if (has(config, PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS)) {
        params->original_max_pos = config->original_max_position_embeddings;
        params->factor = (double)config->max_position_embeddings /
                         (double)config->original_max_position_embeddings;
        *out_has_factor = 1;
        return require_positive_length(call, "original_max_position_embeddings",
                                       params->original_max_pos);
    }
    params->original_max_pos = config->max_position_embeddings;
    params->factor = config->factor;
    *out_has_factor = has(config, PECERT_ROPE_HAS_FACTOR);
    if (*out_has_factor && !isfinite(config->factor)) {
        return require_finite(call, "factor", config->factor);
    }
    return require_positive_length(call, "max_position_embeddings",
                                   params->original_max_pos);
}

/* _compute_longrope_parameters: attention_factor absent -> 1 when
 * factor <= 1, else sqrt(1 + log(factor) / log(L0)). */
static pecert_status resolve_longrope_attention(const pecert__ref_call *call,
                                                const pecert_rope_config *config,
                                                pecert__ref_params *params,
                                                int has_factor)
{
    if (has(config, PECERT_ROPE_HAS_ATTENTION_FACTOR)) {
        params->attention_factor = config->attention_factor;
        return require_finite(call, "attention_factor", config->attention_factor);
    }
    if (!has_factor) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "longrope: attention_factor, factor and top-level "
                                "original_max_position_embeddings are all absent");
    }
    if (params->factor <= 1.0) {
        params->attention_factor = 1.0;
        return PECERT_OK;
    }
    if (params->original_max_pos < 2) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "longrope: L0=%" PRId64 " must be >= 2 to derive the "
                                "attention factor (log(L0) divides)",
                                params->original_max_pos);
    }
    params->attention_factor =
        sqrt(1.0 + log(params->factor) / log((double)params->original_max_pos));
    return PECERT_OK;
}

static pecert_status resolve_longrope(const pecert__ref_call *call,
                                      const pecert_rope_config *config,
                                      pecert__ref_params *params)
{
    int32_t half = config->rotary_dim / 2;
    int has_factor = 0;
    pecert_status status = PECERT_OK;

    if (config->num_factors != half) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "config.num_factors=%" PRId32 " must equal "
                                  "rotary_dim/2=%" PRId32,
                                  config->num_factors, half);
    }
    if (status == PECERT_OK) {
        status = check_longrope_factors(call, "short_factor", config->short_factor, half);
    }
    if (status == PECERT_OK) {
        status = check_longrope_factors(call, "long_factor", config->long_factor, half);
    }
    if (status == PECERT_OK) {
        status = resolve_longrope_length(call, config, params, &has_factor);
    }
    if (status == PECERT_OK) {
        status = resolve_longrope_attention(call, config, params, has_factor);
    }
    params->short_factor = config->short_factor;
    params->long_factor = config->long_factor;
    return status;
}

/* _compute_llama3_parameters: factor, low_freq_factor, high_freq_factor
 * and original_max_position_embeddings are all required keys; the
 * wavelength bounds divide by the two freq factors (Python raises on a
 * zero). high <= low is only a warning upstream (Llama 4 Scout ships
 * low == high == 1): the smoothing band is then empty, and the division by
 * high - low that torch.where discards is never used (freqs.c). */
static pecert_status resolve_llama3(const pecert__ref_call *call,
                                    const pecert_rope_config *config,
                                    pecert__ref_params *params)
{
    uint32_t needed = PECERT_ROPE_HAS_LOW_FREQ_FACTOR | PECERT_ROPE_HAS_HIGH_FREQ_FACTOR |
                      PECERT_ROPE_HAS_ORIGINAL_MAX_POS;
    pecert_status status = require_factor(call, config);

    params->factor = config->factor;
    params->low_freq_factor = config->low_freq_factor;
    params->high_freq_factor = config->high_freq_factor;
    params->original_max_pos = config->original_max_position_embeddings;
    if (status == PECERT_OK && (config->present & needed) != needed) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "llama3 requires low_freq_factor, high_freq_factor and "
                                  "original_max_position_embeddings (present=0x%" PRIx32 ")",
                                  config->present);
    }
    if (status == PECERT_OK &&
        (!isfinite(params->low_freq_factor) || params->low_freq_factor <= 0.0 ||
         !isfinite(params->high_freq_factor) || params->high_freq_factor <= 0.0)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "config.low_freq_factor=%.17g, high_freq_factor=%.17g "
                                  "must be finite and > 0",
                                  params->low_freq_factor, params->high_freq_factor);
    }
    if (status == PECERT_OK) {
        status = require_positive_length(call, "original_max_position_embeddings",
                                         params->original_max_pos);
    }
    return status;
}

static void init_params(const pecert_rope_config *config, pecert__ref_params *params)
{
    params->type = config->rope_type;
    params->dim = config->rotary_dim;
    params->theta = config->rope_theta;
    params->factor = 1.0;
    params->max_pos = config->max_position_embeddings;
    params->original_max_pos = config->max_position_embeddings;
    params->attention_factor = 1.0; /* default, linear, dynamic, llama3 */
    params->beta_fast = 32.0;
    params->beta_slow = 1.0;
    params->truncate = 1;
    params->low_freq_factor = 0.0;
    params->high_freq_factor = 0.0;
    params->short_factor = NULL;
    params->long_factor = NULL;
}

pecert_status pecert__ref_resolve_params(const pecert__ref_call *call,
                                         const pecert_rope_config *config,
                                         pecert__ref_params *out_params)
{
    pecert_status status = PECERT_OK;

    init_params(config, out_params);
    switch (config->rope_type) {
    case PECERT_ROPE_DEFAULT:
        break;
    case PECERT_ROPE_LINEAR:
        status = require_factor(call, config);
        out_params->factor = config->factor;
        break;
    case PECERT_ROPE_DYNAMIC:
        status = resolve_dynamic(call, config, out_params);
        break;
    case PECERT_ROPE_YARN:
        status = resolve_yarn(call, config, out_params);
        break;
    case PECERT_ROPE_LONGROPE:
        status = resolve_longrope(call, config, out_params);
        break;
    case PECERT_ROPE_LLAMA3:
        status = resolve_llama3(call, config, out_params);
        break;
    default:
        status = pecert__ref_fail(call, PECERT_E_INTERNAL,
                                  "rope_type=%" PRId32 " passed validation unresolved",
                                  config->rope_type);
        break;
    }
    return status;
}
