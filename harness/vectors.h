/*
 * vectors.h - load golden-vector files (schema pecert-vectors/1, see
 * vectors/FORMAT.md) into memory, validating everything first.
 *
 * The loader trusts nothing in the file: every key, type, range, size and
 * CRC is checked, and a failure is one line "FILE: FIELD: problem" in the
 * caller's buffer. It never crashes, whatever the bytes.
 */
#ifndef PECERT_HARNESS_VECTORS_H
#define PECERT_HARNESS_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include "pecert/plugin.h"

#define PECERT_VECTORS_SCHEMA "pecert-vectors/1"

/* Limits (vectors/FORMAT.md, "Limits"). */
#define PECERT_VEC_MAX_MANIFEST_BYTES ((size_t)16 << 20)
#define PECERT_VEC_MAX_TESTS 100000
#define PECERT_VEC_MAX_ELEMENTS ((int64_t)1 << 26)
#define PECERT_VEC_MAX_PAYLOAD_BYTES ((size_t)256 << 20)

/* One tensor of a test; data points into the file's payload (8-aligned). */
typedef struct pecert_vtensor {
    const char *name;                /* key in inputs/outputs            */
    pecert_dtype dtype;              /* F32, F64, I32 or I64             */
    uint32_t ndim;                   /* 0 = scalar                       */
    int64_t shape[PECERT_MAX_DIMS];  /* extents                          */
    int64_t num_elements;            /* product of shape (1 for scalar)  */
    const void *data;                /* packed little-endian, C order    */
} pecert_vtensor;

/* A "config" or "params" value of an op other than rope.* (FORMAT.md,
 * "Other families"): the key, and its value as the op's schema types it. */
typedef enum pecert_vvalue_kind {
    PECERT_VVAL_INT = 0,             /* i (and d)                         */
    PECERT_VVAL_NUMBER = 1,          /* d                                 */
    PECERT_VVAL_BOOL = 2,            /* i: 0 or 1                         */
    PECERT_VVAL_ENUM = 3,            /* s, and i = its index in the schema */
    PECERT_VVAL_INT_LIST = 4         /* list[n_list]                      */
} pecert_vvalue_kind;

typedef struct pecert_vvalue {
    const char *key;                 /* e.g. "num_heads"                  */
    pecert_vvalue_kind kind;
    int64_t i;
    double d;
    const char *s;
    const int64_t *list;             /* owned by the file                 */
    size_t n_list;
} pecert_vvalue;

/* One test of a vector file. */
typedef struct pecert_vtest {
    int64_t tc_id;                   /* unique within the file            */
    const char *op;                  /* "rope.freq", "alibi.bias", ...    */
    const char *comment;             /* one line                          */
    const char *source_file;         /* path inside provenance.repo       */
    const char *source_function;     /* function whose output is recorded */
    const char **flags;              /* n_flags flag names (keys of notes)*/
    size_t n_flags;
    /* Parsed "config" for rope.* ops and mrope.apply (zero for the other
     * ops); short/long_factor point to memory owned by the file. */
    pecert_rope_config rope;
    /* "params" */
    int64_t seq_len;                 /* 0 when absent                    */
    pecert_rope_pairing pairing;     /* rope.apply                       */
    const pecert_vtensor *inputs;    /* n_inputs tensors                 */
    size_t n_inputs;
    const pecert_vtensor *outputs;   /* n_outputs tensors                */
    size_t n_outputs;
    /* Config and params keys of the other families (and mrope_section of
     * mrope.apply), in schema order; absent optional keys are left out. */
    const pecert_vvalue *values;
    size_t n_values;
} pecert_vtest;

/* A flag and what it means (manifest "notes"). */
typedef struct pecert_vnote {
    const char *flag;
    const char *bug_type;
    const char *description;
} pecert_vnote;

/* A loaded vector file. All strings and arrays are owned by it. */
typedef struct pecert_vfile {
    const char *path;                /* as given to the loader            */
    const char *family;              /* "rope", ...                       */
    const char *description;
    const char *generator;
    const char *prov_repo;           /* provenance.repo                   */
    const char *prov_commit;         /* provenance.commit (40 hex)        */
    const char *prov_tag;            /* provenance.tag                    */
    const pecert_vnote *notes;
    size_t n_notes;
    const pecert_vtest *tests;
    size_t n_tests;
    int payload_loaded;              /* 0: no test's op was wanted        */
    void *internal;                  /* loader-private allocations        */
} pecert_vfile;

/*
 * pecert_vfile_load reads the manifest at json_path and its payload (in the
 * same directory), validates them and fills *out. Returns 0 on success;
 * on failure returns -1, leaves *out empty (safe to free) and writes one
 * line "json_path: field: problem" to err (err_len bytes, NUL-terminated).
 * A JSON object that does not claim to be a vector manifest (no "schema",
 * or one not of the pecert-vectors family: a results file saved in the
 * directory) returns PECERT_VFILE_NOT_MANIFEST instead, with the reason in
 * err, so that directory loaders can skip it with a warning; a file that
 * claims the schema and breaks it stays an error.
 */
#define PECERT_VFILE_NOT_MANIFEST (-2)
int pecert_vfile_load(pecert_vfile *out, const char *json_path, char *err,
                      size_t err_len);

/*
 * pecert_vfile_load_for is pecert_vfile_load for a run that reads only
 * some ops' tensors: the manifest is read and validated whole (every
 * test, its op, config and tensor refs), and the payload is read,
 * inflated and checked only when wanted(op, ctx) is 1 for one of the
 * file's tests. A file left without its payload has payload_loaded 0 and
 * its tensors no data; pecert_vtest_input/_output abort the process (a
 * check's isolated child) rather than hand out such a tensor: a check
 * that reads an op its declaration leaves out fails loudly, never with
 * fewer cases. wanted NULL: every payload, as pecert_vfile_load.
 */
typedef int (*pecert_vop_wanted)(const char *op, void *ctx);
int pecert_vfile_load_for(pecert_vfile *out, const char *json_path, pecert_vop_wanted wanted, void *ctx,
                          char *err, size_t err_len);

/* pecert_vfile_free releases everything; free of an empty/zeroed file is a
 * no-op. */
void pecert_vfile_free(pecert_vfile *file);

/* pecert_vtest_input / _output: the tensor named name, or NULL. */
const pecert_vtensor *pecert_vtest_input(const pecert_vtest *test,
                                         const char *name);
const pecert_vtensor *pecert_vtest_output(const pecert_vtest *test,
                                          const char *name);
/* pecert_vtest_has_flag: 1 if the test carries flag name (a key of the
 * file's notes), else 0. */
int pecert_vtest_has_flag(const pecert_vtest *test, const char *name);

/* pecert_rope_type_name: the rope_type as transformers names it and the
 * vectors, certify and the symptoms write it ("default", "linear",
 * "dynamic", "yarn", "longrope", "llama3"); "?" for no such type. The one
 * table of them is the loader's (vec_rope.c). */
const char *pecert_rope_type_name(pecert_rope_type t);

/* pecert_rope_pairing_name: "interleaved" or "split_half", as the vectors'
 * configs, the case names, certify and the JSON outputs spell a pairing
 * (vec_rope.c). */
const char *pecert_rope_pairing_name(pecert_rope_pairing pairing);

/* pecert_rope_original_length: the pretraining length L0 c's rope type
 * switches behaviour at when the config states one, as transformers reads
 * it: rope_scaling's original_max_position_embeddings for yarn and
 * llama3, the top-level one for longrope; 0 otherwise (dynamic NTK and
 * longrope without it switch at max_position_embeddings). The one copy of
 * the rule: the checks' L0 and certify's both read it. */
int64_t pecert_rope_original_length(const pecert_rope_config *c);

/* pecert_rope_l0: c's L0, pecert_rope_original_length or else
 * c->max_position_embeddings. */
int64_t pecert_rope_l0(const pecert_rope_config *c);

/* pecert_vtest_value: the config/params value named key, or NULL. */
const pecert_vvalue *pecert_vtest_value(const pecert_vtest *test,
                                        const char *key);
/* pecert_vtest_int / _number: the value of key (INT, BOOL, ENUM index /
 * NUMBER or INT), or fallback when the test has no such key. */
int64_t pecert_vtest_int(const pecert_vtest *test, const char *key,
                         int64_t fallback);
double pecert_vtest_number(const pecert_vtest *test, const char *key,
                           double fallback);

/*
 * pecert_vectors_list finds every "*.json" manifest under dir (recursively,
 * sorted by path so runs are deterministic). Returns the count (>= 0) and a
 * malloc'ed array of malloc'ed paths in *out_paths (free with
 * pecert_vectors_list_free), or -1 with a message in err.
 */
int pecert_vectors_list(char ***out_paths, const char *dir, char *err,
                        size_t err_len);
void pecert_vectors_list_free(char **paths, int n);

#endif /* PECERT_HARNESS_VECTORS_H */
