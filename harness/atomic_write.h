/*
 * atomic_write.h - output files written all or none.
 *
 * A reader never sees half a file, and a failed write never leaves one of
 * several outputs replaced and the others old: every text goes first to a
 * temporary file created beside its target with O_CREAT|O_EXCL (mkstemp:
 * a symlink planted at a guessable name is never followed), is flushed to
 * disk, and only when all are written are they renamed over their targets.
 * SIGINT, SIGTERM and SIGHUP during the write remove the temporary files
 * before pecert dies of the signal. SIGKILL cannot be caught: the file
 * .NAME.pecert-tmp-PID-XXXXXX it leaves beside NAME is removed the next
 * time NAME is written, once PID no longer runs.
 */
#ifndef PECERT_HARNESS_ATOMIC_WRITE_H
#define PECERT_HARNESS_ATOMIC_WRITE_H

#include <stddef.h>

/* Most files one call writes (HTML, JUnit, JSON and a spare). */
#define PECERT_ATOMIC_MAX_FILES 4

/* pecert_write_files_atomic writes texts[i] to paths[i] (NULL paths are
 * skipped), each ending with a newline, all or none. Returns 0, or -1
 * with "path: reason" in err and no target changed. */
int pecert_write_files_atomic(const char *const *paths, const char *const *texts, int n, char *err,
                              size_t err_len);

#endif /* PECERT_HARNESS_ATOMIC_WRITE_H */
