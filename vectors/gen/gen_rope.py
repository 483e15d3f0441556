#!/usr/bin/python3
"""Generate pecert's RoPE golden vectors from Hugging Face transformers v4.57.6.

    /usr/bin/python3 vectors/gen/gen_rope.py --ref /path/to/transformers --out vectors/rope

Every number in the output is computed by the reference code itself, imported from the
checkout given by --ref (or $PECERT_TRANSFORMERS_REF): ROPE_INIT_FUNCTIONS for the
frequencies, the models' rotary-embedding modules for cos/sin, and the models'
apply_rotary_pos_emb for the rotation.  This file only chooses inputs (configs modelled on
released checkpoints, positions, seeded random q) and moves tensors between the models'
layouts and FORMAT.md's token-major [T, H, D] layout; those moves are pure indexing.

The output is deterministic: rerunning in the same environment writes byte-identical
files (see vecfile.py).  See vectors/gen/README.md.
"""

import argparse
import copy
import inspect
import os
import platform
import sys
import zlib

import numpy as np

# Leave the reference checkout (and this directory) exactly as they were: no __pycache__.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import check_vectors  # noqa: E402
import checkpoints as ck  # noqa: E402
import compare_double  # noqa: E402
import crosscheck  # noqa: E402
import famgen  # noqa: E402
import hfref  # noqa: E402
import vecfile  # noqa: E402

GENERATOR = "vectors/gen/gen_rope.py"
FAMILY = "rope"

# rope_scaling keys FORMAT.md carries in `config` (rope_type/type are folded into rope_type).
SCALING_KEYS = {
    "factor", "original_max_position_embeddings", "attention_factor", "beta_fast",
    "beta_slow", "mscale", "mscale_all_dim", "low_freq_factor", "high_freq_factor",
    "truncate", "short_factor", "long_factor",
}

# Wycheproof-style flag catalogue; each file's manifest gets the notes of the flags it uses.
# L0 is the length at which a type changes behaviour: max_position_embeddings for dynamic,
# the top-level original_max_position_embeddings (else max_position_embeddings) for longrope.
NOTES = famgen.notes_table("""
basic                        BASIC               Plain configuration of a released checkpoint, small
                                                 positions.
default_seq_len              DEFAULT_VALUE       No sequence length given (seq_len 0): the init-time
                                                 frequencies the model builds before its first
                                                 forward.
seq_len_ignored              MODIFIED_PARAMETER  A sequence length is given to a rope type whose
                                                 frequencies do not depend on it; the result must
                                                 equal the seq_len-free one.
boundary_L0_minus_1          EDGE_CASE           Sequence length L0-1: still unscaled / short.
boundary_L0                  EDGE_CASE           Sequence length exactly L0: still unscaled / short
                                                 (the switch is strictly greater than L0).
boundary_L0_plus_1           EDGE_CASE           Sequence length L0+1: first scaled / long length.
beyond_L0_4x                 EDGE_CASE           Sequence length 4*L0, well inside the scaled
                                                 regime.
long_position                EDGE_CASE           Far positions (2^16, 2^20 and neighbours): the
                                                 reference forms the angle p*inv_freq in float32, so
                                                 its error grows with p.
split_half                   FUNCTIONALITY       Channel i pairs with channel i + rotary_dim/2
                                                 (rotate_half).
interleaved                  FUNCTIONALITY       Channel 2i pairs with channel 2i+1 (GPT-J
                                                 rotate_every_two, DeepSeek-V2 complex multiply).
partial_rotary               EDGE_CASE           rotary_dim < head_dim: only the first rotary_dim
                                                 channels rotate, the rest pass through unchanged.
odd_frequency_count          EDGE_CASE           rotary_dim/2 is odd.
odd_heads                    EDGE_CASE           An odd number of heads per token.
left_padding                 EDGE_CASE           Left-padded batch: positions as generate() builds
                                                 them, cumsum(mask)-1 with padding tokens at
                                                 position 1; padding tokens are included.
batch                        FUNCTIONALITY       Several sequences flattened to tokens, each with
                                                 its positions.
attention_scaling            FUNCTIONALITY       cos and sin carry an attention factor different
                                                 from 1.
linear_scaling               FUNCTIONALITY       rope_type linear: inv_freq / factor.
dynamic_ntk                  FUNCTIONALITY       rope_type dynamic: the base grows with the sequence
                                                 length past max_position_embeddings.
yarn                         FUNCTIONALITY       rope_type yarn: ramp between interpolation and
                                                 extrapolation.
yarn_mscale                  FUNCTIONALITY       yarn with both mscale and mscale_all_dim non-zero:
                                                 attention factor is the ratio of the two mscale
                                                 terms.
yarn_mscale_fallback         REFERENCE_QUIRK     yarn with only one of mscale / mscale_all_dim
                                                 non-zero: the reference ignores it and uses
                                                 0.1*ln(factor)+1.
yarn_betas                   MODIFIED_PARAMETER  yarn with explicit beta_fast / beta_slow.
yarn_no_truncate             FUNCTIONALITY       yarn truncate=false: the correction range keeps
                                                 fractional bounds.
yarn_attention_factor        MODIFIED_PARAMETER  yarn with an explicit attention_factor.
yarn_default_original        DEFAULT_VALUE       yarn without
                                                 rope_scaling.original_max_position_embeddings:
                                                 max_position_embeddings is used instead.
longrope_short               FUNCTIONALITY       longrope at or below L0: short_factor applies.
longrope_long                FUNCTIONALITY       longrope above L0: long_factor applies.
longrope_top_level_original  FUNCTIONALITY       Phi-3 style longrope: L0 and the attention factor
                                                 come from the top-level
                                                 original_max_position_embeddings (factor =
                                                 max_position_embeddings / it).
longrope_no_top_level        REFERENCE_QUIRK     longrope without the top-level
                                                 original_max_position_embeddings: factor comes from
                                                 rope_scaling, L0 is max_position_embeddings, and
                                                 rope_scaling.original_max_position_embeddings is
                                                 ignored.
longrope_attention_factor    MODIFIED_PARAMETER  longrope with an explicit attention_factor.
llama3_scaling               FUNCTIONALITY       rope_type llama3: low frequencies divided by
                                                 factor, a smooth band between low_freq_factor and
                                                 high_freq_factor.
ignored_field                REFERENCE_QUIRK     rope_scaling carries
                                                 original_max_position_embeddings, which this rope
                                                 type ignores in the reference (dynamic uses
                                                 max_position_embeddings).
large_theta                  EDGE_CASE           rope_theta of 1.5e5 or more.
factor_one                   EDGE_CASE           Scaling factor exactly 1: the attention factor is
                                                 exactly 1.
wide_head                    EDGE_CASE           head_dim 256.
gptj_table                   FUNCTIONALITY       GPT-J precomputes a sin|cos table for n_positions
                                                 and gathers rows by position.
""")


# --------------------------------------------------------------------------------------
# Reference plumbing
# --------------------------------------------------------------------------------------

class Generator:
    def __init__(self, ref):
        self.ref = ref
        self.torch = ref.torch
        self.crosschecked = 0  # rope.apply vectors reproduced through an attention layer

    def crosscheck_apply(self, preset, position_ids, x, out, comment):
        """The vector's output must equal, bit for bit, the rotated key the model's own
        attention layer stores (see crosscheck.py); families without one are skipped."""
        keys = crosscheck.attention_keys(self, preset, position_ids, x)
        if keys is None:
            return
        if not self.torch.equal(keys, out):
            raise AssertionError(f"{comment}: attention-layer cross-check differs")
        self.crosschecked += 1

    # ----- configs -----

    def make_config(self, preset):
        """A transformers config object for a preset.  kwargs are deep-copied because the
        config classes edit rope_scaling in place (type -> rope_type, floats)."""
        kind, kwargs = preset
        kwargs = copy.deepcopy(kwargs)
        classes = {
            "llama": self.ref.LlamaConfig, "phi3": self.ref.Phi3Config,
            "neox": self.ref.GPTNeoXConfig, "deepseek_v2": self.ref.DeepseekV2Config,
            "deepseek_v3": self.ref.DeepseekV3Config,
        }
        if kind == "gptj":
            return self.ref.GPTJConfig(n_layer=1, **kwargs)
        return classes[kind](num_hidden_layers=1, **kwargs)

    def manifest_config(self, cfg):
        """FORMAT.md `config` for a transformers config: resolved head_dim / rotary_dim, the
        top-level fields the rope code reads, and exactly the rope_scaling keys present."""
        scaling = getattr(cfg, "rope_scaling", None) or {}
        rope_type = scaling.get("rope_type", scaling.get("type")) if scaling else "default"
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        rotary_dim = int(head_dim * getattr(cfg, "partial_rotary_factor", 1.0))
        out = {
            "rope_type": rope_type,
            "rope_theta": cfg.rope_theta,
            "head_dim": head_dim,
            "rotary_dim": rotary_dim,
            "max_position_embeddings": cfg.max_position_embeddings,
        }
        for key, value in scaling.items():
            if key in ("rope_type", "type"):
                continue
            if key not in SCALING_KEYS:
                raise KeyError(f"rope_scaling key {key!r} has no FORMAT.md field")
            out[key] = list(value) if isinstance(value, list) else value
        # Phi-3's LongRoPE reads this top-level field (getattr/hasattr on the config).
        if hasattr(cfg, "original_max_position_embeddings"):
            out["top_original_max_position_embeddings"] = cfg.original_max_position_embeddings
        return out

    def gptj_manifest_config(self, cfg):
        """GPT-J has no rope config fields: its base 10000 is a literal in
        create_sinusoidal_positions and its table has n_positions rows."""
        return {
            "rope_type": "default",
            "rope_theta": 10000,
            "head_dim": cfg.n_embd // cfg.n_head,
            "rotary_dim": cfg.rotary_dim,
            "max_position_embeddings": cfg.n_positions,
        }

    def source_file(self, obj):
        """Path of obj's defining file inside the repository (src/transformers/...)."""
        path = os.path.abspath(inspect.getsourcefile(obj))
        rel = os.path.relpath(path, self.ref.src_root)
        return "src/" + rel.replace(os.sep, "/")

    # ----- reference calls -----

    def init_freqs(self, cfg, rope_type, seq_len):
        """ROPE_INIT_FUNCTIONS[type](config, device, seq_len); seq_len 0 means None."""
        fn = self.ref.rope_utils.ROPE_INIT_FUNCTIONS[rope_type]
        inv_freq, attention = fn(cfg, None, seq_len if seq_len else None)
        return fn, inv_freq, float(attention)

    def rotary_class(self, kind):
        return {
            "llama": self.ref.llama.LlamaRotaryEmbedding,
            "phi3": self.ref.phi3.Phi3RotaryEmbedding,
            "neox": self.ref.neox.GPTNeoXRotaryEmbedding,
            "deepseek_v3": self.ref.deepseek_v3.DeepseekV3RotaryEmbedding,
        }[kind]

    def apply_function(self, kind):
        return {
            "llama": self.ref.llama.apply_rotary_pos_emb,
            "phi3": self.ref.phi3.apply_rotary_pos_emb,
            "neox": self.ref.neox.apply_rotary_pos_emb,
            "deepseek_v3": self.ref.deepseek_v3.apply_rotary_pos_emb,
        }[kind]

    def module_cos_sin(self, kind, cfg, position_ids, x):
        """cos, sin [B, S, rotary_dim] from a fresh rotary module (dynamic and longrope
        modules keep state between calls, so a fresh one is what max(positions)+1 means)."""
        module = self.rotary_class(kind)(config=cfg)
        return module(x, position_ids)

    def gptj_table(self, cfg):
        """GPTJAttention.__init__: the sin|cos table for n_positions rows."""
        return self.ref.gptj.create_sinusoidal_positions(cfg.n_positions, cfg.rotary_dim)


def first_half(t, rotary_dim):
    """HF modules return cat((freqs, freqs)); keep one copy after checking they agree."""
    half = rotary_dim // 2
    if t.shape[-1] != rotary_dim:
        raise AssertionError(f"cos/sin width {t.shape[-1]} != rotary_dim {rotary_dim}")
    if not bool((t[..., :half] == t[..., half:]).all()):
        raise AssertionError("the two halves of the reference cos/sin differ")
    return t[..., :half]


def left_padded_positions(torch, lengths, seq):
    """Position ids as GenerationMixin.prepare_inputs_for_generation builds them for a
    left-padded batch (src/transformers/generation/utils.py)."""
    mask = torch.tensor([[0] * (seq - n) + [1] * n for n in lengths], dtype=torch.int64)
    position_ids = mask.long().cumsum(-1) - 1
    position_ids.masked_fill_(mask == 0, 1)
    return position_ids


def seeded_normal(label, shape):
    """Standard-normal float32 input, seeded by the test's own label so adding or
    reordering tests never changes another test's data."""
    rng = np.random.default_rng(zlib.crc32(label.encode("utf-8")))
    return rng.standard_normal(shape, dtype=np.float32)


# --------------------------------------------------------------------------------------
# Test builders (one per op / family); each appends one test to a VectorFile
# --------------------------------------------------------------------------------------

def add_freq(gen, vf, preset, seq_len, comment, flags):
    cfg = gen.make_config(preset)
    config = gen.manifest_config(cfg)
    fn, inv_freq, attention = gen.init_freqs(cfg, config["rope_type"], seq_len)
    if inv_freq.dtype != gen.torch.float32 or tuple(inv_freq.shape) != (config["rotary_dim"] // 2,):
        raise AssertionError(f"{comment}: inv_freq {inv_freq.dtype} {tuple(inv_freq.shape)}")
    vf.add_test(
        "rope.freq", comment, flags,
        {"file": gen.source_file(fn), "function": fn.__name__},
        config, {"seq_len": seq_len}, {},
        {"inv_freq": vf.tensor(inv_freq.numpy(), "f32"),
         "attention_scaling": vf.tensor(np.float64(attention), "f64")},
    )


def add_cos_sin(gen, vf, preset, positions, comment, flags):
    torch = gen.torch
    kind = preset[0]
    cfg = gen.make_config(preset)
    config = gen.manifest_config(cfg)
    pos = torch.tensor([positions], dtype=torch.int64)
    cos, sin = gen.module_cos_sin(kind, cfg, pos, torch.zeros(1, dtype=torch.float32))
    cls = gen.rotary_class(kind)
    vf.add_test(
        "rope.cos_sin", comment, flags,
        {"file": gen.source_file(cls), "function": cls.__name__ + ".forward"},
        config, {"seq_len": 0},
        {"positions": vf.tensor(pos[0].numpy(), "i64")},
        {"cos": vf.tensor(first_half(cos, config["rotary_dim"])[0].numpy(), "f32"),
         "sin": vf.tensor(first_half(sin, config["rotary_dim"])[0].numpy(), "f32")},
    )


def add_gptj_cos_sin(gen, vf, preset, positions, comment, flags):
    cfg = gen.make_config(preset)
    config = gen.gptj_manifest_config(cfg)
    table = gen.gptj_table(cfg)
    half = cfg.rotary_dim // 2
    rows = table[positions]  # GPTJAttention.forward gathers rows by position id
    fn = gen.ref.gptj.create_sinusoidal_positions
    vf.add_test(
        "rope.cos_sin", comment, flags,
        {"file": gen.source_file(fn), "function": "create_sinusoidal_positions"},
        config, {"seq_len": 0},
        {"positions": vf.tensor(np.asarray(positions, dtype=np.int64), "i64")},
        {"cos": vf.tensor(rows[:, half:].numpy(), "f32"),
         "sin": vf.tensor(rows[:, :half].numpy(), "f32")},
    )


def add_apply_split_half(gen, vf, preset, position_ids, heads, comment, flags):
    """Llama-style models: q is [B, H, S, D] (q_proj(...).view(...).transpose(1, 2)),
    cos/sin come from the rotary module on the whole batch, apply_rotary_pos_emb rotates
    (Phi-3 / GPT-NeoX versions slice off the first rotary_dim channels themselves)."""
    torch = gen.torch
    kind = preset[0]
    cfg = gen.make_config(preset)
    config = gen.manifest_config(cfg)
    batch, seq = position_ids.shape
    head_dim = config["head_dim"]
    x = seeded_normal(f"{vf.name}/{comment}", (batch * seq, heads, head_dim))
    q = torch.from_numpy(x.copy()).view(batch, seq, heads, head_dim).transpose(1, 2)
    k = q.clone()
    cos, sin = gen.module_cos_sin(kind, cfg, position_ids, q)
    apply = gen.apply_function(kind)
    q_embed, k_embed = apply(q, k, cos, sin)
    if not torch.equal(q_embed, k_embed):
        raise AssertionError(f"{comment}: q and k rotations differ")
    out = q_embed.transpose(1, 2).reshape(batch * seq, heads, head_dim)
    gen.crosscheck_apply(preset, position_ids, x, out, comment)
    cls = gen.rotary_class(kind)
    vf.add_test(
        "rope.apply", comment, flags,
        {"file": gen.source_file(apply),
         "function": cls.__name__ + ".forward + " + apply.__name__},
        config, {"seq_len": 0, "pairing": "split_half"},
        {"positions": vf.tensor(position_ids.reshape(-1).numpy(), "i64"),
         "x": vf.tensor(x, "f32")},
        {"out": vf.tensor(out.numpy(), "f32")},
    )


def add_apply_gptj(gen, vf, preset, position_ids, comment, flags):
    """GPT-J: q stays [B, S, H, D]; GPTJAttention.forward gathers sin|cos rows of the table
    by position id, splits them, rotates q[..., :rotary_dim] with apply_rotary_pos_emb
    (rotate_every_two pairing) and concatenates the untouched rest back."""
    torch = gen.torch
    gptj = gen.ref.gptj
    cfg = gen.make_config(preset)
    config = gen.gptj_manifest_config(cfg)
    batch, seq = position_ids.shape
    heads, head_dim, rot = cfg.n_head, config["head_dim"], cfg.rotary_dim
    x = seeded_normal(f"{vf.name}/{comment}", (batch * seq, heads, head_dim))
    query = torch.from_numpy(x.copy()).view(batch, seq, heads, head_dim)
    # The indexing below is GPTJAttention.forward's, step for step (no arithmetic).
    embed_positions = gen.gptj_table(cfg).repeat(position_ids.shape[0], 1, 1)
    repeated_position_ids = position_ids.unsqueeze(-1).repeat(1, 1, embed_positions.shape[-1])
    sincos = torch.gather(embed_positions, 1, repeated_position_ids).to(query.dtype)
    sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
    q_rot = gptj.apply_rotary_pos_emb(query[:, :, :, :rot], sin, cos)
    out = torch.cat([q_rot, query[:, :, :, rot:]], dim=-1)
    gen.crosscheck_apply(preset, position_ids, x, out.reshape(batch * seq, heads, head_dim), comment)
    vf.add_test(
        "rope.apply", comment, flags,
        {"file": gen.source_file(gptj.apply_rotary_pos_emb),
         "function": "create_sinusoidal_positions + GPTJAttention.forward (rotary_dim slice) "
                     "+ apply_rotary_pos_emb"},
        config, {"seq_len": 0, "pairing": "interleaved"},
        {"positions": vf.tensor(position_ids.reshape(-1).numpy(), "i64"),
         "x": vf.tensor(x, "f32")},
        {"out": vf.tensor(out.reshape(batch * seq, heads, head_dim).numpy(), "f32")},
    )


def add_apply_deepseek_v2(gen, vf, preset, position_ids, heads, comment, flags):
    """DeepSeek-V2: q_pe [B, H, S, qk_rope_head_dim] rotated by a complex multiply with
    DeepseekV2RotaryEmbedding's freqs_cis (adjacent channels form one complex number)."""
    torch = gen.torch
    dsv2 = gen.ref.deepseek_v2
    cfg = gen.make_config(preset)
    config = gen.manifest_config(cfg)
    batch, seq = position_ids.shape
    head_dim = config["head_dim"]
    x = seeded_normal(f"{vf.name}/{comment}", (batch * seq, heads, head_dim))
    q_pe = torch.from_numpy(x.copy()).view(batch, seq, heads, head_dim).transpose(1, 2)
    freqs_cis = dsv2.DeepseekV2RotaryEmbedding(config=cfg)(q_pe, position_ids)
    q_out, k_out = dsv2.apply_rotary_emb(q_pe, q_pe.clone(), freqs_cis)
    if not torch.equal(q_out, k_out):
        raise AssertionError(f"{comment}: q and k rotations differ")
    out = q_out.transpose(1, 2).reshape(batch * seq, heads, head_dim)
    vf.add_test(
        "rope.apply", comment, flags,
        {"file": gen.source_file(dsv2.apply_rotary_emb),
         "function": "DeepseekV2RotaryEmbedding.forward + apply_rotary_emb"},
        config, {"seq_len": 0, "pairing": "interleaved"},
        {"positions": vf.tensor(position_ids.reshape(-1).numpy(), "i64"),
         "x": vf.tensor(x, "f32")},
        {"out": vf.tensor(out.numpy(), "f32")},
    )


# --------------------------------------------------------------------------------------
# The vector files
# --------------------------------------------------------------------------------------

def dynamic_scaling(factor):
    return {"factor": factor, "rope_type": "dynamic"}


# Synthetic LongRoPE on a Llama-shaped head (64 frequencies): no top-level
# original_max_position_embeddings, so the reference takes factor from rope_scaling and
# uses max_position_embeddings (32768) as L0; rope_scaling's own 4096 is ignored.
LLAMA_LONGROPE = ("llama", dict(
    hidden_size=4096, num_attention_heads=32, head_dim=128, max_position_embeddings=32768,
    rope_theta=10000.0,
    rope_scaling={"rope_type": "longrope", "factor": 8.0,
                  "original_max_position_embeddings": 4096,
                  "short_factor": ck.synthetic_factors(64, 1.0, 2.0),
                  "long_factor": ck.synthetic_factors(64, 1.0, 16.0)}))


def yarn_deepseek(**scaling_changes):
    """DeepSeek-V3 yarn parameters with mscale / mscale_all_dim replaced (synthetic)."""
    scaling = {k: v for k, v in ck.DEEPSEEK_V3[1]["rope_scaling"].items()
               if k not in ("mscale", "mscale_all_dim")}
    scaling.update(scaling_changes)
    return ck.with_changes(ck.DEEPSEEK_V3, rope_scaling=scaling)


def build_freq(gen, vf):
    dflt = ["default_seq_len"]
    # default
    add_freq(gen, vf, ck.LLAMA2_7B, 0, "default, Llama-2-7B (theta 1e4, head 128)", ["basic"] + dflt)
    add_freq(gen, vf, ck.TINYLLAMA, 0, "default, TinyLlama (head 64)", ["basic"] + dflt)
    add_freq(gen, vf, ck.QWEN2_7B, 0, "default, Qwen2-7B (theta 1e6)", ["large_theta"] + dflt)
    add_freq(gen, vf, ck.GEMMA_7B, 0, "default, Gemma-7B (head 256)", ["wide_head"] + dflt)
    add_freq(gen, vf, ck.LLAMA2_7B, 8192, "default, Llama-2-7B, seq_len 8192 ignored",
             ["seq_len_ignored"])
    add_freq(gen, vf, ck.NEOX_20B, 0, "default, GPT-NeoX-20B (head 96, rotary_pct 0.25)",
             ["partial_rotary"] + dflt)
    add_freq(gen, vf, ck.PYTHIA, 0, "default, Pythia (head 64, rotary_pct 0.25)",
             ["partial_rotary"] + dflt)
    add_freq(gen, vf, ck.PHI2_LIKE, 0, "default, Phi-2 shape (head 80, partial 0.4)",
             ["partial_rotary"] + dflt)
    add_freq(gen, vf, ck.STABLELM_3B, 0, "default, StableLM-3B-4E1T (head 80, partial 0.25)",
             ["partial_rotary", "odd_frequency_count"] + dflt)
    # linear
    add_freq(gen, vf, ck.VICUNA_16K, 0, "linear factor 4, vicuna-7b-v1.5-16k",
             ["linear_scaling"] + dflt)
    add_freq(gen, vf, ck.LLAMA2_LINEAR2, 0, "linear factor 2, Llama-2 shape",
             ["linear_scaling"] + dflt)
    add_freq(gen, vf, ck.VICUNA_16K, 16384, "linear factor 4, seq_len 16384 ignored",
             ["linear_scaling", "seq_len_ignored"])
    add_freq(gen, vf, ck.with_changes(ck.NEOX_20B, rope_scaling={"rope_type": "linear", "factor": 2.0}),
             0, "linear factor 2, GPT-NeoX-20B head (partial 0.25)",
             ["linear_scaling", "partial_rotary"] + dflt)
    # dynamic: every boundary of L0 = max_position_embeddings
    for preset, l0, name in ((ck.LLAMA1_DYN2, 2048, "dynamic factor 2, L0 2048"),
                             (ck.LLAMA2_DYN4, 4096, "dynamic factor 4, L0 4096")):
        add_freq(gen, vf, preset, 0, f"{name}, no seq_len", ["dynamic_ntk"] + dflt)
        add_freq(gen, vf, preset, l0 - 1, f"{name}, seq_len L0-1", ["dynamic_ntk", "boundary_L0_minus_1"])
        add_freq(gen, vf, preset, l0, f"{name}, seq_len L0", ["dynamic_ntk", "boundary_L0"])
        add_freq(gen, vf, preset, l0 + 1, f"{name}, seq_len L0+1", ["dynamic_ntk", "boundary_L0_plus_1"])
        add_freq(gen, vf, preset, 4 * l0, f"{name}, seq_len 4*L0", ["dynamic_ntk", "beyond_L0_4x"])
    dyn_ignored = ck.with_changes(ck.LLAMA2_DYN4, rope_scaling={
        "factor": 2.0, "original_max_position_embeddings": 2048, "rope_type": "dynamic"})
    add_freq(gen, vf, dyn_ignored, 3000,
             "dynamic factor 2, rope_scaling original 2048 ignored, seq_len 3000 < max_pos 4096",
             ["dynamic_ntk", "ignored_field"])
    add_freq(gen, vf, dyn_ignored, 4097,
             "dynamic factor 2, rope_scaling original 2048 ignored, seq_len 4097",
             ["dynamic_ntk", "ignored_field", "boundary_L0_plus_1"])
    add_freq(gen, vf, ck.with_changes(ck.PYTHIA, rope_scaling=dynamic_scaling(2.0)), 8192,
             "dynamic factor 2, Pythia head (partial 0.25), seq_len 4*L0",
             ["dynamic_ntk", "partial_rotary", "beyond_L0_4x"])
    # yarn
    add_freq(gen, vf, ck.QWEN25_YARN, 0, "yarn factor 4, Qwen2.5-7B (original 32768, theta 1e6)",
             ["yarn", "attention_scaling", "large_theta"] + dflt)
    add_freq(gen, vf, ck.YARN_LLAMA2_64K, 0, "yarn factor 16, Yarn-Llama-2-7b-64k",
             ["yarn", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.QWEN25_YARN, 131072, "yarn factor 4, Qwen2.5-7B, seq_len 131072 ignored",
             ["yarn", "attention_scaling", "seq_len_ignored"])
    add_freq(gen, vf, ck.DEEPSEEK_V2, 0,
             "yarn factor 40, DeepSeek-V2 (mscale = mscale_all_dim = 0.707, rope head 64)",
             ["yarn", "yarn_mscale", "yarn_betas"] + dflt)
    add_freq(gen, vf, ck.DEEPSEEK_V3, 0,
             "yarn factor 40, DeepSeek-V3 (mscale = mscale_all_dim = 1.0, rope head 64)",
             ["yarn", "yarn_mscale", "yarn_betas"] + dflt)
    add_freq(gen, vf, yarn_deepseek(mscale=1.0, mscale_all_dim=0.5), 0,
             "yarn factor 40, mscale 1.0 / mscale_all_dim 0.5 (synthetic)",
             ["yarn", "yarn_mscale", "yarn_betas", "attention_scaling"] + dflt)
    add_freq(gen, vf, yarn_deepseek(mscale=0.707), 0,
             "yarn factor 40, mscale 0.707 only (synthetic)",
             ["yarn", "yarn_mscale_fallback", "yarn_betas", "attention_scaling"] + dflt)
    add_freq(gen, vf, yarn_deepseek(mscale=0.707, mscale_all_dim=0.0), 0,
             "yarn factor 40, mscale 0.707, mscale_all_dim 0 (synthetic)",
             ["yarn", "yarn_mscale_fallback", "yarn_betas", "attention_scaling"] + dflt)
    add_freq(gen, vf, yarn_deepseek(mscale_all_dim=0.707), 0,
             "yarn factor 40, mscale_all_dim 0.707 only (synthetic)",
             ["yarn", "yarn_mscale_fallback", "yarn_betas", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.GPT_OSS_20B, 0, "yarn factor 32, gpt-oss-20b (truncate false, theta 150000)",
             ["yarn", "yarn_no_truncate", "yarn_betas", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.YARN_LLAMA2_64K, rope_scaling={
        "factor": 16.0, "original_max_position_embeddings": 4096, "beta_fast": 64.0,
        "beta_slow": 2.0, "rope_type": "yarn"}), 0,
        "yarn factor 16, beta_fast 64 / beta_slow 2 (synthetic)",
        ["yarn", "yarn_betas", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.QWEN25_YARN, rope_scaling={
        "factor": 4.0, "original_max_position_embeddings": 32768, "attention_factor": 0.8,
        "rope_type": "yarn"}), 0,
        "yarn factor 4, explicit attention_factor 0.8 (synthetic)",
        ["yarn", "yarn_attention_factor", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.LLAMA2_7B, rope_scaling={"factor": 4.0, "rope_type": "yarn"}),
             0, "yarn factor 4 without original_max_position_embeddings (max_pos 4096 used)",
             ["yarn", "yarn_default_original", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.LLAMA2_7B, rope_scaling={
        "factor": 1.0, "original_max_position_embeddings": 4096, "rope_type": "yarn"}), 0,
        "yarn factor 1 (attention factor 1, interpolation = extrapolation)",
        ["yarn", "factor_one"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.NEOX_20B, max_position_embeddings=8192, rope_scaling={
        "factor": 4.0, "original_max_position_embeddings": 2048, "rope_type": "yarn"}), 0,
        "yarn factor 4, GPT-NeoX-20B head (partial 0.25, 12 frequencies)",
        ["yarn", "partial_rotary", "attention_scaling"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.STABLELM_3B, max_position_embeddings=16384, rope_scaling={
        "factor": 4.0, "original_max_position_embeddings": 4096, "rope_type": "yarn",
        "truncate": False}), 0,
        "yarn factor 4, truncate false, StableLM head (partial 0.25, 10 frequencies)",
        ["yarn", "yarn_no_truncate", "partial_rotary", "odd_frequency_count",
         "attention_scaling"] + dflt)
    # longrope, Phi-3 style: L0 = top-level original_max_position_embeddings = 4096
    phi3 = ["longrope_top_level_original", "attention_scaling"]
    name = "longrope, Phi-3-128k factors (head 96, original 4096, max 131072)"
    add_freq(gen, vf, ck.PHI3_MINI_128K, 0, name + ", no seq_len", ["longrope_short"] + phi3 + dflt)
    add_freq(gen, vf, ck.PHI3_MINI_128K, 4095, name + ", seq_len L0-1",
             ["longrope_short", "boundary_L0_minus_1"] + phi3)
    add_freq(gen, vf, ck.PHI3_MINI_128K, 4096, name + ", seq_len L0",
             ["longrope_short", "boundary_L0"] + phi3)
    add_freq(gen, vf, ck.PHI3_MINI_128K, 4097, name + ", seq_len L0+1",
             ["longrope_long", "boundary_L0_plus_1"] + phi3)
    add_freq(gen, vf, ck.PHI3_MINI_128K, 16384, name + ", seq_len 4*L0",
             ["longrope_long", "beyond_L0_4x"] + phi3)
    add_freq(gen, vf, ck.PHI35_MINI, 0, "longrope, Phi-3.5-mini, no seq_len",
             ["longrope_short"] + phi3 + dflt)
    add_freq(gen, vf, ck.PHI35_MINI, 131072, "longrope, Phi-3.5-mini, seq_len 131072",
             ["longrope_long"] + phi3)
    add_freq(gen, vf, ck.PHI4_MINI_LIKE, 0, "longrope, Phi-4-mini shape (head 128, partial 0.75)",
             ["longrope_short", "partial_rotary"] + phi3 + dflt)
    add_freq(gen, vf, ck.PHI4_MINI_LIKE, 4097, "longrope, Phi-4-mini shape, seq_len L0+1",
             ["longrope_long", "partial_rotary", "boundary_L0_plus_1"] + phi3)
    add_freq(gen, vf, ck.with_changes(ck.PHI35_MINI, max_position_embeddings=4096), 0,
             "longrope, max_pos = original = 4096 (factor 1, attention factor 1)",
             ["longrope_short", "longrope_top_level_original", "factor_one"] + dflt)
    # longrope without the top-level field (L0 = max_position_embeddings = 32768)
    name = "longrope factor 8, no top-level original (L0 = max_pos 32768)"
    add_freq(gen, vf, LLAMA_LONGROPE, 4097, name + ", seq_len 4097 still short",
             ["longrope_short", "longrope_no_top_level", "attention_scaling"])
    add_freq(gen, vf, LLAMA_LONGROPE, 32768, name + ", seq_len L0",
             ["longrope_short", "longrope_no_top_level", "boundary_L0", "attention_scaling"])
    add_freq(gen, vf, LLAMA_LONGROPE, 32769, name + ", seq_len L0+1",
             ["longrope_long", "longrope_no_top_level", "boundary_L0_plus_1", "attention_scaling"])
    explicit = copy.deepcopy(LLAMA_LONGROPE)
    explicit[1]["rope_scaling"]["attention_factor"] = 1.25
    add_freq(gen, vf, explicit, 40000, "longrope factor 8, explicit attention_factor 1.25, long",
             ["longrope_long", "longrope_no_top_level", "longrope_attention_factor",
              "attention_scaling"])
    # llama3
    add_freq(gen, vf, ck.LLAMA31_8B, 0, "llama3 factor 8, Llama-3.1-8B",
             ["llama3_scaling", "large_theta"] + dflt)
    add_freq(gen, vf, ck.LLAMA32_1B, 0, "llama3 factor 32, Llama-3.2-1B (head 64)",
             ["llama3_scaling", "large_theta"] + dflt)
    add_freq(gen, vf, ck.LLAMA32_3B, 0, "llama3 factor 32, Llama-3.2-3B (head 128)",
             ["llama3_scaling", "large_theta"] + dflt)
    add_freq(gen, vf, ck.LLAMA31_8B, 131072, "llama3 factor 8, seq_len 131072 ignored",
             ["llama3_scaling", "large_theta", "seq_len_ignored"])
    add_freq(gen, vf, ck.with_changes(ck.LLAMA31_8B, rope_theta=10000.0), 0,
             "llama3 factor 8 on theta 1e4 (synthetic: more frequencies in the smooth band)",
             ["llama3_scaling"] + dflt)
    add_freq(gen, vf, ck.with_changes(ck.NEOX_20B, max_position_embeddings=131072, rotary_emb_base=500000,
                                      rope_scaling=ck.llama3_scaling(8.0)), 0,
             "llama3 factor 8, GPT-NeoX-20B head (partial 0.25, synthetic)",
             ["llama3_scaling", "partial_rotary", "large_theta"] + dflt)


def build_cos_sin(gen, vf):
    far = [0, 1, 65535, 65536, 65537, 1048575, 1048576, 1048577]
    add_cos_sin(gen, vf, ck.LLAMA2_7B, [0, 1, 2, 3, 100, 4095, 4096, 4097],
                "default, Llama-2-7B", ["basic"])
    add_cos_sin(gen, vf, ck.LLAMA2_7B, far, "default, Llama-2-7B, far positions", ["long_position"])
    add_cos_sin(gen, vf, ck.QWEN2_7B, [0, 1, 32767, 32768, 32769, 131071],
                "default, Qwen2-7B (theta 1e6)", ["large_theta"])
    add_cos_sin(gen, vf, ck.VICUNA_16K, [0, 1, 4095, 4096, 4097, 16383],
                "linear factor 4, vicuna-7b-v1.5-16k", ["linear_scaling"])
    l0 = 2048
    add_cos_sin(gen, vf, ck.LLAMA1_DYN2, [0, 1, 1000, l0 - 2], "dynamic factor 2, max position L0-2",
                ["dynamic_ntk", "boundary_L0_minus_1"])
    add_cos_sin(gen, vf, ck.LLAMA1_DYN2, [0, 1, l0 - 2, l0 - 1], "dynamic factor 2, max position L0-1",
                ["dynamic_ntk", "boundary_L0"])
    add_cos_sin(gen, vf, ck.LLAMA1_DYN2, [0, 1, l0 - 1, l0], "dynamic factor 2, max position L0",
                ["dynamic_ntk", "boundary_L0_plus_1"])
    add_cos_sin(gen, vf, ck.LLAMA1_DYN2, [0, 1, l0 - 1, l0, 4 * l0 - 1],
                "dynamic factor 2, max position 4*L0-1", ["dynamic_ntk", "beyond_L0_4x"])
    add_cos_sin(gen, vf, ck.QWEN25_YARN, [0, 1, 32767, 32768, 32769, 131071],
                "yarn factor 4, Qwen2.5-7B", ["yarn", "attention_scaling", "large_theta"])
    add_cos_sin(gen, vf, ck.with_changes(ck.DEEPSEEK_V3, rope_interleave=False),
                [0, 1, 4095, 4096, 4097, 163839], "yarn factor 40, DeepSeek-V3 (rope head 64)",
                ["yarn", "yarn_mscale", "yarn_betas"])
    add_cos_sin(gen, vf, ck.GPT_OSS_20B, [0, 1, 4095, 4096, 4097, 131071],
                "yarn factor 32, gpt-oss-20b (truncate false)",
                ["yarn", "yarn_no_truncate", "yarn_betas", "attention_scaling"])
    phi3 = ["longrope_top_level_original", "attention_scaling"]
    add_cos_sin(gen, vf, ck.PHI3_MINI_128K, [0, 1, 100, 4094], "longrope Phi-3-128k, max position L0-2",
                ["longrope_short", "boundary_L0_minus_1"] + phi3)
    add_cos_sin(gen, vf, ck.PHI3_MINI_128K, [0, 1, 4094, 4095], "longrope Phi-3-128k, max position L0-1",
                ["longrope_short", "boundary_L0"] + phi3)
    add_cos_sin(gen, vf, ck.PHI3_MINI_128K, [0, 1, 4095, 4096], "longrope Phi-3-128k, max position L0",
                ["longrope_long", "boundary_L0_plus_1"] + phi3)
    add_cos_sin(gen, vf, ck.PHI3_MINI_128K, [0, 1, 4096, 16383],
                "longrope Phi-3-128k, max position 4*L0-1", ["longrope_long", "beyond_L0_4x"] + phi3)
    add_cos_sin(gen, vf, ck.PHI4_MINI_LIKE, [0, 1, 4096, 131071],
                "longrope Phi-4-mini shape (partial 0.75), long", ["longrope_long", "partial_rotary"] + phi3)
    add_cos_sin(gen, vf, ck.LLAMA31_8B, [0, 1, 8191, 8192, 8193, 131071],
                "llama3 factor 8, Llama-3.1-8B", ["llama3_scaling", "large_theta"])
    add_cos_sin(gen, vf, ck.LLAMA32_1B, far, "llama3 factor 32, Llama-3.2-1B, far positions",
                ["llama3_scaling", "large_theta", "long_position"])
    add_cos_sin(gen, vf, ck.NEOX_20B, [0, 1, 2, 2047], "default, GPT-NeoX-20B (rotary 24 of 96)",
                ["partial_rotary"])
    add_cos_sin(gen, vf, ck.STABLELM_3B, [0, 1, 2, 4095],
                "default, StableLM-3B-4E1T (rotary 20 of 80)", ["partial_rotary", "odd_frequency_count"])
    add_gptj_cos_sin(gen, vf, ck.GPTJ_6B, [0, 1, 2, 1000, 2047],
                     "GPT-J-6B table (rotary 64 of 256)", ["gptj_table", "partial_rotary"])


def positions(torch, rows):
    return torch.tensor(rows, dtype=torch.int64)


def arange_positions(torch, batch, seq):
    return torch.arange(seq, dtype=torch.int64).repeat(batch, 1)


def build_apply_llama(gen, vf):
    t = gen.torch
    sh = ["split_half"]
    add_apply_split_half(gen, vf, ck.LLAMA2_7B, arange_positions(t, 1, 8), 2,
                         "Llama-2-7B, positions 0..7, 2 heads", ["basic"] + sh)
    add_apply_split_half(gen, vf, ck.TINYLLAMA, arange_positions(t, 2, 5), 4,
                         "TinyLlama, batch 2 x 5, 4 heads", ["batch"] + sh)
    add_apply_split_half(gen, vf, ck.TINYLLAMA, left_padded_positions(t, [6, 3, 1], 6), 2,
                         "TinyLlama, left-padded batch (lengths 6, 3, 1)",
                         ["left_padding", "batch"] + sh)
    add_apply_split_half(gen, vf, ck.TINYLLAMA, positions(t, [[17], [4095], [100000]]), 2,
                         "TinyLlama, decode step for 3 sequences at 17, 4095, 100000",
                         ["batch"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA2_7B,
                         positions(t, [[0, 1, 65535, 65536, 65537, 1048575, 1048576, 1048577]]), 2,
                         "Llama-2-7B, far positions", ["long_position"] + sh)
    add_apply_split_half(gen, vf, ck.TINYLLAMA, arange_positions(t, 1, 7), 3,
                         "TinyLlama, 3 heads", ["odd_heads"] + sh)
    add_apply_split_half(gen, vf, ck.TINYLLAMA, positions(t, [[5, 6, 7, 8]]), 5,
                         "TinyLlama, 5 heads, positions 5..8", ["odd_heads"] + sh)
    add_apply_split_half(gen, vf, ck.QWEN2_7B, positions(t, [[0, 1, 2, 32766, 32767, 32768]]), 2,
                         "Qwen2-7B (theta 1e6)", ["large_theta"] + sh)
    add_apply_split_half(gen, vf, ck.GEMMA_7B, positions(t, [[0, 1, 8191, 8192]]), 1,
                         "Gemma-7B (head 256), 1 head", ["wide_head"] + sh)


def build_apply_scaled(gen, vf):
    t = gen.torch
    sh = ["split_half"]
    add_apply_split_half(gen, vf, ck.VICUNA_16K, positions(t, [[0, 1, 4095, 4096, 4097, 16383]]), 2,
                         "linear factor 4, vicuna-7b-v1.5-16k", ["linear_scaling"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA1_DYN2, positions(t, [[0, 1, 2, 2046, 2047]]), 2,
                         "dynamic factor 2, max position L0-1 (unscaled)",
                         ["dynamic_ntk", "boundary_L0"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA1_DYN2, positions(t, [[0, 1, 2, 2047, 2048]]), 2,
                         "dynamic factor 2, max position L0 (scaled)",
                         ["dynamic_ntk", "boundary_L0_plus_1"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA1_DYN2, positions(t, [[0, 1, 2048, 8191]]), 2,
                         "dynamic factor 2, max position 4*L0-1", ["dynamic_ntk", "beyond_L0_4x"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA2_DYN4, positions(t, [[4094, 4095, 4096], [0, 1, 2]]), 2,
                         "dynamic factor 4, batch whose longest row passes L0 (all rows scaled)",
                         ["dynamic_ntk", "batch", "boundary_L0_plus_1"] + sh)
    add_apply_split_half(gen, vf, ck.QWEN25_YARN, positions(t, [[0, 1, 32767, 32768, 32769, 131071]]), 2,
                         "yarn factor 4, Qwen2.5-7B", ["yarn", "attention_scaling", "large_theta"] + sh)
    add_apply_split_half(gen, vf, ck.with_changes(ck.DEEPSEEK_V3, rope_interleave=False),
                         positions(t, [[0, 1, 4095, 4096, 4097, 163839]]), 3,
                         "yarn factor 40, DeepSeek-V3 rope head 64 (rope_interleave false), 3 heads",
                         ["yarn", "yarn_mscale", "yarn_betas", "odd_heads"] + sh)
    add_apply_split_half(gen, vf, ck.GPT_OSS_20B, positions(t, [[0, 1, 4095, 4096, 4097, 131071]]), 2,
                         "yarn factor 32, gpt-oss-20b (truncate false)",
                         ["yarn", "yarn_no_truncate", "yarn_betas", "attention_scaling"] + sh)
    phi3 = ["longrope_top_level_original", "attention_scaling"]
    add_apply_split_half(gen, vf, ck.PHI3_MINI_128K, positions(t, [[0, 1, 2, 4094, 4095]]), 2,
                         "longrope Phi-3-128k, max position L0-1 (short)",
                         ["longrope_short", "boundary_L0"] + phi3 + sh)
    add_apply_split_half(gen, vf, ck.PHI3_MINI_128K, positions(t, [[0, 1, 4095, 4096]]), 2,
                         "longrope Phi-3-128k, max position L0 (long)",
                         ["longrope_long", "boundary_L0_plus_1"] + phi3 + sh)
    add_apply_split_half(gen, vf, ck.PHI3_MINI_128K, left_padded_positions(t, [5, 2], 5), 2,
                         "longrope Phi-3-128k, left-padded batch (short)",
                         ["longrope_short", "left_padding", "batch"] + phi3 + sh)
    add_apply_split_half(gen, vf, ck.PHI35_MINI, positions(t, [[0, 1, 4096, 16383, 131071]]), 2,
                         "longrope Phi-3.5-mini, long, up to 131071",
                         ["longrope_long", "beyond_L0_4x"] + phi3 + sh)
    add_apply_split_half(gen, vf, ck.PHI4_MINI_LIKE, positions(t, [[0, 1, 4096, 9000]]), 2,
                         "longrope Phi-4-mini shape (96 of 128 rotated), long",
                         ["longrope_long", "partial_rotary"] + phi3 + sh)
    add_apply_split_half(gen, vf, LLAMA_LONGROPE, positions(t, [[0, 1, 4096, 5000]]), 2,
                         "longrope factor 8 without top-level original: 5001 <= 32768 is short",
                         ["longrope_short", "longrope_no_top_level", "attention_scaling"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA31_8B, positions(t, [[0, 1, 8191, 8192, 8193, 131071]]), 2,
                         "llama3 factor 8, Llama-3.1-8B", ["llama3_scaling", "large_theta"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA32_1B, left_padded_positions(t, [5, 4, 2], 5), 2,
                         "llama3 factor 32, Llama-3.2-1B, left-padded batch",
                         ["llama3_scaling", "left_padding", "batch", "large_theta"] + sh)
    add_apply_split_half(gen, vf, ck.LLAMA32_3B,
                         positions(t, [[0, 1, 65535, 65536, 65537, 1048575, 1048576, 1048577]]), 1,
                         "llama3 factor 32, Llama-3.2-3B, far positions",
                         ["llama3_scaling", "long_position", "large_theta"] + sh)


def build_apply_neox(gen, vf):
    t = gen.torch
    pr = ["partial_rotary", "split_half"]
    add_apply_split_half(gen, vf, ck.NEOX_20B, arange_positions(t, 1, 5), 3,
                         "GPT-NeoX-20B (rotary 24 of 96), 3 heads", ["odd_heads"] + pr)
    add_apply_split_half(gen, vf, ck.PYTHIA, left_padded_positions(t, [5, 3], 5), 2,
                         "Pythia (rotary 16 of 64), left-padded batch", ["left_padding", "batch"] + pr)
    add_apply_split_half(gen, vf, ck.PHI2_LIKE, positions(t, [[0, 1, 2, 2046, 2047, 2048]]), 2,
                         "Phi-2 shape (rotary 32 of 80)", pr)
    add_apply_split_half(gen, vf, ck.STABLELM_3B, positions(t, [[0, 1, 4095, 4096]]), 2,
                         "StableLM-3B-4E1T (rotary 20 of 80)", ["odd_frequency_count"] + pr)
    add_apply_split_half(gen, vf, ck.PYTHIA,
                         positions(t, [[0, 1, 65535, 65536, 65537, 1048575, 1048576, 1048577]]), 2,
                         "Pythia, far positions", ["long_position"] + pr)
    add_apply_split_half(gen, vf, ck.with_changes(ck.PYTHIA, rope_scaling=dynamic_scaling(2.0)),
                         positions(t, [[0, 1, 2048, 8191]]), 2,
                         "dynamic factor 2, Pythia head, max position 4*L0-1",
                         ["dynamic_ntk", "beyond_L0_4x"] + pr)
    add_apply_split_half(gen, vf, ck.with_changes(ck.NEOX_20B, max_position_embeddings=8192, rope_scaling={
        "factor": 4.0, "original_max_position_embeddings": 2048, "rope_type": "yarn"}),
        positions(t, [[0, 1, 2048, 8191]]), 2,
        "yarn factor 4, GPT-NeoX-20B head", ["yarn", "attention_scaling"] + pr)
    add_apply_split_half(gen, vf, ck.with_changes(ck.NEOX_20B, rope_scaling={"rope_type": "linear", "factor": 2.0}),
                         positions(t, [[0, 1, 2047, 2048, 4095]]), 2,
                         "linear factor 2, GPT-NeoX-20B head", ["linear_scaling"] + pr)


def build_apply_interleaved(gen, vf):
    t = gen.torch
    il = ["interleaved"]
    gptj6b_2heads = ck.with_changes(ck.GPTJ_6B, n_embd=512, n_head=2)
    add_apply_gptj(gen, vf, gptj6b_2heads, arange_positions(t, 1, 5),
                   "GPT-J-6B head (rotary 64 of 256), 2 heads", ["basic", "partial_rotary", "gptj_table"] + il)
    add_apply_gptj(gen, vf, ck.GPTJ_SMALL, arange_positions(t, 2, 4),
                   "GPT-J small (rotary 32 of 64), batch 2 x 4", ["batch", "partial_rotary", "gptj_table"] + il)
    add_apply_gptj(gen, vf, ck.GPTJ_SMALL, left_padded_positions(t, [4, 2, 1], 4),
                   "GPT-J small, left-padded batch", ["left_padding", "batch", "partial_rotary",
                                                      "gptj_table"] + il)
    add_apply_gptj(gen, vf, ck.GPTJ_SMALL, positions(t, [[0, 1, 2046, 2047]]),
                   "GPT-J small, last rows of the 2048-row table", ["partial_rotary", "gptj_table"] + il)
    add_apply_gptj(gen, vf, ck.with_changes(ck.GPTJ_SMALL, n_embd=192, n_head=3, rotary_dim=64),
                   arange_positions(t, 1, 4), "GPT-J full rotary (64 of 64), 3 heads",
                   ["odd_heads", "gptj_table"] + il)
    add_apply_gptj(gen, vf, ck.with_changes(ck.GPTJ_SMALL, n_embd=64, n_head=2, rotary_dim=16,
                                            n_positions=1048578),
                   positions(t, [[0, 1, 65535, 65536, 65537, 1048575, 1048576, 1048577]]),
                   "GPT-J (rotary 16 of 32) with a 2^20+2 row table, far positions",
                   ["long_position", "partial_rotary", "gptj_table"] + il)
    add_apply_deepseek_v2(gen, vf, ck.DEEPSEEK_V2, positions(t, [[0, 1, 4095, 4096, 4097, 163839]]), 3,
                          "yarn factor 40, DeepSeek-V2 rope head 64 (complex multiply), 3 heads",
                          ["yarn", "yarn_mscale", "yarn_betas", "odd_heads"] + il)
    dsv2_scaled = ck.with_changes(ck.DEEPSEEK_V2, rope_scaling=dict(
        ck.DEEPSEEK_V2[1]["rope_scaling"], mscale=1.0, mscale_all_dim=0.5))
    add_apply_deepseek_v2(gen, vf, dsv2_scaled, left_padded_positions(t, [3, 1], 3), 2,
                          "yarn factor 40, DeepSeek-V2 head, mscale 1.0 / 0.5 (synthetic), left-padded",
                          ["yarn", "yarn_mscale", "yarn_betas", "attention_scaling", "left_padding",
                           "batch"] + il)


FILES = (
    ("freq", "RoPE inverse frequencies and attention scaling for every rope type "
             "(ROPE_INIT_FUNCTIONS)", build_freq),
    ("cos_sin", "RoPE cos/sin tables from the models' rotary-embedding modules", build_cos_sin),
    ("apply_llama", "RoPE apply, split-half pairing, Llama apply_rotary_pos_emb, default rope",
     build_apply_llama),
    ("apply_scaled", "RoPE apply, split-half pairing, scaled rope types (linear, dynamic, yarn, "
                     "longrope, llama3)", build_apply_scaled),
    ("apply_neox", "RoPE apply, split-half pairing on the first rotary_dim channels "
                   "(GPT-NeoX partial rotary)", build_apply_neox),
    ("apply_interleaved", "RoPE apply, interleaved pairing (GPT-J rotate_every_two, DeepSeek-V2 "
                          "complex multiply)", build_apply_interleaved),
)


def provenance(ref):
    return {
        "repo": hfref.REF_REPO,
        "commit": hfref.REF_COMMIT,
        "tag": hfref.REF_TAG,
        "packages": {
            "python": platform.python_version(),
            "torch": ref.torch.__version__,
            "numpy": np.__version__,
            "transformers": ref.transformers.__version__,
            "zlib": zlib.ZLIB_RUNTIME_VERSION,
        },
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default=os.environ.get("PECERT_TRANSFORMERS_REF"),
                        help="transformers checkout at tag %s (or $PECERT_TRANSFORMERS_REF)"
                             % hfref.REF_TAG)
    parser.add_argument("--out", required=True, help="output directory, e.g. vectors/rope")
    args = parser.parse_args(argv)
    if not args.ref:
        parser.error("--ref (or PECERT_TRANSFORMERS_REF) is required")

    ref = hfref.Reference(args.ref)
    if not ref.commit_verified:
        print(f"note: {args.ref} is not a git checkout; trusting it is {hfref.REF_TAG} "
              f"(version string {ref.transformers.__version__} matches)", file=sys.stderr)
    gen = Generator(ref)
    os.makedirs(args.out, exist_ok=True)
    prov = provenance(ref)
    written = []
    for name, description, build in FILES:
        vf = vecfile.VectorFile(name, FAMILY, description, GENERATOR, prov, famgen.notes_catalog(NOTES))
        build(gen, vf)
        comments = [t["comment"] for t in vf.tests]
        if len(set(comments)) != len(comments):
            raise AssertionError(f"{name}: duplicate test comments (they seed the inputs)")
        for path, size in vf.write(args.out).items():
            written.append(path)
        ops = {}
        for test in vf.tests:
            ops[test["op"]] = ops.get(test["op"], 0) + 1
        print(f"{name}: {len(vf.tests)} tests {ops}", file=sys.stderr)

    print(f"{gen.crosschecked} rope.apply vectors reproduced bit for bit through the models' "
          "attention layers", file=sys.stderr)
    stale = sorted(set(os.path.join(args.out, f) for f in os.listdir(args.out)
                       if f.endswith((".json", ".bin.z"))) - set(written))
    for path in stale:
        print(f"warning: {path} was not written by this run", file=sys.stderr)
    # Re-read everything with the independent checker; any problem is fatal.  Then
    # re-derive every output in float64 from the manifests alone: a deviation beyond
    # float32 rounding means the glue or the semantics went wrong.
    problems = check_vectors.check_dir(args.out)
    for p in problems:
        print(p, file=sys.stderr)
    gross = compare_double.compare_paths(compare_double.manifests([args.out]), out=sys.stderr)
    print(f"check_vectors: {len(problems)} problems; compare_double: {gross} gross deviations",
          file=sys.stderr)
    return 1 if problems or gross else 0


if __name__ == "__main__":
    sys.exit(main())
