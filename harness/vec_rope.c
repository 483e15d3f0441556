/*
 * vec_rope.c - a test's "config" object (vectors/FORMAT.md, "RoPE config")
 * into a pecert_rope_config: one table row per key, then the checks that
 * span keys (rotary_dim vs head_dim, what each rope_type needs).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vec_internal.h"

/* How a key is stored in pecert_rope_config. */
enum cfg_kind {
    CFG_TYPE,                /* rope_type: string -> enum              */
    CFG_INT32,               /* int, stored as int32_t                 */
    CFG_INT64,               /* int, stored as int64_t                 */
    CFG_DOUBLE,              /* finite number                          */
    CFG_BOOL,                /* JSON bool, stored as int32_t 0/1       */
    CFG_FACTORS              /* longrope number[rotary_dim/2]          */
};

/* Lower bound of a number: > 0 or > 1 (a base <= 1 has no frequencies). */
enum cfg_bound { NUM_ANY, NUM_POSITIVE, NUM_GT_ONE };

typedef struct cfg_field {
    vec_key key;             /* name, required                         */
    enum cfg_kind kind;
    int64_t min;             /* CFG_INT32 / CFG_INT64 lower bound      */
    enum cfg_bound bound;    /* CFG_DOUBLE / CFG_FACTORS               */
    uint32_t bit;            /* PECERT_ROPE_HAS_*; 0 = always present  */
    uint32_t shared_bit;     /* another key stored in the same field   */
    size_t offset;           /* into pecert_rope_config                */
} cfg_field;

#define CFG_OFF(f) offsetof(pecert_rope_config, f)

enum {
    CFG_ROPE_TYPE, CFG_ROPE_THETA, CFG_HEAD_DIM, CFG_ROTARY_DIM, CFG_MAX_POS,
    CFG_FACTOR, CFG_ORIG_MAX_POS, CFG_TOP_ORIG_MAX_POS, CFG_ATTENTION_FACTOR,
    CFG_BETA_FAST, CFG_BETA_SLOW, CFG_MSCALE, CFG_MSCALE_ALL_DIM,
    CFG_LOW_FREQ, CFG_HIGH_FREQ, CFG_TRUNCATE, CFG_SHORT_FACTOR,
    CFG_LONG_FACTOR, CFG_COUNT
};

/* The two original_max_position_embeddings keys share one struct field
 * (the plugin tells them apart by their `present` bit), so a file giving
 * both must give the same value. */
static const cfg_field cfg_fields[CFG_COUNT] = {
    [CFG_ROPE_TYPE] = {{"rope_type", 1}, CFG_TYPE, 0, NUM_ANY, 0, 0,
                       CFG_OFF(rope_type)},
    [CFG_ROPE_THETA] = {{"rope_theta", 1}, CFG_DOUBLE, 0, NUM_GT_ONE, 0, 0,
                        CFG_OFF(rope_theta)},
    [CFG_HEAD_DIM] = {{"head_dim", 1}, CFG_INT32, 1, NUM_ANY, 0, 0,
                      CFG_OFF(head_dim)},
    [CFG_ROTARY_DIM] = {{"rotary_dim", 1}, CFG_INT32, 2, NUM_ANY, 0, 0,
                        CFG_OFF(rotary_dim)},
    [CFG_MAX_POS] = {{"max_position_embeddings", 1}, CFG_INT64, 1, NUM_ANY,
                     0, 0, CFG_OFF(max_position_embeddings)},
    [CFG_FACTOR] = {{"factor", 0}, CFG_DOUBLE, 0, NUM_POSITIVE,
                    PECERT_ROPE_HAS_FACTOR, 0, CFG_OFF(factor)},
    [CFG_ORIG_MAX_POS] = {{"original_max_position_embeddings", 0}, CFG_INT64,
                          1, NUM_ANY, PECERT_ROPE_HAS_ORIGINAL_MAX_POS,
                          PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS,
                          CFG_OFF(original_max_position_embeddings)},
    [CFG_TOP_ORIG_MAX_POS] = {{"top_original_max_position_embeddings", 0},
                              CFG_INT64, 1, NUM_ANY,
                              PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS,
                              PECERT_ROPE_HAS_ORIGINAL_MAX_POS,
                              CFG_OFF(original_max_position_embeddings)},
    [CFG_ATTENTION_FACTOR] = {{"attention_factor", 0}, CFG_DOUBLE, 0,
                              NUM_POSITIVE, PECERT_ROPE_HAS_ATTENTION_FACTOR,
                              0, CFG_OFF(attention_factor)},
    [CFG_BETA_FAST] = {{"beta_fast", 0}, CFG_DOUBLE, 0, NUM_ANY,
                       PECERT_ROPE_HAS_BETA_FAST, 0, CFG_OFF(beta_fast)},
    [CFG_BETA_SLOW] = {{"beta_slow", 0}, CFG_DOUBLE, 0, NUM_ANY,
                       PECERT_ROPE_HAS_BETA_SLOW, 0, CFG_OFF(beta_slow)},
    [CFG_MSCALE] = {{"mscale", 0}, CFG_DOUBLE, 0, NUM_ANY,
                    PECERT_ROPE_HAS_MSCALE, 0, CFG_OFF(mscale)},
    [CFG_MSCALE_ALL_DIM] = {{"mscale_all_dim", 0}, CFG_DOUBLE, 0, NUM_ANY,
                            PECERT_ROPE_HAS_MSCALE_ALL_DIM, 0,
                            CFG_OFF(mscale_all_dim)},
    [CFG_LOW_FREQ] = {{"low_freq_factor", 0}, CFG_DOUBLE, 0, NUM_POSITIVE,
                      PECERT_ROPE_HAS_LOW_FREQ_FACTOR, 0,
                      CFG_OFF(low_freq_factor)},
    [CFG_HIGH_FREQ] = {{"high_freq_factor", 0}, CFG_DOUBLE, 0, NUM_POSITIVE,
                       PECERT_ROPE_HAS_HIGH_FREQ_FACTOR, 0,
                       CFG_OFF(high_freq_factor)},
    [CFG_TRUNCATE] = {{"truncate", 0}, CFG_BOOL, 0, NUM_ANY,
                      PECERT_ROPE_HAS_TRUNCATE, 0, CFG_OFF(truncate)},
    [CFG_SHORT_FACTOR] = {{"short_factor", 0}, CFG_FACTORS, 0, NUM_POSITIVE,
                          0, 0, CFG_OFF(short_factor)},
    [CFG_LONG_FACTOR] = {{"long_factor", 0}, CFG_FACTORS, 0, NUM_POSITIVE, 0,
                         0, CFG_OFF(long_factor)},
};

/* What each rope_type cannot do without (modeling_rope_utils.py reads
 * these keys unconditionally for that type). */
static const struct rope_type_row {
    const char *name;
    pecert_rope_type type;
    uint32_t needs;          /* PECERT_ROPE_HAS_* bits                 */
    int needs_factors;       /* short_factor and long_factor           */
} rope_types[] = {
    {"default", PECERT_ROPE_DEFAULT, 0, 0},
    {"linear", PECERT_ROPE_LINEAR, PECERT_ROPE_HAS_FACTOR, 0},
    {"dynamic", PECERT_ROPE_DYNAMIC, PECERT_ROPE_HAS_FACTOR, 0},
    {"yarn", PECERT_ROPE_YARN, PECERT_ROPE_HAS_FACTOR, 0},
    {"longrope", PECERT_ROPE_LONGROPE, 0, 1},
    {"llama3", PECERT_ROPE_LLAMA3,
     PECERT_ROPE_HAS_FACTOR | PECERT_ROPE_HAS_LOW_FREQ_FACTOR |
         PECERT_ROPE_HAS_HIGH_FREQ_FACTOR | PECERT_ROPE_HAS_ORIGINAL_MAX_POS,
     0},
};

#define N_ROPE_TYPES (sizeof rope_types / sizeof rope_types[0])

const char *pecert_rope_type_name(pecert_rope_type t)
{
    for (size_t i = 0; i < N_ROPE_TYPES; i++) {
        if (rope_types[i].type == t) {
            return rope_types[i].name;
        }
    }
    return "?";
}

int64_t pecert_rope_original_length(const pecert_rope_config *c)
{
    if (c->rope_type == PECERT_ROPE_LONGROPE) {
        return (c->present & PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS) ? c->original_max_position_embeddings : 0;
    }
    if (c->rope_type == PECERT_ROPE_LLAMA3 || c->rope_type == PECERT_ROPE_YARN) {
        return (c->present & PECERT_ROPE_HAS_ORIGINAL_MAX_POS) ? c->original_max_position_embeddings : 0;
    }
    return 0;
}

int64_t pecert_rope_l0(const pecert_rope_config *c)
{
    int64_t original = pecert_rope_original_length(c);
    return original > 0 ? original : c->max_position_embeddings;
}

static const struct rope_type_row *find_rope_type(const char *name)
{
    for (size_t i = 0; i < N_ROPE_TYPES; i++) {
        if (strcmp(rope_types[i].name, name) == 0) {
            return &rope_types[i];
        }
    }
    return NULL;
}

static int check_bound(const vec_ctx *ctx, const char *loc, const char *key,
                       enum cfg_bound bound, double v)
{
    if (bound == NUM_POSITIVE && !(v > 0.0)) {
        return pecert__vec_fail(ctx, loc, key, "must be > 0, got %.17g", v);
    }
    if (bound == NUM_GT_ONE && !(v > 1.0)) {
        return pecert__vec_fail(ctx, loc, key, "must be > 1, got %.17g", v);
    }
    return 0;
}

/* An integer key; int32 fields are bounded by their type. */
static int set_int(const vec_ctx *ctx, const char *loc, const cfg_field *f,
                   const cJSON *item, pecert_rope_config *out)
{
    unsigned char *field = (unsigned char *)out + f->offset;
    int64_t hi = f->kind == CFG_INT32 ? INT32_MAX : VEC_JSON_INT_MAX;
    int64_t v;

    if (pecert__vec_int(ctx, loc, f->key.name, item, f->min, hi, &v) != 0) {
        return -1;
    }
    if (f->kind == CFG_INT32) {
        int32_t v32 = (int32_t)v;

        memcpy(field, &v32, sizeof v32);
        return 0;
    }
    if (f->shared_bit != 0 && (out->present & f->shared_bit) != 0 &&
        out->original_max_position_embeddings != v) {
        return pecert__vec_fail(ctx, loc, f->key.name,
                                "%lld differs from the other "
                                "original_max_position_embeddings (%lld); "
                                "the config holds one value",
                                (long long)v,
                                (long long)out->original_max_position_embeddings);
    }
    memcpy(field, &v, sizeof v);
    return 0;
}

/* One scalar key into its field (rope_type and factors are done apart). */
static int set_scalar(const vec_ctx *ctx, const char *loc, const cfg_field *f,
                      const cJSON *item, pecert_rope_config *out)
{
    unsigned char *field = (unsigned char *)out + f->offset;
    double d;
    int b;

    switch (f->kind) {
    case CFG_INT32:
    case CFG_INT64:
        return set_int(ctx, loc, f, item, out);
    case CFG_DOUBLE:
        if (pecert__vec_number(ctx, loc, f->key.name, item, &d) != 0 ||
            check_bound(ctx, loc, f->key.name, f->bound, d) != 0) {
            return -1;
        }
        memcpy(field, &d, sizeof d);
        return 0;
    case CFG_BOOL:
        if (pecert__vec_bool(ctx, loc, f->key.name, item, &b) != 0) {
            return -1;
        }
        out->truncate = b;
        return 0;
    case CFG_TYPE:
    case CFG_FACTORS:
        return 0; /* parsed apart: they need the other keys first */
    }
    return 0;
}

/* short_factor / long_factor: rotary_dim/2 positive numbers, copied into
 * memory the file owns. */
static int set_factors(vec_loader *ld, const char *loc, const cfg_field *f,
                       const cJSON *item, pecert_rope_config *out)
{
    char at[VEC_LOC_LEN];
    const cJSON *e;
    double *vals;
    int n = 0;
    int want = out->rotary_dim / 2;

    if (!cJSON_IsArray(item)) {
        return pecert__vec_fail(&ld->ctx, loc, f->key.name,
                                "expected an array, got %s",
                                pecert__vec_type_name(item));
    }
    for (e = item->child; e != NULL; e = e->next) {
        n++;
    }
    if (n != want) {
        return pecert__vec_fail(&ld->ctx, loc, f->key.name,
                                "expected %d values (rotary_dim %d / 2), "
                                "got %d", want, (int)out->rotary_dim, n);
    }
    vals = pecert__vec_alloc(ld->arena, (size_t)want, sizeof *vals);
    if (vals == NULL) {
        return pecert__vec_fail(&ld->ctx, loc, f->key.name, "out of memory");
    }
    pecert__vec_loc(at, sizeof at, loc, f->key.name);
    n = 0;
    for (e = item->child; e != NULL; e = e->next, n++) {
        char idx[32];

        (void)snprintf(idx, sizeof idx, "[%d]", n);
        if (pecert__vec_number(&ld->ctx, at, idx, e, &vals[n]) != 0 ||
            check_bound(&ld->ctx, at, idx, f->bound, vals[n]) != 0) {
            return -1;
        }
    }
    memcpy((unsigned char *)out + f->offset, &vals, sizeof vals);
    return 0;
}

/* Keys whose meaning spans others: rotary_dim, and per-type needs. */
static int check_dims(const vec_ctx *ctx, const char *loc,
                      const pecert_rope_config *c)
{
    if (c->rotary_dim % 2 != 0) {
        return pecert__vec_fail(ctx, loc, "rotary_dim", "%d is odd",
                                (int)c->rotary_dim);
    }
    if (c->rotary_dim > c->head_dim) {
        return pecert__vec_fail(ctx, loc, "rotary_dim",
                                "%d exceeds head_dim %d", (int)c->rotary_dim,
                                (int)c->head_dim);
    }
    return 0;
}

static int check_type_needs(const vec_ctx *ctx, const char *loc,
                            const struct rope_type_row *t,
                            const pecert_rope_config *c, const cJSON **items)
{
    for (size_t i = 0; i < CFG_COUNT; i++) {
        const cfg_field *f = &cfg_fields[i];

        if (f->bit != 0 && (t->needs & f->bit) != 0 &&
            (c->present & f->bit) == 0) {
            return pecert__vec_fail(ctx, loc, f->key.name,
                                    "required for rope_type %s", t->name);
        }
        if (f->kind != CFG_FACTORS) {
            continue;
        }
        if (t->needs_factors && items[i] == NULL) {
            return pecert__vec_fail(ctx, loc, f->key.name,
                                    "required for rope_type %s", t->name);
        }
        /* plugin.h: short/long_factor are NULL for other types. */
        if (!t->needs_factors && items[i] != NULL) {
            return pecert__vec_fail(ctx, loc, f->key.name,
                                    "only allowed for rope_type longrope, "
                                    "not %s", t->name);
        }
    }
    return 0;
}

static int parse_rope_type(const vec_ctx *ctx, const char *loc,
                           const cJSON *item,
                           const struct rope_type_row **out)
{
    const char *s;

    if (pecert__vec_string(ctx, loc, "rope_type", item, 1, &s) != 0) {
        return -1;
    }
    *out = find_rope_type(s);
    if (*out == NULL) {
        return pecert__vec_fail(ctx, loc, "rope_type",
                                "unknown rope_type \"%s\"", s);
    }
    return 0;
}

_Static_assert(CFG_COUNT == VEC_ROPE_CONFIG_KEYS, "vec_internal.h key count");

size_t pecert__vec_rope_keys(vec_key *keys)
{
    for (size_t i = 0; i < CFG_COUNT; i++) {
        keys[i] = cfg_fields[i].key;
    }
    return CFG_COUNT;
}

int pecert__vec_rope_config(vec_loader *ld, const char *loc,
                            const cJSON *obj, pecert_rope_config *out)
{
    vec_key keys[CFG_COUNT];
    const cJSON *items[CFG_COUNT];

    (void)pecert__vec_rope_keys(keys);
    memset(out, 0, sizeof *out);
    if (pecert__vec_fields(&ld->ctx, loc, obj, keys, CFG_COUNT, items) != 0) {
        return -1;
    }
    return pecert__vec_rope_config_items(ld, loc, items, out);
}

int pecert__vec_rope_config_items(vec_loader *ld, const char *loc,
                                  const cJSON **items,
                                  pecert_rope_config *out)
{
    const struct rope_type_row *type = NULL;

    memset(out, 0, sizeof *out);
    out->struct_size = (uint32_t)sizeof *out;
    if (parse_rope_type(&ld->ctx, loc, items[CFG_ROPE_TYPE], &type) != 0) {
        return -1;
    }
    out->rope_type = type->type;
    for (size_t i = 0; i < CFG_COUNT; i++) {
        const cfg_field *f = &cfg_fields[i];

        if (items[i] == NULL || f->kind == CFG_TYPE || f->kind == CFG_FACTORS) {
            continue;
        }
        if (set_scalar(&ld->ctx, loc, f, items[i], out) != 0) {
            return -1;
        }
        out->present |= f->bit;
    }
    if (check_dims(&ld->ctx, loc, out) != 0 ||
        check_type_needs(&ld->ctx, loc, type, out, items) != 0) {
        return -1;
    }
    if (type->needs_factors) {
        out->num_factors = out->rotary_dim / 2;
        if (set_factors(ld, loc, &cfg_fields[CFG_SHORT_FACTOR],
                        items[CFG_SHORT_FACTOR], out) != 0 ||
            set_factors(ld, loc, &cfg_fields[CFG_LONG_FACTOR],
                        items[CFG_LONG_FACTOR], out) != 0) {
            return -1;
        }
    }
    return 0;
}

const char *pecert_rope_pairing_name(pecert_rope_pairing pairing)
{
    return pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved" : "split_half";
}
