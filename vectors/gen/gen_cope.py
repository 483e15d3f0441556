#!/usr/bin/python3
"""Generate pecert's contextual position encoding (CoPE) vectors.

    /usr/bin/python3 vectors/gen/gen_cope.py --ram PATH --out vectors/cope

Every output is what the authors' code computes: facebookresearch/RAM,
projects/cope/src/cope/context_position.py, ContextPosSelfAttn.forward, the module built
from a config namespace carrying exactly the fields it reads (head_dim, block_size,
cope_npos, cope_sep_key, cope_val_gates, cope_nodiv, cope_layers 1, pos_emb "cope",
drop 0), its pos_emb parameter replaced by a seeded one, called on seeded query, key,
gate-key and value tensors of one head (batch 1) with the mask its decoder builds
(DecoderCore: a causal tril, times pad2attn_mask's padding mask; none for one query).

forward returns the attention output; the two tensors pecert certifies are the ones it
computes on the way, recorded as they are made by a torch.overrides.TorchFunctionMode
that changes nothing: positions, the result of its `positions.clamp(max=npos - 1)`, and
the logits, the argument of its `torch.softmax` (masked keys -inf, the log of the mask
added).  The module and its inputs run in float64 (module.double()): the inputs are
float32 values, the recorded outputs the official arithmetic without float32's rounding,
so a float32 engine is held to its own error alone.  Each recording is checked against
forward's own output (softmax of the logits times the values), and against plugin.h's
formula recomputed here in numpy, to 1e-12.
"""

import importlib.util
import math
import os
import sys
import types

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_cope.py"
REPO = "facebookresearch/RAM"
SRC = "projects/cope/src/cope/context_position.py"

NOTES = famgen.notes_table("""
cope               FUNCTIONALITY  ContextPosSelfAttn: gates sigmoid(q.k / sqrt(d)), positions their
                                  reversed cumulative sum, embeddings interpolated between integer
                                  positions.
causal             FUNCTIONALITY  The decoder's causal mask: gates of later keys are 0, their logits
                                  -inf.
sep_key            EDGE_CASE      --cope-sep-key: the gates read a key projection of their own, the
                                  logits the attention keys.
val_gates          EDGE_CASE      --cope-val-gates: the gates read the values.
nodiv              EDGE_CASE      --cope-nodiv: the position logits added after the 1/sqrt(d) scale,
                                  not before.
clamp              EDGE_CASE      npos smaller than the row's gate sum: positions clamp at npos - 1.
padding            EDGE_CASE      pad2attn_mask's padding keys (each pad query keeps itself): masked
                                  gates count nothing.
unmasked           EDGE_CASE      No mask (the encoder's): every key's gate counts, later keys too.
decode             FUNCTIONALITY  One query over the cached keys (generation: no mask for a single
                                  token).
integer_positions  EDGE_CASE      Gates saturated at 1: positions are the integers i - j + 1, floor
                                  and ceil coincide.
odd_head_dim       EDGE_CASE      A head_dim that is not a multiple of 8: the tails of vector loops.
""")


class Sources:
    def __init__(self, args):
        import torch
        self.torch = torch
        self.ram = refsrc.Checkout(REPO, args.ram)
        spec = importlib.util.spec_from_file_location("context_position", self.ram.path(SRC))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.ContextPosSelfAttn = module.ContextPosSelfAttn
        self.prov = self.ram.provenance(refsrc.packages(torch))


def recorder(torch):
    """A TorchFunctionMode keeping the clamp result and the softmax argument."""
    from torch.overrides import TorchFunctionMode

    class Record(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.seen = {}

        def __torch_function__(self, func, types_, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = getattr(func, "__name__", "")
            if name == "clamp":
                self.seen.setdefault("positions", []).append(out.detach().clone())
            elif name == "softmax":
                self.seen.setdefault("logits", []).append(args[0].detach().clone())
            return out

    return Record()


def causal(n_q, n_k):
    """DecoderCore's torch.ones(L, L).tril() for the last n_q of n_k tokens."""
    return np.tril(np.ones((n_k, n_k)))[n_k - n_q:]


def padded(n, pad):
    """pad2attn_mask for keys 0..pad-1 padded (each query keeps itself), times the causal mask."""
    m = np.ones((n, n))
    m[:, :pad] = 0
    m = np.minimum(m + np.eye(n), 1)
    return m * causal(n, n)


def formula(q, k, g, e, mask, npos, nodiv):
    """plugin.h's pecert_cope_args semantics in numpy float64 (the cross-check)."""
    d = q.shape[1]
    gates = 1 / (1 + np.exp(-(q @ g.T) / math.sqrt(d))) * mask
    p = np.minimum(np.flip(np.cumsum(np.flip(gates, -1), -1), -1), npos - 1)
    f = q @ e
    lo, hi = np.floor(p).astype(np.int64), np.ceil(p).astype(np.int64)
    w = p - lo
    z = np.take_along_axis(f, lo, -1) * (1 - w) + np.take_along_axis(f, hi, -1) * w
    qk = q @ k.T
    logits = qk / math.sqrt(d) + z if nodiv else (qk + z) / math.sqrt(d)
    with np.errstate(divide="ignore"):
        return p, logits + np.log(mask)


def record(s, vf, comment, flags, shape, gates="keys", nodiv=False, npos=None, mask="causal", pad=0, saturate=False):
    """One test: seeded inputs of shape (n_q, n_k, d), the official forward, its recordings."""
    t = s.torch
    n_q, n_k, d = shape
    block = n_k
    npos = block + 1 if npos is None else npos
    q = famgen.seeded_normal(f"cope q {comment}", (n_q, d))
    k = famgen.seeded_normal(f"cope k {comment}", (n_k, d))
    v = famgen.seeded_normal(f"cope v {comment}", (n_k, d))
    kc = famgen.seeded_normal(f"cope key_cope {comment}", (n_k, d)) if gates == "sep_key" else k
    e = famgen.seeded_normal(f"cope pos_emb {comment}", (d, npos))
    if saturate:
        # Every gate logit q.g / sqrt(d) >= 16 sqrt(d) (64 at d = 16): sigmoid is 1 in float64 and
        # float32 alike.
        q = np.abs(q) + np.float32(4)
        kc = k = np.abs(k) + np.float32(4)
    g = v if gates == "values" else kc
    m = {"causal": causal(n_q, n_k), "padding": padded(n_k, pad), "none": np.ones((n_q, n_k))}[mask]
    cfg = types.SimpleNamespace(drop=0.0, cope_layers=1, pos_emb="cope", cope_npos=npos, block_size=block,
                                head_dim=d, cope_sep_key=gates == "sep_key", cope_val_gates=gates == "values",
                                cope_nodiv=nodiv)
    module = s.ContextPosSelfAttn(cfg, 0).double().eval()
    as_t = lambda a: t.from_numpy(np.asarray(a, dtype=np.float64))[None]  # noqa: E731
    rec = recorder(t)
    with t.no_grad():
        module.pos_emb.copy_(as_t(e))
        with rec:
            out = module(as_t(q), as_t(k), as_t(kc), as_t(v), attn_mask=None if mask == "none" else as_t(m))
    if len(rec.seen.get("positions", [])) != 1 or len(rec.seen.get("logits", [])) != 1:
        raise AssertionError(f"{comment}: expected one clamp and one softmax, saw {rec.seen.keys()}")
    positions = rec.seen["positions"][0][0].numpy()
    logits = rec.seen["logits"][0][0].numpy()
    again = (t.softmax(t.from_numpy(logits), -1) @ t.from_numpy(v.astype(np.float64))).numpy()
    if not np.allclose(again, out[0].numpy(), rtol=0, atol=1e-12):
        raise AssertionError(f"{comment}: softmax(logits) v is not forward's output")
    p2, l2 = formula(q.astype(np.float64), k.astype(np.float64), g.astype(np.float64), e.astype(np.float64), m,
                     npos, nodiv)
    finite = np.isfinite(logits)
    if not (np.array_equal(finite, m == 1) and np.array_equal(finite, np.isfinite(l2))
            and np.allclose(p2, positions, rtol=0, atol=1e-12)
            and np.allclose(l2[finite], logits[finite], rtol=0, atol=1e-12)):
        raise AssertionError(f"{comment}: the recording and plugin.h's formula disagree")
    rows = np.arange(n_q)[:, None] + (n_k - n_q)  # each query's own token index
    if saturate and not np.array_equal(positions[m == 1],
                                       np.minimum(rows - np.arange(n_k)[None, :] + 1, npos - 1)[m == 1]):
        raise AssertionError(f"{comment}: saturated gates do not give i - j + 1")
    c = {"npos": npos, "nodiv": nodiv, "masked": mask != "none", "gates": gates}
    inputs = {"q": vf.tensor(q, "f32"), "k": vf.tensor(k, "f32"), "gate_k": vf.tensor(g, "f32"),
              "pos_emb": vf.tensor(e, "f32"), "mask": vf.tensor(m, "f32")}
    outputs = {"positions": vf.tensor(positions, "f64"), "logits": vf.tensor(logits, "f64", neg_inf_ok=True)}
    vf.add_test("cope.logits", comment, flags, famgen.source(SRC, "ContextPosSelfAttn.forward"), c, {}, inputs,
                outputs)


def build(s, vf):
    record(s, vf, "causal, 16 tokens, head_dim 16", ["cope", "causal"], (16, 16, 16))
    record(s, vf, "causal, 64 tokens, head_dim 64", ["cope", "causal"], (64, 64, 64))
    record(s, vf, "causal, 24 tokens, head_dim 12", ["cope", "causal", "odd_head_dim"], (24, 24, 12))
    record(s, vf, "separate gate keys, 32 tokens", ["cope", "causal", "sep_key"], (32, 32, 32), gates="sep_key")
    record(s, vf, "gates from the values, 32 tokens", ["cope", "causal", "val_gates"], (32, 32, 32),
           gates="values")
    record(s, vf, "nodiv, 32 tokens", ["cope", "causal", "nodiv"], (32, 32, 32), nodiv=True)
    record(s, vf, "npos 5 under 48 tokens", ["cope", "causal", "clamp"], (48, 48, 16), npos=5)
    record(s, vf, "5 padding keys, 24 tokens", ["cope", "causal", "padding"], (24, 24, 16), mask="padding", pad=5)
    record(s, vf, "no mask, 20 tokens", ["cope", "unmasked"], (20, 20, 16), mask="none")
    record(s, vf, "one query over 40 cached keys", ["cope", "decode"], (1, 40, 32), mask="none")
    record(s, vf, "saturated gates, 20 tokens", ["cope", "causal", "integer_positions"], (20, 20, 16),
           saturate=True)
    record(s, vf, "saturated gates, npos 8 under 20 tokens", ["cope", "causal", "integer_positions", "clamp"],
           (20, 20, 16), npos=8, saturate=True)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "cope", {"--ram": "facebookresearch/RAM checkout"})
    s = Sources(args)
    return famgen.build_and_finish(args.out, "cope", GENERATOR, NOTES, (
        ("cope", "CoPE attention logits (facebookresearch/RAM ContextPosSelfAttn)", s.prov,
         lambda vf: build(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
