/*
 * run_info.h - what a report needs to know about a run besides its
 * verdicts: the host, the plugin's own description, the identity and
 * provenance of the vector set, and the vectors each failure cites.
 *
 * The runner calls these once per run (and per check for the citations);
 * everything they record is deterministic on one machine, so shards of a
 * run agree on it and merge into an unsharded run's info.
 */
#ifndef PECERT_HARNESS_RUN_INFO_H
#define PECERT_HARNESS_RUN_INFO_H

#include <stddef.h>

#include "results.h"
#include "vectors.h"

/* pecert_read_cpu_model: /proc/cpuinfo's "model name", or "unknown". */
void pecert_read_cpu_model(char *out, size_t len);

/* pecert_capture_host fills cpu_model, cpus_online, os and compiler. */
void pecert_capture_host(pecert_run_info *info);

/*
 * pecert_capture_vector_set records the loaded files in run->sources
 * (paths relative to dir) and an FNV-1a 64 hash of their relative paths
 * (a file outside dir: its base name) and manifest bytes in
 * run->info.vectors_hash ("fnv1a64:<hex>"): equal hashes mean the same
 * vectors wherever they are kept (a manifest holds its payload's CRC).
 * Returns 0, or -1 when out of memory.
 */
int pecert_capture_vector_set(pecert_run_results *run, const pecert_vfile *files,
                              size_t n_files, const char *dir);

/*
 * pecert_cite_vectors records the golden vectors r's failure records and
 * (when it failed) its worst case name, those of the loaded files, each
 * once in r->vrefs with its comment, flags and upstream source.
 */
void pecert_cite_vectors(pecert_check_result *r, const pecert_vfile *files, size_t n_files,
                         const char *dir);

#endif /* PECERT_HARNESS_RUN_INFO_H */
