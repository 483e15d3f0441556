"""decode_step_off_by_one: torch_rope whose decode steps (one token a call)
rotate q and k one position too far, while a prefill is right: the Python
twin of impls/mutants/decode_step_off_by_one.c (a position counter bumped
before the step instead of after)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch_rope  # noqa: E402
from torch_rope import describe, rope_apply, rope_cos_sin, rope_freqs, session_create, session_read_keys  # noqa

name = "torch-rope/decode_step_off_by_one"
id = "org.pecert.python.mutant.decode_step_off_by_one"
version = "1"


def session_append(session, n_tokens, positions, seq_ids, valid, q, k, v, out):
    step = positions + 1 if n_tokens == 1 else positions
    return torch_rope.session_append(session, n_tokens, step, seq_ids, valid, q, k, v, out)
