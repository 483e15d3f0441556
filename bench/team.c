/*
 * team.c - a small spinning thread team for the bandwidth probes.
 *
 * The probes must not pay more per dispatch than the engine they are the
 * yardstick for (an OpenMP region costs 1.25-3.4 us here), so workers
 * spin on a generation counter instead of sleeping. That burns the other
 * core while idle, so a team lives only while probes run, or (pinned,
 * bench_team_start_pinned) is parked between the samples it takes beside
 * a plugin's in a group: its workers then sleep on a condition variable.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
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
    atomic_int parked;        /* workers sleep on wake instead of spinning */
    atomic_int awake;         /* workers not sleeping                     */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int pinned;               /* worker i runs on cpus[i] only            */
    int cpus[MAX_TEAM];       /* the first n CPUs this process may use    */
    cpu_set_t caller_mask;    /* the caller's own, while it is pinned     */
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

static void sleep_while_parked(bench_team *team)
{
    pthread_mutex_lock(&team->lock);
    atomic_fetch_sub(&team->awake, 1);
    while (atomic_load(&team->parked) && !atomic_load(&team->stop)) {
        pthread_cond_wait(&team->wake, &team->lock);
    }
    atomic_fetch_add(&team->awake, 1);
    pthread_mutex_unlock(&team->lock);
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
            if (atomic_load_explicit(&team->parked, memory_order_relaxed)) {
                sleep_while_parked(team);
            }
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
    pthread_mutex_init(&team->lock, NULL);
    pthread_cond_init(&team->wake, NULL);
    atomic_store(&team->awake, n - 1);
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
    pthread_mutex_lock(&team->lock);
    atomic_store(&team->stop, 1);
    pthread_cond_broadcast(&team->wake);
    pthread_mutex_unlock(&team->lock);
    atomic_fetch_add(&team->generation, 1);
    for (i = 1; i < team->n; i++) {
        pthread_join(team->threads[i], NULL);
    }
    pthread_cond_destroy(&team->wake);
    pthread_mutex_destroy(&team->lock);
    free(team);
}

/* The first n CPUs of the process's mask into cpus; 0 if it has fewer. */
static int first_cpus(int n, int *cpus)
{
    cpu_set_t mask;
    int found = 0;

    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
        return 0;
    }
    for (int c = 0; c < CPU_SETSIZE && found < n; c++) {
        if (CPU_ISSET(c, &mask)) {
            cpus[found++] = c;
        }
    }
    return found == n;
}

static void pin(pthread_t thread, int cpu)
{
    cpu_set_t one;

    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(thread, sizeof(one), &one);
}

bench_team *bench_team_start_pinned(int n)
{
    bench_team *team = bench_team_start(n);

    if (team != NULL && first_cpus(n, team->cpus)) {
        team->pinned = 1;
        for (int i = 1; i < n; i++) {
            pin(team->threads[i], team->cpus[i]);
        }
    }
    return team;
}

void bench_team_park(bench_team *team)
{
    atomic_store(&team->parked, 1);
    while (atomic_load(&team->awake) > 0) {
        relax();
    }
    if (team->pinned) {
        pthread_setaffinity_np(pthread_self(), sizeof(team->caller_mask), &team->caller_mask);
    }
}

void bench_team_unpark(bench_team *team)
{
    if (team->pinned) {
        pthread_getaffinity_np(pthread_self(), sizeof(team->caller_mask), &team->caller_mask);
        pin(pthread_self(), team->cpus[0]);
    }
    pthread_mutex_lock(&team->lock);
    atomic_store(&team->parked, 0);
    pthread_cond_broadcast(&team->wake);
    pthread_mutex_unlock(&team->lock);
    while (atomic_load(&team->awake) < team->n - 1) {
        relax();
    }
}

int bench_team_size(const bench_team *team)
{
    return team->n;
}
