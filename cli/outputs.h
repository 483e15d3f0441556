/*
 * outputs.h - the output options of every command that writes a report
 * (run, certify, certify --all-profiles, report, mutation): --json,
 * --html, --junit and --no-timings, read into one pecert_report_outputs
 * (report.h), whose format table names the options.
 */
#ifndef PECERT_CLI_OUTPUTS_H
#define PECERT_CLI_OUTPUTS_H

#include <getopt.h>

#include "report.h"

/* getopt_long values of the output options (above every short option). */
#define PECERT_OPT_OUTPUT 0x1000
#define PECERT_OPT_NO_TIMINGS (PECERT_OPT_OUTPUT + PECERT_FORMAT_COUNT)

/* The entries of a command's option table, one per format and
 * --no-timings (PECERT_FORMAT_* order). */
#define PECERT_OUTPUT_GETOPT                                                  \
    {"html", required_argument, NULL, PECERT_OPT_OUTPUT + PECERT_FORMAT_HTML},   \
    {"junit", required_argument, NULL, PECERT_OPT_OUTPUT + PECERT_FORMAT_JUNIT}, \
    {"json", required_argument, NULL, PECERT_OPT_OUTPUT + PECERT_FORMAT_JSON},   \
    {"no-timings", no_argument, NULL, PECERT_OPT_NO_TIMINGS}

/* The help lines of a command whose outputs are its own run's results. */
#define PECERT_OUTPUTS_USAGE                                                \
    "  --json FILE        write the results as JSON (atomically)\n"          \
    "  --html FILE        write a self-contained HTML report (atomically)\n" \
    "  --junit FILE       write JUnit XML for CI (atomically)\n"

/* pecert_outputs_option: 1 if getopt value c is an output option (then
 * stored in out), else 0. */
int pecert_outputs_option(pecert_report_outputs *out, int c, const char *arg);

/* pecert_outputs_check: each output asked for is writable where it will be
 * written (pecert_check_outputs); -1 after saying why. */
int pecert_outputs_check(const char *cmd, const pecert_report_outputs *out);

/* pecert_outputs_write_run: the outputs of one run (run, certify) through
 * the one report model; *res is moved into it, origin names the command.
 * 0, or -1 after saying why. */
int pecert_outputs_write_run(pecert_run_results *res, const char *origin, const pecert_report_outputs *out);

#endif /* PECERT_CLI_OUTPUTS_H */
