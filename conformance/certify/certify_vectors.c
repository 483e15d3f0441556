/* certify_vectors.c - the vector sets of a certify pass (certify_vectors.h). */
#include "certify_vectors.h"

#include <stdlib.h>
#include <string.h>

static void build_checkpoint(pecert_certify_vectors *v, const pecert_certify_model *m)
{
    memset(&v->checkpoint_test, 0, sizeof(v->checkpoint_test));
    v->checkpoint_test.tc_id = 1;
    v->checkpoint_test.op = "rope.freq";
    v->checkpoint_test.comment = "the checkpoint's derived parameters";
    v->checkpoint_test.source_file = "";
    v->checkpoint_test.source_function = "";
    v->checkpoint_test.rope = m->rope;
    v->checkpoint_test.pairing = m->pairing;
    memset(&v->checkpoint, 0, sizeof(v->checkpoint));
    v->checkpoint.path = m->name;
    v->checkpoint.family = "rope";
    v->checkpoint.description = "pecert certify: the checkpoint's parameters";
    v->checkpoint.generator = "pecert certify";
    v->checkpoint.prov_repo = "";
    v->checkpoint.prov_commit = "";
    v->checkpoint.prov_tag = "";
    v->checkpoint.tests = &v->checkpoint_test;
    v->checkpoint.n_tests = m->kind <= PECERT_PE_MROPE ? 1 : 0;
}

/* 1 if a and b produce tensors of the same shapes. */
static int same_shape(const pecert_rope_config *a, const pecert_rope_config *b)
{
    return a->head_dim == b->head_dim && a->rotary_dim == b->rotary_dim && a->num_factors == b->num_factors;
}

/* The recorded tests with pecert's config and pairing in their place. */
static int build_substituted(pecert_certify_vectors *v, const pecert_certify_model *m)
{
    size_t n = v->recorded.n_tests;
    v->sub_tests = calloc(n + 1, sizeof(*v->sub_tests));
    if (v->sub_tests == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        pecert_vtest *t = &v->sub_tests[i];
        *t = v->recorded.tests[i];
        int rope_op = strncmp(t->op, "rope.", 5) == 0 || strcmp(t->op, "mrope.apply") == 0;
        /* The golden checks size their buffers from the recorded tensors:
         * a derived config of another shape keeps the recorded one here
         * (certify.mapping fails on the differing field instead). */
        if (rope_op && same_shape(&t->rope, &m->rope)) {
            t->rope = m->rope;
            t->pairing = m->pairing;
        }
    }
    v->substituted = v->recorded;
    v->substituted.tests = v->sub_tests;
    return 0;
}

/* 1 if test t was recorded for layer type layer: flagged "layers_<layer>",
 * or flagged for no layer type at all and the layer rotates (a profile's
 * vectors of one rotary encoding serve every rotary layer type it has). */
static int test_of_layer(const pecert_vtest *t, const char *layer, int rotary)
{
    int flagged = 0;
    for (size_t f = 0; f < t->n_flags; f++) {
        if (strncmp(t->flags[f], "layers_", 7) == 0) {
            if (strcmp(t->flags[f] + 7, layer) == 0) {
                return 1;
            }
            flagged = 1;
        }
    }
    return !flagged && rotary;
}

/* The vision tower's tests are flagged "layers_vision" (gen_profiles.py):
 * they belong to the @vision pass alone. */
static int is_vision_test(const pecert_vtest *t)
{
    for (size_t f = 0; f < t->n_flags; f++) {
        if (strcmp(t->flags[f], "layers_vision") == 0) {
            return 1;
        }
    }
    return 0;
}

/* recorded: the loaded tests of the pass certified: a layer type's, the
 * vision tower's, or (layer NULL) every test but the tower's. */
static int select_layer_tests(pecert_certify_vectors *v, const pecert_vfile *loaded, const pecert_certify_model *m,
                              const char *layer)
{
    v->recorded = *loaded;
    v->layer_tests = calloc(loaded->n_tests + 1, sizeof(*v->layer_tests));
    if (v->layer_tests == NULL) {
        return -1;
    }
    size_t n = 0;
    int rotary = m->kind != PECERT_PE_ROPE2D && m->rope.layer_kind == PECERT_LAYER_ROPE;
    for (size_t i = 0; i < loaded->n_tests; i++) {
        const pecert_vtest *t = &loaded->tests[i];
        if (layer == NULL ? !is_vision_test(t) : test_of_layer(t, layer, rotary)) {
            v->layer_tests[n++] = *t;
        }
    }
    v->recorded.tests = v->layer_tests;
    v->recorded.n_tests = n;
    return 0;
}

int pecert_certify_vectors_build(pecert_certify_vectors *v, const pecert_certify_model *m, const char *layer,
                                 const pecert_vfile *loaded)
{
    memset(v, 0, sizeof(*v));
    build_checkpoint(v, m);
    if (loaded == NULL) {
        return 0;
    }
    v->have_vectors = 1;
    return select_layer_tests(v, loaded, m, layer) != 0 || build_substituted(v, m) != 0 ? -1 : 0;
}

void pecert_certify_vectors_free(pecert_certify_vectors *v)
{
    free(v->sub_tests);
    free(v->layer_tests);
    memset(v, 0, sizeof(*v));
}

const pecert_vfile *pecert_certify_vectors_of(const pecert_certify_vectors *v, pecert_plan_files which)
{
    return which == PECERT_PLAN_CHECKPOINT ? &v->checkpoint
           : which == PECERT_PLAN_RECORDED ? &v->recorded
                                            : &v->substituted;
}
