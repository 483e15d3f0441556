/*
 * host.c - pecert-engine: load one plugin, say hello, serve the judge.
 *
 *     pecert-engine [--no-sandbox] [--parent=PID] PLUGIN
 *
 * Started by pecert (harness/engine_link.c) with the channel at
 * PECERT_WIRE_CHANNEL_FD, in a process group of its own, to die with its
 * parent. It is the only process that maps the plugin's code: the judge
 * never does. With the sandbox (the default) it loses every capability
 * and loads under the loading filter, then serves under the serving one
 * (sandbox.h).
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host.h"
#include "sandbox.h"

/* LeakSanitizer, in a sanitized build, is off in the host: what a plugin
 * leaves allocated when its host ends is the plugin's, and the tracer the
 * leak check needs is what the sandbox refuses (ptrace, a new process). */
int __lsan_is_turned_off(void) __attribute__((visibility("default")));
int __lsan_is_turned_off(void)
{
    return 1;
}

int engine_send(const void *msg, size_t len)
{
    ssize_t n = send(PECERT_WIRE_CHANNEL_FD, msg, len, MSG_NOSIGNAL);
    return n == (ssize_t)len ? 0 : -1;
}

static pecert_wire_header header(pecert_wire_type type, size_t length)
{
    return (pecert_wire_header){PECERT_WIRE_MAGIC, PECERT_WIRE_VERSION, (uint16_t)type, (uint32_t)length, 0};
}

/* LOAD_ERROR with "path: why"; the host then exits. */
static int load_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int load_error(const char *fmt, ...)
{
    struct {
        pecert_wire_header h;
        char text[PECERT_WIRE_MAX_TEXT];
    } m;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m.text, sizeof(m.text), fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(m.text) ? (size_t)n : sizeof(m.text) - 1;
    m.h = header(PECERT_WIRE_LOAD_ERROR, sizeof(m.h) + len);
    return engine_send(&m, sizeof(m.h) + len) == 0 ? 0 : 1;
}

#define FIELD_OP(field, op)                                                                                            \
    {                                                                                                                  \
        offsetof(pecert_plugin, field), sizeof(((pecert_plugin *)0)->field), op                                        \
    }

/* Where each operation's pointer lies in the descriptor. */
static const struct {
    size_t offset;
    size_t size;
    pecert_wire_op op;
} op_fields[] = {
    FIELD_OP(create, PECERT_WIRE_OP_CREATE),
    FIELD_OP(destroy, PECERT_WIRE_OP_DESTROY),
    FIELD_OP(last_error, PECERT_WIRE_OP_LAST_ERROR),
    FIELD_OP(rope_freqs, PECERT_WIRE_OP_ROPE_FREQS),
    FIELD_OP(rope_cos_sin, PECERT_WIRE_OP_ROPE_COS_SIN),
    FIELD_OP(rope_apply, PECERT_WIRE_OP_ROPE_APPLY),
    FIELD_OP(set_num_threads, PECERT_WIRE_OP_SET_NUM_THREADS),
    FIELD_OP(describe, PECERT_WIRE_OP_DESCRIBE),
    FIELD_OP(session_create, PECERT_WIRE_OP_SESSION_CREATE),
    FIELD_OP(session_destroy, PECERT_WIRE_OP_SESSION_DESTROY),
    FIELD_OP(session_append, PECERT_WIRE_OP_SESSION_APPEND),
    FIELD_OP(session_read_keys, PECERT_WIRE_OP_SESSION_READ_KEYS),
    FIELD_OP(alibi_slopes, PECERT_WIRE_OP_ALIBI_SLOPES),
    FIELD_OP(alibi_bias, PECERT_WIRE_OP_ALIBI_BIAS),
    FIELD_OP(t5_bucket, PECERT_WIRE_OP_T5_BUCKET),
    FIELD_OP(sinusoidal, PECERT_WIRE_OP_SINUSOIDAL),
    FIELD_OP(learned_lookup, PECERT_WIRE_OP_LEARNED_LOOKUP),
    FIELD_OP(sincos_2d, PECERT_WIRE_OP_SINCOS_2D),
    FIELD_OP(swin_index, PECERT_WIRE_OP_SWIN_INDEX),
    FIELD_OP(shaw_index, PECERT_WIRE_OP_SHAW_INDEX),
    FIELD_OP(txl_pos_emb, PECERT_WIRE_OP_TXL_POS_EMB),
    FIELD_OP(txl_rel_shift, PECERT_WIRE_OP_TXL_REL_SHIFT),
    FIELD_OP(mrope_index, PECERT_WIRE_OP_MROPE_INDEX),
    FIELD_OP(mrope_apply, PECERT_WIRE_OP_MROPE_APPLY),
    FIELD_OP(rope2d_index, PECERT_WIRE_OP_ROPE2D_INDEX),
    FIELD_OP(rope2d_apply, PECERT_WIRE_OP_ROPE2D_APPLY),
    FIELD_OP(pos_interpolate, PECERT_WIRE_OP_POS_INTERPOLATE),
    FIELD_OP(cope_logits, PECERT_WIRE_OP_COPE_LOGITS),
    FIELD_OP(peg_apply, PECERT_WIRE_OP_PEG_APPLY),
    FIELD_OP(sine2d, PECERT_WIRE_OP_SINE2D),
    FIELD_OP(relpos2d_bias, PECERT_WIRE_OP_RELPOS2D_BIAS),
    FIELD_OP(deberta_bias, PECERT_WIRE_OP_DEBERTA_BIAS),
};

void *engine_op_fn(const pecert_plugin *desc, pecert_wire_op op)
{
    for (size_t i = 0; i < sizeof(op_fields) / sizeof(op_fields[0]); i++) {
        if (op_fields[i].op == op) {
            void *fn = NULL;
            if (desc->struct_size >= op_fields[i].offset + op_fields[i].size) { /* this minor has it */
                memcpy(&fn, (const char *)desc + op_fields[i].offset, sizeof(fn));
            }
            return fn;
        }
    }
    return NULL;
}

/* Appends s (cut to the wire's limit) and its NUL at *used. */
static void put_text(char *buf, size_t cap, size_t *used, const char *s, size_t limit)
{
    size_t n = s != NULL ? strnlen(s, limit - 1) : 0;
    if (*used + n + 1 > cap) {
        n = *used + 1 < cap ? cap - *used - 1 : 0;
    }
    if (n > 0) {
        memcpy(buf + *used, s, n);
    }
    *used += n;
    if (*used < cap) {
        buf[(*used)++] = '\0';
    }
}

/* The descriptor's strings, capabilities and scope, as HELLO says them. */
static int send_hello(const engine_plugin *p, int sandboxed)
{
    static struct {
        pecert_wire_hello hello;
        char text[PECERT_WIRE_MAX_MESSAGE - sizeof(pecert_wire_hello)];
    } m;
    const pecert_plugin *d = p->desc;
    memset(&m.hello, 0, sizeof(m.hello));
    m.hello.abi_version = d->abi_version;
    m.hello.struct_size = d->struct_size;
    m.hello.op_mask = p->op_mask;
    m.hello.host_pid = (uint32_t)getpid();
    m.hello.present = (d->id != NULL ? PECERT_WIRE_HAS_ID : 0) | (d->name != NULL ? PECERT_WIRE_HAS_NAME : 0) |
                      (d->version != NULL ? PECERT_WIRE_HAS_VERSION : 0) |
                      (d->vendor != NULL ? PECERT_WIRE_HAS_VENDOR : 0) | (sandboxed ? PECERT_WIRE_SANDBOXED : 0);
    if (PECERT_HAS_FIELD(d, pecert_plugin, scope) && d->scope != NULL &&
        d->scope->struct_size >= sizeof(pecert_scope)) {
        m.hello.scope = *d->scope;
        m.hello.present |= PECERT_WIRE_HAS_SCOPE;
    }
    size_t used = 0;
    const char *strings[] = {d->id, d->name, d->version, d->vendor};
    for (size_t i = 0; i < 4; i++) {
        put_text(m.text, sizeof(m.text), &used, strings[i], PECERT_WIRE_MAX_TEXT);
    }
    for (size_t i = 0; d->capabilities != NULL && d->capabilities[i] != NULL && i < PECERT_WIRE_MAX_CAPS; i++) {
        put_text(m.text, sizeof(m.text), &used, d->capabilities[i], PECERT_WIRE_MAX_CAP_LEN);
    }
    put_text(m.text, sizeof(m.text), &used, "", 1);
    m.hello.h = header(PECERT_WIRE_HELLO, sizeof(m.hello) + used);
    return engine_send(&m, sizeof(m.hello) + used);
}

/* dlopen, the entry, the operations present; a LOAD_ERROR otherwise. The
 * descriptor's own rules (ABI major, struct_size, required fields) are the
 * judge's to apply: it trusts no host to have applied them. */
static int load(engine_plugin *p, const char *path)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        return load_error("%s: cannot load: %s", path, dlerror());
    }
    pecert_plugin_entry_fn entry;
    /* POSIX sanctions converting dlsym's object pointer to a function one. */
    *(void **)&entry = dlsym(handle, PECERT_PLUGIN_ENTRY_SYMBOL);
    if (entry == NULL) {
        return load_error("%s: no symbol %s: not a pecert plugin", path, PECERT_PLUGIN_ENTRY_SYMBOL);
    }
    p->desc = entry(PECERT_ABI_VERSION);
    if (p->desc == NULL) {
        return load_error("%s: plugin refused host ABI %u.%u", path, (unsigned)PECERT_ABI_MAJOR,
                          (unsigned)PECERT_ABI_MINOR);
    }
    p->op_mask = 0;
    for (int op = 0; op < PECERT_WIRE_OP_COUNT; op++) {
        p->op_mask |= (uint64_t)(engine_op_fn(p->desc, (pecert_wire_op)op) != NULL) << op;
    }
    return -1; /* loaded: no error sent */
}

/* Death with the judge that started it: its pid is --parent's (the judge
 * starts the host with posix_spawn, so nothing of its own runs between the
 * vfork and the exec). A judge already gone (this process adopted by
 * another) ends it at once. */
static int die_with(const char *arg)
{
    char *end;
    long parent = strtol(arg, &end, 10);
    if (*end != '\0' || parent <= 0) {
        return -1;
    }
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != (pid_t)parent) {
        _exit(127);
    }
    return 0;
}

int main(int argc, char **argv)
{
    int sandboxed = 1;
    int first = 1;
    if (first < argc && strcmp(argv[first], "--no-sandbox") == 0) {
        sandboxed = 0;
        first++;
    }
    if (first < argc && strncmp(argv[first], "--parent=", 9) == 0) {
        if (die_with(argv[first] + 9) != 0) {
            fprintf(stderr, "pecert-engine: bad %s\n", argv[first]);
            return 2;
        }
        first++;
    }
    if (argc != first + 1) {
        fprintf(stderr,
                "usage: pecert-engine [--no-sandbox] [--parent=PID] PLUGIN (started by pecert, channel on fd %d)\n",
                PECERT_WIRE_CHANNEL_FD);
        return 2;
    }
    const char *path = argv[first];
    char err[256];
    /* A crash of the plugin must end this process by its signal, which the
     * judge reports (and a sanitizer's handler, in a sanitized build, would
     * turn into an exit status). */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    signal(SIGFPE, SIG_DFL);
    signal(SIGILL, SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    if (sandboxed && (engine_drop_privileges(err, sizeof(err)) != 0 ||
                      engine_sandbox(ENGINE_STAGE_LOADING, err, sizeof(err)) != 0)) {
        return load_error("%s: cannot sandbox the engine host: %s", path, err);
    }
    /* Between two calls the judge copies and compares while this process
     * waits: an OpenMP worker that spins for its next region (libgomp's
     * default: 300,000 turns, milliseconds, before it sleeps) takes the CPU
     * the judge needs (measured: certify --all-profiles --impl fast -j 2,
     * 7.05 s spinning, 6.35 s passive). Set before the plugin loads (libgomp reads it then);
     * a user's own setting wins. It changes when threads sleep, never what
     * they compute. */
    (void)setenv("OMP_WAIT_POLICY", "passive", 0);
    engine_plugin p;
    int rc = load(&p, path);
    if (rc >= 0) {
        return rc;
    }
    if (sandboxed && engine_sandbox(ENGINE_STAGE_SERVING, err, sizeof(err)) != 0) {
        return load_error("%s: cannot sandbox the engine host: %s", path, err);
    }
    if (send_hello(&p, sandboxed) != 0) {
        return 1;
    }
    return engine_serve(&p);
}
