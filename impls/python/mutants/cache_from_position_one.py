"""cache_from_position_one: torch_rope reading its cos/sin cache sliced
from position 1 (cos[1:][position_ids], a cache built one row short and
cut at the wrong end), so every token turns one step too far: the Python
twin of impls/mutants/decode_off_by_one.c's bug."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch_rope  # noqa: E402
from torch_rope import describe, rope_freqs  # noqa: E402,F401

name = "torch-rope/cache_from_position_one"
id = "org.pecert.python.mutant.cache_from_position_one"
version = "1"


def rope_cos_sin(out_cos, out_sin, config, seq_len, positions):
    return torch_rope.rope_cos_sin(out_cos, out_sin, config, seq_len, positions + 1)


def rope_apply(x, positions, config, out, pairing, seq_len):
    return torch_rope.rope_apply(x, positions + 1, config, out, pairing, seq_len)
