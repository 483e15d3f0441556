/*
 * engine.h - the plugin under test, in an engine host of its own.
 *
 * pecert (the judge) never maps, loads or calls a plugin's code. It starts
 * `pecert-engine` (engine/host.c), which loads the plugin and answers over
 * the wire (include/pecert/wire.h, WIRE.md). What the judge holds is a
 * descriptor of proxies: the same pecert_plugin the checks always called,
 * whose operations marshal their arguments into shared memory, ask the
 * host, and copy back only the outputs. Everything the host sends is
 * hostile input: sizes, statuses, strings and every byte it could write.
 *
 * One host per process that calls: the first instance made in a process
 * (a check's child) starts it, pecert_engine_stop ends it, and a host dies
 * with the process that started it. A host that dies during a call ends
 * that process the same way (the same signal, the same exit status), so
 * the runner reads a crash of the engine as it read a crash of the plugin.
 */
#ifndef PECERT_HARNESS_ENGINE_H
#define PECERT_HARNESS_ENGINE_H

#include <stddef.h>

#include "pecert/plugin.h"

typedef struct pecert_engine pecert_engine;

typedef enum pecert_sandbox_mode {
    PECERT_SANDBOX_ON = 0, /* seccomp allow-lists (engine/sandbox.h)    */
    PECERT_SANDBOX_OFF = 1 /* --sandbox off: its own process, nothing more */
} pecert_sandbox_mode;

/* pecert_engine_load: starts a host for path, reads its hello within
 * $PECERT_LOAD_TIMEOUT seconds and checks the descriptor it describes as
 * pecert_plugin_open checks one; the host then ends. *out is the engine,
 * whose pecert_engine_desc the checks call. 0, or -1 with "path: why". */
int pecert_engine_load(pecert_engine **out, const char *path, pecert_sandbox_mode mode, char *err, size_t len);

/* pecert_engine_free: stops this process's host and frees the engine. */
void pecert_engine_free(pecert_engine *e);

/* pecert_engine_desc: the descriptor of proxies. */
const pecert_plugin *pecert_engine_desc(const pecert_engine *e);

/* pecert_engine_of: the engine a descriptor's proxies speak to (a copy of
 * the descriptor, as the scope guard makes, included), or NULL when desc
 * is a plugin loaded in this process (the oracle, bench's subject). */
pecert_engine *pecert_engine_of(const pecert_plugin *desc);

/* pecert_engine_sandboxed: 1 when the host runs under its filters. */
int pecert_engine_sandboxed(const pecert_engine *e);

/* pecert_engine_keep_output: the hosts this process starts print into its
 * stdout and stderr (a check's child, which captures them into the
 * result). By default they print into /dev/null: what a plugin prints
 * while pecert loads it, or describes it, must not reach pecert's own
 * output. Stdin is /dev/null always. */
void pecert_engine_keep_output(pecert_engine *e);

/* pecert_engine_instance / _release: an instance in this process's host
 * (started first if there is none), as pecert_plugin_instance. */
pecert_status pecert_engine_instance(pecert_engine *e, void **out);
void pecert_engine_release(pecert_engine *e, void *instance);

/* pecert_engine_stop: ends this process's host, and everything in its
 * process group, and waits for it. A no-op when there is none. */
void pecert_engine_stop(pecert_engine *e);

/* pecert_engine_lend_arena / _arena_back: around one isolated child that
 * runs a check, in a process that runs them one at a time. The child's
 * host gets this process's shared arena (made once; its pages, allocated
 * and zeroed by the first check that wrote them, kept for the next)
 * instead of a fresh one. back says whether the child exited by itself
 * (it then reaped its host first: nothing else maps the arena); if not (a
 * timeout, a signal), the arena is dropped and the next check gets a new
 * one. Sandboxed hosts only (an unsandboxed one may fork what outlives
 * it). NULL (an in-process plugin) is a no-op. */
void pecert_engine_lend_arena(pecert_engine *e);
void pecert_engine_arena_back(pecert_engine *e, int child_exited);

/* pecert_engine_violation: the first write the host made outside an
 * output (into an input, past an output's end, between elements of a
 * strided one) in this process, as one line, or NULL. A check whose
 * engine wrote one fails, whatever its cases said. */
const char *pecert_engine_violation(const pecert_engine *e);

#endif /* PECERT_HARNESS_ENGINE_H */
