/*
 * diagnose_json.h - `pecert diagnose --json`: a dump's, a cache's or a
 * trace's diagnosis in schema pecert-diagnose/1 (docs/reports.md): what
 * was recovered beside what the config says, per token (or slot) the
 * position it was rotated for, the findings as the terminal shows them,
 * and the verdict.
 */
#ifndef PECERT_REPORTS_DIAGNOSE_JSON_H
#define PECERT_REPORTS_DIAGNOSE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "cache_diagnosis.h"
#include "diagnose_html.h"
#include "dump_input.h"

typedef struct pecert_diagnose_doc {
    const pecert_certify_model *model;
    const char *before;                 /* the files read (a trace: its directory, twice) */
    const char *after;
    const pecert_dump_shape *shape;
    pecert_npy_dtype dtype;
    const pecert_dump_report *rope;     /* a cache: its rotated slots read as one dump */
    const pecert_diagnose_finding *findings;
    size_t n_findings;
    /* One of: a dump's tokens (expected: the positions given, or NULL), */
    const int64_t *expected;
    /* a cache's slots (cache != NULL: slots[n_slots] their positions), */
    const pecert_cache_report *cache;
    const int64_t *slots;
    /* or a trace's steps (n_steps > 0): the number of the first step that
     * diverges and its token in the run, or -1 and -1. */
    int32_t n_steps;
    int32_t diverging_step;
    int64_t diverging_token;
} pecert_diagnose_doc;

/* The document as JSON text (malloc'ed), or NULL when out of memory. */
char *pecert_diagnose_json(const pecert_diagnose_doc *d);

#endif /* PECERT_REPORTS_DIAGNOSE_JSON_H */
