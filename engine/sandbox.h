/*
 * sandbox.h - the engine host's seccomp filters: written with Debian's
 * libseccomp (filters/rules.c), compiled to BPF when pecert is built.
 *
 * Two stages, each a filter stacked on the one before (a filter can only
 * narrow what the earlier ones allow):
 *   loading  before the plugin is opened: what dlopen and a library's
 *            constructors need, files opened read-only included;
 *   serving  after the hello, before the first operation: computing,
 *            threads (OpenMP), memory, the channel and stdout/stderr.
 * Both refuse (EPERM) signals to any other process, ptrace and
 * process_vm_*, new processes, sessions and process groups, sockets,
 * prctl, and writes to any descriptor but stdout, stderr and the channel.
 * include/pecert/WIRE.md and docs/threat-model.md say what this promises.
 */
#ifndef PECERT_ENGINE_SANDBOX_H
#define PECERT_ENGINE_SANDBOX_H

#include <stddef.h>

typedef enum engine_stage { ENGINE_STAGE_LOADING, ENGINE_STAGE_SERVING } engine_stage;

/* engine_drop_privileges: no capabilities (root included) and no new
 * ones: the host cannot reach another process's memory through /proc.
 * 0, or -1 with why in err. */
int engine_drop_privileges(char *err, size_t len);

/* engine_sandbox: installs the filter of stage. 0, or -1 with why. */
int engine_sandbox(engine_stage stage, char *err, size_t len);

#endif /* PECERT_ENGINE_SANDBOX_H */
