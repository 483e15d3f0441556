/*
 * engine_command.c - which program an engine host is, and its command
 * line: pecert-engine for a plugin .so, the Python interpreter running
 * pecert's Python host (python/pecert/host.py) for an engine written in
 * Python (--impl python:SPEC). Both speak include/pecert/WIRE.md.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_internal.h"
#include "plugin_load.h"

extern char **environ;

#ifndef PECERT_SOURCE_DIR
#define PECERT_SOURCE_DIR "."
#endif

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* path, relative to the running executable's folder: the build tree keeps
 * it there, `make install` in ../lib/pecert/. */
static int beside_exe(char *out, size_t len, const char *name)
{
    char dir[PATH_MAX];
    if (pecert_exe_dir(dir, sizeof(dir)) != 0 || snprintf(out, len, "%s/%s", dir, name) >= (int)len) {
        return -1;
    }
    if (!is_file(out) && snprintf(out, len, "%s/../lib/pecert/%s", dir, name) >= (int)len) {
        return -1;
    }
    return 0;
}

/* pecert's Python package: installed beside the host, or the source
 * tree's (a build that was not installed). */
static int python_package(char *out, size_t len)
{
    char dir[PATH_MAX];
    char probe[PATH_MAX + 64];
    if (pecert_exe_dir(dir, sizeof(dir)) == 0 && snprintf(out, len, "%s/../lib/pecert/python", dir) < (int)len) {
        snprintf(probe, sizeof(probe), "%s/pecert/host.py", out);
        if (is_file(probe)) {
            return 0;
        }
    }
    return snprintf(out, len, "%s/python", PECERT_SOURCE_DIR) < (int)len ? 0 : -1;
}

int engine_find_host(pecert_engine *e, char *err, size_t len)
{
    e->python = strncmp(e->path, ENGINE_PYTHON_PREFIX, strlen(ENGINE_PYTHON_PREFIX)) == 0;
    if (e->python) {
        /* The user's interpreter (a virtualenv's, with their torch), or
         * PECERT_PYTHON's. */
        const char *python = getenv("PECERT_PYTHON");
        snprintf(e->host_exe, sizeof(e->host_exe), "%s", python != NULL && python[0] != '\0' ? python : "python3");
        if (python_package(e->python_dir, sizeof(e->python_dir)) != 0) {
            snprintf(err, len, "%s: cannot find pecert's Python package", e->path);
            return -1;
        }
        /* The C host's filters, as the build exported them. */
        if (beside_exe(e->filters, sizeof(e->filters), "engine-filters.bpf") != 0 || !is_file(e->filters)) {
            snprintf(err, len, "%s: cannot find engine-filters.bpf beside pecert", e->path);
            return -1;
        }
        return 0;
    }
    const char *env = getenv("PECERT_ENGINE");
    if (env != NULL && env[0] != '\0') {
        return snprintf(e->host_exe, sizeof(e->host_exe), "%s", env) < (int)sizeof(e->host_exe) ? 0 : -1;
    }
    if (beside_exe(e->host_exe, sizeof(e->host_exe), "pecert-engine") != 0) {
        snprintf(err, len, "%s: cannot find pecert-engine (set PECERT_ENGINE)", e->path);
        return -1;
    }
    return 0;
}

/* The environment with PYTHONPATH starting at pecert's package. */
static int python_environment(engine_command *cmd, const pecert_engine *e)
{
    size_t n = 0;
    while (environ[n] != NULL) {
        n++;
    }
    cmd->envp = calloc(n + 2, sizeof(char *));
    if (cmd->envp == NULL) {
        return -1;
    }
    const char *old = getenv("PYTHONPATH");
    if (snprintf(cmd->pythonpath, sizeof(cmd->pythonpath), "PYTHONPATH=%s%s%s", e->python_dir,
                 old != NULL && old[0] != '\0' ? ":" : "", old != NULL ? old : "") >= (int)sizeof(cmd->pythonpath)) {
        return -1;
    }
    size_t k = 0;
    cmd->envp[k++] = cmd->pythonpath;
    for (size_t i = 0; i < n; i++) {
        if (strncmp(environ[i], "PYTHONPATH=", 11) != 0) {
            cmd->envp[k++] = environ[i];
        }
    }
    cmd->envp[k] = NULL;
    return 0;
}

int engine_command_build(engine_command *cmd, const pecert_engine *e)
{
    int argc = 0;
    cmd->envp = NULL;
    snprintf(cmd->parent, sizeof(cmd->parent), "--parent=%ld", (long)getpid());
    if (e->python) {
        cmd->argv[argc++] = (char *)(uintptr_t)e->host_exe;
        cmd->argv[argc++] = (char *)(uintptr_t) "-m";
        cmd->argv[argc++] = (char *)(uintptr_t) "pecert.host";
    } else {
        cmd->argv[argc++] = (char *)(uintptr_t) "pecert-engine";
    }
    if (e->mode == PECERT_SANDBOX_OFF) {
        cmd->argv[argc++] = (char *)(uintptr_t) "--no-sandbox";
    }
    cmd->argv[argc++] = cmd->parent;
    if (e->python && e->mode == PECERT_SANDBOX_ON) {
        snprintf(cmd->filters, sizeof(cmd->filters), "--filters=%s", e->filters);
        cmd->argv[argc++] = cmd->filters;
    }
    cmd->argv[argc++] = (char *)(uintptr_t)(e->python ? e->path + strlen(ENGINE_PYTHON_PREFIX) : e->path);
    cmd->argv[argc] = NULL;
    return e->python ? python_environment(cmd, e) : 0; /* a C host: envp NULL, this process's */
}

void engine_command_free(engine_command *cmd)
{
    free(cmd->envp);
    cmd->envp = NULL;
}
