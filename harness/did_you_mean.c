/* did_you_mean.c - the nearest name by edit distance (did_you_mean.h). */
#include "did_you_mean.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Words longer than this are compared by their first WORD_MAX letters: a
 * name that long is pasted, not typed. */
#define WORD_MAX 63

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Optimal string alignment distance of a and b (lower-cased). */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a) < WORD_MAX ? strlen(a) : WORD_MAX;
    size_t lb = strlen(b) < WORD_MAX ? strlen(b) : WORD_MAX;
    size_t d[WORD_MAX + 1][WORD_MAX + 1]; /* 32 KiB of stack */
    for (size_t i = 0; i <= la; i++) {
        d[i][0] = i;
    }
    for (size_t j = 0; j <= lb; j++) {
        d[0][j] = j;
    }
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int ca = tolower((unsigned char)a[i - 1]);
            int cb = tolower((unsigned char)b[j - 1]);
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (ca != cb));
            if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
                d[i - 2][j - 2] + 1 < d[i][j]) {
                d[i][j] = d[i - 2][j - 2] + 1;
            }
        }
    }
    return d[la][lb];
}

const char *pecert_nearest_name(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t longer = strlen(word) > strlen(names[i]) ? strlen(word) : strlen(names[i]);
        size_t allowed = longer / 3 > 0 ? longer / 3 : 1;
        size_t d = distance(word, names[i]);
        if (d <= allowed && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}

void pecert_did_you_mean(char *out, size_t len, const char *word, const char *const *names, size_t n)
{
    const char *near = pecert_nearest_name(word, names, n);
    if (near != NULL) {
        snprintf(out, len, " (did you mean '%s'?)", near);
    } else if (len > 0) {
        out[0] = '\0';
    }
}
