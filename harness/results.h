/*
 * results.h - the one results model of a pecert run.
 *
 * Checks fill it, the runner carries it across the process boundary (as
 * JSON), and every output (terminal summary, JSON file, later HTML/JUnit)
 * is rendered from it without recomputing anything.
 */
#ifndef PECERT_HARNESS_RESULTS_H
#define PECERT_HARNESS_RESULTS_H

#include <stddef.h>
#include <stdint.h>

/* Outcome of one check on one plugin. Order matters: worse is larger. */
typedef enum pecert_verdict {
    PECERT_VERDICT_PASS = 0,
    PECERT_VERDICT_UNSUPPORTED, /* the plugin lacks an op the check needs */
    PECERT_VERDICT_FAIL,        /* a value outside its bound, or bad status */
    PECERT_VERDICT_CRASH,       /* the child died on a signal or exit     */
    PECERT_VERDICT_TIMEOUT,     /* the child exceeded the time limit      */
    PECERT_VERDICT_COUNT
} pecert_verdict;

const char *pecert_verdict_name(pecert_verdict verdict);

/* A check id, with a layer type: "batch.padding_independence@sliding". */
#define PECERT_CHECK_ID_MAX 64

/* Longest line a detail or diagnosis may hold (longer text is cut). */
#define PECERT_RESULT_LINE_MAX 512
/* Failure lines a terminal prints per check unless --max-details says. */
#define PECERT_DEFAULT_MAX_DETAILS 8
/* Failure records kept per check: every failing case of any run pecert's
 * checks make (the largest, a vector directory of ~10^3 vectors, fails far
 * fewer), and a bound on the memory and the child's result message when a
 * plugin fails everything. Past it, records are counted, not kept. */
#define PECERT_RESULT_MAX_FAILURES 4096

/* What made a case fail. */
typedef enum pecert_failure_kind {
    PECERT_FAILURE_VALUE = 0, /* an element outside its bound              */
    PECERT_FAILURE_STATUS,    /* the plugin returned an error, or a
                               * property the check states did not hold   */
    PECERT_FAILURE_ORACLE,    /* the oracle refused the case (not counted
                               * against the plugin)                       */
    PECERT_FAILURE_NOTE,      /* not a case: what the check makes of its
                               * failures (a matching hypothesis, the error
                               * by position)                              */
    PECERT_FAILURE_KIND_COUNT
} pecert_failure_kind;

const char *pecert_failure_kind_name(pecert_failure_kind kind);

/* A golden vector: its file (as the run loaded it) and tcId; file "" and
 * tc_id -1 when a case is not a golden vector's (a property case). */
typedef struct pecert_vector_id {
    char file[256];
    int64_t tc_id;
} pecert_vector_id;

/*
 * One failing case as data: the line the terminal prints, and the fields
 * a script reads without parsing it. file/tc_id name the golden vector the
 * case checked (the result's open vector when it was recorded); a property
 * case has file "" and tc_id -1.
 * The numbers are those of the case's worst element (VALUE only; NaN
 * otherwise).
 */
typedef struct pecert_failure {
    pecert_failure_kind kind;
    char line[PECERT_RESULT_LINE_MAX];    /* the detail line, as printed  */
    char where[PECERT_RESULT_LINE_MAX];   /* the case                     */
    char file[256];                       /* golden vector file, or ""    */
    int64_t tc_id;                        /* its tcId, or -1              */
    char element[160];                    /* worst element "[t=..] pos=.." */
    int64_t position;                     /* its position id (the angle's
                                           * multiplier), or -1          */
    double want;
    double got;
    double error;                         /* |got - want|                 */
    double bound;                         /* the tolerance there          */
    int64_t n_bad;                        /* elements of the case off     */
    int64_t n_checked;                    /* elements of the case compared */
} pecert_failure;

#define PECERT_RESULT_MAX_SYMPTOMS 16

/* The symptom of a certify check whose cases the checkpoint needs and the
 * plugin declined (certify_plan.c, pecert_plan_judge_essential): the
 * reason the checkpoint is not certified, read by the diagnosis and by the
 * report's verdict. */
#define PECERT_SYMPTOM_ESSENTIAL_DECLINED "declined:essential"
/* A check the plugin has no operation for (a NULL entry point, an ABI
 * before the one the check needs): not examined, never "declined"
 * (certificate.h). */
#define PECERT_SYMPTOM_NO_OPERATION "unsupported:no_operation"
/* A part of the checkpoint pecert itself does not certify (a tower of
 * another kind, the position ids a wrapper computes), named by certify
 * so that the certificate says so: not examined, the diagnosis why. */
#define PECERT_SYMPTOM_NOT_BY_PECERT "unsupported:not_by_pecert"

/* A failing case whose worst element is a NaN (on either side: a
 * property compares two outputs of the plugin) or an infinity where a
 * number is due (check_util.c): named as such by the diagnosis, never read
 * as a scaling or position bug. */
#define PECERT_SYMPTOM_NONFINITE "output:nonfinite"
#define PECERT_SYMPTOM_LEN 48

/* What a sample's position counts: a token's position id (the rotation
 * angle's), or a token's index in a sequence (prefill, then decode steps). */
typedef enum pecert_point_axis {
    PECERT_AXIS_POSITION = 0,
    PECERT_AXIS_TOKEN,
    PECERT_AXIS_COUNT
} pecert_point_axis;

const char *pecert_point_axis_name(pecert_point_axis axis);

/* One (position, error, bound) sample: feeds error-vs-position plots. */
typedef struct pecert_error_point {
    int64_t position; /* token position, or -1 when not positional */
    double error;     /* worst |got - want| at that position        */
    double bound;     /* the tolerance at the same element          */
} pecert_error_point;

/*
 * A [rows x cols] grid of worst error/bound ratios over one case, e.g.
 * heads x channel pairs of rope.apply.golden's worst vector: shows which
 * heads and which frequencies carry the error. rows == 0: no grid.
 */
typedef struct pecert_heatmap {
    char label[PECERT_RESULT_LINE_MAX];   /* the case, "FILE:tcId=N"      */
    char row_axis[24];                    /* e.g. "head"                  */
    char col_axis[24];                    /* e.g. "channel pair"          */
    int32_t rows;
    int32_t cols;
    double *ratio;                        /* rows*cols, row-major, owned  */
} pecert_heatmap;

/* Largest grid a check may keep (cells). */
#define PECERT_HEATMAP_MAX_CELLS 8192

/* A golden vector a failure record or the worst case names (their file
 * and tcId fields), with what the vector file says about it; filled by the
 * runner, which has the files loaded, so reports can show provenance
 * without reading vectors. */
typedef struct pecert_vector_ref {
    char file[256];                       /* relative to the vectors dir  */
    int64_t tc_id;
    char comment[256];                    /* the test's one-line comment  */
    char flags[256];                      /* its flags, comma-separated   */
    char source[256];                     /* "upstream/file.py:function"  */
} pecert_vector_ref;

#define PECERT_RESULT_MAX_VREFS 8

/*
 * A precision grade: how far a passing (or failing) plugin sits from the
 * exact answer, next to how far the official float32 code sits at the
 * same element (TOLERANCES.md, "Precision grade"). Errors are in u =
 * 2^-24 of the element's scale (the value for frequencies, the pair norm
 * for rotated channels), the official one floored at the rounding of a
 * correctly rounded float32 result. It never changes a verdict: it tells
 * "less precise" from "wrong", and lets two engines be compared.
 */
typedef struct pecert_precision {
    int graded;          /* 0: the check has no grade                  */
    double ratio;        /* error_u / official_u at the graded element */
    double error_u;      /* the plugin's error there, in u             */
    double official_u;   /* the official float32 code's, in u (floored) */
    char measure[48];    /* "relative error", "error / pair norm"       */
    char where[PECERT_RESULT_LINE_MAX]; /* vector and element         */
} pecert_precision;

/* Above this ratio the grade is shown beside the verdict. */
#define PECERT_PRECISION_NOTE_RATIO 8.0

/* A case that is not a failure, kept only when asked (--verbose: "every
 * case"): within its bound, declined by the plugin, or beyond its
 * declared scope. Failing cases are the failure records. */
typedef enum pecert_case_outcome {
    PECERT_CASE_WITHIN = 0,
    PECERT_CASE_DECLINED,
    PECERT_CASE_BEYOND_SCOPE,
    PECERT_CASE_OUTCOME_COUNT
} pecert_case_outcome;

const char *pecert_case_outcome_name(pecert_case_outcome outcome);

typedef struct pecert_case_record {
    pecert_case_outcome outcome;
    double ratio;                         /* worst error/bound; NaN when
                                           * nothing was compared        */
    char line[PECERT_RESULT_LINE_MAX];    /* the case and what it gave    */
} pecert_case_record;

/* The result of one check on one plugin. */
typedef struct pecert_check_result {
    char check_id[PECERT_CHECK_ID_MAX];   /* e.g. "rope.apply.golden"     */
    pecert_verdict verdict;               /* overall outcome              */
    int64_t n_cases;                      /* cases (vectors, grid points) */
    int64_t n_failed;                     /* cases outside their bound    */
    int64_t n_unsupported;                /* cases the plugin declined    */
    int64_t n_beyond_scope;               /* cases outside the plugin's
                                           * declared scope (ABI 1.3), not
                                           * run; counted in n_unsupported */
    char beyond_scope[160];               /* why, for the first of them   */
    /* The first case the plugin declined (PECERT_E_UNSUPPORTED, within its
     * scope) and its last_error: "WHERE: OP declined: MESSAGE". A decline
     * is a reason a porter must see, in every output. */
    char declined[PECERT_RESULT_LINE_MAX];
    int64_t n_oracle_refused;             /* cases the oracle (ref) could
                                           * not answer: neither passed
                                           * nor the plugin's failure    */
    char oracle_refusal[PECERT_RESULT_LINE_MAX]; /* the first of them    */
    double worst_ratio;                   /* max error/bound over cases   */
    char worst_case[PECERT_RESULT_LINE_MAX]; /* where worst_ratio occurred */
    pecert_vector_id worst_vector;        /* its golden vector, if any    */
    /* The golden vector whose case is being checked, between
     * pecert_check_result_enter_vector and _leave_vector: the cases
     * recorded meanwhile name it as data. Not part of the results. */
    pecert_vector_id open_vector;
    char diagnosis[PECERT_RESULT_LINE_MAX];  /* one line: what is wrong    */
    pecert_failure *failures;             /* every failing case, in the
                                           * order found (owned; at most
                                           * PECERT_RESULT_MAX_FAILURES)  */
    size_t n_failures;
    int64_t n_failures_dropped;           /* failing cases past the cap   */
    /* Left out of a merged report that summarizes mutant runs (`pecert
     * report --mutant-failures N`); the run's own results file keeps them. */
    int64_t n_failures_summarized;        /* failure records              */
    int64_t n_points_summarized;          /* error samples                */
    pecert_error_point *points;           /* n_points samples, owned      */
    size_t n_points;
    pecert_point_axis points_axis;        /* what their positions count   */
    double elapsed_s;                     /* wall time of the check       */
    /* Symptoms: short tags a check attaches to what it saw ("pairing:
     * interleaved", "scaling:missing", "freq_off:llama3"); the diagnosis
     * (diagnose.h) reads them to name the bug. */
    char symptoms[PECERT_RESULT_MAX_SYMPTOMS][PECERT_SYMPTOM_LEN];
    int n_symptoms;
    int32_t index;                        /* position among the run's
                                           * selected checks (before
                                           * sharding): merge order      */
    pecert_heatmap heatmap;               /* optional error grid          */
    pecert_vector_ref vrefs[PECERT_RESULT_MAX_VREFS]; /* cited vectors   */
    int n_vrefs;
    pecert_precision precision;           /* graded checks only           */
    /* Every case that did not fail (PECERT_CASE_*), in the order run,
     * kept only when keep_cases is set before the check runs (--verbose);
     * at most PECERT_RESULT_MAX_FAILURES, the rest counted. */
    int keep_cases;
    pecert_case_record *cases;            /* owned                        */
    size_t n_case_records;
    int64_t n_case_records_dropped;
    char plugin_output[1025];             /* the first bytes the plugin
                                           * printed to stdout/stderr in
                                           * the check (capture.h)       */
    int64_t plugin_output_bytes;          /* how many it printed in all   */
} pecert_check_result;

/* What was run: plugin identity and the run's environment. Everything
 * here is deterministic on one machine (no clock, no pid), so the shards
 * of a run carry equal info and merge into an unsharded run's. */
typedef struct pecert_run_info {
    char plugin_path[1024];
    char plugin_id[128];
    char plugin_name[64];
    char plugin_version[64];
    char plugin_scope[192];      /* its declared scope in words (ABI 1.3,
                                  * pecert_scope_describe)             */
    char plugin_describe[256];   /* the plugin's describe() ("isa=avx2
                                  * threads=2"), "" if it has none      */
    char pecert_version[32];
    char vectors_dir[1024];
    int n_vector_files;
    int n_vectors;
    char vectors_hash[40];       /* "fnv1a64:<16 hex>" over the files   */
    double timeout_s;
    /* The host. */
    char cpu_model[128];         /* /proc/cpuinfo "model name"          */
    int cpus_online;
    char os[128];                /* uname: sysname release machine      */
    char compiler[128];          /* the compiler that built pecert      */
    /* The selection: --filter, and --shard I/N (1/1 when not sharded). */
    char filter[256];
    int shard_index;
    int shard_count;
    int n_selected;              /* checks selected before sharding     */
    /* --sandbox off: the engine host ran without its seccomp filters
     * (engine.h), so the plugin could reach what the sandbox keeps from
     * it. Every output says so, in these words. */
    int unsandboxed;
} pecert_run_info;

#define PECERT_UNSANDBOXED_WORDS "engine NOT sandboxed (--sandbox off)"

/* A vector file the run loaded, and where its golden values come from. */
typedef struct pecert_vector_source {
    char path[256];              /* relative to the vectors dir         */
    char family[32];
    char repo[128];              /* provenance.repo                     */
    char commit[48];             /* provenance.commit                   */
    char tag[64];                /* provenance.tag                      */
    int64_t n_vectors;
} pecert_vector_source;

#define PECERT_MAX_FINDINGS 16

/* A named bug the diagnosis believes the plugin has, and why. */
typedef struct pecert_finding {
    char id[32];                          /* stable, e.g. "pairing"       */
    char bug[PECERT_RESULT_LINE_MAX];     /* what is wrong, one line      */
    char evidence[PECERT_RESULT_LINE_MAX];/* which results say so         */
} pecert_finding;

/* A whole run: one plugin, many checks. */
typedef struct pecert_run_results {
    pecert_run_info info;
    pecert_check_result *checks; /* n_checks, owned */
    size_t n_checks;
    size_t cap_checks;
    pecert_finding findings[PECERT_MAX_FINDINGS]; /* from pecert_diagnose */
    int n_findings;
    pecert_vector_source *sources; /* n_sources vector files, owned     */
    size_t n_sources;
} pecert_run_results;

/* pecert_check_result_init zeroes r and names it. */
void pecert_check_result_init(pecert_check_result *r, const char *check_id);
/* pecert_check_result_release frees what r owns (its points). */
void pecert_check_result_release(pecert_check_result *r);
/* pecert_check_result_enter_vector opens golden vector (file, tc_id): the
 * cases recorded until pecert_check_result_leave_vector name it. */
void pecert_check_result_enter_vector(pecert_check_result *r, const char *file, int64_t tc_id);
void pecert_check_result_leave_vector(pecert_check_result *r);
/* pecert_check_result_add_failure appends a record (copied; a case record
 * without a vector takes the open one, a note none); past
 * PECERT_RESULT_MAX_FAILURES it only counts it. Returns 0 or -1 (nomem). */
int pecert_check_result_add_failure(pecert_check_result *r, const pecert_failure *f);
/* pecert_check_result_add_case: a case that did not fail, when r keeps
 * them (keep_cases; otherwise a no-op); past PECERT_RESULT_MAX_FAILURES
 * only counted. Returns 0 or -1 (nomem). */
int pecert_check_result_add_case(pecert_check_result *r, pecert_case_outcome outcome, double ratio,
                                 const char *line);
/* pecert_check_result_add_line: a record of one line (no numbers). */
int pecert_check_result_add_line(pecert_check_result *r, pecert_failure_kind kind, const char *line);
/* pecert_failure_blank: a record with no numbers (NaN), tc_id -1. */
pecert_failure pecert_failure_blank(pecert_failure_kind kind);
/* pecert_check_result_first_line: the first failure's line, or "?". */
const char *pecert_check_result_first_line(const pecert_check_result *r);
/* pecert_check_result_add_point appends a sample on axis (a check's
 * samples share one); returns 0 or -1 (nomem). */
int pecert_check_result_add_point(pecert_check_result *r, pecert_point_axis axis, int64_t position, double error,
                                  double bound);

/* Most shards a run may be split into (`pecert run --shard I/N`). */
#define PECERT_MAX_SHARDS 4096

/* pecert_shard_of: the shard (1..count) that holds the check selected
 * k-th (from 0, registry order): shards deal the selection round-robin. */
static inline int pecert_shard_of(int64_t k, int count)
{
    return (int)(k % count) + 1;
}

/* pecert_verdict_unfounded: NULL when r's verdict is one its own counts
 * and records allow, else what contradicts it ("failed 1 of 12 cases",
 * "a failure record of kind value", "no case was answered", "worst
 * error/bound ratio inf, beyond 1") in why. A verdict may be worse than its evidence (a crash
 * after some cases passed, a declined essential case), never better:
 * PASS needs an answered case, no failed case, no value or status
 * failure record and a worst ratio within 1; NOT SUPPORTED needs no
 * failed case and no such record. Every results file and every check
 * child's result is held to it (results_json.c), so that flipping a
 * verdict by hand, or from inside a plugin, cannot turn a failure into
 * a pass. */
const char *pecert_verdict_unfounded(const pecert_check_result *r, char *why, size_t why_len);

/* pecert_run_certified_nothing: 1 when no check of a whole (unsharded or
 * merged) run passed, or it has none: the plugin implements none of what
 * was selected, or declined all of it. Zero evidence is not a pass: the
 * run fails and the diagnosis says so. A shard may hold only checks of
 * another family, so a shard is judged when merged. */
int pecert_run_certified_nothing(const pecert_run_results *run);

/* pecert_run_results_find: the result of check id in run, or NULL. */
const pecert_check_result *pecert_run_results_find(const pecert_run_results *run, const char *id);

/* pecert_precision_noted: 1 when r's grade is shown beside its verdict: a
 * passing check (a grade tells "less precise" from "wrong", so under a
 * failure it would only mislead) graded above PECERT_PRECISION_NOTE_RATIO. */
int pecert_precision_noted(const pecert_check_result *r);

/* pecert_precision_line: the grade in words ("relative error 36 u at X,
 * 30x the official float32 code's 1.2 u"), or "" when not graded. */
void pecert_precision_line(char *out, size_t len, const pecert_precision *p);

/* pecert_check_result_max_point keeps one sample per position: appends
 * (position, error, bound), or replaces the sample already there when the
 * new one has the larger error/bound ratio. Returns 0 or -1 (nomem). */
int pecert_check_result_max_point(pecert_check_result *r, pecert_point_axis axis, int64_t position, double error,
                                  double bound);

/* pecert_heatmap_alloc sizes h as rows x cols of zeros (labels untouched);
 * returns 0, or -1 if too big or no memory (h is then empty). */
int pecert_heatmap_alloc(pecert_heatmap *h, int32_t rows, int32_t cols);
void pecert_heatmap_release(pecert_heatmap *h);
/* pecert_heatmap_max: the largest ratio in h (NaN counts as +inf). */
double pecert_heatmap_max(const pecert_heatmap *h);
/* pecert_check_result_keep_heatmap moves *h into r if r has none or h's
 * worst ratio is larger; frees whichever grid is not kept. */
void pecert_check_result_keep_heatmap(pecert_check_result *r, pecert_heatmap *h);

/* pecert_check_symptom attaches a symptom tag once (duplicates ignored). */
void pecert_check_symptom(pecert_check_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* pecert_check_has_symptom: 1 if r carries tag (exact match). */
int pecert_check_has_symptom(const pecert_check_result *r, const char *tag);

/* pecert_run_results_append moves *r (points and heatmap included) into
 * run; r is left empty. 0 / -1. */
int pecert_run_results_append(pecert_run_results *run, pecert_check_result *r);
/* pecert_run_results_free frees the checks and the sources. */
void pecert_run_results_free(pecert_run_results *run);

/* Counts of checks per verdict. */
void pecert_run_results_count(const pecert_run_results *run,
                              size_t counts[PECERT_VERDICT_COUNT]);

#endif /* PECERT_HARNESS_RESULTS_H */
