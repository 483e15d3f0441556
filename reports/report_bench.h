/*
 * report_bench.h - the speed figures the HTML report can show next to the
 * conformance results: what `pecert bench --json` writes (pecert-bench/1,
 * bench/driver.c + bench/report.c) and what `make bench-peers` writes
 * (pecert-bench-peers/1, bench/peers.py).
 *
 * Loading is strict about what the Speed section shows: every field it
 * renders must be there with its JSON type, except the ones marked
 * optional below; keys and arrays it does not know are ignored, so a later
 * bench can add sections without breaking older reports. A bench file is
 * not a test: it changes the HTML only, never the JSON or JUnit outputs.
 */
#ifndef PECERT_REPORTS_REPORT_BENCH_H
#define PECERT_REPORTS_REPORT_BENCH_H

#include <stddef.h>
#include <stdint.h>

#define PECERT_BENCH_SCHEMA "pecert-bench/1"
#define PECERT_BENCH_PEERS_SCHEMA "pecert-bench-peers/1"

/* "time": the spread of the samples of one case (seconds per call). */
typedef struct pecert_bench_time {
    double min_s;                /* fastest sample                        */
    double median_s;             /* the figure every table shows          */
    double max_s;                /* slowest sample                        */
    int64_t samples;             /* samples taken                         */
    int64_t calls_per_sample;    /* calls timed together in one sample    */
} pecert_bench_time;

/* One element of "cases" (rotary_dim set), of "mrope" (section set) or
 * of "rope2d" (frequencies and grid_width set). */
typedef struct pecert_bench_case {
    char impl[32];               /* "fast", "ref"                         */
    int64_t tokens;              /* T of q[T, heads, head_dim]            */
    int64_t heads;
    int64_t head_dim;
    int64_t threads;
    char pairing[16];            /* "split_half" or "interleaved"         */
    char placement[16];          /* "out_of_place" or "in_place"          */
    int64_t rotary_dim;          /* cases only; 0 in mrope                */
    int64_t section[3];          /* mrope only: t/h/w channel split       */
    char frequencies[16];        /* rope2d only: "blocks", "alternate"    */
    int64_t grid_width;          /* rope2d only: patches per image row    */
    char dtype[8];               /* "f32", "f16", "bf16"                  */
    double bytes;                /* size of q                             */
    pecert_bench_time time;
    double gbps;                 /* bytes read + written per second / 1e9 */
    double limit_gbps;           /* the machine's measured limit          */
    char limit_probe[16];        /* which probe measured it ("copy", ...) */
    double speedup_vs_ref;       /* optional: ref median / median; NAN    */
} pecert_bench_case;

/* One element of "tables": building the cos/sin table. */
typedef struct pecert_bench_table {
    char impl[32];
    int64_t tokens;
    int64_t half;                /* frequencies per position              */
    int64_t threads;
    pecert_bench_time time;
} pecert_bench_table;

/* One element of "accuracy": the table against ref over a position range. */
typedef struct pecert_bench_accuracy {
    int64_t first_position;
    int64_t positions;
    double max_abs_error;
} pecert_bench_accuracy;

/* One element of "machine_load": how busy other processes kept the CPUs
 * while the cases of one T ran (a share of all CPUs; < 0 not measured). */
typedef struct pecert_bench_load {
    int64_t tokens;
    double other_processes_cpu_share;
} pecert_bench_load;

/* One element of "alibi": the ALiBi bias [heads, n_q, n_k] in f32. */
typedef struct pecert_bench_alibi {
    char impl[32];
    int64_t heads;
    int64_t n_q;
    int64_t n_k;
    int64_t threads;
    double bytes_written;
    pecert_bench_time time;
    double gbps;                 /* bytes written per second / 1e9        */
    double fill_limit_gbps;      /* the fill (stores only) probe          */
    double speedup_vs_ref;       /* optional; NAN                         */
} pecert_bench_alibi;

/* One element of "session": a decode session's life (session_create, a
 * prefill append, decode appends of one token, destroy) on one thread
 * count; its shape is bench/session.c's. */
typedef struct pecert_bench_session {
    char impl[32];
    int64_t heads;
    int64_t kv_heads;
    int64_t head_dim;
    int64_t prefill;             /* tokens of the first append            */
    int64_t decode;              /* one-token appends after it            */
    int64_t threads;
    double flops;                /* 4 * head_dim per (query head, token seen) */
    pecert_bench_time time;
    double gflops;
    double speedup_vs_ref;       /* optional; NAN                         */
} pecert_bench_session;

/* One element of "families": another family's op at one size and thread
 * count, against its limit probe (bench/families.c). */
typedef struct pecert_bench_family {
    char op[32];
    char shape[96];
    char impl[32];
    int64_t threads;
    int memory_bound;            /* the summary's memory target applies   */
    double bytes_read;
    double bytes_written;
    pecert_bench_time time;
    double gbps;                 /* (read + written) / s / 1e9            */
    double limit_gbps;           /* optional (the plugin's rows); NAN     */
    char limit_probe[16];        /* optional; ""                          */
    double pct_of_limit;         /* optional; NAN                         */
    double speedup_vs_ref;       /* optional; NAN                         */
} pecert_bench_family;

/* One member of "targets" (the goals, worst case over the grid). */
typedef struct pecert_bench_target {
    char key[64];                /* its key in "targets"                  */
    double value;                /* 0: not measured ("n/a")               */
    double target;
    char unit[16];
    int met;
    int64_t cases;               /* optional: cases feeding it; -1        */
    int64_t cases_meeting;       /* optional: of those, meeting it; -1    */
} pecert_bench_target;

/* One element of the peers' "summary": fast against torch's best formula
 * (f32, out of place, full rotary) at one T and thread count. */
typedef struct pecert_bench_peer {
    int64_t tokens;
    int64_t threads;
    char torch_best_formula[16]; /* "hf" or "meta"                        */
    double torch_best_median_s;
    double fast_best_median_s;
    double fast_over_torch;      /* time ratio: < 1, fast is faster       */
} pecert_bench_peer;

typedef struct pecert_bench_notes {
    char (*text)[512];           /* n strings, owned                      */
    size_t n;
} pecert_bench_notes;

/* "machine": where the figures were measured. */
typedef struct pecert_bench_machine {
    char cpu[256];               /* model name                            */
    int64_t online_cpus;
    char probe_isa[32];          /* ISA of the bandwidth probes           */
} pecert_bench_machine;

/* A pecert-bench/1 file: `pecert bench` of one subject against its
 * reference and the machine's measured limits. */
typedef struct pecert_bench_run {
    char path[256];              /* the file; "" if none was given        */
    pecert_bench_machine machine;
    char impl[32];               /* the subject ("fast")                  */
    char impl_describe[192];     /* its describe() line                   */
    char baseline[32];           /* the reference ("ref", or "")          */
    pecert_bench_case *cases;    /* every array: n_<name> elements, owned */
    size_t n_cases;
    pecert_bench_case *mrope;    /* optional array                        */
    size_t n_mrope;
    pecert_bench_case *rope2d;   /* optional array                        */
    size_t n_rope2d;
    pecert_bench_table *tables;
    size_t n_tables;
    pecert_bench_accuracy *accuracy;
    size_t n_accuracy;
    pecert_bench_load *machine_load;
    size_t n_machine_load;
    pecert_bench_alibi *alibi;
    size_t n_alibi;
    pecert_bench_session *session; /* optional array                      */
    size_t n_session;
    pecert_bench_family *families; /* optional array                      */
    size_t n_families;
    pecert_bench_target *targets;
    size_t n_targets;
    pecert_bench_notes notes;
} pecert_bench_run;

/* A pecert-bench-peers/1 file: fast next to PyTorch in one process. */
typedef struct pecert_bench_peers {
    char path[256];              /* the file; "" if none was given        */
    char torch[64];              /* torch.__version__                     */
    char fast[192];              /* fast's describe() line there          */
    char note[512];              /* optional                              */
    pecert_bench_peer *summary;
    size_t n_summary;
} pecert_bench_peers;

/* The bench files given to one report: at most one of each schema. */
typedef struct pecert_bench {
    pecert_bench_run run;
    pecert_bench_peers peers;
} pecert_bench;

/*
 * pecert_bench_load_file reads path, a pecert-bench/1 or a
 * pecert-bench-peers/1 file (told apart by "schema"), into bench, which
 * holds at most one of each. Returns 0, or -1 with one line in err naming
 * the file and the field at fault ("F: cases[3].time.median_s: expected a
 * number, found a string"); bench is then unchanged.
 */
int pecert_bench_load_file(pecert_bench *bench, const char *path, char *err, size_t err_len);

/* pecert_bench_free frees what bench owns and zeroes it. */
void pecert_bench_free(pecert_bench *bench);

/* pecert__report_parse_file parses path as a JSON object (report_load.c);
 * NULL with "FILE: problem" in err. The caller cJSON_Deletes it. */
struct cJSON *pecert__report_parse_file(const char *path, char *err, size_t err_len);

#endif /* PECERT_REPORTS_REPORT_BENCH_H */
