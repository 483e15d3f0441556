/* runner.c - vectors + plugins in, one isolated child per check, results out. */
#include "runner.h"

#include "capture.h"

#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "diagnose.h"
#include "engine.h"
#include "did_you_mean.h"
#include "isolate.h"
#include "job_pool.h"
#include "plugin_load.h"
#include "results_json.h"
#include "run_info.h"
#include "vectors.h"

#ifndef PECERT_VERSION
#define PECERT_VERSION "0.1.0"
#endif

typedef struct run_state {
    pecert_loaded_plugin plugin;
    pecert_loaded_plugin oracle;
    pecert_vfile *files;
    size_t n_files;
    /* What the checks see: files, or --case's one vector (a view into
     * one of them: case_view's tests point into its file's). */
    const pecert_vfile *run_files;
    size_t n_run_files;
    pecert_vfile case_view;
    int keep_cases;       /* --verbose: every case, not only failures */
} run_state;

typedef struct child_job {
    const pecert_exec_subjects *x;
    const pecert_check *check;
} child_job;

static pecert_status make_subject(pecert_subject *s, const pecert_plugin *desc)
{
    s->desc = desc;
    return pecert_plugin_instance(desc, &s->instance);
}

static void drop_subject(pecert_subject *s)
{
    if (s->desc != NULL) {
        pecert_plugin_release(s->desc, s->instance);
    }
}

/* In a check's child (isolate.h): the plugin and oracle instances, the
 * check run with the plugin's declared scope guarded and its output
 * captured, the result as JSON on out_fd. */
static int check_in_child(const pecert_check *check, const pecert_exec_subjects *x, int out_fd,
                          pecert_case_slot *case_slot)
{
    pecert_check_env env = {
        .files = x->files, .n_files = x->n_files, .case_slot = case_slot, .certify_model = x->certify_model};
    pecert_check_result r;
    pecert_check_result_init(&r, check->id);
    r.keep_cases = x->keep_cases;
    pecert_capture *printed = pecert_capture_begin();
    pecert_engine *engine = pecert_engine_of(x->plugin);
    if (engine != NULL) {
        pecert_engine_keep_output(engine); /* into the capture */
    }
    pecert_case_slot_set(case_slot, "create instance");
    pecert_status st = make_subject(&env.plugin, x->plugin);
    if (st == PECERT_OK) {
        st = make_subject(&env.oracle, x->oracle);
        env.oracle.is_oracle = 1;
        pecert_scope_guard_install(&env.plugin);
    }
    if (st != PECERT_OK) {
        pecert_case_fail(&r, "create", "plugin create() returned %d", (int)st);
        pecert_check_conclude(&r, "cases");
    } else {
        check->run(&env, &r);
    }
    pecert_case_slot_set(case_slot, "destroy instance");
    drop_subject(&env.oracle);
    drop_subject(&env.plugin);
    const char *broke = pecert_engine_violation(engine);
    if (broke != NULL) {
        pecert_check_engine_violation(&r, broke);
    }
    pecert_engine_stop(engine); /* before the capture ends: it holds stdout */
    r.plugin_output_bytes = pecert_capture_end(printed, r.plugin_output, sizeof(r.plugin_output));
    cJSON *json = pecert_check_result_to_json(&r);
    char *text = json != NULL ? cJSON_PrintUnformatted(json) : NULL;
    int rc = text != NULL ? pecert_write_fully(out_fd, text, strlen(text)) : -1;
    free(text);
    cJSON_Delete(json);
    pecert_check_result_release(&r);
    return rc;
}

/* In the child: instances, the check, the result as JSON on out_fd. */
static int child_run_check(void *arg, int out_fd, pecert_case_slot *case_slot)
{
    const child_job *job = arg;
    return check_in_child(job->check, job->x, out_fd, case_slot);
}

/* The result of a check whose child gave none: TIMEOUT, or CRASH naming
 * the signal (with its strsignal name), the exit status, or why the child
 * could not start, and the case it was in. */
static void diagnose_abnormal(pecert_check_result *r, const pecert_child_outcome *o, double timeout_s)
{
    const char *during = o->last_case[0] != '\0' ? o->last_case : "start-up";
    r->verdict = o->status == PECERT_CHILD_TIMED_OUT ? PECERT_VERDICT_TIMEOUT : PECERT_VERDICT_CRASH;
    pecert_child_outcome_words(r->diagnosis, sizeof(r->diagnosis), o, timeout_s, "the check");
    r->worst_ratio = INFINITY;
    snprintf(r->worst_case, sizeof(r->worst_case), "%s", during);
    r->worst_vector = o->last_vector; /* cited only if it is a loaded vector */
}

/* A clean exit that is not the harness's one result for check_id: why. */
static const char *forgery(const pecert_child_outcome *o, const cJSON *json, const char *check_id)
{
    const cJSON *id = json != NULL ? cJSON_GetObjectItemCaseSensitive(json, "check") : NULL;
    if (o->output_forged) {
        return "the check's output does not end with the harness's nonce (written by the plugin, or the "
               "plugin exited the check early)";
    }
    if (json == NULL) {
        return "the check's output is not one JSON result (more text was written into the result pipe)";
    }
    if (!cJSON_IsString(id) || strcmp(id->valuestring, check_id) != 0) {
        return "the result names another check";
    }
    return NULL;
}

/* The result of check check_id from its child's outcome. A clean exit
 * whose text is the harness's own (the nonce ended it, isolate.h), is one
 * JSON result and names check_id is taken; any other clean exit is a
 * CRASH "forged result" saying which test failed; a crash, hang or missing
 * result goes through diagnose_abnormal. */
static void accept_child_result(pecert_check_result *r, const pecert_child_outcome *o, const char *check_id,
                                double timeout_s)
{
    char err[256];
    int clean = o->status == PECERT_CHILD_EXITED && o->exit_code == 0 && !o->output_truncated;
    const char *end = NULL;
    cJSON *json = clean && o->output != NULL && !o->output_forged
                      ? cJSON_ParseWithOpts(o->output, &end, 1) /* one value, nothing after it */
                      : NULL;
    const char *forged = clean ? forgery(o, json, check_id) : NULL;
    if (clean && forged == NULL && pecert_check_result_from_json(r, json, err, sizeof(err)) == 0) {
        r->elapsed_s = o->elapsed_s;
    } else {
        pecert_check_result_init(r, check_id);
        diagnose_abnormal(r, o, timeout_s);
        if (forged != NULL) {
            snprintf(r->diagnosis, sizeof(r->diagnosis), "forged result: %s", forged);
        }
        r->elapsed_s = o->elapsed_s;
    }
    cJSON_Delete(json);
}

void pecert_exec_check(pecert_check_result *r, const pecert_check *check, const pecert_exec_subjects *x)
{
    if (!pecert_plugin_meets(x->plugin, check->needs)) {
        pecert_check_result_init(r, check->id);
        r->verdict = PECERT_VERDICT_UNSUPPORTED;
        pecert_check_symptom(r, "%s", PECERT_SYMPTOM_NO_OPERATION);
        snprintf(r->diagnosis, sizeof(r->diagnosis), "%s", PECERT_DIAGNOSIS_NOT_IMPLEMENTED);
        return;
    }
    child_job job = {x, check};
    pecert_child_outcome o;
    pecert_engine *engine = pecert_engine_of(x->plugin);
    pecert_engine_lend_arena(engine);
    pecert_run_isolated(&o, child_run_check, &job, x->timeout_s);
    pecert_engine_arena_back(engine, o.status == PECERT_CHILD_EXITED);
    accept_child_result(r, &o, check->id, x->timeout_s);
    pecert_child_outcome_free(&o);
}

/* Whether a check the run's --filter selects reads op's tensors
 * (pecert_check_reads); ctx is the filter (NULL: every check). */
static int filter_reads(const char *op, void *ctx)
{
    const char *filter = ctx;
    for (size_t i = 0; i < pecert_num_checks; i++) {
        if (pecert_filter_selects(filter, pecert_checks[i]->id) && pecert_check_reads(pecert_checks[i], op)) {
            return 1;
        }
    }
    return 0;
}

/* Every manifest of dir; the payloads of the ops the selected checks read
 * (a filtered run does not inflate the checkpoints' hundreds of megabytes
 * of learned tables), every payload when a --case names the vector. */
static int load_vectors(run_state *s, const char *dir, const char *filter, int every_payload, char *err,
                        size_t err_len)
{
    char **paths = NULL;
    int n = pecert_vectors_list(&paths, dir, err, err_len);
    if (n < 0) {
        return -1;
    }
    if (n == 0) {
        snprintf(err, err_len, "%s: no vector files (*.json) found", dir);
        pecert_vectors_list_free(paths, n);
        return -1;
    }
    s->files = calloc((size_t)n, sizeof(*s->files));
    int rc = s->files != NULL ? 0 : -1;
    for (int i = 0; rc == 0 && i < n; i++) {
        rc = pecert_vfile_load_for(&s->files[s->n_files], paths[i], every_payload ? NULL : filter_reads,
                                   (void *)(uintptr_t)filter, err, err_len);
        if (rc == PECERT_VFILE_NOT_MANIFEST) { /* a results file saved there, say */
            fprintf(stderr, "pecert: warning: %s, skipped\n", err);
            rc = 0;
            continue;
        }
        s->n_files += rc == 0;
    }
    pecert_vectors_list_free(paths, n);
    if (rc == 0 && s->n_files == 0) {
        snprintf(err, err_len, "%s: no vector manifests (pecert-vectors/1) among its %d *.json files", dir, n);
        rc = -1;
    }
    return rc;
}

static void free_state(run_state *s)
{
    for (size_t i = 0; i < s->n_files; i++) {
        pecert_vfile_free(&s->files[i]);
    }
    free(s->files);
    pecert_plugin_close(&s->oracle);
    pecert_plugin_close(&s->plugin);
}

/* In a child (plugin code may crash): create, describe(), destroy. */
static int child_describe(void *arg, int out_fd, pecert_case_slot *case_slot)
{
    const pecert_plugin *desc = arg;
    pecert_subject s;
    pecert_case_slot_set(case_slot, "describe()");
    if (make_subject(&s, desc) != PECERT_OK) {
        return 1;
    }
    const char *text = desc->describe(s.instance);
    int rc = pecert_write_fully(out_fd, text != NULL ? text : "", text != NULL ? strlen(text) : 0);
    drop_subject(&s);
    pecert_engine_stop(pecert_engine_of(desc)); /* reaped here, not left to init */
    return rc;
}

/* describe() is one line of text: a plugin that takes longer has hung,
 * and the checks will time out on it anyway. */
#define DESCRIBE_TIMEOUT_S 10.0

/* The plugin's describe() line (ABI 1.1), or "" if it has none. */
static void capture_describe(pecert_run_info *info, const pecert_plugin *desc, double timeout_s)
{
    if (!PECERT_HAS_FIELD(desc, pecert_plugin, describe) || desc->describe == NULL) {
        return;
    }
    pecert_child_outcome o;
    double limit = timeout_s > 0 && timeout_s < DESCRIBE_TIMEOUT_S ? timeout_s : DESCRIBE_TIMEOUT_S;
    pecert_run_isolated(&o, child_describe, (void *)(uintptr_t)desc, limit);
    if (o.status == PECERT_CHILD_EXITED && o.exit_code == 0 && !o.output_forged && o.output != NULL) {
        snprintf(info->plugin_describe, sizeof(info->plugin_describe), "%s", o.output);
    } else {
        snprintf(info->plugin_describe, sizeof(info->plugin_describe), "(describe() failed)");
    }
    pecert_child_outcome_free(&o);
}

/* The plugin's declared scope in words, or "none declared": the judge's
 * copy of it (the engine host's hello), or pecert's own plugin's. */
static void capture_scope(pecert_run_info *info, const pecert_plugin *desc)
{
    pecert_scope_describe(info->plugin_scope, sizeof(info->plugin_scope), pecert_plugin_scope(desc));
}

void pecert_capture_plugin(pecert_run_info *info, const pecert_loaded_plugin *p, double timeout_s)
{
    pecert_capture_host(info);
    capture_describe(info, p->desc, timeout_s);
    capture_scope(info, p->desc);
    snprintf(info->plugin_path, sizeof(info->plugin_path), "%s", p->path);
    info->unsandboxed = p->engine != NULL && !pecert_engine_sandboxed(p->engine);
    snprintf(info->plugin_id, sizeof(info->plugin_id), "%s", p->desc->id);
    snprintf(info->plugin_name, sizeof(info->plugin_name), "%s", p->desc->name);
    snprintf(info->plugin_version, sizeof(info->plugin_version), "%s", p->desc->version);
    snprintf(info->pecert_version, sizeof(info->pecert_version), "%s", PECERT_VERSION);
}

static void fill_info(pecert_run_info *info, const run_state *s, const pecert_run_options *opt)
{
    memset(info, 0, sizeof(*info));
    pecert_capture_plugin(info, &s->plugin, opt->timeout_s);
    snprintf(info->filter, sizeof(info->filter), "%s", opt->filter != NULL ? opt->filter : "");
    snprintf(info->vectors_dir, sizeof(info->vectors_dir), "%s", opt->vectors_dir);
    info->n_vector_files = (int)s->n_files;
    for (size_t i = 0; i < s->n_files; i++) {
        info->n_vectors += (int)s->files[i].n_tests;
    }
    info->timeout_s = opt->timeout_s;
}

static size_t count_selected(const char *filter)
{
    size_t n = 0;
    for (size_t i = 0; i < pecert_num_checks; i++) {
        n += pecert_filter_selects(filter, pecert_checks[i]->id);
    }
    return n;
}

/* " (did you mean 'ID'?)" when filter is one id, no glob, near a check's. */
static void nearest_check(char *out, size_t len, const char *filter)
{
    const char *ids[512];
    size_t n = 0;
    out[0] = '\0';
    if (strpbrk(filter, "*?[,!") != NULL) {
        return;
    }
    for (size_t i = 0; i < pecert_num_checks && n < 512; i++) {
        ids[n++] = pecert_checks[i]->id;
    }
    pecert_did_you_mean(out, len, filter, ids, n);
}

/* The checks of shard `index` of `count` (pecert_shard_of: the k-th
 * selected check, k from 0 in registry order, and every count-th after
 * it). Fills k of each. */
static size_t shard_checks(const pecert_check **out, int32_t *out_k, const char *filter,
                           int index, int count)
{
    size_t n = 0;
    int32_t k = 0;
    for (size_t i = 0; i < pecert_num_checks; i++) {
        if (!pecert_filter_selects(filter, pecert_checks[i]->id)) {
            continue;
        }
        if (pecert_shard_of(k, count) == index) {
            out[n] = pecert_checks[i];
            out_k[n++] = k;
        }
        k++;
    }
    return n;
}

/* One plan being run: what its items need to be kept in order. */
typedef struct plan_run {
    pecert_run_results *out;
    const pecert_plan_item *items;
    size_t n;
    const pecert_exec_subjects *x;
    const pecert_plan_hooks *h;
    int status;
    int failed;          /* a check failed, crashed or timed out  */
    int out_of_memory;
} plan_run;

static pecert_exec_subjects item_subjects(const plan_run *p, size_t i)
{
    pecert_exec_subjects each = *p->x;
    each.files = p->items[i].files;
    each.n_files = p->items[i].n_files;
    return each;
}

/* Item i's result r, in plan order: cited, judged, appended, reported. */
static void keep_result(plan_run *p, size_t i, pecert_check_result *r)
{
    const pecert_plan_hooks *h = p->h;
    r->index = p->items[i].index;
    pecert_cite_vectors(r, h->cite_files, h->n_cite_files, h->cite_dir != NULL ? h->cite_dir : "");
    int judged_failing = h->judge != NULL && h->judge(r, &p->items[i], h->user);
    if (r->verdict >= PECERT_VERDICT_FAIL || judged_failing) {
        p->status = PECERT_EXIT_FAIL;
        p->failed = 1;
    }
    if (pecert_run_results_append(p->out, r) != 0) {
        pecert_check_result_release(r);
        p->status = PECERT_EXIT_FAIL;
        p->out_of_memory = 1;
        return;
    }
    if (h->on_check != NULL) {
        h->on_check(&p->out->checks[p->out->n_checks - 1], p->out->n_checks, p->n, h->user);
    }
}

static void announce(const plan_run *p, size_t i)
{
    if (p->h->on_start != NULL && i < p->n) {
        p->h->on_start(p->items[i].check->id, i, p->n, p->h->user);
    }
}

static int stop_now(const plan_run *p)
{
    return p->out_of_memory || (p->h->fail_fast && p->failed);
}

/* The pool's stop: after a delivery, as stop_now; when a check's worker
 * ends, whether its own result failed (so that under --fail-fast no check
 * starts after it, even before the checks ahead of it are delivered). */
static int pool_stop(const char *text, size_t len, void *user)
{
    const plan_run *p = user;
    if (text == NULL || !p->h->fail_fast) {
        return stop_now(p);
    }
    cJSON *json = cJSON_ParseWithLength(text, len);
    const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(json, "verdict");
    int v = cJSON_IsString(verdict) ? pecert_verdict_from_name(verdict->valuestring) : -1;
    int failed = v < 0 || v >= PECERT_VERDICT_FAIL; /* no verdict: delivered as a CRASH */
    cJSON_Delete(json);
    return failed || stop_now(p);
}

/* In a worker of the pool: item index executed, its result as JSON. */
static char *exec_in_worker(size_t index, void *user)
{
    const plan_run *p = user;
    pecert_exec_subjects each = item_subjects(p, index);
    pecert_check_result r;
    pecert_exec_check(&r, p->items[index].check, &each);
    cJSON *json = pecert_check_result_to_json(&r);
    char *text = json != NULL ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    pecert_check_result_release(&r);
    return text;
}

/* In the parent, in plan order: a worker's result, or a CRASH saying why
 * there is none. */
static void deliver_result(size_t index, const char *text, size_t len, const char *why, const char *printed,
                           void *user)
{
    plan_run *p = user;
    const char *id = p->items[index].check->id;
    char err[256] = "";
    cJSON *json = text != NULL ? cJSON_ParseWithLength(text, len) : NULL;
    pecert_check_result r;
    if (json == NULL || pecert_check_result_from_json(&r, json, err, sizeof(err)) != 0) {
        pecert_check_result_init(&r, id);
        r.verdict = PECERT_VERDICT_CRASH;
        r.worst_ratio = INFINITY;
        snprintf(r.diagnosis, sizeof(r.diagnosis), "the check's worker gave no result: %s",
                 text == NULL ? why : err[0] != '\0' ? err : "not JSON");
    }
    cJSON_Delete(json);
    if (printed[0] != '\0') {
        fputs(printed, stderr); /* the harness's own warnings; the plugin's are captured in the check */
    }
    keep_result(p, index, &r);
    if (!stop_now(p)) {
        announce(p, index + 1);
    }
}

static int run_plan_serially(plan_run *p)
{
    for (size_t i = 0; i < p->n && !stop_now(p); i++) {
        announce(p, i);
        pecert_exec_subjects each = item_subjects(p, i);
        pecert_check_result r;
        pecert_exec_check(&r, p->items[i].check, &each);
        keep_result(p, i, &r);
    }
    return p->status;
}

int pecert_run_plan(pecert_run_results *out, const pecert_plan_item *items, size_t n, const pecert_exec_subjects *x,
                    const pecert_plan_hooks *h)
{
    plan_run p = {out, items, n, x, h, PECERT_EXIT_PASS, 0, 0};
    if (h->jobs <= 1 || n <= 1) {
        return run_plan_serially(&p);
    }
    char err[512] = "";
    pecert_pool pool = {n, h->jobs, exec_in_worker, deliver_result, NULL, &p, pool_stop};
    announce(&p, 0);
    if (pecert_pool_run(&pool, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s; running the checks one at a time\n", err);
        return run_plan_serially(&p);
    }
    return p.status;
}

/* 1 if path is name, or ends with "/" name. */
static int names_file(const char *path, const char *name, size_t name_len)
{
    size_t len = strlen(path);
    return len >= name_len && strncmp(path + len - name_len, name, name_len) == 0 &&
           (len == name_len || path[len - name_len - 1] == '/');
}

/* --case FILE:tcId: the run sees that one vector. 0, or -1 with err. */
static int select_case(run_state *s, const char *spec, char *err, size_t err_len)
{
    const char *colon = strrchr(spec, ':');
    char *end = NULL;
    long long tc = colon != NULL ? strtoll(colon + 1, &end, 10) : 0;
    if (colon == NULL || colon == spec || end == colon + 1 || *end != '\0') {
        snprintf(err, err_len, "--case '%s': expected FILE:tcId (a failure line names both)", spec);
        return -1;
    }
    size_t name_len = (size_t)(colon - spec);
    const pecert_vfile *file = NULL;
    int matches = 0;
    for (size_t i = 0; i < s->n_files; i++) {
        if (names_file(s->files[i].path, spec, name_len)) {
            file = matches++ == 0 ? &s->files[i] : file;
        }
    }
    if (matches != 1) {
        snprintf(err, err_len, "--case '%s': %s vector file is named '%.*s'%s", spec,
                 matches == 0 ? "no" : "more than one", (int)name_len, spec,
                 matches == 0 ? " (`pecert list` shows them)" : " (give more of its path)");
        return -1;
    }
    for (size_t k = 0; k < file->n_tests; k++) {
        if (file->tests[k].tc_id == tc) {
            s->case_view = *file;
            s->case_view.tests = &file->tests[k];
            s->case_view.n_tests = 1;
            s->case_view.internal = NULL; /* a view: the file owns everything */
            s->run_files = &s->case_view;
            s->n_run_files = 1;
            return 0;
        }
    }
    snprintf(err, err_len, "--case '%s': %s has no tcId %lld (it has %zu tests, tcId %lld..%lld)", spec, file->path,
             tc, file->n_tests, file->n_tests > 0 ? (long long)file->tests[0].tc_id : 0LL,
             file->n_tests > 0 ? (long long)file->tests[file->n_tests - 1].tc_id : 0LL);
    return -1;
}

/* The registry's plan: --filter, then this shard's share. */
static int run_checks(pecert_run_results *out, const run_state *s, const pecert_run_options *opt,
                      const pecert_run_extras *ex)
{
    const pecert_check **todo = calloc(pecert_num_checks + 1, sizeof(*todo));
    int32_t *index = calloc(pecert_num_checks + 1, sizeof(*index));
    pecert_plan_item *items = calloc(pecert_num_checks + 1, sizeof(*items));
    int status = todo != NULL && index != NULL && items != NULL ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
    size_t total = status == PECERT_EXIT_PASS
                       ? shard_checks(todo, index, opt->filter, out->info.shard_index, out->info.shard_count)
                       : 0;
    for (size_t i = 0; i < total; i++) {
        items[i] = (pecert_plan_item){todo[i], s->run_files, s->n_run_files, index[i], 0};
    }
    pecert_exec_subjects x = {s->plugin.desc, s->oracle.desc, NULL, 0, s->keep_cases, opt->timeout_s, NULL};
    pecert_plan_hooks hooks = {.cite_files = s->files, .n_cite_files = s->n_files, .cite_dir = opt->vectors_dir,
                               .on_start = ex->on_start, .on_check = opt->on_check, .user = opt->user,
                               .jobs = ex->jobs, .fail_fast = ex->fail_fast};
    if (status == PECERT_EXIT_PASS) {
        status = pecert_run_plan(out, items, total, &x, &hooks);
    }
    free(items);
    free(todo);
    free(index);
    return status;
}

int pecert_run(pecert_run_results *out, const pecert_run_options *opt, char *err,
               size_t err_len)
{
    return pecert_run_ex(out, opt, NULL, err, err_len);
}

int pecert_run_ex(pecert_run_results *out, const pecert_run_options *opt,
                  const pecert_run_extras *extras, char *err, size_t err_len)
{
    static const pecert_run_extras no_extras = {1, 1, NULL, 0, 1, 0, NULL, PECERT_SANDBOX_ON};
    const pecert_run_extras *ex = extras != NULL ? extras : &no_extras;
    int shard_count = ex->shard_count > 0 ? ex->shard_count : 1;
    int shard_index = ex->shard_count > 0 ? ex->shard_index : 1;
    run_state s;
    memset(&s, 0, sizeof(s));
    memset(out, 0, sizeof(*out));
    s.keep_cases = ex->keep_cases;
    int status = PECERT_EXIT_LOAD;
    if (opt->filter != NULL && count_selected(opt->filter) == 0) {
        char hint[160];
        nearest_check(hint, sizeof(hint), opt->filter);
        snprintf(err, err_len, "--filter '%s' matches no check%s (see `pecert list`)", opt->filter, hint);
        return PECERT_EXIT_USAGE;
    }
    if (shard_index < 1 || shard_index > shard_count) {
        snprintf(err, err_len, "--shard %d/%d: I must be in 1..N", shard_index, shard_count);
        return PECERT_EXIT_USAGE;
    }
    if (pecert_plugin_open_hosted(&s.plugin, opt->plugin_path, ex->sandbox, err, err_len) != 0 ||
        pecert_plugin_open(&s.oracle, opt->oracle_path, err, err_len) != 0) {
        goto out_free;
    }
    if (load_vectors(&s, opt->vectors_dir, opt->filter, ex->case_spec != NULL, err, err_len) != 0) {
        status = PECERT_EXIT_USAGE;
        goto out_free;
    }
    s.run_files = s.files;
    s.n_run_files = s.n_files;
    if (ex->case_spec != NULL && select_case(&s, ex->case_spec, err, err_len) != 0) {
        status = PECERT_EXIT_USAGE;
        goto out_free;
    }
    fill_info(&out->info, &s, opt);
    out->info.shard_index = shard_index;
    out->info.shard_count = shard_count;
    out->info.n_selected = (int)count_selected(opt->filter);
    if (pecert_capture_vector_set(out, s.files, s.n_files, opt->vectors_dir) != 0) {
        snprintf(err, err_len, "out of memory");
        status = PECERT_EXIT_USAGE;
        goto out_free;
    }
    status = run_checks(out, &s, opt, ex);
    if (shard_count == 1) {
        /* A shard sees some of the checks: it carries their evidence, and
         * the diagnosis is made once, over the merged run (report_model.c). */
        pecert_diagnose(out);
    }
    if (status == PECERT_EXIT_PASS && pecert_run_certified_nothing(out)) {
        status = PECERT_EXIT_FAIL; /* zero evidence is not a pass */
    }
out_free:
    free_state(&s);
    return status;
}
