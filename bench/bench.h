/*
 * bench.h - the pieces of `pecert bench` (driver.c runs them; cli/bench.c reads
 * its options).
 *
 *   timing.c   clock, repeated samples, min/median/max
 *   team.c     a spinning thread team for the bandwidth probes
 *   probe.c    the machine's copy and in-place read-modify-write bandwidth
 *   subject.c  a plugin instance to time (load, create, threads, describe)
 *   cases.c    the RoPE apply and cos/sin table cases, accuracy vs ref
 *   families.c the other families' ops against their limits and ref
 *   session.c  the decode session of a Llama-3-8B layer against ref
 *   report.c   the terminal table and the JSON file
 *
 * Conventions: every buffer is caller-allocated and pre-faulted before
 * any timing; bandwidth counts bytes read plus bytes written (a copy of N
 * bytes moves 2N), so a kernel's GB/s and the probe's compare directly.
 */
#ifndef PECERT_BENCH_H
#define PECERT_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "pecert/plugin.h"
#include "plugin_load.h"

/* ---- timing.c ------------------------------------------------------------ */

/* Seconds on the monotonic clock. */
double bench_now(void);

/* Summary of repeated samples, each the mean time of one call in s. */
typedef struct bench_stats {
    double min;
    double median;
    double max;
    int samples;     /* >= the requested repetitions                     */
    int inner;       /* calls per sample (short calls are batched)       */
    int rounds;      /* rounds of samples taken (BENCH_MAX_ROUNDS)       */
} bench_stats;

/* A round whose median exceeds its minimum by more than this factor was
 * disturbed (on these shared machines other tenants take the memory
 * bandwidth for seconds at a time, invisibly to /proc/stat): the case is
 * measured again, up to BENCH_MAX_ROUNDS rounds, and the round with the
 * lowest median (a group's: lowest sum of medians) is kept. Every figure (probes included) is measured the
 * same way, so the ratios between them stay fair. */
#define BENCH_SETTLED_SPREAD 1.15
#define BENCH_MAX_ROUNDS 3

/* A timed operation: returns 0, or -1 to abort the measurement. */
typedef int (*bench_fn)(void *context);

/* bench_measure: one warm-up call (also sizes the batch so a sample lasts
 * at least min_sample_s), then rounds of `reps` samples until one is
 * settled (BENCH_SETTLED_SPREAD) or BENCH_MAX_ROUNDS were taken; the
 * statistics of the round with the lowest median. Returns 0, or -1 if
 * the operation failed. */
int bench_measure(bench_stats *out, bench_fn fn, void *context, int reps, double min_sample_s);

/* One operation of a group measured together. before/after (NULL: none)
 * run around each of its samples, untimed (e.g. waking and parking a
 * probe's spinning thread team, which must not run beside the others). */
typedef struct bench_member {
    bench_fn fn;
    void *context;
    void (*before)(void *context);
    void (*after)(void *context);
    bench_stats stats;  /* out */
} bench_member;

/* bench_measure_group: bench_measure for n members whose samples are
 * taken in turn (A B C A B C ...): a slow phase of the shared host then
 * falls on all of them alike, so their ratios (split-half / interleaved,
 * kernel / copy limit) hold even when the absolute figures move. A round
 * is settled when every member's is; the round with the lowest sum of
 * medians is kept, for all members together. 0, or -1 if one failed. */
int bench_measure_group(bench_member *members, int n, int reps, double min_sample_s);

/* Other processes' share of the machine's CPUs over an interval: a
 * 2-thread OpenMP call waits for its slower thread, and a thread that
 * shares its CPU with another process costs it a scheduler time slice
 * (~8 ms here), so results are flagged when others were busy. */
typedef struct bench_load {
    double wall;     /* bench_now() at the start                     */
    double machine;  /* busy CPU seconds of the machine (/proc/stat)  */
    double own;      /* this process's CPU seconds                    */
} bench_load;

void bench_load_start(bench_load *load);
/* Fraction (0..1) of all CPUs other processes used since start, or -1
 * if /proc/stat is unreadable. */
double bench_load_others(const bench_load *load);

/* ---- team.c --------------------------------------------------------------- */

/* Work of thread ith of nth. */
typedef void (*bench_work_fn)(void *context, int ith, int nth);

typedef struct bench_team bench_team;

/* A team of n threads (the caller is thread 0); idle workers spin, so a
 * team lives only while the probes run. NULL on failure. */
bench_team *bench_team_start(int n);
/* Runs fn on every thread of the team and waits for all of them. */
void bench_team_run(bench_team *team, bench_work_fn fn, void *context);
void bench_team_stop(bench_team *team);
/* A team whose workers are pinned to the process's 2nd.. nth CPUs (when it
 * has n), for parking: bench_team_park puts the workers to sleep until
 * bench_team_unpark, which also pins the caller to the first CPU until
 * the next park (wake-ups otherwise tend to land a worker on the waker's
 * CPU). */
bench_team *bench_team_start_pinned(int n);
void bench_team_park(bench_team *team);
void bench_team_unpark(bench_team *team);

int bench_team_size(const bench_team *team);

/* ---- probe.c --------------------------------------------------------------- */

typedef enum bench_probe_kind {
    BENCH_PROBE_COPY = 0,   /* vector loads + stores                       */
    BENCH_PROBE_COPY_NT,    /* vector loads + streaming stores             */
    BENCH_PROBE_MEMCPY,     /* the C library's memcpy                      */
    BENCH_PROBE_RMW,        /* in place: load, add, store                  */
    BENCH_PROBE_FILL,       /* stores only (streaming when large)          */
    BENCH_PROBE_MIX,        /* reads R and writes W bytes, in step         */
    BENCH_PROBE_COUNT
} bench_probe_kind;

const char *bench_probe_name(bench_probe_kind kind);

typedef struct bench_probe {
    bench_probe_kind kind;
    size_t bytes;           /* one buffer (a copy moves 2x this)           */
    int threads;
    bench_stats stats;
} bench_probe;

/* Measures one probe on src/dst (each >= bytes, 64-byte aligned,
 * pre-faulted): on the calling thread, or on every thread of team.
 * Returns 0 or -1. */
int bench_probe_run(bench_probe *out, bench_probe_kind kind, size_t bytes, bench_team *team,
                    void *src, void *dst, int reps);

/* A probe as a member of a group (bench_measure_group): on the calling
 * thread (team NULL), or on a team from bench_team_start_pinned, unparked
 * before each of its samples and parked after it (untimed), so its
 * spinning workers never run beside the other members. (A team started
 * per sample shared the caller's core until the scheduler moved it, and
 * an unpinned parked one woke on the waker's CPU: 2-5x too slow here.)
 * call must outlive the measurement. */
typedef struct bench_probe_job {
    bench_probe_kind kind;
    char *src;
    char *dst;
    size_t bytes;
    size_t read_bytes;      /* mix: what it reads of src (the others: bytes) */
} bench_probe_job;

typedef struct bench_probe_call {
    bench_probe_job job;
    bench_team *team;       /* NULL: the calling thread alone              */
} bench_probe_call;

void bench_probe_member(bench_member *m, bench_probe_call *call, bench_probe_kind kind,
                        size_t bytes, bench_team *team, void *src, void *dst);

/* A mix probe (BENCH_PROBE_MIX) as a member: it reads read_bytes of
 * src and writes written_bytes of dst, the reads spread evenly over the
 * writes (src >= read_bytes, dst >= written_bytes). */
void bench_probe_member_mix(bench_member *m, bench_probe_call *call, bench_probe_kind kind, size_t read_bytes,
                            size_t written_bytes, bench_team *team, void *src, void *dst);

/* The vector ISA the probe loops use ("avx512", "avx2", "scalar"). */
const char *bench_probe_isa(void);

/* ---- subject.c ------------------------------------------------------------- */

typedef struct bench_subject {
    pecert_loaded_plugin plugin;
    void *instance;
    int has_threads;        /* set_num_threads available                   */
    char name[64];
    char description[128];  /* describe(), or "" */
} bench_subject;

/* Loads and instantiates a plugin; 0, or -1 with a message in err. */
int bench_subject_open(bench_subject *s, const char *path, char *err, size_t err_len);
void bench_subject_close(bench_subject *s);
/* Sets the thread count; 0, or -1 if the plugin has no set_num_threads
 * (and n != 1) or refused it. Refreshes description. */
int bench_subject_threads(bench_subject *s, int n);

/* ---- families.c ------------------------------------------------------------- */

/* The memory-bound operations' goal: this share of their limit. */
#define FAMILY_TARGET_PCT 80.0

/* The memory-bound cases' figures for the summary. */
typedef struct family_tally {
    int n;                   /* cases measured against a limit            */
    int met;                 /* of those, at FAMILY_TARGET_PCT or more    */
    double worst_pct;
} family_tally;

/* The other families' operations (families.c) of subject at each thread
 * count beside their limit probes (team: the driver's pinned, parked
 * team, or NULL) and baseline (NULL: none) on one thread; rows printed and
 * added to root's "families" array, the memory-bound ones tallied. */
int bench_families(cJSON *root, bench_subject *subject, bench_subject *baseline, const int *threads,
                   int n_threads, int reps, bench_team *team, family_tally *tally);

/* ---- session.c -------------------------------------------------------------- */

/* The decode session of a Llama-3-8B-shaped layer (session.c): subject at
 * each thread count, beside baseline (NULL or without a session: none) on
 * one thread; rows printed and added to root's "session" array. 0, or -1
 * if a session failed or memory ran out. */
int bench_session(cJSON *root, bench_subject *subject, bench_subject *baseline, const int *threads,
                  int n_threads, int reps);

/* ---- cases.c ----------------------------------------------------------------- */

typedef enum bench_placement { BENCH_OUT_OF_PLACE = 0, BENCH_IN_PLACE = 1 } bench_placement;

/* One apply case: q[tokens, 32, 128] rotated by positions 0..T-1, or
 * (mrope) by mrope_apply with Qwen2-VL's sections [16, 24, 24] and the
 * positions of an image 64 patches wide (bench_mrope_positions), or
 * (rope2d) by rope2d_apply over the (row, column) of an image 64 patches
 * wide (bench_rope2d_positions), Qwen2-VL's vision rule (frequencies in
 * blocks, rows first, split-half). */
typedef struct bench_case {
    int64_t tokens;
    int threads;
    pecert_rope_pairing pairing;
    bench_placement placement;
    int32_t rotary_dim;
    pecert_dtype dtype;
    int mrope;
    int rope2d;
} bench_case;

#define BENCH_HEADS 32
#define BENCH_HEAD_DIM 128

/* The buffers every case uses: x and out of the largest tensor, 64-byte
 * aligned and pre-faulted; positions 0..max_tokens-1. */
typedef struct bench_buffers {
    void *x;
    void *out;
    size_t bytes;
    int64_t *positions;
    int64_t max_tokens;
    pecert_dtype filled;    /* dtype x currently holds random values of    */
} bench_buffers;

int bench_buffers_init(bench_buffers *b, int64_t max_tokens);
void bench_buffers_free(bench_buffers *b);
/* Fills x with random values in [-1, 1) of dtype (once per dtype switch). */
void bench_buffers_fill(bench_buffers *b, pecert_dtype dtype);
/* x[0, n) := random floats in [-1, 1), the same for the same seed. */
void bench_fill_f32(float *x, size_t n, uint64_t seed);

size_t bench_case_bytes(const bench_case *c);
const char *bench_dtype_name(pecert_dtype dtype);

/* Samples shorter than this are batched (see bench_measure). */
#define BENCH_MIN_SAMPLE_S 2e-4

/* One apply case ready to time: its tensors, arguments and (M-RoPE)
 * positions. It points into itself: prepare it where it stays. */
typedef struct bench_apply_call {
    bench_subject *subject;
    bench_case c;
    pecert_rope_config config;
    pecert_tensor x;
    pecert_tensor y;
    pecert_rope_apply_args args;
    pecert_mrope_apply_args margs;
    int64_t *mrope_positions;
    pecert_rope2d_apply_args rargs;
    int64_t *rope2d_positions;
    pecert_status status;    /* of the last call                            */
} bench_apply_call;

/* Fills x with the case's dtype and sets the call up; 0, or -1 (status
 * says why: E_UNSUPPORTED, E_NOMEM). Release it either way. */
int bench_apply_prepare(bench_apply_call *call, bench_subject *s, const bench_case *c,
                        bench_buffers *b);
/* The call as a member of a group (bench_measure_group). */
void bench_apply_member(bench_member *m, bench_apply_call *call);
void bench_apply_release(bench_apply_call *call);
/* "<impl> rope_apply returned ...: <last_error>" after a failure. */
void bench_apply_error(const bench_apply_call *call, char *err, size_t err_len);

/* Times one apply case on a subject (threads already set). Returns 0, or
 * -1 with the plugin's message in err (E_UNSUPPORTED: *unsupported = 1). */
int bench_apply(bench_stats *out, bench_subject *s, const bench_case *c, bench_buffers *b,
                int reps, int *unsupported, char *err, size_t err_len);

/* M-RoPE position ids [3, tokens] of one image 64 merged patches wide
 * (get_rope_index: t constant, h = row, w = column); malloc'd, NULL on
 * failure. */
int64_t *bench_mrope_positions(int64_t tokens);
/* 2-D vision positions [2, tokens] (rows, then columns) of one image 64
 * patches wide, row-major; malloc'd, NULL on failure. */
int64_t *bench_rope2d_positions(int64_t tokens);
/* Frequencies per axis of the M-RoPE case (t, h, w). */
extern const int32_t bench_mrope_sections[3];

/* Times rope_cos_sin f32 [tokens, 64] (theta 10000). */
int bench_table(bench_stats *out, bench_subject *s, int64_t tokens, bench_buffers *b, int reps,
                char *err, size_t err_len);

/* Times alibi_bias into f32 out [32 heads, n_q, n_k] (keys at positions
 * 0..n_k-1, queries the last n_q of them, linear/causal form, max_bias
 * 8). -1 with the reason in err if the plugin has no alibi_bias. */
int bench_alibi(bench_stats *out, bench_subject *s, int64_t n_q, int64_t n_k, bench_buffers *b,
                int reps, char *err, size_t err_len);

/* Max |fast - ref| of the f32 cos/sin table against ref's f64 table for
 * n positions starting at first. Returns 0 or -1. */
int bench_table_error(double *out_max_error, bench_subject *s, bench_subject *oracle,
                      int64_t first, int64_t n, char *err, size_t err_len);

/* ---- report.c ---------------------------------------------------------------- */

/* One measured apply case with its context. */
typedef struct bench_row {
    const char *impl;
    bench_case c;
    bench_stats stats;
    double limit_gbps;      /* the probe's best at this size and threads   */
    const char *limit_kind; /* which probe gave it                          */
    double ref_median;      /* 0: not measured                              */
} bench_row;

double bench_gbps(size_t bytes, double seconds);
/* Bandwidth of an op that only writes `bytes` (ALiBi bias, fill). */
double bench_write_gbps(size_t bytes, double seconds);

/* Terminal output. */
void bench_print_probe(const bench_probe *p);
void bench_print_header(void);
void bench_print_row(const bench_row *row);

/* JSON objects for the report. */
cJSON *bench_probe_json(const bench_probe *p);
cJSON *bench_row_json(const bench_row *row);
cJSON *bench_stats_json(const bench_stats *s);

/* ---- driver.c ------------------------------------------------------------------ */

#define BENCH_MAX_LIST 16

/* What `pecert bench` measures (its options, cli/bench.c). */
typedef struct bench_options {
    const char *impl;      /* plugin to time: a built-in name or a path    */
    const char *baseline;  /* the ratio's reference; "none" skips it       */
    const char *json;      /* results file, or NULL                        */
    int64_t tokens[BENCH_MAX_LIST];
    int n_tokens;
    int threads[BENCH_MAX_LIST];
    int n_threads;
    int reps;              /* samples per case                             */
    unsigned parts;        /* BENCH_PART_* bits to measure                 */
} bench_options;

/* The parts of a run (--only): the apply cases with their probes (rope,
 * M-RoPE, 2-D RoPE), the cos/sin table and its accuracy, the ALiBi bias,
 * the decode session, the engine hosts' cost, the other families' ops. */
enum {
    BENCH_PART_APPLY = 1u << 0,
    BENCH_PART_TABLE = 1u << 1,
    BENCH_PART_ALIBI = 1u << 2,
    BENCH_PART_SESSION = 1u << 3,
    BENCH_PART_HOSTS = 1u << 4,
    BENCH_PART_FAMILIES = 1u << 5,
    BENCH_PART_ALL = (1u << 6) - 1
};

/* The part names --only takes, in bit order. */
extern const char *const bench_part_names[6];

/* bench_run: the whole measurement, printed and (opt->json) written; a
 * PECERT_EXIT_* status (2: the buffers or the file, 3: a plugin). */
int bench_run(const bench_options *opt);

/* ---- engine_cost.c ----------------------------------------------------------- */

/* bench_engine_cost: the plugin's small and large calls in this process
 * (in_process) and through its sandboxed engine host, side by side,
 * printed and added to root's "engine_cost". 0, or -1. */
int bench_engine_cost(cJSON *root, bench_subject *in_process, bench_buffers *b, int64_t tokens, int reps);

/* bench_python_cost: a small call and a host's life through the C host
 * (subject's plugin) and the Python host (bench/python_null.py), side by
 * side, printed and added to root's "python_host_cost". 0, or -1 (said:
 * no Python with numpy, for one). */
int bench_python_cost(cJSON *root, const bench_subject *subject, int reps);

#endif /* PECERT_BENCH_H */
