/* dump_model.c - the checkpoint a dump is read against (dump_model.h). */
#include "dump_model.h"

#include <stdio.h>
#include <string.h>

/* --layer: the rope of that layer type becomes the model's; without it a
 * model whose layers differ is read as its first rotary type (said). */
static int select_layer(pecert_certify_model *m, const char *layer, const char *name, char *err, size_t len)
{
    if (layer == NULL) {
        /* m->rope is the type the config's own rope fields describe. */
        for (int32_t t = 0; m->n_layer_types > 1 && t < m->n_layer_types; t++) {
            const pecert_rope_config *r = &m->layer_types[t].rope;
            if (r->layer_kind == m->rope.layer_kind && r->rope_type == m->rope.rope_type &&
                r->rope_theta == m->rope.rope_theta && r->rotary_dim == m->rope.rotary_dim) {
                fprintf(stderr, "pecert: %s: layers differ: reading the dump as '%s' layers (--layer to choose)\n",
                        name, m->layer_types[t].name);
                break;
            }
        }
        return 0;
    }
    for (int32_t t = 0; t < m->n_layer_types; t++) {
        if (strcmp(m->layer_types[t].name, layer) == 0) {
            m->rope = m->layer_types[t].rope; /* a NoPE layer's: its dump must equal its input */
            return 0;
        }
    }
    char known[128] = "";
    for (int32_t t = 0; t < m->n_layer_types; t++) {
        size_t used = strlen(known);
        snprintf(known + used, sizeof(known) - used, "%s%s", t > 0 ? ", " : "", m->layer_types[t].name);
    }
    snprintf(err, len, "%s: --layer %s: the model's layer types are %s", name, layer,
             m->n_layer_types > 0 ? known : "none (every layer rotates alike)");
    return -1;
}

int pecert_dump_model_load(pecert_certify_model *m, const char *config, const char *profile, const char *profiles,
                           const char *layer, char *err, size_t len)
{
    int rc = config != NULL ? pecert_certify_load(m, config, err, len)
                            : pecert_certify_load_profile(m, profiles, profile, err, len);
    const char *name = config != NULL ? config : profile;
    if (rc == 0 && m->kind != PECERT_PE_ROPE) {
        snprintf(err, len, "%s: %s: dumps are of RoPE models (this model's encoding is %s)", name, m->model_type,
                 pecert_pe_kind_name(m->kind));
        return -1;
    }
    return rc == 0 ? select_layer(m, layer, name, err, len) : rc;
}
