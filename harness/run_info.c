/* run_info.c - host, vector-set identity and cited vectors of a run. */
#include "run_info.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The compiler that built this file, as it names itself. */
#if defined(__clang__)
#define PECERT_COMPILER __VERSION__
#elif defined(__GNUC__)
#define PECERT_COMPILER "gcc " __VERSION__
#else
#define PECERT_COMPILER "unknown compiler"
#endif

/* "model name : AMD EPYC" from /proc/cpuinfo; "unknown" elsewhere. */
void pecert_read_cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || colon == NULL) {
            continue;
        }
        colon += 1 + strspn(colon + 1, " \t");
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, len, "%s", colon);
        break;
    }
    fclose(f);
}

void pecert_capture_host(pecert_run_info *info)
{
    pecert_read_cpu_model(info->cpu_model, sizeof(info->cpu_model));
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    info->cpus_online = cpus > 0 ? (int)cpus : 0;
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(info->os, sizeof(info->os), "%s %s %s", u.sysname, u.release, u.machine);
    }
    snprintf(info->compiler, sizeof(info->compiler), "%s", PECERT_COMPILER);
}

/* The path shown: relative to the vectors directory when inside it; as
 * given when there is none ("": an absolute path keeps its leading '/'). */
static const char *relative_path(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 0 && dir[n - 1] == '/') {
        n--;
    }
    return n > 0 && strncmp(path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

#define FNV64_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV64_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ p[i]) * FNV64_PRIME;
    }
    return h;
}

/* Hashes a file's bytes into h; an unreadable file hashes as its name. */
static uint64_t fnv1a_file(uint64_t h, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return h;
    }
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        h = fnv1a(h, buf, n);
    }
    fclose(f);
    return h;
}

int pecert_capture_vector_set(pecert_run_results *run, const pecert_vfile *files,
                              size_t n_files, const char *dir)
{
    uint64_t h = FNV64_OFFSET;
    run->sources = calloc(n_files > 0 ? n_files : 1, sizeof(*run->sources));
    if (run->sources == NULL) {
        return -1;
    }
    run->n_sources = n_files;
    for (size_t i = 0; i < n_files; i++) {
        const pecert_vfile *f = &files[i];
        pecert_vector_source *s = &run->sources[i];
        const char *rel = relative_path(f->path, dir);
        snprintf(s->path, sizeof(s->path), "%s", rel);
        snprintf(s->family, sizeof(s->family), "%s", f->family != NULL ? f->family : "");
        snprintf(s->repo, sizeof(s->repo), "%s", f->prov_repo != NULL ? f->prov_repo : "");
        snprintf(s->commit, sizeof(s->commit), "%s", f->prov_commit != NULL ? f->prov_commit : "");
        snprintf(s->tag, sizeof(s->tag), "%s", f->prov_tag != NULL ? f->prov_tag : "");
        s->n_vectors = (int64_t)f->n_tests;
        /* The name the set knows the file by, never where this checkout
         * keeps it: a file outside the vectors directory (certify's one
         * profile file, given absolutely or relatively) by its base name. */
        const char *slash = strrchr(f->path, '/');
        const char *name = rel != f->path ? rel : slash != NULL ? slash + 1 : f->path;
        h = fnv1a(h, name, strlen(name) + 1); /* the NUL separates name from bytes */
        h = fnv1a_file(h, f->path);
    }
    snprintf(run->info.vectors_hash, sizeof(run->info.vectors_hash), "fnv1a64:%016" PRIx64, h);
    return 0;
}

static const pecert_vtest *find_test(const pecert_vfile *f, int64_t tc_id)
{
    for (size_t i = 0; i < f->n_tests; i++) {
        if (f->tests[i].tc_id == tc_id) {
            return &f->tests[i];
        }
    }
    return NULL;
}

static void join_flags(char *out, size_t len, const pecert_vtest *t)
{
    out[0] = '\0';
    for (size_t i = 0; i < t->n_flags; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", i > 0 ? ", " : "", t->flags[i]);
    }
}

/* Records test tc_id of f in r once (the first citation wins). */
static void cite(pecert_check_result *r, const pecert_vfile *f, int64_t tc_id, const char *dir)
{
    const char *rel = relative_path(f->path, dir);
    const pecert_vtest *t = find_test(f, tc_id);
    for (int i = 0; i < r->n_vrefs; i++) {
        if (r->vrefs[i].tc_id == tc_id && strcmp(r->vrefs[i].file, rel) == 0) {
            return;
        }
    }
    if (t == NULL || r->n_vrefs >= PECERT_RESULT_MAX_VREFS) {
        return;
    }
    pecert_vector_ref *v = &r->vrefs[r->n_vrefs++];
    snprintf(v->file, sizeof(v->file), "%s", rel);
    v->tc_id = tc_id;
    snprintf(v->comment, sizeof(v->comment), "%s", t->comment != NULL ? t->comment : "");
    join_flags(v->flags, sizeof(v->flags), t);
    snprintf(v->source, sizeof(v->source), "%s:%s", t->source_file != NULL ? t->source_file : "?",
             t->source_function != NULL ? t->source_function : "?");
}

/* The loaded file whose path is file, or NULL. */
static const pecert_vfile *loaded_file(const pecert_vfile *files, size_t n_files, const char *file)
{
    for (size_t i = 0; i < n_files; i++) {
        if (strcmp(files[i].path, file) == 0) {
            return &files[i];
        }
    }
    return NULL;
}

static void cite_vector(pecert_check_result *r, const char *file, int64_t tc_id, const pecert_vfile *files,
                        size_t n_files, const char *dir)
{
    const pecert_vfile *f = file[0] != '\0' ? loaded_file(files, n_files, file) : NULL;
    if (f != NULL) {
        cite(r, f, tc_id, dir);
    }
}

void pecert_cite_vectors(pecert_check_result *r, const pecert_vfile *files, size_t n_files,
                         const char *dir)
{
    for (size_t i = 0; i < r->n_failures && r->n_vrefs < PECERT_RESULT_MAX_VREFS; i++) {
        cite_vector(r, r->failures[i].file, r->failures[i].tc_id, files, n_files, dir);
    }
    if (r->verdict >= PECERT_VERDICT_FAIL) {
        cite_vector(r, r->worst_vector.file, r->worst_vector.tc_id, files, n_files, dir);
    }
}
