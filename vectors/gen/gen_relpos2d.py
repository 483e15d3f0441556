#!/usr/bin/python3
"""Generate pecert's decomposed relative-position vectors (MViTv2, SAM's image encoder).

    /usr/bin/python3 vectors/gen/gen_relpos2d.py --transformers PATH --segment-anything PATH \\
        --out vectors/relpos2d

Sources, each module built from its model's default configuration and called on seeded
random inputs (query [n, q_h * q_w, C], rel_pos_h [L_h, C], rel_pos_w [L_w, C]):
  huggingface/transformers v4.57.6, src/transformers/models/ (file sam.json)
    sam      SamVisionAttention(SamVisionConfig(), window_size) (14: a window layer, 27-row
             tables; 0: a global layer, 64 x 64 grid, 127-row tables), its
             get_decomposed_rel_pos(query, rel_pos_h, rel_pos_w, q_size, k_size): the bias
             itself, [n, q_h, q_w, k_h, k_w], which forward reshapes (reshape_as) and adds to
             the scores; recorded as that reshape, no other arithmetic.
    sam_hq   SamHQVisionAttention(SamHQVisionConfig(), 14).get_decomposed_rel_pos, the same.
    vitdet   the module function add_decomposed_relative_positions(attn, queries, rel_pos_h,
             rel_pos_w, q_size, k_size) that VitDetAttention.forward calls, with attn all zeros
             [n, Q, K]: it returns attn + rel_h + rel_w, and 0 + x is x exactly.  Table shapes
             from VitDetAttention(VitDetConfig(use_relative_position_embeddings=True),
             input_size=(14, 14)) (image 224, patch 16: the class's default global grid).
    seggpt   SegGptAttention(SegGptConfig()).add_decomposed_rel_pos(attn, ...), attn all zeros,
             as for ViTDet (896 x 448 input, patch 16: 56 x 28 grid, tables 111 and 55 rows).
  facebookresearch/segment-anything @ dca509fe (file segment_anything.json)
    segment_anything/modeling/image_encoder.py add_decomposed_rel_pos(attn, q, rel_pos_h,
             rel_pos_w, q_size, k_size), attn all zeros, as Attention.forward calls it; table
             shapes from Attention(768, 12, use_rel_pos=True, input_size=...) as
             build_sam_vit_b makes it (window 14, image 1024, patch 16).  The package's
             __init__ files (torchvision, every model) are not run: segment_anything and
             segment_anything.modeling are registered as bare packages and image_encoder
             (which needs torch and .common) is imported from the checkout.

The op's output is [n, q_h * q_w, k_h * k_w]: exactly what the official code adds to the
attention scores (query i = i_h * q_w + i_w, key j = j_h * k_w + j_w).  The transformers
copies interpolate the table always (F.interpolate(mode="linear") to 2 max(q, k) - 1 rows;
at equal length that is the identity, checked bit for bit here), ViTDet and segment-anything
only when its length differs.

Self-checks, any failure fatal:
  - every bias is recomputed here in numpy float64 from the formula (linear resize with
    half-pixel centres, the row index trunc(i s_q - j s_k + (k - 1) s_k) in float32 steps as
    torch computes it, two dot products) and must agree within
    (C + 8) 2^-24 sum_c |q_c| (|Rh_c| + |Rw_c|) plus the resize's float32 error,
    (3 L + 8) 2^-24 (sum of the neighbouring |rows|) per table entry; the worst ratio of
    deviation to bound is printed;
  - each axis' official get_rel_pos (the module's own, or the module function) must equal the
    float64 resized table at the float32 rows, within the resize bound, and bit for bit
    where no resize happens;
  - every vector is recomputed by all five copies (SAM, SAM-HQ, ViTDet, SegGPT,
    segment-anything) and they must agree bit for bit (zeros of either sign equal);
  - every flag that describes a shape (resize, pooled keys, a non-integer ratio, float32 index
    rounding, one token...) is checked against the vector it labels.

Payload: random float32 does not compress, and a global SAM layer's bias (64 x 64 queries
and keys) is 16.7M floats.  Real shapes are recorded where they fit (the 14 x 14 window
layers at head_dim 64; the 127-row global tables on 64 x 1 and 1 x 64 strips); a 16 x 16
grid with 31-row tables stands for the 64 x 64 global layer (same code path, smaller
grid), and a 40 x 3 strip for SAM at 640 x 640 (40 x 40 grid, 127-row tables resized to 79).
"""

import os
import sys
from fractions import Fraction

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_relpos2d.py"
FAMILY = "relpos2d"
OP = "relpos2d.bias"

SA_REPO = "facebookresearch/segment-anything"
SA_FILE = "segment_anything/modeling/image_encoder.py"

# module (config.module) -> (source file, function, flag)
MODULES = {
    "SamVisionAttention": ("src/transformers/models/sam/modeling_sam.py",
                           "SamVisionAttention.get_decomposed_rel_pos", "sam"),
    "SamHQVisionAttention": ("src/transformers/models/sam_hq/modeling_sam_hq.py",
                             "SamHQVisionAttention.get_decomposed_rel_pos", "sam_hq"),
    "VitDetAttention": ("src/transformers/models/vitdet/modeling_vitdet.py",
                        "add_decomposed_relative_positions", "vitdet"),
    "SegGptAttention": ("src/transformers/models/seggpt/modeling_seggpt.py",
                        "SegGptAttention.add_decomposed_rel_pos", "seggpt"),
    "segment_anything": (SA_FILE, "add_decomposed_rel_pos", "segment_anything"),
}

NOTES = famgen.notes_table("""
sam                FUNCTIONALITY  transformers SamVisionAttention.get_decomposed_rel_pos (SAM's image
                                  encoder): the table always passed through F.interpolate, the bias
                                  returned before it is added to the scores.
sam_hq             FUNCTIONALITY  transformers SamHQVisionAttention.get_decomposed_rel_pos (copied from
                                  SAM's).
vitdet             FUNCTIONALITY  transformers vitdet add_decomposed_relative_positions (module
                                  function; resizes only a table of another length), called with zero
                                  attention scores.
seggpt             FUNCTIONALITY  transformers SegGptAttention.add_decomposed_rel_pos (always
                                  interpolates), called with zero attention scores.
segment_anything   FUNCTIONALITY  facebookresearch/segment-anything image_encoder.add_decomposed_rel_pos
                                  (resizes only a table of another length), called with zero attention
                                  scores.
basic              BASIC          Queries and keys on the same grid, each table exactly 2 max(q, k) - 1
                                  rows long: no resize, no scaled coordinates.
real_checkpoint    FUNCTIONALITY  The released checkpoints' head_dim (64) and table lengths: SAM /
                                  SAM-HQ / segment-anything ViT-B 27 rows (window 14) or 127 (global,
                                  64 x 64 grid), ViTDet 27 (224 / 16), SegGPT 111 and 55 (896 x 448 / 16).
global_standin     FUNCTIONALITY  A global-attention layer at a smaller grid: a 16 x 16 grid with 31-row
                                  tables stands for SAM ViT-B's 64 x 64 with 127 rows (whose bias, 64^4
                                  floats, is too large to ship); the same code path.
resize_up          EDGE_CASE      A table shorter than 2 max(q, k) - 1 rows: linearly upsampled (half-pixel
                                  centres, the last row repeated past the end).
resize_down        EDGE_CASE      A table longer than 2 max(q, k) - 1 rows: linearly downsampled (no
                                  antialiasing: each output row reads two neighbours).
one_row_table      EDGE_CASE      A 1-row table: every resized row is that row.
pooled_keys        FUNCTIONALITY  Fewer keys than queries on an axis (MViTv2's pooled keys): key
                                  coordinates scaled by q / k.
pooled_queries     FUNCTIONALITY  Fewer queries than keys on an axis (MViTv2's pooled queries): query
                                  coordinates scaled by k / q.
non_integer_ratio  EDGE_CASE      max(q, k) / min(q, k) not an integer on an axis: fractional coordinates
                                  truncated (not rounded) to a row, some rows of the table never read.
index_rounding     EDGE_CASE      The float32 arithmetic of the row index (torch.arange * ratio, then
                                  .long()) lands one row below the exact floor for some pairs: an
                                  integer-valued coordinate computed 2^-22 or 2^-21 short and truncated
                                  (q 8, k 6: 8 of the 48 pairs, the last key's row for queries 1..7).
non_square         EDGE_CASE      q_h != q_w or k_h != k_w: the two axes must not be swapped.
one_token          EDGE_CASE      A 1 x 1 query grid and a 1 x 1 key grid.
single_row         EDGE_CASE      A single row of queries (q_h = 1 < q_w).
single_column      EDGE_CASE      A single column of queries (q_w = 1 < q_h).
batch_heads        FUNCTIONALITY  n > 1: batch x heads queries, each its own bias.
""")

MODULE_NAMES = tuple(MODULES)
ZERO_ATTN = ("VitDetAttention", "SegGptAttention", "segment_anything")
STATS = {"worst_ratio": 0.0, "worst_test": ""}


class Sources:
    """The official modules, imported from the checkouts, and their default instances."""

    def __init__(self, hf, sa_root):
        self.hf = hf
        torch = self.torch = hf.torch
        from transformers.models.sam import configuration_sam, modeling_sam
        from transformers.models.sam_hq import configuration_sam_hq, modeling_sam_hq
        from transformers.models.seggpt import configuration_seggpt, modeling_seggpt
        from transformers.models.vitdet import configuration_vitdet, modeling_vitdet
        self.sa = refsrc.Checkout(SA_REPO, sa_root)
        refsrc.stub_package("segment_anything", self.sa.path("segment_anything"))
        refsrc.stub_package("segment_anything.modeling", self.sa.path("segment_anything/modeling"))
        from segment_anything.modeling import image_encoder
        if os.path.realpath(image_encoder.__file__) != os.path.realpath(self.sa.path(SA_FILE)):
            raise SystemExit(f"image_encoder imported from {image_encoder.__file__}, not the checkout")
        self.image_encoder = image_encoder
        self.modeling_vitdet = modeling_vitdet

        with torch.no_grad():
            sam_cfg = configuration_sam.SamVisionConfig()
            self.sam_window = modeling_sam.SamVisionAttention(sam_cfg, sam_cfg.window_size)
            self.sam_global = modeling_sam.SamVisionAttention(sam_cfg, 0)
            hq_cfg = configuration_sam_hq.SamHQVisionConfig()
            self.sam_hq = modeling_sam_hq.SamHQVisionAttention(hq_cfg, hq_cfg.window_size)
            vd_cfg = configuration_vitdet.VitDetConfig(use_relative_position_embeddings=True)
            grid = vd_cfg.image_size // vd_cfg.patch_size
            self.vitdet = modeling_vitdet.VitDetAttention(vd_cfg, input_size=(grid, grid))
            self.seggpt = modeling_seggpt.SegGptAttention(configuration_seggpt.SegGptConfig())
            # build_sam_vit_b: encoder_embed_dim 768, encoder_num_heads 12, window 14, image
            # 1024 / patch 16 = 64 (global layers); Block passes input_size to Attention.
            self.sa_window = image_encoder.Attention(768, num_heads=12, qkv_bias=True, use_rel_pos=True,
                                                     input_size=(14, 14))
            self.sa_global = image_encoder.Attention(768, num_heads=12, qkv_bias=True, use_rel_pos=True,
                                                     input_size=(64, 64))
        # The real table shapes [L_h, L_w, C] each module holds (real_checkpoint's claim).
        self.real = {}
        for name, mods in (("SamVisionAttention", (self.sam_window, self.sam_global)),
                           ("SamHQVisionAttention", (self.sam_hq,)), ("VitDetAttention", (self.vitdet,)),
                           ("SegGptAttention", (self.seggpt,)), ("segment_anything", (self.sa_window, self.sa_global))):
            self.real[name] = [(tuple(m.rel_pos_h.shape), tuple(m.rel_pos_w.shape)) for m in mods]
        expect = {"SamVisionAttention": [((27, 64), (27, 64)), ((127, 64), (127, 64))],
                  "SamHQVisionAttention": [((27, 64), (27, 64))], "VitDetAttention": [((27, 64), (27, 64))],
                  "SegGptAttention": [((111, 64), (55, 64))],
                  "segment_anything": [((27, 64), (27, 64)), ((127, 64), (127, 64))]}
        if self.real != expect:
            raise AssertionError(f"default table shapes {self.real}, expected {expect}")

        packages = refsrc.packages(torch)
        packages["transformers"] = hf.transformers.__version__
        self.prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                     "packages": packages}
        self.sa_prov = self.sa.provenance(refsrc.packages(torch))

    # -- the official calls -------------------------------------------------------------------

    def bias(self, module, query, th, tw, qs, ks):
        """The bias module adds to the scores, [n, Q, K] float32 (a reshape of its result)."""
        torch = self.torch
        n = query.shape[0]
        q_tokens, k_tokens = qs[0] * qs[1], ks[0] * ks[1]
        zeros = torch.zeros((n, q_tokens, k_tokens), dtype=torch.float32)
        with torch.no_grad():
            if module == "SamVisionAttention":
                got = self.sam_window.get_decomposed_rel_pos(query, th, tw, qs, ks)
                if tuple(got.shape) != (n, qs[0], qs[1], ks[0], ks[1]):
                    raise AssertionError(f"SamVisionAttention returned {tuple(got.shape)}")
                got = got.reshape_as(zeros)  # as forward: decomposed_rel_pos.reshape_as(attn_weights)
            elif module == "SamHQVisionAttention":
                got = self.sam_hq.get_decomposed_rel_pos(query, th, tw, qs, ks)
                if tuple(got.shape) != (n, qs[0], qs[1], ks[0], ks[1]):
                    raise AssertionError(f"SamHQVisionAttention returned {tuple(got.shape)}")
                got = got.reshape_as(zeros)
            elif module == "VitDetAttention":
                got = self.modeling_vitdet.add_decomposed_relative_positions(zeros, query, th, tw, qs, ks)
            elif module == "SegGptAttention":
                got = self.seggpt.add_decomposed_rel_pos(zeros, query, th, tw, qs, ks)
            else:
                got = self.image_encoder.add_decomposed_rel_pos(zeros, query, th, tw, qs, ks)
        if got.dtype != torch.float32 or tuple(got.shape) != (n, q_tokens, k_tokens):
            raise AssertionError(f"{module} returned {got.dtype} {tuple(got.shape)}")
        return got.numpy().copy()

    def rel_pos(self, module, q, k, table):
        """The module's own get_rel_pos for one axis: [q, k, C] float32."""
        with self.torch.no_grad():
            if module == "SamVisionAttention":
                got = self.sam_window.get_rel_pos(q, k, table)
            elif module == "SamHQVisionAttention":
                got = self.sam_hq.get_rel_pos(q, k, table)
            elif module == "VitDetAttention":
                got = self.modeling_vitdet.get_rel_pos(q, k, table)
            elif module == "SegGptAttention":
                got = self.seggpt.get_rel_pos(q, k, table)
            else:
                got = self.image_encoder.get_rel_pos(q, k, table)
        return got.numpy().copy()


# -- the independent float64 formula -----------------------------------------------------------

def rows_f32(q, k):
    """get_rel_pos' row index for query a, key b, in float32 steps: fl(a * fl(s_q)) -
    fl(b * fl(s_k)) + fl((k - 1) * s_k), truncated toward zero.  [q, k] int64."""
    f = np.float32
    s_q, s_k = max(k / q, 1.0), max(q / k, 1.0)
    a = np.arange(q, dtype=np.float32)[:, None] * f(s_q)
    b = np.arange(k, dtype=np.float32)[None, :] * f(s_k)
    rel = (a - b) + f((k - 1) * s_k)
    if rel.dtype != np.float32:
        raise AssertionError("index arithmetic left float32")
    return np.trunc(rel).astype(np.int64)


def rows_exact(q, k):
    """The same index in exact rational arithmetic (floor): what float32 rounding departs from."""
    s_q, s_k = max(Fraction(k, q), 1), max(Fraction(q, k), 1)
    return np.array([[int((a * s_q - b * s_k + (k - 1) * s_k) // 1) for b in range(k)] for a in range(q)],
                    dtype=np.int64)


def resize64(table, m):
    """The table resized to m rows, linear with half-pixel centres, in float64; with the
    interpolated |table| (an upper bound of |row|) and the float32 error bound of each entry."""
    x = table.astype(np.float64)
    length = x.shape[0]
    if length == m:
        return x, np.abs(x), np.zeros_like(x)
    src = np.maximum((np.arange(m) + 0.5) * length / m - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), length - 1)
    i1 = np.minimum(i0 + 1, length - 1)
    lam = (src - i0)[:, None]
    ax = np.abs(x)
    val = (1 - lam) * x[i0] + lam * x[i1]
    mag = (1 - lam) * ax[i0] + lam * ax[i1]
    # float32's source coordinate is off by up to ~3 L ulps and may pick the neighbouring pair.
    near = np.maximum.reduce([ax[np.clip(i0 + d, 0, length - 1)] for d in (-1, 0, 1, 2)])
    err = (3 * length + 8) * 2.0 ** -24 * 2 * near
    return val, mag, err


def axis64(q, k, table):
    m = 2 * max(q, k) - 1
    val, mag, err = resize64(table, m)
    idx = rows_f32(q, k)
    if idx.min() < 0 or idx.max() > m - 1:
        raise AssertionError(f"row index outside 0..{m - 1} for q {q}, k {k}")
    return val[idx], mag[idx], err[idx]


def formula(query, th, tw, qs, ks):
    """The bias [n, Q, K] in float64 and its bound."""
    n, _, c = query.shape
    qh, qw = qs
    kh, kw = ks
    rh, mh, eh = axis64(qh, kh, th)  # [qh, kh, C]
    rw, mw, ew = axis64(qw, kw, tw)  # [qw, kw, C]
    q = query.astype(np.float64).reshape(n, qh, qw, c)
    aq = np.abs(q)
    bias_h = np.einsum("nhwc,hkc->nhwk", q, rh)
    bias_w = np.einsum("nhwc,wkc->nhwk", q, rw)
    mag = np.einsum("nhwc,hkc->nhwk", aq, mh)[..., :, None] + np.einsum("nhwc,wkc->nhwk", aq, mw)[..., None, :]
    err = np.einsum("nhwc,hkc->nhwk", aq, eh)[..., :, None] + np.einsum("nhwc,wkc->nhwk", aq, ew)[..., None, :]
    bias = bias_h[..., :, None] + bias_w[..., None, :]
    bound = (c + 8) * 2.0 ** -24 * mag + err
    return bias.reshape(n, qh * qw, kh * kw), bound.reshape(n, qh * qw, kh * kw)


# -- flags ------------------------------------------------------------------------------------

def check_flags(s, comment, flags, cfg, query, th, tw):
    qh, qw, kh, kw = cfg["q_h"], cfg["q_w"], cfg["k_h"], cfg["k_w"]
    n, _, c = query.shape
    lengths = ((th.shape[0], 2 * max(qh, kh) - 1), (tw.shape[0], 2 * max(qw, kw) - 1))
    axes = ((qh, kh), (qw, kw))
    facts = {
        "basic": qh == kh and qw == kw and all(length == m for length, m in lengths),
        "resize_up": any(length < m for length, m in lengths),
        "resize_down": any(length > m for length, m in lengths),
        "one_row_table": any(length == 1 for length, _ in lengths),
        "pooled_keys": kh < qh or kw < qw,
        "pooled_queries": qh < kh or qw < kw,
        "non_integer_ratio": any(max(a, b) % min(a, b) for a, b in axes),
        "index_rounding": any(not np.array_equal(rows_f32(a, b), rows_exact(a, b)) for a, b in axes),
        "non_square": qh != qw or kh != kw,
        "one_token": qh == qw == kh == kw == 1,
        "single_row": qh == 1 and qw > 1,
        "single_column": qw == 1 and qh > 1,
        "batch_heads": n > 1,
    }
    facts.update((flag, cfg["module"] == name) for name, (_, _, flag) in MODULES.items())
    wrong = [f for f, fact in facts.items() if (f in flags) != bool(fact)]
    real = [(tuple(th.shape), tuple(tw.shape))]
    if "real_checkpoint" in flags and not (c == 64 and real[0] in s.real[cfg["module"]]):
        wrong.append("real_checkpoint")
    if "global_standin" in flags and not (qh == qw == kh == kw == 16 and c == 64 and facts["basic"]):
        wrong.append("global_standin")
    unknown = set(flags) - set(facts) - {"real_checkpoint", "global_standin"}
    if wrong or unknown:
        raise AssertionError(f"{comment}: flags {sorted(wrong) + sorted(unknown)} do not describe it")


# -- recording --------------------------------------------------------------------------------

def same_bits(a, b):
    """Bit-for-bit equality of finite float32 arrays, a zero of either sign equal to the other
    (two finite floats compare equal exactly when their bits are equal, or both are zeros)."""
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


def record(s, vf, comment, flags, module, qs, ks, n, c, lh, lw):
    torch = s.torch
    label = f"{vf.name}/{comment}"
    query = famgen.seeded_normal(label + "/query", (n, qs[0] * qs[1], c))
    th = famgen.seeded_normal(label + "/rel_pos_h", (lh, c))
    tw = famgen.seeded_normal(label + "/rel_pos_w", (lw, c))
    cfg = {"q_h": qs[0], "q_w": qs[1], "k_h": ks[0], "k_w": ks[1], "module": module}
    check_flags(s, comment, flags, cfg, query, th, tw)
    tq, tth, ttw = (torch.from_numpy(a) for a in (query, th, tw))
    bias = s.bias(module, tq, tth, ttw, tuple(qs), tuple(ks))

    # The copies agree bit for bit.
    for other in MODULE_NAMES:
        if other != module and not same_bits(bias, s.bias(other, tq, tth, ttw, tuple(qs), tuple(ks))):
            raise AssertionError(f"{comment}: {module} and {other} differ")
    # Each axis' official rows against the float64 resize at the float32 rows.
    for q, k, t in ((qs[0], ks[0], th), (qs[1], ks[1], tw)):
        got = s.rel_pos(module, q, k, torch.from_numpy(t)).astype(np.float64)
        val, _, err = axis64(q, k, t)
        if got.shape != val.shape or np.any(np.abs(got - val) > err):
            raise AssertionError(f"{comment}: {module} get_rel_pos({q}, {k}) is not the resized table's rows")
        if t.shape[0] == 2 * max(q, k) - 1 and not np.array_equal(got, val):
            raise AssertionError(f"{comment}: {module} get_rel_pos({q}, {k}) changed an unresized table")
    # The formula in float64.
    again, bound = formula(query, th, tw, qs, ks)
    dev = np.abs(bias.astype(np.float64) - again)
    if not np.all(np.isfinite(bias)) or np.any(dev > bound):
        raise AssertionError(f"{comment}: {module} and the formula disagree "
                             f"(worst {np.max(dev - bound):.3g} past the bound)")
    ratio = float(np.max(np.where(bound > 0, dev / np.where(bound > 0, bound, 1), 0)))
    if ratio > STATS["worst_ratio"]:
        STATS.update(worst_ratio=ratio, worst_test=f"{vf.name}: {comment}")

    file, function, _ = MODULES[module]
    vf.add_test(OP, comment, flags, famgen.source(file, function), cfg, {},
                {"query": vf.tensor(query, "f32"), "rel_pos_h": vf.tensor(th, "f32"),
                 "rel_pos_w": vf.tensor(tw, "f32")},
                {"bias": vf.tensor(bias, "f32")})


def build_transformers(s, vf):
    sam, hq, vd, sg = "SamVisionAttention", "SamHQVisionAttention", "VitDetAttention", "SegGptAttention"
    real = ["real_checkpoint"]

    # SAM (transformers): the real layers, then the edge cases at a few channels.
    record(s, vf, "SAM ViT-B window layer: 14 x 14 window, 27-row tables, head_dim 64", ["sam", "basic"] + real,
           sam, (14, 14), (14, 14), 1, 64, 27, 27)
    record(s, vf, "SAM ViT-B global layer stand-in: 16 x 16 grid, 31-row tables, head_dim 64 (for 64 x 64, "
           "127 rows)", ["sam", "basic", "global_standin"], sam, (16, 16), (16, 16), 1, 64, 31, 31)
    record(s, vf, "SAM ViT-B global tables (127 rows, head_dim 64) on a 64 x 1 column: rel_pos_w resized to 1 row",
           ["sam", "resize_down", "single_column", "non_square"] + real, sam, (64, 1), (64, 1), 1, 64, 127, 127)
    record(s, vf, "SAM ViT-B global tables (127 rows, head_dim 64) on a 1 x 64 row: rel_pos_h resized to 1 row",
           ["sam", "resize_down", "single_row", "non_square"] + real, sam, (1, 64), (1, 64), 1, 64, 127, 127)
    record(s, vf, "SAM at 640 x 640 (40 x 40 grid): 127-row global tables resized to 79 rows, a 40 x 2 strip, C 8",
           ["sam", "resize_down", "non_square"], sam, (40, 2), (40, 2), 1, 8, 127, 127)
    record(s, vf, "SAM window tables (27 rows) on a 24 x 4 grid: rel_pos_h up to 47 rows, rel_pos_w down to 7, C 8",
           ["sam", "resize_up", "resize_down", "non_square"], sam, (24, 4), (24, 4), 1, 8, 27, 27)
    record(s, vf, "SAM, 9-row tables on an 8 x 6 grid: both upsampled (15 and 11 rows), C 4",
           ["sam", "resize_up", "non_square", "batch_heads"], sam, (8, 6), (8, 6), 2, 4, 9, 9)
    record(s, vf, "SAM, pooled keys: q 8 x 8, k 4 x 4 (stride 2), 15-row tables, C 8",
           ["sam", "pooled_keys", "batch_heads"], sam, (8, 8), (4, 4), 2, 8, 15, 15)
    record(s, vf, "SAM, pooled queries: q 4 x 4, k 8 x 8, 15-row tables, C 8",
           ["sam", "pooled_queries", "batch_heads"], sam, (4, 4), (8, 8), 2, 8, 15, 15)
    record(s, vf, "SAM, non-integer ratio: q 6 x 6, k 4 x 4, 11-row tables, C 8",
           ["sam", "pooled_keys", "non_integer_ratio", "batch_heads"], sam, (6, 6), (4, 4), 2, 8, 11, 11)
    record(s, vf, "SAM, float32 index rounding: q 8 x 8, k 6 x 6, 15-row tables, C 8",
           ["sam", "pooled_keys", "non_integer_ratio", "index_rounding", "batch_heads"], sam, (8, 8), (6, 6),
           2, 8, 15, 15)
    record(s, vf, "SAM, float32 index rounding with pooled queries: q 22 x 3, k 26 x 2, 51 and 5-row tables, C 4",
           ["sam", "pooled_keys", "pooled_queries", "non_integer_ratio", "index_rounding", "non_square"], sam,
           (22, 3), (26, 2), 1, 4, 51, 5)
    record(s, vf, "SAM, mixed pooling: q 4 x 6, k 6 x 4, 11-row tables, C 8",
           ["sam", "pooled_keys", "pooled_queries", "non_integer_ratio", "non_square", "batch_heads"], sam,
           (4, 6), (6, 4), 2, 8, 11, 11)
    record(s, vf, "SAM, pooled keys with resized tables: q 8 x 8, k 4 x 4, window tables (27 rows) down to 15, C 8",
           ["sam", "pooled_keys", "resize_down"], sam, (8, 8), (4, 4), 1, 8, 27, 27)
    record(s, vf, "SAM, non-square 5 x 9 grid, 9 and 17-row tables, n 3, C 8",
           ["sam", "basic", "non_square", "batch_heads"], sam, (5, 9), (5, 9), 3, 8, 9, 17)
    record(s, vf, "SAM, 1 x 1, 1-row tables, n 3, C 4", ["sam", "basic", "one_token", "one_row_table", "batch_heads"],
           sam, (1, 1), (1, 1), 3, 4, 1, 1)
    record(s, vf, "SAM, 1 x 1 with the window tables (27 rows resized to 1), n 2, C 8",
           ["sam", "one_token", "resize_down", "batch_heads"], sam, (1, 1), (1, 1), 2, 8, 27, 27)
    record(s, vf, "SAM, one row: 1 x 12, 1 and 23-row tables, C 8",
           ["sam", "basic", "single_row", "one_row_table", "non_square", "batch_heads"], sam, (1, 12), (1, 12), 2, 8,
           1, 23)
    record(s, vf, "SAM, a 1-row rel_pos_h upsampled to 9 rows on a 5 x 5 grid, C 4",
           ["sam", "one_row_table", "resize_up", "batch_heads"], sam, (5, 5), (5, 5), 2, 4, 1, 9)
    record(s, vf, "SAM, one image's 12 heads: n 12, 4 x 4, 7-row tables, C 4", ["sam", "basic", "batch_heads"],
           sam, (4, 4), (4, 4), 12, 4, 7, 7)

    # SAM-HQ (a copy of SAM's class).
    record(s, vf, "SAM-HQ ViT-B window tables (27 rows, head_dim 64) on a 14 x 2 strip: rel_pos_w resized to 3 rows",
           ["sam_hq", "resize_down", "non_square"] + real, hq, (14, 2), (14, 2), 1, 64, 27, 27)
    record(s, vf, "SAM-HQ, q 6 x 4, k 4 x 6, window tables (27 rows) down to 11, C 8",
           ["sam_hq", "pooled_keys", "pooled_queries", "non_integer_ratio", "non_square", "resize_down",
            "batch_heads"], hq, (6, 4), (4, 6), 2, 8, 27, 27)

    # ViTDet (the module function).
    record(s, vf, "ViTDet (image 224, patch 16: 14 x 14 grid, 27-row tables, head_dim 64) on a 2 x 14 strip: "
           "rel_pos_h resized to 3 rows", ["vitdet", "resize_down", "non_square"] + real, vd, (2, 14), (2, 14), 1, 64,
           27, 27)
    record(s, vf, "ViTDet, 27-row tables on a 10 x 7 grid (down to 19 and 13 rows), C 8",
           ["vitdet", "resize_down", "non_square", "batch_heads"], vd, (10, 7), (10, 7), 2, 8, 27, 27)
    record(s, vf, "ViTDet, float32 index rounding: q 8 x 7, k 6 x 6, 15 and 13-row tables, C 4",
           ["vitdet", "pooled_keys", "non_integer_ratio", "index_rounding", "non_square", "batch_heads"], vd,
           (8, 7), (6, 6), 2, 4, 15, 13)

    # SegGPT.
    record(s, vf, "SegGPT (896 x 448, patch 16: 56 x 28 grid, 111 and 55-row tables, head_dim 64) on a 56 x 1 "
           "column: rel_pos_w resized to 1 row", ["seggpt", "resize_down", "single_column", "non_square"] + real,
           sg, (56, 1), (56, 1), 1, 64, 111, 55)
    record(s, vf, "SegGPT tables (111 and 55 rows) on an 8 x 4 grid (down to 15 and 7 rows), C 8",
           ["seggpt", "resize_down", "non_square", "batch_heads"], sg, (8, 4), (8, 4), 2, 8, 111, 55)
    record(s, vf, "SegGPT, pooled keys: q 6 x 6, k 3 x 3, 11-row tables, C 4",
           ["seggpt", "pooled_keys", "batch_heads"], sg, (6, 6), (3, 3), 2, 4, 11, 11)


def build_segment_anything(s, vf):
    sa = "segment_anything"
    real = ["real_checkpoint"]
    record(s, vf, "ViT-B window layer: 14 x 14 window, 27-row tables, head_dim 64", [sa, "basic"] + real,
           sa, (14, 14), (14, 14), 1, 64, 27, 27)
    record(s, vf, "window tables (27 rows) on a 24 x 4 grid: rel_pos_h up to 47 rows, rel_pos_w down to 7, C 8",
           [sa, "resize_up", "resize_down", "non_square"], sa, (24, 4), (24, 4), 1, 8, 27, 27)
    record(s, vf, "pooled keys: q 8 x 8, k 4 x 4, 15-row tables, C 8", [sa, "pooled_keys", "batch_heads"],
           sa, (8, 8), (4, 4), 2, 8, 15, 15)
    record(s, vf, "non-integer ratio: q 6 x 6, k 4 x 4, 11-row tables, C 8",
           [sa, "pooled_keys", "non_integer_ratio", "batch_heads"], sa, (6, 6), (4, 4), 2, 8, 11, 11)
    record(s, vf, "float32 index rounding: q 8 x 8, k 6 x 6, 15-row tables, C 8",
           [sa, "pooled_keys", "non_integer_ratio", "index_rounding", "batch_heads"], sa, (8, 8), (6, 6), 2, 8,
           15, 15)
    record(s, vf, "pooled queries: q 3 x 5, k 6 x 5, 11 and 9-row tables, C 4",
           [sa, "pooled_queries", "non_square", "batch_heads"], sa, (3, 5), (6, 5), 2, 4,
           11, 9)
    record(s, vf, "1 x 1, 1-row tables, n 3, C 4", [sa, "basic", "one_token", "one_row_table", "batch_heads"],
           sa, (1, 1), (1, 1), 3, 4, 1, 1)
    record(s, vf, "non-square 5 x 9 grid, 9 and 17-row tables, n 3, C 8", [sa, "basic", "non_square", "batch_heads"],
           sa, (5, 9), (5, 9), 3, 8, 9, 17)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, FAMILY, {
        "--transformers": "transformers checkout (v4.57.6)",
        "--segment-anything": "facebookresearch/segment-anything checkout (dca509fe)"})
    s = Sources(hfref.Reference(args.transformers), args.segment_anything)
    status = famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("sam", "decomposed relative positions (MViTv2) of SAM's image encoder and its copies in transformers "
                "(SAM, SAM-HQ, ViTDet, SegGPT)", s.prov, lambda vf: build_transformers(s, vf)),
        ("segment_anything", "decomposed relative positions (MViTv2) of facebookresearch/segment-anything's image "
                             "encoder (add_decomposed_rel_pos)", s.sa_prov, lambda vf: build_segment_anything(s, vf)),
    ))
    print(f"formula agreement: worst deviation / bound {STATS['worst_ratio']:.3g} ({STATS['worst_test']})",
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
