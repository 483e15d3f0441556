/*
 * engine_cost.c - what the engine host (harness/engine.h) costs a call:
 * the same call made on the plugin loaded in this process and through its
 * sandboxed engine host, measured side by side (their samples in turn).
 *
 *   rope_freqs, 64 frequencies: no tensor, the round trip itself (two
 *                 messages, two context switches, the canary checks);
 *   rope_apply [1, 32, 128]: a decode step (16 KiB in, 16 KiB out);
 *   rope_apply [T, 32, 128] at the run's largest T: the copies into and
 *                 out of the shared arena, which grow with the bytes;
 *   a host's life: what every check pays once: the host started
 *                 (posix_spawn, exec, the plugin loaded, its filters, the
 *                 hello), an instance created and released, the host
 *                 stopped and reaped. In process: the instance alone.
 *
 * The checks call through the host; `pecert bench`'s other figures time
 * the plugin in process (timing is not a verdict).
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

typedef struct cost_call {
    const pecert_plugin *desc;
    void *instance;
    const pecert_rope_config *config;
    pecert_rope_apply_args apply; /* x, out, positions point into the buffers */
    int freqs_only;
    int lifecycle; /* a host's life, not a call */
} cost_call;

/* An instance created and released; for an engine-hosted plugin, in a
 * host started for it and stopped after (pecert_engine_of: NULL in
 * process, where stop does nothing). */
static int host_life(const cost_call *c)
{
    void *instance = NULL;
    if (pecert_plugin_instance(c->desc, &instance) != PECERT_OK) {
        return -1;
    }
    pecert_plugin_release(c->desc, instance);
    pecert_engine_stop(pecert_engine_of(c->desc));
    return 0;
}

static int cost_once(void *context)
{
    cost_call *c = context;
    if (c->lifecycle) {
        return host_life(c);
    }
    if (c->freqs_only) {
        double inv[64];
        double scaling;
        return c->desc->rope_freqs(c->instance, inv, &scaling, c->config, 0) == PECERT_OK ? 0 : -1;
    }
    return c->desc->rope_apply(c->instance, &c->apply) == PECERT_OK ? 0 : -1;
}

/* Both sides of one call, their samples in turn; 0, or -1. */
static int measure_pair(bench_stats out[2], cost_call calls[2], int reps)
{
    bench_member members[2];
    memset(members, 0, sizeof(members));
    for (int i = 0; i < 2; i++) {
        members[i].fn = cost_once;
        members[i].context = &calls[i];
    }
    if (bench_measure_group(members, 2, reps, BENCH_MIN_SAMPLE_S) != 0) {
        return -1;
    }
    out[0] = members[0].stats;
    out[1] = members[1].stats;
    return 0;
}

/* One row: side a (in process, or the C host) against side b. */
typedef struct cost_sides {
    const char *a, *b;         /* as printed                      */
    const char *key_a, *key_b; /* as the JSON names them          */
} cost_sides;

static const cost_sides IN_PROCESS_VS_HOST = {"in process", "engine host", "in_process", "engine_host"};
static const cost_sides C_HOST_VS_PYTHON = {"C host", "Python host", "c_host", "python_host"};

static void cost_row(cJSON *rows, const char *what, const bench_stats s[2], const cost_sides *sides)
{
    double overhead = s[1].median - s[0].median;
    printf("  %-30s %s %9.2f us   %s %9.2f us   +%8.2f us   %.2fx\n", what, sides->a, s[0].median * 1e6, sides->b,
           s[1].median * 1e6, overhead * 1e6, s[1].median / s[0].median);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "call", what);
    cJSON_AddItemToObject(o, sides->key_a, bench_stats_json(&s[0]));
    cJSON_AddItemToObject(o, sides->key_b, bench_stats_json(&s[1]));
    cJSON_AddNumberToObject(o, "overhead_s", overhead);
    cJSON_AddNumberToObject(o, "ratio", s[1].median / s[0].median);
    cJSON_AddItemToArray(rows, o);
}

/* Default RoPE at head_dim 128: every call of this file's tables. */
static pecert_rope_config small_config(void)
{
    return (pecert_rope_config){.struct_size = sizeof(pecert_rope_config),
                                .head_dim = 128,
                                .rotary_dim = 128,
                                .rope_theta = 10000.0,
                                .max_position_embeddings = 4096,
                                .factor = 1.0};
}

static void cost_apply(cost_call *c, bench_buffers *b, const pecert_rope_config *config, int64_t tokens,
                       pecert_tensor *x, pecert_tensor *out)
{
    *x = (pecert_tensor){sizeof(pecert_tensor), PECERT_DTYPE_F32, 3, 0, b->x, {tokens, 32, 128}, {32 * 128, 128, 1}};
    *out = *x;
    out->data = b->out;
    c->apply = (pecert_rope_apply_args){.struct_size = sizeof(pecert_rope_apply_args),
                                        .pairing = PECERT_PAIRING_SPLIT_HALF,
                                        .config = config,
                                        .positions = b->positions,
                                        .x = x,
                                        .out = out};
    c->freqs_only = 0;
}

int bench_engine_cost(cJSON *root, bench_subject *in_process, bench_buffers *b, int64_t tokens, int reps)
{
    pecert_loaded_plugin hosted;
    char err[1024];
    void *instance = NULL;
    if (pecert_plugin_open_hosted(&hosted, in_process->plugin.path, PECERT_SANDBOX_ON, err, sizeof(err)) != 0 ||
        pecert_plugin_instance(hosted.desc, &instance) != PECERT_OK) {
        printf("  engine host: %s\n", err);
        return -1;
    }
    /* One thread on both sides: the in-process subject runs with the
     * count the driver set last. */
    if (hosted.desc->set_num_threads != NULL) {
        (void)hosted.desc->set_num_threads(instance, 1);
    }
    (void)bench_subject_threads(in_process, 1);
    pecert_rope_config config = small_config();
    cost_call calls[2] = {{in_process->plugin.desc, in_process->instance, &config, {0}, 1, 0},
                          {hosted.desc, instance, &config, {0}, 1, 0}};
    pecert_tensor views[2][2];
    bench_stats s[2];
    cJSON *rows = cJSON_AddArrayToObject(root, "engine_cost");
    char what[64];
    int rc = 0;
    printf("\nengine host: the same call in this process and through the sandboxed engine host "
           "(medians)\n");
    bench_buffers_fill(b, PECERT_DTYPE_F32);
    rc |= measure_pair(s, calls, reps);
    if (rc == 0) {
        cost_row(rows, "rope_freqs, 64 frequencies", s, &IN_PROCESS_VS_HOST);
    }
    const int64_t shapes[2] = {1, tokens};
    for (int k = 0; k < 2 && rc == 0; k++) {
        for (int i = 0; i < 2; i++) {
            cost_apply(&calls[i], b, &config, shapes[k], &views[i][0], &views[i][1]);
        }
        rc |= measure_pair(s, calls, reps);
        snprintf(what, sizeof(what), "rope_apply [%lld, 32, 128] f32", (long long)shapes[k]);
        if (rc == 0) {
            cost_row(rows, what, s, &IN_PROCESS_VS_HOST);
        }
    }
    pecert_plugin_release(hosted.desc, instance);
    cost_call lives[2] = {{in_process->plugin.desc, NULL, &config, {0}, 0, 1}, {hosted.desc, NULL, &config, {0}, 0, 1}};
    if (rc == 0 && measure_pair(s, lives, reps) == 0) {
        cost_row(rows, "a host's life (start to stop)", s, &IN_PROCESS_VS_HOST);
    }
    pecert_plugin_close(&hosted);
    return rc;
}

/* The Python host's own cost: the same small call through the C host (the
 * plugin under bench) and through the Python host (bench/python_null.py,
 * numpy that does next to nothing), and a host's life in each. */
int bench_python_cost(cJSON *root, const bench_subject *subject, int reps)
{
    pecert_loaded_plugin hosts[2];
    char err[1024] = "";
    void *instances[2] = {NULL, NULL};
    const char *paths[2] = {subject->plugin.path, "python:" PECERT_SOURCE_DIR "/bench/python_null.py"};
    int opened = 0;
    while (opened < 2 &&
           pecert_plugin_open_hosted(&hosts[opened], paths[opened], PECERT_SANDBOX_ON, err, sizeof(err)) == 0) {
        (void)pecert_plugin_instance(hosts[opened].desc, &instances[opened]);
        opened++;
    }
    printf("\nPython host: the same small call through the C host and the Python host (medians)\n");
    int rc = opened == 2 ? 0 : -1;
    if (rc != 0) {
        printf("  not measured: %s\n", err);
    }
    pecert_rope_config config = small_config();
    cJSON *rows = cJSON_AddArrayToObject(root, "python_host_cost");
    bench_stats s[2];
    if (rc == 0) {
        cost_call calls[2] = {{hosts[0].desc, instances[0], &config, {0}, 1, 0},
                              {hosts[1].desc, instances[1], &config, {0}, 1, 0}};
        rc = measure_pair(s, calls, reps);
        if (rc == 0) {
            cost_row(rows, "rope_freqs, 64 frequencies", s, &C_HOST_VS_PYTHON);
        }
    }
    for (int i = 0; i < opened; i++) {
        pecert_plugin_release(hosts[i].desc, instances[i]);
    }
    if (rc == 0) {
        cost_call lives[2] = {{hosts[0].desc, NULL, &config, {0}, 0, 1}, {hosts[1].desc, NULL, &config, {0}, 0, 1}};
        rc = measure_pair(s, lives, reps);
        if (rc == 0) {
            cost_row(rows, "a host's life (start to stop)", s, &C_HOST_VS_PYTHON);
        }
    }
    for (int i = 0; i < opened; i++) {
        pecert_plugin_close(&hosts[i]);
    }
    return rc;
}
