#!/usr/bin/python3
"""Re-validate pecert vector files against vectors/FORMAT.md (schema pecert-vectors/1).

    /usr/bin/python3 vectors/gen/check_vectors.py vectors/rope [more dirs or .json files]

It knows the rope.* ops and the other families' ops (FAMILY_OPS, mrope.apply): typed
config/params keys, shapes, cross-key rules, for learned.lookup that the outputs
are exactly the table rows the positions select, and for sine2d.embed that each channel
pair is the sine and cosine of one angle, and for relpos2d.bias that each bias is the sum
of a row term and a column term, and for deberta.relpos / deberta.bias that the relative
positions are FORMAT.md's buckets and the bias its formula (float64, within float32 rounding).

An independent reader: it shares no code with the writer (vecfile.py), so a bug in one is
not silently mirrored by the other.  It checks every key (unknown keys are errors, as in
the C loader), the types and ranges of config and params, every tensor reference (dtype,
shape against the op and the config, offset alignment, nbytes, bounds, crc32, no
overlap), the payload (single zlib stream, exact sizes, crc32) and the limits table.  It
also checks the one exact identity every reference honours: channels past rotary_dim of a
rope.apply output are the input's, bit for bit.  Exit status 0 if all is well.
"""

import json
import math
import os
import re
import sys
import zlib

import numpy as np

SCHEMA = "pecert-vectors/1"
MAX_MANIFEST = 16 * 1024 * 1024
MAX_TESTS = 100000
MAX_NDIM = 8
MAX_ELEMENTS = 1 << 26
MAX_PAYLOAD = 256 * 1024 * 1024

TOP_KEYS = {"schema", "family", "description", "generator", "provenance", "payload", "notes",
            "numberOfTests", "tests"}
PROVENANCE_KEYS = {"repo", "commit", "tag", "packages"}
PAYLOAD_KEYS = {"file", "raw_bytes", "compressed_bytes", "crc32"}
NOTE_KEYS = {"bugType", "description"}
TEST_KEYS = {"tcId", "op", "comment", "flags", "source", "config", "params", "inputs", "outputs"}
SOURCE_KEYS = {"file", "function"}
TENSOR_KEYS = {"dtype", "shape", "offset", "nbytes", "crc32"}
DTYPE_SIZE = {"f32": 4, "f64": 8, "i32": 4, "i64": 8}
DTYPE_NUMPY = {"f32": "<f4", "f64": "<f8", "i32": "<i4", "i64": "<i8"}

ROPE_TYPES = {"default", "linear", "dynamic", "yarn", "longrope", "llama3"}
CONFIG_REQUIRED = {"rope_type": "str", "rope_theta": "num", "head_dim": "int",
                   "rotary_dim": "int", "max_position_embeddings": "int"}
CONFIG_OPTIONAL = {"factor": "num", "original_max_position_embeddings": "int",
                   "top_original_max_position_embeddings": "int", "attention_factor": "num",
                   "beta_fast": "num", "beta_slow": "num", "mscale": "num",
                   "mscale_all_dim": "num", "low_freq_factor": "num", "high_freq_factor": "num",
                   "truncate": "bool", "short_factor": "list", "long_factor": "list"}

# op -> (params with their kind, inputs, outputs)
OPS = {
    "rope.freq": ({"seq_len": "int"}, set(), {"inv_freq", "attention_scaling"}),
    "rope.cos_sin": ({"seq_len": "int"}, {"positions"}, {"cos", "sin"}),
    "rope.apply": ({"seq_len": "int", "pairing": "pairing"}, {"positions", "x"}, {"out"}),
}
PAIRINGS = {"split_half", "interleaved"}

# The other families (FORMAT.md, "Other families"): typed keys of config and
# params, and a function giving each tensor's allowed dtypes and shape from the
# keys and the tensors read so far.  Key kinds: ("int", lo, hi), ("num", bound:
# 0 any, 1 > 0, 2 > 1), ("bool",), ("enum", choices), ("ints", lo, hi, max_len);
# a trailing False marks an optional key.
JSON_INT = (1 << 53) - 1
F = ("f32", "f64")
# sine2d.embed's config.module: the transformers class a vector was recorded from.
SINE2D_MODULES = ("DetrSinePositionEmbedding", "ConditionalDetrSinePositionEmbedding",
                  "TableTransformerSinePositionEmbedding", "DeformableDetrSinePositionEmbedding",
                  "DetaSinePositionEmbedding", "GroundingDinoSinePositionEmbedding",
                  "MMGroundingDinoSinePositionEmbedding", "DabDetrSinePositionEmbedding",
                  "MaskFormerSinePositionEmbedding", "Mask2FormerSinePositionEmbedding",
                  "OneFormerSinePositionEmbedding", "Sam2SinePositionEmbedding")
# relpos2d.bias's config.module: the class (or function) a vector was recorded from.
RELPOS2D_MODULES = ("SamVisionAttention", "SamHQVisionAttention", "VitDetAttention", "SegGptAttention",
                    "segment_anything")
# deberta.bias: which terms the attention adds, and the module (v2/v3, v1) it was recorded from.
DEBERTA_TERMS = ("c2p", "p2c", "c2p|p2c")
DEBERTA_MODULES = ("DebertaV2", "Deberta")
# deberta.*: bucket_size <= 0 means no buckets (the positive range and evenness are checked in
# check_deberta_config).
DEBERTA_CONFIG = {"bucket_size": ("int", -JSON_INT, 65536), "max_position": ("int", 2, 65536)}


def _dims(arr, name, k):
    a = arr.get(name)
    return None if a is None or a.ndim <= k else a.shape[k]


def _alibi_shapes(c, p, a):
    return {"q_positions": (("i64",), [_dims(a, "q_positions", 0)]),
            "k_positions": (("i64",), [_dims(a, "k_positions", 0)]),
            "bias": (F, [c["num_heads"], _dims(a, "q_positions", 0), _dims(a, "k_positions", 0)])}


def _mrope_index_shapes(c, p, a):
    b, s = _dims(a, "input_ids", 0), _dims(a, "input_ids", 1)
    return {"input_ids": (("i64",), [b, s]), "attention_mask": (("i64",), [b, s]),
            "image_grid_thw": (("i64",), [_dims(a, "image_grid_thw", 0), 3]),
            "video_grid_thw": (("i64",), [_dims(a, "video_grid_thw", 0), 3]),
            "position_ids": (("i64",), [3, b, s]), "deltas": (("i64",), [b])}


def _rope2d_tokens(c, a):
    g = a.get("grid_thw")
    if g is None or g.ndim != 2 or g.shape[1] != 3:
        return None
    cls = g.shape[0] if c["scheme"] == "row_major_cls" else 0
    return int(np.prod(g, axis=1).sum()) + cls


def _rope2d_apply_shapes(c, p, a):
    t, h = _dims(a, "x", 0), _dims(a, "x", 1)
    return {"positions": (("i64",), [2, t]), "x": (("f32",), [t, h, c["head_dim"]]),
            "out": (("f32",), [t, h, c["head_dim"]])}


def _relpos2d_shapes(c, p, a):
    n, ch = _dims(a, "query", 0), _dims(a, "query", 2)
    return {"query": (("f32",), [n, c["q_h"] * c["q_w"], ch]),
            "rel_pos_h": (("f32",), [_dims(a, "rel_pos_h", 0), ch]),
            "rel_pos_w": (("f32",), [_dims(a, "rel_pos_w", 0), ch]),
            "bias": (("f32",), [n, c["q_h"] * c["q_w"], c["k_h"] * c["k_w"]])}


def _deberta_span(c):
    return c["bucket_size"] if c["bucket_size"] > 0 else c["max_position"]


def _deberta_bias_inputs(c):
    """deberta.bias's inputs: q, k and both tables (a term not asked for leaves its table
    unread)."""
    return {"q", "k", "pos_key", "pos_query"}


def _deberta_read_tables(c):
    """The tables the terms read."""
    terms = c.get("terms") if isinstance(c, dict) else None
    terms = terms.split("|") if terms in DEBERTA_TERMS else []
    return ({"pos_key"} if "c2p" in terms else set()) | ({"pos_query"} if "p2c" in terms else set())


def _deberta_bias_shapes(c, p, a):
    n, length, d = _dims(a, "q", 0), _dims(a, "q", 1), _dims(a, "q", 2)
    heads = _dims(a, "pos_key", 0) if a.get("pos_key") is not None else _dims(a, "pos_query", 0)
    table = [heads, 2 * _deberta_span(c), d]
    return {"q": (("f32",), [n, length, d]), "k": (("f32",), [n, length, d]),
            "pos_key": (("f32",), table), "pos_query": (("f32",), table),
            "bias": (("f32",), [n, length, length])}


def _cope_shapes(c, p, a):
    n_q, n_k, d = _dims(a, "q", 0), _dims(a, "k", 0), _dims(a, "q", 1)
    return {"q": (("f32",), [n_q, d]), "k": (("f32",), [n_k, d]), "gate_k": (("f32",), [n_k, d]),
            "pos_emb": (("f32",), [d, c["npos"]]), "mask": (("f32",), [n_q, n_k]),
            "positions": (F, [n_q, n_k]), "logits": (F, [n_q, n_k])}


FAMILY_OPS = {
    "alibi.slopes": (
        {"num_heads": ("int", 1, 65536), "max_bias": ("num", 1), "bias_scale": ("num", 1, False)}, {},
        set(), {"slopes"},
        lambda c, p, a: {"slopes": (F, [c["num_heads"]])}),
    "alibi.bias": (
        {"num_heads": ("int", 1, 65536), "max_bias": ("num", 1), "bias_scale": ("num", 1, False)},
        {"symmetric": ("bool",)},
        {"q_positions", "k_positions"}, {"bias"}, _alibi_shapes),
    "t5.bucket": (
        {"bidirectional": ("bool",), "num_buckets": ("int", 2, 1 << 20),
         "max_distance": ("int", 1, JSON_INT)}, {},
        {"relative_position"}, {"bucket"},
        lambda c, p, a: {"relative_position": (("i64",), [_dims(a, "relative_position", 0)]),
                         "bucket": (("i64",), [_dims(a, "relative_position", 0)])}),
    "sinusoidal.embed": (
        {"variant": ("enum", ("interleaved", "concat", "t2t", "fairseq")),
         "dim": ("int", 1, 1 << 16), "base": ("num", 2),
         "padding_idx": ("int", 0, (1 << 31) - 1, False)}, {},
        {"positions"}, {"embedding"},
        lambda c, p, a: {"positions": (("i64",), [_dims(a, "positions", 0)]),
                         "embedding": (F, [_dims(a, "positions", 0), c["dim"]])}),
    "learned.lookup": (
        {"convention": ("enum", ("plain", "padding_offset")),
         "padding_idx": ("int", 0, (1 << 31) - 1, False)}, {},
        {"table", "positions"}, {"embedding"},
        lambda c, p, a: {"table": (("f32",), [_dims(a, "table", 0), _dims(a, "table", 1)]),
                         "positions": (("i64",), [_dims(a, "positions", 0)]),
                         "embedding": (("f32",), [_dims(a, "positions", 0),
                                                  _dims(a, "table", 1)])}),
    "sincos2d.embed": (
        {"embed_dim": ("int", 4, 1 << 16), "grid_h": ("int", 1, 1 << 16),
         "grid_w": ("int", 1, 1 << 16), "cls_token": ("bool",), "base": ("num", 2),
         "layout": ("enum", ("mae", "rt_detr"), False)}, {},
        set(), {"embedding"},
        lambda c, p, a: {"embedding": (F, [int(c["cls_token"]) + c["grid_h"] * c["grid_w"],
                                           c["embed_dim"]])}),
    "swin.index": (
        {"window_h": ("int", 1, 1 << 12), "window_w": ("int", 1, 1 << 12)}, {},
        set(), {"index"},
        lambda c, p, a: {"index": (("i64",), [c["window_h"] * c["window_w"]] * 2)}),
    "shaw.index": (
        {"max_relative_position": ("int", 0, JSON_INT)}, {},
        {"q_positions", "k_positions"}, {"index"},
        lambda c, p, a: {"q_positions": (("i64",), [_dims(a, "q_positions", 0)]),
                         "k_positions": (("i64",), [_dims(a, "k_positions", 0)]),
                         "index": (("i64",), [_dims(a, "q_positions", 0),
                                              _dims(a, "k_positions", 0)])}),
    "txl.pos_emb": (
        {"d_model": ("int", 2, 1 << 16), "clamp_len": ("int", -JSON_INT, JSON_INT)},
        {"klen": ("int", 0, 1 << 24)},
        set(), {"pos_emb"},
        lambda c, p, a: {"pos_emb": (F, [p["klen"], c["d_model"]])}),
    "txl.rel_shift": (
        {}, {"zero_triu": ("bool",)},
        {"x"}, {"out"},
        lambda c, p, a: {"x": (("f32",), [_dims(a, "x", k) for k in range(3)]),
                         "out": (("f32",), [_dims(a, "x", k) for k in range(3)])}),
    "mrope.index": (
        {"spatial_merge_size": ("int", 1, 64), "image_token_id": ("int", 0, JSON_INT),
         "video_token_id": ("int", 0, JSON_INT), "vision_start_token_id": ("int", 0, JSON_INT)},
        {}, {"input_ids", "attention_mask", "image_grid_thw", "video_grid_thw"},
        {"position_ids", "deltas"}, _mrope_index_shapes),
    "rope2d.index": (
        {"scheme": ("enum", ("merge_windows", "attention_windows", "row_major", "row_major_cls")),
         "spatial_merge_size": ("int", 1, 64), "window_units": ("int", 1, 64, False)}, {},
        {"grid_thw"}, {"positions"},
        lambda c, p, a: {"grid_thw": (("i64",), [_dims(a, "grid_thw", 0), 3]),
                         "positions": (("i64",), [2, _rope2d_tokens(c, a)])}),
    "rope2d.apply": (
        {"frequencies": ("enum", ("blocks", "alternate")), "columns_first": ("bool",),
         "head_dim": ("int", 4, 1 << 16), "theta": ("num", 2)},
        {"pairing": ("enum", ("split_half", "interleaved"))},
        {"positions", "x"}, {"out"}, _rope2d_apply_shapes),
    "posinterp.resize": (
        {"mode": ("enum", ("bicubic", "bilinear")), "align_corners": ("bool",), "antialias": ("bool",),
         "prefix_tokens": ("int", 0, 64), "merge_size": ("int", 1, 64),
         "grid_h": ("int", 1, 4096), "grid_w": ("int", 1, 4096), "out_h": ("int", 1, 4096),
         "out_w": ("int", 1, 4096), "scale_h": ("num", 0), "scale_w": ("num", 0)}, {},
        {"table"}, {"out"},
        lambda c, p, a: {"table": (("f32",), [c["prefix_tokens"] + c["grid_h"] * c["grid_w"], _dims(a, "table", 1)]),
                         "out": (("f32",), [c["prefix_tokens"] + c["out_h"] * c["out_w"], _dims(a, "table", 1)])}),
    "cope.logits": (
        {"npos": ("int", 1, 1 << 20), "nodiv": ("bool",), "masked": ("bool",),
         "gates": ("enum", ("keys", "sep_key", "values"))}, {},
        {"q", "k", "gate_k", "pos_emb", "mask"}, {"positions", "logits"}, _cope_shapes),
    "peg.apply": (
        {"prefix_tokens": ("int", 0, 64), "grid_h": ("int", 1, 4096), "grid_w": ("int", 1, 4096),
         "kernel": ("int", 1, 31)}, {},
        {"x", "weight", "bias"}, {"out"},
        lambda c, p, a: {"x": (("f32",), [c["prefix_tokens"] + c["grid_h"] * c["grid_w"], _dims(a, "x", 1)]),
                         "weight": (("f32",), [_dims(a, "x", 1), c["kernel"], c["kernel"]]),
                         "bias": (("f32",), [_dims(a, "x", 1)]),
                         "out": (F, [c["prefix_tokens"] + c["grid_h"] * c["grid_w"], _dims(a, "x", 1)])}),
    "sine2d.embed": (
        {"num_pos_feats": ("int", 2, 8192), "normalize": ("bool",), "temperature_y": ("num", 1),
         "temperature_x": ("num", 1), "scale": ("num", 0), "offset": ("num", 0), "eps": ("num", 1),
         "h": ("int", 1, 16384), "w": ("int", 1, 16384), "module": ("enum", SINE2D_MODULES)}, {},
        {"mask"}, {"embedding"},
        lambda c, p, a: {"mask": (("i32",), [c["h"], c["w"]]),
                         "embedding": (("f32",), [c["h"] * c["w"], 2 * c["num_pos_feats"]])}),
    "relpos2d.bias": (
        {"q_h": ("int", 1, 4096), "q_w": ("int", 1, 4096), "k_h": ("int", 1, 4096), "k_w": ("int", 1, 4096),
         "module": ("enum", RELPOS2D_MODULES)}, {},
        {"query", "rel_pos_h", "rel_pos_w"}, {"bias"}, _relpos2d_shapes),
    "deberta.relpos": (
        dict(DEBERTA_CONFIG, q_len=("int", 1, 65536), k_len=("int", 1, 65536)), {},
        set(), {"relative_pos"},
        lambda c, p, a: {"relative_pos": (("i64",), [c["q_len"], c["k_len"]])}),
    # inputs: q, k and, by config.terms, pos_key / pos_query (_deberta_bias_inputs).
    "deberta.bias": (
        dict(DEBERTA_CONFIG, terms=("enum", DEBERTA_TERMS), module=("enum", DEBERTA_MODULES)), {},
        {"q", "k", "pos_key", "pos_query"}, {"bias"}, _deberta_bias_shapes),
}


# Outputs whose -inf is a value: CoPE's logits of masked keys (check_cope_semantics
# holds them to exactly the masked places).
NEG_INF_OK = {("cope.logits", "logits")}


class Problems:
    def __init__(self, where):
        self.where = where
        self.items = []

    def add(self, field, message):
        self.items.append(f"{self.where}: {field}: {message}")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (is_int(v) or isinstance(v, float)) and math.isfinite(v)


def kind_ok(value, kind):
    if kind == "int":
        return is_int(value)
    if kind == "num":
        return is_num(value)
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list) and all(is_num(v) for v in value)
    if kind == "pairing":
        return value in PAIRINGS
    raise ValueError(kind)


def exact_keys(p, field, obj, allowed, required=None):
    """obj must be a dict with no key outside `allowed` and every key of `required`."""
    if not isinstance(obj, dict):
        p.add(field, "not an object")
        return False
    required = allowed if required is None else required
    for k in sorted(set(obj) - allowed):
        p.add(field, f"unknown key {k!r}")
    for k in sorted(required - set(obj)):
        p.add(field, f"missing key {k!r}")
    return not (set(obj) - allowed) and not (required - set(obj))


def load_json(path):
    """Parse strictly: duplicate keys and NaN/Infinity literals are errors."""
    def no_duplicates(pairs):
        obj = {}
        for k, v in pairs:
            if k in obj:
                raise ValueError(f"duplicate key {k!r}")
            obj[k] = v
        return obj

    def no_constants(name):
        raise ValueError(f"non-finite literal {name}")

    with open(path, "rb") as fh:
        text = fh.read()
    return len(text), json.loads(text.decode("utf-8"), object_pairs_hook=no_duplicates,
                                 parse_constant=no_constants)


def read_payload(p, manifest_path, payload):
    """Decompress and check the payload; return its bytes or None."""
    if not exact_keys(p, "payload", payload, PAYLOAD_KEYS):
        return None
    name = payload["file"]
    expected = os.path.basename(manifest_path)[:-len(".json")] + ".bin.z"
    if name != expected:
        p.add("payload.file", f"{name!r}, expected {expected!r}")
        return None
    path = os.path.join(os.path.dirname(manifest_path), name)
    try:
        with open(path, "rb") as fh:
            compressed = fh.read()
    except OSError as e:
        p.add("payload.file", str(e))
        return None
    if payload["compressed_bytes"] != len(compressed):
        p.add("payload.compressed_bytes", f"{payload['compressed_bytes']} != file size {len(compressed)}")
    if not is_int(payload["raw_bytes"]) or not 0 <= payload["raw_bytes"] <= MAX_PAYLOAD:
        p.add("payload.raw_bytes", "not an int within the 256 MiB limit")
        return None
    d = zlib.decompressobj()
    try:
        raw = d.decompress(compressed, MAX_PAYLOAD + 1)
    except zlib.error as e:
        p.add("payload", f"zlib: {e}")
        return None
    if not d.eof:
        p.add("payload", "zlib stream truncated or larger than the limit")
    if d.unused_data or d.unconsumed_tail:
        p.add("payload", "bytes after the zlib stream")
    if len(raw) != payload["raw_bytes"]:
        p.add("payload.raw_bytes", f"{payload['raw_bytes']} != decompressed {len(raw)}")
    if (zlib.crc32(raw) & 0xFFFFFFFF) != payload["crc32"]:
        p.add("payload.crc32", "mismatch")
    return raw


def check_tensor(p, field, ref, raw, spans, neg_inf_ok=False):
    """Check one tensor ref; return it as a numpy array (or None)."""
    if not exact_keys(p, field, ref, TENSOR_KEYS):
        return None
    dtype, shape = ref["dtype"], ref["shape"]
    if dtype not in DTYPE_SIZE:
        p.add(field + ".dtype", f"{dtype!r} is not f32/f64/i32/i64")
        return None
    if not isinstance(shape, list) or len(shape) > MAX_NDIM or not all(is_int(d) and d >= 0 for d in shape):
        p.add(field + ".shape", f"{shape!r} is not a list of at most {MAX_NDIM} non-negative ints")
        return None
    count = 1
    for d in shape:
        count *= d
    if count > MAX_ELEMENTS:
        p.add(field + ".shape", f"{count} elements > 2^26")
        return None
    off, nbytes = ref["offset"], ref["nbytes"]
    if not (is_int(off) and is_int(nbytes) and is_int(ref["crc32"])):
        p.add(field, "offset, nbytes and crc32 must be ints")
        return None
    if nbytes != count * DTYPE_SIZE[dtype]:
        p.add(field + ".nbytes", f"{nbytes} != {count} x {DTYPE_SIZE[dtype]}")
        return None
    if off < 0 or off % 8:
        p.add(field + ".offset", f"{off} is not a non-negative multiple of 8")
        return None
    if raw is None or off + nbytes > len(raw):
        p.add(field, "outside the payload")
        return None
    data = raw[off:off + nbytes]
    if (zlib.crc32(data) & 0xFFFFFFFF) != ref["crc32"]:
        p.add(field + ".crc32", "mismatch")
    if nbytes:
        spans.append((off, off + nbytes, field))
    arr = np.frombuffer(data, dtype=DTYPE_NUMPY[dtype]).reshape(shape)
    if dtype in ("f32", "f64") and not np.all(np.isfinite(arr) | (neg_inf_ok & (arr == -np.inf))):
        p.add(field, "non-finite value")
    return arr


def check_config(p, field, config):
    if not exact_keys(p, field, config, set(CONFIG_REQUIRED) | set(CONFIG_OPTIONAL),
                      set(CONFIG_REQUIRED)):
        return False
    ok = True
    for key, value in config.items():
        kind = CONFIG_REQUIRED.get(key) or CONFIG_OPTIONAL[key]
        if not kind_ok(value, kind):
            p.add(f"{field}.{key}", f"{value!r} is not a {kind}")
            ok = False
    if not ok:
        return False
    if config["rope_type"] not in ROPE_TYPES:
        p.add(field + ".rope_type", f"{config['rope_type']!r} unknown")
    hd, rd = config["head_dim"], config["rotary_dim"]
    if not (0 < rd <= hd and rd % 2 == 0):
        p.add(field + ".rotary_dim", f"{rd} must be even and in (0, head_dim={hd}]")
        return False
    for key in ("short_factor", "long_factor"):
        if config["rope_type"] == "longrope" and key not in config:
            p.add(field, f"longrope without {key}")
        if key in config and len(config[key]) != rd // 2:
            p.add(f"{field}.{key}", f"{len(config[key])} values, rotary_dim/2 is {rd // 2}")
    return True


def check_shapes(p, field, op, config, arrays):
    """Shapes and dtypes each op fixes (FORMAT.md, Operations)."""
    half = config["rotary_dim"] // 2
    want = {}
    if op == "rope.freq":
        want = {"inv_freq": ("f32", [half]), "attention_scaling": ("f64", [])}
    elif op == "rope.cos_sin":
        want = {"positions": ("i64", None)}
        pos = arrays.get("positions")
        if pos is not None and pos.ndim == 1:
            n = pos.shape[0]
            want.update(cos=("f32", [n, half]), sin=("f32", [n, half]))
    elif op == "rope.apply":
        x = arrays.get("x")
        if x is not None and x.ndim != 3:
            p.add(f"{field}.x", f"shape {list(x.shape)} must be [T, H, head_dim]")
            return
        if x is not None:
            t, h = x.shape[0], x.shape[1]
            want = {"positions": ("i64", [t]), "x": ("f32", [t, h, config["head_dim"]]),
                    "out": ("f32", [t, h, config["head_dim"]])}
    for name, (dtype, shape) in want.items():
        arr = arrays.get(name)
        if arr is None:
            continue
        if arr.dtype != np.dtype(DTYPE_NUMPY[dtype]):
            p.add(f"{field}.{name}", f"dtype must be {dtype}")
        if shape is None:
            if arr.ndim != 1:
                p.add(f"{field}.{name}", f"shape {list(arr.shape)} must be [n]")
        elif list(arr.shape) != shape:
            p.add(f"{field}.{name}", f"shape {list(arr.shape)} must be {shape}")
    if op == "rope.apply" and all(arrays.get(k) is not None for k in ("x", "out")):
        rd = config["rotary_dim"]
        if arrays["x"].shape == arrays["out"].shape and not np.array_equal(
                arrays["x"][..., rd:].view(np.uint32), arrays["out"][..., rd:].view(np.uint32)):
            p.add(field + ".out", f"channels past rotary_dim={rd} differ from x")


def check_keys(p, field, obj, schema):
    """A generic config/params object: exactly the schema's keys, typed."""
    required = {k for k, v in schema.items() if v[-1] is not False}
    if not exact_keys(p, field, obj, set(schema), required):
        return False
    ok = True
    for key, value in obj.items():
        kind = schema[key]
        good = {"int": lambda: is_int(value) and kind[1] <= value <= kind[2],
                "num": lambda: is_num(value) and (kind[1] == 0 or value > kind[1] - 1),
                "bool": lambda: isinstance(value, bool),
                "enum": lambda: value in kind[1],
                "ints": lambda: (isinstance(value, list) and 0 < len(value) <= kind[3]
                                 and all(is_int(v) and kind[1] <= v <= kind[2] for v in value)),
                }[kind[0]]()
        if not good:
            p.add(f"{field}.{key}", f"{value!r} is not a valid {kind[0]}")
            ok = False
    return ok


def check_family_shapes(p, field, op, config, params, arrays, shapes):
    for name, (dtypes, shape) in shapes(config, params, arrays).items():
        arr = arrays.get(name)
        if arr is None:
            continue
        if str(arr.dtype) not in [str(np.dtype(DTYPE_NUMPY[d])) for d in dtypes]:
            p.add(f"{field}.{name}", f"dtype must be one of {dtypes}")
        if None not in shape and list(arr.shape) != shape:
            p.add(f"{field}.{name}", f"shape {list(arr.shape)} must be {shape}")


def check_posinterp_semantics(p, field, c, arrays):
    """plugin.h's pecert_posinterp_args rules, and the prefix rows copied as they are."""
    m = c["merge_size"]
    if c["out_h"] % m or c["out_w"] % m:
        p.add(field + ".config.merge_size", "does not divide out_h and out_w")
    if c["align_corners"] and c["antialias"]:
        p.add(field + ".config.antialias", "not defined with align_corners")
    for axis in ("h", "w"):
        scale, n_in, n_out = c["scale_" + axis], c["grid_" + axis], c["out_" + axis]
        if scale < 0:
            p.add(f"{field}.config.scale_{axis}", "must be >= 0 (0: the size form)")
        elif scale > 0 and (c["mode"] != "bicubic" or c["align_corners"]):
            p.add(f"{field}.config.scale_{axis}", "the scale_factor form is bicubic without align_corners")
        elif scale > 0 and math.floor(n_in * scale) != n_out:
            p.add(f"{field}.config.scale_{axis}", f"floor(grid_{axis} * scale) is not out_{axis}")
    t, out = arrays.get("table"), arrays.get("out")
    if t is not None and t.ndim == 2 and t.shape[1] < 1:
        p.add(field + ".inputs.table", "no channels (D = 0)")
    k = c["prefix_tokens"]
    if t is not None and out is not None and t.ndim == 2 and out.ndim == 2 and \
            not np.array_equal(t[:k].view(np.uint32), out[:k].view(np.uint32)):
        p.add(field + ".outputs.out", "its prefix rows are not the table's, bit for bit")


def check_cope_semantics(p, field, c, arrays):
    """plugin.h's pecert_cope_args rules: a 0/1 mask (all ones when the call had none),
    -inf logits exactly where it is 0, positions in [0, npos - 1] and non-increasing along
    each row (a reversed cumulative sum of gates in [0, 1])."""
    m, pos, logits = arrays.get("mask"), arrays.get("positions"), arrays.get("logits")
    k = arrays.get("k")
    if k is not None and k.ndim == 2 and k.shape[0] < 1:
        p.add(field + ".inputs.k", "no keys (K = 0): a row of no keys has no positions")
    if m is not None and not np.all((m == 0) | (m == 1)):
        p.add(field + ".inputs.mask", "holds values other than 0 and 1")
    elif m is not None and not c["masked"] and not np.all(m == 1):
        p.add(field + ".inputs.mask", "not all ones, but config.masked is false")
    if m is not None and logits is not None and m.shape == logits.shape and \
            not np.array_equal(logits == -np.inf, m == 0):
        p.add(field + ".outputs.logits", "-inf is not exactly where the mask is 0")
    if pos is not None and pos.size and (pos.min() < 0 or pos.max() > c["npos"] - 1 or
                                         (pos.ndim == 2 and (np.diff(pos, axis=1) > 0).any())):
        p.add(field + ".outputs.positions", "outside [0, npos - 1], or increasing along a row")


def check_sine2d_semantics(p, field, c, arrays):
    """plugin.h's pecert_sine2d_args rules: an even num_pos_feats, h * w within 2^24, a 0/1
    mask; and what every sin/cos pair honours: channels 2k and 2k + 1 of an axis are the sine
    and cosine of one angle, so their squares sum to 1 within float32 rounding."""
    if c["num_pos_feats"] % 2:
        p.add(field + ".config.num_pos_feats", "odd: the sin and cos halves of an axis differ in size")
    if c["h"] * c["w"] > 1 << 24:
        p.add(field + ".config", "h * w > 2^24")
    m, e = arrays.get("mask"), arrays.get("embedding")
    if m is not None and not np.all((m == 0) | (m == 1)):
        p.add(field + ".inputs.mask", "holds values other than 0 and 1")
    if e is not None and e.ndim == 2 and e.shape[1] % 2 == 0 and e.size:
        pairs = e.astype(np.float64).reshape(e.shape[0], -1, 2)
        if np.max(np.abs((pairs ** 2).sum(axis=2) - 1)) > 1e-5:
            p.add(field + ".outputs.embedding", "a channel pair (2k, 2k + 1) is not the sin and cos of one angle")


def check_relpos2d_semantics(p, field, c, arrays):
    """plugin.h's pecert_relpos2d_args rules: n >= 1, C >= 1, tables of L >= 1 rows and the
    query's C channels, 3-D and 2-D tensors (finite: check_tensor); and what the decomposition
    honours: bias[n][i][(j_h, j_w)] = fl(row term [j_h] + column term [j_w]), so the second
    difference b[jh, jw] - b[jh, 0] - b[0, jw] + b[0, 0] is float32 rounding (an ulp each)."""
    q, th, tw, b = (arrays.get(k) for k in ("query", "rel_pos_h", "rel_pos_w", "bias"))
    if q is not None and (q.ndim != 3 or q.shape[0] < 1 or q.shape[2] < 1):
        p.add(field + ".inputs.query", "must be [n >= 1, q_h * q_w, C >= 1]")
    for name, t in (("rel_pos_h", th), ("rel_pos_w", tw)):
        if t is not None and (t.ndim != 2 or t.shape[0] < 1 or t.shape[1] < 1):
            p.add(f"{field}.inputs.{name}", "must be [L >= 1, C >= 1]")
    if b is not None and b.ndim == 3 and b.shape[1] == c["q_h"] * c["q_w"] and \
            b.shape[2] == c["k_h"] * c["k_w"] and b.size:
        g = b.astype(np.float64).reshape(b.shape[0], b.shape[1], c["k_h"], c["k_w"])
        terms = (g, g[:, :, :, :1], g[:, :, :1, :], g[:, :, :1, :1])
        second = terms[0] - terms[1] - terms[2] + terms[3]
        if np.any(np.abs(second) > 2.0 ** -23 * sum(np.abs(t) for t in terms)):
            p.add(field + ".outputs.bias", "is not a row term plus a column term (per query)")


def check_deberta_config(p, field, c):
    """bucket_size <= 0 (none) or even in 2..65536; bucketed, max_position > bucket_size / 2 + 1
    (FORMAT.md says > bucket_size / 2; at mid + 1 the official denominator ln((mp - 1) / mid)
    is ln 1 = 0).  v1 (Deberta) has no buckets."""
    b = c["bucket_size"]
    if b > 0 and (b < 2 or b % 2):
        p.add(field + ".config.bucket_size", "bucketed but not even in 2..65536")
        return False
    if b > 0 and c["max_position"] <= b // 2 + 1:
        p.add(field + ".config.max_position", "must exceed bucket_size / 2 + 1 when bucketed")
        return False
    if c.get("module") == "Deberta" and b > 0:
        p.add(field + ".config.bucket_size", "Deberta (v1) has no buckets")
    return True


def _deberta_buckets(r, bucket_size, max_position):
    """FORMAT.md's b(r) in float64, in torch's operation order, and the places whose pre-ceil
    value lies within 1e-9 of an integer (there float32 may decide either way; the exact
    integer at |r| = max_position - 1 is set exactly, not left to two logs)."""
    r = np.asarray(r, dtype=np.int64)
    if bucket_size <= 0:
        return r, np.zeros(r.shape, dtype=bool)
    mid = bucket_size // 2
    a = np.abs(r)
    big = a > mid
    x = np.zeros(r.shape)
    x[big] = np.log(a[big] / mid) / math.log((max_position - 1) / mid) * (mid - 1)
    x[a == max_position - 1] = mid - 1
    b = np.where(big, np.sign(r) * (mid + np.ceil(x)), r).astype(np.int64)
    near = big & (np.abs(x - np.round(x)) < 1e-9 * np.maximum(x, 1)) & (a != max_position - 1)
    return b, near


def check_deberta_relpos_semantics(p, field, c, arrays):
    """The relative positions are b(i - j): FORMAT.md's buckets (or i - j unbucketed), the
    neighbour accepted only where the float64 pre-ceil value is an integer within 1e-9."""
    rp = arrays.get("relative_pos")
    if not check_deberta_config(p, field, c) or rp is None or list(rp.shape) != [c["q_len"], c["k_len"]]:
        return
    r = np.arange(c["q_len"])[:, None] - np.arange(c["k_len"])[None, :]
    want, near = _deberta_buckets(r, c["bucket_size"], c["max_position"])
    diff = np.abs(rp - want)
    if np.any(diff > near):
        i, j = np.argwhere(diff > near)[0]
        p.add(field + ".outputs.relative_pos", f"[{i}][{j}] = {rp[i, j]}, b({i - j}) = {want[i, j]}")


def check_deberta_bias_semantics(p, field, c, arrays):
    """plugin.h's pecert_deberta_args rules: q, k [n, L, d] (n, L, d >= 1), tables [H, 2 span, d]
    (H >= 1, n a multiple of H); and the formula in float64: bias[n][i][j] = (q[n][i] .
    pos_key[n mod H][x] + k[n][j] . pos_query[n mod H][x]) / s, x = clamp(b(i - j) + span, 0,
    2 span - 1), s = sqrt(d sf), within (d + 8) 2^-24 (sum |q pos_key| + sum |k pos_query|) / s
    + 2^-24 |bias| (float32 dot products and divisions; entries whose bucket the float64
    formula cannot decide are skipped)."""
    if not check_deberta_config(p, field, c):
        return
    q, k, b = arrays.get("q"), arrays.get("k"), arrays.get("bias")
    tables = [arrays.get(name) for name in ("pos_key", "pos_query") if name in _deberta_read_tables(c)]
    if q is None or k is None or b is None or any(t is None for t in tables) or not tables:
        return
    if q.ndim != 3 or min(q.shape) < 1 or k.shape != q.shape:
        p.add(field + ".inputs.q", "q and k must be [n >= 1, L >= 1, d >= 1]")
        return
    n, length, d = q.shape
    span = _deberta_span(c)
    heads = tables[0].shape[0] if tables[0].ndim == 3 else 0
    if any(t.shape != (heads, 2 * span, d) for t in tables) or heads < 1 or n % heads or \
            b.shape != (n, length, length):
        p.add(field + ".inputs", "tables not [H >= 1, 2 span, d] with n a multiple of H, or bias not [n, L, L]")
        return
    r = np.arange(length)[:, None] - np.arange(length)[None, :]
    bucket, near = _deberta_buckets(r, c["bucket_size"], c["max_position"])
    x = np.clip(bucket + span, 0, 2 * span - 1)
    rows = np.arange(n) % heads
    ii, jj = np.arange(length)[:, None], np.arange(length)[None, :]
    want = np.zeros((n, length, length))
    mag = np.zeros((n, length, length))
    read = _deberta_read_tables(c)
    for vec, name, at in ((q, "pos_key", ii), (k, "pos_query", jj)):
        table = arrays.get(name)
        if name not in read or table is None:
            continue
        v, t = vec.astype(np.float64), table.astype(np.float64)[rows]
        want += np.einsum("nlc,nmc->nlm", v, t)[:, at, x]
        mag += np.einsum("nlc,nmc->nlm", np.abs(v), np.abs(t))[:, at, x]
    s = math.sqrt(d * (1 + len(tables)))
    want /= s
    bound = (d + 8) * 2.0 ** -24 * mag / s + 2.0 ** -24 * np.abs(want)
    bad = (np.abs(b.astype(np.float64) - want) > bound) & ~near[None]
    if bad.any():
        m, i, j = np.argwhere(bad)[0]
        p.add(field + ".outputs.bias", f"[{m}][{i}][{j}] is not the formula's ({b[m, i, j]!r} vs {want[m, i, j]!r})")


def check_family_semantics(p, field, op, c, params, arrays):
    """Cross-key rules of FORMAT.md and exact identities every reference honours."""
    if op == "sinusoidal.embed" and ((c.get("variant") == "fairseq") != ("padding_idx" in c)):
        p.add(field + ".config.padding_idx", "required for fairseq, and only for it")
    if op == "learned.lookup":
        if (c.get("convention") == "padding_offset") != ("padding_idx" in c):
            p.add(field + ".config.padding_idx", "required for padding_offset, and only for it")
        t, pos, e = arrays.get("table"), arrays.get("positions"), arrays.get("embedding")
        if t is not None and pos is not None and e is not None and t.ndim == 2:
            off = c["padding_idx"] + 1 if c.get("convention") == "padding_offset" else 0
            rows = np.where(pos < 0, off - 1, pos + off)
            if rows.min(initial=0) < 0 or rows.max(initial=0) >= t.shape[0] or not \
                    np.array_equal(t[rows].view(np.uint32), e.view(np.uint32)):
                p.add(field + ".outputs.embedding", "is not the table rows the positions select")
    if op == "sincos2d.embed" and c.get("embed_dim", 0) % 4:
        p.add(field + ".config.embed_dim", "not a multiple of 4")
    if op == "rope2d.apply" and c.get("head_dim", 0) % 4:
        p.add(field + ".config.head_dim", "not a multiple of 4")
    if op == "rope2d.index":
        g = arrays.get("grid_thw")
        m = c["spatial_merge_size"]
        if g is not None and g.ndim == 2 and g.size and (g.min() < 1 or (g[:, 1:] % m).any()):
            p.add(field + ".inputs.grid_thw", "entries must be >= 1, h and w multiples of spatial_merge_size")
        if g is not None and c["scheme"] not in ("merge_windows", "attention_windows") and \
                (m != 1 or (g.ndim == 2 and (g[:, 0] != 1).any())):
            p.add(field + ".config", "row_major schemes take spatial_merge_size 1 and t = 1")
        if (c["scheme"] == "attention_windows") != ("window_units" in c):
            p.add(field + ".config.window_units", "required for attention_windows, and only for it")
    if op == "posinterp.resize":
        check_posinterp_semantics(p, field, c, arrays)
    if op == "cope.logits":
        check_cope_semantics(p, field, c, arrays)
    if op == "sine2d.embed":
        check_sine2d_semantics(p, field, c, arrays)
    if op == "relpos2d.bias":
        check_relpos2d_semantics(p, field, c, arrays)
    if op == "deberta.relpos":
        check_deberta_relpos_semantics(p, field, c, arrays)
    if op == "deberta.bias":
        check_deberta_bias_semantics(p, field, c, arrays)
    if op == "peg.apply":
        x, out = arrays.get("x"), arrays.get("out")
        if c["kernel"] % 2 == 0:
            p.add(field + ".config.kernel", "even: the zero padding (kernel - 1) / 2 is not centred")
        if x is not None and x.ndim == 2 and x.shape[1] < 1:
            p.add(field + ".inputs.x", "no channels (C = 0)")
        k = c["prefix_tokens"]
        if x is not None and out is not None and x.ndim == 2 and out.ndim == 2 and x.shape == out.shape and \
                not np.array_equal(x[:k].astype(np.float64), out[:k].astype(np.float64)):
            p.add(field + ".outputs.out", "its prefix rows are not the input's")
    if op == "txl.pos_emb" and c.get("d_model", 0) % 2:
        p.add(field + ".config.d_model", "odd")
    if op == "t5.bucket":
        half = c["num_buckets"] // 2 if c["bidirectional"] else c["num_buckets"]
        if half // 2 < 1 or c["max_distance"] <= half // 2:
            p.add(field + ".config", "max_distance must exceed max_exact >= 1")
        b = arrays.get("bucket")
        if b is not None and (b.min(initial=0) < 0 or b.max(initial=0) >= c["num_buckets"]):
            p.add(field + ".outputs.bucket", "outside [0, num_buckets)")


def check_family_test(p, field, test, raw, spans):
    op = test["op"]
    config_schema, params_schema, inputs, outputs, shapes = FAMILY_OPS[op]
    if op == "deberta.bias":
        inputs = _deberta_bias_inputs(test["config"])
    config_ok = check_keys(p, field + ".config", test["config"], config_schema)
    params_ok = check_keys(p, field + ".params", test["params"], params_schema)
    arrays = {}
    for group, names in (("inputs", inputs), ("outputs", outputs)):
        if exact_keys(p, f"{field}.{group}", test[group], names):
            for name in sorted(names):
                arrays[name] = check_tensor(p, f"{field}.{group}.{name}", test[group][name], raw, spans,
                                            (op, name) in NEG_INF_OK)
    if config_ok and params_ok:
        check_family_shapes(p, field, op, test["config"], test["params"], arrays, shapes)
        check_family_semantics(p, field, op, test["config"], test["params"], arrays)


def check_mrope_apply(p, field, test, raw, spans):
    config = dict(test["config"])
    section = config.pop("mrope_section", None)
    interleaved = config.pop("mrope_interleaved", False)
    if not (isinstance(section, list) and 0 < len(section) <= 4 and all(is_int(v) and v >= 0 for v in section)):
        p.add(field + ".config.mrope_section", "missing, or not 1..4 non-negative ints")
        return
    if not isinstance(interleaved, bool) or (interleaved and len(section) != 3):
        p.add(field + ".config.mrope_interleaved", "not a bool, or set without exactly three sections")
    config_ok = check_config(p, field + ".config", config)
    if config_ok and sum(section) != config["rotary_dim"] // 2:
        p.add(field + ".config.mrope_section", "does not sum to rotary_dim / 2")
    if exact_keys(p, field + ".params", test["params"], {"seq_len", "pairing"}):
        if not (is_int(test["params"]["seq_len"]) and test["params"]["seq_len"] >= 0
                and test["params"]["pairing"] in PAIRINGS):
            p.add(field + ".params", "bad seq_len or pairing")
    arrays = {}
    for group, names in (("inputs", {"positions", "x"}), ("outputs", {"out"})):
        if exact_keys(p, f"{field}.{group}", test[group], names):
            for name in sorted(names):
                arrays[name] = check_tensor(p, f"{field}.{group}.{name}", test[group][name], raw, spans)
    x, pos, out = arrays.get("x"), arrays.get("positions"), arrays.get("out")
    if config_ok and x is not None and pos is not None and out is not None:
        if x.ndim != 3 or x.shape[2] != config["head_dim"] or out.shape != x.shape or \
                x.dtype != np.float32 or out.dtype != np.float32:
            p.add(field + ".x", "x/out must be f32 [T, H, head_dim]")
        elif pos.dtype != np.int64 or list(pos.shape) != [len(section), x.shape[0]]:
            p.add(field + ".positions", "must be i64 [len(mrope_section), T]")
        else:
            rd = config["rotary_dim"]
            if not np.array_equal(x[..., rd:].view(np.uint32), out[..., rd:].view(np.uint32)):
                p.add(field + ".out", f"channels past rotary_dim={rd} differ from x")


def check_test(p, index, test, notes, raw, spans, seen_ids):
    field = f"tests[{index}]"
    if not exact_keys(p, field, test, TEST_KEYS):
        return
    tc = test["tcId"]
    if not is_int(tc) or tc <= 0 or tc in seen_ids:
        p.add(field + ".tcId", f"{tc!r} is not a unique positive int")
    seen_ids.add(tc)
    field = f"tcId={tc}"
    op = test["op"]
    if op not in OPS and op not in FAMILY_OPS and op != "mrope.apply":
        p.add(field + ".op", f"{op!r} unknown")
        return
    if not isinstance(test["comment"], str):
        p.add(field + ".comment", "not a string")
    flags = test["flags"]
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        p.add(field + ".flags", "not a list of strings")
    else:
        for f in flags:
            if f not in notes:
                p.add(field + ".flags", f"{f!r} has no note")
    if exact_keys(p, field + ".source", test["source"], SOURCE_KEYS):
        if not all(isinstance(test["source"][k], str) and test["source"][k] for k in SOURCE_KEYS):
            p.add(field + ".source", "file and function must be non-empty strings")
    if op in FAMILY_OPS:
        check_family_test(p, field, test, raw, spans)
        return
    if op == "mrope.apply":
        check_mrope_apply(p, field, test, raw, spans)
        return
    config_ok = check_config(p, field + ".config", test["config"])
    params, inputs, outputs = OPS[op]
    if exact_keys(p, field + ".params", test["params"], set(params)):
        for key, kind in params.items():
            if not kind_ok(test["params"][key], kind):
                p.add(f"{field}.params.{key}", f"{test['params'][key]!r} is not a {kind}")
        if is_int(test["params"]["seq_len"]) and test["params"]["seq_len"] < 0:
            p.add(field + ".params.seq_len", "negative")
    arrays = {}
    for group, names in (("inputs", inputs), ("outputs", outputs)):
        if exact_keys(p, f"{field}.{group}", test[group], names):
            for name in sorted(names):
                arrays[name] = check_tensor(p, f"{field}.{group}.{name}", test[group][name], raw, spans)
    if config_ok:
        check_shapes(p, field, op, test["config"], arrays)


def check_manifest(path):
    p = Problems(path)
    try:
        size, m = load_json(path)
    except (OSError, ValueError) as e:
        p.add("manifest", str(e))
        return p.items
    if size > MAX_MANIFEST:
        p.add("manifest", f"{size} bytes > 16 MiB")
    if not exact_keys(p, "manifest", m, TOP_KEYS):
        return p.items
    if m["schema"] != SCHEMA:
        p.add("schema", f"{m['schema']!r} != {SCHEMA!r}")
    for key in ("family", "description", "generator"):
        if not isinstance(m[key], str) or not m[key]:
            p.add(key, "not a non-empty string")
    prov = m["provenance"]
    if exact_keys(p, "provenance", prov, PROVENANCE_KEYS):
        if not isinstance(prov["commit"], str) or not re.fullmatch(r"[0-9a-f]{40}", prov["commit"]):
            p.add("provenance.commit", "not 40 lowercase hex digits")
        if not isinstance(prov["packages"], dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in prov["packages"].items()):
            p.add("provenance.packages", "not an object of strings")
    notes = m["notes"]
    if isinstance(notes, dict):
        for flag, note in notes.items():
            if exact_keys(p, f"notes.{flag}", note, NOTE_KEYS):
                if not all(isinstance(note[k], str) and note[k] for k in NOTE_KEYS):
                    p.add(f"notes.{flag}", "bugType and description must be non-empty strings")
    else:
        p.add("notes", "not an object")
        notes = {}
    raw = read_payload(p, path, m["payload"])
    tests = m["tests"]
    if not isinstance(tests, list) or len(tests) > MAX_TESTS:
        p.add("tests", f"not a list of at most {MAX_TESTS} tests")
        return p.items
    if m["numberOfTests"] != len(tests):
        p.add("numberOfTests", f"{m['numberOfTests']!r} != {len(tests)} tests")
    spans, seen_ids = [], set()
    for i, test in enumerate(tests):
        check_test(p, i, test, notes, raw, spans, seen_ids)
    used = {f for t in tests if isinstance(t, dict) and isinstance(t.get("flags"), list)
            for f in t["flags"]}
    for flag in sorted(set(notes) - used):
        p.add(f"notes.{flag}", "defined but used by no test")
    spans.sort()
    for (a0, a1, fa), (b0, b1, fb) in zip(spans, spans[1:]):
        if b0 < a1:
            p.add(fb, f"overlaps {fa}")
    return p.items


def check_dir(path):
    """Check every manifest under a directory (or one manifest); return the problems."""
    if path.endswith(".json"):
        return check_manifest(path)
    problems = []
    names = sorted(os.listdir(path))
    manifests = [n for n in names if n.endswith(".json")]
    if not manifests:
        problems.append(f"{path}: no manifests")
    for n in manifests:
        problems += check_manifest(os.path.join(path, n))
    for n in names:
        if n.endswith(".bin.z") and n[:-len(".bin.z")] + ".json" not in names:
            problems.append(f"{os.path.join(path, n)}: payload without a manifest")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    problems = []
    for arg in argv[1:]:
        problems += check_dir(arg)
    for line in problems:
        print(line)
    print(f"check_vectors: {'FAILED, %d problems' % len(problems) if problems else 'OK'}",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
