/*
 * input_file.h - the one way pecert opens a file it was given to read.
 *
 * Every reader (vector files, config.json and profiles, results and report
 * files, the mutant catalogue, tensor dumps, decode traces) goes through
 * here, so each refuses the same things in the same words:
 *  - anything but a regular file: a FIFO or a device would block the read
 *    forever (the open is non-blocking and the type is checked before any
 *    read), and a directory is named as one, not as "too large";
 *  - a file larger than the reader's limit, refused from its size before
 *    a byte of it is allocated or read;
 *  - a file that shrinks or grows while it is read.
 */
#ifndef PECERT_HARNESS_INPUT_FILE_H
#define PECERT_HARNESS_INPUT_FILE_H

#include <stddef.h>

/* pecert_input_open: a read-only descriptor of the regular file at path,
 * its size (at most max_len) in *len. On error -1 with one line in err:
 * "PATH: is a directory, not a regular file" (a FIFO, a socket, a ...
 * device), "PATH: N bytes, more than LIMIT (M bytes)", or "PATH: cannot
 * open: why" (errno kept, so ENOENT can be told apart). limit says what the limit is ("the 256 MiB a results file
 * may have", "payload.compressed_bytes"). */
int pecert_input_open(const char *path, size_t max_len, const char *limit, size_t *len, char *err, size_t err_len);

/* pecert_input_read_fd: exactly len bytes of fd into buf, and then its
 * end; -1 with "PATH: shrank/grew while being read" or the read error. */
int pecert_input_read_fd(int fd, const char *path, unsigned char *buf, size_t len, char *err, size_t err_len);

/* pecert_input_read: the whole file, NUL-terminated (the NUL not counted
 * in *len), malloc'ed; NULL with one line in err as above. */
char *pecert_input_read(const char *path, size_t max_len, const char *limit, size_t *len, char *err, size_t err_len);

#endif /* PECERT_HARNESS_INPUT_FILE_H */
