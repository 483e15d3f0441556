#!/usr/bin/python3
"""Generate pecert's learned absolute-embedding vectors.

    /usr/bin/python3 vectors/gen/gen_learned.py --transformers PATH --fairseq PATH \\
        --out vectors/learned

Sources:
  fairseq   facebookresearch/fairseq fairseq/modules/learned_positional_embedding.py
            LearnedPositionalEmbedding.forward (make_positions, fairseq/utils.py; and the
            incremental decode path): row padding_idx + 1 + p
  roberta   transformers v4.57.6 models/roberta/modeling_roberta.py RobertaEmbeddings.forward
            (create_position_ids_from_input_ids, past_key_values_length, and the
            inputs_embeds path): the same offset
  bert      transformers v4.57.6 models/bert/modeling_bert.py BertEmbeddings.forward: row p
  opt       transformers v4.57.6 models/opt/modeling_opt.py OPTLearnedPositionalEmbedding.forward
            (cumsum of the attention mask, minus 1, plus its offset 2): row 2 + p, padding row 1
  bart      transformers v4.57.6 models/bart/modeling_bart.py BartLearnedPositionalEmbedding.forward
            (arange from the cache's length, plus its offset 2): row 2 + p for every token,
            padding included

The embedding table is an input (seeded float32, every row distinct, the padding row
included: nn.Embedding's padding_idx only stops its gradient).  The transformers modules
run their whole forward; a forward hook on their position_embeddings records the rows
looked up and the embeddings returned, and those are the golden outputs.  The op input
is the 0-based position p of each token (its index among the real tokens, plus the past
length; -1 for a padding token); the generator checks that p maps to the row the
official code used.
"""

import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_learned.py"
FAMILY = "learned"
PAD = 1

NOTES = famgen.notes_table("""
padding_offset  FUNCTIONALITY    fairseq / RoBERTa: token p reads row padding_idx + 1 + p (fairseq
                                 #1177: forgetting the offset reads the wrong row).
plain           FUNCTIONALITY    BERT: token p reads row p.
left_padding    EDGE_CASE        Left-padded row: padding tokens read row padding_idx.
right_padding   EDGE_CASE        Right-padded row: padding tokens read row padding_idx.
past_length     FUNCTIONALITY    past_key_values_length > 0: positions continue a cache.
decode_step     FUNCTIONALITY    fairseq incremental decoding: one token at row padding_idx +
                                 seq_len.
last_row        EDGE_CASE        The last row of the table is read.
inputs_embeds   REFERENCE_QUIRK  RobertaEmbeddings given inputs_embeds: sequential positions
                                 padding_idx + 1 + t for every token, padding not detected.
offset_two      FUNCTIONALITY    OPT / BART: an offset of 2 rows (padding_idx 1 in pecert's
                                 convention); OPT's padding row 1, BART's padding takes positions.
""")


def table(label, rows, dim):
    return famgen.seeded_normal(label, (rows, dim))


def positions_from_tokens(tokens, pad, past=0):
    out = []
    for row in tokens:
        k = 0
        pos = []
        for tok in row:
            pos.append(-1 if tok == pad else k + past)
            k += tok != pad
        out.append(pos)
    return out


def add(vf, convention, weight, positions, rows, emb, src, comment, flags):
    config = {"convention": convention}
    if convention == "padding_offset":
        config["padding_idx"] = PAD
        want = [PAD if p < 0 else PAD + 1 + p for p in positions]
    else:
        want = list(positions)
    if list(rows) != want:
        raise AssertionError(f"{comment}: the official code read rows {list(rows)}, "
                             f"the op semantics give {want}")
    emb = np.asarray(emb, dtype=np.float32)
    if not np.array_equal(emb.view(np.uint32), weight[want].view(np.uint32)):
        raise AssertionError(f"{comment}: embeddings are not the table rows")
    vf.add_test("learned.lookup", comment, flags, src, config, {},
                {"table": vf.tensor(weight, "f32"),
                 "positions": vf.tensor(np.asarray(positions, dtype=np.int64), "i64")},
                {"embedding": vf.tensor(emb, "f32")})


class Hook:
    """Records what an nn.Embedding was asked for and what it returned."""

    def __init__(self, module):
        self.calls = []
        self.handle = module.register_forward_hook(self)

    def __call__(self, module, inputs, output):
        self.calls.append((inputs[0].detach().clone(), output.detach().clone()))


def build_fairseq(fs_lpe, torch, vf):
    src = famgen.source("fairseq/modules/learned_positional_embedding.py",
                        "LearnedPositionalEmbedding.forward")
    rows, dim = 12, 4  # max_positions 10 + padding_idx + 1, as fairseq's PositionalEmbedding
    cases = (
        ([[4, 5, 6, 7, 8]], "5 tokens", []),
        ([[PAD, PAD, 4, 5, 6], [4, 5, 6, 7, 8]], "left-padded batch", ["left_padding"]),
        ([[4, 5, 6, PAD, PAD], [4, 5, 6, 7, 8]], "right-padded batch", ["right_padding"]),
        ([[4, 5, 6, 7, 8, 9, 10, 11, 12, 13]], "10 tokens up to the last row", ["last_row"]),
    )
    for tokens, comment, flags in cases:
        label = f"fairseq {comment}"
        weight = table(label, rows, dim)
        module = fs_lpe.LearnedPositionalEmbedding(rows, dim, PAD)
        with torch.no_grad():
            module.weight.copy_(torch.from_numpy(weight))
        tok = torch.tensor(tokens, dtype=torch.int64)
        out = module.forward(tok)
        from fairseq import utils as fs_utils
        official_rows = fs_utils.make_positions(tok, PAD)
        for b, pos in enumerate(positions_from_tokens(tokens, PAD)):
            what = f", row {b}" if len(tokens) > 1 else ""
            add(vf, "padding_offset", weight, pos, official_rows[b].tolist(), out[b].detach().numpy(),
                src, f"fairseq, {comment}{what}", ["padding_offset"] + flags)
    weight = table("fairseq decode", rows, dim)
    module = fs_lpe.LearnedPositionalEmbedding(rows, dim, PAD)
    with torch.no_grad():
        module.weight.copy_(torch.from_numpy(weight))
    for seq in (1, 4, 10):
        out = module.forward(torch.full((1, seq), 4, dtype=torch.int64), incremental_state={})
        add(vf, "padding_offset", weight, [seq - 1], [PAD + seq], out[:, 0].detach().numpy(), src,
            f"fairseq, decode step {seq}", ["padding_offset", "decode_step"]
            + (["last_row"] if seq == 10 else []))


def build_roberta(hf, torch, vf):
    from transformers.models.roberta import configuration_roberta, modeling_roberta
    src = famgen.source("src/transformers/models/roberta/modeling_roberta.py",
                        "RobertaEmbeddings.forward")
    rows, dim = 12, 4
    config = configuration_roberta.RobertaConfig(
        vocab_size=32, hidden_size=dim, num_hidden_layers=1, num_attention_heads=1,
        intermediate_size=8, max_position_embeddings=rows, pad_token_id=PAD, type_vocab_size=1)
    cases = (
        ([[5, 6, 7, 8, 9]], 0, "5 tokens", []),
        ([[PAD, PAD, 5, 6, 7], [5, 6, 7, 8, 9]], 0, "left-padded batch", ["left_padding"]),
        ([[5, 6, PAD, PAD, PAD]], 0, "right-padded row", ["right_padding"]),
        ([[5, 6]], 3, "2 tokens after 3 cached", ["past_length"]),
        ([[5, 6, 7, 8, 9, 10, 11, 12, 13, 14]], 0, "10 tokens up to the last row", ["last_row"]),
    )
    for tokens, past, comment, flags in cases:
        label = f"roberta {comment}"
        weight = table(label, rows, dim)
        emb = modeling_roberta.RobertaEmbeddings(config).eval()
        with torch.no_grad():
            emb.position_embeddings.weight.copy_(torch.from_numpy(weight))
        hook = Hook(emb.position_embeddings)
        with torch.no_grad():
            emb.forward(input_ids=torch.tensor(tokens, dtype=torch.int64),
                        past_key_values_length=past)
        (ids, out), = hook.calls
        for b, pos in enumerate(positions_from_tokens(tokens, PAD, past)):
            what = f", row {b}" if len(tokens) > 1 else ""
            add(vf, "padding_offset", weight, pos, ids[b].tolist(), out[b].numpy(), src,
                f"RoBERTa, {comment}{what}", ["padding_offset"] + flags)
    weight = table("roberta inputs_embeds", rows, dim)
    emb = modeling_roberta.RobertaEmbeddings(config).eval()
    with torch.no_grad():
        emb.position_embeddings.weight.copy_(torch.from_numpy(weight))
    hook = Hook(emb.position_embeddings)
    with torch.no_grad():
        emb.forward(inputs_embeds=torch.zeros(1, 6, dim))
    (ids, out), = hook.calls
    add(vf, "padding_offset", weight, list(range(6)), ids[0].tolist(), out[0].numpy(), src,
        "RoBERTa, inputs_embeds (6 tokens, no padding detection)",
        ["padding_offset", "inputs_embeds"])


def build_bert(hf, torch, vf):
    from transformers.models.bert import configuration_bert, modeling_bert
    src = famgen.source("src/transformers/models/bert/modeling_bert.py", "BertEmbeddings.forward")
    rows, dim = 10, 4
    config = configuration_bert.BertConfig(
        vocab_size=32, hidden_size=dim, num_hidden_layers=1, num_attention_heads=1,
        intermediate_size=8, max_position_embeddings=rows, pad_token_id=0, type_vocab_size=1)
    for seq, past, comment, flags in ((6, 0, "6 tokens", []),
                                      (3, 4, "3 tokens after 4 cached", ["past_length"]),
                                      (10, 0, "10 tokens up to the last row", ["last_row"])):
        weight = table(f"bert {comment}", rows, dim)
        emb = modeling_bert.BertEmbeddings(config).eval()
        with torch.no_grad():
            emb.position_embeddings.weight.copy_(torch.from_numpy(weight))
        hook = Hook(emb.position_embeddings)
        with torch.no_grad():
            emb.forward(input_ids=torch.full((1, seq), 5, dtype=torch.int64),
                        past_key_values_length=past)
        (ids, out), = hook.calls
        add(vf, "plain", weight, list(range(past, past + seq)), ids[0].tolist(), out[0].numpy(),
            src, f"BERT, {comment}", ["plain"] + flags)


def rows_of(out, weight):
    """The table rows an embedding module returned, found by value (every row of a
    seeded table is distinct): what the official forward read, observed, not
    recomputed."""
    found = []
    for vec in np.asarray(out, dtype=np.float32):
        hits = [r for r in range(weight.shape[0]) if np.array_equal(weight[r].view(np.uint32), vec.view(np.uint32))]
        if len(hits) != 1:
            raise AssertionError("an output row is not exactly one table row")
        found.append(hits[0])
    return found


def build_opt(hf, torch, vf):
    """OPT: the model hands OPTLearnedPositionalEmbedding the attention mask (OPTDecoder.
    forward); the positions are the mask's cumsum times the mask, minus 1 (padding -1),
    the rows those plus 2."""
    from transformers.models.opt import modeling_opt
    src = famgen.source("src/transformers/models/opt/modeling_opt.py", "OPTLearnedPositionalEmbedding.forward")
    rows, dim = 10, 4  # max_position_embeddings 8 + the offset 2
    cases = (
        ([[1, 1, 1, 1, 1]], 0, "5 tokens", []),
        ([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]], 0, "left-padded batch", ["left_padding"]),
        ([[1, 1, 1, 1, 1, 1]], 4, "2 tokens after 4 cached", ["past_length"]),
        ([[1] * 8], 0, "8 tokens up to the last row", ["last_row"]),
    )
    for mask, past, comment, flags in cases:
        weight = table(f"opt {comment}", rows, dim)
        module = modeling_opt.OPTLearnedPositionalEmbedding(rows - 2, dim)
        with torch.no_grad():
            module.weight.copy_(torch.from_numpy(weight))
            m = torch.tensor(mask, dtype=torch.int64)
            out = module.forward(m, past_key_values_length=past)
        for b, row in enumerate(mask):
            # pecert's position of each token: its index among the unmasked ones, -1 masked.
            pos = positions_from_tokens([[5 if t else 0 for t in row]], 0)[0][past:]
            what = f", row {b}" if len(mask) > 1 else ""
            add(vf, "padding_offset", weight, pos, rows_of(out[b].numpy(), weight), out[b].numpy(), src,
                f"OPT, {comment}{what}", ["padding_offset", "offset_two"] + flags)


def build_bart(hf, torch, vf):
    """BART (and mBART, PLBart, MVP, which copy it): arange from the cache's length plus 2."""
    from transformers.models.bart import modeling_bart
    src = famgen.source("src/transformers/models/bart/modeling_bart.py", "BartLearnedPositionalEmbedding.forward")
    rows, dim = 10, 4
    for seq, past, comment, flags in ((5, 0, "5 tokens", []), (2, 4, "2 tokens after 4 cached", ["past_length"]),
                                      (8, 0, "8 tokens up to the last row", ["last_row"])):
        weight = table(f"bart {comment}", rows, dim)
        module = modeling_bart.BartLearnedPositionalEmbedding(rows - 2, dim)
        with torch.no_grad():
            module.weight.copy_(torch.from_numpy(weight))
            out = module.forward(torch.full((1, seq), 5, dtype=torch.int64), past_key_values_length=past)
        pos = list(range(past, past + seq))
        add(vf, "padding_offset", weight, pos, rows_of(out[0].numpy(), weight), out[0].numpy(), src,
            f"BART, {comment}", ["padding_offset", "offset_two"] + flags)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, "learned", {
        "--transformers": "transformers checkout (v4.57.6)",
        "--fairseq": "facebookresearch/fairseq checkout",
    })
    fs = refsrc.Checkout("facebookresearch/fairseq", args.fairseq)
    hf = hfref.Reference(args.transformers)
    torch = hf.torch
    # fairseq/__init__.py pulls in hydra and every model; the module needs torch only.
    refsrc.stub_package("fairseq", fs.path("fairseq"))
    refsrc.stub_package("fairseq.modules", fs.path("fairseq/modules"))
    from fairseq.modules import learned_positional_embedding as fs_lpe
    packages = refsrc.packages(torch)
    packages["transformers"] = hf.transformers.__version__
    hf_prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
               "packages": packages}
    return famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("fairseq", "Learned positions, fairseq LearnedPositionalEmbedding (padding_idx offset)",
         fs.provenance(packages), lambda vf: build_fairseq(fs_lpe, torch, vf)),
        ("roberta", "Learned positions, transformers RobertaEmbeddings (padding_idx offset)",
         hf_prov, lambda vf: build_roberta(hf, torch, vf)),
        ("bert", "Learned positions, transformers BertEmbeddings (plain indexing)", hf_prov,
         lambda vf: build_bert(hf, torch, vf)),
        ("opt", "Learned positions, transformers OPTLearnedPositionalEmbedding (mask cumsum, offset 2)",
         hf_prov, lambda vf: build_opt(hf, torch, vf)),
        ("bart", "Learned positions, transformers BartLearnedPositionalEmbedding (arange, offset 2)",
         hf_prov, lambda vf: build_bart(hf, torch, vf)),
    ))


if __name__ == "__main__":
    sys.exit(main())
