/* plugin_load.c - dlopen a plugin, check its ABI version and struct size. */
#include "plugin_load.h"

#include "isolate.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The last descriptor field this host reads: a plugin built against an
 * older minor whose struct ends earlier is refused, never read past. */
#define HOST_DESC_MIN_SIZE                                                     \
    (offsetof(pecert_plugin, rope_apply) + sizeof(((pecert_plugin *)0)->rope_apply))

int pecert_plugin_resolve(char *out, size_t out_len, const char *name_or_path,
                          const char *impl_dir)
{
    size_t len = strlen(name_or_path);
    /* An engine written in Python (python:SPEC) is its host's to find. */
    int has_slash = strchr(name_or_path, '/') != NULL || strncmp(name_or_path, "python:", 7) == 0;
    int is_so = len > 3 && strcmp(name_or_path + len - 3, ".so") == 0;
    /* "myrope.so" is a file in the working directory, as a shell user
     * means it: dlopen() would search the library path for a bare name. */
    int n = has_slash ? snprintf(out, out_len, "%s", name_or_path)
            : is_so   ? snprintf(out, out_len, "./%s", name_or_path)
                      : snprintf(out, out_len, "%s/%s.so", impl_dir, name_or_path);
    return (n < 0 || (size_t)n >= out_len) ? -1 : 0;
}

int pecert_plugin_validate(const pecert_plugin *desc, const char *path, char *err, size_t err_len)
{
    if (PECERT_ABI_MAJOR_OF(desc->abi_version) != PECERT_ABI_MAJOR) {
        snprintf(err, err_len, "%s: plugin ABI %u.%u, host speaks %u.x", path,
                 PECERT_ABI_MAJOR_OF(desc->abi_version), desc->abi_version & 0xffffu,
                 (unsigned)PECERT_ABI_MAJOR);
        return -1;
    }
    if (desc->struct_size < HOST_DESC_MIN_SIZE) {
        snprintf(err, err_len, "%s: descriptor struct_size %u < %zu the host needs",
                 path, desc->struct_size, (size_t)HOST_DESC_MIN_SIZE);
        return -1;
    }
    if (desc->id == NULL || desc->name == NULL || desc->version == NULL ||
        desc->last_error == NULL) {
        snprintf(err, err_len, "%s: descriptor lacks id, name, version or last_error",
                 path);
        return -1;
    }
    if ((desc->create == NULL) != (desc->destroy == NULL)) {
        snprintf(err, err_len, "%s: descriptor has create without destroy (or the reverse)",
                 path);
        return -1;
    }
    return 0;
}

/* The load itself: dlopen (the plugin's constructors run), the entry call,
 * the descriptor's checks. */
static int open_here(pecert_loaded_plugin *out, const char *path, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(err, err_len, "%s: cannot load: %s", path, dlerror());
        return -1;
    }
    /* POSIX sanctions converting dlsym's object pointer to a function one. */
    pecert_plugin_entry_fn entry;
    *(void **)&entry = dlsym(handle, PECERT_PLUGIN_ENTRY_SYMBOL);
    if (entry == NULL) {
        snprintf(err, err_len, "%s: no symbol %s: not a pecert plugin", path,
                 PECERT_PLUGIN_ENTRY_SYMBOL);
        goto out_close;
    }
    const pecert_plugin *desc = entry(PECERT_ABI_VERSION);
    if (desc == NULL) {
        snprintf(err, err_len, "%s: plugin refused host ABI %u.%u", path,
                 (unsigned)PECERT_ABI_MAJOR, (unsigned)PECERT_ABI_MINOR);
        goto out_close;
    }
    if (pecert_plugin_validate(desc, path, err, err_len) != 0) {
        goto out_close;
    }
    out->dl_handle = handle;
    out->desc = desc;
    snprintf(out->path, sizeof(out->path), "%s", path);
    return 0;

out_close:
    dlclose(handle);
    return -1;
}

void pecert_plugin_close(pecert_loaded_plugin *plugin)
{
    if (plugin->dl_handle != NULL) {
        dlclose(plugin->dl_handle);
    }
    pecert_engine_free(plugin->engine);
    memset(plugin, 0, sizeof(*plugin));
}

int pecert_plugin_has_capability(const pecert_plugin *desc, const char *cap)
{
    for (const char *const *c = desc->capabilities; c != NULL && *c != NULL; c++) {
        if (strcmp(*c, cap) == 0) {
            return 1;
        }
    }
    return 0;
}

const char *pecert_status_name(pecert_status status)
{
    switch (status) {
    case PECERT_OK:
        return "ok";
    case PECERT_E_UNSUPPORTED:
        return "unsupported";
    case PECERT_E_INVAL:
        return "invalid argument";
    case PECERT_E_NOMEM:
        return "out of memory";
    case PECERT_E_INTERNAL:
        return "internal error";
    case PECERT_E_ABI:
        return "ABI mismatch";
    default:
        return "unknown status";
    }
}

const pecert_scope *pecert_plugin_scope(const pecert_plugin *desc)
{
    if (desc == NULL || !PECERT_HAS_FIELD(desc, pecert_plugin, scope) || desc->scope == NULL ||
        desc->scope->struct_size < sizeof(pecert_scope)) {
        return NULL;
    }
    return desc->scope;
}

void pecert_scope_describe(char *out, size_t len, const pecert_scope *scope)
{
    static const char *const names[] = {"?", "f32", "f64", "f16", "bf16", "i32", "i64"};
    if (scope == NULL || (scope->flags == 0 && scope->max_position == 0 && scope->rope_apply_dtypes == 0)) {
        snprintf(out, len, "none declared");
        return;
    }
    size_t used = 0;
    out[0] = '\0';
    if (scope->max_position > 0) {
        used += (size_t)snprintf(out + used, len - used, "positions <= %lld", (long long)scope->max_position);
    }
    if ((scope->flags & PECERT_SCOPE_WHOLE_HEAD_ONLY) && used < len) {
        used += (size_t)snprintf(out + used, len - used, "%swhole heads only", used > 0 ? ", " : "");
    }
    if (scope->rope_apply_dtypes != 0 && used < len) {
        used += (size_t)snprintf(out + used, len - used, "%srope_apply on", used > 0 ? ", " : "");
        for (int d = 1; d < (int)(sizeof(names) / sizeof(names[0])) && used < len; d++) {
            if (scope->rope_apply_dtypes & (1u << d)) {
                used += (size_t)snprintf(out + used, len - used, " %s", names[d]);
            }
        }
    }
}

/* A plugin's load-time code gets this long before it counts as hung
 * ($PECERT_LOAD_TIMEOUT seconds, if set, for an engine that loads slower). */
#define LOAD_TIMEOUT_S 30.0

double pecert_load_timeout_s(void)
{
    const char *env = getenv("PECERT_LOAD_TIMEOUT");
    char *end = NULL;
    double s = env != NULL ? strtod(env, &end) : 0.0;
    return env != NULL && end != env && *end == '\0' && s > 0 && s <= 86400 ? s : LOAD_TIMEOUT_S;
}

/* In the probe's child: the whole load, and one line saying how it went. */
static int probe_child(void *arg, int out_fd, pecert_case_slot *case_slot)
{
    const char *path = arg;
    pecert_loaded_plugin p;
    char err[1024];
    pecert_case_slot_set(case_slot, "loading (the plugin's constructors and pecert_plugin_entry)");
    const char *line = open_here(&p, path, err, sizeof(err)) == 0 ? "ok" : err;
    return pecert_write_fully(out_fd, line, strlen(line));
}

/* Loads path first in a child (isolate.h), where its constructors, its
 * entry function and the descriptor's checks may crash, hang, exit or
 * scribble without taking pecert along: only a plugin that loaded cleanly
 * there is loaded here. 0, or -1 with "path: why" in err. */
static int probe(const char *path, char *err, size_t err_len)
{
    pecert_child_outcome o;
    double timeout_s = pecert_load_timeout_s();
    pecert_run_isolated(&o, probe_child, (void *)(uintptr_t)path, timeout_s);
    int rc = -1;
    if (o.status == PECERT_CHILD_TIMED_OUT) {
        snprintf(err, err_len, "%s: cannot load: its load-time code (constructors, pecert_plugin_entry) did not "
                               "return within %.3g s", path, timeout_s);
    } else if (o.status == PECERT_CHILD_SIGNALED) {
        snprintf(err, err_len, "%s: cannot load: its load-time code (constructors, pecert_plugin_entry) was killed "
                               "by signal %d (%s)", path, o.signal, strsignal(o.signal));
    } else if (o.status == PECERT_CHILD_NOT_RUN) {
        snprintf(err, err_len, "%s: cannot load: could not start the loading child: %s", path,
                 o.output != NULL ? o.output : "?");
    } else if (o.exit_code != 0 || o.output_forged || o.output == NULL) {
        snprintf(err, err_len, "%s: cannot load: its load-time code exited (status %d) before pecert could use it",
                 path, o.exit_code);
    } else if (strcmp(o.output, "ok") != 0) {
        snprintf(err, err_len, "%s", o.output); /* the loader's own reason */
    } else {
        rc = 0;
    }
    pecert_child_outcome_free(&o);
    return rc;
}

int pecert_plugin_open(pecert_loaded_plugin *out, const char *path, char *err,
                       size_t err_len)
{
    memset(out, 0, sizeof(*out));
    if (probe(path, err, err_len) != 0) {
        return -1;
    }
    return open_here(out, path, err, err_len);
}

int pecert_plugin_open_hosted(pecert_loaded_plugin *out, const char *path, pecert_sandbox_mode mode, char *err,
                              size_t err_len)
{
    memset(out, 0, sizeof(*out));
    if (snprintf(out->path, sizeof(out->path), "%s", path) >= (int)sizeof(out->path)) {
        snprintf(err, err_len, "%s: path too long", path);
        return -1;
    }
    if (pecert_engine_load(&out->engine, path, mode, err, err_len) != 0) {
        return -1;
    }
    out->desc = pecert_engine_desc(out->engine);
    return 0;
}

int pecert_exe_dir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        return -1;
    }
    exe[n] = '\0';
    int w = snprintf(out, len, "%s", dirname(exe));
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void pecert_impl_dir(char *out, size_t len)
{
    char dir[PATH_MAX];
    char installed[PATH_MAX + 32];
    if (pecert_exe_dir(dir, sizeof(dir)) != 0) {
        snprintf(out, len, "build/impls");
        return;
    }
    snprintf(out, len, "%s/impls", dir); /* the build tree: build/pecert, build/impls */
    snprintf(installed, sizeof(installed), "%s/../lib/pecert/impls", dir); /* make install */
    if (!is_dir(out) && is_dir(installed)) {
        snprintf(out, len, "%s", installed);
    }
}

pecert_status pecert_plugin_instance(const pecert_plugin *desc, void **out)
{
    pecert_engine *engine = pecert_engine_of(desc);
    *out = NULL;
    if (engine != NULL) {
        return pecert_engine_instance(engine, out);
    }
    return desc->create != NULL ? desc->create(out) : PECERT_OK;
}

void pecert_plugin_release(const pecert_plugin *desc, void *instance)
{
    pecert_engine *engine = pecert_engine_of(desc);
    if (engine != NULL) {
        pecert_engine_release(engine, instance);
    } else if (desc->destroy != NULL) {
        desc->destroy(instance);
    }
}
