/*
 * fast_handle.h - `fast` (build/impls/fast.so) opened under a chosen
 * PECERT_ISA, for the unit tests of its engine (check_fast*.c).
 */
#ifndef PECERT_TESTS_FAST_HANDLE_H
#define PECERT_TESTS_FAST_HANDLE_H

#include "plugin_load.h"

/* Every variant name PECERT_ISA accepts; [0] is the scalar reference. */
extern const char *const fast_isas[4];

/* The engines (builtin_open names) an op's ABI tests run on: the
 * reference, fast, and the honest engine in the official float32
 * arithmetic. */
extern const char *const abi_engines[3];

typedef struct fast_handle {
    pecert_loaded_plugin plugin;
    void *instance;
} fast_handle;

/* Opens fast with PECERT_ISA=isa (NULL: unset); returns create()'s
 * status (E_UNSUPPORTED: the CPU lacks the ISA). Close it either way. */
pecert_status fast_open(fast_handle *h, const char *isa);
void fast_close(fast_handle *h);

/* Opens build/impls/NAME.so (ref, fast, ...) as it is and creates an
 * instance, asserting both; close it with builtin_close. */
void builtin_open(fast_handle *h, const char *name);
void builtin_close(fast_handle *h);

/* ref_and_fast_open: opens ref (as builtin_open) and fast under
 * PECERT_ISA=isa; returns 1 with both open, or 0 with both closed when
 * this CPU lacks the ISA (E_UNSUPPORTED). Close them with builtin_close
 * and fast_close. */
int ref_and_fast_open(fast_handle *ref, fast_handle *fast, const char *isa);

/* fill_f32: out[0..n) := value (what expect_unwritten then looks for). */
void fill_f32(float *out, size_t n, float value);

/* expect_refused: a call on h (the plugin named name) that returned st
 * must have returned want, and its last error must name field: what was
 * wrong, said in one line. */
void expect_refused(const fast_handle *h, const char *name, pecert_status st, pecert_status want, const char *field);

/* expect_unwritten: after the refusal of field, out[0..n) must still hold
 * fill, the value the test wrote there before the call. */
void expect_unwritten(const float *out, size_t n, float fill, const char *name, const char *field);

#endif /* PECERT_TESTS_FAST_HANDLE_H */
