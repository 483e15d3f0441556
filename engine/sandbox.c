/* sandbox.c - the engine host drops its privileges and installs its
 * seccomp filters, by stage (sandbox.h). */
#include "sandbox.h"

#include <errno.h>
#include <stdint.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Generated into $(BUILD)/gen by filters/export.c: the two programs and
 * ENGINE_FILTER_SELF_PID, the placeholder install() writes the pid over. */
#include "engine_filters.h"

int engine_drop_privileges(char *err, size_t len)
{
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3];
    memset(none, 0, sizeof(none));
    if (syscall(SYS_capset, &head, none) != 0) {
        snprintf(err, len, "capset: %s", strerror(errno));
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, len, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* The stage's program with this process's pid where the build left its
 * placeholder, installed on every thread of the host, those a library
 * started while it loaded (a thread pool) included: not only the caller's.
 * no_new_privs is already set (engine_drop_privileges). */
static int install(const struct sock_filter *program, size_t n, char *err, size_t len)
{
    struct sock_filter copy[512];
    if (n > sizeof(copy) / sizeof(copy[0])) {
        snprintf(err, len, "a filter of %zu instructions (at most 512)", n);
        return -1;
    }
    uint32_t self = (uint32_t)getpid();
    for (size_t i = 0; i < n; i++) {
        copy[i] = program[i];
        if (copy[i].code == (BPF_JMP | BPF_JEQ | BPF_K) && copy[i].k == ENGINE_FILTER_SELF_PID) {
            copy[i].k = self;
        }
    }
    struct sock_fprog prog = {(unsigned short)n, copy};
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
    if (rc > 0) {
        snprintf(err, len, "thread %ld could not take the filter", rc);
        return -1;
    }
    if (rc != 0) {
        snprintf(err, len, "seccomp: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int engine_sandbox(engine_stage stage, char *err, size_t len)
{
    char why[128];
    int loading = stage == ENGINE_STAGE_LOADING;
    int rc = loading ? install(engine_filter_loading, sizeof(engine_filter_loading) / sizeof(engine_filter_loading[0]),
                               why, sizeof(why))
                     : install(engine_filter_serving, sizeof(engine_filter_serving) / sizeof(engine_filter_serving[0]),
                               why, sizeof(why));
    if (rc != 0) {
        snprintf(err, len, "seccomp filter (%s stage): %s", loading ? "loading" : "serving", why);
    }
    return rc;
}
