/*
 * engine_link.c - the engine host as a process: started, greeted, checked
 * against the descriptor rules, stopped; and what a call that finds it
 * gone or lying does to the calling process (engine.h).
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addclosefrom_np */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine_internal.h"
#include "engine_proxy.h"
#include "isolate.h"
#include "plugin_load.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The host's descriptors: stdin /dev/null (a terminal there is
 * read-write: a plugin could dup it onto stdout and write around the
 * capture), stdout and stderr this process's (kept: a check's capture) or
 * /dev/null, the channel at its fixed descriptor, and no other. */
static int host_files(posix_spawn_file_actions_t *fa, const pecert_engine *e, int channel, int null_fd)
{
    int rc = posix_spawn_file_actions_init(fa);
    if (rc != 0) {
        return rc;
    }
    rc = posix_spawn_file_actions_adddup2(fa, null_fd, STDIN_FILENO);
    if (rc == 0 && !e->output_kept) {
        rc = posix_spawn_file_actions_adddup2(fa, null_fd, STDOUT_FILENO);
        rc = rc != 0 ? rc : posix_spawn_file_actions_adddup2(fa, null_fd, STDERR_FILENO);
    }
    rc = rc != 0 ? rc : posix_spawn_file_actions_adddup2(fa, channel, PECERT_WIRE_CHANNEL_FD);
    rc = rc != 0 ? rc : posix_spawn_file_actions_addclosefrom_np(fa, PECERT_WIRE_CHANNEL_FD + 1);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(fa);
    }
    return rc;
}

/* The host started with posix_spawn (a vfork, not a fork: this process's
 * pages are neither copied into its page tables nor made copy-on-write,
 * which every later write here would pay a fault for), in a process group
 * of its own, with no signal blocked, its command line and environment
 * engine_command_build's. It asks for death with this process itself
 * (--parent, WIRE.md), since nothing runs between the vfork and the exec.
 * pid, or 0 with errno's value in *err_no. */
static pid_t start_host(const pecert_engine *e, int channel, int null_fd, int *err_no)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    engine_command cmd;
    if (engine_command_build(&cmd, e) != 0) {
        *err_no = ENOMEM;
        return 0;
    }
    sigemptyset(&none);
    pid_t pid = 0;
    int rc = host_files(&fa, e, channel, null_fd);
    if (rc == 0) {
        rc = posix_spawnattr_init(&attr);
        if (rc == 0) {
            rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
            rc = rc != 0 ? rc : posix_spawnattr_setpgroup(&attr, 0);
            rc = rc != 0 ? rc : posix_spawnattr_setsigmask(&attr, &none);
            /* posix_spawnp: an interpreter named without a folder is
             * looked up in PATH, as a shell would. */
            rc = rc != 0 ? rc
                         : posix_spawnp(&pid, e->host_exe, &fa, &attr, cmd.argv, cmd.envp != NULL ? cmd.envp : environ);
            posix_spawnattr_destroy(&attr);
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    engine_command_free(&cmd);
    *err_no = rc;
    return rc == 0 ? pid : 0;
}

/* A host for path, on e->fd. This process becomes undumpable first: no
 * process of the same user (a host before its filter) may open its memory
 * through /proc. 0, or -1 with why. */
static int spawn(pecert_engine *e, char *err, size_t len)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, len, "%s: socketpair: %s", e->path, strerror(errno));
        return -1;
    }
    if (sv[1] == PECERT_WIRE_CHANNEL_FD) { /* dup2 onto itself would keep its close-on-exec */
        int moved = fcntl(sv[1], F_DUPFD_CLOEXEC, PECERT_WIRE_CHANNEL_FD + 1);
        close(sv[1]);
        sv[1] = moved;
    }
    (void)prctl(PR_SET_DUMPABLE, 0);
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    int err_no = errno;
    pid_t pid = 0;
    if (sv[1] >= 0 && null_fd >= 0) {
        pid = start_host(e, sv[1], null_fd, &err_no);
    }
    if (sv[1] >= 0) {
        close(sv[1]);
    }
    if (null_fd >= 0) {
        close(null_fd);
    }
    if (pid <= 0) {
        close(sv[0]);
        snprintf(err, len, "%s: cannot start %s: %s%s", e->path, e->host_exe, strerror(err_no),
                 e->python ? " (the Python engine host runs $PECERT_PYTHON, else python3 on PATH)" : "");
        return -1;
    }
    (void)setpgid(pid, pid); /* as the child does: no race with kill(-pid) */
    e->fd = sv[0];
    e->host = pid;
    e->owner = getpid();
    e->seq = 0;
    return 0;
}

/* The host's end: its wait status, waiting up to grace_s for it to exit
 * by itself before it is killed (*killed set then). Its group is killed
 * while the host is still unreaped (a zombie), so that its number cannot
 * have gone to another process group yet. */
static int reap(pecert_engine *e, double grace_s, int *killed)
{
    int status = 0;
    double until = now_s() + grace_s;
    siginfo_t info;
    *killed = 0;
    for (;;) {
        info.si_pid = 0;
        int r = waitid(P_PID, (id_t)e->host, &info, WEXITED | WNOHANG | WNOWAIT);
        if ((r == 0 && info.si_pid == e->host) || (r < 0 && errno != EINTR)) {
            break;
        }
        if (now_s() >= until) {
            (void)kill(e->host, SIGKILL);
            *killed = 1;
            break;
        }
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
    }
    (void)kill(-e->host, SIGKILL); /* anything left in its group */
    while (waitpid(e->host, &status, 0) < 0 && errno == EINTR) {
    }
    e->host = 0;
    return status;
}

static void close_channel(pecert_engine *e)
{
    if (e->fd >= 0) {
        close(e->fd);
        e->fd = -1;
    }
}

void pecert_engine_stop(pecert_engine *e)
{
    if (e == NULL || e->owner != getpid()) {
        return; /* no host of this process's */
    }
    close_channel(e);
    if (e->host > 0) {
        int killed;
        (void)reap(e, 0.0, &killed);
    }
    if (e->arena != NULL) {
        munmap(e->arena, e->arena_size);
        e->arena = NULL;
        e->arena_size = 0;
    }
    e->owner = 0;
}

_Noreturn void engine_fail(pecert_engine *e, engine_failure kind, const char *why)
{
    int killed = 0;
    int status = 0;
    close_channel(e);
    if (e->host > 0) { /* a host that broke the protocol gets no grace: it says nothing more */
        status = reap(e, kind == ENGINE_LOST ? 2.0 : 0.0, &killed);
    }
    if (kind == ENGINE_LOST && !killed && WIFSIGNALED(status)) {
        /* The plugin crashed: this process ends by the same signal. */
        int sig = WTERMSIG(status);
        sigset_t set;
        signal(sig, SIG_DFL);
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
    }
    if (kind == ENGINE_LOST && !killed && WIFEXITED(status)) {
        pecert_child_fault("the engine host exited with status %d in the middle of a call", WEXITSTATUS(status));
    }
    if (kind == ENGINE_JUDGE) {
        pecert_child_fault("pecert could not reach the engine host: %s", why);
    }
    pecert_child_fault("the engine host broke the wire protocol: %s", why);
}

int engine_send_message(pecert_engine *e, const void *msg, size_t len, int fd)
{
    struct iovec iov = {(void *)(uintptr_t)msg, len};
    char control[CMSG_SPACE(sizeof(int))];
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(control, 0, sizeof(control));
        mh.msg_control = control;
        mh.msg_controllen = sizeof(control);
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    ssize_t n;
    do {
        n = sendmsg(e->fd, &mh, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

/* ---- the hello --------------------------------------------------------- */

/* The next NUL-terminated string of text[*at..n), at most limit bytes
 * with its NUL; NULL when there is none. */
static const char *next_string(const char *text, size_t n, size_t *at, size_t limit)
{
    size_t left = n - *at;
    const char *s = text + *at;
    size_t len = strnlen(s, left < limit ? left : limit);
    if (len == left || len == limit) {
        return NULL;
    }
    *at += len + 1;
    return s;
}

/* HELLO's text into the engine: four strings, then capabilities up to an
 * empty one. 0, or -1 with why. */
static int read_hello_text(pecert_engine *e, const char *text, size_t n, const char **why)
{
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        const char *s = next_string(text, n, &at, PECERT_WIRE_MAX_TEXT);
        if (s == NULL) {
            *why = "its strings are cut or too long";
            return -1;
        }
        memcpy(e->text[i], s, strlen(s) + 1);
    }
    size_t k = 0;
    for (;;) {
        const char *s = next_string(text, n, &at, PECERT_WIRE_MAX_CAP_LEN);
        if (s == NULL || (s[0] != '\0' && k == PECERT_WIRE_MAX_CAPS)) {
            *why = "its capabilities are cut, too long or too many";
            return -1;
        }
        if (s[0] == '\0') {
            break;
        }
        memcpy(e->cap_text[k], s, strlen(s) + 1);
        e->caps[k] = e->cap_text[k];
        k++;
    }
    e->caps[k] = NULL;
    if (at != n) {
        *why = "bytes after its capabilities";
        return -1;
    }
    return 0;
}

/* One HELLO (or LOAD_ERROR) as hostile input, into e's descriptor. 1 for a
 * hello, 0 for a load error (its text in err), -1 when it is neither
 * (why in err). */
static int take_hello(pecert_engine *e, const unsigned char *buf, size_t n, char *err, size_t len)
{
    pecert_wire_header h;
    const char *why = "shorter than its header";
    if (n >= sizeof(h)) {
        memcpy(&h, buf, sizeof(h));
        why = h.magic != PECERT_WIRE_MAGIC || h.version != PECERT_WIRE_VERSION || h.length != n
                  ? "a header that is not the protocol's (magic, version, length)"
                  : NULL;
    }
    if (why == NULL && h.type == PECERT_WIRE_LOAD_ERROR) {
        size_t text = n - sizeof(h) < PECERT_WIRE_MAX_TEXT ? n - sizeof(h) : PECERT_WIRE_MAX_TEXT - 1;
        snprintf(err, len, "%.*s", (int)strnlen((const char *)buf + sizeof(h), text), (const char *)buf + sizeof(h));
        return 0;
    }
    pecert_wire_hello hello;
    if (why == NULL && (h.type != PECERT_WIRE_HELLO || n < sizeof(hello))) {
        why = "its first message is not a hello";
    }
    if (why == NULL) {
        memcpy(&hello, buf, sizeof(hello));
        if (hello.op_mask >> PECERT_WIRE_OP_COUNT != 0) {
            why = "operations the protocol does not have";
        }
    }
    if (why == NULL && read_hello_text(e, (const char *)buf + sizeof(hello), n - sizeof(hello), &why) == 0) {
        e->op_mask = hello.op_mask;
        e->hello_present = hello.present;
        e->scope = hello.scope;
        engine_proxies_fill(e, hello.abi_version, hello.struct_size);
        return 1;
    }
    snprintf(err, len, "%s: the engine host's hello is not the protocol: %s", e->path, why);
    return -1;
}

/* The first message, within deadline (0: none). 1 hello, 0 load error,
 * -1 the host broke the protocol (why in err) or ended (err ""), -2 past
 * the deadline (the host killed and reaped). */
static int await_hello(pecert_engine *e, double deadline, char *err, size_t len)
{
    static unsigned char buf[PECERT_WIRE_MAX_MESSAGE];
    for (;;) {
        double left = deadline > 0 ? deadline - now_s() : 1.0;
        if (left <= 0) {
            int killed;
            (void)reap(e, 0.0, &killed);
            return -2;
        }
        struct pollfd pfd = {.fd = e->fd, .events = POLLIN};
        int ready = poll(&pfd, 1, (int)(left * 1000.0) + 1);
        if (ready < 0 && errno != EINTR) {
            break;
        }
        if (ready > 0) {
            ssize_t n = recv(e->fd, buf, sizeof(buf), MSG_DONTWAIT);
            if (n > 0) {
                return take_hello(e, buf, (size_t)n, err, len);
            }
            if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                break;
            }
        }
    }
    err[0] = '\0';
    return -1;
}

/* What a host that gave no hello did, in the words of a failed load. */
static void load_failure(pecert_engine *e, int got, double timeout_s, char *err, size_t len)
{
    const char *code = "its load-time code (constructors, pecert_plugin_entry)";
    if (got == -2) {
        snprintf(err, len, "%s: cannot load: %s did not return within %.3g s", e->path, code, timeout_s);
        return;
    }
    if (err[0] != '\0') {
        return; /* the protocol's own reason */
    }
    int killed;
    int status = reap(e, 2.0, &killed);
    if (!killed && WIFSIGNALED(status)) {
        snprintf(err, len, "%s: cannot load: %s was killed by signal %d (%s)", e->path, code, WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    } else if (!killed && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(err, len, "%s: cannot load: the engine host (%s) did not start", e->path, e->host_exe);
    } else {
        snprintf(err, len, "%s: cannot load: its load-time code exited (status %d) before pecert could use it", e->path,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

int pecert_engine_load(pecert_engine **out, const char *path, pecert_sandbox_mode mode, char *err, size_t len)
{
    *out = NULL;
    pecert_engine *e = calloc(1, sizeof(*e));
    if (e == NULL || snprintf(e->path, sizeof(e->path), "%s", path) >= (int)sizeof(e->path)) {
        snprintf(err, len, "%s: %s", path, e == NULL ? "out of memory" : "path too long");
        free(e);
        return -1;
    }
    e->fd = -1;
    e->mode = mode;
    if (engine_find_host(e, err, len) != 0) {
        free(e);
        return -1;
    }
    if (spawn(e, err, len) != 0) {
        free(e);
        return -1;
    }
    double timeout_s = pecert_load_timeout_s();
    int got = await_hello(e, now_s() + timeout_s, err, len);
    if (got < 0) {
        load_failure(e, got, timeout_s, err, len);
    }
    int rc = got == 1 ? pecert_plugin_validate(&e->desc, path, err, len) : -1;
    if (rc == 0 && mode == PECERT_SANDBOX_ON && !(e->hello_present & PECERT_WIRE_SANDBOXED)) {
        snprintf(err, len, "%s: the engine host did not say it runs sandboxed", path);
        rc = -1;
    }
    pecert_engine_stop(e);
    if (rc != 0) {
        free(e);
        return -1;
    }
    *out = e;
    return 0;
}

void engine_connect(pecert_engine *e)
{
    if (e->owner == getpid() && e->fd >= 0) {
        return;
    }
    char err[1024];
    uint64_t mask = e->op_mask;
    uint32_t abi = e->desc.abi_version;
    uint32_t size = e->desc.struct_size;
    e->arena = NULL; /* the loading process's, if this one is its fork */
    e->arena_size = 0;
    e->fd = -1;
    if (spawn(e, err, sizeof(err)) != 0) {
        pecert_child_fault("could not start the engine host: %s", err);
    }
    int got = await_hello(e, 0, err, sizeof(err));
    if (got == 0) {
        pecert_child_fault("the engine host could not load the plugin in this process: %s", err);
    }
    if (got != 1) {
        engine_fail(e, err[0] != '\0' ? ENGINE_BROKE : ENGINE_LOST, err[0] != '\0' ? err : "it ended before its hello");
    }
    if (e->op_mask != mask || e->desc.abi_version != abi || e->desc.struct_size != size) {
        engine_fail(e, ENGINE_BROKE, "its hello describes another plugin than the one loaded");
    }
    engine_arena_adopt(e);
}

void pecert_engine_free(pecert_engine *e)
{
    if (e != NULL) {
        pecert_engine_stop(e);
        engine_arena_free(e);
        free(e->mask);
        free(e);
    }
}

const pecert_plugin *pecert_engine_desc(const pecert_engine *e)
{
    return &e->desc;
}

void pecert_engine_keep_output(pecert_engine *e)
{
    e->output_kept = 1;
}

int pecert_engine_sandboxed(const pecert_engine *e)
{
    return e->mode == PECERT_SANDBOX_ON;
}

const char *pecert_engine_violation(const pecert_engine *e)
{
    return e != NULL && e->violation[0] != '\0' ? e->violation : NULL;
}
