/*
 * host.h - the engine host: the process that loads a plugin and runs the
 * operations the judge asks for over the wire (include/pecert/wire.h). It
 * sees only the ABI and the wire, as a user's engine host in another
 * language would.
 */
#ifndef PECERT_ENGINE_HOST_H
#define PECERT_ENGINE_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "pecert/plugin.h"
#include "pecert/wire.h"

/* The plugin as loaded: its descriptor, and each operation's pointer (NULL
 * where the descriptor lacks it or ends before it). */
typedef struct engine_plugin {
    const pecert_plugin *desc;
    uint64_t op_mask; /* bit (1 << pecert_wire_op) per operation present */
} engine_plugin;

/* engine_send: one message of len bytes on the channel; 0, or -1. */
int engine_send(const void *msg, size_t len);

/* engine_serve: answers the judge's ARENA and CALL messages until the
 * channel closes; returns the process's exit status. */
int engine_serve(const engine_plugin *p);

/* engine_op_fn: operation op's function pointer in the descriptor (as an
 * object pointer; the caller casts it to the operation's type), or NULL
 * when it is NULL or past the descriptor's struct_size. */
void *engine_op_fn(const pecert_plugin *desc, pecert_wire_op op);

#endif /* PECERT_ENGINE_HOST_H */
