/*
 * certify_sine2d_checks.c - certify.sine2d.reference: the sine embedding
 * of the checkpoint's width, temperatures and offset (certify_sine2d.c)
 * against ref's, under sine2d.golden's bound, on the feature maps a DETR
 * model meets: an 800 x 1066 image at stride 32 (25 x 34) and at stride 64
 * (13 x 17), and, where the model reads the pixel mask, the same maps of a
 * smaller image padded at the bottom and the right as DETR's collation
 * pads a batch (its own extent is what each line is normalised by). A
 * model that passes no mask (MaskFormer's family) meets only all-valid maps.
 */
#include "certify_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"
#include "isolate.h"

/* A feature map and the image inside it (rows, columns of valid pixels). */
static const struct sine2d_map {
    int64_t h, w, image_h, image_w;
} maps[] = {{25, 34, 25, 34}, {13, 17, 13, 17}, {25, 34, 19, 25}, {13, 17, 9, 16}};

static void map_case(const pecert_check_env *env, pecert_check_result *r, const pecert_certify_model *m,
                     const struct sine2d_map *map)
{
    char where[128];
    int64_t *mask = malloc((size_t)(map->h * map->w) * sizeof(int64_t));
    snprintf(where, sizeof(where), "sine embedding of a %lld x %lld map, the image %lld x %lld", (long long)map->h,
             (long long)map->w, (long long)map->image_h, (long long)map->image_w);
    if (mask == NULL) {
        pecert_case_fail(r, where, "out of memory");
        return;
    }
    for (int64_t i = 0; i < map->h * map->w; i++) {
        mask[i] = i / map->w < map->image_h && i % map->w < map->image_w;
    }
    pecert_sine2d_call c = {map->h,
                            map->w,
                            m->sine2d_feats,
                            1,
                            m->sine2d_temperature_y,
                            m->sine2d_temperature_x,
                            m->sine2d_scale,
                            m->sine2d_offset,
                            1e-6,
                            mask};
    pecert_case_slot_set(env->case_slot, "certify %s", where);
    pecert_sine2d_against_oracle(env, r, &c, where);
    free(mask);
}

static void run_sine2d_reference(const pecert_check_env *env, pecert_check_result *r)
{
    const pecert_certify_model *m = env->certify_model;
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        int padded = maps[i].image_h < maps[i].h || maps[i].image_w < maps[i].w;
        if (!padded || m->sine2d_reads_mask) {
            map_case(env, r, m, &maps[i]);
        }
    }
    pecert_check_conclude(r, "feature maps");
}

const pecert_check pecert_check_certify_sine2d_reference = {
    PECERT_ID_CERTIFY_SINE2D_REFERENCE,
    "the sine embedding of the checkpoint's width, temperatures and offset equals ref's within its bound",
    PECERT_NEED_SINE2D, run_sine2d_reference};
