"""The vision tower of a multimodal profile, recorded from its own transformers classes.

gen_profiles.py calls build_vision(ref, vf, profile) for every profile whose checkpoint
has a 2-D RoPE vision tower. The composite config class (Qwen2VLConfig, Qwen2_5_VLConfig,
Qwen3VLConfig, LlavaConfig, Llama4Config) is built from the profile's config.json fields
as from_pretrained builds it; its vision_config, cut to one layer (the rotation is
computed once, before the blocks, the same for every block), builds the official vision
model, and gen_rope2d.py's recorders run it:

  rope2d.index   the tower's own position code (rot_pos_emb; position_ids_in_meshgrid;
                 Llama4VisionRotaryEmbedding) on two grids in one call; Qwen2.5-VL's in
                 its attention-window order, read back from its forward (get_window_index
                 run by the tower itself) on grids of several windows, window_units the
                 tower's window_size // spatial_merge_size // patch_size;
  rope2d.apply   the forward stopped at its first rotation call, then that official
                 function on seeded q with what the forward handed it;
  posinterp.resize  (Qwen3-VL) the tower's fast_pos_embed_interpolate on one image, its
                 learned table (num_position_embeddings rows) seeded, the table's width cut
                 to 8 channels (the resize is per channel: nn.Embedding of 8, the rows as
                 the config says), cross-checked against F.interpolate by gen_posinterp.

A ViT-family profile (vit, deit, dinov2, dinov2_with_registers) is the tower itself: its
config class is built from the profile's fields, its embeddings class's position table
seeded (8 channels, the rows as the config says), and interpolate_pos_encoding, the
official function, resizes it to three images (a larger or the processor's 224-pixel
square, a non-square photo, a smaller square), cross-checked bit for bit against
F.interpolate at the config recorded (bicubic, half-pixel centres, the size form, the
class rows apart, antialias for DINOv2 with registers).

The manifest config of each test is what the official classes resolved: head_dim is the
first attention module's own, theta the rotary class's (Qwen: VisionRotaryEmbedding's
default argument, which the towers never override; Pixtral and Llama 4: rope_theta of the
resolved vision config), spatial_merge_size the tower's. The conventions (patch order,
frequency split, axis order, pairing) are the tower's per plugin.h, and every recorded
rotation is cross-checked against plugin.h's formula at those values in double (a wrong
convention cannot be recorded). Every test is flagged layers_vision: `pecert certify`
reads them in its @vision pass only.
"""

import copy
import importlib
import inspect

import numpy as np

import famgen
import gen_posinterp
import gen_rope2d

# checkpoint model_type -> (composite config class, its module, vision model class and
# its module, the layer-count key, the recorders' family, the conventions of plugin.h)
TOWERS = {
    "qwen2_vl": ("Qwen2VLConfig", "qwen2_vl", "Qwen2VisionTransformerPretrainedModel", "qwen2_vl", "depth",
                 "qwen", ("merge_windows", "blocks", False, "split_half")),
    "qwen2_5_vl": ("Qwen2_5_VLConfig", "qwen2_5_vl", "Qwen2_5_VisionTransformerPretrainedModel", "qwen2_5_vl",
                   "depth", "qwen", ("attention_windows", "blocks", False, "split_half")),
    "qwen3_vl": ("Qwen3VLConfig", "qwen3_vl", "Qwen3VLVisionModel", "qwen3_vl", "depth", "qwen",
                 ("merge_windows", "blocks", False, "split_half")),
    "qwen3_vl_moe": ("Qwen3VLMoeConfig", "qwen3_vl_moe", "Qwen3VLMoeVisionModel", "qwen3_vl_moe", "depth", "qwen",
                     ("merge_windows", "blocks", False, "split_half")),
    "llava": ("LlavaConfig", "llava", "PixtralVisionModel", "pixtral", "num_hidden_layers", "pixtral",
              ("row_major", "alternate", False, "split_half")),
    "mistral3": ("Mistral3Config", "mistral3", "PixtralVisionModel", "pixtral", "num_hidden_layers", "pixtral",
                 ("row_major", "alternate", False, "split_half")),
    "llama4": ("Llama4Config", "llama4", "Llama4VisionModel", "llama4", "num_hidden_layers", "llama4",
               ("row_major_cls", "blocks", True, "interleaved")),
    # The tower as a checkpoint of its own: its config class is the tower's.
    "pixtral": ("PixtralVisionConfig", "pixtral", "PixtralVisionModel", "pixtral", "num_hidden_layers", "pixtral",
                ("row_major", "alternate", False, "split_half")),
    "mlcd_vision_model": ("MLCDVisionConfig", "mlcd", "MLCDVisionModel", "mlcd", "num_hidden_layers", "mlcd",
                          ("row_major", "blocks", False, "split_half")),
}
# Model types whose checkpoint is the tower: no text model, the config the tower's own.
OWN_TOWERS = ("pixtral", "mlcd_vision_model")

# The ViT family: model_type -> (config class, its module, embeddings class).
TABLE_TOWERS = {
    "vit": ("ViTConfig", "vit", "ViTEmbeddings"),
    "deit": ("DeiTConfig", "deit", "DeiTEmbeddings"),
    "dinov2": ("Dinov2Config", "dinov2", "Dinov2Embeddings"),
    "dinov2_with_registers": ("Dinov2WithRegistersConfig", "dinov2_with_registers",
                              "Dinov2WithRegistersEmbeddings"),
    "clip_vision_model": ("CLIPVisionConfig", "clip", "CLIPVisionEmbeddings"),
    "chinese_clip_vision_model": ("ChineseCLIPVisionConfig", "chinese_clip", "ChineseCLIPVisionEmbeddings"),
    "siglip_vision_model": ("SiglipVisionConfig", "siglip", "SiglipVisionEmbeddings"),
    "vit_msn": ("ViTMSNConfig", "vit_msn", "ViTMSNEmbeddings"),
    "ijepa": ("IJepaConfig", "ijepa", "IJepaEmbeddings"),
    "internvl_vision": ("InternVLVisionConfig", "internvl", "InternVLVisionEmbeddings"),
    "dpt": ("DPTConfig", "dpt", "DPTViTEmbeddings"),
    "vit_mae": ("ViTMAEConfig", "vit_mae", "ViTMAEEmbeddings"),
    "siglip2_vision_model": ("Siglip2VisionConfig", "siglip2", "Siglip2VisionEmbeddings"),
}


def table_of(module):
    """The tower's position table as [rows, width]: ViT's nn.Parameter [1, rows, width]
    (position_embeddings), or CLIP's and SigLIP's nn.Embedding (position_embedding)."""
    if hasattr(module, "position_embeddings"):
        return module.position_embeddings[0]
    return module.position_embedding.weight


def set_table(module, torch, table):
    """Replaces the tower's table by table ([rows, width]), in the form the class keeps it."""
    if hasattr(module, "position_embeddings"):
        module.position_embeddings = torch.nn.Parameter(torch.from_numpy(table)[None])
    else:
        module.position_embedding = torch.nn.Embedding(*table.shape)
        module.position_embedding.weight.data.copy_(torch.from_numpy(table))

NOTES = famgen.notes_table("""
layers_vision  FUNCTIONALITY  The checkpoint's vision tower: its 2-D RoPE, or its learned position
                              table resized to an image, built by its own transformers classes from
                              the profile's vision_config (a ViT-family model's own config).
""")

ROTARY_ATTR = {"qwen": "rotary_pos_emb", "pixtral": "patch_positional_embedding", "llama4": "rotary_embedding"}


def has_tower(profile):
    c = profile["config"]
    if c["model_type"] in TABLE_TOWERS:
        return True
    if c["model_type"] not in TOWERS:
        return False
    # LLaVA's tower is Pixtral's only when vision_config says so (its default is CLIP's);
    # Mistral 3's unless it names another (vision_config.get("model_type", "pixtral")).
    # Every other composite class builds its own tower whatever vision_config names.
    if c["model_type"] not in ("llava", "mistral3"):
        return True
    absent = {"llava": None, "mistral3": "pixtral"}[c["model_type"]]
    return (c.get("vision_config") or {}).get("model_type", absent) == "pixtral"


def _module(name, kind):
    return importlib.import_module(f"transformers.models.{name}.{kind}_{name}")


def vision_config(profile):
    """The composite config class's vision_config, from the profile's fields."""
    c = profile["config"]
    cls_name, mod, _, _, layers_key, _, _ = TOWERS[c["model_type"]]
    kwargs = copy.deepcopy({k: v for k, v in c.items() if k != "model_type"})
    made = getattr(_module(mod, "configuration"), cls_name)(**kwargs)
    vc = copy.deepcopy(made if c["model_type"] in OWN_TOWERS else made.vision_config)
    setattr(vc, layers_key, 1)
    vc._attn_implementation = "eager"
    return vc


def first_attention(model, family):
    if family == "qwen":
        return model.blocks[0].attn
    if family == "pixtral":
        return model.transformer.layers[0].attention
    if family == "mlcd":
        return model.vision_model.encoder.layers[0].self_attn
    return model.model.layers[0].self_attn


def rotary_module(model, family):
    """The tower's rotary class instance: Qwen's VisionRotaryEmbedding, MLCD's own copy."""
    if family == "mlcd":
        return model.vision_model.vision_rotary_embedding
    return getattr(model, ROTARY_ATTR[family])


def tower_theta(model, family, vc):
    """The theta the tower's rotary class builds its inverse frequencies from, checked
    against the inverse frequencies it built."""
    if family in ("qwen", "mlcd"):
        rot = rotary_module(model, family)
        theta = float(inspect.signature(type(rot).__init__).parameters["theta"].default)
        dim = 2 * rot.inv_freq.shape[0]
        want = 1.0 / theta ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
        if np.max(np.abs(rot.inv_freq.double().numpy() - want) / want) > 1e-6:
            raise AssertionError("the tower's inverse frequencies are not theta^(-2k/dim)")
        return theta
    return float(vc.rope_theta)


def formula_rotation(x, positions, head_dim, theta, frequencies, columns_first, pairing):
    """plugin.h's 2-D rotation in double: pair i < D/4 turns by the first axis' position,
    the others by the second, at the frequencies BLOCKS or ALTERNATE give them."""
    q = head_dim // 4
    j = np.arange(head_dim // 2)
    k = 2 * (j % q) + ((j >= q) & (frequencies == "alternate"))
    freq = theta ** (-2.0 * k / head_dim)
    first, second = (positions[1], positions[0]) if columns_first else (positions[0], positions[1])
    pos = np.where(j[None, :] < q, first[:, None], second[:, None]).astype(np.float64)
    ang = pos * freq[None, :]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    xd = x.astype(np.float64)
    out = xd.copy()
    a, b = (j * 2, j * 2 + 1) if pairing == "interleaved" else (j, j + head_dim // 2)
    out[..., a] = xd[..., a] * cos - xd[..., b] * sin
    out[..., b] = xd[..., b] * cos + xd[..., a] * sin
    return out


def cross_check(name, x, out, positions, config, pairing):
    want = formula_rotation(x, positions, config["head_dim"], config["theta"], config["frequencies"],
                            config["columns_first"], pairing)
    err = np.max(np.abs(out.astype(np.float64) - want), initial=0.0)
    if err > 1e-4 * max(1.0, float(np.max(np.abs(x)))):
        raise AssertionError(f"{name}: the tower's rotation is not plugin.h's at {config}, {pairing} "
                             f"(max error {err:.3g})")


class Tower:
    """One profile's vision tower: its config, model factory and resolved values."""

    def __init__(self, ref, profile):
        self.s = gen_rope2d.Sources(ref)
        c = profile["config"]
        _, _, model_cls, model_mod, _, self.family, conv = TOWERS[c["model_type"]]
        self.vc = vision_config(profile)
        self.modeling = _module(model_mod, "modeling")
        self.model_cls = getattr(self.modeling, model_cls)
        self.scheme, self.frequencies, self.columns_first, self.pairing = conv
        model = self.make()[1]
        self.head_dim = int(first_attention(model, self.family).head_dim)
        self.theta = tower_theta(model, self.family, self.vc)
        self.merge = int(getattr(self.vc, "spatial_merge_size", 1)) if self.family == "qwen" else 1
        self.source_file = "src/transformers/models/%s/modeling_%s.py" % (model_mod, model_mod)

    def make(self):
        return self.modeling, self.model_cls(copy.deepcopy(self.vc)).eval()

    def family_tuple(self):
        return (self.modeling, None)

    def apply_config(self):
        return {"frequencies": self.frequencies, "columns_first": self.columns_first,
                "head_dim": self.head_dim, "theta": self.theta}


def mlcd_index(t, grids):
    """Each image's patch positions from MLCD's own MLCDRotaryEmbedding(h, w) (one image a
    forward: its pixel grid): the angles of each axis' first frequency, inv_freq[0] = 1,
    are the row and the column."""
    rot = rotary_module(t.make()[1], "mlcd")
    q = rot.inv_freq.shape[0]
    if float(rot.inv_freq[0]) != 1.0:
        raise AssertionError("MLCD's first inverse frequency is not 1")
    parts = []
    for _, h, w in grids:
        with t.s.torch.no_grad():
            angles = rot(h, w).double().numpy()
        parts.append(np.stack([gen_rope2d.exact_ints(angles[:, 0], "mlcd rows"),
                               gen_rope2d.exact_ints(angles[:, q], "mlcd columns")]))
    return grids, np.concatenate(parts, axis=1)


def mlcd_apply(t, grids, label):
    """The forward's cos and sin on one image (apply_rotary_pos_emb_vision's arguments), the
    class token's learned row dropped, and that function on seeded patches."""
    torch = t.s.torch
    modeling, model = t.make()
    (_, h, w), p = grids[0], t.vc.patch_size
    got = {}

    def record(q, k, cos, sin):
        got["cos"], got["sin"] = cos.clone(), sin.clone()

    original = gen_rope2d.wrap_once(modeling, "apply_rotary_pos_emb_vision", record)
    try:
        t.s.run_stopped(model, torch.zeros(1, 3, h * p, w * p))
    finally:
        modeling.apply_rotary_pos_emb_vision = original
    cos, sin = got["cos"][:, 1:], got["sin"][:, 1:]  # [1, 1 + patches, D]: the class token first
    x = famgen.seeded_normal(f"rope2d apply {label}", (h * w, gen_rope2d.HEADS, t.head_dim))
    q = torch.from_numpy(x)[None]
    with torch.no_grad():
        out = original(q, q, cos, sin)[0][0].numpy()
    return mlcd_index(t, grids[:1])[1], x, out


def _index(t, grids):
    """(grid_thw, positions) from the tower's own position code; Qwen2.5-VL's from its
    forward (the tokens in get_window_index's order), read back as gen_rope2d does."""
    s = t.s
    if t.scheme == "attention_windows":
        positions = gen_rope2d.qwen_forward_positions(s, t.family_tuple(), grids, t.head_dim,
                                                      "vision index", make=t.make)
        merge = gen_rope2d.qwen_index(s, t.family_tuple(), grids, make=t.make)
        gen_rope2d.check_window_order(positions, merge, grids, t.merge, "vision index")
        return grids, positions
    if t.family == "qwen":
        return grids, gen_rope2d.qwen_index(s, t.family_tuple(), grids, make=t.make)
    if t.family == "pixtral":
        _, positions, _, _ = gen_rope2d.pixtral_forward(s, [(h, w) for _, h, w in grids], t.head_dim, make=t.make)
        return grids, positions
    if t.family == "mlcd":
        return mlcd_index(t, grids)
    side = t.vc.image_size // t.vc.patch_size
    return [[1, side, side]] * len(grids), gen_rope2d.llama4_index(s, t.vc.image_size, len(grids), t.vc.patch_size)


def _apply(t, grids, label):
    """(positions, x, out) of the tower's forward and its rotation call."""
    s = t.s
    if t.family == "qwen":
        return gen_rope2d.qwen_apply(s, t.family_tuple(), grids, t.head_dim, label, make=t.make)
    if t.family == "pixtral":
        return gen_rope2d.pixtral_apply(s, [(h, w) for _, h, w in grids], t.head_dim, label, make=t.make)
    if t.family == "mlcd":
        return mlcd_apply(t, grids, label)
    positions, x, out = gen_rope2d.llama4_apply(s, t.vc.image_size, 1, t.head_dim, label, cfg=copy.deepcopy(t.vc))
    side = t.vc.image_size // t.vc.patch_size
    keep = np.r_[0:side, side * (side - 1):side * side + 1]  # first and last patch rows, class token
    return positions[:, keep], x[keep], out[keep]


def window_units(t):
    """Qwen2.5-VL's merge units per window side: the tower's own (get_window_index's
    window_size // spatial_merge_size // patch_size), checked against its vision_config."""
    units = gen_rope2d.window_units(t.make()[1])
    if units != t.vc.window_size // t.merge // t.vc.patch_size or units < 1:
        raise AssertionError(f"window_units {units}: not the vision_config's")
    return units


TABLE_WIDTH = 8


def add_table(t, vf, grid):
    """Qwen3-VL's learned table resized to one image by the tower's own code."""
    torch = t.s.torch
    _, model = t.make()
    rows = model.pos_embed.num_embeddings
    side = int(model.num_grid_per_side)
    table = gen_posinterp.seeded_table(f"{vf.name} vision table", rows, TABLE_WIDTH)
    model.pos_embed = torch.nn.Embedding(rows, TABLE_WIDTH)
    with torch.no_grad():
        model.pos_embed.weight.copy_(torch.from_numpy(table))
        out = model.fast_pos_embed_interpolate(torch.tensor([grid], dtype=torch.int64)).numpy()
    c = gen_posinterp.config("bilinear", (side, side), tuple(grid[1:]), align_corners=True, merge=t.merge)
    gen_posinterp.record(t.s, vf, f"vision tower: its {side} x {side} position table resized to "
                                  f"{grid[1]} x {grid[2]} ({TABLE_WIDTH} of its channels)",
                         ["profile", "layers_vision"],
                         famgen.source(t.source_file, t.model_cls.__name__ + ".fast_pos_embed_interpolate"),
                         table[:side * side], c, out, exact=False)


def table_grids(side, patch):
    """The images recorded for a side x side table: the processors' 224-pixel square when
    that is another grid (else the table grown by 12/7, ViT-B/16 from 224 to 384 pixels),
    a 7:10 photo and the table shrunk by 5/7 (where antialias acts)."""
    crop = 224 // patch
    first = (crop, crop) if crop != side else (side * 12 // 7, side * 12 // 7)
    return [first, (side, side * 10 // 7), (side * 5 // 7, side * 5 // 7)]


def square_side(value):
    """An int, or the side of a square [h, w] pair (InternVLVisionConfig's)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2 or value[0] != value[1]:
            raise ValueError(f"{value}: not a square side")
        return int(value[0])
    return int(value)


def build_table_tower(ref, vf, profile):
    """A ViT-family model's position table resized by its own interpolate_pos_encoding."""
    s = gen_rope2d.Sources(ref)
    torch = s.torch
    c = profile["config"]
    cls_name, mod, emb_name = TABLE_TOWERS[c["model_type"]]
    kwargs = copy.deepcopy({k: v for k, v in c.items() if k != "model_type"})
    cfg = getattr(_module(mod, "configuration"), cls_name)(**kwargs)
    emb_cls = getattr(_module(mod, "modeling"), emb_name)
    module = emb_cls(cfg)
    rows = table_of(module).shape[0]
    patch = square_side(cfg.patch_size)
    if hasattr(module, "resize_positional_embeddings"):  # SigLIP 2: no image_size, every image resized
        build_naflex_table(s, vf, module, emb_name, mod, patch)
        return
    side = square_side(cfg.image_size) // patch
    prefix = rows - side * side
    # DPT resizes with _resize_pos_embed(table, grid h, grid w), bilinear; the others with
    # interpolate_pos_encoding(embeddings, height, width), bicubic.
    dpt = hasattr(module, "_resize_pos_embed")
    source = famgen.source("src/transformers/models/%s/modeling_%s.py" % (mod, mod),
                           emb_name + ("._resize_pos_embed" if dpt else ".interpolate_pos_encoding"))
    for h, w in table_grids(side, patch):
        table = gen_posinterp.seeded_table(f"{vf.name} vision table {h}x{w}", rows, TABLE_WIDTH)
        with torch.no_grad():
            set_table(module, torch, table)
            if dpt:
                out = module._resize_pos_embed(module.position_embeddings, h, w)
            else:
                out = module.interpolate_pos_encoding(torch.zeros(1, prefix + h * w, TABLE_WIDTH), h * patch,
                                                      w * patch)
        out = out.reshape(-1, TABLE_WIDTH).numpy()
        antialias = c["model_type"] == "dinov2_with_registers"
        conf = gen_posinterp.config("bilinear" if dpt else "bicubic", (side, side), (h, w), prefix=prefix,
                                    antialias=antialias)
        kept = f"{prefix} class row{'s' if prefix > 1 else ''} kept" if prefix else "no class row"
        gen_posinterp.record(s, vf, f"the model's {side} x {side} position table ({kept}) resized to a {h * patch} x {w * patch} "
                                    f"image: {h} x {w} patches ({TABLE_WIDTH} of its channels)",
                             ["profile", "layers_vision"], source, table, conf, out, exact=True)


def build_naflex_table(s, vf, module, emb_name, mod, patch):
    """SigLIP 2's table (position_embedding_size a side) resized to each image's patch grid by
    the class's own resize_positional_embeddings, as its forward calls it (spatial_shapes
    one image, max_length its h * w: no padding rows)."""
    torch = s.torch
    side = module.position_embedding_size
    rows = side * side
    source = famgen.source("src/transformers/models/%s/modeling_%s.py" % (mod, mod),
                           emb_name + ".resize_positional_embeddings")
    for h, w in table_grids(side, patch):
        table = gen_posinterp.seeded_table(f"{vf.name} vision table {h}x{w}", rows, TABLE_WIDTH)
        with torch.no_grad():
            out = module.resize_positional_embeddings(torch.from_numpy(table).reshape(side, side, TABLE_WIDTH),
                                                      torch.tensor([[h, w]], dtype=torch.int64), h * w)
        out = out.reshape(-1, TABLE_WIDTH).numpy()
        conf = gen_posinterp.config("bilinear", (side, side), (h, w), antialias=True)
        gen_posinterp.record(s, vf, f"the model's {side} x {side} position table (no class row) resized to an image "
                                    f"of {h} x {w} patches ({TABLE_WIDTH} of its channels)",
                             ["profile", "layers_vision"], source, table, conf, out, exact=True)


def build_vision(ref, vf, profile):
    """Two rope2d tests of the profile's tower (and a posinterp test of a learned table),
    or a ViT-family model's three posinterp tests, flagged layers_vision."""
    if profile["config"]["model_type"] in TABLE_TOWERS:
        build_table_tower(ref, vf, profile)
        return
    t = Tower(ref, profile)
    m = t.merge
    grids = [[1, 2 * m, 3 * m], [2, 2 * m, 2 * m]] if t.family == "qwen" else [[1, 4, 6], [1, 3, 5]]
    windows = t.scheme == "attention_windows"
    # Qwen2.5-VL: grids of more than one window (6 x 10 merge units), so that the window
    # order is not the merge order, and a video of 5 x 4 units (a window exactly as wide).
    grid, positions = _index(t, [[1, 6 * m, 10 * m], [2, 5 * m, 4 * m]] if windows else grids)
    fn = {"qwen": "rot_pos_emb", "pixtral": "position_ids_in_meshgrid", "mlcd": "MLCDRotaryEmbedding.forward",
          "llama4": "Llama4VisionRotaryEmbedding.__init__"}[t.family]
    if windows:
        fn = "forward (get_window_index) + apply_rotary_pos_emb_vision, positions read back"
    what = "two tiles" if t.family == "llama4" else "grids " + ", ".join("x".join(map(str, g)) for g in grid)
    config = {"scheme": t.scheme, "spatial_merge_size": m}
    if windows:
        config["window_units"] = window_units(t)
    vf.add_test("rope2d.index", f"vision tower: patch positions of {what} in one call" +
                (", in its attention-window order" if windows else ""),
                ["profile", "layers_vision"], famgen.source(t.source_file, t.model_cls.__name__ + "." + fn
                                                            if t.family == "qwen" else fn),
                config, {}, {"grid_thw": vf.tensor(np.asarray(grid, dtype=np.int64), "i64")},
                {"positions": vf.tensor(positions, "i64")})
    label = f"{vf.name} vision apply"
    positions, x, out = _apply(t, grids[:1], label)
    config = t.apply_config()
    cross_check(vf.name, x, out, positions, config, t.pairing)
    what = "a tile's first and last patch rows and its class token" if t.family == "llama4" else \
        "grid " + "x".join(map(str, grids[0]))
    vf.add_test("rope2d.apply", f"vision tower: the forward's rotation of {what}, {x.shape[1]} heads of "
                                f"{t.head_dim}", ["profile", "layers_vision"],
                famgen.source(t.source_file, t.model_cls.__name__ + ".forward + its rotation call"),
                config, {"pairing": t.pairing},
                {"positions": vf.tensor(positions, "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out, "f32")})
    if hasattr(t.model_cls, "fast_pos_embed_interpolate"):
        add_table(t, vf, [1, 4 * m, 6 * m])
