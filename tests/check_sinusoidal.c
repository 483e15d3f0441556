/*
 * check_sinusoidal.c - the sinusoidal variants fail each other's vectors.
 *
 * For every ordered pair (A, B) of the four variants (interleaved, concat,
 * t2t, fairseq), the test plugin build/impls/testing/sin_A.so - `ref` with
 * the variant forced to A - runs `pecert run --filter sinusoidal.golden`
 * on vectors/sinusoidal/B.* alone. A = B must pass (exit 0); A != B must
 * fail (exit 1), on most of B's vectors, and loudly: the worst error at
 * least 1000 times its bound. That is what makes the tolerance tight: a
 * plugin that swaps layout, denominator or offset cannot slip through.
 *
 * Also: an ABI 1.1 plugin gets "not supported" for every check of the 1.2
 * families (the host never reads its descriptor past struct_size).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cJSON.h>

#include "suites.h"

static const char *const variants[] = {"interleaved", "concat", "t2t", "fairseq"};
#define N_VARIANTS 4

static const char *vectors_dir(void)
{
    const char *dir = getenv("PECERT_VECTORS");
    return dir != NULL && dir[0] != '\0' ? dir : "vectors";
}

static void run_cmd(const char *cmd)
{
    int status = system(cmd);
    ck_assert_msg(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", cmd);
}

/* Reads the JSON results and returns the sinusoidal.golden entry's
 * failed and cases counts and worst ratio (inf when written as "inf"). */
static void read_result(const char *path, long *failed, long *cases, double *worst)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no results file %s", path);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    ck_assert_ptr_nonnull(root);
    cJSON *check = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "checks"), 0);
    ck_assert_ptr_nonnull(check);
    *failed = (long)cJSON_GetObjectItemCaseSensitive(check, "failed")->valuedouble;
    *cases = (long)cJSON_GetObjectItemCaseSensitive(check, "cases")->valuedouble;
    cJSON *w = cJSON_GetObjectItemCaseSensitive(check, "worst_ratio");
    *worst = cJSON_IsNumber(w) ? w->valuedouble : 1e300; /* "inf": a wrong exact zero */
    cJSON_Delete(root);
}

START_TEST(variant_fails_other_variants)
{
    const char *plugin = variants[_i / N_VARIANTS];
    const char *data = variants[_i % N_VARIANTS];
    char dir[] = "/tmp/pecert-sin-XXXXXX";
    char cmd[4096];
    char json[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(cmd, sizeof(cmd), "cp %s/sinusoidal/%s.json %s/sinusoidal/%s.bin.z %s/", vectors_dir(),
             data, vectors_dir(), data, dir);
    run_cmd(cmd);
    snprintf(json, sizeof(json), "%s/r.json", dir);
    snprintf(cmd, sizeof(cmd),
             "%s/pecert run --impl %s/impls/testing/sin_%s.so --vectors %s --filter sinusoidal.golden "
             "--json %s >/dev/null 2>&1",
             test_build_dir(), test_build_dir(), plugin, dir, json);
    int status = system(cmd);
    ck_assert(WIFEXITED(status));
    long failed = 0;
    long cases = 0;
    double worst = 0;
    read_result(json, &failed, &cases, &worst);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    run_cmd(cmd);
    if (strcmp(plugin, data) == 0) {
        ck_assert_msg(WEXITSTATUS(status) == 0, "sin_%s fails its own vectors (exit %d)", plugin,
                      WEXITSTATUS(status));
        ck_assert_int_eq(failed, 0);
        return;
    }
    ck_assert_msg(WEXITSTATUS(status) == 1, "sin_%s passes %s's vectors (exit %d)", plugin, data,
                  WEXITSTATUS(status));
    ck_assert_msg(2 * failed >= cases, "sin_%s fails only %ld of %ld %s vectors", plugin, failed,
                  cases, data);
    ck_assert_msg(worst >= 1000.0, "sin_%s on %s: worst error only %g times the bound", plugin, data,
                  worst);
}
END_TEST

/* An ABI 1.1 plugin: the family checks must not read its descriptor past
 * struct_size (PECERT_HAS_FIELD), so they are not supported, never run. */
START_TEST(abi_v11_plugin_is_not_supported)
{
    char cmd[2048];
    char out[] = "/tmp/pecert-v11-XXXXXX";
    test_make_temp_file(out);
    snprintf(cmd, sizeof(cmd), "%s/pecert run --impl %s/impls/testing/abi_v11.so "
             "--filter '[ahlmst][a-z0-9]*.*' >%s 2>&1", test_build_dir(), test_build_dir(), out);
    int status = system(cmd);
    FILE *f = fopen(out, "r");
    static char text[1 << 16];
    size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[n] = '\0';
    if (f != NULL) {
        fclose(f);
    }
    unlink(out);
    /* Every check not supported, none crashed: nothing certified, exit 1. */
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "exit %d: %s", WEXITSTATUS(status), text);
    ck_assert_msg(strstr(text, "CRASH") == NULL, "%s", text);
    ck_assert_msg(strstr(text, "diagnosis: nothing certified") != NULL, "%s", text);
    static const char *const checks[] = {"alibi.slopes.golden", "t5.bucket.golden", "mrope.index.golden",
                                         "sinusoidal.golden", "learned.out_of_range", "swin.index.golden"};
    /* Not run, and said so on the one line of such checks (run.c). */
    const char *folded = strstr(text, "N/A     ");
    ck_assert_msg(folded != NULL && strstr(folded, "need operations the plugin leaves NULL") != NULL, "%s", text);
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
        ck_assert_msg(strstr(folded, checks[i]) != NULL, "%s not reported N/A: %s", checks[i], text);
    }
}
END_TEST

Suite *make_sinusoidal_suite(void)
{
    TCase *cross = tcase_create("cross");
    tcase_set_timeout(cross, 120);
    tcase_add_loop_test(cross, variant_fails_other_variants, 0, N_VARIANTS * N_VARIANTS);
    return test_suite_of("sinusoidal", cross, TEST_TCASE("abi", 120, abi_v11_plugin_is_not_supported), NULL);
}
