/*
 * certify_deberta_checks.c - certify.deberta.reference: the disentangled
 * bias of the checkpoint's head size, buckets, max_relative_positions and
 * terms (certify_deberta.c) against ref's, under deberta.bias.golden's
 * bound, on seeded inputs of two heads: 7 tokens (every distance exact),
 * 150 (the log buckets of a 256-bucket checkpoint begin past 128) and 520
 * (past max_relative_positions 512, where transformers' buckets go on
 * growing).
 */
#include "certify_checks.h"

#include <stdio.h>

#include "family.h"
#include "isolate.h"

static const int64_t lengths[] = {7, 150, 520};

static void run_deberta_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        char where[96];
        snprintf(where, sizeof(where), "disentangled bias of %lld tokens, 2 heads", (long long)lengths[i]);
        int64_t sizes[4] = {2, lengths[i], m->head_dim, 2};
        pecert_case_slot_set(env->case_slot, "certify %s", where);
        pecert_deberta_against_oracle(env, r, sizes, m->deberta_bucket_size, m->deberta_max_position,
                                      m->deberta_terms, 0xdeb3a7aull + i, where);
    }
    pecert_check_conclude(r, "lengths");
}

const pecert_check pecert_check_certify_deberta_reference = {
    PECERT_ID_CERTIFY_DEBERTA_REFERENCE,
    "the disentangled attention bias of the checkpoint's head size, buckets, span and terms equals ref's within "
    "its bound",
    PECERT_NEED_DEBERTA, run_deberta_reference};
