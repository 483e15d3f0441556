/*
 * vec_ops.c - the operations of vectors/FORMAT.md ("Operations"): which
 * params, inputs and outputs each has, with dtypes and shapes tied to the
 * config; and the tensor refs themselves (dtype, shape, offset, nbytes).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vec_internal.h"

/* The RoPE ops; the other families' are in vec_families.c. */
static const vec_op ops[] = {
    {.name = "rope.freq", .rope_config = 1,
     .outputs = {{"inv_freq", PECERT_DTYPE_F32, 1, {DIM_HALF}},
                 {"attention_scaling", PECERT_DTYPE_F64, 0, {0}}},
     .n_outputs = 2},
    {.name = "rope.cos_sin", .rope_config = 1, .var_names = {"n"},
     .inputs = {{"positions", PECERT_DTYPE_I64, 1, {DIM_VAR(0)}}}, .n_inputs = 1,
     .outputs = {{"cos", PECERT_DTYPE_F32, 2, {DIM_VAR(0), DIM_HALF}},
                 {"sin", PECERT_DTYPE_F32, 2, {DIM_VAR(0), DIM_HALF}}},
     .n_outputs = 2},
    {.name = "rope.apply", .rope_config = 1, .has_pairing = 1,
     .var_names = {"T", "H"},
     .inputs = {{"positions", PECERT_DTYPE_I64, 1, {DIM_VAR(0)}},
                {"x", PECERT_DTYPE_F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_HEAD}}},
     .n_inputs = 2,
     .outputs = {{"out", PECERT_DTYPE_F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_HEAD}}},
     .n_outputs = 1},
};

#define N_OPS (sizeof ops / sizeof ops[0])

const vec_op *pecert__vec_op_find(const char *name)
{
    for (size_t i = 0; i < N_OPS; i++) {
        if (strcmp(ops[i].name, name) == 0) {
            return &ops[i];
        }
    }
    for (size_t i = 0; i < pecert__vec_num_family_ops; i++) {
        if (strcmp(pecert__vec_family_ops[i].name, name) == 0) {
            return &pecert__vec_family_ops[i];
        }
    }
    return NULL;
}

/* ---- dtypes ------------------------------------------------------------ */

static const struct {
    const char *name;
    pecert_dtype dtype;
    size_t size;             /* bytes per element; 0 = reserved         */
} dtypes[] = {
    {"f32", PECERT_DTYPE_F32, 4}, {"f64", PECERT_DTYPE_F64, 8},
    {"i32", PECERT_DTYPE_I32, 4}, {"i64", PECERT_DTYPE_I64, 8},
    {"f16", PECERT_DTYPE_F16, 0}, {"bf16", PECERT_DTYPE_BF16, 0},
};

#define N_DTYPES (sizeof dtypes / sizeof dtypes[0])

static const char *dtype_name(pecert_dtype dtype)
{
    for (size_t i = 0; i < N_DTYPES; i++) {
        if (dtypes[i].dtype == dtype) {
            return dtypes[i].name;
        }
    }
    return "?";
}

static int parse_dtype(const vec_ctx *ctx, const char *loc, const cJSON *item,
                       pecert_dtype *out, size_t *out_size)
{
    const char *s;

    if (pecert__vec_string(ctx, loc, "dtype", item, 1, &s) != 0) {
        return -1;
    }
    for (size_t i = 0; i < N_DTYPES; i++) {
        if (strcmp(dtypes[i].name, s) != 0) {
            continue;
        }
        if (dtypes[i].size == 0) {
            return pecert__vec_fail(ctx, loc, "dtype",
                                    "dtype \"%s\" is reserved, not valid in "
                                    "%s", s, PECERT_VECTORS_SCHEMA);
        }
        *out = dtypes[i].dtype;
        *out_size = dtypes[i].size;
        return 0;
    }
    return pecert__vec_fail(ctx, loc, "dtype", "unknown dtype \"%s\"", s);
}

/* ---- tensor refs ------------------------------------------------------- */

/* shape: at most 8 extents, each within the element limit on its own (so
 * a zero extent cannot hide a huge one), and a product within it too. */
static int parse_shape(const vec_ctx *ctx, const char *loc, const cJSON *item,
                       pecert_vtensor *t)
{
    char at[VEC_LOC_LEN];
    const cJSON *e;
    int64_t count = 1;

    if (!cJSON_IsArray(item)) {
        return pecert__vec_fail(ctx, loc, "shape", "expected an array, got %s",
                                pecert__vec_type_name(item));
    }
    pecert__vec_loc(at, sizeof at, loc, "shape");
    t->ndim = 0;
    for (e = item->child; e != NULL; e = e->next) {
        char idx[32];
        int64_t d;

        if (t->ndim == PECERT_MAX_DIMS) {
            return pecert__vec_fail(ctx, at, NULL, "ndim %d exceeds %d",
                                    cJSON_GetArraySize(item), PECERT_MAX_DIMS);
        }
        (void)snprintf(idx, sizeof idx, "[%u]", (unsigned)t->ndim);
        if (pecert__vec_int(ctx, at, idx, e, 0, PECERT_VEC_MAX_ELEMENTS,
                            &d) != 0) {
            return -1;
        }
        t->shape[t->ndim++] = d;
        /* count <= 2^26 and d <= 2^26: the product cannot overflow. */
        count *= d;
        if (count > PECERT_VEC_MAX_ELEMENTS) {
            return pecert__vec_fail(ctx, at, NULL,
                                    "element count exceeds the limit of "
                                    "%lld", (long long)PECERT_VEC_MAX_ELEMENTS);
        }
    }
    t->num_elements = count;
    return 0;
}

enum { TR_DTYPE, TR_SHAPE, TR_OFFSET, TR_NBYTES, TR_CRC32, TR_COUNT };

static const vec_key tref_keys[TR_COUNT] = {
    [TR_DTYPE] = {"dtype", 1},   [TR_SHAPE] = {"shape", 1},
    [TR_OFFSET] = {"offset", 1}, [TR_NBYTES] = {"nbytes", 1},
    [TR_CRC32] = {"crc32", 1},
};

/* offset and nbytes: packed size, 8-aligned, inside the payload. */
static int parse_extent(const vec_loader *ld, const char *loc,
                        const cJSON **f, size_t elem_size, vec_tref *ref)
{
    const vec_ctx *ctx = &ld->ctx;
    uint64_t want = (uint64_t)ref->tensor->num_elements * elem_size;
    int64_t nbytes;
    int64_t offset;

    if (pecert__vec_int(ctx, loc, "nbytes", f[TR_NBYTES], 0,
                        VEC_JSON_INT_MAX, &nbytes) != 0 ||
        pecert__vec_int(ctx, loc, "offset", f[TR_OFFSET], 0,
                        VEC_JSON_INT_MAX, &offset) != 0) {
        return -1;
    }
    if ((uint64_t)nbytes != want) {
        return pecert__vec_fail(ctx, loc, "nbytes",
                                "%lld != %llu (elements %lld * %zu bytes)",
                                (long long)nbytes, (unsigned long long)want,
                                (long long)ref->tensor->num_elements,
                                elem_size);
    }
    if (offset % 8 != 0) {
        return pecert__vec_fail(ctx, loc, "offset",
                                "%lld is not a multiple of 8",
                                (long long)offset);
    }
    if ((uint64_t)offset > ld->raw_bytes ||
        (uint64_t)nbytes > ld->raw_bytes - (uint64_t)offset) {
        return pecert__vec_fail(ctx, loc, "offset",
                                "offset %lld + nbytes %lld exceeds raw_bytes "
                                "%llu", (long long)offset, (long long)nbytes,
                                (unsigned long long)ld->raw_bytes);
    }
    ref->offset = (uint64_t)offset;
    ref->nbytes = (uint64_t)nbytes;
    return 0;
}

static int parse_tref(const vec_loader *ld, const char *loc,
                      const cJSON *item, vec_tref *ref)
{
    const cJSON *f[TR_COUNT];
    size_t elem_size = 0;
    int64_t crc;

    if (pecert__vec_fields(&ld->ctx, loc, item, tref_keys, TR_COUNT, f) != 0 ||
        parse_dtype(&ld->ctx, loc, f[TR_DTYPE], &ref->tensor->dtype,
                    &elem_size) != 0 ||
        parse_shape(&ld->ctx, loc, f[TR_SHAPE], ref->tensor) != 0 ||
        parse_extent(ld, loc, f, elem_size, ref) != 0 ||
        pecert__vec_int(&ld->ctx, loc, "crc32", f[TR_CRC32], 0, UINT32_MAX,
                        &crc) != 0) {
        return -1;
    }
    ref->crc32 = (uint32_t)crc;
    return 0;
}

/* ---- matching an op ---------------------------------------------------- */

/* One test being filled. */
typedef struct op_state {
    vec_loader *ld;
    const vec_op *op;
    const pecert_vtest *test; /* config and keys already parsed         */
    const pecert_rope_config *cfg;
    size_t test_index;
    const char *test_loc;    /* "tests[i]"                              */
    int64_t vars[4];         /* free extents; -1 = not yet fixed        */
} op_state;

/* Append to buf (len bytes, *n used); output past the end is cut. */
static void appendf(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void appendf(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
    va_list ap;
    int r;

    if (*n + 1 >= len) {
        return;
    }
    va_start(ap, fmt);
    r = vsnprintf(buf + *n, len - *n, fmt, ap);
    va_end(ap);
    if (r > 0) {
        *n = *n + (size_t)r < len ? *n + (size_t)r : len - 1;
    }
}

/* What the spec asks for; a free extent not yet fixed prints as its name
 * ("[T, H, 64]"), and config-derived extents say what they came from. */
static void format_expected(const op_state *st, const vec_tspec *spec,
                            const int64_t *want, char *buf, size_t len)
{
    int half = 0;
    int head = 0;
    size_t n = 0;

    buf[0] = '\0';
    appendf(buf, len, &n, "[");
    for (uint32_t i = 0; i < spec->ndim; i++) {
        const char *sep = i > 0 ? ", " : "";

        half |= spec->dims[i] == DIM_HALF;
        head |= spec->dims[i] == DIM_HEAD;
        if (want[i] < 0) {
            appendf(buf, len, &n, "%s%s", sep,
                    st->op->var_names[DIM_VAR(0) - spec->dims[i]]);
        } else {
            appendf(buf, len, &n, "%s%lld", sep, (long long)want[i]);
        }
    }
    appendf(buf, len, &n, "]");
    if (half) {
        appendf(buf, len, &n, " for rotary_dim %d", (int)st->cfg->rotary_dim);
    }
    if (head) {
        appendf(buf, len, &n, "%s head_dim %d", half ? "," : " for",
                (int)st->cfg->head_dim);
    }
}

static void format_dims(const pecert_vtensor *t, char *buf, size_t len)
{
    size_t n = 0;

    buf[0] = '\0';
    appendf(buf, len, &n, "[");
    for (uint32_t i = 0; i < t->ndim; i++) {
        appendf(buf, len, &n, "%s%lld", i > 0 ? ", " : "",
                (long long)t->shape[i]);
    }
    appendf(buf, len, &n, "]");
}

/* The shape the op gives this tensor, given the config and the free
 * extents fixed so far (which this tensor may fix). */
static int check_shape(op_state *st, const char *loc, const vec_tspec *spec,
                       const pecert_vtensor *t)
{
    int64_t want[PECERT_MAX_DIMS];
    char exp[128];
    char got[128];
    int ok = t->ndim == spec->ndim;

    for (uint32_t i = 0; i < spec->ndim; i++) {
        int64_t d = spec->dims[i];

        if (d == DIM_HALF) {
            d = st->cfg->rotary_dim / 2;
        } else if (d == DIM_HEAD) {
            d = st->cfg->head_dim;
        } else if (d <= DIM_DERIVED(0)) {
            d = st->op->derive(st->test, (int)(DIM_DERIVED(0) - d));
        } else if (d <= DIM_KEY(0)) {
            d = pecert_vtest_int(st->test, st->op->keys[DIM_KEY(0) - d].name, 0);
        } else if (d < 0) {
            int64_t *var = &st->vars[DIM_VAR(0) - d];

            if (*var < 0 && ok) {
                if (t->shape[i] < st->op->var_min[DIM_VAR(0) - d]) {
                    return pecert__vec_fail(&st->ld->ctx, loc, "shape", "%s = %lld: at least %lld",
                                            st->op->var_names[DIM_VAR(0) - d], (long long)t->shape[i],
                                            (long long)st->op->var_min[DIM_VAR(0) - d]);
                }
                *var = t->shape[i];
            }
            d = *var;
        }
        want[i] = d;
        ok = ok && d == t->shape[i];
    }
    if (ok) {
        return 0;
    }
    format_expected(st, spec, want, exp, sizeof exp);
    format_dims(t, got, sizeof got);
    return pecert__vec_fail(&st->ld->ctx, loc, "shape", "expected %s, got %s",
                            exp, got);
}

/* One of "inputs" / "outputs": exactly the op's tensors, each a valid ref
 * of the op's dtype and shape, queued for the payload pass. */
static int parse_group(op_state *st, const char *group, const cJSON *obj,
                       const vec_tspec *specs, size_t n,
                       const pecert_vtensor **out)
{
    vec_loader *ld = st->ld;
    char gloc[VEC_LOC_LEN];
    vec_key keys[VEC_MAX_OP_INPUTS];
    const cJSON *items[VEC_MAX_OP_INPUTS];
    pecert_vtensor *ts;

    pecert__vec_loc(gloc, sizeof gloc, st->test_loc, group);
    for (size_t i = 0; i < n; i++) {
        keys[i].name = specs[i].name;
        keys[i].required = 1;
    }
    if (pecert__vec_fields(&ld->ctx, gloc, obj, keys, n, items) != 0) {
        return -1;
    }
    ts = pecert__vec_alloc(ld->arena, n, sizeof *ts);
    if (ts == NULL && n > 0) {
        return pecert__vec_fail(&ld->ctx, gloc, NULL, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        char loc[VEC_LOC_LEN];
        vec_tref *ref = &ld->refs[ld->n_refs];

        pecert__vec_loc(loc, sizeof loc, gloc, specs[i].name);
        ts[i].name = specs[i].name;
        *ref = (vec_tref){&ts[i], st->test_index, group, 0, 0, 0};
        if (parse_tref(ld, loc, items[i], ref) != 0) {
            return -1;
        }
        if (specs[i].dtype == PECERT_DTYPE_INVALID &&
            ts[i].dtype != PECERT_DTYPE_F32 && ts[i].dtype != PECERT_DTYPE_F64) {
            return pecert__vec_fail(&ld->ctx, loc, "dtype",
                                    "expected f32 or f64 for %s, got %s",
                                    st->op->name, dtype_name(ts[i].dtype));
        }
        if (specs[i].dtype != PECERT_DTYPE_INVALID &&
            ts[i].dtype != specs[i].dtype) {
            return pecert__vec_fail(&ld->ctx, loc, "dtype",
                                    "expected %s for %s, got %s",
                                    dtype_name(specs[i].dtype), st->op->name,
                                    dtype_name(ts[i].dtype));
        }
        if (check_shape(st, loc, &specs[i], &ts[i]) != 0) {
            return -1;
        }
        ld->n_refs++;
    }
    *out = ts;
    return 0;
}

/* Generic keys of one group: the op's keys of that group, in a table
 * fetched once, then typed by pecert__vec_values. */
static int parse_keys(vec_loader *ld, const char *loc, const vec_op *op,
                      int in_params, const cJSON *obj, pecert_vtest *test)
{
    vec_key keys[VEC_MAX_OP_KEYS] = {{NULL, 0}};
    const cJSON *got[VEC_MAX_OP_KEYS];
    const cJSON *items[VEC_MAX_OP_KEYS];
    size_t map[VEC_MAX_OP_KEYS];
    size_t n = 0;

    assert(op->n_keys <= VEC_MAX_OP_KEYS);

    for (size_t k = 0; k < op->n_keys; k++) {
        items[k] = NULL;
        if (op->keys[k].in_params == in_params) {
            keys[n] = (vec_key){op->keys[k].name, op->keys[k].required};
            map[n++] = k;
        }
    }
    if (pecert__vec_fields(&ld->ctx, loc, obj, keys, n, got) != 0) {
        return -1;
    }
    for (size_t j = 0; j < n; j++) {
        items[map[j]] = got[j];
    }
    return pecert__vec_values(ld, loc, op, in_params, items, test);
}

/* "config": a RoPE config (rope ops, mrope.apply with its extra keys) or
 * the op's generic config keys. */
int pecert__vec_op_config(vec_loader *ld, const char *cfg_loc,
                          const vec_op *op, const cJSON *config,
                          pecert_vtest *test)
{
    vec_key keys[VEC_ROPE_CONFIG_KEYS + VEC_MAX_OP_KEYS];
    const cJSON *items[VEC_ROPE_CONFIG_KEYS + VEC_MAX_OP_KEYS];
    const cJSON *extra[VEC_MAX_OP_KEYS];
    size_t n_rope;
    size_t n = 0;

    test->values = pecert__vec_alloc(ld->arena, op->n_keys > 0 ? op->n_keys : 1,
                                     sizeof *test->values);
    if (test->values == NULL) {
        return pecert__vec_fail(&ld->ctx, cfg_loc, NULL, "out of memory");
    }
    test->n_values = 0;
    memset(&test->rope, 0, sizeof test->rope);
    if (!op->rope_config) {
        return parse_keys(ld, cfg_loc, op, 0, config, test);
    }
    n_rope = pecert__vec_rope_keys(keys);
    n = n_rope;
    for (size_t k = 0; k < op->n_keys; k++) {
        if (!op->keys[k].in_params) {
            keys[n++] = (vec_key){op->keys[k].name, op->keys[k].required};
        }
    }
    if (pecert__vec_fields(&ld->ctx, cfg_loc, config, keys, n, items) != 0 ||
        pecert__vec_rope_config_items(ld, cfg_loc, items, &test->rope) != 0) {
        return -1;
    }
    n = n_rope;
    for (size_t k = 0; k < op->n_keys; k++) {
        extra[k] = op->keys[k].in_params ? NULL : items[n++];
    }
    return pecert__vec_values(ld, cfg_loc, op, 0, extra, test);
}

static int parse_params(const op_state *st, const cJSON *obj,
                        pecert_vtest *test)
{
    static const vec_key keys[2] = {{"seq_len", 1}, {"pairing", 1}};
    const vec_ctx *ctx = &st->ld->ctx;
    char loc[VEC_LOC_LEN];
    const cJSON *items[2];
    const char *s;

    pecert__vec_loc(loc, sizeof loc, st->test_loc, "params");
    if (!st->op->rope_config) {
        test->seq_len = 0;
        test->pairing = PECERT_PAIRING_SPLIT_HALF;
        return parse_keys(st->ld, loc, st->op, 1, obj, test);
    }
    /* Without pairing in the table, a pairing given to another op is an
     * unknown key: it would be silently meaningless. */
    if (pecert__vec_fields(ctx, loc, obj, keys, st->op->has_pairing ? 2 : 1,
                           items) != 0 ||
        pecert__vec_int(ctx, loc, "seq_len", items[0], 0, VEC_JSON_INT_MAX,
                        &test->seq_len) != 0) {
        return -1;
    }
    test->pairing = PECERT_PAIRING_SPLIT_HALF;
    if (!st->op->has_pairing) {
        return 0;
    }
    if (pecert__vec_string(ctx, loc, "pairing", items[1], 1, &s) != 0) {
        return -1;
    }
    if (strcmp(s, "split_half") == 0) {
        test->pairing = PECERT_PAIRING_SPLIT_HALF;
    } else if (strcmp(s, "interleaved") == 0) {
        test->pairing = PECERT_PAIRING_INTERLEAVED;
    } else {
        return pecert__vec_fail(ctx, loc, "pairing",
                                "unknown pairing \"%s\" (split_half or "
                                "interleaved)", s);
    }
    return 0;
}

int pecert__vec_op_fill(vec_loader *ld, const char *test_loc,
                        size_t test_index, const vec_op *op,
                        const cJSON *params, const cJSON *inputs,
                        const cJSON *outputs, pecert_vtest *test)
{
    op_state st = {ld, op, test, &test->rope, test_index, test_loc,
                   {-1, -1, -1, -1}};
    char cfg_loc[VEC_LOC_LEN];

    /* ld->refs has room for VEC_MAX_OP_TENSORS per test. */
    assert(op->n_inputs + op->n_outputs <= VEC_MAX_OP_TENSORS);
    test->op = op->name;
    pecert__vec_loc(cfg_loc, sizeof cfg_loc, test_loc, "config");
    if (parse_params(&st, params, test) != 0 ||
        (op->validate != NULL && op->validate(&ld->ctx, cfg_loc, test) != 0) ||
        parse_group(&st, "inputs", inputs, op->inputs, op->n_inputs,
                    &test->inputs) != 0 ||
        parse_group(&st, "outputs", outputs, op->outputs, op->n_outputs,
                    &test->outputs) != 0) {
        return -1;
    }
    test->n_inputs = op->n_inputs;
    test->n_outputs = op->n_outputs;
    return 0;
}
