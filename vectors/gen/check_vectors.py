#!/usr/bin/python3
"""Re-validate pecert vector files against vectors/FORMAT.md (schema pecert-vectors/1).

    /usr/bin/python3 vectors/gen/check_vectors.py vectors/rope [more dirs or .json files]

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


def check_tensor(p, field, ref, raw, spans):
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
    if dtype in ("f32", "f64") and not np.all(np.isfinite(arr)):
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
    if op not in OPS:
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
