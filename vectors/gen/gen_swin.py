#!/usr/bin/python3
"""Generate pecert's Swin relative_position_index vectors from microsoft/Swin-Transformer.

    /usr/bin/python3 vectors/gen/gen_swin.py --swin PATH --out vectors/swin

Source: microsoft/Swin-Transformer models/swin_transformer.py, WindowAttention.__init__,
which registers the buffer relative_position_index for window_size = (Wh, Ww).  The
module is built with its real constructor and the buffer read back.

Import stand-ins: swin_transformer.py imports DropPath, to_2tuple and trunc_normal_ from
timm, which Debian does not package.  A stand-in timm.models.layers provides them:
trunc_normal_ is torch.nn.init.trunc_normal_ (it initialises the bias *table*, not the
index), DropPath is the identity (dropout; unused here) and to_2tuple makes a pair (used
by the patch embedding, not by WindowAttention).  The file also tries to import a fused
CUDA kernel and prints a warning when it is missing; that is expected.
"""

import contextlib
import io
import os
import sys
import types

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_swin.py"

NOTES = famgen.notes_table("""
square           FUNCTIONALITY  Square window.
non_square       EDGE_CASE      Wh != Ww: the row offset is multiplied by 2 Ww - 1; a multiplier
                                from the wrong side makes different offsets share a table entry
                                (nnFormer #88).
real_checkpoint  FUNCTIONALITY  Window of a released model: 7 (Swin-T/S/B/L at 224 px), 12 (Swin-B/L
                                at 384 px), 8 (SwinV2 at 256 px).
degenerate       EDGE_CASE      A window one token high or wide, or a single token.
""")


def install_timm_stub(torch):
    layers = types.ModuleType("timm.models.layers")
    layers.trunc_normal_ = torch.nn.init.trunc_normal_
    layers.DropPath = lambda *args, **kwargs: torch.nn.Identity()
    layers.to_2tuple = lambda x: tuple(x) if isinstance(x, (tuple, list)) else (x, x)
    timm = types.ModuleType("timm")
    models = types.ModuleType("timm.models")
    timm.models = models
    models.layers = layers
    for name, module in (("timm", timm), ("timm.models", models), ("timm.models.layers", layers)):
        module.__pecert_stub__ = True
        sys.modules[name] = module


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "swin", {"--swin": "microsoft/Swin-Transformer checkout"})
    swin = refsrc.Checkout("microsoft/Swin-Transformer", args.swin)
    import torch
    install_timm_stub(torch)
    sys.path.insert(0, swin.root)
    saved_path = list(sys.path)
    with contextlib.redirect_stdout(io.StringIO()):
        from models import swin_transformer
    sys.path[:] = saved_path
    if os.path.dirname(os.path.abspath(swin_transformer.__file__)) != swin.path("models"):
        raise SystemExit("models.swin_transformer was not imported from --swin")
    vf = famgen.new_file("swin", "swin", "Swin relative_position_index from WindowAttention",
                         GENERATOR, swin.provenance(refsrc.packages(torch)), NOTES)
    src = famgen.source("models/swin_transformer.py", "WindowAttention.__init__")
    for wh, ww, comment, flags in (
        (7, 7, "7 x 7 (Swin-T/S/B/L 224 px)", ["square", "real_checkpoint"]),
        (12, 12, "12 x 12 (Swin-B/L 384 px)", ["square", "real_checkpoint"]),
        (8, 8, "8 x 8 (SwinV2 256 px)", ["square", "real_checkpoint"]),
        (3, 5, "3 x 5", ["non_square"]),
        (5, 3, "5 x 3", ["non_square"]),
        (2, 7, "2 x 7", ["non_square"]),
        (1, 4, "1 x 4", ["non_square", "degenerate"]),
        (4, 1, "4 x 1", ["non_square", "degenerate"]),
        (1, 1, "1 x 1", ["square", "degenerate"]),
    ):
        attn = swin_transformer.WindowAttention(dim=8, window_size=(wh, ww), num_heads=2)
        index = attn.relative_position_index
        if index.dtype != torch.int64 or tuple(index.shape) != (wh * ww, wh * ww):
            raise AssertionError(f"{comment}: {index.dtype} {tuple(index.shape)}")
        vf.add_test("swin.index", f"window {comment}", flags, src,
                    {"window_h": wh, "window_w": ww}, {}, {},
                    {"index": vf.tensor(index.numpy().astype(np.int64), "i64")})
    return famgen.finish(args.out, [vf])


if __name__ == "__main__":
    sys.exit(main())
