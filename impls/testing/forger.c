/*
 * forger.c - `ref` that tries to forge its verdict, as issue 13 found a
 * plugin could: on its first rope_freqs call it writes a PASS result for
 * the running check into the result pipe, then, by FORGER_MODE,
 *   exit      _exit(0)s, so that no genuine result follows;
 *   continue  returns a wrong frequency and lets the check go on, so that
 *             the genuine FAIL result follows the forged PASS;
 *   other     writes a PASS for another check id instead, then _exit(0)s.
 * pecert must read each as a CRASH "forged result", never PASS
 * (tests/check_runner.c).
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref;

/* Does the parent (pecert) hold the read end of pipe inode ino? */
static int parent_reads(ino_t ino)
{
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)getppid());
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    char want[64];
    snprintf(want, sizeof(want), "pipe:[%lu]", (unsigned long)ino);
    while (d != NULL && !found && (e = readdir(d)) != NULL) {
        char link[512];
        char target[64] = "";
        snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0 || strncmp(target, want, (size_t)n) != 0 || (size_t)n != strlen(want)) {
            continue;
        }
        char info[512];
        snprintf(info, sizeof(info), "/proc/%d/fdinfo/%s", (int)getppid(), e->d_name);
        FILE *f = fopen(info, "r");
        unsigned long flags = 1;
        char line[128];
        while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
            if (sscanf(line, "flags: %lo", &flags) == 1) {
                break;
            }
        }
        if (f != NULL) {
            fclose(f);
        }
        found = (flags & O_ACCMODE) == O_RDONLY;
    }
    if (d != NULL) {
        closedir(d);
    }
    return found;
}

/* The result pipe, as a forger would find it: a pipe this process may
 * write whose read end its parent holds. Inherited pipes (make's
 * jobserver, a CI's log) are not it, and a test must not write into them. */
static void write_to_result_pipe(const char *text)
{
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0 && (flags & O_ACCMODE) == O_WRONLY && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
            parent_reads(st.st_ino)) {
            signal(SIGPIPE, SIG_IGN);
            (void)!write(fd, text, strlen(text));
            return;
        }
    }
}

static pecert_status forging_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                   const pecert_rope_config *config, int64_t seq_len)
{
    const char *mode = getenv("FORGER_MODE");
    const char *id = mode != NULL && strcmp(mode, "other") == 0 ? "rope.inverse" : "rope.freq.golden";
    char forged[512];
    snprintf(forged, sizeof(forged),
             "{\"check\":\"%s\",\"verdict\":\"pass\",\"cases\":1,\"failed\":0,\"unsupported\":0,"
             "\"worst_ratio\":0,\"worst_case\":\"\",\"diagnosis\":\"1 vectors within bound\",\"failures\":[],"
             "\"symptoms\":[],\"points\":[],\"elapsed_s\":0,\"index\":0}",
             id);
    static int done;
    if (!done) {
        done = 1;
        write_to_result_pipe(forged);
        if (mode == NULL || strcmp(mode, "continue") != 0) {
            _exit(0);
        }
    }
    pecert_status st = ref->rope_freqs(instance, out_inv_freq, out_scaling, config, seq_len);
    if (st == PECERT_OK && config != NULL && config->rotary_dim >= 2) {
        out_inv_freq[0] *= 1.5; /* the genuine verdict is a FAIL */
    }
    return st;
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    ref = testing_ref_copy(&desc, "forger");
    if (ref == NULL) {
        return NULL;
    }
    desc.rope_freqs = forging_freqs;
    return &desc;
}
