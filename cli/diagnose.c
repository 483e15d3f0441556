/*
 * diagnose.c - `pecert diagnose`: what a running engine's RoPE did,
 * from a dump of q (or k) before and after it, no plugin needed.
 *
 * The dump is read against a checkpoint's config (--config or --profile,
 * mapped as certify maps it) with ref as the oracle of its frequencies;
 * dump_diagnosis.h recovers the positions, pairing, rotated channels,
 * attention factor and frequency set, and names what differs from the
 * config or from the positions given.
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_write.h"
#include "commands.h"
#include "diagnose_html.h"
#include "diagnose_json.h"
#include "dump_model.h"
#include "trace_divergence.h"
#include "cache_diagnosis.h"
#include "dump_diagnosis.h"
#include "dump_input.h"
#include "npy.h"
#include "plugin_load.h"
#include "runner.h"
#include "safetensors.h"

const char pecert_usage_diagnose[] =
    "usage: pecert diagnose --config config.json|--profile NAME --before q_pre.npy --after q_post.npy\n"
    "                       [--positions pos.npy] [--layout thd|htd] [--bf16] [--layer TYPE]\n"
    "                       [--tensor NAME] [--json FILE] [--oracle PATH]\n"
    "       pecert diagnose --config ...|--profile ... --before k_pre.npy --cache k_cache.npy --slots slots.npy\n"
    "       pecert diagnose --config ...|--profile ... --trace DIR\n"
    "\n"
    "Reads a dump of q (or k) before and after an engine's RoPE and says which positions,\n"
    "pairing, channels, attention factor and frequencies the engine actually used, against\n"
    "the checkpoint's config (mapped as `pecert certify` maps it; ref is the oracle).\n"
    "\n"
    "options:\n"
    "  --before, --after  .npy files, or FILE.safetensors:NAME (one tensor of a safetensors\n"
    "                     file; --tensor NAME when the file names none). One shape:\n"
    "                     [tokens, heads, head_dim] (--layout thd,\n"
    "                     the default), [heads, tokens, head_dim] (htd), or [tokens,\n"
    "                     heads*head_dim]; a leading batch dimension of 1 is dropped. heads is\n"
    "                     the config's query heads (a q dump) or key/value heads (a k dump)\n"
    "  --positions        .npy int64/int32 [tokens]: the positions the tokens should have had;\n"
    "                     then every token is checked and a shift is named\n"
    "  --cache, --slots   a KV cache: --cache holds the keys as cached, one row per slot\n"
    "                     ([slots, kv_heads, head_dim], or htd), --before the same keys as\n"
    "                     written, before RoPE, --slots (int64/int32 [slots]) the position each\n"
    "                     slot holds now, -1 for an empty one. Slots rotated twice, never, for a\n"
    "                     neighbour's position, stale after a context shift, or holding no\n"
    "                     rotation of their key are reported by slot range\n"
    "  --trace DIR        a decode trace: DIR/step_NNNN/{q_pre,q_post}.npy [positions.npy],\n"
    "                     read as one run in step order (without positions.npy each step\n"
    "                     continues from the last, from 0); the first step that diverges is named\n"
    "  --bf16             read uint16 ('<u2') arrays as bfloat16 bits (torch .view(torch.uint16))\n"
    "  --layer TYPE       the layer type the dump is of, for a model with several (gemma3:\n"
    "                     sliding, full); default: the first rotary one\n"
    "  --json FILE        the report as JSON (schema pecert-diagnose/1)\n"
    "  --html FILE        the report as a self-contained page, with a plot of the position each\n"
    "                     token or slot was rotated for\n"
    "  --profile NAME     a bundled profile (--profiles DIR to look elsewhere)\n"    "  --help             this text\n"
    "\n"
    "exit status: 0 the dump is the config's RoPE at the given positions, 1 findings,\n"
    "             2 bad usage or input, 3 the oracle failed to load\n";

typedef struct diagnose_cli {
    pecert_model_args model; /* --config, --profile, --profiles, --layer */
    const char *before;
    const char *after;
    const char *positions;
    const char *oracle;
    const char *json;
    const char *html;
    const char *tensor;
    const char *cache;
    const char *slots;
    const char *trace;
    int htd;
    int bf16;
} diagnose_cli;

/* Exactly one of a dump pair, a cache or a trace. */
static int check_mode(const diagnose_cli *cli)
{
    if (cli->trace != NULL) {
        if (cli->before != NULL || cli->after != NULL || cli->positions != NULL || cli->cache != NULL ||
            cli->slots != NULL || cli->tensor != NULL) {
            return pecert_usage_error(pecert_usage_diagnose, "diagnose: --trace reads its own step files: give none of "
                                      "--before, --after, --positions, --cache, --slots, --tensor");
        }
        return 0;
    }
    if (cli->cache != NULL || cli->slots != NULL) {
        if (cli->cache == NULL || cli->slots == NULL || cli->before == NULL) {
            return pecert_usage_error(pecert_usage_diagnose, "diagnose: a cache needs --cache, --slots and --before (the "
                                      "keys as written, before RoPE)");
        }
        if (cli->after != NULL || cli->positions != NULL) {
            return pecert_usage_error(pecert_usage_diagnose, "diagnose: with --cache, the cache is the after and --slots "
                                      "the positions: give neither --after nor --positions");
        }
        return 0;
    }
    if (cli->before == NULL || cli->after == NULL) {
        return pecert_usage_error(pecert_usage_diagnose, "diagnose: --before and --after are required (or --cache, or "
                                  "--trace)");
    }
    return 0;
}

static int parse_args(diagnose_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},    {"profile", required_argument, NULL, 'p'},
        {"profiles", required_argument, NULL, 'P'},  {"before", required_argument, NULL, 'b'},
        {"after", required_argument, NULL, 'a'},     {"positions", required_argument, NULL, 'x'},
        {"layout", required_argument, NULL, 'l'},    {"bf16", no_argument, NULL, 'B'},
        {"oracle", required_argument, NULL, 'o'},    {"help", no_argument, NULL, 'h'},
        {"layer", required_argument, NULL, 'L'},     {"json", required_argument, NULL, 'j'},
        {"tensor", required_argument, NULL, 't'},   {"cache", required_argument, NULL, 'C'},
        {"slots", required_argument, NULL, 'S'},     {"trace", required_argument, NULL, 'T'},
        {"html", required_argument, NULL, 'H'},
        {NULL, 0, NULL, 0}};
    int c;
    int rc;
    optind = 1;
    opterr = 0; /* one line of ours, not getopt's */
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': cli->model.config = optarg; break;
        case 'p': cli->model.profile = optarg; break;
        case 'P': cli->model.profiles = optarg; break;
        case 'b': cli->before = optarg; break;
        case 'a': cli->after = optarg; break;
        case 'x': cli->positions = optarg; break;
        case 'o': cli->oracle = optarg; break;
        case 'L': cli->model.layer = optarg; break;
        case 'j': cli->json = optarg; break;
        case 't': cli->tensor = optarg; break;
        case 'C': cli->cache = optarg; break;
        case 'S': cli->slots = optarg; break;
        case 'T': cli->trace = optarg; break;
        case 'H': cli->html = optarg; break;
        case 'B': cli->bf16 = 1; break;
        case 'l':
            if (strcmp(optarg, "thd") != 0 && strcmp(optarg, "htd") != 0) {
                return pecert_usage_error(pecert_usage_diagnose, "diagnose: --layout %s: expected thd or htd", optarg);
            }
            cli->htd = strcmp(optarg, "htd") == 0;
            break;
        case 'h': fputs(pecert_usage_diagnose, stdout); return -1;
        default: return pecert_bad_option(pecert_usage_diagnose, "diagnose", argv);
        }
    }
    if ((rc = pecert_no_operands(pecert_usage_diagnose, "diagnose", argc, argv)) != 0) {
        return rc;
    }
    if ((cli->model.config == NULL) == (cli->model.profile == NULL)) {
        return pecert_usage_error(pecert_usage_diagnose, "diagnose: give exactly one of --config and --profile");
    }
    return check_mode(cli);
}

/* ---- output -------------------------------------------------------------- */

/* Positions as runs: "0..31, 33..40". */
static void print_positions(const pecert_dump_report *r)
{
    printf("  %-26s ", "positions recovered");
    int64_t n = r->n_tokens;
    int64_t shown = 0;
    for (int64_t t = 0; t < n && shown < 12; t++) {
        const pecert_recovered_position *p = &r->tokens[t];
        if (!p->integer) {
            printf("%s?", t > 0 ? ", " : "");
            shown++;
            continue;
        }
        int64_t e = t;
        while (e + 1 < n && r->tokens[e + 1].integer && r->tokens[e + 1].nearest == r->tokens[e].nearest + 1) {
            e++;
        }
        if (e > t) {
            printf("%s%lld..%lld", t > 0 ? ", " : "", (long long)p->nearest, (long long)r->tokens[e].nearest);
        } else {
            printf("%s%lld", t > 0 ? ", " : "", (long long)p->nearest);
        }
        shown++;
        t = e;
    }
    printf("%s\n", shown >= 12 ? ", ..." : "");
}

static void print_report(const pecert_dump_report *r, const pecert_certify_model *m, const pecert_dump_shape *s,
                         pecert_npy_dtype dtype, int show_positions)
{
    printf("  %-26s %lld tokens x %d heads x %d channels (%s)\n", "dump", (long long)s->tokens, (int)s->heads,
           (int)s->dim, pecert_npy_dtype_name(dtype));
    if (m->rope.layer_kind == PECERT_LAYER_NOPE) {
        printf("  %-26s %s\n", "layer", "NoPE: every channel must come out as it went in");
        if (r->rotated_hi > 0) {
            printf("  %-26s %d..%d\n", "changed channels", (int)r->rotated_lo, (int)r->rotated_hi - 1);
        }
        return;
    }
    if (r->rotated_hi > 0) {
        printf("  %-26s %d..%d (the config: 0..%d)\n", "rotated channels", (int)r->rotated_lo, (int)r->rotated_hi - 1,
               (int)m->rope.rotary_dim - 1);
    } else {
        printf("  %-26s none\n", "rotated channels");
    }
    printf("  %-26s %s (norm-ratio spread: split-half %.3g, interleaved %.3g)\n", "pairing",
           !r->pairing_found ? "neither" : r->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split-half",
           r->spread[0], r->spread[1]);
    printf("  %-26s %.9g (the config: %.9g)\n", "attention factor", r->attention_factor, r->expected_factor);
    for (int32_t i = 0; i < r->n_hypotheses; i++) {
        const pecert_dump_hypothesis *h = &r->hypotheses[i];
        if (h->explained < 0) {
            continue;
        }
        char label[128];
        snprintf(label, sizeof(label), "%s%s", h->label, i == 0 ? " (the config)" : "");
        printf("  %-26s %-52s %lld of %lld tokens at integer positions%s\n", i == 0 ? "frequency sets tried" : "",
               label, (long long)h->explained, (long long)r->n_tokens, i == r->best ? "  <- best" : "");
    }
    if (show_positions) {
        print_positions(r);
    }
}

/* Writes text (malloc'ed; NULL: out of memory) to path atomically, for
 * option --json or --html, and frees it. */
static int write_text(const char *option, const char *path, char *text)
{
    char err[1024] = "";
    int rc = text != NULL ? pecert_write_files_atomic(&path, (const char *const *)&text, 1, err, sizeof(err)) : -1;
    if (rc != 0) {
        fprintf(stderr, "pecert: diagnose: %s %s: %s\n", option, path, text == NULL ? "out of memory" : err);
    }
    free(text);
    return rc;
}

static void print_findings(const pecert_diagnose_finding *f, size_t n, size_t n_shown)
{
    for (size_t i = 0; i < n && i < n_shown; i++) {
        char line[600];
        snprintf(line, sizeof(line), "%s: %s", f[i].id, f[i].text);
        printf("%s", i == 0 ? "findings:\n" : "");
        pecert_print_wrapped(2, 4, line);
    }
}

/* The --html and --json documents of one diagnosis; status unless one
 * cannot be written. */
static int write_outputs(const diagnose_cli *cli, const pecert_diagnose_page *page, const pecert_diagnose_doc *doc,
                         int status)
{
    if (cli->html != NULL && write_text("--html", cli->html, pecert_diagnose_html(page)) != 0) {
        status = PECERT_EXIT_USAGE;
    }
    if (cli->json != NULL && write_text("--json", cli->json, pecert_diagnose_json(doc)) != 0) {
        status = PECERT_EXIT_USAGE;
    }
    return status;
}

/* ---- a dump pair, or a trace read as one ---------------------------------- */

static int diagnose_dump(const diagnose_cli *cli, const pecert_certify_model *m, const pecert_loaded_plugin *oracle)
{
    char err[1024] = "";
    pecert_dump_input d;
    pecert_dump_source src = {cli->tensor, cli->bf16, cli->htd};
    pecert_dump_report r;
    memset(&r, 0, sizeof(r));
    int64_t *recovered = NULL;
    int status = PECERT_EXIT_USAGE;
    int rc = cli->trace != NULL ? pecert_dump_load_trace(&d, cli->trace, &src, m, err, sizeof(err))
                                : pecert_dump_load_pair(&d, cli->before, cli->after, &src, m, err, sizeof(err));
    if (rc == 0 && cli->positions != NULL &&
        (d.positions = pecert_dump_read_positions(cli->positions, d.shape.tokens, 0, err, sizeof(err))) == NULL) {
        rc = -1;
    }
    pecert_dump_view v = {d.shape.tokens, d.shape.heads, d.shape.dim, d.x, d.y, d.eps};
    if (rc != 0 || pecert_dump_diagnose(&r, m, oracle, &v, d.positions, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        goto out;
    }
    if ((recovered = malloc(((size_t)r.n_tokens + 1) * sizeof(int64_t))) == NULL) {
        fprintf(stderr, "pecert: diagnose: out of memory\n");
        goto out;
    }
    pecert_trace_divergence div = {.step = -1};
    if (cli->trace != NULL) {
        pecert_trace_first_divergence(&div, &r, &d);
        printf("pecert %s: diagnose trace %s (%d steps) against %s\n", PECERT_VERSION, cli->trace, (int)d.n_steps,
               m->name);
    } else {
        printf("pecert %s: diagnose %s -> %s against %s\n", PECERT_VERSION, cli->before, cli->after, m->name);
    }
    print_report(&r, m, &d.shape, d.dtype, 1);
    pecert_diagnose_finding f[PECERT_DUMP_MAX_FINDINGS + 1];
    size_t n = 0;
    for (int32_t i = 0; i < r.n_findings; i++) {
        f[n++] = (pecert_diagnose_finding){r.findings[i].id, r.findings[i].text, 0, 0, 0};
    }
    if (div.step >= 0) {
        f[n++] = (pecert_diagnose_finding){"trace", div.text, 0, 0, 0};
    }
    print_findings(f, n, n);
    const char *verdict = n == 0 ? (d.positions != NULL ? "the config's RoPE at the given positions"
                                                        : "the config's RoPE (positions as recovered)")
                                 : "the dump differs from the config (findings above)";
    printf("verdict: %s\n", verdict);
    for (int64_t t = 0; t < r.n_tokens; t++) {
        recovered[t] = r.tokens[t].integer ? r.tokens[t].nearest : -1;
    }
    char title[2048];
    snprintf(title, sizeof(title), "%s%s%s against %s", cli->trace != NULL ? cli->trace : cli->before,
             cli->trace != NULL ? " (a decode trace)" : " -> ", cli->trace != NULL ? "" : cli->after, m->name);
    pecert_diagnose_page page = {title, verdict, n == 0, &r, f, n, "token", r.n_tokens, recovered, d.positions,
                                 d.step_first, d.n_steps};
    const char *read = cli->trace != NULL ? cli->trace : cli->before;
    pecert_diagnose_doc doc = {m, read, cli->trace != NULL ? cli->trace : cli->after, &d.shape, d.dtype, &r, f, n,
                               d.positions, NULL, NULL, d.n_steps, div.step >= 0 ? d.step_number[div.step] : -1,
                               div.step >= 0 ? div.token : -1};
    status = write_outputs(cli, &page, &doc, n == 0 ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL);
out:
    free(recovered);
    pecert_dump_report_free(&r);
    pecert_dump_input_free(&d);
    return status;
}

/* ---- a KV cache ----------------------------------------------------------- */

static void print_slot_counts(const pecert_cache_report *c)
{
    int64_t n[PECERT_SLOT_UNEXPLAINED + 1] = {0};
    for (int64_t s = 0; s < c->n_slots; s++) {
        n[c->state[s]]++;
    }
    printf("  %-26s", "slots");
    const char *sep = " ";
    for (int st = PECERT_SLOT_OK; st <= PECERT_SLOT_UNEXPLAINED; st++) {
        if (n[st] > 0 || st == PECERT_SLOT_OK) {
            printf("%s%lld %s", sep, (long long)n[st], pecert_slot_state_tag((pecert_slot_state)st));
            sep = ", ";
        }
    }
    printf("\n");
}

#define MAX_RUNS_PRINTED 24

static int diagnose_cache(const diagnose_cli *cli, const pecert_certify_model *m, const pecert_loaded_plugin *oracle)
{
    char err[1024] = "";
    pecert_dump_input d;
    pecert_dump_source src = {cli->tensor, cli->bf16, cli->htd};
    pecert_cache_report c;
    memset(&c, 0, sizeof(c));
    int64_t *slots = NULL;
    pecert_diagnose_finding *f = NULL;
    char(*texts)[600] = NULL;
    int status = PECERT_EXIT_USAGE;
    int rc = pecert_dump_load_pair(&d, cli->before, cli->cache, &src, m, err, sizeof(err));
    if (rc == 0 && (slots = pecert_dump_read_positions(cli->slots, d.shape.tokens, -1, err, sizeof(err))) == NULL) {
        rc = -1;
    }
    pecert_dump_view v = {d.shape.tokens, d.shape.heads, d.shape.dim, d.x, d.y, d.eps};
    if (rc != 0 || pecert_cache_diagnose(&c, m, oracle, &v, slots, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        goto out;
    }
    f = malloc(((size_t)c.rope.n_findings + (size_t)c.n_runs + 1) * sizeof(*f));
    texts = malloc(((size_t)c.n_runs + 1) * sizeof(*texts));
    if (f == NULL || texts == NULL) {
        fprintf(stderr, "pecert: diagnose: out of memory\n");
        goto out;
    }
    size_t n = 0;
    for (int32_t i = 0; i < c.rope.n_findings; i++) {
        if (pecert_cache_finding_is_global(&c.rope, &c.rope.findings[i])) {
            f[n++] = (pecert_diagnose_finding){c.rope.findings[i].id, c.rope.findings[i].text, 0, 0, 0};
        }
    }
    size_t n_global = n;
    for (int32_t i = 0; i < c.n_runs; i++) {
        pecert_slot_run_text(&c, &c.runs[i], slots, texts[i], sizeof(texts[i]));
        f[n++] = (pecert_diagnose_finding){pecert_slot_state_tag(c.runs[i].state), texts[i], 1, c.runs[i].first,
                                           c.runs[i].last};
    }
    printf("pecert %s: diagnose cache %s (keys as written: %s) against %s\n", PECERT_VERSION, cli->cache, cli->before,
           m->name);
    printf("  %-26s %lld slots (%lld occupied)\n", "cache", (long long)c.n_slots, (long long)c.occupied);
    print_report(&c.rope, m, &d.shape, d.dtype, 0);
    print_slot_counts(&c);
    print_findings(f, n, n_global + MAX_RUNS_PRINTED);
    if (c.n_runs > MAX_RUNS_PRINTED) {
        printf("  ... and %d more runs of slots (--json FILE lists them all)\n", (int)(c.n_runs - MAX_RUNS_PRINTED));
    }
    const char *verdict = n == 0 ? "every occupied slot holds its key rotated for its own position"
                                 : "the cache differs from the config's RoPE at its slots' positions "
                                   "(findings above)";
    printf("verdict: %s\n", verdict);
    char title[2048];
    snprintf(title, sizeof(title), "cache %s (keys as written: %s, slots: %s) against %s", cli->cache, cli->before,
             cli->slots, m->name);
    pecert_diagnose_page page = {title, verdict, n == 0, &c.rope, f, n, "slot", c.n_slots, c.recovered, slots,
                                 NULL, 0};
    pecert_diagnose_doc doc = {m, cli->before, cli->cache, &d.shape, d.dtype, &c.rope, f, n, NULL, &c, slots, 0, -1,
                               -1};
    status = write_outputs(cli, &page, &doc, n == 0 ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL);
out:
    free(f);
    free(texts);
    pecert_cache_report_free(&c);
    pecert_dump_input_free(&d);
    free(slots);
    return status;
}

static int diagnose(const diagnose_cli *cli, const pecert_certify_model *m, const pecert_loaded_plugin *oracle)
{
    return cli->cache != NULL ? diagnose_cache(cli, m, oracle) : diagnose_dump(cli, m, oracle);
}

int pecert_cmd_diagnose(int argc, char **argv)
{
    diagnose_cli cli = {.model.profiles = pecert_default_profiles()};
    int rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    const char *const names[] = {"--json", "--html"};
    const char *const paths[] = {cli.json, cli.html};
    if (pecert_check_outputs("diagnose", names, paths, 2) != 0) {
        return PECERT_EXIT_USAGE;
    }
    pecert_certify_model *m;
    pecert_loaded_plugin oracle;
    rc = pecert_open_model_and_plugin("diagnose: oracle", &cli.model, cli.oracle != NULL ? cli.oracle : "ref", NULL, &m,
                                      &oracle);
    if (rc != PECERT_EXIT_PASS) {
        return rc;
    }
    rc = diagnose(&cli, m, &oracle);
    pecert_plugin_close(&oracle);
    free(m);
    return rc;
}
