/*
 * diagnose_dump.c - `pecert diagnose`: what a running engine's RoPE did,
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
#include "cJSON.h"
#include "commands.h"
#include "dump_diagnosis.h"
#include "npy.h"
#include "runner.h"
#include "safetensors.h"

static const char usage_diagnose[] =
    "usage: pecert diagnose --config config.json|--profile NAME --before q_pre.npy --after q_post.npy\n"
    "                       [--positions pos.npy] [--layout thd|htd] [--bf16] [--layer TYPE]\n"
    "                       [--tensor NAME] [--json FILE] [--oracle PATH]\n"
    "\n"
    "Reads a dump of q (or k) before and after an engine's RoPE and says which positions,\n"
    "pairing, channels, attention factor and frequencies the engine actually used, against\n"
    "the checkpoint's config (mapped as `pecert certify` maps it; ref is the oracle).\n"
    "\n"
    "  --before, --after  .npy files, or FILE.safetensors:NAME (one tensor of a safetensors\n"
    "                     file; --tensor NAME when the file names none). One shape:\n"
    "                     [tokens, heads, head_dim] (--layout thd,\n"
    "                     the default), [heads, tokens, head_dim] (htd), or [tokens,\n"
    "                     heads*head_dim]; a leading batch dimension of 1 is dropped. heads is\n"
    "                     the config's query heads (a q dump) or key/value heads (a k dump)\n"
    "  --positions        .npy int64/int32 [tokens]: the positions the tokens should have had;\n"
    "                     then every token is checked and a shift is named\n"
    "  --bf16             read uint16 ('<u2') arrays as bfloat16 bits (torch .view(torch.uint16))\n"
    "  --layer TYPE       the layer type the dump is of, for a model with several (gemma3:\n"
    "                     sliding, full); default: the first rotary one\n"
    "  --json FILE        the report as JSON (schema pecert-diagnose/1)\n"
    "  --profile NAME     a bundled profile (--profiles DIR to look elsewhere)\n"
    "\n"
    "exit status: 0 the dump is the config's RoPE at the given positions, 1 findings,\n"
    "             2 bad usage or input, 3 the oracle failed to load\n";

typedef struct diagnose_cli {
    const char *config;
    const char *profile;
    const char *profiles;
    const char *before;
    const char *after;
    const char *positions;
    const char *oracle;
    const char *layer;
    const char *json;
    const char *tensor;
    int htd;
    int bf16;
} diagnose_cli;

static int parse_args(diagnose_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},    {"profile", required_argument, NULL, 'p'},
        {"profiles", required_argument, NULL, 'P'},  {"before", required_argument, NULL, 'b'},
        {"after", required_argument, NULL, 'a'},     {"positions", required_argument, NULL, 'x'},
        {"layout", required_argument, NULL, 'l'},    {"bf16", no_argument, NULL, 'B'},
        {"oracle", required_argument, NULL, 'o'},    {"help", no_argument, NULL, 'h'},
        {"layer", required_argument, NULL, 'L'},     {"json", required_argument, NULL, 'j'},
        {"tensor", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': cli->config = optarg; break;
        case 'p': cli->profile = optarg; break;
        case 'P': cli->profiles = optarg; break;
        case 'b': cli->before = optarg; break;
        case 'a': cli->after = optarg; break;
        case 'x': cli->positions = optarg; break;
        case 'o': cli->oracle = optarg; break;
        case 'L': cli->layer = optarg; break;
        case 'j': cli->json = optarg; break;
        case 't': cli->tensor = optarg; break;
        case 'B': cli->bf16 = 1; break;
        case 'l':
            if (strcmp(optarg, "thd") != 0 && strcmp(optarg, "htd") != 0) {
                return pecert_usage_error(usage_diagnose, "diagnose: --layout %s: expected thd or htd", optarg);
            }
            cli->htd = strcmp(optarg, "htd") == 0;
            break;
        case 'h': fputs(usage_diagnose, stdout); return -1;
        default: return pecert_usage_error(usage_diagnose, "diagnose: bad option");
        }
    }
    if (optind < argc) {
        return pecert_usage_error(usage_diagnose, "diagnose: unexpected argument '%s'", argv[optind]);
    }
    if ((cli->config == NULL) == (cli->profile == NULL)) {
        return pecert_usage_error(usage_diagnose, "diagnose: give exactly one of --config and --profile");
    }
    if (cli->before == NULL || cli->after == NULL) {
        return pecert_usage_error(usage_diagnose, "diagnose: --before and --after are required");
    }
    return 0;
}

/* ---- the dump's shape ---------------------------------------------------- */

typedef struct dump_shape {
    int64_t tokens;
    int32_t heads;
    int32_t dim;
} dump_shape;

/* [tokens, heads, dim] of a, by the layout and the config's heads. */
static int shape_of(const pecert_npy *a, const char *path, const pecert_certify_model *m, int htd, dump_shape *s,
                    char *err, size_t len)
{
    int64_t d[PECERT_NPY_MAX_DIMS];
    int nd = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (!(i == 0 && a->ndim == 4 && a->shape[0] == 1)) { /* a batch of one */
            d[nd++] = a->shape[i];
        }
    }
    int32_t hd = m->rope.head_dim;
    if (nd == 2 && d[1] % hd == 0) {
        *s = (dump_shape){d[0], (int32_t)(d[1] / hd), hd};
    } else if (nd == 3) {
        *s = htd ? (dump_shape){d[1], (int32_t)d[0], (int32_t)d[2]} : (dump_shape){d[0], (int32_t)d[1], (int32_t)d[2]};
    } else {
        snprintf(err, len, "%s: shape has %d dimensions: expected [tokens, heads, head_dim], [heads, tokens, head_dim] "
                 "(--layout htd) or [tokens, heads*head_dim]", path, a->ndim);
        return -1;
    }
    if (s->dim != hd || (s->heads != m->num_heads && s->heads != m->num_kv_heads) || s->tokens < 1) {
        snprintf(err, len, "%s: %lld tokens x %d heads x %d channels: the config has head_dim %d and %d query or %d "
                 "key/value heads", path, (long long)s->tokens, (int)s->heads, (int)s->dim, (int)hd,
                 (int)m->num_heads, (int)m->num_kv_heads);
        return -1;
    }
    return 0;
}

/* a as [tokens][heads][dim] (a copy, transposed from htd). */
static double *thd_values(const pecert_npy *a, const dump_shape *s, int htd)
{
    size_t n = (size_t)s->tokens * (size_t)s->heads * (size_t)s->dim;
    double *out = malloc((n > 0 ? n : 1) * sizeof(double));
    if (out == NULL) {
        return NULL;
    }
    for (int64_t t = 0; t < s->tokens; t++) {
        for (int32_t h = 0; h < s->heads; h++) {
            size_t from = htd ? ((size_t)h * (size_t)s->tokens + (size_t)t) * (size_t)s->dim
                              : ((size_t)t * (size_t)s->heads + (size_t)h) * (size_t)s->dim;
            memcpy(out + ((size_t)t * (size_t)s->heads + (size_t)h) * (size_t)s->dim, a->data + from,
                   (size_t)s->dim * sizeof(double));
        }
    }
    return out;
}

static int64_t *read_positions(const char *path, int64_t tokens, char *err, size_t len)
{
    pecert_npy p;
    if (pecert_tensor_load(&p, path, NULL, 0, 0, err, len) != 0) {
        return NULL;
    }
    int64_t *out = NULL;
    int vector = p.ndim == 1 || (p.ndim == 2 && p.shape[0] == 1);
    if (p.dtype != PECERT_NPY_I64 && p.dtype != PECERT_NPY_I32) {
        snprintf(err, len, "%s: %s: positions must be int64 or int32", path, pecert_npy_dtype_name(p.dtype));
    } else if (!vector || p.n != tokens) {
        snprintf(err, len, "%s: %lld positions in %d dimensions: expected one per token (%lld)", path, (long long)p.n,
                 p.ndim, (long long)tokens);
    } else if ((out = malloc((size_t)tokens * sizeof(int64_t))) == NULL) {
        snprintf(err, len, "%s: out of memory", path);
    } else {
        for (int64_t i = 0; i < tokens; i++) {
            out[i] = (int64_t)p.data[i];
            if (out[i] < 0 || out[i] > ((int64_t)1 << 40)) {
                snprintf(err, len, "%s: position %lld of token %lld: expected 0..2^40", path, (long long)out[i],
                         (long long)i);
                free(out);
                out = NULL;
                break;
            }
        }
    }
    pecert_npy_free(&p);
    return out;
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

static void print_report(const pecert_dump_report *r, const pecert_certify_model *m, const dump_shape *s,
                         pecert_npy_dtype dtype)
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
    print_positions(r);
}

/* ---- JSON ----------------------------------------------------------------- */

static const char *pairing_tag(const pecert_dump_report *r)
{
    return !r->pairing_found ? "neither" : r->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split_half";
}

static cJSON *hypotheses_json(const pecert_dump_report *r)
{
    cJSON *a = cJSON_CreateArray();
    for (int32_t i = 0; i < r->n_hypotheses; i++) {
        const pecert_dump_hypothesis *h = &r->hypotheses[i];
        if (h->explained < 0) {
            continue;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "label", h->label);
        cJSON_AddBoolToObject(o, "config", i == 0);
        cJSON_AddBoolToObject(o, "best", i == r->best);
        cJSON_AddNumberToObject(o, "rope_theta", h->rope.rope_theta);
        cJSON_AddNumberToObject(o, "tokens_explained", (double)h->explained);
        cJSON_AddNumberToObject(o, "tokens_at_given_positions", (double)h->matched);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *tokens_json(const pecert_dump_report *r, const int64_t *positions)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t t = 0; t < r->n_tokens; t++) {
        const pecert_recovered_position *p = &r->tokens[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "token", (double)t);
        cJSON_AddNumberToObject(o, "position", (double)p->nearest);
        cJSON_AddNumberToObject(o, "estimate", isfinite(p->estimate) ? p->estimate : -1.0);
        cJSON_AddBoolToObject(o, "integer", p->integer);
        cJSON_AddNumberToObject(o, "residual", isfinite(p->residual) ? p->residual : -1.0);
        if (positions != NULL) {
            cJSON_AddNumberToObject(o, "expected", (double)positions[t]);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static int write_json(const char *path, const pecert_dump_report *r, const pecert_certify_model *m,
                      const diagnose_cli *cli, const dump_shape *s, pecert_npy_dtype dtype, const int64_t *positions)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "pecert-diagnose/1");
    cJSON_AddStringToObject(root, "checkpoint", m->name);
    cJSON_AddStringToObject(root, "before", cli->before);
    cJSON_AddStringToObject(root, "after", cli->after);
    cJSON *dump = cJSON_AddObjectToObject(root, "dump");
    cJSON_AddNumberToObject(dump, "tokens", (double)s->tokens);
    cJSON_AddNumberToObject(dump, "heads", s->heads);
    cJSON_AddNumberToObject(dump, "head_dim", s->dim);
    cJSON_AddStringToObject(dump, "dtype", pecert_npy_dtype_name(dtype));
    cJSON *rot = cJSON_AddArrayToObject(root, "rotated_channels");
    cJSON_AddItemToArray(rot, cJSON_CreateNumber(r->rotated_lo));
    cJSON_AddItemToArray(rot, cJSON_CreateNumber(r->rotated_hi));
    cJSON_AddNumberToObject(root, "config_rotary_dim", m->rope.rotary_dim);
    cJSON_AddStringToObject(root, "pairing", pairing_tag(r));
    cJSON_AddStringToObject(root, "config_pairing", m->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved"
                                                                                             : "split_half");
    cJSON_AddNumberToObject(root, "spread_split_half", r->spread[0]);
    cJSON_AddNumberToObject(root, "spread_interleaved", r->spread[1]);
    cJSON_AddNumberToObject(root, "attention_factor", r->attention_factor);
    cJSON_AddNumberToObject(root, "config_attention_factor", r->expected_factor);
    cJSON_AddItemToObject(root, "hypotheses", hypotheses_json(r));
    cJSON_AddItemToObject(root, "tokens", tokens_json(r, positions));
    cJSON *fs = cJSON_AddArrayToObject(root, "findings");
    for (int32_t i = 0; i < r->n_findings; i++) {
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "id", r->findings[i].id);
        cJSON_AddStringToObject(f, "text", r->findings[i].text);
        cJSON_AddItemToArray(fs, f);
    }
    cJSON_AddStringToObject(root, "verdict", r->n_findings == 0 ? "pass" : "findings");
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    char err[1024] = "";
    int rc = text != NULL ? pecert_write_files_atomic(&path, (const char *const *)&text, 1, err, sizeof(err)) : -1;
    if (rc != 0) {
        fprintf(stderr, "pecert: diagnose: --json %s: %s\n", path, text == NULL ? "out of memory" : err);
    }
    free(text);
    return rc;
}

/* ---- the command --------------------------------------------------------- */

typedef struct dump_pair {
    pecert_npy before;
    pecert_npy after;
    dump_shape shape;
    double *x;
    double *y;
} dump_pair;

static int load_pair(dump_pair *d, const diagnose_cli *cli, const pecert_certify_model *m, char *err, size_t len)
{
    dump_shape sa;
    memset(d, 0, sizeof(*d));
    if (pecert_tensor_load(&d->before, cli->before, cli->tensor, cli->bf16, 0, err, len) != 0 ||
        pecert_tensor_load(&d->after, cli->after, cli->tensor, cli->bf16, 0, err, len) != 0 ||
        shape_of(&d->before, cli->before, m, cli->htd, &d->shape, err, len) != 0 ||
        shape_of(&d->after, cli->after, m, cli->htd, &sa, err, len) != 0) {
        return -1;
    }
    if (sa.tokens != d->shape.tokens || sa.heads != d->shape.heads) {
        snprintf(err, len, "%s: %lld tokens x %d heads, but %s has %lld x %d", cli->after, (long long)sa.tokens,
                 (int)sa.heads, cli->before, (long long)d->shape.tokens, (int)d->shape.heads);
        return -1;
    }
    d->x = thd_values(&d->before, &d->shape, cli->htd);
    d->y = thd_values(&d->after, &d->shape, cli->htd);
    if (d->x == NULL || d->y == NULL) {
        snprintf(err, len, "diagnose: out of memory");
        return -1;
    }
    return 0;
}

static void free_pair(dump_pair *d)
{
    pecert_npy_free(&d->before);
    pecert_npy_free(&d->after);
    free(d->x);
    free(d->y);
}

/* --layer: the rope of that layer type becomes the model's; without it a
 * model whose layers differ is read as its first rotary type (said). */
static int select_layer(pecert_certify_model *m, const char *layer, const char *name, char *err, size_t len)
{
    if (layer == NULL) {
        /* m->rope is the type the config's own rope fields describe. */
        for (int32_t t = 0; m->n_layer_types > 1 && t < m->n_layer_types; t++) {
            const pecert_rope_config *r = &m->layer_types[t].rope;
            if (r->layer_kind == m->rope.layer_kind && r->rope_type == m->rope.rope_type &&
                r->rope_theta == m->rope.rope_theta && r->rotary_dim == m->rope.rotary_dim) {
                fprintf(stderr, "pecert: %s: layers differ: reading the dump as '%s' layers (--layer to choose)\n",
                        name, m->layer_types[t].name);
                break;
            }
        }
        return 0;
    }
    for (int32_t t = 0; t < m->n_layer_types; t++) {
        if (strcmp(m->layer_types[t].name, layer) == 0) {
            m->rope = m->layer_types[t].rope; /* a NoPE layer's: its dump must equal its input */
            return 0;
        }
    }
    char known[128] = "";
    for (int32_t t = 0; t < m->n_layer_types; t++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof(known) - used, "%s%s", t > 0 ? ", " : "", m->layer_types[t].name);
    }
    snprintf(err, len, "%s: --layer %s: the model's layer types are %s", name, layer,
             m->n_layer_types > 0 ? known : "none (every layer rotates alike)");
    return -1;
}

int pecert_load_rope_model(pecert_certify_model *m, const char *config, const char *profile, const char *profiles,
                           const char *layer, char *err, size_t len)
{
    int rc = config != NULL ? pecert_certify_load(m, config, err, len)
                            : pecert_certify_load_profile(m, profiles, profile, err, len);
    const char *name = config != NULL ? config : profile;
    if (rc == 0 && m->kind != PECERT_PE_ROPE) {
        snprintf(err, len, "%s: %s: dumps are of RoPE models (this model's encoding is %s)", name, m->model_type,
                 pecert_pe_kind_name(m->kind));
        return -1;
    }
    return rc == 0 ? select_layer(m, layer, name, err, len) : rc;
}

static int diagnose(const diagnose_cli *cli, const pecert_certify_model *m, const pecert_loaded_plugin *oracle)
{
    char err[1024] = "";
    dump_pair d;
    int64_t *positions = NULL;
    pecert_dump_report r;
    memset(&r, 0, sizeof(r));
    int status = PECERT_EXIT_USAGE;
    if (load_pair(&d, cli, m, err, sizeof(err)) != 0 ||
        (cli->positions != NULL && (positions = read_positions(cli->positions, d.shape.tokens, err, sizeof(err))) == NULL)) {
        fprintf(stderr, "pecert: %s\n", err);
        goto out;
    }
    pecert_dump_view v = {d.shape.tokens, d.shape.heads, d.shape.dim, d.x, d.y,
                          fmax(pecert_npy_epsilon(d.before.dtype), pecert_npy_epsilon(d.after.dtype))};
    if (pecert_dump_diagnose(&r, m, oracle, &v, positions, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        goto out;
    }
    printf("pecert %s: diagnose %s -> %s against %s\n", PECERT_VERSION, cli->before, cli->after, m->name);
    print_report(&r, m, &d.shape, d.before.dtype);
    for (int32_t i = 0; i < r.n_findings; i++) {
        char line[400];
        snprintf(line, sizeof(line), "%s: %s", r.findings[i].id, r.findings[i].text);
        printf("%s", i == 0 ? "findings:\n" : "");
        pecert_print_wrapped(2, 4, line);
    }
    printf("verdict: %s\n", r.n_findings == 0 ? (positions != NULL ? "the config's RoPE at the given positions"
                                                                    : "the config's RoPE (positions as recovered)")
                                               : "the dump differs from the config (findings above)");
    status = r.n_findings == 0 ? PECERT_EXIT_PASS : PECERT_EXIT_FAIL;
    if (cli->json != NULL && write_json(cli->json, &r, m, cli, &d.shape, d.before.dtype, positions) != 0) {
        status = PECERT_EXIT_USAGE;
    }
out:
    pecert_dump_report_free(&r);
    free(positions);
    free_pair(&d);
    return status;
}

int pecert_cmd_diagnose(int argc, char **argv)
{
    diagnose_cli cli = {.profiles = PECERT_SOURCE_DIR "/conformance/profiles"};
    int rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    const char *const names[] = {"--json"};
    const char *const paths[] = {cli.json};
    if (pecert_check_outputs("diagnose", names, paths, 1) != 0) {
        return PECERT_EXIT_USAGE;
    }
    pecert_certify_model *m = malloc(sizeof(*m));
    char err[1024];
    if (m == NULL || pecert_load_rope_model(m, cli.config, cli.profile, cli.profiles, cli.layer, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", m == NULL ? "out of memory" : err);
        free(m);
        return PECERT_EXIT_USAGE;
    }
    char dir[PATH_MAX];
    char oracle_path[PATH_MAX];
    pecert_impl_dir(dir, sizeof(dir));
    pecert_loaded_plugin oracle;
    if (pecert_plugin_resolve(oracle_path, sizeof(oracle_path), cli.oracle != NULL ? cli.oracle : "ref", dir) != 0 ||
        pecert_plugin_open(&oracle, oracle_path, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: diagnose: oracle: %s\n", err);
        free(m);
        return PECERT_EXIT_LOAD;
    }
    rc = diagnose(&cli, m, &oracle);
    pecert_plugin_close(&oracle);
    free(m);
    return rc;
}
