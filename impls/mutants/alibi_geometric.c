/* alibi_geometric - ALiBi slopes as one geometric sequence
 * 2^(-max_bias * h / n), h = 1..n, for every head count: right for powers
 * of two, wrong for 6, 12, 20, 40... heads, where the paper interleaves a
 * second sequence (ml-explore/mlx #343 / PR #3071; TensorRT-LLM PR #1611). */
#include <math.h>

#include "core/mutant.h"

static double geometric_slope(int32_t h, int32_t n, double max_bias)
{
    return pow(2.0, -max_bias * (double)(h + 1) / (double)n);
}

const mutant_def mutant = {.name = "alibi_geometric", .alibi_slope = geometric_slope};
