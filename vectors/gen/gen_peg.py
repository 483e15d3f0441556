#!/usr/bin/python3
"""Generate pecert's conditional position encoding (CPE / PEG) vectors.

    /usr/bin/python3 vectors/gen/gen_peg.py --twins PATH --out vectors/peg

Every output is what the authors' code computes: CPVT's Position Encoding Generator as
released with Twins (Meituan-AutoML/Twins, gvt.py, class PosCNN: the CPVT repository's
README points there), PosCNN(C, C) built as CPVTV2 builds it (s = 1: a depthwise 3 x 3
Conv2d with bias and zero padding 1, its input added back), its weight and bias replaced by
seeded ones, called as forward(x, H, W) on seeded patch tokens [1, H * W, C].  The module and
its inputs run in float64 (module.double()): the inputs are float32 values, the recorded
output the official arithmetic without float32's rounding.  Each output is also recomputed
here in numpy from plugin.h's formula and must agree to 1e-12.

Stand-ins: gvt.py imports timm (not packaged for Debian), for the blocks, initialisers and
the model registry of its other classes; PosCNN uses none of them.  The names are provided by
stub modules whose members raise if anything calls them (register_model, used as a
decorator at import, returns its function).

The class token: CPVT's class-token models are not in the released code (CPVTV2 and Twins
use global average pooling).  Vectors flagged class_token hold prefix rows before the grid
that the official PosCNN never sees: the output's prefix rows are the input's, the grid rows
PosCNN's output on the grid tokens alone, which is how the paper describes them (the class
token kept out of the convolution).
"""

import os
import sys
import types

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_peg.py"
REPO = "Meituan-AutoML/Twins"
SRC = "gvt.py"

NOTES = famgen.notes_table("""
peg                 FUNCTIONALITY  PosCNN: a depthwise 3 x 3 convolution over the patch grid, zero
                                   padded, added to its input.
real_checkpoint     FUNCTIONALITY  A stage of a released checkpoint (Twins-PCPVT / CPVT at 224 x
                                   224): its grid and width.
non_square_grid     EDGE_CASE      Grid h != w: rows and columns must not be swapped.
square_token_count  EDGE_CASE      A non-square grid whose token count is a square (8 x 2 = 16): a
                                   grid taken as sqrt(N) x sqrt(N) is wrong without an error.
one_row             EDGE_CASE      A single row of patches: every vertical neighbour is padding.
one_patch           EDGE_CASE      A 1 x 1 grid: only the centre tap sees a token.
class_token         EDGE_CASE      A prefix row (class token) before the grid: kept out of the
                                   convolution, copied as it is (composed: the released code has no
                                   class-token PEG).
""")


def stub_timm():
    """The timm names gvt.py imports, none of which PosCNN uses."""
    import torch.nn as nn

    def unused(name):
        def call(*args, **kwargs):
            raise RuntimeError(f"timm stand-in: {name} is not part of PosCNN and must not be called")
        return call

    class Unused(nn.Module):
        def __init__(self, *args, **kwargs):
            raise RuntimeError("timm stand-in: the timm blocks are not part of PosCNN")

    modules = {
        "timm": {}, "timm.models": {},
        "timm.models.layers": {"DropPath": Unused, "to_2tuple": unused("to_2tuple"),
                               "trunc_normal_": unused("trunc_normal_")},
        "timm.models.registry": {"register_model": lambda fn: fn},
        "timm.models.vision_transformer": {"_cfg": unused("_cfg"), "Block": Unused, "Attention": Unused},
    }
    for name, members in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(members)
        module.__pecert_stub__ = True
        sys.modules[name] = module


class Sources:
    def __init__(self, args):
        import importlib.util

        import torch
        self.torch = torch
        self.twins = refsrc.Checkout(REPO, args.twins)
        stub_timm()
        spec = importlib.util.spec_from_file_location("gvt", self.twins.path(SRC))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        self.PosCNN = module.PosCNN
        self.prov = self.twins.provenance(refsrc.packages(torch))


def formula(grid, w, b):
    """plugin.h's pecert_peg_args semantics in numpy float64: grid [H, W, C], w [C, k, k]."""
    h, wd, c = grid.shape
    k = w.shape[1]
    r = k // 2
    padded = np.zeros((h + 2 * r, wd + 2 * r, c))
    padded[r:r + h, r:r + wd] = grid
    out = grid + b
    for a in range(k):
        for e in range(k):
            out = out + padded[a:a + h, e:e + wd] * w[:, a, e]
    return out


def record(s, vf, comment, flags, h, w, c, prefix=0):
    t = s.torch
    x = famgen.seeded_normal(f"peg x {comment}", (prefix + h * w, c))
    weight = famgen.seeded_normal(f"peg weight {comment}", (c, 3, 3)) * np.float32(0.25)
    bias = famgen.seeded_normal(f"peg bias {comment}", (c,))
    module = s.PosCNN(c, c).double().eval()
    if module.s != 1 or tuple(module.proj[0].weight.shape) != (c, 1, 3, 3):
        raise AssertionError("PosCNN is not the depthwise 3 x 3, stride 1 PEG")
    with t.no_grad():
        module.proj[0].weight.copy_(t.from_numpy(weight.astype(np.float64)).reshape(c, 1, 3, 3))
        module.proj[0].bias.copy_(t.from_numpy(bias.astype(np.float64)))
        grid = t.from_numpy(x[prefix:].astype(np.float64))[None]
        got = module(grid, h, w)[0].numpy()
    again = formula(x[prefix:].astype(np.float64).reshape(h, w, c), weight.astype(np.float64),
                    bias.astype(np.float64)).reshape(h * w, c)
    if got.shape != (h * w, c) or not np.allclose(got, again, rtol=0, atol=1e-12):
        raise AssertionError(f"{comment}: PosCNN and plugin.h's formula disagree")
    out = np.concatenate([x[:prefix].astype(np.float64), got])
    cfg = {"prefix_tokens": prefix, "grid_h": h, "grid_w": w, "kernel": 3}
    inputs = {"x": vf.tensor(x, "f32"), "weight": vf.tensor(weight, "f32"), "bias": vf.tensor(bias, "f32")}
    vf.add_test("peg.apply", comment, flags, famgen.source(SRC, "PosCNN.forward"), cfg, {}, inputs,
                {"out": vf.tensor(out, "f64")})


def build(s, vf):
    record(s, vf, "Twins-PCPVT-S stage 3 at 224: 14 x 14 x 320", ["peg", "real_checkpoint"], 14, 14, 320)
    record(s, vf, "Twins-PCPVT-S stage 1 at 224 (8 channels): 56 x 56", ["peg", "real_checkpoint"], 56, 56, 8)
    record(s, vf, "Twins-PCPVT-S stage 4 at 224: 7 x 7 x 512", ["peg", "real_checkpoint"], 7, 7, 512)
    record(s, vf, "12 x 20 x 24", ["peg", "non_square_grid"], 12, 20, 24)
    record(s, vf, "8 x 2 x 16", ["peg", "non_square_grid", "square_token_count"], 8, 2, 16)
    record(s, vf, "1 x 9 x 8", ["peg", "non_square_grid", "one_row"], 1, 9, 8)
    record(s, vf, "1 x 1 x 8", ["peg", "one_patch"], 1, 1, 8)
    record(s, vf, "class token + 10 x 6 x 16", ["peg", "non_square_grid", "class_token"], 10, 6, 16, prefix=1)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "peg", {"--twins": "Meituan-AutoML/Twins checkout"})
    s = Sources(args)
    return famgen.build_and_finish(args.out, "peg", GENERATOR, NOTES, (
        ("peg", "CPVT's PEG (PosCNN) as released with Twins", s.prov, lambda vf: build(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
