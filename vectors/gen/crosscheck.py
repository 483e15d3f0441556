"""Cross-check the generator's layout glue against the models' own attention layers.

gen_rope.py calls the reference rotary modules and apply functions directly and moves
tensors between layouts itself.  To prove that this glue is what the models do, each
rope.apply vector is recomputed through the model's attention layer (LlamaAttention,
Phi3Attention, GPTNeoXAttention, GPTJAttention) with its projections set to the identity:
the key the layer stores in its KV cache is then exactly the rotated input, including the
rotary_dim slicing and pass-through the layer performs.  The two must agree bit for bit.

DeepSeek attention (multi-head latent attention) has no identity setting that exposes the
rotated q_pe, so DeepSeek vectors are not cross-checked here; compare_double.py still
checks them against the formula.
"""

import copy


def _identity_(torch, linear, rows_per_block=None):
    """Set a Linear's weight to route input channel j to output channel j (or, for fused
    projections, to every block of `rows_per_block` outputs); zero its bias."""
    with torch.no_grad():
        linear.weight.zero_()
        out_f, in_f = linear.weight.shape
        step = rows_per_block or in_f
        for start in range(0, out_f, step):
            linear.weight[start:start + in_f, :].copy_(torch.eye(in_f))
        if linear.bias is not None:
            linear.bias.zero_()


def _neox_identity_(torch, linear, heads, head_dim):
    """GPT-NeoX fuses q, k, v per head: outputs [h*3D, h*3D+D) are q_h, the next D are
    k_h, the next D are v_h.  Route head h's input channels to all three."""
    with torch.no_grad():
        linear.weight.zero_()
        for h in range(heads):
            for part in range(3):
                row = h * 3 * head_dim + part * head_dim
                col = h * head_dim
                linear.weight[row:row + head_dim, col:col + head_dim].copy_(torch.eye(head_dim))
        if linear.bias is not None:
            linear.bias.zero_()


def _cached_keys(cache):
    return cache.layers[0].keys  # [B, H, S, D]


def attention_keys(gen, preset, position_ids, x_tok):
    """Rotated keys [T, H, D] as the model's attention layer computes them, or None when
    the family has no cross-check."""
    torch = gen.torch
    from transformers.cache_utils import DynamicCache

    kind, kwargs = preset
    tokens, heads, head_dim = x_tok.shape
    batch, seq = position_ids.shape
    hidden = torch.from_numpy(x_tok.copy()).view(batch, seq, heads * head_dim)
    cache = DynamicCache()
    cache_position = torch.arange(seq)
    kwargs = copy.deepcopy(kwargs)
    if kind == "llama":
        kwargs.update(hidden_size=heads * head_dim, num_attention_heads=heads,
                      num_key_value_heads=heads, head_dim=head_dim)
        cfg = gen.make_config((kind, kwargs))
        cfg._attn_implementation = "eager"
        layer = gen.ref.llama.LlamaAttention(cfg, layer_idx=0)
        for lin in (layer.q_proj, layer.k_proj, layer.v_proj, layer.o_proj):
            _identity_(torch, lin)
        emb = gen.ref.llama.LlamaRotaryEmbedding(config=cfg)(hidden, position_ids)
        layer(hidden, emb, None, past_key_values=cache, cache_position=cache_position)
    elif kind == "phi3":
        # Phi-3 derives head_dim from hidden_size // num_attention_heads.
        kwargs.update(hidden_size=heads * head_dim, num_attention_heads=heads,
                      num_key_value_heads=heads)
        cfg = gen.make_config((kind, kwargs))
        cfg._attn_implementation = "eager"
        layer = gen.ref.phi3.Phi3Attention(cfg, layer_idx=0)
        _identity_(torch, layer.qkv_proj, rows_per_block=heads * head_dim)
        _identity_(torch, layer.o_proj)
        emb = gen.ref.phi3.Phi3RotaryEmbedding(config=cfg)(hidden, position_ids)
        layer(hidden, emb, None, past_key_values=cache, cache_position=cache_position)
    elif kind == "neox":
        kwargs.update(hidden_size=heads * head_dim, num_attention_heads=heads)
        cfg = gen.make_config((kind, kwargs))
        cfg._attn_implementation = "eager"
        layer = gen.ref.neox.GPTNeoXAttention(cfg, layer_idx=0)
        _neox_identity_(torch, layer.query_key_value, heads, head_dim)
        _identity_(torch, layer.dense)
        emb = gen.ref.neox.GPTNeoXRotaryEmbedding(config=cfg)(hidden, position_ids)
        layer(hidden, None, layer_past=cache, cache_position=cache_position,
              position_embeddings=emb)
    elif kind == "gptj":
        cfg = gen.make_config((kind, kwargs))
        cfg._attn_implementation = "eager"
        layer = gen.ref.gptj.GPTJAttention(cfg, layer_idx=0)
        for lin in (layer.q_proj, layer.k_proj, layer.v_proj, layer.out_proj):
            _identity_(torch, lin)
        layer(hidden, layer_past=cache, position_ids=position_ids, use_cache=True,
              cache_position=cache_position)
    else:
        return None
    with torch.no_grad():
        keys = _cached_keys(cache)
    return keys.transpose(1, 2).reshape(tokens, heads, head_dim)
