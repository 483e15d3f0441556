/*
 * check_hostile.c - hostile input, second round (issue 42): every reader
 * refuses what it cannot trust, in one line naming the file, and no input
 * hangs pecert. Each test here failed on the code before it: a FIFO
 * blocked every reader but the vector loader, a directory read as "larger
 * than 2 GiB", a safetensors header could name a tensor twice or cut a
 * name at "\u0000", an int64 position of 2^63-1 printed as -2^63, a
 * results file of 36,000 checks was parsed whole before being refused,
 * and a single NaN was diagnosed as a scaling bug.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "safetensors.h"
#include "suites.h"

/* ---- helpers ------------------------------------------------------------ */

/* Runs pecert under a 60 s limit (a reader that blocks on a FIFO shows as
 * exit 124, not as a hung test); its exit status, output in out. */
static int bounded_pecert(char *out, size_t out_len, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "timeout 60 %s/pecert %s 2>&1", test_build_dir(), args);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, out_len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void write_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* An all-zero float32 .npy of shape [tokens, heads, dim] at path. */
static void write_zeros(const char *path, int64_t tokens, int64_t heads, int64_t dim)
{
    char err[512];
    int64_t shape[3] = {tokens, heads, dim};
    double *v = calloc((size_t)(tokens * heads * dim), sizeof(double));
    ck_assert_ptr_nonnull(v);
    ck_assert_msg(pecert_npy_write(path, v, 3, shape, 0, err, sizeof(err)) == 0, "%s", err);
    free(v);
}

/* tmpl with each "@S" replaced by special, "@G" by good, "@P" by pre. */
static void expand(char *out, size_t len, const char *tmpl, const char *special, const char *good, const char *pre)
{
    size_t n = 0;
    out[0] = '\0';
    for (const char *t = tmpl; *t != '\0' && n + 1 < len; t++) {
        const char *with = t[0] != '@' ? NULL : t[1] == 'S' ? special : t[1] == 'G' ? good : t[1] == 'P' ? pre : NULL;
        if (with != NULL) {
            n += (size_t)snprintf(out + n, len - n, "%s", with);
            t++;
        } else {
            out[n++] = *t;
            out[n] = '\0';
        }
    }
    ck_assert_uint_lt(n, len - 1);
}

static void remove_tree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- special files ------------------------------------------------------ */

/* Each reader given a FIFO (or a directory) where a file is expected:
 * exit 2 and one line "PATH: is a FIFO, not a regular file" at once. */
START_TEST(every_reader_refuses_a_fifo_or_a_directory)
{
    static char out[1 << 16];
    char dir[] = "/tmp/pecert-special-XXXXXX";
    char fifo[512];
    char args[4096];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    char pre[512];
    snprintf(pre, sizeof(pre), "%s/pre.npy", dir);
    write_zeros(pre, 2, 32, 128); /* llama-3.1-8b's heads */
    char good[512];
    snprintf(good, sizeof(good), "%s/good.json", dir);
    snprintf(args, sizeof(args), "run --impl ref --filter rope.inverse --quiet --json %s", good);
    ck_assert_int_eq(bounded_pecert(out, sizeof(out), args), 0);
    char trace[512];
    snprintf(trace, sizeof(trace), "%s/trace/step_0000", dir);
    snprintf(args, sizeof(args), "mkdir -p %s && mkfifo %s/q_pre.npy && cp %s %s/q_post.npy", trace, trace, pre,
             trace);
    ck_assert_int_eq(system(args), 0);
    /* @S: the special file; @G: a good results file; @P: pre.npy. */
    const char *const commands[] = {
        "certify --impl ref --config @S",
        "report @S",
        "report @G --mutants @S",
        "mutation --catalogue @S",
        "diagnose --profile llama-3.1-8b --before @S --after @P",
        "diagnose --profile llama-3.1-8b --before @P --after @S",
        "diagnose --profile llama-3.1-8b --before @P --after @P --positions @S",
    };
    const char *const specials[2] = {fifo, dir};
    const char *const says[2] = {"is a FIFO, not a regular file", "is a directory, not a regular file"};
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
            expand(args, sizeof(args), commands[i], specials[k], good, pre);
            int rc = bounded_pecert(out, sizeof(out), args);
            char want[1024];
            snprintf(want, sizeof(want), "%s: %s", specials[k], says[k]);
            ck_assert_msg(rc == 2 && strstr(out, want) != NULL && strchr(out, '\n') == out + strlen(out) - 1,
                          "pecert %s: exit %d, want one line with '%s':\n%.4000s", args, rc, want, out);
        }
    }
    /* A FIFO inside a decode trace. */
    snprintf(args, sizeof(args), "diagnose --profile llama-3.1-8b --trace %s/trace", dir);
    int rc = bounded_pecert(out, sizeof(out), args);
    ck_assert_msg(rc == 2 && strstr(out, "q_pre.npy: is a FIFO, not a regular file") != NULL, "exit %d:\n%.4000s",
                  rc, out);
    remove_tree(dir);
}
END_TEST

/* ---- safetensors names -------------------------------------------------- */

/* A safetensors file: header text, then data bytes of float32 zeros. */
static void safetensors_bytes(unsigned char **out, size_t *len, const char *header, size_t data_bytes)
{
    size_t h = strlen(header);
    *len = 8 + h + data_bytes;
    *out = calloc(*len, 1);
    ck_assert_ptr_nonnull(*out);
    for (int i = 0; i < 8; i++) {
        (*out)[i] = (unsigned char)((uint64_t)h >> (8 * i));
    }
    memcpy(*out + 8, header, h);
}

/* The safetensors library reads the header with serde: a name given twice
 * keeps its last entry, and "\u0000" stays part of the name. cJSON would
 * have read the first entry, or cut "q\u0000evil" to "q": both refused, so
 * that pecert never reads another tensor than the library. */
START_TEST(safetensors_names_are_read_as_the_library_reads_them_or_refused)
{
    static const char *const headers[] = {
        "{\"q\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
        " \"q\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
        "{\"q\\u0000evil\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
        " \"k\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}",
        "{\"q\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}} trailing",
    };
    static const char *const says[] = {
        "t.safetensors: header: q: duplicate key (a tensor named twice",
        "t.safetensors: header: \\u0000 in a string at offset 3",
        "t.safetensors: header: text after the JSON value",
    };
    for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
        unsigned char *bytes = NULL;
        size_t len = 0;
        char err[1024];
        pecert_npy a;
        safetensors_bytes(&bytes, &len, headers[i], 8);
        int rc = pecert_safetensors_parse(&a, bytes, len, "t.safetensors", "q", 0, err, sizeof(err));
        ck_assert_msg(rc == -1 && strstr(err, says[i]) != NULL, "header %zu: rc %d, err '%s'", i, rc, err);
        free(bytes);
    }
    /* Padding with spaces, as the library writes it, is read. */
    unsigned char *bytes = NULL;
    size_t len = 0;
    char err[1024];
    pecert_npy a;
    safetensors_bytes(&bytes, &len, "{\"q\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}   ", 4);
    ck_assert_msg(pecert_safetensors_parse(&a, bytes, len, "t.safetensors", "q", 0, err, sizeof(err)) == 0, "%s",
                  err);
    pecert_npy_free(&a);
    free(bytes);
}
END_TEST

/* ---- integers past a double's ------------------------------------------ */

/* A one-element int64 .npy holding v. */
static void write_i64(const char *path, int64_t v)
{
    /* 10-byte preamble + a header padded to 128 bytes in all (npy format
     * 1.0: a multiple of 64), then the 8 data bytes. */
    unsigned char b[136];
    const char *dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }";
    memset(b, ' ', sizeof(b));
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = 118; /* header length: 128 - 10 */
    b[9] = 0;
    memcpy(b + 10, dict, strlen(dict));
    b[127] = '\n';
    for (int i = 0; i < 8; i++) {
        b[128 + i] = (unsigned char)((uint64_t)v >> (8 * i));
    }
    write_bytes(path, b, sizeof(b));
}

/* A position of 2^63-1 rounds to 2^63 as a double, whose cast back to
 * int64 is undefined (it printed as -9223372036854775808): refused with
 * its exact value; 2^53 itself is still read. */
START_TEST(int64_elements_past_2_53_are_refused_with_their_value)
{
    char path[] = "/tmp/pecert-i64-XXXXXX";
    test_make_temp_file(path);
    char err[1024];
    pecert_npy a;
    write_i64(path, INT64_MAX);
    ck_assert_int_eq(pecert_npy_load(&a, path, 0, 0, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "element 0 is 9223372036854775807: beyond +-2^53") != NULL, "%s", err);
    write_i64(path, INT64_MIN);
    ck_assert_int_eq(pecert_npy_load(&a, path, 0, 0, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, "element 0 is -9223372036854775808: beyond +-2^53") != NULL, "%s", err);
    write_i64(path, (int64_t)1 << 53);
    ck_assert_msg(pecert_npy_load(&a, path, 0, 0, err, sizeof(err)) == 0, "%s", err);
    ck_assert(a.data[0] == 9007199254740992.0);
    pecert_npy_free(&a);
    /* Through the command: one line naming the file, no negative value. */
    char out[16384];
    char args[1024];
    char pre[600];
    snprintf(pre, sizeof(pre), "%s.pre.npy", path);
    write_zeros(pre, 1, 32, 128);
    write_i64(path, INT64_MAX);
    snprintf(args, sizeof(args), "diagnose --profile llama-3.1-8b --before %s --after %s --positions %s", pre, pre,
             path);
    int rc = bounded_pecert(out, sizeof(out), args);
    ck_assert_msg(rc == 2 && strstr(out, "9223372036854775807") != NULL && strstr(out, "-9223372036854775808") == NULL,
                  "exit %d: %s", rc, out);
    unlink(pre);
    unlink(path);
}
END_TEST

/* ---- a results file too big for what it claims ------------------------- */

/* 36,000 checks (a 197 MB file of them once cost 1.37 GB and 19 s before
 * "at most 300" refused it): counted from the text and refused before
 * the parse, naming the limit. */
START_TEST(a_results_file_of_more_checks_than_a_run_is_refused_before_parsing)
{
    char path[] = "/tmp/pecert-36k-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"schema\": \"pecert-results/1\", \"plugin\": {\"name\": \"x\"}, \"checks\": [", f);
    for (int i = 0; i < 36000; i++) {
        fprintf(f, "%s{\"check\": \"rope.inverse\", \"verdict\": \"pass\", \"cases\": 1, \"worst_ratio\": 0.5, "
                   "\"diagnosis\": \"%0200d\"}",
                i > 0 ? "," : "", i);
    }
    fputs("]}", f);
    ck_assert_int_eq(fclose(f), 0);
    char out[16384];
    char args[1024];
    snprintf(args, sizeof(args), "report %s", path);
    int rc = bounded_pecert(out, sizeof(out), args);
    ck_assert_msg(rc == 2 && strstr(out, "checks: more than") != NULL &&
                      strstr(out, "checks, the most a pecert run holds: not a file pecert wrote (refused before "
                                  "parsing it)") != NULL,
                  "exit %d: %s", rc, out);
    /* "checks" spelled with an escape hides nothing from the count. */
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"schema\": \"pecert-results/1\", \"plugin\": {\"name\": \"x\"}, \"\\u0063hecks\": [", f);
    for (int i = 0; i < 1000; i++) {
        fprintf(f, "%s{}", i > 0 ? "," : "");
    }
    fputs("]}", f);
    ck_assert_int_eq(fclose(f), 0);
    rc = bounded_pecert(out, sizeof(out), args);
    ck_assert_msg(rc == 2 && strstr(out, "refused before parsing it") != NULL, "exit %d: %s", rc, out);
    unlink(path);
}
END_TEST

/* ---- a NaN is named a NaN ------------------------------------------------ */

/* One NaN in rope_apply's output of the dynamic-NTK cases: once diagnosed
 * "dynamic/LongRoPE frequencies selected by the wrong length" (only
 * scaled cases failed) and "positions shifted" (a NaN at position 0). */
START_TEST(a_nan_output_is_diagnosed_as_a_nan)
{
    static char out[1 << 16];
    char args[1024];
    snprintf(args, sizeof(args), "run --impl %s/impls/testing/one_nan.so --filter "
                                 "'rope.apply.golden,rope.identity_at_zero,rope.freq.golden'",
             test_build_dir());
    int rc = bounded_pecert(out, sizeof(out), args);
    ck_assert_msg(rc == 1 && strstr(out, "diagnosis: the plugin's output holds NaN or infinity where a number is due") != NULL &&
                      strstr(out, "selected by the wrong length") == NULL && strstr(out, "positions shifted") == NULL,
                  "exit %d:\n%.4000s", rc, out);
}
END_TEST

Suite *make_hostile_suite(void)
{
    return test_suite_of("hostile_input",
                         TEST_TCASE("core", 600,
                                    every_reader_refuses_a_fifo_or_a_directory,
                                    safetensors_names_are_read_as_the_library_reads_them_or_refused,
                                    int64_elements_past_2_53_are_refused_with_their_value,
                                    a_results_file_of_more_checks_than_a_run_is_refused_before_parsing,
                                    a_nan_output_is_diagnosed_as_a_nan),
                         NULL);
}
