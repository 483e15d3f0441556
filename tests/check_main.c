/* check_main.c - runs every unit-test suite; exit 0 only if all pass. */
#include <stdlib.h>

#include "suites.h"

const char *test_build_dir(void)
{
    const char *dir = getenv("PECERT_BUILD");
    return (dir != NULL && dir[0] != '\0') ? dir : "build";
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
    srunner_add_suite(runner, make_fast_alibi_suite());
    srunner_add_suite(runner, make_reports_suite());
    srunner_add_suite(runner, make_certify_suite());
    srunner_add_suite(runner, make_hypotheses_suite());
    srunner_add_suite(runner, make_precision_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
