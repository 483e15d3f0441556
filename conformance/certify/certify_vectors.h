/*
 * certify_vectors.h - the three vector sets certify's checks are given for
 * one pass (certify_plan.h, pecert_plan_files), all built before any child
 * is forked, so every child sees them:
 *   - the checkpoint file: one rope.freq test holding the derived config
 *     and no tensors. The registry's property checks sweep the rope
 *     configs of the files they get (pecert_rope_configs), so given only
 *     this file they run at exactly the checkpoint's parameters.
 *   - the profile vectors as recorded from the official model class, for
 *     certify.mapping (the official config against pecert's mapping): the
 *     pass's own tests (a layer type's, or the vision tower's).
 *   - the same vectors with pecert's derived config and pairing put in
 *     place of the recorded ones, for the golden checks: the plugin at
 *     pecert's parameters must reproduce the official outputs, so a wrong
 *     mapping fails numerically too.
 */
#ifndef PECERT_CONFORMANCE_CERTIFY_VECTORS_H
#define PECERT_CONFORMANCE_CERTIFY_VECTORS_H

#include "certify_config.h"
#include "certify_plan.h"
#include "vectors.h"

typedef struct pecert_certify_vectors {
    pecert_vfile checkpoint;    /* one test: the derived config          */
    pecert_vtest checkpoint_test;
    pecert_vfile recorded;      /* the pass's tests of the profile file  */
    pecert_vtest *layer_tests;  /* owned: recorded.tests                 */
    pecert_vfile substituted;   /* recorded, tests at pecert's config    */
    pecert_vtest *sub_tests;    /* owned: substituted.tests              */
    int have_vectors;           /* 0: no profile vectors (checkpoint only) */
} pecert_certify_vectors;

/* pecert_certify_vectors_build: v for model m's pass layer (a layer type's
 * name, "vision", or NULL for every test but the tower's) from the loaded
 * profile file (NULL: none). v must stay where it is (the checkpoint file
 * points into it). 0, or -1 without memory. */
int pecert_certify_vectors_build(pecert_certify_vectors *v, const pecert_certify_model *m, const char *layer,
                                 const pecert_vfile *loaded);
void pecert_certify_vectors_free(pecert_certify_vectors *v);

/* pecert_certify_vectors_of: the set a plan entry is given. */
const pecert_vfile *pecert_certify_vectors_of(const pecert_certify_vectors *v, pecert_plan_files which);

#endif /* PECERT_CONFORMANCE_CERTIFY_VECTORS_H */
