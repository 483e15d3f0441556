/*
 * npy.h - NumPy .npy arrays in and out, for tensor dumps (pecert diagnose).
 *
 * Format 1.0, 2.0 and 3.0 (numpy/lib/format.py): the magic "\x93NUMPY",
 * a version, a little-endian header length, a Python dict literal
 * {'descr': ..., 'fortran_order': ..., 'shape': (...)} padded with spaces
 * to a 64-byte boundary, then the data in C order. Read are little-endian
 * (or byte-order-free) f4, f8, f2, i8, i4 and, as bfloat16 when the caller
 * says so (a bf16 tensor saved from PyTorch as .view(torch.uint16)), u2.
 * Values are converted to double on load: every one of those types is
 * exact in a double. A file that is not exactly such an array is an error
 * with one line naming the file, the field and the limit; nothing is read
 * past the file's end and nothing is allocated beyond its stated size.
 */
#ifndef PECERT_HARNESS_NPY_H
#define PECERT_HARNESS_NPY_H

#include <stddef.h>
#include <stdint.h>

#define PECERT_NPY_MAX_DIMS 8
/* Elements a dump may hold (2^28 doubles = 2 GiB once converted). */
#define PECERT_NPY_MAX_ELEMENTS ((int64_t)1 << 28)

typedef enum pecert_npy_dtype {
    PECERT_NPY_F32,
    PECERT_NPY_F64,
    PECERT_NPY_F16,
    PECERT_NPY_BF16, /* stored as uint16 ('<u2'), read with bf16 = 1 */
    PECERT_NPY_I64,
    PECERT_NPY_I32
} pecert_npy_dtype;

typedef struct pecert_npy {
    pecert_npy_dtype dtype;
    int ndim;
    int64_t shape[PECERT_NPY_MAX_DIMS];
    int64_t n;      /* product of shape (1 for a 0-d array)   */
    double *data;   /* [n], C order, malloc'ed                */
} pecert_npy;

/* pecert_npy_load reads path. bf16 = 1 reads '<u2' as bfloat16 bits
 * (else '<u2' is refused as ambiguous). Floats must be finite unless
 * allow_nonfinite. Returns 0, or -1 with "path: field: why" in err. */
int pecert_npy_load(pecert_npy *out, const char *path, int bf16, int allow_nonfinite, char *err, size_t err_len);

/* pecert_npy_parse: the same on a file's bytes already in memory. */
int pecert_npy_parse(pecert_npy *out, const unsigned char *bytes, size_t len, const char *name, int bf16,
                     int allow_nonfinite, char *err, size_t err_len);

void pecert_npy_free(pecert_npy *a);

/* pecert_dump_file_bytes: a dump file's bytes (malloc'ed, *len of them),
 * refused past 2 GiB; NULL with "path: why" in err. */
unsigned char *pecert_dump_file_bytes(const char *path, size_t *len, char *err, size_t err_len);

/* pecert_npy_element: one little-endian element of type t at p, as a
 * double (bfloat16 as the high half of a float32). */
double pecert_npy_element(const unsigned char *p, pecert_npy_dtype t);

/* Integers an element keeps exactly once read as a double: +-2^53. */
#define PECERT_NPY_EXACT_INT ((int64_t)1 << 53)

/* pecert_npy_int_inexact: 1 when the element at p is an int64 beyond
 * +-2^53 (a double would round it: 2^63-1 reads 2^63, whose cast back is
 * undefined), its exact value in *value; else 0. Loaders refuse such an
 * element rather than hold another number. */
int pecert_npy_int_inexact(const unsigned char *p, pecert_npy_dtype t, long long *value);

/* pecert_npy_dtype_name: "float32", "bfloat16", ... */
const char *pecert_npy_dtype_name(pecert_npy_dtype t);

/* pecert_npy_epsilon: the unit roundoff of a float dtype (2^-24 for
 * float32, 2^-8 for bfloat16, ...); 0 for the integer ones. */
double pecert_npy_epsilon(pecert_npy_dtype t);

/* pecert_npy_write: a float32 (or, with i64 = 1, an int64) array of ndim
 * dims to path, format 1.0 with numpy's header text; values are converted
 * from double. Returns 0, or -1 with the reason in err. For `pecert dump`
 * and the tests. */
int pecert_npy_write(const char *path, const double *values, int ndim, const int64_t *shape, int i64, char *err,
                     size_t err_len);

#endif /* PECERT_HARNESS_NPY_H */
