/* subject.c - a plugin instance under `pecert bench`. */
#include <stdio.h>
#include <string.h>

#include "bench.h"

static void refresh_description(bench_subject *s)
{
    const pecert_plugin *d = s->plugin.desc;
    const char *text = NULL;

    if (PECERT_HAS_FIELD(d, pecert_plugin, describe) && d->describe != NULL) {
        text = d->describe(s->instance);
    }
    snprintf(s->description, sizeof(s->description), "%s", text != NULL ? text : "");
}

int bench_subject_open(bench_subject *s, const char *path, char *err, size_t err_len)
{
    const pecert_plugin *d;
    pecert_status status;

    memset(s, 0, sizeof(*s));
    if (pecert_plugin_open(&s->plugin, path, err, err_len) != 0) {
        return -1;
    }
    d = s->plugin.desc;
    status = pecert_plugin_instance(d, &s->instance);
    if (status != PECERT_OK) {
        /* fast says why create failed through last_error(NULL). */
        const char *why = d->last_error != NULL ? d->last_error(NULL) : NULL;

        snprintf(err, err_len, "%s: create() returned %d (%s)%s%s", path, (int)status,
                 pecert_status_name(status), why != NULL && why[0] != '\0' ? ": " : "",
                 why != NULL ? why : "");
        pecert_plugin_close(&s->plugin);
        return -1;
    }
    s->has_threads = PECERT_HAS_FIELD(d, pecert_plugin, set_num_threads) &&
                     d->set_num_threads != NULL;
    snprintf(s->name, sizeof(s->name), "%s", d->name);
    refresh_description(s);
    return 0;
}

void bench_subject_close(bench_subject *s)
{
    const pecert_plugin *d = s->plugin.desc;

    if (d != NULL) {
        pecert_plugin_release(d, s->instance);
    }
    pecert_plugin_close(&s->plugin);
    memset(s, 0, sizeof(*s));
}

int bench_subject_threads(bench_subject *s, int n)
{
    if (!s->has_threads) {
        return n == 1 ? 0 : -1;
    }
    if (s->plugin.desc->set_num_threads(s->instance, n) != PECERT_OK) {
        return -1;
    }
    refresh_description(s);
    return 0;
}
