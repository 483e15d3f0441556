/*
 * probe.c - how fast this machine moves bytes: the yardstick `pecert
 * bench` divides every kernel by.
 *
 *   copy     dst = src, 4 x 64-byte loads and stores per step
 *   copy_nt  the same with streaming (non-temporal) stores
 *   memcpy   the C library's (glibc picks its own ISA and switches to
 *            streaming stores above a size threshold)
 *   rmw      in place: x = x + 0, loaded and stored back
 *   fill     stores only (the limit of ops that only write, ALiBi bias):
 *            the best of plain and streaming stores, of non-zero floats
 *            (measured here: 64 MiB of zeros stream at ~78 GB/s, any
 *            other data at ~28 GB/s; a kernel's output is not zeros)
 *   mix      reads R bytes and writes W, in step: before each 256 bytes
 *            written, the reads due by then (folded by XOR into the
 *            values stored: not zeros), its stores chosen as fill's. R =
 *            W is a copy, R = 0 a fill: the limit of an op that reads and
 *            writes unequal bytes (families.c)
 *
 * The loops use the widest vectors the CPU has (function-level target
 * attributes, chosen at run time), so the yardstick is never slower than
 * a good kernel could be. The out-of-place limit of a size is the best of
 * the three copies; the in-place limit is rmw.
 */
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "bench.h"

/* What fill stores past its vectors (and without them): not zeros. */
#define FILL_BYTE 0x5a

/* Added in rmw: a value the compiler cannot know is zero. */
static volatile float rmw_addend = 0.0f;

/* mix's pace: 256-byte blocks of dst, each after the 64-byte lines of src
 * due by then (lines / blocks a block, the remainder spread evenly, with
 * no division in the loop). */
typedef struct mix_pace {
    size_t blocks, per_block, spread, carry;
} mix_pace;

static mix_pace mix_pace_for(size_t w, size_t r)
{
    mix_pace p = {w / 256, 0, 0, 0};

    if (p.blocks > 0) {
        p.per_block = r / 64 / p.blocks;
        p.spread = r / 64 % p.blocks;
    }
    return p;
}

static inline size_t mix_lines_due(mix_pace *p)
{
    p->carry += p->spread;
    if (p->carry >= p->blocks) {
        p->carry -= p->blocks;
        return p->per_block + 1;
    }
    return p->per_block;
}

/* The bytes past the blocks: the reads left, then the writes. */
static void mix_tail(char *dst, const char *src, size_t w, size_t r, size_t written, size_t read, uint64_t fold)
{
    for (; read < r; read++) {
        fold ^= (unsigned char)src[read];
    }
    memset(dst + written, (int)(fold | 1), w - written);
}

#if defined(__x86_64__)

__attribute__((target("avx512f"))) static void copy_avx512(char *dst, const char *src, size_t n,
                                                           int stream)
{
    size_t i;

    for (i = 0; i + 256 <= n; i += 256) {
        __m512 a = _mm512_loadu_ps((const float *)(src + i));
        __m512 b = _mm512_loadu_ps((const float *)(src + i + 64));
        __m512 c = _mm512_loadu_ps((const float *)(src + i + 128));
        __m512 d = _mm512_loadu_ps((const float *)(src + i + 192));

        if (stream) {
            _mm512_stream_ps((float *)(dst + i), a);
            _mm512_stream_ps((float *)(dst + i + 64), b);
            _mm512_stream_ps((float *)(dst + i + 128), c);
            _mm512_stream_ps((float *)(dst + i + 192), d);
        } else {
            _mm512_storeu_ps((float *)(dst + i), a);
            _mm512_storeu_ps((float *)(dst + i + 64), b);
            _mm512_storeu_ps((float *)(dst + i + 128), c);
            _mm512_storeu_ps((float *)(dst + i + 192), d);
        }
    }
    memcpy(dst + i, src + i, n - i);
    _mm_sfence();
}

__attribute__((target("avx512f"))) static void rmw_avx512(char *x, size_t n)
{
    __m512 zero = _mm512_set1_ps(rmw_addend);
    size_t i;

    for (i = 0; i + 128 <= n; i += 128) {
        __m512 a = _mm512_loadu_ps((const float *)(x + i));
        __m512 b = _mm512_loadu_ps((const float *)(x + i + 64));

        _mm512_storeu_ps((float *)(x + i), _mm512_add_ps(a, zero));
        _mm512_storeu_ps((float *)(x + i + 64), _mm512_add_ps(b, zero));
    }
}

__attribute__((target("avx512f"))) static void fill_avx512(char *dst, size_t n, int stream)
{
    __m512 v = _mm512_add_ps(_mm512_set_ps(-16.f, -15.f, -14.f, -13.f, -12.f, -11.f, -10.f, -9.f,
                                           -8.f, -7.f, -6.f, -5.f, -4.f, -3.f, -2.f, -1.f),
                             _mm512_set1_ps(rmw_addend));
    size_t i;

    for (i = 0; i + 256 <= n; i += 256) {
        for (size_t k = 0; k < 256; k += 64) {
            if (stream) {
                _mm512_stream_ps((float *)(dst + i + k), v);
            } else {
                _mm512_storeu_ps((float *)(dst + i + k), v);
            }
        }
    }
    memset(dst + i, FILL_BYTE, n - i);
    _mm_sfence();
}

__attribute__((target("avx512f"))) static void mix_avx512(char *dst, const char *src, size_t w, size_t r, int stream)
{
    __m512i fold = _mm512_set_epi32(-16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1);
    mix_pace pace = mix_pace_for(w, r);
    size_t done = 0;

    for (size_t b = 0; b < pace.blocks; b++) {
        for (size_t k = mix_lines_due(&pace); k > 0; k--, done += 64) {
            fold = _mm512_xor_si512(fold, _mm512_loadu_si512((const void *)(src + done)));
        }
        for (size_t k = 0; k < 256; k += 64) {
            __m512i v = _mm512_add_epi32(fold, _mm512_set1_epi32((int)k));

            if (stream) {
                _mm512_stream_si512((void *)(dst + 256 * b + k), v);
            } else {
                _mm512_storeu_si512((void *)(dst + 256 * b + k), v);
            }
        }
    }
    _mm_sfence();
    mix_tail(dst, src, w, r, 256 * pace.blocks, done, (uint64_t)_mm512_reduce_or_epi64(fold));
}

__attribute__((target("avx2"))) static void mix_avx2(char *dst, const char *src, size_t w, size_t r, int stream)
{
    __m256i fold = _mm256_set_epi32(-8, -7, -6, -5, -4, -3, -2, -1);
    mix_pace pace = mix_pace_for(w, r);
    size_t done = 0;

    for (size_t b = 0; b < pace.blocks; b++) {
        for (size_t k = mix_lines_due(&pace); k > 0; k--, done += 64) {
            fold = _mm256_xor_si256(fold, _mm256_loadu_si256((const __m256i *)(const void *)(src + done)));
            fold = _mm256_xor_si256(fold, _mm256_loadu_si256((const __m256i *)(const void *)(src + done + 32)));
        }
        for (size_t k = 0; k < 256; k += 32) {
            __m256i v = _mm256_add_epi32(fold, _mm256_set1_epi32((int)k));

            if (stream) {
                _mm256_stream_si256((__m256i *)(void *)(dst + 256 * b + k), v);
            } else {
                _mm256_storeu_si256((__m256i *)(void *)(dst + 256 * b + k), v);
            }
        }
    }
    _mm_sfence();
    mix_tail(dst, src, w, r, 256 * pace.blocks, done, (uint64_t)_mm256_extract_epi64(fold, 0));
}

__attribute__((target("avx2"))) static void copy_avx2(char *dst, const char *src, size_t n,
                                                     int stream)
{
    size_t i;

    for (i = 0; i + 128 <= n; i += 128) {
        __m256 a = _mm256_loadu_ps((const float *)(src + i));
        __m256 b = _mm256_loadu_ps((const float *)(src + i + 32));
        __m256 c = _mm256_loadu_ps((const float *)(src + i + 64));
        __m256 d = _mm256_loadu_ps((const float *)(src + i + 96));

        if (stream) {
            _mm256_stream_ps((float *)(dst + i), a);
            _mm256_stream_ps((float *)(dst + i + 32), b);
            _mm256_stream_ps((float *)(dst + i + 64), c);
            _mm256_stream_ps((float *)(dst + i + 96), d);
        } else {
            _mm256_storeu_ps((float *)(dst + i), a);
            _mm256_storeu_ps((float *)(dst + i + 32), b);
            _mm256_storeu_ps((float *)(dst + i + 64), c);
            _mm256_storeu_ps((float *)(dst + i + 96), d);
        }
    }
    memcpy(dst + i, src + i, n - i);
    _mm_sfence();
}

__attribute__((target("avx2"))) static void rmw_avx2(char *x, size_t n)
{
    __m256 zero = _mm256_set1_ps(rmw_addend);
    size_t i;

    for (i = 0; i + 64 <= n; i += 64) {
        __m256 a = _mm256_loadu_ps((const float *)(x + i));
        __m256 b = _mm256_loadu_ps((const float *)(x + i + 32));

        _mm256_storeu_ps((float *)(x + i), _mm256_add_ps(a, zero));
        _mm256_storeu_ps((float *)(x + i + 32), _mm256_add_ps(b, zero));
    }
}

static int have_avx512(void)
{
    return __builtin_cpu_supports("avx512f");
}

static int have_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}

#else

static int have_avx512(void)
{
    return 0;
}

static int have_avx2(void)
{
    return 0;
}

#endif

static void mix_scalar(char *dst, const char *src, size_t w, size_t r)
{
    uint64_t fold = 0x5a5a5a5a5a5a5a5au;
    mix_pace pace = mix_pace_for(w, r);
    size_t done = 0;

    for (size_t b = 0; b < pace.blocks; b++) {
        for (size_t k = mix_lines_due(&pace) * 8; k > 0; k--, done += 8) {
            uint64_t v;

            memcpy(&v, src + done, sizeof(v));
            fold ^= v;
        }
        for (size_t k = 0; k < 256; k += 8) {
            uint64_t v = fold + k;

            memcpy(dst + 256 * b + k, &v, sizeof(v));
        }
    }
    mix_tail(dst, src, w, r, 256 * pace.blocks, done, fold);
}

static void rmw_scalar(char *x, size_t n)
{
    float addend = rmw_addend;
    size_t i;

    for (i = 0; i + sizeof(float) <= n; i += sizeof(float)) {
        float v;

        memcpy(&v, x + i, sizeof(v));
        v += addend;
        memcpy(x + i, &v, sizeof(v));
    }
}

const char *bench_probe_isa(void)
{
    return have_avx512() ? "avx512" : have_avx2() ? "avx2" : "scalar";
}

const char *bench_probe_name(bench_probe_kind kind)
{
    static const char *const names[BENCH_PROBE_COUNT] = {"copy", "copy_nt", "memcpy", "rmw",
                                                         "fill", "mix"};

    return names[kind];
}

static void copy_best(char *dst, const char *src, size_t n, int stream)
{
#if defined(__x86_64__)
    if (have_avx512()) {
        copy_avx512(dst, src, n, stream);
        return;
    }
    if (have_avx2()) {
        copy_avx2(dst, src, n, stream);
        return;
    }
#endif
    (void)stream;
    memcpy(dst, src, n);
}

/* Fill: plain stores below 8 MiB a thread (they stay in cache), else
 * streaming stores - the way a write-only kernel would choose. */
static void fill_best(char *dst, size_t n)
{
#if defined(__x86_64__)
    if (have_avx512()) {
        fill_avx512(dst, n, n >= ((size_t)8 << 20));
        return;
    }
#endif
    memset(dst, FILL_BYTE, n);
}

/* Mix: stores as fill's (streaming from 8 MiB a thread). */
static void mix_best(char *dst, const char *src, size_t w, size_t r)
{
    int stream = w >= ((size_t)8 << 20);

#if defined(__x86_64__)
    if (have_avx512()) {
        mix_avx512(dst, src, w, r, stream);
        return;
    }
    if (have_avx2()) {
        mix_avx2(dst, src, w, r, stream);
        return;
    }
#endif
    (void)stream;
    mix_scalar(dst, src, w, r);
}

static void rmw_best(char *x, size_t n)
{
#if defined(__x86_64__)
    if (have_avx512()) {
        rmw_avx512(x, n);
        return;
    }
    if (have_avx2()) {
        rmw_avx2(x, n);
        return;
    }
#endif
    rmw_scalar(x, n);
}

/* Where `at` of `whole` written bytes falls in `part` read bytes, on a
 * 64-byte line. */
static size_t share_of(size_t part, size_t at, size_t whole)
{
    return at >= whole ? part : (size_t)((double)part * ((double)at / (double)whole)) / 64 * 64;
}

/* Thread ith's 64-byte aligned share of the buffers. */
static void probe_share(void *context, int ith, int nth)
{
    const bench_probe_job *job = context;
    size_t lines = job->bytes / 64;
    size_t begin = lines * (size_t)ith / (size_t)nth * 64;
    size_t end = ith == nth - 1 ? job->bytes : lines * (size_t)(ith + 1) / (size_t)nth * 64;

    switch (job->kind) {
    case BENCH_PROBE_COPY:
        copy_best(job->dst + begin, job->src + begin, end - begin, 0);
        break;
    case BENCH_PROBE_COPY_NT:
        copy_best(job->dst + begin, job->src + begin, end - begin, 1);
        break;
    case BENCH_PROBE_MEMCPY:
        memcpy(job->dst + begin, job->src + begin, end - begin);
        break;
    case BENCH_PROBE_FILL:
        fill_best(job->dst + begin, end - begin);
        break;
    case BENCH_PROBE_MIX: {
        /* The share of the reads in step with the share of the writes. */
        size_t from = share_of(job->read_bytes, begin, job->bytes), to = share_of(job->read_bytes, end, job->bytes);

        mix_best(job->dst + begin, job->src + from, end - begin, to - from);
        break;
    }
    default:
        rmw_best(job->src + begin, end - begin);
        break;
    }
}

static int probe_once(void *context)
{
    bench_probe_call *call = context;

    if (call->team == NULL) {
        probe_share(&call->job, 0, 1);
    } else {
        bench_team_run(call->team, probe_share, &call->job);
    }
    return 0;
}

int bench_probe_run(bench_probe *out, bench_probe_kind kind, size_t bytes, bench_team *team,
                    void *src, void *dst, int reps)
{
    bench_probe_call call = {{kind, src, dst, bytes, bytes}, team};

    out->kind = kind;
    out->bytes = bytes;
    out->threads = team == NULL ? 1 : bench_team_size(team);
    return bench_measure(&out->stats, probe_once, &call, reps, BENCH_MIN_SAMPLE_S);
}

static void team_up(void *context)
{
    bench_probe_call *call = context;

    if (call->team != NULL) {
        bench_team_unpark(call->team);
    }
}

static void team_down(void *context)
{
    bench_probe_call *call = context;

    if (call->team != NULL) {
        bench_team_park(call->team);
    }
}

void bench_probe_member(bench_member *m, bench_probe_call *call, bench_probe_kind kind,
                        size_t bytes, bench_team *team, void *src, void *dst)
{
    bench_probe_member_mix(m, call, kind, bytes, bytes, team, src, dst);
}

void bench_probe_member_mix(bench_member *m, bench_probe_call *call, bench_probe_kind kind, size_t read_bytes,
                            size_t written_bytes, bench_team *team, void *src, void *dst)
{
    *call = (bench_probe_call){{kind, src, dst, written_bytes, read_bytes}, team};
    *m = (bench_member){.fn = probe_once, .context = call, .before = team_up, .after = team_down};
}
