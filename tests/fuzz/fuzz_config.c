/*
 * fuzz_config.c - libFuzzer target: the config.json mapping of `pecert
 * certify` (conformance/certify/certify_config.c) on any text. It must map or refuse
 * with one line, never crash, overflow a factor list, leak or read past a
 * string (issue 13: a LongRoPE list of 513 factors overflowed).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "certify_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pecert_certify_model model; /* 8 KiB of factors: not on the stack */
    char *text = malloc(size + 1);
    char err[1024];
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    (void)pecert_certify_parse(&model, text, "fuzz", err, sizeof(err));
    free(text);
    return 0;
}
