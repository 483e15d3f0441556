/* report_model.c - runs of a report: shards merged, roles, labels, verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "report.h"

int pecert_report_add_run(pecert_report *rep, pecert_run_results *res, pecert_report_role role,
                          const char *origin)
{
    if (rep->n_runs == rep->cap_runs) {
        size_t cap = rep->cap_runs == 0 ? 8 : rep->cap_runs * 2;
        pecert_report_run *grown = realloc(rep->runs, cap * sizeof(*grown));
        if (grown == NULL) {
            return -1;
        }
        rep->runs = grown;
        rep->cap_runs = cap;
    }
    pecert_report_run *run = &rep->runs[rep->n_runs++];
    memset(run, 0, sizeof(*run));
    run->res = *res;
    run->role = role;
    snprintf(run->origin, sizeof(run->origin), "%s", origin);
    memset(res, 0, sizeof(*res));
    return 0;
}

void pecert_report_free(pecert_report *rep)
{
    for (size_t i = 0; i < rep->n_runs; i++) {
        pecert_run_results_free(&rep->runs[i].res);
    }
    free(rep->runs);
    memset(rep, 0, sizeof(*rep));
}

/* Shards of one run certify the same plugin build in the same way: the
 * same selection too (certify --all-profiles writes one run per profile,
 * its filter naming the checkpoint; those are runs, not shards). */
static int same_run(const pecert_run_info *a, const pecert_run_info *b)
{
    return strcmp(a->plugin_name, b->plugin_name) == 0 && strcmp(a->plugin_id, b->plugin_id) == 0 &&
           strcmp(a->plugin_version, b->plugin_version) == 0 &&
           strcmp(a->plugin_describe, b->plugin_describe) == 0 && strcmp(a->filter, b->filter) == 0;
}

/* The field in which two shards of a run disagree, or NULL. */
static const char *shard_mismatch(const pecert_run_info *a, const pecert_run_info *b)
{
    if (a->shard_count != b->shard_count) {
        return "shard count";
    }
    if (a->n_selected != b->n_selected || strcmp(a->filter, b->filter) != 0) {
        return "check selection (--filter)";
    }
    if (strcmp(a->vectors_hash, b->vectors_hash) != 0) {
        return "vector set";
    }
    if (a->unsandboxed != b->unsandboxed) {
        return "sandbox (--sandbox)";
    }
    return strcmp(a->pecert_version, b->pecert_version) != 0 ? "pecert version" : NULL;
}

/* Checks the shards group[0..n) are one complete run: same selection,
 * each shard 1..N exactly once. Returns the position of shard 1, or -1. */
static int check_shards(const pecert_report *rep, const size_t *group, size_t n, char *err,
                        size_t err_len)
{
    const pecert_report_run *first = &rep->runs[group[0]];
    int count = first->res.info.shard_count;
    int base = -1;
    for (size_t i = 0; i < n; i++) {
        const pecert_report_run *r = &rep->runs[group[i]];
        const char *field = shard_mismatch(&first->res.info, &r->res.info);
        if (field != NULL) {
            snprintf(err, err_len, "plugin '%s': %s and %s differ in %s", r->res.info.plugin_name, first->origin, r->origin, field);
            return -1;
        }
        for (size_t j = 0; j < i; j++) {
            if (rep->runs[group[j]].res.info.shard_index == r->res.info.shard_index) {
                snprintf(err, err_len, "plugin '%s': shard %d/%d given twice (%s and %s)", r->res.info.plugin_name,
                         r->res.info.shard_index, count, rep->runs[group[j]].origin, r->origin);
                return -1;
            }
        }
        base = r->res.info.shard_index == 1 ? (int)i : base;
    }
    for (int k = 1; k <= count; k++) {
        int found = 0;
        for (size_t i = 0; i < n; i++) {
            found |= rep->runs[group[i]].res.info.shard_index == k;
        }
        if (!found) {
            snprintf(err, err_len, "plugin '%s': shard %d/%d missing (have %zu of %d, e.g. %s)",
                     first->res.info.plugin_name,
                     k, count, n, count, first->origin);
            return -1;
        }
    }
    return base;
}

static int by_index(const void *a, const void *b)
{
    const pecert_check_result *x = a;
    const pecert_check_result *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* A check of shard `from` that the shard does not deal (pecert_shard_of),
 * or NULL: a check moved from one shard's file to another's. */
static const pecert_check_result *misdealt_check(const pecert_run_results *from)
{
    for (size_t c = 0; c < from->n_checks; c++) {
        const pecert_check_result *r = &from->checks[c];
        if (r->index < 0 || pecert_shard_of(r->index, from->info.shard_count) != from->info.shard_index) {
            return r;
        }
    }
    return NULL;
}

/* The first check id held twice in run (each may be once in a run: a
 * failing check renamed after a passing one would count it twice), or
 * NULL. A run holds at most a few hundred checks. */
static const char *twice_held(const pecert_run_results *run)
{
    for (size_t a = 0; a < run->n_checks; a++) {
        for (size_t b = a + 1; b < run->n_checks; b++) {
            if (strcmp(run->checks[a].check_id, run->checks[b].check_id) == 0) {
                return run->checks[a].check_id;
            }
        }
    }
    return NULL;
}

/* Moves every check of the other shards into base, in unsharded order. */
static int join_checks(pecert_report *rep, const size_t *group, size_t n, size_t base, char *err,
                       size_t err_len)
{
    pecert_run_results *into = &rep->runs[group[base]].res;
    for (size_t i = 0; i < n; i++) { /* every shard as read, before any is joined */
        const pecert_run_results *from = &rep->runs[group[i]].res;
        const pecert_check_result *moved = misdealt_check(from);
        if (moved != NULL) {
            snprintf(err, err_len, "%s: %s: check %d of the selection is not one shard %d/%d holds (shards deal "
                     "checks round-robin)", rep->runs[group[i]].origin, moved->check_id, (int)moved->index,
                     from->info.shard_index, from->info.shard_count);
            return -1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        pecert_run_results *from = &rep->runs[group[i]].res;
        for (size_t c = 0; i != base && c < from->n_checks; c++) {
            if (pecert_run_results_append(into, &from->checks[c]) != 0) {
                snprintf(err, err_len, "out of memory");
                return -1;
            }
        }
    }
    if (into->n_checks > 1) { /* qsort of a NULL array (no check) is undefined */
        qsort(into->checks, into->n_checks, sizeof(*into->checks), by_index);
    }
    for (size_t k = 0; k < into->n_checks; k++) {
        if (into->checks[k].index != (int32_t)k) {
            snprintf(err, err_len, "%s%splugin '%s': the %s not hold check %zu of the selection exactly once",
                     n > 1 ? "" : rep->runs[group[base]].origin, n > 1 ? "" : ": ", into->info.plugin_name,
                     n > 1 ? "shards do" : "file does", k);
            return -1;
        }
    }
    const char *twice = twice_held(into);
    if (twice != NULL) {
        snprintf(err, err_len, "%s%splugin '%s': check '%s' appears twice in the %s", n > 1 ? "" : rep->runs[group[base]].origin,
                 n > 1 ? "" : ": ", into->info.plugin_name, twice, n > 1 ? "shards" : "file");
        return -1;
    }
    if ((int)into->n_checks != into->info.n_selected) {
        snprintf(err, err_len, "%s%splugin '%s': %s %zu checks, the selection has %d%s",
                 n > 1 ? "" : rep->runs[group[base]].origin, n > 1 ? "" : ": ", into->info.plugin_name,
                 n > 1 ? "the shards hold" : "the file holds", into->n_checks, into->info.n_selected,
                 n > 1 ? "" : " (a check was removed from it)");
        return -1;
    }
    return 0;
}

/* Joins the shards group[0..n) into the run of shard 1; the others are
 * emptied and flagged for removal (not_run = -1). */
static int merge_group(pecert_report *rep, const size_t *group, size_t n, char *err, size_t err_len)
{
    int base = check_shards(rep, group, n, err, err_len);
    if (base < 0 || join_checks(rep, group, n, (size_t)base, err, err_len) != 0) {
        return -1;
    }
    pecert_report_run *into = &rep->runs[group[base]];
    into->res.info.shard_index = 1;
    into->res.info.shard_count = 1;
    pecert_diagnose(&into->res); /* a shard's diagnosis saw only its checks */
    for (size_t i = 0; i < n; i++) {
        if (i != (size_t)base) {
            pecert_run_results_free(&rep->runs[group[i]].res);
            rep->runs[group[i]].not_run = -1;
        }
    }
    /* The merged run takes the place of the run's first file. */
    pecert_report_run tmp = rep->runs[group[0]];
    rep->runs[group[0]] = *into;
    *into = tmp;
    return 0;
}

/* Drops the runs merge_group emptied, keeping the order of the rest. */
static void compact(pecert_report *rep)
{
    size_t kept = 0;
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (rep->runs[i].not_run != -1) {
            rep->runs[kept++] = rep->runs[i];
        }
    }
    rep->n_runs = kept;
}

int pecert_report_merge(pecert_report *rep, char *err, size_t err_len)
{
    size_t *group = calloc(rep->n_runs + 1, sizeof(*group));
    int rc = group != NULL ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < rep->n_runs; i++) {
        pecert_report_run *r = &rep->runs[i];
        if (r->not_run != 0) {
            continue;
        }
        size_t n = 0;
        for (size_t j = i; j < rep->n_runs; j++) {
            if (rep->runs[j].not_run == 0 && same_run(&r->res.info, &rep->runs[j].res.info)) {
                group[n++] = j;
            }
        }
        /* One unsharded file is held to what a merge demands of shards:
         * every check of its selection exactly once, so that a failing
         * check deleted from the file (or "checks": []) is refused. */
        rc = merge_group(rep, group, n, err, err_len);
    }
    if (group == NULL) {
        snprintf(err, err_len, "out of memory");
    }
    free(group);
    compact(rep);
    return rc;
}

size_t pecert_report_allow_fail(pecert_report *rep, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < rep->n_runs; i++) {
        if (strcmp(rep->runs[i].res.info.plugin_name, name) == 0 && rep->runs[i].role != PECERT_ROLE_MUTANT) {
            rep->runs[i].role = PECERT_ROLE_ALLOWED;
            n++;
        }
    }
    return n;
}

int pecert_report_is_certify_run(const pecert_report_run *run)
{
    return run->role != PECERT_ROLE_MUTANT && !run->not_run && strncmp(run->res.info.filter, "certify ", 8) == 0;
}

int pecert_report_run_certificate(const pecert_report_run *run, pecert_certificate *c)
{
    if (!pecert_report_is_certify_run(run)) {
        memset(c, 0, sizeof(*c));
        c->cls = PECERT_CERT_NOT_APPLICABLE;
        return 0;
    }
    pecert_certificate_of(c, &run->res);
    return 1;
}

int pecert_report_run_failed(const pecert_report_run *run)
{
    pecert_certificate c;
    if (pecert_report_run_certificate(run, &c)) {
        /* certify: its class (certificate.h). NOT APPLICABLE fails no
         * report by itself (--all-profiles lists the profiles a plugin has
         * no operation for); pecert_report_passed asks for one CERTIFIED. */
        return c.cls == PECERT_CERT_NOT_CERTIFIED;
    }
    if (pecert_run_certified_nothing(&run->res)) {
        return 1; /* zero evidence is not a pass */
    }
    for (size_t i = 0; i < run->res.n_checks; i++) {
        /* certify: the checkpoint's own encoding declined (not supported,
         * yet not certified: pecert_plan_judge_essential) fails the run in
         * every output */
        if (run->res.checks[i].verdict >= PECERT_VERDICT_FAIL ||
            pecert_check_has_symptom(&run->res.checks[i], PECERT_SYMPTOM_ESSENTIAL_DECLINED)) {
            return 1;
        }
    }
    return 0;
}

/* As `pecert mutation` judges: caught if every must_fail check failed,
 * diagnosed if the expected finding (when the entry names one) is there. */
static void judge_mutant(pecert_report_run *run)
{
    run->caught = !run->not_run;
    for (int i = 0; i < run->expect.n_must_fail; i++) {
        const pecert_check_result *r = pecert_run_results_find(&run->res, run->expect.must_fail[i]);
        run->caught &= r != NULL && r->verdict >= PECERT_VERDICT_FAIL;
    }
    run->diagnosed = !run->not_run && run->expect.finding[0] == '\0';
    for (int i = 0; !run->diagnosed && i < run->res.n_findings; i++) {
        run->diagnosed = strcmp(run->res.findings[i].id, run->expect.finding) == 0;
    }
}

/* Another run shares this one's plugin name: the label needs more. */
static void make_label(pecert_report *rep, size_t i)
{
    pecert_report_run *r = &rep->runs[i];
    const pecert_run_info *info = &r->res.info;
    int shared = 0;
    for (size_t j = 0; j < rep->n_runs; j++) {
        shared |= j != i && strcmp(rep->runs[j].res.info.plugin_name, info->plugin_name) == 0;
    }
    if (!shared) {
        snprintf(r->label, sizeof(r->label), "%s", info->plugin_name);
    } else if (info->plugin_describe[0] != '\0') {
        snprintf(r->label, sizeof(r->label), "%s [%.120s]", info->plugin_name, info->plugin_describe);
    } else {
        snprintf(r->label, sizeof(r->label), "%s [%.60s %.60s]", info->plugin_name, info->plugin_id,
                 info->plugin_version);
    }
}

/* Mutants (the tail) in catalogue order, which groups them by bug class;
 * those without a catalogue position keep their place after them. An
 * insertion sort: stable, and a report has tens of mutants, not millions. */
static void order_mutants(pecert_report *rep)
{
    size_t first = 0;
    while (first < rep->n_runs && rep->runs[first].role != PECERT_ROLE_MUTANT) {
        first++;
    }
    for (size_t i = first + 1; i < rep->n_runs; i++) {
        pecert_report_run moving = rep->runs[i];
        unsigned key = (unsigned)moving.catalogue_order - 1u; /* 0 (unknown) sorts last */
        size_t j = i;
        while (j > first && (unsigned)rep->runs[j - 1].catalogue_order - 1u > key) {
            rep->runs[j] = rep->runs[j - 1];
            j--;
        }
        rep->runs[j] = moving;
    }
}

/* Stable reorder: certified runs, then allowed-to-fail, then mutants. */
static void order_by_role(pecert_report *rep)
{
    pecert_report_run *sorted = malloc((rep->n_runs + 1) * sizeof(*sorted));
    if (sorted == NULL) {
        return; /* input order is still a valid order */
    }
    size_t n = 0;
    for (int role = 0; role < PECERT_ROLE_COUNT; role++) {
        for (size_t i = 0; i < rep->n_runs; i++) {
            if ((int)rep->runs[i].role == role) {
                sorted[n++] = rep->runs[i];
            }
        }
    }
    memcpy(rep->runs, sorted, n * sizeof(*sorted));
    free(sorted);
    order_mutants(rep);
}

void pecert_report_finish(pecert_report *rep)
{
    order_by_role(rep);
    for (size_t i = 0; i < rep->n_runs; i++) {
        pecert_report_run *r = &rep->runs[i];
        make_label(rep, i);
        if (r->role == PECERT_ROLE_MUTANT) {
            judge_mutant(r);
        }
        for (size_t c = 0; rep->no_timings && c < r->res.n_checks; c++) {
            r->res.checks[c].elapsed_s = 0.0;
        }
    }
}

int pecert_report_passed(const pecert_report *rep)
{
    int certify_runs = 0;
    int certified = 0;
    for (size_t i = 0; i < rep->n_runs; i++) {
        const pecert_report_run *r = &rep->runs[i];
        pecert_certificate c;
        if (r->role == PECERT_ROLE_CERTIFY && pecert_report_run_certificate(r, &c)) {
            certify_runs++;
            certified += c.cls == PECERT_CERT_CERTIFIED;
        }
        if (r->role == PECERT_ROLE_CERTIFY && pecert_report_run_failed(r)) {
            return 0;
        }
        if (r->role == PECERT_ROLE_MUTANT && !(r->caught && r->diagnosed)) {
            return 0;
        }
    }
    /* Certify runs pass as certify exits 0: none NOT CERTIFIED and at
     * least one CERTIFIED (a single NOT APPLICABLE certifies nothing). */
    return certify_runs == 0 || certified > 0;
}
