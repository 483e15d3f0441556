/*
 * cache_diagnosis.h - a KV cache read slot by slot: is every cached key
 * the key written to its slot, rotated for the slot's own position?
 *
 * A rotated key alone says nothing of its angle; the key as written
 * (before RoPE, one row per slot) does. With both, each slot is a
 * one-token dump: its pairs' norm ratios say whether it is a rotation of
 * that key at all, its angles which position it was rotated for
 * (rope_recover.h). The occupied slots are first read together as one
 * dump against the config (pairing, frequencies, attention factor:
 * dump_diagnosis.h); then each slot's recovered position is compared with
 * its own and the slots that differ alike are reported as runs.
 */
#ifndef PECERT_CONFORMANCE_CACHE_DIAGNOSIS_H
#define PECERT_CONFORMANCE_CACHE_DIAGNOSIS_H

#include <stddef.h>
#include <stdint.h>

#include "dump_diagnosis.h"

typedef enum pecert_slot_state {
    PECERT_SLOT_EMPTY,          /* position -1: not read                  */
    PECERT_SLOT_OK,             /* rotated for its own position           */
    PECERT_SLOT_NEVER_ROTATED,  /* holds the key as written (position != 0) */
    PECERT_SLOT_ROTATED_TWICE,  /* for twice its position                 */
    PECERT_SLOT_NEIGHBOUR,      /* for the position of slot + delta       */
    PECERT_SLOT_SHIFTED,        /* for its position + delta: stale        */
    PECERT_SLOT_NOT_ROTATION,   /* no rotation of the key written to it   */
    PECERT_SLOT_UNEXPLAINED     /* rotated, for no integer position       */
} pecert_slot_state;

/* Slots first..last whose occupied ones (count) are all in one state. */
typedef struct pecert_slot_run {
    int64_t first;
    int64_t last;
    int64_t count;
    pecert_slot_state state;
    int64_t delta;              /* NEIGHBOUR: slot offset; SHIFTED: positions */
} pecert_slot_run;

typedef struct pecert_cache_report {
    pecert_dump_report rope;    /* the slots that are rotations, as one dump */
    int64_t n_slots;
    int64_t occupied;
    pecert_slot_state *state;   /* [n_slots] */
    int64_t *recovered;         /* [n_slots]: the position read off, or -1 */
    int32_t n_runs;             /* runs of slots neither OK nor EMPTY      */
    pecert_slot_run *runs;
} pecert_cache_report;

/*
 * pecert_cache_diagnose: v holds per slot the key as written (before) and
 * as cached (after); slot_positions[n_slots] the position each slot holds
 * now (-1: empty). Returns 0, or -1 with the reason in err.
 */
int pecert_cache_diagnose(pecert_cache_report *out, const pecert_certify_model *m, const pecert_loaded_plugin *oracle,
                          const pecert_dump_view *v, const int64_t *slot_positions, char *err, size_t err_len);

/* pecert_slot_run_text: a run in a porter's words. */
void pecert_slot_run_text(const pecert_cache_report *r, const pecert_slot_run *run, const int64_t *slot_positions,
                          char *buf, size_t len);

const char *pecert_slot_state_tag(pecert_slot_state s);

/* pecert_cache_finding_is_global: 1 if f, a finding of the slots read
 * together (r = the report's rope), is the cache's to show; the per-slot
 * runs say which positions are wrong, so the positions finding, and a
 * best-fit "frequencies" line counting unexplained tokens, are theirs. */
int pecert_cache_finding_is_global(const pecert_dump_report *r, const pecert_dump_finding *f);

void pecert_cache_report_free(pecert_cache_report *r);

#endif /* PECERT_CONFORMANCE_CACHE_DIAGNOSIS_H */
