/* diagnose.c - rules from symptoms and verdicts to named bugs. */
#include "diagnose.h"
#include "certify_checks.h"
#include "decode.h"
#include "family.h"
#include "rope_checks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed(const pecert_run_results *run, const char *id)
{
    const pecert_check_result *r = pecert_run_results_find(run, id);
    return r != NULL && r->verdict >= PECERT_VERDICT_FAIL;
}

static int passed(const pecert_run_results *run, const char *id)
{
    const pecert_check_result *r = pecert_run_results_find(run, id);
    return r != NULL && r->verdict == PECERT_VERDICT_PASS;
}

static int has(const pecert_run_results *run, const char *id, const char *tag)
{
    const pecert_check_result *r = pecert_run_results_find(run, id);
    return r != NULL && pecert_check_has_symptom(r, tag);
}

/* The value of the first symptom of check id starting with prefix. */
static const char *symptom_value(const pecert_run_results *run, const char *id, const char *prefix)
{
    const pecert_check_result *r = pecert_run_results_find(run, id);
    size_t len = strlen(prefix);
    for (int i = 0; r != NULL && i < r->n_symptoms; i++) {
        if (strncmp(r->symptoms[i], prefix, len) == 0) {
            return r->symptoms[i] + len;
        }
    }
    return NULL;
}

/* 1 if name (a symptom's value, may be NULL) is rope type t's name. */
static int is_type(const char *name, pecert_rope_type t)
{
    return name != NULL && strcmp(name, pecert_rope_type_name(t)) == 0;
}

/* 1 if check id carries the symptom prefix + rope type t's name. */
static int has_type(const pecert_run_results *run, const char *id, const char *prefix, pecert_rope_type t)
{
    char tag[PECERT_SYMPTOM_LEN];
    snprintf(tag, sizeof(tag), "%s%s", prefix, pecert_rope_type_name(t));
    return has(run, id, tag);
}

/* Symptoms of r (may be NULL) starting with prefix. */
static int result_count_prefix(const pecert_check_result *r, const char *prefix)
{
    int n = 0;
    for (int i = 0; r != NULL && i < r->n_symptoms; i++) {
        n += strncmp(r->symptoms[i], prefix, strlen(prefix)) == 0;
    }
    return n;
}

static int count_prefix(const pecert_run_results *run, const char *id, const char *prefix)
{
    return result_count_prefix(pecert_run_results_find(run, id), prefix);
}

/*
 * Where the rope evidence comes from: run's golden checks, or certify's
 * comparison with the oracle at the checkpoint's own parameters
 * (certify_checks.c), which leaves the same symptoms and replays the same
 * hypotheses. One set of rules reads both, so certify names a bug exactly
 * as run does.
 */
static const char *const apply_sources[] = {PECERT_ID_ROPE_APPLY_GOLDEN, PECERT_ID_CERTIFY_ROPE_REFERENCE};
static const char *const freq_sources[] = {PECERT_ID_ROPE_FREQ_GOLDEN, PECERT_ID_CERTIFY_ROPE_REFERENCE};
#define N_SOURCES 2

/* The first source holding symptom tag, or NULL. */
static const char *source_with(const pecert_run_results *run, const char *const *sources, const char *tag)
{
    for (int i = 0; i < N_SOURCES; i++) {
        if (has(run, sources[i], tag)) {
            return sources[i];
        }
    }
    return NULL;
}

/* The first source holding a symptom starting with prefix, or NULL. */
static const char *source_with_prefix(const pecert_run_results *run, const char *const *sources,
                                      const char *prefix)
{
    for (int i = 0; i < N_SOURCES; i++) {
        if (count_prefix(run, sources[i], prefix) > 0) {
            return sources[i];
        }
    }
    return NULL;
}

/* What the cases of a source are called in evidence lines. */
static const char *cases_of(const char *source)
{
    return strncmp(source, "certify.", 8) == 0 ? "cases" : "vectors";
}

/* 1 if the run shows the frequencies (and attention scaling) right: the
 * golden check passed, or certify's oracle comparison ran with none off. */
static int freqs_right(const pecert_run_results *run)
{
    const pecert_check_result *golden = pecert_run_results_find(run, PECERT_ID_ROPE_FREQ_GOLDEN);
    const pecert_check_result *certify = pecert_run_results_find(run, PECERT_ID_CERTIFY_ROPE_REFERENCE);
    if (source_with_prefix(run, freq_sources, PECERT_SYMPTOM_FREQ_OFF) != NULL ||
        source_with_prefix(run, freq_sources, PECERT_SYMPTOM_SCALING) != NULL) {
        return 0;
    }
    return golden != NULL ? golden->verdict == PECERT_VERDICT_PASS
                          : certify != NULL && certify->verdict <= PECERT_VERDICT_FAIL;
}

/* 1 if rotations are shown right; 0 if shown wrong or not shown. */
static int rotations_right(const pecert_run_results *run)
{
    if (pecert_run_results_find(run, PECERT_ID_ROPE_APPLY_GOLDEN) != NULL) {
        return passed(run, PECERT_ID_ROPE_APPLY_GOLDEN);
    }
    const pecert_check_result *certify = pecert_run_results_find(run, PECERT_ID_CERTIFY_ROPE_REFERENCE);
    return certify != NULL && certify->verdict <= PECERT_VERDICT_FAIL &&
           count_prefix(run, PECERT_ID_CERTIFY_ROPE_REFERENCE, PECERT_SYMPTOM_APPLY_OFF) == 0;
}

static int rotations_wrong(const pecert_run_results *run)
{
    return failed(run, PECERT_ID_ROPE_APPLY_GOLDEN) ||
           count_prefix(run, PECERT_ID_CERTIFY_ROPE_REFERENCE, PECERT_SYMPTOM_APPLY_OFF) > 0;
}

static void add(pecert_run_results *run, const char *id, const char *evidence, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(pecert_run_results *run, const char *id, const char *evidence, const char *fmt, ...)
{
    for (int i = 0; i < run->n_findings; i++) {
        if (strcmp(run->findings[i].id, id) == 0) {
            return; /* named already, by stronger evidence */
        }
    }
    if (run->n_findings >= PECERT_MAX_FINDINGS) {
        return;
    }
    pecert_finding *f = &run->findings[run->n_findings++];
    va_list ap;
    va_start(ap, fmt);
    snprintf(f->id, sizeof(f->id), "%s", id);
    vsnprintf(f->bug, sizeof(f->bug), fmt, ap);
    snprintf(f->evidence, sizeof(f->evidence), "%s", evidence);
    va_end(ap);
}

/* The strongest evidence: a hypothesis that reproduces the plugin's
 * golden outputs exactly when replayed on the oracle (rope_hypotheses.c). */
static void diagnose_hypotheses(pecert_run_results *run)
{
    const char *tag, *id, *bug;
    for (size_t i = 0; (tag = pecert_rope_hypothesis(i, &id, &bug)) != NULL; i++) {
        char symptom[64];
        snprintf(symptom, sizeof(symptom), "%s%s", PECERT_SYMPTOM_HYPOTHESIS, tag);
        const char *source = source_with(run, apply_sources, symptom);
        if (source == NULL) {
            continue;
        }
        char evidence[PECERT_RESULT_LINE_MAX];
        snprintf(evidence, sizeof(evidence), "%s: the failing %s replayed on the oracle under this hypothesis match",
                 source, cases_of(source));
        const char *type = symptom_value(run, source, PECERT_SYMPTOM_APPLY_OFF);
        int one_type = count_prefix(run, source, PECERT_SYMPTOM_APPLY_OFF) == 1;
        if (strcmp(id, "scaling_ignored") == 0 && one_type && freqs_right(run) &&
            (is_type(type, PECERT_ROPE_DYNAMIC) || is_type(type, PECERT_ROPE_LONGROPE))) {
            /* Plain RoPE is what dynamic NTK and LongRoPE compute below L0:
             * with the frequencies right at the lengths asked, apply picks
             * its length wrongly (the chunk's, not max(position)+1). */
            add(run, "seq_len_selection", evidence,
                "%s frequencies selected by the wrong length in apply (not max(position)+1): outputs match plain "
                "RoPE, the frequencies are right at the lengths asked", type);
        } else if (strcmp(id, "scaling_ignored") == 0 && one_type) {
            /* Name the scaling the plugin ignores: the one bug, not two leads. */
            add(run, id, evidence, "rope scaling (%s) ignored: outputs match plain (default) RoPE", type);
        } else {
            add(run, id, evidence, "%s", bug);
        }
    }
}

static void diagnose_pairing(pecert_run_results *run)
{
    const char *probe = PECERT_ID_ROPE_PAIRING_CONVENTION;
    if (passed(run, probe)) {
        return;
    }
    if (has(run, probe, PECERT_SYMPTOM_PAIRING_SPLIT_HALF_OVER_HEAD_DIM)) {
        add(run, "rotary_dim", "rope.pairing_convention: channel 0 pairs with head_dim/2",
            "rotary_dim taken as head_dim: partial rotary ignored");
    } else if (has(run, probe, PECERT_SYMPTOM_PAIRING_UNROTATED)) {
        add(run, "rotary_slice", "rope.pairing_convention: channel 0 is not rotated",
            "rotation applied to the wrong channel slice (not the first rotary_dim channels)");
    } else if (has(run, probe, PECERT_SYMPTOM_PAIRING_INTERLEAVED) ||
               has(run, probe, PECERT_SYMPTOM_PAIRING_SPLIT_HALF)) {
        add(run, "pairing", "rope.pairing_convention: channel 0 rotates into the other convention's partner",
            "pairing convention swapped: interleaved (GPT-J) and split-half (NeoX/Llama) exchanged");
    } else if (has(run, probe, PECERT_SYMPTOM_PAIRING_SIGN)) {
        add(run, "rotation_sign", "rope.pairing_convention: the partner channel has the opposite sign",
            "rotation by -theta: sign of the sin term (rotate_half) inverted");
    }
}

static void diagnose_scaling(pecert_run_results *run)
{
    static const struct {
        const char *tag;
        const char *id;
        const char *evidence;
        const char *bug;
    } map[] = {
        {PECERT_SYMPTOM_SCALING_MISSING, "scaling_missing", "attention_scaling is 1 where the reference's is not",
         "attention scaling (YaRN mscale / LongRoPE attention factor) not applied"},
        {PECERT_SYMPTOM_SCALING_SQUARED, "scaling_twice", "attention_scaling is the reference's squared",
         "attention scaling applied twice"},
        {PECERT_SYMPTOM_SCALING_WRONG, "scaling_wrong", "attention_scaling differs",
         "attention scaling wrong: check mscale, mscale_all_dim and attention_factor defaults"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        const char *source = source_with(run, freq_sources, map[i].tag);
        if (source != NULL) {
            char evidence[PECERT_RESULT_LINE_MAX];
            snprintf(evidence, sizeof(evidence), "%s: %s", source, map[i].evidence);
            add(run, map[i].id, evidence, "%s", map[i].bug);
            return;
        }
    }
}

/* Wrong frequencies, named by the only rope type (and flags) they hit. */
static void diagnose_frequencies(pecert_run_results *run)
{
    const char *freq = source_with_prefix(run, freq_sources, PECERT_SYMPTOM_FREQ_OFF);
    if (freq == NULL) {
        return;
    }
    int types = count_prefix(run, freq, PECERT_SYMPTOM_FREQ_OFF);
    const char *type = symptom_value(run, freq, PECERT_SYMPTOM_FREQ_OFF);
    if (run->n_findings > 0 && strcmp(run->findings[0].id, "rotary_dim") == 0) {
        return; /* rotary_dim already explains the wrong frequencies */
    }
    /* The golden vectors span every rope type, so "only this type fails"
     * localises the bug; certify's one config says only which type it is. */
    char evidence[PECERT_RESULT_LINE_MAX];
    if (strcmp(freq, PECERT_ID_ROPE_FREQ_GOLDEN) == 0) {
        if (types > 1) {
            snprintf(evidence, sizeof(evidence), "rope.freq.golden: inverse frequencies off for several rope types");
        } else {
            snprintf(evidence, sizeof(evidence), "rope.freq.golden: only the %s vectors fail", type);
        }
    } else {
        snprintf(evidence, sizeof(evidence), "%s: inverse frequencies differ from the oracle's at the checkpoint's "
                 "rope_type %s", freq, type);
    }
    if (types > 1 || is_type(type, PECERT_ROPE_DEFAULT)) {
        add(run, "base_frequencies", evidence,
            "base frequencies wrong: rope_theta, the exponent 2i/rotary_dim, or rotary_dim itself");
    } else if (is_type(type, PECERT_ROPE_LONGROPE)) {
        add(run, "longrope_switch", evidence,
            "LongRoPE short/long factors chosen wrongly (keyed on the wrong length or the wrong side of L0)");
    } else if (is_type(type, PECERT_ROPE_DYNAMIC)) {
        add(run, "dynamic_ntk", evidence, "dynamic NTK base wrong (applied statically, or computed from the wrong length)");
    } else if (is_type(type, PECERT_ROPE_LLAMA3)) {
        add(run, "llama3", evidence,
            "llama3 frequency scaling ignored or wrong (factor, low/high_freq_factor, original length)");
    } else if (is_type(type, PECERT_ROPE_YARN)) {
        add(run, "yarn_ramp", evidence, "YaRN ramp wrong: beta_fast/beta_slow, truncate or the correction range");
    } else {
        add(run, type, evidence, "%s scaling wrong", type);
    }
}

/* The words of r's recovered finding id, or NULL. rope_recovered.c writes
 * its "recovered:ID" symptoms and its note lines in one order, so the
 * finding's rank among the first is its note's among the second. */
static const char *recovered_text(const pecert_check_result *r, const char *id)
{
    size_t prefix = strlen(PECERT_SYMPTOM_RECOVERED);
    int rank = -1;
    for (int i = 0, k = 0; i < r->n_symptoms && rank < 0; i++) {
        if (strncmp(r->symptoms[i], PECERT_SYMPTOM_RECOVERED, prefix) == 0) {
            rank = strcmp(r->symptoms[i] + prefix, id) == 0 ? k : -1;
            k++;
        }
    }
    for (size_t i = 0; rank >= 0 && i < r->n_failures; i++) {
        const char *at = strstr(r->failures[i].line, PECERT_RECOVERED_NOTE);
        if (r->failures[i].kind == PECERT_FAILURE_NOTE && at != NULL && rank-- == 0) {
            return at + strlen(PECERT_RECOVERED_NOTE);
        }
    }
    return NULL;
}

/* The recovered finding id of the first failing apply source (its check
 * in *from when from is not NULL), or NULL. */
static const char *recovered_finding(const pecert_run_results *run, const char *id, const pecert_check_result **from)
{
    for (size_t s = 0; s < sizeof(apply_sources) / sizeof(apply_sources[0]); s++) {
        const pecert_check_result *r = pecert_run_results_find(run, apply_sources[s]);
        const char *text = r != NULL && r->verdict >= PECERT_VERDICT_FAIL ? recovered_text(r, id) : NULL;
        if (text != NULL) {
            if (from != NULL) {
                *from = r;
            }
            return text;
        }
    }
    return NULL;
}

/* Frequencies right, rotations wrong, pairing and passthrough right:
 * where do the positions go wrong? */
static void diagnose_positions(pecert_run_results *run)
{
    if (!freqs_right(run) || !rotations_wrong(run) ||
        count_prefix(run, PECERT_ID_ROPE_PAIRING_CONVENTION, PECERT_SYMPTOM_PAIRING) > 0 ||
        has(run, PECERT_ID_ROPE_PARTIAL_PASSTHROUGH, PECERT_SYMPTOM_PASSTHROUGH_CHANGED)) {
        return;
    }
    const char *from = symptom_value(run, PECERT_ID_ROPE_LONG_POSITION_PRECISION, PECERT_SYMPTOM_PRECISION_LOST_FROM);
    int scaled_types_only = count_prefix(run, PECERT_ID_ROPE_APPLY_GOLDEN, PECERT_SYMPTOM_APPLY_OFF) > 0 &&
                            !has_type(run, PECERT_ID_ROPE_APPLY_GOLDEN, PECERT_SYMPTOM_APPLY_OFF, PECERT_ROPE_DEFAULT);
    if (scaled_types_only && !failed(run, PECERT_ID_ROPE_IDENTITY_AT_ZERO)) {
        add(run, "seq_len_selection", "rope.apply.golden: only scaled rope types fail; frequencies right at given lengths",
            "dynamic/LongRoPE frequencies selected by the wrong length in apply (not max(position)+1)");
    } else if (has(run, PECERT_ID_ROPE_IDENTITY_AT_ZERO, PECERT_SYMPTOM_MOVES_AT_ZERO) &&
               recovered_finding(run, "position", NULL) != NULL) {
        /* The recovery names which tokens moved and by how much, as
         * `pecert diagnose` does: more than "wrong at position 0". */
        add(run, "recovered", "rope.identity_at_zero fails; each token's rotation recovered from a failing output, "
                              "as `pecert diagnose` reads a dump",
            "%s", recovered_finding(run, "position", NULL));
    } else if (has(run, PECERT_ID_ROPE_IDENTITY_AT_ZERO, PECERT_SYMPTOM_MOVES_AT_ZERO)) {
        add(run, "position_shift", "rope.identity_at_zero fails while frequencies are right",
            "positions shifted: the rotation is wrong already at position 0 (off-by-one, or token index used as position)");
    } else if (from != NULL && atoll(from) >= 1024 && !failed(run, PECERT_ID_ROPE_IDENTITY_AT_ZERO)) {
        /* Lost far out, and exact at position 0 (a NaN there, or any
         * failure at 0, is not a precision limit of far positions). */
        add(run, "precision", "rope.long_position_precision: exact below, lost from a far position",
            "precision lost at positions >= %s: half-precision positions or angles, or a clamped/wrapped cos-sin table",
            from);
    }
}

static void diagnose_calls(pecert_run_results *run)
{
    const char *dec = PECERT_ID_DECODE_PREFILL_EQUIVALENCE;
    const char *pad = PECERT_ID_BATCH_PADDING_INDEPENDENCE;
    if (has(run, dec, "differs:prefill + 5 decode steps") || has(run, dec, "differs:chunks 7,1,9,7")) {
        add(run, "decode_positions", "decode.prefill_equivalence: the plugin's own runs disagree",
            "decode steps or chunks do not continue one prefill: position or cache bookkeeping across calls");
    }
    int calls_drift = count_prefix(run, dec, PECERT_SYMPTOM_DIFFERS) > 0;
    /* The registry's ALiBi sessions, or certify's at the checkpoint's heads. */
    const char *att = count_prefix(run, dec, PECERT_SYMPTOM_ALIBI_SCALE) > 0 ? dec : PECERT_ID_CERTIFY_ALIBI_ATTENTION;
    int alibi_scale = count_prefix(run, att, PECERT_SYMPTOM_ALIBI_SCALE) > 0;
    if (alibi_scale) {
        add(run, "alibi_bias_scale",
            strcmp(att, dec) == 0
                ? "decode.prefill_equivalence: the outputs match the ALiBi term on the other side of the score scale"
                : "certify.alibi.attention: the outputs match the ALiBi term on the other side of the score scale",
            has(run, att, PECERT_SYMPTOM_ALIBI_SCALE_IGNORED)
                ? "ALiBi added after the score scale where the model adds it to q.k before the 1/sqrt(head_dim) "
                  "scale (Falcon's alibi: true): the bias is sqrt(head_dim) times too large"
                : "ALiBi scaled by 1/sqrt(head_dim) (Falcon's order) where the model adds it to the scaled scores "
                  "(Bloom, MPT)");
    }
    if (!calls_drift && !alibi_scale && failed(run, dec) && rotations_right(run) &&
        passed(run, PECERT_ID_ROPE_PAIRING_CONVENTION)) {
        add(run, "cache_rotation", "decode.prefill_equivalence: consistent across calls but not the oracle; rotations right",
            "attention over the cache is wrong while rotations are right: cached keys used at positions they were not rotated for");
    }
    if (!calls_drift && (has(run, pad, "differs:left-padded batch") || has(run, pad, "differs:right-padded batch"))) {
        add(run, "batch_padding", "batch.padding_independence: padded batch differs from its rows run alone",
            "a padded batch changes valid tokens: padding attended to, or positions shared across the batch");
    }
}

static void diagnose_layout(pecert_run_results *run)
{
    if (has(run, PECERT_ID_ROPE_PARTIAL_PASSTHROUGH, PECERT_SYMPTOM_PASSTHROUGH_CHANGED)) {
        add(run, "passthrough", "rope.partial_passthrough: channels past rotary_dim changed",
            "channels past rotary_dim are modified (scaled, rotated or not copied)");
    }
    if (!rotations_right(run)) {
        return; /* the packed path is wrong too: not a layout bug */
    }
    if (has(run, PECERT_ID_ROPE_INPLACE_AND_STRIDES, PECERT_SYMPTOM_IN_PLACE_DIFFERS)) {
        add(run, "in_place", "rope.inplace_and_strides: in place differs from out of place",
            "in-place rotation reads a channel after overwriting it");
    } else if (has(run, PECERT_ID_ROPE_INPLACE_AND_STRIDES, PECERT_SYMPTOM_STRIDED_DIFFERS)) {
        add(run, "strided", "rope.inplace_and_strides: a strided view differs from packed",
            "strides ignored or mishandled");
    }
}

/* Per-layer encodings: a NoPE layer (rope.nope_layer) that came back
 * changed. The check itself tells a rotation by the rotary layer's config
 * (the layer kind ignored) from any other change. */
static void diagnose_layers(pecert_run_results *run)
{
    if (!failed(run, PECERT_ID_ROPE_NOPE_LAYER)) {
        return;
    }
    if (has(run, PECERT_ID_ROPE_NOPE_LAYER, PECERT_SYMPTOM_NOPE_ROTATED) ||
        has(run, PECERT_ID_ROPE_NOPE_LAYER, PECERT_SYMPTOM_NOPE_SESSION_ROTATED)) {
        add(run, "nope_rotated", "rope.nope_layer: a NoPE layer's output is the rotary layer's",
            "a NoPE layer is rotated: the plugin ignores the layer kind (no_rope_layers / layer_types) and applies "
            "RoPE on every layer");
    } else if (has(run, PECERT_ID_ROPE_NOPE_LAYER, PECERT_SYMPTOM_NOPE_CHANGED)) {
        add(run, "nope_changed", "rope.nope_layer: a NoPE layer's output differs from its input",
            "a NoPE layer's q/k are changed (not rotated as a rotary layer would be): it must pass them through "
            "bit for bit");
    }
}

/* M-RoPE: a failed vector that the oracle reproduces with the other
 * frequency-to-axis assignment (mrope_checks.c, replay_layout). */
static void diagnose_mrope_layout(pecert_run_results *run)
{
    if (has(run, PECERT_ID_MROPE_APPLY_GOLDEN, PECERT_SYMPTOM_MROPE_BLOCKS)) {
        add(run, "mrope_layout", "mrope.apply.golden: the outputs match the sections applied as blocks",
            "M-RoPE sections applied as blocks (t..t h..h w..w) where the model interleaves them (t h w t h w ..., "
            "Qwen3-VL's mrope_interleaved)");
    } else if (has(run, PECERT_ID_MROPE_APPLY_GOLDEN, PECERT_SYMPTOM_MROPE_INTERLEAVED)) {
        add(run, "mrope_layout", "mrope.apply.golden: the outputs match the sections interleaved",
            "M-RoPE sections interleaved (t h w t h w ...) where the model applies them as blocks (Qwen2-VL)");
    }
}

/* Which check a 2-D RoPE finding rests on: the golden vectors' when they
 * fail, else certify's reference check at the checkpoint's tower when
 * its part_tag part (the positions or the rotation) failed; NULL if
 * neither. */
static const char *rope2d_evidence(const pecert_run_results *run, const char *golden, const char *part_tag)
{
    if (failed(run, golden)) {
        return golden;
    }
    return has(run, PECERT_ID_CERTIFY_ROPE2D_REFERENCE, part_tag) ? PECERT_ID_CERTIFY_ROPE2D_REFERENCE : NULL;
}

/* 2-D vision RoPE: the convention a failed case's replay on the oracle
 * reproduced (rope2d_checks.c), else what the properties show. */
static void diagnose_rope2d_index(pecert_run_results *run)
{
    const char *g = rope2d_evidence(run, PECERT_ID_ROPE2D_INDEX_GOLDEN, PECERT_SYMPTOM_ROPE2D_INDEX_WRONG);
    char why[160];
    if (g == NULL) {
        return;
    }
    if (has(run, g, PECERT_SYMPTOM_ROPE2D_ORDER_ROW_MAJOR)) {
        snprintf(why, sizeof(why), "%s: the positions are the grid's in row-major order", g);
        add(run, "rope2d_order", why,
            "vision patches numbered row by row where the tower visits them by spatial-merge window (Qwen2-VL's "
            "rot_pos_emb: windows of merge x merge patches, row-major inside)");
    } else if (has(run, g, PECERT_SYMPTOM_ROPE2D_ORDER_MERGE_WINDOWS)) {
        snprintf(why, sizeof(why), "%s: the positions are the merge-window order's, not the attention windows'", g);
        add(run, "rope2d_window_order", why,
            "Qwen2.5-VL's rotary positions left in merge-window order: forward reorders the tokens into "
            "attention windows (get_window_index) and the rotary rows must follow them");
    } else if (has(run, g, PECERT_SYMPTOM_ROPE2D_FRAMES_INTERLEAVED)) {
        snprintf(why, sizeof(why), "%s: each frame's row repeated t times in place", g);
        add(run, "rope2d_frames", why,
            "a video's rotary table repeated row by row (mx.repeat) instead of tiled frame by frame (torch's "
            ".repeat(t, 1)): its frames' positions interleaved");
    } else if (has(run, g, PECERT_SYMPTOM_ROPE2D_INDEX_AXES_SWAPPED)) {
        snprintf(why, sizeof(why), "%s: every (row, column) comes back as (column, row)", g);
        add(run, "rope2d_index_axes", why, "vision patch positions with rows and columns exchanged");
    } else {
        snprintf(why, sizeof(why), "%s fails (the patch positions)", g);
        add(run, "rope2d_index", strcmp(g, PECERT_ID_ROPE2D_INDEX_GOLDEN) == 0 ? "rope2d.index.golden fails" : why,
            "vision patch positions wrong: the order, the 1-based positions and class token of Llama 4, or the "
            "frames of a video");
    }
}

/* The finding of a rotation replay's symptom, if g holds one. */
static int rope2d_apply_replayed(pecert_run_results *run, const char *g)
{
    static const struct {
        const char *symptom, *id, *evidence, *bug;
    } replays[] = {
        {PECERT_SYMPTOM_ROPE2D_AXES_SWAPPED, "rope2d_axes", "the outputs match the row and column axes exchanged",
         "2-D RoPE axes swapped: the half the model turns by the column turned by the row (Llama 4's x-first "
         "order versus Pixtral's and Qwen2-VL's row-first)"},
        {PECERT_SYMPTOM_ROPE2D_FREQUENCIES_BLOCKS, "rope2d_frequencies", "the outputs match the frequencies in blocks",
         "2-D RoPE frequencies split in blocks (theta^(-4i/D) on both axes) where the model alternates them "
         "(Pixtral: the even frequencies for the height, the odd for the width)"},
        {PECERT_SYMPTOM_ROPE2D_FREQUENCIES_ALTERNATE, "rope2d_frequencies",
         "the outputs match the frequencies alternating",
         "2-D RoPE frequencies alternating between the axes (Pixtral's) where the model gives both axes "
         "theta^(-4i/D)"},
        {PECERT_SYMPTOM_ROPE2D_PAIRING, "rope2d_pairing", "the outputs match the other pairing",
         "2-D RoPE pairing exchanged: split-half (rotate_half: Qwen2-VL, Pixtral) versus interleaved "
         "(Llama 4's complex multiply)"},
        {PECERT_SYMPTOM_ROPE2D_ONE_AXIS, "rope2d_one_axis", "the outputs match both halves turned by the first axis",
         "2-D RoPE second half turned by the first axis' angles: the cos/sin of the first half reused for "
         "both, so the width never enters"},
        {PECERT_SYMPTOM_ROPE2D_COS_LAYOUT, "rope2d_cos_layout",
         "the outputs match cos/sin repeated per pair under rotate_half",
         "2-D RoPE cos/sin laid out for interleaved pairs ([c0, c0, c1, c1, ...], a repeat where the model "
         "tiles [c0..cn, c0..cn]) while the rotation pairs channel d with d + D/2"},
    };
    for (size_t i = 0; i < sizeof(replays) / sizeof(replays[0]); i++) {
        if (has(run, g, replays[i].symptom)) {
            char why[192];
            snprintf(why, sizeof(why), "%s: %s", g, replays[i].evidence);
            add(run, replays[i].id, why, "%s", replays[i].bug);
            return 1;
        }
    }
    return 0;
}

static void diagnose_rope2d_apply(pecert_run_results *run)
{
    const char *g = rope2d_evidence(run, PECERT_ID_ROPE2D_APPLY_GOLDEN, PECERT_SYMPTOM_ROPE2D_ROTATION_WRONG);
    if (g != NULL && rope2d_apply_replayed(run, g)) {
        return;
    }
    if (g != NULL && strcmp(g, PECERT_ID_ROPE2D_APPLY_GOLDEN) != 0) {
        add(run, "rope2d_rotation", "certify.rope2d.reference fails (the rotation)",
            "2-D vision RoPE rotation wrong in a way no single convention change explains: read the details "
            "of " PECERT_ID_CERTIFY_ROPE2D_REFERENCE);
    } else if (g != NULL || failed(run, PECERT_ID_ROPE2D_NORM_PRESERVATION) ||
               failed(run, PECERT_ID_ROPE2D_AXIS_SEPARATION)) {
        add(run, "rope2d_rotation", "rope2d.apply.golden or its properties fail",
            "2-D vision RoPE rotation wrong in a way no single convention change explains: read the details "
            "of " PECERT_ID_ROPE2D_APPLY_GOLDEN);
    }
}

/* A resized position grid: the convention whose replay reproduces the
 * plugin's output (posinterp_checks.c), else what the properties show;
 * the evidence is posinterp.golden's, or certify's reference check at a
 * checkpoint's tower when the golden vectors did not fail. antialias:added
 * comes after the cubic coefficient: an upsampling antialias window is
 * Keys' a = -0.5 kernel away from the borders. */
static void diagnose_posinterp(pecert_run_results *run)
{
    static const struct {
        const char *symptom, *id, *evidence, *bug;
    } replays[] = {
        {PECERT_SYMPTOM_POSINTERP_SHORTCUT, "posinterp_shortcut", "the table comes back unchanged for as many patches",
         "position table returned as it is because the patch count is unchanged, though the grid's shape is not "
         "(a shortcut on the token count)"},
        {PECERT_SYMPTOM_POSINTERP_AXES_SWAPPED, "posinterp_axes",
         "the outputs match the grid with height and width exchanged",
         "non-square position grid built with its height and width exchanged (coordinates passed as (y, x), "
         "meshgrid \"xy\"): square grids hide it"},
        {PECERT_SYMPTOM_POSINTERP_ALIGN_CORNERS_TRUE, "posinterp_align_corners", "the outputs match align_corners=True",
         "position grid resized corners to corners (align_corners=True) where the model uses half-pixel centres"},
        {PECERT_SYMPTOM_POSINTERP_ALIGN_CORNERS_FALSE, "posinterp_align_corners",
         "the outputs match align_corners=False",
         "position grid resized with half-pixel centres (align_corners=False) where the model samples corners to "
         "corners (Qwen3-VL's torch.linspace(0, side - 1, n))"},
        {PECERT_SYMPTOM_POSINTERP_ANTIALIAS_DROPPED, "posinterp_antialias",
         "the outputs match the resize without antialias",
         "position grid resized without the antialias filter the model asks for (F.interpolate(..., "
         "antialias=True): SigLIP 2, DINOv2 with registers); wrong wherever the grid shrinks"},
        {PECERT_SYMPTOM_POSINTERP_MODE_BICUBIC, "posinterp_mode", "the outputs match a bicubic resize",
         "position grid resized bicubically where the model interpolates bilinearly (SigLIP 2, Qwen3-VL)"},
        {PECERT_SYMPTOM_POSINTERP_MODE_BILINEAR, "posinterp_mode", "the outputs match a bilinear resize",
         "position grid resized bilinearly where the model interpolates bicubically (ViT, DeiT, CLIP, DINOv2)"},
        {PECERT_SYMPTOM_POSINTERP_SCALE_FORM_SIZE, "posinterp_scale_form", "the outputs match the size form",
         "position grid resized to a size where the model passes DINOv2's scale_factor (n + 0.1) / M, whose "
         "coordinates PyTorch maps by 1 / scale"},
        {PECERT_SYMPTOM_POSINTERP_SCALE_FORM_OFFSET, "posinterp_scale_form",
         "the outputs match DINOv2's scale_factor form",
         "position grid resized with DINOv2's scale_factor (n + 0.1) / M where the model passes the output size"},
        {PECERT_SYMPTOM_POSINTERP_CUBIC_COEFFICIENT, "posinterp_cubic_coefficient",
         "the outputs match bicubic with a = -0.5",
         "bicubic kernel with Keys' a = -0.5 where PyTorch's mode=\"bicubic\" uses A = -0.75"},
        {PECERT_SYMPTOM_POSINTERP_ANTIALIAS_ADDED, "posinterp_antialias", "the outputs match the resize with antialias",
         "position grid resized with the antialias filter where the model uses the plain taps"},
        {PECERT_SYMPTOM_POSINTERP_ORDER_ROW_MAJOR, "posinterp_order", "the outputs match the grid in row-major order",
         "resized grid written row by row where Qwen3-VL orders it by spatial-merge window"},
    };
    const char *g = failed(run, PECERT_ID_POSINTERP_GOLDEN) || !failed(run, PECERT_ID_CERTIFY_POSINTERP_REFERENCE)
                        ? PECERT_ID_POSINTERP_GOLDEN
                        : PECERT_ID_CERTIFY_POSINTERP_REFERENCE;
    for (size_t i = 0; i < sizeof(replays) / sizeof(replays[0]); i++) {
        if (has(run, g, replays[i].symptom)) {
            char why[192];
            snprintf(why, sizeof(why), "%s: %s", g, replays[i].evidence);
            add(run, replays[i].id, why, "%s", replays[i].bug);
            return;
        }
    }
    if (failed(run, PECERT_ID_POSINTERP_CONSTANT)) {
        add(run, "posinterp_weights", "posinterp.constant: a constant grid does not stay constant",
            "interpolation weights that do not sum to one (lost, truncated or not normalised), at the borders or "
            "everywhere");
    } else if (strcmp(g, PECERT_ID_POSINTERP_GOLDEN) != 0) {
        add(run, "posinterp_values", "certify.posinterp.reference fails",
            "position grid resized in a way no single convention change explains: read the details "
            "of " PECERT_ID_CERTIFY_POSINTERP_REFERENCE);
    } else if (failed(run, g) || failed(run, PECERT_ID_POSINTERP_NATIVE_IDENTITY) ||
               failed(run, PECERT_ID_POSINTERP_MIRROR_SYMMETRY)) {
        add(run, "posinterp_values", "posinterp.golden or its properties fail",
            "position grid resized in a way no single convention change explains: read the details "
            "of " PECERT_ID_POSINTERP_GOLDEN);
    }
}

/* CoPE: the convention whose replay reproduces the plugin's output
 * (cope_checks.c), else what the properties show. */
static void diagnose_cope(pecert_run_results *run)
{
    const char *g = PECERT_ID_COPE_GOLDEN;
    if (has(run, g, PECERT_SYMPTOM_COPE_GATE_UNSCALED)) {
        add(run, "cope_gate_scale", "cope.golden: the outputs match gates sigmoid(q . k) without 1/sqrt(d)",
            "CoPE gates computed as sigmoid(q . k), the paper's formula, where the authors' code divides the gate "
            "logit by sqrt(head_dim) first");
    } else if (has(run, g, PECERT_SYMPTOM_COPE_CUMSUM_FORWARD)) {
        add(run, "cope_cumsum", "cope.golden: the outputs match a forward cumulative sum of the gates",
            "CoPE positions counted from the first key (gates.cumsum) where they count from the key to the last "
            "one (flip, cumsum, flip)");
    } else if (has(run, g, PECERT_SYMPTOM_COPE_GATES_UNMASKED)) {
        add(run, "cope_gates_mask", "cope.golden: the outputs match gates summed without the mask",
            "CoPE gates summed before the attention mask is applied to them: later or padded keys are counted in "
            "every position");
    } else if (has(run, g, PECERT_SYMPTOM_COPE_POSITION_SCALE_FLIPPED)) {
        add(run, "cope_position_scale", "cope.golden: the outputs match the other order of scale and position term",
            "CoPE position logits added on the wrong side of the 1/sqrt(head_dim) scale (the --cope-nodiv order "
            "confused: (q.k + z) / sqrt(d) against q.k / sqrt(d) + z)");
    } else if (has(run, g, PECERT_SYMPTOM_COPE_CLAMP_PREFIX)) {
        add(run, "cope_clamp", "cope.golden: the outputs match clamped prefix sums subtracted",
            "CoPE clamp at npos - 1 taken on prefix sums whose difference is the position, not on each position: "
            "once the prefix saturates the positions collapse");
    } else if (failed(run, PECERT_ID_COPE_SATURATED_GATES)) {
        add(run, "cope_positions", "cope.saturated_gates: gates of 1 do not give the relative positions",
            "CoPE positions that do not count the visible keys from each key to the query (the cumulative sum's "
            "direction, its mask or its clamp)");
    } else if (failed(run, PECERT_ID_COPE_LINEAR_EMBEDDING)) {
        add(run, "cope_interpolation", "cope.linear_embedding: the logits are not affine in the positions",
            "CoPE position logits not blended linearly between the integer embeddings floor(p) and ceil(p), or "
            "scaled wrongly");
    } else if (failed(run, g) || failed(run, PECERT_ID_COPE_GATE_MONOTONE)) {
        add(run, "cope_values", "cope.golden or its properties fail",
            "CoPE positions or logits wrong in a way no single convention change explains: read the details "
            "of " PECERT_ID_COPE_GOLDEN);
    }
}

/* CPVT's PEG: the token layout whose replay reproduces the plugin's
 * output (peg_checks.c), else what the properties show. */
static void diagnose_peg(pecert_run_results *run)
{
    const char *g = PECERT_ID_PEG_GOLDEN;
    if (has(run, g, PECERT_SYMPTOM_PEG_TRANSPOSED)) {
        add(run, "peg_layout", "peg.golden: the outputs match the tokens' transpose read as the grid [H, W, C]",
            "PEG tokens transposed to [C, N] and reshaped to a channels-last grid [H, W, C] (PyTorch's "
            "transpose(1, 2).view(B, C, H, W) carried into a channels-last port): the convolution mixes unrelated "
            "tokens and channels");
    } else if (has(run, g, PECERT_SYMPTOM_PEG_AXES_SWAPPED)) {
        add(run, "peg_axes", "peg.golden: the outputs match the grid viewed as W x H",
            "PEG grid viewed with its height and width exchanged (view(B, C, W, H)): square grids hide it");
    } else if (has(run, g, PECERT_SYMPTOM_PEG_SQUARE)) {
        add(run, "peg_square", "peg.golden: the outputs match a sqrt(N) x sqrt(N) grid",
            "PEG grid side taken as sqrt(N) whatever the image's shape: non-square grids are convolved as the "
            "wrong grid or refused");
    } else if (failed(run, PECERT_ID_PEG_ZERO_KERNEL)) {
        add(run, "peg_residual", "peg.zero_kernel: a zero kernel does not return the input",
            "PEG residual dropped, doubled or altered (PosCNN adds its input to the convolution)");
    } else if (failed(run, PECERT_ID_PEG_ZERO_PADDING)) {
        add(run, "peg_padding", "peg.zero_padding: the border taps do not read zeros",
            "PEG border handled by another padding than zeros (replicated or mirrored edge)");
    } else if (failed(run, g) || failed(run, PECERT_ID_PEG_TRANSLATION)) {
        add(run, "peg_values", "peg.golden or its properties fail",
            "PEG outputs wrong in a way no token-layout change explains: read the details of peg.golden");
    }
}

/* A sine2d symptom, left by the golden vectors or by certify's reference
 * comparison (one set of rules names the bug either way). */
static int has_sine2d(const pecert_run_results *run, const char *tag)
{
    return has(run, PECERT_ID_SINE2D_GOLDEN, tag) || has(run, PECERT_ID_CERTIFY_SINE2D_REFERENCE, tag);
}

/* DETR's sine embedding from a pixel mask: the misreading whose replay
 * reproduces the plugin's output (sine2d_checks.c), else what the padding
 * property shows. */
static void diagnose_sine2d(pecert_run_results *run)
{
    const char *g = PECERT_ID_SINE2D_GOLDEN;
    if (has_sine2d(run, PECERT_SYMPTOM_SINE2D_MASK_IGNORED)) {
        add(run, "sine2d_mask", "the outputs match every pixel taken as valid (sine2d.golden or certify.sine2d.reference)",
            "DETR sine embedding normalised by the padded feature map, the pixel mask ignored: an image padded in "
            "a batch gets coordinates that depend on the other images");
    } else if (has_sine2d(run, PECERT_SYMPTOM_SINE2D_OFFSET)) {
        add(run, "sine2d_offset", "the outputs match the other offset, 0 or Deformable DETR's -0.5 (sine2d.golden or its certify reference)",
            "DETR sine embedding with Deformable DETR's -0.5 offset on the counts where the model has none, or "
            "without it where the model has it: one variant's module reused for another");
    } else if (has_sine2d(run, PECERT_SYMPTOM_SINE2D_HALVES)) {
        add(run, "sine2d_layout", "the outputs match sin and cos in halves (sine2d.golden or certify.sine2d.reference)",
            "DETR sine embedding with each axis' sin and cos in halves (MAE's layout) instead of interleaved");
    } else if (has_sine2d(run, PECERT_SYMPTOM_SINE2D_AXES_SWAPPED)) {
        add(run, "sine2d_axes", "the outputs match the columns' channels first (sine2d.golden or certify.sine2d.reference)",
            "DETR sine embedding with the columns' (x) channels before the rows' (y): DETR concatenates (pos_y, "
            "pos_x)");
    } else if (failed(run, PECERT_ID_SINE2D_PADDING)) {
        add(run, "sine2d_mask", "sine2d.padding: padding an image changes its own pixels' embedding",
            "DETR sine embedding that does not normalise each line by its own valid extent: the pixel mask is "
            "ignored or misread");
    } else if (failed(run, g) || failed(run, PECERT_ID_CERTIFY_SINE2D_REFERENCE)) {
        add(run, "sine2d_values", "sine2d.golden or certify.sine2d.reference fails",
            "DETR sine embedding wrong in a way no single misreading explains: read the details of sine2d.golden");
    }
}

/* MViTv2's and SAM's decomposed relative positions: the table resize
 * whose replay reproduces the plugin's output (relpos2d_checks.c), each
 * one a released port's, else the values. */
static void diagnose_relpos2d(pecert_run_results *run)
{
    static const char *const checks[] = {PECERT_ID_RELPOS2D_GOLDEN, PECERT_ID_RELPOS2D_SHAPES,
                                         PECERT_ID_CERTIFY_RELPOS2D_REFERENCE};
    static const struct {
        const char *symptom, *id, *evidence, *lead;
    } resizes[] = {
        {PECERT_SYMPTOM_RELPOS2D_ALIGN_CORNERS, "relpos2d_align_corners",
         "the outputs match the tables resized with their corners aligned",
         "decomposed relative positions with the table resized corner to corner ((L - 1) / (L' - 1), "
         "align_corners=True) where get_rel_pos' interpolate uses half-pixel centres: wrong at every other "
         "image size"},
        {PECERT_SYMPTOM_RELPOS2D_ASYMMETRIC, "relpos2d_asymmetric",
         "the outputs match the tables resized without the half-pixel offset",
         "decomposed relative positions with the table resized at i L / L' (no half-pixel offset) where "
         "get_rel_pos' interpolate reads (i + 0.5) L / L' - 0.5: the zero-offset row moves"},
    };
    for (size_t k = 0; k < sizeof(resizes) / sizeof(resizes[0]); k++) {
        for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++) {
            if (has(run, checks[c], resizes[k].symptom)) {
                add(run, resizes[k].id, resizes[k].evidence, "%s", resizes[k].lead);
                return;
            }
        }
    }
    for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++) {
        if (failed(run, checks[c])) {
            add(run, "relpos2d_values", "relpos2d.golden, relpos2d.shapes or certify.relpos2d.reference fails",
                "decomposed relative positions wrong in a way no table-resize misreading explains: read the details "
                "of relpos2d.golden");
            return;
        }
    }
}

/* DeBERTa's disentangled relative positions: the misreading whose replay
 * reproduces the plugin's output (deberta_checks.c), each one a released
 * port's, else the values. */
static void diagnose_deberta(pecert_run_results *run)
{
    static const char *const checks[] = {PECERT_ID_DEBERTA_INDEX_GOLDEN, PECERT_ID_DEBERTA_BIAS_GOLDEN,
                                         PECERT_ID_CERTIFY_DEBERTA_REFERENCE};
    static const struct {
        const char *symptom, *id, *evidence, *lead;
    } readings[] = {
        {PECERT_SYMPTOM_DEBERTA_P2C_SIGN, "deberta_p2c_sign",
         "the outputs match p2c reading table row clamp(-b(i - j) + span)",
         "DeBERTa's p2c term reads the row of -b(i - j): the official code's -relative_pos belongs with its "
         "transpose, and both terms read clamp(b(i - j) + span)"},
        {PECERT_SYMPTOM_DEBERTA_LENGTH_AS_MAX, "deberta_length_as_max_position",
         "the outputs match log buckets spread over the sequence length",
         "DeBERTa's log buckets spread over the sequence length instead of max_relative_positions: right only "
         "when the two are equal"},
        {PECERT_SYMPTOM_DEBERTA_INTEGER_RATIO, "deberta_integer_ratio",
         "the outputs match ln((max_position - 1) / mid) taken in integer division",
         "DeBERTa's log buckets divide (max_position - 1) by mid in integers (ln 3 for ln 3.99 at 512 positions "
         "and 256 buckets): every bucket past the exact ones moves"},
        {PECERT_SYMPTOM_DEBERTA_C2P_NO_SPAN, "deberta_c2p_no_span",
         "the outputs match c2p reading table row clamp(b(i - j)) without + span",
         "DeBERTa's c2p term reads row clamp(b(i - j), 0, 2 span - 1), without the + span: every key at or after "
         "its query reads row 0"},
        {PECERT_SYMPTOM_DEBERTA_SCALE_NO_SQRT, "deberta_scale_no_sqrt",
         "the outputs match the terms divided by d sf instead of sqrt(d sf)",
         "DeBERTa's c2p and p2c terms divided by d sf instead of its square root: the relative bias sqrt(d sf) "
         "times too small"},
    };
    for (size_t k = 0; k < sizeof(readings) / sizeof(readings[0]); k++) {
        for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++) {
            if (has(run, checks[c], readings[k].symptom)) {
                add(run, readings[k].id, readings[k].evidence, "%s", readings[k].lead);
                return;
            }
        }
    }
    if (failed(run, PECERT_ID_DEBERTA_INDEX_GOLDEN)) {
        add(run, "deberta_rows", "deberta.index.golden fails",
            "DeBERTa's relative positions read the wrong table rows in a way no released misreading explains: "
            "read the details of deberta.index.golden");
    } else if (failed(run, PECERT_ID_DEBERTA_BIAS_GOLDEN) || failed(run, PECERT_ID_CERTIFY_DEBERTA_REFERENCE)) {
        add(run, "deberta_values", "deberta.bias.golden or certify.deberta.reference fails with the rows right",
            "DeBERTa's c2p/p2c bias wrong with the right table rows: the scale sqrt(d sf), the terms asked for, "
            "or the tables per head (row n reads table n mod H)");
    }
}

/* A sinusoidal table that fails its golden vectors or the checkpoint's
 * reference: named by the porting bug its values match
 * (pecert_sinusoidal_suspect's symptoms), else as a wrong variant. */
static void diagnose_sinusoidal(pecert_run_results *run)
{
    static const struct {
        const char *symptom, *id, *lead;
    } suspects[] = {
        {PECERT_SYMPTOM_SINUSOIDAL_OFFSET, "sinusoidal_offset",
         "fairseq sinusoidal positions read at row p: the padding_idx + 1 offset of make_positions dropped "
         "(M2M-100, NLLB, FSMT, XGLM read row padding_idx + 1 + p)"},
        {PECERT_SYMPTOM_SINUSOIDAL_LAYOUT, "sinusoidal_layout",
         "sinusoidal table in the other layout: sin/cos interleaved (2i, 2i+1) where the checkpoint has sin | cos "
         "halves, or the reverse"},
        {PECERT_SYMPTOM_SINUSOIDAL_FREQUENCIES, "sinusoidal_frequencies",
         "sinusoidal frequencies of the other formula: base^(-2i/d) where the checkpoint's table (tensor2tensor, "
         "fairseq, Whisper) divides by d/2 - 1, or the reverse"},
        {PECERT_SYMPTOM_SINUSOIDAL_PAPER_TABLE, "sinusoidal_paper_table",
         "the paper's interleaved sinusoid (sin at 2i, cos at 2i+1, base^(-2i/d)) where the checkpoint's table is "
         "tensor2tensor's sin | cos halves (Whisper's encoder, fairseq)"},
    };
    static const char *const checks[] = {PECERT_ID_SINUSOIDAL_GOLDEN, PECERT_ID_CERTIFY_SINUSOIDAL_REFERENCE};
    for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++) {
        if (!failed(run, checks[c])) {
            continue;
        }
        size_t i = 0;
        while (i < sizeof(suspects) / sizeof(suspects[0]) && !has(run, checks[c], suspects[i].symptom)) {
            i++;
        }
        char evidence[160];
        if (i < sizeof(suspects) / sizeof(suspects[0])) {
            snprintf(evidence, sizeof(evidence), "%s: the table matches %s", checks[c], suspects[i].symptom);
            add(run, suspects[i].id, evidence, "%s", suspects[i].lead);
        } else {
            snprintf(evidence, sizeof(evidence), "%s fails", checks[c]);
            add(run, "sinusoidal_variant", evidence,
                "sinusoidal table of another variant: sin/cos interleaved vs concatenated, the d/2-1 denominator, "
                "or fairseq's offset");
        }
        return;
    }
}

/* The Swin index: rows that do not hold one relative offset each name the
 * row multiplier (2 window_w - 1, the row length of the bias table);
 * any other difference, the offsets' direction or order. */
static void diagnose_swin(pecert_run_results *run)
{
    /* the two checks that leave PECERT_SYMPTOM_SWIN_ROWS */
    static const char *const checks[] = {PECERT_ID_SWIN_INDEX_BIJECTIVE, PECERT_ID_CERTIFY_SWIN_REFERENCE};
    for (size_t c = 0; c < sizeof(checks) / sizeof(checks[0]); c++) {
        if (has(run, checks[c], PECERT_SYMPTOM_SWIN_ROWS)) {
            char evidence[160];
            snprintf(evidence, sizeof(evidence), "%s: two relative offsets share a bias row, or one runs past the "
                     "table", checks[c]);
            add(run, "swin_row_multiplier", evidence, "Swin relative_position_index with the wrong row multiplier: "
                "the row offset must be multiplied by 2 * window_w - 1, the bias table's row length");
            return;
        }
    }
    if (failed(run, PECERT_ID_SWIN_INDEX_GOLDEN) || failed(run, PECERT_ID_CERTIFY_SWIN_REFERENCE)) {
        add(run, "swin_index", "the Swin index differs from WindowAttention's, one row per offset",
            "Swin relative_position_index differs from WindowAttention's: the offsets' direction (query minus key) "
            "or the token order (row-major) swapped");
    }
}

/* The other families: one finding per family whose golden check fails,
 * sharpened where a property check pins the cause. */
/* 2-D sin-cos tables: RT-DETR's rows numbered as the patches (the check's
 * replay, sincos2d_checks.c), else the values. */
static void diagnose_sincos2d(pecert_run_results *run)
{
    if (has(run, PECERT_ID_SINCOS2D_GOLDEN, PECERT_SYMPTOM_SINCOS2D_RTDETR_ROW_MAJOR) ||
        has(run, PECERT_ID_CERTIFY_SINCOS2D_REFERENCE, PECERT_SYMPTOM_SINCOS2D_RTDETR_ROW_MAJOR)) {
        add(run, "sincos2d_rtdetr_row_major",
            "sincos2d.golden or certify.sincos2d.reference: RT-DETR's tables match the row-major patches' on "
            "non-square grids",
            "RT-DETR's 2-D sin-cos table numbered as the row-major patches (row | column of token r w + c), as "
            "transformers after v4.57.6 (PR #41380) builds it; the checkpoints' own code (lyuwenyu/RT-DETR, "
            "transformers v4.57.6) numbers row k as (k / h | k mod h): the two agree on square feature maps only");
    } else if (failed(run, PECERT_ID_SINCOS2D_GOLDEN) || failed(run, PECERT_ID_CERTIFY_SINCOS2D_REFERENCE)) {
        add(run, "sincos2d_values", "sincos2d.golden or certify.sincos2d.reference fails",
            "2-D sin-cos table wrong in a way no renumbering explains: read the details of sincos2d.golden");
    }
}

static void diagnose_families(pecert_run_results *run)
{
    if (failed(run, PECERT_ID_ALIBI_SLOPES_GOLDEN)) {
        add(run, "alibi_slopes", "alibi.slopes.golden: slopes differ from get_slopes",
            "ALiBi slopes wrong: the non-power-of-two interleaving, the exponent (h vs h+1) or max_bias");
    } else if (failed(run, PECERT_ID_ALIBI_BIAS_GOLDEN)) {
        add(run, "alibi_bias", "alibi.bias.golden fails with the slopes right",
            "ALiBi bias wrong with the right slopes: sign, |q-k| vs q-k, or the distance itself");
    }
    if (failed(run, PECERT_ID_T5_BUCKET_SATURATION)) {
        add(run, "t5_clamp", "t5.bucket.saturation: buckets past max_distance are not the last",
            "T5 buckets past max_distance not clamped to the last bucket");
    } else if (failed(run, PECERT_ID_T5_BUCKET_GOLDEN)) {
        add(run, "t5_buckets", "t5.bucket.golden fails", "T5 bucket formula wrong (exact range, log scale, or direction)");
    }
    if (failed(run, PECERT_ID_LEARNED_GOLDEN)) {
        add(run, "learned_offset", "learned.golden: rows read at other indices",
            "learned positions read at the wrong row: fairseq/RoBERTa's padding_idx + 1 offset");
    } else if (failed(run, PECERT_ID_CERTIFY_LEARNED_REFERENCE) &&
               has(run, PECERT_ID_CERTIFY_LEARNED_REFERENCE, PECERT_SYMPTOM_LEARNED_PADDING_OFFSET)) {
        add(run, "learned_offset", "certify.learned.reference: rows read at other indices than padding_idx + 1 + p",
            "learned positions read at the wrong row: the checkpoint's offset (RoBERTa's pad_token_id + 1, OPT's and "
            "BART's 2)");
    }
    if (failed(run, PECERT_ID_LEARNED_OUT_OF_RANGE) &&
        has(run, PECERT_ID_LEARNED_OUT_OF_RANGE, PECERT_SYMPTOM_LEARNED_WRONG_STATUS) &&
        !has(run, PECERT_ID_LEARNED_OUT_OF_RANGE, PECERT_SYMPTOM_LEARNED_NOT_REFUSED)) {
        add(run, "learned_status", "learned.out_of_range: every row past the table refused, with PECERT_E_UNSUPPORTED",
            "learned lookup refuses a row outside the table with PECERT_E_UNSUPPORTED: the ABI asks PECERT_E_INVAL "
            "(invalid input, not a case to decline)");
    } else if (failed(run, PECERT_ID_LEARNED_OUT_OF_RANGE)) {
        add(run, "learned_bounds", "learned.out_of_range: a position past the table was read, or not refused",
            "learned lookup does not check the table's bounds: a row outside [0, rows) must be refused, never read");
    }
    diagnose_sinusoidal(run);
    diagnose_swin(run);
    diagnose_sincos2d(run);
}

/*
 * One bug, one lead. A wrong rotation fails many checks (norm, shift,
 * long positions, decode...), and rules that read those checks would name
 * it a second time, wrongly ("precision lost at positions >= 2047" beside
 * "pairing swapped"). Each RoPE finding covers the failures its bug
 * causes: the rotations (every RoPE-family check), the inverse
 * frequencies, the attention scaling. A later finding is kept only if it
 * covers a failure the ones before it do not; findings about the plugin's
 * own consistency (in place, strides, decode across calls, padding) and
 * about other families are kept always: no RoPE bug makes them.
 */
enum {
    COVERS_ROTATIONS = 1,
    COVERS_INV_FREQ = 2,
    COVERS_SCALING = 4,
};

static unsigned covers(const char *finding_id)
{
    static const struct {
        const char *id;
        unsigned covers;
    } map[] = {
        {"position_shift", COVERS_ROTATIONS},
        {"physical_index", COVERS_ROTATIONS},
        {"pairing", COVERS_ROTATIONS},
        {"rotary_slice", COVERS_ROTATIONS},
        {"rotation_sign", COVERS_ROTATIONS},
        {"seq_len_selection", COVERS_ROTATIONS},
        {"precision", COVERS_ROTATIONS},
        {"recovered", COVERS_ROTATIONS},
        {"rotary_dim", COVERS_ROTATIONS | COVERS_INV_FREQ},
        {"scaling_ignored", COVERS_ROTATIONS | COVERS_INV_FREQ | COVERS_SCALING},
        {"scaling_missing", COVERS_ROTATIONS | COVERS_SCALING},
        {"scaling_twice", COVERS_ROTATIONS | COVERS_SCALING},
        {"scaling_wrong", COVERS_ROTATIONS | COVERS_SCALING},
        {"base_frequencies", COVERS_ROTATIONS | COVERS_INV_FREQ},
        {"longrope_switch", COVERS_ROTATIONS | COVERS_INV_FREQ},
        {"dynamic_ntk", COVERS_ROTATIONS | COVERS_INV_FREQ},
        {"llama3", COVERS_ROTATIONS | COVERS_INV_FREQ},
        {"yarn_ramp", COVERS_ROTATIONS | COVERS_INV_FREQ},
        {"linear", COVERS_ROTATIONS | COVERS_INV_FREQ},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strcmp(map[i].id, finding_id) == 0) {
            return map[i].covers;
        }
    }
    return 0;
}

static int rope_family(const char *check_id)
{
    return strncmp(check_id, "rope.", 5) == 0 || strncmp(check_id, "mrope.", 6) == 0 ||
           strncmp(check_id, "decode.", 7) == 0 || strncmp(check_id, "batch.", 6) == 0 ||
           strcmp(check_id, PECERT_ID_CERTIFY_ROPE_REFERENCE) == 0;
}

/* The kinds of RoPE failure one failing check shows: rope.freq.golden
 * only frequencies; certify.rope.reference rotations only where an apply
 * case failed; every other RoPE-family check rotations. */
static unsigned failure_kinds(const pecert_check_result *r)
{
    unsigned kinds = 0;
    kinds |= result_count_prefix(r, PECERT_SYMPTOM_FREQ_OFF) > 0 ? COVERS_INV_FREQ : 0u;
    kinds |= result_count_prefix(r, PECERT_SYMPTOM_SCALING) > 0 ? COVERS_SCALING : 0u;
    if (strcmp(r->check_id, PECERT_ID_ROPE_FREQ_GOLDEN) != 0 &&
        (strcmp(r->check_id, PECERT_ID_CERTIFY_ROPE_REFERENCE) != 0 ||
         result_count_prefix(r, PECERT_SYMPTOM_APPLY_OFF) > 0)) {
        kinds |= COVERS_ROTATIONS;
    }
    return kinds;
}

/* The kinds of RoPE failure the run shows. */
static unsigned rope_failures(const pecert_run_results *run)
{
    unsigned shown = 0;
    for (size_t i = 0; i < run->n_checks; i++) {
        const pecert_check_result *r = &run->checks[i];
        if (r->verdict >= PECERT_VERDICT_FAIL && rope_family(r->check_id)) {
            shown |= failure_kinds(r);
        }
    }
    if (failed(run, PECERT_ID_ROPE_FREQ_GOLDEN) && !(shown & (COVERS_INV_FREQ | COVERS_SCALING))) {
        shown |= COVERS_INV_FREQ; /* off without a named part (NaN, an error status) */
    }
    return shown;
}

static void drop_explained_leads(pecert_run_results *run)
{
    unsigned shown = rope_failures(run);
    unsigned covered = 0;
    int kept = 0;
    for (int i = 0; i < run->n_findings; i++) {
        unsigned c = covers(run->findings[i].id);
        if (c != 0 && kept > 0 && (c & shown & ~covered) == 0) {
            continue; /* every failure it would explain is explained already */
        }
        covered |= c;
        run->findings[kept++] = run->findings[i];
    }
    run->n_findings = kept;
}

/* certify: the plugin declined (part of) the checkpoint's own encoding
 * (pecert_plan_judge_essential marks the check). The reason, in the
 * plugin's words, is the diagnosis: nothing else can be judged about what
 * never ran. */
static void diagnose_declines(pecert_run_results *run)
{
    for (size_t i = 0; i < run->n_checks; i++) {
        const pecert_check_result *r = &run->checks[i];
        if (pecert_check_has_symptom(r, PECERT_SYMPTOM_ESSENTIAL_DECLINED)) {
            char evidence[PECERT_RESULT_LINE_MAX];
            snprintf(evidence, sizeof(evidence), "%s: %lld of %lld cases declined by the plugin", r->check_id,
                     (long long)r->n_unsupported, (long long)r->n_cases);
            add(run, "declined", evidence, "%s", r->diagnosis);
        }
    }
}

/* A NaN or infinity in the plugin's output (where the official value, or
 * the plugin's own other output a property compares with, is a number):
 * one finding, naming the first check and case, whatever else failed. */
static void diagnose_nonfinite(pecert_run_results *run)
{
    const pecert_check_result *first = NULL;
    int n = 0;
    for (size_t i = 0; i < run->n_checks; i++) {
        const pecert_check_result *r = &run->checks[i];
        if (r->verdict >= PECERT_VERDICT_FAIL && pecert_check_has_symptom(r, PECERT_SYMPTOM_NONFINITE)) {
            first = first != NULL ? first : r;
            n++;
        }
    }
    if (first != NULL) {
        char evidence[PECERT_RESULT_LINE_MAX];
        snprintf(evidence, sizeof(evidence), "%s: worst case %.300s", first->check_id, first->worst_case);
        add(run, "nonfinite_output", evidence,
            "the plugin's output holds NaN or infinity where a number is due (%d check%s fail on it, first %s)", n,
            n == 1 ? "" : "s", first->check_id);
    }
}

/* 1 when a finding so far explains the failing rotations. */
static int rotations_named(const pecert_run_results *run)
{
    for (int i = 0; i < run->n_findings; i++) {
        if (covers(run->findings[i].id) & COVERS_ROTATIONS) {
            return 1;
        }
    }
    return 0;
}

/* Rotations fail and no rule named why: what the recovery of the first
 * failing case found (rope_recovered.c), in the words `pecert diagnose`
 * gives the same output as a dump, so the three commands agree. */
static void diagnose_recovered(pecert_run_results *run)
{
    static const char *const ids[] = {"position", "pairing", "rotary_dim", "frequencies"};
    const pecert_check_result *from = NULL;
    for (size_t k = 0; !rotations_named(run) && k < sizeof(ids) / sizeof(ids[0]); k++) {
        const char *text = recovered_finding(run, ids[k], &from);
        if (text != NULL) {
            char evidence[PECERT_RESULT_LINE_MAX];
            snprintf(evidence, sizeof(evidence), "%s: each token's rotation recovered from the failing output, as "
                                                 "`pecert diagnose` reads a dump", from->check_id);
            add(run, "recovered", evidence, "%s", text);
            return;
        }
    }
}

void pecert_diagnose(pecert_run_results *run)
{
    run->n_findings = 0;
    diagnose_layers(run);
    diagnose_hypotheses(run);
    diagnose_pairing(run);
    diagnose_scaling(run);
    diagnose_frequencies(run);
    diagnose_positions(run);
    diagnose_calls(run);
    diagnose_layout(run);
    diagnose_mrope_layout(run);
    diagnose_rope2d_index(run);
    diagnose_rope2d_apply(run);
    diagnose_posinterp(run);
    diagnose_cope(run);
    diagnose_peg(run);
    diagnose_sine2d(run);
    diagnose_relpos2d(run);
    diagnose_deberta(run);
    diagnose_families(run);
    diagnose_recovered(run); /* after every rule that names a rotation bug */
    diagnose_nonfinite(run); /* after the bugs a NaN may come from, which name more */
    diagnose_declines(run);
    drop_explained_leads(run);
    for (size_t i = 0; run->n_findings == 0 && i < run->n_checks; i++) {
        if (run->checks[i].verdict >= PECERT_VERDICT_FAIL) {
            add(run, "unclassified", run->checks[i].check_id,
                "a failure the diagnosis cannot name yet: read the details of %s", run->checks[i].check_id);
        }
    }
    if (run->n_findings == 0 && pecert_run_certified_nothing(run)) { /* nothing failed, nothing passed */
        add(run, "nothing_certified", "0 of the selected checks passed, none failed",
            "nothing certified: the plugin implements none of the selected checks, or declined all of their cases "
            "(or the oracle refused them)");
    }
}
