/*
 * hostile.c - `ref` run by an engine that attacks pecert, by HOSTILE_MODE
 * (read when it loads and on each call; the engine host inherits the
 * environment):
 *   secrets  tries to read the check process's memory, descriptors and
 *            environment (/proc/PPID/..., process_vm_readv, ptrace,
 *            pidfd_getfd), writes a forged PASS result ending with a
 *            made-up nonce line to every descriptor but 1, 2 and 3, and
 *            answers wrong: only a forged verdict could pass;
 *   channel  answers wrong, then writes a well-formed REPLY (status OK,
 *            the seq of the call being served) and a garbage packet into
 *            the channel (fd 3);
 *   kill     signals the check process, its process group and its own
 *            group (never kill(-1)), and answers wrong;
 *   daemon   forks a sleeper that calls setsid(), clones a child that
 *            execs `sleep`, calls setsid()/setpgid() itself and opens a
 *            socket; then answers right (no process may outlive the run);
 *   oob      answers right, then writes one element past the end of the
 *            first output, as an engine with an off-by-one would;
 *   inputs   answers right, then changes the first element of an input;
 *   terminal writes a forged verdict line (with terminal control bytes)
 *            to stdout when it loads, and through stdin's file rebound
 *            onto stdout (fcntl F_DUPFD) when it loads and at its first
 *            call, and answers wrong: what it prints must stay in pecert's
 *            capture;
 *   stage    starts a thread when it loads that, at the first call, opens
 *            a file (the serving sandbox allows no open), then answers
 *            right;
 *   loop     rope_freqs never returns.
 * The attacks run when the plugin is loaded (pecert_plugin_entry, under the
 * engine's loading sandbox) and before every operation (the serving one);
 * what each returned goes to stderr as "hostile: WHEN: WHAT: RESULT", once
 * per engine host, at its first operation (the load-only host pecert
 * starts to read the descriptor never prints). tests/check_engine.c.
 */
#define _GNU_SOURCE /* dladdr (ref_beside.h), process_vm_readv, syscall */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pecert/plugin.h"
#include "pecert/wire.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref;
static unsigned calls; /* operations served by this host */

static int mode_is(const char *m)
{
    const char *mode = getenv("HOSTILE_MODE");
    return mode != NULL && strcmp(mode, m) == 0;
}

/* ---- what was tried, said once --------------------------------------------- */

/* The lines said so far, kept until the first operation: the host pecert
 * starts only to read the descriptor writes into pecert's own terminal. */
static char said[2048];
static size_t n_said;
static int quiet;

/* "hostile: WHEN: WHAT: HOW". */
static void say_how(const char *when, const char *what, const char *how)
{
    if (!quiet && n_said < sizeof(said)) {
        int n = snprintf(said + n_said, sizeof(said) - n_said, "hostile: %s: %s: %s\n", when, what, how);
        n_said += n > 0 ? (size_t)n : 0;
        n_said = n_said < sizeof(said) ? n_said : sizeof(said) - 1;
    }
}

/* HOW: "succeeded" (rc >= 0) or strerror(errno). */
static void say(const char *when, const char *what, long rc)
{
    say_how(when, what, rc >= 0 ? "succeeded" : strerror(errno));
}

static void speak(void)
{
    if (!quiet) {
        (void)!write(STDERR_FILENO, said, n_said);
        quiet = 1;
    }
}

/* ---- secrets ------------------------------------------------------------- */

/* Reads /proc/PPID/what: what a thief would replay. */
static void try_read(const char *when, const char *what)
{
    char path[64];
    char label[64];
    char buf[256];
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)getppid(), what);
    snprintf(label, sizeof(label), "read /proc/ppid/%s", what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long n = fd >= 0 ? (long)read(fd, buf, sizeof(buf)) : -1;
    say(when, label, n);
    if (fd >= 0) {
        close(fd);
    }
}

/* Lists the check process's descriptors (the result pipe among them): the
 * directory opens for the same user, its entries need ptrace's rights. */
static void try_list_fds(const char *when)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd", (int)getppid());
    DIR *d = opendir(path);
    if (d == NULL) {
        say(when, "list /proc/ppid/fd", -1);
        return;
    }
    int seen = 0;
    int named = 0;
    int opened = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char link[PATH_MAX];
        char target[256];
        if (e->d_name[0] == '.') {
            continue;
        }
        seen++;
        snprintf(link, sizeof(link), "%s/%s", path, e->d_name);
        named += readlink(link, target, sizeof(target)) > 0;
        int fd = open(link, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a pipe's end, reopened */
        opened += fd >= 0;
        if (fd >= 0) {
            close(fd);
        }
    }
    closedir(d);
    char how[96];
    snprintf(how, sizeof(how), "%d descriptors seen, %d named, %d reopened", seen, named, opened);
    say_how(when, "list /proc/ppid/fd", how);
}

/* A forged result for any check, ended as the harness ends its own. */
static void forge_everywhere(const char *when)
{
    static const char forged[] = "{\"check\":\"rope.freq.golden\",\"verdict\":\"pass\",\"cases\":1,\"failed\":0,"
                                 "\"diagnosis\":\"forged by hostile.so\"}\n#pecert-nonce "
                                 "0123456789abcdef0123456789abcdef\n";
    int wrote = 0;
    int err = 0;
    signal(SIGPIPE, SIG_IGN);
    for (int fd = 0; fd < 1024; fd++) {
        if (fd == STDOUT_FILENO || fd == STDERR_FILENO || fd == PECERT_WIRE_CHANNEL_FD || fcntl(fd, F_GETFD) < 0) {
            continue; /* ours, or not open */
        }
        if (write(fd, forged, sizeof(forged) - 1) > 0) {
            wrote++;
        } else if (errno != EBADF) {
            err = errno;
        }
    }
    errno = err != 0 ? err : EBADF; /* EBADF: none open */
    say(when, "forged result into an open descriptor", wrote > 0 ? 0 : -1);
}

static void steal_secrets(const char *when)
{
    pid_t parent = getppid();
    try_read(when, "mem");
    try_read(when, "environ");
    try_list_fds(when);
    char buf[64];
    struct iovec local = {buf, sizeof(buf)};
    struct iovec remote = {(void *)&said, sizeof(buf)}; /* any address */
    say(when, "process_vm_readv", (long)process_vm_readv(parent, &local, 1, &remote, 1, 0));
    say(when, "ptrace(PTRACE_ATTACH)", ptrace(PTRACE_ATTACH, parent, NULL, NULL));
    long pidfd = syscall(SYS_pidfd_open, parent, 0);
    say(when, "pidfd_open", pidfd);
    say(when, "pidfd_getfd", syscall(SYS_pidfd_getfd, pidfd, 4, 0));
    forge_everywhere(when);
}

/* ---- kill ------------------------------------------------------------------ */

/* The check process's group, read from /proc when the plugin loads (opens
 * are refused once it serves); 0 if unknown. */
static pid_t parent_group;

static pid_t read_parent_group(void)
{
    char path[64];
    char text[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;
    if (fd >= 0) {
        close(fd);
    }
    text[n > 0 ? n : 0] = '\0';
    const char *after = strrchr(text, ')'); /* "pid (comm) state ppid pgrp" */
    int ppid = 0;
    int pgrp = 0;
    return after != NULL && sscanf(after, ") %*c %d %d", &ppid, &pgrp) == 2 ? pgrp : 0;
}

static void kill_parent(const char *when)
{
    pid_t parent = getppid();
    pid_t group = (pid_t)getpgid(parent);
    say(when, "getpgid(parent)", group);
    group = group > 1 ? group : parent_group;
    say(when, "kill(parent, SIGKILL)", kill(parent, SIGKILL));
    say(when, "tgkill(parent)", syscall(SYS_tgkill, parent, parent, SIGKILL));
    say(when, "tkill(parent)", syscall(SYS_tkill, parent, SIGKILL));
    long pidfd = syscall(SYS_pidfd_open, parent, 0);
    say(when, "pidfd_send_signal(parent)", syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0));
    if (group > 1) { /* never -1: every process this user may signal */
        say(when, "kill(-parent's group, SIGKILL)", kill(-group, SIGKILL));
    }
    say(when, "kill(0, SIGKILL)", kill(0, SIGKILL)); /* the host's own group, last */
}

/* ---- daemon ----------------------------------------------------------------- */

static void spawn_daemons(const char *when)
{
    pid_t pid = fork();
    if (pid == 0) {
        (void)setsid();
        sleep(600);
        _exit(0);
    }
    say(when, "fork", pid);
    long cloned = syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
    if (cloned == 0) {
        char *const argv[] = {(char *)(uintptr_t) "hostile-daemon", (char *)(uintptr_t) "600", NULL};
        char *const envp[] = {NULL};
        (void)setsid();
        execve("/bin/sleep", argv, envp);
        _exit(127);
    }
    say(when, "clone(SIGCHLD)", cloned);
    say(when, "setsid", setsid());
    say(when, "setpgid(0, 0)", setpgid(0, 0));
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    say(when, "socket(AF_UNIX)", s);
    if (s >= 0) {
        close(s);
    }
}

/* ---- terminal ------------------------------------------------------------ */

/* A verdict line for the user's eyes: carriage return, erase the line. */
static const char fake_verdict[] = "\r\033[Kverdict: hostile CERTIFIED for llama-3.1-8b (llama): 18 passed\n";

/* stdout rebound for one write to stdin's open file (a terminal, when
 * pecert runs in one: opened for reading and writing): the sandbox allows
 * writes by descriptor number. */
static long write_through_stdin(void)
{
    int saved = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 10);
    close(STDOUT_FILENO);
    int rebound = fcntl(STDIN_FILENO, F_DUPFD, STDOUT_FILENO);
    long n = rebound == STDOUT_FILENO ? (long)write(STDOUT_FILENO, fake_verdict, sizeof(fake_verdict) - 1) : -1;
    int err = errno;
    if (rebound >= 0) {
        close(rebound);
    }
    (void)fcntl(saved, F_DUPFD, STDOUT_FILENO);
    close(saved);
    errno = err;
    return n;
}

static void write_around_capture(const char *when)
{
    if (strcmp(when, "load") == 0) { /* the host pecert loads first has pecert's own stdout */
        say(when, "forged verdict on stdout", (long)write(STDOUT_FILENO, fake_verdict, sizeof(fake_verdict) - 1));
    }
    if (calls <= 1) {
        say(when, "forged verdict through stdin", write_through_stdin());
    }
}

/* ---- stage ------------------------------------------------------------------ */

/* A thread started under the loading sandbox keeps whatever filter it was
 * born with: it opens a file once the host serves (told so by go), and
 * says how that went (errno, or 0) in opened. */
static int go;
static int opened = -1;

static void *open_when_serving(void *arg)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)(intptr_t)arg);
    while (!__atomic_load_n(&go, __ATOMIC_SEQ_CST)) {
        usleep(1000);
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int err = fd >= 0 ? 0 : errno;
    if (fd >= 0) {
        close(fd);
    }
    __atomic_store_n(&opened, err, __ATOMIC_SEQ_CST);
    return NULL;
}

static void open_from_a_loading_thread(const char *when)
{
    static pthread_t thread;
    static int started;
    if (strcmp(when, "load") == 0) {
        started = pthread_create(&thread, NULL, open_when_serving, (void *)(intptr_t)getppid()) == 0;
        say(when, "thread started", started ? 0 : -1);
        return;
    }
    if (!started || calls != 1) {
        return;
    }
    __atomic_store_n(&go, 1, __ATOMIC_SEQ_CST);
    for (int ms = 0; ms < 2000 && __atomic_load_n(&opened, __ATOMIC_SEQ_CST) < 0; ms++) {
        usleep(1000);
    }
    errno = __atomic_load_n(&opened, __ATOMIC_SEQ_CST);
    say(when, "open from a thread started at load", errno == 0 ? 0 : -1);
}

/* Every attack of this mode; when says at which stage. */
static void attack(const char *when)
{
    if (mode_is("secrets")) {
        steal_secrets(when);
    } else if (mode_is("kill")) {
        kill_parent(when);
    } else if (mode_is("daemon")) {
        spawn_daemons(when);
    } else if (mode_is("terminal")) {
        write_around_capture(when);
    } else if (mode_is("stage")) {
        open_from_a_loading_thread(when);
    }
}

/* ---- views of arguments ---------------------------------------------------- */

/* An argument's memory: a tensor view, or an array as a 1-D dense one. */
typedef struct view {
    unsigned char *data; /* NULL: none, or not a view the ABI allows */
    size_t esize;
    pecert_dtype dtype;
    uint32_t ndim;
    int64_t shape[PECERT_MAX_DIMS];
    int64_t strides[PECERT_MAX_DIMS];
} view;

static size_t dtype_size(pecert_dtype d)
{
    return d == PECERT_DTYPE_F64 || d == PECERT_DTYPE_I64    ? 8
           : d == PECERT_DTYPE_F32 || d == PECERT_DTYPE_I32  ? 4
           : d == PECERT_DTYPE_F16 || d == PECERT_DTYPE_BF16 ? 2
                                                             : 0;
}

static view of_tensor(const pecert_tensor *t)
{
    view v = {0};
    if (t == NULL || t->data == NULL || t->ndim < 1 || t->ndim > PECERT_MAX_DIMS || dtype_size(t->dtype) == 0) {
        return v;
    }
    for (uint32_t k = 0; k < t->ndim; k++) {
        if (t->shape[k] <= 0 || t->strides[k] < 0) {
            return v;
        }
    }
    v.data = (unsigned char *)t->data;
    v.esize = dtype_size(t->dtype);
    v.dtype = t->dtype;
    v.ndim = t->ndim;
    memcpy(v.shape, t->shape, sizeof(v.shape));
    memcpy(v.strides, t->strides, sizeof(v.strides));
    return v;
}

/* n elements of dtype at p; the const goes: the attacks write inputs. */
static view of_array(const void *p, int64_t n, pecert_dtype dtype)
{
    pecert_tensor t = {sizeof(t), dtype, 1, 0, (void *)(uintptr_t)p, {n}, {1}};
    return of_tensor(&t);
}

static view no_view(void)
{
    view v = {0};
    return v;
}

/* Bytes from the first element to the end of the last. */
static size_t extent(const view *v)
{
    size_t last = 0;
    for (uint32_t k = 0; k < v->ndim; k++) {
        last += (size_t)(v->shape[k] - 1) * (size_t)v->strides[k];
    }
    return (last + 1) * v->esize;
}

/* Element number i (row-major) of v. */
static unsigned char *element(const view *v, int64_t i)
{
    size_t off = 0;
    for (int k = (int)v->ndim - 1; k >= 0; k--) {
        off += (size_t)(i % v->shape[k]) * (size_t)v->strides[k];
        i /= v->shape[k];
    }
    return v->data + off * v->esize;
}

static int64_t elements(const view *v)
{
    int64_t n = 1;
    for (uint32_t k = 0; k < v->ndim; k++) {
        n *= v->shape[k];
    }
    return v->data != NULL ? n : 0;
}

/* Every element of v a different value, none of them an answer, and
 * different from call to call: no golden, property or determinism check
 * can pass it. */
static void garble(const view *v)
{
    for (int64_t i = 0; i < elements(v); i++) {
        double x = 1e6 + 1000.0 * calls - (double)i;
        unsigned char *e = element(v, i);
        if (v->dtype == PECERT_DTYPE_F64) {
            memcpy(e, &x, 8);
        } else if (v->dtype == PECERT_DTYPE_F32) {
            float f = (float)x;
            memcpy(e, &f, 4);
        } else if (v->dtype == PECERT_DTYPE_I64) {
            int64_t n = (int64_t)x;
            memcpy(e, &n, 8);
        } else if (v->dtype == PECERT_DTYPE_I32) {
            int32_t n = (int32_t)x;
            memcpy(e, &n, 4);
        } else {
            memset(e, 0x5a, v->esize);
        }
    }
}

/* ---- the channel ------------------------------------------------------------ */

/* The seq of the CALL being served, read from the host's own receive
 * buffer (a header with the protocol's magic, version and type CALL in a
 * writable segment of the executable); else a count of the calls. */
static int find_call(struct dl_phdr_info *info, size_t size, void *seq)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W)) {
            continue;
        }
        const unsigned char *at = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        for (size_t off = 0; off + sizeof(pecert_wire_call) <= ph->p_memsz; off += 8) {
            pecert_wire_header h;
            memcpy(&h, at + off, sizeof(h));
            if (h.magic == PECERT_WIRE_MAGIC && h.version == PECERT_WIRE_VERSION && h.type == PECERT_WIRE_CALL) {
                *(uint32_t *)seq = h.seq;
                return 1;
            }
        }
    }
    return 1; /* the executable only: it comes first */
}

static void forge_reply(void)
{
    uint32_t seq = calls + 1; /* create was call 1 */
    dl_iterate_phdr(find_call, &seq);
    pecert_wire_reply r = {
        {PECERT_WIRE_MAGIC, PECERT_WIRE_VERSION, PECERT_WIRE_REPLY, sizeof(r), seq}, PECERT_OK, 0, 0, 0};
    static const char garbage[] = "\xff\xfegarbage: not a packet of the protocol";
    (void)!write(PECERT_WIRE_CHANNEL_FD, &r, sizeof(r));
    (void)!write(PECERT_WIRE_CHANNEL_FD, garbage, sizeof(garbage));
}

/* ---- around every operation ---------------------------------------------- */

static void before(const char *op)
{
    calls++;
    attack("call");
    speak();
    if (mode_is("loop") && strcmp(op, "rope_freqs") == 0) {
        volatile unsigned long spin = 0;
        for (;;) {
            spin++;
        }
    }
}

/* st is ref's answer; out the op's first output, in an input. */
static pecert_status after(pecert_status st, view out, view in)
{
    if (mode_is("oob") && st == PECERT_OK && out.data != NULL) {
        memset(out.data + extent(&out), 0, out.esize); /* one element past the end */
    } else if (mode_is("inputs") && st == PECERT_OK && in.data != NULL) {
        in.data[0] ^= 0xff;
    } else if (mode_is("secrets") || mode_is("kill") || mode_is("channel") || mode_is("terminal")) {
        if (st == PECERT_OK) {
            garble(&out);
        }
        if (mode_is("channel")) {
            forge_reply();
        }
        return PECERT_OK; /* what ref refuses is accepted as well */
    }
    return st;
}

static pecert_status h_rope_freqs(void *inst, double *inv_freq, double *scaling, const pecert_rope_config *config,
                                  int64_t seq_len)
{
    before("rope_freqs");
    int64_t n = config != NULL ? config->rotary_dim / 2 : 0;
    view factors = config != NULL ? of_array(config->short_factor, config->num_factors, PECERT_DTYPE_F64) : no_view();
    return after(ref->rope_freqs(inst, inv_freq, scaling, config, seq_len), of_array(inv_freq, n, PECERT_DTYPE_F64),
                 factors);
}

static pecert_status h_rope_cos_sin(void *inst, pecert_tensor *out_cos, pecert_tensor *out_sin,
                                    const pecert_rope_config *config, int64_t seq_len, const int64_t *positions,
                                    int64_t n)
{
    before("rope_cos_sin");
    return after(ref->rope_cos_sin(inst, out_cos, out_sin, config, seq_len, positions, n), of_tensor(out_cos),
                 of_array(positions, n, PECERT_DTYPE_I64));
}

static pecert_status h_session_append(void *inst, void *session, const pecert_session_append_args *a)
{
    before("session_append");
    return after(ref->session_append(inst, session, a), of_tensor(a->out),
                 of_array(a->positions, a->n_tokens, PECERT_DTYPE_I64));
}

static pecert_status h_session_read_keys(void *inst, void *session, pecert_tensor *out_keys, int32_t seq)
{
    before("session_read_keys");
    return after(ref->session_read_keys(inst, session, out_keys, seq), of_tensor(out_keys), no_view());
}

static int64_t rows(const pecert_tensor *t)
{
    return t != NULL && t->ndim >= 1 ? t->shape[0] : 0;
}

/* The operations of one argument struct a: its first output, an input. */
#define FAMILY(fn, type, OUT, IN)                                                                                      \
    static pecert_status h_##fn(void *inst, const type *a)                                                             \
    {                                                                                                                  \
        before(#fn);                                                                                                   \
        return after(ref->fn(inst, a), OUT, IN);                                                                       \
    }
#define I64(p, n) of_array((p), (n), PECERT_DTYPE_I64)

FAMILY(rope_apply, pecert_rope_apply_args, of_tensor(a->out), I64(a->positions, rows(a->x)))
FAMILY(alibi_slopes, pecert_alibi_slopes_args, of_tensor(a->out), no_view())
FAMILY(alibi_bias, pecert_alibi_bias_args, of_tensor(a->out), I64(a->q_positions, a->n_q))
FAMILY(t5_bucket, pecert_t5_bucket_args, of_tensor(a->out), I64(a->relative_positions, a->n))
FAMILY(sinusoidal, pecert_sinusoidal_args, of_tensor(a->out), I64(a->positions, a->n))
FAMILY(learned_lookup, pecert_learned_args, of_tensor(a->out), of_tensor(a->table))
FAMILY(sincos_2d, pecert_sincos2d_args, of_tensor(a->out), no_view())
FAMILY(swin_index, pecert_swin_index_args, of_tensor(a->out), no_view())
FAMILY(shaw_index, pecert_shaw_index_args, of_tensor(a->out), I64(a->q_positions, a->n_q))
FAMILY(txl_pos_emb, pecert_txl_pos_emb_args, of_tensor(a->out), no_view())
FAMILY(txl_rel_shift, pecert_txl_rel_shift_args, of_tensor(a->out), of_tensor(a->x))
FAMILY(mrope_index, pecert_mrope_index_args, of_tensor(a->out_position_ids), I64(a->input_ids, a->batch * a->seq_len))
FAMILY(mrope_apply, pecert_mrope_apply_args, of_tensor(a->out), I64(a->positions, rows(a->x) * a->num_axes))
FAMILY(rope2d_index, pecert_rope2d_index_args, of_tensor(a->out_positions), I64(a->grid_thw, a->n_images * 3))
FAMILY(rope2d_apply, pecert_rope2d_apply_args, of_tensor(a->out), I64(a->positions, 2 * rows(a->x)))
FAMILY(pos_interpolate, pecert_posinterp_args, of_tensor(a->out), of_tensor(a->table))
FAMILY(cope_logits, pecert_cope_args, of_tensor(a->positions), of_tensor(a->q))
FAMILY(peg_apply, pecert_peg_args, of_tensor(a->out), of_tensor(a->x))
FAMILY(sine2d, pecert_sine2d_args, of_tensor(a->out), of_tensor(a->mask))
FAMILY(relpos2d_bias, pecert_relpos2d_args, of_tensor(a->out), of_tensor(a->query))
FAMILY(deberta_bias, pecert_deberta_args, of_tensor(a->out), of_tensor(a->q))

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    ref = testing_ref_copy(&desc, "hostile");
    if (ref == NULL) {
        return NULL;
    }
    parent_group = read_parent_group();
    attack("load");
#define SWAP(fn) desc.fn = desc.fn != NULL ? h_##fn : NULL
    SWAP(rope_freqs);
    SWAP(rope_cos_sin);
    SWAP(rope_apply);
    SWAP(session_append);
    SWAP(session_read_keys);
    SWAP(alibi_slopes);
    SWAP(alibi_bias);
    SWAP(t5_bucket);
    SWAP(sinusoidal);
    SWAP(learned_lookup);
    SWAP(sincos_2d);
    SWAP(swin_index);
    SWAP(shaw_index);
    SWAP(txl_pos_emb);
    SWAP(txl_rel_shift);
    SWAP(mrope_index);
    SWAP(mrope_apply);
    SWAP(rope2d_index);
    SWAP(rope2d_apply);
    SWAP(pos_interpolate);
    SWAP(cope_logits);
    SWAP(peg_apply);
    SWAP(sine2d);
    SWAP(relpos2d_bias);
    SWAP(deberta_bias);
#undef SWAP
    return &desc;
}
