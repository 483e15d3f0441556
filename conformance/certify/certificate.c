/*
 * certificate.c - a certify run's verdict class and coverage
 * (certificate.h).
 */
#include "certificate.h"

#include "certify_checks.h"
#include "checks.h"
#include "decode.h"
#include "family.h"
#include "rope_checks.h"

#include <stdio.h>
#include <string.h>

/* Each concern and the checks that examine it (ids without "@pass");
 * tests/check_certificate.c holds every check of certify's plan to one. */
#define MAX_CONCERN_CHECKS 12
static const struct {
    const char *name;
    const char *const checks[MAX_CONCERN_CHECKS];
} concern_table[] = {
    {"the checkpoint's encoding",
     {PECERT_ID_CERTIFY_ROPE_REFERENCE, PECERT_ID_CERTIFY_ALIBI_REFERENCE, PECERT_ID_CERTIFY_ALIBI_ATTENTION,
      PECERT_ID_CERTIFY_T5_REFERENCE, PECERT_ID_CERTIFY_LEARNED_REFERENCE, PECERT_ID_CERTIFY_SINUSOIDAL_REFERENCE,
      PECERT_ID_CERTIFY_SWIN_REFERENCE, PECERT_ID_CERTIFY_SINE2D_REFERENCE,
      PECERT_ID_CERTIFY_RELPOS2D_REFERENCE, PECERT_ID_CERTIFY_SINCOS2D_REFERENCE,
      PECERT_ID_CERTIFY_DEBERTA_REFERENCE}},
    {"config mapping", {PECERT_ID_CERTIFY_MAPPING}},
    {"frequencies", {PECERT_ID_ROPE_FREQ_GOLDEN, PECERT_ID_ROPE_COS_SIN_GOLDEN}},
    {"M-RoPE sections", {PECERT_ID_MROPE_APPLY_GOLDEN, PECERT_ID_MROPE_TEXT_ONLY_IS_ROPE}},
    {"rotation",
     {PECERT_ID_ROPE_APPLY_GOLDEN, PECERT_ID_ROPE_NORM_PRESERVATION, PECERT_ID_ROPE_SHIFT_INVARIANCE,
      PECERT_ID_ROPE_IDENTITY_AT_ZERO, PECERT_ID_ROPE_INVERSE, PECERT_ID_ROPE_PARTIAL_PASSTHROUGH,
      PECERT_ID_ROPE_PAIRING_CONVENTION, PECERT_ID_ROPE_INPLACE_AND_STRIDES}},
    {"positions", {PECERT_ID_ROPE_BOUNDARY_LENGTHS, PECERT_ID_ROPE_LONG_POSITION_PRECISION}},
    {"half precision", {PECERT_ID_ROPE_HALF_PRECISION}},
    {"threads", {PECERT_ID_ROPE_THREAD_DETERMINISM}},
    {"NoPE layers", {PECERT_ID_ROPE_NOPE_LAYER}},
    {"decode/KV cache", {PECERT_ID_DECODE_PREFILL_EQUIVALENCE}},
    {"position ids", {PECERT_ID_CERTIFY_POSITION_IDS}},
    {"batching/padding", {PECERT_ID_BATCH_PADDING_INDEPENDENCE}},
    {"ALiBi bias", {PECERT_ID_ALIBI_SLOPES_GOLDEN, PECERT_ID_ALIBI_BIAS_GOLDEN, PECERT_ID_ALIBI_SHIFT_INVARIANCE}},
    {"T5 buckets", {PECERT_ID_T5_BUCKET_GOLDEN, PECERT_ID_T5_BUCKET_MONOTONE, PECERT_ID_T5_BUCKET_SATURATION}},
    {"learned table", {PECERT_ID_LEARNED_GOLDEN, PECERT_ID_LEARNED_OUT_OF_RANGE}},
    {"sinusoidal table", {PECERT_ID_SINUSOIDAL_GOLDEN}},
    {"window bias index", {PECERT_ID_SWIN_INDEX_GOLDEN}},
    {"sine embedding", {PECERT_ID_SINE2D_GOLDEN, PECERT_ID_SINE2D_PADDING}},
    {"2-D sin-cos table", {PECERT_ID_SINCOS2D_GOLDEN}},
    {"disentangled positions", {PECERT_ID_DEBERTA_BIAS_GOLDEN, PECERT_ID_DEBERTA_INDEX_GOLDEN}},
    {"relative positions", {PECERT_ID_RELPOS2D_GOLDEN, PECERT_ID_RELPOS2D_SHAPES}},
    /* Every check of the @decoder pass is the decoder's table's. */
    {"decoder table", {NULL}},
    /* Every check of the @vision pass is the tower's (pecert_check_concern);
     * these are its own. */
    {"vision tower",
     {PECERT_ID_CERTIFY_ROPE2D_REFERENCE, PECERT_ID_ROPE2D_INDEX_GOLDEN, PECERT_ID_ROPE2D_APPLY_GOLDEN,
      PECERT_ID_ROPE2D_NORM_PRESERVATION, PECERT_ID_ROPE2D_AXIS_SEPARATION, PECERT_ID_CERTIFY_POSINTERP_REFERENCE,
      PECERT_ID_POSINTERP_GOLDEN, PECERT_ID_POSINTERP_NATIVE_IDENTITY, PECERT_ID_POSINTERP_CONSTANT,
      PECERT_ID_POSINTERP_MIRROR_SYMMETRY, PECERT_ID_CERTIFY_VISION_TOWER}},
    {"audio tower", {PECERT_ID_CERTIFY_AUDIO_TOWER}},
};
#define N_TABLE (sizeof(concern_table) / sizeof(concern_table[0]))
#define VISION_TOWER "vision tower"
#define DECODER_TABLE "decoder table"
#define OTHER "other checks"

static const char *const class_names[PECERT_CERT_CLASS_COUNT] = {"CERTIFIED", "NOT CERTIFIED", "NOT APPLICABLE"};
static const char *const state_names[PECERT_CONCERN_STATE_COUNT] = {"no operation", "not examined", "certified",
                                                                     "declined", "failed"};

const char *pecert_cert_class_name(pecert_cert_class cls)
{
    return (unsigned)cls < PECERT_CERT_CLASS_COUNT ? class_names[cls] : "?";
}

const char *pecert_concern_state_name(pecert_concern_state state)
{
    return (unsigned)state < PECERT_CONCERN_STATE_COUNT ? state_names[state] : "?";
}

const char *pecert_check_concern(const char *id)
{
    const char *at = strchr(id, '@');
    size_t base = at != NULL ? (size_t)(at - id) : strlen(id);
    /* The mapping tests pecert's reading of the config, in every pass:
     * never the plugin's vision tower. */
    if (at != NULL && strcmp(at + 1, "vision") == 0 && strncmp(id, "certify.mapping@", 16) != 0) {
        return VISION_TOWER;
    }
    if (at != NULL && strcmp(at + 1, "decoder") == 0 && strncmp(id, "certify.mapping@", 16) != 0) {
        return DECODER_TABLE;
    }
    for (size_t i = 0; i < N_TABLE; i++) {
        for (size_t k = 0; k < MAX_CONCERN_CHECKS && concern_table[i].checks[k] != NULL; k++) {
            if (strlen(concern_table[i].checks[k]) == base && strncmp(concern_table[i].checks[k], id, base) == 0) {
                return concern_table[i].name;
            }
        }
    }
    return OTHER;
}

/* The plugin had no operation for r: the runner's symptom, or (results
 * written before it) its diagnosis. */
static int no_operation(const pecert_check_result *r)
{
    static const char older[] = "plugin does not implement an operation"; /* runner.h's words */
    return pecert_check_has_symptom(r, PECERT_SYMPTOM_NO_OPERATION) ||
           strncmp(r->diagnosis, older, sizeof(older) - 1) == 0;
}

/* The M of r's "scope:max_position:M" symptom (its far positions held to
 * the plugin's declared scope, checks.h), or NULL. */
static const char *scoped_max_position(const pecert_check_result *r)
{
    size_t n = strlen(PECERT_SYMPTOM_SCOPED_POSITIONS);
    for (int i = 0; i < r->n_symptoms; i++) {
        if (strncmp(r->symptoms[i], PECERT_SYMPTOM_SCOPED_POSITIONS, n) == 0) {
            return r->symptoms[i] + n;
        }
    }
    return NULL;
}

/* What one check shows, and why in words (empty when certified plainly). */
static pecert_concern_state check_state(const pecert_check_result *r, char *why, size_t len)
{
    why[0] = '\0';
    if (pecert_check_has_symptom(r, PECERT_SYMPTOM_NOT_BY_PECERT)) {
        snprintf(why, len, "%s", r->diagnosis); /* pecert's own limit, in its words */
        return PECERT_CONCERN_NOT_EXAMINED;
    }
    if (pecert_check_has_symptom(r, PECERT_SYMPTOM_ESSENTIAL_DECLINED)) {
        snprintf(why, len, "%s: %s", r->check_id, r->diagnosis); /* the plugin's own words */
        return PECERT_CONCERN_DECLINED;
    }
    if (r->verdict >= PECERT_VERDICT_FAIL) {
        snprintf(why, len, "%s %s", r->check_id,
                 r->verdict == PECERT_VERDICT_FAIL ? "failed" : r->verdict == PECERT_VERDICT_CRASH ? "crashed" : "timed out");
        return PECERT_CONCERN_FAILED;
    }
    if (r->verdict == PECERT_VERDICT_PASS) {
        const char *scoped = scoped_max_position(r);
        if (scoped != NULL) {
            snprintf(why, len, "up to position %s, the plugin's declared max_position", scoped);
        } else if (r->n_beyond_scope > 0) {
            snprintf(why, len, "within the plugin's declared scope; %s: %lld cases beyond it", r->check_id,
                     (long long)r->n_beyond_scope);
        }
        return PECERT_CONCERN_CERTIFIED;
    }
    if (no_operation(r)) {
        snprintf(why, len, "the plugin has no operation for it");
        return PECERT_CONCERN_NO_OPERATION;
    }
    snprintf(why, len, "%s: %s", r->check_id,
             r->n_cases == 0                       ? "no case for it"
             : r->n_beyond_scope == r->n_unsupported ? "beyond the plugin's declared scope"
                                                    : "declined by the plugin");
    return PECERT_CONCERN_NOT_EXAMINED;
}

/* The concern named name in c, added (empty, no operation) if new. */
static pecert_concern *concern_named(pecert_certificate *c, const char *name)
{
    for (int i = 0; i < c->n_concerns; i++) {
        if (strcmp(c->concerns[i].name, name) == 0) {
            return &c->concerns[i];
        }
    }
    if (c->n_concerns == PECERT_MAX_CONCERNS) {
        return &c->concerns[PECERT_MAX_CONCERNS - 1]; /* the table has fewer: never reached */
    }
    pecert_concern *k = &c->concerns[c->n_concerns++];
    memset(k, 0, sizeof(*k));
    snprintf(k->name, sizeof(k->name), "%s", name);
    k->state = PECERT_CONCERN_NO_OPERATION;
    return k;
}

/* Position of a concern in the table's order (then layer types, then
 * other checks). */
static size_t table_rank(const char *name)
{
    for (size_t i = 0; i < N_TABLE; i++) {
        if (strcmp(concern_table[i].name, name) == 0) {
            return i;
        }
    }
    return strcmp(name, OTHER) == 0 ? N_TABLE + 1 : N_TABLE; /* layer types before other checks */
}

/* "sliding layers" for "rope.apply.golden@sliding"; "" without a layer
 * type (no "@", the vision tower's, the decoder table's, the mapping's). */
static void layer_concern(char *out, size_t len, const char *id)
{
    const char *at = strchr(id, '@');
    out[0] = '\0';
    if (at != NULL && strcmp(at + 1, "vision") != 0 && strcmp(at + 1, "decoder") != 0 &&
        strncmp(id, "certify.mapping@", 16) != 0) {
        snprintf(out, len, "%s layers", at + 1);
    }
}

/* Merges a check's state into concern k: worse replaces better, a first
 * certified check replaces "not examined", at equal states the first
 * reason stays. */
static void merge_state(pecert_concern *k, pecert_concern_state s, const char *why)
{
    if (s > k->state || (s == k->state && k->why[0] == '\0')) {
        k->state = s;
        snprintf(k->why, sizeof(k->why), "%s", why);
    }
}

static void sort_by_table(pecert_certificate *c)
{
    for (int i = 1; i < c->n_concerns; i++) { /* insertion sort: at most PECERT_MAX_CONCERNS */
        pecert_concern k = c->concerns[i];
        int j = i - 1;
        for (; j >= 0 && table_rank(c->concerns[j].name) > table_rank(k.name); j--) {
            c->concerns[j + 1] = c->concerns[j];
        }
        c->concerns[j + 1] = k;
    }
}

/* The class from the concerns (certificate.h's rule). */
static pecert_cert_class class_of(const pecert_certificate *c)
{
    int examined = 0;
    for (int i = 0; i < c->n_concerns; i++) {
        const pecert_concern *k = &c->concerns[i];
        if (k->state >= PECERT_CONCERN_DECLINED) {
            return PECERT_CERT_NOT_CERTIFIED;
        }
        examined |= k->state == PECERT_CONCERN_CERTIFIED && strcmp(k->name, "config mapping") != 0;
    }
    return examined ? PECERT_CERT_CERTIFIED : PECERT_CERT_NOT_APPLICABLE;
}

void pecert_certificate_of(pecert_certificate *c, const pecert_run_results *run)
{
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < run->n_checks; i++) {
        char why[PECERT_RESULT_LINE_MAX];
        char layer[48];
        const char *id = run->checks[i].check_id;
        pecert_concern_state s = check_state(&run->checks[i], why, sizeof(why));
        merge_state(concern_named(c, pecert_check_concern(id)), s, why);
        layer_concern(layer, sizeof(layer), id);
        if (layer[0] != '\0') {
            merge_state(concern_named(c, layer), s, why);
        }
    }
    sort_by_table(c);
    c->cls = class_of(c);
}

/* Appends the concerns in state s to out: "LABEL: a, b (why); ". */
static size_t append_state(char *out, size_t len, size_t used, const pecert_certificate *c, pecert_concern_state s,
                           const char *label, int with_why)
{
    int first = 1;
    for (int i = 0; i < c->n_concerns && used < len; i++) {
        const pecert_concern *k = &c->concerns[i];
        if (k->state != s) {
            continue;
        }
        int n = snprintf(out + used, len - used, "%s%s%s%s%s%s", first ? (used > 0 ? "; " : "") : ", ",
                         first ? label : "", k->name, with_why && k->why[0] != '\0' ? " (" : "",
                         with_why ? k->why : "", with_why && k->why[0] != '\0' ? ")" : "");
        used += n > 0 ? (size_t)n : 0;
        first = 0;
    }
    return used < len ? used : len - 1;
}

void pecert_coverage_line(char *out, size_t len, const pecert_certificate *c)
{
    size_t used = 0;
    out[0] = '\0';
    used = append_state(out, len, used, c, PECERT_CONCERN_FAILED, "failed: ", 0);
    used = append_state(out, len, used, c, PECERT_CONCERN_DECLINED, "declined: ", 0);
    used = append_state(out, len, used, c, PECERT_CONCERN_CERTIFIED, "certified: ", 1);
    used = append_state(out, len, used, c, PECERT_CONCERN_NOT_EXAMINED, "not examined: ", 1);
    used = append_state(out, len, used, c, PECERT_CONCERN_NO_OPERATION, "not examined, no operation: ", 0);
    if (used == 0) {
        snprintf(out, len, "no check ran");
    }
}

void pecert_not_examined_list(char *out, size_t len, const pecert_certificate *c)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < c->n_concerns && used < len; i++) {
        if (c->concerns[i].state <= PECERT_CONCERN_NOT_EXAMINED) {
            int n = snprintf(out + used, len - used, "%s%s", used == 0 ? "" : ", ", c->concerns[i].name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
}
