/*
 * report_precount.c - how many runs and checks a results or report text
 * holds, counted from its bytes before it is parsed.
 *
 * A parsed JSON tree costs about seven times its text; a results file of
 * 36,000 bare checks (197 MB) once took 1.37 GB and 19 s to be refused
 * for holding more than a run can. Counting first, in one pass with a
 * fixed stack and no allocation, refuses it before the parse.
 *
 * What is counted: the elements of every array that is the value of a key
 * "runs" (a report's runs), and per run (or in the document, for a
 * results file) the elements of every array that is the value of a key
 * "checks". pecert never writes a key with an escape in it, so a key with
 * one counts as "checks": spelling "checks" as "\u0063hecks" cannot hide
 * elements from the count.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "report_load.h"

enum list_kind { LIST_OTHER = 0, LIST_RUNS, LIST_CHECKS };

/* Containers deeper than this are followed for depth only (cJSON refuses
 * nesting past 1000 anyway). */
#define TRACKED_DEPTH 64

typedef struct frame {
    char is_array;
    char kind;      /* enum list_kind of an array            */
} frame;

typedef struct scan {
    frame stack[TRACKED_DEPTH];
    size_t depth;
    int pending;            /* the kind of the key just read        */
    int expect_key;         /* in an object, before a key           */
    int expect_element;     /* in an array, before an element        */
    size_t runs;
    size_t checks_in_run;
    size_t max_checks;
    size_t max_runs;
} scan;

/* The kind of the key text[0..n) (unescaped bytes as written). */
static int key_kind(const char *text, size_t n)
{
    if (memchr(text, '\\', n) != NULL) {
        return LIST_CHECKS;
    }
    if (n == 4 && memcmp(text, "runs", 4) == 0) {
        return LIST_RUNS;
    }
    return n == 6 && memcmp(text, "checks", 6) == 0 ? LIST_CHECKS : LIST_OTHER;
}

static frame *top(scan *s)
{
    return s->depth > 0 && s->depth <= TRACKED_DEPTH ? &s->stack[s->depth - 1] : NULL;
}

/* An element starts in the array on top: count it. */
static int count_element(scan *s, char *why, size_t why_len)
{
    const frame *f = top(s);
    s->expect_element = 0;
    if (f == NULL || f->kind == LIST_OTHER) {
        return 0;
    }
    if (f->kind == LIST_RUNS) {
        s->checks_in_run = 0;
        if (++s->runs > s->max_runs) {
            snprintf(why, why_len, "more than %zu runs, the most a report holds", s->max_runs);
            return -1;
        }
        return 0;
    }
    if (++s->checks_in_run > s->max_checks) {
        snprintf(why, why_len, "%s: more than %zu checks, the most a pecert run holds",
                 s->runs > 0 ? "a run" : "checks", s->max_checks);
        return -1;
    }
    return 0;
}

static void push(scan *s, int is_array)
{
    if (s->depth < TRACKED_DEPTH) {
        s->stack[s->depth] = (frame){(char)is_array, (char)(is_array ? s->pending : LIST_OTHER)};
    }
    s->depth++;
    s->pending = LIST_OTHER;
    s->expect_key = !is_array;
    s->expect_element = is_array;
}

static void pop(scan *s)
{
    s->depth -= s->depth > 0;
    s->expect_key = 0;
    s->expect_element = 0;
}

/* The end of the string opening at text[i] (its closing quote), or len. */
static size_t string_end(const char *text, size_t len, size_t i)
{
    for (i++; i < len && text[i] != '"'; i++) {
        i += text[i] == '\\';
    }
    return i;
}

int pecert__report_precount(const char *text, size_t len, size_t max_checks, size_t max_runs, char *why,
                            size_t why_len)
{
    scan s = {.max_checks = max_checks, .max_runs = max_runs};
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            continue;
        }
        if (c == ']' || c == '}') {
            pop(&s);
            continue;
        }
        if (s.expect_element && count_element(&s, why, why_len) != 0) {
            return -1;
        }
        if (c == '"') {
            size_t end = string_end(text, len, i);
            if (s.expect_key) {
                s.pending = key_kind(text + i + 1, end - i - 1);
                s.expect_key = 0;
            }
            i = end;
        } else if (c == '[' || c == '{') {
            push(&s, c == '[');
        } else if (c == ',') {
            const frame *f = top(&s);
            s.expect_key = f != NULL && !f->is_array;
            s.expect_element = f != NULL && f->is_array;
            s.pending = LIST_OTHER;
        }
    }
    return 0;
}
