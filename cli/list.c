/*
 * list.c - `pecert list`: the checks, the vector files with their counts and
 * provenance, and the built-in plugins.
 */
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "commands.h"
#include "plugin_load.h"
#include "runner.h"
#include "vectors.h"

const char pecert_usage_list[] =
    "usage: pecert list [--vectors DIR]\n"
    "\n"
    "Lists the checks (id and purpose), the vector files with their counts and\n"
    "provenance, and the built-in plugins.\n"
    "\n"
    "options:\n"
    "  --vectors DIR      the vector directory (default: $PECERT_VECTORS or the\n"
    "                     source tree's)\n"
    "  --help             this text\n"
    "\n"
    "exit status: 0 listed, 2 bad usage or a vector file that breaks its schema\n";


static void list_checks(void)
{
    printf("checks (%zu):\n", pecert_num_checks);
    for (size_t i = 0; i < pecert_num_checks; i++) {
        printf("  %-*s %s\n", PECERT_CHECK_ID_COLUMN, pecert_checks[i]->id, pecert_checks[i]->purpose);
    }
}

/* One loaded manifest, as `pecert list` shows it. */
typedef struct listed_file {
    char *path;
    char *family;
    char *repo;
    char *commit;
    char *tag;
    size_t n_tests;
} listed_file;

static char *dup_str(const char *s)
{
    size_t n = strlen(s != NULL ? s : "") + 1;
    char *d = malloc(n);
    if (d != NULL) {
        memcpy(d, s != NULL ? s : "", n);
    }
    return d;
}

static int cmp_listed(const void *a, const void *b)
{
    const listed_file *x = a;
    const listed_file *y = b;
    int c = strcmp(x->family, y->family);
    return c != 0 ? c : strcmp(x->path, y->path);
}

/* The path shown: relative to the vectors directory when inside it. */
static const char *shown_path(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 0 && dir[n - 1] == '/') {
        n--;
    }
    return strncmp(path, dir, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* Loads every manifest; returns the count listed (failures go to stderr). */
static size_t load_listed(listed_file *out, char **paths, int n, int *status)
{
    size_t m = 0;
    char err[2048];
    for (int i = 0; i < n; i++) {
        pecert_vfile f;
        int rc = pecert_vfile_load(&f, paths[i], err, sizeof(err));
        if (rc == PECERT_VFILE_NOT_MANIFEST) {
            fprintf(stderr, "pecert: warning: %s, skipped\n", err);
            continue;
        }
        if (rc != 0) {
            fprintf(stderr, "pecert: %s\n", err);
            *status = PECERT_EXIT_USAGE;
            continue;
        }
        out[m] = (listed_file){dup_str(paths[i]), dup_str(f.family), dup_str(f.prov_repo),
                               dup_str(f.prov_commit), dup_str(f.prov_tag), f.n_tests};
        m++;
        pecert_vfile_free(&f);
    }
    return m;
}

static void free_listed(listed_file *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(files[i].path);
        free(files[i].family);
        free(files[i].repo);
        free(files[i].commit);
        free(files[i].tag);
    }
    free(files);
}

/* Vector files grouped by family: each family with its file and vector
 * counts, then each file with its count and provenance. */
static int list_vectors(const char *dir)
{
    char **paths = NULL;
    char err[2048];
    int n = pecert_vectors_list(&paths, dir, err, sizeof(err));
    if (n < 0) {
        fprintf(stderr, "pecert: %s\n", err);
        return PECERT_EXIT_USAGE;
    }
    int status = PECERT_EXIT_PASS;
    listed_file *files = calloc((size_t)n + 1, sizeof(*files));
    size_t m = files != NULL ? load_listed(files, paths, n, &status) : 0;
    qsort(files, m, sizeof(*files), cmp_listed);
    size_t total = 0;
    size_t n_families = 0;
    for (size_t i = 0; i < m; i++) {
        total += files[i].n_tests;
        n_families += i == 0 || strcmp(files[i].family, files[i - 1].family) != 0;
    }
    printf("\nvector families in %s (%zu families, %zu files, %zu vectors):\n", dir, n_families, m,
           total);
    for (size_t i = 0; i < m; i++) {
        if (i == 0 || strcmp(files[i].family, files[i - 1].family) != 0) {
            size_t nf = 0;
            size_t nv = 0;
            for (size_t j = i; j < m && strcmp(files[j].family, files[i].family) == 0; j++) {
                nf++;
                nv += files[j].n_tests;
            }
            printf("  %-12s %5zu vectors in %zu file%s\n", files[i].family, nv, nf, nf == 1 ? "" : "s");
        }
        printf("    %-34s %5zu  %s@%.12s (%s)\n", shown_path(files[i].path, dir), files[i].n_tests,
               files[i].repo, files[i].commit, files[i].tag);
    }
    printf("  total: %zu vectors\n", total);
    free_listed(files, m);
    pecert_vectors_list_free(paths, n);
    return status;
}

static void list_plugins(void)
{
    char dir[PATH_MAX];
    pecert_impl_dir(dir, sizeof(dir));
    printf("\nbuilt-in plugins (%s):\n", dir);
    DIR *d = opendir(dir);
    if (d == NULL) {
        printf("  (none built)\n");
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0) {
            continue;
        }
        char path[PATH_MAX + 256];
        char err[2048];
        pecert_loaded_plugin p;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (pecert_plugin_open_hosted(&p, path, PECERT_SANDBOX_ON, err, sizeof(err)) == 0) {
            printf("  %-10s %s %s\n", p.desc->name, p.desc->id, p.desc->version);
            pecert_plugin_close(&p);
        }
    }
    closedir(d);
}

int pecert_cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {{"vectors", required_argument, NULL, 'v'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *vectors = pecert_default_vectors();
    int c;
    int rc;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'v') {
            vectors = optarg;
        } else if (c == 'h') {
            fputs(pecert_usage_list, stdout);
            return PECERT_EXIT_PASS;
        } else {
            return pecert_bad_option(pecert_usage_list, "list", argv);
        }
    }
    if ((rc = pecert_no_operands(pecert_usage_list, "list", argc, argv)) != 0) {
        return rc;
    }
    list_checks();
    int status = list_vectors(vectors);
    list_plugins();
    return status;
}
