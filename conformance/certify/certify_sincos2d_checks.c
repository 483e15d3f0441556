/*
 * certify_sincos2d_checks.c - certify.sincos2d.reference: the 2-D sin-cos
 * table of the checkpoint's width, temperature and layout
 * (certify_sincos2d.c) against ref's, under sincos2d.golden's bound, on
 * the feature maps RT-DETR's hybrid encoder meets at stride 32 (its
 * encoded level in every released config): a 640 x 640 image (20 x 20), a
 * 640 wide x 480 high one (15 x 20) and its transpose (20 x 15), and a
 * 1333 x 800 one (25 x 42) — the non-square maps being where the layout's
 * numbering of the rows shows.
 */
#include "certify_checks.h"

#include <stdio.h>
#include <string.h>

#include "family.h"
#include "isolate.h"

static const struct sincos2d_map {
    int32_t h, w;
} maps[] = {{20, 20}, {15, 20}, {20, 15}, {25, 42}};

static void run_sincos2d_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        char where[96];
        snprintf(where, sizeof(where), "2-D sin-cos table of a %d x %d feature map", maps[i].h, maps[i].w);
        pecert_sincos2d_args shape;
        memset(&shape, 0, sizeof(shape));
        shape.embed_dim = m->sincos2d_dim;
        shape.grid_h = maps[i].h;
        shape.grid_w = maps[i].w;
        shape.layout = m->sincos2d_layout;
        shape.base = m->sincos2d_base;
        pecert_case_slot_set(env->case_slot, "certify %s", where);
        pecert_sincos2d_against_oracle(env, r, &shape, where);
    }
    pecert_check_conclude(r, "feature maps");
}

const pecert_check pecert_check_certify_sincos2d_reference = {
    PECERT_ID_CERTIFY_SINCOS2D_REFERENCE,
    "the 2-D sin-cos table of the checkpoint's width, temperature and layout equals ref's within its bound",
    PECERT_NEED_SINCOS_2D, run_sincos2d_reference};
