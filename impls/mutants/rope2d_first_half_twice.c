/* rope2d_first_half_twice - the second half of a 2-D RoPE rotated with
 * the first half's cos/sin: a fused rotary op written for 1-D RoPE, whose
 * cos/sin table repeats one half, reads only the first half of the 2-D
 * table cat(cos_h, cos_w), so the width half turns by the height's angles
 * and the column never enters (Tencent/ncnn issue #6833, PR #6834: "the
 * second output half is rotated with the wrong (height) frequencies ...
 * silently producing wrong output", a Qwen-VL-style vision encoder). */
#include "core/mutant.h"

static pecert_status first_half_twice(void *instance, const pecert_rope2d_apply_args *a)
{
    static const mutant_rope2d_rule rule = {.first_half_twice = 1};
    (void)instance;
    return mutant_rope2d_apply(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->rope2d_apply = first_half_twice;
}

const mutant_def mutant = {.name = "rope2d_first_half_twice", .patch = patch};
