/* filter.h - --filter: which check ids a run selects. */
#ifndef PECERT_HARNESS_FILTER_H
#define PECERT_HARNESS_FILTER_H

/* pecert_filter_selects: 1 if --filter selects check id: comma-separated
 * fnmatch globs, '!GLOB' excluding ("rope.*,!rope.half_precision"); a
 * check must match an including glob (when there is one) and no excluding
 * one. NULL or "" selects all. */
int pecert_filter_selects(const char *filter, const char *id);

#endif /* PECERT_HARNESS_FILTER_H */
