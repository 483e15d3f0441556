/*
 * vec_values.c - the typed "config" and "params" keys of the ops beyond
 * rope.* (vectors/FORMAT.md, "Other families"): integers with a range,
 * finite numbers with a lower bound, bools, enum strings and integer lists,
 * kept on the test as pecert_vvalue in the op's key order.
 */
#include <stdio.h>
#include <string.h>

#include "vec_internal.h"

static int parse_enum(const vec_ctx *ctx, const char *loc, const vec_vkey *k,
                      const cJSON *item, pecert_vvalue *v)
{
    char choices[256];
    size_t n = 0;
    int64_t i;

    if (pecert__vec_string(ctx, loc, k->name, item, 1, &v->s) != 0) {
        return -1;
    }
    choices[0] = '\0';
    for (i = 0; k->choices[i] != NULL; i++) {
        if (strcmp(k->choices[i], v->s) == 0) {
            v->i = i;
            return 0;
        }
        n += (size_t)snprintf(choices + n, n < sizeof choices ? sizeof choices - n : 0,
                              "%s%s", i > 0 ? ", " : "", k->choices[i]);
        if (n >= sizeof choices) {
            n = sizeof choices - 1;
        }
    }
    return pecert__vec_fail(ctx, loc, k->name, "unknown %s \"%s\" (%s)",
                            k->name, v->s, choices);
}

static int parse_number(const vec_ctx *ctx, const char *loc,
                        const vec_vkey *k, const cJSON *item, pecert_vvalue *v)
{
    if (pecert__vec_number(ctx, loc, k->name, item, &v->d) != 0) {
        return -1;
    }
    if (k->bound == 1 && !(v->d > 0.0)) {
        return pecert__vec_fail(ctx, loc, k->name, "must be > 0, got %.17g",
                                v->d);
    }
    if (k->bound == 2 && !(v->d > 1.0)) {
        return pecert__vec_fail(ctx, loc, k->name, "must be > 1, got %.17g",
                                v->d);
    }
    return 0;
}

/* An integer list: 1..max_items elements, each in [lo, hi], copied into
 * memory the file owns. */
static int parse_list(vec_loader *ld, const char *loc, const vec_vkey *k,
                      const cJSON *item, pecert_vvalue *v)
{
    char at[VEC_LOC_LEN];
    int64_t *vals;
    size_t n = 0;

    if (!cJSON_IsArray(item)) {
        return pecert__vec_fail(&ld->ctx, loc, k->name,
                                "expected an array, got %s",
                                pecert__vec_type_name(item));
    }
    for (const cJSON *e = item->child; e != NULL; e = e->next) {
        n++;
    }
    if (n == 0 || (int64_t)n > k->max_items) {
        return pecert__vec_fail(&ld->ctx, loc, k->name,
                                "expected 1 to %lld integers, got %zu",
                                (long long)k->max_items, n);
    }
    vals = pecert__vec_alloc(ld->arena, n, sizeof *vals);
    if (vals == NULL) {
        return pecert__vec_fail(&ld->ctx, loc, k->name, "out of memory");
    }
    pecert__vec_loc(at, sizeof at, loc, k->name);
    n = 0;
    for (const cJSON *e = item->child; e != NULL; e = e->next, n++) {
        char idx[32];

        (void)snprintf(idx, sizeof idx, "[%zu]", n);
        if (pecert__vec_int(&ld->ctx, at, idx, e, k->lo, k->hi, &vals[n]) != 0) {
            return -1;
        }
    }
    v->list = vals;
    v->n_list = n;
    return 0;
}

static int parse_value(vec_loader *ld, const char *loc, const vec_vkey *k,
                       const cJSON *item, pecert_vvalue *v)
{
    int b = 0;

    memset(v, 0, sizeof *v);
    v->key = k->name;
    v->kind = PECERT_VVAL_INT;
    switch (k->kind) {
    case VK_INT:
        if (pecert__vec_int(&ld->ctx, loc, k->name, item, k->lo, k->hi,
                            &v->i) != 0) {
            return -1;
        }
        v->d = (double)v->i;
        return 0;
    case VK_NUMBER:
        v->kind = PECERT_VVAL_NUMBER;
        return parse_number(&ld->ctx, loc, k, item, v);
    case VK_BOOL:
        v->kind = PECERT_VVAL_BOOL;
        if (pecert__vec_bool(&ld->ctx, loc, k->name, item, &b) != 0) {
            return -1;
        }
        v->i = b;
        v->d = b;
        return 0;
    case VK_ENUM:
        v->kind = PECERT_VVAL_ENUM;
        return parse_enum(&ld->ctx, loc, k, item, v);
    case VK_INT_LIST:
        v->kind = PECERT_VVAL_INT_LIST;
        return parse_list(ld, loc, k, item, v);
    }
    return pecert__vec_fail(&ld->ctx, loc, k->name, "bad schema kind");
}

int pecert__vec_values(vec_loader *ld, const char *loc, const vec_op *op,
                       int in_params, const cJSON **items, pecert_vtest *test)
{
    pecert_vvalue *values = (pecert_vvalue *)(uintptr_t)test->values;

    for (size_t k = 0; k < op->n_keys; k++) {
        if (op->keys[k].in_params != in_params || items[k] == NULL) {
            continue;
        }
        if (parse_value(ld, loc, &op->keys[k], items[k],
                        &values[test->n_values]) != 0) {
            return -1;
        }
        test->n_values++;
    }
    return 0;
}

const pecert_vvalue *pecert_vtest_value(const pecert_vtest *test,
                                        const char *key)
{
    if (test == NULL || key == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < test->n_values; i++) {
        if (strcmp(test->values[i].key, key) == 0) {
            return &test->values[i];
        }
    }
    return NULL;
}

int64_t pecert_vtest_int(const pecert_vtest *test, const char *key,
                         int64_t fallback)
{
    const pecert_vvalue *v = pecert_vtest_value(test, key);

    if (v == NULL || v->kind == PECERT_VVAL_NUMBER ||
        v->kind == PECERT_VVAL_INT_LIST) {
        return fallback;
    }
    return v->i;
}

double pecert_vtest_number(const pecert_vtest *test, const char *key,
                           double fallback)
{
    const pecert_vvalue *v = pecert_vtest_value(test, key);

    if (v == NULL || (v->kind != PECERT_VVAL_NUMBER && v->kind != PECERT_VVAL_INT)) {
        return fallback;
    }
    return v->d;
}
