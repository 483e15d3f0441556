/*
 * fast_handle.c - see fast_handle.h.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fast_handle.h"
#include "suites.h"

const char *const fast_isas[4] = {"scalar", "avx2", "avx512", "avx512-nobf16"};

const char *const abi_engines[3] = {"ref", "fast", "honest/official_f32"};

pecert_status fast_open(fast_handle *h, const char *isa)
{
    char path[1024];
    char err[1024] = "";

    snprintf(path, sizeof(path), "%s/impls/fast.so", test_build_dir());
    if (isa != NULL) {
        setenv("PECERT_ISA", isa, 1);
    } else {
        unsetenv("PECERT_ISA");
    }
    ck_assert_msg(pecert_plugin_open(&h->plugin, path, err, sizeof(err)) == 0, "%s", err);
    h->instance = NULL;
    return h->plugin.desc->create(&h->instance);
}

void builtin_open(fast_handle *h, const char *name)
{
    char path[1024];
    char err[1024] = "";

    snprintf(path, sizeof(path), "%s/impls/%s.so", test_build_dir(), name);
    ck_assert_msg(pecert_plugin_open(&h->plugin, path, err, sizeof(err)) == 0, "%s", err);
    h->instance = NULL;
    ck_assert_int_eq(h->plugin.desc->create(&h->instance), PECERT_OK);
}

void builtin_close(fast_handle *h)
{
    if (h->instance != NULL) {
        h->plugin.desc->destroy(h->instance);
    }
    pecert_plugin_close(&h->plugin);
}

void fast_close(fast_handle *h)
{
    builtin_close(h);
    unsetenv("PECERT_ISA");
}

int ref_and_fast_open(fast_handle *ref, fast_handle *fast, const char *isa)
{
    builtin_open(ref, "ref");
    pecert_status st = fast_open(fast, isa);
    if (st == PECERT_E_UNSUPPORTED) {
        fast_close(fast);
        builtin_close(ref);
        return 0;
    }
    ck_assert_int_eq(st, PECERT_OK);
    return 1;
}

void fill_f32(float *out, size_t n, float value)
{
    for (size_t i = 0; i < n; i++) {
        out[i] = value;
    }
}

void expect_refused(const fast_handle *h, const char *name, pecert_status st, pecert_status want, const char *field)
{
    const char *err = h->plugin.desc->last_error(h->instance);
    ck_assert_msg(st == want, "%s: %s returned %d, want %d (%s)", name, field, st, want, err);
    ck_assert_msg(strstr(err, field) != NULL, "%s: the error '%s' does not name %s", name, err, field);
}

void expect_unwritten(const float *out, size_t n, float fill, const char *name, const char *field)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(out[i] == fill, "%s: %s refused but out[%zu] was written", name, field, i);
    }
}
