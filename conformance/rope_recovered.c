/*
 * rope_recovered.c - a failing rope_apply case read as `pecert diagnose`
 * reads a dump: the position, pairing, rotated channels and frequencies
 * each token was really rotated with, recovered from the case's input and
 * output by the one implementation diagnose uses (dump_diagnosis.h). run
 * and certify turn to it when no replayed hypothesis explains the outputs
 * (rope_hypotheses.c), so that they name what diagnose names: a plugin
 * that rotates every token after the first at p + 1 is "off by one (+1)
 * from token 1 on" in all three, never "a failure the diagnosis cannot
 * name yet" in one of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_diagnosis.h"
#include "rope_checks.h"

/* Findings kept per check: the first failing case's, the lead and one. */
#define RECOVERED_FINDINGS 2

/* 1 once a case of r was read this way: one recovery per check bounds the
 * cost (a dump diagnosis tries some twenty frequency sets). */
static int recovered_before(const pecert_check_result *r)
{
    for (int i = 0; i < r->n_symptoms; i++) {
        if (strncmp(r->symptoms[i], PECERT_SYMPTOM_RECOVERED, strlen(PECERT_SYMPTOM_RECOVERED)) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The case as a dump: before x, after got, as doubles in buf (2 x its
 * size, the caller frees it). */
static int as_view(pecert_dump_view *v, double **buf, const pecert_rope_call *call, const float *x, const float *got)
{
    size_t n = pecert_rope_call_size(call);
    *buf = malloc((2 * n + 1) * sizeof(double));
    if (*buf == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        (*buf)[i] = x[i];
        (*buf)[n + i] = got[i];
    }
    *v = (pecert_dump_view){call->tokens, (int32_t)call->heads, (int32_t)call->head_dim, *buf, *buf + n, 0x1p-24};
    return 0;
}

void pecert_rope_recover_explain(const pecert_check_env *env, pecert_check_result *r, const pecert_rope_call *call,
                                 const float *x, const float *got, const char *where)
{
    if (recovered_before(r) || env->oracle.desc == NULL || call->positions == NULL ||
        pecert_values_nonfinite(got, pecert_rope_call_size(call))) {
        return;
    }
    pecert_dump_view v;
    double *buf = NULL;
    pecert_certify_model *m = calloc(1, sizeof(*m));
    if (m == NULL || as_view(&v, &buf, call, x, got) != 0) {
        free(m);
        return;
    }
    m->kind = PECERT_PE_ROPE;
    m->rope = *call->config;
    m->pairing = call->pairing;
    pecert_loaded_plugin oracle;
    memset(&oracle, 0, sizeof(oracle));
    oracle.desc = env->oracle.desc;
    snprintf(oracle.path, sizeof(oracle.path), "the oracle");
    pecert_dump_report rep;
    char err[256];
    if (pecert_dump_diagnose(&rep, m, &oracle, &v, call->positions, err, sizeof(err)) == 0) {
        for (int32_t i = 0; i < rep.n_findings && i < RECOVERED_FINDINGS; i++) {
            char line[PECERT_RESULT_LINE_MAX];
            pecert_check_symptom(r, "%s%s", PECERT_SYMPTOM_RECOVERED, rep.findings[i].id);
            snprintf(line, sizeof(line), "%s: %s%s", where, PECERT_RECOVERED_NOTE, rep.findings[i].text);
            (void)pecert_check_result_add_line(r, PECERT_FAILURE_NOTE, line);
        }
        pecert_dump_report_free(&rep);
    }
    free(buf);
    free(m);
}
