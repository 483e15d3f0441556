/* common.c - helpers every pecert subcommand uses. */
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
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
