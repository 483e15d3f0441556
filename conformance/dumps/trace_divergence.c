/* trace_divergence.c - the first step of a trace that diverges
 * (trace_divergence.h). */
#include "trace_divergence.h"

#include <stdio.h>

void pecert_trace_first_divergence(pecert_trace_divergence *out, const pecert_dump_report *r,
                                   const pecert_dump_input *d)
{
    out->step = -1;
    int64_t t = 0;
    while (t < d->shape.tokens && r->tokens[t].integer && r->tokens[t].nearest == d->positions[t]) {
        t++;
    }
    if (t == d->shape.tokens || r->rotated_hi == 0) {
        return;
    }
    int32_t k = 0;
    while (d->step_first[k + 1] <= t) {
        k++;
    }
    out->step = k;
    out->token = t;
    char got[64];
    if (r->tokens[t].integer) {
        snprintf(got, sizeof(got), "position %lld", (long long)r->tokens[t].nearest);
    } else {
        snprintf(got, sizeof(got), "no integer position");
    }
    snprintf(out->text, sizeof(out->text), "step %04d is the first to diverge: its token %lld (token %lld of the "
             "run) was rotated for %s, expected %lld (%s); the %d step%s before it agree", (int)d->step_number[k],
             (long long)(t - d->step_first[k]), (long long)t, got, (long long)d->positions[t],
             d->steps_give_positions ? "its positions.npy" : "each step continuing the one before", (int)k,
             k == 1 ? "" : "s");
}
