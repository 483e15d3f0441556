/*
 * certify.c - `pecert certify`: one checkpoint's positional encoding, from
 * its config.json (or a bundled profile), certified on a plugin.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "certificate.h"
#include "certify_all.h"
#include "certify_config.h"
#include "certify_passes.h"
#include "commands.h"
#include "vectors.h"
#include "outputs.h"
#include "plugin_load.h"
#include "report.h"
#include "runner.h"

const char pecert_usage_certify[] =
    "usage: pecert certify (--config PATH | --profile NAME) --impl NAME|PATH [options]\n"
    "       pecert certify (--config PATH | --profile NAME) --print\n"
    "       pecert certify --all-profiles --impl NAME|PATH [options]\n"
    "       pecert certify --list-profiles | --list-model-types\n"
    "\n"
    "Reads a checkpoint's Hugging Face config.json (or a bundled profile of a real\n"
    "model), prints the positional-encoding parameters pecert derives from it, then\n"
    "runs every applicable check on the plugin at exactly those parameters, with\n"
    "`ref` as the oracle, at L0-1, L0, L0+1, max_position_embeddings-1 and far\n"
    "positions, and ends with a verdict for that checkpoint.\n"
    "\n"
    "options:\n"
    "  --config PATH      the checkpoint's config.json\n"
    "  --profile NAME     a profile of conformance/profiles/ (see --list-profiles)\n"
    "  --impl NAME|PATH   the plugin to certify (built-in name or .so path, or\n"
    "                     python:FILE.py for an engine written in Python)\n"
    "  --all-profiles     certify every bundled profile: one line each (CERTIFIED,\n"
    "                     NOT CERTIFIED with the first diagnosis, NOT APPLICABLE\n"
    "                     when the plugin has none of its encoding's operations),\n"
    "                     one --json/--html/--junit for all; exit 0 only if every\n"
    "                     applicable profile is certified\n"
    "  -j, --jobs N       with --all-profiles: profiles certified at once, each in a\n"
    "                     process of its own; the lines print in profile order\n"
    "  --print            print the derived parameters and exit (no plugin needed)\n"
    "  --list-model-types every config.json model_type certify reads, its pairing\n"
    "                     and what it reads\n"
    "  --vectors FILE|DIR profile vectors recorded from the official model class:\n"
    "                     a file, or a vector directory holding profiles/NAME.json\n"
    "                     (default for --profile NAME: the default vector directory's)\n"
    "  --profiles DIR     where profiles live (default: the source tree's)\n"
    PECERT_OUTPUTS_USAGE
    "  --timeout S        seconds per check before it is killed (default 120)\n"
    PECERT_SANDBOX_USAGE
    "  --oracle PATH      the reference plugin (default: built-in ref)\n"
    "  --max-details N    failing cases printed per check (default 8; 'all' for every\n"
    "                     one); --json, --html and --junit always hold every one\n"
    "  --image HxW        an image of H x W pixels for the vision tower's checks\n"
    "                     (repeatable, up to 8; replaces the tower's default grids;\n"
    "                     --print shows them): sides multiples of the patch (times\n"
    "                     the merge window for Qwen), at most image_size for\n"
    "                     Pixtral, exactly image_size for Llama 4's tiles\n"
    "  --text-only        certify the language model alone: the vision tower, which\n"
    "                     the checkpoint needs for images, is left out (said so)\n"
    "  --filter GLOBS     only the planned checks whose id matches (as for run);\n"
    "                     a filtered run is for looking at checks, never a\n"
    "                     certification\n"
    "  --no-timings       write 0 for every elapsed time (byte-stable outputs)\n"
    "  --quiet            print only failures and the verdict\n"
    "  --verbose          print every case of every check (within bound, declined,\n"
    "                     beyond scope: also in --json), the plugin's output and times\n"
    "  --help             this text\n"
    "\n"
    "A config.json key pecert does not understand (in rope_scaling, or any key\n"
    "naming positions), or a value out of range, is an error naming the key: exit 2.\n"
    "exit status: 0 certified, 1 a check failed, 2 bad usage or config, 3 plugin\n"
    "failed to load.\n";

typedef struct certify_cli {
    const char *config;
    const char *profile;
    const char *impl;
    const char *oracle;
    const char *vectors;
    const char *profiles;
    pecert_report_outputs out;  /* --json, --html, --junit, --no-timings */
    double timeout_s;
    int print_only;
    int list;
    int list_types;
    int all;
    int quiet;
    int verbose;
    const char *filter; /* globs over the planned checks' ids (--filter) */
    const char *images[PECERT_CERTIFY_MAX_IMAGES]; /* --image HxW, as given */
    int n_images;
    int text_only;     /* --text-only: the vision tower left out */
    int max_details;   /* failure lines per check (--max-details) */
    int jobs;          /* -j N: profiles at once (--all-profiles)  */
    pecert_sandbox_mode sandbox; /* --sandbox                     */
} certify_cli;

static int parse_args(certify_cli *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},  {"profile", required_argument, NULL, 'p'},
        {"impl", required_argument, NULL, 'i'},    {"oracle", required_argument, NULL, 'o'},
        {"vectors", required_argument, NULL, 'v'}, {"profiles", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 't'},
        {"print", no_argument, NULL, 'n'},         {"list-profiles", no_argument, NULL, 'l'},
        {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
        {"all-profiles", no_argument, NULL, 'A'},  {"max-details", required_argument, NULL, 'D'},
        {"verbose", no_argument, NULL, 'V'},
        {"filter", required_argument, NULL, 'f'},  {"list-model-types", no_argument, NULL, 'M'},
        {"image", required_argument, NULL, 'I'},   {"text-only", no_argument, NULL, 'X'},
        {"jobs", required_argument, NULL, 'N'},    {"sandbox", required_argument, NULL, 'B'},
        PECERT_OUTPUT_GETOPT, {NULL, 0, NULL, 0}};
    int c;
    int rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "j:", opts, NULL)) != -1) {
        switch (c) {
        case 'N':
        case 'j':
            if (pecert_parse_count(&cli->jobs, optarg, 1, PECERT_MAX_JOBS) != 0) {
                return pecert_usage_error(pecert_usage_certify, "certify: %s '%s': expected a count in [1, %d]",
                                          c == 'j' ? "-j" : "--jobs", optarg, PECERT_MAX_JOBS);
            }
            break;
        case 'c': cli->config = optarg; break;
        case 'p': cli->profile = optarg; break;
        case 'i': cli->impl = optarg; break;
        case 'o': cli->oracle = optarg; break;
        case 'v': cli->vectors = optarg; break;
        case 'P': cli->profiles = optarg; break;
        case 'n': cli->print_only = 1; break;
        case 'l': cli->list = 1; break;
        case 'M': cli->list_types = 1; break;
        case 'A': cli->all = 1; break;
        case 'q': cli->quiet = 1; break;
        case 'V': cli->verbose = 1; break;
        case 'f': cli->filter = optarg; break;
        case 'X': cli->text_only = 1; break;
        case 'I':
            if (cli->n_images >= PECERT_CERTIFY_MAX_IMAGES) {
                return pecert_usage_error(pecert_usage_certify, "certify: --image: at most %d images",
                                          PECERT_CERTIFY_MAX_IMAGES);
            }
            cli->images[cli->n_images++] = optarg;
            break;
        case 'D':
            if (pecert_parse_max_details(&cli->max_details, optarg) != 0) {
                return pecert_usage_error(pecert_usage_certify, "certify: --max-details '%s': expected a count >= 0 or 'all'",
                                          optarg);
            }
            break;
        case 't':
            if ((rc = pecert_timeout_arg(&cli->timeout_s, pecert_usage_certify, "certify", optarg)) != 0) {
                return rc;
            }
            break;
        case 'B':
            if ((rc = pecert_sandbox_arg(&cli->sandbox, pecert_usage_certify, "certify", optarg)) != 0) {
                return rc;
            }
            break;
        case 'h': fputs(pecert_usage_certify, stdout); return -1;
        default:
            if (pecert_outputs_option(&cli->out, c, optarg)) {
                break;
            }
            return pecert_bad_option(pecert_usage_certify, "certify", argv);
        }
    }
    if ((rc = pecert_no_operands(pecert_usage_certify, "certify", argc, argv)) != 0) {
        return rc;
    }
    if (cli->quiet && cli->verbose) {
        return pecert_usage_error(pecert_usage_certify, "certify: --quiet and --verbose exclude each other");
    }
    if (cli->list || cli->list_types) {
        return 0;
    }
    if (cli->all) {
        if (cli->config != NULL || cli->profile != NULL || cli->print_only || cli->vectors != NULL ||
            cli->n_images > 0 || cli->text_only) {
            return pecert_usage_error(pecert_usage_certify,
                                      "certify: --all-profiles takes no --config, --profile, --print, --vectors, "
                                      "--image or --text-only");
        }
        return cli->impl != NULL ? 0 : pecert_usage_error(pecert_usage_certify, "certify: --all-profiles needs --impl NAME|PATH");
    }
    if ((cli->config == NULL) == (cli->profile == NULL)) {
        return pecert_usage_error(pecert_usage_certify, "certify: give exactly one of --config PATH and --profile NAME");
    }
    if (cli->impl == NULL && !cli->print_only) {
        return pecert_usage_error(pecert_usage_certify, "certify: --impl NAME|PATH is required (or --print)");
    }
    return 0;
}

/* --list-profiles: each profile with its one-line derived summary. */
static int list_profiles(const char *dir)
{
    char *names[512];
    int n = pecert_certify_profile_names(dir, names, 512);
    if (n < 0) {
        fprintf(stderr, "pecert: %s: cannot open the profiles directory\n", dir);
        return PECERT_EXIT_USAGE;
    }
    int status = PECERT_EXIT_PASS;
    pecert_certify_model *m = malloc(sizeof(*m));
    for (int i = 0; i < n; i++) {
        char err[1024];
        char label[256];
        if (m != NULL && pecert_certify_load_profile(m, dir, names[i], err, sizeof(err)) == 0) {
            pecert_certify_label(label, sizeof(label), m);
            printf("  %-22s %-12s %s\n", names[i], m->model_type, label);
        } else {
            fprintf(stderr, "pecert: %s\n", m != NULL ? err : "out of memory");
            status = PECERT_EXIT_USAGE;
        }
        free(names[i]);
    }
    free(m);
    return status;
}

/* --list-model-types: one line per model_type (name, pairing, what is read). */
static int list_model_types(void)
{
    pecert_rope_pairing pairing;
    const char *reads;
    const char *name;
    int width = 0; /* the longest name: the columns align whatever is added */
    for (size_t i = 0; (name = pecert_certify_model_type(i, &pairing, &reads)) != NULL; i++) {
        width = (int)strlen(name) > width ? (int)strlen(name) : width;
    }
    for (size_t i = 0; (name = pecert_certify_model_type(i, &pairing, &reads)) != NULL; i++) {
        printf("  %-*s %-11s %s\n", width, name, pecert_rope_pairing_name(pairing),
               reads);
    }
    const char *config_class;
    const char *text_default;
    const char *how;
    printf("wrappers (the language model read from text_config by its model_type's rule above):\n");
    for (size_t i = 0; (name = pecert_certify_wrapper(i, &config_class, &text_default, &how)) != NULL; i++) {
        printf("  %-*s %s: text_config read as %s%s\n", width, name, config_class, text_default, how);
    }
    printf("models built from a nested config (read as that document, its keys shown under it):\n");
    for (size_t i = 0; (name = pecert_certify_document(i, &config_class, &reads)) != NULL; i++) {
        printf("  %-*s %s: %s\n", width, name, config_class, reads);
    }
    printf("vision towers (vision_config of these model_types, or the model itself; certified as ID@vision):\n");
    for (size_t i = 0; (name = pecert_certify_vision_tower(i, &config_class, &reads)) != NULL; i++) {
        printf("  %-*s %s: %s\n", width, name, config_class, reads);
    }
    return PECERT_EXIT_PASS;
}

/* The profile's vectors: --vectors FILE as given; --vectors DIR (a vector
 * directory, as for run, list and mutation) or the default one
 * ($PECERT_VECTORS or the source tree's) holds them as profiles/NAME.json. */
static const char *default_vectors(char *buf, size_t len, const certify_cli *cli)
{
    struct stat st;
    int dir = cli->vectors != NULL && stat(cli->vectors, &st) == 0 && S_ISDIR(st.st_mode);
    if ((cli->vectors != NULL && !dir) || cli->profile == NULL) {
        return cli->vectors;
    }
    return pecert_certify_profile_vectors(buf, len, dir ? cli->vectors : pecert_default_vectors(), cli->profile);
}

static void on_check(const pecert_check_result *r, size_t done, size_t total, void *user)
{
    const certify_cli *cli = user;
    (void)done;
    (void)total;
    pecert_print_opts o = {PECERT_CHECK_ID_COLUMN, cli->quiet, cli->verbose, cli->out.no_timings, cli->max_details};
    pecert_print_check(r, &o);
    fflush(stdout);
}

/* HTML / JUnit / JSON through the one report model; the run's selection
 * (info.filter) names the checkpoint and its derived parameters, and the
 * origin says which command produced it. */
static int write_outputs(pecert_run_results *res, const certify_cli *cli, const pecert_certify_model *m)
{
    char origin[256];
    snprintf(origin, sizeof(origin), "pecert certify %s", m->name);
    return pecert_outputs_write_run(res, origin, &cli->out);
}

/* Less precise than the official float32 code is not wrong: said after the
 * verdict (even with --quiet), one line per graded check, and it never
 * changes the verdict. */
static void print_grades(const pecert_run_results *res)
{
    for (size_t i = 0; i < res->n_checks; i++) {
        const pecert_check_result *r = &res->checks[i];
        if (pecert_precision_noted(r)) {
            char grade[2 * PECERT_RESULT_LINE_MAX];
            pecert_precision_line(grade, sizeof(grade), &r->precision);
            printf("precision: less precise than the official float32 code (not a failure): %s: %s\n", r->check_id,
                   grade);
        }
    }
}

/* A filtered run looks at some checks; it certifies nothing. */
static const char *verdict_word(int status, const char *filter, const pecert_certificate *c)
{
    if (filter != NULL) {
        return status == PECERT_EXIT_PASS ? "PASSED the filtered checks (not a certification)"
                                          : "FAILED the filtered checks";
    }
    return pecert_cert_class_name(c->cls);
}

static void print_verdict(const pecert_run_results *res, const pecert_certify_model *m, int status,
                          const char *filter)
{
    size_t counts[PECERT_VERDICT_COUNT];
    pecert_certificate c;
    pecert_certificate_of(&c, res);
    pecert_run_results_count(res, counts);
    pecert_print_findings(res);
    char list[400] = "";
    char tail[512] = "";
    if (filter == NULL && c.cls == PECERT_CERT_CERTIFIED) {
        pecert_not_examined_list(list, sizeof(list), &c); /* a CERTIFIED line leaves nothing unsaid */
        snprintf(tail, sizeof(tail), "%s%s", list[0] != '\0' ? "; not examined: " : "", list);
    }
    char line[1536];
    snprintf(line, sizeof(line),
             "verdict: %s %s for %s (%s): %zu passed, %zu failed, %zu crashed, %zu timed out, "
             "%zu not supported (of %zu checks)%s%s%s",
             res->info.plugin_name, verdict_word(status, filter, &c), m->name, m->model_type,
             counts[PECERT_VERDICT_PASS], counts[PECERT_VERDICT_FAIL], counts[PECERT_VERDICT_CRASH],
             counts[PECERT_VERDICT_TIMEOUT], counts[PECERT_VERDICT_UNSUPPORTED], res->n_checks, tail,
             res->info.unsandboxed ? "; " : "", res->info.unsandboxed ? PECERT_UNSANDBOXED_WORDS : "");
    puts(line); /* one line, never wrapped: what a CI log greps for */
    if (filter == NULL) {
        char coverage[4096];
        pecert_coverage_line(coverage, sizeof(coverage), &c);
        printf("coverage: %s\n", coverage);
    }
    if (c.cls == PECERT_CERT_CERTIFIED) {
        print_grades(res); /* a grade refines a certification; under a failure it would only mislead */
    }
}

/* --impl and --oracle (default ref) as .so paths (PATH_MAX each). */
static int resolve_plugins(const certify_cli *cli, char *plugin_path, char *oracle_path)
{
    char dir[PATH_MAX];
    pecert_impl_dir(dir, sizeof(dir));
    return pecert_plugin_resolve(plugin_path, PATH_MAX, cli->impl, dir) != 0 ||
                   pecert_plugin_resolve(oracle_path, PATH_MAX, cli->oracle != NULL ? cli->oracle : "ref", dir) != 0
               ? -1
               : 0;
}

static int certify_all_profiles(const certify_cli *cli)
{
    char plugin_path[PATH_MAX];
    char oracle_path[PATH_MAX];
    if (resolve_plugins(cli, plugin_path, oracle_path) != 0) {
        return pecert_usage_error(pecert_usage_certify, "certify: --impl/--oracle: path too long");
    }
    pecert_certify_all_opts o = {cli->profiles, pecert_default_vectors(), plugin_path, oracle_path, cli->timeout_s,
                                 &cli->out,     cli->jobs,                cli->sandbox};
    return pecert_certify_all(&o);
}

static int run_certify(const certify_cli *cli, const pecert_certify_model *m, const char *vectors)
{
    char plugin_path[PATH_MAX];
    char oracle_path[PATH_MAX];
    if (resolve_plugins(cli, plugin_path, oracle_path) != 0) {
        return pecert_usage_error(pecert_usage_certify, "certify: --impl/--oracle: path too long");
    }
    pecert_certify_options opt = {plugin_path, oracle_path, vectors, cli->timeout_s, cli->filter, on_check,
                                  (void *)(uintptr_t)cli, cli->verbose, cli->sandbox};
    pecert_run_results res;
    char err[2048] = "";
    printf("checks (plugin %s, oracle ref%s%s):\n", plugin_path, vectors != NULL ? ", profile vectors " : "",
           vectors != NULL ? vectors : "");
    int status = pecert_certify_run(&res, m, &opt, err, sizeof(err));
    if (status == PECERT_EXIT_USAGE || status == PECERT_EXIT_LOAD) {
        fprintf(stderr, "pecert: %s\n", err);
        pecert_run_results_free(&res);
        return status;
    }
    print_verdict(&res, m, status, cli->filter);
    if (write_outputs(&res, cli, m) != 0) {
        status = PECERT_EXIT_USAGE;
    }
    pecert_run_results_free(&res);
    return status;
}

/* How the attention factor of m's rope_type comes about, in words. */
static const char *attention_factor_origin(const pecert_rope_config *r)
{
    if (r->present & PECERT_ROPE_HAS_ATTENTION_FACTOR) {
        return "attention_factor, as given";
    }
    if (r->rope_type == PECERT_ROPE_LONGROPE) {
        return "sqrt(1 + ln(s) / ln(original)), s = max_position_embeddings / original; 1 when s <= 1";
    }
    if ((r->present & PECERT_ROPE_HAS_MSCALE) && r->mscale != 0.0 && (r->present & PECERT_ROPE_HAS_MSCALE_ALL_DIM) &&
        r->mscale_all_dim != 0.0) {
        return "get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)";
    }
    return "0.1 ln(factor) + 1; 1 when factor <= 1";
}

/* The factor YaRN and LongRoPE multiply cos and sin by, as the oracle
 * (ref, which follows transformers' defaulting) derives it from the
 * config: the value a port most often leaves out (TOLERANCES.md), worth
 * a line of --print although no config spells it out. */
static void print_attention_factor(const pecert_certify_model *m)
{
    const pecert_rope_config *r = &m->rope;
    if ((m->kind != PECERT_PE_ROPE && m->kind != PECERT_PE_MROPE) ||
        (r->rope_type != PECERT_ROPE_YARN && r->rope_type != PECERT_ROPE_LONGROPE)) {
        return;
    }
    char dir[PATH_MAX];
    char path[PATH_MAX + 16];
    char err[1024] = "ref: create failed";
    pecert_impl_dir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/ref.so", dir);
    pecert_loaded_plugin ref;
    void *instance = NULL;
    double *inv_freq = malloc(((size_t)r->rotary_dim / 2 + 1) * sizeof(double));
    double scaling = 0.0;
    pecert_status st = PECERT_E_INTERNAL;
    if (inv_freq != NULL && pecert_plugin_open(&ref, path, err, sizeof(err)) == 0) {
        if (pecert_plugin_instance(ref.desc, &instance) == PECERT_OK) {
            st = ref.desc->rope_freqs(instance, inv_freq, &scaling, r, 0);
            const char *why = st != PECERT_OK && ref.desc->last_error != NULL ? ref.desc->last_error(instance) : NULL;
            if (st != PECERT_OK) {
                snprintf(err, sizeof(err), "ref refused the config: %s", why != NULL ? why : "(no message)");
            }
            pecert_plugin_release(ref.desc, instance);
        }
        pecert_plugin_close(&ref);
    }
    if (st == PECERT_OK) {
        printf("  %-34s %.17g (ref: %s)\n", "attention factor (cos, sin x)", scaling, attention_factor_origin(r));
    } else {
        printf("  %-34s not derived (%s)\n", "attention factor (cos, sin x)", inv_freq == NULL ? "out of memory" : err);
    }
    free(inv_freq);
}

int pecert_cmd_certify(int argc, char **argv)
{
    certify_cli cli = {.timeout_s = 120.0, .profiles = pecert_default_profiles(),
                       .max_details = PECERT_DEFAULT_MAX_DETAILS};
    int rc = parse_args(&cli, argc, argv);
    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    if (pecert_outputs_check("certify", &cli.out) != 0) {
        return PECERT_EXIT_USAGE;
    }
    if (cli.list) {
        return list_profiles(cli.profiles);
    }
    if (cli.list_types) {
        return list_model_types();
    }
    if (cli.all) {
        return certify_all_profiles(&cli);
    }
    pecert_certify_model *m = malloc(sizeof(*m));
    char err[1024];
    char vbuf[PATH_MAX];
    if (m == NULL) {
        fprintf(stderr, "pecert: out of memory\n");
        return PECERT_EXIT_USAGE;
    }
    rc = cli.config != NULL ? pecert_certify_load(m, cli.config, err, sizeof(err))
                            : pecert_certify_load_profile(m, cli.profiles, cli.profile, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "pecert: %s\n", err);
        free(m);
        return PECERT_EXIT_USAGE;
    }
    if (cli.n_images > 0 && (cli.text_only || pecert_certify_set_images(m, cli.images, cli.n_images, err,
                                                                         sizeof(err)) != 0)) {
        fprintf(stderr, "pecert: %s\n", cli.text_only ? "certify: --image and --text-only exclude each other" : err);
        free(m);
        return PECERT_EXIT_USAGE;
    }
    if (cli.text_only) {
        pecert_certify_leave_out_vision(m, "--text-only");
    }
    for (int i = 0; i < m->n_warnings; i++) {
        fprintf(stderr, "pecert: warning: %s: %s\n", m->name, m->warnings[i]);
    }
    if (!cli.quiet || cli.print_only) { /* --quiet: failures and the verdict */
        char text[4096];
        pecert_certify_describe(text, sizeof(text), m);
        printf("pecert %s: certify %s\nderived positional-encoding parameters (what the checkpoint requires):\n%s",
               PECERT_VERSION, m->name, text);
        print_attention_factor(m);
    }
    rc = cli.print_only ? PECERT_EXIT_PASS : run_certify(&cli, m, default_vectors(vbuf, sizeof(vbuf), &cli));
    free(m);
    return rc;
}
