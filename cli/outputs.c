/* outputs.c - the output options every report-writing command takes
 * (outputs.h). */
#include "outputs.h"

#include <stdio.h>

#include "commands.h"

int pecert_outputs_option(pecert_report_outputs *out, int c, const char *arg)
{
    if (c >= PECERT_OPT_OUTPUT && c < PECERT_OPT_OUTPUT + PECERT_FORMAT_COUNT) {
        out->path[c - PECERT_OPT_OUTPUT] = arg;
        return 1;
    }
    if (c == PECERT_OPT_NO_TIMINGS) {
        out->no_timings = 1;
        return 1;
    }
    return 0;
}

int pecert_outputs_check(const char *cmd, const pecert_report_outputs *out)
{
    const char *names[PECERT_FORMAT_COUNT];
    char options[PECERT_FORMAT_COUNT][32];
    for (int i = 0; i < PECERT_FORMAT_COUNT; i++) {
        snprintf(options[i], sizeof(options[i]), "--%s", pecert_report_formats[i].option);
        names[i] = options[i];
    }
    return pecert_check_outputs(cmd, names, out->path, PECERT_FORMAT_COUNT);
}

int pecert_outputs_write_run(pecert_run_results *res, const char *origin, const pecert_report_outputs *out)
{
    if (!pecert_report_outputs_wanted(out)) {
        return 0;
    }
    pecert_report rep = {.no_timings = out->no_timings};
    char err[2048] = "out of memory";
    int rc = pecert_report_add_run(&rep, res, PECERT_ROLE_CERTIFY, origin);
    if (rc == 0) {
        pecert_report_finish(&rep);
        rc = pecert_report_write(&rep, out, err, sizeof(err));
    }
    if (rc != 0) {
        fprintf(stderr, "pecert: %s\n", err);
    }
    pecert_report_free(&rep);
    return rc;
}
