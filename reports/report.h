/*
 * report.h - the report: the results of one or more runs (several plugins,
 * and/or the shards of a run merged back), each with the role it plays,
 * rendered as a self-contained HTML page, JUnit XML or merged JSON.
 *
 * Renderers only format what the results model holds (results.h); the
 * one thing computed here is what the roles imply: whether a mutant was
 * caught, and the report's overall verdict.
 */
#ifndef PECERT_REPORTS_REPORT_H
#define PECERT_REPORTS_REPORT_H

#include <stddef.h>

#include "certificate.h"
#include "results.h"

/* Schema of a report-level JSON document (several runs with roles). A
 * report of one certified run is written as that run's own
 * pecert-results/1 document, so a merge of shards equals an unsharded run. */
#define PECERT_REPORT_SCHEMA "pecert-report/1"

/* What a run is in the report, and so what its failures mean. */
typedef enum pecert_report_role {
    PECERT_ROLE_CERTIFY = 0, /* must pass: a failure fails the report     */
    PECERT_ROLE_ALLOWED,     /* --allow-fail: shown, never fails it       */
    PECERT_ROLE_MUTANT,      /* a planted bug: must be caught (catalogue) */
    PECERT_ROLE_COUNT
} pecert_report_role;

#define PECERT_MUTANT_MAX_MUST_FAIL 16

/* A mutant's catalogue entry (impls/mutants/catalogue.json). */
typedef struct pecert_mutant_expect {
    char bug_class[64];                      /* e.g. "pairing convention"  */
    char diagnosis[PECERT_RESULT_LINE_MAX];  /* the bug, in words          */
    char finding[32];                        /* finding id the run's
                                              * diagnosis must name, or "" */
    char must_fail[PECERT_MUTANT_MAX_MUST_FAIL][64]; /* check ids          */
    int n_must_fail;
} pecert_mutant_expect;

/* One run of the report. */
typedef struct pecert_report_run {
    pecert_run_results res;          /* merged: shard 1/1                    */
    char label[192];                 /* unique display name ("fast [isa=..]") */
    char origin[256];                /* the file it came from (first shard)  */
    pecert_report_role role;
    pecert_mutant_expect expect;     /* role MUTANT                          */
    int not_run;                     /* a catalogued mutant without results  */
    int caught;                      /* MUTANT: every must_fail check failed */
    int diagnosed;                   /* MUTANT: the finding is named (or none
                                      * is expected)                        */
    int catalogue_order;             /* MUTANT: 1 + its catalogue position,
                                      * 0 if unknown: the display order     */
} pecert_report_run;

struct pecert_bench;

typedef struct pecert_report {
    pecert_report_run *runs;         /* n_runs, owned, in display order     */
    size_t n_runs;
    size_t cap_runs;
    int no_timings;                  /* elapsed times zeroed everywhere     */
    /* >= 0: mutant runs summarized to this many failure records per check
     * (pecert_report_summarize_mutants); -1 (or 0 before it): whole. */
    int mutant_failures;
    int mutants_summarized;
    const struct pecert_bench *bench; /* speed figures for the HTML only
                                      * (report_bench.h), borrowed; NULL:
                                      * no Speed section                   */
} pecert_report;

/* pecert_report_role_name: "certify", "allowed_to_fail" or "mutant". */
const char *pecert_report_role_name(pecert_report_role role);

/* ---- building a report (report_model.c, report_load.c) ------------------ */

/* pecert_report_add_run moves *res into the report as a run of role role
 * (res is left empty). origin names where it came from. 0, or -1 nomem. */
int pecert_report_add_run(pecert_report *rep, pecert_run_results *res, pecert_report_role role,
                          const char *origin);

/* pecert_report_load_file reads a pecert-results/1 or pecert-report/1
 * file and adds its runs. Returns 0, or -1 with "FILE: problem" in err. */
int pecert_report_load_file(pecert_report *rep, const char *path, char *err, size_t err_len);

/* pecert_report_load_text: the same for text[0..len) read elsewhere (the
 * fuzz target), name standing for the file in messages. */
int pecert_report_load_text(pecert_report *rep, const char *text, size_t len, const char *name, char *err,
                            size_t err_len);

/*
 * pecert_report_merge joins the shards of each run (same plugin name, id,
 * version and describe line) into one run ordered as an unsharded run,
 * with its diagnosis recomputed from all its checks. Shards must agree on
 * selection and vector set and be complete. Returns 0, or -1 with one line
 * in err naming the plugin and the file(s) at fault.
 */
int pecert_report_merge(pecert_report *rep, char *err, size_t err_len);

/* pecert_report_apply_catalogue marks runs whose plugin name is a mutant
 * of the catalogue at path as mutants with their expectations, and adds a
 * not-run entry for each mutant without results. 0, or -1 with err. */
int pecert_report_apply_catalogue(pecert_report *rep, const char *path, char *err, size_t err_len);

/* pecert_report_allow_fail: runs of plugin `name` may fail. Returns how
 * many runs it matched. */
size_t pecert_report_allow_fail(pecert_report *rep, const char *name);

/* pecert_report_summarize_mutants keeps, of every mutant run, the first
 * keep failure records of each check and the error samples of only the
 * checks its catalogue entry names (call after pecert_report_finish); what
 * it leaves out is counted (n_failures_summarized, n_points_summarized)
 * and stays in the run's own results file. Verdicts, worst ratios, the
 * diagnosis and the separation table do not change. */
void pecert_report_summarize_mutants(pecert_report *rep, int keep);

/* pecert_report_is_certify_run: 1 when run is a `pecert certify` run (its
 * selection names the checkpoint: "certify NAME (...)"). */
int pecert_report_is_certify_run(const pecert_report_run *run);

/* pecert_report_run_certificate: 1 and *c filled when run is a certify
 * run (its selection names the checkpoint), with the class and coverage
 * certify itself printed (certificate.h); 0 for any other run. */
int pecert_report_run_certificate(const pecert_report_run *run, pecert_certificate *c);

/* pecert_report_finish orders runs (certified, allowed, mutants; stable),
 * gives each a unique label, judges the mutants and applies no_timings.
 * Call it once, after everything above and before rendering. */
void pecert_report_finish(pecert_report *rep);

/* pecert_report_passed: 1 if every certified run passed (no check failed,
 * crashed or timed out) and every mutant was caught and diagnosed. */
int pecert_report_passed(const pecert_report *rep);

/* pecert_report_run_failed: 1 if a check of run failed, crashed or timed
 * out, or it certified nothing; a certify run by its class: 1 when NOT
 * CERTIFIED. */
int pecert_report_run_failed(const pecert_report_run *run);

void pecert_report_free(pecert_report *rep);

/* ---- separation (separation.c) ------------------------------------------ */

/* The goals of TOLERANCES.md, "Separation": a correct engine uses at most
 * half its bound, a real bug misses it tenfold. */
#define PECERT_SEPARATION_HONEST_GOAL 0.5
#define PECERT_SEPARATION_MUTANT_GOAL 10.0

/* One check: the worst error/bound of the honest variants that ran it and
 * the smallest worst error/bound of the mutants that must fail it. */
typedef struct pecert_separation_row {
    char check_id[64];
    int n_honest;          /* honest runs that measured the check       */
    double honest_worst;   /* their largest worst_ratio                 */
    char honest_who[128];  /* the plugin name with it                   */
    int n_mutants;         /* mutant runs whose entry names the check   */
    double mutant_least;   /* their smallest worst_ratio (+inf: a status
                            * or structural failure, not a value)       */
    char mutant_who[128];
} pecert_separation_row;

typedef struct pecert_separation {
    pecert_separation_row *rows;  /* in the order the runs list checks */
    size_t n_rows;
    size_t cap_rows;
    int n_honest_runs;
    int n_mutant_runs;
} pecert_separation;

/* pecert_report_run_is_honest: a run of an honest variant (impls/honest/,
 * plugin id org.pecert.honest.*) that is not a mutant. */
int pecert_report_run_is_honest(const pecert_report_run *run);

/* pecert_report_separation measures every check the report's honest and
 * mutant runs exercise (call after pecert_report_finish). 0, or -1 nomem. */
int pecert_report_separation(const pecert_report *rep, pecert_separation *out);
void pecert_separation_free(pecert_separation *s);

/* 1 if the row meets both goals (a side nothing measured meets it). */
int pecert_separation_row_meets_goal(const pecert_separation_row *r);

/* A ratio as the tables print it: "0", "inf", 3 significant digits. */
void pecert_separation_format_ratio(char *out, size_t len, double ratio);

/* pecert_separation_markdown: the table of TOLERANCES.md (caller frees),
 * or NULL on nomem. */
char *pecert_separation_markdown(const pecert_separation *s);

/* ---- rendering: each returns malloc'ed text (caller frees) or NULL ------- */

/* pecert_report_html: the self-contained HTML page (html.c), with a
 * Speed section when rep->bench is set. */
char *pecert_report_html(const pecert_report *rep);
/* pecert_report_junit: JUnit XML (junit.c). */
char *pecert_report_junit(const pecert_report *rep);
/* pecert_report_json: the merged results (report_json.c): one certified
 * run as its pecert-results/1 document, anything else as pecert-report/1. */
char *pecert_report_json(const pecert_report *rep);

/* ---- outputs (report_write.c) -------------------------------------------
 * Every format a report is written in is one row of pecert_report_formats:
 * its option (every command that writes a report takes the same ones,
 * cli/outputs.h), its renderer, in the order they are rendered. A new
 * format is an id here, a row there and its renderer. */
typedef enum pecert_report_format_id {
    PECERT_FORMAT_HTML,
    PECERT_FORMAT_JUNIT,
    PECERT_FORMAT_JSON,
    PECERT_FORMAT_COUNT
} pecert_report_format_id;

typedef struct pecert_report_format {
    const char *option;            /* "json": the option --json FILE      */
    char *(*render)(const pecert_report *rep);
} pecert_report_format;

extern const pecert_report_format pecert_report_formats[PECERT_FORMAT_COUNT];

/* The outputs a command was asked for. */
typedef struct pecert_report_outputs {
    const char *path[PECERT_FORMAT_COUNT]; /* NULL: not wanted            */
    int no_timings;                /* --no-timings: every elapsed time 0  */
} pecert_report_outputs;

/* 1 if out asks for any file. */
int pecert_report_outputs_wanted(const pecert_report_outputs *out);

/* pecert_report_write renders every wanted output first and only then
 * writes them (atomically, each through a temporary file), so bad input
 * or a rendering failure leaves no output file behind. 0, or -1 with err. */
int pecert_report_write(const pecert_report *rep, const pecert_report_outputs *out, char *err,
                        size_t err_len);

#endif /* PECERT_REPORTS_REPORT_H */
