/* fairseq_offset_missing - fairseq/RoBERTa learned positions looked up at
 * row p instead of padding_idx + 1 + p (the make_positions offset dropped
 * when porting: every token reads its neighbour's row, the first token the
 * padding row). */
#include "core/mutant.h"

static pecert_status (*ref_lookup)(void *, const pecert_learned_args *);

static pecert_status lookup(void *instance, const pecert_learned_args *a)
{
    if (a == NULL || a->convention != PECERT_LEARNED_PADDING_OFFSET) {
        return ref_lookup(instance, a);
    }
    /* Shift every real position back by the offset: ref then reads row p. */
    int64_t shifted[4096];
    if (a->n > 4096 || a->positions == NULL) {
        return ref_lookup(instance, a);
    }
    for (int64_t i = 0; i < a->n; i++) {
        int64_t p = a->positions[i];
        shifted[i] = p < 0 ? p : p - (a->padding_idx + 1);
        if (shifted[i] < 0 && p >= 0) {
            shifted[i] = -1; /* rows below the offset: the padding row */
        }
    }
    pecert_learned_args b = *a;
    b.positions = shifted;
    return ref_lookup(instance, &b);
}

static void patch(pecert_plugin *desc)
{
    ref_lookup = desc->learned_lookup;
    if (ref_lookup != NULL) {
        desc->learned_lookup = lookup;
    }
}

const mutant_def mutant = {.name = "fairseq_offset_missing", .patch = patch};
