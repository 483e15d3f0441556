/*
 * bench.c - `pecert bench`: its options; the run is bench/driver.c's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/bench.h"
#include "commands.h"
#include "runner.h"

const char pecert_usage_bench[] =
    "usage: pecert bench [options]\n"
    "\n"
    "Times rope_apply on q[T, 32, 128] (every pairing, placement, rotary_dim\n"
    "64/128, f32/f16/bf16, 1 and 2 threads), the cos/sin table, mrope_apply\n"
    "(M-RoPE sections 16/24/24), rope2d_apply (a 64-wide image) and the ALiBi\n"
    "bias, next to the machine's measured copy and read-modify-write bandwidth\n"
    "and to `ref`; the other families' ops (T5, Shaw, Swin, learned, sinusoidal,\n"
    "2-D sin-cos, Transformer-XL, PEG, grid resizing, CoPE, a session's keys\n"
    "read back) against their own limits; then a decode session of a\n"
    "Llama-3-8B layer (prefill 1024 + 64\n"
    "decode steps) against `ref`. Buffers are allocated and pre-faulted once;\n"
    "medians of >= 7 samples (3 for the session and ref's slow cases).\n"
    "\n"
    "options:\n"
    "  --impl NAME|PATH      plugin to time (default fast)\n"
    "  --baseline NAME|PATH  reference for the ratio (default ref; 'none' skips it)\n"
    "  --tokens LIST         T values (default 1,16,128,512,4096,32768)\n"
    "  --threads LIST        thread counts (default 1,2)\n"
    "  --reps N              samples per case (default 7)\n"
    "  --only LIST           parts to measure: apply, table, alibi, session, hosts,\n"
    "                        families\n"
    "                        (default all; the targets of a part left out read n/a)\n"
    "  --json FILE           write the results as JSON (atomically)\n"
    "  --help                this text\n"
    "\n"
    "exit status: 0 measured, 2 bad usage or an output that cannot be written,\n"
    "             3 plugin failed to load\n";

/* ---- options --------------------------------------------------------------- */

static int parse_list(int64_t *out, int *n, const char *text, int64_t low, int64_t high)
{
    char *copy = strdup(text);
    char *save = NULL;
    char *item;

    *n = 0;
    for (item = copy != NULL ? strtok_r(copy, ",", &save) : NULL; item != NULL;
         item = strtok_r(NULL, ",", &save)) {
        char *end = NULL;
        long long v = strtoll(item, &end, 10);

        if (end == item || *end != '\0' || v < low || v > high || *n == BENCH_MAX_LIST) {
            free(copy);
            return -1;
        }
        out[(*n)++] = v;
    }
    free(copy);
    return *n > 0 ? 0 : -1;
}

static int bench_usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "pecert: bench: %s '%s'\n\n%s", what, arg, pecert_usage_bench);
    return PECERT_EXIT_USAGE;
}

static int parse_threads(bench_options *cli, const char *arg)
{
    int64_t values[BENCH_MAX_LIST];
    int i;

    if (parse_list(values, &cli->n_threads, arg, 1, 256) != 0) {
        return -1;
    }
    for (i = 0; i < cli->n_threads; i++) {
        cli->threads[i] = (int)values[i];
    }
    return 0;
}

/* --only's comma-separated part names as BENCH_PART_* bits; -1 if one is unknown. */
static int parse_parts(bench_options *cli, const char *text)
{
    char *copy = strdup(text);
    char *save = NULL;
    unsigned parts = 0;
    int ok = copy != NULL;

    for (char *item = ok ? strtok_r(copy, ",", &save) : NULL; item != NULL && ok;
         item = strtok_r(NULL, ",", &save)) {
        int found = 0;

        for (size_t i = 0; i < sizeof(bench_part_names) / sizeof(bench_part_names[0]); i++) {
            if (strcmp(item, bench_part_names[i]) == 0) {
                parts |= 1u << i;
                found = 1;
            }
        }
        ok = found;
    }
    free(copy);
    if (!ok || parts == 0) {
        return -1;
    }
    cli->parts = parts;
    return 0;
}

/* 0 to go on, -1 after --help, or an exit status. */
static int parse_args(bench_options *cli, int argc, char **argv)
{
    static const struct option opts[] = {
        {"impl", required_argument, NULL, 'i'},   {"baseline", required_argument, NULL, 'b'},
        {"tokens", required_argument, NULL, 'T'}, {"threads", required_argument, NULL, 't'},
        {"reps", required_argument, NULL, 'r'},   {"json", required_argument, NULL, 'j'},
        {"only", required_argument, NULL, 'o'},   {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int64_t reps[1];
    int n = 0;
    int c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'i': cli->impl = optarg; break;
        case 'b': cli->baseline = optarg; break;
        case 'j': cli->json = optarg; break;
        case 'T':
            if (parse_list(cli->tokens, &cli->n_tokens, optarg, 1, 1 << 20) != 0) {
                return bench_usage_error("--tokens: expected up to 16 values in 1..2^20:", optarg);
            }
            break;
        case 't':
            if (parse_threads(cli, optarg) != 0) {
                return bench_usage_error("--threads: expected up to 16 values in 1..256:", optarg);
            }
            break;
        case 'r':
            if (parse_list(reps, &n, optarg, 1, 1000) != 0 || n != 1) {
                return bench_usage_error("--reps: expected one value in 1..1000:", optarg);
            }
            cli->reps = (int)reps[0];
            break;
        case 'o':
            if (parse_parts(cli, optarg) != 0) {
                return bench_usage_error("--only: expected a list of apply, table, alibi, session, hosts, "
                                         "families:", optarg);
            }
            break;
        case 'h': fputs(pecert_usage_bench, stdout); return -1;
        default: return bench_usage_error("unknown or incomplete option", argv[optind - 1]);
        }
    }
    if (optind < argc) {
        return bench_usage_error("unexpected argument", argv[optind]);
    }
    return 0;
}

int pecert_cmd_bench(int argc, char **argv)
{
    bench_options opt = {.impl = "fast", .baseline = "ref", .reps = 7, .n_tokens = 6,
                         .tokens = {1, 16, 128, 512, 4096, 32768}, .n_threads = 2, .threads = {1, 2},
                         .parts = BENCH_PART_ALL};
    int rc = parse_args(&opt, argc, argv);

    if (rc != 0) {
        return rc < 0 ? PECERT_EXIT_PASS : rc;
    }
    if (pecert_check_outputs("bench", (const char *const[]){"--json"}, (const char *const[]){opt.json}, 1) != 0) {
        return PECERT_EXIT_USAGE;
    }
    return bench_run(&opt);
}
