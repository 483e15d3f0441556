"""alibi_geometric: numpy_alibi with one geometric sequence for every head
count, 2^(-max_bias * h / n) for h = 1..n, right only when n is a power of
two: the Python twin of impls/mutants/alibi_geometric.c."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy_alibi  # noqa: E402

name = "numpy-alibi/alibi_geometric"
id = "org.pecert.python.mutant.alibi_geometric"
version = "1"


def _geometric(num_heads, max_bias):
    return 2.0 ** (-max_bias * np.arange(1, num_heads + 1, dtype=np.float64) / num_heads)


numpy_alibi.slopes = _geometric
alibi_slopes = numpy_alibi.alibi_slopes
alibi_bias = numpy_alibi.alibi_bias
