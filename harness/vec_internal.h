/*
 * vec_internal.h - private parts of the golden-vector loader (vectors.c and
 * vec_*.c). Nothing here is harness interface; see vectors.h for that.
 *
 * The loader is split by concern: vec_json.c (error line, key tables,
 * typed JSON getters, arena), vec_io.c (bounded file reads, inflate),
 * vec_rope.c (the RoPE "config" object), vec_values.c (the typed keys of
 * the other families' config and params), vec_ops.c (ops, params, tensor
 * refs), vec_families.c (the other families' op table), vec_list.c
 * (directory walk) and vectors.c (the file as a whole).
 */
#ifndef PECERT_HARNESS_VEC_INTERNAL_H
#define PECERT_HARNESS_VEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "vectors.h"

/* cJSON keeps numbers as doubles: integers are exact only up to 2^53 - 1,
 * so no integer field may go past it (a bigger one would silently round). */
#define VEC_JSON_INT_MAX (((int64_t)1 << 53) - 1)

/* Locator buffers ("tests[12].outputs.inv_freq"); the names in them come
 * from the key tables, so only free-form keys (flags) can hit the limit,
 * and then the message is merely shortened. */
#define VEC_LOC_LEN 256

/* The most tensors (inputs + outputs) any op has: sizes the ref list
 * (cope.logits: five inputs, two outputs). */
#define VEC_MAX_OP_TENSORS 7
#define VEC_MAX_OP_INPUTS 5
#define VEC_MAX_OP_OUTPUTS 2
/* The most generic config + params keys an op has (posinterp.resize: 11). */
#define VEC_MAX_OP_KEYS 12

/* Where a failure is reported: one line "path: field: problem". */
typedef struct vec_ctx {
    const char *path;        /* manifest path as given to the loader   */
    char *err;               /* caller's buffer; NULL = no message      */
    size_t err_len;          /* its size in bytes                       */
} vec_ctx;

/* One key of a fixed-schema JSON object. */
typedef struct vec_key {
    const char *name;        /* exact, case-sensitive                   */
    int required;            /* 1 = missing is an error                 */
} vec_key;

/* Bump allocator: everything a loaded file owns besides the cJSON tree
 * and the payload, released in one go. */
typedef struct vec_chunk vec_chunk;
typedef struct vec_arena {
    vec_chunk *head;         /* newest chunk first                      */
} vec_arena;

/* A tensor ref whose bytes are checked once the payload is inflated. */
typedef struct vec_tref {
    pecert_vtensor *tensor;  /* receives data                           */
    size_t test_index;       /* for the locator                         */
    const char *group;       /* "inputs" or "outputs"                   */
    uint64_t offset;         /* into the decompressed payload           */
    uint64_t nbytes;         /* num_elements * element size             */
    uint32_t crc32;          /* zlib crc32 of those bytes               */
} vec_tref;

/* State shared by the parts of one load. */
typedef struct vec_loader {
    vec_ctx ctx;             /* error reporting                         */
    vec_arena *arena;        /* owned by the file being built           */
    uint64_t raw_bytes;      /* payload.raw_bytes: bounds every tensor  */
    vec_tref *refs;          /* every tensor ref, in file order         */
    size_t n_refs;
} vec_loader;

typedef struct vec_op vec_op;

/* ---- vec_json.c -------------------------------------------------------- */

/* pecert__vec_fail writes "path: loc.key: problem" (loc or key may be NULL
 * or empty) to ctx->err, one line, truncated safely. Always returns -1. */
int pecert__vec_fail(const vec_ctx *ctx, const char *loc, const char *key,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* pecert__vec_loc writes loc.key (or loc[key] when key starts with '[')
 * into buf; a too-long locator is cut, never overflowed. */
void pecert__vec_loc(char *buf, size_t buf_len, const char *loc,
                     const char *key);

const char *pecert__vec_type_name(const cJSON *item);

/* pecert__vec_fields checks that obj (named loc) is an object whose keys
 * are exactly some of keys[] (no unknown or duplicate key, every required
 * one present) and stores each key's item in out[i] (NULL if absent). */
int pecert__vec_fields(const vec_ctx *ctx, const char *loc, const cJSON *obj,
                       const vec_key *keys, size_t n_keys, const cJSON **out);

/* Typed getters: item must be of the type (NULL reports "got nothing"),
 * else -1 with a message at loc.key. */
int pecert__vec_int(const vec_ctx *ctx, const char *loc, const char *key,
                    const cJSON *item, int64_t lo, int64_t hi, int64_t *out);
int pecert__vec_number(const vec_ctx *ctx, const char *loc, const char *key,
                       const cJSON *item, double *out);
int pecert__vec_string(const vec_ctx *ctx, const char *loc, const char *key,
                       const cJSON *item, int nonempty, const char **out);
int pecert__vec_bool(const vec_ctx *ctx, const char *loc, const char *key,
                     const cJSON *item, int *out);
/* pecert__vec_text_ok: no control characters (messages stay one line). */
int pecert__vec_text_ok(const char *s);

void *pecert__vec_alloc(vec_arena *arena, size_t n, size_t size);
char *pecert__vec_strdup(vec_arena *arena, const char *s);
void pecert__vec_arena_free(vec_arena *arena);

/* ---- vec_io.c ---------------------------------------------------------- */

/* pecert__vec_read_file reads the regular file at path, at most max_len
 * bytes (limit_name says which limit, for the message), into a malloc'ed
 * buffer with a NUL appended. Errors are reported at field. */
int pecert__vec_read_file(const vec_ctx *ctx, const char *field,
                          const char *path, size_t max_len,
                          const char *limit_name, unsigned char **out,
                          size_t *out_len);

/* pecert__vec_inflate decompresses the one zlib stream in[0..in_len) into
 * out, which must come out exactly raw_bytes long. */
int pecert__vec_inflate(const vec_ctx *ctx, const unsigned char *in,
                        size_t in_len, unsigned char *out, size_t raw_bytes);

/* ---- ops (vec_ops.c, vec_families.c) ---------------------------------- */

/* A shape entry: a fixed extent (>= 0), a config-derived one, one of the
 * op's free extents (fixed by the first tensor that has it and then
 * required of every other), the integer value of one of the op's keys, or
 * an extent the op's derive() computes from its keys. */
enum {
    DIM_HALF = -1,           /* rotary_dim / 2                          */
    DIM_HEAD = -2            /* head_dim                                */
};
#define DIM_VAR(k) (-3 - (k))      /* op's var_names[k], k < 4         */
#define DIM_KEY(k) (-10 - (k))     /* int value of op's keys[k]         */
#define DIM_DERIVED(k) (-20 - (k)) /* op's derive(test, k), k < 4      */

typedef struct vec_tspec {
    const char *name;        /* key in inputs / outputs                 */
    pecert_dtype dtype;      /* INVALID = f32 or f64                    */
    uint32_t ndim;
    int64_t dims[3];         /* DIM_* or a fixed extent                 */
} vec_tspec;

/* How a generic key is typed. */
typedef enum vec_vkind {
    VK_INT,                  /* integer in [lo, hi]                     */
    VK_NUMBER,               /* finite; bound: 0 any, 1 > 0, 2 > 1      */
    VK_BOOL,
    VK_ENUM,                 /* one of choices (NULL-terminated)        */
    VK_INT_LIST              /* 1..hi_items integers in [lo, hi]        */
} vec_vkind;

typedef struct vec_vkey {
    const char *name;
    int required;
    int in_params;           /* 1 = under "params", 0 = under "config"  */
    vec_vkind kind;
    int64_t lo;              /* VK_INT, VK_INT_LIST elements            */
    int64_t hi;
    int bound;               /* VK_NUMBER                               */
    const char *const *choices; /* VK_ENUM                              */
    int64_t max_items;       /* VK_INT_LIST                             */
} vec_vkey;

struct vec_op {
    const char *name;        /* "rope.freq", "alibi.bias", ...          */
    int rope_config;         /* config is a RoPE config (+ config keys) */
    int has_pairing;         /* rope params: pairing required           */
    const vec_vkey *keys;    /* generic keys (config, params)           */
    size_t n_keys;
    /* Extents for DIM_DERIVED(k); NULL if the op has none. */
    int64_t (*derive)(const pecert_vtest *test, int k);
    /* Checks spanning keys (after keys and config are parsed); NULL if
     * none. Reports at loc ("tests[i].config"). */
    int (*validate)(const vec_ctx *ctx, const char *loc,
                    const pecert_vtest *test);
    const char *var_names[4];
    /* The least extent each var may take (0 unless set: an empty batch is
     * a valid test; a table of no channels is not). */
    int64_t var_min[4];
    vec_tspec inputs[VEC_MAX_OP_INPUTS];
    size_t n_inputs;
    vec_tspec outputs[VEC_MAX_OP_OUTPUTS];
    size_t n_outputs;
};

/* The ops of the other families (vec_families.c). */
extern const vec_op pecert__vec_family_ops[];
extern const size_t pecert__vec_num_family_ops;

/* ---- vec_values.c ------------------------------------------------------ */

/* pecert__vec_values parses op's generic keys of one group (params 0/1)
 * from the items fetched for them (items[k] for keys[k], NULL = absent)
 * and appends them to test->values (room for op->n_keys). */
int pecert__vec_values(vec_loader *ld, const char *loc, const vec_op *op,
                       int in_params, const cJSON **items, pecert_vtest *test);

/* ---- vec_rope.c -------------------------------------------------------- */

/* The key table of a RoPE config: fills keys (room for
 * VEC_ROPE_CONFIG_KEYS) and returns their count. */
#define VEC_ROPE_CONFIG_KEYS 18
size_t pecert__vec_rope_keys(vec_key *keys);

/* pecert__vec_rope_config_items parses a RoPE config from its items, as
 * fetched for the keys of pecert__vec_rope_keys. */
int pecert__vec_rope_config_items(vec_loader *ld, const char *loc,
                                  const cJSON **items,
                                  pecert_rope_config *out);


/* pecert__vec_rope_config parses a test's "config" (named loc). */
int pecert__vec_rope_config(vec_loader *ld, const char *loc,
                            const cJSON *obj, pecert_rope_config *out);

/* ---- vec_ops.c --------------------------------------------------------- */

/* pecert__vec_op_find: the op named name, or NULL. */
const vec_op *pecert__vec_op_find(const char *name);

/* pecert__vec_op_config parses a test's "config" (at cfg_loc) for op:
 * a RoPE config into test->rope and/or generic keys into test->values. */
int pecert__vec_op_config(vec_loader *ld, const char *cfg_loc,
                          const vec_op *op, const cJSON *config,
                          pecert_vtest *test);

/* pecert__vec_op_fill parses a test's "params", "inputs" and "outputs"
 * (test_loc is "tests[i]") for op, after its config is parsed, and queues
 * every tensor ref in ld->refs for the payload pass. */
int pecert__vec_op_fill(vec_loader *ld, const char *test_loc,
                        size_t test_index, const vec_op *op,
                        const cJSON *params, const cJSON *inputs,
                        const cJSON *outputs, pecert_vtest *test);

#endif /* PECERT_HARNESS_VEC_INTERNAL_H */
