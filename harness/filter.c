/*
 * filter.c - which checks a --filter selects: comma-separated fnmatch
 * globs on check ids; a glob prefixed with '!' excludes. A check is
 * selected when it matches at least one including glob (or there is
 * none: "!rope.half_precision" alone means every other check) and no
 * excluding one. NULL or "" selects every check.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "filter.h"

/* Calls fn on each glob of filter (without its '!'); stops at the first
 * nonzero return and returns it. */
static int each_glob(const char *filter, int (*fn)(const char *glob, int exclude, void *ctx), void *ctx)
{
    const char *p = filter;
    while (p != NULL && *p != '\0') {
        const char *comma = strchr(p, ',');
        size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char glob[256];
        int exclude = len > 0 && p[0] == '!';
        snprintf(glob, sizeof(glob), "%.*s", (int)(len - (size_t)exclude), p + exclude);
        int rc = glob[0] != '\0' ? fn(glob, exclude, ctx) : 0;
        if (rc != 0) {
            return rc;
        }
        p = comma != NULL ? comma + 1 : NULL;
    }
    return 0;
}

typedef struct match_state {
    const char *id;
    int includes;   /* including globs seen */
    int included;   /* matched one          */
    int excluded;   /* matched an excluding */
} match_state;

static int match_one(const char *glob, int exclude, void *ctx)
{
    match_state *m = ctx;
    int hit = fnmatch(glob, m->id, 0) == 0;
    if (exclude) {
        m->excluded |= hit;
    } else {
        m->includes++;
        m->included |= hit;
    }
    return 0;
}

int pecert_filter_selects(const char *filter, const char *id)
{
    match_state m = {id, 0, 0, 0};
    (void)each_glob(filter, match_one, &m);
    return (m.includes == 0 || m.included) && !m.excluded;
}
