/*
 * fuzz_vectors.c - libFuzzer target: the vector loader on any manifest.
 *
 * The input is written as the manifest m.json of a scratch directory that
 * also holds the payloads of the seed manifests (copied once from the
 * source tree's vectors/), so a mutated seed reaches the payload checks,
 * the tensor and config parsing, not only the JSON grammar. Any outcome but
 * a crash, a leak or undefined behaviour is fine: the loader must say no.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vectors.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

static char scratch[] = "/tmp/pecert-fuzz-vectors-XXXXXX";
static char manifest[sizeof(scratch) + 16];

/* The payloads the seed manifests name. */
static const char *const payloads[] = {
    "profiles/t5-base.bin.z", "profiles/bloom.bin.z", "profiles/gpt2.bin.z",
    "profiles/llama-2-7b.bin.z", "t5/buckets.bin.z", "alibi/slopes_paper.bin.z",
};

static void copy_payload(const char *rel)
{
    char from[1024];
    char to[1024];
    snprintf(from, sizeof(from), "%s/vectors/%s", PECERT_SOURCE_DIR, rel);
    snprintf(to, sizeof(to), "%s/%s", scratch, strrchr(rel, '/') + 1);
    FILE *in = fopen(from, "rb");
    FILE *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    while (in != NULL && out != NULL && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
        fwrite(buf, 1, n, out);
    }
    if (in != NULL) {
        fclose(in);
    }
    if (out != NULL) {
        fclose(out);
    }
}

/* The scratch directory goes when the fuzzer exits (it calls exit()). */
static void remove_scratch(void)
{
    char cmd[sizeof(scratch) + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", scratch);
    (void)!system(cmd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (mkdtemp(scratch) == NULL) {
        abort();
    }
    atexit(remove_scratch);
    for (size_t i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
        copy_payload(payloads[i]);
    }
    snprintf(manifest, sizeof(manifest), "%s/m.json", scratch);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(manifest, "wb");
    if (f == NULL) {
        return 0;
    }
    fwrite(data, 1, size, f);
    fclose(f);
    pecert_vfile v;
    char err[1024];
    (void)pecert_vfile_load(&v, manifest, err, sizeof(err));
    pecert_vfile_free(&v);
    return 0;
}
