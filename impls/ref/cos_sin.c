/*
 * cos_sin.c - the rope_cos_sin op: scaled cos/sin tables [n_positions,
 * rotary_dim / 2], f32 or f64, strided.
 *
 * The table holds the frequency half only; LlamaRotaryEmbedding.forward
 * (models/llama/modeling_llama.py) concatenates it with itself
 * (emb = cat(freqs, freqs)) and GPT-J's apply_rotary_pos_emb
 * (models/gptj/modeling_gptj.py) repeats each entry twice, so both layouts
 * are this table rearranged.
 */
#include <inttypes.h>

#include "ref.h"

/* Store one value at an element offset, rounding once to the dtype. */
static void store(pecert_tensor *tensor, int64_t offset, double value)
{
    if (tensor->dtype == PECERT_DTYPE_F64) {
        ((double *)tensor->data)[offset] = value;
    } else {
        ((float *)tensor->data)[offset] = (float)value;
    }
}

static pecert_status check_table(const pecert__ref_call *call, const char *name,
                                 const pecert_tensor *table, int64_t n_positions,
                                 int32_t half)
{
    pecert_status status = pecert__ref_check_tensor(call, name, table, 2, 1, 1);

    if (status != PECERT_OK) {
        return status;
    }
    if (table->shape[0] != n_positions || table->shape[1] != half) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "%s.shape=[%" PRId64 ", %" PRId64 "] must be "
                                "[n_positions=%" PRId64 ", rotary_dim/2=%" PRId32 "]",
                                name, table->shape[0], table->shape[1], n_positions, half);
    }
    return PECERT_OK;
}

static pecert_status check_arguments(const pecert__ref_call *call,
                                     const pecert_tensor *out_cos,
                                     const pecert_tensor *out_sin,
                                     const pecert_rope_config *config,
                                     int64_t seq_len, const int64_t *positions,
                                     int64_t n_positions)
{
    pecert_status status = pecert__ref_check_config(call, config);

    if (status == PECERT_OK) {
        status = pecert__ref_check_seq_len(call, seq_len);
    }
    if (status == PECERT_OK && n_positions < 0) {
        status = pecert__ref_check_positions(call, positions, n_positions);
    }
    if (status == PECERT_OK) {
        status = check_table(call, "out_cos", out_cos, n_positions, config->rotary_dim / 2);
    }
    if (status == PECERT_OK) {
        status = check_table(call, "out_sin", out_sin, n_positions, config->rotary_dim / 2);
    }
    /* Positions are read only once the tables agree on how many there are. */
    if (status == PECERT_OK) {
        status = pecert__ref_check_positions(call, positions, n_positions);
    }
    if (status == PECERT_OK && n_positions > 0 && out_cos->data == out_sin->data) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "out_cos and out_sin share their data pointer");
    }
    return status;
}

pecert_status pecert__ref_rope_cos_sin(void *instance, pecert_tensor *out_cos,
                                       pecert_tensor *out_sin,
                                       const pecert_rope_config *config,
                                       int64_t seq_len,
                                       const int64_t *positions,
                                       int64_t n_positions)
{
    pecert__ref_call call;
    pecert__ref_rotation rotation;
    pecert_status status;
    int64_t n;
    int32_t i;

    pecert__ref_begin_call(&call, instance, "rope_cos_sin");
    status = check_arguments(&call, out_cos, out_sin, config, seq_len, positions,
                             n_positions);
    if (status == PECERT_OK) {
        status = pecert__ref_rotation_init(&call, &rotation, config, seq_len, positions,
                                           n_positions);
    }
    if (status != PECERT_OK) {
        return status;
    }
    for (n = 0; n < n_positions; n++) {
        pecert__ref_rotation_row(&rotation, positions[n]);
        for (i = 0; i < rotation.half; i++) {
            store(out_cos, n * out_cos->strides[0] + i * out_cos->strides[1],
                  rotation.row_cos[i]);
            store(out_sin, n * out_sin->strides[0] + i * out_sin->strides[1],
                  rotation.row_sin[i]);
        }
    }
    pecert__ref_rotation_free(&rotation);
    return PECERT_OK;
}
