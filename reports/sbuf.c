/* sbuf.c - growing text buffer and HTML/XML escaping for the renderers. */
#include "sbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for n more bytes plus the NUL; 0, or -1 (b is now failed). */
static int reserve(pecert_sbuf *b, size_t n)
{
    if (b->failed) {
        return -1;
    }
    if (b->len + n + 1 <= b->cap) {
        return 0;
    }
    size_t cap = b->cap > 0 ? b->cap : 4096;
    while (cap < b->len + n + 1) {
        cap *= 2;
    }
    char *grown = realloc(b->data, cap);
    if (grown == NULL) {
        b->failed = 1;
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

static void append(pecert_sbuf *b, const char *text, size_t n)
{
    if (reserve(b, n) == 0) {
        memcpy(b->data + b->len, text, n);
        b->len += n;
        b->data[b->len] = '\0';
    }
}

void pecert_sbuf_puts(pecert_sbuf *b, const char *text)
{
    append(b, text, strlen(text));
}

void pecert_sbuf_printf(pecert_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) != 0) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence XML 1.0 allows at s (at most n
 * bytes), or 0: overlong forms, surrogates, U+FFFE/U+FFFF and code points
 * past U+10FFFF are refused. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (c < 0xC2 || c > 0xF4 || n < len) {
        return 0;
    }
    uint32_t cp = c & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE ||
        cp == 0xFFFF) {
        return 0;
    }
    return len;
}

/* The reference for one ASCII byte, or NULL if it goes through as is. */
static const char *ascii_escape(unsigned char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    case '\t':
    case '\n': return NULL;
    case '\r': return "&#13;"; /* kept, but never a raw return in the file */
    default: return c < 0x20 || c == 0x7f ? "\xEF\xBF\xBD" : NULL;
    }
}

/* A C1 control (U+0080..U+009F, CSI among them): no character a page
 * should show. */
static int is_c1_control(const unsigned char *s, size_t len)
{
    return len == 2 && s[0] == 0xC2 && s[1] <= 0x9F;
}

void pecert_sbuf_escaped(pecert_sbuf *b, const char *text, size_t max_bytes)
{
    const unsigned char *s = (const unsigned char *)(text != NULL ? text : "");
    size_t n = strlen((const char *)s);
    size_t limit = max_bytes > 0 && n > max_bytes ? max_bytes : n;
    size_t i = 0;
    while (i < limit) {
        if (s[i] < 0x80) {
            const char *ref = ascii_escape(s[i]);
            if (ref != NULL) {
                pecert_sbuf_puts(b, ref);
            } else {
                append(b, (const char *)s + i, 1);
            }
            i++;
            continue;
        }
        size_t len = utf8_len(s + i, n - i);
        if (len == 0 || is_c1_control(s + i, len)) {
            pecert_sbuf_puts(b, "\xEF\xBF\xBD"); /* U+FFFD for a bad byte or a C1 control */
            i += len > 0 ? len : 1;
        } else {
            append(b, (const char *)s + i, len);
            i += len;
        }
    }
    if (limit < n) {
        pecert_sbuf_puts(b, "...");
    }
}

char *pecert_sbuf_take(pecert_sbuf *b)
{
    char *text = b->failed ? NULL : b->data;
    if (b->failed) {
        free(b->data);
    }
    if (text == NULL && !b->failed) {
        text = calloc(1, 1); /* nothing appended: an empty text */
    }
    memset(b, 0, sizeof(*b));
    return text;
}
