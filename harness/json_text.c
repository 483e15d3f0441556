/* json_text.c - UTF-8, NUL and duplicate-key rules for JSON input. */
#include "json_text.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t pecert_utf8_seq_len(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;

    if (s[0] < 0x80) {
        return 1;
    }
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
        cp = s[0] & 0x1Fu;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        cp = s[0] & 0x0Fu;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    if (n < len) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
        return 0;
    }
    return len;
}

char *pecert_utf8_repaired(const char *text)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *u = (const unsigned char *)text;
    size_t len = strlen(text);
    char *out = malloc(3 * len + 1);
    size_t o = 0;
    if (out == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < len;) {
        size_t n = pecert_utf8_seq_len(u + i, len - i);
        if (n == 0) {
            memcpy(out + o, replacement, 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(out + o, text + i, n);
        o += n;
        i += n;
    }
    out[o] = '\0';
    return out;
}

int pecert_json_text_check(const char *text, size_t len, char *why, size_t why_len)
{
    const unsigned char *u = (const unsigned char *)text;

    for (size_t i = 0; i < len;) {
        size_t n = pecert_utf8_seq_len(u + i, len - i);

        if (n == 0) {
            snprintf(why, why_len, "invalid UTF-8 at byte %zu", i);
            return -1;
        }
        if (u[i] == '\0') {
            snprintf(why, why_len, "NUL byte at offset %zu", i);
            return -1;
        }
        if (u[i] == '\\' && len - i >= 6 && text[i + 1] == 'u' && memcmp(text + i + 2, "0000", 4) == 0) {
            snprintf(why, why_len, "\\u0000 in a string at offset %zu", i);
            return -1;
        }
        /* An escaped character is never the start of an escape. */
        i += u[i] == '\\' && i + 1 < len ? 2 : n;
    }
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key obj holds twice (by sorting its keys: O(k log k) even for
 * a hostile object of many keys), or NULL; *oom on allocation failure. */
static const char *twice_in(const cJSON *obj, int *oom)
{
    size_t n = 0;
    for (const cJSON *c = obj->child; c != NULL; c = c->next) {
        n++;
    }
    if (n < 2) {
        return NULL;
    }
    const char **names = malloc(n * sizeof(*names));
    if (names == NULL) {
        *oom = 1;
        return NULL;
    }
    n = 0;
    for (const cJSON *c = obj->child; c != NULL; c = c->next) {
        names[n++] = c->string != NULL ? c->string : "";
    }
    qsort(names, n, sizeof(*names), cmp_key);
    const char *dup = NULL;
    for (size_t i = 1; i < n && dup == NULL; i++) {
        if (strcmp(names[i - 1], names[i]) == 0) {
            dup = names[i];
        }
    }
    free(names);
    return dup;
}

/* Depth-first; prefix is node's own path. */
static int find_duplicate(const cJSON *node, const char *prefix, char *path, size_t path_len)
{
    int oom = 0;
    if (cJSON_IsObject(node)) {
        const char *dup = twice_in(node, &oom);
        if (oom) {
            return -1;
        }
        if (dup != NULL) {
            snprintf(path, path_len, "%s%s%s", prefix, prefix[0] != '\0' ? "." : "", dup);
            return 1;
        }
    }
    if (!cJSON_IsObject(node) && !cJSON_IsArray(node)) {
        return 0;
    }
    size_t index = 0;
    for (const cJSON *c = node->child; c != NULL; c = c->next, index++) {
        char child[512];
        if (cJSON_IsObject(node)) {
            snprintf(child, sizeof(child), "%s%s%s", prefix, prefix[0] != '\0' ? "." : "", c->string);
        } else {
            snprintf(child, sizeof(child), "%s[%zu]", prefix, index);
        }
        int rc = find_duplicate(c, child, path, path_len);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

int pecert_json_duplicate_key(const cJSON *node, char *path, size_t path_len)
{
    return find_duplicate(node, "", path, path_len);
}

cJSON *pecert_json_parse_strict(const char *text, size_t len, const char *name, const char *dup_note, char *err,
                                size_t err_len)
{
    char why[512];
    if (pecert_json_text_check(text, len, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "%s: %s", name, why);
        return NULL;
    }
    /* len + 1: the NUL at text[len] is in the buffer, so the parse stops
     * at the value's end and end says what follows it. */
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 0);
    if (root == NULL) {
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, err_len, "%s: not valid JSON (near byte %ld)", name,
                 at != NULL && at >= text && at <= text + len ? (long)(at - text) : -1L);
        return NULL;
    }
    while (end != NULL && end < text + len && strchr(" \t\r\n", *end) != NULL) {
        end++;
    }
    int dup = 0;
    if (end != NULL && end < text + len) {
        snprintf(err, err_len, "%s: text after the JSON value, at byte %ld", name, (long)(end - text));
    } else if ((dup = pecert_json_duplicate_key(root, why, sizeof(why))) != 0) {
        snprintf(err, err_len, "%s: %s: %s%s", name, dup > 0 ? why : "(document)",
                 dup > 0 ? "duplicate key" : "out of memory", dup > 0 && dup_note != NULL ? dup_note : "");
    } else {
        return root;
    }
    cJSON_Delete(root);
    return NULL;
}
