"""Writer for pecert vector files (schema pecert-vectors/1, see vectors/FORMAT.md).

A VectorFile collects tests and their tensors, then writes <name>.json (manifest) and
<name>.bin.z (one zlib stream of the packed tensors).  Everything that reaches the disk
is a pure function of the inputs, so regenerating gives byte-identical files:
sorted JSON keys with fixed indentation, tensors in insertion order, zlib level 9,
no timestamps, no absolute paths.
"""

import json
import os
import zlib

import numpy as np

SCHEMA = "pecert-vectors/1"
ALIGN = 8  # FORMAT.md: every tensor offset is a multiple of 8

# FORMAT.md dtype name -> little-endian numpy dtype.
DTYPES = {
    "f32": np.dtype("<f4"),
    "f64": np.dtype("<f8"),
    "i32": np.dtype("<i4"),
    "i64": np.dtype("<i8"),
}


def dumps(obj):
    """The one JSON spelling used for every manifest."""
    return json.dumps(obj, sort_keys=True, indent=1, separators=(",", ": "),
                      ensure_ascii=True, allow_nan=False) + "\n"


class VectorFile:
    def __init__(self, name, family, description, generator, provenance, notes_catalog):
        self.name = name
        self.family = family
        self.description = description
        self.generator = generator
        self.provenance = provenance
        self.notes_catalog = notes_catalog
        self.tests = []
        self.payload = bytearray()

    def tensor(self, array, dtype, neg_inf_ok=False):
        """Append one tensor to the payload and return its manifest reference.

        neg_inf_ok: -inf is a value (attention logits of masked keys); NaN and +inf never are."""
        # np.array, not ascontiguousarray: the latter turns a 0-d scalar into shape [1].
        arr = np.array(array, dtype=DTYPES[dtype], order="C", copy=True)
        bad = ~np.isfinite(arr) & ~(neg_inf_ok & (arr == -np.inf)) if dtype in ("f32", "f64") else None
        if bad is not None and bad.any():
            raise ValueError(f"{self.name}: non-finite value in a golden tensor")
        pad = (-len(self.payload)) % ALIGN
        self.payload += b"\0" * pad
        data = arr.tobytes(order="C")
        ref = {
            "dtype": dtype,
            "shape": [int(d) for d in arr.shape],
            "offset": len(self.payload),
            "nbytes": len(data),
            "crc32": zlib.crc32(data) & 0xFFFFFFFF,
        }
        self.payload += data
        return ref

    def add_test(self, op, comment, flags, source, config, params, inputs, outputs):
        unknown = [f for f in flags if f not in self.notes_catalog]
        if unknown:
            raise KeyError(f"{self.name}: flags without a note: {unknown}")
        if len(set(flags)) != len(flags):
            raise ValueError(f"{self.name}: duplicate flag in {flags}")
        self.tests.append({
            "tcId": len(self.tests) + 1,
            "op": op,
            "comment": comment,
            "flags": list(flags),
            "source": source,
            "config": config,
            "params": params,
            "inputs": inputs,
            "outputs": outputs,
        })

    def manifest(self, raw, compressed):
        used = sorted({f for t in self.tests for f in t["flags"]})
        return {
            "schema": SCHEMA,
            "family": self.family,
            "description": self.description,
            "generator": self.generator,
            "provenance": self.provenance,
            "payload": {
                "file": self.name + ".bin.z",
                "raw_bytes": len(raw),
                "compressed_bytes": len(compressed),
                "crc32": zlib.crc32(raw) & 0xFFFFFFFF,
            },
            "notes": {f: self.notes_catalog[f] for f in used},
            "numberOfTests": len(self.tests),
            "tests": self.tests,
        }

    def write(self, out_dir):
        """Write both files atomically (temp file + rename); return their sizes."""
        raw = bytes(self.payload)
        compressed = zlib.compress(raw, 9)
        text = dumps(self.manifest(raw, compressed)).encode("ascii")
        paths = {}
        for suffix, data in ((".bin.z", compressed), (".json", text)):
            path = os.path.join(out_dir, self.name + suffix)
            tmp = path + ".tmp"
            with open(tmp, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
            paths[path] = len(data)
        return paths
