/*
 * engine_arena.c - the shared memory a call's tensors cross in: a memfd,
 * sealed at its size (the host can neither shrink it under the judge, a
 * SIGBUS, nor grow it), mapped by the judge and sent to the host.
 *
 * A fresh memfd's pages do not exist until written: a check whose calls
 * move megabytes paid for allocating and zeroing each page, and the next
 * check paid again. A process that runs checks one at a time
 * (pecert_exec_check) therefore lends its children one arena, and each
 * check's judge writes pages the one before already made. What the arena
 * may still hold from the check before is that check's tensors, never
 * anything else of the judge's; every byte a call uses is written (data
 * or canary) before its host sees it.
 */
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine_internal.h"

/* The lent arena: address space until a check writes it; a call that
 * needs more grows an arena of its own. */
#define LENT_ARENA_BYTES ((size_t)64 << 20)

/* A sealed memfd of size bytes, mapped here at *map: its fd, or -1. */
static int make_arena(size_t size, unsigned char **map)
{
    int fd = memfd_create("pecert-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        return -1;
    }
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) {
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    if (m == MAP_FAILED) {
        close(fd);
        return -1;
    }
    *map = m;
    return fd;
}

/* The arena of fd (size bytes, mapped here at map) becomes the one this
 * process and its host use; the one before is unmapped here. */
static void use_arena(pecert_engine *e, unsigned char *map, size_t size, int fd)
{
    if (e->arena != NULL) {
        munmap(e->arena, e->arena_size);
    }
    e->arena = map;
    e->arena_size = size;
    e->generation++;
    pecert_wire_arena msg = {
        {PECERT_WIRE_MAGIC, PECERT_WIRE_VERSION, PECERT_WIRE_ARENA, sizeof(msg), 0}, size, e->generation};
    if (engine_send_message(e, &msg, sizeof(msg), fd) != 0) {
        engine_fail(e, ENGINE_LOST, "the channel closed");
    }
}

void engine_arena_grow(pecert_engine *e, size_t need)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = e->arena_size * 2 > need ? e->arena_size * 2 : need;
    size = size < ((size_t)1 << 20) ? (size_t)1 << 20 : size;
    size = (size + page - 1) / page * page;
    unsigned char *map;
    int fd = make_arena(size, &map);
    if (fd < 0) {
        engine_fail(e, ENGINE_JUDGE, "cannot make the shared arena (memfd)");
    }
    use_arena(e, map, size, fd);
    close(fd);
}

void engine_arena_adopt(pecert_engine *e)
{
    if (e->lent == NULL || !e->lent_open || e->lent_by != getppid()) {
        return;
    }
    e->lent_open = 0; /* once: a second host of this process makes its own */
    use_arena(e, e->lent, e->lent_size, e->lent_fd);
}

static void drop_lent(pecert_engine *e)
{
    if (e->lent != NULL) {
        munmap(e->lent, e->lent_size);
        close(e->lent_fd);
        e->lent = NULL;
    }
    e->lent_open = 0;
}

void pecert_engine_lend_arena(pecert_engine *e)
{
    if (e == NULL || e->mode != PECERT_SANDBOX_ON) {
        return;
    }
    if (e->lent != NULL && e->lent_by != getpid()) {
        drop_lent(e); /* this process's copy of its parent's: the parent keeps it */
    }
    if (e->lent == NULL) {
        int fd = make_arena(LENT_ARENA_BYTES, &e->lent);
        if (fd < 0) {
            e->lent = NULL;
            return; /* each check makes its own, as without one */
        }
        e->lent_fd = fd;
        e->lent_size = LENT_ARENA_BYTES;
        e->lent_by = getpid();
    }
    e->lent_open = 1;
}

void pecert_engine_arena_back(pecert_engine *e, int child_exited)
{
    if (e == NULL || e->lent == NULL || e->lent_by != getpid()) {
        return;
    }
    e->lent_open = 0;
    if (!child_exited) {
        drop_lent(e); /* its host may be dying still, the arena mapped */
    }
}

void engine_arena_free(pecert_engine *e)
{
    if (e->lent != NULL && e->lent_by == getpid()) {
        drop_lent(e);
    }
}
