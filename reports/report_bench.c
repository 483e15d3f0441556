/*
 * report_bench.c - bench files (pecert-bench/1, pecert-bench-peers/1) for
 * the report's Speed section.
 *
 * Every object is read through a table of its fields (key, JSON type,
 * where it lands), so the rule is stated once: a field the section shows
 * must be there with its type unless the table marks it optional, and a
 * key no table names is ignored. An error names the field by its JSON
 * path ("cases[3].time.median_s").
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "report_bench.h"

/* Whole numbers past 2^53 are not exact in a JSON double. */
#define MAX_WHOLE 9007199254740992.0

typedef enum field_kind {
    FIELD_STRING,   /* char[size], NUL-terminated                        */
    FIELD_INT,      /* int64_t from a whole number                       */
    FIELD_NUMBER,   /* double from a finite number                       */
    FIELD_BOOL,     /* int from true or false                            */
    FIELD_INT3,     /* int64_t[3] from an array of three whole numbers   */
    FIELD_OBJECT    /* a nested object, read through its own field list  */
} field_kind;

struct field_list;

typedef struct field {
    const char *key;
    field_kind kind;
    int optional;                  /* absent: "", -1 or NAN              */
    size_t offset;                 /* where the value lands              */
    size_t size;                   /* its size (strings: the buffer's)   */
    const struct field_list *sub;  /* FIELD_OBJECT: its fields           */
} field;

typedef struct field_list {
    const field *fields;
    size_t n;
} field_list;

#define FIELD_AT(type, member, kind, optional, sub) \
    {#member, kind, optional, offsetof(type, member), sizeof(((type *)0)->member), sub}
#define REQUIRED(type, member, kind) FIELD_AT(type, member, kind, 0, NULL)
#define OPTIONAL(type, member, kind) FIELD_AT(type, member, kind, 1, NULL)
#define LIST(fields) {fields, sizeof(fields) / sizeof(fields[0])}

static const field time_fields[] = {
    REQUIRED(pecert_bench_time, min_s, FIELD_NUMBER),
    REQUIRED(pecert_bench_time, median_s, FIELD_NUMBER),
    REQUIRED(pecert_bench_time, max_s, FIELD_NUMBER),
    REQUIRED(pecert_bench_time, samples, FIELD_INT),
    REQUIRED(pecert_bench_time, calls_per_sample, FIELD_INT),
};
static const field_list time_list = LIST(time_fields);

/* What a rotary case and an M-RoPE case share. */
#define CASE_FIELDS                                                            \
    REQUIRED(pecert_bench_case, impl, FIELD_STRING),                           \
    REQUIRED(pecert_bench_case, tokens, FIELD_INT),                            \
    REQUIRED(pecert_bench_case, heads, FIELD_INT),                             \
    REQUIRED(pecert_bench_case, head_dim, FIELD_INT),                          \
    REQUIRED(pecert_bench_case, threads, FIELD_INT),                           \
    REQUIRED(pecert_bench_case, pairing, FIELD_STRING),                        \
    REQUIRED(pecert_bench_case, placement, FIELD_STRING),                      \
    REQUIRED(pecert_bench_case, dtype, FIELD_STRING),                          \
    REQUIRED(pecert_bench_case, bytes, FIELD_NUMBER),                          \
    FIELD_AT(pecert_bench_case, time, FIELD_OBJECT, 0, &time_list),            \
    REQUIRED(pecert_bench_case, gbps, FIELD_NUMBER),                           \
    REQUIRED(pecert_bench_case, limit_gbps, FIELD_NUMBER),                     \
    REQUIRED(pecert_bench_case, limit_probe, FIELD_STRING),                    \
    OPTIONAL(pecert_bench_case, speedup_vs_ref, FIELD_NUMBER)

static const field case_fields[] = {CASE_FIELDS, REQUIRED(pecert_bench_case, rotary_dim, FIELD_INT)};
static const field mrope_fields[] = {CASE_FIELDS, REQUIRED(pecert_bench_case, section, FIELD_INT3)};
static const field rope2d_fields[] = {CASE_FIELDS, REQUIRED(pecert_bench_case, frequencies, FIELD_STRING),
                                      REQUIRED(pecert_bench_case, grid_width, FIELD_INT)};

static const field table_fields[] = {
    REQUIRED(pecert_bench_table, impl, FIELD_STRING),
    REQUIRED(pecert_bench_table, tokens, FIELD_INT),
    REQUIRED(pecert_bench_table, half, FIELD_INT),
    REQUIRED(pecert_bench_table, threads, FIELD_INT),
    FIELD_AT(pecert_bench_table, time, FIELD_OBJECT, 0, &time_list),
};

static const field accuracy_fields[] = {
    REQUIRED(pecert_bench_accuracy, first_position, FIELD_INT),
    REQUIRED(pecert_bench_accuracy, positions, FIELD_INT),
    REQUIRED(pecert_bench_accuracy, max_abs_error, FIELD_NUMBER),
};

static const field machine_load_fields[] = {
    REQUIRED(pecert_bench_load, tokens, FIELD_INT),
    REQUIRED(pecert_bench_load, other_processes_cpu_share, FIELD_NUMBER),
};

static const field alibi_fields[] = {
    REQUIRED(pecert_bench_alibi, impl, FIELD_STRING),
    REQUIRED(pecert_bench_alibi, heads, FIELD_INT),
    REQUIRED(pecert_bench_alibi, n_q, FIELD_INT),
    REQUIRED(pecert_bench_alibi, n_k, FIELD_INT),
    REQUIRED(pecert_bench_alibi, threads, FIELD_INT),
    REQUIRED(pecert_bench_alibi, bytes_written, FIELD_NUMBER),
    FIELD_AT(pecert_bench_alibi, time, FIELD_OBJECT, 0, &time_list),
    REQUIRED(pecert_bench_alibi, gbps, FIELD_NUMBER),
    REQUIRED(pecert_bench_alibi, fill_limit_gbps, FIELD_NUMBER),
    OPTIONAL(pecert_bench_alibi, speedup_vs_ref, FIELD_NUMBER),
};

static const field session_fields[] = {
    REQUIRED(pecert_bench_session, impl, FIELD_STRING),
    REQUIRED(pecert_bench_session, heads, FIELD_INT),
    REQUIRED(pecert_bench_session, kv_heads, FIELD_INT),
    REQUIRED(pecert_bench_session, head_dim, FIELD_INT),
    REQUIRED(pecert_bench_session, prefill, FIELD_INT),
    REQUIRED(pecert_bench_session, decode, FIELD_INT),
    REQUIRED(pecert_bench_session, threads, FIELD_INT),
    REQUIRED(pecert_bench_session, flops, FIELD_NUMBER),
    FIELD_AT(pecert_bench_session, time, FIELD_OBJECT, 0, &time_list),
    REQUIRED(pecert_bench_session, gflops, FIELD_NUMBER),
    OPTIONAL(pecert_bench_session, speedup_vs_ref, FIELD_NUMBER),
};

static const field family_fields[] = {
    REQUIRED(pecert_bench_family, op, FIELD_STRING),
    REQUIRED(pecert_bench_family, shape, FIELD_STRING),
    REQUIRED(pecert_bench_family, impl, FIELD_STRING),
    REQUIRED(pecert_bench_family, threads, FIELD_INT),
    REQUIRED(pecert_bench_family, memory_bound, FIELD_BOOL),
    REQUIRED(pecert_bench_family, bytes_read, FIELD_NUMBER),
    REQUIRED(pecert_bench_family, bytes_written, FIELD_NUMBER),
    FIELD_AT(pecert_bench_family, time, FIELD_OBJECT, 0, &time_list),
    REQUIRED(pecert_bench_family, gbps, FIELD_NUMBER),
    OPTIONAL(pecert_bench_family, limit_gbps, FIELD_NUMBER),
    OPTIONAL(pecert_bench_family, limit_probe, FIELD_STRING),
    OPTIONAL(pecert_bench_family, pct_of_limit, FIELD_NUMBER),
    OPTIONAL(pecert_bench_family, speedup_vs_ref, FIELD_NUMBER),
};

static const field target_fields[] = {
    REQUIRED(pecert_bench_target, value, FIELD_NUMBER),
    REQUIRED(pecert_bench_target, target, FIELD_NUMBER),
    REQUIRED(pecert_bench_target, unit, FIELD_STRING),
    REQUIRED(pecert_bench_target, met, FIELD_BOOL),
    OPTIONAL(pecert_bench_target, cases, FIELD_INT),
    OPTIONAL(pecert_bench_target, cases_meeting, FIELD_INT),
};
static const field_list target_list = LIST(target_fields);

static const field peer_fields[] = {
    REQUIRED(pecert_bench_peer, tokens, FIELD_INT),
    REQUIRED(pecert_bench_peer, threads, FIELD_INT),
    REQUIRED(pecert_bench_peer, torch_best_formula, FIELD_STRING),
    REQUIRED(pecert_bench_peer, torch_best_median_s, FIELD_NUMBER),
    REQUIRED(pecert_bench_peer, fast_best_median_s, FIELD_NUMBER),
    REQUIRED(pecert_bench_peer, fast_over_torch, FIELD_NUMBER),
};

static const field machine_fields[] = {
    REQUIRED(pecert_bench_machine, cpu, FIELD_STRING),
    REQUIRED(pecert_bench_machine, online_cpus, FIELD_INT),
    REQUIRED(pecert_bench_machine, probe_isa, FIELD_STRING),
};
static const field_list machine_list = LIST(machine_fields);

static const field run_fields[] = {
    FIELD_AT(pecert_bench_run, machine, FIELD_OBJECT, 0, &machine_list),
    REQUIRED(pecert_bench_run, impl, FIELD_STRING),
    REQUIRED(pecert_bench_run, impl_describe, FIELD_STRING),
    REQUIRED(pecert_bench_run, baseline, FIELD_STRING),
};

static const field peers_fields[] = {
    REQUIRED(pecert_bench_peers, torch, FIELD_STRING),
    REQUIRED(pecert_bench_peers, fast, FIELD_STRING),
    OPTIONAL(pecert_bench_peers, note, FIELD_STRING),
};

/* An array of objects of one field list, landing in a pointer and a count. */
typedef struct array_spec {
    const char *key;
    int optional;                  /* absent: no elements                */
    field_list elem;
    size_t elem_size;
    size_t offset_items;           /* the T * member                     */
    size_t offset_n;               /* the size_t count member            */
} array_spec;

#define ARRAY(type, member, optional, fields, elem_type)                                    \
    {#member, optional, LIST(fields), sizeof(elem_type), offsetof(type, member), \
     offsetof(type, n_##member)}

static const array_spec run_arrays[] = {
    ARRAY(pecert_bench_run, cases, 0, case_fields, pecert_bench_case),
    ARRAY(pecert_bench_run, mrope, 1, mrope_fields, pecert_bench_case),
    ARRAY(pecert_bench_run, rope2d, 1, rope2d_fields, pecert_bench_case),
    ARRAY(pecert_bench_run, tables, 0, table_fields, pecert_bench_table),
    ARRAY(pecert_bench_run, accuracy, 0, accuracy_fields, pecert_bench_accuracy),
    ARRAY(pecert_bench_run, machine_load, 0, machine_load_fields, pecert_bench_load),
    ARRAY(pecert_bench_run, alibi, 0, alibi_fields, pecert_bench_alibi),
    ARRAY(pecert_bench_run, session, 1, session_fields, pecert_bench_session),
    ARRAY(pecert_bench_run, families, 1, family_fields, pecert_bench_family),
};

static const array_spec peers_arrays[] = {
    ARRAY(pecert_bench_peers, summary, 0, peer_fields, pecert_bench_peer),
};

/* ---- reading one value --------------------------------------------------- */

static const char *json_kind(const cJSON *item)
{
    return cJSON_IsString(item) ? "a string" : cJSON_IsNumber(item) ? "a number" : cJSON_IsBool(item) ? "a boolean"
           : cJSON_IsNull(item) ? "null" : cJSON_IsArray(item) ? "an array" : "an object";
}

/* where.key into out (where "" at the top level). */
static void join_path(char *out, size_t len, const char *where, const char *key)
{
    snprintf(out, len, "%s%s%s", where, where[0] != '\0' ? "." : "", key);
}

static int whole_number(const cJSON *item, int64_t *out)
{
    double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!(fabs(v) <= MAX_WHOLE) || v != floor(v)) {
        return 0;
    }
    *out = (int64_t)v;
    return 1;
}

static int read_int3(int64_t *out, const cJSON *item)
{
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3) {
        return 0;
    }
    for (int i = 0; i < 3; i++) {
        if (!whole_number(cJSON_GetArrayItem(item, i), &out[i])) {
            return 0;
        }
    }
    return 1;
}

static int load_fields(void *dst, const cJSON *obj, const field_list *list, const char *where, char *err,
                       size_t err_len);

/* One present value of f into dst + f->offset; 0, or -1 with err. */
static int load_value(char *dst, const cJSON *item, const field *f, const char *path, char *err, size_t err_len)
{
    static const char *const want[] = {"a string", "a whole number", "a finite number", "true or false",
                                       "an array of three whole numbers", "an object"};
    int ok = 0;
    switch (f->kind) {
    case FIELD_STRING:
        ok = cJSON_IsString(item) && strlen(item->valuestring) < f->size;
        if (ok) {
            memcpy(dst, item->valuestring, strlen(item->valuestring) + 1);
        } else if (cJSON_IsString(item)) {
            snprintf(err, err_len, "%s: longer than %zu bytes", path, f->size - 1);
            return -1;
        }
        break;
    case FIELD_INT: ok = whole_number(item, (int64_t *)(void *)dst); break;
    case FIELD_NUMBER:
        ok = cJSON_IsNumber(item) && isfinite(item->valuedouble);
        *(double *)(void *)dst = ok ? item->valuedouble : 0.0;
        break;
    case FIELD_BOOL:
        ok = cJSON_IsBool(item);
        *(int *)(void *)dst = cJSON_IsTrue(item);
        break;
    case FIELD_INT3: ok = read_int3((int64_t *)(void *)dst, item); break;
    case FIELD_OBJECT:
        if (cJSON_IsObject(item)) {
            return load_fields(dst, item, f->sub, path, err, err_len);
        }
        break;
    }
    if (!ok) {
        snprintf(err, err_len, "%s: expected %s, found %s", path, want[f->kind], json_kind(item));
        if (cJSON_IsNumber(item) && f->kind != FIELD_INT3 && f->kind != FIELD_OBJECT) {
            snprintf(err + strlen(err), err_len - strlen(err), " (%.17g)", item->valuedouble);
        }
    }
    return ok ? 0 : -1;
}

/* The value of an optional field that is absent. */
static void set_absent(char *dst, const field *f)
{
    if (f->kind == FIELD_NUMBER) {
        *(double *)(void *)dst = NAN;
    } else if (f->kind == FIELD_INT) {
        *(int64_t *)(void *)dst = -1;
    } else {
        memset(dst, 0, f->size);
    }
}

static int load_fields(void *dst, const cJSON *obj, const field_list *list, const char *where, char *err,
                       size_t err_len)
{
    for (size_t i = 0; i < list->n; i++) {
        const field *f = &list->fields[i];
        const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, f->key);
        char path[256];
        join_path(path, sizeof(path), where, f->key);
        if (item == NULL && f->optional) {
            set_absent((char *)dst + f->offset, f);
        } else if (item == NULL) {
            snprintf(err, err_len, "%s: missing", path);
            return -1;
        } else if (load_value((char *)dst + f->offset, item, f, path, err, err_len) != 0) {
            return -1;
        }
    }
    return 0;
}

/* ---- arrays and documents ------------------------------------------------ */

/* Pointer members are set through these, whatever their element type. */
static void set_items(void *doc, const array_spec *a, void *items, size_t n)
{
    memcpy((char *)doc + a->offset_items, &items, sizeof(items));
    memcpy((char *)doc + a->offset_n, &n, sizeof(n));
}

static void free_items(void *doc, const array_spec *a)
{
    void *items;
    memcpy(&items, (char *)doc + a->offset_items, sizeof(items));
    free(items);
    set_items(doc, a, NULL, 0);
}

/* The member `key` of root, which must be an array (is_array) or an
 * object, and a zeroed buffer of as many elem_size items (at least one);
 * NULL after writing the error. A missing member is an error too. */
static const cJSON *collection(const cJSON *root, const char *key, int is_array, size_t elem_size,
                               void **items, char *err, size_t err_len)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, key);
    size_t n;

    if (is_array ? !cJSON_IsArray(list) : !cJSON_IsObject(list)) {
        snprintf(err, err_len, "%s: %s%s%s", key, list == NULL ? "missing" : "expected an ",
                 list == NULL ? "" : is_array ? "array, found " : "object, found ",
                 list == NULL ? "" : json_kind(list));
        return NULL;
    }
    n = (size_t)cJSON_GetArraySize(list);
    *items = calloc(n > 0 ? n : 1, elem_size);
    if (*items == NULL) {
        snprintf(err, err_len, "%s: out of memory", key);
        return NULL;
    }
    return list;
}

static int load_array(void *doc, const cJSON *root, const array_spec *a, char *err, size_t err_len)
{
    void *buffer = NULL;
    const cJSON *list;

    if (a->optional && cJSON_GetObjectItemCaseSensitive(root, a->key) == NULL) {
        return 0;
    }
    list = collection(root, a->key, 1, a->elem_size, &buffer, err, err_len);
    if (list == NULL) {
        return -1;
    }
    char *items = buffer;
    set_items(doc, a, items, (size_t)cJSON_GetArraySize(list));
    size_t i = 0;
    const cJSON *elem = NULL;
    cJSON_ArrayForEach(elem, list)
    {
        char where[64];
        snprintf(where, sizeof(where), "%s[%zu]", a->key, i);
        if (!cJSON_IsObject(elem)) {
            snprintf(err, err_len, "%s: expected an object, found %s", where, json_kind(elem));
            return -1;
        }
        if (load_fields(items + i * a->elem_size, elem, &a->elem, where, err, err_len) != 0) {
            return -1;
        }
        i++;
    }
    return 0;
}

static int load_arrays(void *doc, const cJSON *root, const array_spec *specs, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        if (load_array(doc, root, &specs[i], err, err_len) != 0) {
            return -1;
        }
    }
    return 0;
}

/* "targets": an object of target objects, kept in document order. */
static int load_targets(pecert_bench_run *run, const cJSON *root, char *err, size_t err_len)
{
    void *buffer = NULL;
    const cJSON *targets = collection(root, "targets", 0, sizeof(*run->targets), &buffer, err, err_len);
    if (targets == NULL) {
        return -1;
    }
    run->targets = buffer;
    const cJSON *t = NULL;
    cJSON_ArrayForEach(t, targets)
    {
        pecert_bench_target *out = &run->targets[run->n_targets];
        const field key = {t->string, FIELD_OBJECT, 0, 0, sizeof(*out), &target_list};
        char where[128];
        snprintf(where, sizeof(where), "targets.%s", t->string);
        if (strlen(t->string) >= sizeof(out->key)) {
            snprintf(err, err_len, "%.100s: key longer than %zu bytes", where, sizeof(out->key) - 1);
            return -1;
        }
        if (load_value((char *)out, t, &key, where, err, err_len) != 0) {
            return -1;
        }
        snprintf(out->key, sizeof(out->key), "%s", t->string);
        run->n_targets++;
    }
    return 0;
}

/* "notes": an array of strings. */
static int load_notes(pecert_bench_run *run, const cJSON *root, char *err, size_t err_len)
{
    void *buffer = NULL;
    const cJSON *notes = collection(root, "notes", 1, sizeof(*run->notes.text), &buffer, err, err_len);
    if (notes == NULL) {
        return -1;
    }
    run->notes.text = buffer;
    const field text = {"", FIELD_STRING, 0, 0, sizeof(*run->notes.text), NULL};
    const cJSON *note = NULL;
    cJSON_ArrayForEach(note, notes)
    {
        char where[64];
        snprintf(where, sizeof(where), "notes[%zu]", run->notes.n);
        if (load_value(run->notes.text[run->notes.n], note, &text, where, err, err_len) != 0) {
            return -1;
        }
        run->notes.n++;
    }
    return 0;
}

static void run_free(pecert_bench_run *run)
{
    for (size_t i = 0; i < sizeof(run_arrays) / sizeof(run_arrays[0]); i++) {
        free_items(run, &run_arrays[i]);
    }
    free(run->targets);
    free(run->notes.text);
    memset(run, 0, sizeof(*run));
}

static void peers_free(pecert_bench_peers *peers)
{
    free_items(peers, &peers_arrays[0]);
    memset(peers, 0, sizeof(*peers));
}

void pecert_bench_free(pecert_bench *bench)
{
    run_free(&bench->run);
    peers_free(&bench->peers);
}

static int load_run(pecert_bench_run *run, const cJSON *root, char *err, size_t err_len)
{
    const field_list own = LIST(run_fields);
    if (load_fields(run, root, &own, "", err, err_len) != 0 ||
        load_arrays(run, root, run_arrays, sizeof(run_arrays) / sizeof(run_arrays[0]), err, err_len) != 0 ||
        load_targets(run, root, err, err_len) != 0 || load_notes(run, root, err, err_len) != 0) {
        return -1;
    }
    return 0;
}

static int load_peers(pecert_bench_peers *peers, const cJSON *root, char *err, size_t err_len)
{
    const field_list own = LIST(peers_fields);
    if (load_fields(peers, root, &own, "", err, err_len) != 0 ||
        load_arrays(peers, root, peers_arrays, 1, err, err_len) != 0) {
        return -1;
    }
    return 0;
}

/* Loads root (schema already read) into a fresh half of the bench; the
 * old half is replaced only on success. 0, or -1 with err (no file name). */
static int load_doc(pecert_bench *bench, const cJSON *root, const char *schema, const char *path, char *err,
                    size_t err_len)
{
    int is_run = strcmp(schema, PECERT_BENCH_SCHEMA) == 0;
    const char *given = is_run ? bench->run.path : bench->peers.path;
    if (given[0] != '\0') {
        snprintf(err, err_len, "schema: a second %s file (the first: %.200s)", schema, given);
        return -1;
    }
    if (is_run) {
        pecert_bench_run run;
        memset(&run, 0, sizeof(run));
        if (load_run(&run, root, err, err_len) != 0) {
            run_free(&run);
            return -1;
        }
        snprintf(run.path, sizeof(run.path), "%s", path);
        bench->run = run;
    } else {
        pecert_bench_peers peers;
        memset(&peers, 0, sizeof(peers));
        if (load_peers(&peers, root, err, err_len) != 0) {
            peers_free(&peers);
            return -1;
        }
        snprintf(peers.path, sizeof(peers.path), "%s", path);
        bench->peers = peers;
    }
    return 0;
}

int pecert_bench_load_file(pecert_bench *bench, const char *path, char *err, size_t err_len)
{
    cJSON *root = pecert__report_parse_file(path, err, err_len);
    if (root == NULL) {
        return -1;
    }
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    const char *name = cJSON_IsString(schema) ? schema->valuestring : NULL;
    char why[1024];
    int rc = -1;
    if (name != NULL && (strcmp(name, PECERT_BENCH_SCHEMA) == 0 || strcmp(name, PECERT_BENCH_PEERS_SCHEMA) == 0)) {
        rc = load_doc(bench, root, name, path, why, sizeof(why));
    } else {
        snprintf(why, sizeof(why), "schema: expected \"%s\" or \"%s\", found %s%.64s%s", PECERT_BENCH_SCHEMA,
                 PECERT_BENCH_PEERS_SCHEMA, name != NULL ? "\"" : "", name != NULL ? name : "none",
                 name != NULL ? "\"" : "");
    }
    if (rc != 0) {
        snprintf(err, err_len, "%s: %s", path, why);
    }
    cJSON_Delete(root);
    return rc;
}
