/*
 * certify_checks.h - the checks `pecert certify` adds to the registry's:
 * the plugin against `ref` at exactly one checkpoint's parameters, and the
 * config.json mapping against the official code's profile vectors.
 */
#ifndef PECERT_CONFORMANCE_CERTIFY_CHECKS_H
#define PECERT_CONFORMANCE_CERTIFY_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "certify_config.h"
#include "results_json.h"
#include "checks.h"
#include "family.h"

/* pecert_certify_lengths: the sequence lengths that matter for m, sorted
 * and distinct: L0-1, L0, L0+1, max_position_embeddings-1 and a far one
 * (2^20 or 4 * max_position_embeddings, whichever is larger). Returns the
 * count (<= 6). */
size_t pecert_certify_lengths(const pecert_certify_model *m, int64_t out[6]);

extern const pecert_check pecert_check_certify_mapping;
#define PECERT_ID_CERTIFY_MAPPING "certify.mapping"
extern const pecert_check pecert_check_certify_rope_reference;
#define PECERT_ID_CERTIFY_ROPE_REFERENCE "certify.rope.reference"
extern const pecert_check pecert_check_certify_alibi_reference;
#define PECERT_ID_CERTIFY_ALIBI_REFERENCE "certify.alibi.reference"
extern const pecert_check pecert_check_certify_alibi_attention;
#define PECERT_ID_CERTIFY_ALIBI_ATTENTION "certify.alibi.attention"
extern const pecert_check pecert_check_certify_t5_reference;
#define PECERT_ID_CERTIFY_T5_REFERENCE "certify.t5.reference"
extern const pecert_check pecert_check_certify_learned_reference;
#define PECERT_ID_CERTIFY_LEARNED_REFERENCE "certify.learned.reference"
/* What of the checkpoint pecert does not certify, named in the results
 * (pecert_certify_unexamined): the other tower (its vision_note), the
 * position ids a wrapper computes (its position_note). */
extern const pecert_check pecert_check_certify_vision_tower;
#define PECERT_ID_CERTIFY_VISION_TOWER "certify.vision_tower"
extern const pecert_check pecert_check_certify_audio_tower;
#define PECERT_ID_CERTIFY_AUDIO_TOWER "certify.audio_tower"
extern const pecert_check pecert_check_certify_position_ids;
#define PECERT_ID_CERTIFY_POSITION_IDS "certify.position_ids"

/* pecert_certify_unexamined: the results of m's parts pecert does not
 * certify, each "not supported" with its reason and the symptom
 * PECERT_SYMPTOM_NOT_BY_PECERT, into out[] (room for 2). Returns the
 * count. */
size_t pecert_certify_unexamined(pecert_check_result out[2], const pecert_certify_model *m);

extern const pecert_check pecert_check_certify_sinusoidal_reference; /* certify_sinusoidal_checks.c */
#define PECERT_ID_CERTIFY_SINUSOIDAL_REFERENCE "certify.sinusoidal.reference"
extern const pecert_check pecert_check_certify_swin_reference; /* certify_swin_checks.c */
#define PECERT_ID_CERTIFY_SWIN_REFERENCE "certify.swin.reference"
extern const pecert_check pecert_check_certify_sine2d_reference; /* certify_sine2d_checks.c */
#define PECERT_ID_CERTIFY_SINE2D_REFERENCE "certify.sine2d.reference"
extern const pecert_check pecert_check_certify_sincos2d_reference; /* certify_sincos2d_checks.c */
#define PECERT_ID_CERTIFY_SINCOS2D_REFERENCE "certify.sincos2d.reference"
extern const pecert_check pecert_check_certify_deberta_reference; /* certify_deberta_checks.c */
#define PECERT_ID_CERTIFY_DEBERTA_REFERENCE "certify.deberta.reference"
extern const pecert_check pecert_check_certify_relpos2d_reference; /* certify_relpos2d_checks.c */
#define PECERT_ID_CERTIFY_RELPOS2D_REFERENCE "certify.relpos2d.reference"

/* pecert_certify_oracle_tensor: the oracle's output b as a golden tensor
 * of doubles (values, b->n of them, holds them). */
pecert_vtensor pecert_certify_oracle_tensor(const pecert_out_buf *b, double *values, uint32_t ndim,
                                            const int64_t *shape);

extern const pecert_check pecert_check_certify_rope2d_reference; /* certify_vision_checks.c */
#define PECERT_ID_CERTIFY_ROPE2D_REFERENCE "certify.rope2d.reference"
extern const pecert_check pecert_check_certify_posinterp_reference; /* certify_vision_checks.c */
#define PECERT_ID_CERTIFY_POSINTERP_REFERENCE "certify.posinterp.reference"

/* pecert_known_check: the check named id, of the registry (checks.h) or
 * of certify's own, with or without a layer type ("ID@sliding"); NULL for
 * an id no pecert check has. A results file naming another id was not
 * written by this pecert. */
const pecert_check *pecert_known_check(const char *id);

/* How many checks a run can hold: every check once per layer type and
 * once for the vision tower. */
size_t pecert_known_check_count(void);

/* pecert_results_id_rules: the ids a results file may name
 * (results_json.h): pecert_known_check's, at most
 * pecert_known_check_count() of them. */
pecert_id_rules pecert_results_id_rules(void);

#endif /* PECERT_CONFORMANCE_CERTIFY_CHECKS_H */
