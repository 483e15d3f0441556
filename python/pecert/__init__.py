"""pecert for engines written in Python.

An engine is a module, a class or an object whose methods carry the names
of the C plugin ABI's operations (include/pecert/plugin.h) and take its
arguments by name: tensors as numpy arrays that are views of the memory
pecert shares with the engine host (no copies), arrays of positions as
int64 arrays, a RoPE config as an object with the C field names. pecert
runs it in its own process, the Python engine host (`python3 -m
pecert.host`), started by `pecert run|certify|dump --impl python:SPEC`.
docs/python-engines.md is the manual.

A method returns None (success) or a status code; it raises
NotImplementedError to decline (E_UNSUPPORTED), InvalidArgument to refuse
an argument (E_INVAL); any other exception is the call's failure, its
message the check's one line.
"""
from .abi import (OK, E_UNSUPPORTED, E_INVAL, E_NOMEM, E_INTERNAL, E_ABI,  # noqa: F401
                  DTYPE_F32, DTYPE_F64, DTYPE_F16, DTYPE_BF16, DTYPE_I32, DTYPE_I64,
                  PAIRING_SPLIT_HALF, PAIRING_INTERLEAVED,
                  ROPE_DEFAULT, ROPE_LINEAR, ROPE_DYNAMIC, ROPE_YARN, ROPE_LONGROPE, ROPE_LLAMA3,
                  LAYER_ROPE, LAYER_NOPE,
                  SINUSOIDAL_INTERLEAVED, SINUSOIDAL_CONCAT, SINUSOIDAL_T2T, SINUSOIDAL_FAIRSEQ)


class InvalidArgument(ValueError):
    """Raised by an engine for an argument the ABI calls invalid: the call
    returns PECERT_E_INVAL with this message."""
