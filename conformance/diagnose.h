/*
 * diagnose.h - name the bug from the pattern of a run's results.
 *
 * A failing run tells a porter *that* something is wrong; the diagnosis
 * says *what*: which convention the plugin implements instead, which
 * scaling it drops, whether positions drift only across calls. It reads
 * the verdicts and symptom tags the checks leave (results.h) and never
 * recomputes anything.
 */
#ifndef PECERT_CONFORMANCE_DIAGNOSE_H
#define PECERT_CONFORMANCE_DIAGNOSE_H

#include "results.h"

/* pecert_diagnose fills run->findings from run->checks. */
void pecert_diagnose(pecert_run_results *run);

#endif /* PECERT_CONFORMANCE_DIAGNOSE_H */
