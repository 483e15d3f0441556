/*
 * export.c - writes the engine host's two seccomp filters (rules.c) as BPF
 * programs into a C header, on stdout, or with --binary as the bytes a host
 * in another language installs; the build runs it once for each
 * (Makefile: $(BUILD)/gen/engine_filters.h, $(BUILD)/engine-filters.bpf). The host writes its pid over
 * the placeholder's; that is only the filter libseccomp would have built
 * for the pid if building it for another pid changes nothing else, which
 * this checks: the two programs must differ only in jumps' constants, each
 * the placeholder in one and the other pid in the other.
 */
#define _GNU_SOURCE /* memfd_create */
#include <linux/filter.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rules.h"

/* The stage's program, read back from libseccomp's export; its length in
 * *n. NULL on failure. */
static struct sock_filter *program(int loading, uint32_t self_pid, size_t *n)
{
    scmp_filter_ctx ctx = engine_filter_rules(loading, self_pid);
    int fd = memfd_create("bpf", 0);
    struct sock_filter *p = NULL;
    if (ctx != NULL && fd >= 0 && seccomp_export_bpf(ctx, fd) == 0) {
        off_t len = lseek(fd, 0, SEEK_END);
        if (len > 0 && len % (off_t)sizeof(*p) == 0 && (p = malloc((size_t)len)) != NULL &&
            pread(fd, p, (size_t)len, 0) != len) {
            free(p);
            p = NULL;
        }
        *n = p != NULL ? (size_t)len / sizeof(*p) : 0;
    }
    if (fd >= 0) {
        close(fd);
    }
    seccomp_release(ctx);
    return p;
}

/* Does q (built for another pid) differ from p (built for the
 * placeholder) only where p jumps on the placeholder, at least once? */
static int only_the_pid_differs(const struct sock_filter *p, size_t n, const struct sock_filter *q, size_t m,
                                uint32_t other)
{
    size_t swapped = 0;
    if (n != m) {
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        int same = p[i].code == q[i].code && p[i].jt == q[i].jt && p[i].jf == q[i].jf;
        if (same && p[i].k == q[i].k && p[i].k != ENGINE_FILTER_SELF_PID) {
            continue;
        }
        if (!same || p[i].code != (BPF_JMP | BPF_JEQ | BPF_K) || p[i].k != ENGINE_FILTER_SELF_PID || q[i].k != other) {
            return 0;
        }
        swapped++;
    }
    return swapped > 0;
}

/* The stage's program, built for the placeholder and checked: only the
 * pid may differ from the program for another pid. NULL on failure (said). */
static struct sock_filter *checked_program(const char *name, int loading, size_t *n)
{
    const uint32_t other = 4242; /* any pid but the placeholder */
    size_t m = 0;
    struct sock_filter *p = program(loading, ENGINE_FILTER_SELF_PID, n);
    struct sock_filter *q = program(loading, other, &m);
    if (p == NULL || q == NULL) {
        fprintf(stderr, "export: libseccomp could not build or export the %s filter\n", name);
        free(p);
        free(q);
        return NULL;
    }
    int ok = only_the_pid_differs(p, *n, q, m, other);
    free(q);
    if (!ok) {
        fprintf(stderr, "export: the %s filter changes with the pid elsewhere than where the host writes it\n", name);
        free(p);
        return NULL;
    }
    return p;
}

static int emit_header(const char *name, int loading)
{
    size_t n = 0;
    struct sock_filter *p = checked_program(name, loading, &n);
    if (p == NULL) {
        return -1;
    }
    printf("static const struct sock_filter engine_filter_%s[%zu] = {\n", name, n);
    for (size_t i = 0; i < n; i++) {
        printf("    {0x%04x, %u, %u, 0x%08x},\n", p[i].code, p[i].jt, p[i].jf, p[i].k);
    }
    printf("};\n\n");
    free(p);
    return 0;
}

static void put_u32(uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    fwrite(b, 1, sizeof(b), stdout);
}

/* The binary form, for hosts not written in C (python/pecert/sandbox.py
 * reads it): "PCBF", the placeholder pid, then for the loading and the
 * serving stage its instruction count and its instructions (code u16,
 * jt u8, jf u8, k u32), all little-endian. */
static int emit_binary(void)
{
    size_t n[2] = {0, 0};
    struct sock_filter *p[2] = {checked_program("loading", 1, &n[0]), checked_program("serving", 0, &n[1])};
    int rc = p[0] != NULL && p[1] != NULL ? 0 : -1;
    if (rc == 0) {
        fwrite("PCBF", 1, 4, stdout);
        put_u32(ENGINE_FILTER_SELF_PID);
        for (int s = 0; s < 2; s++) {
            put_u32((uint32_t)n[s]);
            for (size_t i = 0; i < n[s]; i++) {
                put_u32((uint32_t)p[s][i].code | (uint32_t)p[s][i].jt << 16 | (uint32_t)p[s][i].jf << 24);
                put_u32(p[s][i].k);
            }
        }
    }
    free(p[0]);
    free(p[1]);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--binary") == 0) {
        return emit_binary() == 0 && fflush(stdout) == 0 ? 0 : 1;
    }
    printf("/* Generated by engine/filters/export.c from engine/filters/rules.c"
           " (libseccomp %u.%u.%u): do not edit. */\n\n",
           seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro);
    printf("#define ENGINE_FILTER_SELF_PID 0x%08xU\n\n", ENGINE_FILTER_SELF_PID);
    if (emit_header("loading", 1) != 0 || emit_header("serving", 0) != 0) {
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
