"""pairing_swapped: torch_rope with the pairing conventions exchanged (the
GPT-J interleaved rotation run on a split-half checkpoint, and the
reverse): the Python twin of impls/mutants/pairing_swapped.c."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch_rope  # noqa: E402
from torch_rope import describe, rope_cos_sin, rope_freqs  # noqa: E402,F401

name = "torch-rope/pairing_swapped"
id = "org.pecert.python.mutant.pairing_swapped"
version = "1"


def rope_apply(x, positions, config, out, pairing, seq_len):
    swapped = {0: 1, 1: 0}.get(pairing, pairing)
    return torch_rope.rope_apply(x, positions, config, out, swapped, seq_len)
