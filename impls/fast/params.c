/*
 * params.c - a rope config with its Hugging Face defaults applied.
 *
 * Mirrors what each _compute_*_parameters function of transformers
 * v4.57.6 (src/transformers/modeling_rope_utils.py) reads from
 * config.rope_scaling: which keys are required (a KeyError there is
 * E_INVAL here), what an absent key defaults to (`present` says which keys
 * exist) and which values would break its arithmetic (division by zero,
 * log of a non-positive number). freqs.c then reads only the result.
 */
#include <inttypes.h>
#include <math.h>

#include "fast.h"

static const char *const type_names[] = {"default", "linear", "dynamic",
                                         "yarn",    "longrope", "llama3"};

static int present(const pecert_rope_config *config, uint32_t bit)
{
    return (config->present & bit) != 0;
}

/* A positive finite value, or E_INVAL naming the field. */
static pecert_status need_positive(const pecert__fast_call *call, const char *field,
                                   double value)
{
    if (!isfinite(value) || value <= 0.0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.%s=%.17g must be finite and > 0",
                                 field, value);
    }
    return PECERT_OK;
}

static pecert_status need_length(const pecert__fast_call *call, const char *field,
                                 int64_t value)
{
    if (value <= 0) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.%s=%" PRId64 " must be > 0", field,
                                 value);
    }
    return PECERT_OK;
}

/* rope_scaling["factor"]: a required key for linear, dynamic, yarn and
 * llama3; each divides by it or takes its log. */
static pecert_status need_factor(const pecert__fast_call *call,
                                 const pecert_rope_config *config, pecert__fast_params *out)
{
    if (!present(config, PECERT_ROPE_HAS_FACTOR)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.factor is absent; %s requires it",
                                 type_names[config->rope_type]);
    }
    out->factor = config->factor;
    return need_positive(call, "factor", config->factor);
}

/* _compute_dynamic_ntk_parameters: the NTK exponent dim / (dim - 2). */
static pecert_status resolve_dynamic(const pecert__fast_call *call,
                                     const pecert_rope_config *config, pecert__fast_params *out)
{
    pecert_status status = need_factor(call, config, out);

    if (status == PECERT_OK) {
        status = need_length(call, "max_position_embeddings", config->max_position_embeddings);
    }
    if (status == PECERT_OK && config->rotary_dim == 2) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "config.rotary_dim=2: dynamic's exponent dim/(dim-2) "
                                   "divides by zero");
    }
    return status;
}

/* get_mscale: 1 for scale <= 1, else 0.1 * mscale * ln(scale) + 1. */
static double yarn_mscale(double scale, double mscale)
{
    return scale <= 1.0 ? 1.0 : 0.1 * mscale * log(scale) + 1.0;
}

/* attention_factor absent: the ratio get_mscale(f, mscale) /
 * get_mscale(f, mscale_all_dim) when both are truthy (DeepSeek-V2),
 * else get_mscale(f). */
static pecert_status resolve_yarn_attention(const pecert__fast_call *call,
                                            const pecert_rope_config *config,
                                            pecert__fast_params *out)
{
    int ratio = present(config, PECERT_ROPE_HAS_MSCALE) && config->mscale != 0.0 &&
                present(config, PECERT_ROPE_HAS_MSCALE_ALL_DIM) && config->mscale_all_dim != 0.0;

    if (present(config, PECERT_ROPE_HAS_ATTENTION_FACTOR)) {
        out->attention_factor = config->attention_factor;
    } else if (ratio) {
        out->attention_factor = yarn_mscale(config->factor, config->mscale) /
                                yarn_mscale(config->factor, config->mscale_all_dim);
    } else {
        out->attention_factor = yarn_mscale(config->factor, 1.0);
    }
    if (!isfinite(out->attention_factor)) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "yarn attention factor %.17g (attention_factor, mscale, "
                                 "mscale_all_dim) is not finite",
                                 out->attention_factor);
    }
    return PECERT_OK;
}

/* _compute_yarn_parameters: `get(key) or default` for the betas (32, 1)
 * and the original length (max_position_embeddings); truncate defaults to
 * True. Both betas and the length enter log(L / (beta * 2 pi)). */
static pecert_status resolve_yarn(const pecert__fast_call *call,
                                  const pecert_rope_config *config, pecert__fast_params *out)
{
    int has_l0 = present(config, PECERT_ROPE_HAS_ORIGINAL_MAX_POS) &&
                 config->original_max_position_embeddings != 0;
    pecert_status status = need_factor(call, config, out);

    if (present(config, PECERT_ROPE_HAS_BETA_FAST) && config->beta_fast != 0.0) {
        out->beta_fast = config->beta_fast;
    }
    if (present(config, PECERT_ROPE_HAS_BETA_SLOW) && config->beta_slow != 0.0) {
        out->beta_slow = config->beta_slow;
    }
    out->original_max_pos = has_l0 ? config->original_max_position_embeddings
                                   : config->max_position_embeddings;
    out->truncate = present(config, PECERT_ROPE_HAS_TRUNCATE) ? config->truncate != 0 : 1;
    if (status == PECERT_OK) {
        status = need_length(call,
                             has_l0 ? "original_max_position_embeddings" : "max_position_embeddings",
                             out->original_max_pos);
    }
    if (status == PECERT_OK) {
        status = need_positive(call, "beta_fast", out->beta_fast);
    }
    if (status == PECERT_OK) {
        status = need_positive(call, "beta_slow", out->beta_slow);
    }
    if (status == PECERT_OK) {
        status = resolve_yarn_attention(call, config, out);
    }
    return status;
}

static pecert_status check_factors(const pecert__fast_call *call, const char *field,
                                   const double *factors, int32_t half)
{
    int32_t i;

    if (factors == NULL) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "config.%s is NULL; longrope needs rotary_dim/2=%" PRId32
                                 " values",
                                 field, half);
    }
    for (i = 0; i < half; i++) {
        if (!isfinite(factors[i]) || factors[i] <= 0.0) {
            return pecert__fast_fail(call, PECERT_E_INVAL,
                                     "config.%s[%" PRId32 "]=%.17g must be finite and > 0", field,
                                     i, factors[i]);
        }
    }
    return PECERT_OK;
}

/* _compute_longrope_parameters: a top-level original length (Phi-3)
 * makes factor = max_position_embeddings / it and is the switch length
 * L0; otherwise L0 = max_position_embeddings and factor is the key. The
 * attention factor, when absent, is 1 for factor <= 1 and else
 * sqrt(1 + ln(factor) / ln(L0)). */
static pecert_status resolve_longrope_scale(const pecert__fast_call *call,
                                            const pecert_rope_config *config,
                                            pecert__fast_params *out)
{
    int top = present(config, PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS);
    int has_factor = top || present(config, PECERT_ROPE_HAS_FACTOR);

    out->original_max_pos = top ? config->original_max_position_embeddings
                                : config->max_position_embeddings;
    if (out->original_max_pos <= 0) {
        return need_length(call,
                           top ? "original_max_position_embeddings" : "max_position_embeddings",
                           out->original_max_pos);
    }
    out->factor = top ? (double)config->max_position_embeddings / (double)out->original_max_pos
                      : config->factor;
    if (has_factor && !isfinite(out->factor)) {
        return pecert__fast_fail(call, PECERT_E_INVAL, "config.factor=%.17g must be finite",
                                 out->factor);
    }
    if (present(config, PECERT_ROPE_HAS_ATTENTION_FACTOR)) {
        out->attention_factor = config->attention_factor;
        return isfinite(out->attention_factor)
                   ? PECERT_OK
                   : pecert__fast_fail(call, PECERT_E_INVAL,
                                       "config.attention_factor=%.17g must be finite",
                                       out->attention_factor);
    }
    if (!has_factor) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "longrope: attention_factor, factor and the top-level "
                                 "original_max_position_embeddings are all absent");
    }
    if (out->factor <= 1.0) {
        out->attention_factor = 1.0;
        return PECERT_OK;
    }
    if (out->original_max_pos < 2) {
        return pecert__fast_fail(call, PECERT_E_INVAL,
                                 "longrope: L0=%" PRId64 " must be >= 2 (ln(L0) divides)",
                                 out->original_max_pos);
    }
    out->attention_factor = sqrt(1.0 + log(out->factor) / log((double)out->original_max_pos));
    return PECERT_OK;
}

static pecert_status resolve_longrope(const pecert__fast_call *call,
                                      const pecert_rope_config *config, pecert__fast_params *out)
{
    int32_t half = config->rotary_dim / 2;
    pecert_status status = PECERT_OK;

    if (config->num_factors != half) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "config.num_factors=%" PRId32 " must equal rotary_dim/2=%" PRId32,
                                   config->num_factors, half);
    }
    if (status == PECERT_OK) {
        status = check_factors(call, "short_factor", config->short_factor, half);
    }
    if (status == PECERT_OK) {
        status = check_factors(call, "long_factor", config->long_factor, half);
    }
    if (status == PECERT_OK) {
        status = resolve_longrope_scale(call, config, out);
    }
    out->short_factor = config->short_factor;
    out->long_factor = config->long_factor;
    return status;
}

/* _compute_llama3_parameters: factor, low_freq_factor, high_freq_factor
 * and original_max_position_embeddings are required keys; the wavelength
 * bounds divide by the two freq factors (Python raises on a zero). */
static pecert_status resolve_llama3(const pecert__fast_call *call,
                                    const pecert_rope_config *config, pecert__fast_params *out)
{
    uint32_t needed = PECERT_ROPE_HAS_LOW_FREQ_FACTOR | PECERT_ROPE_HAS_HIGH_FREQ_FACTOR |
                      PECERT_ROPE_HAS_ORIGINAL_MAX_POS;
    pecert_status status = need_factor(call, config, out);

    out->low_freq_factor = config->low_freq_factor;
    out->high_freq_factor = config->high_freq_factor;
    out->original_max_pos = config->original_max_position_embeddings;
    if (status == PECERT_OK && (config->present & needed) != needed) {
        status = pecert__fast_fail(call, PECERT_E_INVAL,
                                   "llama3 requires low_freq_factor, high_freq_factor and "
                                   "original_max_position_embeddings (present=0x%" PRIx32 ")",
                                   config->present);
    }
    if (status == PECERT_OK) {
        status = need_positive(call, "low_freq_factor", out->low_freq_factor);
    }
    if (status == PECERT_OK) {
        status = need_positive(call, "high_freq_factor", out->high_freq_factor);
    }
    /* high <= low: only a warning upstream (Llama 4 Scout: low == high);
     * the smoothing band is empty then (freqs.c). */
    if (status == PECERT_OK) {
        status = need_length(call, "original_max_position_embeddings", out->original_max_pos);
    }
    return status;
}

/* Values every type starts from; the resolvers override what they read. */
static void set_defaults(const pecert_rope_config *config, pecert__fast_params *out)
{
    *out = (pecert__fast_params){
        .type = config->rope_type,
        .dim = config->rotary_dim,
        .theta = config->rope_theta,
        .factor = 1.0,
        .max_pos = config->max_position_embeddings,
        .original_max_pos = config->max_position_embeddings,
        .attention_factor = 1.0, /* default, linear, dynamic, llama3 */
        .beta_fast = 32.0,
        .beta_slow = 1.0,
        .truncate = 1,
    };
}

pecert_status pecert__fast_resolve_params(const pecert__fast_call *call,
                                          const pecert_rope_config *config,
                                          pecert__fast_params *out)
{
    set_defaults(config, out);
    switch (config->rope_type) {
    case PECERT_ROPE_DEFAULT:
        return PECERT_OK;
    case PECERT_ROPE_LINEAR:
        return need_factor(call, config, out);
    case PECERT_ROPE_DYNAMIC:
        return resolve_dynamic(call, config, out);
    case PECERT_ROPE_YARN:
        return resolve_yarn(call, config, out);
    case PECERT_ROPE_LONGROPE:
        return resolve_longrope(call, config, out);
    case PECERT_ROPE_LLAMA3:
        return resolve_llama3(call, config, out);
    default:
        return pecert__fast_fail(call, PECERT_E_INTERNAL,
                                 "rope_type=%" PRId32 " passed validation unresolved",
                                 config->rope_type);
    }
}
