/*
 * check_engine.c - the engine host against a plugin that attacks pecert
 * (impls/testing/hostile.c, by $HOSTILE_MODE): whatever it tries, from
 * its load-time code and from every operation, no check passes that it
 * did not earn, nothing is certified, pecert writes its outputs, and no
 * process of the plugin's outlives the run. The plugin computes `ref`'s
 * answers except where a mode says it answers wrong, so that the only way
 * to PASS would be a verdict it forged.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "runner.h"
#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

/* ---- helpers ------------------------------------------------------------ */

typedef struct hostile_run {
    pecert_run_results results;
    int status;
    char err[2048];
} hostile_run;

static void hostile_path(char *path, size_t len)
{
    test_impl_path(path, len, "testing/hostile");
}

/* pecert_run of hostile.so in mode over filter (NULL: every check), with
 * ref as the oracle and a per-check limit of timeout_s (scaled), on the
 * family vectors: every check and every call of the plugin's, without
 * the checkpoints' configs that repeat each property sweep (the suite
 * took 57 s with them, 20 s without). */
static void run_hostile(hostile_run *h, const char *mode, const char *filter, double timeout_s)
{
    char plugin[1024];
    char oracle[1024];
    hostile_path(plugin, sizeof(plugin));
    test_impl_path(oracle, sizeof(oracle), "ref");
    ck_assert_int_eq(setenv("HOSTILE_MODE", mode, 1), 0);
    pecert_run_options opt = {.plugin_path = plugin,
                              .oracle_path = oracle,
                              .vectors_dir = test_family_vectors(),
                              .filter = filter,
                              .timeout_s = test_check_timeout(timeout_s)};
    h->err[0] = '\0';
    h->status = pecert_run(&h->results, &opt, h->err, sizeof(h->err));
    unsetenv("HOSTILE_MODE");
    ck_assert_msg(h->status == PECERT_EXIT_PASS || h->status == PECERT_EXIT_FAIL, "%s: status %d: %s", mode, h->status,
                  h->err);
}

static const pecert_check_result *find(const hostile_run *h, const char *id)
{
    for (size_t i = 0; i < h->results.n_checks; i++) {
        if (strcmp(h->results.checks[i].check_id, id) == 0) {
            return &h->results.checks[i];
        }
    }
    ck_abort_msg("check %s not in the results", id);
    return NULL;
}

/* The checks that called the plugin: all but those it has no operation
 * for. A run of (nearly) every check, so that "none passed" says
 * something: ref itself declines two (threads, half precision). */
static size_t answered(const hostile_run *h, const char *mode)
{
    size_t n = 0;
    for (size_t i = 0; i < h->results.n_checks; i++) {
        n += h->results.checks[i].verdict != PECERT_VERDICT_UNSUPPORTED;
    }
    ck_assert_msg(h->results.n_checks >= 50 && n + 2 >= h->results.n_checks, "%s: %zu of %zu checks answered", mode, n,
                  h->results.n_checks);
    return n;
}

/* Every check that called the plugin ended with verdict want, and none
 * passed; the run's status is a failure. */
static void assert_every_answered(const hostile_run *h, const char *mode, pecert_verdict want)
{
    (void)answered(h, mode);
    ck_assert_msg(h->status == PECERT_EXIT_FAIL, "%s: status %d", mode, h->status);
    for (size_t i = 0; i < h->results.n_checks; i++) {
        const pecert_check_result *r = &h->results.checks[i];
        ck_assert_msg(r->verdict != PECERT_VERDICT_PASS, "%s: %s passed: %s", mode, r->check_id, r->diagnosis);
        ck_assert_msg(r->verdict == PECERT_VERDICT_UNSUPPORTED || r->verdict == want, "%s: %s: verdict %d: %s", mode,
                      r->check_id, (int)r->verdict, r->diagnosis);
    }
}

static int now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/* Does /proc/pid hold the plugin: its file mapped (path, a real path),
 * or argv[0] "hostile-daemon" (the sleeper it would exec, which maps
 * nothing of it)? */
static int holds_plugin(const char *pid, const char *path)
{
    char file[64];
    char line[PATH_MAX + 256];
    int found = 0;
    snprintf(file, sizeof(file), "/proc/%s/cmdline", pid);
    FILE *f = fopen(file, "r");
    if (f != NULL) {
        found = fgets(line, sizeof(line), f) != NULL && strcmp(line, "hostile-daemon") == 0;
        fclose(f);
    }
    snprintf(file, sizeof(file), "/proc/%s/maps", pid);
    f = fopen(file, "r");
    while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL) {
        found = strstr(line, path) != NULL;
    }
    if (f != NULL) {
        fclose(f);
    }
    return found;
}

/* The processes holding the plugin (this one included); with kill_them,
 * each other one is killed by its id, so that a test that finds one
 * leaves nothing behind. */
static int plugin_holders(const char *path, int kill_them)
{
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || !holds_plugin(e->d_name, path)) {
            continue;
        }
        n++;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (kill_them && pid != getpid()) {
            fprintf(stderr, "engine: process %d still holds %s: killed\n", (int)pid, path);
            (void)kill(pid, SIGKILL);
        }
    }
    closedir(d);
    return n;
}

/* hostile.so's real path, as /proc/PID/maps names it. */
static void plugin_real_path(char *real)
{
    char path[1024];
    hostile_path(path, sizeof(path));
    ck_assert_msg(realpath(path, real) != NULL, "%s", path);
}

/* The processes still holding the plugin after up to 3 s (a host the
 * judge killed may take a moment to be reaped); any left are killed. */
static int plugin_survivors(void)
{
    char real[PATH_MAX];
    plugin_real_path(real);
    int until = now_ms() + 3000;
    while (plugin_holders(real, 0) > 0 && now_ms() < until) {
        usleep(20000);
    }
    return plugin_holders(real, 1);
}

/* The scan sees a mapping: this process maps hostile.so's bytes (never
 * its code) and must be found. */
static void assert_scan_finds_a_mapping(void)
{
    char real[PATH_MAX];
    plugin_real_path(real);
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    ck_assert(m != MAP_FAILED);
    ck_assert_int_ge(plugin_holders(real, 0), 1);
    munmap(m, 4096);
}

/* ---- the attacks ----------------------------------------------------------- */

/* The plugin reads the check process's memory, environment and
 * descriptors, attaches to it, takes its descriptors by pidfd, and writes
 * a forged PASS with a made-up nonce into every descriptor it holds, then
 * answers wrong. Every attempt is refused (by the loading sandbox and the
 * judge's undumpable state when it loads, by seccomp when it serves), no
 * forged result is read (that would be a CRASH "forged result"), and every
 * check fails on the plugin's wrong answers. */
START_TEST(secrets_stay_secret_and_nothing_forged_passes)
{
    hostile_run h;
    run_hostile(&h, "secrets", NULL, 30.0);
    assert_every_answered(&h, "secrets", PECERT_VERDICT_FAIL);
    const char *out = find(&h, "rope.freq.golden")->plugin_output;
    static const char *const refused[] = {
        "hostile: load: read /proc/ppid/mem: Permission denied",
        "hostile: load: read /proc/ppid/environ: Permission denied",
        "hostile: load: process_vm_readv: Operation not permitted",
        "hostile: load: ptrace(PTRACE_ATTACH): Operation not permitted",
        "hostile: load: pidfd_getfd: Operation not permitted",
        "hostile: call: read /proc/ppid/mem: Operation not permitted",
        "hostile: call: process_vm_readv: Operation not permitted",
        "hostile: call: ptrace(PTRACE_ATTACH): Operation not permitted",
        "hostile: call: pidfd_open: Operation not permitted",
        "hostile: call: forged result into an open descriptor: Operation not permitted",
    };
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        ck_assert_msg(strstr(out, refused[i]) != NULL, "want '%s' in the plugin's output:\n%s", refused[i], out);
    }
    /* The descriptors' numbers may be listed (root owns an undumpable
     * process's /proc directory, and root's host may open it), never what
     * they are. */
    ck_assert_msg(strstr(out, "hostile: load: list /proc/ppid/fd: Permission denied") != NULL ||
                      strstr(out, "descriptors seen, 0 named, 0 reopened") != NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "succeeded") == NULL, "an attack succeeded:\n%s", out);
    pecert_run_results_free(&h.results);
}
END_TEST

/* The plugin answers wrong, then writes into the channel a well-formed
 * REPLY with status OK and the seq of the call it serves (read from the
 * host's own receive buffer), and a garbage packet. The judge takes the
 * forged reply as that call's (it is one the host could have sent) but
 * still judges the wrong outputs, and the garbage ends the check at its
 * next call: a CRASH naming the engine host, never a pass. */
START_TEST(replies_forged_in_the_channel_are_crashes)
{
    hostile_run h;
    run_hostile(&h, "channel", NULL, 30.0);
    assert_every_answered(&h, "channel", PECERT_VERDICT_CRASH);
    for (size_t i = 0; i < h.results.n_checks; i++) {
        const pecert_check_result *r = &h.results.checks[i];
        ck_assert_msg(r->verdict != PECERT_VERDICT_CRASH ||
                          strstr(r->diagnosis, "the engine host broke the wire protocol") != NULL,
                      "%s: %s", r->check_id, r->diagnosis);
    }
    pecert_run_results_free(&h.results);
}
END_TEST

/* The plugin signals the check process (kill, tgkill, tkill, a pidfd),
 * that process's group and its own group with SIGKILL, when it loads and
 * at every call, then answers wrong. Every signal is refused: no check
 * process dies (a CRASH "killed by signal 9"), each one fails on the wrong
 * answers, and this process, the loading host's parent, lives on. */
START_TEST(kills_are_refused_and_every_check_fails)
{
    hostile_run h;
    run_hostile(&h, "kill", NULL, 30.0);
    assert_every_answered(&h, "kill", PECERT_VERDICT_FAIL);
    const char *out = find(&h, "rope.apply.golden")->plugin_output;
    static const char *const refused[] = {
        "hostile: load: kill(parent, SIGKILL): Operation not permitted",
        "hostile: load: kill(-parent's group, SIGKILL): Operation not permitted",
        "hostile: call: kill(parent, SIGKILL): Operation not permitted",
        "hostile: call: tgkill(parent): Operation not permitted",
        "hostile: call: pidfd_send_signal(parent): Operation not permitted",
        "hostile: call: kill(-parent's group, SIGKILL): Operation not permitted",
        "hostile: call: kill(0, SIGKILL): Operation not permitted",
    };
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        ck_assert_msg(strstr(out, refused[i]) != NULL, "want '%s' in the plugin's output:\n%s", refused[i], out);
    }
    pecert_run_results_free(&h.results);
}
END_TEST

/* The same attack on the command line: pecert run exits 1, having written
 * its JSON and JUnit files whole, with both checks failed. */
START_TEST(killing_plugin_leaves_pecerts_outputs_whole)
{
    char dir[] = "/tmp/pecert-engine-XXXXXX";
    char plugin[1024];
    static char out[1 << 18];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    hostile_path(plugin, sizeof(plugin));
    ck_assert_int_eq(setenv("HOSTILE_MODE", "kill", 1), 0);
    int status =
        test_pecert(out, sizeof(out),
                    "run --impl %s --filter 'rope.freq.golden,rope.apply.golden' --timeout %g --json %s/r.json "
                    "--junit %s/r.xml",
                    plugin, test_check_timeout(30.0), dir, dir);
    unsetenv("HOSTILE_MODE");
    ck_assert_msg(status == 1, "exit %d:\n%s", status, out);
    char *text = test_read_in(dir, "r.json");
    cJSON *root = cJSON_Parse(text);
    ck_assert_msg(root != NULL, "r.json is not JSON");
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
    ck_assert_int_eq(cJSON_GetArraySize(checks), 2);
    const cJSON *c;
    cJSON_ArrayForEach(c, checks)
    {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "check"));
        const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "verdict"));
        ck_assert_msg(id != NULL && (strcmp(id, "rope.freq.golden") == 0 || strcmp(id, "rope.apply.golden") == 0), "%s",
                      id != NULL ? id : "(no id)");
        ck_assert_msg(verdict != NULL && strcmp(verdict, "fail") == 0, "%s: %s", id, verdict);
    }
    char *xml = test_read_in(dir, "r.xml");
    ck_assert_msg(strstr(xml, "name=\"rope.freq.golden\"") != NULL &&
                      strstr(xml, "name=\"rope.apply.golden\"") != NULL && strstr(xml, "</testsuites>") != NULL,
                  "%s", xml);
    cJSON_Delete(root);
    free(text);
    free(xml);
    test_remove_dir(dir);
}
END_TEST

/* --sandbox off is said by every output of the run, in the same words,
 * and by certify's verdict line; a sandboxed run's JSON has no "sandbox"
 * key (byte for byte what it was before the engine host). */
START_TEST(an_unsandboxed_run_says_so_everywhere)
{
    char dir[] = "/tmp/pecert-engine-XXXXXX";
    static char out[1 << 18];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    int status = test_pecert(out, sizeof(out),
                             "run --impl ref --sandbox off --filter rope.freq.golden --json %s/off.json --junit "
                             "%s/off.xml --html %s/off.html",
                             dir, dir, dir);
    ck_assert_msg(status == 0, "exit %d:\n%s", status, out);
    ck_assert_msg(strstr(out, "; " PECERT_UNSANDBOXED_WORDS "\n") != NULL, "%s", out);
    char *json = test_read_in(dir, "off.json");
    char *xml = test_read_in(dir, "off.xml");
    char *html = test_read_in(dir, "off.html");
    ck_assert_msg(strstr(json, "\"sandbox\":\t\"off\"") != NULL, "%s", json);
    ck_assert_msg(strstr(xml, "name=\"engine.sandbox\" value=\"off: " PECERT_UNSANDBOXED_WORDS "\"") != NULL, "%s",
                  xml);
    ck_assert_msg(strstr(html, PECERT_UNSANDBOXED_WORDS) != NULL, "the HTML does not say it");
    free(json);
    free(xml);
    free(html);
    status = test_pecert(out, sizeof(out), "run --impl ref --filter rope.freq.golden --json %s/on.json", dir);
    ck_assert_msg(status == 0, "exit %d:\n%s", status, out);
    json = test_read_in(dir, "on.json");
    ck_assert_msg(strstr(json, "\"sandbox\"") == NULL && strstr(out, PECERT_UNSANDBOXED_WORDS) == NULL, "%s", json);
    free(json);
    status = test_pecert(out, sizeof(out), "certify --profile llama-2-7b --impl ref --sandbox off --quiet");
    ck_assert_msg(status == 0, "exit %d:\n%s", status, out);
    const char *verdict = strstr(out, "verdict: ");
    ck_assert_msg(verdict != NULL && strstr(verdict, "CERTIFIED") != NULL &&
                      strstr(verdict, "; " PECERT_UNSANDBOXED_WORDS) != NULL,
                  "%s", out);
    status = test_pecert(out, sizeof(out), "run --impl ref --sandbox maybe");
    ck_assert_msg(status == 2 && strstr(out, "--sandbox 'maybe': expected on or off") != NULL, "exit %d:\n%s", status,
                  out);
    test_remove_dir(dir);
}
END_TEST

/* The plugin forks a sleeper that calls setsid(), clones a child that
 * would exec `sleep`, calls setsid() and setpgid() itself and opens a
 * socket, then computes right. Each is refused, the checks pass on their
 * own merit, and afterwards no process maps hostile.so or runs its
 * sleeper: not the engine hosts (stopped with their checks), not this
 * process (the judge never maps a plugin's code). */
START_TEST(daemons_are_refused_and_no_process_outlives_the_run)
{
    assert_scan_finds_a_mapping();
    hostile_run h;
    run_hostile(&h, "daemon", NULL, 30.0);
    (void)answered(&h, "daemon");
    ck_assert_msg(h.status == PECERT_EXIT_PASS, "status %d: %s", h.status, h.err);
    const char *out = find(&h, "rope.freq.golden")->plugin_output;
    static const char *const refused[] = {
        "hostile: load: fork: Operation not permitted",
        "hostile: load: clone(SIGCHLD): Operation not permitted",
        "hostile: call: fork: Operation not permitted",
        "hostile: call: clone(SIGCHLD): Operation not permitted",
        "hostile: call: setsid: Operation not permitted",
        "hostile: call: setpgid(0, 0): Operation not permitted",
        "hostile: call: socket(AF_UNIX): Operation not permitted",
    };
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        ck_assert_msg(strstr(out, refused[i]) != NULL, "want '%s' in the plugin's output:\n%s", refused[i], out);
    }
    pecert_run_results_free(&h.results);
    ck_assert_int_eq(plugin_survivors(), 0);
}
END_TEST

/* Each check id's family: its text before the first '.'. */
static int in_family(const char *id, const char *family)
{
    size_t n = strlen(family);
    return strncmp(id, family, n) == 0 && id[n] == '.';
}

/* Every check that called the plugin failed on the engine's violation,
 * said as what (the first write outside the outputs is the one named),
 * bar the checks of except; and each family has such a check. */
static void assert_violations(const hostile_run *h, const char *mode, const char *what, const char *const *except,
                              const char *const *families)
{
    ck_assert_int_eq(h->status, PECERT_EXIT_FAIL);
    (void)answered(h, mode);
    for (size_t i = 0; i < h->results.n_checks; i++) {
        const pecert_check_result *r = &h->results.checks[i];
        int excepted = 0;
        for (const char *const *x = except; *x != NULL; x++) {
            excepted |= strcmp(*x, r->check_id) == 0;
        }
        if (r->verdict == PECERT_VERDICT_UNSUPPORTED || excepted) {
            continue;
        }
        ck_assert_msg(r->verdict == PECERT_VERDICT_FAIL && strncmp(r->diagnosis, "the engine's ", 13) == 0 &&
                          strstr(r->diagnosis, what) != NULL,
                      "%s: %s: verdict %d: %s", mode, r->check_id, (int)r->verdict, r->diagnosis);
        int tagged = 0;
        for (int s = 0; s < r->n_symptoms; s++) {
            tagged |= strcmp(r->symptoms[s], PECERT_SYMPTOM_ENGINE_WROTE_OUTSIDE) == 0;
        }
        ck_assert_msg(tagged, "%s: %s: no symptom %s", mode, r->check_id, PECERT_SYMPTOM_ENGINE_WROTE_OUTSIDE);
    }
    for (const char *const *f = families; *f != NULL; f++) {
        int caught = 0;
        for (size_t i = 0; i < h->results.n_checks; i++) {
            caught |= in_family(h->results.checks[i].check_id, *f) && strstr(h->results.checks[i].diagnosis, what);
        }
        ck_assert_msg(caught, "%s: no %s.* check caught the engine's write", mode, *f);
    }
}

/* The check id prefixes of every operation family. */
static const char *const every_family[] = {"rope",      "decode", "alibi", "t5",  "sinusoidal", "learned",
                                           "sincos2d",  "swin",   "shaw",  "txl", "mrope",      "rope2d",
                                           "posinterp", "cope",   "peg",   "sine2d", "relpos2d", "deberta", NULL};

/* After computing right, the plugin writes one element past the end of
 * its first output, as an engine with an off-by-one would: every check
 * that calls an operation fails, naming the write. */
START_TEST(a_write_past_any_output_fails_its_check)
{
    static const char *const none[] = {NULL};
    hostile_run h;
    run_hostile(&h, "oob", NULL, 30.0);
    assert_violations(&h, "oob", "wrote past the end of '", none, every_family);
    pecert_run_results_free(&h.results);
}
END_TEST

/* After computing right, the plugin changes the first element of an input
 * (positions, x, a table...): every check that hands it one fails, naming
 * the write. The operations that take no input array (ALiBi slopes, 2-D
 * sin-cos, Swin's index, Transformer-XL's embedding) leave nothing to
 * change: their checks pass, on the right answers (no false alarm). */
START_TEST(a_write_into_any_input_fails_its_check)
{
    static const char *const inputless[] = {"alibi.slopes.golden",  "sincos2d.golden",    "swin.index.golden",
                                            "swin.index.bijective", "txl.pos_emb.golden", NULL};
    static const char *const families[] = {"rope", "decode", "alibi",  "t5",        "sinusoidal", "learned", "shaw",
                                           "txl",  "mrope",  "rope2d", "posinterp", "cope",       "peg",     "sine2d",
                                           "relpos2d", "deberta", NULL};
    hostile_run h;
    run_hostile(&h, "inputs", NULL, 30.0);
    assert_violations(&h, "inputs", "wrote into its input '", inputless, families);
    for (const char *const *id = inputless; *id != NULL; id++) {
        const pecert_check_result *r = find(&h, *id);
        ck_assert_msg(r->verdict == PECERT_VERDICT_PASS, "%s: verdict %d: %s", *id, (int)r->verdict, r->diagnosis);
    }
    pecert_run_results_free(&h.results);
}
END_TEST

/* rope_freqs never returns: the check is a TIMEOUT at its limit, and the
 * spinning engine host is gone with it. */
START_TEST(an_endless_loop_is_a_timeout_and_leaves_no_process)
{
    hostile_run h;
    run_hostile(&h, "loop", "rope.freq.golden", 2.0);
    ck_assert_int_eq(h.status, PECERT_EXIT_FAIL);
    const pecert_check_result *r = find(&h, "rope.freq.golden");
    ck_assert_msg(r->verdict == PECERT_VERDICT_TIMEOUT, "verdict %d: %s", (int)r->verdict, r->diagnosis);
    ck_assert_msg(r->elapsed_s < test_check_timeout(2.0) + 5.0, "%.1f s", r->elapsed_s);
    pecert_run_results_free(&h.results);
    ck_assert_int_eq(plugin_survivors(), 0);
}
END_TEST

/* Does a verdict line certify: "verdict: NAME CERTIFIED for ...", where
 * "NOT CERTIFIED" does not? */
static int certifies(const char *out)
{
    for (const char *line = out; line != NULL; line = strchr(line, '\n') != NULL ? strchr(line, '\n') + 1 : NULL) {
        char text[1024];
        snprintf(text, sizeof(text), "%.*s", (int)strcspn(line, "\n"), line);
        for (const char *c = strstr(text, " CERTIFIED"); strncmp(text, "verdict:", 8) == 0 && c != NULL;
             c = strstr(c + 1, " CERTIFIED")) {
            if (c - text < 4 || strncmp(c - 4, " NOT", 4) != 0) {
                return 1;
            }
        }
    }
    return 0;
}

/* certify of a checkpoint with the plugin stealing secrets (its answers
 * wrong) or writing past its outputs (its answers right): NOT CERTIFIED,
 * exit 1, and the JSON written, its certificate saying so; no check that
 * asks the plugin passes (certify.mapping judges pecert's own reading of
 * the config). */
START_TEST(a_hostile_plugin_is_never_certified)
{
    static const char *const modes[] = {"secrets", "oob"};
    char dir[] = "/tmp/pecert-engine-XXXXXX";
    char plugin[1024];
    static char out[1 << 18];
    ck_assert(certifies("x\nverdict: ref CERTIFIED for llama-3.1-8b (llama): 18 passed\n"));
    ck_assert(!certifies("CERTIFIED\nverdict: hostile NOT CERTIFIED for llama-3.1-8b (llama): 1 passed\n"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    hostile_path(plugin, sizeof(plugin));
    for (size_t m = 0; m < ARRAY_LEN(modes); m++) {
        ck_assert_int_eq(setenv("HOSTILE_MODE", modes[m], 1), 0);
        int status =
            test_pecert(out, sizeof(out), "certify --profile llama-3.1-8b --impl %s --timeout %g --json %s/c.json",
                        plugin, test_check_timeout(30.0), dir);
        unsetenv("HOSTILE_MODE");
        ck_assert_msg(status == 1 && strstr(out, "verdict: hostile NOT CERTIFIED for llama-3.1-8b") != NULL &&
                          !certifies(out),
                      "%s: exit %d:\n%s", modes[m], status, out);
        char *text = test_read_in(dir, "c.json");
        cJSON *root = cJSON_Parse(text);
        ck_assert_msg(root != NULL, "%s: c.json is not JSON", modes[m]);
        const cJSON *cert = cJSON_GetObjectItemCaseSensitive(root, "certificate");
        const char *cls = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cert, "class"));
        ck_assert_msg(cls != NULL && strcmp(cls, "NOT CERTIFIED") == 0, "%s: class %s", modes[m], cls);
        const cJSON *c;
        int asked = 0;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(root, "checks"))
        {
            const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "check"));
            const char *verdict = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "verdict"));
            ck_assert_ptr_nonnull(id);
            ck_assert_ptr_nonnull(verdict);
            if (strcmp(id, "certify.mapping") != 0) {
                ck_assert_msg(strcmp(verdict, "pass") != 0, "%s: %s passed", modes[m], id);
                asked += strcmp(verdict, "unsupported") != 0;
            }
        }
        ck_assert_msg(asked >= 10, "%s: only %d checks asked the plugin", modes[m], asked);
        cJSON_Delete(root);
        free(text);
    }
    test_remove_dir(dir);
}
END_TEST

/* At most len - 1 bytes of s from its first line that holds a control
 * byte but '\n', or else its first verdict line that certifies (or ""),
 * with each control byte shown as '^': fit for a test's message. */
static const char *offending_line(const char *s, char *buf, size_t len)
{
    const char *at = NULL;
    for (const char *line = s; at == NULL && line != NULL; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t n = strcspn(line, "\n");
        for (size_t i = 0; i < n && at == NULL; i++) {
            at = (unsigned char)line[i] < 0x20 ? line : NULL;
        }
        char one[1024];
        snprintf(one, sizeof(one), "%.*s", (int)n, line);
        at = at != NULL || !certifies(one) ? at : line;
    }
    size_t k = 0;
    for (; at != NULL && at[k] != '\0' && at[k] != '\n' && k + 1 < len; k++) {
        buf[k] = (unsigned char)at[k] < 0x20 ? '^' : at[k];
    }
    buf[k] = '\0';
    return buf;
}

/* The plugin writes a fake verdict line through stdin's open file, which
 * it rebinds onto stdout with fcntl(F_DUPFD) (the sandbox allows writes by
 * descriptor number): when pecert runs in a terminal, stdin is that
 * terminal, opened for reading and writing, and the line would bypass the
 * capture and its escaping. Here stdin is a file opened the same way;
 * nothing may be written into it. */
START_TEST(a_plugin_cannot_write_around_its_capture_through_stdin)
{
    char path[] = "/tmp/pecert-stdin-XXXXXX";
    int fd = mkstemp(path); /* read-write, as a terminal is */
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO); /* this test's own process only */
    close(fd);
    int null = open("/dev/null", O_WRONLY); /* the loading host's own words: the next test's */
    ck_assert_int_eq(dup2(null, STDOUT_FILENO), STDOUT_FILENO);
    close(null);
    hostile_run h;
    run_hostile(&h, "terminal", "rope.freq.golden", 30.0);
    char *text = test_read_file(path);
    unlink(path);
    char line[256];
    ck_assert_msg(text[0] == '\0', "the plugin wrote %zu bytes into pecert's stdin: %s", strlen(text),
                  offending_line(text, line, sizeof(line)));
    free(text);
    pecert_run_results_free(&h.results);
}
END_TEST

/* The plugin's load-time code prints a fake verdict line, with a carriage
 * return and an erase-line sequence, to stdout. In a check's engine host
 * that is captured; the host pecert starts first, to read the descriptor,
 * must not hand it pecert's own stdout either: pecert's output holds no
 * verdict that certifies and no raw control byte. */
START_TEST(load_time_output_never_reaches_pecerts_own_output)
{
    char plugin[1024];
    static char out[1 << 18];
    hostile_path(plugin, sizeof(plugin));
    ck_assert_int_eq(setenv("HOSTILE_MODE", "terminal", 1), 0);
    int status = test_pecert(out, sizeof(out), "certify --profile llama-3.1-8b --impl %s --timeout %g </dev/null",
                             plugin, test_check_timeout(30.0));
    unsetenv("HOSTILE_MODE");
    ck_assert_msg(status == 1 && strstr(out, "verdict: hostile NOT CERTIFIED for llama-3.1-8b") != NULL, "exit %d:\n%s",
                  status, out);
    char line[256];
    ck_assert_msg(!certifies(out) && strpbrk(out, "\r\033") == NULL, "pecert's output holds the plugin's: %s",
                  offending_line(out, line, sizeof(line)));
}
END_TEST

/* A thread the plugin starts while it loads (as a thread pool or a logger
 * would) and that opens a file once the host serves: the serving stage
 * allows no open (WIRE.md), for that thread as for the one serving. */
START_TEST(a_thread_started_at_load_is_held_to_the_serving_sandbox)
{
    hostile_run h;
    run_hostile(&h, "stage", "rope.freq.golden", 30.0);
    const pecert_check_result *r = find(&h, "rope.freq.golden");
    ck_assert_msg(r->verdict == PECERT_VERDICT_PASS, "verdict %d: %s", (int)r->verdict, r->diagnosis);
    ck_assert_msg(strstr(r->plugin_output, "hostile: load: thread started: succeeded") != NULL, "%s", r->plugin_output);
    ck_assert_msg(
        strstr(r->plugin_output, "hostile: call: open from a thread started at load: Operation not permitted") != NULL,
        "the serving sandbox did not hold for a thread started at load:\n%s", r->plugin_output);
    pecert_run_results_free(&h.results);
}
END_TEST

/* A host whose judge is gone before it asks to die with it (its parent is
 * no longer the --parent it was given) exits at once, before loading
 * anything: posix_spawn leaves that guard to the host itself. */
START_TEST(a_host_whose_judge_is_gone_exits_at_once)
{
    char exe[PATH_MAX];
    char plugin[1024];
    snprintf(exe, sizeof(exe), "%s/pecert-engine", test_build_dir());
    test_impl_path(plugin, sizeof(plugin), "ref");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char parent[32];
        snprintf(parent, sizeof(parent), "--parent=%ld", (long)getppid() + 1); /* not this child's parent */
        execl(exe, "pecert-engine", parent, plugin, (char *)NULL);
        _exit(126);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 127, "status 0x%x", status);
}
END_TEST

Suite *make_engine_suite(void)
{
    /* One case named "hostile": CK_RUN_CASE=hostile runs it with the other
     * suites' hostile-plugin tests (docs/threat-model.md). */
    return test_suite_of(
        "engine",
        TEST_TCASE("hostile", 120, secrets_stay_secret_and_nothing_forged_passes,
                   replies_forged_in_the_channel_are_crashes, kills_are_refused_and_every_check_fails,
                   killing_plugin_leaves_pecerts_outputs_whole, an_unsandboxed_run_says_so_everywhere,
                   daemons_are_refused_and_no_process_outlives_the_run, a_write_past_any_output_fails_its_check,
                   a_write_into_any_input_fails_its_check, an_endless_loop_is_a_timeout_and_leaves_no_process,
                   a_hostile_plugin_is_never_certified, a_plugin_cannot_write_around_its_capture_through_stdin,
                   load_time_output_never_reaches_pecerts_own_output,
                   a_thread_started_at_load_is_held_to_the_serving_sandbox, a_host_whose_judge_is_gone_exits_at_once),
        NULL);
}
