/*
 * rope_precision.c - rope.long_position_precision: the error of apply at
 * far positions against the exact oracle, reported as a function of the
 * position. float32 angles lose precision linearly with p (TOLERANCES.md,
 * "Angles"); a plugin that loses more (fp16/bf16 positions or angles, a
 * wrapped or clamped table) is caught, and the report shows the curve.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isolate.h"
#include "rope_checks.h"
#include "tolerance.h"

#define HEADS 2

/* 2^11 .. 2^24 and their neighbours: where float16 (2^11), a 16-bit index
 * (2^16), a float32 angle (2^20) and a float32 position (2^24) give out. */
static const int64_t far_positions[] = {
    (1 << 11) - 1, 1 << 11, (1 << 11) + 1, (1 << 16) - 1, 1 << 16, (1 << 16) + 1,
    (1 << 20) - 1, 1 << 20, (1 << 20) + 1, (1 << 24) - 1, 1 << 24, (1 << 24) + 1,
};
#define N_FAR (int64_t)(sizeof(far_positions) / sizeof(far_positions[0]))

static void precision_case(const pecert_check_env *env, pecert_check_result *r,
                           const pecert_rope_config *config, pecert_rope_pairing pairing,
                           const char *where)
{
    int64_t pos[N_FAR];
    memcpy(pos, far_positions, sizeof(pos));
    int64_t n = pecert_scope_trim(env, r, pos, N_FAR); /* the far positions within the declared scope */
    if (n == 0) {
        pecert_case_beyond_scope(r, "every far position past the declared max_position");
        return;
    }
    pecert_rope_call call = {config, pairing, 0, pos, n, HEADS, config->head_dim};
    pecert_rope_versus_oracle(env, r, &call, 707, 4096, where);
}

/* The worst error seen at each far position, for the diagnosis line:
 * "max error by position: 2^11 0, 2^16 1.2e-07, 2^20 not run, ...". A
 * position with no sample (declined, or beyond the plugin's declared
 * max_position) says "not run", never a 0 that would read as exact. */
static void summarize(pecert_check_result *r)
{
    static const int exponents[] = {11, 16, 20, 24};
    char line[PECERT_RESULT_LINE_MAX] = "max error by position:";
    for (int k = 0; k < N_FAR; k += 3) {
        double worst = 0.0;
        int sampled = 0;
        for (size_t i = 0; i < r->n_points; i++) {
            if (r->points[i].position == far_positions[k + 1]) {
                sampled = 1;
                worst = r->points[i].error > worst ? r->points[i].error : worst;
            }
        }
        char part[64];
        if (sampled) {
            snprintf(part, sizeof(part), "%s 2^%d %.2g", k > 0 ? "," : "", exponents[k / 3], worst);
        } else {
            snprintf(part, sizeof(part), "%s 2^%d not run", k > 0 ? "," : "", exponents[k / 3]);
        }
        strncat(line, part, sizeof(line) - strlen(line) - 1);
    }
    int64_t first_bad = -1;
    for (size_t i = 0; i < r->n_points; i++) {
        if (pecert_exceeds(r->points[i].error, r->points[i].bound) &&
            (first_bad < 0 || r->points[i].position < first_bad)) {
            first_bad = r->points[i].position;
        }
    }
    if (first_bad >= 0) {
        pecert_check_symptom(r, "%s%lld", PECERT_SYMPTOM_PRECISION_LOST_FROM, (long long)first_bad);
    }
    if (r->verdict == PECERT_VERDICT_PASS) {
        snprintf(r->diagnosis, sizeof(r->diagnosis), "%s", line);
    } else {
        (void)pecert_check_result_add_line(r, PECERT_FAILURE_NOTE, line);
    }
}

static void run_precision(const pecert_check_env *env, pecert_check_result *r)
{
    pecert_rope_sweep_pairings(env, r, "", precision_case);
    pecert_check_conclude(r, "config/pairing sweeps at 2^11..2^24");
    summarize(r);
}

const pecert_check pecert_check_rope_long_position_precision = {
    PECERT_ID_ROPE_LONG_POSITION_PRECISION,
    "apply at positions 2^11..2^24 stays within the float32 angle bound of the exact oracle",
    PECERT_NEED_ROPE_APPLY, run_precision};
