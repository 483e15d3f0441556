/*
 * safetensors.h - one tensor of a .safetensors file, for tensor dumps
 * (pecert diagnose --before dump.safetensors:NAME).
 *
 * The format (huggingface/safetensors): an 8-byte little-endian header
 * length N, N bytes of JSON {"NAME": {"dtype": "F32", "shape": [...],
 * "data_offsets": [begin, end]}, ..., "__metadata__": {...}}, then the
 * data, the offsets relative to its start. Read are F32, F64, F16, BF16,
 * I64 and I32, into the same array type as a .npy (npy.h). Every offset,
 * length and shape is checked against the file's bytes; an error is one
 * line naming the file, the tensor and the field.
 */
#ifndef PECERT_HARNESS_SAFETENSORS_H
#define PECERT_HARNESS_SAFETENSORS_H

#include <stddef.h>

#include "npy.h"

/* pecert_safetensors_parse: tensor `name` of the file's bytes. NULL name:
 * the file's only tensor (an error naming them when it has several).
 * Floats must be finite unless allow_nonfinite. 0, or -1 with the reason. */
int pecert_safetensors_parse(pecert_npy *out, const unsigned char *bytes, size_t len, const char *path,
                             const char *name, int allow_nonfinite, char *err, size_t err_len);

/* pecert_safetensors_load: the same, reading path. */
int pecert_safetensors_load(pecert_npy *out, const char *path, const char *name, int allow_nonfinite, char *err,
                            size_t err_len);

/* pecert_tensor_load: path as .npy, or as .safetensors when it ends so;
 * "FILE.safetensors:NAME" names the tensor (else default_name, which may
 * be NULL). bf16 as for pecert_npy_load. */
int pecert_tensor_load(pecert_npy *out, const char *path, const char *default_name, int bf16, int allow_nonfinite,
                       char *err, size_t err_len);

#endif /* PECERT_HARNESS_SAFETENSORS_H */
