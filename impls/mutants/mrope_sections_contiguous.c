/* mrope_sections_contiguous - Qwen3-VL's interleaved M-RoPE ported as
 * Qwen2-VL's: the mrope_section frequencies given to the temporal, height
 * and width axes in blocks (t..t h..h w..w) where Qwen3VLTextRotaryEmbedding
 * interleaves them (t h w t h w ...). The model still reads text (three
 * equal axes agree either way); only images and video go wrong
 * (alibaba/MNN PR #4133, fixing #4104 and #4120: Qwen3-VL on the blocked
 * M-RoPE of Qwen2.5-VL loops forever on images; vllm-project/vllm-gaudi
 * PR #1437: the HPU rotary kept the split/concat section mapping with
 * mrope_interleaved set; HabanaAI/vllm-fork PR #2117: mrope_interleaved
 * not passed on).
 *
 * The rotation is the base's own rope_apply, once per axis at that axis'
 * positions; each frequency then takes its channels from the axis its
 * block assigns, whatever the interleaved flag says. */
#include <stdlib.h>
#include <string.h>

#include "core/mutant.h"

static pecert_status (*base_apply)(void *instance, const pecert_rope_apply_args *args);

/* The axis of frequency i when the sections are blocks. */
static int block_axis(const pecert_mrope_apply_args *a, int64_t i)
{
    int64_t first = 0;
    for (int k = 0; k < a->num_axes; k++) {
        first += a->section[k];
        if (i < first) {
            return k;
        }
    }
    return a->num_axes - 1;
}

/* Channel d of token t, head h of a strided f32 tensor. */
static float *at(const pecert_tensor *v, int64_t t, int64_t h, int64_t d)
{
    return (float *)v->data + t * v->strides[0] + h * v->strides[1] + d * v->strides[2];
}

/* The sequence length every axis's frequencies are taken at: M-RoPE's
 * (max over all axes + 1 when 0), not each axis's own. */
static int64_t shared_seq_len(const pecert_mrope_apply_args *a, int64_t tokens)
{
    if (a->seq_len > 0) {
        return a->seq_len;
    }
    int64_t seq = 0;
    for (int64_t i = 0; i < a->num_axes * tokens; i++) {
        seq = a->positions[i] + 1 > seq ? a->positions[i] + 1 : seq;
    }
    return seq;
}

/* Pair (first, second) of frequency i under the pairing. */
static void pair_of(pecert_rope_pairing pairing, int64_t rot, int64_t i, int64_t *first, int64_t *second)
{
    *first = pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i : i;
    *second = pairing == PECERT_PAIRING_INTERLEAVED ? 2 * i + 1 : i + rot / 2;
}

static pecert_status blocks_mrope(void *instance, const pecert_mrope_apply_args *a)
{
    if (a == NULL || a->x == NULL || a->out == NULL || a->config == NULL || a->positions == NULL ||
        a->num_axes < 1 || a->num_axes > PECERT_MROPE_MAX_AXES || a->x->dtype != PECERT_DTYPE_F32 ||
        a->out->dtype != PECERT_DTYPE_F32) {
        return PECERT_E_INVAL;
    }
    const int64_t tokens = a->x->shape[0], heads = a->x->shape[1], dim = a->x->shape[2];
    const int64_t rot = a->config->rotary_dim;
    const size_t n = (size_t)(tokens * heads * dim);
    float *rotated[PECERT_MROPE_MAX_AXES] = {NULL};
    pecert_status st = PECERT_OK;
    for (int k = 0; k < a->num_axes && st == PECERT_OK; k++) {
        rotated[k] = malloc((n > 0 ? n : 1) * sizeof(float));
        pecert_tensor view = *a->x; /* x's shape and header, packed */
        view.data = rotated[k];
        view.strides[0] = heads * dim;
        view.strides[1] = dim;
        view.strides[2] = 1;
        pecert_rope_apply_args r = {.struct_size = sizeof(r), .pairing = a->pairing, .config = a->config,
                                    .seq_len = shared_seq_len(a, tokens), .positions = a->positions + k * tokens,
                                    .x = a->x, .out = &view};
        st = rotated[k] == NULL ? PECERT_E_NOMEM : base_apply(instance, &r);
    }
    for (int64_t t = 0; st == PECERT_OK && t < tokens; t++) {
        for (int64_t h = 0; h < heads; h++) {
            for (int64_t d = rot; d < dim; d++) {
                *at(a->out, t, h, d) = *at(a->x, t, h, d);
            }
            for (int64_t i = 0; i < rot / 2; i++) {
                int64_t first, second;
                const float *from = rotated[block_axis(a, i)] + (t * heads + h) * dim;
                pair_of(a->pairing, rot, i, &first, &second);
                *at(a->out, t, h, first) = from[first];
                *at(a->out, t, h, second) = from[second];
            }
        }
    }
    for (int k = 0; k < a->num_axes; k++) {
        free(rotated[k]);
    }
    return st;
}

static void patch(pecert_plugin *desc)
{
    base_apply = desc->rope_apply;
    desc->mrope_apply = blocks_mrope;
}

const mutant_def mutant = {.name = "mrope_sections_contiguous", .patch = patch};
