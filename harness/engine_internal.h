/*
 * engine_internal.h - what engine_link.c (the host process and its
 * hello), engine_call.c (one call's marshalling) and engine_proxy.c (the
 * operations) share. Not for use outside harness/engine_*.c.
 */
#ifndef PECERT_HARNESS_ENGINE_INTERNAL_H
#define PECERT_HARNESS_ENGINE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine.h"
#include "pecert/wire.h"

#define ENGINE_VIOLATION_LEN 512

struct pecert_engine {
    pecert_plugin desc; /* the proxies; its id points into text[0] */
    pecert_sandbox_mode mode;
    int output_kept; /* the host's stdout/stderr: this process's, not /dev/null */
    char path[4096];
    char host_exe[4096];                /* pecert-engine or the Python interpreter */
    char python_dir[4096];              /* a Python engine's: where pecert/host.py is */
    char filters[4096];                 /* and the sandbox's BPF (engine-filters.bpf) */
    int python;                         /* path is "python:SPEC"           */
    char text[4][PECERT_WIRE_MAX_TEXT]; /* id, name, version, vendor */
    char cap_text[PECERT_WIRE_MAX_CAPS][PECERT_WIRE_MAX_CAP_LEN];
    const char *caps[PECERT_WIRE_MAX_CAPS + 1];
    pecert_scope scope;
    uint64_t op_mask;
    uint32_t hello_present;
    /* This process's host: owner is the process that started it (a child
     * of the process that loaded the engine starts its own). */
    pid_t owner;
    pid_t host;
    int fd;
    /* The arena: a sealed memfd both sides map. */
    unsigned char *arena;
    size_t arena_size;
    uint64_t generation;
    /* The arena this process lends its children, one at a time
     * (pecert_engine_lend_arena, engine_arena.c): its mapping, size and
     * memfd; lent is NULL when there is none. */
    unsigned char *lent;
    size_t lent_size;
    int lent_fd;
    pid_t lent_by;
    int lent_open; /* lent now: the child forked now may adopt it */
    uint32_t seq;
    unsigned char *mask; /* which bytes of a block an output may write */
    size_t mask_cap;
    /* The text of the last reply (describe, last_error after a failure). */
    char reply_text[PECERT_WIRE_MAX_TEXT + 1];
    int reply_text_null;
    int error_text_valid; /* the last call failed and brought last_error */
    char violation[ENGINE_VIOLATION_LEN];
};

/* An instance the checks hold: the engine and the host's handle. */
typedef struct engine_instance {
    pecert_engine *e;
    uint32_t handle;
} engine_instance;

/* engine_connect: a host for this process, started and greeted if it has
 * none. 0; a host that cannot start ends the process (engine_fail). */
void engine_connect(pecert_engine *e);

/* How a call failed, for engine_fail. */
typedef enum engine_failure {
    ENGINE_LOST,  /* the channel closed or failed: the host is ending       */
    ENGINE_BROKE, /* the host sent what is not the protocol: it is killed   */
    ENGINE_JUDGE  /* pecert itself could not go on (memory, its own limits) */
} engine_failure;

/* engine_fail: ends this process, for a call that cannot complete. A host
 * lost to a signal ends it by the same signal (the runner reads it as it
 * read a crash of the plugin in the check's own process); one that exited
 * or broke the protocol, or a failure of pecert's own, ends it as an
 * isolated child's fault (isolate.h) saying so. Never returns. */
_Noreturn void engine_fail(pecert_engine *e, engine_failure kind, const char *why);

/* engine_send_message: the whole message, on the channel (with fd as
 * SCM_RIGHTS when >= 0); 0, or -1. */
int engine_send_message(pecert_engine *e, const void *msg, size_t len, int fd);

/* ---- the host's command (engine_command.c) ------------------------------ */

/* The prefix of --impl that names an engine written in Python. */
#define ENGINE_PYTHON_PREFIX "python:"

/* engine_find_host: the executable (and for a Python engine the folder of
 * pecert's Python package) e's hosts run, found once at load. 0, or -1
 * with why in err. */
int engine_find_host(pecert_engine *e, char *err, size_t len);

/* A host's argv and environment, built for one start. */
typedef struct engine_command {
    char *argv[12];
    char **envp;
    char parent[32];
    char filters[4200];
    char pythonpath[8192];
} engine_command;

/* engine_command_build / _free: 0, or -1 (out of memory). */
int engine_command_build(engine_command *cmd, const pecert_engine *e);
void engine_command_free(engine_command *cmd);

/* ---- the arena (engine_arena.c) ---------------------------------------- */

/* engine_arena_adopt: a host just greeted gets the arena this process's
 * parent lent it, if it lends one now (once per process). */
void engine_arena_adopt(pecert_engine *e);

/* engine_arena_grow: a new arena of at least need bytes, this process's
 * own, sent to the host; the one before is unmapped here. */
void engine_arena_grow(pecert_engine *e, size_t need);

/* engine_arena_free: the arena this process lends, dropped. */
void engine_arena_free(pecert_engine *e);

/* ---- one call (engine_call.c) ------------------------------------------ */

#define ENGINE_MAX_REGIONS 32

/* A range of the judge's memory a pointer of the arguments reaches. */
typedef struct engine_region {
    const unsigned char *start;
    size_t len;
    int output;                /* the operation writes it             */
    const pecert_tensor *view; /* its elements (strided output), or NULL: all of it */
    const char *name;          /* the argument, for the violation line */
    uint32_t slot;             /* the frame slot its pointer fills    */
    size_t block;
} engine_region;

typedef struct engine_call {
    pecert_engine *e;
    pecert_wire_op op;
    const char *op_name;
    unsigned char frame[PECERT_WIRE_MAX_FRAME] __attribute__((aligned(16)));
    size_t frame_len;
    pecert_wire_reloc relocs[PECERT_WIRE_MAX_RELOCS];
    size_t n_relocs;
    engine_region regions[ENGINE_MAX_REGIONS];
    size_t n_regions;
    int overflow; /* more than the wire's limits: a bug of pecert's, said so */
} engine_call;

/* What came back. */
typedef struct engine_reply {
    pecert_status status;
    uint32_t handle;
} engine_reply;

void engine_call_begin(engine_call *c, pecert_engine *e, pecert_wire_op op, const char *op_name);

/* engine_frame: size bytes of src at the next 8-aligned offset of the
 * frame (zeros when src is NULL); the offset. */
size_t engine_frame(engine_call *c, const void *src, size_t size);

/* engine_struct: the struct src (size bytes) the pointer at frame offset
 * slot points to, copied into the frame and relocated; its offset, or
 * (size_t)-1 when src is NULL (the slot is then NULL). */
size_t engine_struct(engine_call *c, size_t slot, const void *src, size_t size);

/* engine_data: the pointer at slot reaches len bytes of the judge's
 * memory at ptr (an input, or an output the host may write all of); its
 * region, or NULL when ptr is NULL (or past the call's limits). */
engine_region *engine_data(engine_call *c, size_t slot, const void *ptr, size_t len, int output, const char *name);

/* engine_tensor: the pecert_tensor pointer at slot: the struct, and the
 * bytes its view spans (only its elements writable, when output). */
void engine_tensor(engine_call *c, size_t slot, const pecert_tensor *t, int output, const char *name);

/* engine_call_run: the call laid out in the arena, sent, answered, its
 * outputs copied back and every other byte checked. */
engine_reply engine_call_run(engine_call *c, uint32_t instance, uint32_t session);

#endif /* PECERT_HARNESS_ENGINE_INTERNAL_H */
