#!/usr/bin/python3
"""Generate pecert's 2-D sin-cos (ViT/MAE) vectors from facebookresearch/mae.

    /usr/bin/python3 vectors/gen/gen_sincos2d.py --mae PATH --out vectors/sincos2d

Source: facebookresearch/mae util/pos_embed.py.
  square grids      get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token)
  non-square grids  get_2d_sincos_pos_embed_from_grid(embed_dim, grid), the grid built
                    exactly as get_2d_sincos_pos_embed builds it for a square one
                    (np.meshgrid(grid_w, grid_h): "here w goes first"), with grid_h rows
                    and grid_w columns; a cls row is prepended as get_2d_sincos_pos_embed
                    does (np.zeros, concatenated first)
The output is MAE's float64 table, rows in row-major patch order.

Import shim: util/pos_embed.py calls np.float, an alias of the builtin float that
NumPy 1.24 removed; it is restored (np.float = float) before the call.  Nothing else is
touched.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_sincos2d.py"

NOTES = famgen.notes_table("""
square           FUNCTIONALITY  Square grid through get_2d_sincos_pos_embed.
non_square       EDGE_CASE      grid_h != grid_w: the first half of the channels encodes the column
                                (w), the second the row (h); swapping them only shows on such grids
                                and on transposed patches.
cls_token        FUNCTIONALITY  A zero row for the cls token first.
real_checkpoint  FUNCTIONALITY  Grid of a released model: 14 x 14 (ViT-B/16, ViT-L/16 at 224 px), 16
                                x 16 (ViT-H/14 at 224 px); or its width 768 / 1024 / 1280.
single_patch     EDGE_CASE      A 1 x 1 grid, or a single row or column.
""")


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "sincos2d", {"--mae": "facebookresearch/mae checkout"})
    mae = refsrc.Checkout("facebookresearch/mae", args.mae)
    if not hasattr(np, "float"):
        np.float = float  # removed alias (NumPy 1.24); util/pos_embed.py still uses it
    sys.path.insert(0, mae.root)
    from util import pos_embed
    if os.path.dirname(os.path.abspath(pos_embed.__file__)) != mae.path("util"):
        raise SystemExit("util.pos_embed was not imported from --mae")
    import torch  # pos_embed.py imports it; record its version
    vf = famgen.new_file("mae", "sincos2d", "2-D sin-cos position embeddings from MAE's "
                         "util/pos_embed.py", GENERATOR, mae.provenance(refsrc.packages(torch)),
                         NOTES)

    def add(dim, h, w, cls, emb, src, comment, flags):
        emb = np.asarray(emb)
        if emb.dtype != np.float64 or emb.shape != (int(cls) + h * w, dim):
            raise AssertionError(f"{comment}: {emb.dtype} {emb.shape}")
        vf.add_test("sincos2d.embed", comment, flags, src,
                    {"embed_dim": dim, "grid_h": h, "grid_w": w, "cls_token": cls, "base": 10000},
                    {}, {}, {"embedding": vf.tensor(emb, "f64")})

    sq = famgen.source("util/pos_embed.py", "get_2d_sincos_pos_embed")
    for dim, grid, cls, comment, flags in (
        (64, 14, True, "14 x 14 grid (ViT-B/16 224 px) with cls, width 64", ["real_checkpoint"]),
        (64, 14, False, "14 x 14 grid without cls, width 64", ["real_checkpoint"]),
        (32, 16, True, "16 x 16 grid (ViT-H/14 224 px) with cls, width 32", ["real_checkpoint"]),
        (768, 2, True, "2 x 2 grid, ViT-B width 768", ["real_checkpoint"]),
        (1024, 1, False, "1 x 1 grid, ViT-L width 1024", ["real_checkpoint", "single_patch"]),
        (4, 3, False, "3 x 3 grid, width 4", []),
    ):
        emb = pos_embed.get_2d_sincos_pos_embed(dim, grid, cls_token=cls)
        add(dim, grid, grid, cls, emb, sq, f"MAE square, {comment}",
            ["square"] + (["cls_token"] if cls else []) + flags)
    ng = famgen.source("util/pos_embed.py", "get_2d_sincos_pos_embed_from_grid")
    for dim, h, w, cls, comment, flags in (
        (32, 3, 5, False, "3 rows x 5 columns, width 32", []),
        (32, 5, 3, True, "5 rows x 3 columns with cls, width 32", []),
        (16, 1, 7, False, "1 row x 7 columns, width 16", ["single_patch"]),
        (16, 6, 2, False, "6 rows x 2 columns, width 16", []),
        (64, 12, 20, False, "12 x 20 grid (192 x 320 px at patch 16), width 64", []),
    ):
        # As get_2d_sincos_pos_embed does for a square grid: w goes first.
        grid_h = np.arange(h, dtype=np.float32)
        grid_w = np.arange(w, dtype=np.float32)
        grid = np.stack(np.meshgrid(grid_w, grid_h), axis=0).reshape([2, 1, h, w])
        emb = pos_embed.get_2d_sincos_pos_embed_from_grid(dim, grid)
        if cls:
            emb = np.concatenate([np.zeros([1, dim]), emb], axis=0)
        add(dim, h, w, cls, emb, ng, f"MAE non-square, {comment}",
            ["non_square"] + (["cls_token"] if cls else []) + flags)
    return famgen.finish(args.out, [vf])


if __name__ == "__main__":
    sys.exit(main())
