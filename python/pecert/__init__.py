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
from . import abi as _abi

# Every constant of plugin.h (status codes, dtypes, rope types, pairings,
# the config's present bits, layer kinds, sinusoidal variants, scope flags)
# under its C name without PECERT_: pecert.E_INVAL, pecert.ROPE_HAS_FACTOR.
globals().update({k: v for k, v in vars(_abi).items() if k.isupper()})


class InvalidArgument(ValueError):
    """Raised by an engine for an argument the ABI calls invalid: the call
    returns PECERT_E_INVAL with this message."""
