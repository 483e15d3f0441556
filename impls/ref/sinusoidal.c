/*
 * sinusoidal.c - absolute sinusoidal embeddings (op sinusoidal).
 *
 * The four variants of plugin.h (d = dim, B = base, h = floor(d / 2)):
 *   INTERLEAVED  channel 2i: sin(p f_i), 2i+1: cos(p f_i), f_i = B^(-2i/d):
 *                Vaswani et al. 2017 section 3.5; transformers
 *                models/distilbert/modeling_distilbert.py
 *                create_sinusoidal_embeddings (exponent 2 * (j // 2) / d).
 *   CONCAT       sin(p f_i) for i < ceil(d/2), then cos(p f_i) for i < h,
 *                f_i = B^(-2i/d): transformers models/marian/modeling_marian.py
 *                MarianSinusoidalPositionalEmbedding._init_weight.
 *   T2T          sin(p f_i) for i < h, then cos, then a zero channel when d
 *                is odd, f_i = exp(-i ln(B) / max(h - 1, 1)): tensor2tensor
 *                layers/common_attention.py get_timing_signal_1d.
 *   FAIRSEQ      the T2T table with divisor h - 1 (fairseq divides by zero
 *                for h = 1), at row padding_idx + 1 + p; p = -1 (padding)
 *                is the zeroed row padding_idx: fairseq
 *                modules/sinusoidal_positional_embedding.py get_embedding
 *                and forward (make_positions in fairseq/utils.py).
 * Angles p * f_i are reduced exactly (angle.c).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ref.h"

/* Frequency and function of channel j: returns 0 for sin, 1 for cos, -1
 * for a zero channel; *freq gets f_i. */
static int channel(const pecert_sinusoidal_args *a, int32_t j, double *freq)
{
    int32_t d = a->dim;
    int32_t h = d / 2;
    double ln_base = log(a->base);

    switch (a->variant) {
    case PECERT_SINUSOIDAL_INTERLEAVED:
        *freq = exp(-ln_base * (double)(2 * (j / 2)) / (double)d);
        return j % 2;
    case PECERT_SINUSOIDAL_CONCAT: {
        int32_t sentinel = d - h; /* ceil(d / 2) */
        int32_t i = j < sentinel ? j : j - sentinel;

        *freq = exp(-ln_base * (double)(2 * i) / (double)d);
        return j < sentinel ? 0 : 1;
    }
    default: {
        double divisor = h - 1 > 1 ? (double)(h - 1) : 1.0;

        if (j >= 2 * h) {
            return -1;
        }
        *freq = exp(-(double)(j % h) * ln_base / divisor);
        return j < h ? 0 : 1;
    }
    }
}

/* The row a token's position selects (FAIRSEQ's offset), or -1 for the
 * zero row of a fairseq padding token. */
static int64_t table_row(const pecert_sinusoidal_args *a, int64_t p)
{
    if (a->variant != PECERT_SINUSOIDAL_FAIRSEQ) {
        return p;
    }
    return p == -1 ? -1 : (int64_t)a->padding_idx + 1 + p;
}

static pecert_status check_variant(const pecert__ref_call *call, const pecert_sinusoidal_args *a)
{
    if (a->variant < PECERT_SINUSOIDAL_INTERLEAVED || a->variant > PECERT_SINUSOIDAL_FAIRSEQ) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "variant=%" PRId32 " is not 0..3", a->variant);
    }
    if (a->dim < 2) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "dim=%" PRId32 " must be >= 2", a->dim);
    }
    if (!isfinite(a->base) || a->base <= 1.0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "base=%.17g must be finite and > 1", a->base);
    }
    if (a->variant != PECERT_SINUSOIDAL_FAIRSEQ) {
        return a->padding_idx == -1
                   ? PECERT_OK
                   : pecert__ref_fail(call, PECERT_E_INVAL,
                                      "padding_idx=%" PRId32 " must be -1 outside FAIRSEQ",
                                      a->padding_idx);
    }
    if (a->padding_idx < 0) {
        return pecert__ref_fail(call, PECERT_E_INVAL, "FAIRSEQ needs padding_idx >= 0");
    }
    if (a->dim / 2 - 1 < 1) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "FAIRSEQ divides by dim/2 - 1 = 0 (dim=%" PRId32 ")", a->dim);
    }
    for (int64_t i = 0; i < a->n; i++) {
        if (a->positions[i] < -1) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "positions[%" PRId64 "]=%" PRId64 ": FAIRSEQ takes -1 (padding) "
                                    "or p >= 0", i, a->positions[i]);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_check_sinusoidal_args(const pecert__ref_call *call, const void *args)
{
    const pecert_sinusoidal_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "positions", a->positions, a->n);
    }
    if (status == PECERT_OK) {
        status = check_variant(call, a);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->n, a->dim};

        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_FLOAT, 1);
    }
    return status;
}

static pecert_status sinusoidal(const pecert__ref_call *call, const void *op_args)
{
    const pecert_sinusoidal_args *args = op_args;
    int64_t idx[2];

    (void)call;
    for (idx[0] = 0; idx[0] < args->n; idx[0]++) {
        int64_t row = table_row(args, args->positions[idx[0]]);

        for (idx[1] = 0; idx[1] < args->dim; idx[1]++) {
            double freq = 0.0;
            double s = 0.0;
            double c = 0.0;
            int kind = channel(args, (int32_t)idx[1], &freq);

            if (row < 0 && args->variant == PECERT_SINUSOIDAL_FAIRSEQ) {
                kind = -1;
            }
            if (kind >= 0) {
                pecert__ref_sin_cos((double)row, freq, &s, &c);
            }
            pecert__ref_store_float(args->out, idx, kind < 0 ? 0.0 : (kind == 0 ? s : c));
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_sinusoidal(void *instance, const pecert_sinusoidal_args *args)
{
    return pecert__ref_run(instance, "sinusoidal", args, sizeof(*args), pecert__ref_check_sinusoidal_args, sinusoidal);
}
