/*
 * serve.c - the engine host's loop: map the arena the judge sends, copy
 * each call's frame, point its relocated slots at the frame or the arena,
 * call the plugin, reply with its status and text.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host.h"

typedef struct engine_state {
    const engine_plugin *p;
    unsigned char *arena;
    uint64_t arena_size;
    uint64_t generation;
    void *instances[PECERT_WIRE_MAX_SESSIONS + 1]; /* handle k at [k]; [0] = none */
    int instance_used[PECERT_WIRE_MAX_SESSIONS + 1];
    void *sessions[PECERT_WIRE_MAX_SESSIONS + 1];
    int session_used[PECERT_WIRE_MAX_SESSIONS + 1];
} engine_state;

static alignas(64) unsigned char message[PECERT_WIRE_MAX_MESSAGE];
static alignas(64) unsigned char frame[PECERT_WIRE_MAX_FRAME];

/* One message, and the descriptor that came with it (-1 if none). */
static ssize_t receive(int *fd)
{
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {message, sizeof(message)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)};
    ssize_t n;
    do {
        n = recvmsg(PECERT_WIRE_CHANNEL_FD, &mh, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    *fd = -1;
    struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
    if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(sizeof(int))) {
        memcpy(fd, CMSG_DATA(c), sizeof(int));
    }
    return n;
}

static int map_arena(engine_state *s, const pecert_wire_arena *a, int fd)
{
    if (fd < 0 || a->size == 0 || a->size > (uint64_t)SIZE_MAX) {
        return -1;
    }
    void *m = mmap(NULL, (size_t)a->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        return -1;
    }
    if (s->arena != NULL) {
        munmap(s->arena, (size_t)s->arena_size);
    }
    s->arena = m;
    s->arena_size = a->size;
    s->generation = a->generation;
    return 0;
}

/* The frame copied out of the message, each relocation checked (slot
 * 8-aligned inside the frame, target inside its space) and applied. */
static int relocate(const engine_state *s, const pecert_wire_call *c, size_t len)
{
    size_t frame_at = sizeof(*c);
    size_t relocs_at = frame_at + (((size_t)c->frame_len + 7) & ~(size_t)7);
    if (c->frame_len > PECERT_WIRE_MAX_FRAME || c->n_relocs > PECERT_WIRE_MAX_RELOCS ||
        relocs_at + (size_t)c->n_relocs * sizeof(pecert_wire_reloc) != len ||
        (c->n_relocs > 0 && c->generation != s->generation)) {
        return -1;
    }
    memcpy(frame, message + frame_at, c->frame_len); /* the plugin reads no byte past it */
    for (uint32_t i = 0; i < c->n_relocs; i++) {
        pecert_wire_reloc r;
        memcpy(&r, message + relocs_at + i * sizeof(r), sizeof(r));
        uint64_t limit = r.space == PECERT_WIRE_SPACE_FRAME ? c->frame_len : s->arena_size;
        unsigned char *base = r.space == PECERT_WIRE_SPACE_FRAME ? frame : s->arena;
        if (r.slot % 8 != 0 || (uint64_t)r.slot + sizeof(void *) > c->frame_len || r.target > limit ||
            r.space > PECERT_WIRE_SPACE_ARENA || base == NULL) {
            return -1;
        }
        void *to = base + r.target;
        memcpy(frame + r.slot, &to, sizeof(to));
    }
    return 0;
}

/* A free handle in a table of live pointers, or 0. */
static uint32_t take_handle(void **table, int *used, void *value)
{
    for (uint32_t k = 1; k <= PECERT_WIRE_MAX_SESSIONS; k++) {
        if (!used[k]) {
            used[k] = 1;
            table[k] = value;
            return k;
        }
    }
    return 0;
}

typedef struct call_out {
    pecert_status status;
    uint32_t handle;
    const char *text; /* describe(), last_error(), or NULL */
    int has_text;
} call_out;

/* The family operations: one argument struct, the frame itself. */
typedef pecert_status (*args_op)(void *instance, const void *args);

static args_op family_op(const pecert_plugin *d, pecert_wire_op op)
{
    args_op fn;
    void *p = engine_op_fn(d, op);
    memcpy(&fn, &p, sizeof(fn)); /* POSIX: function and object pointers convert */
    return fn;
}

/* The operations with their own signatures. */
static void call_plain(engine_state *s, const pecert_wire_call *c, void *inst, call_out *o)
{
    const pecert_plugin *d = s->p->desc;
    void *session = c->session <= PECERT_WIRE_MAX_SESSIONS ? s->sessions[c->session] : NULL;
    switch ((pecert_wire_op)c->op) {
    case PECERT_WIRE_OP_CREATE: {
        void *made = NULL;
        o->status = d->create(&made);
        o->handle = o->status == PECERT_OK ? take_handle(s->instances, s->instance_used, made) : 0;
        break;
    }
    case PECERT_WIRE_OP_DESTROY:
        d->destroy(inst);
        s->instance_used[c->instance] = 0;
        break;
    case PECERT_WIRE_OP_LAST_ERROR:
        o->text = d->last_error(inst);
        o->has_text = 1;
        break;
    case PECERT_WIRE_OP_DESCRIBE:
        o->text = d->describe(inst);
        o->has_text = 1;
        break;
    case PECERT_WIRE_OP_ROPE_FREQS: {
        const pecert_wire_frame_rope_freqs *f = (const void *)frame;
        o->status = d->rope_freqs(inst, f->out_inv_freq, f->out_attention_scaling, f->config, f->seq_len);
        break;
    }
    case PECERT_WIRE_OP_ROPE_COS_SIN: {
        const pecert_wire_frame_rope_cos_sin *f = (const void *)frame;
        o->status = d->rope_cos_sin(inst, f->out_cos, f->out_sin, f->config, f->seq_len, f->positions, f->n_positions);
        break;
    }
    case PECERT_WIRE_OP_SET_NUM_THREADS:
        o->status = d->set_num_threads(inst, ((const pecert_wire_frame_threads *)(const void *)frame)->n);
        break;
    case PECERT_WIRE_OP_SESSION_CREATE: {
        void *made = NULL;
        o->status =
            d->session_create(inst, &made, ((const pecert_wire_frame_session_create *)(const void *)frame)->config);
        o->handle = o->status == PECERT_OK ? take_handle(s->sessions, s->session_used, made) : 0;
        break;
    }
    case PECERT_WIRE_OP_SESSION_DESTROY:
        d->session_destroy(inst, session);
        s->session_used[c->session] = 0;
        break;
    case PECERT_WIRE_OP_SESSION_APPEND:
        o->status = d->session_append(inst, session, (const pecert_session_append_args *)(const void *)frame);
        break;
    case PECERT_WIRE_OP_SESSION_READ_KEYS: {
        const pecert_wire_frame_read_keys *f = (const void *)frame;
        o->status = d->session_read_keys(inst, session, f->out_keys, f->seq);
        break;
    }
    default:
        o->status = family_op(d, (pecert_wire_op)c->op)(inst, frame);
        break;
    }
}

static int reply(uint32_t seq, const call_out *o)
{
    static alignas(8) unsigned char out[sizeof(pecert_wire_reply) + PECERT_WIRE_MAX_TEXT];
    pecert_wire_reply r = {
        {PECERT_WIRE_MAGIC, PECERT_WIRE_VERSION, PECERT_WIRE_REPLY, 0, seq}, o->status, o->handle, 0, 0};
    if (o->has_text && o->text == NULL) {
        r.flags |= PECERT_WIRE_REPLY_TEXT_NULL;
    } else if (o->has_text) {
        r.text_len = (uint32_t)strnlen(o->text, PECERT_WIRE_MAX_TEXT);
        memcpy(out + sizeof(r), o->text, r.text_len);
    }
    r.h.length = (uint32_t)(sizeof(r) + r.text_len);
    memcpy(out, &r, sizeof(r));
    return engine_send(out, r.h.length);
}

/* One CALL: checked, relocated, run, answered. -1 ends the host. */
static int serve_call(engine_state *s, size_t len)
{
    pecert_wire_call c;
    if (len < sizeof(c)) {
        return -1;
    }
    memcpy(&c, message, sizeof(c));
    int op_ok = c.op < PECERT_WIRE_OP_COUNT && (s->p->op_mask >> c.op & 1u);
    int handles_ok = c.instance <= PECERT_WIRE_MAX_SESSIONS && (c.instance == 0 || s->instance_used[c.instance]) &&
                     c.session <= PECERT_WIRE_MAX_SESSIONS && (c.session == 0 || s->session_used[c.session]);
    if (!op_ok || !handles_ok || relocate(s, &c, len) != 0) {
        return -1;
    }
    void *inst = s->instances[c.instance];
    call_out o = {PECERT_OK, 0, NULL, 0};
    call_plain(s, &c, inst, &o);
    if (o.status != PECERT_OK && !o.has_text && c.op != PECERT_WIRE_OP_CREATE) {
        o.text = s->p->desc->last_error(inst);
        o.has_text = 1;
    }
    return reply(c.h.seq, &o);
}

int engine_serve(const engine_plugin *p)
{
    static engine_state s;
    s.p = p;
    for (;;) {
        int fd = -1;
        ssize_t n = receive(&fd);
        if (n <= 0) {
            return 0; /* the judge closed the channel: done */
        }
        pecert_wire_header h;
        if ((size_t)n < sizeof(h)) {
            return 1;
        }
        memcpy(&h, message, sizeof(h));
        int rc = -1;
        if (h.magic == PECERT_WIRE_MAGIC && h.version == PECERT_WIRE_VERSION && h.length == (uint32_t)n) {
            if (h.type == PECERT_WIRE_ARENA && (size_t)n == sizeof(pecert_wire_arena)) {
                pecert_wire_arena a;
                memcpy(&a, message, sizeof(a));
                rc = map_arena(&s, &a, fd);
                fd = -1;
            } else if (h.type == PECERT_WIRE_CALL) {
                rc = serve_call(&s, (size_t)n);
            }
        }
        if (fd >= 0) {
            close(fd);
        }
        if (rc != 0) {
            return 1; /* not the protocol: the judge reads the closed channel */
        }
    }
}
