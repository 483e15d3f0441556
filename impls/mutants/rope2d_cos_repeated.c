/* rope2d_cos_repeated - Qwen2-VL's vision rotation with the cos/sin of
 * the D/2 pairs repeated element by element ([c0, c0, c1, c1, ...], the
 * interleaved layout) where the model tiles them ([c0 .. c(D/2-1), c0 ..
 * c(D/2-1)]) for rotate_half: channel d turns by pair d/2's angle, and
 * the channel it is paired with by another, so the result is not even a
 * rotation. Blaizzy/mlx-vlm PR #62, fixing #59 ("the generated
 * description is completely wrong, as if it was describing an entirely
 * different image"): mx.repeat(cos, 2, axis=-1) replaced by mx.tile. An
 * interleaved pairing (Llama 4) reads the repeated layout rightly. */
#include "core/mutant.h"

static pecert_status repeated(void *instance, const pecert_rope2d_apply_args *a)
{
    static const mutant_rope2d_rule rule = {.cos_repeated = 1};
    (void)instance;
    return mutant_rope2d_apply(a, &rule);
}

static void patch(pecert_plugin *desc)
{
    desc->rope2d_apply = repeated;
}

const mutant_def mutant = {.name = "rope2d_cos_repeated", .patch = patch};
