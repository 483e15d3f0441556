#!/usr/bin/python3
"""Generate pecert's DeBERTa disentangled-attention vectors (v1 deberta, v2/v3 deberta-v2).

    /usr/bin/python3 vectors/gen/gen_deberta.py --transformers PATH --out vectors/deberta

Source: huggingface/transformers v4.57.6 (commit pinned in hfref.py), imported from the
checkout, each function called as the model calls it:
  relpos.json (deberta.relpos)
    src/transformers/models/deberta_v2/modeling_deberta_v2.py build_relative_position(
    query_layer, key_layer, bucket_size, max_position) on zero tensors [1, q_len, 1] and
    [1, k_len, 1] (only their lengths are read); its [1, q_len, k_len] int64 result is
    recorded without the leading 1.  (the scripted make_log_bucket_position does the bucketing
    in float32.)  The unbucketed vector is also recomputed by v1's build_relative_position
    (modeling_deberta.py), which must agree bit for bit.
  transformers.json (deberta.bias)
    DebertaV2: DebertaV2Encoder(DebertaV2Config(hidden_size H d, num_attention_heads H,
    num_hidden_layers 1, relative_attention, position_buckets, max_relative_positions,
    pos_att_type, share_att_key, norm_rel_ebd "layer_norm", layer_norm_eps 1e-7)) in eval
    mode, every parameter replaced by a seeded one (rel_embeddings N(0, 1), Linear weights
    N(0, 1/fan_in), biases N(0, 0.01), LayerNorm weight 1 + N(0, 0.01)); its layer 0's
    DisentangledSelfAttention.disentangled_attention_bias(query_layer, key_layer,
    relative_pos, rel_embeddings, scale_factor) called with seeded query_layer, key_layer
    [n, L, d] (n = batch x H, as forward flattens them), relative_pos = the encoder's
    get_rel_pos(hidden_states) (build_relative_position, [1, L, L]), rel_embeddings = the
    encoder's get_rel_embedding() (the table LayerNormed, as for every v2/v3 checkpoint)
    through pos_dropout (eval: the identity), scale_factor = 1 + the number of terms (as
    forward computes it).  The call is repeated with relative_pos None (the method builds
    it itself) and must give the same bits.  pos_key / pos_query are the per-head tables
    the method builds, [H, 2 span, d] (before its .repeat over the batch): the outputs of
    pos_key_proj / pos_query_proj (key_proj / query_proj with share_att_key) captured by
    forward hooks during the call, put through the module's transpose_for_scores; each
    is recomputed the same way outside the call and must be the same bits.
    Deberta (v1): DebertaEncoder(DebertaConfig(relative_attention, pos_att_type
    "c2p|p2c", max_relative_positions -1, max_position_embeddings 512, ...)) built and
    seeded the same way (no LayerNorm: v1 reads its rel_embeddings raw); layer 0's
    DisentangledSelfAttention.disentangled_att_bias(query_layer / scale, key_layer,
    relative_pos, rel_embeddings, scale_factor) with query_layer, key_layer [B, H, L, d],
    scale = the module's scaled_size_sqrt(query_layer, 3) (forward divides the query before
    the call), relative_pos the encoder's get_rel_pos.  q records the query BEFORE that
    division; pos_key / pos_query are the per-head projections of the whole 1024-row table
    by pos_proj / pos_q_proj (pos_query not divided: the method divides it by s itself).
    v1 slices rows 512 - S .. 512 + S, S = min(L, 512): the hooks capture the projected
    slice, whose rows must equal the whole table's rows 512 - S .. 512 + S, and the float64
    recomputation at span 512 must match.  v1's method with relative_pos None is not
    called: its scripted build_relative_position takes 2 arguments and the method passes
    3 (a RuntimeError); forward never calls it so.
    The output [B, H, L, L] (v1) / [n, L, L] (v2) is recorded as bias [n, L, L], row
    b H + h using head h's tables.

Self-checks, any failure fatal:
  - every relative position (relpos vectors and the ones the bias calls use) equals an
    exact evaluation of the bucket formula: ceil((mid - 1) ln(a / mid) / ln((mp - 1) / mid))
    is the least integer m with a^(mid - 1) mid^m <= (mp - 1)^m mid^(mid - 1), decided in
    Python integers; the plain float64 formula (math.log) is compared with that too, and
    the counts where float32 (the official result) or float64 differ from it are printed
    (expected: none), with the smallest distance of a non-integer pre-ceil value to an
    integer;
  - every bias is recomputed here in numpy float64 from FORMAT.md's formula and the recorded
    inputs (q, k, pos_key, pos_query, the exact buckets, s = sqrt(d sf)) and must agree within
        (d + 8) 2^-24 (sum_c |q_c pos_key_c| + sum_c |k_c pos_query_c|) / s + 2^-24 |bias|
    (the float32 dot products, the float32 scale and divisions, v1's pre-divided query and
    position queries, the final sum); the worst ratio of deviation to bound is printed;
  - shapes and dtypes of every official result, and every flag against the vector it labels.

Payload: random float32 does not compress, and the whole family is kept under 8 MB raw.
The fixed cost of a vector is its tables (2 x H x 2 span x d floats: 0.5 MB at the v3
shape 256 / 512 with H 2, d 64; 1 MB for v1's 1024 rows), the bias n L^2.  So head_dim 64
(every checkpoint's) is kept on one vector per module at H 2 (v2 L 130, v1 L 64); the other
vectors use head_dim 16 or 32 (flag small_head_dim), v2 L 300 8, and the two longest (v2 L 600,
v1 L 520, one head each, the ones past max_position) 4: every mutant run of pecert's gate
reads them (the rows they read are what they are for; the products are the short ones').
"""

import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import famgen  # noqa: E402
import hfref  # noqa: E402
import refsrc  # noqa: E402

GENERATOR = "vectors/gen/gen_deberta.py"
FAMILY = "deberta"
V2_FILE = "src/transformers/models/deberta_v2/modeling_deberta_v2.py"
V1_FILE = "src/transformers/models/deberta/modeling_deberta.py"
SRC_RELPOS = famgen.source(V2_FILE, "build_relative_position")
SRC_V2 = famgen.source(V2_FILE, "DisentangledSelfAttention.disentangled_attention_bias")
SRC_V1 = famgen.source(V1_FILE, "DisentangledSelfAttention.disentangled_att_bias")

# Every DeBERTa-v2/v3 checkpoint (deberta-v2-xlarge/xxlarge, deberta-v3-small/base/large,
# mdeberta-v3-base): position_buckets 256, max_relative_positions -1 -> 512.
V3_BUCKETS, V3_MAX = 256, 512

NOTES = famgen.notes_table("""
real_checkpoint       FUNCTIONALITY       The released checkpoints' position configuration. relpos:
                                          bucket_size 256, max_position 512 (every DeBERTa-v2/v3
                                          checkpoint). bias: DebertaV2 256 / 512, both terms,
                                          share_att_key, head_dim 64 (v2/v3); Deberta 512 rows, no
                                          buckets, both terms, head_dim 64 (deberta-base/large).
synthetic             MODIFIED_PARAMETER  A position configuration no released checkpoint uses (other
                                          bucket_size / max_position, one term only, or no buckets in
                                          DebertaV2).
small_head_dim        MODIFIED_PARAMETER  head_dim below the checkpoints' 64 (8, 16 or 32), to keep the
                                          payload small: the tables' rows are the same code path.
one_head              MODIFIED_PARAMETER  H = 1 (n = 1): a long sequence's single-head bias, to keep the
                                          payload small.
log_buckets           FUNCTIONALITY       Some |i - j| > mid = bucket_size / 2: log-spaced buckets
                                          sign(r) (mid + ceil((mid - 1) ln(|r| / mid) / ln((max_position
                                          - 1) / mid))), computed by transformers in float32.
integer_boundary      EDGE_CASE           |i - j| = max_position - 1 occurs: the pre-ceil value is exactly
                                          the integer mid - 1 (the two logs of the same float32 value),
                                          bucket +-(2 mid - 1); one ulp too much in either log makes it 2
                                          mid (TensorRT added a (1 - 1e-7) factor for this; KerasHub's
                                          operation order flips it at 32 / 512).
beyond_max_position   EDGE_CASE           Some |i - j| >= max_position with buckets: transformers does not
                                          clamp there, the bucket keeps growing past 2 mid - 1 (256 / 512:
                                          b(512) = 256, b(599) = 270); microsoft/DeBERTa's current code
                                          (c794b71, da_utils.make_log_bucket_position) clamps |r| to
                                          max_position - 1 first (bucket 255), so its results differ there.
index_clamped         EDGE_CASE           Some b(i - j) + span outside [0, 2 span - 1]: the table row is
                                          clamped (c2p and p2c alike read row clamp(b(i - j) + span)).
no_buckets            FUNCTIONALITY       bucket_size <= 0: relative positions are i - j unbucketed (v1,
                                          or DebertaV2 with position_buckets -1).
one_query             EDGE_CASE           q_len = 1: every r = -j <= 0.
one_key               EDGE_CASE           k_len = 1: every r = i >= 0.
c2p_only              EDGE_CASE           pos_att_type c2p alone: sf = 2, pos_query recorded, unread.
p2c_only              EDGE_CASE           pos_att_type p2c alone: sf = 2, pos_key recorded, unread (the official
                                          gather at -b(j - i) and transpose read the same row as c2p).
separate_pos_proj     FUNCTIONALITY       share_att_key False: the tables are pos_key_proj /
                                          pos_query_proj of the table, not the content key_proj /
                                          query_proj (the op sees only the projected tables).
one_token             EDGE_CASE           L = 1: the single pair r = 0, table row span.
batch_repeat          FUNCTIONALITY       n > H (batch 2): row n reads head n mod H's tables (the
                                          official .repeat over the batch).
v1                    FUNCTIONALITY       Deberta (v1): the query divided by s before the call, the
                                          position queries divided by s inside it, rows 512 - S .. 512 +
                                          S of the 1024-row table (S = min(L, 512)) recorded as the whole
                                          table at span 512.
""")

STATS = {"worst_ratio": 0.0, "worst_test": "", "ratios": {}}
BUCKET_STATS = {}  # (bucket_size, max_position) -> [checked, f64 differs, f32 differs, min margin]


# -- the exact bucket -----------------------------------------------------------------------------

_EXACT = {}


def exact_bucket(r, bucket_size, max_position):
    """FORMAT.md's b(r), decided in integers: for a = |r| > mid, ceil(x) with
    x = (mid - 1) ln(a / mid) / ln((mp - 1) / mid) is the least m with
    (a / mid)^(mid - 1) <= ((mp - 1) / mid)^m, i.e. a^(mid-1) mid^m <= (mp-1)^m mid^(mid-1).
    Returns (b, whether x is exactly an integer)."""
    if bucket_size <= 0 or max_position <= 0:
        return r, True
    mid = bucket_size // 2
    a = abs(r)
    if a <= mid:
        return r, True
    key = (a, mid, max_position)
    if key not in _EXACT:
        mp1 = max_position - 1
        if mp1 <= mid:
            raise AssertionError(f"max_position {max_position} <= mid + 1: ln((mp - 1) / mid) <= 0")
        lhs = a ** (mid - 1)
        rhs0 = mid ** (mid - 1)
        estimate = (mid - 1) * math.log(a / mid) / math.log(mp1 / mid)
        m = max(0, int(math.floor(estimate)) - 2)
        if lhs * mid ** m <= mp1 ** m * rhs0:
            raise AssertionError(f"exact bucket search for a={a} started too high")
        while not lhs * mid ** m <= mp1 ** m * rhs0:
            m += 1
        _EXACT[key] = (m, lhs * mid ** m == mp1 ** m * rhs0)
    m, integer = _EXACT[key]
    return (1 if r > 0 else -1) * (mid + m), integer


def float64_bucket(r, bucket_size, max_position):
    """The formula in double (math.log), torch's operation order; also the pre-ceil value."""
    if bucket_size <= 0 or max_position <= 0:
        return r, None
    mid = bucket_size // 2
    a = abs(r)
    if a <= mid:
        return r, None
    x = math.log(a / mid) / math.log((max_position - 1) / mid) * (mid - 1)
    return (1 if r > 0 else -1) * (mid + math.ceil(x)), x


def check_buckets(label, got, q_len, k_len, bucket_size, max_position):
    """got [q_len, k_len] int64 from the official code against the exact formula; the
    float64 formula is compared with the exact one too.  Returns the exact b(i - j)."""
    r = np.arange(q_len)[:, None] - np.arange(k_len)[None, :]
    lo, hi = int(r.min()), int(r.max())
    table = {}
    stats = BUCKET_STATS.setdefault((bucket_size, max_position), [0, 0, 0, math.inf, set()])
    for v in range(lo, hi + 1):
        b, integer = exact_bucket(v, bucket_size, max_position)
        table[v] = b
        if v in stats[4]:
            continue
        stats[4].add(v)
        stats[0] += 1
        b64, x = float64_bucket(v, bucket_size, max_position)
        if b64 != b:
            stats[1] += 1
        if x is not None and not integer:
            stats[3] = min(stats[3], abs(x - round(x)))
    want = np.vectorize(table.__getitem__, otypes=[np.int64])(r)
    if got.dtype != np.int64 or got.shape != (q_len, k_len):
        raise AssertionError(f"{label}: relative positions {got.dtype} {got.shape}")
    bad = got != want
    if bad.any():
        stats[2] += int(bad.sum())
        i, j = np.argwhere(bad)[0]
        raise AssertionError(f"{label}: official b({i - j}) = {got[i, j]}, exact {want[i, j]} "
                             f"({int(bad.sum())} differ)")
    return want


# -- the official code ----------------------------------------------------------------------------

class Sources:
    def __init__(self, hf):
        self.hf = hf
        self.torch = hf.torch
        from transformers.models.deberta import configuration_deberta, modeling_deberta
        from transformers.models.deberta_v2 import configuration_deberta_v2, modeling_deberta_v2
        self.m1, self.m2 = modeling_deberta, modeling_deberta_v2
        self.c1, self.c2 = configuration_deberta, configuration_deberta_v2
        root = os.path.realpath(hf.src_root)
        for mod in (modeling_deberta, modeling_deberta_v2):
            if not os.path.realpath(mod.__file__).startswith(root + os.sep):
                raise SystemExit(f"{mod.__name__} imported from {mod.__file__}, not the checkout")
        packages = refsrc.packages(self.torch)
        packages["transformers"] = hf.transformers.__version__
        self.prov = {"repo": hfref.REF_REPO, "commit": hfref.REF_COMMIT, "tag": hfref.REF_TAG,
                     "packages": packages}

    def seed(self, module, label):
        """Replace every parameter by a seeded one (independent of torch's generator)."""
        torch = self.torch
        with torch.no_grad():
            for name, p in sorted(module.named_parameters()):
                x = famgen.seeded_normal(f"{label}/param/{name}", tuple(p.shape)).astype(np.float64)
                if name.endswith("rel_embeddings.weight"):
                    pass
                elif "LayerNorm" in name and name.endswith("weight"):
                    x = 1 + 0.1 * x
                elif p.dim() == 2:
                    x = x / math.sqrt(p.shape[1])
                else:
                    x = 0.1 * x
                p.copy_(torch.from_numpy(x.astype(np.float32)))

    def encoder_v2(self, label, heads, d, buckets, max_rel, pos_att_type, share):
        kw = {"position_buckets": buckets, "share_att_key": share, "norm_rel_ebd": "layer_norm"}
        cfg = self.c2.DebertaV2Config(hidden_size=heads * d, num_attention_heads=heads, num_hidden_layers=1,
                                      intermediate_size=2 * heads * d, relative_attention=True,
                                      max_relative_positions=max_rel, max_position_embeddings=512,
                                      pos_att_type=pos_att_type, position_biased_input=False,
                                      layer_norm_eps=1e-7, **kw)
        enc = self.m2.DebertaV2Encoder(cfg)
        self.seed(enc, label)
        enc.eval()
        return enc

    def encoder_v1(self, label, heads, d):
        cfg = self.c1.DebertaConfig(hidden_size=heads * d, num_attention_heads=heads, num_hidden_layers=1,
                                    intermediate_size=2 * heads * d, relative_attention=True,
                                    max_relative_positions=-1, max_position_embeddings=512,
                                    pos_att_type="c2p|p2c", position_biased_input=False)
        enc = self.m1.DebertaEncoder(cfg)
        self.seed(enc, label)
        enc.eval()
        return enc


class Capture:
    """Forward hooks that keep a copy of each named Linear's output (the method divides v1's
    position queries in place, so the copy is taken as the Linear returns)."""

    def __init__(self, modules):
        self.out = {}
        self.handles = [m.register_forward_hook(self._hook(name)) for name, m in modules.items()]

    def _hook(self, name):
        def hook(module, args, output):
            if name in self.out:
                raise AssertionError(f"{name} called twice")
            self.out[name] = output.detach().clone()
        return hook

    def close(self):
        for h in self.handles:
            h.remove()


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


# -- the float64 formula ------------------------------------------------------------------------

def formula(q, k, pos_key, pos_query, bucket_size, max_position, exact_b, terms):
    """FORMAT.md's bias [n, L, L] in float64 and its bound; exact_b [L, L] = b(i - j); the
    terms ("c2p", "p2c", "c2p|p2c") say which tables are read (both are recorded)."""
    n, length, d = q.shape
    span = bucket_size if bucket_size > 0 else max_position
    terms = terms.split("|")
    pos_key = pos_key if "c2p" in terms else None
    pos_query = pos_query if "p2c" in terms else None
    tables = [t for t in (pos_key, pos_query) if t is not None]
    heads = tables[0].shape[0]
    sf = 1 + len(tables)
    s = math.sqrt(d * sf)
    idx = np.clip(exact_b + span, 0, 2 * span - 1)
    rows = np.arange(n) % heads
    bias = np.zeros((n, length, length))
    mag = np.zeros((n, length, length))
    ii = np.arange(length)[:, None]
    jj = np.arange(length)[None, :]
    if pos_key is not None:
        pk = pos_key.astype(np.float64)[rows]
        a = np.einsum("nic,nmc->nim", q.astype(np.float64), pk)
        am = np.einsum("nic,nmc->nim", np.abs(q.astype(np.float64)), np.abs(pk))
        bias += a[:, ii, idx]
        mag += am[:, ii, idx]
    if pos_query is not None:
        pq = pos_query.astype(np.float64)[rows]
        b = np.einsum("njc,nmc->njm", k.astype(np.float64), pq)
        bm = np.einsum("njc,nmc->njm", np.abs(k.astype(np.float64)), np.abs(pq))
        bias += b[:, jj, idx]
        mag += bm[:, jj, idx]
    bias /= s
    bound = (d + 8) * 2.0 ** -24 * mag / s + 2.0 ** -24 * np.abs(bias)
    return bias, bound, idx


# -- recording ------------------------------------------------------------------------------------

def check_flags(comment, flags, facts):
    wrong = [f for f, fact in facts.items() if (f in flags) != bool(fact)]
    unknown = set(flags) - set(facts)
    if wrong or unknown:
        raise AssertionError(f"{comment}: flags {sorted(wrong) + sorted(unknown)} do not describe it")


def record_relpos(s, vf, comment, flags, bucket_size, max_position, q_len, k_len):
    torch = s.torch
    query = torch.zeros((1, q_len, 1))
    key = torch.zeros((1, k_len, 1))
    out = s.m2.build_relative_position(query, key, bucket_size, max_position)
    if out.dtype != torch.int64 or tuple(out.shape) != (1, q_len, k_len):
        raise AssertionError(f"{comment}: build_relative_position returned {out.dtype} {tuple(out.shape)}")
    got = out[0].numpy().copy()
    check_buckets(comment, got, q_len, k_len, bucket_size, max_position)
    if bucket_size <= 0:
        v1 = s.m1.build_relative_position(query, key)[0].numpy()
        if not same_bits(v1, got):
            raise AssertionError(f"{comment}: v1's build_relative_position differs")
    mid = bucket_size // 2
    far = max(q_len - 1, k_len - 1)
    bucketed = bucket_size > 0
    check_flags(comment, flags, {
        "real_checkpoint": (bucket_size, max_position) == (V3_BUCKETS, V3_MAX),
        "synthetic": bucketed and (bucket_size, max_position) != (V3_BUCKETS, V3_MAX),
        "no_buckets": not bucketed,
        "log_buckets": bucketed and far > mid,
        "integer_boundary": bucketed and far >= max_position - 1,
        "beyond_max_position": bucketed and far >= max_position,
        "one_query": q_len == 1,
        "one_key": k_len == 1,
    })
    vf.add_test("deberta.relpos", comment, flags, SRC_RELPOS,
                {"bucket_size": bucket_size, "max_position": max_position, "q_len": q_len, "k_len": k_len},
                {}, {}, {"relative_pos": vf.tensor(got, "i64")})


def run_v2(s, label, heads, n, length, d, buckets, max_rel, terms, share, pos_att_type):
    """One DebertaV2 call; returns config, q, k, pos_key, pos_query, bias, exact buckets."""
    torch = s.torch
    enc = s.encoder_v2(label, heads, d, buckets, max_rel, pos_att_type, share)
    att = enc.layer[0].attention.self
    if att.attention_head_size != d or att.num_attention_heads != heads or att.share_att_key != share:
        raise AssertionError(f"{label}: module built with {att.attention_head_size}, {att.num_attention_heads}")
    span = att.pos_ebd_size
    bucket_size = att.position_buckets if att.position_buckets > 0 else -1
    max_position = att.max_relative_positions
    if span != (bucket_size if bucket_size > 0 else max_position) or \
            enc.rel_embeddings.weight.shape[0] != 2 * span:
        raise AssertionError(f"{label}: span {span}, table {tuple(enc.rel_embeddings.weight.shape)}")
    sf = 1 + ("c2p" in att.pos_att_type) + ("p2c" in att.pos_att_type)
    q = famgen.seeded_normal(label + "/q", (n, length, d))
    k = famgen.seeded_normal(label + "/k", (n, length, d))
    tq, tk = torch.from_numpy(q), torch.from_numpy(k)
    if share:
        names = {"pos_key": att.key_proj, "pos_query": att.query_proj}
    else:
        names = {}
        if "c2p" in att.pos_att_type:
            names["pos_key"] = att.pos_key_proj
        if "p2c" in att.pos_att_type:
            names["pos_query"] = att.pos_query_proj
    with torch.no_grad():
        hidden = torch.zeros((n // heads, length, heads * d))
        relative_pos = enc.get_rel_pos(hidden)
        rel_embeddings = att.pos_dropout(enc.get_rel_embedding())
        cap = Capture(names)
        try:
            bias = att.disentangled_attention_bias(tq, tk, relative_pos, rel_embeddings, sf)
        finally:
            cap.close()
        again = att.disentangled_attention_bias(tq, tk, None, rel_embeddings, sf)
        tables = {}
        for name, proj in names.items():
            if tuple(cap.out[name].shape) != (1, 2 * span, heads * d):
                raise AssertionError(f"{label}: {name} projection {tuple(cap.out[name].shape)}")
            got = att.transpose_for_scores(cap.out[name], heads).numpy().copy()
            alone = att.transpose_for_scores(proj(rel_embeddings[0:2 * span, :].unsqueeze(0)), heads).numpy()
            if not same_bits(got, alone):
                raise AssertionError(f"{label}: {name} recomputed outside the call differs")
            tables[name] = got
    if bias.dtype != torch.float32 or tuple(bias.shape) != (n, length, length):
        raise AssertionError(f"{label}: bias {bias.dtype} {tuple(bias.shape)}")
    bias = bias.numpy().copy()
    if not same_bits(bias, again.numpy()):
        raise AssertionError(f"{label}: relative_pos None gives other bits")
    rp = relative_pos.numpy()
    if rp.shape != (1, length, length):
        raise AssertionError(f"{label}: get_rel_pos returned {rp.shape}")
    exact_b = check_buckets(label, rp[0].copy(), length, length, bucket_size, max_position)
    # Both tables are recorded (FORMAT.md): the one of a term not asked for is the projection
    # the model makes anyway (share_att_key builds both from key_proj / query_proj).
    if set(tables) != {"pos_key", "pos_query"}:
        raise AssertionError(f"{label}: both tables needed, the model made {sorted(tables)}")
    pos_key, pos_query = tables["pos_key"], tables["pos_query"]
    cfg = {"bucket_size": bucket_size, "max_position": max_position, "terms": terms, "module": "DebertaV2"}
    return cfg, q, k, pos_key, pos_query, bias, exact_b


def run_v1(s, label, heads, batch, length, d):
    torch = s.torch
    enc = s.encoder_v1(label, heads, d)
    att = enc.layer[0].attention.self
    if att.attention_head_size != d or att.max_relative_positions != 512 or att.pos_att_type != ["c2p", "p2c"]:
        raise AssertionError(f"{label}: v1 module {att.attention_head_size} {att.max_relative_positions}")
    if enc.rel_embeddings.weight.shape[0] != 1024:
        raise AssertionError(f"{label}: v1 table {tuple(enc.rel_embeddings.weight.shape)}")
    n = batch * heads
    sf = 1 + len(att.pos_att_type)
    q = famgen.seeded_normal(label + "/q", (n, length, d))
    k = famgen.seeded_normal(label + "/k", (n, length, d))
    tq = torch.from_numpy(q).reshape(batch, heads, length, d)
    tk = torch.from_numpy(k).reshape(batch, heads, length, d)
    span_s = min(length, 512)
    with torch.no_grad():
        scale = s.m1.scaled_size_sqrt(tq, sf)
        query_layer = tq / scale.to(dtype=tq.dtype)  # as forward does before the call
        hidden = torch.zeros((batch, length, heads * d))
        relative_pos = enc.get_rel_pos(hidden)
        rel_embeddings = att.pos_dropout(enc.get_rel_embedding())
        cap = Capture({"pos_key": att.pos_proj, "pos_query": att.pos_q_proj})
        try:
            bias = att.disentangled_att_bias(query_layer, tk, relative_pos, rel_embeddings, sf)
        finally:
            cap.close()
        whole = {"pos_key": att.transpose_for_scores(att.pos_proj(rel_embeddings.unsqueeze(0)))[0],
                 "pos_query": att.transpose_for_scores(att.pos_q_proj(rel_embeddings.unsqueeze(0)))[0]}
        tables = {}
        for name in ("pos_key", "pos_query"):
            sliced = np.ascontiguousarray(att.transpose_for_scores(cap.out[name])[0].numpy())
            full = np.ascontiguousarray(whole[name].numpy())
            rows = np.ascontiguousarray(full[:, 512 - span_s:512 + span_s])
            if sliced.shape != (heads, 2 * span_s, d) or not same_bits(sliced, rows):
                raise AssertionError(f"{label}: {name}: the sliced projection is not the whole table's rows")
            tables[name] = full.copy()
    if bias.dtype != torch.float32 or tuple(bias.shape) != (batch, heads, length, length):
        raise AssertionError(f"{label}: v1 bias {bias.dtype} {tuple(bias.shape)}")
    bias = bias.numpy().reshape(n, length, length).copy()
    rp = relative_pos.numpy()
    if rp.shape != (1, length, length):
        raise AssertionError(f"{label}: v1 get_rel_pos returned {rp.shape}")
    exact_b = check_buckets(label, rp[0].copy(), length, length, -1, 512)
    cfg = {"bucket_size": -1, "max_position": 512, "terms": "c2p|p2c", "module": "Deberta"}
    return cfg, q, k, tables["pos_key"], tables["pos_query"], bias, exact_b


def record_bias(s, vf, comment, flags, module, heads, n, length, d, buckets=V3_BUCKETS, max_rel=-1,
                terms="c2p|p2c", share=True, pos_att_type=None):
    label = f"{vf.name}/{comment}"
    if module == "Deberta":
        cfg, q, k, pk, pq, bias, exact_b = run_v1(s, label, heads, n // heads, length, d)
    else:
        cfg, q, k, pk, pq, bias, exact_b = run_v2(s, label, heads, n, length, d, buckets, max_rel, terms, share,
                                                  pos_att_type or terms)
    again, bound, idx = formula(q, k, pk, pq, cfg["bucket_size"], cfg["max_position"], exact_b, cfg["terms"])
    dev = np.abs(bias.astype(np.float64) - again)
    if not np.all(np.isfinite(bias)) or np.any(dev > bound):
        raise AssertionError(f"{comment}: official bias and the formula disagree "
                             f"(worst {np.max(dev - bound):.3g} past the bound)")
    ratio = float(np.max(dev / bound))
    STATS["ratios"][f"{vf.name}: {comment}"] = ratio
    if ratio > STATS["worst_ratio"]:
        STATS.update(worst_ratio=ratio, worst_test=f"{vf.name}: {comment}")

    bucketed = cfg["bucket_size"] > 0
    mid = cfg["bucket_size"] // 2
    span = cfg["bucket_size"] if bucketed else cfg["max_position"]
    far = length - 1
    real = (module == "DebertaV2" and (cfg["bucket_size"], cfg["max_position"]) == (V3_BUCKETS, V3_MAX)
            and terms == "c2p|p2c" and share) or \
           (module == "Deberta" and cfg["max_position"] == 512 and terms == "c2p|p2c")
    check_flags(comment, flags, {
        "real_checkpoint": real and d == 64,
        "synthetic": not real,
        "small_head_dim": d < 64,
        "one_head": heads == 1,
        "log_buckets": bucketed and far > mid,
        "integer_boundary": bucketed and far >= cfg["max_position"] - 1,
        "beyond_max_position": bucketed and far >= cfg["max_position"],
        "index_clamped": bool(np.any((exact_b + span < 0) | (exact_b + span > 2 * span - 1))),
        "no_buckets": not bucketed,
        "c2p_only": terms == "c2p",
        "p2c_only": terms == "p2c",
        "separate_pos_proj": module == "DebertaV2" and not share,
        "one_token": length == 1,
        "batch_repeat": n > heads,
        "v1": module == "Deberta",
    })
    if module == "Deberta" and np.any(idx != np.clip(exact_b + 512, 0, 1023)):
        raise AssertionError(f"{comment}: span 512 rows")
    if module == "Deberta":
        # v1's own rows: 512 - S + clamp(r + S, 0, 2 S - 1) must be the rows read at span 512.
        big_s = min(length, 512)
        own = 512 - big_s + np.clip(exact_b + big_s, 0, 2 * big_s - 1)
        if not np.array_equal(own, idx):
            raise AssertionError(f"{comment}: v1's sliced rows differ from the whole table's at span 512")

    inputs = {"q": vf.tensor(q, "f32"), "k": vf.tensor(k, "f32"), "pos_key": vf.tensor(pk, "f32"),
              "pos_query": vf.tensor(pq, "f32")}
    vf.add_test("deberta.bias", comment, flags, SRC_V1 if module == "Deberta" else SRC_V2, cfg, {},
                inputs, {"bias": vf.tensor(bias, "f32")})


def build_relpos(s, vf):
    long = 600  # past max_position 512 and its flip at 511 / 512; the check reads it as an L x L call
    for bucket_size, max_position, extra in ((256, 512, ["real_checkpoint"]), (128, 512, ["synthetic"]),
                                             (32, 512, ["synthetic"]), (256, 1024, ["synthetic"])):
        what = ("every DeBERTa-v2/v3 checkpoint" if extra == ["real_checkpoint"] else "synthetic")
        common = extra + ["log_buckets"] + (["integer_boundary"] if long - 1 >= max_position - 1 else []) + \
            (["beyond_max_position"] if long - 1 >= max_position else [])
        record_relpos(s, vf, f"bucket_size {bucket_size}, max_position {max_position} ({what}): one query, "
                      f"{long} keys, r = 0 .. -{long - 1}", common + ["one_query"],
                      bucket_size, max_position, 1, long)
        record_relpos(s, vf, f"bucket_size {bucket_size}, max_position {max_position} ({what}): {long} "
                      f"queries, one key, r = 0 .. {long - 1}", common + ["one_key"],
                      bucket_size, max_position, long, 1)
    record_relpos(s, vf, "bucket_size 256, max_position 512: 40 x 40, every |r| <= 39 in the exact range",
                  ["real_checkpoint"], 256, 512, 40, 40)
    record_relpos(s, vf, "no buckets (bucket_size -1, max_position 512): 20 x 20, r = i - j",
                  ["no_buckets"], -1, 512, 20, 20)


def build_bias(s, vf):
    v2, v1 = "DebertaV2", "Deberta"
    real = ["real_checkpoint"]
    small = ["small_head_dim"]
    # The checkpoints' 256 / 512, both terms, share_att_key (pos_att_type "p2c|c2p" as in
    # their config.json; the order changes nothing).
    both = "p2c|c2p"
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, H 2, n 2, head_dim 64, L 130: log buckets from |r| 129",
                real + ["log_buckets"], v2, 2, 2, 130, 64, pos_att_type=both)
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, H 2, n 2, head_dim 16, L 1", small + ["one_token"],
                v2, 2, 2, 1, 16, pos_att_type=both)
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, H 2, n 2, head_dim 16, L 7", small, v2, 2, 2, 7, 16,
                pos_att_type=both)
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, H 2, n 2, head_dim 8, L 300: log buckets up to b(299) = 206",
                small + ["log_buckets"], v2, 2, 2, 300, 8, pos_att_type=both)
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, one head (n 1), head_dim 4, L 600: |r| = 511 (bucket 255), "
                "|r| >= 512 past max_position (buckets 256 .. 270, rows clamped)",
                ["one_head", "log_buckets", "integer_boundary", "beyond_max_position",
                 "index_clamped"] + small, v2, 1, 1, 600, 4, pos_att_type=both)
    record_bias(s, vf, "v2 256 / 512, c2p only, H 2, n 2, head_dim 16, L 130",
                ["synthetic", "c2p_only", "log_buckets"] + small, v2, 2, 2, 130, 16, terms="c2p")
    record_bias(s, vf, "v2 256 / 512, p2c only, H 2, n 2, head_dim 16, L 130",
                ["synthetic", "p2c_only", "log_buckets"] + small, v2, 2, 2, 130, 16, terms="p2c")
    record_bias(s, vf, "v2 256 / 512, c2p|p2c, share_att_key False (pos_key_proj, pos_query_proj), H 2, n 2, "
                "head_dim 16, L 64", ["synthetic", "separate_pos_proj"] + small, v2, 2, 2, 64, 16, share=False)
    record_bias(s, vf, "v2 without buckets (position_buckets -1, max_relative_positions 64: span 64), c2p|p2c, "
                "H 2, n 2, head_dim 16, L 100: |r| >= 64 rows clamped",
                ["synthetic", "no_buckets", "index_clamped"] + small, v2, 2, 2, 100, 16, buckets=-1, max_rel=64)
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, batch 2 x H 2 (n 4), head_dim 16, L 33",
                small + ["batch_repeat"], v2, 2, 4, 33, 16, pos_att_type=both)
    record_bias(s, vf, "v2/v3 256 / 512, c2p|p2c, H 2, n 2, head_dim 32, L 50", small, v2, 2, 2, 50, 32,
                pos_att_type=both)
    # v1 (deberta-base / deberta-large: 512 rows each side, no buckets, both terms).
    record_bias(s, vf, "v1, H 2, n 2, head_dim 64, L 64 (S 64: rows 448 .. 575)", real + ["v1", "no_buckets"],
                v1, 2, 2, 64, 64)
    record_bias(s, vf, "v1, H 2, n 2, head_dim 16, L 5 (S 5: rows 507 .. 516)", small + ["v1", "no_buckets"],
                v1, 2, 2, 5, 16)
    record_bias(s, vf, "v1, one head (n 1), head_dim 4, L 520 (S 512: the whole table; r <= -513 and r >= 512 "
                "clamped to rows 0 and 1023)", small + ["v1", "no_buckets", "one_head", "index_clamped"],
                v1, 1, 1, 520, 4)


def main(argv=None):
    args = famgen.parse_args(__doc__, argv, FAMILY, {"--transformers": "transformers checkout (v4.57.6)"})
    s = Sources(hfref.Reference(args.transformers))
    status = famgen.build_and_finish(args.out, FAMILY, GENERATOR, NOTES, (
        ("relpos", "DeBERTa-v2/v3 relative positions (transformers build_relative_position, "
                   "make_log_bucket_position)", s.prov, lambda vf: build_relpos(s, vf)),
        ("transformers", "DeBERTa disentangled-attention position bias (transformers DebertaV2 "
                         "disentangled_attention_bias, Deberta v1 disentangled_att_bias)", s.prov,
         lambda vf: build_bias(s, vf)),
    ))
    for (bucket_size, max_position), (checked, f64, f32, margin, _) in sorted(BUCKET_STATS.items()):
        print(f"buckets {bucket_size} / {max_position}: {checked} relative positions against the exact "
              f"formula: float32 (official) differs at {f32}, float64 at {f64}; smallest distance of a "
              f"non-integer pre-ceil value to an integer {margin:.3g}", file=sys.stderr)
    for test, ratio in STATS["ratios"].items():
        print(f"  bias deviation / bound {ratio:.3g}  {test}", file=sys.stderr)
    print(f"formula agreement: worst deviation / bound {STATS['worst_ratio']:.3g} ({STATS['worst_test']})",
          file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
