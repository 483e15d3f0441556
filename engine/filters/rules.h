/*
 * rules.h - the engine host's seccomp allow-lists, as libseccomp rules.
 *
 * They are compiled to BPF once, when pecert is built (export.c writes
 * them into a generated header), not in every host: libseccomp's compiler
 * took about 0.4 ms of each host's start, and a host starts for every
 * check. engine/sandbox.c installs the programs.
 */
#ifndef PECERT_ENGINE_FILTERS_RULES_H
#define PECERT_ENGINE_FILTERS_RULES_H

#include <seccomp.h>
#include <stdint.h>

/* A pid no process can have (pid_max is at most 2^22): the filters are
 * built with it where they name the host's own pid, and the host writes
 * its pid over it before it installs them. */
#define ENGINE_FILTER_SELF_PID 0x3fffff5dU

/* engine_filter_rules: the loading stage's filter (loading != 0) or the
 * serving stage's, refusing with EPERM all that is not allowed; kill and
 * tgkill allowed for self_pid only. NULL if libseccomp fails. */
scmp_filter_ctx engine_filter_rules(int loading, uint32_t self_pid);

#endif /* PECERT_ENGINE_FILTERS_RULES_H */
