/* report.c - the terminal table and JSON objects of `pecert bench`. */
#include <stdio.h>

#include "bench.h"

double bench_gbps(size_t bytes, double seconds)
{
    /* Read plus write: a copy or a rotation of N bytes moves 2N. */
    return seconds > 0.0 ? 2.0 * (double)bytes / seconds * 1e-9 : 0.0;
}

double bench_write_gbps(size_t bytes, double seconds)
{
    return seconds > 0.0 ? (double)bytes / seconds * 1e-9 : 0.0;
}

/* A time in a fixed 9-character field: microseconds below 1 ms. */
static void format_time(char *out, size_t len, double seconds)
{
    if (seconds < 1e-3) {
        snprintf(out, len, "%7.2fus", seconds * 1e6);
    } else {
        snprintf(out, len, "%7.3fms", seconds * 1e3);
    }
}

static void format_size(char *out, size_t len, size_t bytes)
{
    if (bytes >= ((size_t)1 << 20)) {
        snprintf(out, len, "%gM", (double)bytes / (double)((size_t)1 << 20));
    } else {
        snprintf(out, len, "%gK", (double)bytes / 1024.0);
    }
}

void bench_print_probe(const bench_probe *p)
{
    char size[32];
    char t[3][16];

    format_size(size, sizeof(size), p->bytes);
    format_time(t[0], sizeof(t[0]), p->stats.min);
    format_time(t[1], sizeof(t[1]), p->stats.median);
    format_time(t[2], sizeof(t[2]), p->stats.max);
    printf("  probe %-8s %6s thr=%d  min %s  median %s  max %s  %7.1f GB/s\n",
           bench_probe_name(p->kind), size, p->threads, t[0], t[1], t[2],
           p->kind == BENCH_PROBE_FILL ? bench_write_gbps(p->bytes, p->stats.median)
                                       : bench_gbps(p->bytes, p->stats.median));
}

void bench_print_header(void)
{
    printf("  %-5s %6s %3s %-5s %-5s %3s %-5s %6s %9s %9s %9s %7s %14s %6s %9s %7s\n", "impl",
           "T", "thr", "pair", "place", "rot", "dtype", "size", "min", "median", "max", "GB/s",
           "limit GB/s", "%lim", "ref med", "x ref");
}

void bench_print_row(const bench_row *row)
{
    const bench_case *c = &row->c;
    size_t bytes = bench_case_bytes(c);
    double gbps = bench_gbps(bytes, row->stats.median);
    char size[32];
    char t[4][16];
    char limit[32];
    char ratio[16] = "      -";

    format_size(size, sizeof(size), bytes);
    format_time(t[0], sizeof(t[0]), row->stats.min);
    format_time(t[1], sizeof(t[1]), row->stats.median);
    format_time(t[2], sizeof(t[2]), row->stats.max);
    snprintf(t[3], sizeof(t[3]), "        -");
    if (row->ref_median > 0.0) {
        format_time(t[3], sizeof(t[3]), row->ref_median);
        snprintf(ratio, sizeof(ratio), "%6.1fx", row->ref_median / row->stats.median);
    }
    snprintf(limit, sizeof(limit), "%6.1f %-7s", row->limit_gbps, row->limit_kind);
    printf("  %-5s %6lld %3d %-5s %-5s %3d %-5s %6s %s %s %s %7.1f %14s %5.0f%% %s %s\n",
           row->impl, (long long)c->tokens, c->threads,
           c->pairing == PECERT_PAIRING_INTERLEAVED ? "inter" : "split",
           c->placement == BENCH_IN_PLACE ? "in" : "out", c->rotary_dim,
           bench_dtype_name(c->dtype), size, t[0], t[1], t[2], gbps, limit,
           row->limit_gbps > 0.0 ? 100.0 * gbps / row->limit_gbps : 0.0, t[3], ratio);
}

cJSON *bench_stats_json(const bench_stats *s)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "min_s", s->min);
    cJSON_AddNumberToObject(o, "median_s", s->median);
    cJSON_AddNumberToObject(o, "max_s", s->max);
    cJSON_AddNumberToObject(o, "samples", s->samples);
    cJSON_AddNumberToObject(o, "calls_per_sample", s->inner);
    cJSON_AddNumberToObject(o, "rounds", s->rounds);
    return o;
}

cJSON *bench_probe_json(const bench_probe *p)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "kind", bench_probe_name(p->kind));
    cJSON_AddNumberToObject(o, "bytes", (double)p->bytes);
    cJSON_AddNumberToObject(o, "threads", p->threads);
    cJSON_AddItemToObject(o, "time", bench_stats_json(&p->stats));
    cJSON_AddNumberToObject(o, "gbps", p->kind == BENCH_PROBE_FILL
                                           ? bench_write_gbps(p->bytes, p->stats.median)
                                           : bench_gbps(p->bytes, p->stats.median));
    return o;
}

cJSON *bench_row_json(const bench_row *row)
{
    const bench_case *c = &row->c;
    size_t bytes = bench_case_bytes(c);
    double gbps = bench_gbps(bytes, row->stats.median);
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "impl", row->impl);
    if (c->mrope) {
        cJSON *section = cJSON_AddArrayToObject(o, "section");

        for (int k = 0; k < 3; k++) {
            cJSON_AddItemToArray(section, cJSON_CreateNumber(bench_mrope_sections[k]));
        }
    }
    if (c->rope2d) {
        cJSON_AddStringToObject(o, "frequencies", "blocks");
        cJSON_AddNumberToObject(o, "grid_width", 64);
    }
    cJSON_AddNumberToObject(o, "tokens", (double)c->tokens);
    cJSON_AddNumberToObject(o, "heads", BENCH_HEADS);
    cJSON_AddNumberToObject(o, "head_dim", BENCH_HEAD_DIM);
    cJSON_AddNumberToObject(o, "threads", c->threads);
    cJSON_AddStringToObject(o, "pairing",
                            c->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split_half");
    cJSON_AddStringToObject(o, "placement",
                            c->placement == BENCH_IN_PLACE ? "in_place" : "out_of_place");
    cJSON_AddNumberToObject(o, "rotary_dim", c->rotary_dim);
    cJSON_AddStringToObject(o, "dtype", bench_dtype_name(c->dtype));
    cJSON_AddNumberToObject(o, "bytes", (double)bytes);
    cJSON_AddItemToObject(o, "time", bench_stats_json(&row->stats));
    cJSON_AddNumberToObject(o, "gbps", gbps);
    cJSON_AddNumberToObject(o, "limit_gbps", row->limit_gbps);
    cJSON_AddStringToObject(o, "limit_probe", row->limit_kind);
    cJSON_AddNumberToObject(o, "pct_of_limit", row->limit_gbps > 0 ? 100.0 * gbps / row->limit_gbps : 0);
    if (row->ref_median > 0.0) {
        cJSON_AddNumberToObject(o, "ref_median_s", row->ref_median);
        cJSON_AddNumberToObject(o, "speedup_vs_ref", row->ref_median / row->stats.median);
    }
    return o;
}
