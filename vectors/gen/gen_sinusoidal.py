#!/usr/bin/python3
"""Generate pecert's sinusoidal absolute-embedding vectors, one file per variant.

    /usr/bin/python3 vectors/gen/gen_sinusoidal.py --transformers PATH \\
        --tensor2tensor PATH --fairseq PATH --out vectors/sinusoidal

Variants (vectors/FORMAT.md, include/pecert/plugin.h), each from its official code:
  interleaved  sin at 2i, cos at 2i+1, f_i = 10000^(-2i/d): "Attention Is All You Need"
               section 3.5, verbatim in transformers v4.57.6
               models/distilbert/modeling_distilbert.py create_sinusoidal_embeddings
               (the table; rows are looked up by position as DistilBERT's nn.Embedding does)
  concat       sin | cos halves, f_i = 10000^(-2i/d): transformers v4.57.6
               models/marian/modeling_marian.py MarianSinusoidalPositionalEmbedding
               (_init_weight, then forward with past_key_values_length)
  t2t          sin | cos halves, f_i = 10000^(-i/(d/2-1)): tensorflow/tensor2tensor
               tensor2tensor/layers/common_attention.py get_timing_signal_1d, run from its
               text with a numpy float32 stand-in for the eleven tf ops it calls (TensorFlow
               does not install on this machine; see refsrc.py and NumpyTF below)
  fairseq      the t2t table, rows padding_idx + 1 + p, a zero row for padding:
               facebookresearch/fairseq fairseq/modules/sinusoidal_positional_embedding.py
               SinusoidalPositionalEmbedding.forward (make_positions from fairseq/utils.py),
               including its incremental (decode-step) path

The op input is the 0-based position p of each token (its index among the real tokens of
its row; -1 marks a fairseq padding token); the output is the embedding the official code
returns for that token.
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

GENERATOR = "vectors/gen/gen_sinusoidal.py"
FAMILY = "sinusoidal"
FAR = [0, 1, 2, 1023, 1024, 4095, 4096, 65535, 65536, 65537]

NOTES = famgen.notes_table("""
basic            BASIC               Positions 0..n-1 of a released model's embedding width.
real_checkpoint  FUNCTIONALITY       Embedding width of a released model (DistilBERT 768, Marian
                                     512, transformer_base 512, transformer_big 1024, XLM
                                     1024/2048).
long_position    EDGE_CASE           Positions up to 65537: a float32 angle p * f loses p's low
                                     bits.
odd_dim          EDGE_CASE           Odd embedding width: a zero last channel (t2t, fairseq) or one
                                     more sine than cosine (interleaved, concat).
tiny_dim         EDGE_CASE           Width 2 or 4: t2t divides by max(d/2 - 1, 1); fairseq by d/2 -
                                     1 = 1.
timescale        MODIFIED_PARAMETER  t2t max_timescale other than 1e4 (base).
start_index      FUNCTIONALITY       t2t start_index: positions start past 0.
padding_offset   FUNCTIONALITY       fairseq: token p uses row padding_idx + 1 + p (make_positions).
left_padding     EDGE_CASE           fairseq left-padded row: padding tokens get the zero row.
right_padding    EDGE_CASE           fairseq right-padded row: padding tokens get the zero row.
decode_step      FUNCTIONALITY       fairseq incremental decoding: one token at row padding_idx +
                                     seq_len.
table_growth     EDGE_CASE           fairseq recomputes its table when padding_idx + 1 + seq_len
                                     exceeds init_size (1024).
past_length      FUNCTIONALITY       Marian forward with past_key_values_length (decode).
""")


class NumpyTF:
    """The eleven tf ops get_timing_signal_1d calls, on numpy float32/int32.

    TensorFlow converts a Python number to the dtype of the tensor it meets; numpy 1.x
    would promote float32 and a Python float to float64, so values live in T, which
    casts Python numbers to its own dtype first.  The arithmetic is then numpy's
    float32 (exp, sin, cos may differ from TF's Eigen kernels by float32 ulps, inside
    the tolerance of TOLERANCES.md)."""

    class T:
        def __init__(self, value, dtype=None):
            self.a = np.asarray(value, dtype=dtype)

        def _other(self, other):
            return other.a if isinstance(other, NumpyTF.T) else np.asarray(other, dtype=self.a.dtype)

        def __add__(self, o):
            return NumpyTF.T(self.a + self._other(o))

        def __radd__(self, o):
            return NumpyTF.T(self._other(o) + self.a)

        def __sub__(self, o):
            return NumpyTF.T(self.a - self._other(o))

        def __rsub__(self, o):
            return NumpyTF.T(self._other(o) - self.a)

        def __mul__(self, o):
            return NumpyTF.T(self.a * self._other(o))

        def __rmul__(self, o):
            return NumpyTF.T(self._other(o) * self.a)

        def __truediv__(self, o):
            return NumpyTF.T(self.a / self._other(o))

        def __rtruediv__(self, o):
            return NumpyTF.T(self._other(o) / self.a)

        def __neg__(self):
            return NumpyTF.T(-self.a)

        def __getitem__(self, key):
            return NumpyTF.T(self.a[key])

    @staticmethod
    def _a(x):
        return x.a if isinstance(x, NumpyTF.T) else np.asarray(x)

    def range(self, *args):
        return self.T(np.arange(*[int(self._a(v)) for v in args], dtype=np.int32))

    def to_float(self, x):
        return self.T(self._a(x).astype(np.float32))

    def maximum(self, x, y):
        x = self._a(x)
        return self.T(np.maximum(x, np.asarray(y, dtype=x.dtype)))

    def exp(self, x):
        return self.T(np.exp(self._a(x)))

    def sin(self, x):
        return self.T(np.sin(self._a(x)))

    def cos(self, x):
        return self.T(np.cos(self._a(x)))

    def expand_dims(self, x, axis):
        return self.T(np.expand_dims(self._a(x), axis))

    def concat(self, values, axis):
        return self.T(np.concatenate([self._a(v) for v in values], axis=axis))

    def pad(self, x, paddings):
        return self.T(np.pad(self._a(x), [[int(self._a(v)) for v in p] for p in paddings]))

    def mod(self, x, y):
        return self.T(np.mod(self._a(x), self._a(y)))

    def reshape(self, x, shape):
        return self.T(np.reshape(self._a(x), [int(self._a(v)) for v in shape]))


class Sources:
    def __init__(self, args):
        self.t2t = refsrc.Checkout("tensorflow/tensor2tensor", args.tensor2tensor)
        self.fs = refsrc.Checkout("facebookresearch/fairseq", args.fairseq)
        self.hf = hfref.Reference(args.transformers)
        self.torch = self.hf.torch
        from transformers.models.distilbert import modeling_distilbert
        from transformers.models.marian import modeling_marian
        self.distilbert = modeling_distilbert
        self.marian = modeling_marian
        self.timing_signal, _ = refsrc.load_function(
            self.t2t.path("tensor2tensor/layers/common_attention.py"), "get_timing_signal_1d",
            {"math": math, "tf": NumpyTF()})
        # fairseq/__init__.py imports hydra, omegaconf and every model; the two modules
        # used here need only torch, so the packages are registered without running it.
        refsrc.stub_package("fairseq", self.fs.path("fairseq"))
        refsrc.stub_package("fairseq.modules", self.fs.path("fairseq/modules"))
        from fairseq.modules import sinusoidal_positional_embedding as fs_sin
        self.fs_sin = fs_sin
        self.packages = refsrc.packages(self.torch)
        self.packages["transformers"] = self.hf.transformers.__version__

    def hf_provenance(self):
        return {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                "packages": dict(self.packages)}


def add(vf, variant, dim, base, positions, emb, src, comment, flags, padding_idx=None):
    config = {"variant": variant, "dim": dim, "base": base}
    if padding_idx is not None:
        config["padding_idx"] = padding_idx
    emb = np.asarray(emb)
    if emb.shape != (len(positions), dim):
        raise AssertionError(f"{comment}: embedding shape {emb.shape}")
    vf.add_test("sinusoidal.embed", comment, flags, src, config, {},
                {"positions": vf.tensor(np.asarray(positions, dtype=np.int64), "i64")},
                {"embedding": vf.tensor(emb, "f32")})


def build_interleaved(s, vf):
    torch = s.torch
    src = famgen.source("src/transformers/models/distilbert/modeling_distilbert.py",
                        "create_sinusoidal_embeddings")
    for dim, n_pos, positions, comment, flags in (
        (768, 512, list(range(8)) + [100, 511], "DistilBERT width 768, table of 512",
         ["basic", "real_checkpoint"]),
        (1024, 64, list(range(6)) + [63], "XLM width 1024", ["basic", "real_checkpoint"]),
        (9, 16, list(range(16)), "odd width 9", ["odd_dim"]),
        (2, 8, list(range(8)), "width 2", ["tiny_dim"]),
        (16, 65538, FAR, "width 16, positions up to 65537", ["long_position"]),
    ):
        out = torch.empty(n_pos, dim)
        s.distilbert.create_sinusoidal_embeddings(n_pos, dim, out)
        add(vf, "interleaved", dim, 10000, positions, out[positions].numpy(), src,
            f"interleaved, {comment}", flags)


def build_concat(s, vf):
    torch = s.torch
    src = famgen.source("src/transformers/models/marian/modeling_marian.py",
                        "MarianSinusoidalPositionalEmbedding")
    for dim, n_pos, past, seq, comment, flags in (
        (512, 512, 0, 10, "Marian width 512", ["basic", "real_checkpoint"]),
        (512, 512, 500, 3, "Marian width 512, past_key_values_length 500",
         ["past_length", "real_checkpoint"]),
        (9, 16, 0, 16, "odd width 9", ["odd_dim"]),
        (2, 8, 0, 8, "width 2", ["tiny_dim"]),
    ):
        emb = s.marian.MarianSinusoidalPositionalEmbedding(n_pos, dim)
        emb._init_weight()
        out = emb.forward(torch.Size([1, seq]), past_key_values_length=past)
        add(vf, "concat", dim, 10000, list(range(past, past + seq)), out.numpy(), src,
            f"concat, {comment}", flags)
    emb = s.marian.MarianSinusoidalPositionalEmbedding(65538, 16)
    emb._init_weight()
    out = emb.forward(torch.Size([1, 1]), position_ids=torch.tensor(FAR))
    add(vf, "concat", 16, 10000, FAR, out.numpy(), src,
        "concat, width 16, positions up to 65537", ["long_position"])


def build_t2t(s, vf):
    src = famgen.source("tensor2tensor/layers/common_attention.py", "get_timing_signal_1d")
    for length, channels, start, max_ts, comment, flags in (
        (10, 512, 0, 1.0e4, "transformer_base width 512", ["basic", "real_checkpoint"]),
        (6, 1024, 0, 1.0e4, "transformer_big width 1024", ["basic", "real_checkpoint"]),
        (16, 9, 0, 1.0e4, "odd width 9", ["odd_dim"]),
        (8, 2, 0, 1.0e4, "width 2", ["tiny_dim"]),
        (8, 4, 0, 1.0e4, "width 4", ["tiny_dim"]),
        (8, 64, 0, 1.0e3, "max_timescale 1e3, width 64", ["timescale"]),
        (4, 16, 1022, 1.0e4, "start_index 1022, width 16", ["start_index"]),
        (4, 16, 65534, 1.0e4, "start_index 65534, width 16", ["start_index", "long_position"]),
    ):
        signal = s.timing_signal(length, channels, min_timescale=1.0, max_timescale=max_ts,
                                 start_index=start).a
        if signal.dtype != np.float32 or signal.shape != (1, length, channels):
            raise AssertionError(f"{comment}: {signal.dtype} {signal.shape}")
        add(vf, "t2t", channels, max_ts, list(range(start, start + length)), signal[0], src,
            f"t2t, {comment}", flags)


def fairseq_rows(tokens, pad):
    """0-based position of each token among the real tokens of its row, -1 for padding."""
    out = []
    for row in tokens:
        k = 0
        pos = []
        for tok in row:
            pos.append(-1 if tok == pad else k)
            k += tok != pad
        out.append(pos)
    return out


def build_fairseq(s, vf):
    torch = s.torch
    src = famgen.source("fairseq/modules/sinusoidal_positional_embedding.py",
                        "SinusoidalPositionalEmbedding.forward")
    pad = 1
    cases = (
        (512, [[5, 6, 7, 8, 9, 10, 11, 12]], "transformer_wmt_en_de width 512",
         ["basic", "real_checkpoint", "padding_offset"]),
        (1024, [[5, 6, 7, 8]], "transformer_vaswani_wmt_en_de_big width 1024",
         ["basic", "real_checkpoint", "padding_offset"]),
        (16, [[pad, pad, 4, 5, 6], [4, 5, 6, 7, 8]], "left-padded batch, width 16",
         ["left_padding", "padding_offset"]),
        (16, [[4, 5, 6, pad, pad], [4, 5, 6, 7, 8]], "right-padded batch, width 16",
         ["right_padding", "padding_offset"]),
        (9, [[4, 5, 6, 7, 8, 9]], "odd width 9", ["odd_dim", "padding_offset"]),
        (4, [[4, 5, 6, 7, 8, 9]], "width 4", ["tiny_dim", "padding_offset"]),
    )
    for dim, tokens, comment, flags in cases:
        module = s.fs_sin.SinusoidalPositionalEmbedding(dim, pad, init_size=1024)
        out = module.forward(torch.tensor(tokens, dtype=torch.int64))
        for b, pos in enumerate(fairseq_rows(tokens, pad)):
            what = f", row {b}" if len(tokens) > 1 else ""
            add(vf, "fairseq", dim, 10000, pos, out[b].numpy(), src, f"fairseq, {comment}{what}",
                flags, padding_idx=pad)
    # Incremental decoding: the token at step seq_len gets row padding_idx + seq_len.
    module = s.fs_sin.SinusoidalPositionalEmbedding(32, pad, init_size=1024)
    for seq in (1, 2, 700):
        out = module.forward(torch.full((2, seq), 4, dtype=torch.int64), incremental_state={})
        add(vf, "fairseq", 32, 10000, [seq - 1] * 2, out[:, 0].numpy(), src,
            f"fairseq, decode step {seq}, batch 2, width 32",
            ["decode_step", "padding_offset"], padding_idx=pad)
    # A row longer than the 1024-row table: the module regrows it.
    seq = 70000
    module = s.fs_sin.SinusoidalPositionalEmbedding(8, pad, init_size=1024)
    out = module.forward(torch.full((1, seq), 4, dtype=torch.int64))
    keep = [0, 1, 1021, 1022, 1023, 4095, 65534, 65535, 65536, 69999]
    add(vf, "fairseq", 8, 10000, keep, out[0, keep].numpy(), src,
        "fairseq, width 8, a 70000-token row (table regrown past 1024)",
        ["table_growth", "long_position", "padding_offset"], padding_idx=pad)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "sinusoidal", {
        "--transformers": "transformers checkout (v4.57.6)",
        "--tensor2tensor": "tensorflow/tensor2tensor checkout",
        "--fairseq": "facebookresearch/fairseq checkout",
    })
    s = Sources(args)
    return famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("interleaved", "Sinusoidal, interleaved sin/cos (AIAYN 3.5; transformers "
                        "create_sinusoidal_embeddings)", s.hf_provenance(), lambda vf: build_interleaved(s, vf)),
        ("concat", "Sinusoidal, sin | cos halves with 2i/d (transformers Marian)",
         s.hf_provenance(), lambda vf: build_concat(s, vf)),
        ("t2t", "Sinusoidal, sin | cos halves with i/(d/2-1) (tensor2tensor "
                "get_timing_signal_1d)", s.t2t.provenance(s.packages),
         lambda vf: build_t2t(s, vf)),
        ("fairseq", "Sinusoidal, fairseq SinusoidalPositionalEmbedding (padding_idx offset)",
         s.fs.provenance(s.packages), lambda vf: build_fairseq(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
