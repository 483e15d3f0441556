/*
 * fuzz_results.c - libFuzzer target: a results or report file exactly as
 * `pecert report` reads one (pecert_report_load_text: NUL and duplicate-key
 * rules, the memory budget, pecert_run_results_from_json). It must load or
 * refuse, never crash, overflow (a heatmap of 2^32 x 2^32), cast a
 * non-integer to a count, or leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    char err[1024];
    pecert_report rep;
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    memset(&rep, 0, sizeof(rep));
    (void)pecert_report_load_text(&rep, text, size, "fuzz", err, sizeof(err));
    pecert_report_free(&rep);
    free(text);
    return 0;
}
