"""torch_rope: an honest RoPE engine written the way Hugging Face model code
writes it, in PyTorch (Debian's python3-torch): the inverse frequencies of
the rope type, a cos/sin cache `cat((freqs, freqs))` in float32, and
`q * cos + rotate_half(q) * sin`; and a decode session: a KV cache of
rotated keys per sequence and scaled dot-product attention over it. pecert runs it with
`--impl python:impls/python/torch_rope.py`.

Float32 throughout, as model code runs: positions become float32 (exact up
to 2^24), angles are float32 products. Every rope type of plugin.h: the
default, linear, dynamic NTK, YaRN, LongRoPE and Llama 3.1 frequencies, as
transformers' modeling_rope_utils defines them; f32 tensors only (f16 and
bf16 are declined: NotImplementedError, "not supported").
"""
import math

import numpy as np
import torch

import pecert

name = "torch-rope"
id = "org.pecert.python.torch-rope"
version = "1"
vendor = "pecert (impls/python)"


# One thread, and no set_num_threads: torch's float32 cos and sin are not
# bit-identical across thread counts (pecert's rope.thread_determinism
# measured 0.1-0.2% of values 1 ulp apart between 1 and 2 or 3 threads,
# torch 1.13 on x86-64: the vectorized and scalar paths split the tensor
# differently), so this engine's results would depend on the machine's
# cores. Pinned, they depend on nothing.
torch.set_num_threads(1)


def describe():
    return "torch %s, 1 thread, float32" % torch.__version__


def _default(config, base):
    dim = config.rotary_dim
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(dtype=torch.float) / dim))


def _llama3(config):
    inv_freq = _default(config, config.rope_theta)
    factor = config.factor
    low, high = config.low_freq_factor, config.high_freq_factor
    old_context_len = config.original_max_position_embeddings
    low_freq_wavelen = old_context_len / low
    high_freq_wavelen = old_context_len / high
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth_factor = (old_context_len / wavelen - low) / (high - low)
    smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


def _present(config, bit):
    return bool(config.present & bit)


def _get_mscale(scale, mscale=1.0):
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def _yarn(config):
    """YaRN: interpolated and extrapolated frequencies blended by a linear
    ramp between the correction dimensions of beta_fast and beta_slow, and
    the attention factor (mscale)."""
    base, dim, factor = config.rope_theta, config.rotary_dim, config.factor
    # rope_scaling's original_max_position_embeddings, `or` the config's
    # max_position_embeddings (transformers v4.57 reads it so; the factor
    # stays rope_scaling's).
    original = (config.original_max_position_embeddings if _present(config, pecert.ROPE_HAS_ORIGINAL_MAX_POS)
                else 0) or config.max_position_embeddings
    mscale = config.mscale if _present(config, pecert.ROPE_HAS_MSCALE) else None
    mscale_all_dim = config.mscale_all_dim if _present(config, pecert.ROPE_HAS_MSCALE_ALL_DIM) else None
    if _present(config, pecert.ROPE_HAS_ATTENTION_FACTOR):
        attention_factor = config.attention_factor
    elif mscale and mscale_all_dim:
        attention_factor = float(_get_mscale(factor, mscale) / _get_mscale(factor, mscale_all_dim))
    else:
        attention_factor = _get_mscale(factor)
    beta_fast = (config.beta_fast if _present(config, pecert.ROPE_HAS_BETA_FAST) else 0) or 32
    beta_slow = (config.beta_slow if _present(config, pecert.ROPE_HAS_BETA_SLOW) else 0) or 1
    truncate = bool(config.truncate) if _present(config, pecert.ROPE_HAS_TRUNCATE) else True

    def correction_dim(rotations):
        return (dim * math.log(original / (rotations * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # no division by zero
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pos_freqs = base ** (torch.arange(0, dim, 2).to(dtype=torch.float) / dim)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    extrapolation_factor = 1 - ramp
    inv_freq = interpolation * (1 - extrapolation_factor) + extrapolation * extrapolation_factor
    return inv_freq, attention_factor


def _longrope(config, seq_len):
    """LongRoPE (Phi-3): per-frequency factors, the long ones past the
    pretraining length, and sqrt(1 + ln(factor) / ln(L0))."""
    base, dim = config.rope_theta, config.rotary_dim
    if _present(config, pecert.ROPE_HAS_TOP_ORIGINAL_MAX_POS):
        original = config.original_max_position_embeddings
        factor = config.max_position_embeddings / original
    else:
        original = config.max_position_embeddings
        factor = config.factor if _present(config, pecert.ROPE_HAS_FACTOR) else 1.0
    if _present(config, pecert.ROPE_HAS_ATTENTION_FACTOR):
        attention_factor = config.attention_factor
    elif factor <= 1.0:
        attention_factor = 1.0
    else:
        attention_factor = math.sqrt(1 + math.log(factor) / math.log(original))
    factors = config.long_factor if seq_len and seq_len > original else config.short_factor
    if factors is None or len(factors) != dim // 2:
        raise pecert.InvalidArgument("LongRoPE needs %d short and long factors" % (dim // 2))
    ext_factors = torch.tensor(np.array(factors), dtype=torch.float32)
    inv_freq_shape = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    return 1.0 / (ext_factors * base ** inv_freq_shape), attention_factor


def _inv_freq(config, seq_len):
    """inv_freq (float32) and the attention scaling for seq_len (0: the
    config's own length, as at model init)."""
    if config.layer_kind != pecert.LAYER_ROPE:
        raise pecert.InvalidArgument("a NoPE layer has no frequencies")
    if config.rotary_dim <= 0 or config.rotary_dim % 2 or config.rotary_dim > config.head_dim:
        raise pecert.InvalidArgument("rotary_dim %d of head_dim %d" % (config.rotary_dim, config.head_dim))
    kind = config.rope_type
    if kind == pecert.ROPE_DEFAULT:
        return _default(config, config.rope_theta), 1.0
    if kind == pecert.ROPE_LINEAR:
        return _default(config, config.rope_theta) / config.factor, 1.0
    if kind == pecert.ROPE_DYNAMIC:
        max_pos = config.max_position_embeddings
        length = seq_len if seq_len > max_pos else max_pos
        dim = config.rotary_dim
        base = config.rope_theta * ((config.factor * length / max_pos) - (config.factor - 1)) ** (dim / (dim - 2))
        return _default(config, base), 1.0
    if kind == pecert.ROPE_LLAMA3:
        return _llama3(config), 1.0
    if kind == pecert.ROPE_YARN:
        return _yarn(config)
    if kind == pecert.ROPE_LONGROPE:
        return _longrope(config, seq_len)
    raise NotImplementedError("rope_type %d is not one this engine knows" % kind)


def rope_freqs(out_inv_freq, out_attention_scaling, config, seq_len):
    inv_freq, scaling = _inv_freq(config, seq_len)
    out_inv_freq[:] = inv_freq.numpy()
    out_attention_scaling[0] = scaling


def _cache(positions, inv_freq, scaling):
    """The cos/sin cache as model code builds it: [tokens, rotary_dim/2]."""
    freqs = torch.outer(torch.from_numpy(np.array(positions)).float(), inv_freq)
    return freqs.cos() * scaling, freqs.sin() * scaling


def _length(seq_len, positions):
    """The length that selects dynamic frequencies: 0 means max(positions) + 1,
    as transformers' forward derives it."""
    return seq_len if seq_len > 0 else (int(positions.max()) + 1 if len(positions) else 0)


def rope_cos_sin(out_cos, out_sin, config, seq_len, positions):
    cos, sin = _cache(positions, *_inv_freq(config, _length(seq_len, positions)))
    out_cos[...] = cos.numpy()
    out_sin[...] = sin.numpy()


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def _same_view(a, b):
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.shape == b.shape
            and a.strides == b.strides)


def _rotate(q, positions, inv_freq, scaling, pairing, rd):
    """q [T, heads, head_dim] float32 rotated at positions: model code's
    apply_rotary_pos_emb on a cos/sin cache, the channels past rd kept."""
    cos, sin = _cache(positions, inv_freq, scaling)
    q_rot, q_pass = q[..., :rd], q[..., rd:]
    if pairing == pecert.PAIRING_SPLIT_HALF:
        cos = torch.cat((cos, cos), dim=-1).unsqueeze(1)
        sin = torch.cat((sin, sin), dim=-1).unsqueeze(1)
        q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
    elif pairing == pecert.PAIRING_INTERLEAVED:
        cos = torch.repeat_interleave(cos, 2, dim=-1).unsqueeze(1)
        sin = torch.repeat_interleave(sin, 2, dim=-1).unsqueeze(1)
        q_embed = (q_rot * cos) + (rotate_every_two(q_rot) * sin)
    else:
        raise pecert.InvalidArgument("pairing %d" % pairing)
    return torch.cat((q_embed, q_pass), dim=-1)


def rope_apply(x, positions, config, out, pairing, seq_len):
    if x.dtype != np.float32 or out.dtype != np.float32:
        raise NotImplementedError("float32 tensors only")
    if x.ndim != 3 or out.shape != x.shape or x.shape[2] != config.head_dim:
        raise pecert.InvalidArgument("x %s, out %s, head_dim %d" % (x.shape, out.shape, config.head_dim))
    if np.shares_memory(x, out) and not _same_view(x, out):
        raise pecert.InvalidArgument("x and out overlap without being the same view")
    q = torch.from_numpy(np.array(x))
    if config.layer_kind == pecert.LAYER_NOPE:
        out[...] = q.numpy()
        return
    inv_freq, scaling = _inv_freq(config, _length(seq_len, positions))
    out[...] = _rotate(q, positions, inv_freq, scaling, pairing, config.rotary_dim).numpy()


# ---- the decode session: a KV cache as model code keeps one -------------------

class Session:
    """One session: per sequence, the rotated keys, the values and which
    slots are padding, appended in order (transformers' DynamicCache, one
    per batch row); attention as scaled_dot_product_attention computes it,
    query head h reading kv head h // (n_heads // n_kv_heads)."""

    def __init__(self, config):
        rope = config.rope
        if rope is None or config.alibi:
            raise NotImplementedError("ALiBi sessions: this engine is RoPE only")
        if config.n_heads <= 0 or config.n_kv_heads <= 0 or config.n_heads % config.n_kv_heads:
            raise pecert.InvalidArgument("n_heads %d, n_kv_heads %d" % (config.n_heads, config.n_kv_heads))
        if config.n_seqs <= 0 or config.max_tokens <= 0 or config.head_dim not in (0, rope.head_dim):
            raise pecert.InvalidArgument("n_seqs %d, max_tokens %d, head_dim %d" % (
                config.n_seqs, config.max_tokens, config.head_dim))
        self.rope, self.pairing = rope, config.pairing
        self.nope = rope.layer_kind == pecert.LAYER_NOPE
        if not self.nope:
            # Frequencies of config.seq_len, fixed for the session's life.
            self.inv_freq, self.scaling = _inv_freq(rope, config.seq_len)
        self.groups = config.n_heads // config.n_kv_heads
        self.n_heads, self.n_kv_heads, self.max_tokens = config.n_heads, config.n_kv_heads, config.max_tokens
        self.scale = config.softmax_scale if config.softmax_scale else 1.0 / math.sqrt(rope.head_dim)
        self.keys = [[] for _ in range(config.n_seqs)]
        self.values = [[] for _ in range(config.n_seqs)]
        self.valid = [[] for _ in range(config.n_seqs)]

    def rotated(self, x, positions):
        x = torch.from_numpy(np.array(x))
        if self.nope:
            return x
        return _rotate(x, positions, self.inv_freq, self.scaling, self.pairing, self.rope.rotary_dim)

    def attend(self, q, s, upto):
        """q [heads, head_dim] of the token in slot upto of sequence s, over
        the valid slots 0..upto of s."""
        keys = torch.stack(self.keys[s][:upto + 1])          # [n, kv_heads, d]
        values = torch.stack(self.values[s][:upto + 1])
        mask = torch.tensor(self.valid[s][:upto + 1])
        keys = keys.repeat_interleave(self.groups, dim=1)     # repeat_kv
        values = values.repeat_interleave(self.groups, dim=1)
        scores = torch.einsum("hd,nhd->hn", q, keys) * self.scale
        scores = scores.masked_fill(~mask[None, :], float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return torch.einsum("hn,nhd->hd", weights, values)


def _check_append(session, n_tokens, positions, seq_ids, q, k, v, out):
    d = session.rope.head_dim
    shapes = {"q": (q, session.n_heads), "k": (k, session.n_kv_heads), "v": (v, session.n_kv_heads),
              "out": (out, session.n_heads)}
    for what, (t, heads) in shapes.items():
        if t is None or t.dtype != np.float32 or t.shape != (n_tokens, heads, d):
            raise pecert.InvalidArgument("%s: want [%d, %d, %d] f32" % (what, n_tokens, heads, d))
    if positions is None or seq_ids is None or np.any(seq_ids < 0) or np.any(seq_ids >= len(session.keys)):
        raise pecert.InvalidArgument("positions or seq_ids")
    for s in set(seq_ids.tolist()):
        if len(session.keys[s]) + int(np.sum(seq_ids == s)) > session.max_tokens:
            raise pecert.InvalidArgument("sequence %d past its %d cached tokens" % (s, session.max_tokens))


def session_create(config):
    return Session(config)


def session_append(session, n_tokens, positions, seq_ids, valid, q, k, v, out):
    _check_append(session, n_tokens, positions, seq_ids, q, k, v, out)
    q_rot, k_rot = session.rotated(q, positions), session.rotated(k, positions)
    values = torch.from_numpy(np.array(v))
    result = torch.zeros((n_tokens, session.n_heads, session.rope.head_dim), dtype=torch.float32)
    for t in range(n_tokens):  # append order is causal order, within a call too
        s = int(seq_ids[t])
        session.keys[s].append(k_rot[t])
        session.values[s].append(values[t])
        session.valid[s].append(bool(valid[t]) if valid is not None else True)
        if session.valid[s][-1]:
            result[t] = session.attend(q_rot[t], s, len(session.keys[s]) - 1)
    out[...] = result.numpy()


def session_read_keys(session, out_keys, seq):
    if not 0 <= seq < len(session.keys):
        raise pecert.InvalidArgument("sequence %d" % seq)
    n = len(session.keys[seq])
    if out_keys is None or out_keys.shape != (n, session.n_kv_heads, session.rope.head_dim):
        raise pecert.InvalidArgument("out_keys: want [%d, %d, %d]" % (n, session.n_kv_heads, session.rope.head_dim))
    out_keys[...] = torch.stack(session.keys[seq]).numpy() if n else 0
