/* registry.c - every check, in run order. Ids are stable: reports, CI
 * filters and mutant expectations refer to them. */
#include <string.h>

#include "decode.h"
#include "family.h"
#include "rope_checks.h"

const pecert_check *const pecert_checks[] = {
    &pecert_check_rope_freq_golden,
    &pecert_check_rope_cos_sin_golden,
    &pecert_check_rope_apply_golden,
    &pecert_check_rope_norm_preservation,
    &pecert_check_rope_shift_invariance,
    &pecert_check_rope_identity_at_zero,
    &pecert_check_rope_inverse,
    &pecert_check_rope_partial_passthrough,
    &pecert_check_rope_inplace_and_strides,
    &pecert_check_rope_boundary_lengths,
    &pecert_check_rope_pairing_convention,
    &pecert_check_rope_nope_layer,
    &pecert_check_rope_long_position_precision,
    &pecert_check_rope_thread_determinism,
    &pecert_check_rope_half_precision,
    &pecert_check_decode_prefill_equivalence,
    &pecert_check_batch_padding_independence,
    &pecert_check_alibi_slopes_golden,
    &pecert_check_alibi_bias_golden,
    &pecert_check_alibi_shift_invariance,
    &pecert_check_t5_bucket_golden,
    &pecert_check_t5_bucket_monotone,
    &pecert_check_t5_bucket_saturation,
    &pecert_check_sinusoidal_golden,
    &pecert_check_learned_golden,
    &pecert_check_learned_out_of_range,
    &pecert_check_sincos2d_golden,
    &pecert_check_swin_index_golden,
    &pecert_check_swin_index_bijective,
    &pecert_check_shaw_index_golden,
    &pecert_check_shaw_shift_invariance,
    &pecert_check_txl_pos_emb_golden,
    &pecert_check_txl_rel_shift_golden,
    &pecert_check_mrope_index_golden,
    &pecert_check_mrope_apply_golden,
    &pecert_check_mrope_text_only_is_rope,
    &pecert_check_rope2d_index_golden,
    &pecert_check_rope2d_apply_golden,
    &pecert_check_rope2d_norm_preservation,
    &pecert_check_rope2d_axis_separation,
    &pecert_check_posinterp_golden,
    &pecert_check_posinterp_native_identity,
    &pecert_check_posinterp_constant,
    &pecert_check_posinterp_mirror_symmetry,
    &pecert_check_cope_golden,
    &pecert_check_cope_saturated_gates,
    &pecert_check_cope_gate_monotone,
    &pecert_check_cope_linear_embedding,
    &pecert_check_peg_golden,
    &pecert_check_peg_zero_kernel,
    &pecert_check_peg_translation,
    &pecert_check_peg_zero_padding,
    &pecert_check_sine2d_golden,
    &pecert_check_sine2d_padding,
    &pecert_check_relpos2d_golden,
    &pecert_check_relpos2d_shapes,
    &pecert_check_deberta_bias_golden,
    &pecert_check_deberta_index_golden,
};
const size_t pecert_num_checks = sizeof(pecert_checks) / sizeof(pecert_checks[0]);

const pecert_check *pecert_check_find(const char *id)
{
    for (size_t i = 0; i < pecert_num_checks; i++) {
        if (strcmp(pecert_checks[i]->id, id) == 0) {
            return pecert_checks[i];
        }
    }
    return NULL;
}

/* The length of a dotted name's first part, its family ("rope" of
 * "rope.apply.golden" and of "rope.cos_sin"). */
static size_t family_length(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot != NULL ? (size_t)(dot - name) : strlen(name);
}

/* The session checks take their configs from the rope vectors' manifests
 * (pecert_rope_configs) and their tensors from a seed: no payload. */
static const char *const reads_no_tensor[] = {"decode.", "batch."};

int pecert_check_reads(const pecert_check *check, const char *op)
{
    for (size_t i = 0; i < sizeof(reads_no_tensor) / sizeof(reads_no_tensor[0]); i++) {
        if (strncmp(check->id, reads_no_tensor[i], strlen(reads_no_tensor[i])) == 0) {
            return 0;
        }
    }
    size_t n = family_length(check->id);
    return family_length(op) == n && strncmp(check->id, op, n) == 0;
}
