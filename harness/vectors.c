/*
 * vectors.c - load one golden-vector file (vectors/FORMAT.md): the
 * manifest's top level, provenance, payload declaration, notes and tests,
 * then the payload and every tensor's bytes. Parts live in vec_*.c.
 *
 * Two passes: the whole manifest is validated first (cheap, and most
 * errors are there), then the payload is read, inflated and every tensor
 * slice CRC-checked. The loaded file points into the kept cJSON tree for
 * its strings and into the payload for tensor data.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "json_text.h"
#include "vec_internal.h"

/* Tensors are read in place from the payload, so it must be 8-aligned;
 * malloc's alignment (that of max_align_t) gives that. */
_Static_assert(_Alignof(max_align_t) >= 8, "payload must be 8-aligned");

/* What a loaded file owns, behind pecert_vfile.internal. */
typedef struct vec_internal {
    cJSON *root;             /* the manifest: strings point into it     */
    unsigned char *payload;  /* decompressed, raw_bytes (>= 1 alloc'd)  */
    vec_arena arena;         /* tests, tensors, notes, flags, factors   */
} vec_internal;

/* manifest "payload", as declared. */
typedef struct vec_payload_decl {
    const char *file;        /* plain file name next to the manifest    */
    uint64_t raw_bytes;
    uint64_t compressed_bytes;
    uint32_t crc32;
} vec_payload_decl;

enum {
    TOP_SCHEMA, TOP_FAMILY, TOP_DESCRIPTION, TOP_GENERATOR, TOP_PROVENANCE,
    TOP_PAYLOAD, TOP_NOTES, TOP_NUMBER_OF_TESTS, TOP_TESTS, TOP_COUNT
};

static const vec_key top_keys[TOP_COUNT] = {
    [TOP_SCHEMA] = {"schema", 1},
    [TOP_FAMILY] = {"family", 1},
    [TOP_DESCRIPTION] = {"description", 1},
    [TOP_GENERATOR] = {"generator", 1},
    [TOP_PROVENANCE] = {"provenance", 1},
    [TOP_PAYLOAD] = {"payload", 1},
    [TOP_NOTES] = {"notes", 1},
    [TOP_NUMBER_OF_TESTS] = {"numberOfTests", 1},
    [TOP_TESTS] = {"tests", 1},
};

/* ---- helpers ----------------------------------------------------------- */

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Free-form objects (notes, packages) cannot use a key table; sort their
 * keys to find duplicates, which cJSON would otherwise keep silently. */
static int check_unique_keys(const vec_ctx *ctx, const char *loc,
                             const cJSON *obj, const char ***out_sorted,
                             size_t *out_n)
{
    const cJSON *c;
    const char **names;
    size_t n = 0;

    for (c = obj->child; c != NULL; c = c->next) {
        n++;
    }
    names = malloc((n > 0 ? n : 1) * sizeof *names);
    if (names == NULL) {
        return pecert__vec_fail(ctx, loc, NULL, "out of memory");
    }
    n = 0;
    for (c = obj->child; c != NULL; c = c->next) {
        names[n++] = c->string != NULL ? c->string : "";
    }
    qsort(names, n, sizeof *names, cmp_str_ptr);
    for (size_t i = 1; i < n; i++) {
        if (strcmp(names[i - 1], names[i]) == 0) {
            (void)pecert__vec_fail(ctx, loc, names[i], "duplicate key");
            free(names);
            return -1;
        }
    }
    *out_sorted = names;
    *out_n = n;
    return 0;
}

/* ---- manifest text ----------------------------------------------------- */

/* The manifest is UTF-8 text (FORMAT.md) whose strings end up in
 * messages and reports: json_text.h's rules ("pecert-vectors/1\u0000x"
 * would otherwise pass as the schema). */
static int check_manifest_bytes(const vec_ctx *ctx, const char *text,
                                size_t len)
{
    char why[96];

    if (pecert_json_text_check(text, len, why, sizeof(why)) != 0) {
        return pecert__vec_fail(ctx, "manifest", NULL, "%s", why);
    }
    return 0;
}

static int parse_manifest(const vec_ctx *ctx, const char *path,
                          cJSON **out_root)
{
    unsigned char *text = NULL;
    size_t len = 0;
    const char *end = NULL;
    int rc = -1;

    if (pecert__vec_read_file(ctx, "manifest", path,
                              PECERT_VEC_MAX_MANIFEST_BYTES,
                              "the 16 MiB a manifest may have", &text, &len) != 0) {
        return -1;
    }
    if (check_manifest_bytes(ctx, (const char *)text, len) != 0) {
        goto out_free;
    }
    /* len + 1 takes in the NUL read_file appends, which is what lets
     * require_null_terminated reject anything after the value. */
    *out_root = cJSON_ParseWithLengthOpts((const char *)text, len + 1, &end,
                                          1);
    if (*out_root == NULL) {
        size_t at = end != NULL && end >= (const char *)text
                        ? (size_t)(end - (const char *)text) : 0;
        size_t line = 1;

        for (size_t i = 0; i < at && i < len; i++) {
            line += text[i] == '\n';
        }
        (void)pecert__vec_fail(ctx, "manifest", NULL,
                               "invalid JSON at byte %zu (line %zu)", at,
                               line);
        goto out_free;
    }
    rc = 0;
out_free:
    free(text);
    return rc;
}

/* ---- top level, provenance, payload ------------------------------------ */

static int check_commit(const vec_ctx *ctx, const char *s)
{
    size_t n = strlen(s);

    if (n != 40 || strspn(s, "0123456789abcdef") != 40) {
        return pecert__vec_fail(ctx, "provenance", "commit",
                                "expected 40 lowercase hex digits, got "
                                "\"%s\"", s);
    }
    return 0;
}

static int parse_packages(const vec_ctx *ctx, const cJSON *obj)
{
    const char **names = NULL;
    size_t n = 0;
    const char *s;

    if (!cJSON_IsObject(obj)) {
        return pecert__vec_fail(ctx, "provenance", "packages",
                                "expected an object, got %s",
                                pecert__vec_type_name(obj));
    }
    if (check_unique_keys(ctx, "provenance.packages", obj, &names, &n) != 0) {
        return -1;
    }
    free(names);
    for (const cJSON *c = obj->child; c != NULL; c = c->next) {
        if (c->string == NULL || c->string[0] == '\0' ||
            !pecert__vec_text_ok(c->string)) {
            return pecert__vec_fail(ctx, "provenance.packages", c->string,
                                    "bad package name");
        }
        if (pecert__vec_string(ctx, "provenance.packages", c->string, c, 1,
                               &s) != 0) {
            return -1;
        }
    }
    return 0;
}

static int parse_provenance(const vec_ctx *ctx, const cJSON *obj,
                            pecert_vfile *file)
{
    static const vec_key keys[4] = {
        {"repo", 1}, {"commit", 1}, {"tag", 1}, {"packages", 1}};
    const cJSON *f[4];

    if (pecert__vec_fields(ctx, "provenance", obj, keys, 4, f) != 0 ||
        pecert__vec_string(ctx, "provenance", "repo", f[0], 1,
                           &file->prov_repo) != 0 ||
        pecert__vec_string(ctx, "provenance", "commit", f[1], 1,
                           &file->prov_commit) != 0 ||
        check_commit(ctx, file->prov_commit) != 0 ||
        pecert__vec_string(ctx, "provenance", "tag", f[2], 1,
                           &file->prov_tag) != 0) {
        return -1;
    }
    return parse_packages(ctx, f[3]);
}

/* The payload sits next to the manifest: a path component in its name
 * could reach anywhere. And a vector file is a pair <name>.json +
 * <name>.bin.z (FORMAT.md), so a renamed or copied manifest cannot load
 * another file's payload unnoticed. */
static int check_payload_name(const vec_ctx *ctx, const char *json_path,
                              const char *name)
{
    static const char suffix[] = ".bin.z";
    const char *base = strrchr(json_path, '/');
    size_t stem_len;

    base = base != NULL ? base + 1 : json_path;
    stem_len = strlen(base);
    if (stem_len > 5 && strcmp(base + stem_len - 5, ".json") == 0) {
        stem_len -= 5;
    }
    if (strchr(name, '/') != NULL || strchr(name, '\\') != NULL ||
        strstr(name, "..") != NULL) {
        return pecert__vec_fail(ctx, "payload", "file",
                                "\"%s\" is not a plain file name (no '/' "
                                "or '..')", name);
    }
    if (strlen(name) != stem_len + sizeof suffix - 1 ||
        strncmp(name, base, stem_len) != 0 ||
        strcmp(name + stem_len, suffix) != 0) {
        return pecert__vec_fail(ctx, "payload", "file",
                                "\"%s\" does not pair with the manifest "
                                "(expected \"%.*s%s\")", name, (int)stem_len,
                                base, suffix);
    }
    return 0;
}

static int parse_payload_decl(const vec_ctx *ctx, const char *json_path,
                              const cJSON *obj, vec_payload_decl *out)
{
    static const vec_key keys[4] = {{"file", 1}, {"raw_bytes", 1},
                                    {"compressed_bytes", 1}, {"crc32", 1}};
    const cJSON *f[4];
    int64_t raw;
    int64_t compressed;
    int64_t crc;
    /* A deflate stream of the largest payload is at most this long. */
    int64_t max_compressed =
        (int64_t)compressBound((uLong)PECERT_VEC_MAX_PAYLOAD_BYTES);

    if (pecert__vec_fields(ctx, "payload", obj, keys, 4, f) != 0 ||
        pecert__vec_string(ctx, "payload", "file", f[0], 1, &out->file) != 0 ||
        check_payload_name(ctx, json_path, out->file) != 0 ||
        pecert__vec_int(ctx, "payload", "raw_bytes", f[1], 0,
                        (int64_t)PECERT_VEC_MAX_PAYLOAD_BYTES, &raw) != 0 ||
        pecert__vec_int(ctx, "payload", "compressed_bytes", f[2], 1,
                        max_compressed, &compressed) != 0 ||
        pecert__vec_int(ctx, "payload", "crc32", f[3], 0, UINT32_MAX,
                        &crc) != 0) {
        return -1;
    }
    out->raw_bytes = (uint64_t)raw;
    out->compressed_bytes = (uint64_t)compressed;
    out->crc32 = (uint32_t)crc;
    return 0;
}

static int parse_header(const vec_ctx *ctx, const cJSON **top,
                        pecert_vfile *file)
{
    const char *schema;

    if (pecert__vec_string(ctx, NULL, "schema", top[TOP_SCHEMA], 1,
                           &schema) != 0) {
        return -1;
    }
    if (strcmp(schema, PECERT_VECTORS_SCHEMA) != 0) {
        return pecert__vec_fail(ctx, NULL, "schema",
                                "expected \"%s\", got \"%s\"",
                                PECERT_VECTORS_SCHEMA, schema);
    }
    if (pecert__vec_string(ctx, NULL, "family", top[TOP_FAMILY], 1,
                           &file->family) != 0 ||
        pecert__vec_string(ctx, NULL, "description", top[TOP_DESCRIPTION], 1,
                           &file->description) != 0 ||
        pecert__vec_string(ctx, NULL, "generator", top[TOP_GENERATOR], 1,
                           &file->generator) != 0) {
        return -1;
    }
    return parse_provenance(ctx, top[TOP_PROVENANCE], file);
}

/* ---- notes ------------------------------------------------------------- */

/* The state of one load. */
typedef struct load_state {
    vec_loader ld;           /* shared with vec_*.c                     */
    pecert_vfile *file;      /* being filled                            */
    vec_internal *in;        /* file->internal                          */
    const char **flags;      /* sorted note keys, for flag lookup       */
    size_t n_flags;
    vec_payload_decl payload;
    pecert_vop_wanted wanted; /* NULL: every payload                     */
    void *wanted_ctx;
} load_state;

static int parse_note(const vec_ctx *ctx, const cJSON *item,
                      pecert_vnote *note)
{
    static const vec_key keys[2] = {{"bugType", 1}, {"description", 1}};
    char loc[VEC_LOC_LEN];
    const cJSON *f[2];

    note->flag = item->string != NULL ? item->string : "";
    if (note->flag[0] == '\0' || !pecert__vec_text_ok(note->flag)) {
        return pecert__vec_fail(ctx, "notes", note->flag, "bad flag name");
    }
    pecert__vec_loc(loc, sizeof loc, "notes", note->flag);
    if (pecert__vec_fields(ctx, loc, item, keys, 2, f) != 0 ||
        pecert__vec_string(ctx, loc, "bugType", f[0], 1,
                           &note->bug_type) != 0 ||
        pecert__vec_string(ctx, loc, "description", f[1], 1,
                           &note->description) != 0) {
        return -1;
    }
    return 0;
}

static int parse_notes(load_state *st, const cJSON *obj)
{
    const vec_ctx *ctx = &st->ld.ctx;
    pecert_vnote *notes;
    size_t i = 0;

    if (!cJSON_IsObject(obj)) {
        return pecert__vec_fail(ctx, "notes", NULL,
                                "expected an object, got %s",
                                pecert__vec_type_name(obj));
    }
    if (check_unique_keys(ctx, "notes", obj, &st->flags, &st->n_flags) != 0) {
        return -1;
    }
    notes = pecert__vec_alloc(st->ld.arena, st->n_flags, sizeof *notes);
    if (notes == NULL) {
        return pecert__vec_fail(ctx, "notes", NULL, "out of memory");
    }
    for (const cJSON *c = obj->child; c != NULL; c = c->next, i++) {
        if (parse_note(ctx, c, &notes[i]) != 0) {
            return -1;
        }
    }
    st->file->notes = notes;
    st->file->n_notes = st->n_flags;
    return 0;
}

/* ---- tests ------------------------------------------------------------- */

enum {
    T_TCID, T_OP, T_COMMENT, T_FLAGS, T_SOURCE, T_CONFIG, T_PARAMS,
    T_INPUTS, T_OUTPUTS, T_COUNT
};

static const vec_key test_keys[T_COUNT] = {
    [T_TCID] = {"tcId", 1},       [T_OP] = {"op", 1},
    [T_COMMENT] = {"comment", 1}, [T_FLAGS] = {"flags", 1},
    [T_SOURCE] = {"source", 1},   [T_CONFIG] = {"config", 1},
    [T_PARAMS] = {"params", 1},   [T_INPUTS] = {"inputs", 1},
    [T_OUTPUTS] = {"outputs", 1},
};

/* flags: names of notes; each must be defined there (Wycheproof's rule:
 * a flag nobody explains is a vector nobody can triage). */
static int parse_flags(const load_state *st, const char *loc,
                       const cJSON *arr, pecert_vtest *test)
{
    const vec_ctx *ctx = &st->ld.ctx;
    char at[VEC_LOC_LEN];
    size_t n = 0;

    if (!cJSON_IsArray(arr)) {
        return pecert__vec_fail(ctx, loc, "flags", "expected an array, got %s",
                                pecert__vec_type_name(arr));
    }
    for (const cJSON *c = arr->child; c != NULL; c = c->next) {
        n++;
    }
    test->flags = pecert__vec_alloc(st->ld.arena, n, sizeof *test->flags);
    if (test->flags == NULL) {
        return pecert__vec_fail(ctx, loc, "flags", "out of memory");
    }
    pecert__vec_loc(at, sizeof at, loc, "flags");
    n = 0;
    for (const cJSON *c = arr->child; c != NULL; c = c->next, n++) {
        char idx[32];
        const char *name;
        const char *const *hit;

        (void)snprintf(idx, sizeof idx, "[%zu]", n);
        if (pecert__vec_string(ctx, at, idx, c, 1, &name) != 0) {
            return -1;
        }
        hit = bsearch(&name, st->flags, st->n_flags, sizeof *st->flags,
                      cmp_str_ptr);
        if (hit == NULL) {
            return pecert__vec_fail(ctx, at, idx,
                                    "flag \"%s\" is not defined in notes",
                                    name);
        }
        test->flags[n] = *hit;
    }
    test->n_flags = n;
    return 0;
}

static int parse_source(const vec_ctx *ctx, const char *test_loc,
                        const cJSON *obj, pecert_vtest *test)
{
    static const vec_key keys[2] = {{"file", 1}, {"function", 1}};
    char loc[VEC_LOC_LEN];
    const cJSON *f[2];

    pecert__vec_loc(loc, sizeof loc, test_loc, "source");
    if (pecert__vec_fields(ctx, loc, obj, keys, 2, f) != 0 ||
        pecert__vec_string(ctx, loc, "file", f[0], 1,
                           &test->source_file) != 0 ||
        pecert__vec_string(ctx, loc, "function", f[1], 1,
                           &test->source_function) != 0) {
        return -1;
    }
    return 0;
}

static int parse_test(load_state *st, size_t index, const cJSON *item,
                      pecert_vtest *test)
{
    const vec_ctx *ctx = &st->ld.ctx;
    char loc[VEC_LOC_LEN];
    char cfg_loc[VEC_LOC_LEN];
    const cJSON *f[T_COUNT];
    const vec_op *op;
    const char *op_name;

    (void)snprintf(loc, sizeof loc, "tests[%zu]", index);
    if (pecert__vec_fields(ctx, loc, item, test_keys, T_COUNT, f) != 0 ||
        pecert__vec_int(ctx, loc, "tcId", f[T_TCID], 1, VEC_JSON_INT_MAX,
                        &test->tc_id) != 0 ||
        pecert__vec_string(ctx, loc, "op", f[T_OP], 1, &op_name) != 0) {
        return -1;
    }
    op = pecert__vec_op_find(op_name);
    if (op == NULL) {
        return pecert__vec_fail(ctx, loc, "op", "unknown op \"%s\"", op_name);
    }
    pecert__vec_loc(cfg_loc, sizeof cfg_loc, loc, "config");
    if (pecert__vec_string(ctx, loc, "comment", f[T_COMMENT], 0,
                           &test->comment) != 0 ||
        parse_flags(st, loc, f[T_FLAGS], test) != 0 ||
        parse_source(ctx, loc, f[T_SOURCE], test) != 0 ||
        pecert__vec_op_config(&st->ld, cfg_loc, op, f[T_CONFIG],
                              test) != 0) {
        return -1;
    }
    return pecert__vec_op_fill(&st->ld, loc, index, op, f[T_PARAMS],
                               f[T_INPUTS], f[T_OUTPUTS], test);
}

typedef struct id_pos {
    int64_t id;
    size_t index;
} id_pos;

static int cmp_id_pos(const void *a, const void *b)
{
    const id_pos *x = a;
    const id_pos *y = b;

    if (x->id != y->id) {
        return x->id < y->id ? -1 : 1;
    }
    return x->index < y->index ? -1 : (x->index > y->index);
}

/* Sorting, not pairwise comparison: 100000 tests would be 5e9 pairs. */
static int check_unique_ids(const vec_ctx *ctx, const pecert_vtest *tests,
                            size_t n)
{
    id_pos *ids = malloc((n > 0 ? n : 1) * sizeof *ids);
    int rc = 0;

    if (ids == NULL) {
        return pecert__vec_fail(ctx, "tests", NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        ids[i] = (id_pos){tests[i].tc_id, i};
    }
    qsort(ids, n, sizeof *ids, cmp_id_pos);
    for (size_t i = 1; i < n && rc == 0; i++) {
        if (ids[i].id == ids[i - 1].id) {
            char loc[VEC_LOC_LEN];

            (void)snprintf(loc, sizeof loc, "tests[%zu]", ids[i].index);
            rc = pecert__vec_fail(ctx, loc, "tcId",
                                  "duplicate tcId %lld (also tests[%zu])",
                                  (long long)ids[i].id, ids[i - 1].index);
        }
    }
    free(ids);
    return rc;
}

static int count_tests(const load_state *st, const cJSON *num,
                       const cJSON *arr, size_t *out_n)
{
    const vec_ctx *ctx = &st->ld.ctx;
    int64_t declared;
    size_t n = 0;

    if (!cJSON_IsArray(arr)) {
        return pecert__vec_fail(ctx, "tests", NULL, "expected an array, got %s",
                                pecert__vec_type_name(arr));
    }
    for (const cJSON *c = arr->child; c != NULL; c = c->next) {
        n++;
    }
    if (n > PECERT_VEC_MAX_TESTS) {
        return pecert__vec_fail(ctx, "tests", NULL,
                                "%zu tests exceed the limit of %d", n,
                                PECERT_VEC_MAX_TESTS);
    }
    if (pecert__vec_int(ctx, NULL, "numberOfTests", num, 0,
                        PECERT_VEC_MAX_TESTS, &declared) != 0) {
        return -1;
    }
    if ((uint64_t)declared != n) {
        return pecert__vec_fail(ctx, NULL, "numberOfTests",
                                "%lld != %zu entries in tests",
                                (long long)declared, n);
    }
    *out_n = n;
    return 0;
}

static int parse_tests(load_state *st, const cJSON *num, const cJSON *arr)
{
    pecert_vtest *tests;
    size_t n = 0;
    size_t i = 0;

    if (count_tests(st, num, arr, &n) != 0) {
        return -1;
    }
    tests = pecert__vec_alloc(st->ld.arena, n, sizeof *tests);
    st->ld.refs = malloc((n > 0 ? n : 1) * VEC_MAX_OP_TENSORS *
                         sizeof *st->ld.refs);
    if (tests == NULL || st->ld.refs == NULL) {
        return pecert__vec_fail(&st->ld.ctx, "tests", NULL, "out of memory");
    }
    for (const cJSON *c = arr->child; c != NULL; c = c->next, i++) {
        if (parse_test(st, i, c, &tests[i]) != 0) {
            return -1;
        }
    }
    st->file->tests = tests;
    st->file->n_tests = n;
    return check_unique_ids(&st->ld.ctx, tests, n);
}

/* ---- payload ----------------------------------------------------------- */

/* The payload's path: the manifest's directory plus the plain name. */
static char *payload_path(const char *json_path, const char *name)
{
    const char *slash = strrchr(json_path, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - json_path) + 1 : 0;
    size_t name_len = strlen(name);
    char *path = malloc(dir_len + name_len + 1);

    if (path != NULL) {
        memcpy(path, json_path, dir_len);
        memcpy(path + dir_len, name, name_len + 1);
    }
    return path;
}

static int inflate_payload(load_state *st, const char *path)
{
    const vec_ctx *ctx = &st->ld.ctx;
    const vec_payload_decl *decl = &st->payload;
    unsigned char *z = NULL;
    size_t z_len = 0;
    size_t raw = (size_t)decl->raw_bytes;
    int rc = -1;

    if (pecert__vec_read_file(ctx, "payload.file", path,
                              (size_t)decl->compressed_bytes,
                              "payload.compressed_bytes", &z, &z_len) != 0) {
        return -1;
    }
    if (z_len != decl->compressed_bytes) {
        (void)pecert__vec_fail(ctx, "payload.file", NULL,
                               "%s is %zu bytes, compressed_bytes says %llu",
                               path, z_len,
                               (unsigned long long)decl->compressed_bytes);
        goto out_free;
    }
    st->in->payload = malloc(raw > 0 ? raw : 1);
    if (st->in->payload == NULL) {
        (void)pecert__vec_fail(ctx, "payload", NULL, "out of memory");
        goto out_free;
    }
    rc = pecert__vec_inflate(ctx, z, z_len, st->in->payload, raw);
out_free:
    free(z);
    return rc;
}

/* A ref's place in offset order (ties: file order). */
typedef struct ref_at {
    uint64_t offset;
    size_t index;
} ref_at;

static int by_offset(const void *a, const void *b)
{
    const ref_at *x = a;
    const ref_at *y = b;
    if (x->offset != y->offset) {
        return x->offset < y->offset ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The CRC of bytes [from, to) of the payload appended to crc. */
static uint32_t crc_append(uint32_t crc, const unsigned char *payload, uint64_t from, uint64_t to)
{
    if (to <= from) {
        return crc;
    }
    uint32_t part = (uint32_t)crc32_z(0, payload + from, (size_t)(to - from));
    return (uint32_t)crc32_combine(crc, part, (z_off_t)(to - from));
}

/* Every tensor slice's CRC into crcs[] (the refs' order), and the whole
 * payload's CRC, returned, built from them: in offset order, each slice's
 * CRC combined (crc32_combine) with the gaps' between them, so that each
 * byte is read once rather than once for the payload and again for its
 * tensor (a slice that overlaps the one before it is read apart). */
static uint32_t slice_crcs(const load_state *st, uint32_t *crcs, ref_at *order)
{
    const unsigned char *payload = st->in->payload;
    const vec_tref *refs = st->ld.refs;
    size_t n = st->ld.n_refs;
    for (size_t i = 0; i < n; i++) {
        order[i] = (ref_at){refs[i].offset, i};
    }
    qsort(order, n, sizeof(*order), by_offset);
    uint32_t whole = 0;
    uint64_t covered = 0; /* the payload's bytes [0, covered) are in whole */
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k].index;
        const vec_tref *r = &refs[i];
        uint64_t end = r->offset + r->nbytes;
        crcs[i] = (uint32_t)crc32_z(0, payload + r->offset, (size_t)r->nbytes);
        if (r->offset >= covered) {
            whole = crc_append(whole, payload, covered, r->offset);
            whole = r->nbytes > 0 ? (uint32_t)crc32_combine(whole, crcs[i], (z_off_t)r->nbytes) : whole;
            covered = end;
        } /* else it shares bytes with a slice before it: whatever it has
           * past covered, the next gap's CRC reads */
    }
    return crc_append(whole, payload, covered, st->payload.raw_bytes);
}

/* The whole payload's CRC first, then each tensor's, against the
 * manifest; every tensor pointed into the payload once all match. */
static int check_crcs(load_state *st, uint32_t whole, const uint32_t *crcs)
{
    if (whole != st->payload.crc32) {
        return pecert__vec_fail(&st->ld.ctx, "payload", "crc32",
                                "crc32 0x%08x of the decompressed payload "
                                "!= 0x%08x", (unsigned)whole,
                                (unsigned)st->payload.crc32);
    }
    for (size_t i = 0; i < st->ld.n_refs; i++) {
        const vec_tref *ref = &st->ld.refs[i];
        if (crcs[i] != ref->crc32) {
            char loc[VEC_LOC_LEN];

            (void)snprintf(loc, sizeof loc, "tests[%zu].%s.%s",
                           ref->test_index, ref->group, ref->tensor->name);
            return pecert__vec_fail(&st->ld.ctx, loc, "crc32",
                                    "crc32 0x%08x of payload bytes [%llu, "
                                    "%llu) != 0x%08x", (unsigned)crcs[i],
                                    (unsigned long long)ref->offset,
                                    (unsigned long long)(ref->offset +
                                                         ref->nbytes),
                                    (unsigned)ref->crc32);
        }
    }
    for (size_t i = 0; i < st->ld.n_refs; i++) {
        st->ld.refs[i].tensor->data = st->in->payload + st->ld.refs[i].offset;
    }
    return 0;
}

/* Inflates the payload and checks it and every tensor slice against
 * their CRCs. */
static int load_payload(load_state *st)
{
    const vec_ctx *ctx = &st->ld.ctx;
    char *path = payload_path(st->file->path, st->payload.file);
    int rc;

    if (path == NULL) {
        return pecert__vec_fail(ctx, "payload", NULL, "out of memory");
    }
    rc = inflate_payload(st, path);
    free(path);
    if (rc != 0) {
        return -1;
    }
    size_t n = st->ld.n_refs > 0 ? st->ld.n_refs : 1;
    uint32_t *crcs = malloc(n * sizeof(*crcs));
    ref_at *order = malloc(n * sizeof(*order));
    if (crcs == NULL || order == NULL) {
        rc = pecert__vec_fail(ctx, "payload", NULL, "out of memory");
    } else {
        rc = check_crcs(st, slice_crcs(st, crcs, order), crcs);
    }
    free(crcs);
    free(order);
    return rc;
}

/* ---- public ------------------------------------------------------------ */

/* PECERT_VFILE_NOT_MANIFEST when root does not claim to be a manifest. */
static int claims_manifest(const vec_ctx *ctx, const cJSON *root)
{
    const cJSON *schema = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "schema") : NULL;
    if (cJSON_IsString(schema) && strncmp(schema->valuestring, "pecert-vectors/", 15) == 0) {
        return 0;
    }
    /* Anything with a manifest's parts is judged as one, so that a
     * corrupted schema line cannot make a real vector file vanish. */
    if (!cJSON_IsObject(root) || (schema != NULL && !cJSON_IsString(schema)) ||
        cJSON_GetObjectItemCaseSensitive(root, "tests") != NULL ||
        cJSON_GetObjectItemCaseSensitive(root, "payload") != NULL ||
        cJSON_GetObjectItemCaseSensitive(root, "family") != NULL) {
        return 0;
    }
    (void)pecert__vec_fail(ctx, NULL, "schema", "not a vector manifest (schema %s%s%s)", schema != NULL ? "\"" : "",
                           schema != NULL ? schema->valuestring : "absent", schema != NULL ? "\"" : "");
    return PECERT_VFILE_NOT_MANIFEST;
}

/* Whether the run reads a tensor of this file: one of its tests' ops is
 * wanted (every file when the load wants every payload). */
static int payload_wanted(const load_state *st)
{
    if (st->wanted == NULL) {
        return 1;
    }
    for (size_t i = 0; i < st->file->n_tests; i++) {
        if (st->wanted(st->file->tests[i].op, st->wanted_ctx)) {
            return 1;
        }
    }
    return 0;
}

static int load(load_state *st, const char *json_path)
{
    const vec_ctx *ctx = &st->ld.ctx;
    const cJSON *top[TOP_COUNT];

    st->file->path = pecert__vec_strdup(st->ld.arena, json_path);
    if (st->file->path == NULL) {
        return pecert__vec_fail(ctx, "manifest", NULL, "out of memory");
    }
    if (parse_manifest(ctx, json_path, &st->in->root) != 0) {
        return -1;
    }
    int claim = claims_manifest(ctx, st->in->root);
    if (claim != 0) {
        return claim;
    }
    if (pecert__vec_fields(ctx, NULL, st->in->root, top_keys, TOP_COUNT,
                           top) != 0 ||
        parse_header(ctx, top, st->file) != 0 ||
        parse_payload_decl(ctx, json_path, top[TOP_PAYLOAD],
                           &st->payload) != 0 ||
        parse_notes(st, top[TOP_NOTES]) != 0) {
        return -1;
    }
    st->ld.raw_bytes = st->payload.raw_bytes;
    if (parse_tests(st, top[TOP_NUMBER_OF_TESTS], top[TOP_TESTS]) != 0) {
        return -1;
    }
    if (!payload_wanted(st)) {
        return 0;
    }
    st->file->payload_loaded = 1;
    return load_payload(st);
}

int pecert_vfile_load(pecert_vfile *out, const char *json_path, char *err,
                      size_t err_len)
{
    return pecert_vfile_load_for(out, json_path, NULL, NULL, err, err_len);
}

int pecert_vfile_load_for(pecert_vfile *out, const char *json_path, pecert_vop_wanted wanted, void *ctx,
                          char *err, size_t err_len)
{
    pecert_vfile file;
    load_state st;
    int rc = -1;

    memset(&file, 0, sizeof file);
    memset(&st, 0, sizeof st);
    st.wanted = wanted;
    st.wanted_ctx = ctx;
    st.ld.ctx = (vec_ctx){json_path != NULL ? json_path : "(null)", err,
                          err_len};
    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (out != NULL) {
        memset(out, 0, sizeof *out);
    }
    if (out == NULL || json_path == NULL) {
        return pecert__vec_fail(&st.ld.ctx, "manifest", NULL,
                                "invalid argument");
    }
    st.in = calloc(1, sizeof *st.in);
    if (st.in == NULL) {
        return pecert__vec_fail(&st.ld.ctx, "manifest", NULL, "out of memory");
    }
    file.internal = st.in;
    st.file = &file;
    st.ld.arena = &st.in->arena;
    rc = load(&st, json_path);
    free(st.ld.refs);
    free(st.flags); /* the array only: the names live in the tree */
    if (rc != 0) {
        pecert_vfile_free(&file);
        return rc == PECERT_VFILE_NOT_MANIFEST ? rc : -1;
    }
    *out = file;
    return 0;
}

void pecert_vfile_free(pecert_vfile *file)
{
    vec_internal *in;

    if (file == NULL) {
        return;
    }
    in = file->internal;
    if (in != NULL) {
        cJSON_Delete(in->root);
        free(in->payload);
        pecert__vec_arena_free(&in->arena);
        free(in);
    }
    memset(file, 0, sizeof *file);
}

static const pecert_vtensor *find_tensor(const pecert_vtensor *ts, size_t n,
                                         const char *name)
{
    if (ts == NULL || name == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (ts[i].name != NULL && strcmp(ts[i].name, name) == 0) {
            return &ts[i];
        }
    }
    return NULL;
}

/* t, which a check asked test for: a tensor whose file's payload the run
 * did not load (pecert_vfile_load_for) ends the process, naming both. */
static const pecert_vtensor *with_data(const pecert_vtest *test, const pecert_vtensor *t)
{
    if (t != NULL && t->data == NULL) {
        fprintf(stderr, "pecert: internal error: a check read tensor '%s' of a %s test (tcId %lld), whose file's "
                "payload this run did not load: the check's reads (conformance/registry.c) leave out %s\n",
                t->name, test->op, (long long)test->tc_id, test->op);
        abort();
    }
    return t;
}

const pecert_vtensor *pecert_vtest_input(const pecert_vtest *test,
                                         const char *name)
{
    return test != NULL ? with_data(test, find_tensor(test->inputs, test->n_inputs, name))
                        : NULL;
}

int pecert_vtest_has_flag(const pecert_vtest *test, const char *name)
{
    for (size_t i = 0; i < test->n_flags; i++) {
        if (strcmp(test->flags[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

const pecert_vtensor *pecert_vtest_output(const pecert_vtest *test,
                                          const char *name)
{
    return test != NULL ? with_data(test, find_tensor(test->outputs, test->n_outputs, name))
                        : NULL;
}
