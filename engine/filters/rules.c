/*
 * rules.c - the engine host's two seccomp allow-lists, written with
 * Debian's libseccomp (rules.h). Only export.c, at build time, runs them.
 */
#define _GNU_SOURCE /* CLONE_THREAD */
#include "rules.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include "pecert/wire.h"

/* Calls with no argument worth restricting: computing, memory, threads'
 * synchronisation, time, and the process's own signal state. */
/* clang-format off: a table, several calls to a line */
static const int always[] = {
    SCMP_SYS(read),
    SCMP_SYS(pread64),
    SCMP_SYS(readv),
    SCMP_SYS(close),
    SCMP_SYS(fstat),
    SCMP_SYS(newfstatat),
    SCMP_SYS(lseek),
    SCMP_SYS(fcntl),
    SCMP_SYS(mmap),
    SCMP_SYS(munmap),
    SCMP_SYS(mprotect),
    SCMP_SYS(mremap),
    SCMP_SYS(madvise),
    SCMP_SYS(brk),
    SCMP_SYS(futex),
    SCMP_SYS(sched_yield),
    SCMP_SYS(sched_getaffinity),
    SCMP_SYS(getcpu),
    SCMP_SYS(set_robust_list),
    SCMP_SYS(get_robust_list),
    SCMP_SYS(rseq),
    SCMP_SYS(set_tid_address),
    SCMP_SYS(gettid),
    SCMP_SYS(getpid),
    SCMP_SYS(getppid),
    SCMP_SYS(getuid),
    SCMP_SYS(geteuid),
    SCMP_SYS(getgid),
    SCMP_SYS(getegid),
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(sigaltstack),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
    SCMP_SYS(clock_gettime),
    SCMP_SYS(clock_getres),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(time),
    SCMP_SYS(nanosleep),
    SCMP_SYS(clock_nanosleep),
    SCMP_SYS(getrandom),
    SCMP_SYS(uname),
    SCMP_SYS(sysinfo),
    SCMP_SYS(membarrier),
    SCMP_SYS(getrusage),
    SCMP_SYS(times),
    SCMP_SYS(sched_getparam),
    SCMP_SYS(sched_getscheduler),
    SCMP_SYS(recvmsg),
    SCMP_SYS(recvfrom),
    SCMP_SYS(poll),
    SCMP_SYS(ppoll),
    SCMP_SYS(arch_prctl),
};

/* What dlopen and load-time code read: files and folders, never written. */
static const int loading_only[] = {
    SCMP_SYS(access),
    SCMP_SYS(faccessat),
    SCMP_SYS(faccessat2),
    SCMP_SYS(readlink),
    SCMP_SYS(readlinkat),
    SCMP_SYS(getdents64),
    SCMP_SYS(stat),
    SCMP_SYS(lstat),
    SCMP_SYS(statx),
    SCMP_SYS(statfs),
    SCMP_SYS(fstatfs),
    SCMP_SYS(getcwd),
    /* The serving stage's filter is installed from inside this one. */
    SCMP_SYS(seccomp),
};
/* clang-format on */

static int allow_all(scmp_filter_ctx ctx, const int *calls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0) != 0) {
            return -1;
        }
    }
    return 0;
}

/* write and sendmsg: stdout, stderr (captured by the judge) and the
 * channel; nothing else the plugin could open or inherit. */
static int allow_own_outputs(scmp_filter_ctx ctx)
{
    static const int writers[] = {SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(sendmsg), SCMP_SYS(sendto)};
    static const int fds[] = {STDOUT_FILENO, STDERR_FILENO, PECERT_WIRE_CHANNEL_FD};
    for (size_t w = 0; w < sizeof(writers) / sizeof(writers[0]); w++) {
        for (size_t f = 0; f < sizeof(fds) / sizeof(fds[0]); f++) {
            if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, writers[w], 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fds[f])) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* Threads, never processes: clone with CLONE_THREAD only. clone3 hides
 * its flags in memory a filter cannot read, so it answers ENOSYS and
 * glibc falls back to clone. */
static int allow_threads(scmp_filter_ctx ctx)
{
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, (scmp_datum_t)CLONE_THREAD, (scmp_datum_t)CLONE_THREAD)) != 0) {
        return -1;
    }
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
}

/* Signals to itself only (abort(), raise(), a thread's own): kill and
 * tgkill naming this process (self_pid); prlimit64 reads its own limits only. */
static int allow_self(scmp_filter_ctx ctx, uint32_t self_pid)
{
    scmp_datum_t self = (scmp_datum_t)self_pid;
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, self)) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, self)) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0),
                         SCMP_A2(SCMP_CMP_EQ, 0)) != 0) {
        return -1;
    }
    /* isatty() and friends: "not a terminal", never a device request. */
    return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOTTY), SCMP_SYS(ioctl), 0);
}

/* open and openat for reading only: no O_WRONLY, O_RDWR, O_CREAT, O_TRUNC
 * or O_APPEND bit. */
static int allow_read_only_open(scmp_filter_ctx ctx)
{
    scmp_datum_t writing = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, writing, 0)) != 0) {
        return -1;
    }
    return seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, writing, 0));
}

scmp_filter_ctx engine_filter_rules(int loading, uint32_t self_pid)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (ctx == NULL) {
        return NULL;
    }
    int rc = allow_all(ctx, always, sizeof(always) / sizeof(always[0]));
    if (rc == 0) {
        rc = allow_own_outputs(ctx);
    }
    if (rc == 0) {
        rc = allow_threads(ctx);
    }
    if (rc == 0) {
        rc = allow_self(ctx, self_pid);
    }
    if (rc == 0 && loading) {
        rc = allow_all(ctx, loading_only, sizeof(loading_only) / sizeof(loading_only[0]));
        if (rc == 0) {
            rc = allow_read_only_open(ctx);
        }
    }
    if (rc != 0) {
        seccomp_release(ctx);
        return NULL;
    }
    return ctx;
}
