/*
 * ref_beside.h - the test plugins that are `ref` with one thing changed
 * load build/impls/ref.so, found next to their own directory
 * (build/impls/testing/), so that the change is exactly that and nothing
 * else.
 */
#ifndef PECERT_TESTING_REF_BESIDE_H
#define PECERT_TESTING_REF_BESIDE_H

/* dladdr needs _GNU_SOURCE before the first system header: the including
 * file defines it at its top. */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>

#include "pecert/plugin.h"

/* The descriptor of build/impls/NAME (e.g. "fast.so"), or NULL; anchor is
 * any object of the calling plugin (dladdr finds its file from it). */
static inline const pecert_plugin *testing_load_beside(const void *anchor, const char *name)
{
    Dl_info info;
    char self[PATH_MAX];
    char path[PATH_MAX + 16];
    if (dladdr(anchor, &info) == 0 || info.dli_fname == NULL) {
        return NULL;
    }
    snprintf(self, sizeof(self), "%s", info.dli_fname);
    snprintf(path, sizeof(path), "%s/../%s", dirname(self), name);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        return NULL;
    }
    pecert_plugin_entry_fn entry;
    *(void **)&entry = dlsym(handle, PECERT_PLUGIN_ENTRY_SYMBOL);
    return entry != NULL ? entry(PECERT_ABI_VERSION) : NULL;
}

/* ref's descriptor, or NULL. */
static inline const pecert_plugin *testing_load_ref(const void *anchor)
{
    return testing_load_beside(anchor, "ref.so");
}

/* *desc becomes a copy of ref's descriptor named name (the caller then
 * swaps the entry points it changes); returns ref's own, or NULL. */
static inline const pecert_plugin *testing_ref_copy(pecert_plugin *desc, const char *name)
{
    const pecert_plugin *ref = testing_load_ref(desc);
    if (ref != NULL) {
        *desc = *ref;
        desc->name = name;
    }
    return ref;
}

#endif /* PECERT_TESTING_REF_BESIDE_H */
