/*
 * engine_call.c - one operation across the wire.
 *
 * The arguments' pointers reach ranges of the judge's memory (regions).
 * Ranges that overlap become one block (so that x and out of an in-place
 * call, or the Q and K slices of one fused buffer, stay one buffer with
 * the same distances and the same alignment modulo 64); each block is
 * copied into the arena with canary bytes before and after it. After the
 * reply, only the bytes an output view covers are copied back; any other
 * byte the host changed (an input, a canary, a gap of a strided output)
 * is the engine's violation, kept as one line for the check's verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine_internal.h"

/* Canary bytes before every block and after the last: a write one element
 * (or one row of a small tensor) past an output lands in one. */
#define CANARY      256
#define CANARY_BYTE 0xA5
/* The largest view the wire maps, and arrays of counted elements. */
#define MAX_REGION_BYTES ((size_t)1 << 34)

void engine_call_begin(engine_call *c, pecert_engine *e, pecert_wire_op op, const char *op_name)
{
    c->e = e;
    c->op = op;
    c->op_name = op_name;
    c->frame_len = 0;
    c->n_relocs = 0;
    c->n_regions = 0;
    c->overflow = 0;
}

size_t engine_frame(engine_call *c, const void *src, size_t size)
{
    size_t at = (c->frame_len + 7) & ~(size_t)7;
    if (at + size > sizeof(c->frame)) {
        c->overflow = 1;
        return 0;
    }
    if (src != NULL) {
        memcpy(c->frame + at, src, size);
    } else {
        memset(c->frame + at, 0, size);
    }
    c->frame_len = at + size;
    return at;
}

/* The slot's pointer cleared: a relocation, or NULL, fills it. */
static void clear_slot(engine_call *c, size_t slot)
{
    if (slot + sizeof(void *) <= c->frame_len) {
        memset(c->frame + slot, 0, sizeof(void *));
    }
}

static void add_reloc(engine_call *c, size_t slot, uint32_t space, uint64_t target)
{
    if (c->n_relocs >= PECERT_WIRE_MAX_RELOCS || slot % 8 != 0) {
        c->overflow = 1;
        return;
    }
    c->relocs[c->n_relocs++] = (pecert_wire_reloc){(uint32_t)slot, space, target};
}

size_t engine_struct(engine_call *c, size_t slot, const void *src, size_t size)
{
    clear_slot(c, slot);
    if (src == NULL) {
        return (size_t)-1;
    }
    size_t at = engine_frame(c, src, size);
    add_reloc(c, slot, PECERT_WIRE_SPACE_FRAME, at);
    return at;
}

engine_region *engine_data(engine_call *c, size_t slot, const void *ptr, size_t len, int output, const char *name)
{
    clear_slot(c, slot);
    if (ptr == NULL) {
        return NULL;
    }
    if (c->n_regions >= ENGINE_MAX_REGIONS) {
        c->overflow = 1;
        return NULL;
    }
    engine_region *r = &c->regions[c->n_regions++];
    *r = (engine_region){ptr, len <= MAX_REGION_BYTES ? len : 0, output, NULL, name, (uint32_t)slot, 0};
    return r;
}

static size_t dtype_size(pecert_dtype d)
{
    switch (d) {
    case PECERT_DTYPE_F64:
    case PECERT_DTYPE_I64:
        return 8;
    case PECERT_DTYPE_F32:
    case PECERT_DTYPE_I32:
        return 4;
    case PECERT_DTYPE_F16:
    case PECERT_DTYPE_BF16:
        return 2;
    default:
        return 0;
    }
}

/* Bytes from data to the end of the view's last element; 0 for a view
 * that is empty or not one the ABI allows (the plugin must refuse it, and
 * then reads nothing). */
static size_t view_bytes(const pecert_tensor *t)
{
    size_t esize = dtype_size(t->dtype);
    if (esize == 0 || t->ndim > PECERT_MAX_DIMS) {
        return 0;
    }
    size_t last = 0;
    for (uint32_t k = 0; k < t->ndim; k++) {
        if (t->shape[k] <= 0 || t->strides[k] < 0) {
            return 0;
        }
        size_t step;
        if (__builtin_mul_overflow((size_t)(t->shape[k] - 1), (size_t)t->strides[k], &step) ||
            __builtin_add_overflow(last, step, &last)) {
            return 0;
        }
    }
    size_t bytes;
    if (__builtin_add_overflow(last, (size_t)1, &last) || __builtin_mul_overflow(last, esize, &bytes)) {
        return 0;
    }
    return bytes;
}

void engine_tensor(engine_call *c, size_t slot, const pecert_tensor *t, int output, const char *name)
{
    size_t at = engine_struct(c, slot, t, sizeof(*t));
    if (at == (size_t)-1) {
        return;
    }
    engine_region *r = engine_data(c, at + offsetof(pecert_tensor, data), t->data, view_bytes(t), output, name);
    if (r != NULL) {
        r->view = t;
    }
}

/* ---- layout --------------------------------------------------------------- */

typedef struct block {
    const unsigned char *start;
    size_t len;
    size_t at; /* arena offset */
    int has_output;
} block;

static int by_start(const void *a, const void *b)
{
    const engine_region *x = *(const engine_region *const *)a;
    const engine_region *y = *(const engine_region *const *)b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Regions sorted and merged where they overlap; blocks placed after a
 * canary each, at their judge address's offset modulo 64. The arena bytes
 * needed, canaries included. */
static size_t lay_out(engine_call *c, block *blocks, size_t *n_blocks)
{
    engine_region *order[ENGINE_MAX_REGIONS];
    for (size_t i = 0; i < c->n_regions; i++) {
        order[i] = &c->regions[i];
    }
    qsort(order, c->n_regions, sizeof(order[0]), by_start);
    size_t n = 0;
    for (size_t i = 0; i < c->n_regions; i++) {
        engine_region *r = order[i];
        block *last = n > 0 ? &blocks[n - 1] : NULL;
        if (last != NULL && r->start < last->start + last->len) {
            size_t end = (size_t)(r->start - last->start) + r->len;
            last->len = end > last->len ? end : last->len;
        } else {
            blocks[n++] = (block){r->start, r->len, 0, 0};
        }
        r->block = n - 1;
        blocks[n - 1].has_output |= r->output;
    }
    size_t cursor = 0;
    for (size_t b = 0; b < n; b++) {
        size_t at = cursor + CANARY;
        size_t want = (uintptr_t)blocks[b].start % 64;
        at += (want + 64 - at % 64) % 64;
        blocks[b].at = at;
        cursor = at + blocks[b].len;
    }
    *n_blocks = n;
    return cursor + CANARY;
}

/* Canaries everywhere but the blocks, then the blocks' bytes. */
static void fill(pecert_engine *e, const block *blocks, size_t n, size_t used)
{
    size_t cursor = 0;
    for (size_t b = 0; b < n; b++) {
        memset(e->arena + cursor, CANARY_BYTE, blocks[b].at - cursor);
        if (blocks[b].len > 0) {
            memcpy(e->arena + blocks[b].at, blocks[b].start, blocks[b].len);
        }
        cursor = blocks[b].at + blocks[b].len;
    }
    memset(e->arena + cursor, CANARY_BYTE, used - cursor);
}

static void point_slots(engine_call *c, const block *blocks)
{
    for (size_t i = 0; i < c->n_regions; i++) {
        const engine_region *r = &c->regions[i];
        const block *b = &blocks[r->block];
        add_reloc(c, r->slot, PECERT_WIRE_SPACE_ARENA, b->at + (size_t)(r->start - b->start));
    }
}

/* ---- after the reply --------------------------------------------------- */

static void violation(engine_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void violation(engine_call *c, const char *fmt, ...)
{
    if (c->e->violation[0] != '\0') {
        return; /* the first one is the one to fix */
    }
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(c->e->violation, sizeof(c->e->violation), "the engine's %s %s", c->op_name, what);
}

/* Marks the bytes of view t (whose first element is at offset base of the
 * mask) that an output may write. */
static void mark_view(unsigned char *mask, size_t base, const pecert_tensor *t, size_t len)
{
    size_t esize = dtype_size(t->dtype);
    int64_t idx[PECERT_MAX_DIMS] = {0};
    if (len == 0) {
        return;
    }
    for (;;) {
        size_t off = 0;
        for (uint32_t k = 0; k < t->ndim; k++) {
            off += (size_t)idx[k] * (size_t)t->strides[k];
        }
        memset(mask + base + off * esize, 1, esize);
        int k = (int)t->ndim - 1;
        while (k >= 0 && ++idx[k] == t->shape[k]) {
            idx[k--] = 0;
        }
        if (k < 0) {
            return;
        }
    }
}

/* A view whose elements tile its span: every byte of it is an element. */
static int dense(const pecert_tensor *t)
{
    int64_t want = 1;
    for (int k = (int)t->ndim - 1; k >= 0; k--) {
        if (t->shape[k] > 1 && t->strides[k] != want) {
            return 0;
        }
        want *= t->shape[k];
    }
    return 1;
}

static int mask_for(pecert_engine *e, size_t len)
{
    if (len > e->mask_cap) {
        unsigned char *m = realloc(e->mask, len);
        if (m == NULL) {
            return -1;
        }
        e->mask = m;
        e->mask_cap = len;
    }
    memset(e->mask, 0, len);
    return 0;
}

/* The region of block b holding byte off, for the violation's words. */
static const char *region_name(const engine_call *c, size_t b, const block *blk, size_t off)
{
    const char *fallback = "argument";
    for (size_t i = 0; i < c->n_regions; i++) {
        const engine_region *r = &c->regions[i];
        if (r->block != b) {
            continue;
        }
        size_t from = (size_t)(r->start - blk->start);
        fallback = r->name;
        if (off >= from && off < from + r->len) {
            return r->name;
        }
    }
    return fallback;
}

/* The first byte of mask[from..len) that is not m, or len. */
static size_t run_end(const unsigned char *mask, size_t from, size_t len, unsigned char m)
{
    const unsigned char *p = memchr(mask + from, !m, len - from);
    return p != NULL ? (size_t)(p - mask) : len;
}

/* An output block: the bytes output views cover come back; any other byte
 * must be what the judge sent. A block that one dense output spans
 * whole (the common case: out alone, or x and out of an in-place call)
 * comes back in one copy. */
static void take_outputs(engine_call *c, size_t b, const block *blk)
{
    pecert_engine *e = c->e;
    const unsigned char *arena = e->arena + blk->at;
    unsigned char *judge = (unsigned char *)(uintptr_t)blk->start; /* the caller's output memory */
    for (size_t i = 0; i < c->n_regions; i++) {
        const engine_region *r = &c->regions[i];
        if (r->block == b && r->output && r->start == blk->start && r->len == blk->len &&
            (r->view == NULL || dense(r->view))) {
            memcpy(judge, arena, blk->len);
            return;
        }
    }
    if (mask_for(e, blk->len) != 0) {
        violation(c, "could not be checked: out of memory for its output mask");
        return;
    }
    for (size_t i = 0; i < c->n_regions; i++) {
        const engine_region *r = &c->regions[i];
        if (r->block != b || !r->output) {
            continue;
        }
        size_t base = (size_t)(r->start - blk->start);
        if (r->view == NULL || dense(r->view)) {
            memset(e->mask + base, 1, r->len);
        } else {
            mark_view(e->mask, base, r->view, r->len);
        }
    }
    size_t i = 0;
    while (i < blk->len) {
        unsigned char m = e->mask[i];
        size_t j = run_end(e->mask, i, blk->len, m);
        if (m) {
            memcpy(judge + i, arena + i, j - i);
        } else if (memcmp(judge + i, arena + i, j - i) != 0) {
            size_t at = i;
            while (at + 1 < j && judge[at] == arena[at]) { /* the host may still be writing: bounded */
                at++;
            }
            violation(c, "wrote into '%s' outside its output elements (byte %zu of %zu)",
                      region_name(c, b, blk, at), at, blk->len);
        }
        i = j;
    }
}

/* The first byte of p[0..n) that is not the canary, or n. */
static size_t canary_broken_at(const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && p[i] == CANARY_BYTE) {
        i++;
    }
    return i;
}

/* The canary from cursor to block b (n: the trailing one), said as a
 * write past the block before it or before the block after it, whichever
 * the first changed byte is nearer. */
static void check_canary(engine_call *c, const block *blocks, size_t n, size_t b, size_t cursor, size_t end)
{
    size_t gap = end - cursor;
    size_t at = canary_broken_at(c->e->arena + cursor, gap);
    if (at == gap) {
        return;
    }
    if (b > 0 && (b == n || at < gap - at)) {
        const block *prev = &blocks[b - 1];
        violation(c, "wrote past the end of '%s' (%zu bytes after it)", region_name(c, b - 1, prev, prev->len), at);
    } else if (b < n) {
        violation(c, "wrote before the start of '%s' (%zu bytes before it)", region_name(c, b, &blocks[b], 0),
                  gap - at);
    } else {
        violation(c, "wrote into memory no argument reaches");
    }
}

/* Every block checked (inputs unchanged, outputs copied back), and every
 * canary. */
static void check_arena(engine_call *c, const block *blocks, size_t n, size_t used)
{
    pecert_engine *e = c->e;
    size_t cursor = 0;
    for (size_t b = 0; b < n; b++) {
        const block *blk = &blocks[b];
        check_canary(c, blocks, n, b, cursor, blk->at);
        if (blk->has_output) {
            take_outputs(c, b, blk);
        } else if (blk->len > 0 && memcmp(e->arena + blk->at, blk->start, blk->len) != 0) {
            size_t at = 0;
            while (at + 1 < blk->len && e->arena[blk->at + at] == blk->start[at]) {
                at++;
            }
            violation(c, "wrote into its input '%s' (byte %zu of %zu)", region_name(c, b, blk, at), at, blk->len);
        }
        cursor = blk->at + blk->len;
    }
    check_canary(c, blocks, n, n, cursor, used);
}

/* ---- the exchange ------------------------------------------------------- */

static void send_call(engine_call *c, uint32_t instance, uint32_t session)
{
    pecert_engine *e = c->e;
    static unsigned char msg[PECERT_WIRE_MAX_MESSAGE] __attribute__((aligned(16)));
    size_t frame_padded = (c->frame_len + 7) & ~(size_t)7;
    size_t len = sizeof(pecert_wire_call) + frame_padded + c->n_relocs * sizeof(pecert_wire_reloc);
    if (c->overflow || len > sizeof(msg)) {
        engine_fail(e, ENGINE_JUDGE, "a call's arguments exceed the wire's limits (a bug of pecert's)");
    }
    pecert_wire_call h = {{PECERT_WIRE_MAGIC, PECERT_WIRE_VERSION, PECERT_WIRE_CALL, (uint32_t)len, ++e->seq},
                          (uint32_t)c->op,
                          instance,
                          session,
                          (uint32_t)c->frame_len,
                          (uint32_t)c->n_relocs,
                          0,
                          e->generation};
    memcpy(msg, &h, sizeof(h));
    memset(msg + sizeof(h), 0, frame_padded);
    memcpy(msg + sizeof(h), c->frame, c->frame_len);
    memcpy(msg + sizeof(h) + frame_padded, c->relocs, c->n_relocs * sizeof(pecert_wire_reloc));
    if (engine_send_message(e, msg, len, -1) != 0) {
        engine_fail(e, ENGINE_LOST, "the channel closed");
    }
}

/* The reply to call seq, checked as hostile input; its text kept. */
static engine_reply receive_reply(pecert_engine *e)
{
    unsigned char buf[sizeof(pecert_wire_reply) + PECERT_WIRE_MAX_TEXT + 1] __attribute__((aligned(8)));
    /* A blocking read: polling first makes a reply to a small call come
     * sooner on an idle machine (about 5 us instead of 50 here), but costs
     * the run more than it gains once the checks keep the CPUs busy
     * (measured: `pecert run --impl fast -j 2` 1.24x of in-process
     * without polling, 1.34x with 50 polls, 1.37x adapting their number). */
    ssize_t n;
    do {
        n = recv(e->fd, buf, sizeof(buf), 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        engine_fail(e, ENGINE_LOST, n == 0 ? "the channel closed" : "the channel failed");
    }
    pecert_wire_reply r;
    if ((size_t)n < sizeof(r)) {
        engine_fail(e, ENGINE_BROKE, "a reply shorter than its header");
    }
    memcpy(&r, buf, sizeof(r));
    if (r.h.magic != PECERT_WIRE_MAGIC || r.h.version != PECERT_WIRE_VERSION || r.h.type != PECERT_WIRE_REPLY ||
        r.h.length != (uint32_t)n || r.h.seq != e->seq || r.text_len > PECERT_WIRE_MAX_TEXT ||
        sizeof(r) + r.text_len != (size_t)n || (r.flags & ~(uint32_t)PECERT_WIRE_REPLY_TEXT_NULL) != 0) {
        engine_fail(e, ENGINE_BROKE, "a reply that is not the protocol (header, length, sequence or text length)");
    }
    memcpy(e->reply_text, buf + sizeof(r), r.text_len);
    e->reply_text[r.text_len] = '\0'; /* read up to its first NUL, as a C string */
    e->reply_text_null = (r.flags & PECERT_WIRE_REPLY_TEXT_NULL) != 0;
    e->error_text_valid = r.status != PECERT_OK;
    return (engine_reply){r.status, r.handle};
}

engine_reply engine_call_run(engine_call *c, uint32_t instance, uint32_t session)
{
    pecert_engine *e = c->e;
    block blocks[ENGINE_MAX_REGIONS];
    size_t n = 0;
    engine_connect(e);
    size_t used = lay_out(c, blocks, &n);
    if (used > e->arena_size) {
        engine_arena_grow(e, used);
    }
    fill(e, blocks, n, used);
    point_slots(c, blocks);
    send_call(c, instance, session);
    engine_reply r = receive_reply(e);
    check_arena(c, blocks, n, used);
    return r;
}
