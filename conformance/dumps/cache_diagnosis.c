/*
 * cache_diagnosis.c - a KV cache read slot by slot (cache_diagnosis.h).
 */
#include "cache_diagnosis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A slot's pairs are one rotation when their norm ratios agree this well
 * (the bound dump_diagnosis.c reads a rigid pairing by). */
static double rigid_spread(const pecert_dump_view *v)
{
    return fmax(1e-3, 16.0 * v->eps);
}

static pecert_dump_view slot_view(const pecert_dump_view *v, int64_t slot)
{
    size_t row = (size_t)v->n_heads * (size_t)v->head_dim;
    pecert_dump_view s = *v;
    s.n_tokens = 1;
    s.before = v->before + (size_t)slot * row;
    s.after = v->after + (size_t)slot * row;
    return s;
}

/* Whether slot's pairs over [lo, hi) rotate rigidly under either pairing;
 * *factor gets its norm ratio. */
static int slot_is_rotation(const pecert_dump_view *v, int64_t slot, int32_t lo, int32_t hi, double *factor)
{
    pecert_dump_view s = slot_view(v, slot);
    double median[2] = {1.0, 1.0};
    double split = pecert_recover_pairing_spread(&s, PECERT_PAIRING_SPLIT_HALF, lo, hi, &median[0]);
    double inter = pecert_recover_pairing_spread(&s, PECERT_PAIRING_INTERLEAVED, lo, hi, &median[1]);
    *factor = inter >= 0 && (split < 0 || inter < split) ? median[1] : median[0];
    return hi <= lo || split < 0 || inter < 0 || fmin(split, inter) <= rigid_spread(v);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The slots read together: occupied, rotations, and at the factor most of
 * them have (a slot rotated twice carries the attention factor squared,
 * which would read as no pairing at all). All occupied ones when none
 * qualifies. Returns their count; keep[] marks them. */
static int64_t pick_global_slots(const pecert_dump_view *v, const int64_t *pos, const int *rotation,
                                 const double *factor, int *keep)
{
    double *f = malloc(((size_t)v->n_tokens + 1) * sizeof(double));
    int64_t n = 0;
    for (int64_t s = 0; f != NULL && s < v->n_tokens; s++) {
        if (pos[s] >= 0 && rotation[s]) {
            f[n++] = factor[s];
        }
    }
    double typical = NAN;
    if (n > 0) {
        qsort(f, (size_t)n, sizeof(double), compare_double);
        typical = f[n / 2];
    }
    free(f);
    int64_t kept = 0;
    for (int64_t s = 0; s < v->n_tokens; s++) {
        keep[s] = pos[s] >= 0 && (n == 0 || (rotation[s] && fabs(factor[s] / typical - 1.0) <= rigid_spread(v)));
        kept += keep[s];
    }
    return kept;
}

/* The kept slots as one dump (copies) with their positions. */
static int gather(const pecert_dump_view *v, const int64_t *pos, const int *keep, int64_t kept, double **x, double **y,
                  int64_t **p)
{
    size_t row = (size_t)v->n_heads * (size_t)v->head_dim;
    *x = malloc(((size_t)kept * row + 1) * sizeof(double));
    *y = malloc(((size_t)kept * row + 1) * sizeof(double));
    *p = malloc(((size_t)kept + 1) * sizeof(int64_t));
    if (*x == NULL || *y == NULL || *p == NULL) {
        return -1;
    }
    int64_t k = 0;
    for (int64_t s = 0; s < v->n_tokens; s++) {
        if (keep[s]) {
            memcpy(*x + (size_t)k * row, v->before + (size_t)s * row, row * sizeof(double));
            memcpy(*y + (size_t)k * row, v->after + (size_t)s * row, row * sizeof(double));
            (*p)[k++] = pos[s];
        }
    }
    return 0;
}

/* ---- per slot ------------------------------------------------------------ */

typedef struct slot_reader {
    const pecert_dump_view *v;
    const int64_t *pos;
    pecert_rope_pairing pairing;
    int32_t lo;
    int32_t n_pairs;
    int reversed;
    double *omega;
    double *phi;
    double *weight;
} slot_reader;

/* The best hypothesis's frequencies from the oracle, at the length the
 * global read used. */
static int best_frequencies(slot_reader *rd, const pecert_cache_report *r, const pecert_loaded_plugin *oracle,
                            int64_t seq_len)
{
    const pecert_dump_hypothesis *h = &r->rope.hypotheses[r->rope.best];
    void *inst = NULL;
    double scaling = 1.0;
    if (pecert_plugin_instance(oracle->desc, &inst) != PECERT_OK) {
        return -1;
    }
    int rc = oracle->desc->rope_freqs(inst, rd->omega, &scaling, &h->rope, h->seq_len > 0 ? h->seq_len : seq_len);
    pecert_plugin_release(oracle->desc, inst);
    return rc == PECERT_OK ? 0 : -1;
}

static void recover_slot(const slot_reader *rd, int64_t slot, pecert_recovered_position *out)
{
    pecert_dump_view s = slot_view(rd->v, slot);
    pecert_recover_angles(&s, rd->pairing, rd->lo, rd->lo + 2 * rd->n_pairs, rd->phi, rd->weight);
    for (int32_t i = 0; rd->reversed && i < rd->n_pairs; i++) {
        rd->phi[i] = -rd->phi[i];
    }
    pecert_recover_position(rd->phi, rd->weight, rd->omega, rd->n_pairs, (double)rd->pos[slot], rd->v->eps, out);
}

/* The state of an occupied rotation slot recovered as p. */
static pecert_slot_state classify(const int64_t *pos, int64_t n, int64_t slot, const pecert_recovered_position *p,
                                  int64_t *delta)
{
    int64_t e = pos[slot];
    *delta = 0;
    if (!p->integer) {
        return PECERT_SLOT_UNEXPLAINED;
    }
    if (p->nearest == e) {
        return PECERT_SLOT_OK;
    }
    if (p->nearest == 0) {
        return PECERT_SLOT_NEVER_ROTATED;
    }
    if (p->nearest == 2 * e) {
        return PECERT_SLOT_ROTATED_TWICE;
    }
    static const int64_t near[] = {-1, 1, -2, 2};
    for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
        int64_t j = slot + near[i];
        if (j >= 0 && j < n && pos[j] >= 0 && pos[j] == p->nearest) {
            *delta = near[i];
            return PECERT_SLOT_NEIGHBOUR;
        }
    }
    *delta = p->nearest - e;
    return PECERT_SLOT_SHIFTED;
}

/* The occupied slot before (step -1) or after (+1) slot s, or -1. */
static int64_t occupied_neighbour(const pecert_cache_report *r, int64_t s, int step)
{
    for (int64_t j = s + step; j >= 0 && j < r->n_slots; j += step) {
        if (r->state[j] != PECERT_SLOT_EMPTY) {
            return j;
        }
    }
    return -1;
}

/* A slot of a stale run whose shifted position happens to be twice (or
 * a neighbour's) its own - position 4 of a run stale by +4 - belongs to
 * the run: it takes the run's state when a neighbour in the run has the
 * same shift. A pass each way reaches every such slot. */
static void absorb_into_shifts(pecert_cache_report *r, int64_t *delta, const int64_t *pos)
{
    for (int dir = 1; dir >= -1; dir -= 2) {
        for (int64_t k = 0; k < r->n_slots; k++) {
            int64_t s = dir > 0 ? k : r->n_slots - 1 - k;
            pecert_slot_state st = r->state[s];
            if ((st != PECERT_SLOT_ROTATED_TWICE && st != PECERT_SLOT_NEIGHBOUR) || r->recovered[s] < 0) {
                continue;
            }
            int64_t d = r->recovered[s] - pos[s];
            int64_t j = occupied_neighbour(r, s, -dir);
            if (j >= 0 && r->state[j] == PECERT_SLOT_SHIFTED && delta[j] == d) {
                r->state[s] = PECERT_SLOT_SHIFTED;
                delta[s] = d;
            }
        }
    }
}

/* Runs of slots alike in state and delta; empty slots inside a run do
 * not break it. */
static void build_runs(pecert_cache_report *r, const int64_t *delta)
{
    pecert_slot_run *cur = NULL;
    for (int64_t s = 0; s < r->n_slots; s++) {
        pecert_slot_state st = r->state[s];
        if (st == PECERT_SLOT_EMPTY) {
            continue;
        }
        if (cur != NULL && cur->state == st && cur->delta == delta[s]) {
            cur->last = s;
            cur->count++;
            continue;
        }
        cur = NULL;
        if (st != PECERT_SLOT_OK) {
            cur = &r->runs[r->n_runs++];
            *cur = (pecert_slot_run){s, s, 1, st, delta[s]};
        }
    }
}

/* The channels changed in any occupied slot (an empty one may hold
 * anything). */
static void occupied_rotated_range(const pecert_dump_view *v, const int64_t *pos, int32_t *lo, int32_t *hi)
{
    *lo = *hi = 0;
    for (int64_t s = 0; s < v->n_tokens; s++) {
        int32_t a = 0;
        int32_t b = 0;
        pecert_dump_view one = slot_view(v, s);
        if (pos[s] < 0 || (pecert_recover_rotated_range(&one, &a, &b), b == 0)) {
            continue;
        }
        *lo = *hi == 0 || a < *lo ? a : *lo;
        *hi = b > *hi ? b : *hi;
    }
}

/* ---- the whole ----------------------------------------------------------- */

typedef struct cache_scratch {
    int *rotation;
    double *factor;
    int *keep;
    int64_t *delta;
    double *x, *y;
    int64_t *positions;
    slot_reader rd;
} cache_scratch;

static void free_scratch(cache_scratch *c)
{
    free(c->rotation);
    free(c->factor);
    free(c->keep);
    free(c->delta);
    free(c->x);
    free(c->y);
    free(c->positions);
    free(c->rd.omega);
    free(c->rd.phi);
    free(c->rd.weight);
}

static int alloc_scratch(cache_scratch *c, pecert_cache_report *r, int64_t n, int32_t head_dim)
{
    size_t k = (size_t)n + 1;
    memset(c, 0, sizeof(*c));
    c->rotation = calloc(k, sizeof(int));
    c->factor = calloc(k, sizeof(double));
    c->keep = calloc(k, sizeof(int));
    c->delta = calloc(k, sizeof(int64_t));
    c->rd.omega = calloc((size_t)head_dim + 1, sizeof(double));
    c->rd.phi = calloc((size_t)head_dim + 1, sizeof(double));
    c->rd.weight = calloc((size_t)head_dim + 1, sizeof(double));
    r->state = calloc(k, sizeof(*r->state));
    r->recovered = calloc(k, sizeof(int64_t));
    r->runs = calloc(k, sizeof(*r->runs));
    return c->rotation && c->factor && c->keep && c->delta && c->rd.omega && c->rd.phi && c->rd.weight && r->state &&
                   r->recovered && r->runs
               ? 0
               : -1;
}

static void classify_slots(pecert_cache_report *r, cache_scratch *c, const int64_t *pos, int any_rotation)
{
    for (int64_t s = 0; s < r->n_slots; s++) {
        r->recovered[s] = -1;
        if (pos[s] < 0) {
            r->state[s] = PECERT_SLOT_EMPTY;
        } else if (any_rotation && !c->rotation[s]) {
            r->state[s] = PECERT_SLOT_NOT_ROTATION;
        } else {
            pecert_recovered_position p;
            recover_slot(&c->rd, s, &p);
            r->recovered[s] = p.integer ? p.nearest : -1;
            r->state[s] = classify(pos, r->n_slots, s, &p, &c->delta[s]);
        }
    }
}

int pecert_cache_diagnose(pecert_cache_report *out, const pecert_certify_model *m, const pecert_loaded_plugin *oracle,
                          const pecert_dump_view *v, const int64_t *pos, char *err, size_t err_len)
{
    memset(out, 0, sizeof(*out));
    out->n_slots = v->n_tokens;
    cache_scratch c;
    int rc = -1;
    if (alloc_scratch(&c, out, v->n_tokens, v->head_dim) != 0) {
        snprintf(err, err_len, "diagnose: out of memory");
        goto out;
    }
    int32_t lo = 0;
    int32_t hi = 0;
    occupied_rotated_range(v, pos, &lo, &hi);
    int any_rotation = 0;
    int64_t top = -1;
    for (int64_t s = 0; s < v->n_tokens; s++) {
        out->occupied += pos[s] >= 0;
        top = pos[s] > top ? pos[s] : top;
        c.rotation[s] = pos[s] >= 0 && slot_is_rotation(v, s, lo, hi, &c.factor[s]);
        any_rotation |= c.rotation[s];
    }
    if (out->occupied == 0) {
        snprintf(err, err_len, "diagnose: every slot is empty (position -1): nothing to read");
        goto out;
    }
    int64_t kept = pick_global_slots(v, pos, c.rotation, c.factor, c.keep);
    if (gather(v, pos, c.keep, kept, &c.x, &c.y, &c.positions) != 0) {
        snprintf(err, err_len, "diagnose: out of memory");
        goto out;
    }
    pecert_dump_view g = {kept, v->n_heads, v->head_dim, c.x, c.y, v->eps};
    if (pecert_dump_diagnose(&out->rope, m, oracle, &g, c.positions, err, err_len) != 0) {
        goto out;
    }
    const pecert_dump_report *gr = &out->rope;
    if (m->rope.layer_kind == PECERT_LAYER_NOPE) { /* no position to read: nope_rotated says it all */
        for (int64_t s = 0; s < v->n_tokens; s++) {
            out->state[s] = pos[s] < 0 ? PECERT_SLOT_EMPTY : PECERT_SLOT_OK;
            out->recovered[s] = -1;
        }
        rc = 0;
        goto out;
    }
    int32_t width = gr->rotated_hi > 0 ? gr->rotated_hi - gr->rotated_lo : m->rope.rotary_dim;
    c.rd = (slot_reader){v, pos, gr->pairing, gr->rotated_hi > 0 ? gr->rotated_lo : 0,
                         width / 2 < gr->hypotheses[gr->best].rope.rotary_dim / 2
                             ? width / 2 : gr->hypotheses[gr->best].rope.rotary_dim / 2,
                         gr->reversed, c.rd.omega, c.rd.phi, c.rd.weight};
    if (best_frequencies(&c.rd, out, oracle, top + 1) != 0) {
        snprintf(err, err_len, "diagnose: the oracle refuses the frequencies it gave for the slots read together");
        goto out;
    }
    classify_slots(out, &c, pos, any_rotation);
    absorb_into_shifts(out, c.delta, pos);
    build_runs(out, c.delta);
    rc = 0;
out:
    free_scratch(&c);
    return rc;
}

/* ---- words --------------------------------------------------------------- */

const char *pecert_slot_state_tag(pecert_slot_state s)
{
    switch (s) {
    case PECERT_SLOT_EMPTY: return "empty";
    case PECERT_SLOT_OK: return "ok";
    case PECERT_SLOT_NEVER_ROTATED: return "never_rotated";
    case PECERT_SLOT_ROTATED_TWICE: return "rotated_twice";
    case PECERT_SLOT_NEIGHBOUR: return "neighbour_position";
    case PECERT_SLOT_SHIFTED: return "stale_position";
    case PECERT_SLOT_NOT_ROTATION: return "not_a_rotation";
    case PECERT_SLOT_UNEXPLAINED: return "unexplained";
    }
    return "unknown";
}

void pecert_slot_run_text(const pecert_cache_report *r, const pecert_slot_run *run, const int64_t *pos, char *buf,
                          size_t len)
{
    char where[160];
    if (run->first == run->last) {
        snprintf(where, sizeof(where), "slot %lld (position %lld)", (long long)run->first, (long long)pos[run->first]);
    } else {
        snprintf(where, sizeof(where), "slots %lld..%lld (%lld occupied, positions %lld..%lld)", (long long)run->first,
                 (long long)run->last, (long long)run->count, (long long)pos[run->first], (long long)pos[run->last]);
    }
    long long got = (long long)r->recovered[run->first];
    switch (run->state) {
    case PECERT_SLOT_NEVER_ROTATED:
        snprintf(buf, len, "%s: never rotated: the cache holds the keys as written, before RoPE", where);
        break;
    case PECERT_SLOT_ROTATED_TWICE:
        snprintf(buf, len, "%s: rotated twice, each for twice its position (slot %lld for %lld): RoPE applied when "
                 "the key was written and again after (at read, or a re-rotation of the whole cache)", where,
                 (long long)run->first, got);
        break;
    case PECERT_SLOT_NEIGHBOUR:
        snprintf(buf, len, "%s: each rotated for the position of slot %+lld from it (slot %lld for %lld, slot "
                 "%lld's): slot and position indices out of step", where, (long long)run->delta,
                 (long long)run->first, got, (long long)(run->first + run->delta));
        break;
    case PECERT_SLOT_SHIFTED:
        snprintf(buf, len, "%s: rotated for their positions %+lld (slot %lld for %lld): stale after a context shift "
                 "or eviction, the keys still carry their old positions (a K-shift of %lld not applied)", where,
                 (long long)run->delta, (long long)run->first, got, (long long)-run->delta);
        break;
    case PECERT_SLOT_NOT_ROTATION:
        snprintf(buf, len, "%s: holds no rotation of the key written to it (its pairs' norm ratios disagree): "
                 "overwritten, or stale from another token", where);
        break;
    case PECERT_SLOT_UNEXPLAINED:
        snprintf(buf, len, "%s: rotated, but for no integer position under the frequencies read off the other "
                 "slots", where);
        break;
    default:
        snprintf(buf, len, "%s: %s", where, pecert_slot_state_tag(run->state));
        break;
    }
}

void pecert_cache_report_free(pecert_cache_report *r)
{
    pecert_dump_report_free(&r->rope);
    free(r->state);
    free(r->recovered);
    free(r->runs);
    memset(r, 0, sizeof(*r));
}

int pecert_cache_finding_is_global(const pecert_dump_report *r, const pecert_dump_finding *f)
{
    return strcmp(f->id, "position") != 0 && !(strcmp(f->id, "frequencies") == 0 && r->best == 0);
}
