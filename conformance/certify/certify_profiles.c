/*
 * certify_profiles.c - the bundled profiles (conformance/profiles/NAME.json:
 * a checkpoint's config.json with its name and hub id) and config.json files
 * read from disk, through the one input rule (input_file.h) and the one
 * strict JSON parse; the mapping itself is certify_config.c's.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "did_you_mean.h"
#include "input_file.h"
#include "json_text.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A config.json or profile: a checkpoint's config is a few KiB. */
#define MAX_CONFIG_BYTES ((size_t)16 << 20)
#define MAX_CONFIG_WORDS "the 16 MiB a config file may have"

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int pecert_certify_profile_names(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        return -1;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 && (names[n] = strdup(e->d_name)) != NULL) {
            names[n++][len - 5] = '\0';
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp_name);
    return n;
}

/* " (did you mean 'NAME'?)" for the bundled profile nearest to a mistyped
 * name, or "". */
static void nearest_profile(char *out, size_t len, const char *dir, const char *name)
{
    char *names[512];
    int n = pecert_certify_profile_names(dir, names, 512);
    pecert_did_you_mean(out, len, name, (const char *const *)names, n > 0 ? (size_t)n : 0);
    for (int i = 0; i < n; i++) {
        free(names[i]);
    }
}

const char *pecert_certify_profile_vectors(char *buf, size_t len, const char *vectors_dir, const char *name)
{
    struct stat st;
    snprintf(buf, len, "%s/profiles/%s.json", vectors_dir, name);
    return stat(buf, &st) == 0 ? buf : NULL;
}

int pecert_certify_load(pecert_certify_model *out, const char *path, char *err, size_t err_len)
{
    size_t len = 0;
    char *text = pecert_input_read(path, MAX_CONFIG_BYTES, MAX_CONFIG_WORDS, &len, err, err_len);
    if (text == NULL) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    if (strlen(text) != len) { /* the parse would stop there, unseen */
        memset(out, 0, sizeof(*out));
        snprintf(err, err_len, "%s: NUL byte at offset %zu", path, strlen(text));
        free(text);
        return -1;
    }
    int rc = pecert_certify_parse(out, text, path, err, err_len);
    free(text);
    return rc;
}

/* ---- profiles ----------------------------------------------------------- */

static int profile_keys_ok(const cJSON *root, const char *path, char *err, size_t err_len)
{
    static const char *const keys[] = {"name", "model", "source", "config", NULL};
    const cJSON *item = NULL;
    if (!cJSON_IsObject(root)) {
        snprintf(err, err_len, "%s: expected a JSON object", path);
        return -1;
    }
    cJSON_ArrayForEach(item, root) {
        if (!cfg_in_list(item->string, keys)) {
            snprintf(err, err_len, "%s: %s: unknown profile key (name, model, source, config)", path, item->string);
            return -1;
        }
    }
    for (size_t i = 0; keys[i] != NULL; i++) {
        const cJSON *v = cfg_get(root, keys[i]);
        if (v == NULL || (i < 3 ? !cJSON_IsString(v) : !cJSON_IsObject(v))) {
            snprintf(err, err_len, "%s: %s: required (%s)", path, keys[i], i < 3 ? "a string" : "an object");
            return -1;
        }
    }
    return 0;
}

/* A profile name is a file name: letters, digits, '.', '-', '_'. */
static int valid_profile_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '.' || strlen(name) >= PECERT_CERTIFY_NAME_LEN) {
        return 0;
    }
    for (const char *p = name; *p != '\0'; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '-' || *p == '_')) {
            return 0;
        }
    }
    return 1;
}

int pecert_certify_load_profile(pecert_certify_model *out, const char *dir, const char *name, char *err,
                                size_t err_len)
{
    char path[4096];
    memset(out, 0, sizeof(*out));
    if (!valid_profile_name(name)) {
        snprintf(err, err_len, "--profile '%s': not a profile name (see `pecert certify --list-profiles`)", name);
        return -1;
    }
    snprintf(path, sizeof(path), "%s/%s.json", dir, name);
    size_t len = 0;
    char *text = pecert_input_read(path, MAX_CONFIG_BYTES, MAX_CONFIG_WORDS, &len, err, err_len);
    cJSON *root = NULL;
    int rc = -1;
    if (text == NULL && errno == ENOENT) {
        char hint[160];
        nearest_profile(hint, sizeof(hint), dir, name);
        snprintf(err, err_len, "%s: no such profile%s (see `pecert certify --list-profiles`)", path, hint);
    } else if (text == NULL) {
        /* err says why */
    } else if (strlen(text) != len) {
        snprintf(err, err_len, "%s: NUL byte at offset %zu", path, strlen(text));
    } else if ((root = pecert_json_parse_strict(text, len, path, NULL, err, err_len)) == NULL) {
        /* err says why */
    } else if (profile_keys_ok(root, path, err, err_len) == 0) {
        if (strcmp(cfg_get(root, "name")->valuestring, name) != 0) {
            snprintf(err, err_len, "%s: name: '%s' differs from the file name", path,
                     cfg_get(root, "name")->valuestring);
        } else {
            rc = cfg_map_object(out, cfg_get(root, "config"), name, err, err_len);
        }
    }
    cJSON_Delete(root);
    free(text);
    return rc;
}
