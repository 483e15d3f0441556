/*
 * dump_diagnosis.h - a before/after RoPE dump read against a checkpoint's
 * configuration: the positions, pairing, rotated channels, attention
 * factor and frequency set the engine actually used, and the findings a
 * porter reads ("token 37 was rotated for position 38 (expected 37)").
 *
 * The frequencies of each hypothesis come from the oracle (ref's
 * rope_freqs): the checkpoint's mapped config; the bugs of its scaling
 * (a linear factor inverted, dynamic NTK at another length, LongRoPE's
 * short or long factors at every length, YaRN's betas or truncate not
 * read); the same rope type at other common rope_theta values, and plain
 * default RoPE at each of them (the scaling left out); when none
 * explains the angles, default RoPE (and the config's type) at a
 * rope_theta fitted to them. The recovery
 * itself is rope_recover.h.
 */
#ifndef PECERT_CONFORMANCE_DUMP_DIAGNOSIS_H
#define PECERT_CONFORMANCE_DUMP_DIAGNOSIS_H

#include <stdint.h>

#include "certify_config.h"
#include "plugin_load.h"
#include "rope_recover.h"

#define PECERT_DUMP_MAX_HYPOTHESES 20
#define PECERT_DUMP_MAX_FINDINGS 8

/* One frequency set tried against the angles. */
typedef struct pecert_dump_hypothesis {
    char label[96];             /* "llama3 theta=500000 (the config)"      */
    pecert_rope_config rope;
    int64_t seq_len;            /* for the oracle; 0: the dump's (max+1)   */
    int64_t explained;          /* tokens at integer positions under it    */
    int64_t matched;            /* ... and at the expected ones (positions) */
    double worst_residual;      /* of the explained tokens, in bounds      */
} pecert_dump_hypothesis;

typedef struct pecert_dump_finding {
    char id[24];                /* "position", "pairing", "rotary_dim", ... */
    char text[320];
} pecert_dump_finding;

typedef struct pecert_dump_report {
    int64_t n_tokens;
    int32_t rotated_lo, rotated_hi;       /* channels that changed         */
    /* Channels past the config's rotary_dim that changed while [0,
     * rotary_dim) rotates rigidly (0, 0: none); their common factor, or
     * NaN when they are not one factor of their input. */
    int32_t passthrough_lo, passthrough_hi;
    double passthrough_scale;
    int pairing_found;                    /* 0: neither pairing is rigid   */
    pecert_rope_pairing pairing;          /* the rigid one, if found       */
    double spread[2];                     /* norm-ratio spread per pairing */
    double attention_factor;              /* median norm ratio             */
    double expected_factor;               /* the config's (oracle's)       */
    int32_t n_hypotheses;
    pecert_dump_hypothesis hypotheses[PECERT_DUMP_MAX_HYPOTHESES];
    int32_t best;                         /* index of the best hypothesis  */
    int reversed;                         /* explained only by -angles     */
    const char *half_angles;              /* "float16"/"bfloat16": the angles
                                           * are the config's to that
                                           * precision only, or NULL       */
    double fitted_theta;
    int64_t implied_seq_len;              /* positions not given: the length
                                           * the recovered ones imply      */                  /* rope_theta fitted when no set
                                           * explained the angles, or NaN  */
    /* Per token, under the best hypothesis: */
    pecert_recovered_position *tokens;    /* [n_tokens], malloc'ed         */
    int32_t n_findings;
    pecert_dump_finding findings[PECERT_DUMP_MAX_FINDINGS];
} pecert_dump_report;

/*
 * pecert_dump_diagnose reads view v (a RoPE model's q or k, before and
 * after) against m with the oracle's frequencies; positions (NULL = not
 * given) are the positions the tokens should have had. Returns 0, or -1
 * with the reason in err (the oracle refusing the config, no memory).
 */
int pecert_dump_diagnose(pecert_dump_report *out, const pecert_certify_model *m, const pecert_loaded_plugin *oracle,
                         const pecert_dump_view *v, const int64_t *positions, char *err, size_t err_len);

void pecert_dump_report_free(pecert_dump_report *r);

#endif /* PECERT_CONFORMANCE_DUMP_DIAGNOSIS_H */
