/* common.c - helpers every pecert subcommand uses. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "results.h"
#include "runner.h"

int pecert_usage_error(const char *usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pecert: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n\n%s", usage);
    va_end(ap);
    return PECERT_EXIT_USAGE;
}

int pecert_parse_seconds(double *out, const char *arg)
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

void pecert_impl_dir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        snprintf(out, len, "build/impls");
        return;
    }
    exe[n] = '\0';
    snprintf(out, len, "%s/impls", dirname(exe));
}

const char *pecert_default_vectors(void)
{
    const char *env = getenv("PECERT_VECTORS");
    return env != NULL && env[0] != '\0' ? env : PECERT_SOURCE_DIR "/vectors";
}

void pecert_print_precision(const pecert_check_result *r, int id_width)
{
    if (r->precision.ratio > PECERT_PRECISION_NOTE_RATIO) {
        char grade[2 * PECERT_RESULT_LINE_MAX];
        pecert_precision_line(grade, sizeof(grade), &r->precision);
        printf("  %-7s %-*s precision: %s\n", "", id_width, "", grade);
    }
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

void pecert_print_failures(const pecert_check_result *r, int max)
{
    size_t shown = max == PECERT_MAX_DETAILS_ALL || (size_t)max > r->n_failures ? r->n_failures : (size_t)max;
    for (size_t i = 0; i < shown; i++) {
        printf("          %s\n", r->failures[i].line);
    }
    int64_t hidden = (int64_t)(r->n_failures - shown) + r->n_failures_dropped;
    if (hidden > 0 && r->n_failures_dropped > 0) {
        printf("          ... and %lld more (--max-details N|all prints them; --json holds the first %d)\n",
               (long long)hidden, PECERT_RESULT_MAX_FAILURES);
    } else if (hidden > 0) {
        printf("          ... and %lld more (--max-details N|all prints them; --json holds every one)\n",
               (long long)hidden);
    }
}

void pecert_print_plugin_output(const pecert_check_result *r)
{
    if (r->plugin_output_bytes <= 0) {
        return;
    }
    printf("          the plugin printed %lld bytes%s:\n", (long long)r->plugin_output_bytes,
           (size_t)r->plugin_output_bytes > strlen(r->plugin_output) ? " (the first shown)" : "");
    const char *line = r->plugin_output;
    while (*line != '\0') {
        const char *nl = strchr(line, '\n');
        int len = nl != NULL ? (int)(nl - line) : (int)strlen(line);
        printf("          | %.*s\n", len, line);
        line += len + (nl != NULL);
    }
}
