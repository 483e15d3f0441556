/* timing.c - the clock, repeated measurement, and how busy the rest of
 * the machine was meanwhile (`pecert bench`). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* Samples above this many calls add nothing but run time. */
#define MAX_INNER 100000

double bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Runs fn inner times; the mean time of one call, or -1.0 on failure. */
static double sample(bench_fn fn, void *context, int inner)
{
    double start = bench_now();
    int i;

    for (i = 0; i < inner; i++) {
        if (fn(context) != 0) {
            return -1.0;
        }
    }
    return (bench_now() - start) / inner;
}

/* One sample of a member: before, inner timed calls, after. */
static double member_sample(const bench_member *m, int inner)
{
    double t;

    if (m->before != NULL) {
        m->before(m->context);
    }
    t = sample(m->fn, m->context, inner);
    if (m->after != NULL) {
        m->after(m->context);
    }
    return t;
}

/* Short calls are batched so the clock's resolution and overhead
 * (~20 ns) stay below 1% of a sample; -1 if the warm-up call failed. */
static int batch_size(const bench_member *m, double min_sample_s)
{
    double warm = member_sample(m, 1);
    double want;

    if (warm < 0.0) {
        return -1;
    }
    if (warm >= min_sample_s) {
        return 1;
    }
    want = min_sample_s / (warm > 1e-9 ? warm : 1e-9);
    return want > MAX_INNER ? MAX_INNER : (int)want + 1;
}

static void summarize(bench_stats *out, double *times, int reps)
{
    qsort(times, (size_t)reps, sizeof(double), compare_double);
    out->min = times[0];
    out->max = times[reps - 1];
    out->median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    out->samples = reps;
}

/* One round: reps samples of every member in turn into round[]; 0 or -1.
 * times holds n * reps doubles. */
static int measure_round(bench_member *members, int n, int reps, bench_stats *round,
                         double *times)
{
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            times[i * reps + r] = member_sample(&members[i], round[i].inner);
            if (times[i * reps + r] < 0.0) {
                return -1;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        summarize(&round[i], times + i * reps, reps);
    }
    return 0;
}

static int round_settled(const bench_stats *round, int n)
{
    for (int i = 0; i < n; i++) {
        if (round[i].median > BENCH_SETTLED_SPREAD * round[i].min) {
            return 0;
        }
    }
    return 1;
}

static double sum_of_medians(const bench_stats *round, int n)
{
    double sum = 0.0;

    for (int i = 0; i < n; i++) {
        sum += round[i].median;
    }
    return sum;
}

int bench_measure_group(bench_member *members, int n, int reps, double min_sample_s)
{
    double *times = malloc((size_t)(n * reps) * sizeof(double));
    bench_stats *round = calloc((size_t)n, sizeof(bench_stats));
    double best = 0.0;
    int rounds = 0;
    int rc = times != NULL && round != NULL ? 0 : -1;

    for (int i = 0; rc == 0 && i < n; i++) {
        round[i].inner = batch_size(&members[i], min_sample_s);
        rc = round[i].inner > 0 ? 0 : -1;
    }
    while (rc == 0 && rounds < BENCH_MAX_ROUNDS) {
        rc = measure_round(members, n, reps, round, times);
        if (rc == 0 && (rounds == 0 || sum_of_medians(round, n) < best)) {
            best = sum_of_medians(round, n);
            for (int i = 0; i < n; i++) {
                members[i].stats = round[i];
            }
        }
        rounds++;
        if (rc == 0 && round_settled(round, n)) {
            break;
        }
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        members[i].stats.rounds = rounds;
    }
    free(times);
    free(round);
    return rc;
}

int bench_measure(bench_stats *out, bench_fn fn, void *context, int reps, double min_sample_s)
{
    bench_member one = {.fn = fn, .context = context};
    int rc = bench_measure_group(&one, 1, reps, min_sample_s);

    *out = one.stats;
    return rc;
}

/* ---- how busy the rest of the machine is ------------------------------------- */

/* Busy CPU time of the whole machine (/proc/stat, all but idle and
 * iowait) in seconds, or -1 if unreadable. */
static double machine_busy_s(void)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    int n = f != NULL ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])
                      : 0;

    if (f != NULL) {
        fclose(f);
    }
    if (n != 8) {
        return -1.0;
    }
    /* user nice system idle iowait irq softirq steal */
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
}

static double own_cpu_s(void)
{
    struct rusage u;

    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

void bench_load_start(bench_load *load)
{
    load->wall = bench_now();
    load->machine = machine_busy_s();
    load->own = own_cpu_s();
}

double bench_load_others(const bench_load *load)
{
    double wall = bench_now() - load->wall;
    double machine = machine_busy_s();
    double cpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
    double others;

    if (load->machine < 0.0 || machine < 0.0 || wall <= 0.0 || cpus < 1.0) {
        return -1.0;
    }
    others = (machine - load->machine) - (own_cpu_s() - load->own);
    return others > 0.0 ? others / (wall * cpus) : 0.0;
}
