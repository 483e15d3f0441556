/*
 * sbuf.h - a growing text buffer for the report renderers, with the one
 * escaping routine every string from a plugin or a vector file goes
 * through before it lands in HTML or XML.
 */
#ifndef PECERT_REPORTS_SBUF_H
#define PECERT_REPORTS_SBUF_H

#include <stddef.h>

/* A NUL-terminated text that grows; after a failed allocation it stays
 * "failed" (every later append is a no-op) and pecert_sbuf_take returns
 * NULL, so renderers check once at the end instead of after each append. */
typedef struct pecert_sbuf {
    char *data;     /* malloc'ed, NUL-terminated (NULL until first append) */
    size_t len;     /* bytes before the NUL                               */
    size_t cap;     /* bytes allocated                                    */
    int failed;     /* an allocation failed                               */
} pecert_sbuf;

void pecert_sbuf_puts(pecert_sbuf *b, const char *text);
void pecert_sbuf_printf(pecert_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * pecert_sbuf_escaped appends text for HTML or XML character data and
 * attribute values alike: & < > " ' and a return become references, and
 * what XML 1.0 forbids or a page should not show (C0 controls other than
 * tab and newline, DEL, the C1 controls; bytes that are not UTF-8)
 * becomes U+FFFD. At most max_bytes of text are read (0 = all);
 * a longer text ends in "...".
 */
void pecert_sbuf_escaped(pecert_sbuf *b, const char *text, size_t max_bytes);

/* pecert_sbuf_take returns the text (caller frees) and resets b, or NULL
 * (and frees) if any append failed. */
char *pecert_sbuf_take(pecert_sbuf *b);

#endif /* PECERT_REPORTS_SBUF_H */
