/*
 * scope_guard.c - a plugin's declared scope (plugin.h, pecert_scope),
 * honoured by every check without each one testing it: in the check's
 * child process the plugin's rotating entry points (rope_apply,
 * rope_cos_sin, mrope_apply, session_create for the rope config and
 * session_append for the positions) are replaced by guards that refuse a
 * call outside the scope before the plugin sees it. The refused
 * case then reads "not supported (beyond the plugin's declared scope:
 * ...)" through pecert_case_status, and the checks' own fallbacks (int32
 * positions, a whole-head probe) take over, as for a plugin that declines.
 *
 * The guarded descriptor and the last refusal are per process: each check
 * runs in a child of its own (isolate.h) that installs the guard once.
 */
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "plugin_load.h"

static const pecert_plugin *guarded;  /* the plugin's own descriptor      */
static pecert_plugin guard_desc;      /* what the checks call instead     */
static char refusal[160];             /* why the last call was refused    */

static pecert_subject as_plugin(void)
{
    return (pecert_subject){guarded, NULL, 0};
}

static pecert_status guard_apply(void *instance, const pecert_rope_apply_args *a)
{
    pecert_subject s = as_plugin();
    if (a != NULL && a->x != NULL &&
        pecert_scope_excludes(&s, a->config, a->positions, a->x->shape[0], a->x->dtype, refusal, sizeof(refusal))) {
        return PECERT_E_UNSUPPORTED;
    }
    return guarded->rope_apply(instance, a);
}

static pecert_status guard_cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                                   const pecert_rope_config *config, int64_t seq_len, const int64_t *positions,
                                   int64_t n_positions)
{
    pecert_subject s = as_plugin();
    if (pecert_scope_excludes(&s, config, positions, n_positions, 0, refusal, sizeof(refusal))) {
        return PECERT_E_UNSUPPORTED;
    }
    return guarded->rope_cos_sin(instance, out_cos, out_sin, config, seq_len, positions, n_positions);
}

/* M-RoPE: every axis's positions, the config, x's dtype. */
static pecert_status guard_mrope(void *instance, const pecert_mrope_apply_args *a)
{
    pecert_subject s = as_plugin();
    if (a != NULL && a->x != NULL && a->num_axes > 0 && a->num_axes <= PECERT_MROPE_MAX_AXES &&
        pecert_scope_excludes(&s, a->config, a->positions, a->num_axes * a->x->shape[0], a->x->dtype, refusal,
                              sizeof(refusal))) {
        return PECERT_E_UNSUPPORTED;
    }
    return guarded->mrope_apply(instance, a);
}

/* A session rotates with its rope config (whole heads?) ... */
static pecert_status guard_session_create(void *instance, void **out_session, const pecert_session_config *config)
{
    pecert_subject s = as_plugin();
    if (config != NULL && config->rope != NULL &&
        pecert_scope_excludes(&s, config->rope, NULL, 0, 0, refusal, sizeof(refusal))) {
        return PECERT_E_UNSUPPORTED;
    }
    return guarded->session_create(instance, out_session, config);
}

/* ... at the positions of each append. */
static pecert_status guard_session_append(void *instance, void *session, const pecert_session_append_args *a)
{
    pecert_subject s = as_plugin();
    if (a != NULL && pecert_scope_excludes(&s, NULL, a->positions, a->n_tokens, 0, refusal, sizeof(refusal))) {
        return PECERT_E_UNSUPPORTED;
    }
    return guarded->session_append(instance, session, a);
}

void pecert_scope_guard_install(pecert_subject *s)
{
    if (s->is_oracle || pecert_plugin_scope(s->desc) == NULL) {
        return;
    }
    guarded = s->desc;
    guard_desc = *s->desc;
    if (guard_desc.rope_apply != NULL) {
        guard_desc.rope_apply = guard_apply;
    }
    if (guard_desc.rope_cos_sin != NULL) {
        guard_desc.rope_cos_sin = guard_cos_sin;
    }
    /* Fields past the plugin's struct_size stay as the loader left them. */
    if (PECERT_HAS_FIELD(s->desc, pecert_plugin, mrope_apply) && guard_desc.mrope_apply != NULL) {
        guard_desc.mrope_apply = guard_mrope;
    }
    if (PECERT_HAS_FIELD(s->desc, pecert_plugin, session_append) && guard_desc.session_create != NULL &&
        guard_desc.session_append != NULL) {
        guard_desc.session_create = guard_session_create;
        guard_desc.session_append = guard_session_append;
    }
    s->desc = &guard_desc;
}

const char *pecert_scope_guard_take(void)
{
    static char taken[sizeof(refusal)];
    if (refusal[0] == '\0') {
        return NULL;
    }
    memcpy(taken, refusal, sizeof(taken));
    refusal[0] = '\0';
    return taken;
}
