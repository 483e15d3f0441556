/* misbehave.h - a descriptor skeleton and the entry point for the test-only
 * plugins that misbehave in one way. */
#ifndef PECERT_TESTING_MISBEHAVE_H
#define PECERT_TESTING_MISBEHAVE_H

#include "pecert/plugin.h"

static const char *const misbehave_caps[] = {"pecert.rope/1", NULL};

static const char *misbehave_last_error(void *instance)
{
    (void)instance;
    return "test plugin";
}

/* A descriptor whose only operation is apply. */
#define MISBEHAVE_DESCRIPTOR(abi, size, apply_fn)                                  \
    {                                                                               \
        .abi_version = (abi), .struct_size = (size), .id = "org.pecert.testing",    \
        .name = "testing", .version = "0", .vendor = "pecert tests",                \
        .capabilities = misbehave_caps, .last_error = misbehave_last_error,         \
        .rope_apply = (apply_fn)                                                    \
    }

/* Each plugin's file defines this descriptor with MISBEHAVE_DESCRIPTOR; the
 * entry point hands it to any host, whatever its version. */
static const pecert_plugin misbehave_desc;

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    return &misbehave_desc;
}

#endif
