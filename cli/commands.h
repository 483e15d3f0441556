/*
 * commands.h - the pecert subcommands and the helpers they share.
 */
#ifndef PECERT_CLI_COMMANDS_H
#define PECERT_CLI_COMMANDS_H

#include <stddef.h>

#include "engine.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif
#ifndef PECERT_VERSION
#define PECERT_VERSION "0.1.0"
#endif

/* Subcommands, one file each (cli/NAME.c): pecert_cmd_NAME takes argv
 * from the subcommand name on and returns an exit status (runner.h
 * PECERT_EXIT_*); pecert_usage_NAME is its --help text. main.c's table
 * lists them. */
#define PECERT_COMMAND(name)                 \
    int pecert_cmd_##name(int argc, char **argv); \
    extern const char pecert_usage_##name[]
PECERT_COMMAND(list);
PECERT_COMMAND(run);
PECERT_COMMAND(certify);
PECERT_COMMAND(report);
PECERT_COMMAND(diagnose);
PECERT_COMMAND(dump);
PECERT_COMMAND(mutation);
PECERT_COMMAND(bench);

/* pecert_usage_error prints "pecert: <message>", a blank line and usage
 * to stderr, and returns PECERT_EXIT_USAGE. */
int pecert_usage_error(const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));


/* pecert_check_outputs: each non-NULL path of names[i] (an option such as
 * "--json") must be writable where it will be written: its directory
 * exists and is writable, and it is not a directory itself. Checked
 * before a command works for minutes and then fails to save. 0, or -1
 * after printing "pecert: <cmd>: <option> <path>: <why>" to stderr. */
int pecert_check_outputs(const char *cmd, const char *const *names, const char *const *paths,
                         int n);

/* pecert_print_precision: r's precision grade on a line of its own under
 * the check's line (id_width = the id column's), when it is above
 * PECERT_PRECISION_NOTE_RATIO: "less precise" is shown, never failed. */
struct pecert_check_result;
void pecert_print_precision(const struct pecert_check_result *r, int id_width);

/* --max-details: failure lines printed per check (PECERT_DEFAULT_MAX_DETAILS
 * unless given); "all" is PECERT_MAX_DETAILS_ALL. 0, or -1 for a bad arg. */
#define PECERT_MAX_DETAILS_ALL (-1)
int pecert_parse_max_details(int *out, const char *arg);

/* pecert_parse_count: a whole number in [min, max] (-j, --durations); 0,
 * or -1 for anything else. */
int pecert_parse_count(int *out, const char *arg, int min, int max);

/* The checkpoint a dump is read against (--config or --profile in
 * --profiles, at --layer), as `pecert dump` and `pecert diagnose` take it. */
typedef struct pecert_model_args {
    const char *config;
    const char *profile;
    const char *profiles;
    const char *layer;
} pecert_model_args;

/* pecert_open_model_and_plugin: the RoPE model of a (malloc'ed into *m)
 * and plugin (a built-in name or a path) opened into *p: in an engine host
 * with *hosted's sandbox (a plugin under test), or in this process when
 * hosted is NULL (pecert's own oracle). PECERT_EXIT_PASS,
 * or after saying why ("pecert: WHO: ...") PECERT_EXIT_USAGE (the model)
 * or PECERT_EXIT_LOAD (the plugin), with nothing left to free. */
struct pecert_certify_model;
struct pecert_loaded_plugin;
int pecert_open_model_and_plugin(const char *who, const pecert_model_args *a, const char *plugin,
                                 const pecert_sandbox_mode *hosted, struct pecert_certify_model **m,
                                 struct pecert_loaded_plugin *p);

/* The common ends of a command's option parse, each a usage error naming
 * the command: pecert_bad_option, an option getopt did not know or one
 * missing its argument (argv[optind - 1]); pecert_no_operands, 0 unless
 * an operand is left (argv[optind]); pecert_timeout_arg, --timeout's
 * seconds into *out (0) or the error. */
int pecert_bad_option(const char *usage, const char *cmd, char **argv);
int pecert_no_operands(const char *usage, const char *cmd, int argc, char **argv);
int pecert_timeout_arg(double *out, const char *usage, const char *cmd, const char *arg);

/* --sandbox on|off (engine.h): the engine host's seccomp filters, on by
 * default; off for an engine that needs more (a GPU driver), and every
 * output then says so. pecert_sandbox_arg: into *out (0) or the error. */
#define PECERT_SANDBOX_USAGE                                                                                           \
    "  --sandbox on|off   the engine host's seccomp sandbox (default on); off for an\n"                                \
    "                     engine that needs more (a GPU driver): every output says so\n"
int pecert_sandbox_arg(pecert_sandbox_mode *out, const char *usage, const char *cmd, const char *arg);

/* -j N takes at most this many workers (more only wait). */
#define PECERT_MAX_JOBS 1024

/* pecert_print_durations: the n slowest checks of res with their times,
 * slowest first (--durations N, as pytest's). */
struct pecert_run_results;
void pecert_print_durations(const struct pecert_run_results *res, int n);

/* pecert_print_failures: r's failure records in order (failing cases and
 * the notes explaining them), the first max of them (all for
 * PECERT_MAX_DETAILS_ALL), and how many more there are. */
void pecert_print_failures(const struct pecert_check_result *r, int max);

/* pecert_print_plugin_output: what the plugin printed during check r
 * (capture.h), under its line, each line marked "| " (--verbose). */
void pecert_print_plugin_output(const struct pecert_check_result *r);

/* pecert_print_wrapped: text from column indent, wrapped at spaces before
 * column 100 (check_print.c), continuation lines at indent + hang. */
void pecert_print_wrapped(int indent, int hang, const char *text);

/* The check-id column of run, certify and report: the longest id
 * (rope.long_position_precision, certify.rope.reference) fits it, so
 * every summary starts in one column (a unit test holds the ids to it). */
#define PECERT_CHECK_ID_COLUMN 28

/* How run, certify and report print one check. */
typedef struct pecert_print_opts {
    int id_width;     /* the check-id column                              */
    int quiet;        /* failures only                                    */
    int verbose;      /* every case (failing or not), the plugin's output, times */
    int no_timings;   /* no elapsed times (byte-stable output)            */
    int max_details;  /* failure lines per failed check                   */
} pecert_print_opts;

/* pecert_print_check: "  VERDICT id summary", the grade, and under a
 * failed check its failure lines (the summary's "; first: ..." tail is not
 * repeated above them). */
void pecert_print_check(const struct pecert_check_result *r, const pecert_print_opts *o);

/* pecert_print_findings: the run's diagnosis, one "diagnosis:" line and
 * its evidence per finding. */
struct pecert_run_results;
void pecert_print_findings(const struct pecert_run_results *res);

/* pecert_term_filter_install: stdout and stderr from here on write control
 * characters and invalid UTF-8 as visible escapes (term_filter.c), so
 * that nothing a plugin, config or vector file says drives the terminal. */
void pecert_term_filter_install(void);

/* pecert_term_raw: text straight to the terminal (after flushing stdout),
 * past the filter: pecert's own progress line and nothing else. */
void pecert_term_raw(const char *text);

/* pecert_now_s: the monotonic clock in seconds (progress lines). */
double pecert_now_s(void);

/* pecert_default_vectors: $PECERT_VECTORS, else the data's vectors/: the
 * installed copy (PREFIX/share/pecert, `make install`) when pecert runs
 * from PREFIX/bin, else the source tree's. pecert_default_profiles and
 * pecert_default_catalogue: the same data's conformance/profiles and
 * impls/mutants/catalogue.json. */
const char *pecert_default_vectors(void);
const char *pecert_default_profiles(void);
const char *pecert_default_catalogue(void);

#endif /* PECERT_CLI_COMMANDS_H */
