/* report_write.c - a report's output files, every format from one table
 * (report.h). */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>

#include "atomic_write.h"
#include "json_text.h"

const pecert_report_format pecert_report_formats[PECERT_FORMAT_COUNT] = {
    [PECERT_FORMAT_HTML] = {"html", pecert_report_html},
    [PECERT_FORMAT_JUNIT] = {"junit", pecert_report_junit},
    [PECERT_FORMAT_JSON] = {"json", pecert_report_json},
};

int pecert_report_outputs_wanted(const pecert_report_outputs *out)
{
    for (int i = 0; i < PECERT_FORMAT_COUNT; i++) {
        if (out->path[i] != NULL) {
            return 1;
        }
    }
    return 0;
}

/* An output rendered, then made valid UTF-8 whatever a plugin said. */
static char *render_utf8(char *(*render)(const pecert_report *), const pecert_report *rep)
{
    char *text = render(rep);
    char *repaired = text != NULL ? pecert_utf8_repaired(text) : NULL;
    free(text);
    return repaired;
}

int pecert_report_write(const pecert_report *rep, const pecert_report_outputs *out, char *err, size_t err_len)
{
    char *texts[PECERT_FORMAT_COUNT] = {NULL};
    int rc = 0;
    for (int i = 0; rc == 0 && i < PECERT_FORMAT_COUNT; i++) {
        if (out->path[i] != NULL && (texts[i] = render_utf8(pecert_report_formats[i].render, rep)) == NULL) {
            snprintf(err, err_len, "%s: out of memory while rendering", out->path[i]);
            rc = -1;
        }
    }
    if (rc == 0) { /* all or none: a.html is never replaced when x.json cannot be */
        rc = pecert_write_files_atomic(out->path, (const char *const *)texts, PECERT_FORMAT_COUNT, err, err_len);
    }
    for (int i = 0; i < PECERT_FORMAT_COUNT; i++) {
        free(texts[i]);
    }
    return rc;
}
