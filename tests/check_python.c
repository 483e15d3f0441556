/*
 * check_python.c - engines written in Python (--impl python:SPEC): the
 * shipped PyTorch engine through every RoPE check (its certificate is
 * tests/python/test_python_engines.py's, through pytest), an exception
 * and a decline said as the C ABI says them, a module that cannot load,
 * and the Python host's sandbox holding against a hostile engine.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "suites.h"

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

#define TORCH_ROPE "python:" PECERT_SOURCE_DIR "/impls/python/torch_rope.py"

static char out[1 << 16];

/* The JSON a failing run (exit 1) of engine path with args wrote, as text
 * (the terminal's lines are wrapped; the JSON holds each message whole).
 * The caller frees it. */
static char *failing_run_json(const char *path, const char *args)
{
    char json[1100];
    snprintf(json, sizeof(json), "%s.json", path);
    int status = test_pecert(out, sizeof(out), "run --impl python:%s %s --json %s", path, args, json);
    ck_assert_msg(status == 1, "status %d:\n%s", status, out);
    char *text = test_read_file(json);
    unlink(json);
    return text;
}

/* A Python engine of text in a temporary file; its path in path. */
static void python_engine(char *path, size_t len, const char *text)
{
    char dir[] = "/tmp/pecert-python-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, len, "%s/engine.py", dir);
    test_write_text(path, text);
}

static void remove_engine(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s", path);
    *strrchr(dir, '/') = '\0';
    test_remove_dir(dir);
}

START_TEST(the_torch_engine_passes_every_rope_check_it_implements)
{
    int status = test_pecert(out, sizeof(out), "run --impl %s --filter 'rope.*' -j 2 --timeout %g", TORCH_ROPE,
                             test_check_timeout(120.0));
    ck_assert_msg(status == 0, "status %d:\n%s", status, out);
    ck_assert_msg(strstr(out, "torch-rope: 13 passed, 0 failed, 0 crashed, 0 timed out, 2 not supported") != NULL, "%s",
                  out);
    ck_assert_msg(strstr(out, "NOT sandboxed") == NULL, "%s", out);
}
END_TEST

/* An exception is the case's failure, said in one line with its type,
 * message and the engine's line; NotImplementedError is a decline. */
START_TEST(an_exception_fails_with_its_line_and_a_decline_is_not_supported)
{
    char path[1024];
    python_engine(path, sizeof(path),
                  "def rope_freqs(out_inv_freq, out_attention_scaling, config, seq_len):\n"
                  "    return 1 / 0\n"
                  "def rope_cos_sin(out_cos, out_sin, config, seq_len, positions):\n"
                  "    raise NotImplementedError('no tables here')\n");
    char *json = failing_run_json(path, "--filter 'rope.freq.golden,rope.cos_sin.golden'");
    ck_assert_msg(strstr(json, "rope_freqs returned -4: ZeroDivisionError: division by zero (engine.py:2)") != NULL,
                  "%s", json);
    ck_assert_msg(strstr(out, "N/A     rope.cos_sin.golden") != NULL, "%s", out);
    ck_assert_msg(strstr(json, "NotImplementedError: no tables here (engine.py:4)") != NULL, "%s", json);
    free(json);
    remove_engine(path);
}
END_TEST

START_TEST(a_module_that_cannot_load_is_one_line_and_exit_3)
{
    char path[1024];
    python_engine(path, sizeof(path), "def rope_freqs(:\n");
    int status = test_pecert(out, sizeof(out), "run --impl python:%s", path);
    ck_assert_msg(status == 3, "status %d:\n%s", status, out);
    /* The run's first line, and the error's one line naming the file. */
    ck_assert_msg(strstr(out, "engine.py: cannot load: SyntaxError: invalid syntax (engine.py, line 1)\n") != NULL,
                  "%s", out);
    int lines = 0;
    for (const char *c = out; *c != '\0'; c++) {
        lines += *c == '\n';
    }
    ck_assert_msg(lines == 2, "%d lines:\n%s", lines, out);
    remove_engine(path);
}
END_TEST

/* Under the Python host's filter an engine opens no file, writes none,
 * signals no other process, starts none and opens no socket. */
START_TEST(the_python_host_is_sandboxed)
{
    char path[1024];
    python_engine(path, sizeof(path),
                  "import os, socket\n"
                  "def rope_freqs(out_inv_freq, out_attention_scaling, config, seq_len):\n"
                  "    said = []\n"
                  "    for what, fn in [('open', lambda: open('/etc/hostname').read()),\n"
                  "                     ('write', lambda: open('/tmp/pecert-python-evil', 'w')),\n"
                  "                     ('kill', lambda: os.kill(os.getppid(), 9)), ('fork', os.fork),\n"
                  "                     ('socket', socket.socket)]:\n"
                  "        try:\n"
                  "            if what == 'fork' and fn() == 0:\n"
                  "                os._exit(0)\n"
                  "            fn()\n"
                  "            said.append(what + ' succeeded')\n"
                  "        except OSError as e:\n"
                  "            said.append('%s %s' % (what, e.strerror))\n"
                  "    raise RuntimeError(', '.join(said))\n");
    char *json = failing_run_json(path, "--filter rope.freq.golden");
    ck_assert_msg(strstr(json, "RuntimeError: open Operation not permitted, write Operation not permitted, kill "
                               "Operation not permitted, fork Operation not permitted, socket Operation not "
                               "permitted") != NULL,
                  "%s", json);
    free(json);
    ck_assert_int_ne(access("/tmp/pecert-python-evil", F_OK), 0);
    remove_engine(path);
}
END_TEST

/* Processes whose command line holds text (a Python host's holds its
 * engine's path), waiting up to 3 s for them to go. */
static int processes_holding(const char *text)
{
    for (int tries = 0; tries < 150; tries++) {
        int found = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL) {
            char path[300];
            char cmd[4096];
            snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
            FILE *f = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? fopen(path, "r") : NULL;
            size_t n = f != NULL ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
            if (f != NULL) {
                fclose(f);
            }
            for (size_t i = 0; i < n; i++) {
                cmd[i] = cmd[i] == '\0' ? ' ' : cmd[i];
            }
            cmd[n] = '\0';
            found += strstr(cmd, text) != NULL && strstr(cmd, "pecert.host") != NULL;
        }
        if (d != NULL) {
            closedir(d);
        }
        if (found == 0) {
            return 0;
        }
        usleep(20000);
    }
    return 1;
}

/* An engine that never returns is the case's TIMEOUT, and its host is
 * gone when the run ends. */
START_TEST(an_endless_python_engine_times_out_and_leaves_no_process)
{
    char path[1024];
    python_engine(path, sizeof(path),
                  "def rope_freqs(out_inv_freq, out_attention_scaling, config, seq_len):\n"
                  "    while True:\n"
                  "        pass\n");
    int status = test_pecert(out, sizeof(out), "run --impl python:%s --filter rope.freq.golden --timeout %g", path,
                             test_check_timeout(3.0));
    ck_assert_msg(status == 1, "status %d:\n%s", status, out);
    ck_assert_msg(strstr(out, "TIMEOUT rope.freq.golden") != NULL, "%s", out);
    ck_assert_int_eq(processes_holding(path), 0);
    remove_engine(path);
}
END_TEST

Suite *make_python_suite(void)
{
    return test_suite_of("python",
                         TEST_TCASE("engines", 600, the_torch_engine_passes_every_rope_check_it_implements,
                                    an_exception_fails_with_its_line_and_a_decline_is_not_supported,
                                    a_module_that_cannot_load_is_one_line_and_exit_3, the_python_host_is_sandboxed,
                                    an_endless_python_engine_times_out_and_leaves_no_process),
                         NULL);
}
