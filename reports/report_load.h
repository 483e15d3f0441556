/*
 * report_load.h - what report_load.c shares inside reports/.
 */
#ifndef PECERT_REPORTS_REPORT_LOAD_H
#define PECERT_REPORTS_REPORT_LOAD_H

#include <stddef.h>

/* Most runs one report file may hold (a report of every mutant on both
 * bases and every honest variant holds a few hundred). */
#define PECERT_REPORT_MAX_RUNS 4096

/* pecert__report_precount: 0 when text[0..len) holds at most max_runs
 * runs and at most max_checks checks in each (counted from its bytes,
 * before any parse: report_precount.c); -1 with why. */
int pecert__report_precount(const char *text, size_t len, size_t max_checks, size_t max_runs, char *why,
                            size_t why_len);

#endif /* PECERT_REPORTS_REPORT_LOAD_H */
