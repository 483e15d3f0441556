/* check_bench_probe.c - `pecert bench`'s mix probe, the limit of every
 * family op that reads and writes unequal bytes, moves exactly those
 * bytes: it reads all of src[0, R) and nothing past it (a guard page right
 * after R), and writes all of dst[0, W) and nothing past it (the bytes
 * after W keep their sentinel), on one thread and on a team of two, with
 * R below, above and far below W, tails of odd bytes, and a share past
 * 8 MiB (streaming stores). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "suites.h"

#define SENTINEL 0xa5

/* A mapping of `bytes` readable bytes ending right at a guard page. */
typedef struct guarded {
    char *base;
    size_t mapped;
    char *data;
} guarded;

static guarded guarded_alloc(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = (bytes + page - 1) / page;
    guarded g = {NULL, (pages + 1) * page, NULL};

    g.base = mmap(NULL, g.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(g.base, MAP_FAILED);
    ck_assert_int_eq(mprotect(g.base + pages * page, page, PROT_NONE), 0);
    g.data = g.base + pages * page - bytes;
    return g;
}

static void guarded_free(guarded *g)
{
    munmap(g->base, g->mapped);
}

static int all_sentinel(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)p[i] != SENTINEL) {
            return 0;
        }
    }
    return 1;
}

/* The mix of r bytes read into w written, on `team` (NULL: this thread). */
static void run_mix(bench_team *team, char *src, size_t r, char *dst, size_t w)
{
    bench_probe_call call;
    bench_member member;

    bench_probe_member_mix(&member, &call, BENCH_PROBE_MIX, r, w, team, src, dst);
    if (member.before != NULL) {
        member.before(member.context);
    }
    ck_assert_int_eq(member.fn(member.context), 0);
    if (member.after != NULL) {
        member.after(member.context);
    }
}

static const struct mix_case {
    size_t read, written;
} mix_cases[] = {
    {(1u << 20) + 100, (3u << 20) + 50}, /* reads a third of its writes */
    {(5u << 20) + 8, (1u << 20) + 24},   /* five times                  */
    {64, 40u << 20},                     /* one line into 40 MiB: streamed */
    {3000, 100},                         /* no whole 256-byte block     */
};

static void check_mix(bench_team *team, const struct mix_case *c)
{
    guarded src = guarded_alloc(c->read);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t dst_bytes = (c->written + page - 1) / page * page + page;
    char *dst = aligned_alloc(64, dst_bytes), *first = malloc(c->written);

    ck_assert_ptr_nonnull(dst);
    ck_assert_ptr_nonnull(first);
    for (size_t i = 0; i < c->read; i++) {
        src.data[i] = (char)(i * 2654435761u >> 13);
    }
    memset(dst, SENTINEL, dst_bytes);
    run_mix(team, src.data, c->read, dst, c->written);
    /* (one assertion each: Check records every assertion it passes) */
    size_t past = c->written, unwritten = 0;
    while (past < dst_bytes && (unsigned char)dst[past] == SENTINEL) {
        past++;
    }
    ck_assert_msg(past == dst_bytes, "mix of %zu into %zu wrote byte %zu", c->read, c->written, past);
    while (unwritten + 8 <= c->written && !all_sentinel(dst + unwritten, 8)) {
        unwritten += 8;
    }
    ck_assert_msg(unwritten + 8 > c->written, "mix of %zu into %zu left bytes %zu.. unwritten", c->read, c->written,
                  unwritten);
    /* The last byte it must read reaches what it writes. */
    memcpy(first, dst, c->written);
    src.data[c->read - 1] ^= 0x40;
    run_mix(team, src.data, c->read, dst, c->written);
    ck_assert_msg(memcmp(first, dst, c->written) != 0, "mix of %zu into %zu did not read its last byte", c->read,
                  c->written);
    free(first);
    free(dst);
    guarded_free(&src);
}

START_TEST(mix_moves_exactly_its_bytes_on_one_thread)
{
    check_mix(NULL, &mix_cases[_i]);
}
END_TEST

START_TEST(mix_moves_exactly_its_bytes_on_a_team_of_two)
{
    bench_team *team = bench_team_start_pinned(2);

    ck_assert_ptr_nonnull(team);
    bench_team_park(team);
    check_mix(team, &mix_cases[_i]);
    bench_team_stop(team);
}
END_TEST

Suite *make_bench_probe_suite(void)
{
    TCase *tc = tcase_create("mix");

    tcase_add_loop_test(tc, mix_moves_exactly_its_bytes_on_one_thread, 0, (int)ARRAY_LEN(mix_cases));
    tcase_add_loop_test(tc, mix_moves_exactly_its_bytes_on_a_team_of_two, 0, (int)ARRAY_LEN(mix_cases));
    return test_suite_of("bench_probe", tc, NULL);
}
