/* diagnose_json.c - the pecert-diagnose/1 document (diagnose_json.h). */
#include "diagnose_json.h"

#include <math.h>

#include "cJSON.h"
#include "vectors.h"

static const char *pairing_tag(const pecert_dump_report *r)
{
    return !r->pairing_found ? "neither" : pecert_rope_pairing_name(r->pairing);
}

static cJSON *hypotheses_json(const pecert_dump_report *r)
{
    cJSON *a = cJSON_CreateArray();
    for (int32_t i = 0; i < r->n_hypotheses; i++) {
        const pecert_dump_hypothesis *h = &r->hypotheses[i];
        if (h->explained < 0) {
            continue;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "label", h->label);
        cJSON_AddBoolToObject(o, "config", i == 0);
        cJSON_AddBoolToObject(o, "best", i == r->best);
        cJSON_AddNumberToObject(o, "rope_theta", h->rope.rope_theta);
        cJSON_AddNumberToObject(o, "tokens_explained", (double)h->explained);
        cJSON_AddNumberToObject(o, "tokens_at_given_positions", (double)h->matched);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *tokens_json(const pecert_dump_report *r, const int64_t *positions)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t t = 0; t < r->n_tokens; t++) {
        const pecert_recovered_position *p = &r->tokens[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "token", (double)t);
        cJSON_AddNumberToObject(o, "position", (double)p->nearest);
        cJSON_AddNumberToObject(o, "estimate", isfinite(p->estimate) ? p->estimate : -1.0);
        cJSON_AddBoolToObject(o, "integer", p->integer);
        cJSON_AddNumberToObject(o, "residual", isfinite(p->residual) ? p->residual : -1.0);
        if (positions != NULL) {
            cJSON_AddNumberToObject(o, "expected", (double)positions[t]);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* The document's common part: what was read and what was recovered. */
static cJSON *report_json(const pecert_diagnose_doc *d)
{
    const pecert_dump_report *r = d->rope;
    const pecert_certify_model *m = d->model;
    const pecert_dump_shape *s = d->shape;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "pecert-diagnose/1");
    cJSON_AddStringToObject(root, "checkpoint", m->name);
    cJSON_AddStringToObject(root, "before", d->before);
    cJSON_AddStringToObject(root, "after", d->after);
    cJSON *dump = cJSON_AddObjectToObject(root, "dump");
    cJSON_AddNumberToObject(dump, "tokens", (double)s->tokens);
    cJSON_AddNumberToObject(dump, "heads", s->heads);
    cJSON_AddNumberToObject(dump, "head_dim", s->dim);
    cJSON_AddStringToObject(dump, "dtype", pecert_npy_dtype_name(d->dtype));
    cJSON *rot = cJSON_AddArrayToObject(root, "rotated_channels");
    cJSON_AddItemToArray(rot, cJSON_CreateNumber(r->rotated_lo));
    cJSON_AddItemToArray(rot, cJSON_CreateNumber(r->rotated_hi));
    cJSON_AddNumberToObject(root, "config_rotary_dim", m->rope.rotary_dim);
    cJSON_AddStringToObject(root, "pairing", pairing_tag(r));
    cJSON_AddStringToObject(root, "config_pairing", pecert_rope_pairing_name(m->pairing));
    cJSON_AddNumberToObject(root, "spread_split_half", r->spread[0]);
    cJSON_AddNumberToObject(root, "spread_interleaved", r->spread[1]);
    cJSON_AddNumberToObject(root, "attention_factor", r->attention_factor);
    cJSON_AddNumberToObject(root, "config_attention_factor", r->expected_factor);
    cJSON_AddItemToObject(root, "hypotheses", hypotheses_json(r));
    return root;
}

static cJSON *slots_json(const pecert_cache_report *c, const int64_t *slots)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t s = 0; s < c->n_slots; s++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "slot", (double)s);
        cJSON_AddNumberToObject(o, "position", (double)slots[s]);
        cJSON_AddNumberToObject(o, "recovered", (double)c->recovered[s]);
        cJSON_AddStringToObject(o, "state", pecert_slot_state_tag(c->state[s]));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *findings_json(const pecert_diagnose_finding *f, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", f[i].id);
        cJSON_AddStringToObject(o, "text", f[i].text);
        if (f[i].has_slots) {
            cJSON_AddNumberToObject(o, "first_slot", (double)f[i].first_slot);
            cJSON_AddNumberToObject(o, "last_slot", (double)f[i].last_slot);
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

char *pecert_diagnose_json(const pecert_diagnose_doc *d)
{
    cJSON *root = report_json(d);
    if (d->cache != NULL) {
        cJSON_AddItemToObject(root, "slots", slots_json(d->cache, d->slots));
    } else {
        cJSON_AddItemToObject(root, "tokens", tokens_json(d->rope, d->expected));
    }
    cJSON_AddItemToObject(root, "findings", findings_json(d->findings, d->n_findings));
    if (d->n_steps > 0) {
        cJSON *tr = cJSON_AddObjectToObject(root, "trace");
        cJSON_AddNumberToObject(tr, "steps", d->n_steps);
        cJSON_AddNumberToObject(tr, "first_diverging_step", d->diverging_step);
        cJSON_AddNumberToObject(tr, "first_diverging_token", (double)d->diverging_token);
    }
    cJSON_AddStringToObject(root, "verdict", d->n_findings == 0 ? "pass" : "findings");
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}
