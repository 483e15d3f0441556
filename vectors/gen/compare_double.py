#!/usr/bin/python3
"""Measure how far the golden (float32, transformers) vectors sit from the same formulas
evaluated in double precision.

    /usr/bin/python3 vectors/gen/compare_double.py vectors/rope [--all]

This is an analysis aid, not part of generation: it re-derives every output with numpy
float64 from the manifest's config, params and inputs only (no torch, no transformers), and
prints per test the largest deviation, so the tolerance model and the scalar C reference
can be checked against what the float32 reference actually does.  The formulas follow
the transformers v4.57 semantics described in include/pecert/plugin.h; they are written
from the maths, not copied.  Exit status is 1 when a deviation is too large to be float32
rounding (a layout or semantics bug in the generator), 0 otherwise.
"""

import json
import math
import os
import sys
import zlib

import numpy as np

F32_EPS = 2.0 ** -24  # half an ulp at 1.0: float32 unit roundoff


def inv_freq_double(cfg, seq_len):
    """Inverse frequencies (float64) and attention scaling at seq_len (0 = none given)."""
    t = cfg["rope_type"]
    dim = cfg["rotary_dim"]
    base = float(cfg["rope_theta"])
    exps = np.arange(0, dim, 2, dtype=np.float64) / dim
    max_pos = cfg["max_position_embeddings"]
    if t == "default":
        return base ** -exps, 1.0
    if t == "linear":
        return base ** -exps / cfg["factor"], 1.0
    if t == "dynamic":
        f = cfg["factor"]
        s = max(seq_len, max_pos) if seq_len else max_pos
        base = base * ((f * s / max_pos) - (f - 1)) ** (dim / (dim - 2))
        return base ** -exps, 1.0
    if t == "yarn":
        return yarn_double(cfg, base, dim, exps, max_pos)
    if t == "longrope":
        factor = cfg.get("factor")
        orig = cfg.get("top_original_max_position_embeddings")
        if orig:
            factor = max_pos / orig
        else:
            orig = max_pos
        att = cfg.get("attention_factor")
        if att is None:
            att = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(orig))
        ext = cfg["long_factor"] if seq_len and seq_len > orig else cfg["short_factor"]
        return 1.0 / (np.asarray(ext, dtype=np.float64) * base ** exps), float(att)
    if t == "llama3":
        inv = base ** -exps
        f, lo, hi = cfg["factor"], cfg["low_freq_factor"], cfg["high_freq_factor"]
        old = cfg["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        smooth = (old / wavelen - lo) / (hi - lo)
        out = np.where(wavelen > old / lo, inv / f, (1 - smooth) * inv / f + smooth * inv)
        out = np.where(wavelen < old / hi, inv, out)
        return out, 1.0
    raise ValueError(t)


def yarn_double(cfg, base, dim, exps, max_pos):
    f = cfg["factor"]
    orig = cfg.get("original_max_position_embeddings") or max_pos

    def mscale(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    att = cfg.get("attention_factor")
    if att is None:
        m, md = cfg.get("mscale"), cfg.get("mscale_all_dim")
        att = mscale(f, m) / mscale(f, md) if (m and md) else mscale(f)
    beta_fast = cfg.get("beta_fast") or 32
    beta_slow = cfg.get("beta_slow") or 1

    def corr_dim(rot):
        return dim * math.log(orig / (rot * 2 * math.pi)) / (2 * math.log(base))

    low, high = corr_dim(beta_fast), corr_dim(beta_slow)
    if cfg.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    extrap = 1 - ramp
    pos = base ** exps
    inv = (1 / (f * pos)) * (1 - extrap) + (1 / pos) * extrap
    return inv, float(att)


def rotate(x, pos, inv, att, rotary_dim, pairing):
    """out for x [T, H, D] (float64), per FORMAT.md rope.apply."""
    ang = pos[:, None].astype(np.float64) * inv[None, :]
    c = (np.cos(ang) * att)[:, None, :]
    s = (np.sin(ang) * att)[:, None, :]
    out = x.astype(np.float64).copy()
    half = rotary_dim // 2
    if pairing == "split_half":
        a, b = x[..., :half], x[..., half:rotary_dim]
        out[..., :half] = a * c - b * s
        out[..., half:rotary_dim] = b * c + a * s
    else:
        a, b = x[..., 0:rotary_dim:2], x[..., 1:rotary_dim:2]
        out[..., 0:rotary_dim:2] = a * c - b * s
        out[..., 1:rotary_dim:2] = b * c + a * s
    return out


def tensors(path, manifest):
    with open(os.path.join(os.path.dirname(path), manifest["payload"]["file"]), "rb") as fh:
        raw = zlib.decompress(fh.read())
    dt = {"f32": "<f4", "f64": "<f8", "i32": "<i4", "i64": "<i8"}

    def get(ref):
        data = raw[ref["offset"]:ref["offset"] + ref["nbytes"]]
        return np.frombuffer(data, dtype=dt[ref["dtype"]]).reshape(ref["shape"])

    return get


def ulps32(got, want):
    """Distance in float32 ulps of `want` (ulp taken at the double value)."""
    want = np.asarray(want, dtype=np.float64)
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / ulp


def compare_test(get, t):
    """(summary line, is_gross) for one test."""
    cfg, op, p = t["config"], t["op"], t["params"]
    if op == "rope.freq":
        inv, att = inv_freq_double(cfg, p["seq_len"])
        got = get(t["outputs"]["inv_freq"])
        got_att = float(get(t["outputs"]["attention_scaling"]))
        u = ulps32(got, inv)
        worst = int(np.argmax(u))
        gross = u.max() > 64 or abs(got_att - att) > 1e-12 * max(1.0, abs(att))
        return (f"inv_freq max {u.max():.1f} ulp32 at i={worst}; attention "
                f"{got_att!r} vs {att!r}"), gross
    pos = get(t["inputs"]["positions"])
    seq = p["seq_len"] or int(pos.max()) + 1
    inv, att = inv_freq_double(cfg, seq)
    angle = pos[:, None].astype(np.float64) * inv[None, :]  # [n, rotary_dim/2]
    ang = np.abs(angle)
    # The float32 reference rounds inv_freq (a few ulp) and the angle p*inv_freq, so its
    # error grows like |angle| * 2^-24; allow 64 units of that, plus a constant part.
    bound = 64 * F32_EPS * (4 + ang) * max(att, 1.0)
    if op == "rope.cos_sin":
        err = np.maximum(np.abs(get(t["outputs"]["cos"]) - np.cos(angle) * att),
                         np.abs(get(t["outputs"]["sin"]) - np.sin(angle) * att))
        ratio = float((err / bound).max())
        return (f"cos/sin max abs err {err.max():.3g} (max angle {ang.max():.3g}, "
                f"{ratio:.2f} of bound)"), ratio > 1
    x = get(t["inputs"]["x"])
    want = rotate(x, pos, inv, att, cfg["rotary_dim"], p["pairing"])
    err = np.abs(get(t["outputs"]["out"]) - want)  # [T, H, D]
    # Per token: each output channel mixes two inputs with that token's cos/sin.
    tok_bound = bound.max(axis=1) * 2 * np.abs(x).max(axis=(1, 2)) + 1e-30
    ratio = float((err.max(axis=(1, 2)) / tok_bound).max())
    return (f"out max abs err {err.max():.3g} (|x| max {np.abs(x).max():.3g}, max angle "
            f"{ang.max():.3g}, {ratio:.2f} of bound)"), ratio > 1


def manifests(args):
    paths = []
    for arg in args:
        if arg.endswith(".json"):
            paths.append(arg)
        else:
            paths += [os.path.join(arg, n) for n in sorted(os.listdir(arg)) if n.endswith(".json")]
    return paths


def compare_paths(paths, show_all=False, out=sys.stdout):
    """Compare every test of the given manifests; return the number of gross deviations."""
    gross_count = 0
    for path in paths:
        with open(path) as fh:
            m = json.load(fh)
        get = tensors(path, m)
        for t in m["tests"]:
            line, gross = compare_test(get, t)
            gross_count += gross
            if show_all or gross:
                print(f"{os.path.basename(path)} tcId={t['tcId']} [{t['comment']}]: {line}"
                      + ("  <-- GROSS" if gross else ""), file=out)
    return gross_count


def main(argv):
    show_all = "--all" in argv
    gross_count = compare_paths(manifests([a for a in argv[1:] if not a.startswith("--")]),
                                show_all)
    print(f"compare_double: {gross_count} gross deviations", file=sys.stderr)
    return 1 if gross_count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
