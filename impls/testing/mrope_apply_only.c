/* mrope_apply_only.c - ref without mrope_index: an engine that rotates
 * M-RoPE but takes its 3-axis position ids from elsewhere (the vision
 * preprocessor). mrope.text_only_is_rope must still judge its rotation. */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdio.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;

/* build/impls/ref.so (ref_beside.h). */
static const pecert_plugin *load_ref(void)
{
    return testing_load_ref(&desc);
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    const pecert_plugin *ref = load_ref();
    if (ref == NULL) {
        return NULL;
    }
    (void)host_abi_version;
    desc = *ref;
    desc.id = "org.pecert.testing.mrope_apply_only";
    desc.name = "mrope_apply_only";
    desc.mrope_index = NULL;
    return &desc;
}
