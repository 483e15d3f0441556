/*
 * driver.c - `pecert bench`'s run: the speed of a plugin (default `fast`)
 * next to the machine's own limit and to `ref`, all measured in one run.
 *
 * For each T of q[T, 32, 128]: the copy / copy_nt / memcpy / rmw probes at
 * the tensor's size (1 and 2 threads), then every apply case (threads x
 * pairing x placement x rotary_dim x dtype) of the plugin, and `ref`
 * (single-threaded, f32) on the same shapes. Then the cos/sin table at the
 * largest T and its error against `ref` at positions 2^11 .. 2^24, and
 * ALiBi bias (decode and prefill shapes) against the fill probe, the decode
 * session (session.c) against ref, the engine hosts' cost; --only picks.
 * Medians are compared. The probes first find, per size and thread count,
 * the best yardstick (copies out of place, rmw in place, at most as many
 * threads); then the plugin's split-half and interleaved cases of each
 * shape are timed as one group with that probe, their samples taken in
 * turn (a multi-thread probe runs on a pinned team, parked between its
 * samples), so split / interleaved and % of limit compare samples taken
 * side by side even when the shared host's bandwidth drifts. `ref` is
 * timed alone against the first probes. The command line is cli/bench.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "plugin_load.h"
#include "results_json.h"
#include "run_info.h"
#include "runner.h"

/* ref takes ~0.1 s per 1k tokens: past this T it runs fewer samples. */
#define REF_FULL_REPS_MAX_T 4096
#define REF_LARGE_REPS 3
/* Positions of the accuracy table: 4096 rows from each of these. */
static const int64_t accuracy_starts[] = {0, 1 << 11, 1 << 16, 1 << 20, 1 << 24};
#define ACCURACY_ROWS 4096

typedef struct target_tally {
    double worst_out_pct;     /* f32 out of place, T >= 512               */
    double worst_in_pct;      /* f32 in place, T >= 512                   */
    double worst_split_ratio; /* split median / interleaved median         */
    double worst_half_4096;   /* f16/bf16 T=4096 1 thread, s              */
    double worst_t1;          /* T=1 1 thread, s                          */
    double table_median;      /* cos/sin table, largest T, 1 thread       */
    double table_error;       /* its max abs error against ref            */
    double worst_others;      /* other processes' CPU share, worst T      */
    int n_out, met_out;       /* cases behind worst_out_pct, those >= 90% */
    int n_in, met_in;         /* cases behind worst_in_pct, those >= 85%  */
    int n_split, met_split;   /* pairs behind worst_split_ratio, <= 1.05  */
} target_tally;

typedef struct bench_state {
    bench_options cli;
    bench_subject subject;
    bench_subject baseline;
    int have_baseline;
    bench_buffers buffers;
    bench_team *group_team;   /* pinned, parked: measure_cases' 2-thread probes */
    bench_probe probes[64];   /* of the current T                          */
    int n_probes;
    /* This T's rows by [pairing][placement][rotary 64?][dtype][threads],
     * for the split-half / interleaved ratio. */
    bench_row medians[2][2][2][3][BENCH_MAX_LIST];
    target_tally tally;
    family_tally families;    /* the memory-bound family ops              */
    cJSON *root;
} bench_state;

/* ---- set-up ------------------------------------------------------------------- */

static int open_subject(bench_subject *s, const char *name)
{
    char dir[PATH_MAX];
    char path[PATH_MAX];
    char err[2048];

    pecert_impl_dir(dir, sizeof(dir));
    if (pecert_plugin_resolve(path, sizeof(path), name, dir) != 0) {
        fprintf(stderr, "pecert: bench: plugin path '%s' is too long\n", name);
        return PECERT_EXIT_USAGE;
    }
    if (bench_subject_open(s, path, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: bench: %s\n", err);
        return PECERT_EXIT_LOAD;
    }
    return 0;
}

static void json_note(bench_state *st, const char *text)
{
    cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "notes"), cJSON_CreateString(text));
    printf("note: %s\n", text);
}

static void start_report(bench_state *st)
{
    char cpu[256];
    cJSON *machine = cJSON_CreateObject();

    pecert_read_cpu_model(cpu, sizeof(cpu));
    st->root = cJSON_CreateObject();
    cJSON_AddStringToObject(st->root, "schema", "pecert-bench/1");
    cJSON_AddStringToObject(machine, "cpu", cpu);
    cJSON_AddNumberToObject(machine, "online_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    cJSON_AddStringToObject(machine, "probe_isa", bench_probe_isa());
    cJSON_AddStringToObject(machine, "page_size", "4 KiB (no huge pages requested)");
    cJSON_AddItemToObject(st->root, "machine", machine);
    cJSON_AddStringToObject(st->root, "impl", st->subject.name);
    cJSON_AddStringToObject(st->root, "impl_describe", st->subject.description);
    cJSON_AddStringToObject(st->root, "baseline", st->have_baseline ? st->baseline.name : "");
    cJSON_AddItemToObject(st->root, "probes", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "cases", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "tables", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "accuracy", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "notes", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "machine_load", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "alibi", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "mrope", cJSON_CreateArray());
    cJSON_AddItemToObject(st->root, "rope2d", cJSON_CreateArray());
    printf("pecert bench: %s (%s) vs %s on %s, %ld CPUs; probes use %s; %d samples per case\n",
           st->subject.name, st->subject.description, st->have_baseline ? st->baseline.name : "-",
           cpu, sysconf(_SC_NPROCESSORS_ONLN), bench_probe_isa(), st->cli.reps);
}

/* ---- probes --------------------------------------------------------------------- */

static int max_threads(const bench_options *cli)
{
    int best = 1;

    for (int i = 0; i < cli->n_threads; i++) {
        best = cli->threads[i] > best ? cli->threads[i] : best;
    }
    return best;
}

/* Every probe kind at `bytes` with 1 thread and with the largest count. */
static void probe_size(bench_state *st, size_t bytes, bench_team *team)
{
    for (int with_team = 0; with_team < 1 + (team != NULL); with_team++) {
        for (int kind = 0; kind <= BENCH_PROBE_RMW && st->n_probes < 64; kind++) {
            bench_probe *p = &st->probes[st->n_probes];

            if (bench_probe_run(p, (bench_probe_kind)kind, bytes, with_team ? team : NULL,
                                st->buffers.x, st->buffers.out, st->cli.reps) != 0) {
                continue;
            }
            bench_print_probe(p);
            cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "probes"), bench_probe_json(p));
            st->n_probes++;
        }
    }
}

static void probe_tokens(bench_state *st, int64_t tokens)
{
    int n = max_threads(&st->cli);
    bench_team *team = n > 1 ? bench_team_start(n) : NULL;
    size_t f32 = (size_t)tokens * BENCH_HEADS * BENCH_HEAD_DIM * sizeof(float);

    st->n_probes = 0;
    printf("\nT=%lld: machine limits (bytes moved = 2 x tensor)\n", (long long)tokens);
    probe_size(st, f32, team);
    probe_size(st, f32 / 2, team);
    bench_team_stop(team);
}

/* The best of this T's probes at this size and at most `threads`
 * threads: copies for out of place, rmw in place; NULL if none ran. */
static const bench_probe *best_probe(const bench_state *st, size_t bytes, int threads,
                                     int in_place)
{
    const bench_probe *best = NULL;

    for (int i = 0; i < st->n_probes; i++) {
        const bench_probe *p = &st->probes[i];

        if (p->bytes == bytes && p->threads <= threads &&
            (p->kind == BENCH_PROBE_RMW) == in_place &&
            (best == NULL || p->stats.median < best->stats.median)) {
            best = p;
        }
    }
    return best;
}

/* That probe's GB/s and kind ("-" and 0 if none): ref's yardstick. */
static double limit_for(const bench_state *st, size_t bytes, int threads, int in_place,
                        const char **kind)
{
    const bench_probe *p = best_probe(st, bytes, threads, in_place);

    *kind = p != NULL ? bench_probe_name(p->kind) : "-";
    return p != NULL ? bench_gbps(p->bytes, p->stats.median) : 0.0;
}

/* ---- apply cases ------------------------------------------------------------------ */

static const pecert_dtype dtypes[] = {PECERT_DTYPE_F32, PECERT_DTYPE_F16, PECERT_DTYPE_BF16};
static const int32_t rotary_dims[] = {128, 64};

static void tally_row(target_tally *t, const bench_row *row)
{
    const bench_case *c = &row->c;
    double pct = 100.0 * bench_gbps(bench_case_bytes(c), row->stats.median) / row->limit_gbps;

    if (c->dtype == PECERT_DTYPE_F32 && c->tokens >= 512) {
        int in_place = c->placement == BENCH_IN_PLACE;
        double *worst = in_place ? &t->worst_in_pct : &t->worst_out_pct;

        *worst = *worst == 0.0 || pct < *worst ? pct : *worst;
        *(in_place ? &t->n_in : &t->n_out) += 1;
        *(in_place ? &t->met_in : &t->met_out) += pct >= (in_place ? 85.0 : 90.0);
    }
    if (c->dtype != PECERT_DTYPE_F32 && c->tokens == 4096 && c->threads == 1) {
        t->worst_half_4096 = row->stats.median > t->worst_half_4096 ? row->stats.median
                                                                     : t->worst_half_4096;
    }
    if (c->tokens == 1 && c->threads == 1) {
        t->worst_t1 = row->stats.median > t->worst_t1 ? row->stats.median : t->worst_t1;
    }
}

/* Prints a measured row and adds it to the JSON. */
static void emit_row(bench_state *st, const bench_row *row)
{
    bench_print_row(row);
    fflush(stdout);
    cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, row->c.mrope ? "mrope" : row->c.rope2d ? "rope2d" : "cases"),
                         bench_row_json(row));
}

/* Times one case on a subject and prints it; the row, or NULL. */
static const bench_row *run_case(bench_state *st, bench_subject *s, const bench_case *c,
                                 double ref_median, bench_row *row)
{
    char err[1024];
    int unsupported = 0;

    if (bench_subject_threads(s, c->threads) != 0) {
        return NULL;
    }
    if (bench_apply(&row->stats, s, c, &st->buffers, s == &st->baseline && c->tokens > REF_FULL_REPS_MAX_T
                                                        ? REF_LARGE_REPS
                                                        : st->cli.reps,
                    &unsupported, err, sizeof(err)) != 0) {
        if (!unsupported) {
            printf("  %-5s T=%lld: %s\n", s->name, (long long)c->tokens, err);
        }
        return NULL;
    }
    row->impl = s->name;
    row->c = *c;
    row->ref_median = ref_median;
    row->limit_gbps = limit_for(st, bench_case_bytes(c), c->threads, c->placement == BENCH_IN_PLACE,
                                &row->limit_kind);
    emit_row(st, row);
    return row;
}

/* ref on the f32 case (single-threaded); its median, or 0. */
static double run_baseline(bench_state *st, const bench_case *c)
{
    bench_case one = *c;
    bench_row row;

    if (!st->have_baseline) {
        return 0.0;
    }
    one.threads = 1;
    one.dtype = PECERT_DTYPE_F32;
    return run_case(st, &st->baseline, &one, 0.0, &row) != NULL ? row.stats.median : 0.0;
}

/* One call of a prepared case, so that a case the plugin refuses (a
 * dtype it lacks) leaves the group instead of failing it. */
static int case_runs(bench_apply_call *call)
{
    bench_member m;

    bench_apply_member(&m, call);
    return m.fn(m.context);
}

/* The subject's cases (same size, threads and placement) measured as one
 * group with the probe that set the limit at their size, sampled in turn
 * (bench_measure_group): % of limit and split / interleaved compare
 * samples taken side by side. rows[i] gets case i (stats.median 0 if it
 * did not run). */
static void measure_cases(bench_state *st, const bench_case *cases, int n, const double *ref,
                          bench_row *rows)
{
    const bench_case *c0 = &cases[0];
    const bench_probe *limit = best_probe(st, bench_case_bytes(c0), c0->threads,
                                          c0->placement == BENCH_IN_PLACE);
    bench_apply_call calls[2];
    bench_member members[3];
    int slot[2];
    int m = 0;
    int probed = 0;             /* the probe is members[m - 1]              */
    bench_probe_call probe;
    char err[1024];

    for (int i = 0; i < n; i++) {
        rows[i].stats.median = 0.0;
    }
    if (bench_subject_threads(&st->subject, c0->threads) != 0) {
        return;
    }
    for (int i = 0; i < n; i++) {
        slot[i] = -1;
        if (bench_apply_prepare(&calls[i], &st->subject, &cases[i], &st->buffers) == 0 &&
            case_runs(&calls[i]) == 0) {
            slot[i] = m;
            bench_apply_member(&members[m++], &calls[i]);
        } else if (calls[i].status != PECERT_E_UNSUPPORTED) {
            bench_apply_error(&calls[i], err, sizeof(err));
            printf("  %-5s T=%lld: %s\n", st->subject.name, (long long)c0->tokens, err);
        }
    }
    probed = m > 0 && limit != NULL && (limit->threads == 1 || st->group_team != NULL);
    if (probed) {
        bench_probe_member(&members[m++], &probe, limit->kind, limit->bytes,
                           limit->threads == 1 ? NULL : st->group_team, st->buffers.x,
                           st->buffers.out);
    }
    if (m > 0 && bench_measure_group(members, m, st->cli.reps, BENCH_MIN_SAMPLE_S) == 0) {
        for (int i = 0; i < n; i++) {
            if (slot[i] < 0) {
                continue;
            }
            rows[i] = (bench_row){.impl = st->subject.name,
                                  .c = cases[i],
                                  .stats = members[slot[i]].stats,
                                  .limit_gbps = limit == NULL ? 0.0
                                                : bench_gbps(limit->bytes,
                                                             probed ? members[m - 1].stats.median
                                                                    : limit->stats.median),
                                  .limit_kind = limit != NULL ? bench_probe_name(limit->kind) : "-",
                                  .ref_median = cases[i].dtype == PECERT_DTYPE_F32 ? ref[i] : 0.0};
            emit_row(st, &rows[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        bench_apply_release(&calls[i]);
    }
}

/* For one placement and rotary_dim: ref on both pairings, then per dtype
 * and thread count the subject's split-half and interleaved cases as one
 * group. */
static void subject_cases(bench_state *st, const bench_case *shape)
{
    bench_case pair[2] = {*shape, *shape};
    double ref[2];

    for (int p = 0; p < 2; p++) {
        pair[p].pairing = (pecert_rope_pairing)p;
        ref[p] = run_baseline(st, &pair[p]);
    }
    for (size_t d = 0; d < sizeof(dtypes) / sizeof(dtypes[0]); d++) {
        for (int t = 0; t < st->cli.n_threads; t++) {
            bench_row rows[2];

            for (int p = 0; p < 2; p++) {
                pair[p].dtype = dtypes[d];
                pair[p].threads = st->cli.threads[t];
            }
            measure_cases(st, pair, 2, ref, rows);
            for (int p = 0; p < 2; p++) {
                st->medians[p][shape->placement][shape->rotary_dim == 64][d][t] = rows[p];
                if (rows[p].stats.median > 0.0) {
                    tally_row(&st->tally, &rows[p]);
                }
            }
        }
    }
}

/* split-half's median over interleaved's, per matching case of this T. */
static void tally_pairings(bench_state *st)
{
    for (int place = 0; place < 2; place++) {
        for (int r = 0; r < 2; r++) {
            for (int d = 0; d < 3; d++) {
                for (int t = 0; t < st->cli.n_threads; t++) {
                    double inter =
                        st->medians[PECERT_PAIRING_INTERLEAVED][place][r][d][t].stats.median;
                    double split =
                        st->medians[PECERT_PAIRING_SPLIT_HALF][place][r][d][t].stats.median;
                    double ratio = inter > 0.0 ? split / inter : 0.0;

                    if (ratio > 0.0) {
                        st->tally.n_split++;
                        st->tally.met_split += ratio <= 1.05;
                    }

                    st->tally.worst_split_ratio = ratio > st->tally.worst_split_ratio
                                                      ? ratio
                                                      : st->tally.worst_split_ratio;
                }
            }
        }
    }
}

/* How busy other processes kept the machine during this T, for the
 * reader and the JSON (2-thread results need an otherwise idle machine). */
static void report_load(bench_state *st, int64_t tokens, const bench_load *load)
{
    double others = bench_load_others(load);
    cJSON *o = cJSON_CreateObject();

    if (others >= 0.0) {
        printf("  other processes used %.0f%% of the CPUs during these cases%s\n", 100.0 * others,
               others > 0.05 ? " - results disturbed (2-thread ones most)" : "");
    }
    st->tally.worst_others = others > st->tally.worst_others ? others : st->tally.worst_others;
    cJSON_AddNumberToObject(o, "tokens", (double)tokens);
    cJSON_AddNumberToObject(o, "other_processes_cpu_share", others);
    cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "machine_load"), o);
}

/* M-RoPE (Qwen2-VL's split-half sections over an image's positions):
 * the same tensors and limits as rope_apply's f32 rotary-128 cases. Not
 * in the targets: a view of how much the per-axis rows cost. */
static void mrope_cases(bench_state *st, int64_t tokens)
{
    printf("  M-RoPE: mrope_apply, sections 16/24/24, an image 64 patches wide:\n");
    for (int place = 0; place < 2; place++) {
        bench_case c = {tokens, 1, PECERT_PAIRING_SPLIT_HALF, (bench_placement)place, 128,
                        PECERT_DTYPE_F32, 1, 0};
        double ref = run_baseline(st, &c);
        bench_row row;

        for (int t = 0; t < st->cli.n_threads; t++) {
            c.threads = st->cli.threads[t];
            measure_cases(st, &c, 1, &ref, &row);
        }
    }
}

/* 2-D vision RoPE (Qwen2-VL's tower rule over a 64-wide image) on the
 * same tensors: not in the targets either; fast's per-axis tables make
 * it a gather plus rope_apply's arithmetic. */
static void rope2d_cases(bench_state *st, int64_t tokens)
{
    printf("  2-D RoPE: rope2d_apply, blocks, rows first, an image 64 patches wide:\n");
    for (int place = 0; place < 2; place++) {
        bench_case c = {tokens, 1, PECERT_PAIRING_SPLIT_HALF, (bench_placement)place, 128,
                        PECERT_DTYPE_F32, 0, 1};
        double ref = run_baseline(st, &c);
        bench_row row;

        for (int t = 0; t < st->cli.n_threads; t++) {
            c.threads = st->cli.threads[t];
            measure_cases(st, &c, 1, &ref, &row);
        }
    }
}

static void cases_tokens(bench_state *st, int64_t tokens)
{
    bench_load load;

    bench_load_start(&load);
    printf("\nT=%lld: q[%lld, %d, %d]\n", (long long)tokens, (long long)tokens, BENCH_HEADS,
           BENCH_HEAD_DIM);
    bench_print_header();
    for (int place = 0; place < 2; place++) {
        for (size_t r = 0; r < sizeof(rotary_dims) / sizeof(rotary_dims[0]); r++) {
            bench_case shape = {tokens, 1, PECERT_PAIRING_SPLIT_HALF, (bench_placement)place,
                                rotary_dims[r], PECERT_DTYPE_F32, 0, 0};

            subject_cases(st, &shape);
        }
    }
    if (tokens >= 512) {
        tally_pairings(st);
        mrope_cases(st, tokens);
        rope2d_cases(st, tokens);
    }
    report_load(st, tokens, &load);
}

/* ---- tables and accuracy ------------------------------------------------------------- */

static void table_one(bench_state *st, bench_subject *s, int64_t tokens, int threads)
{
    bench_stats stats;
    char err[1024];
    char line[256];
    int reps = s == &st->baseline ? REF_LARGE_REPS : st->cli.reps;
    cJSON *o;

    if (bench_subject_threads(s, threads) != 0) {
        return;
    }
    if (bench_table(&stats, s, tokens, &st->buffers, reps, err, sizeof(err)) != 0) {
        printf("  %s\n", err);
        return;
    }
    snprintf(line, sizeof(line), "  table %-5s T=%lld x 64 thr=%d  min %.3f ms  median %.3f ms  max %.3f ms",
             s->name, (long long)tokens, threads, stats.min * 1e3, stats.median * 1e3, stats.max * 1e3);
    puts(line);
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "impl", s->name);
    cJSON_AddNumberToObject(o, "tokens", (double)tokens);
    cJSON_AddNumberToObject(o, "half", 64);
    cJSON_AddNumberToObject(o, "threads", threads);
    cJSON_AddItemToObject(o, "time", bench_stats_json(&stats));
    cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "tables"), o);
    if (s == &st->subject && threads == 1) {
        st->tally.table_median = stats.median;
    }
}

static void accuracy(bench_state *st, int64_t first, int64_t rows)
{
    double error = 0.0;
    char err[1024];
    cJSON *o;

    if (bench_table_error(&error, &st->subject, &st->baseline, first, rows, err, sizeof(err)) != 0) {
        printf("  accuracy: %s\n", err);
        return;
    }
    printf("  max |%s - %s| of the f32 cos/sin table, positions %lld..%lld: %.3g\n", st->subject.name,
           st->baseline.name, (long long)first, (long long)(first + rows - 1), error);
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "first_position", (double)first);
    cJSON_AddNumberToObject(o, "positions", (double)rows);
    cJSON_AddNumberToObject(o, "max_abs_error", error);
    cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "accuracy"), o);
    if (first == 0 && error > st->tally.table_error) {
        st->tally.table_error = error;
    }
}

static int64_t largest_tokens(const bench_options *cli);

static void tables(bench_state *st)
{
    int64_t tokens = largest_tokens(&st->cli);

    printf("\ncos/sin table [T, 64] f32, T=%lld\n", (long long)tokens);
    for (int t = 0; t < st->cli.n_threads; t++) {
        table_one(st, &st->subject, tokens, st->cli.threads[t]);
    }
    if (!st->have_baseline) {
        return;
    }
    table_one(st, &st->baseline, tokens, 1);
    accuracy(st, 0, tokens);
    for (size_t i = 1; i < sizeof(accuracy_starts) / sizeof(accuracy_starts[0]); i++) {
        accuracy(st, accuracy_starts[i], ACCURACY_ROWS);
    }
}

/* ---- ALiBi bias --------------------------------------------------------------------------- */

/* [32 heads, n_q, n_k]: decode steps (one query) and prefill blocks. */
static const int64_t alibi_shapes[][2] = {{1, 4096}, {1, 32768}, {128, 4096}, {512, 4096}};

/* The fill probe (stores only) at bytes, 1 thread and the team's. */
static double fill_limit(bench_state *st, size_t bytes, int threads, bench_team *team)
{
    double best = 0.0;
    bench_probe p;

    for (int with_team = 0; with_team < 1 + (team != NULL && threads > 1); with_team++) {
        if (bench_probe_run(&p, BENCH_PROBE_FILL, bytes, with_team ? team : NULL, st->buffers.x,
                            st->buffers.out, st->cli.reps) == 0) {
            double gbps = bench_write_gbps(p.bytes, p.stats.median);

            best = gbps > best ? gbps : best;
            cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "probes"), bench_probe_json(&p));
        }
    }
    return best;
}

static void alibi_row(bench_state *st, bench_subject *s, const int64_t shape[2], int threads,
                      double limit, double ref_median, double *out_median)
{
    size_t bytes = (size_t)(32 * shape[0] * shape[1]) * sizeof(float);
    bench_stats stats;
    char err[1024];
    double gbps;
    cJSON *o;

    *out_median = 0.0;
    if (bench_subject_threads(s, threads) != 0) {
        return;
    }
    if (bench_alibi(&stats, s, shape[0], shape[1], &st->buffers,
                    s == &st->baseline && bytes > ((size_t)64 << 20) ? REF_LARGE_REPS : st->cli.reps,
                    err, sizeof(err)) != 0) {
        printf("  %s\n", err);
        return;
    }
    gbps = bench_write_gbps(bytes, stats.median);
    printf("  alibi %-5s n_q=%-4lld n_k=%-6lld thr=%d  min %8.3f ms  median %8.3f ms  max %8.3f ms"
           "  %6.1f GB/s  %4.0f%% of fill",
           s->name, (long long)shape[0], (long long)shape[1], threads, stats.min * 1e3,
           stats.median * 1e3, stats.max * 1e3, gbps, limit > 0 ? 100.0 * gbps / limit : 0.0);
    if (ref_median > 0.0) {
        printf("  %6.1fx ref", ref_median / stats.median);
    }
    printf("\n");
    o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "impl", s->name);
    cJSON_AddNumberToObject(o, "heads", 32);
    cJSON_AddNumberToObject(o, "n_q", (double)shape[0]);
    cJSON_AddNumberToObject(o, "n_k", (double)shape[1]);
    cJSON_AddNumberToObject(o, "threads", threads);
    cJSON_AddNumberToObject(o, "bytes_written", (double)bytes);
    cJSON_AddItemToObject(o, "time", bench_stats_json(&stats));
    cJSON_AddNumberToObject(o, "gbps", gbps);
    cJSON_AddNumberToObject(o, "fill_limit_gbps", limit);
    if (ref_median > 0.0) {
        cJSON_AddNumberToObject(o, "speedup_vs_ref", ref_median / stats.median);
    }
    cJSON_AddItemToArray(cJSON_GetObjectItem(st->root, "alibi"), o);
    *out_median = stats.median;
}

static void alibi(bench_state *st)
{
    int n = max_threads(&st->cli);

    printf("\nALiBi bias f32 [32, n_q, n_k], linear (causal) form, max_bias 8; GB/s written\n");
    for (size_t i = 0; i < sizeof(alibi_shapes) / sizeof(alibi_shapes[0]); i++) {
        size_t bytes = (size_t)(32 * alibi_shapes[i][0] * alibi_shapes[i][1]) * sizeof(float);
        bench_team *team;
        double limits[BENCH_MAX_LIST];
        double ref_median = 0.0;
        double median;

        if (bytes > st->buffers.bytes || alibi_shapes[i][1] > st->buffers.max_tokens) {
            continue;
        }
        team = n > 1 ? bench_team_start(n) : NULL;
        for (int t = 0; t < st->cli.n_threads; t++) {
            limits[t] = fill_limit(st, bytes, st->cli.threads[t], team);
        }
        bench_team_stop(team);
        if (st->have_baseline) {
            alibi_row(st, &st->baseline, alibi_shapes[i], 1, limits[0], 0.0, &ref_median);
        }
        for (int t = 0; t < st->cli.n_threads; t++) {
            alibi_row(st, &st->subject, alibi_shapes[i], st->cli.threads[t], limits[t], ref_median,
                      &median);
        }
    }
}

/* ---- summary and the command ----------------------------------------------------------- */

/* One target: its worst value over the grid and, where several cases
 * feed it, how many of them meet it (n_cases 0: a single figure). */
static void summary_line(cJSON *targets, const char *key, const char *text, double value,
                         const char *unit, double goal, int lower_is_better, int n_cases,
                         int n_met)
{
    int met = lower_is_better ? value <= goal : value >= goal;
    cJSON *o = cJSON_CreateObject();
    char counts[64] = "";

    if (n_cases > 0) {
        snprintf(counts, sizeof(counts), " (%d of %d cases meet it)", n_met, n_cases);
        cJSON_AddNumberToObject(o, "cases", n_cases);
        cJSON_AddNumberToObject(o, "cases_meeting", n_met);
    }
    printf("  %-52s %10.4g %-3s (target %s %g %s) %s%s\n", text, value, unit,
           lower_is_better ? "<=" : ">=", goal, unit, value == 0.0 ? "n/a" : met ? "met" : "MISSED",
           counts);
    cJSON_AddNumberToObject(o, "value", value);
    cJSON_AddNumberToObject(o, "target", goal);
    cJSON_AddStringToObject(o, "unit", unit);
    cJSON_AddBoolToObject(o, "met", value != 0.0 && met);
    cJSON_AddItemToObject(targets, key, o);
}

static void summary(bench_state *st)
{
    const target_tally *t = &st->tally;
    cJSON *targets = cJSON_CreateObject();

    printf("\ntargets (fast's performance goals, impls/fast/README.md; medians, worst case over the grid):\n");
    summary_line(targets, "out_of_place_pct_of_copy", "f32 out of place, T >= 512: % of copy limit",
                 t->worst_out_pct, "%", 90.0, 0, t->n_out, t->met_out);
    summary_line(targets, "in_place_pct_of_rmw", "f32 in place, T >= 512: % of rmw limit",
                 t->worst_in_pct, "%", 85.0, 0, t->n_in, t->met_in);
    summary_line(targets, "split_over_interleaved", "split-half / interleaved time, T >= 512",
                 t->worst_split_ratio, "x", 1.05, 1, t->n_split, t->met_split);
    summary_line(targets, "half_t4096_1thread_ms", "f16/bf16, T=4096, 1 thread",
                 t->worst_half_4096 * 1e3, "ms", 2.0, 1, 0, 0);
    summary_line(targets, "t1_1thread_us", "T=1, 1 thread", t->worst_t1 * 1e6, "us", 1.0, 1, 0, 0);
    summary_line(targets, "table_ms", "cos/sin table, largest T, 1 thread", t->table_median * 1e3,
                 "ms", 3.0, 1, 0, 0);
    summary_line(targets, "table_max_abs_error", "cos/sin table max abs error vs ref", t->table_error,
                 "", 1e-6, 1, 0, 0);
    summary_line(targets, "families_pct_of_limit", "other families, memory-bound ops: % of limit",
                 st->families.worst_pct, "%", FAMILY_TARGET_PCT, 0, st->families.n, st->families.met);
    cJSON_AddItemToObject(st->root, "targets", targets);
    if (t->worst_others > 0.05) {
        printf("  (other processes used up to %.0f%% of the CPUs during a T's cases: the "
               "figures above are disturbed; rerun on an idle machine)\n",
               100.0 * t->worst_others);
    }
}

static int write_report(bench_state *st)
{
    char *text = cJSON_Print(st->root);
    char err[1200] = "out of memory";
    int rc = text != NULL ? pecert_write_file_atomic(st->cli.json, text, err, sizeof(err)) : -1;

    if (rc != 0) {
        fprintf(stderr, "pecert: bench: %s\n", err);
    } else {
        printf("\nresults: %s\n", st->cli.json);
    }
    free(text);
    return rc;
}

static int64_t largest_tokens(const bench_options *cli)
{
    int64_t best = 1;

    for (int i = 0; i < cli->n_tokens; i++) {
        best = cli->tokens[i] > best ? cli->tokens[i] : best;
    }
    return best;
}

static void notes(bench_state *st)
{
    char text[256];

    snprintf(text, sizeof(text),
             "%s is single-threaded and f32-only: its median (1 thread) is the ratio's reference "
             "for every thread count; %d samples per case up to T=%d, %d above",
             st->have_baseline ? st->baseline.name : "baseline", st->cli.reps, REF_FULL_REPS_MAX_T,
             REF_LARGE_REPS);
    json_note(st, text);
    json_note(st, "the plugin's split-half and interleaved cases of a shape are timed as one "
                  "group with their limit probe P, samples in turn (A B P A B P ...): limit_gbps "
                  "is P's, measured beside them (a multi-thread P runs on a pinned team, parked "
                  "between its samples); ref divides by the probes measured before the T's "
                  "cases");
    snprintf(text, sizeof(text),
             "each figure (probes too) takes rounds of samples until a round's median is within "
             "%.2fx of its minimum (at most %d rounds; time.rounds), keeping the round with the "
             "lowest medians: other tenants of this host take memory bandwidth for seconds",
             BENCH_SETTLED_SPREAD, BENCH_MAX_ROUNDS);
    json_note(st, text);
    json_note(st, "ALiBi bias: the limit is the fill probe (stores only) at the same size and "
                  "thread count; GB/s counts bytes written");
}

const char *const bench_part_names[6] = {"apply", "table", "alibi", "session", "hosts", "families"};

static int run_bench_cases(bench_state *st)
{
    unsigned parts = st->cli.parts;

    start_report(st);
    notes(st);
    for (int i = 0; i < st->cli.n_tokens && (parts & BENCH_PART_APPLY); i++) {
        probe_tokens(st, st->cli.tokens[i]);
        cases_tokens(st, st->cli.tokens[i]);
    }
    if (parts & BENCH_PART_TABLE) {
        tables(st);
    }
    if (parts & BENCH_PART_ALIBI) {
        alibi(st);
    }
    if (parts & BENCH_PART_FAMILIES) {
        (void)bench_families(st->root, &st->subject, st->have_baseline ? &st->baseline : NULL, st->cli.threads,
                             st->cli.n_threads, st->cli.reps, st->group_team, &st->families);
    }
    if (parts & BENCH_PART_SESSION) {
        (void)bench_session(st->root, &st->subject, st->have_baseline ? &st->baseline : NULL,
                            st->cli.threads, st->cli.n_threads, st->cli.reps);
    }
    if (parts & BENCH_PART_HOSTS) {
        (void)bench_engine_cost(st->root, &st->subject, &st->buffers, largest_tokens(&st->cli),
                                st->cli.reps);
        (void)bench_python_cost(st->root, &st->subject, st->cli.reps);
    }
    summary(st);
    return st->cli.json != NULL && write_report(st) != 0 ? PECERT_EXIT_USAGE : PECERT_EXIT_PASS;
}

/* The team of the groups' multi-thread probes lives through the run,
 * pinned and parked between samples (bench_team_start_pinned). */
static int run_bench(bench_state *st)
{
    int n = max_threads(&st->cli);
    int rc;

    st->group_team = n > 1 ? bench_team_start_pinned(n) : NULL;
    if (st->group_team != NULL) {
        bench_team_park(st->group_team);
    }
    rc = run_bench_cases(st);
    bench_team_stop(st->group_team);
    return rc;
}

int bench_run(const bench_options *opt)
{
    static bench_state st;
    int rc;

    memset(&st, 0, sizeof(st));
    st.cli = *opt;
    if ((rc = open_subject(&st.subject, st.cli.impl)) != 0) {
        return rc;
    }
    st.have_baseline = strcmp(st.cli.baseline, "none") != 0;
    if (st.have_baseline && (rc = open_subject(&st.baseline, st.cli.baseline)) != 0) {
        bench_subject_close(&st.subject);
        return rc;
    }
    if (bench_buffers_init(&st.buffers, largest_tokens(&st.cli)) != 0) {
        fprintf(stderr, "pecert: bench: cannot allocate the buffers for T=%lld\n",
                (long long)largest_tokens(&st.cli));
        rc = PECERT_EXIT_USAGE;
    } else {
        rc = run_bench(&st);
    }
    cJSON_Delete(st.root);
    bench_buffers_free(&st.buffers);
    if (st.have_baseline) {
        bench_subject_close(&st.baseline);
    }
    bench_subject_close(&st.subject);
    return rc;
}
