/*
 * certify_passes.c - certify's plan (certify_plan.c) executed for one
 * checkpoint.
 *
 * A checkpoint is certified in passes (each layer type, or the text
 * model, then the vision tower); each pass gets its vector sets
 * (certify_vectors.h) and the plan's entries that apply
 * (certify_plan.h), run by the one plan loop (runner.h); the passes'
 * results and findings are merged into one run, each named by its pass.
 */
#include "certify_passes.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certificate.h"
#include "certify_checks.h"
#include "certify_plan.h"
#include "certify_vectors.h"
#include "diagnose.h"
#include "plugin_load.h"
#include "run_info.h"
#include "runner.h"
#include "vectors.h"

typedef struct certify_state {
    const pecert_certify_model *model;
    pecert_loaded_plugin plugin;
    pecert_loaded_plugin oracle;
    pecert_vfile loaded;        /* the profile vectors file (owns tests) */
    pecert_certify_vectors sets; /* the pass's vector sets               */
    /* The layer type certified (its name suffixes every check id), NULL
     * when every layer rotates alike. */
    const char *layer;
    size_t done_before;         /* checks run for earlier layer types    */
    size_t total_all;           /* planned over every layer type         */
    const char *filter;         /* --filter, NULL = the whole plan       */
    int keep_cases;             /* --verbose: every case                 */
    const pecert_certify_options *opt;
} certify_state;

/* 1 if the file holds a test of op ("" = any test). */
static int file_has_op(const pecert_vfile *f, const char *op)
{
    for (size_t i = 0; i < f->n_tests; i++) {
        if (op[0] == '\0' || strcmp(f->tests[i].op, op) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The id a check is reported under: "rope.apply.golden", or with the
 * layer type, "rope.apply.golden@sliding". */
static const char *shown_id(char *buf, size_t len, const certify_state *s, const char *id)
{
    if (s->layer == NULL) {
        return id;
    }
    snprintf(buf, len, "%s@%s", id, s->layer);
    return buf;
}

static int planned(const certify_state *s, const pecert_plan_entry *e)
{
    char id[PECERT_CHECK_ID_MAX];
    if (!pecert_plan_applies(e, s->model) ||
        !pecert_filter_selects(s->filter, shown_id(id, sizeof(id), s, e->check->id))) {
        return 0;
    }
    return e->op == NULL || (s->sets.have_vectors && file_has_op(&s->sets.recorded, e->op));
}

static int load_state(certify_state *s, const pecert_certify_options *opt, char *err, size_t err_len)
{
    if (pecert_plugin_open_hosted(&s->plugin, opt->plugin_path, opt->sandbox, err, err_len) != 0 ||
        pecert_plugin_open(&s->oracle, opt->oracle_path, err, err_len) != 0) {
        return PECERT_EXIT_LOAD;
    }
    if (opt->vectors_path != NULL && pecert_vfile_load(&s->loaded, opt->vectors_path, err, err_len) != 0) {
        return PECERT_EXIT_USAGE;
    }
    const pecert_vfile *loaded = opt->vectors_path != NULL ? &s->loaded : NULL;
    if (pecert_certify_vectors_build(&s->sets, s->model, s->layer, loaded) != 0) {
        snprintf(err, err_len, "out of memory");
        return PECERT_EXIT_USAGE;
    }
    return PECERT_EXIT_PASS;
}

static void free_state(certify_state *s)
{
    pecert_certify_vectors_free(&s->sets);
    pecert_vfile_free(&s->loaded);
    pecert_plugin_close(&s->oracle);
    pecert_plugin_close(&s->plugin);
}

/* ---- the run ------------------------------------------------------------ */

static void fill_info(pecert_run_info *info, const certify_state *s, const pecert_certify_options *opt,
                      int n_selected)
{
    memset(info, 0, sizeof(*info));
    pecert_capture_plugin(info, &s->plugin, opt->timeout_s);
    snprintf(info->vectors_dir, sizeof(info->vectors_dir), "%s", opt->vectors_path != NULL ? opt->vectors_path : "");
    /* The selection of a certify run is the checkpoint at its derived
     * parameters: reports show it where they show a run's filter. */
    char params[192];
    pecert_certify_label(params, sizeof(params), s->model);
    snprintf(info->filter, sizeof(info->filter), "certify %s (%s): %s%s%s", s->model->name, s->model->model_type,
             params, opt->filter != NULL ? "; --filter " : "", opt->filter != NULL ? opt->filter : "");
    info->n_vector_files = s->sets.have_vectors;
    info->n_vectors = (int)s->loaded.n_tests;
    info->timeout_s = opt->timeout_s;
    info->shard_index = 1;
    info->shard_count = 1;
    info->n_selected = n_selected;
}

static size_t planned_count(const certify_state *s)
{
    size_t total = 0;
    for (size_t i = 0; i < pecert_certify_plan_len; i++) {
        total += (size_t)planned(s, &pecert_certify_plan[i]);
    }
    return total;
}

/* The progress callback sees the check under the id it is reported by. */
static void report_progress(const pecert_check_result *r, size_t done, size_t total, void *user)
{
    const certify_state *s = user;
    const pecert_certify_options *opt = s->opt;
    if (opt->on_check == NULL) {
        return;
    }
    if (s->total_all == 0) { /* one pass: its own counts */
        opt->on_check(r, done, total, opt->user);
        return;
    }
    if (s->layer == NULL) {
        opt->on_check(r, s->done_before + done, s->total_all, opt->user);
        return;
    }
    pecert_check_result shown = *r;
    char id[PECERT_CHECK_ID_MAX];
    snprintf(shown.check_id, sizeof(shown.check_id), "%s", shown_id(id, sizeof(id), s, r->check_id));
    opt->on_check(&shown, s->done_before + done, s->total_all, opt->user);
}

static int judge_essential(pecert_check_result *r, const pecert_plan_item *item, void *user)
{
    const certify_state *s = user;
    return item->essential && pecert_plan_judge_essential(r, s->model);
}

/* The plan's entries that apply, with their vector sets, run. */
static int run_plan(pecert_run_results *out, certify_state *s, const pecert_certify_options *opt)
{
    size_t total = planned_count(s);
    fill_info(&out->info, s, opt, (int)total);
    pecert_plan_item *items = calloc(total + 1, sizeof(*items));
    if (items == NULL) {
        return PECERT_EXIT_FAIL;
    }
    size_t n = 0;
    for (size_t i = 0; i < pecert_certify_plan_len; i++) {
        const pecert_plan_entry *e = &pecert_certify_plan[i];
        if (planned(s, e)) {
            const pecert_vfile *files = pecert_certify_vectors_of(&s->sets, e->files);
            items[n] = (pecert_plan_item){e->check, files, 1, (int32_t)n, e->essential};
            n++;
        }
    }
    pecert_exec_subjects x = {s->plugin.desc, s->oracle.desc, NULL, 0, s->keep_cases, opt->timeout_s, s->model};
    pecert_plan_hooks hooks = {.cite_files = &s->sets.recorded, .n_cite_files = s->sets.have_vectors ? 1 : 0,
                               .cite_dir = "", .judge = judge_essential, .on_check = report_progress, .user = s};
    int status = pecert_run_plan(out, items, n, &x, &hooks);
    free(items);
    return status;
}

/* The filter selected nothing: say what it could have selected. */
static int filter_selects_none(const certify_state *s, const pecert_certify_options *opt, char *err, size_t err_len)
{
    certify_state all = *s;
    all.filter = NULL;
    int used = snprintf(err, err_len, "certify: --filter '%s' selects none of the checks planned for %s:",
                        opt->filter != NULL ? opt->filter : "", s->model->name);
    for (size_t i = 0; i < pecert_certify_plan_len && used >= 0 && (size_t)used < err_len; i++) {
        char id[PECERT_CHECK_ID_MAX];
        if (planned(&all, &pecert_certify_plan[i])) {
            const char *shown = shown_id(id, sizeof(id), &all, pecert_certify_plan[i].check->id);
            used += snprintf(err + used, err_len - (size_t)used, " %s", shown);
        }
    }
    return PECERT_EXIT_USAGE;
}

/* One encoding certified: m's, or one layer type's (layer its name).
 * With count_only, *planned_n gets the number of planned checks and
 * nothing runs. */
static int certify_encoding(pecert_run_results *out, const pecert_certify_model *m, const char *layer,
                            const pecert_certify_options *opt, size_t *planned_n, int count_only, char *err,
                            size_t err_len)
{
    certify_state s;
    memset(&s, 0, sizeof(s));
    memset(out, 0, sizeof(*out));
    s.model = m;
    s.layer = layer;
    s.filter = opt->filter;
    s.keep_cases = opt->keep_cases;
    s.opt = opt;
    s.done_before = planned_n[0];
    s.total_all = planned_n[1];
    int status = load_state(&s, opt, err, err_len);
    if (status == PECERT_EXIT_PASS && count_only) {
        planned_n[0] = planned_count(&s);
    } else if (status == PECERT_EXIT_PASS) {
        if (layer == NULL && planned_count(&s) == 0) {
            status = filter_selects_none(&s, opt, err, err_len);
        } else {
            status = run_plan(out, &s, opt);
            pecert_diagnose(out);
        }
        /* After the plan, whose run info starts blank: the vector set's
         * files and hash (the report's "set fnv1a64:..."; once empty). */
        if (status <= PECERT_EXIT_FAIL && s.sets.have_vectors && pecert_capture_vector_set(out, &s.loaded, 1, "") != 0) {
            snprintf(err, err_len, "out of memory");
            status = PECERT_EXIT_USAGE;
        }
    }
    free_state(&s);
    return status;
}

/* part's checks and findings into out, named by their pass: the diagnosis
 * of each is its own ("full layers: ...", "vision tower: ..."). */
static int merge_pass(pecert_run_results *out, pecert_run_results *part, const char *name, const char *findings_of)
{
    for (size_t i = 0; i < part->n_checks; i++) {
        pecert_check_result *r = &part->checks[i];
        if (name != NULL) {
            char id[PECERT_CHECK_ID_MAX];
            snprintf(id, sizeof(id), "%s@%s", r->check_id, name);
            snprintf(r->check_id, sizeof(r->check_id), "%s", id);
        }
        r->index = (int32_t)out->n_checks;
        if (pecert_run_results_append(out, r) != 0) {
            return -1;
        }
    }
    for (int f = 0; f < part->n_findings && out->n_findings < PECERT_MAX_FINDINGS; f++) {
        pecert_finding *to = &out->findings[out->n_findings++];
        *to = part->findings[f];
        if (name != NULL) {
            snprintf(to->bug, sizeof(to->bug), "%s %s: %s", name, findings_of, part->findings[f].bug);
        }
    }
    return 0;
}

/* The run's identity from the first pass's, its selection naming every
 * layer type and its counts summed. */
static void merge_info(pecert_run_results *out, pecert_run_results *part, const pecert_certify_model *m,
                       const pecert_certify_options *opt, int first)
{
    if (first) {
        out->info = part->info;
        out->sources = part->sources;
        out->n_sources = part->n_sources;
        part->sources = NULL;
        part->n_sources = 0;
        char params[192];
        pecert_certify_label(params, sizeof(params), m);
        snprintf(out->info.filter, sizeof(out->info.filter), "certify %s (%s): %s%s%s", m->name, m->model_type,
                 params, opt->filter != NULL ? "; --filter " : "", opt->filter != NULL ? opt->filter : "");
        return;
    }
    out->info.n_selected += part->info.n_selected;
}

/* Every pass of m, one after the other, into one run. */
static int certify_passes(pecert_run_results *out, const pecert_certify_model *m,
                          const pecert_certify_options *opt, char *err, size_t err_len)
{
    pecert_certify_pass passes[PECERT_CERTIFY_MAX_PASSES];
    pecert_certify_model *store = NULL;
    size_t counts[PECERT_CERTIFY_MAX_PASSES] = {0};
    size_t total = 0;
    int n = pecert_certify_passes(passes, &store, m);
    int status = n < 0 ? PECERT_EXIT_USAGE : PECERT_EXIT_PASS;
    memset(out, 0, sizeof(*out));
    if (n < 0) {
        snprintf(err, err_len, "out of memory");
    }
    for (int i = 0; i < n && status == PECERT_EXIT_PASS; i++) {
        size_t c[2] = {0, 0};
        pecert_run_results none;
        status = certify_encoding(&none, passes[i].model, passes[i].name, opt, c, 1, err, err_len);
        counts[i] = c[0];
        total += c[0];
    }
    if (status == PECERT_EXIT_PASS && total == 0) {
        snprintf(err, err_len, "certify: --filter '%s' selects none of the checks planned for %s's %s%s",
                 opt->filter != NULL ? opt->filter : "", m->name, m->n_layer_types > 0 ? "layer types" : "text model",
                 m->vision.tower[0] != '\0' ? " and vision tower" : "");
        status = PECERT_EXIT_USAGE;
    }
    size_t done = 0;
    int first = 1;
    for (int i = 0; i < n && status <= PECERT_EXIT_FAIL; i++) {
        if (counts[i] == 0) {
            continue;
        }
        pecert_run_results part;
        size_t c[2] = {done, total};
        int rc = certify_encoding(&part, passes[i].model, passes[i].name, opt, c, 0, err, err_len);
        if (rc > PECERT_EXIT_FAIL) {
            status = rc;
        } else {
            merge_info(out, &part, m, opt, first);
            status = merge_pass(out, &part, passes[i].name, passes[i].findings_of) != 0 ? PECERT_EXIT_FAIL
                     : rc == PECERT_EXIT_FAIL                     ? PECERT_EXIT_FAIL
                                                                  : status;
            first = 0;
        }
        done += counts[i];
        pecert_run_results_free(&part);
    }
    free(store);
    return status;
}

int pecert_certify_run(pecert_run_results *out, const pecert_certify_model *m,
                       const pecert_certify_options *opt, char *err, size_t err_len)
{
    size_t n[2] = {0, 0};
    int several = m->n_layer_types > 0 || m->vision.tower[0] != '\0' || m->decoder_learned_rows > 0;
    int status = several ? certify_passes(out, m, opt, err, err_len)
                         : certify_encoding(out, m, NULL, opt, n, 0, err, err_len);
    if (opt->filter == NULL && status <= PECERT_EXIT_FAIL) {
        /* What pecert does not certify is named in the results, so that
         * every output of the certificate says it was not examined. */
        pecert_check_result parts[2];
        size_t n_parts = pecert_certify_unexamined(parts, m);
        for (size_t i = 0; i < n_parts; i++) {
            parts[i].index = (int32_t)out->n_checks;
            if (pecert_run_results_append(out, &parts[i]) != 0) {
                snprintf(err, err_len, "out of memory");
                return PECERT_EXIT_USAGE;
            }
            out->info.n_selected++;
        }
        /* A certification's exit status is its class (certificate.h):
         * what every output of it says too. */
        pecert_certificate c;
        pecert_certificate_of(&c, out);
        status = c.cls == PECERT_CERT_CERTIFIED ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
    }
    return status;
}
