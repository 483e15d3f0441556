/*
 * certify_all.h - `pecert certify --all-profiles`: one plugin against
 * every bundled profile, one line per profile, one report for the matrix.
 */
#ifndef PECERT_CLI_CERTIFY_ALL_H
#define PECERT_CLI_CERTIFY_ALL_H

#include "engine.h"
#include "report.h"

typedef struct pecert_certify_all_opts {
    const char *profiles_dir;  /* conformance/profiles                    */
    const char *vectors_dir;   /* profile vectors: DIR/profiles/NAME.json */
    const char *plugin_path;   /* resolved                                */
    const char *oracle_path;   /* resolved                                */
    double timeout_s;
    const pecert_report_outputs *out; /* for the whole matrix         */
    int jobs;                  /* -j: profiles certified at once          */
    pecert_sandbox_mode sandbox; /* --sandbox                             */
} pecert_certify_all_opts;

/* Returns 0 when every profile the plugin applies to is certified (and
 * there is at least one), 1 otherwise, 2 on bad input, 3 on a load error. */
int pecert_certify_all(const pecert_certify_all_opts *o);

#endif /* PECERT_CLI_CERTIFY_ALL_H */
