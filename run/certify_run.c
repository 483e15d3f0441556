/*
 * certify_run.c - certify's plan (certify_plan.c) executed for one
 * checkpoint.
 *
 * Three sets of vector files feed the checks (all built before any child
 * is forked, so every child sees them):
 *   - the checkpoint file: one rope.freq test holding the derived config
 *     and no tensors. The registry's property checks sweep the rope
 *     configs of the files they get (pecert_rope_configs), so given only
 *     this file they run at exactly the checkpoint's parameters.
 *   - the profile vectors as recorded from the official model class, for
 *     certify.mapping (the official config against pecert's mapping).
 *   - the same vectors with pecert's derived config and pairing put in
 *     place of the recorded ones, for the golden checks: the plugin at
 *     pecert's parameters must reproduce the official outputs, so a wrong
 *     mapping fails numerically too.
 */
#include "certify_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certify_plan.h"
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
    pecert_vfile recorded;      /* its tests of this layer type (a view) */
    pecert_vtest *layer_tests;  /* owned: recorded.tests of a layer type */
    /* The layer type certified (its name suffixes every check id), NULL
     * when every layer rotates alike. */
    const char *layer;
    size_t done_before;         /* checks run for earlier layer types    */
    size_t total_all;           /* planned over every layer type         */
    pecert_vfile substituted;   /* recorded, tests at pecert's config    */
    pecert_vtest *sub_tests;    /* owned: substituted.tests              */
    pecert_vfile checkpoint;    /* one test: the derived config          */
    pecert_vtest checkpoint_test;
    int have_vectors;
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
    return e->op == NULL || (s->have_vectors && file_has_op(&s->recorded, e->op));
}

static const pecert_vfile *files_of(const certify_state *s, pecert_plan_files which)
{
    return which == PECERT_PLAN_CHECKPOINT ? &s->checkpoint
           : which == PECERT_PLAN_RECORDED ? &s->recorded
                                            : &s->substituted;
}

/* ---- the three file sets ----------------------------------------------- */

static void build_checkpoint(certify_state *s)
{
    memset(&s->checkpoint_test, 0, sizeof(s->checkpoint_test));
    s->checkpoint_test.tc_id = 1;
    s->checkpoint_test.op = "rope.freq";
    s->checkpoint_test.comment = "the checkpoint's derived parameters";
    s->checkpoint_test.source_file = "";
    s->checkpoint_test.source_function = "";
    s->checkpoint_test.rope = s->model->rope;
    s->checkpoint_test.pairing = s->model->pairing;
    memset(&s->checkpoint, 0, sizeof(s->checkpoint));
    s->checkpoint.path = s->model->name;
    s->checkpoint.family = "rope";
    s->checkpoint.description = "pecert certify: the checkpoint's parameters";
    s->checkpoint.generator = "pecert certify";
    s->checkpoint.prov_repo = "";
    s->checkpoint.prov_commit = "";
    s->checkpoint.prov_tag = "";
    s->checkpoint.tests = &s->checkpoint_test;
    s->checkpoint.n_tests = s->model->kind <= PECERT_PE_MROPE ? 1 : 0;
}

/* 1 if a and b produce tensors of the same shapes. */
static int same_shape(const pecert_rope_config *a, const pecert_rope_config *b)
{
    return a->head_dim == b->head_dim && a->rotary_dim == b->rotary_dim && a->num_factors == b->num_factors;
}

/* The recorded tests with pecert's config and pairing in their place. */
static int build_substituted(certify_state *s)
{
    size_t n = s->recorded.n_tests;
    s->sub_tests = calloc(n + 1, sizeof(*s->sub_tests));
    if (s->sub_tests == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        pecert_vtest *t = &s->sub_tests[i];
        *t = s->recorded.tests[i];
        int rope_op = strncmp(t->op, "rope.", 5) == 0 || strcmp(t->op, "mrope.apply") == 0;
        /* The golden checks size their buffers from the recorded tensors:
         * a derived config of another shape keeps the recorded one here
         * (certify.mapping fails on the differing field instead). */
        if (rope_op && same_shape(&t->rope, &s->model->rope)) {
            t->rope = s->model->rope;
            t->pairing = s->model->pairing;
        }
    }
    s->substituted = s->recorded;
    s->substituted.tests = s->sub_tests;
    return 0;
}

/* 1 if test t was recorded for layer type layer: flagged "layers_<layer>",
 * or flagged for no layer type at all and the layer rotates (a profile's
 * vectors of one rotary encoding serve every rotary layer type it has). */
static int test_of_layer(const pecert_vtest *t, const char *layer, int rotary)
{
    int flagged = 0;
    for (size_t f = 0; f < t->n_flags; f++) {
        if (strncmp(t->flags[f], "layers_", 7) == 0) {
            if (strcmp(t->flags[f] + 7, layer) == 0) {
                return 1;
            }
            flagged = 1;
        }
    }
    return !flagged && rotary;
}

/* The vision tower's tests are flagged "layers_vision" (gen_profiles.py):
 * they belong to the @vision pass alone. */
static int is_vision_test(const pecert_vtest *t)
{
    for (size_t f = 0; f < t->n_flags; f++) {
        if (strcmp(t->flags[f], "layers_vision") == 0) {
            return 1;
        }
    }
    return 0;
}

/* recorded: the loaded tests of the pass certified: a layer type's, the
 * vision tower's, or (layer NULL) every test but the tower's. */
static int select_layer_tests(certify_state *s)
{
    s->recorded = s->loaded;
    s->layer_tests = calloc(s->loaded.n_tests + 1, sizeof(*s->layer_tests));
    if (s->layer_tests == NULL) {
        return -1;
    }
    size_t n = 0;
    int rotary = s->model->kind != PECERT_PE_ROPE2D && s->model->rope.layer_kind == PECERT_LAYER_ROPE;
    for (size_t i = 0; i < s->loaded.n_tests; i++) {
        const pecert_vtest *t = &s->loaded.tests[i];
        if (s->layer == NULL ? !is_vision_test(t) : test_of_layer(t, s->layer, rotary)) {
            s->layer_tests[n++] = *t;
        }
    }
    s->recorded.tests = s->layer_tests;
    s->recorded.n_tests = n;
    return 0;
}

static int load_state(certify_state *s, const pecert_certify_options *opt, char *err, size_t err_len)
{
    if (pecert_plugin_open(&s->plugin, opt->plugin_path, err, err_len) != 0 ||
        pecert_plugin_open(&s->oracle, opt->oracle_path, err, err_len) != 0) {
        return PECERT_EXIT_LOAD;
    }
    build_checkpoint(s);
    if (opt->vectors_path == NULL) {
        return PECERT_EXIT_PASS;
    }
    if (pecert_vfile_load(&s->loaded, opt->vectors_path, err, err_len) != 0) {
        return PECERT_EXIT_USAGE;
    }
    s->have_vectors = 1;
    if (select_layer_tests(s) != 0 || build_substituted(s) != 0) {
        snprintf(err, err_len, "out of memory");
        return PECERT_EXIT_USAGE;
    }
    return PECERT_EXIT_PASS;
}

static void free_state(certify_state *s)
{
    free(s->sub_tests);
    free(s->layer_tests);
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
    info->n_vector_files = s->have_vectors;
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
            items[n] = (pecert_plan_item){e->check, files_of(s, e->files), 1, (int32_t)n, e->essential};
            n++;
        }
    }
    pecert_exec_subjects x = {s->plugin.desc, s->oracle.desc, NULL, 0, s->keep_cases, opt->timeout_s, s->model};
    pecert_plan_hooks hooks = {&s->recorded, s->have_vectors ? 1 : 0, "", judge_essential, NULL, report_progress, s};
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
            used += snprintf(err + used, err_len - (size_t)used, " %s", shown_id(id, sizeof(id), &all, pecert_certify_plan[i].check->id));
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
        if (s.have_vectors && pecert_capture_vector_set(out, &s.loaded, 1, "") != 0) {
            snprintf(err, err_len, "out of memory");
            status = PECERT_EXIT_USAGE;
        } else if (layer == NULL && planned_count(&s) == 0) {
            status = filter_selects_none(&s, opt, err, err_len);
        } else {
            status = run_plan(out, &s, opt);
            pecert_diagnose(out);
        }
    }
    free_state(&s);
    return status;
}

/* Layer type t of m as a model of its own (its rope in m->rope; LongRoPE
 * factors point into the copy). */
static void layer_model(pecert_certify_model *sub, const pecert_certify_model *m, int t)
{
    *sub = *m;
    sub->rope = m->layer_types[t].rope;
    pecert_certify_point_factors(sub);
    sub->n_layer_types = 0;
}

/* One pass of a checkpoint certified in several: a layer type, the text
 * model when it has none (name NULL: its ids unsuffixed), or the vision
 * tower ("vision"). */
typedef struct certify_pass {
    pecert_certify_model *model;
    const char *name;
    const char *findings_of;   /* "layers" or "tower": "full layers: ..." */
} certify_pass;

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

/* m's passes into p (models malloc'ed in *store): each layer type, or the
 * text model, then the vision tower. Returns the count, -1 without
 * memory. */
static int plan_passes(certify_pass *p, pecert_certify_model **store, const pecert_certify_model *m)
{
    int n_text = m->n_layer_types > 0 ? m->n_layer_types : 1;
    int n = n_text + (m->vision.tower[0] != '\0' ? 1 : 0);
    *store = malloc((size_t)n * sizeof(**store));
    if (*store == NULL) {
        return -1;
    }
    for (int t = 0; t < n_text; t++) {
        p[t].model = &(*store)[t];
        p[t].findings_of = "layers";
        if (m->n_layer_types > 0) {
            layer_model(p[t].model, m, t);
            p[t].name = m->layer_types[t].name;
        } else {
            *p[t].model = *m;
            pecert_certify_point_factors(p[t].model);
            p[t].name = NULL;
        }
    }
    if (n > n_text) {
        p[n_text].model = &(*store)[n_text];
        pecert_certify_vision_model(p[n_text].model, m);
        p[n_text].name = "vision";
        p[n_text].findings_of = "tower";
    }
    return n;
}

/* Every pass of m, one after the other, into one run. */
static int certify_passes(pecert_run_results *out, const pecert_certify_model *m,
                          const pecert_certify_options *opt, char *err, size_t err_len)
{
    certify_pass passes[PECERT_CERTIFY_MAX_LAYER_TYPES + 1];
    pecert_certify_model *store = NULL;
    size_t counts[PECERT_CERTIFY_MAX_LAYER_TYPES + 1] = {0};
    size_t total = 0;
    int n = plan_passes(passes, &store, m);
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
    if (m->n_layer_types > 0 || m->vision.tower[0] != '\0') {
        return certify_passes(out, m, opt, err, err_len);
    }
    size_t n[2] = {0, 0};
    return certify_encoding(out, m, NULL, opt, n, 0, err, err_len);
}
