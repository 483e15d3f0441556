#!/usr/bin/python3
"""Generate pecert's Transformer-XL vectors from kimiyoung/transformer-xl.

    /usr/bin/python3 vectors/gen/gen_txl.py --txl PATH --out vectors/txl

Source: kimiyoung/transformer-xl pytorch/mem_transformer.py.
  txl.pos_emb    PositionalEmbedding.forward as MemTransformerLM._forward calls it
                 (attn_type 0): pos_seq = arange(klen - 1, -1, -1.0), clamped to clamp_len
  txl.rel_shift  RelMultiHeadAttn._rel_shift

Both are recorded from real MemTransformerLM forwards (small models with the widths and
clamp lengths of the released training scripts run_wt103_base.sh / run_enwik8_base.sh):
a forward hook on model.pos_emb captures its input and output, and _rel_shift is wrapped
to record its argument and result (the wrapper calls the original and changes nothing).
The hooked pos_seq must be the reversed, clamped range of the op's semantics.  More
_rel_shift cases (zero_triu=True, a single query) call the function directly on seeded
inputs.  The [qlen, klen, bsz, n_head] tensors are stored as [qlen, klen, bsz * n_head]
(a reshape of the trailing axes).

Import stand-in: pytorch/utils/proj_adaptive_softmax.py reads torch.version.cuda at
import (None on a CPU build) to pick a code path of the adaptive-softmax loss; it is set
to "10.0" while the module is imported and restored afterwards.  The loss is computed on
CPU and plays no part in the vectors.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_txl.py"

NOTES = famgen.notes_table("""
reversed_positions  FUNCTIONALITY  Row r is the sinusoid of position klen - 1 - r: the farthest key
                                   first.
memory              FUNCTIONALITY  A forward with memory: klen = mlen + qlen.
clamp_len           EDGE_CASE      clamp_len > 0: positions past it repeat the clamp_len row.
real_checkpoint     FUNCTIONALITY  Width, tgt_len, mem_len or clamp_len of the released scripts
                                   (wt103 base: 410, eval 64 / 640 / 400; enwik8 base: 512, eval 80
                                   / 2100 / 820).
forward_hook        FUNCTIONALITY  Recorded inside a MemTransformerLM forward.
zero_triu           FUNCTIONALITY  _rel_shift with zero_triu=True: above the diagonal is zero.
single_query        EDGE_CASE      qlen 1 (a decode step): every key visible.
""")


class Sources:
    def __init__(self, args):
        self.txl = refsrc.Checkout("kimiyoung/transformer-xl", args.txl)
        import torch
        self.torch = torch
        sys.path.insert(0, self.txl.path("pytorch/utils"))
        sys.path.insert(0, self.txl.path("pytorch"))
        saved = torch.version.cuda
        torch.version.cuda = "10.0"  # read at import by proj_adaptive_softmax.py only
        try:
            import mem_transformer
        finally:
            torch.version.cuda = saved
        if os.path.dirname(os.path.abspath(mem_transformer.__file__)) != self.txl.path("pytorch"):
            raise SystemExit("mem_transformer was not imported from --txl")
        self.mt = mem_transformer
        self.shifts = []
        original = mem_transformer.RelMultiHeadAttn._rel_shift
        self.rel_shift = original

        def recording_rel_shift(module, x, zero_triu=False):
            y = original(module, x, zero_triu)
            self.shifts.append((x.detach().clone(), y.detach().clone(), zero_triu))
            return y

        mem_transformer.RelMultiHeadAttn._rel_shift = recording_rel_shift

    def model(self, d_model, n_head, d_head, tgt_len, mem_len, clamp_len, seed):
        torch = self.torch
        torch.manual_seed(seed)
        m = self.mt.MemTransformerLM(
            n_token=32, n_layer=1, n_head=n_head, d_model=d_model, d_head=d_head,
            d_inner=2 * d_model, dropout=0.0, dropatt=0.0, tgt_len=tgt_len, mem_len=mem_len,
            ext_len=0, clamp_len=clamp_len, attn_type=0).eval()
        # The constructor leaves r_w_bias / r_r_bias as torch.Tensor(...) (uninitialised
        # memory; train.py initialises them): give every weight a seeded value.
        with torch.no_grad():
            for param in m.parameters():
                param.normal_(0.0, 0.02)
        calls = []
        m.pos_emb.register_forward_hook(
            lambda mod, inp, out: calls.append((inp[0].detach().clone(), out.detach().clone())))
        return m, calls


def add_pos_emb(vf, d_model, clamp_len, pos_seq, pos_emb, src, comment, flags):
    klen = pos_emb.shape[0]
    want = np.arange(klen - 1, -1, -1.0)
    if clamp_len > 0:
        want = np.minimum(want, clamp_len)
    if not np.array_equal(pos_seq.numpy(), want):
        raise AssertionError(f"{comment}: pos_seq {pos_seq.tolist()[:4]}... is not the op's")
    vf.add_test("txl.pos_emb", comment, flags, src, {"d_model": d_model, "clamp_len": clamp_len},
                {"klen": klen}, {}, {"pos_emb": vf.tensor(pos_emb[:, 0, :].numpy(), "f32")})


def add_shift(vf, x, y, zero_triu, src, comment, flags):
    q, k = x.shape[0], x.shape[1]
    x = x.reshape(q, k, -1).numpy()
    y = y.reshape(q, k, -1).numpy()
    vf.add_test("txl.rel_shift", comment, flags, src, {}, {"zero_triu": zero_triu},
                {"x": vf.tensor(x, "f32")}, {"out": vf.tensor(y, "f32")})


def build(s, vf):
    torch = s.torch
    src_pe = famgen.source("pytorch/mem_transformer.py", "PositionalEmbedding.forward")
    src_rs = famgen.source("pytorch/mem_transformer.py", "RelMultiHeadAttn._rel_shift")
    # (name, d_model, n_head, d_head, tgt_len, mem_len, clamp_len, given memory, record shifts)
    runs = (
        ("wt103 base width 410", 410, 10, 41, 6, 6, -1, None, True),
        ("enwik8 base width 512", 512, 8, 64, 4, 4, -1, None, True),
        ("wt103 eval (tgt 64, mem 640, clamp 400), width 16", 16, 2, 8, 64, 640, 400, 640, False),
        ("enwik8 eval (tgt 80, mem 2100, clamp 820), width 8", 8, 2, 4, 80, 2100, 820, 2100, False),
    )
    for i, (name, d, nh, dh, tgt, mem, clamp, given, record) in enumerate(runs):
        m, calls = s.model(d, nh, dh, tgt, mem, clamp, seed=1000 + i)
        data = torch.randint(0, 32, (tgt, 2), generator=torch.Generator().manual_seed(i))
        s.shifts.clear()
        with torch.no_grad():
            if given is None:
                out = m(data, data)            # no memory: klen = qlen
                m(data, data, *out[1:])        # with the memory it returned
            else:
                mems = [torch.zeros(given, 2, d) for _ in range(2)]
                m(data, data, *mems)           # a full memory, as at evaluation
        flags = ["reversed_positions", "forward_hook", "real_checkpoint"]
        flags += ["clamp_len"] if clamp > 0 else []
        for ps, pe in calls:
            klen = pe.shape[0]
            mem_flag = ["memory"] if klen > tgt else []
            add_pos_emb(vf, d, clamp, ps, pe, src_pe, f"{name}, klen {klen}", flags + mem_flag)
        if record:
            for x, y, zero_triu in s.shifts:
                add_shift(vf, x, y, zero_triu, src_rs,
                          f"{name}, BD of qlen {x.shape[0]}, klen {x.shape[1]}",
                          ["forward_hook"] + (["memory"] if x.shape[1] > x.shape[0] else []))
    module = s.mt.RelMultiHeadAttn(2, 8, 4, 0.0)
    for q, k, n, zero_triu, flags in ((3, 5, 2, True, ["zero_triu"]), (4, 4, 1, True, ["zero_triu"]),
                                      (1, 6, 3, False, ["single_query"]),
                                      (1, 6, 3, True, ["single_query", "zero_triu"]),
                                      (5, 9, 2, False, [])):
        label = f"_rel_shift qlen {q}, klen {k}, {n} columns, zero_triu {zero_triu}"
        # [qlen, klen, bsz, n_head], the layout the function indexes (zero_triu needs 4-D)
        x = torch.from_numpy(famgen.seeded_normal(label, (q, k, n, 1)))
        y = s.rel_shift(module, x, zero_triu=zero_triu)
        add_shift(vf, x, y, zero_triu, src_rs, label, flags)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "txl", {"--txl": "kimiyoung/transformer-xl checkout"})
    s = Sources(args)
    return famgen.build_and_finish(args.out, "txl", GENERATOR, NOTES, (
        ("mem_transformer", "Transformer-XL relative sinusoid and _rel_shift from mem_transformer.py",
         s.txl.provenance(refsrc.packages(s.torch)), lambda vf: build(s, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
