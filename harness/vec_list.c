/*
 * vec_list.c - find every manifest ("*.json") under a vectors directory,
 * sorted so that runs and reports are in the same order everywhere.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vec_internal.h"

/* Far deeper than any real layout (a 40-deep tree is fine); stops a
 * pathological one before the path outgrows PATH_MAX. */
#define VEC_LIST_MAX_DEPTH 256

typedef struct path_list {
    char **paths;            /* malloc'ed, each malloc'ed               */
    size_t n;
    size_t cap;
} path_list;

static int list_push(path_list *l, char *path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap > 0 ? l->cap * 2 : 16;
        char **p = realloc(l->paths, cap * sizeof *p);

        if (p == NULL) {
            return -1;
        }
        l->paths = p;
        l->cap = cap;
    }
    l->paths[l->n++] = path;
    return 0;
}

static void list_free(path_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->paths[i]);
    }
    free(l->paths);
    l->paths = NULL;
    l->n = 0;
}

static char *join_path(const char *dir, const char *name)
{
    size_t dir_len = strlen(dir);
    size_t name_len = strlen(name);
    int slash = dir_len > 0 && dir[dir_len - 1] != '/';
    char *p = malloc(dir_len + (size_t)slash + name_len + 1);

    if (p != NULL) {
        memcpy(p, dir, dir_len);
        if (slash) {
            p[dir_len] = '/';
        }
        memcpy(p + dir_len + (size_t)slash, name, name_len + 1);
    }
    return p;
}

static int is_manifest_name(const char *name)
{
    size_t n = strlen(name);

    return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* Hidden entries, the generator's sources (gen/) and the JSON Schema
 * (schema/) are not vector files. */
static int skip_entry(const char *name, int is_dir)
{
    return name[0] == '.' ||
           (is_dir && (strcmp(name, "gen") == 0 ||
                       strcmp(name, "schema") == 0));
}

static int walk(const char *dir, int depth, path_list *l, char *err,
                size_t err_len);

/* One directory entry: recurse, collect, or ignore. A symlink to a file
 * counts; a symlink to a directory is not followed (it could loop). */
static int visit(const char *path, const char *name, int depth, path_list *l,
                 char *err, size_t err_len)
{
    vec_ctx ctx = {path, err, err_len};
    struct stat st;
    int is_link;

    if (lstat(path, &st) != 0) {
        return pecert__vec_fail(&ctx, "stat", NULL, "%s", strerror(errno));
    }
    is_link = S_ISLNK(st.st_mode);
    if (is_link && stat(path, &st) != 0) {
        /* A dangling link is nothing pecert reads, unless it names a
         * manifest: then the vector set is broken, and says where. */
        if (!is_manifest_name(name) || skip_entry(name, 0)) {
            return 0;
        }
        return pecert__vec_fail(&ctx, "stat", NULL, "%s", strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) {
        if (is_link || skip_entry(name, 1)) {
            return 0;
        }
        return walk(path, depth + 1, l, err, err_len);
    }
    if (!S_ISREG(st.st_mode) || skip_entry(name, 0) ||
        !is_manifest_name(name)) {
        return 0;
    }
    return 1; /* keep it */
}

static int walk(const char *dir, int depth, path_list *l, char *err,
                size_t err_len)
{
    vec_ctx ctx = {dir, err, err_len};
    struct dirent *ent;
    DIR *d;
    int rc = 0;

    if (depth > VEC_LIST_MAX_DEPTH) {
        return pecert__vec_fail(&ctx, "opendir", NULL,
                                "nested deeper than %d", VEC_LIST_MAX_DEPTH);
    }
    d = opendir(dir);
    if (d == NULL) {
        return pecert__vec_fail(&ctx, "opendir", NULL, "%s", strerror(errno));
    }
    while (rc == 0) {
        char *path;
        int keep;

        errno = 0;
        ent = readdir(d);
        if (ent == NULL) {
            if (errno != 0) {
                rc = pecert__vec_fail(&ctx, "readdir", NULL, "%s",
                                      strerror(errno));
            }
            break;
        }
        if (ent->d_name[0] == '.') {
            continue; /* ".", ".." and hidden: no stat needed */
        }
        path = join_path(dir, ent->d_name);
        if (path == NULL) {
            rc = pecert__vec_fail(&ctx, "readdir", NULL, "out of memory");
            break;
        }
        keep = visit(path, ent->d_name, depth, l, err, err_len);
        if (keep != 1) {
            free(path);
            rc = keep;
        } else if (list_push(l, path) != 0) {
            free(path);
            rc = pecert__vec_fail(&ctx, "readdir", NULL, "out of memory");
        }
    }
    (void)closedir(d);
    return rc;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pecert_vectors_list(char ***out_paths, const char *dir, char *err,
                        size_t err_len)
{
    path_list l = {NULL, 0, 0};
    vec_ctx ctx = {dir != NULL ? dir : "(null)", err, err_len};
    int rc;

    if (err != NULL && err_len > 0) {
        err[0] = '\0';
    }
    if (out_paths == NULL || dir == NULL) {
        return pecert__vec_fail(&ctx, "opendir", NULL, "invalid argument");
    }
    *out_paths = NULL;
    rc = walk(dir, 0, &l, err, err_len);
    if (rc == 0 && l.n >= INT_MAX) {
        rc = pecert__vec_fail(&ctx, "readdir", NULL, "too many files");
    }
    /* A NULL terminator, so the array can also be walked without n. */
    if (rc == 0 && list_push(&l, NULL) != 0) {
        rc = pecert__vec_fail(&ctx, "readdir", NULL, "out of memory");
    }
    if (rc != 0) {
        list_free(&l);
        return -1;
    }
    l.n--;
    if (l.paths != NULL && l.n > 1) {
        qsort(l.paths, l.n, sizeof *l.paths, cmp_path);
    }
    *out_paths = l.paths;
    return (int)l.n;
}

void pecert_vectors_list_free(char **paths, int n)
{
    if (paths == NULL) {
        return;
    }
    for (int i = 0; i < n; i++) {
        free(paths[i]);
    }
    free(paths);
}
