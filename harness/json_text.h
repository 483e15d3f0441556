/*
 * json_text.h - what pecert asks of any JSON it reads (vector manifests,
 * config.json, results files) beyond cJSON's grammar: text that means one
 * thing to every reader.
 *
 * cJSON stops at a raw NUL and turns "\u0000" into a NUL inside a string,
 * which cuts the string short unseen ("llama\u0000evil" reads "llama");
 * and of two equal keys in one object cJSON's lookups see the first while
 * Python's json (what transformers reads a config.json with) keeps the
 * last. pecert refuses both, and text that is not UTF-8, naming where.
 */
#ifndef PECERT_HARNESS_JSON_TEXT_H
#define PECERT_HARNESS_JSON_TEXT_H

#include <stddef.h>

#include <cJSON.h>

/* pecert_utf8_seq_len: bytes of the valid UTF-8 sequence at s (n bytes
 * left), or 0 when none starts there (overlong, surrogate, > U+10FFFF). */
size_t pecert_utf8_seq_len(const unsigned char *s, size_t n);

/* pecert_utf8_repaired: a malloc'ed copy of the NUL-terminated text with
 * each byte that starts no valid UTF-8 sequence replaced by U+FFFD (a
 * plugin's bytes, or a character cut by a fixed-size buffer), so that
 * every output pecert writes (JSON, HTML, XML) is valid UTF-8. NULL when
 * out of memory. */
char *pecert_utf8_repaired(const char *text);

/* pecert_json_text_check: 0 when text[0..len) is UTF-8 with no NUL byte
 * and no \u0000 escape; else -1 with "invalid UTF-8 at byte N", "NUL byte
 * at offset N" or "\u0000 in a string at offset N" in why. */
int pecert_json_text_check(const char *text, size_t len, char *why, size_t why_len);

/* pecert_json_duplicate_key: 1 when some object under node holds a key
 * twice, with its path in path ("rope_scaling" at the top,
 * "text_config.rope_scaling.factor" below, "checks[3].verdict" in arrays);
 * 0 when every key is unique; -1 out of memory. */
int pecert_json_duplicate_key(const cJSON *node, char *path, size_t path_len);

/* pecert_json_parse_strict: text[0..len) (with a NUL at text[len]) as
 * one JSON value and nothing after it but whitespace, under the rules
 * above: UTF-8, no NUL byte, no \u0000, no key twice in an object. NULL
 * with one line in err: "NAME: not valid JSON (near byte N)", "NAME: text
 * after the JSON value, at byte N", "NAME: PATH.TO.KEY: duplicate
 * key" followed by dup_note (NULL: nothing), ... Every reader of a JSON
 * file pecert did not just write itself parses it here. */
cJSON *pecert_json_parse_strict(const char *text, size_t len, const char *name, const char *dup_note, char *err,
                                size_t err_len);

#endif /* PECERT_HARNESS_JSON_TEXT_H */
