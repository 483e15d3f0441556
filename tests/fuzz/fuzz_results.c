/*
 * fuzz_results.c - libFuzzer target: a results file as `pecert report`
 * reads it (json_text.h's rules, then pecert_run_results_from_json). It
 * must load or refuse, never crash, overflow (a heatmap of 2^32 x 2^32),
 * cast a non-integer to a count, or leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "json_text.h"
#include "results_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[512];
    if (pecert_json_text_check((const char *)data, size, why, sizeof(why)) != 0) {
        return 0;
    }
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    if (root == NULL) {
        return 0;
    }
    if (pecert_json_duplicate_key(root, why, sizeof(why)) == 0) {
        pecert_run_results run;
        if (pecert_run_results_from_json(&run, root, why, sizeof(why)) == 0) {
            pecert_run_results_free(&run);
        }
    }
    cJSON_Delete(root);
    return 0;
}
