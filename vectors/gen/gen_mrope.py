#!/usr/bin/python3
"""Generate pecert's M-RoPE (Qwen2-VL, Qwen3-VL) vectors from transformers v4.57.6.

    /usr/bin/python3 vectors/gen/gen_mrope.py --transformers PATH --out vectors/mrope

Source: huggingface/transformers v4.57.6, src/transformers/models/qwen2_vl/modeling_qwen2_vl.py
  index  Qwen2VLModel.get_rope_index(input_ids, image_grid_thw, video_grid_thw,
         attention_mask), called on a (tiny) Qwen2VLModel built from a Qwen2VLConfig with
         Qwen2-VL's token ids and spatial_merge_size 2; grids None when a test has none
  apply  Qwen2VLRotaryEmbedding.forward (cos/sin per axis) + apply_multimodal_rotary_pos_emb
         with mrope_section, on position ids that get_rope_index produced
  apply_interleaved  src/transformers/models/qwen3_vl/modeling_qwen3_vl.py:
         Qwen3VLTextRotaryEmbedding.forward (apply_interleaved_mrope) + apply_rotary_pos_emb,
         on the same position ids

Token sequences follow the chat template's layout: <|vision_start|>, then t*h*w /
merge^2 <|image_pad|> (or <|video_pad|>) tokens, then <|vision_end|>.  Text tokens are
arbitrary ids.  Left-padded rows use attention_mask 0 on the padding.  The apply vectors
move tensors between the model's [B, H, S, D] and FORMAT.md's [T, H, D] (pure indexing),
with positions [3, T].
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_mrope.py"
IMAGE, VIDEO, START, END = 151655, 151656, 151652, 151653
MERGE = 2

NOTES = famgen.notes_table("""
text_only        FUNCTIONALITY       No image or video: the text-only branch, the three axes equal
                                     plain positions.
image            FUNCTIONALITY       One image: its merged patches get (0, row, column) offsets.
non_square_grid  EDGE_CASE           Image grid h != w: the height and width axes must not be
                                     swapped.
video            FUNCTIONALITY       A video: temporal index t on the first axis.
several_images   FUNCTIONALITY       Several images in one sequence: each starts after the largest
                                     position so far.
image_and_video  FUNCTIONALITY       An image and a video in one sequence.
left_padding     EDGE_CASE           Left-padded batch: padding gets position 1, the rows' images
                                     are taken in order from image_grid_thw.
deltas_quirk     REFERENCE_QUIRK     Text-only branch with a mask: the deltas count padding's
                                     position 1 in the maximum (a row with one real token gets 2 -
                                     S, not 1 - S).
real_checkpoint  FUNCTIONALITY       Qwen2-VL-7B / 2B text config: head_dim 128, rope_theta 1e6,
                                     mrope_section [16, 24, 24]; a 448 x 448 image (grid 1 x 32 x
                                     32).
synthetic        MODIFIED_PARAMETER  A head size and sections no released model uses.
interleaved      FUNCTIONALITY       Qwen3-VL's interleaved sections
                                     (Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope): frequency
                                     i on axis i mod 3 within three times each section, not in
                                     blocks.
batch            FUNCTIONALITY       Several sequences flattened to tokens.
""")


def image_tokens(t, h, w, kind=IMAGE):
    return [START] + [kind] * (t * h * w // (MERGE * MERGE)) + [END]


def text(n, first=100):
    return list(range(first, first + n))


class Sources:
    def __init__(self, args):
        self.hf = hfref.Reference(args.transformers)
        self.torch = self.hf.torch
        from transformers.models.qwen2_vl import configuration_qwen2_vl, modeling_qwen2_vl
        self.m = modeling_qwen2_vl
        self.cfg_mod = configuration_qwen2_vl
        cfg = configuration_qwen2_vl.Qwen2VLConfig(
            text_config=dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                             num_key_value_heads=2, intermediate_size=32, vocab_size=32,
                             rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]}),
            vision_config=dict(depth=1, embed_dim=16, num_heads=2, hidden_size=32, mlp_ratio=1,
                               spatial_merge_size=MERGE),
            image_token_id=IMAGE, video_token_id=VIDEO, vision_start_token_id=START)
        self.model = modeling_qwen2_vl.Qwen2VLModel(cfg).eval()
        packages = refsrc.packages(self.torch)
        packages["transformers"] = self.hf.transformers.__version__
        self.prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                     "packages": packages}

    def rope_index(self, rows, images, videos, left_pad=True):
        """Pads the rows (left), runs get_rope_index, returns numpy arrays."""
        torch = self.torch
        s = max(len(r) for r in rows)
        ids = [[0] * (s - len(r)) + r if left_pad else r for r in rows]
        mask = [[0] * (s - len(r)) + [1] * len(r) for r in rows]
        ids_t = torch.tensor(ids, dtype=torch.int64)
        mask_t = torch.tensor(mask, dtype=torch.int64)
        img = torch.tensor(images, dtype=torch.int64) if images else None
        vid = torch.tensor(videos, dtype=torch.int64) if videos else None
        with torch.no_grad():
            pos, deltas = self.model.get_rope_index(ids_t, img, vid, mask_t)
        return (np.asarray(ids), np.asarray(mask), np.asarray(images, dtype=np.int64).reshape(-1, 3),
                np.asarray(videos, dtype=np.int64).reshape(-1, 3), pos.numpy(),
                deltas.numpy().reshape(-1))


INDEX_CASES = (
    ("text only, 6 tokens", [text(6)], [], [], ["text_only"]),
    ("text only, left-padded batch (lengths 5, 3, 1)", [text(5), text(3), text(1)], [], [],
     ["text_only", "left_padding", "batch", "deltas_quirk"]),
    ("one image, grid 1 x 4 x 6", [text(3) + image_tokens(1, 4, 6) + text(4)], [[1, 4, 6]], [],
     ["image", "non_square_grid"]),
    ("one image, grid 1 x 6 x 4", [text(2) + image_tokens(1, 6, 4) + text(2)], [[1, 6, 4]], [],
     ["image", "non_square_grid"]),
    ("one image, grid 1 x 4 x 4, sequence starts with it", [image_tokens(1, 4, 4) + text(3)],
     [[1, 4, 4]], [], ["image"]),
    ("448 x 448 image (grid 1 x 32 x 32)", [text(4) + image_tokens(1, 32, 32) + text(6)],
     [[1, 32, 32]], [], ["image", "real_checkpoint"]),
    ("one video, grid 2 x 4 x 4", [text(2) + image_tokens(2, 4, 4, VIDEO) + text(3)], [],
     [[2, 4, 4]], ["video"]),
    ("one video, grid 3 x 2 x 6", [text(1) + image_tokens(3, 2, 6, VIDEO) + text(2)], [],
     [[3, 2, 6]], ["video", "non_square_grid"]),
    ("two images with text between",
     [text(2) + image_tokens(1, 2, 2) + text(3) + image_tokens(1, 4, 6) + text(2)],
     [[1, 2, 2], [1, 4, 6]], [], ["several_images", "non_square_grid"]),
    ("image then video", [text(1) + image_tokens(1, 4, 4) + text(2) + image_tokens(2, 2, 4, VIDEO)
                          + text(1)], [[1, 4, 4]], [[2, 2, 4]], ["image_and_video"]),
    ("video then image", [image_tokens(2, 2, 2, VIDEO) + text(2) + image_tokens(1, 2, 4)],
     [[1, 2, 4]], [[2, 2, 2]], ["image_and_video"]),
    ("left-padded batch: image row and text-only row",
     [text(2) + image_tokens(1, 4, 6) + text(2), text(4)], [[1, 4, 6]], [],
     ["image", "left_padding", "batch"]),
    ("batch of two image rows, images taken in order",
     [text(1) + image_tokens(1, 2, 4) + text(1), text(2) + image_tokens(1, 4, 4)],
     [[1, 2, 4], [1, 4, 4]], [], ["several_images", "left_padding", "batch"]),
)


def build_index(s, vf):
    cfg = {"spatial_merge_size": MERGE, "image_token_id": IMAGE, "video_token_id": VIDEO,
           "vision_start_token_id": START}
    src = famgen.source("src/transformers/models/qwen2_vl/modeling_qwen2_vl.py",
                        "Qwen2VLModel.get_rope_index")
    for comment, rows, images, videos, flags in INDEX_CASES:
        ids, mask, img, vid, pos, deltas = s.rope_index(rows, images, videos)
        vf.add_test("mrope.index", comment, flags, src, cfg, {},
                    {"input_ids": vf.tensor(ids, "i64"), "attention_mask": vf.tensor(mask, "i64"),
                     "image_grid_thw": vf.tensor(img, "i64"),
                     "video_grid_thw": vf.tensor(vid, "i64")},
                    {"position_ids": vf.tensor(pos, "i64"), "deltas": vf.tensor(deltas, "i64")})


# Qwen2-VL text configs for the apply vectors.
QWEN2VL_7B = dict(hidden_size=3584, num_attention_heads=28, num_key_value_heads=4,
                  rope_theta=1000000.0, max_position_embeddings=32768, section=[16, 24, 24])
QWEN2VL_2B = dict(hidden_size=1536, num_attention_heads=12, num_key_value_heads=2,
                  rope_theta=1000000.0, max_position_embeddings=32768, section=[16, 24, 24])
SMALL = dict(hidden_size=32, num_attention_heads=2, num_key_value_heads=2, rope_theta=10000.0,
             max_position_embeddings=4096, section=[2, 3, 3])


def record_apply(s, vf, src, cases, rotate, seed_prefix):
    """One mrope.apply test per case: the case's position ids (from get_rope_index),
    seeded x, and rotate(preset, section, q, pos) -> (text config, q rotated) by the
    model's own classes; tensors moved between [B, H, S, D] and [T, H, D]."""
    torch = s.torch
    for preset, heads, comment, index_case, flags in cases:
        preset = dict(preset)
        section = preset.pop("section")
        _, rows, images, videos, _ = index_case
        _, _, _, _, pos, _ = s.rope_index(rows, images, videos)
        b, seq = pos.shape[1], pos.shape[2]
        head_dim = preset.get("head_dim", preset["hidden_size"] // preset["num_attention_heads"])
        x = famgen.seeded_normal(f"{seed_prefix} {comment}", (b * seq, heads, head_dim))
        q = torch.from_numpy(x).reshape(b, seq, heads, head_dim).transpose(1, 2)  # [B, H, S, D]
        with torch.no_grad():
            text_cfg, out = rotate(preset, section, q, torch.from_numpy(pos))
        out = out.transpose(1, 2).reshape(b * seq, heads, head_dim).contiguous().numpy()
        config = {"rope_type": "default", "rope_theta": text_cfg.rope_theta, "head_dim": head_dim,
                  "rotary_dim": head_dim,
                  "max_position_embeddings": text_cfg.max_position_embeddings,
                  "mrope_section": list(section)}
        if getattr(text_cfg, "rope_scaling", {}).get("mrope_interleaved"):
            config["mrope_interleaved"] = True
        vf.add_test("mrope.apply", comment, flags, src, config,
                    {"seq_len": 0, "pairing": "split_half"},
                    {"positions": vf.tensor(pos.reshape(3, b * seq), "i64"),
                     "x": vf.tensor(x, "f32")},
                    {"out": vf.tensor(out, "f32")})


def build_apply(s, vf):
    src = famgen.source("src/transformers/models/qwen2_vl/modeling_qwen2_vl.py",
                        "apply_multimodal_rotary_pos_emb")
    cases = (
        (QWEN2VL_7B, 2, "Qwen2-VL-7B, one image 1 x 4 x 6", INDEX_CASES[2], ["image", "real_checkpoint"]),
        (QWEN2VL_7B, 1, "Qwen2-VL-7B, text only", INDEX_CASES[0], ["text_only", "real_checkpoint"]),
        (QWEN2VL_2B, 2, "Qwen2-VL-2B, video 2 x 4 x 4", INDEX_CASES[6], ["video", "real_checkpoint"]),
        (QWEN2VL_2B, 1, "Qwen2-VL-2B, left-padded image and text rows", INDEX_CASES[11],
         ["image", "left_padding", "batch", "real_checkpoint"]),
        (SMALL, 3, "head 16, sections 2/3/3, image then video", INDEX_CASES[9],
         ["image_and_video", "synthetic"]),
    )

    def rotate(preset, section, q, pos):
        text_cfg = s.cfg_mod.Qwen2VLTextConfig(
            num_hidden_layers=1, intermediate_size=64, vocab_size=32,
            rope_scaling={"type": "mrope", "mrope_section": list(section)}, **preset)
        cos, sin = s.m.Qwen2VLRotaryEmbedding(config=text_cfg)(q, pos)
        return text_cfg, s.m.apply_multimodal_rotary_pos_emb(q, q, cos, sin, list(section))[0]

    record_apply(s, vf, src, cases, rotate, "mrope apply")


# Qwen3-VL text configs for the interleaved apply vectors: Qwen3-VL-4B-Instruct's
# text_config (kohya-ss/musubi-tuner@7c1cf7275b83d641c87dbbade14aad8abe6c6546,
# src/musubi_tuner/krea2/krea2_encoder.py quotes it), and a small head whose sections
# reach past rotary_dim / 2 when tripled (the slices then stop at the end).
QWEN3VL_4B = dict(hidden_size=2560, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                  rope_theta=5000000.0, max_position_embeddings=262144, section=[24, 20, 20])
QWEN3VL_SMALL = dict(hidden_size=32, num_attention_heads=2, num_key_value_heads=2, head_dim=16,
                     rope_theta=10000.0, max_position_embeddings=4096, section=[2, 3, 3])


def build_apply_interleaved(s, vf):
    """Qwen3VLTextRotaryEmbedding.forward (cos/sin with the axes interleaved) +
    apply_rotary_pos_emb, on position ids that Qwen2-VL's get_rope_index produced (any
    three-axis ids serve: the rotation reads them as given)."""
    from transformers.models.qwen3_vl import configuration_qwen3_vl, modeling_qwen3_vl
    src = famgen.source("src/transformers/models/qwen3_vl/modeling_qwen3_vl.py",
                        "Qwen3VLTextRotaryEmbedding.forward + apply_rotary_pos_emb")
    cases = (
        (QWEN3VL_4B, 2, "Qwen3-VL-4B, one image 1 x 4 x 6", INDEX_CASES[2], ["image", "interleaved"]),
        (QWEN3VL_4B, 1, "Qwen3-VL-4B, text only", INDEX_CASES[0], ["text_only", "interleaved"]),
        (QWEN3VL_4B, 2, "Qwen3-VL-4B, video 2 x 4 x 4", INDEX_CASES[6], ["video", "interleaved"]),
        (QWEN3VL_4B, 1, "Qwen3-VL-4B, 448 x 448 image", INDEX_CASES[5], ["image", "interleaved"]),
        (QWEN3VL_SMALL, 3, "head 16, sections 2/3/3 interleaved, image then video", INDEX_CASES[9],
         ["image_and_video", "interleaved", "synthetic"]),
    )

    def rotate(preset, section, q, pos):
        text_cfg = configuration_qwen3_vl.Qwen3VLTextConfig(
            num_hidden_layers=1, intermediate_size=64, vocab_size=32,
            rope_scaling={"rope_type": "default", "mrope_section": list(section), "mrope_interleaved": True},
            **preset)
        cos, sin = modeling_qwen3_vl.Qwen3VLTextRotaryEmbedding(config=text_cfg)(q, pos)
        return text_cfg, modeling_qwen3_vl.apply_rotary_pos_emb(q, q, cos, sin)[0]

    record_apply(s, vf, src, cases, rotate, "mrope apply interleaved")


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "mrope", {"--transformers": "transformers checkout (v4.57.6)"})
    s = Sources(args)
    return famgen.build_and_finish(args.out, "mrope", GENERATOR, NOTES, (
        ("index", "M-RoPE position ids from Qwen2VLModel.get_rope_index", s.prov,
         lambda vf: build_index(s, vf)),
        ("apply", "M-RoPE apply: Qwen2VLRotaryEmbedding + apply_multimodal_rotary_pos_emb",
         s.prov, lambda vf: build_apply(s, vf)),
        ("apply_interleaved", "Interleaved M-RoPE apply (Qwen3-VL): Qwen3VLTextRotaryEmbedding + "
                              "apply_rotary_pos_emb", s.prov, lambda vf: build_apply_interleaved(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
