#!/usr/bin/python3
"""Generate pecert's Shaw relative-position vectors from tensor2tensor.

    /usr/bin/python3 vectors/gen/gen_shaw.py --tensor2tensor PATH --out vectors/shaw

Source: tensorflow/tensor2tensor tensor2tensor/layers/common_attention.py,
_generate_relative_positions_matrix(length_q, length_k, max_relative_position, cache)
(Shaw et al. 2018, as dot_product_attention_relative uses it).  TensorFlow does not
install on this machine, so the function's text is run (refsrc.load_function) with a
numpy stand-in for the three tf ops it calls (range, expand_dims, clip_by_value); the
arithmetic is integer, so the stand-in cannot change a value.

The op takes query and key positions: without the cache the queries are the last
length_q of the length_k keys (range_vec_k[-length_q:]), with it the one query is the
last key (distance_mat = range(-length_k + 1, 1)).
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_shaw.py"

NOTES = famgen.notes_table("""
self_attention   FUNCTIONALITY  length_q == length_k: queries and keys 0..L-1.
shorter_queries  FUNCTIONALITY  length_q < length_k: the queries are the last length_q keys.
cache            FUNCTIONALITY  cache=True (decoding): one query, the last key.
clipping         EDGE_CASE      Distances past max_relative_position clip to +-K (index 0 or 2K).
no_clipping      EDGE_CASE      Every distance within K: index = k - q + K.
k_zero           EDGE_CASE      max_relative_position 0: every pair in the one entry.
real_checkpoint  FUNCTIONALITY  max_relative_position of a released setting (Shaw et al.: K = 16;
                                t2t transformer_relative: 20).
""")


class NumpyTF:
    """The three tf ops _generate_relative_positions_matrix calls, on numpy int32."""

    @staticmethod
    def range(*args):
        return np.arange(*args, dtype=np.int32)

    @staticmethod
    def expand_dims(x, axis):
        return np.expand_dims(x, axis)

    @staticmethod
    def clip_by_value(x, lo, hi):
        return np.clip(x, lo, hi)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "shaw", {"--tensor2tensor": "tensorflow/tensor2tensor checkout"})
    t2t = refsrc.Checkout("tensorflow/tensor2tensor", args.tensor2tensor)
    matrix, _ = refsrc.load_function(t2t.path("tensor2tensor/layers/common_attention.py"),
                                     "_generate_relative_positions_matrix", {"tf": NumpyTF()})
    vf = famgen.new_file("t2t", "shaw", "Shaw relative positions from tensor2tensor "
                         "_generate_relative_positions_matrix", GENERATOR,
                         t2t.provenance(refsrc.packages()), NOTES)
    src = famgen.source("tensor2tensor/layers/common_attention.py",
                        "_generate_relative_positions_matrix")
    for lq, lk, k, cache, comment, flags in (
        (8, 8, 16, False, "8 x 8, K 16", ["self_attention", "no_clipping", "real_checkpoint"]),
        (40, 40, 16, False, "40 x 40, K 16", ["self_attention", "clipping", "real_checkpoint"]),
        (30, 30, 20, False, "30 x 30, K 20", ["self_attention", "clipping", "real_checkpoint"]),
        (6, 6, 2, False, "6 x 6, K 2", ["self_attention", "clipping"]),
        (3, 10, 4, False, "3 queries, 10 keys, K 4", ["shorter_queries", "clipping"]),
        (1, 12, 5, False, "1 query, 12 keys, K 5", ["shorter_queries", "clipping"]),
        (1, 12, 5, True, "cache, 12 keys, K 5", ["cache", "clipping"]),
        (1, 40, 16, True, "cache, 40 keys, K 16", ["cache", "clipping", "real_checkpoint"]),
        (5, 5, 0, False, "5 x 5, K 0", ["self_attention", "k_zero"]),
    ):
        out = np.asarray(matrix(lq, lk, k, cache=cache))
        keys = np.arange(lk)
        queries = keys[-lq:] if not cache else keys[-1:]
        if out.shape != (len(queries), lk):
            raise AssertionError(f"{comment}: shape {out.shape}")
        vf.add_test("shaw.index", comment, flags, src, {"max_relative_position": k}, {},
                    {"q_positions": vf.tensor(queries.astype(np.int64), "i64"),
                     "k_positions": vf.tensor(keys.astype(np.int64), "i64")},
                    {"index": vf.tensor(out.astype(np.int64), "i64")})
    return famgen.finish(args.out, [vf])


if __name__ == "__main__":
    sys.exit(main())
