/*
 * sinusoidal_as.h - a test plugin that implements exactly one sinusoidal
 * variant: `ref`'s sinusoidal op with the variant forced to
 * SINUSOIDAL_AS_VARIANT, whatever the caller asks for. Included by
 * sin_interleaved.c, sin_concat.c, sin_t2t.c and sin_fairseq.c; the test
 * tests/check_sinusoidal.c runs each on every variant's vectors and expects
 * it to pass its own and fail the other three.
 */
#ifndef PECERT_TESTING_SINUSOIDAL_AS_H
#define PECERT_TESTING_SINUSOIDAL_AS_H

#define _GNU_SOURCE /* dladdr, in ref_beside.h: include this header first */

#include <stdio.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static const pecert_plugin *ref_desc;

/* build/impls/ref.so (ref_beside.h). */
static const pecert_plugin *load_ref(void)
{
    return testing_load_ref(&ref_desc);
}

static pecert_status as_create(void **out)
{
    return ref_desc->create(out);
}

static void as_destroy(void *instance)
{
    ref_desc->destroy(instance);
}

static const char *as_last_error(void *instance)
{
    return ref_desc->last_error(instance);
}

/* The one variant this plugin knows; fairseq's padding_idx defaults to
 * fairseq's dictionary pad (1) when the caller's variant has none. */
static pecert_status as_sinusoidal(void *instance, const pecert_sinusoidal_args *args)
{
    pecert_sinusoidal_args forced = *args;
    forced.variant = SINUSOIDAL_AS_VARIANT;
    if (SINUSOIDAL_AS_VARIANT == PECERT_SINUSOIDAL_FAIRSEQ) {
        forced.padding_idx = args->padding_idx >= 0 ? args->padding_idx : 1;
    } else {
        forced.padding_idx = -1;
    }
    return ref_desc->sinusoidal(instance, &forced);
}

static const char *const caps[] = {"pecert.sinusoidal/1", NULL};

static const pecert_plugin desc = {
    .abi_version = PECERT_ABI_VERSION,
    .struct_size = sizeof(pecert_plugin),
    .id = "org.pecert.testing.sinusoidal_as",
    .name = SINUSOIDAL_AS_NAME,
    .version = "0",
    .vendor = "pecert tests",
    .capabilities = caps,
    .create = as_create,
    .destroy = as_destroy,
    .last_error = as_last_error,
    .sinusoidal = as_sinusoidal,
};

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    if (ref_desc == NULL) {
        ref_desc = load_ref();
    }
    return ref_desc != NULL && ref_desc->sinusoidal != NULL ? &desc : NULL;
}

#endif /* PECERT_TESTING_SINUSOIDAL_AS_H */
