/* diagnose.c - rules from symptoms and verdicts to named bugs. */
#include "diagnose.h"

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

static int count_prefix(const pecert_run_results *run, const char *id, const char *prefix)
{
    const pecert_check_result *r = pecert_run_results_find(run, id);
    int n = 0;
    for (int i = 0; r != NULL && i < r->n_symptoms; i++) {
        n += strncmp(r->symptoms[i], prefix, strlen(prefix)) == 0;
    }
    return n;
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
    static const struct {
        const char *tag;
        const char *id;
        const char *bug;
    } map[] = {
        {"hypothesis:positions+1", "position_shift", "positions shifted by +1: outputs match the reference at p + 1 (decode off-by-one)"},
        {"hypothesis:positions-1", "position_shift", "positions shifted by -1: outputs match the reference at p - 1"},
        {"hypothesis:positions+2", "position_shift", "positions shifted by +2: outputs match the reference at p + 2"},
        {"hypothesis:positions-2", "position_shift", "positions shifted by -2: outputs match the reference at p - 2"},
        {"hypothesis:physical_index", "physical_index", "the token's index is used as its position: physical, not logical, positions (padding?)"},
        {"hypothesis:pairing_swapped", "pairing", "pairing convention swapped: outputs match the other convention (interleaved vs split-half)"},
        {"hypothesis:rotary_dim_head_dim", "rotary_dim", "rotary_dim taken as head_dim: outputs match a full-head rotation"},
        {"hypothesis:rope_scaling_ignored", "scaling_ignored", "rope scaling ignored: outputs match plain (default) RoPE"},
        {"hypothesis:scaling_missing", "scaling_missing", "attention scaling not applied: outputs match the reference divided by it"},
        {"hypothesis:scaling_twice", "scaling_twice", "attention scaling applied twice: outputs match the reference times it"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (has(run, "rope.apply.golden", map[i].tag)) {
            add(run, map[i].id, "rope.apply.golden: the failing vectors replayed on the oracle under this hypothesis match",
                "%s", map[i].bug);
        }
    }
}

static void diagnose_pairing(pecert_run_results *run)
{
    const char *probe = "rope.pairing_convention";
    if (passed(run, probe)) {
        return;
    }
    if (has(run, probe, "pairing:split_half_over_head_dim")) {
        add(run, "rotary_dim", "rope.pairing_convention: channel 0 pairs with head_dim/2",
            "rotary_dim taken as head_dim: partial rotary ignored");
    } else if (has(run, probe, "pairing:unrotated")) {
        add(run, "rotary_slice", "rope.pairing_convention: channel 0 is not rotated",
            "rotation applied to the wrong channel slice (not the first rotary_dim channels)");
    } else if (has(run, probe, "pairing:interleaved") || has(run, probe, "pairing:split_half")) {
        add(run, "pairing", "rope.pairing_convention: channel 0 rotates into the other convention's partner",
            "pairing convention swapped: interleaved (GPT-J) and split-half (NeoX/Llama) exchanged");
    } else if (has(run, probe, "pairing:sign")) {
        add(run, "rotation_sign", "rope.pairing_convention: the partner channel has the opposite sign",
            "rotation by -theta: sign of the sin term (rotate_half) inverted");
    }
}

static void diagnose_scaling(pecert_run_results *run)
{
    const char *freq = "rope.freq.golden";
    if (has(run, freq, "scaling:missing")) {
        add(run, "scaling_missing", "rope.freq.golden: attention_scaling is 1 where the reference's is not",
            "attention scaling (YaRN mscale / LongRoPE attention factor) not applied");
    } else if (has(run, freq, "scaling:squared")) {
        add(run, "scaling_twice", "rope.freq.golden: attention_scaling is the reference's squared",
            "attention scaling applied twice");
    } else if (has(run, freq, "scaling:wrong")) {
        add(run, "scaling_wrong", "rope.freq.golden: attention_scaling differs",
            "attention scaling wrong: check mscale, mscale_all_dim and attention_factor defaults");
    }
}

/* Wrong frequencies, named by the only rope type (and flags) they hit. */
static void diagnose_frequencies(pecert_run_results *run)
{
    const char *freq = "rope.freq.golden";
    int types = count_prefix(run, freq, "freq_off:");
    const char *type = symptom_value(run, freq, "freq_off:");
    if (types == 0) {
        return;
    }
    if (run->n_findings > 0 && strcmp(run->findings[0].id, "rotary_dim") == 0) {
        return; /* rotary_dim already explains the wrong frequencies */
    }
    if (types > 1 || strcmp(type, "default") == 0) {
        add(run, "base_frequencies", "rope.freq.golden: inverse frequencies off for several rope types",
            "base frequencies wrong: rope_theta, the exponent 2i/rotary_dim, or rotary_dim itself");
    } else if (strcmp(type, "longrope") == 0) {
        add(run, "longrope_switch", "rope.freq.golden: only LongRoPE vectors fail",
            "LongRoPE short/long factors chosen wrongly (keyed on the wrong length or the wrong side of L0)");
    } else if (strcmp(type, "dynamic") == 0) {
        add(run, "dynamic_ntk", "rope.freq.golden: only dynamic-NTK vectors fail",
            "dynamic NTK base wrong (applied statically, or computed from the wrong length)");
    } else if (strcmp(type, "llama3") == 0) {
        add(run, "llama3", "rope.freq.golden: only llama3 vectors fail",
            "llama3 frequency scaling ignored or wrong (factor, low/high_freq_factor, original length)");
    } else if (strcmp(type, "yarn") == 0) {
        add(run, "yarn_ramp", "rope.freq.golden: only YaRN frequencies fail",
            "YaRN ramp wrong: beta_fast/beta_slow, truncate or the correction range");
    } else {
        add(run, type, "rope.freq.golden: only this rope type fails", "%s scaling wrong", type);
    }
}

/* Frequencies right, rotations wrong, pairing and passthrough right:
 * where do the positions go wrong? */
static void diagnose_positions(pecert_run_results *run)
{
    if (!passed(run, "rope.freq.golden") || !failed(run, "rope.apply.golden") ||
        count_prefix(run, "rope.pairing_convention", "pairing:") > 0 ||
        has(run, "rope.partial_passthrough", "passthrough_changed")) {
        return;
    }
    const char *from = symptom_value(run, "rope.long_position_precision", "precision_lost_from:");
    int scaled_types_only = count_prefix(run, "rope.apply.golden", "apply_off:") > 0 &&
                            !has(run, "rope.apply.golden", "apply_off:default");
    if (scaled_types_only && !failed(run, "rope.identity_at_zero")) {
        add(run, "seq_len_selection", "rope.apply.golden: only scaled rope types fail; frequencies right at given lengths",
            "dynamic/LongRoPE frequencies selected by the wrong length in apply (not max(position)+1)");
    } else if (has(run, "rope.identity_at_zero", "moves_at_position_zero")) {
        add(run, "position_shift", "rope.identity_at_zero fails while frequencies are right",
            "positions shifted: the rotation is wrong already at position 0 (off-by-one, or token index used as position)");
    } else if (from != NULL && atoll(from) >= 1024) {
        add(run, "precision", "rope.long_position_precision: exact below, lost from a far position",
            "precision lost at positions >= %s: half-precision positions or angles, or a clamped/wrapped cos-sin table",
            from);
    }
}

static void diagnose_calls(pecert_run_results *run)
{
    const char *dec = "decode.prefill_equivalence";
    const char *pad = "batch.padding_independence";
    if (has(run, dec, "differs:prefill + 5 decode steps") || has(run, dec, "differs:chunks 7,1,9,7")) {
        add(run, "decode_positions", "decode.prefill_equivalence: the plugin's own runs disagree",
            "decode steps or chunks do not continue one prefill: position or cache bookkeeping across calls");
    }
    int calls_drift = count_prefix(run, dec, "differs:") > 0;
    if (!calls_drift && failed(run, dec) && passed(run, "rope.apply.golden") &&
        passed(run, "rope.pairing_convention")) {
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
    if (has(run, "rope.partial_passthrough", "passthrough_changed")) {
        add(run, "passthrough", "rope.partial_passthrough: channels past rotary_dim changed",
            "channels past rotary_dim are modified (scaled, rotated or not copied)");
    }
    if (!passed(run, "rope.apply.golden")) {
        return; /* the packed path is wrong too: not a layout bug */
    }
    if (has(run, "rope.inplace_and_strides", "layout:in_place_differs")) {
        add(run, "in_place", "rope.inplace_and_strides: in place differs from out of place",
            "in-place rotation reads a channel after overwriting it");
    } else if (has(run, "rope.inplace_and_strides", "layout:strided_differs")) {
        add(run, "strided", "rope.inplace_and_strides: a strided view differs from packed",
            "strides ignored or mishandled");
    }
}

/* The other families: one finding per family whose golden check fails,
 * sharpened where a property check pins the cause. */
static void diagnose_families(pecert_run_results *run)
{
    if (failed(run, "alibi.slopes.golden")) {
        add(run, "alibi_slopes", "alibi.slopes.golden: slopes differ from get_slopes",
            "ALiBi slopes wrong: the non-power-of-two interleaving, the exponent (h vs h+1) or max_bias");
    } else if (failed(run, "alibi.bias.golden")) {
        add(run, "alibi_bias", "alibi.bias.golden fails with the slopes right",
            "ALiBi bias wrong with the right slopes: sign, |q-k| vs q-k, or the distance itself");
    }
    if (failed(run, "t5.bucket.saturation")) {
        add(run, "t5_clamp", "t5.bucket.saturation: buckets past max_distance are not the last",
            "T5 buckets past max_distance not clamped to the last bucket");
    } else if (failed(run, "t5.bucket.golden")) {
        add(run, "t5_buckets", "t5.bucket.golden fails", "T5 bucket formula wrong (exact range, log scale, or direction)");
    }
    if (failed(run, "learned.golden")) {
        add(run, "learned_offset", "learned.golden: rows read at other indices",
            "learned positions read at the wrong row: fairseq/RoBERTa's padding_idx + 1 offset");
    }
    if (failed(run, "learned.out_of_range")) {
        add(run, "learned_bounds", "learned.out_of_range: a position past the table was read, or not refused",
            "learned lookup does not check the table's bounds: a row outside [0, rows) must be refused, never read");
    }
    if (failed(run, "sinusoidal.golden")) {
        add(run, "sinusoidal_variant", "sinusoidal.golden fails",
            "sinusoidal table of another variant: sin/cos interleaved vs concatenated, the d/2-1 denominator, or fairseq's offset");
    }
}

void pecert_diagnose(pecert_run_results *run)
{
    run->n_findings = 0;
    diagnose_hypotheses(run);
    diagnose_pairing(run);
    diagnose_scaling(run);
    diagnose_frequencies(run);
    diagnose_positions(run);
    diagnose_calls(run);
    diagnose_layout(run);
    diagnose_families(run);
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
