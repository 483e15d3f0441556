/* certify_plan.c - the checks certify runs, per encoding and layer. */
#include "certify_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certificate.h"
#include "certify_checks.h"
#include "decode.h"
#include "family.h"
#include "rope_checks.h"

/* The table's short names. */
#define FILES_CHECKPOINT PECERT_PLAN_CHECKPOINT
#define FILES_RECORDED PECERT_PLAN_RECORDED
#define FILES_SUBSTITUTED PECERT_PLAN_SUBSTITUTED
#define ROTARY PECERT_PLAN_ROTARY
#define NOPE PECERT_PLAN_NOPE
#define TABLE PECERT_PLAN_TABLE
#define TURNS PECERT_PLAN_TURNS
#define MASK PECERT_PLAN_MASK
#define ROPES ((1u << PECERT_PE_ROPE) | (1u << PECERT_PE_MROPE))
#define ALL_KINDS ((1u << (PECERT_PE_DEBERTA + 1)) - 1u) /* every pecert_pe_kind */
#define VISION (1u << PECERT_PE_ROPE2D)

const pecert_plan_entry pecert_certify_plan[] = {
    {&pecert_check_certify_mapping, FILES_RECORDED, ALL_KINDS, "", 0, ROTARY | NOPE},
    {&pecert_check_certify_rope_reference, FILES_CHECKPOINT, ROPES, NULL, 1, ROTARY},
    {&pecert_check_rope_freq_golden, FILES_SUBSTITUTED, ROPES, "rope.freq", 0, ROTARY},
    {&pecert_check_rope_cos_sin_golden, FILES_SUBSTITUTED, ROPES, "rope.cos_sin", 0, ROTARY},
    {&pecert_check_rope_apply_golden, FILES_SUBSTITUTED, ROPES, "rope.apply", 0, ROTARY},
    {&pecert_check_mrope_apply_golden, FILES_SUBSTITUTED, 1u << PECERT_PE_MROPE, "mrope.apply", 1, ROTARY},
    {&pecert_check_rope_norm_preservation, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_shift_invariance, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_identity_at_zero, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_inverse, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_partial_passthrough, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_inplace_and_strides, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_boundary_lengths, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_long_position_precision, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_pairing_convention, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_nope_layer, FILES_CHECKPOINT, ROPES, NULL, 1, NOPE},
    {&pecert_check_rope_half_precision, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_rope_thread_determinism, FILES_CHECKPOINT, ROPES, NULL, 0, ROTARY},
    {&pecert_check_mrope_text_only_is_rope, FILES_SUBSTITUTED, 1u << PECERT_PE_MROPE, "mrope.apply", 0, ROTARY},
    /* The KV-cache path at the checkpoint's parameters and pairing: a
     * session that declines them cannot serve the checkpoint. */
    {&pecert_check_decode_prefill_equivalence, FILES_CHECKPOINT, ROPES, NULL, 1, ROTARY},
    {&pecert_check_batch_padding_independence, FILES_CHECKPOINT, ROPES, NULL, 1, ROTARY},
    {&pecert_check_certify_alibi_reference, FILES_CHECKPOINT, 1u << PECERT_PE_ALIBI, NULL, 1, ROTARY},
    {&pecert_check_certify_alibi_attention, FILES_CHECKPOINT, 1u << PECERT_PE_ALIBI, NULL, 1, ROTARY},
    {&pecert_check_alibi_slopes_golden, FILES_RECORDED, 1u << PECERT_PE_ALIBI, "alibi.slopes", 0, ROTARY},
    {&pecert_check_alibi_bias_golden, FILES_RECORDED, 1u << PECERT_PE_ALIBI, "alibi.bias", 0, ROTARY},
    {&pecert_check_alibi_shift_invariance, FILES_RECORDED, 1u << PECERT_PE_ALIBI, "alibi.bias", 0, ROTARY},
    {&pecert_check_certify_t5_reference, FILES_CHECKPOINT, 1u << PECERT_PE_T5, NULL, 1, ROTARY},
    {&pecert_check_t5_bucket_golden, FILES_RECORDED, 1u << PECERT_PE_T5, "t5.bucket", 0, ROTARY},
    {&pecert_check_t5_bucket_monotone, FILES_RECORDED, 1u << PECERT_PE_T5, "t5.bucket", 0, ROTARY},
    {&pecert_check_t5_bucket_saturation, FILES_RECORDED, 1u << PECERT_PE_T5, "t5.bucket", 0, ROTARY},
    {&pecert_check_certify_learned_reference, FILES_CHECKPOINT, 1u << PECERT_PE_LEARNED, NULL, 1, ROTARY},
    {&pecert_check_learned_golden, FILES_RECORDED, 1u << PECERT_PE_LEARNED, "learned.lookup", 0, ROTARY},
    /* The table's bounds: a plugin that reads past them is not certified. */
    {&pecert_check_learned_out_of_range, FILES_RECORDED, 1u << PECERT_PE_LEARNED, "learned.lookup", 1, ROTARY},
    {&pecert_check_certify_sinusoidal_reference, FILES_CHECKPOINT, 1u << PECERT_PE_SINUSOIDAL, NULL, 1, ROTARY},
    {&pecert_check_sinusoidal_golden, FILES_RECORDED, 1u << PECERT_PE_SINUSOIDAL, "sinusoidal.embed", 0, ROTARY},
    {&pecert_check_certify_swin_reference, FILES_CHECKPOINT, 1u << PECERT_PE_SWIN, NULL, 1, ROTARY},
    {&pecert_check_swin_index_golden, FILES_RECORDED, 1u << PECERT_PE_SWIN, "swin.index", 0, ROTARY},
    {&pecert_check_certify_sine2d_reference, FILES_CHECKPOINT, 1u << PECERT_PE_SINE2D, NULL, 1, ROTARY},
    {&pecert_check_sine2d_golden, FILES_RECORDED, 1u << PECERT_PE_SINE2D, "sine2d.embed", 0, ROTARY},
    /* What padding does to a mask-reading model's embedding: a model that
     * passes no mask (MaskFormer's family) never meets one. */
    {&pecert_check_sine2d_padding, FILES_RECORDED, 1u << PECERT_PE_SINE2D, "sine2d.embed", 0, ROTARY | MASK},
    {&pecert_check_certify_relpos2d_reference, FILES_CHECKPOINT, 1u << PECERT_PE_RELPOS2D, NULL, 1, ROTARY},
    {&pecert_check_relpos2d_golden, FILES_RECORDED, 1u << PECERT_PE_RELPOS2D, "relpos2d.bias", 0, ROTARY},
    {&pecert_check_certify_sincos2d_reference, FILES_CHECKPOINT, 1u << PECERT_PE_SINCOS2D, NULL, 1, ROTARY},
    {&pecert_check_sincos2d_golden, FILES_RECORDED, 1u << PECERT_PE_SINCOS2D, "sincos2d.embed", 0, ROTARY},
    {&pecert_check_certify_deberta_reference, FILES_CHECKPOINT, 1u << PECERT_PE_DEBERTA, NULL, 1, ROTARY},
    {&pecert_check_deberta_bias_golden, FILES_RECORDED, 1u << PECERT_PE_DEBERTA, "deberta.bias", 0, ROTARY},
    {&pecert_check_deberta_index_golden, FILES_RECORDED, 1u << PECERT_PE_DEBERTA, "deberta.relpos", 0, ROTARY},
    /* The vision tower (the @vision pass): its 2-D RoPE against ref at the
     * tower's parameters and grids, and against the tower's own outputs
     * when the profile vectors recorded them. */
    {&pecert_check_certify_rope2d_reference, FILES_CHECKPOINT, VISION, NULL, 1, ROTARY | TURNS},
    {&pecert_check_rope2d_index_golden, FILES_RECORDED, VISION, "rope2d.index", 0, ROTARY | TURNS},
    {&pecert_check_rope2d_apply_golden, FILES_RECORDED, VISION, "rope2d.apply", 0, ROTARY | TURNS},
    {&pecert_check_rope2d_norm_preservation, FILES_RECORDED, VISION, "rope2d.apply", 0, ROTARY | TURNS},
    {&pecert_check_rope2d_axis_separation, FILES_RECORDED, VISION, "rope2d.apply", 0, ROTARY | TURNS},
    {&pecert_check_certify_posinterp_reference, FILES_CHECKPOINT, VISION, NULL, 1, ROTARY | TABLE},
    {&pecert_check_posinterp_golden, FILES_RECORDED, VISION, "posinterp.resize", 0, ROTARY | TABLE},
    {&pecert_check_posinterp_native_identity, FILES_RECORDED, VISION, "posinterp.resize", 0, ROTARY | TABLE},
    {&pecert_check_posinterp_constant, FILES_RECORDED, VISION, "posinterp.resize", 0, ROTARY | TABLE},
    {&pecert_check_posinterp_mirror_symmetry, FILES_RECORDED, VISION, "posinterp.resize", 0, ROTARY | TABLE},
};
const size_t pecert_certify_plan_len = sizeof(pecert_certify_plan) / sizeof(pecert_certify_plan[0]);

int pecert_plan_applies(const pecert_plan_entry *e, const pecert_certify_model *m)
{
    int nope = m->kind != PECERT_PE_ROPE2D && m->rope.layer_kind == PECERT_LAYER_NOPE;
    unsigned layer = nope ? PECERT_PLAN_NOPE : PECERT_PLAN_ROTARY;
    if (((e->layers & PECERT_PLAN_TABLE) && m->vision.table_side == 0) ||
        ((e->layers & PECERT_PLAN_TURNS) && !m->vision.rotary) ||
        ((e->layers & PECERT_PLAN_MASK) && !m->sine2d_reads_mask)) {
        return 0;
    }
    return (e->kinds & (1u << m->kind)) && (e->layers & layer);
}

/* What the checkpoint's encoding is, for a reason a porter reads:
 * "rope_type yarn (rotary_dim 128 of 128, split_half pairing)". */
static void encoding_label(char *out, size_t len, const pecert_certify_model *m, const char *check_id)
{
    if (m->kind == PECERT_PE_ROPE2D && strcmp(check_id, pecert_check_certify_posinterp_reference.id) == 0) {
        char how[128];
        pecert_certify_table_words(how, sizeof(how), &m->vision);
        snprintf(out, len, "the learned position table of %s (%d x %d, resized %s)", m->vision.tower,
                 m->vision.table_side, m->vision.table_side, how);
    } else if (m->kind == PECERT_PE_ROPE2D) {
        const pecert_certify_vision *v = &m->vision;
        snprintf(out, len, "2-D RoPE of %s (frequencies %s, %s first, %s pairing, theta %g, head_dim %d)", v->tower,
                 v->frequencies == PECERT_ROPE2D_BLOCKS ? "in blocks" : "alternating",
                 v->columns_first ? "columns" : "rows", pecert_rope_pairing_name(v->pairing), v->theta, v->head_dim);
    } else if (m->kind <= PECERT_PE_MROPE) {
        snprintf(out, len, "%srope_type %s (rotary_dim %d of %d, %s pairing)",
                 m->kind == PECERT_PE_MROPE ? "M-RoPE, " : "",
                 pecert_rope_type_name(m->rope.rope_type), (int)m->rope.rotary_dim, (int)m->rope.head_dim,
                 pecert_rope_pairing_name(m->pairing));
    } else {
        snprintf(out, len, "%s", pecert_pe_kind_name(m->kind));
    }
}

/*
 * An essential check is the checkpoint's own configuration at the lengths
 * it uses: a plugin that declined part of it (a scaled config, the far
 * positions) has not shown it can run the checkpoint. Its diagnosis then
 * says so with the plugin's own words (its last_error), and the symptom
 * PECERT_SYMPTOM_ESSENTIAL_DECLINED lets the run's diagnosis name it as the reason.
 * (pecert_plan_judge_essential, certify_plan.h)
 */
int pecert_plan_judge_essential(pecert_check_result *r, const pecert_certify_model *m)
{
    if (pecert_check_has_symptom(r, PECERT_SYMPTOM_NO_OPERATION)) {
        return 0; /* no operation for it: not examined, and said so (certificate.h) */
    }
    int declined_all = r->verdict == PECERT_VERDICT_UNSUPPORTED;
    if (!declined_all && (r->verdict != PECERT_VERDICT_PASS || r->n_unsupported == 0)) {
        return 0;
    }
    char encoding[160];
    encoding_label(encoding, sizeof(encoding), m, r->check_id);
    const char *why = r->n_unsupported > r->n_beyond_scope && r->declined[0] != '\0' ? r->declined
                      : r->n_beyond_scope > 0                                      ? r->beyond_scope
                                                                                   : r->diagnosis;
    char line[PECERT_RESULT_LINE_MAX];
    /* Which path declined: the encoding's own operations, or one that
     * serves it (the decode/KV-cache path, batching). */
    const char *concern = pecert_check_concern(r->check_id);
    char who[96];
    if (strcmp(concern, "the checkpoint's encoding") == 0 || strcmp(concern, "other checks") == 0) {
        snprintf(who, sizeof(who), "the plugin");
    } else {
        snprintf(who, sizeof(who), "the plugin's %s path", concern);
    }
    if (declined_all) {
        snprintf(line, sizeof(line), "%s declines the checkpoint's encoding, %s: %s", who, encoding, why);
    } else {
        snprintf(line, sizeof(line), "%s declined %lld of the %lld cases the checkpoint's encoding needs (%s): %s",
                 who, (long long)r->n_unsupported, (long long)r->n_cases, encoding, why);
    }
    snprintf(r->diagnosis, sizeof(r->diagnosis), "%s", line);
    /* Declined in part: a failure. Declined in whole: still "not
     * supported" (--all-profiles reads a plugin without the encoding as
     * not applicable), and the checkpoint is not certified either way. */
    r->verdict = declined_all ? PECERT_VERDICT_UNSUPPORTED : PECERT_VERDICT_FAIL;
    pecert_check_symptom(r, "%s", PECERT_SYMPTOM_ESSENTIAL_DECLINED);
    return declined_all;
}

/* Layer type t of m as a model of its own (its rope in m->rope; LongRoPE
 * factors point into the copy). */
static void layer_model(pecert_certify_model *sub, const pecert_certify_model *m, int t)
{
    *sub = *m;
    sub->rope = m->layer_types[t].rope;
    pecert_certify_point_factors(sub);
    sub->n_layer_types = 0;
}

/* The decoder's learned table as a model of its own (Whisper's: row p). */
static void decoder_model(pecert_certify_model *sub, const pecert_certify_model *m)
{
    *sub = *m;
    pecert_certify_point_factors(sub);
    sub->kind = PECERT_PE_LEARNED;
    sub->learned_rows = m->decoder_learned_rows;
    sub->learned_dim = m->decoder_learned_dim;
    sub->learned_convention = PECERT_LEARNED_PLAIN;
    sub->max_position_embeddings = m->decoder_learned_rows;
    sub->decoder_learned_rows = 0;
    memset(&sub->vision, 0, sizeof(sub->vision));
}

int pecert_certify_passes(pecert_certify_pass *p, pecert_certify_model **store, const pecert_certify_model *m)
{
    /* A checkpoint that is a 2-D RoPE tower (Pixtral's) has no text pass:
     * the @vision pass is the whole model. */
    int n_text = m->kind == PECERT_PE_ROPE2D ? 0 : m->n_layer_types > 0 ? m->n_layer_types : 1;
    int tower = m->vision.tower[0] != '\0';
    int n = n_text + tower + (m->decoder_learned_rows > 0 ? 1 : 0);
    *store = malloc((size_t)n * sizeof(**store));
    if (*store == NULL) {
        return -1;
    }
    for (int t = 0; t < n_text; t++) {
        p[t].model = &(*store)[t];
        p[t].findings_of = "layers";
        if (m->n_layer_types > 0) {
            layer_model(p[t].model, m, t);
            p[t].name = m->layer_types[t].name;
        } else {
            *p[t].model = *m;
            pecert_certify_point_factors(p[t].model);
            p[t].name = NULL;
        }
    }
    if (tower) {
        p[n_text].model = &(*store)[n_text];
        pecert_certify_vision_model(p[n_text].model, m);
        p[n_text].name = "vision";
        p[n_text].findings_of = "tower";
    }
    if (n > n_text + tower) {
        p[n - 1].model = &(*store)[n - 1];
        decoder_model(p[n - 1].model, m);
        p[n - 1].name = "decoder";
        p[n - 1].findings_of = "table";
    }
    return n;
}
