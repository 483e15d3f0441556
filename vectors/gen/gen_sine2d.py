#!/usr/bin/python3
"""Generate pecert's 2-D sine position-embedding vectors (DETR and its family).

    /usr/bin/python3 vectors/gen/gen_sine2d.py --transformers PATH --out vectors/sine2d

Source: huggingface/transformers v4.57.6, src/transformers/models/, each class built as its
model builds it and called as its model calls it, on one image (batch 1):
  detr, conditional_detr, table_transformer, deformable_detr, deprecated/deta
            build_position_encoding(config): <Model>SinePositionEmbedding(d_model // 2,
            normalize=True) (temperature 10000, scale 2 pi); forward(feature_map, mask) with
            the bool mask [1, h, w] DetrConvEncoder.forward hands it (True = valid pixel) and a
            float32 feature map of zeros (only its device, and Deformable DETR's dtype, are
            read).  Deformable DETR and DETA subtract 0.5 from both cumulative sums before
            normalising; DETR's normalize=False (the class's default, no model uses it) is
            recorded from DetrSinePositionEmbedding(F, normalize=False).
  grounding_dino, mm_grounding_dino
            build_position_encoding(config): <Model>SinePositionEmbedding(config), d_model // 2
            features, temperature config.positional_embedding_temperature (20), always
            normalised, no offset.
  dab_detr  DabDetrSinePositionEmbedding(config) as DabDetrModel.__init__ builds it:
            hidden_size / 2 features, temperature_height on the rows, temperature_width on the
            columns (20 each), scale config.sine_position_embedding_scale (None: 2 pi).
  maskformer, mask2former, oneformer, sam2
            the position module of MaskFormerTransformerModule, Mask2FormerTransformerModule,
            OneFormerTransformerModule and Sam2VisionNeck, built from the default configs,
            called as those modules call it: forward(shape, device, float32) with no mask,
            i.e. every pixel valid (their optional mask marks padding with True, the opposite
            polarity of DETR's pixel_mask; no model passes one).  Recorded with an all-ones
            mask.

The op input is the mask [h, w] (1 = valid, 0 = padding); the output is the module's float32
[1, 2F, h, w] as [h * w, 2F] (row r * w + c: the F row channels, then the F column channels).
Each output is recomputed here in numpy float64 from plugin.h's formula (pecert_sine2d_args)
and must agree within float32 rounding, 64 * 2^-24 * (4 + |angle|): the official code rounds
the coordinate, dim_t and the angle to float32 before its sin and cos.

Masks: DETR pads every image of a batch at the bottom and the right to the largest one, so a
feature map's mask is a top-left rectangle of valid pixels; the padded_batch vectors take it
from the pixel mask exactly as DetrConvEncoder.forward does (nn.functional.interpolate,
nearest, to the feature map's size).  Feature-map sizes are those of ResNet-50 on the
800 x 1066 COCO input (stride 8: 100 x 134, 16: 50 x 67, 32: 25 x 34, 64: 13 x 17); at 128
features a pixel is 1 KiB of payload, so the 25 x 34 and 13 x 17 levels are recorded (50 x 67
alone would add about 1.4 MB compressed), the edge cases at 2 to 16 features.  Every flag
that describes the mask, the shape or the config (padding, odd sizes, one row, the class...)
is checked against the vector it labels.
"""

import os
import sys
import zlib

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_sine2d.py"
FAMILY = "sine2d"
EPS = 1e-6  # every class's, written into its forward

NOTES = famgen.notes_table("""
detr               FUNCTIONALITY  DetrSinePositionEmbedding as build_position_encoding builds it:
                                  d_model // 2 features, normalize True, temperature 10000, scale 2
                                  pi, no offset, float32 cumulative sums.
conditional_detr   FUNCTIONALITY  ConditionalDetrSinePositionEmbedding (DETR's, copied), as its
                                  build_position_encoding builds it.
table_transformer  FUNCTIONALITY  TableTransformerSinePositionEmbedding (copied from DETR's), as its
                                  build_position_encoding builds it.
deformable_detr    FUNCTIONALITY  DeformableDetrSinePositionEmbedding: (cumsum - 0.5) / (last + 1e-6)
                                  * 2 pi, in the feature map's dtype (float32 here).
deta               FUNCTIONALITY  DetaSinePositionEmbedding (models/deprecated/deta): Deformable DETR's
                                  -0.5 offset, cumulative sums in float32 whatever the feature map's
                                  dtype.
grounding_dino     FUNCTIONALITY  GroundingDinoSinePositionEmbedding: always normalised, no offset,
                                  temperature config.positional_embedding_temperature (20).
mm_grounding_dino  FUNCTIONALITY  MMGroundingDinoSinePositionEmbedding (Grounding DINO's, copied).
dab_detr           FUNCTIONALITY  DabDetrSinePositionEmbedding: hidden_size / 2 features, rows at
                                  temperature_height, columns at temperature_width (20 each), scale
                                  sine_position_embedding_scale (None: 2 pi).
maskformer_family  FUNCTIONALITY  MaskFormer, Mask2Former, OneFormer and SAM 2 call their module with
                                  no mask: every pixel valid (the all-ones mask here).
basic              BASIC          No padding: every pixel of the map valid.
real_checkpoint    FUNCTIONALITY  The released checkpoints' width: d_model (hidden size) 256, 128
                                  features per axis; the 25 x 34 and 13 x 17 maps are ResNet-50's on
                                  the 800 x 1066 COCO input at strides 32 and 64.
padded_batch       FUNCTIONALITY  An image of a batch padded to the largest image: the mask is the
                                  pixel mask downsampled to the feature map as DetrConvEncoder.forward
                                  does it (nearest).
right_padding      EDGE_CASE      Fewer valid columns than w: whole columns of padding (y = 0 there);
                                  each row's x is normalised by its own valid width, not w.
bottom_padding     EDGE_CASE      Fewer valid rows than h: whole rows of padding (x = 0 there); each
                                  column's y is normalised by its own valid height, not h.
padded_offset      EDGE_CASE      Deformable DETR (DETA) on padding: a fully padded row or column
                                  divides the -0.5 offset by eps, (0 - 0.5) / (0 + 1e-6) * 2 pi ~
                                  -3.1e6 rad, as the model computes it in float32 (the angle's ulp
                                  there is 0.25 rad: only the same float32 steps reproduce the first
                                  channels).
irregular_mask     EDGE_CASE      A mask that is no top-left rectangle (holes, a ragged edge): no
                                  DETR batch makes one, the same code defines it (per-column and
                                  per-row extents differ).
one_pixel          EDGE_CASE      A 1 x 1 map.
one_row            EDGE_CASE      A single row of pixels: every y is 1 / (1 + eps) * scale.
one_column         EDGE_CASE      A single column of pixels: every x is 1 / (1 + eps) * scale.
non_square         EDGE_CASE      h != w: rows and columns must not be swapped.
odd_size           EDGE_CASE      Odd h and odd w.
small_features     EDGE_CASE      2 or 4 features per axis: the exponent 2 floor(i / 2) / F with F = 2
                                  or 4.
no_normalize       FUNCTIONALITY  normalize False (DetrSinePositionEmbedding's argument and default):
                                  the raw counts are the coordinates; scale, offset and eps unused.
axis_temperatures  EDGE_CASE      DAB-DETR with temperature_height != temperature_width (synthetic
                                  config): rows at temperature_y, columns at temperature_x, a swap
                                  is visible.
custom_scale       FUNCTIONALITY  DAB-DETR's sine_position_embedding_scale set (synthetic config): a
                                  scale other than 2 pi.
""")

# How each class runs: its file, its offset (hard-coded in its forward), whether its forward
# takes DETR's pixel mask or MaskFormer's (shape, device, dtype, mask=None), and its flag.
CLASSES = {
    "DetrSinePositionEmbedding": ("detr/modeling_detr.py", 0.0, "pixel_mask", "detr"),
    "ConditionalDetrSinePositionEmbedding": ("conditional_detr/modeling_conditional_detr.py", 0.0, "pixel_mask",
                                             "conditional_detr"),
    "TableTransformerSinePositionEmbedding": ("table_transformer/modeling_table_transformer.py", 0.0, "pixel_mask",
                                              "table_transformer"),
    "DeformableDetrSinePositionEmbedding": ("deformable_detr/modeling_deformable_detr.py", -0.5, "pixel_mask",
                                            "deformable_detr"),
    "DetaSinePositionEmbedding": ("deprecated/deta/modeling_deta.py", -0.5, "pixel_mask", "deta"),
    "GroundingDinoSinePositionEmbedding": ("grounding_dino/modeling_grounding_dino.py", 0.0, "pixel_mask",
                                           "grounding_dino"),
    "MMGroundingDinoSinePositionEmbedding": ("mm_grounding_dino/modeling_mm_grounding_dino.py", 0.0, "pixel_mask",
                                             "mm_grounding_dino"),
    "DabDetrSinePositionEmbedding": ("dab_detr/modeling_dab_detr.py", 0.0, "pixel_mask", "dab_detr"),
    "MaskFormerSinePositionEmbedding": ("maskformer/modeling_maskformer.py", 0.0, "no_mask", "maskformer_family"),
    "Mask2FormerSinePositionEmbedding": ("mask2former/modeling_mask2former.py", 0.0, "no_mask", "maskformer_family"),
    "OneFormerSinePositionEmbedding": ("oneformer/modeling_oneformer.py", 0.0, "no_mask", "maskformer_family"),
    "Sam2SinePositionEmbedding": ("sam2/modeling_sam2.py", 0.0, "no_mask", "maskformer_family"),
}


class Sources:
    """The official modules and configuration classes, imported by hfref."""

    def __init__(self, hf):
        self.hf = hf
        self.torch = hf.torch
        from transformers.models.conditional_detr import configuration_conditional_detr, modeling_conditional_detr
        from transformers.models.dab_detr import configuration_dab_detr, modeling_dab_detr
        from transformers.models.deprecated.deta import configuration_deta, modeling_deta
        from transformers.models.deformable_detr import configuration_deformable_detr, modeling_deformable_detr
        from transformers.models.detr import configuration_detr, modeling_detr
        from transformers.models.grounding_dino import configuration_grounding_dino, modeling_grounding_dino
        from transformers.models.mask2former import configuration_mask2former, modeling_mask2former
        from transformers.models.maskformer import configuration_maskformer, modeling_maskformer
        from transformers.models.mm_grounding_dino import configuration_mm_grounding_dino, modeling_mm_grounding_dino
        from transformers.models.oneformer import configuration_oneformer, modeling_oneformer
        from transformers.models.sam2 import configuration_sam2, modeling_sam2
        from transformers.models.table_transformer import configuration_table_transformer, modeling_table_transformer
        self.detr = (modeling_detr, configuration_detr.DetrConfig)
        self.conditional = (modeling_conditional_detr, configuration_conditional_detr.ConditionalDetrConfig)
        self.table = (modeling_table_transformer, configuration_table_transformer.TableTransformerConfig)
        self.deformable = (modeling_deformable_detr, configuration_deformable_detr.DeformableDetrConfig)
        self.deta = (modeling_deta, configuration_deta.DetaConfig)
        self.grounding = (modeling_grounding_dino, configuration_grounding_dino.GroundingDinoConfig)
        self.mm_grounding = (modeling_mm_grounding_dino, configuration_mm_grounding_dino.MMGroundingDinoConfig)
        self.dab = (modeling_dab_detr, configuration_dab_detr.DabDetrConfig)
        self.maskformer = (modeling_maskformer, configuration_maskformer.MaskFormerConfig)
        self.mask2former = (modeling_mask2former, configuration_mask2former.Mask2FormerConfig)
        self.oneformer = (modeling_oneformer, configuration_oneformer.OneFormerConfig)
        self.sam2 = (modeling_sam2, configuration_sam2.Sam2VisionConfig)
        packages = refsrc.packages(self.torch)
        packages["transformers"] = self.hf.transformers.__version__
        self.prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                     "packages": packages}

    # -- the modules, built as their models build them --------------------------------------

    def built(self, family, d_model):
        """build_position_encoding(config) of a DETR-style model whose config has d_model."""
        modeling, config_cls = family
        # No backbone is built: only d_model and position_embedding_type are read.
        config = config_cls(d_model=d_model, use_timm_backbone=False, use_pretrained_backbone=False, backbone=None)
        if config.position_embedding_type != "sine":
            raise AssertionError(f"{config_cls.__name__}: default position_embedding_type is not sine")
        return modeling.build_position_encoding(config)

    def grounding_built(self, family, d_model):
        modeling, config_cls = family
        config = config_cls(d_model=d_model)
        if config.position_embedding_type != "sine" or config.positional_embedding_temperature != 20:
            raise AssertionError(f"{config_cls.__name__}: not the sine embedding at temperature 20")
        return modeling.build_position_encoding(config)

    def dab_module(self, hidden_size, **overrides):
        modeling, config_cls = self.dab
        config = config_cls(hidden_size=hidden_size, use_timm_backbone=False, use_pretrained_backbone=False,
                            backbone=None, **overrides)
        return modeling.DabDetrSinePositionEmbedding(config)

    def detr_plain(self, features, normalize):
        """DetrSinePositionEmbedding(F, normalize=...) called directly (DETR's class arguments)."""
        return self.detr[0].DetrSinePositionEmbedding(features, normalize=normalize)

    def maskformer_module(self):
        modeling, config_cls = self.maskformer
        config = config_cls()
        return modeling.MaskFormerTransformerModule(config.decoder_config.hidden_size, config).position_embedder

    def mask2former_module(self):
        modeling, config_cls = self.mask2former
        config = config_cls()
        return modeling.Mask2FormerTransformerModule(config.feature_size, config).position_embedder

    def oneformer_module(self):
        modeling, config_cls = self.oneformer
        config = config_cls()
        return modeling.OneFormerTransformerModule(config.conv_dim, config).position_embedder

    def sam2_module(self):
        modeling, config_cls = self.sam2
        return modeling.Sam2VisionNeck(config_cls()).position_encoding


def parameters(module):
    """The op's config, read off the module (offset and eps: the class's forward, CLASSES)."""
    name = type(module).__name__
    offset = CLASSES[name][1]
    if name == "DabDetrSinePositionEmbedding":
        features = module.embedding_dim  # hidden_size / 2: a float
        if features != int(features):
            raise AssertionError(f"DAB-DETR embedding_dim {features} is not integral")
        features, ty, tx, normalize = int(features), module.temperature_height, module.temperature_width, True
    elif name in ("GroundingDinoSinePositionEmbedding", "MMGroundingDinoSinePositionEmbedding"):
        features, ty, tx, normalize = module.embedding_dim, module.temperature, module.temperature, True
    elif CLASSES[name][2] == "no_mask":
        features, ty, tx, normalize = module.num_pos_feats, module.temperature, module.temperature, module.normalize
    else:
        features, ty, tx, normalize = module.embedding_dim, module.temperature, module.temperature, module.normalize
    return {"num_pos_feats": int(features), "normalize": bool(normalize), "temperature_y": ty,
            "temperature_x": tx, "scale": float(module.scale), "offset": offset, "eps": EPS}


def formula(mask, cfg):
    """plugin.h's pecert_sine2d_args semantics in numpy float64: (embedding [h*w, 2F], angle)."""
    m = mask.astype(np.float64)
    h, w = m.shape
    y = np.cumsum(m, axis=0)
    x = np.cumsum(m, axis=1)
    if cfg["normalize"]:
        y = (y + cfg["offset"]) / (y[h - 1:h, :] + cfg["eps"]) * cfg["scale"]
        x = (x + cfg["offset"]) / (x[:, w - 1:w] + cfg["eps"]) * cfg["scale"]
    f = cfg["num_pos_feats"]
    i = np.arange(f)
    halves, angles = [], []
    for v, temperature in ((y, cfg["temperature_y"]), (x, cfg["temperature_x"])):
        dim_t = float(temperature) ** (2 * (i // 2) / f)
        angle = v.reshape(h * w, 1) / dim_t
        halves.append(np.where(i % 2 == 0, np.sin(angle), np.cos(angle)))
        angles.append(angle)
    return np.concatenate(halves, axis=1), np.concatenate(angles, axis=1)


def rectangle(h, w, rows, cols):
    """A top-left rows x cols rectangle of valid pixels in an h x w map (DETR's padding)."""
    mask = np.zeros((h, w), dtype=np.int32)
    mask[:rows, :cols] = 1
    return mask


def batch_mask(s, image_hw, batch_hw, feature_hw):
    """The feature-level mask of an image_hw image in a batch padded to batch_hw, downsampled to
    feature_hw as DetrConvEncoder.forward does it (nearest interpolation, then bool)."""
    t = s.torch
    pixel_mask = t.zeros((1,) + tuple(batch_hw), dtype=t.int64)
    pixel_mask[0, :image_hw[0], :image_hw[1]] = 1
    mask = t.nn.functional.interpolate(pixel_mask[None].float(), size=feature_hw).to(t.bool)[0]
    return mask[0].numpy().astype(np.int32)


def irregular(label, h, w):
    """A seeded 0/1 mask, about 3/4 valid, with its top-left pixel valid."""
    rng = np.random.default_rng(zlib.crc32(label.encode("utf-8")))
    mask = (rng.random((h, w)) < 0.75).astype(np.int32)
    mask[0, 0] = 1
    return mask


def check_flags(comment, flags, mask, cfg):
    """The flags that describe the mask and the shape must be exactly the ones it has."""
    h, w = mask.shape
    rows, cols = mask.any(axis=1), mask.any(axis=0)
    top_left = np.array_equal(mask, rectangle(h, w, rows.sum(), cols.sum()))
    facts = {
        "right_padding": not cols.all(), "bottom_padding": not rows.all(),
        "padded_offset": cfg["normalize"] and cfg["offset"] != 0 and not (rows.all() and cols.all()),
        "irregular_mask": not top_left, "one_pixel": h == w == 1, "one_row": h == 1 and w > 1,
        "one_column": w == 1 and h > 1, "non_square": h != w, "odd_size": h % 2 == 1 and w % 2 == 1,
        "small_features": cfg["num_pos_feats"] <= 4, "no_normalize": not cfg["normalize"],
        "axis_temperatures": cfg["temperature_y"] != cfg["temperature_x"],
    }
    facts.update((flag, CLASSES[cfg["module"]][3] == flag) for _, _, _, flag in CLASSES.values())
    wrong = [f for f, fact in facts.items() if (f in flags) != bool(fact)]
    if "basic" in flags and not mask.all():
        wrong.append("basic")
    if wrong:
        raise AssertionError(f"{comment}: flags {wrong} do not describe its mask, shape or config")


def embed(torch, comment, module, mask, cfg):
    """The module's embedding of mask, called as its model's forward calls it (DETR's family
    with the pixel mask, MaskFormer's with none: every pixel valid), as [h*w, 2F] float32,
    checked against plugin.h's formula in float64 (64 float32 ulps past |angle| + 4)."""
    name = type(module).__name__
    call = CLASSES[name][2]
    h, w = mask.shape
    f = cfg["num_pos_feats"]
    with torch.no_grad():
        if call == "pixel_mask":
            got = module(torch.zeros((1, 1, h, w), dtype=torch.float32), torch.from_numpy(mask.astype(bool))[None])
        else:
            if not mask.all():
                raise AssertionError(f"{comment}: {name} is only called without a mask (all valid)")
            got = module(torch.Size([1, 2 * f, h, w]), torch.device("cpu"), torch.float32)
    if got.dtype != torch.float32 or tuple(got.shape) != (1, 2 * f, h, w):
        raise AssertionError(f"{comment}: {name} returned {got.dtype} {tuple(got.shape)}")
    emb = got[0].permute(1, 2, 0).reshape(h * w, 2 * f).numpy().copy()
    again, angle = formula(mask, cfg)
    bound = 64 * 2.0 ** -24 * (4 + np.abs(angle))
    worst = np.max(np.abs(emb.astype(np.float64) - again) - bound)
    if not np.all(np.isfinite(emb)) or worst > 0:
        raise AssertionError(f"{comment}: {name} and plugin.h's formula disagree (by {worst:.3g} past the bound)")
    return emb


def record(s, vf, comment, flags, module, mask):
    name = type(module).__name__
    file = CLASSES[name][0]
    mask = np.asarray(mask, dtype=np.int32)
    h, w = mask.shape
    cfg = parameters(module)
    emb = embed(s.torch, comment, module, mask, cfg)
    cfg.update(h=int(h), w=int(w), module=name)
    check_flags(comment, flags, mask, cfg)
    vf.add_test("sine2d.embed", comment, flags,
                famgen.source("src/transformers/models/" + file, name + ".forward"), cfg, {},
                {"mask": vf.tensor(mask, "i32")}, {"embedding": vf.tensor(emb, "f32")})


def build(s, vf):
    ones = lambda h, w: np.ones((h, w), dtype=np.int32)  # noqa: E731
    real = ["real_checkpoint"]

    # DETR: the released width, then the edge cases at small widths (build_position_encoding
    # with d_model = 2F, so every vector runs the model's own construction).
    detr = lambda f: s.built(s.detr, 2 * f)  # noqa: E731
    record(s, vf, "DETR-R50 at 800 x 1066: stride 32, 25 x 34, F 128", ["detr", "basic", "non_square"] + real,
           detr(128), ones(25, 34))
    record(s, vf, "DETR-R50, an 800 x 1066 image in a batch padded to 1066 x 1066: 34 x 34, F 128",
           ["detr", "padded_batch", "bottom_padding"] + real, detr(128),
           batch_mask(s, (800, 1066), (1066, 1066), (34, 34)))
    record(s, vf, "DETR, right padding: 6 x 10, valid 6 x 7, F 8", ["detr", "right_padding", "non_square"],
           detr(8), rectangle(6, 10, 6, 7))
    record(s, vf, "DETR, bottom padding: 9 x 5, valid 6 x 5, F 8",
           ["detr", "bottom_padding", "non_square", "odd_size"], detr(8), rectangle(9, 5, 6, 5))
    record(s, vf, "DETR, right and bottom padding: 7 x 9, valid 5 x 6, F 16",
           ["detr", "right_padding", "bottom_padding", "non_square", "odd_size"], detr(16), rectangle(7, 9, 5, 6))
    record(s, vf, "DETR, one valid pixel in a 4 x 5 map, F 8",
           ["detr", "right_padding", "bottom_padding", "non_square"], detr(8), rectangle(4, 5, 1, 1))
    record(s, vf, "DETR, irregular mask: 8 x 11, F 8", ["detr", "irregular_mask", "non_square"],
           detr(8), irregular("DETR, irregular mask: 8 x 11", 8, 11))
    record(s, vf, "DETR, 1 x 1, F 8", ["detr", "one_pixel", "odd_size"], detr(8), ones(1, 1))
    record(s, vf, "DETR, one row: 1 x 12, F 8", ["detr", "one_row", "non_square"], detr(8), ones(1, 12))
    record(s, vf, "DETR, one row with right padding: 1 x 9, valid 1 x 5, F 8",
           ["detr", "one_row", "right_padding", "non_square", "odd_size"], detr(8), rectangle(1, 9, 1, 5))
    record(s, vf, "DETR, one column: 11 x 1, F 8", ["detr", "one_column", "non_square", "odd_size"],
           detr(8), ones(11, 1))
    record(s, vf, "DETR, one column with bottom padding: 7 x 1, valid 4 x 1, F 8",
           ["detr", "one_column", "bottom_padding", "non_square", "odd_size"], detr(8), rectangle(7, 1, 4, 1))
    record(s, vf, "DETR, F 2: 5 x 4", ["detr", "small_features", "basic", "non_square"], detr(2), ones(5, 4))
    record(s, vf, "DETR, F 4 with padding: 6 x 7, valid 4 x 5",
           ["detr", "small_features", "right_padding", "bottom_padding", "non_square"], detr(4),
           rectangle(6, 7, 4, 5))
    record(s, vf, "DETR, F 2 with padding: 3 x 5, valid 2 x 3",
           ["detr", "small_features", "right_padding", "bottom_padding", "non_square", "odd_size"], detr(2),
           rectangle(3, 5, 2, 3))
    # normalize False: DetrSinePositionEmbedding's argument (and default).
    plain = lambda f: s.detr_plain(f, normalize=False)  # noqa: E731
    record(s, vf, "DETR class, normalize False: 8 x 6, F 16", ["detr", "no_normalize", "basic", "non_square"],
           plain(16), ones(8, 6))
    record(s, vf, "DETR class, normalize False with padding: 6 x 8, valid 4 x 5, F 8",
           ["detr", "no_normalize", "right_padding", "bottom_padding", "non_square"], plain(8), rectangle(6, 8, 4, 5))
    record(s, vf, "DETR class, normalize False: 25 x 34, F 32", ["detr", "no_normalize", "basic", "non_square"],
           plain(32), ones(25, 34))

    # The copies of DETR's class.
    record(s, vf, "Conditional DETR, a 512 x 683 image in a batch padded to 512 x 800: stride 32, 16 x 25, F 128",
           ["conditional_detr", "padded_batch", "right_padding", "non_square"] + real,
           s.built(s.conditional, 256), batch_mask(s, (512, 683), (512, 800), (16, 25)))
    record(s, vf, "Conditional DETR, right and bottom padding: 5 x 6, valid 3 x 4, F 8",
           ["conditional_detr", "right_padding", "bottom_padding", "non_square"], s.built(s.conditional, 16),
           rectangle(5, 6, 3, 4))
    record(s, vf, "Table Transformer: 10 x 14 with bottom padding (valid 7 x 14), F 128",
           ["table_transformer", "bottom_padding", "non_square"] + real, s.built(s.table, 256),
           rectangle(10, 14, 7, 14))
    record(s, vf, "Table Transformer, right and bottom padding: 5 x 7, valid 4 x 3, F 8",
           ["table_transformer", "right_padding", "bottom_padding", "non_square", "odd_size"],
           s.built(s.table, 16), rectangle(5, 7, 4, 3))

    # Deformable DETR: offset -0.5.
    deform = lambda f: s.built(s.deformable, 2 * f)  # noqa: E731
    record(s, vf, "Deformable DETR at 800 x 1066: stride 32, 25 x 34, F 128",
           ["deformable_detr", "basic", "non_square"] + real, deform(128), ones(25, 34))
    record(s, vf, "Deformable DETR, a 640 x 1066 image in a batch padded to 800 x 1066: stride 64, 13 x 17, F 128",
           ["deformable_detr", "padded_batch", "bottom_padding", "padded_offset", "non_square", "odd_size"] + real,
           deform(128), batch_mask(s, (640, 1066), (800, 1066), (13, 17)))
    record(s, vf, "Deformable DETR, right padding: 6 x 7, valid 6 x 4, F 8",
           ["deformable_detr", "right_padding", "padded_offset", "non_square"], deform(8), rectangle(6, 7, 6, 4))
    record(s, vf, "Deformable DETR, right and bottom padding: 7 x 5, valid 5 x 3, F 8",
           ["deformable_detr", "right_padding", "bottom_padding", "padded_offset", "non_square", "odd_size"],
           deform(8), rectangle(7, 5, 5, 3))
    record(s, vf, "Deformable DETR, irregular mask: 6 x 9, F 8",
           ["deformable_detr", "irregular_mask", "non_square"], deform(8),
           irregular("Deformable DETR, irregular mask: 6 x 9", 6, 9))
    record(s, vf, "Deformable DETR, 1 x 1, F 4", ["deformable_detr", "one_pixel", "small_features", "odd_size"],
           deform(4), ones(1, 1))
    record(s, vf, "Deformable DETR, F 2: 3 x 4", ["deformable_detr", "small_features", "basic", "non_square"],
           deform(2), ones(3, 4))

    # DETA (deprecated): Deformable DETR's offset, float32 sums.
    record(s, vf, "DETA, 9 x 12 with bottom padding (valid 7 x 12), F 128",
           ["deta", "bottom_padding", "padded_offset", "non_square"] + real, s.built(s.deta, 256),
           rectangle(9, 12, 7, 12))
    record(s, vf, "DETA, right and bottom padding: 6 x 7, valid 4 x 5, F 8",
           ["deta", "right_padding", "bottom_padding", "padded_offset", "non_square"], s.built(s.deta, 16),
           rectangle(6, 7, 4, 5))

    # Grounding DINO (and MM Grounding DINO): temperature 20, no offset.
    record(s, vf, "Grounding DINO, a 640 x 853 image in a batch padded to 800 x 1066: stride 64, 13 x 17, F 128",
           ["grounding_dino", "padded_batch", "right_padding", "bottom_padding", "non_square", "odd_size"] + real,
           s.grounding_built(s.grounding, 256), batch_mask(s, (640, 853), (800, 1066), (13, 17)))
    record(s, vf, "Grounding DINO, right padding: 5 x 8, valid 5 x 6, F 8",
           ["grounding_dino", "right_padding", "non_square"], s.grounding_built(s.grounding, 16),
           rectangle(5, 8, 5, 6))
    record(s, vf, "MM Grounding DINO: 9 x 12 with bottom padding (valid 7 x 12), F 128",
           ["mm_grounding_dino", "bottom_padding", "non_square"] + real, s.grounding_built(s.mm_grounding, 256),
           rectangle(9, 12, 7, 12))

    # DAB-DETR: a temperature per axis.
    record(s, vf, "DAB-DETR at 800 x 1066: stride 32, 25 x 34, F 128", ["dab_detr", "basic", "non_square"] + real,
           s.dab_module(256), ones(25, 34))
    record(s, vf, "DAB-DETR, 12 x 9 with right and bottom padding (valid 10 x 7), F 128",
           ["dab_detr", "right_padding", "bottom_padding", "non_square"] + real, s.dab_module(256),
           rectangle(12, 9, 10, 7))
    record(s, vf, "DAB-DETR, temperature_height 20, temperature_width 10000: 6 x 9, valid 5 x 7, F 8",
           ["dab_detr", "axis_temperatures", "right_padding", "bottom_padding", "non_square"],
           s.dab_module(16, temperature_height=20, temperature_width=10000), rectangle(6, 9, 5, 7))
    record(s, vf, "DAB-DETR, temperature_height 10000, temperature_width 20: 6 x 9, valid 5 x 7, F 8",
           ["dab_detr", "axis_temperatures", "right_padding", "bottom_padding", "non_square"],
           s.dab_module(16, temperature_height=10000, temperature_width=20), rectangle(6, 9, 5, 7))
    record(s, vf, "DAB-DETR, temperature_height 20, temperature_width 10000, square 8 x 8, F 16",
           ["dab_detr", "axis_temperatures", "basic"],
           s.dab_module(32, temperature_height=20, temperature_width=10000), ones(8, 8))
    record(s, vf, "DAB-DETR, sine_position_embedding_scale 1.5: 5 x 7, valid 4 x 6, F 8",
           ["dab_detr", "custom_scale", "right_padding", "bottom_padding", "non_square", "odd_size"],
           s.dab_module(16, sine_position_embedding_scale=1.5), rectangle(5, 7, 4, 6))

    # The MaskFormer family: no mask, every pixel valid.
    record(s, vf, "Mask2Former (hidden_dim 256), a 1024 x 1024 input at stride 32: 32 x 32, F 128",
           ["maskformer_family", "basic"] + real, s.mask2former_module(), ones(32, 32))
    record(s, vf, "MaskFormer (decoder hidden_size 256): 8 x 12, F 128",
           ["maskformer_family", "basic", "non_square"] + real, s.maskformer_module(), ones(8, 12))
    record(s, vf, "OneFormer (hidden_dim 256): 7 x 10, F 128",
           ["maskformer_family", "basic", "non_square"] + real, s.oneformer_module(), ones(7, 10))
    record(s, vf, "SAM 2 vision neck (fpn_hidden_size 256): 8 x 8, F 128", ["maskformer_family", "basic"] + real,
           s.sam2_module(), ones(8, 8))


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, FAMILY, {"--transformers": "transformers checkout (v4.57.6)"})
    s = Sources(hfref.Reference(args.transformers))
    return famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("detr", "2-D sine position embedding from a pixel mask (DETR's DetrSinePositionEmbedding and its "
                 "copies in transformers)", s.prov, lambda vf: build(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
