/*
 * plugin_load.h - open a plugin shared object and validate its descriptor.
 */
#ifndef PECERT_HARNESS_PLUGIN_LOAD_H
#define PECERT_HARNESS_PLUGIN_LOAD_H

#include <stddef.h>

#include "engine.h"
#include "pecert/plugin.h"

typedef struct pecert_loaded_plugin {
    void *dl_handle;            /* from dlopen (in this process)        */
    pecert_engine *engine;      /* or its engine host (engine.h)        */
    const pecert_plugin *desc;  /* validated descriptor (or its proxies) */
    char path[1024];            /* the file that was opened             */
} pecert_loaded_plugin;

/*
 * pecert_plugin_resolve turns NAME or PATH into a file path: anything with
 * a '/' is a path, and python:SPEC (an engine written in Python) stays as
 * it is; a file name ending in ".so" is in the working directory
 * ("./NAME.so", as the shell user means it); a bare name is
 * IMPL_DIR/NAME.so.
 * Returns 0, or -1 if the result does not fit in out_len.
 */
int pecert_plugin_resolve(char *out, size_t out_len, const char *name_or_path,
                          const char *impl_dir);

/* pecert_impl_dir: the built-in plugins' folder: impls/ next to the
 * running executable (the build tree: build/pecert, build/impls), or, when
 * there is none, ../lib/pecert/impls from it (`make install`); "build/impls"
 * when /proc/self/exe cannot be read. */
void pecert_impl_dir(char *out, size_t len);

/* pecert_exe_dir: the folder of the running executable; 0, or -1. */
int pecert_exe_dir(char *out, size_t len);

/*
 * pecert_plugin_open_hosted: the plugin under test, in an engine host
 * (engine.h): pecert never maps its code. desc is the descriptor of
 * proxies, checked as pecert_plugin_open checks one. 0, or -1 with
 * "path: reason" in err.
 */
int pecert_plugin_open_hosted(pecert_loaded_plugin *out, const char *path, pecert_sandbox_mode mode, char *err,
                              size_t err_len);

/*
 * pecert_plugin_open dlopens path into this process (pecert's own plugins
 * only: the oracle, and what `pecert bench` times), calls its pecert_plugin_entry with the
 * host ABI version and validates the descriptor: ABI major, struct_size
 * covering every field the host reads, non-NULL id/name/version.
 * Returns 0, or -1 with "path: reason" in err (the plugin is closed).
 */
int pecert_plugin_open(pecert_loaded_plugin *out, const char *path, char *err,
                       size_t err_len);

/* pecert_load_timeout_s: how long a plugin's load-time code may run
 * before it counts as hung: $PECERT_LOAD_TIMEOUT seconds, or 30. */
double pecert_load_timeout_s(void);

/* pecert_plugin_validate: the descriptor's rules (ABI major, a
 * struct_size covering what the host reads, id, name, version and
 * last_error present, create and destroy both or neither). 0, or -1 with
 * "path: reason". */
int pecert_plugin_validate(const pecert_plugin *desc, const char *path, char *err, size_t err_len);

/* pecert_plugin_instance: an instance of desc in *out. plugin.h lets
 * create be NULL (a stateless plugin: every call gets NULL), so nothing
 * may call desc->create itself. PECERT_OK, or create's status. */
pecert_status pecert_plugin_instance(const pecert_plugin *desc, void **out);

/* pecert_plugin_release: destroys what pecert_plugin_instance made
 * (nothing when destroy is NULL, as it is exactly when create is). */
void pecert_plugin_release(const pecert_plugin *desc, void *instance);

/* pecert_plugin_close dlcloses (or frees the engine); a zeroed plugin is a
 * no-op. */
void pecert_plugin_close(pecert_loaded_plugin *plugin);

/* pecert_plugin_scope: the plugin's declared scope (ABI 1.3), or NULL when
 * it declares none (an older descriptor, a NULL scope, or one whose
 * struct_size is too small to read). */
const pecert_scope *pecert_plugin_scope(const pecert_plugin *desc);

/* pecert_scope_describe: the scope in words ("positions <= 2147483647,
 * whole heads only, rope_apply on f32 f16"), or "none declared". */
void pecert_scope_describe(char *out, size_t len, const pecert_scope *scope);

/* pecert_plugin_has_capability: 1 if the descriptor lists cap, else 0. */
int pecert_plugin_has_capability(const pecert_plugin *desc, const char *cap);

/* pecert_status_name: "ok", "unsupported", "invalid argument", ... */
const char *pecert_status_name(pecert_status status);

#endif /* PECERT_HARNESS_PLUGIN_LOAD_H */
