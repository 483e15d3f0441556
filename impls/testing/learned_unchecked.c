/* learned_unchecked.c - a learned-position lookup that is right for every
 * position inside the table and never checks the table's bounds (the row
 * index used as is, as a port that trusts its position ids does). It must
 * pass learned.golden and lose certification on learned.out_of_range. */
#include <stddef.h>

#include "pecert/plugin.h"

static const char *const caps[] = {"pecert.learned/1", NULL};

static const char *no_error(void *instance)
{
    (void)instance;
    return "";
}

static pecert_status create(void **out)
{
    static int token;
    *out = &token;
    return PECERT_OK;
}

static void destroy(void *instance)
{
    (void)instance;
}

static pecert_status lookup(void *instance, const pecert_learned_args *a)
{
    (void)instance;
    int offset = a->convention == PECERT_LEARNED_PADDING_OFFSET;
    for (int64_t i = 0; i < a->n; i++) {
        int64_t p = a->positions[i];
        int64_t row = offset ? (p == -1 ? a->padding_idx : a->padding_idx + 1 + p) : p; /* unchecked */
        const float *src = (const float *)a->table->data + row * a->table->strides[0];
        float *dst = (float *)a->out->data + i * a->out->strides[0];
        for (int64_t d = 0; d < a->table->shape[1]; d++) {
            dst[d * a->out->strides[1]] = src[d * a->table->strides[1]];
        }
    }
    return PECERT_OK;
}

static const pecert_plugin desc = {
    .abi_version = PECERT_ABI_VERSION, .struct_size = sizeof(pecert_plugin), .id = "org.pecert.testing.learned_unchecked",
    .name = "learned_unchecked", .version = "0", .vendor = "pecert tests", .capabilities = caps,
    .create = create, .destroy = destroy, .last_error = no_error, .learned_lookup = lookup,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return &desc;
}
