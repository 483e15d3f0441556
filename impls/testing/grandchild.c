/*
 * grandchild.c - `ref` whose rope_freqs forks a process that would sleep
 * for ten minutes holding every descriptor the engine host has, and writes
 * its pid to $GRANDCHILD_PIDFILE; when fork fails it says why on stderr.
 * In the sandboxed engine host both are refused (no process, no file
 * opened for writing), and the check ends with its own verdict
 * (tests/check_runner.c).
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref;

static pecert_status forking_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                   const pecert_rope_config *config, int64_t seq_len)
{
    static int forked;
    if (!forked) {
        forked = 1;
        pid_t pid = fork();
        if (pid == 0) {
            sleep(600);
            _exit(0);
        }
        if (pid < 0) {
            fprintf(stderr, "grandchild: fork: %s\n", strerror(errno));
        }
        const char *pidfile = getenv("GRANDCHILD_PIDFILE");
        FILE *f = pidfile != NULL ? fopen(pidfile, "w") : NULL;
        if (f != NULL) {
            fprintf(f, "%d\n", (int)pid);
            fclose(f);
        }
    }
    return ref->rope_freqs(instance, out_inv_freq, out_scaling, config, seq_len);
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    ref = testing_ref_copy(&desc, "grandchild");
    if (ref == NULL) {
        return NULL;
    }
    desc.rope_freqs = forking_freqs;
    return &desc;
}
