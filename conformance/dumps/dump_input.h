/*
 * dump_input.h - the tensors `pecert diagnose` reads, as one array of
 * [tokens][heads][head_dim] before and after RoPE: a dump pair (.npy or
 * one tensor of a .safetensors file, thd or htd layout, a batch of one
 * dropped), a KV cache with the keys written to it (one row per slot),
 * or a decode trace (a directory of step_NNNN/{q_pre,q_post}.npy, read
 * as one run of tokens in step order).
 *
 * Every shape is checked against the checkpoint's head_dim and its query
 * or key/value heads, and every failure is one line naming the file.
 */
#ifndef PECERT_CONFORMANCE_DUMP_INPUT_H
#define PECERT_CONFORMANCE_DUMP_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "certify_config.h"
#include "npy.h"

/* A trace of more steps than this is refused (a step is a directory). */
#define PECERT_TRACE_MAX_STEPS 65536

typedef struct pecert_dump_shape {
    int64_t tokens;
    int32_t heads;
    int32_t dim;
} pecert_dump_shape;

typedef struct pecert_dump_input {
    pecert_dump_shape shape;
    pecert_npy_dtype dtype;     /* of the first "before" tensor            */
    double eps;                 /* the coarser unit roundoff of the two    */
    double *x;                  /* before, [tokens][heads][dim]            */
    double *y;                  /* after                                   */
    int64_t *positions;         /* per token (a trace: given or implied)   */
    /* A trace: step k is tokens step_first[k] .. step_first[k+1]-1, read
     * from directory step_<step_number[k]>; n_steps = 0 otherwise. */
    int32_t n_steps;
    int64_t *step_first;
    int32_t *step_number;
    int steps_give_positions;   /* every step had its positions.npy        */
} pecert_dump_input;

typedef struct pecert_dump_source {
    const char *tensor;         /* --tensor: the safetensors name          */
    int bf16;                   /* '<u2' read as bfloat16 bits             */
    int htd;                    /* [heads, tokens, dim]                    */
} pecert_dump_source;

/* pecert_dump_load_pair: before and after (same shape) into d. */
int pecert_dump_load_pair(pecert_dump_input *d, const char *before, const char *after, const pecert_dump_source *src,
                          const pecert_certify_model *m, char *err, size_t len);

/* pecert_dump_read_positions: an int64/int32 vector of n values in
 * [min, 2^40] (min -1 lets a cache mark an empty slot). malloc'ed, or NULL
 * with the reason in err. */
int64_t *pecert_dump_read_positions(const char *path, int64_t n, int64_t min, char *err, size_t len);

/* pecert_dump_load_trace: every step_NNNN directory of dir, in the order
 * of NNNN, each with q_pre.npy and q_post.npy and optionally positions.npy.
 * Without positions in every step, each step continues where the one
 * before ended, from 0 (a prefill, then one token per decode step). */
int pecert_dump_load_trace(pecert_dump_input *d, const char *dir, const pecert_dump_source *src,
                           const pecert_certify_model *m, char *err, size_t len);

void pecert_dump_input_free(pecert_dump_input *d);

#endif /* PECERT_CONFORMANCE_DUMP_INPUT_H */
