/*
 * certificate.h - what a certification says, and the one rule that says
 * it: the verdict class of a checkpoint's run and its coverage, read from
 * the run's results alone, so that `certify --profile`, `certify
 * --all-profiles`, the report's header, its JSON and its JUnit give one
 * plugin on one checkpoint the same class in the same words.
 *
 * The rule (docs/certify.md, "What a verdict means", says it in the same words):
 *
 *   NOT CERTIFIED   a check failed, crashed or timed out, or the plugin
 *                   declined (or put beyond its declared scope) a case of
 *                   the checkpoint's own configuration in an operation it
 *                   has;
 *   NOT APPLICABLE  nothing failed or was declined, and no concern of the
 *                   checkpoint was examined: the plugin has none of the
 *                   operations its encoding needs (the mapping check,
 *                   which tests pecert and not the plugin, does not count);
 *   CERTIFIED       otherwise. Every concern the checkpoint needs is then
 *                   certified or named as not examined, with why (the
 *                   plugin has no operation for it; declined only cases
 *                   beyond the checkpoint's configuration).
 *
 * A concern is a part of the encoding a porter can get wrong on its own:
 * the checkpoint's encoding at its parameters, frequencies, rotation,
 * positions, half precision, threads, NoPE layers, the decode/KV-cache
 * path, batching with padding, ALiBi, T5 buckets, a learned table, the
 * vision tower. Each check of the plan belongs to one; a checkpoint with
 * layer types (Gemma 3's sliding and full) also gets a concern per type,
 * which takes the worst of that type's checks.
 */
#ifndef PECERT_CONFORMANCE_CERTIFY_CERTIFICATE_H
#define PECERT_CONFORMANCE_CERTIFY_CERTIFICATE_H

#include <stddef.h>

#include "results.h"

typedef enum pecert_cert_class {
    PECERT_CERT_CERTIFIED = 0,
    PECERT_CERT_NOT_CERTIFIED,
    PECERT_CERT_NOT_APPLICABLE,
    PECERT_CERT_CLASS_COUNT
} pecert_cert_class;

/* What a concern's checks showed, best to worst as they merge: a concern
 * takes the worst of its checks, except that one certified check makes a
 * concern certified over checks not examined. */
typedef enum pecert_concern_state {
    PECERT_CONCERN_NO_OPERATION = 0, /* the plugin has none of its operations */
    PECERT_CONCERN_NOT_EXAMINED,     /* declined, but not the checkpoint's own cases */
    PECERT_CONCERN_CERTIFIED,
    PECERT_CONCERN_DECLINED,         /* declined the checkpoint's own configuration */
    PECERT_CONCERN_FAILED,
    PECERT_CONCERN_STATE_COUNT
} pecert_concern_state;

#define PECERT_MAX_CONCERNS 32

typedef struct pecert_concern {
    char name[48];                     /* "decode/KV cache", "sliding layers" */
    pecert_concern_state state;
    char why[PECERT_RESULT_LINE_MAX];  /* the first check behind the state
                                        * and its reason; "" when certified
                                        * with nothing to add              */
} pecert_concern;

typedef struct pecert_certificate {
    pecert_cert_class cls;
    pecert_concern concerns[PECERT_MAX_CONCERNS]; /* those the run touches, in table order */
    int n_concerns;
} pecert_certificate;

/* pecert_certificate_of: the class and coverage of a certify run. */
void pecert_certificate_of(pecert_certificate *c, const pecert_run_results *run);

/* "CERTIFIED", "NOT CERTIFIED", "NOT APPLICABLE". */
const char *pecert_cert_class_name(pecert_cert_class cls);
/* "certified", "failed", "declined", "not examined", "no operation". */
const char *pecert_concern_state_name(pecert_concern_state state);

/* pecert_coverage_line: the coverage in one line, e.g. "certified: the
 * checkpoint's encoding, rotation, positions; not examined: decode/KV
 * cache (the plugin has no operation for it)". */
void pecert_coverage_line(char *out, size_t len, const pecert_certificate *c);

/* pecert_not_examined_list: the concerns not examined, "decode/KV cache,
 * vision tower", or "" when none: what a CERTIFIED line says beside it. */
void pecert_not_examined_list(char *out, size_t len, const pecert_certificate *c);

/* pecert_check_concern: the concern of check id ("rope.apply.golden@full"
 * reads as rope.apply.golden; any "@vision" check is the vision tower's). */
const char *pecert_check_concern(const char *id);

#endif /* PECERT_CONFORMANCE_CERTIFY_CERTIFICATE_H */
