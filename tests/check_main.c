/* check_main.c - runs every unit-test suite; exit 0 only if all pass. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"

const char *test_build_dir(void)
{
    const char *dir = getenv("PECERT_BUILD");
    return (dir != NULL && dir[0] != '\0') ? dir : "build";
}

void test_impl_path(char *path, size_t len, const char *name)
{
    snprintf(path, len, "%s/impls/%s.so", test_build_dir(), name);
}

int test_pecert(char *out, size_t out_len, const char *fmt, ...)
{
    char args[4096];
    char cmd[8192];
    char log[] = "/tmp/pecert-test-XXXXXX";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    int fd = mkstemp(log);
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "%s/pecert %s >%s 2>&1", test_build_dir(), args, log);
    int status = system(cmd);
    FILE *f = fopen(log, "r");
    size_t n = f != NULL ? fread(out, 1, out_len - 1, f) : 0;
    out[n] = '\0';
    if (f != NULL) {
        fclose(f);
    }
    unlink(log);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

int main(void)
{
    SRunner *runner = srunner_create(make_vectors_suite());
    srunner_add_suite(runner, make_compare_suite());
    srunner_add_suite(runner, make_plugin_load_suite());
    srunner_add_suite(runner, make_runner_suite());
    srunner_add_suite(runner, make_cli_suite());
    srunner_add_suite(runner, make_sinusoidal_suite());
    srunner_add_suite(runner, make_fast_suite());
    srunner_add_suite(runner, make_fast_mrope_suite());
    srunner_add_suite(runner, make_rope2d_suite());
    srunner_add_suite(runner, make_posinterp_suite());
    srunner_add_suite(runner, make_cope_suite());
    srunner_add_suite(runner, make_peg_suite());
    srunner_add_suite(runner, make_fast_alibi_suite());
    srunner_add_suite(runner, make_reports_suite());
    srunner_add_suite(runner, make_certify_suite());
    srunner_add_suite(runner, make_certify_vision_suite());
    srunner_add_suite(runner, make_hypotheses_suite());
    srunner_add_suite(runner, make_precision_suite());
    srunner_add_suite(runner, make_dumps_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    ck_assert_int_ge(len, 0);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    return text;
}
