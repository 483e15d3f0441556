/* timing.c - the clock and repeated measurement of `pecert bench`. */
#include <stdlib.h>
#include <time.h>

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

int bench_measure(bench_stats *out, bench_fn fn, void *context, int reps, double min_sample_s)
{
    double *times = malloc((size_t)reps * sizeof(double));
    double warm;
    int i;

    if (times == NULL) {
        return -1;
    }
    warm = sample(fn, context, 1);
    out->inner = 1;
    /* Short calls are batched so the clock's resolution and overhead
     * (~20 ns) stay below 1% of a sample. */
    if (warm >= 0.0 && warm < min_sample_s) {
        double want = min_sample_s / (warm > 1e-9 ? warm : 1e-9);
        out->inner = want > MAX_INNER ? MAX_INNER : (int)want + 1;
    }
    for (i = 0; i < reps && warm >= 0.0; i++) {
        times[i] = sample(fn, context, out->inner);
        warm = times[i];
    }
    if (warm < 0.0) {
        free(times);
        return -1;
    }
    qsort(times, (size_t)reps, sizeof(double), compare_double);
    out->min = times[0];
    out->max = times[reps - 1];
    out->median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    out->samples = reps;
    free(times);
    return 0;
}
