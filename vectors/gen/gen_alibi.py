#!/usr/bin/python3
"""Generate pecert's ALiBi golden vectors from the official code.

    /usr/bin/python3 vectors/gen/gen_alibi.py --transformers PATH --alibi PATH \\
        --llm-foundry PATH --out vectors/alibi

Sources (each a checkout given by its flag; see refsrc.py for the pinned commits):
  slopes_paper  ofirpress/attention_with_linear_biases, fairseq/models/transformer.py,
                get_slopes (a closure of TransformerDecoder.__init__, run from its text)
  bloom         huggingface/transformers v4.57.6, models/bloom/modeling_bloom.py,
                build_alibi_tensor
  mpt           huggingface/transformers v4.57.6, models/mpt/modeling_mpt.py,
                build_mpt_alibi_tensor
  mpt_foundry   mosaicml/llm-foundry, llmfoundry/models/layers/attention.py,
                gen_slopes and build_alibi_bias (full=True: symmetric), run from their text

The op semantics (vectors/FORMAT.md): alibi.slopes gives m_h; alibi.bias gives
-m_h * (q - k) (linear, causal) or -m_h * |q - k| (symmetric) for the given query
and key positions.  Bloom and the authors add m_h * k to every query row (softmax
cannot tell it from -m_h (q - k)): those vectors are the linear form at q = 0.  MPT
adds m_h * (k - (S - 1)) to every row: the linear form of the last query, q = S - 1.
"""

import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_alibi.py"
FAMILY = "alibi"

NOTES = famgen.notes_table("""
power_of_two        FUNCTIONALITY       num_heads a power of two: the plain geometric sequence.
non_power_of_two    EDGE_CASE           num_heads not a power of two: the slopes of the closest
                                        smaller power of two, then every other slope of the next (a
                                        uniform sequence, an exponent off by one or a crash here are
                                        known bugs: mlx #343, TensorRT-LLM #1611, transformers
                                        #28380).
real_checkpoint     FUNCTIONALITY       Head count of a released checkpoint (Bloom-176B 112, MPT-30B
                                        56, ...).
alibi_bias_max      MODIFIED_PARAMETER  MPT alibi_bias_max other than 8: slopes 2^(-max_bias h / c).
float32_slopes      FUNCTIONALITY       The reference computes the slopes in float32 (pow of a
                                        rounded base).
softmax_shift_form  REFERENCE_QUIRK     The reference adds m*k to every query row; softmax ignores
                                        the per-row constant, so it is the linear bias -m(q-k) at q
                                        = 0.
last_query_row      REFERENCE_QUIRK     MPT adds m*(k - (S-1)) to every row: the linear bias of the
                                        last query q = S-1.
symmetric           FUNCTIONALITY       Bidirectional bias -m|q - k| (llm-foundry full=True).
left_padding        EDGE_CASE           Left-padded row: key positions cumsum(mask)-1, padding keys
                                        at 0.
long_position       EDGE_CASE           Key positions past 2^16: bias magnitudes in the thousands.
""")

# Head counts: 1..64 for the paper's get_slopes; for the others the issue's
# non-powers of two, and released checkpoints.
ISSUE_HEADS = [6, 12, 20, 40, 48]
BLOOM_HEADS = {16: "bloom-560m/1b1", 32: "bloom-3b/7b1", 112: "bloom-176B"}
MPT_HEADS = {32: "mpt-7b", 56: "mpt-30b", 24: "mpt-1b-redpajama"}


def head_flags(n):
    return ["power_of_two"] if n & (n - 1) == 0 else ["non_power_of_two"]


class Sources:
    def __init__(self, args):
        self.alibi = refsrc.Checkout("ofirpress/attention_with_linear_biases", args.alibi)
        self.foundry = refsrc.Checkout("mosaicml/llm-foundry", args.llm_foundry)
        self.hf = hfref.Reference(args.transformers)
        torch = self.hf.torch
        self.torch = torch
        from transformers.models.bloom import modeling_bloom
        from transformers.models.mpt import modeling_mpt
        self.bloom = modeling_bloom
        self.mpt = modeling_mpt
        # The paper's get_slopes is a closure inside TransformerDecoder.__init__.
        self.get_slopes, _ = refsrc.load_function(
            self.alibi.path("fairseq/models/transformer.py"),
            "TransformerDecoder.__init__.get_slopes", {"math": math})
        # llm-foundry's attention.py imports composer and flash-attn helpers at
        # module level; its two ALiBi functions need only math, torch, Optional.
        from typing import Optional
        names = {"math": math, "torch": torch, "Optional": Optional}
        path = self.foundry.path("llmfoundry/models/layers/attention.py")
        self.gen_slopes, _ = refsrc.load_function(path, "gen_slopes", names)
        names["gen_slopes"] = self.gen_slopes
        self.build_alibi_bias, _ = refsrc.load_function(path, "build_alibi_bias", names)
        self.packages = refsrc.packages(torch)
        self.packages["transformers"] = self.hf.transformers.__version__

    def hf_provenance(self):
        return {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                "packages": dict(self.packages)}


def add_slopes(vf, n, max_bias, slopes, dtype, src, comment, flags):
    vf.add_test("alibi.slopes", comment, flags, src,
                {"num_heads": n, "max_bias": max_bias}, {}, {},
                {"slopes": vf.tensor(np.asarray(slopes), dtype)})


def add_bias(vf, n, max_bias, symmetric, q, k, bias, src, comment, flags):
    bias = np.asarray(bias, dtype=np.float32).reshape(n, len(q), len(k))
    vf.add_test("alibi.bias", comment, flags, src,
                {"num_heads": n, "max_bias": max_bias}, {"symmetric": symmetric},
                {"q_positions": vf.tensor(np.asarray(q, dtype=np.int64), "i64"),
                 "k_positions": vf.tensor(np.asarray(k, dtype=np.int64), "i64")},
                {"bias": vf.tensor(bias, "f32")})


# ---- the ALiBi authors' get_slopes --------------------------------------------------

def build_paper(s, vf):
    src = famgen.source("fairseq/models/transformer.py", "TransformerDecoder.__init__.get_slopes")
    for n in range(1, 65):
        slopes = s.get_slopes(n)
        if len(slopes) != n or not all(isinstance(v, float) for v in slopes):
            raise AssertionError(f"get_slopes({n}) returned {slopes!r}")
        add_slopes(vf, n, 8, slopes, "f64", src, f"get_slopes({n})", head_flags(n))


# ---- Bloom --------------------------------------------------------------------------

def bloom_alibi(s, mask, n):
    torch = s.torch
    m = torch.tensor(mask, dtype=torch.int64)
    out = s.bloom.build_alibi_tensor(m, n, torch.float32)
    if out.dtype != torch.float32 or tuple(out.shape) != (m.shape[0] * n, 1, m.shape[1]):
        raise AssertionError(f"build_alibi_tensor: {out.dtype} {tuple(out.shape)}")
    return out.reshape(m.shape[0], n, m.shape[1]).numpy()


def bloom_key_positions(mask):
    """Key positions as build_alibi_tensor forms them: (cumsum(mask) - 1) * mask."""
    mask = np.asarray(mask, dtype=np.int64)
    return (np.cumsum(mask) - 1) * mask


def build_bloom(s, vf):
    src = famgen.source("src/transformers/models/bloom/modeling_bloom.py", "build_alibi_tensor")
    heads = sorted(set(list(range(1, 9)) + ISSUE_HEADS + [16, 32, 64] + list(BLOOM_HEADS)))
    for n in heads:
        # Key position 1 carries m * 1: the float32 slopes themselves.
        alibi = bloom_alibi(s, [[1, 1]], n)
        name = f" ({BLOOM_HEADS[n]})" if n in BLOOM_HEADS else ""
        flags = head_flags(n) + ["float32_slopes"] + (["real_checkpoint"] if name else [])
        add_slopes(vf, n, 8, alibi[0, :, 1], "f32", src,
                   f"Bloom slopes, {n} heads{name} (bias of key position 1)", flags)
    for n, seq in ((4, 8), (6, 7), (12, 5), (112, 4)):
        mask = [[1] * seq]
        alibi = bloom_alibi(s, mask, n)
        k = bloom_key_positions(mask[0])
        add_bias(vf, n, 8, False, [0], k, alibi[0][:, None, :], src,
                 f"Bloom bias, {n} heads, {seq} keys",
                 head_flags(n) + ["softmax_shift_form"])
    mask = [[0, 0, 0, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]]
    alibi = bloom_alibi(s, mask, 6)
    for row in range(len(mask)):
        add_bias(vf, 6, 8, False, [0], bloom_key_positions(mask[row]), alibi[row][:, None, :],
                 src, f"Bloom bias, 6 heads, left-padded batch row {row}",
                 ["non_power_of_two", "softmax_shift_form", "left_padding"])
    seq = 70000
    alibi = bloom_alibi(s, [[1] * seq], 3)
    keep = [0, 1, 2, 1000, 32767, 32768, 65535, 65536, 65537, 69999]
    add_bias(vf, 3, 8, False, [0], keep, alibi[0][:, None, keep], src,
             "Bloom bias, 3 heads, keys of a 70000-token row up to 69999",
             ["non_power_of_two", "softmax_shift_form", "long_position"])


# ---- MPT ---------------------------------------------------------------------------

def build_mpt(s, vf):
    torch = s.torch
    src = famgen.source("src/transformers/models/mpt/modeling_mpt.py", "build_mpt_alibi_tensor")
    cases = [(4, 6, 8), (6, 6, 8), (12, 5, 8), (20, 4, 8), (32, 4, 8), (56, 3, 8),
             (24, 3, 8), (8, 5, 16), (6, 5, 16), (12, 4, 4), (40, 3, 12)]
    for n, seq, max_bias in cases:
        out = s.mpt.build_mpt_alibi_tensor(n, seq, max_bias)
        if out.dtype != torch.float32 or tuple(out.shape) != (n, 1, seq):
            raise AssertionError(f"build_mpt_alibi_tensor: {out.dtype} {tuple(out.shape)}")
        name = f" ({MPT_HEADS[n]})" if n in MPT_HEADS else ""
        flags = head_flags(n) + ["last_query_row"]
        flags += ["alibi_bias_max"] if max_bias != 8 else []
        flags += ["real_checkpoint"] if name else []
        add_bias(vf, n, max_bias, False, [seq - 1], list(range(seq)), out.numpy(), src,
                 f"MPT bias, {n} heads{name}, {seq} keys, alibi_bias_max {max_bias}", flags)
    out = s.mpt.build_mpt_alibi_tensor(2, 70000, 8).numpy()
    keep = [0, 1, 2, 4464, 69997, 69998, 69999]
    add_bias(vf, 2, 8, False, [69999], keep, out[:, :, keep], src,
             "MPT bias, 2 heads, last query of a 70000-token row",
             ["power_of_two", "last_query_row", "long_position"])


def build_foundry(s, vf):
    torch = s.torch
    src_s = famgen.source("llmfoundry/models/layers/attention.py", "gen_slopes")
    src_b = famgen.source("llmfoundry/models/layers/attention.py", "build_alibi_bias")
    for n in [1, 2, 3, 5, 6, 7, 12, 20, 24, 32, 40, 48, 56, 64]:
        for max_bias in (8, 16):
            slopes = s.gen_slopes(n, max_bias, return_1d=True)
            if slopes.dtype != torch.float32 or tuple(slopes.shape) != (n,):
                raise AssertionError(f"gen_slopes: {slopes.dtype} {tuple(slopes.shape)}")
            name = f" ({MPT_HEADS[n]})" if n in MPT_HEADS and max_bias == 8 else ""
            flags = head_flags(n) + ["float32_slopes"]
            flags += ["alibi_bias_max"] if max_bias != 8 else []
            flags += ["real_checkpoint"] if name else []
            add_slopes(vf, n, max_bias, slopes.numpy(), "f32", src_s,
                       f"gen_slopes({n}, alibi_bias_max={max_bias}){name}", flags)
    for n, seq, max_bias in ((4, 6, 8), (6, 5, 8), (12, 4, 8), (8, 4, 16), (3, 7, 12)):
        out = s.build_alibi_bias(n, seq, full=True, alibi_bias_max=max_bias,
                                 dtype=torch.float32)
        if tuple(out.shape) != (1, n, seq, seq):
            raise AssertionError(f"build_alibi_bias: {tuple(out.shape)}")
        flags = head_flags(n) + ["symmetric"] + (["alibi_bias_max"] if max_bias != 8 else [])
        add_bias(vf, n, max_bias, True, list(range(seq)), list(range(seq)), out[0].numpy(),
                 src_b, f"llm-foundry full bias, {n} heads, {seq} tokens, "
                        f"alibi_bias_max {max_bias}", flags)
    out = s.build_alibi_bias(5, 6, full=False, alibi_bias_max=8, dtype=torch.float32)
    add_bias(vf, 5, 8, False, [5], list(range(6)), out[0].numpy(), src_b,
             "llm-foundry causal bias, 5 heads, 6 keys", ["non_power_of_two", "last_query_row"])


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "alibi", {
        "--transformers": "transformers checkout (v4.57.6)",
        "--alibi": "ofirpress/attention_with_linear_biases checkout",
        "--llm-foundry": "mosaicml/llm-foundry checkout",
    })
    s = Sources(args)
    return famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("slopes_paper", "ALiBi slopes for 1..64 heads from the ALiBi authors' get_slopes",
         s.alibi.provenance(s.packages), lambda vf: build_paper(s, vf)),
        ("bloom", "ALiBi slopes and biases from Bloom's build_alibi_tensor",
         s.hf_provenance(), lambda vf: build_bloom(s, vf)),
        ("mpt", "ALiBi causal biases from MPT's build_mpt_alibi_tensor (alibi_bias_max)",
         s.hf_provenance(), lambda vf: build_mpt(s, vf)),
        ("mpt_foundry", "ALiBi slopes (gen_slopes) and symmetric biases (build_alibi_bias "
                        "full=True) from llm-foundry", s.foundry.provenance(s.packages),
         lambda vf: build_foundry(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
