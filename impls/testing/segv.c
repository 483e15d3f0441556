/* segv.c - a plugin that crashes in rope_apply (tests crash containment). */
#include "misbehave.h"

static pecert_status apply_segv(void *instance, const pecert_rope_apply_args *args)
{
    (void)instance;
    (void)args;
    volatile int *null_pointer = (volatile int *)0;
    *null_pointer = 42; /* SIGSEGV on purpose */
    return PECERT_OK;
}

static const pecert_plugin misbehave_desc =
    MISBEHAVE_DESCRIPTOR(PECERT_ABI_VERSION, sizeof(pecert_plugin), apply_segv);
