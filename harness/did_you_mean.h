/*
 * did_you_mean.h - the nearest of a list of names to a word a user
 * mistyped (a command, a profile, a check id, a model type), for the
 * "did you mean ...?" of an error line.
 */
#ifndef PECERT_HARNESS_DID_YOU_MEAN_H
#define PECERT_HARNESS_DID_YOU_MEAN_H

#include <stddef.h>

/* pecert_nearest_name: the name of names[0..n) closest to word by edit
 * distance (insertions, deletions, substitutions and swaps of neighbours,
 * case-insensitive), or NULL when none is close enough to be a typo: at
 * most a third of the longer word's letters, and at least 1, may differ. */
const char *pecert_nearest_name(const char *word, const char *const *names, size_t n);

/* pecert_did_you_mean: " (did you mean 'NAME'?)" into out for the nearest
 * name, or "" when there is none. */
void pecert_did_you_mean(char *out, size_t len, const char *word, const char *const *names, size_t n);

#endif /* PECERT_HARNESS_DID_YOU_MEAN_H */
