"""numpy_alibi: an honest ALiBi engine in numpy, written from the paper
(Press et al., "Train Short, Test Long", 2022) and the head-count rule
Bloom and MPT use: for n heads, c = the largest power of two <= n, the
slopes 2^(-max_bias * j / c) for j = 1..c, then, when n > c, the odd
terms 2^(-max_bias * (2j - 1) / (2c)) for j = 1..n-c. The bias of query
position q and key position k is -m_h * (q - k), or -m_h * |q - k|.
pecert runs it with `--impl python:impls/python/numpy_alibi.py`.
"""
import numpy as np

import pecert

name = "numpy-alibi"
id = "org.pecert.python.numpy-alibi"
version = "1"
vendor = "pecert (impls/python)"


def slopes(num_heads, max_bias):
    if num_heads < 1 or not max_bias > 0:
        raise pecert.InvalidArgument("num_heads %d, max_bias %r" % (num_heads, max_bias))
    c = 1 << (num_heads.bit_length() - 1)
    j = np.arange(1, c + 1, dtype=np.float64)
    first = 2.0 ** (-max_bias * j / c)
    k = np.arange(1, num_heads - c + 1, dtype=np.float64)
    rest = 2.0 ** (-max_bias * (2 * k - 1) / (2 * c))
    return np.concatenate([first, rest])


def _floating(out, name, shape):
    if out is None or out.dtype not in (np.float32, np.float64) or out.shape != shape:
        raise pecert.InvalidArgument("%s: want %s f32 or f64, got %s" % (
            name, shape, None if out is None else (out.shape, out.dtype)))


def alibi_slopes(num_heads, max_bias, out):
    _floating(out, "out", (num_heads,))
    out[...] = slopes(num_heads, max_bias)


def alibi_bias(num_heads, max_bias, symmetric, q_positions, k_positions, out):
    if symmetric not in (0, 1):
        raise pecert.InvalidArgument("symmetric %d" % symmetric)
    _floating(out, "out", (num_heads, len(q_positions), len(k_positions)))
    distance = q_positions[:, None].astype(np.float64) - k_positions[None, :].astype(np.float64)
    if symmetric:
        distance = np.abs(distance)
    out[...] = -slopes(num_heads, max_bias)[:, None, None] * distance[None, :, :]
