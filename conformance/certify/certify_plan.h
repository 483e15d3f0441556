/*
 * certify_plan.h - certify's plan as data: which checks a checkpoint's
 * encoding gets, on which of the three vector sets (certify_vectors.h),
 * which of them are essential, and for which layers; and the passes a
 * checkpoint is certified in. run/certify_passes.c runs them.
 */
#ifndef PECERT_CONFORMANCE_CERTIFY_PLAN_H
#define PECERT_CONFORMANCE_CERTIFY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "certify_config.h"
#include "checks.h"

/* Which files a planned check is given. */
typedef enum pecert_plan_files {
    PECERT_PLAN_CHECKPOINT = 0,  /* one test: the derived config, no tensors   */
    PECERT_PLAN_RECORDED,        /* the profile vectors as recorded            */
    PECERT_PLAN_SUBSTITUTED      /* the profile vectors at pecert's config     */
} pecert_plan_files;

typedef struct pecert_plan_entry {
    const pecert_check *check;
    pecert_plan_files files;
    uint32_t kinds;        /* 1u << pecert_pe_kind it applies to            */
    const char *op;        /* golden: runs only if the vectors hold it ("":
                            * any test); NULL: needs no profile vectors     */
    /* 1: the checkpoint's encoding itself; a plugin that lacks it is not
     * certified for the checkpoint, however little else failed. */
    int essential;
    /* Which layers it certifies (PECERT_PLAN_ROTARY, _NOPE) and which
     * towers (_TABLE, _TURNS). A NoPE layer has no frequencies, angles or
     * pairing to check: that it leaves q and k as they are, in a call and
     * in a session, is all. */
    uint8_t layers;
} pecert_plan_entry;

#define PECERT_PLAN_ROTARY 1u
#define PECERT_PLAN_NOPE 2u
/* A vision tower with a learned position table (Qwen3-VL's, the ViT
 * family's) only. */
#define PECERT_PLAN_TABLE 4u
/* A vision tower that turns by a 2-D RoPE only (not the ViT family). */
#define PECERT_PLAN_TURNS 8u
/* ... and only where the model's sine embedding reads the pixel mask. */
#define PECERT_PLAN_MASK 16u

/* The plan, in run order. */
extern const pecert_plan_entry pecert_certify_plan[];
extern const size_t pecert_certify_plan_len;

/* pecert_plan_applies: 1 if e is for m's encoding, m's layer kind and m's
 * tower (before --filter and the vectors' ops are asked). */
int pecert_plan_applies(const pecert_plan_entry *e, const pecert_certify_model *m);

/* One pass of a checkpoint certified in several: a layer type, the text
 * model when it has none (name NULL: its ids unsuffixed), the vision
 * tower ("vision"), or the decoder's table ("decoder"). */
typedef struct pecert_certify_pass {
    pecert_certify_model *model;
    const char *name;
    const char *findings_of;   /* "layers", "tower", "table": "full layers: ..." */
} pecert_certify_pass;

/* The most passes a checkpoint is certified in: each layer type, the
 * vision tower, the decoder's table. */
#define PECERT_CERTIFY_MAX_PASSES (PECERT_CERTIFY_MAX_LAYER_TYPES + 2)

/* pecert_certify_passes: m's passes into p (room for
 * PECERT_CERTIFY_MAX_PASSES; the models malloc'ed in *store, the caller
 * frees it): each layer type, or the text model, then the vision tower,
 * then the decoder's table. Returns the count, -1 without memory. */
int pecert_certify_passes(pecert_certify_pass *p, pecert_certify_model **store, const pecert_certify_model *m);

/* pecert_plan_judge_essential: an essential check's result held to the
 * checkpoint: a plugin that declined any of its cases has not shown it can
 * run the checkpoint (a partial decline fails; a whole one stays "not
 * supported"), its diagnosis says so in the plugin's words and the symptom
 * PECERT_SYMPTOM_ESSENTIAL_DECLINED is attached. Returns 1 when the
 * plugin declined it whole (the checkpoint is not certified), else 0. */
int pecert_plan_judge_essential(pecert_check_result *r, const pecert_certify_model *m);

#endif /* PECERT_CONFORMANCE_CERTIFY_PLAN_H */
