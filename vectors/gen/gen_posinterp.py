#!/usr/bin/python3
"""Generate pecert's position-embedding interpolation vectors (ViT, DeiT, CLIP, DINOv2, Siglip2, Qwen3-VL).

    /usr/bin/python3 vectors/gen/gen_posinterp.py --transformers PATH --dinov2 PATH --out vectors/posinterp

Every output is what the official method returns for a seeded table:
  vit       transformers v4.57.6: ViTEmbeddings / DeiTEmbeddings / CLIPVisionEmbeddings /
            Dinov2Embeddings / Dinov2WithRegistersEmbeddings .interpolate_pos_encoding,
            called on a module built from the checkpoint's config with its position table
            replaced by the seeded one; the image size asked for is the output grid times
            the patch size.
  dinov2    facebookresearch/dinov2 (the authors' code): DinoVisionTransformer
            .interpolate_pos_encoding, with interpolate_offset 0.1 (the scale_factor form
            of the original release) and with the registers models' settings (offset 0,
            antialias).  Its input is [B, C, w, h] with w the rows: the grid it returns is
            (w // patch, h // patch) rows by columns, scale_factor (sx, sy) in that order.
  siglip2   Siglip2VisionEmbeddings.resize_positional_embeddings (a static method): the
            table [h, w, D] resized by bilinear antialias to each image's patch grid; its
            first h * w rows are the resized table (the rest is padding, not recorded).
  qwen3_vl  Qwen3VLVisionModel.fast_pos_embed_interpolate: bilinear over torch.linspace
            (align_corners), the result in spatial-merge window order.

Each recorded output is also recomputed here with nn.functional.interpolate under the
config written to the vector (the semantics of pecert_posinterp_args in plugin.h) and must
agree: bit for bit where the method itself calls interpolate, within float32 rounding of
the weights for Qwen3-VL, which builds its own bilinear weights.

Tables are seeded standard normals with a small channel count D (8 to 96, not the
checkpoints' 768 to 1152): the resize is per channel, so D changes no number, only the
tails of the vector loops, and the vectors stay small.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_posinterp.py"

NOTES = famgen.notes_table("""
vit                 FUNCTIONALITY  ViTEmbeddings.interpolate_pos_encoding: bicubic, size form, class
                                   token apart.
deit                FUNCTIONALITY  DeiT: two prefix rows (class and distillation tokens) kept apart.
clip                FUNCTIONALITY  CLIPVisionEmbeddings.interpolate_pos_encoding (ViT-B/32's 7 x 7
                                   grid).
dinov2              FUNCTIONALITY  DINOv2 (transformers' port): bicubic, size form.
dinov2_official     FUNCTIONALITY  The authors' DinoVisionTransformer.interpolate_pos_encoding.
scale_factor_form   EDGE_CASE      interpolate called with scale_factor (n_out + 0.1) / n_in, not a
                                   size: the source coordinates follow the scale, not n_in / n_out.
antialias           EDGE_CASE      antialias=True: a wider, normalised kernel when the grid shrinks.
downsample          EDGE_CASE      The grid shrinks: where antialias changes the answer.
upsample            FUNCTIONALITY  The grid grows.
non_square_grid     EDGE_CASE      Output h != w: rows and columns must not be swapped.
one_axis_unchanged  EDGE_CASE      One axis keeps its size: it must come out as it went in.
siglip2             FUNCTIONALITY  Siglip2's resize_positional_embeddings: bilinear, antialias, per
                                   image shape.
qwen3_vl            FUNCTIONALITY  Qwen3-VL's fast_pos_embed_interpolate: bilinear corner to corner,
                                   merge windows.
align_corners       EDGE_CASE      Corners map to corners: coordinate i * (n_in - 1) / (n_out - 1).
merge_windows       EDGE_CASE      Output in 2 x 2 spatial-merge windows, not row-major.
tiny_grid           EDGE_CASE      An output of 2 x 2: the largest downsampling step.
same_patch_count    EDGE_CASE      As many patches as the table's grid, in another shape: a shortcut
                                   on the patch count returns the table unchanged.
real_checkpoint     FUNCTIONALITY  A released checkpoint's grid at a resolution it is used at.
""")

SRC = {
    "vit": "src/transformers/models/vit/modeling_vit.py",
    "deit": "src/transformers/models/deit/modeling_deit.py",
    "clip": "src/transformers/models/clip/modeling_clip.py",
    "dinov2": "src/transformers/models/dinov2/modeling_dinov2.py",
    "dinov2_reg": "src/transformers/models/dinov2_with_registers/modeling_dinov2_with_registers.py",
    "siglip2": "src/transformers/models/siglip2/modeling_siglip2.py",
    "qwen3_vl": "src/transformers/models/qwen3_vl/modeling_qwen3_vl.py",
    "dinov2_official": "dinov2/models/vision_transformer.py",
}


class Sources:
    def __init__(self, args):
        self.hf = hfref.Reference(args.transformers)
        self.torch = self.hf.torch
        self.dinov2 = refsrc.Checkout("facebookresearch/dinov2", args.dinov2)
        sys.path.insert(0, self.dinov2.root)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "xFormers is not available": not used here
            from dinov2.models.vision_transformer import DinoVisionTransformer
        self.DinoVisionTransformer = DinoVisionTransformer
        packages = refsrc.packages(self.torch)
        packages["transformers"] = self.hf.transformers.__version__
        self.hf_prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                        "packages": packages}
        self.dinov2_prov = self.dinov2.provenance(refsrc.packages(self.torch))


def seeded_table(label, rows, dim):
    return famgen.seeded_normal(f"posinterp table {label}", (rows, dim))


def config(mode, grid, out, prefix=0, align_corners=False, antialias=False, merge=1, scale=(0.0, 0.0)):
    return {"mode": mode, "align_corners": align_corners, "antialias": antialias,
            "prefix_tokens": prefix, "merge_size": merge, "grid_h": grid[0], "grid_w": grid[1],
            "out_h": out[0], "out_w": out[1], "scale_h": float(scale[0]), "scale_w": float(scale[1])}


def interpolate_as_recorded(torch, table, c):
    """nn.functional.interpolate under the vector's config (plugin.h's semantics)."""
    prefix = c["prefix_tokens"]
    d = table.shape[1]
    grid = torch.from_numpy(table[prefix:]).reshape(1, c["grid_h"], c["grid_w"], d).permute(0, 3, 1, 2)
    kwargs = {"mode": c["mode"], "align_corners": c["align_corners"], "antialias": c["antialias"]}
    if c["scale_h"] > 0:
        kwargs["scale_factor"] = (c["scale_h"], c["scale_w"])
    else:
        kwargs["size"] = (c["out_h"], c["out_w"])
    with torch.no_grad():
        out = torch.nn.functional.interpolate(grid, **kwargs)[0].permute(1, 2, 0).numpy()
    if out.shape[:2] != (c["out_h"], c["out_w"]):
        raise AssertionError(f"interpolate gave {out.shape[:2]}, the config says {(c['out_h'], c['out_w'])}")
    m = c["merge_size"]
    h, w = c["out_h"], c["out_w"]
    out = out.reshape(h // m, m, w // m, m, d).transpose(0, 2, 1, 3, 4).reshape(h * w, d)
    return np.concatenate([table[:prefix], out])


def record(s, vf, comment, flags, source, table, c, out, exact):
    again = interpolate_as_recorded(s.torch, table, c)
    if out.shape != again.shape:
        raise AssertionError(f"{comment}: shape {out.shape}, interpolate {again.shape}")
    if exact:
        if not np.array_equal(out.view(np.uint32), again.view(np.uint32)):
            raise AssertionError(f"{comment}: the method and interpolate disagree")
    else:
        # Qwen3-VL builds float32 coordinates of its own (torch.linspace, not i * scale):
        # they may differ from interpolate's by 2u * side per axis, and a coordinate
        # error dx moves a bilinear value by up to dx * 2 max|e|; two axes, plus 16u
        # max|e| for the rounding of its weights and its sum of four.
        u, big, side = float(np.finfo(np.float32).eps), float(np.max(np.abs(table))), c["grid_h"]
        gap = float(np.max(np.abs(out.astype(np.float64) - again)))
        if gap > (2 * (2 * u * side) * 2 + 16 * u) * big:
            raise AssertionError(f"{comment}: {gap} from interpolate")
    vf.add_test("posinterp.resize", comment, flags, source, c, {},
                {"table": vf.tensor(table, "f32")}, {"out": vf.tensor(out, "f32")})


# ---- transformers' bicubic interpolate_pos_encoding ------------------------------------

def hf_embeddings(s, kind, dim, side, patch):
    """(embeddings module, its position table [1, rows, D] parameter, prefix rows)."""
    if kind == "vit":
        from transformers.models.vit import configuration_vit, modeling_vit
        cfg = configuration_vit.ViTConfig(hidden_size=dim, image_size=side * patch, patch_size=patch)
        m = modeling_vit.ViTEmbeddings(cfg)
        return m, m.position_embeddings, 1
    if kind == "deit":
        from transformers.models.deit import configuration_deit, modeling_deit
        cfg = configuration_deit.DeiTConfig(hidden_size=dim, image_size=side * patch, patch_size=patch)
        m = modeling_deit.DeiTEmbeddings(cfg)
        return m, m.position_embeddings, 2
    if kind == "clip":
        from transformers.models.clip import configuration_clip, modeling_clip
        cfg = configuration_clip.CLIPVisionConfig(hidden_size=dim, image_size=side * patch, patch_size=patch)
        m = modeling_clip.CLIPVisionEmbeddings(cfg)
        return m, m.position_embedding.weight, 1
    if kind == "dinov2":
        from transformers.models.dinov2 import configuration_dinov2, modeling_dinov2
        cfg = configuration_dinov2.Dinov2Config(hidden_size=dim, image_size=side * patch, patch_size=patch)
        m = modeling_dinov2.Dinov2Embeddings(cfg)
        return m, m.position_embeddings, 1
    if kind == "dinov2_reg":
        from transformers.models.dinov2_with_registers import (configuration_dinov2_with_registers as cm,
                                                               modeling_dinov2_with_registers as mm)
        cfg = cm.Dinov2WithRegistersConfig(hidden_size=dim, image_size=side * patch, patch_size=patch)
        m = mm.Dinov2WithRegistersEmbeddings(cfg)
        return m, m.position_embeddings, 1
    raise ValueError(kind)


HF_CLASS = {"vit": "ViTEmbeddings", "deit": "DeiTEmbeddings", "clip": "CLIPVisionEmbeddings",
            "dinov2": "Dinov2Embeddings", "dinov2_reg": "Dinov2WithRegistersEmbeddings"}


def hf_case(s, vf, kind, comment, flags, dim, side, patch, out_hw):
    t = s.torch
    module, param, prefix = hf_embeddings(s, kind, dim, side, patch)
    table = seeded_table(comment, prefix + side * side, dim)
    with t.no_grad():
        param.copy_(t.from_numpy(table).reshape(param.shape))
        embeddings = t.zeros(1, prefix + out_hw[0] * out_hw[1], dim)
        out = module.interpolate_pos_encoding(embeddings, out_hw[0] * patch, out_hw[1] * patch)
    out = out.reshape(-1, dim).numpy()
    c = config("bicubic", (side, side), out_hw, prefix=prefix, antialias=(kind == "dinov2_reg"))
    record(s, vf, comment, flags, famgen.source(SRC[kind], HF_CLASS[kind] + ".interpolate_pos_encoding"),
           table, c, out, exact=True)


def build_vit(s, vf):
    cases = (
        ("vit", "ViT-B/16 at 384 x 384: 14 x 14 -> 24 x 24", ["vit", "upsample", "real_checkpoint"],
         96, 14, 16, (24, 24)),
        ("vit", "ViT-B/16 at 160 x 160: 14 x 14 -> 10 x 10", ["vit", "downsample"], 40, 14, 16, (10, 10)),
        ("vit", "ViT-B/16 at 192 x 320: 14 x 14 -> 12 x 20", ["vit", "non_square_grid"], 40, 14, 16, (12, 20)),
        ("vit", "ViT-B/16 at 224 x 320: 14 x 14 -> 14 x 20", ["vit", "non_square_grid", "one_axis_unchanged"],
         13, 14, 16, (14, 20)),
        ("vit", "ViT-B/16 at 112 x 448: 14 x 14 -> 7 x 28", ["vit", "non_square_grid", "same_patch_count"],
         40, 14, 16, (7, 28)),
        ("deit", "DeiT-B distilled at 288 x 288: 14 x 14 -> 18 x 18", ["deit", "upsample"], 40, 14, 16, (18, 18)),
        ("clip", "CLIP ViT-B/32 at 320 x 320: 7 x 7 -> 10 x 10", ["clip", "upsample"], 40, 7, 32, (10, 10)),
        ("dinov2", "DINOv2 (transformers) at 224 x 224: 37 x 37 -> 16 x 16", ["dinov2", "downsample"],
         8, 37, 14, (16, 16)),
        ("dinov2", "DINOv2 (transformers) at 630 x 560: 37 x 37 -> 45 x 40",
         ["dinov2", "upsample", "non_square_grid"], 8, 37, 14, (45, 40)),
        ("dinov2_reg", "DINOv2 with registers (transformers) at 224 x 224: 37 x 37 -> 16 x 16",
         ["dinov2", "antialias", "downsample"], 24, 37, 14, (16, 16)),
        ("dinov2_reg", "DINOv2 with registers (transformers) at 630 x 630: 37 x 37 -> 45 x 45",
         ["dinov2", "antialias", "upsample"], 24, 37, 14, (45, 45)),
    )
    for kind, comment, flags, dim, side, patch, out_hw in cases:
        hf_case(s, vf, kind, comment, flags, dim, side, patch, out_hw)


# ---- the authors' DINOv2 ---------------------------------------------------------------

def build_dinov2(s, vf):
    t = s.torch
    patch, side, dim = 14, 37, 8
    cases = (
        ("DINOv2 ViT (offset 0.1) at 224 x 224: 37 x 37 -> 16 x 16", 0.1, False, (16, 16),
         ["dinov2_official", "scale_factor_form", "downsample"]),
        ("DINOv2 ViT (offset 0.1) at 630 x 630: 37 x 37 -> 45 x 45", 0.1, False, (45, 45),
         ["dinov2_official", "scale_factor_form", "upsample"]),
        ("DINOv2 ViT (offset 0.1) at 518 x 420: 37 x 37 -> 37 x 30", 0.1, False, (37, 30),
         ["dinov2_official", "scale_factor_form", "non_square_grid", "one_axis_unchanged"]),
        ("DINOv2 ViT with registers (offset 0, antialias) at 224 x 224: 37 x 37 -> 16 x 16", 0.0, True,
         (16, 16), ["dinov2_official", "antialias", "downsample"]),
        ("DINOv2 ViT with registers (offset 0, antialias) at 630 x 420: 37 x 37 -> 45 x 30", 0.0, True,
         (45, 30), ["dinov2_official", "antialias", "non_square_grid"]),
    )
    for comment, offset, antialias, (rows, cols), flags in cases:
        model = s.DinoVisionTransformer(img_size=side * patch, patch_size=patch, embed_dim=dim, depth=1,
                                        num_heads=1, interpolate_offset=offset,
                                        interpolate_antialias=antialias).eval()
        table = seeded_table(comment, 1 + side * side, dim)
        with t.no_grad():
            model.pos_embed.copy_(t.from_numpy(table)[None])
            x = t.zeros(1, 1 + rows * cols, dim)
            out = model.interpolate_pos_encoding(x, rows * patch, cols * patch)[0].numpy()
        # The method's own scale factors: float(w0 + offset) / M, in Python floats.
        scale = (float(rows + offset) / side, float(cols + offset) / side) if offset else (0.0, 0.0)
        c = config("bicubic", (side, side), (rows, cols), prefix=1, antialias=antialias, scale=scale)
        record(s, vf, comment, flags,
               famgen.source(SRC["dinov2_official"], "DinoVisionTransformer.interpolate_pos_encoding"),
               table, c, out, exact=True)


# ---- Siglip2 ---------------------------------------------------------------------------

def build_siglip2(s, vf):
    t = s.torch
    from transformers.models.siglip2 import modeling_siglip2
    side, dim = 16, 24  # Siglip2 base patch16-naflex: num_patches 256 = 16 x 16
    cases = (
        ("Siglip2 16 x 16 -> 12 x 20", (12, 20), ["siglip2", "antialias", "non_square_grid"]),
        ("Siglip2 16 x 16 -> 6 x 40", (6, 40), ["siglip2", "antialias", "downsample", "non_square_grid"]),
        ("Siglip2 16 x 16 -> 24 x 32", (24, 32), ["siglip2", "antialias", "upsample", "non_square_grid"]),
        ("Siglip2 16 x 16 -> 8 x 32", (8, 32), ["siglip2", "antialias", "non_square_grid", "same_patch_count"]),
    )
    for comment, (h, w), flags in cases:
        table = seeded_table(comment, side * side, dim)
        with t.no_grad():
            got = modeling_siglip2.Siglip2VisionEmbeddings.resize_positional_embeddings(
                t.from_numpy(table).reshape(side, side, dim), t.tensor([[h, w]], dtype=t.int64), h * w)
        out = got[0, :h * w].numpy()
        c = config("bilinear", (side, side), (h, w), antialias=True)
        record(s, vf, comment, flags,
               famgen.source(SRC["siglip2"], "Siglip2VisionEmbeddings.resize_positional_embeddings"),
               table, c, out, exact=True)


# ---- Qwen3-VL --------------------------------------------------------------------------

def build_qwen3_vl(s, vf):
    t = s.torch
    from transformers.models.qwen3_vl import configuration_qwen3_vl, modeling_qwen3_vl
    side, dim = 48, 8  # Qwen3-VL: num_position_embeddings 2304 = 48 x 48, spatial_merge_size 2
    cases = (
        ("Qwen3-VL 48 x 48 -> 16 x 24 (merge 2)", (16, 24), ["qwen3_vl", "align_corners", "merge_windows",
                                                            "downsample", "non_square_grid"]),
        ("Qwen3-VL 48 x 48 -> 64 x 60 (merge 2)", (64, 60), ["qwen3_vl", "align_corners", "merge_windows",
                                                            "upsample", "non_square_grid"]),
        ("Qwen3-VL 48 x 48 -> 2 x 2 (merge 2)", (2, 2), ["qwen3_vl", "align_corners", "merge_windows",
                                                        "tiny_grid"]),
    )
    for comment, (h, w), flags in cases:
        cfg = configuration_qwen3_vl.Qwen3VLVisionConfig(depth=1, hidden_size=dim, num_heads=1,
                                                         intermediate_size=8, out_hidden_size=8,
                                                         num_position_embeddings=side * side,
                                                         spatial_merge_size=2, deepstack_visual_indexes=[])
        model = modeling_qwen3_vl.Qwen3VLVisionModel(cfg).eval()
        if model.num_grid_per_side != side:
            raise AssertionError("Qwen3VLVisionModel's grid is not 48 per side")
        table = seeded_table(comment, side * side, dim)
        with t.no_grad():
            model.pos_embed.weight.copy_(t.from_numpy(table))
            out = model.fast_pos_embed_interpolate(t.tensor([[1, h, w]], dtype=t.int64)).numpy()
        c = config("bilinear", (side, side), (h, w), align_corners=True, merge=2)
        record(s, vf, comment, flags,
               famgen.source(SRC["qwen3_vl"], "Qwen3VLVisionModel.fast_pos_embed_interpolate"),
               table, c, out, exact=False)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "posinterp", {
        "--transformers": "transformers checkout (v4.57.6)",
        "--dinov2": "facebookresearch/dinov2 checkout",
    })
    s = Sources(args)
    return famgen.build_and_finish(args.out, "posinterp", GENERATOR, NOTES, (
        ("vit", "ViT-family interpolate_pos_encoding (ViT, DeiT, CLIP, DINOv2) in transformers", s.hf_prov,
         lambda vf: build_vit(s, vf)),
        ("dinov2", "The authors' DINOv2 interpolate_pos_encoding (scale_factor form; registers' antialias)",
         s.dinov2_prov, lambda vf: build_dinov2(s, vf)),
        ("siglip2", "Siglip2 resize_positional_embeddings (bilinear, antialias)", s.hf_prov,
         lambda vf: build_siglip2(s, vf)),
        ("qwen3_vl", "Qwen3-VL fast_pos_embed_interpolate (bilinear, align_corners, merge windows)",
         s.hf_prov, lambda vf: build_qwen3_vl(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
