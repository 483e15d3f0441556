/*
 * team.c - a small spinning thread team for the bandwidth probes.
 *
 * The probes must not pay more per dispatch than the engine they are the
 * yardstick for (an OpenMP region costs 1.25-3.4 us here), so workers
 * spin on a generation counter instead of sleeping. That burns the other
 * core while idle, so a team lives only while probes run.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bench.h"

#define MAX_TEAM 64

struct bench_team {
    int n;
    pthread_t threads[MAX_TEAM];
    atomic_uint generation;   /* bumped once per dispatch                 */
    atomic_int done;          /* workers finished with this dispatch      */
    atomic_int stop;
    bench_work_fn fn;
    void *context;
};

typedef struct worker_arg {
    bench_team *team;
    int ith;
} worker_arg;

static worker_arg worker_args[MAX_TEAM];

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *worker(void *opaque)
{
    worker_arg *arg = opaque;
    bench_team *team = arg->team;
    /* The generation the team was created with: a dispatch made before
     * this thread first ran is still seen as new. */
    unsigned seen = 0;

    for (;;) {
        unsigned now;

        while ((now = atomic_load_explicit(&team->generation, memory_order_acquire)) == seen) {
            relax();
        }
        seen = now;
        if (atomic_load(&team->stop)) {
            return NULL;
        }
        team->fn(team->context, arg->ith, team->n);
        atomic_fetch_add_explicit(&team->done, 1, memory_order_release);
    }
}

bench_team *bench_team_start(int n)
{
    bench_team *team = calloc(1, sizeof(*team));
    int i;

    if (team == NULL || n < 1 || n > MAX_TEAM) {
        free(team);
        return NULL;
    }
    team->n = n;
    for (i = 1; i < n; i++) {
        worker_args[i] = (worker_arg){team, i};
        if (pthread_create(&team->threads[i], NULL, worker, &worker_args[i]) != 0) {
            team->n = i; /* stop the ones started */
            bench_team_stop(team);
            return NULL;
        }
    }
    return team;
}

void bench_team_run(bench_team *team, bench_work_fn fn, void *context)
{
    team->fn = fn;
    team->context = context;
    atomic_store(&team->done, 0);
    atomic_fetch_add_explicit(&team->generation, 1, memory_order_release);
    fn(context, 0, team->n);
    while (atomic_load_explicit(&team->done, memory_order_acquire) < team->n - 1) {
        relax();
    }
}

void bench_team_stop(bench_team *team)
{
    int i;

    if (team == NULL) {
        return;
    }
    atomic_store(&team->stop, 1);
    atomic_fetch_add(&team->generation, 1);
    for (i = 1; i < team->n; i++) {
        pthread_join(team->threads[i], NULL);
    }
    free(team);
}

int bench_team_size(const bench_team *team)
{
    return team->n;
}
