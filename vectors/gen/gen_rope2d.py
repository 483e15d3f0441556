#!/usr/bin/python3
"""Generate pecert's 2-D vision RoPE vectors (Qwen2-VL, Qwen2.5-VL, Pixtral, Llama 4).

    /usr/bin/python3 vectors/gen/gen_rope2d.py --transformers PATH --out vectors/rope2d

Source: huggingface/transformers v4.57.6, src/transformers/models/
  index  qwen2_vl:   Qwen2VisionTransformerPretrainedModel.rot_pos_emb (qwen2_5_vl: the
                     Qwen2.5 class's), its rotary table swapped for the official
                     VisionRotaryEmbedding(2), whose one inverse frequency is 1, so the
                     table it indexes is the position itself: rot_pos_emb then returns its
                     own (row, column) ids, in its own order (scheme merge_windows).
         qwen2_5_vl windows: the tokens in the order Qwen2_5_VisionTransformerPretrainedModel.
                     forward gives them (get_window_index: windows of window_units x
                     window_units merge units, window_units = window_size //
                     spatial_merge_size // patch_size), scheme attention_windows.  The
                     positions are the forward's own, read back as for apply below (its
                     inverse frequencies 1e-4, the cos/sin at the first
                     apply_rotary_pos_emb_vision call, atan2); get_window_index is not
                     re-implemented.  Cross-check only: they are rot_pos_emb's merge-order
                     positions moved in whole merge units within each frame, and equal to
                     them for a grid of one window.  window_size 112 (4 units) as released,
                     and a synthetic 56 (2 units).
         pixtral:    position_ids_in_meshgrid(patch_embeds_list, max_width) as
                     PixtralVisionModel.forward calls it (max_width = image_size //
                     patch_size); its ids are row * max_width + column, the layout of
                     PixtralRotaryEmbedding's table, and are split back into (row, column).
         llama4:     Llama4VisionRotaryEmbedding(config).freqs_ci, built for a head of 8
                     channels and rope_theta 1e8: its second frequency is then 1e-4, so the
                     angle of that entry is (column + 1) * 1e-4 (and (row + 1) * 1e-4 in the
                     second half), below 0.01 rad, read back by atan2 and rounded; the class
                     token's angle is 0.  The same table at the real theta is what the model
                     rotates by (apply below).
  apply  the model's own forward, stopped at the first attention layer's rotation call
         (apply_rotary_pos_emb_vision / apply_rotary_pos_emb / vision_apply_rotary_emb,
         wrapped to record its cos/sin or freqs_ci), then that official function called on a
         seeded x with what the forward gave it.  The positions are the forward's own: for
         Qwen2-VL and Qwen2.5-VL a second forward with the table's inverse frequencies set
         to 1e-4 (its angles read back by atan2, so Qwen2.5-VL's window order is the
         model's), Pixtral's recorded from its position_ids_in_meshgrid call, Llama 4's from
         the index above.

Vision configs modelled on released checkpoints (config.json as quoted in public
repositories; the hub itself was not reachable): Qwen2-VL-7B / Qwen2.5-VL-7B vision towers
embed_dim / hidden_size 1280, 16 heads (head_dim 80), patch 14, spatial_merge_size 2,
Qwen2.5-VL window_size 112; Pixtral-12B hidden_size 1024, 16 heads (head_dim 64),
image_size 1024, patch_size 16, rope_theta 10000; Llama 4 Scout / Maverick hidden_size 1408,
16 heads (head_dim 88), image_size 336, patch_size 14, rope_theta 10000.  The towers are
built with one layer and two heads (the rotation is per head; the head size is the
checkpoint's), so the tensors stay small.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_rope2d.py"
HEADS = 2
READBACK_FREQ = 1e-4  # an inverse frequency whose angles stay below 0.01 rad

NOTES = famgen.notes_table("""
qwen2_vl         FUNCTIONALITY  Qwen2-VL's vision tower (VisionRotaryEmbedding through rot_pos_emb).
qwen2_5_vl       FUNCTIONALITY  Qwen2.5-VL's vision tower: rot_pos_emb as Qwen2-VL's, the tokens
                                then in window order (get_window_index), the rotary table reordered
                                with them.
pixtral          FUNCTIONALITY  Pixtral's PixtralRotaryEmbedding: height on the even frequencies,
                                width on the odd.
llama4           FUNCTIONALITY  Llama 4's Llama4VisionRotaryEmbedding: positions column + 1 and row
                                + 1, interleaved pairs, the class token last at angle 0.
merge_windows    EDGE_CASE      Patches visited by spatial-merge window (2 x 2), not row-major: a
                                port that flattens the grid row by row gives the wrong patch its
                                angle.
non_square_grid  EDGE_CASE      Grid h != w: rows and columns must not be swapped.
video            FUNCTIONALITY  A video: every frame repeats the grid's positions.
several_images   FUNCTIONALITY  Several images in one call: each starts again at (0, 0).
class_token      EDGE_CASE      A class token that turns by no angle.
window_order     EDGE_CASE      Qwen2.5-VL's window order: the rotary table must follow the tokens
                                into their windows.
real_checkpoint  FUNCTIONALITY  The released checkpoint's vision head size and theta.
""")


class Recorded(Exception):
    """Raised by a wrapped rotation call to stop the forward once it is recorded."""


def wrap_once(module, name, record):
    """Replace module.name by a wrapper that hands its arguments to record() and stops."""
    original = getattr(module, name)

    def wrapper(*args, **kwargs):
        record(*args, **kwargs)
        raise Recorded()

    setattr(module, name, wrapper)
    return original


class Sources:
    """The official modules, from a transformers checkout imported by hfref."""

    def __init__(self, hf):
        self.hf = hf
        self.torch = self.hf.torch
        from transformers.models.llama4 import configuration_llama4, modeling_llama4
        from transformers.models.pixtral import configuration_pixtral, modeling_pixtral
        from transformers.models.qwen2_5_vl import configuration_qwen2_5_vl, modeling_qwen2_5_vl
        from transformers.models.qwen2_vl import configuration_qwen2_vl, modeling_qwen2_vl
        self.qwen2 = (modeling_qwen2_vl, configuration_qwen2_vl)
        self.qwen25 = (modeling_qwen2_5_vl, configuration_qwen2_5_vl)
        self.pixtral = (modeling_pixtral, configuration_pixtral)
        self.llama4 = (modeling_llama4, configuration_llama4)
        packages = refsrc.packages(self.torch)
        packages["transformers"] = self.hf.transformers.__version__
        self.prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                     "packages": packages}

    def run_stopped(self, model, *args, **kwargs):
        with self.torch.no_grad():
            try:
                model(*args, **kwargs)
            except Recorded:
                return
        raise AssertionError("the forward never reached its rotation call")


def exact_ints(values, what):
    """Float positions the reference produced -> int64, refusing anything not integral."""
    values = np.asarray(values, dtype=np.float64)
    rounded = np.rint(values)
    if np.max(np.abs(values - rounded), initial=0.0) > 1e-3:
        raise AssertionError(f"{what}: positions not integral: {values}")
    return rounded.astype(np.int64)


def angles_to_positions(cos, sin, freq, what):
    """Positions p from float32 cos/sin of p * freq (freq small: no wrap)."""
    angle = np.arctan2(np.asarray(sin, dtype=np.float64), np.asarray(cos, dtype=np.float64))
    return exact_ints(angle / freq, what)


# ---- Qwen2-VL / Qwen2.5-VL ---------------------------------------------------

def qwen_model(s, family, heads, head_dim, window_size=112, **extra):
    """A one-layer tower; window_size (Qwen2.5-VL only) sets its attention windows."""
    modeling, configuration = family
    if modeling is s.qwen2[0]:
        cfg = configuration.Qwen2VLVisionConfig(depth=1, embed_dim=heads * head_dim, num_heads=heads,
                                                hidden_size=32, mlp_ratio=1, spatial_merge_size=2,
                                                patch_size=14, temporal_patch_size=2, **extra)
        model = modeling.Qwen2VisionTransformerPretrainedModel(cfg)
    else:
        cfg = configuration.Qwen2_5_VLVisionConfig(depth=1, hidden_size=heads * head_dim, num_heads=heads,
                                                   intermediate_size=32, out_hidden_size=32,
                                                   spatial_merge_size=2, patch_size=14,
                                                   temporal_patch_size=2, window_size=window_size,
                                                   fullatt_block_indexes=[], **extra)
        model = modeling.Qwen2_5_VisionTransformerPretrainedModel(cfg)
    cfg._attn_implementation = "eager"
    return modeling, model.eval()


def qwen_index(s, family, grid, make=None):
    """rot_pos_emb's (row, column) ids: its table swapped for the tower's own rotary class at
    dim 2 (VisionRotaryEmbedding(2) for Qwen2-VL)."""
    modeling, model = make() if make else qwen_model(s, family, 1, 16)
    table = type(model.rotary_pos_emb)(2)
    if float(table.inv_freq[0]) != 1.0:
        raise AssertionError("VisionRotaryEmbedding(2) no longer has inverse frequency 1")
    model.rotary_pos_emb = table
    with s.torch.no_grad():
        ids = model.rot_pos_emb(s.torch.tensor(grid, dtype=s.torch.int64))
    return exact_ints(ids.numpy().T, "rot_pos_emb")


def qwen_forward_cos_sin(s, family, grid, head_dim, readback, make=None):
    """cos and sin [T, head_dim] as the forward hands them to apply_rotary_pos_emb_vision;
    with readback, the table's inverse frequencies are READBACK_FREQ first. make() builds
    the tower (modeling module, model); by default the one-layer tower of qwen_model."""
    modeling, model = make() if make else qwen_model(s, family, HEADS, head_dim)
    if readback:
        model.rotary_pos_emb.inv_freq.fill_(READBACK_FREQ)
    got = {}

    def record(q, k, cos, sin):
        got["cos"], got["sin"] = cos.clone(), sin.clone()

    original = wrap_once(modeling, "apply_rotary_pos_emb_vision", record)
    try:
        grid_t = s.torch.tensor(grid, dtype=s.torch.int64)
        patches = int(sum(t * h * w for t, h, w in grid))
        c = model.config
        pixels = s.torch.zeros(patches, c.in_channels * c.temporal_patch_size * c.patch_size ** 2)
        s.run_stopped(model, pixels, grid_thw=grid_t)
    finally:
        setattr(modeling, "apply_rotary_pos_emb_vision", original)
    return original, got["cos"], got["sin"]


def qwen_forward_positions(s, family, grid, head_dim, label, make=None):
    """The (row, column) of every token as the forward rotates it, in the forward's own
    token order (Qwen2.5-VL: after get_window_index), read back from its cos/sin at
    READBACK_FREQ: rows from channel 0, columns from channel head_dim // 4."""
    _, rcos, rsin = qwen_forward_cos_sin(s, family, grid, head_dim, readback=True, make=make)
    quarter = head_dim // 4
    rows = angles_to_positions(rcos[:, 0].numpy(), rsin[:, 0].numpy(), np.float32(READBACK_FREQ), label)
    cols = angles_to_positions(rcos[:, quarter].numpy(), rsin[:, quarter].numpy(),
                               np.float32(READBACK_FREQ), label)
    return np.stack([rows, cols])


def qwen_apply(s, family, grid, head_dim, label, make=None):
    apply, cos, sin = qwen_forward_cos_sin(s, family, grid, head_dim, readback=False, make=make)
    positions = qwen_forward_positions(s, family, grid, head_dim, label, make=make)
    x = famgen.seeded_normal(f"rope2d apply {label}", (cos.shape[0], HEADS, head_dim))
    q = s.torch.from_numpy(x)  # the vision attention's own layout: [seq, heads, head_dim]
    with s.torch.no_grad():
        out = apply(q, q, cos, sin)[0]
    return positions, x, out.numpy()


def window_units(model):
    """The merge units per window side, from the tower's own attributes as
    get_window_index derives its vit_merger_window_size."""
    return int(model.window_size // model.spatial_merge_size // model.patch_size)


def check_window_order(window, merge, grid, m, label, same=False):
    """A cross-check, not a golden source: the forward's window-order positions must be the
    merge_windows positions (rot_pos_emb, qwen_index) of the same grid moved in whole merge
    units of m * m tokens, each frame's units staying inside that frame; equal to them
    exactly when same (one window), different otherwise (the test would add nothing)."""
    unit = m * m
    if window.shape != merge.shape:
        raise AssertionError(f"{label}: {window.shape[1]} tokens, merge_windows has {merge.shape[1]}")
    start = 0
    for t, h, w in grid:
        for _ in range(t):
            end = start + h * w
            units = [np.moveaxis(p[:, start:end].reshape(2, -1, unit), 1, 0).reshape(-1, 2 * unit)
                     for p in (window, merge)]
            if not np.array_equal(*(u[np.lexsort(u.T[::-1])] for u in units)):
                raise AssertionError(f"{label}: a frame's tokens are not its merge units permuted")
            start = end
    if np.array_equal(window, merge) != same:
        raise AssertionError(f"{label}: window order {'differs from' if same else 'equals'} merge order")


def qwen_window_index(s, grid, label, window_size=112, same=False):
    """(window_units, positions) of Qwen2.5-VL's forward on grid: the tokens in its
    attention-window order, read back from the forward itself (get_window_index is run, not
    re-implemented), cross-checked against rot_pos_emb's merge order by check_window_order."""
    def make():
        return qwen_model(s, s.qwen25, HEADS, 16, window_size=window_size)
    positions = qwen_forward_positions(s, s.qwen25, grid, 16, label, make=make)
    check_window_order(positions, qwen_index(s, s.qwen25, grid), grid, 2, label, same)
    return window_units(make()[1]), positions


# ---- Pixtral -----------------------------------------------------------------

PIXTRAL_12B = dict(image_size=1024, patch_size=16, rope_theta=10000.0)


def pixtral_model(s, head_dim):
    modeling, configuration = s.pixtral
    cfg = configuration.PixtralVisionConfig(hidden_size=HEADS * head_dim, intermediate_size=32,
                                            num_hidden_layers=1, num_attention_heads=HEADS,
                                            **PIXTRAL_12B)
    cfg._attn_implementation = "eager"
    return modeling, modeling.PixtralVisionModel(cfg).eval()


def pixtral_forward(s, patches_hw, head_dim, make=None):
    """The forward on images of patches_hw patches: (position ids it computed, cos, sin).
    make() builds the tower; by default pixtral_model's."""
    modeling, model = make() if make else pixtral_model(s, head_dim)
    p = model.config.patch_size
    sizes = [(h * p, w * p) for h, w in patches_hw]
    pixels = s.torch.zeros(len(sizes), 3, max(h for h, _ in sizes), max(w for _, w in sizes))
    got = {}
    meshgrid = modeling.position_ids_in_meshgrid

    def ids_recorder(patch_embeds_list, max_width):
        got["ids"], got["max_width"] = meshgrid(patch_embeds_list, max_width), max_width
        return got["ids"]

    def record(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
        got["cos"], got["sin"] = cos.clone(), sin.clone()

    modeling.position_ids_in_meshgrid = ids_recorder
    original = wrap_once(modeling, "apply_rotary_pos_emb", record)
    try:
        s.run_stopped(model, pixels, image_sizes=sizes)
    finally:
        modeling.apply_rotary_pos_emb = original
        modeling.position_ids_in_meshgrid = meshgrid
    ids = got["ids"].numpy().astype(np.int64)
    positions = np.stack([ids // got["max_width"], ids % got["max_width"]])
    return original, positions, got["cos"], got["sin"]


def pixtral_apply(s, patches_hw, head_dim, label, make=None):
    apply, positions, cos, sin = pixtral_forward(s, patches_hw, head_dim, make)
    x = famgen.seeded_normal(f"rope2d apply {label}", (cos.shape[0], HEADS, head_dim))
    q = s.torch.from_numpy(x).transpose(0, 1)[None]  # [1, heads, patches, head_dim]
    with s.torch.no_grad():
        out = apply(q, q, cos, sin, unsqueeze_dim=0)[0]
    return positions, x, out[0].transpose(0, 1).contiguous().numpy()


# ---- Llama 4 -----------------------------------------------------------------

LLAMA4_SCOUT = dict(image_size=336, patch_size=14, rope_theta=10000.0)


def llama4_config(s, head_dim, **over):
    _, configuration = s.llama4
    values = dict(LLAMA4_SCOUT)
    values.update(over)
    return configuration.Llama4VisionConfig(hidden_size=HEADS * head_dim, num_attention_heads=HEADS,
                                            intermediate_size=32, num_hidden_layers=1,
                                            vision_output_dim=32, projector_input_dim=32,
                                            projector_output_dim=32, **values)


def llama4_index(s, image_size, tiles, patch_size=LLAMA4_SCOUT["patch_size"]):
    """Positions of each tile's tokens read back from Llama4VisionRotaryEmbedding's table."""
    modeling, _ = s.llama4
    # A head of 8 channels: frequencies 1e8^(-0/4) = 1 and 1e8^(-2/4) = 1e-4 per axis.
    cfg = llama4_config(s, 8, image_size=image_size, patch_size=patch_size, rope_theta=1e8)
    table = modeling.Llama4VisionRotaryEmbedding(cfg).freqs_ci[:, 0, :].numpy()  # [tokens, 4]
    freq = np.float32(1.0) / np.float32(1e4)
    cols = angles_to_positions(table[:, 1].real, table[:, 1].imag, freq, "llama4 columns")
    rows = angles_to_positions(table[:, 3].real, table[:, 3].imag, freq, "llama4 rows")
    one = np.stack([rows, cols])
    return np.concatenate([one] * tiles, axis=1)


def llama4_apply(s, image_size, tiles, head_dim, label, cfg=None):
    """The forward's freqs_ci and vision_apply_rotary_emb on seeded q; cfg (a vision
    config) replaces llama4_config's one-layer tower."""
    modeling, _ = s.llama4
    cfg = cfg or llama4_config(s, head_dim, image_size=image_size)
    cfg._attn_implementation = "eager"
    model = modeling.Llama4VisionModel(cfg).eval()
    got = {}

    def record(query, key, freqs_ci):
        got["freqs_ci"] = freqs_ci.clone()

    original = wrap_once(modeling, "vision_apply_rotary_emb", record)
    try:
        s.run_stopped(model, s.torch.zeros(tiles, 3, image_size, image_size))
    finally:
        modeling.vision_apply_rotary_emb = original
    per_tile = got["freqs_ci"].shape[0]
    x = famgen.seeded_normal(f"rope2d apply {label}", (tiles * per_tile, HEADS, head_dim))
    q = s.torch.from_numpy(x).reshape(tiles, per_tile, HEADS, head_dim)  # [B, S, heads, hd]
    with s.torch.no_grad():
        out = original(q, q, got["freqs_ci"])[0]
    positions = llama4_index(s, image_size, tiles, cfg.patch_size)
    if positions.shape[1] != tiles * per_tile:
        raise AssertionError("llama4: table and forward disagree on the token count")
    return positions, x, out.reshape(tiles * per_tile, HEADS, head_dim).contiguous().numpy()


# ---- files -------------------------------------------------------------------

QWEN2_SRC = "src/transformers/models/qwen2_vl/modeling_qwen2_vl.py"
QWEN25_SRC = "src/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py"
PIXTRAL_SRC = "src/transformers/models/pixtral/modeling_pixtral.py"
LLAMA4_SRC = "src/transformers/models/llama4/modeling_llama4.py"


def build_index(s, vf):
    qwen = (
        (s.qwen2, QWEN2_SRC, "Qwen2-VL, image 1 x 4 x 6", [[1, 4, 6]], ["non_square_grid"]),
        (s.qwen2, QWEN2_SRC, "Qwen2-VL, image 1 x 6 x 4", [[1, 6, 4]], ["non_square_grid"]),
        (s.qwen2, QWEN2_SRC, "Qwen2-VL, video 2 x 4 x 4", [[2, 4, 4]], ["video"]),
        (s.qwen2, QWEN2_SRC, "Qwen2-VL, images 1 x 2 x 2 and 1 x 4 x 6", [[1, 2, 2], [1, 4, 6]],
         ["several_images", "non_square_grid"]),
        (s.qwen2, QWEN2_SRC, "Qwen2-VL, 448 x 448 image (1 x 32 x 32)", [[1, 32, 32]],
         ["real_checkpoint"]),
        (s.qwen25, QWEN25_SRC, "Qwen2.5-VL, image 1 x 8 x 12 and video 2 x 6 x 4",
         [[1, 8, 12], [2, 6, 4]], ["qwen2_5_vl", "several_images", "video", "non_square_grid"]),
    )
    for family, src, comment, grid, flags in qwen:
        cls = "Qwen2VisionTransformerPretrainedModel" if family is s.qwen2 else \
            "Qwen2_5_VisionTransformerPretrainedModel"
        flags = (["qwen2_vl"] if family is s.qwen2 else []) + ["merge_windows"] + flags
        vf.add_test("rope2d.index", comment, flags, famgen.source(src, cls + ".rot_pos_emb"),
                    {"scheme": "merge_windows", "spatial_merge_size": 2}, {},
                    {"grid_thw": vf.tensor(np.asarray(grid, dtype=np.int64), "i64")},
                    {"positions": vf.tensor(qwen_index(s, family, grid), "i64")})
    pixtral = (
        ("Pixtral-12B, image 4 x 6 patches", [(4, 6)], ["non_square_grid"]),
        ("Pixtral-12B, image 6 x 4 patches", [(6, 4)], ["non_square_grid"]),
        ("Pixtral-12B, images 3 x 5 and 2 x 2 patches", [(3, 5), (2, 2)], ["several_images"]),
        ("Pixtral-12B, 1024 x 1024 image (64 x 64 patches)", [(64, 64)], ["real_checkpoint"]),
    )
    for comment, hw, flags in pixtral:
        _, positions, _, _ = pixtral_forward(s, hw, 16)
        grid = np.asarray([[1, h, w] for h, w in hw], dtype=np.int64)
        vf.add_test("rope2d.index", comment, ["pixtral"] + flags,
                    famgen.source(PIXTRAL_SRC, "position_ids_in_meshgrid"),
                    {"scheme": "row_major", "spatial_merge_size": 1}, {},
                    {"grid_thw": vf.tensor(grid, "i64")}, {"positions": vf.tensor(positions, "i64")})
    llama4 = (
        ("Llama 4 Scout, one 336 x 336 tile (24 x 24 patches and the class token)", 336, 1,
         ["real_checkpoint"]),
        ("Llama 4, two 56 x 56 tiles (4 x 4 patches and a class token each)", 56, 2,
         ["several_images"]),
    )
    for comment, size, tiles, flags in llama4:
        side = size // LLAMA4_SCOUT["patch_size"]
        grid = np.asarray([[1, side, side]] * tiles, dtype=np.int64)
        vf.add_test("rope2d.index", comment, ["llama4", "class_token"] + flags,
                    famgen.source(LLAMA4_SRC, "Llama4VisionRotaryEmbedding.__init__"),
                    {"scheme": "row_major_cls", "spatial_merge_size": 1}, {},
                    {"grid_thw": vf.tensor(grid, "i64")},
                    {"positions": vf.tensor(llama4_index(s, size, tiles), "i64")})
    # After the others, so that their tcIds and payload offsets stay as they were.
    windows = (
        ("Qwen2.5-VL, image 1 x 12 x 16 in window order (6 x 8 merge units: ragged windows)",
         [[1, 12, 16]], 112, False, ["non_square_grid"]),
        ("Qwen2.5-VL, image 1 x 8 x 8 in window order (one window: merge order)", [[1, 8, 8]], 112, True, []),
        ("Qwen2.5-VL, video 2 x 10 x 18 and image 1 x 16 x 16 in window order", [[2, 10, 18], [1, 16, 16]],
         112, False, ["video", "several_images", "non_square_grid"]),
        ("Qwen2.5-VL, strip 1 x 4 x 60 in window order (2 x 30 merge units)", [[1, 4, 60]], 112, False,
         ["non_square_grid"]),
        ("Qwen2.5-VL, 448 x 448 image (1 x 32 x 32) in window order", [[1, 32, 32]], 112, False,
         ["real_checkpoint"]),
        # Synthetic: window_size 56 (2 x 2 merge units per window); no released checkpoint uses it.
        ("Qwen2.5-VL, image 1 x 12 x 16 in window order, window_size 56 (synthetic)", [[1, 12, 16]], 56, False,
         ["non_square_grid"]),
    )
    for comment, grid, window_size, same, flags in windows:
        units, positions = qwen_window_index(s, grid, comment, window_size, same)
        vf.add_test("rope2d.index", comment, ["qwen2_5_vl", "merge_windows", "window_order"] + flags,
                    famgen.source(QWEN25_SRC, "Qwen2_5_VisionTransformerPretrainedModel.forward "
                                              "(get_window_index) + apply_rotary_pos_emb_vision, "
                                              "positions read back"),
                    {"scheme": "attention_windows", "spatial_merge_size": 2, "window_units": units}, {},
                    {"grid_thw": vf.tensor(np.asarray(grid, dtype=np.int64), "i64")},
                    {"positions": vf.tensor(positions, "i64")})


def add_apply(vf, comment, flags, src, config, pairing, positions, x, out):
    vf.add_test("rope2d.apply", comment, flags, src, config, {"pairing": pairing},
                {"positions": vf.tensor(positions, "i64"), "x": vf.tensor(x, "f32")},
                {"out": vf.tensor(out, "f32")})


def build_apply(s, vf):
    blocks = {"frequencies": "blocks", "columns_first": False, "theta": 10000.0}
    qwen = (
        (s.qwen2, QWEN2_SRC, "Qwen2-VL-7B vision, image 1 x 4 x 6", [[1, 4, 6]], ["non_square_grid"]),
        (s.qwen2, QWEN2_SRC, "Qwen2-VL-7B vision, video 2 x 4 x 4", [[2, 4, 4]], ["video"]),
        (s.qwen2, QWEN2_SRC, "Qwen2-VL-7B vision, 224 x 224 image (1 x 16 x 16)", [[1, 16, 16]], []),
        (s.qwen25, QWEN25_SRC, "Qwen2.5-VL-7B vision, image 1 x 12 x 16 in window order",
         [[1, 12, 16]], ["qwen2_5_vl", "window_order", "non_square_grid"]),
    )
    for family, src, comment, grid, flags in qwen:
        positions, x, out = qwen_apply(s, family, grid, 80, comment)
        fn = "Qwen2VisionTransformerPretrainedModel.forward" if family is s.qwen2 else \
            "Qwen2_5_VisionTransformerPretrainedModel.forward"
        flags = (["qwen2_vl"] if family is s.qwen2 else []) + ["merge_windows", "real_checkpoint"] + flags
        add_apply(vf, comment, flags, famgen.source(src, fn + " + apply_rotary_pos_emb_vision"),
                  dict(blocks, head_dim=80), "split_half", positions, x, out)
    pixtral = (
        ("Pixtral-12B vision, image 4 x 6 patches", [(4, 6)], ["non_square_grid"]),
        ("Pixtral-12B vision, images 3 x 5 and 2 x 2 patches", [(3, 5), (2, 2)], ["several_images"]),
        ("Pixtral-12B vision, image 12 x 16 patches", [(12, 16)], ["non_square_grid"]),
    )
    for comment, hw, flags in pixtral:
        positions, x, out = pixtral_apply(s, hw, 64, comment)
        add_apply(vf, comment, ["pixtral", "real_checkpoint"] + flags,
                  famgen.source(PIXTRAL_SRC, "PixtralRotaryEmbedding.forward + apply_rotary_pos_emb"),
                  {"frequencies": "alternate", "columns_first": False, "head_dim": 64,
                   "theta": PIXTRAL_12B["rope_theta"]}, "split_half", positions, x, out)
    llama4 = (
        ("Llama 4 Scout vision, one 336 x 336 tile", 336, 1, ["real_checkpoint"]),
        ("Llama 4 vision, two 56 x 56 tiles", 56, 2, ["several_images"]),
    )
    for comment, size, tiles, flags in llama4:
        positions, x, out = llama4_apply(s, size, tiles, 88, comment)
        add_apply(vf, comment, ["llama4", "class_token"] + flags,
                  famgen.source(LLAMA4_SRC, "Llama4VisionRotaryEmbedding + vision_apply_rotary_emb"),
                  {"frequencies": "blocks", "columns_first": True, "head_dim": 88,
                   "theta": LLAMA4_SCOUT["rope_theta"]}, "interleaved", positions, x, out)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "rope2d", {"--transformers": "transformers checkout (v4.57.6)"})
    s = Sources(hfref.Reference(args.transformers))
    return famgen.build_and_finish(args.out, "rope2d", GENERATOR, NOTES, (
        ("index", "2-D vision RoPE patch positions (Qwen2-VL rot_pos_emb, Pixtral "
                  "position_ids_in_meshgrid, Llama 4 Llama4VisionRotaryEmbedding)", s.prov,
         lambda vf: build_index(s, vf)),
        ("apply", "2-D vision RoPE rotation, recorded from each vision tower's forward", s.prov,
         lambda vf: build_apply(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
