#!/usr/bin/python3
"""Generate pecert's T5 relative-position bucket vectors from transformers.

    /usr/bin/python3 vectors/gen/gen_t5.py --transformers PATH --out vectors/t5

Source: huggingface/transformers v4.57.6, src/transformers/models/t5/modeling_t5.py,
T5Attention._relative_position_bucket (a staticmethod, called as the model calls it:
relative_position = memory_position - context_position, bidirectional = not is_decoder).
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_t5.py"

NOTES = famgen.notes_table("""
encoder          FUNCTIONALITY       bidirectional=True (encoder self-attention): half the buckets
                                     per sign.
decoder          FUNCTIONALITY       bidirectional=False (causal decoder): every key after the query
                                     in bucket 0.
real_checkpoint  FUNCTIONALITY       num_buckets 32, max_distance 128: T5, T5 v1.1, Flan-T5, mT5,
                                     ByT5, LongT5 and UMT5 configs.
dense            FUNCTIONALITY       Every relative position in a window around 0.
far              EDGE_CASE           Relative positions far past max_distance (up to 2^40): the
                                     bucket must saturate (a missing min-clamp gives buckets past
                                     num_buckets: candle #1312).
log_boundary     EDGE_CASE           Positions where the log bucket coordinate is (near) an integer:
                                     the reference's float32 log decides the bucket (TOLERANCES.md
                                     accepts both neighbours there).
odd_num_buckets  EDGE_CASE           num_buckets odd: num_buckets // 2 per side.
synthetic        MODIFIED_PARAMETER  A configuration no released checkpoint uses.
""")

# (bidirectional, num_buckets, max_distance, extra flags)
CONFIGS = [
    (True, 32, 128, ["real_checkpoint"]),
    (False, 32, 128, ["real_checkpoint"]),
    (True, 64, 256, ["synthetic"]),
    (False, 16, 64, ["synthetic"]),
    (True, 8, 16, ["synthetic"]),
    (True, 33, 128, ["synthetic", "odd_num_buckets"]),
    (True, 18, 128, ["synthetic", "log_boundary"]),
    (False, 72, 100, ["synthetic", "log_boundary"]),
    (False, 320, 800, ["synthetic"]),
]


def far_positions(max_distance):
    far = [max_distance - 1, max_distance, max_distance + 1, 2 * max_distance, 1000, 4097,
           1 << 16, 1 << 20, (1 << 31) - 1, 1 << 31, 1 << 40, (1 << 52) + 1]
    return sorted(set(far + [-v for v in far]))


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "t5", {"--transformers": "transformers checkout (v4.57.6)"})
    hf = hfref.Reference(args.transformers)
    torch = hf.torch
    from transformers.models.t5 import modeling_t5
    bucket_fn = modeling_t5.T5Attention._relative_position_bucket
    src = famgen.source("src/transformers/models/t5/modeling_t5.py",
                        "T5Attention._relative_position_bucket")
    packages = refsrc.packages(torch)
    packages["transformers"] = hf.transformers.__version__
    prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
            "packages": packages}
    vf = famgen.new_file("buckets", "t5", "T5 relative-position buckets from "
                         "T5Attention._relative_position_bucket", GENERATOR, prov, NOTES)
    for bidirectional, nb, md, extra in CONFIGS:
        side = ["encoder" if bidirectional else "decoder"]
        config = {"bidirectional": bidirectional, "num_buckets": nb, "max_distance": md}
        label = f"{'bidirectional' if bidirectional else 'causal'} {nb} buckets, max_distance {md}"
        window = 2 * md + 8 if md <= 200 else 300
        for rel, what, flags in ((np.arange(-window, window + 1), f"every |d| <= {window}",
                                  ["dense"]),
                                 (np.array(far_positions(md)), "far", ["far"])):
            rel_t = torch.tensor(rel, dtype=torch.int64)
            out = bucket_fn(rel_t, bidirectional=bidirectional, num_buckets=nb, max_distance=md)
            if out.dtype != torch.int64 or out.shape != rel_t.shape:
                raise AssertionError(f"{label}: {out.dtype} {tuple(out.shape)}")
            vf.add_test("t5.bucket", f"{label}, {what}", side + extra + flags, src, config, {},
                        {"relative_position": vf.tensor(rel, "i64")},
                        {"bucket": vf.tensor(out.numpy(), "i64")})
    return famgen.finish(args.out, [vf])


if __name__ == "__main__":
    sys.exit(main())
