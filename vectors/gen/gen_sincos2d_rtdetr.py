#!/usr/bin/python3
"""Generate pecert's RT-DETR 2-D sin-cos vectors from transformers (layout rt_detr).

    /usr/bin/python3 vectors/gen/gen_sincos2d_rtdetr.py --transformers PATH --out vectors/sincos2d

Source: huggingface/transformers v4.57.6 (commit pinned in hfref.py), imported from the
checkout: src/transformers/models/rt_detr/modeling_rt_detr.py
RTDetrHybridEncoder.build_2d_sincos_position_embedding(width, height, embed_dim,
temperature, dtype=torch.float32), called as RTDetrHybridEncoder.forward calls it for a
feature map of `height` rows and `width` columns (the encoder's src dtype: float32).  Its
[1, width * height, embed_dim] result is recorded without the leading 1 as rt_detr.json,
config layout "rt_detr", grid_h = height, grid_w = width, base = temperature, no cls row.

Self-checks, any failure fatal:
  - the copies of the same static method in rt_detr_v2 (RTDetrV2HybridEncoder), d_fine
    (DFineHybridEncoder) and omdet_turbo (OmDetTurboHybridEncoder) give the same bits
    for every case (the model types certify maps onto this one layout);
  - every table equals a float64 evaluation of FORMAT.md's rt_detr layout (row k: the
    sin | cos halves of k // grid_h, then of k mod grid_h, at base^(-i/(embed_dim/4)))
    within 4 * 2^-24 (angle + 1), the float32 rounding of torch's steps;
  - on every non-square grid the table differs from the row-major numbering transformers
    adopted after v4.57.6 (PR #41380) and, unless it is one row or column, from MAE's layout, so
    that the vectors tell them apart; on a square grid it equals the row-major numbering.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_sincos2d_rtdetr.py"
FAMILY = "sincos2d"

NOTES = famgen.notes_table("""
rt_detr_layout   FUNCTIONALITY  RT-DETR's table: row k is the halves of k // grid_h and k mod grid_h
                                (an "ij" meshgrid of the width and the height, flattened), not MAE's
                                column | row.
square           FUNCTIONALITY  A square grid: the table is the patch's row | column.
non_square       EDGE_CASE      grid_h != grid_w: the rows the table numbers are not the patches'
                                (the original RT-DETR code and transformers v4.57.6 do so; a port
                                numbering them row-major differs here only).
real_checkpoint  FUNCTIONALITY  A feature map of a released checkpoint: 640 x 640 at stride 32 (20 x
                                20), or 640 x 480 / 480 x 640; width 256 (R18 to R50, D-FINE N to L)
                                or 384 (R101, D-FINE X).
single_row       EDGE_CASE      One row or one column of patches.
temperature      FUNCTIONALITY  A temperature other than 10000 (positional_encoding_temperature).
""")

# (embed_dim, height, width, temperature, comment, flags)
CASES = (
    (256, 20, 20, 10000, "640 x 640 image at stride 32: 20 x 20, width 256", ["square", "real_checkpoint"]),
    (384, 20, 20, 10000, "640 x 640 image at stride 32, R101's width 384", ["square", "real_checkpoint"]),
    (256, 15, 20, 10000, "640 wide x 480 high at stride 32: 15 rows x 20 columns", ["non_square", "real_checkpoint"]),
    (256, 20, 15, 10000, "480 wide x 640 high at stride 32: 20 rows x 15 columns", ["non_square", "real_checkpoint"]),
    (64, 3, 5, 10000, "3 rows x 5 columns, width 64", ["non_square"]),
    (32, 1, 7, 10000, "1 row x 7 columns, width 32", ["non_square", "single_row"]),
    (32, 6, 1, 10000, "6 rows x 1 column, width 32", ["non_square", "single_row"]),
    (64, 7, 7, 100, "7 x 7, temperature 100", ["square", "temperature"]),
    (16, 4, 9, 20, "4 rows x 9 columns, width 16, temperature 20", ["non_square", "temperature"]),
)


def halves(dim, first, second, base):
    """FORMAT.md's table in float64 from each row's two coordinates."""
    q = dim // 4
    w = np.exp(-np.log(float(base)) * np.arange(q, dtype=np.float64) / q)
    a = np.asarray(first, dtype=np.float64)[:, None] * w[None, :]
    b = np.asarray(second, dtype=np.float64)[:, None] * w[None, :]
    return np.concatenate([np.sin(a), np.cos(a), np.sin(b), np.cos(b)], axis=1), np.maximum(a.max(), b.max())


class Sources:
    def __init__(self, hf):
        self.torch = hf.torch
        from transformers.models.d_fine import modeling_d_fine
        from transformers.models.omdet_turbo import modeling_omdet_turbo
        from transformers.models.rt_detr import modeling_rt_detr
        from transformers.models.rt_detr_v2 import modeling_rt_detr_v2
        root = os.path.realpath(hf.src_root)
        mods = (modeling_rt_detr, modeling_rt_detr_v2, modeling_d_fine, modeling_omdet_turbo)
        for mod in mods:
            if not os.path.realpath(mod.__file__).startswith(root + os.sep):
                raise SystemExit(f"{mod.__name__} imported from {mod.__file__}, not the checkout")
        self.build = modeling_rt_detr.RTDetrHybridEncoder.build_2d_sincos_position_embedding
        self.copies = {
            "RTDetrV2HybridEncoder": modeling_rt_detr_v2.RTDetrV2HybridEncoder.build_2d_sincos_position_embedding,
            "DFineHybridEncoder": modeling_d_fine.DFineHybridEncoder.build_2d_sincos_position_embedding,
            "OmDetTurboHybridEncoder": modeling_omdet_turbo.OmDetTurboHybridEncoder.build_2d_sincos_position_embedding,
        }
        packages = refsrc.packages(self.torch)
        packages["transformers"] = hf.transformers.__version__
        self.prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                     "packages": packages}

    def table(self, fn, dim, h, w, temperature):
        out = fn(w, h, dim, temperature, device="cpu", dtype=self.torch.float32)
        return out[0].numpy()


def check_case(comment, got, dim, h, w, base, flags):
    k = np.arange(h * w)
    want, top = halves(dim, k // h, k % h, base)
    dev = np.abs(got.astype(np.float64) - want).max()
    if dev > 4 * 2.0 ** -24 * (top + 1):
        raise AssertionError(f"{comment}: float64 rt_detr layout differs by {dev}")
    mae, _ = halves(dim, k % w, k // w, base)
    row_major, _ = halves(dim, k // w, k % w, base)
    apart = (np.abs(mae - want).max(), np.abs(row_major - want).max())
    if ("non_square" in flags) != (h != w):
        raise AssertionError(f"{comment}: flags say {flags} for {h} x {w}")
    # One row or one column is MAE's table (k // 1 = the column and k mod 1 = the row 0;
    # k // h = 0 and k mod h = the row).
    if h != w and (apart[1] < 0.1 or (min(h, w) > 1 and apart[0] < 0.1)):
        raise AssertionError(f"{comment}: the layouts are not told apart ({apart})")
    if h == w and apart[1] != 0.0:
        raise AssertionError(f"{comment}: square grid differs from the row-major numbering")


def build(s, vf):
    src = famgen.source("src/transformers/models/rt_detr/modeling_rt_detr.py",
                        "RTDetrHybridEncoder.build_2d_sincos_position_embedding")
    for dim, h, w, temperature, comment, flags in CASES:
        got = s.table(s.build, dim, h, w, temperature)
        if got.dtype != np.float32 or got.shape != (h * w, dim):
            raise AssertionError(f"{comment}: {got.dtype} {got.shape}")
        for name, fn in s.copies.items():
            if not np.array_equal(s.table(fn, dim, h, w, temperature).view(np.uint32), got.view(np.uint32)):
                raise AssertionError(f"{comment}: {name}'s copy gives other bits")
        check_case(comment, got, dim, h, w, temperature, flags)
        vf.add_test("sincos2d.embed", f"RT-DETR, {comment}", ["rt_detr_layout"] + flags, src,
                    {"embed_dim": dim, "grid_h": h, "grid_w": w, "cls_token": False, "base": temperature,
                     "layout": "rt_detr"},
                    {}, {}, {"embedding": vf.tensor(got, "f32")})


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, FAMILY, {"--transformers": "transformers checkout (v4.57.6)"})
    s = Sources(hfref.Reference(args.transformers))
    return famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("rt_detr", "2-D sin-cos position embeddings of RT-DETR's hybrid encoder (transformers "
                    "build_2d_sincos_position_embedding)", s.prov, lambda vf: build(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
