/*
 * diagnose_html.h - `pecert diagnose --html`: a dump's, a cache's or a
 * trace's diagnosis as one self-contained page: the verdict, the
 * findings, what was recovered (channels, pairing, attention factor, the
 * frequency sets tried) and a plot of the position each token or slot was
 * rotated for against the one it should have had.
 */
#ifndef PECERT_REPORTS_DIAGNOSE_HTML_H
#define PECERT_REPORTS_DIAGNOSE_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "dump_diagnosis.h"

/* A finding as the diagnosis shows it, in every output alike; a cache's
 * run of slots carries its range. */
typedef struct pecert_diagnose_finding {
    const char *id;
    const char *text;
    int has_slots;
    int64_t first_slot, last_slot;
} pecert_diagnose_finding;

typedef struct pecert_diagnose_page {
    const char *title;                 /* "q_pre.npy -> q_post.npy against llama-3.1-8b" */
    const char *verdict;               /* the CLI's verdict line            */
    int pass;
    const pecert_dump_report *rope;    /* channels, pairing, hypotheses     */
    const pecert_diagnose_finding *findings;
    size_t n_findings;
    const char *point_name;            /* "token" or "slot"                 */
    int64_t n_points;
    const int64_t *recovered;          /* per point; -1: no integer position */
    const int64_t *expected;           /* per point (-1: empty slot), or NULL */
    /* A trace: the first point of each step, for the plot's step marks. */
    const int64_t *step_first;
    int32_t n_steps;
} pecert_diagnose_page;

/* The page (malloc'ed), or NULL when out of memory. */
char *pecert_diagnose_html(const pecert_diagnose_page *p);

#endif /* PECERT_REPORTS_DIAGNOSE_HTML_H */
