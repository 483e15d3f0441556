/*
 * trace_divergence.h - a decode trace read as one dump: the first step
 * whose tokens were rotated for other positions than the trace says, and
 * that step's first such token, in a porter's words.
 */
#ifndef PECERT_CONFORMANCE_TRACE_DIVERGENCE_H
#define PECERT_CONFORMANCE_TRACE_DIVERGENCE_H

#include <stdint.h>

#include "dump_diagnosis.h"
#include "dump_input.h"

typedef struct pecert_trace_divergence {
    int32_t step;          /* index into the trace's steps; -1: none */
    int64_t token;         /* of the run                              */
    char text[400];
} pecert_trace_divergence;

/* pecert_trace_first_divergence: r is the diagnosis of trace d (read with
 * its positions); out->step is -1 when every token is at its position, or
 * when nothing rotated (the findings say so). */
void pecert_trace_first_divergence(pecert_trace_divergence *out, const pecert_dump_report *r,
                                   const pecert_dump_input *d);

#endif /* PECERT_CONFORMANCE_TRACE_DIVERGENCE_H */
