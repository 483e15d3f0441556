/* common.c - helpers every pecert subcommand uses. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "dump_model.h"
#include "plugin_load.h"
#include "results.h"
#include "runner.h"

/* Bad usage: the one line saying what is wrong, the command's synopsis
 * (its usage lines, up to the first blank line) and where the rest is;
 * not the whole help, which buries the error. */
int pecert_usage_error(const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pecert: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const char *end = strstr(usage, "\n\n");
    int len = end != NULL ? (int)(end - usage) : (int)strlen(usage);
    const char *cmd = strncmp(usage, "usage: pecert ", 14) == 0 ? usage + 14 : "";
    int cmd_len = (int)strcspn(cmd, " \n");
    fprintf(stderr, "\n%.*s\n(pecert %.*s%s--help: every option and the exit statuses)\n", len, usage, cmd_len, cmd,
            cmd_len > 0 ? " " : "");
    return PECERT_EXIT_USAGE;
}

/* A positive number of seconds up to a day; 0, or -1. */
static int parse_seconds(double *out, const char *arg)
{
    char *end = NULL;
    double v = strtod(arg, &end);
    if (end == arg || *end != '\0' || !(v > 0) || v > 86400) {
        return -1;
    }
    *out = v;
    return 0;
}

static int check_output(const char *cmd, const char *name, const char *path)
{
    char copy[PATH_MAX];
    struct stat info;
    const char *dir;

    if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy)) {
        fprintf(stderr, "pecert: %s: %s %s: path longer than %d bytes\n", cmd, name, path,
                PATH_MAX - 1);
        return -1;
    }
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
        fprintf(stderr, "pecert: %s: %s %s: is a directory\n", cmd, name, path);
        return -1;
    }
    dir = dirname(copy);
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "pecert: %s: %s %s: cannot write in %s: %s\n", cmd, name, path, dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

int pecert_check_outputs(const char *cmd, const char *const *names, const char *const *paths,
                         int n)
{
    for (int i = 0; i < n; i++) {
        if (paths[i] != NULL && check_output(cmd, names[i], paths[i]) != 0) {
            return -1;
        }
    }
    return 0;
}

double pecert_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The folder of pecert's data (vectors/, conformance/profiles/, the mutant
 * catalogue): ../share/pecert from the executable when that holds it
 * (`make install`), else the source tree pecert was built from. */
static const char *data_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0] == '\0') {
        char exe[PATH_MAX];
        char installed[PATH_MAX + 32];
        struct stat st;
        snprintf(dir, sizeof(dir), "%s", PECERT_SOURCE_DIR);
        if (pecert_exe_dir(exe, sizeof(exe)) == 0) {
            snprintf(installed, sizeof(installed), "%s/../share/pecert", exe);
            char probe[PATH_MAX + 64];
            snprintf(probe, sizeof(probe), "%s/vectors", installed);
            if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode) && strlen(installed) < sizeof(dir)) {
                snprintf(dir, sizeof(dir), "%s", installed);
            }
        }
    }
    return dir;
}

const char *pecert_default_vectors(void)
{
    static char path[PATH_MAX + 16];
    const char *env = getenv("PECERT_VECTORS");
    if (env != NULL && env[0] != '\0') {
        return env;
    }
    snprintf(path, sizeof(path), "%s/vectors", data_dir());
    return path;
}

const char *pecert_default_profiles(void)
{
    static char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/conformance/profiles", data_dir());
    return path;
}

const char *pecert_default_catalogue(void)
{
    static char path[PATH_MAX + 40];
    snprintf(path, sizeof(path), "%s/impls/mutants/catalogue.json", data_dir());
    return path;
}

int pecert_parse_max_details(int *out, const char *arg)
{
    char *end = NULL;
    if (strcmp(arg, "all") == 0) {
        *out = PECERT_MAX_DETAILS_ALL;
        return 0;
    }
    long n = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || n < 0 || n > 1000000) {
        return -1;
    }
    *out = (int)n;
    return 0;
}

int pecert_parse_count(int *out, const char *arg, int min, int max)
{
    char *end = NULL;
    long n = strtol(arg, &end, 10);
    if (end == arg || *end != '\0' || n < min || n > max) {
        return -1;
    }
    *out = (int)n;
    return 0;
}

int pecert_open_model_and_plugin(const char *who, const pecert_model_args *a, const char *plugin,
                                 const pecert_sandbox_mode *hosted, pecert_certify_model **m, pecert_loaded_plugin *p)
{
    char err[1024] = "path too long";
    *m = malloc(sizeof(**m));
    if (*m == NULL || pecert_dump_model_load(*m, a->config, a->profile, a->profiles, a->layer, err, sizeof(err)) != 0) {
        fprintf(stderr, "pecert: %s\n", *m == NULL ? "out of memory" : err);
        free(*m);
        return PECERT_EXIT_USAGE;
    }
    char dir[PATH_MAX];
    char path[PATH_MAX];
    pecert_impl_dir(dir, sizeof(dir));
    if (pecert_plugin_resolve(path, sizeof(path), plugin, dir) != 0 ||
        (hosted != NULL ? pecert_plugin_open_hosted(p, path, *hosted, err, sizeof(err))
                        : pecert_plugin_open(p, path, err, sizeof(err))) != 0) {
        fprintf(stderr, "pecert: %s: %s\n", who, err);
        free(*m);
        return PECERT_EXIT_LOAD;
    }
    return PECERT_EXIT_PASS;
}

int pecert_bad_option(const char *usage, const char *cmd, char **argv)
{
    return pecert_usage_error(usage, "%s: unknown or incomplete option '%s'", cmd, argv[optind - 1]);
}

int pecert_no_operands(const char *usage, const char *cmd, int argc, char **argv)
{
    return optind < argc ? pecert_usage_error(usage, "%s: unexpected argument '%s'", cmd, argv[optind]) : 0;
}

int pecert_timeout_arg(double *out, const char *usage, const char *cmd, const char *arg)
{
    return parse_seconds(out, arg) != 0
               ? pecert_usage_error(usage, "%s: --timeout '%s': expected seconds in (0, 86400]", cmd, arg)
               : 0;
}

int pecert_sandbox_arg(pecert_sandbox_mode *out, const char *usage, const char *cmd, const char *arg)
{
    if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0) {
        *out = arg[1] == 'n' ? PECERT_SANDBOX_ON : PECERT_SANDBOX_OFF;
        return 0;
    }
    return pecert_usage_error(usage, "%s: --sandbox '%s': expected on or off", cmd, arg);
}
