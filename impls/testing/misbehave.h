/* misbehave.h - a descriptor skeleton for the test-only plugins. */
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

#endif
