/*
 * rotation.c - the frequency table one rope_cos_sin or rope_apply call
 * uses: frequencies at the call's sequence length, attention scaling, and
 * one row of scaled cos/sin at a time.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "ref.h"

/* dynamic_rope_update (modeling_rope_utils.py) derives the length from the
 * batch as max(position_ids) + 1 when it picks dynamic / longrope
 * frequencies; a caller-given seq_len overrides it. A result <= 0 (all
 * positions negative, or none) selects the init-time frequencies there,
 * as it does in freqs.c. */
int64_t pecert__ref_effective_seq_len(int64_t seq_len,
                                      const int64_t *positions,
                                      int64_t n_positions)
{
    int64_t largest;
    int64_t i;

    if (seq_len != 0 || n_positions == 0) {
        return seq_len;
    }
    largest = positions[0];
    for (i = 1; i < n_positions; i++) {
        largest = positions[i] > largest ? positions[i] : largest;
    }
    return largest + 1;
}

/* The largest |position|: negative positions rotate backwards by as much. */
static int64_t largest_magnitude(const int64_t *positions, int64_t n_positions)
{
    int64_t largest = 0;
    int64_t i;

    for (i = 0; i < n_positions; i++) {
        int64_t magnitude = positions[i] < 0 ? -positions[i] : positions[i];

        largest = magnitude > largest ? magnitude : largest;
    }
    return largest;
}

/* Every angle p * inv_freq[i] must stay below the range angle.c's error
 * bound covers; the largest position and frequency give the largest. */
static pecert_status check_angles(const pecert__ref_call *call,
                                  const pecert__ref_rotation *rotation,
                                  int64_t max_position)
{
    int32_t i;

    if (max_position <= 0) {
        return PECERT_OK;
    }
    for (i = 0; i < rotation->half; i++) {
        double angle = (double)max_position * rotation->inv_freq[i];

        if (angle >= PECERT__REF_ANGLE_LIMIT) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "|position| %" PRId64 " * inv_freq[%" PRId32 "]=%.17g "
                                    "= %.17g reaches 2^64, past the accurate "
                                    "argument-reduction range",
                                    max_position, i, rotation->inv_freq[i], angle);
        }
    }
    return PECERT_OK;
}

static pecert_status allocate_table(const pecert__ref_call *call,
                                    pecert__ref_rotation *rotation, int32_t half)
{
    rotation->half = half;
    rotation->inv_freq = calloc(3 * (size_t)half, sizeof(double));
    if (rotation->inv_freq == NULL) {
        return pecert__ref_fail(call, PECERT_E_NOMEM,
                                "cannot allocate a table of %" PRId32 " frequencies", half);
    }
    rotation->row_cos = rotation->inv_freq + half;
    rotation->row_sin = rotation->row_cos + half;
    return PECERT_OK;
}

pecert_status pecert__ref_rotation_init(const pecert__ref_call *call,
                                        pecert__ref_rotation *rotation,
                                        const pecert_rope_config *config,
                                        int64_t seq_len,
                                        const int64_t *positions,
                                        int64_t n_positions)
{
    pecert__ref_params params;
    pecert_status status;
    int64_t length = pecert__ref_effective_seq_len(seq_len, positions, n_positions);

    rotation->inv_freq = NULL;
    status = pecert__ref_resolve_params(call, config, &params);
    if (status == PECERT_OK) {
        status = allocate_table(call, rotation, params.dim / 2);
    }
    if (status != PECERT_OK) {
        return status;
    }
    rotation->scaling = params.attention_factor;
    pecert__ref_inv_freq(&params, length, rotation->inv_freq);
    status = pecert__ref_check_inv_freq(call, rotation->inv_freq, rotation->half);
    if (status == PECERT_OK) {
        status = check_angles(call, rotation, largest_magnitude(positions, n_positions));
    }
    if (status != PECERT_OK) {
        pecert__ref_rotation_free(rotation);
    }
    return status;
}

/* LlamaRotaryEmbedding.forward (models/llama/modeling_llama.py):
 * cos = cos(p * inv_freq) * attention_scaling, likewise sin. */
void pecert__ref_rotation_row(pecert__ref_rotation *rotation, int64_t position)
{
    int32_t i;

    for (i = 0; i < rotation->half; i++) {
        double sin_value;
        double cos_value;

        pecert__ref_sin_cos((double)position, rotation->inv_freq[i], &sin_value,
                            &cos_value);
        rotation->row_cos[i] = cos_value * rotation->scaling;
        rotation->row_sin[i] = sin_value * rotation->scaling;
    }
}

void pecert__ref_rotation_free(pecert__ref_rotation *rotation)
{
    free(rotation->inv_freq);
    rotation->inv_freq = NULL;
    rotation->row_cos = NULL;
    rotation->row_sin = NULL;
}
