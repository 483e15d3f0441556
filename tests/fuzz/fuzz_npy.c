/*
 * fuzz_npy.c - libFuzzer target: the .npy and .safetensors readers of
 * `pecert diagnose` (harness/npy.c, safetensors.c) on any bytes, as float
 * dumps and as bfloat16 bits, and
 * the rotation recovery (harness/rope_recover.c) on whatever it accepts:
 * one line or an array, never a crash, a read past the bytes or an
 * allocation beyond what the header's shape needs.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "npy.h"
#include "safetensors.h"
#include "rope_recover.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The array as [tokens][1][dim] before = after shifted by one token. */
static void recover(const pecert_npy *a)
{
    if (a->ndim < 1 || a->n < 4 || a->shape[a->ndim - 1] < 2) {
        return;
    }
    int32_t dim = (int32_t)(a->shape[a->ndim - 1] & ~1);
    int64_t tokens = a->n / a->shape[a->ndim - 1] - 1;
    if (tokens < 1 || dim > 512) {
        return;
    }
    pecert_dump_view v = {tokens, 1, dim, a->data, a->data + a->shape[a->ndim - 1], pecert_npy_epsilon(a->dtype)};
    int32_t lo;
    int32_t hi;
    double median;
    pecert_recover_rotated_range(&v, &lo, &hi);
    (void)pecert_recover_pairing_spread(&v, PECERT_PAIRING_INTERLEAVED, 0, dim, &median);
    double *phi = malloc((size_t)tokens * (size_t)(dim / 2) * sizeof(double));
    double *w = malloc((size_t)tokens * (size_t)(dim / 2) * sizeof(double));
    double *omega = malloc((size_t)(dim / 2) * sizeof(double));
    if (phi != NULL && w != NULL && omega != NULL) {
        pecert_recover_angles(&v, PECERT_PAIRING_SPLIT_HALF, 0, dim, phi, w);
        for (int32_t i = 0; i < dim / 2; i++) {
            omega[i] = pow(10000.0, -2.0 * i / dim);
        }
        pecert_recovered_position p;
        pecert_recover_position(phi, w, omega, dim / 2, NAN, v.eps, &p);
    }
    free(phi);
    free(w);
    free(omega);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    for (int bf16 = 0; bf16 < 2; bf16++) {
        pecert_npy a;
        if (pecert_npy_parse(&a, data, size, "fuzz", bf16, 0, err, sizeof(err)) == 0) {
            recover(&a);
            pecert_npy_free(&a);
        }
    }
    pecert_npy st;
    if (pecert_safetensors_parse(&st, data, size, "fuzz", NULL, 0, err, sizeof(err)) == 0) {
        recover(&st);
        pecert_npy_free(&st);
    }
    return 0;
}
