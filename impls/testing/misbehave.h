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
#define MISBEHAVE_DESCRIPTOR(abi, size, apply_fn)                                             \
    {                                                                                          \
        (abi), (size), "org.pecert.testing", "testing", "0", "pecert tests", misbehave_caps,   \
            NULL, NULL, misbehave_last_error, NULL, NULL, (apply_fn)                           \
    }

#endif
