/*
 * capture.h - what a plugin prints to stdout and stderr during a check.
 *
 * In a check's child, the plugin's printf() would otherwise go straight to
 * the terminal, interleaved with pecert's progress line and results.
 * pecert_capture_begin points descriptors 1 and 2 at a pipe drained by a
 * thread that keeps the first PECERT_CAPTURE_KEEP bytes and counts the
 * rest (so a plugin that prints without end neither blocks nor fills
 * memory); pecert_capture_end collects it for the result, where --verbose
 * shows it (escaped, like everything a plugin says).
 */
#ifndef PECERT_HARNESS_CAPTURE_H
#define PECERT_HARNESS_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define PECERT_CAPTURE_KEEP 1024

typedef struct pecert_capture pecert_capture;

/* pecert_capture_begin: NULL when capture could not start (output then
 * goes where it went before; never a reason to fail the check). */
pecert_capture *pecert_capture_begin(void);

/* pecert_capture_end: the kept text (NUL-terminated, at most cap - 1
 * bytes) in buf; returns how many bytes were printed in all. Restores
 * nothing: the child exits soon after. */
int64_t pecert_capture_end(pecert_capture *c, char *buf, size_t cap);

#endif /* PECERT_HARNESS_CAPTURE_H */
