/*
 * dump.c - `pecert dump`: a reference dump for `pecert diagnose`.
 *
 * q values (deterministic, in [-1, 1): pecert_rng) of a checkpoint's key/value heads
 * are rotated by a plugin's rope_apply at the positions asked for and
 * written as the three .npy files an engine's debug hook would write:
 * q_pre.npy and q_post.npy [tokens, heads, head_dim] float32 and
 * positions.npy [tokens] int64. With --impl ref that is what the
 * checkpoint's engine must produce for the same q; with a plugin, what
 * the plugin does (the worked example of docs/diagnose.md).
 * The plugin runs as run and certify run it: in a child process of its own
 * with a time limit (isolate.h), so a crash, a hang or an exit() in its
 * rope_apply is one line naming it, never pecert's own death; and its
 * create may be NULL, as plugin.h allows.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "certify_config.h"
#include "dump_model.h"
#include "isolate.h"
#include "checks.h"
#include "commands.h"
#include "npy.h"
#include "plugin_load.h"
#include "runner.h"

const char pecert_usage_dump[] =
    "usage: pecert dump --impl NAME|PATH --config config.json|--profile NAME --out DIR\n"
    "                   [--tokens N] [--first P] [--layer TYPE]\n"
    "\n"
    "Writes DIR/q_pre.npy, DIR/q_post.npy ([tokens, kv heads, head_dim], float32) and\n"
    "DIR/positions.npy (int64): deterministic q rotated by the plugin's rope_apply at\n"
    "positions P..P+N-1 (default 0..39), for `pecert diagnose`.\n"
    "\n"
    "options:\n"
    "  --impl NAME|PATH   the plugin whose rope_apply rotates q (built-in name, .so,\n"
    "                     or python:FILE.py)\n"
    "  --config PATH      the checkpoint's config.json, or\n"
    "  --profile NAME     a bundled profile (see `pecert certify --list-profiles`)\n"
    "  --profiles DIR     where profiles live (default: the source tree's)\n"
    "  --layer TYPE       the layer type whose RoPE to use, for checkpoints whose\n"
    "                     layers differ (default: the first rotary one, said on stderr)\n"
    "  --out DIR          an existing directory for the three .npy files\n"
    "  --tokens N         tokens to rotate, 1..65536 (default 40)\n"
    "  --first P          the first position, 0..2^40 (default 0)\n"
    PECERT_SANDBOX_USAGE
    "  --help             this text\n"
    "\n"
    "exit status: 0 written, 1 the plugin's rope_apply failed or declined, 2 bad\n"
    "             usage, config or output directory, 3 the plugin failed to load\n";

#define MAX_DUMP_TOKENS 65536

typedef struct dump_cli {
    const char *impl;
    pecert_model_args model; /* --config, --profile, --profiles, --layer */
    const char *out;
    int64_t tokens;
    int64_t first;
    pecert_sandbox_mode sandbox; /* --sandbox */
} dump_cli;

static int parse_count(int64_t *out, const char *arg, int64_t lo, int64_t hi)
{
    char *end = NULL;
    long long v = strtoll(arg, &end, 10);
    if (end == arg || *end != '\0' || v < lo || v > hi) {
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_args(dump_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"impl", required_argument, NULL, 'i'},     {"config", required_argument, NULL, 'c'},
        {"profile", required_argument, NULL, 'p'},  {"profiles", required_argument, NULL, 'P'},
        {"layer", required_argument, NULL, 'L'},    {"out", required_argument, NULL, 'O'},
        {"tokens", required_argument, NULL, 'n'},   {"first", required_argument, NULL, 'f'},
        {"sandbox", required_argument, NULL, 'B'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    int rc;
    optind = 1;
    opterr = 0; /* one line of ours, not getopt's */
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'i': cli->impl = optarg; break;
        case 'c': cli->model.config = optarg; break;
        case 'p': cli->model.profile = optarg; break;
        case 'P': cli->model.profiles = optarg; break;
        case 'L': cli->model.layer = optarg; break;
        case 'O': cli->out = optarg; break;
        case 'n':
            if (parse_count(&cli->tokens, optarg, 1, MAX_DUMP_TOKENS) != 0) {
                return pecert_usage_error(pecert_usage_dump, "dump: --tokens %s: expected 1..%d", optarg, MAX_DUMP_TOKENS);
            }
            break;
        case 'f':
            if (parse_count(&cli->first, optarg, 0, (int64_t)1 << 40) != 0) {
                return pecert_usage_error(pecert_usage_dump, "dump: --first %s: expected 0..2^40", optarg);
            }
            break;
        case 'B':
            if ((rc = pecert_sandbox_arg(&cli->sandbox, pecert_usage_dump, "dump", optarg)) != 0) {
                return rc;
            }
            break;
        case 'h': fputs(pecert_usage_dump, stdout); return -1;
        default: return pecert_bad_option(pecert_usage_dump, "dump", argv);
        }
    }
    if ((rc = pecert_no_operands(pecert_usage_dump, "dump", argc, argv)) != 0) {
        return rc;
    }
    if (cli->impl == NULL || cli->out == NULL || (cli->model.config == NULL) == (cli->model.profile == NULL)) {
        return pecert_usage_error(pecert_usage_dump, "dump: --impl, --out and one of --config / --profile are required");
    }
    return 0;
}

/* The plugin's rotation of x into y, within its declared scope as in a
 * check (scope_guard.c); 0, or -1 with its words in err. */
static int rotate(const pecert_loaded_plugin *loaded, const pecert_certify_model *m, const int64_t *pos,
                  int64_t tokens, float *x, float *y, char *err, size_t len)
{
    void *inst = NULL;
    pecert_subject guarded = {loaded->desc, NULL, 0};
    pecert_scope_guard_install(&guarded);
    pecert_loaded_plugin view = *loaded;
    view.desc = guarded.desc;
    const pecert_loaded_plugin *p = &view;
    if (p->desc->rope_apply == NULL) {
        snprintf(err, len, "%s: no rope_apply (NULL in its descriptor)", p->path);
        return -1;
    }
    pecert_status st = pecert_plugin_instance(p->desc, &inst);
    if (st != PECERT_OK) {
        snprintf(err, len, "%s: create: %s", p->path, pecert_status_name(st));
        return -1;
    }
    int64_t h = m->num_kv_heads;
    int64_t d = m->rope.head_dim;
    pecert_tensor tx = pecert_tensor_3d(x, tokens, h, d, h * d, d, 1);
    pecert_tensor ty = pecert_tensor_3d(y, tokens, h, d, h * d, d, 1);
    pecert_rope_apply_args a = {.struct_size = sizeof(a), .pairing = m->pairing, .config = &m->rope,
                                .positions = pos, .x = &tx, .out = &ty};
    st = p->desc->rope_apply(inst, &a);
    if (st != PECERT_OK) {
        const char *scope = pecert_scope_guard_take();
        const char *why = scope != NULL ? scope : p->desc->last_error(inst);
        snprintf(err, len, "%s: rope_apply: %s: %s%s", p->path, pecert_status_name(st),
                 scope != NULL ? "beyond the plugin's declared scope: " : "",
                 why != NULL && why[0] != '\0' ? why : "(no message from last_error)");
    }
    pecert_plugin_release(p->desc, inst);
    pecert_engine_stop(pecert_engine_of(p->desc)); /* reaped here, not left to init */
    return st == PECERT_OK ? 0 : -1;
}

static int write_all(const dump_cli *cli, const pecert_certify_model *m, const float *x, const float *y,
                     const int64_t *pos, char *err, size_t len)
{
    size_t n = (size_t)cli->tokens * (size_t)m->num_kv_heads * (size_t)m->rope.head_dim;
    double *buf = malloc((n > (size_t)cli->tokens ? n : (size_t)cli->tokens) * sizeof(double));
    char path[PATH_MAX];
    int64_t shape[3] = {cli->tokens, m->num_kv_heads, m->rope.head_dim};
    int rc = buf == NULL ? -1 : 0;
    const float *src[2] = {x, y};
    const char *names[2] = {"q_pre.npy", "q_post.npy"};
    for (int f = 0; rc == 0 && f < 2; f++) {
        for (size_t i = 0; i < n; i++) {
            buf[i] = src[f][i];
        }
        snprintf(path, sizeof(path), "%s/%s", cli->out, names[f]);
        rc = pecert_npy_write(path, buf, 3, shape, 0, err, len);
    }
    for (int64_t t = 0; rc == 0 && t < cli->tokens; t++) {
        buf[t] = (double)pos[t];
    }
    snprintf(path, sizeof(path), "%s/positions.npy", cli->out);
    rc = rc == 0 ? pecert_npy_write(path, buf, 1, shape, 1, err, len) : rc;
    if (buf == NULL) {
        snprintf(err, len, "dump: out of memory");
    }
    free(buf);
    return rc;
}

/* What the child is given. */
typedef struct dump_job {
    const dump_cli *cli;
    const pecert_certify_model *m;
    const pecert_loaded_plugin *p;
} dump_job;

/* In the child (isolate.h): q rotated by the plugin and the three files
 * written; "ok", or "rope: WHY" (the plugin failed or declined) or
 * "write: WHY" on out_fd. The files are written only after rope_apply
 * returned: a plugin that dies leaves none. */
static int dump_in_child(void *arg, int out_fd, pecert_case_slot *slot)
{
    const dump_job *job = arg;
    const dump_cli *cli = job->cli;
    const pecert_certify_model *m = job->m;
    char err[1024] = "out of memory";
    char said[1100];
    size_t n = (size_t)cli->tokens * (size_t)m->num_kv_heads * (size_t)m->rope.head_dim;
    float *x = malloc(n * sizeof(float));
    float *y = calloc(n, sizeof(float)); /* an engine that skips channels leaves zeros, not garbage */
    int64_t *pos = malloc((size_t)cli->tokens * sizeof(int64_t));
    const char *outcome = "write";
    if (x != NULL && y != NULL && pos != NULL) {
        pecert_rng rng = {12345}; /* the same q on every machine */
        for (size_t i = 0; i < n; i++) {
            x[i] = pecert_rng_float(&rng);
        }
        for (int64_t t = 0; t < cli->tokens; t++) {
            pos[t] = cli->first + t;
        }
        pecert_case_slot_set(slot, "rope_apply of %lld tokens at positions %lld..%lld", (long long)cli->tokens,
                             (long long)cli->first, (long long)(cli->first + cli->tokens - 1));
        if (rotate(job->p, m, pos, cli->tokens, x, y, err, sizeof(err)) != 0) {
            outcome = "rope";
        } else {
            pecert_case_slot_set(slot, "writing the dump files");
            outcome = write_all(cli, m, x, y, pos, err, sizeof(err)) == 0 ? NULL : "write";
        }
    }
    snprintf(said, sizeof(said), "%s%s%s", outcome != NULL ? outcome : "ok", outcome != NULL ? ": " : "",
             outcome != NULL ? err : "");
    free(x);
    free(y);
    free(pos);
    return pecert_write_fully(out_fd, said, strlen(said));
}

#define DUMP_TIMEOUT_S 120.0

static int dump(const dump_cli *cli, const pecert_certify_model *m, const pecert_loaded_plugin *p)
{
    dump_job job = {cli, m, p};
    pecert_child_outcome o;
    pecert_run_isolated(&o, dump_in_child, &job, DUMP_TIMEOUT_S);
    int status = PECERT_EXIT_FAIL;
    int clean = o.status == PECERT_CHILD_EXITED && o.exit_code == 0 && !o.output_forged && o.output != NULL;
    if (!clean) {
        char why[1024];
        pecert_child_outcome_words(why, sizeof(why), &o, DUMP_TIMEOUT_S, "the plugin's process");
        fprintf(stderr, "pecert: dump: %s: %s\n", p->path, o.output_forged ? "forged result (the plugin wrote it)" : why);
    } else if (strcmp(o.output, "ok") != 0) {
        fprintf(stderr, "pecert: dump: %s\n", strchr(o.output, ' ') != NULL ? strchr(o.output, ' ') + 1 : o.output);
        status = strncmp(o.output, "rope:", 5) == 0 ? PECERT_EXIT_FAIL : PECERT_EXIT_USAGE;
    } else {
        printf("pecert %s: dump of %s on %s: %s/q_pre.npy, q_post.npy [%lld, %d, %d] float32, positions.npy "
               "%lld..%lld\n",
               PECERT_VERSION, p->desc->name, m->name, cli->out, (long long)cli->tokens, (int)m->num_kv_heads,
               (int)m->rope.head_dim, (long long)cli->first, (long long)(cli->first + cli->tokens - 1));
        status = PECERT_EXIT_PASS;
    }
    pecert_child_outcome_free(&o);
    return status;
}

int pecert_cmd_dump(int argc, char **argv)
{
    dump_cli cli = {.model.profiles = pecert_default_profiles(), .tokens = 40};
    int rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    struct stat st;
    if (stat(cli.out, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "pecert: dump: --out %s: not a directory (create it first)\n", cli.out);
        return PECERT_EXIT_USAGE;
    }
    pecert_certify_model *m;
    pecert_loaded_plugin p;
    rc = pecert_open_model_and_plugin("dump", &cli.model, cli.impl, &cli.sandbox, &m, &p);
    if (rc != PECERT_EXIT_PASS) {
        return rc;
    }
    rc = dump(&cli, m, &p);
    pecert_plugin_close(&p);
    free(m);
    return rc;
}
