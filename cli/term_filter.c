/*
 * term_filter.c - what pecert prints cannot drive the terminal.
 *
 * Plugin names, descriptions and error messages, config.json keys and
 * vector comments all reach the terminal inside pecert's lines. A "\r"
 * there moves the cursor back so that "  PASS" overwrites a FAIL line, and
 * ESC or CSI sequences can clear the screen or retitle the window. So
 * stdout and stderr are replaced by streams that write every control
 * character other than newline and tab as a visible escape (\r, \x1b,
 * \u009b for the 8-bit CSI spelt in UTF-8) and every byte that starts no
 * valid UTF-8 sequence as \xNN. pecert's own progress line, the one place
 * that moves the cursor on purpose, is written past the filter
 * (pecert_term_raw).
 */
#define _GNU_SOURCE /* fopencookie */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "isolate.h"
#include "json_text.h"

typedef struct term_sink {
    int fd;
    unsigned char pending[4]; /* a UTF-8 sequence cut by the stream's buffer */
    size_t n_pending;
} term_sink;

static term_sink sinks[2] = {{STDOUT_FILENO, {0}, 0}, {STDERR_FILENO, {0}, 0}};

/* The visible form of the sequence at s (n bytes, valid or not) into out
 * (at least 8 bytes); returns its length. */
static size_t visible(const unsigned char *s, size_t n, char *out)
{
    if (n == 1 && (s[0] == '\n' || s[0] == '\t' || (s[0] >= 0x20 && s[0] < 0x7f))) {
        out[0] = (char)s[0];
        return 1;
    }
    if (n == 1 && s[0] == '\r') {
        memcpy(out, "\\r", 2);
        return 2;
    }
    if (n == 1) { /* C0 control, DEL, or a byte that starts no sequence */
        return (size_t)snprintf(out, 8, "\\x%02x", s[0]);
    }
    if (n == 2 && s[0] == 0xC2 && s[1] >= 0x80 && s[1] <= 0x9F) { /* C1 controls, CSI among them */
        return (size_t)snprintf(out, 8, "\\u%04x", s[1]);
    }
    memcpy(out, s, n);
    return n;
}

static size_t lead_length(unsigned char b)
{
    return b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 1;
}

/* Could w[0..n) be the start of a valid sequence that the next write
 * completes (a character cut by the stream's buffer)? */
static int incomplete(const unsigned char *w, size_t n)
{
    if (w[0] < 0xC2 || w[0] > 0xF4 || n >= lead_length(w[0])) {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((w[k] & 0xC0) != 0x80) {
            return 0;
        }
    }
    return 1;
}

#define CHUNK 1024

/* Up to CHUNK bytes, after what the last one left unfinished. */
static int emit_chunk(term_sink *t, const char *buf, size_t size)
{
    unsigned char w[4 + CHUNK];
    char out[8 * (4 + CHUNK)]; /* a byte becomes at most "\xNN" */
    size_t len = t->n_pending;
    size_t o = 0;
    size_t j = 0;
    memcpy(w, t->pending, len);
    memcpy(w + len, buf, size);
    len += size;
    t->n_pending = 0;
    while (j < len) {
        size_t n = pecert_utf8_seq_len(w + j, len - j);
        if (n == 0 && incomplete(w + j, len - j)) {
            memcpy(t->pending, w + j, len - j);
            t->n_pending = len - j;
            break;
        }
        n = n == 0 ? 1 : n; /* a byte that starts nothing is escaped alone */
        o += visible(w + j, n, out + o);
        j += n;
    }
    return pecert_write_fully(t->fd, out, o);
}

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
    term_sink *t = cookie;
    for (size_t off = 0; off < size; off += CHUNK) {
        if (emit_chunk(t, buf + off, size - off < CHUNK ? size - off : CHUNK) != 0) {
            return -1;
        }
    }
    return (ssize_t)size;
}

static FILE *filtered(term_sink *t, const char *mode)
{
    cookie_io_functions_t io = {.read = NULL, .write = sink_write, .seek = NULL, .close = NULL};
    return fopencookie(t, mode, io);
}

void pecert_term_filter_install(void)
{
    FILE *out = filtered(&sinks[0], "w");
    FILE *err = filtered(&sinks[1], "w");
    if (out == NULL || err == NULL) {
        return; /* unfiltered output, never no output */
    }
    /* As the real streams are: stdout line-buffered on a terminal, fully
     * buffered into a pipe or file; stderr unbuffered. */
    setvbuf(out, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, 0);
    setvbuf(err, NULL, _IONBF, 0);
    stdout = out;
    stderr = err;
}

void pecert_term_raw(const char *text)
{
    fflush(stdout);
    (void)pecert_write_fully(STDOUT_FILENO, text, strlen(text));
}
