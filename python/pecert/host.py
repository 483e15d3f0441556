"""The Python engine host: pecert's C engine host (engine/host.c) for an
engine written in Python. It speaks the same wire protocol
(include/pecert/WIRE.md) on the same channel, and the judge treats it as
it treats the C host: everything it sends is hostile input.

    python3 -m pecert.host [--no-sandbox] [--parent=PID] [--filters=FILE] SPEC

SPEC is MODULE[:OBJECT] or path/to/file.py[:OBJECT]. Without OBJECT the
module itself is the engine. A class is instantiated once per instance the
judge creates; any other object serves every call.

Tensors are numpy views of the shared arena: what the engine writes into
an output is what the judge reads back; inputs are read-only views.
"""
import ctypes
import importlib
import importlib.util
import mmap
import os
import signal
import socket
import sys
import traceback
import types

from . import abi, wire
from . import InvalidArgument

try:
    import numpy as np
except ImportError:  # said as the load error: pecert's Python host needs numpy
    np = None

_NP_DTYPES = {abi.DTYPE_F32: "<f4", abi.DTYPE_F64: "<f8", abi.DTYPE_F16: "<f2", abi.DTYPE_BF16: "<u2",
              abi.DTYPE_I32: "<i4", abi.DTYPE_I64: "<i8"}

# Operations with their own calling convention (the others take one
# argument struct, its fields as keyword arguments).
_OWN = {"create", "destroy", "last_error", "describe"}


class ProtocolError(Exception):
    """The judge sent what is not the protocol: the host ends."""


class Refusal(Exception):
    """An argument this host cannot hand to Python: the call returns status
    with this text, the engine is not called."""

    def __init__(self, status, text):
        super().__init__(text)
        self.status = status


# ---- loading ---------------------------------------------------------------

def _split_spec(spec):
    """(where, attribute): SPEC's part after its last ':' names an object
    when it is an identifier; otherwise the whole SPEC is the module."""
    where, sep, attr = spec.rpartition(":")
    if sep and where and attr.isidentifier():
        return where, attr
    return spec, ""


def _load_engine(spec):
    """The object SPEC names, and a short name for it."""
    where, attr = _split_spec(spec)
    if where.endswith(".py") or "/" in where:
        stem = os.path.splitext(os.path.basename(where))[0]
        loader = importlib.util.spec_from_file_location("pecert_engine_" + stem, where)
        if loader is None or not os.path.isfile(where):
            raise ImportError("no Python file %s" % where)
        module = importlib.util.module_from_spec(loader)
        sys.modules[loader.name] = module
        # As `python3 file.py` runs it: the file's folder first on the path,
        # so that it imports its neighbours (a variant of another engine).
        sys.path.insert(0, os.path.dirname(os.path.abspath(where)))
        loader.loader.exec_module(module)
    else:
        stem = where.rsplit(".", 1)[-1]
        module = importlib.import_module(where)
    if not attr:
        return module, stem
    if not hasattr(module, attr):
        raise ImportError("%s has no %s" % (where, attr))
    return getattr(module, attr), attr


def _scope(declared):
    """The engine's `scope` (a dict or an object with pecert_scope's fields
    flags, max_position, rope_apply_dtypes) as the C struct, or None when
    it declares none. A value the struct cannot hold is a load error."""
    if declared is None:
        return None
    scope = abi.Scope(struct_size=ctypes.sizeof(abi.Scope))
    limits = {"flags": 1 << 32, "max_position": 1 << 63, "rope_apply_dtypes": 1 << 32}
    for name, limit in limits.items():
        value = declared.get(name, 0) if isinstance(declared, dict) else getattr(declared, name, 0)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < limit:
            raise ValueError("scope.%s is %r: an integer in [0, %d)" % (name, value, limit))
        setattr(scope, name, value)
    unknown = set(declared) - set(limits) if isinstance(declared, dict) else set()
    if unknown:
        raise ValueError("scope has %s: pecert_scope has only %s" % (", ".join(sorted(unknown)), ", ".join(limits)))
    return scope


class Engine:
    """The loaded engine as the host serves it: its operations, the
    descriptor's strings, and the instances the judge holds."""

    def __init__(self, target, stem):
        self.target = target
        self.is_class = isinstance(target, type)
        # The operations the engine has and this host carries: the others
        # are not offered (the judge reads them as not implemented).
        self.ops = [name for name in wire.OPS
                    if (name in ARGUMENTS or name == "describe") and callable(getattr(target, name, None))]
        if "session_create" in self.ops and "session_destroy" not in self.ops:
            self.ops.append("session_destroy")  # the host drops the object: Python frees it
        self.strings = [str(getattr(target, "id", "python." + stem)), str(getattr(target, "name", stem)),
                        str(getattr(target, "version", "0")), getattr(target, "vendor", None)]
        self.capabilities = [str(c) for c in getattr(target, "capabilities", ())][:wire.MAX_CAPS]
        self.scope = _scope(getattr(target, "scope", None))
        self.instances = {0: None if self.is_class else target}
        self.last_error = {}
        self.mask = self._op_mask()

    def _op_mask(self):
        mask = 1 << wire.OP["last_error"]  # the host keeps it
        if self.is_class:
            mask |= 1 << wire.OP["create"] | 1 << wire.OP["destroy"]
        for name in self.ops:
            mask |= 1 << wire.OP[name]
        return mask


# ---- the arena and the frame -------------------------------------------------

class Call:
    """One CALL: its frame (copied), its relocations, the arena."""

    def __init__(self, frame, relocs, arena):
        self.frame = frame
        self.relocs = relocs
        self.arena = arena

    def struct(self, cls, at):
        if at is None or at < 0 or at + ctypes.sizeof(cls) > len(self.frame):
            raise Refusal(abi.E_INVAL, "an argument struct is missing or cut")
        return cls.from_buffer_copy(self.frame, at)

    def target(self, slot):
        """(space, offset) a pointer slot points to, or None for NULL."""
        return self.relocs.get(slot)

    def frame_struct(self, cls, slot):
        t = self.target(slot)
        if t is None:
            return None
        if t[0] != wire.SPACE_FRAME:
            raise Refusal(abi.E_INVAL, "a struct pointer into the arena")
        return self.struct(cls, t[1]), t[1]

    def array(self, slot, dtype, count, writable=False):
        """count elements at the pointer of slot, a view of the arena."""
        t = self.target(slot)
        if t is None:
            return None
        if t[0] != wire.SPACE_ARENA or count < 0:
            raise Refusal(abi.E_INVAL, "an array that is not in the arena")
        return self._view(t[1], (count,), dtype, None, writable, "an array")

    def matrix(self, slot, dtype, rows, cols):
        """rows x cols elements at the pointer of slot (a C [rows, cols]
        array), as a 2-D view; an extent that is not positive gives an
        empty one, as the C host shares no bytes for it."""
        rows, cols = (rows, cols) if rows > 0 and cols > 0 else (0, max(cols, 0))
        view = self.array(slot, dtype, rows * cols)
        return None if view is None else view.reshape(rows, cols)

    def tensor(self, slot, name, writable):
        """The pecert_tensor a slot points to, as a numpy view; a view the
        ABI calls invalid is refused for the engine (E_INVAL)."""
        found = self.frame_struct(abi.Tensor, slot)
        if found is None:
            return None
        t, at = found
        dtype = _NP_DTYPES.get(t.dtype)
        if t.struct_size < ctypes.sizeof(abi.Tensor) or t.reserved0 != 0:
            raise Refusal(abi.E_ABI if t.struct_size < ctypes.sizeof(abi.Tensor) else abi.E_UNSUPPORTED,
                          "%s: struct_size %d or a reserved word set" % (name, t.struct_size))
        if dtype is None or t.ndim > abi.MAX_DIMS:
            raise Refusal(abi.E_INVAL, "%s: dtype %d, ndim %d" % (name, t.dtype, t.ndim))
        shape = tuple(t.shape[k] for k in range(t.ndim))
        strides = tuple(t.strides[k] for k in range(t.ndim))
        if any(n <= 0 for n in shape) or any(s < 0 for s in strides):
            raise Refusal(abi.E_INVAL, "%s: shape %s, strides %s" % (name, list(shape), list(strides)))
        data = self.target(at + abi.Tensor.data.offset)
        if data is None or data[0] != wire.SPACE_ARENA:
            raise Refusal(abi.E_INVAL, "%s: no data" % name)
        size = np.dtype(dtype).itemsize
        return self._view(data[1], shape, dtype, tuple(s * size for s in strides), writable, name)

    def _view(self, offset, shape, dtype, strides, writable, name):
        """A numpy view of the arena; a view past its end (a size the ABI
        calls invalid, which pecert shares no memory for) is refused."""
        try:
            view = np.ndarray(shape, dtype=dtype, buffer=self.arena, offset=offset, strides=strides)
        except (TypeError, ValueError) as exc:
            raise Refusal(abi.E_INVAL, "%s: not a view of the memory pecert shared (%s)" % (name, exc))
        view.flags.writeable = writable
        return view

    def config(self, slot):
        found = self.frame_struct(abi.RopeConfig, slot)
        if found is None:
            return None
        c, at = found
        if c.struct_size < ctypes.sizeof(abi.RopeConfig):
            raise Refusal(abi.E_ABI, "config: struct_size %d" % c.struct_size)
        if c.reserved0 or c.reserved1 or any(c.reserved):
            raise Refusal(abi.E_UNSUPPORTED, "config: a reserved word is set (a later ABI minor's field)")
        fields = {name: getattr(c, name) for name, _ in abi.RopeConfig._fields_
                  if not name.startswith("reserved") and name not in ("short_factor", "long_factor")}
        n = max(c.num_factors, 0)
        # Copies, not views: an engine may keep the config (a session does)
        # past the call, and the arena's bytes are the next call's.
        for name in ("short_factor", "long_factor"):
            view = self.array(at + getattr(abi.RopeConfig, name).offset, "<f8", n)
            fields[name] = None if view is None else np.array(view)
        return types.SimpleNamespace(**fields)


def _reserved_clear(args, name):
    if any(getattr(args, "reserved", ())) or getattr(args, "reserved0", 0):
        raise Refusal(abi.E_UNSUPPORTED, "%s: a reserved word is set (a later ABI minor's field)" % name)


def _args(call, cls, name):
    args = call.struct(cls, 0)
    if args.struct_size < ctypes.sizeof(cls):
        raise Refusal(abi.E_ABI, "%s: struct_size %d < %d" % (name, args.struct_size, ctypes.sizeof(cls)))
    _reserved_clear(args, name)
    return args


def _slot(cls, field):
    return getattr(cls, field).offset


# ---- the operations: the keyword arguments each engine method gets ----------

def _rope_freqs(call):
    f = call.struct(abi.FrameRopeFreqs, 0)
    config = call.config(_slot(abi.FrameRopeFreqs, "config"))
    n = config.rotary_dim // 2 if config is not None and config.rotary_dim > 0 else 0
    return dict(out_inv_freq=call.array(_slot(abi.FrameRopeFreqs, "out_inv_freq"), "<f8", n, True),
                out_attention_scaling=call.array(_slot(abi.FrameRopeFreqs, "out_attention_scaling"), "<f8", 1, True),
                config=config, seq_len=f.seq_len)


def _rope_cos_sin(call):
    f = call.struct(abi.FrameRopeCosSin, 0)
    return dict(out_cos=call.tensor(_slot(abi.FrameRopeCosSin, "out_cos"), "out_cos", True),
                out_sin=call.tensor(_slot(abi.FrameRopeCosSin, "out_sin"), "out_sin", True),
                config=call.config(_slot(abi.FrameRopeCosSin, "config")), seq_len=f.seq_len,
                positions=call.array(_slot(abi.FrameRopeCosSin, "positions"), "<i8", max(f.n_positions, 0)))


def _rope_apply(call):
    a = _args(call, abi.RopeApplyArgs, "rope_apply")
    x = call.tensor(_slot(abi.RopeApplyArgs, "x"), "x", False)
    rows = x.shape[0] if x is not None and x.ndim >= 1 else 0
    return dict(pairing=a.pairing, config=call.config(_slot(abi.RopeApplyArgs, "config")), seq_len=a.seq_len,
                positions=call.array(_slot(abi.RopeApplyArgs, "positions"), "<i8", rows), x=x,
                out=call.tensor(_slot(abi.RopeApplyArgs, "out"), "out", True))


def _set_num_threads(call):
    return dict(n=call.struct(abi.FrameThreads, 0).n)


def _alibi_slopes(call):
    a = _args(call, abi.AlibiSlopesArgs, "alibi_slopes")
    return dict(num_heads=a.num_heads, max_bias=a.max_bias,
                out=call.tensor(_slot(abi.AlibiSlopesArgs, "out"), "out", True))


def _alibi_bias(call):
    a = _args(call, abi.AlibiBiasArgs, "alibi_bias")
    return dict(num_heads=a.num_heads, max_bias=a.max_bias, symmetric=a.symmetric,
                q_positions=call.array(_slot(abi.AlibiBiasArgs, "q_positions"), "<i8", max(a.n_q, 0)),
                k_positions=call.array(_slot(abi.AlibiBiasArgs, "k_positions"), "<i8", max(a.n_k, 0)),
                out=call.tensor(_slot(abi.AlibiBiasArgs, "out"), "out", True))


def _t5_bucket(call):
    a = _args(call, abi.T5BucketArgs, "t5_bucket")
    return dict(bidirectional=a.bidirectional, num_buckets=a.num_buckets, max_distance=a.max_distance,
                relative_positions=call.array(_slot(abi.T5BucketArgs, "relative_positions"), "<i8", max(a.n, 0)),
                out=call.tensor(_slot(abi.T5BucketArgs, "out"), "out", True))


def _sinusoidal(call):
    a = _args(call, abi.SinusoidalArgs, "sinusoidal")
    return dict(variant=a.variant, dim=a.dim, padding_idx=a.padding_idx, base=a.base,
                positions=call.array(_slot(abi.SinusoidalArgs, "positions"), "<i8", max(a.n, 0)),
                out=call.tensor(_slot(abi.SinusoidalArgs, "out"), "out", True))


def _session_config(call):
    found = call.frame_struct(abi.SessionConfig, _slot(abi.FrameSessionCreate, "config"))
    if found is None:
        raise Refusal(abi.E_INVAL, "session_create: no config")
    c, at = found
    if c.struct_size < ctypes.sizeof(abi.SessionConfig):
        raise Refusal(abi.E_ABI, "session config: struct_size %d" % c.struct_size)
    _reserved_clear(c, "session config")
    fields = {name: getattr(c, name) for name, _ in abi.SessionConfig._fields_
              if not name.startswith("reserved") and name != "rope"}
    fields["rope"] = call.config(at + abi.SessionConfig.rope.offset)
    return dict(config=types.SimpleNamespace(**fields))


def _session_append(call):
    a = _args(call, abi.SessionAppendArgs, "session_append")
    n = max(a.n_tokens, 0)
    valid = call.array(_slot(abi.SessionAppendArgs, "valid"), "<u1", n)
    return dict(n_tokens=a.n_tokens, positions=call.array(_slot(abi.SessionAppendArgs, "positions"), "<i8", n),
                seq_ids=call.array(_slot(abi.SessionAppendArgs, "seq_ids"), "<i4", n), valid=valid,
                q=call.tensor(_slot(abi.SessionAppendArgs, "q"), "q", False),
                k=call.tensor(_slot(abi.SessionAppendArgs, "k"), "k", False),
                v=call.tensor(_slot(abi.SessionAppendArgs, "v"), "v", False),
                out=call.tensor(_slot(abi.SessionAppendArgs, "out"), "out", True))


def _session_read_keys(call):
    f = call.struct(abi.FrameReadKeys, 0)
    return dict(out_keys=call.tensor(_slot(abi.FrameReadKeys, "out_keys"), "out_keys", True), seq=f.seq)


def _learned_lookup(call):
    a = _args(call, abi.LearnedArgs, "learned_lookup")
    return dict(convention=a.convention, padding_idx=a.padding_idx,
                table=call.tensor(_slot(abi.LearnedArgs, "table"), "table", False),
                positions=call.array(_slot(abi.LearnedArgs, "positions"), "<i8", max(a.n, 0)),
                out=call.tensor(_slot(abi.LearnedArgs, "out"), "out", True))


def _sincos_2d(call):
    a = _args(call, abi.Sincos2dArgs, "sincos_2d")
    return dict(embed_dim=a.embed_dim, grid_h=a.grid_h, grid_w=a.grid_w, cls_token=a.cls_token, layout=a.layout,
                base=a.base, out=call.tensor(_slot(abi.Sincos2dArgs, "out"), "out", True))


def _swin_index(call):
    a = _args(call, abi.SwinIndexArgs, "swin_index")
    return dict(window_h=a.window_h, window_w=a.window_w,
                out=call.tensor(_slot(abi.SwinIndexArgs, "out"), "out", True))


def _shaw_index(call):
    a = _args(call, abi.ShawIndexArgs, "shaw_index")
    return dict(max_relative_position=a.max_relative_position,
                q_positions=call.array(_slot(abi.ShawIndexArgs, "q_positions"), "<i8", max(a.n_q, 0)),
                k_positions=call.array(_slot(abi.ShawIndexArgs, "k_positions"), "<i8", max(a.n_k, 0)),
                out=call.tensor(_slot(abi.ShawIndexArgs, "out"), "out", True))


def _txl_pos_emb(call):
    a = _args(call, abi.TxlPosEmbArgs, "txl_pos_emb")
    return dict(d_model=a.d_model, klen=a.klen, clamp_len=a.clamp_len,
                out=call.tensor(_slot(abi.TxlPosEmbArgs, "out"), "out", True))


def _txl_rel_shift(call):
    a = _args(call, abi.TxlRelShiftArgs, "txl_rel_shift")
    return dict(zero_triu=a.zero_triu, x=call.tensor(_slot(abi.TxlRelShiftArgs, "x"), "x", False),
                out=call.tensor(_slot(abi.TxlRelShiftArgs, "out"), "out", True))


def _mrope_index(call):
    a = _args(call, abi.MropeIndexArgs, "mrope_index")
    slot = lambda field: _slot(abi.MropeIndexArgs, field)  # noqa: E731
    return dict(spatial_merge_size=a.spatial_merge_size, image_token_id=a.image_token_id,
                video_token_id=a.video_token_id, vision_start_token_id=a.vision_start_token_id, batch=a.batch,
                seq_len=a.seq_len, input_ids=call.matrix(slot("input_ids"), "<i8", a.batch, a.seq_len),
                attention_mask=call.matrix(slot("attention_mask"), "<i8", a.batch, a.seq_len),
                image_grid_thw=call.matrix(slot("image_grid_thw"), "<i8", a.n_images, 3), n_images=a.n_images,
                video_grid_thw=call.matrix(slot("video_grid_thw"), "<i8", a.n_videos, 3), n_videos=a.n_videos,
                out_position_ids=call.tensor(slot("out_position_ids"), "out_position_ids", True),
                out_deltas=call.tensor(slot("out_deltas"), "out_deltas", True))


def _rows(tensor):
    return tensor.shape[0] if tensor is not None and tensor.ndim >= 1 else 0


def _mrope_apply(call):
    a = _args(call, abi.MropeApplyArgs, "mrope_apply")
    x = call.tensor(_slot(abi.MropeApplyArgs, "x"), "x", False)
    axes = a.num_axes if 1 <= a.num_axes <= abi.MROPE_MAX_AXES else 0
    return dict(pairing=a.pairing, config=call.config(_slot(abi.MropeApplyArgs, "config")), seq_len=a.seq_len,
                num_axes=a.num_axes, section=list(a.section), interleaved=a.interleaved,
                positions=call.matrix(_slot(abi.MropeApplyArgs, "positions"), "<i8", axes, _rows(x)), x=x,
                out=call.tensor(_slot(abi.MropeApplyArgs, "out"), "out", True))


def _rope2d_index(call):
    a = _args(call, abi.Rope2dIndexArgs, "rope2d_index")
    return dict(scheme=a.scheme, spatial_merge_size=a.spatial_merge_size, window_units=a.window_units,
                grid_thw=call.matrix(_slot(abi.Rope2dIndexArgs, "grid_thw"), "<i8", a.n_images, 3),
                n_images=a.n_images, out_positions=call.tensor(_slot(abi.Rope2dIndexArgs, "out_positions"),
                                                               "out_positions", True))


def _rope2d_apply(call):
    a = _args(call, abi.Rope2dApplyArgs, "rope2d_apply")
    x = call.tensor(_slot(abi.Rope2dApplyArgs, "x"), "x", False)
    return dict(pairing=a.pairing, frequencies=a.frequencies, columns_first=a.columns_first, head_dim=a.head_dim,
                theta=a.theta, positions=call.matrix(_slot(abi.Rope2dApplyArgs, "positions"), "<i8", 2, _rows(x)),
                x=x, out=call.tensor(_slot(abi.Rope2dApplyArgs, "out"), "out", True))


def _pos_interpolate(call):
    a = _args(call, abi.PosinterpArgs, "pos_interpolate")
    return dict(mode=a.mode, align_corners=a.align_corners, antialias=a.antialias, prefix_tokens=a.prefix_tokens,
                merge_size=a.merge_size, grid_h=a.grid_h, grid_w=a.grid_w, out_h=a.out_h, out_w=a.out_w,
                scale_h=a.scale_h, scale_w=a.scale_w,
                table=call.tensor(_slot(abi.PosinterpArgs, "table"), "table", False),
                out=call.tensor(_slot(abi.PosinterpArgs, "out"), "out", True))


def _cope_logits(call):
    a = _args(call, abi.CopeArgs, "cope_logits")
    kwargs = dict(nodiv=a.nodiv, npos=a.npos)
    for name, writable in (("q", False), ("k", False), ("gate_k", False), ("pos_emb", False), ("mask", False),
                           ("positions", True), ("logits", True)):
        kwargs[name] = call.tensor(_slot(abi.CopeArgs, name), name, writable)
    return kwargs


def _peg_apply(call):
    a = _args(call, abi.PegArgs, "peg_apply")
    kwargs = dict(prefix_tokens=a.prefix_tokens, grid_h=a.grid_h, grid_w=a.grid_w, kernel=a.kernel)
    for name, writable in (("x", False), ("weight", False), ("bias", False), ("out", True)):
        kwargs[name] = call.tensor(_slot(abi.PegArgs, name), name, writable)
    return kwargs


def _sine2d(call):
    a = _args(call, abi.Sine2dArgs, "sine2d")
    return dict(num_pos_feats=a.num_pos_feats, normalize=a.normalize, temperature_y=a.temperature_y,
                temperature_x=a.temperature_x, scale=a.scale, offset=a.offset, eps=a.eps,
                mask=call.tensor(_slot(abi.Sine2dArgs, "mask"), "mask", False),
                out=call.tensor(_slot(abi.Sine2dArgs, "out"), "out", True))


def _relpos2d_bias(call):
    a = _args(call, abi.Relpos2dArgs, "relpos2d_bias")
    return dict(q_h=a.q_h, q_w=a.q_w, k_h=a.k_h, k_w=a.k_w,
                query=call.tensor(_slot(abi.Relpos2dArgs, "query"), "query", False),
                rel_pos_h=call.tensor(_slot(abi.Relpos2dArgs, "rel_pos_h"), "rel_pos_h", False),
                rel_pos_w=call.tensor(_slot(abi.Relpos2dArgs, "rel_pos_w"), "rel_pos_w", False),
                out=call.tensor(_slot(abi.Relpos2dArgs, "out"), "out", True))


def _deberta_bias(call):
    a = _args(call, abi.DebertaArgs, "deberta_bias")
    kwargs = dict(terms=a.terms, bucket_size=a.bucket_size, max_position=a.max_position)
    for name, writable in (("q", False), ("k", False), ("pos_key", False), ("pos_query", False), ("out", True)):
        kwargs[name] = call.tensor(_slot(abi.DebertaArgs, name), name, writable)
    return kwargs


ARGUMENTS = {"rope_freqs": _rope_freqs, "rope_cos_sin": _rope_cos_sin, "rope_apply": _rope_apply,
             "set_num_threads": _set_num_threads, "alibi_slopes": _alibi_slopes, "alibi_bias": _alibi_bias,
             "t5_bucket": _t5_bucket, "sinusoidal": _sinusoidal, "session_create": _session_config,
             "session_append": _session_append, "session_read_keys": _session_read_keys,
             "session_destroy": lambda call: {}, "learned_lookup": _learned_lookup, "sincos_2d": _sincos_2d,
             "swin_index": _swin_index, "shaw_index": _shaw_index, "txl_pos_emb": _txl_pos_emb,
             "txl_rel_shift": _txl_rel_shift, "mrope_index": _mrope_index, "mrope_apply": _mrope_apply,
             "rope2d_index": _rope2d_index, "rope2d_apply": _rope2d_apply, "pos_interpolate": _pos_interpolate,
             "cope_logits": _cope_logits, "peg_apply": _peg_apply, "sine2d": _sine2d,
             "relpos2d_bias": _relpos2d_bias, "deberta_bias": _deberta_bias}


# ---- calling the engine --------------------------------------------------------

def _one_line(exc):
    """An exception as the one line a check reports: its type, message and
    the innermost place in the engine's code it was raised (not Python's
    import machinery, not this package)."""
    text = str(exc).strip().splitlines()
    own = os.path.dirname(os.path.abspath(__file__))
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith("<") and os.path.dirname(os.path.abspath(f.filename)) != own]
    at = " (%s:%d)" % (os.path.basename(frames[-1].filename), frames[-1].lineno) if frames else ""
    return "%s: %s%s" % (type(exc).__name__, text[0] if text else "", at)


def _status_of(exc):
    if isinstance(exc, Refusal):
        return exc.status, str(exc)
    if isinstance(exc, NotImplementedError):
        return abi.E_UNSUPPORTED, _one_line(exc)
    if isinstance(exc, InvalidArgument):
        return abi.E_INVAL, _one_line(exc)
    if isinstance(exc, MemoryError):
        return abi.E_NOMEM, _one_line(exc)
    return abi.E_INTERNAL, _one_line(exc)


def _returned(value, name):
    if value is None:
        return abi.OK, ""
    if isinstance(value, int) and not isinstance(value, bool) and -5 <= value <= 0:
        return value, "%s returned status %d" % (name, value) if value else ""
    return abi.E_INTERNAL, "%s returned %r: an engine method returns None or a pecert status" % (name, value)


class Host:
    def __init__(self, engine, channel):
        self.engine = engine
        self.channel = channel
        self.arena = None
        self.arena_size = 0
        self.generation = 0
        self.sessions = {}

    # -- messages --
    def send(self, data):
        self.channel.sendmsg([data])

    def reply(self, seq, status, handle=0, text=None):
        flags = 0
        raw = b""
        if text is None:
            flags = wire.REPLY_TEXT_NULL
        else:
            raw = text.encode("utf-8", "replace")[:wire.MAX_TEXT]
        length = wire.REPLY_FIXED.size + len(raw)
        self.send(wire.REPLY_FIXED.pack(wire.MAGIC, wire.VERSION, wire.REPLY, length, seq, status, handle,
                                        len(raw), flags) + raw)

    def map_arena(self, message, fds):
        if len(message) != wire.ARENA_MSG.size or len(fds) != 1:
            raise ProtocolError("an ARENA message without its memfd")
        _, _, _, _, _, size, generation = wire.ARENA_MSG.unpack(message)
        try:
            arena = mmap.mmap(fds[0], size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fds[0])
        self.arena, self.arena_size, self.generation = arena, size, generation

    # -- one call --
    def relocations(self, message, frame_len, n_relocs, generation):
        at = wire.CALL_FIXED.size
        relocs_at = at + ((frame_len + 7) & ~7)
        if (frame_len > wire.MAX_FRAME or n_relocs > wire.MAX_RELOCS
                or relocs_at + n_relocs * wire.RELOC.size != len(message)
                or (n_relocs > 0 and generation != self.generation)):
            raise ProtocolError("a CALL whose frame or relocations are not the protocol")
        frame = bytes(message[at:at + frame_len])
        relocs = {}
        for i in range(n_relocs):
            slot, space, target = wire.RELOC.unpack_from(message, relocs_at + i * wire.RELOC.size)
            limit = frame_len if space == wire.SPACE_FRAME else self.arena_size
            if (slot % 8 or slot + 8 > frame_len or target > limit or space > wire.SPACE_ARENA
                    or (space == wire.SPACE_ARENA and self.arena is None)):
                raise ProtocolError("a relocation outside its space")
            relocs[slot] = (space, target)
        return frame, relocs

    def instance_of(self, handle):
        if handle not in self.engine.instances:
            raise ProtocolError("a handle no instance has")
        return self.engine.instances[handle]

    def serve_call(self, message):
        (_, _, _, _, seq, op, handle, session, frame_len, n_relocs, _, generation) = wire.CALL_FIXED.unpack_from(
            message)
        name = wire.OPS[op] if op < len(wire.OPS) else None
        if name is None or not (self.engine.mask >> op) & 1:
            raise ProtocolError("an operation the hello did not offer")
        frame, relocs = self.relocations(message, frame_len, n_relocs, generation)
        target = self.instance_of(handle)
        if session and session not in self.sessions:
            raise ProtocolError("a handle no session has")
        if name == "create":
            return self.create(seq)
        if name == "destroy":
            self.engine.instances.pop(handle, None)
            self.engine.last_error.pop(handle, None)
            return self.reply(seq, abi.OK)
        if name == "last_error":
            return self.reply(seq, abi.OK, text=self.engine.last_error.get(handle, ""))
        if name == "describe":
            return self.describe(seq, target)
        call = Call(frame, relocs, self.arena)
        if name == "session_create":
            return self.create_session(seq, target, handle, call)
        extra = {"session": self.sessions.get(session)} if name.startswith("session_") else {}
        if name == "session_destroy":
            self.sessions.pop(session, None)
            if not session or not callable(getattr(target, name, None)):
                return self.reply(seq, abi.OK)  # destroying no session is a no-op, as in C
        status, text = self.run(name, target, call, extra)
        self.engine.last_error[handle] = text
        return self.reply(seq, status, text=text if status != abi.OK else None)

    def create_session(self, seq, target, handle, call):
        """session_create: the engine's object kept under a handle (1..64);
        the judge only ever holds the handle."""
        free = [k for k in range(1, wire.MAX_SESSIONS + 1) if k not in self.sessions]
        status, text, made = self.run("session_create", target, call, {}, keep=True)
        if status == abi.OK and made is None:
            status, text = abi.E_INTERNAL, "session_create returned None: it returns the session object"
        if status == abi.OK and not free:
            status, text = abi.E_NOMEM, "more than %d sessions" % wire.MAX_SESSIONS
        self.engine.last_error[handle] = text
        if status != abi.OK:
            return self.reply(seq, status, text=text)
        self.sessions[free[0]] = made
        return self.reply(seq, abi.OK, handle=free[0])

    def create(self, seq):
        free = [k for k in range(1, wire.MAX_SESSIONS + 1) if k not in self.engine.instances]
        try:
            made = self.engine.target()
        except Exception as exc:  # the engine's own failure to construct
            status, text = _status_of(exc)
            return self.reply(seq, status, text=text)
        if not free:
            return self.reply(seq, abi.E_NOMEM, text="more than %d instances" % wire.MAX_SESSIONS)
        self.engine.instances[free[0]] = made
        return self.reply(seq, abi.OK, handle=free[0])

    def describe(self, seq, target):
        try:
            text = target.describe()
        except Exception as exc:
            text = _one_line(exc)
        return self.reply(seq, abi.OK, text=None if text is None else str(text))

    def run(self, name, target, call, extra, keep=False):
        """The engine's method called with the call's arguments (and
        extra's): (status, text), and with keep the value it returned."""
        try:
            kwargs = ARGUMENTS[name](call)
        except Refusal as exc:
            return (exc.status, str(exc)) + ((None,) if keep else ())
        kwargs.update(extra)
        try:
            value = getattr(target, name)(**kwargs)
        except Exception as exc:
            return _status_of(exc) + ((None,) if keep else ())
        if keep:
            return abi.OK, "", value
        return _returned(value, name)

    def serve(self):
        while True:
            try:
                message, ancdata, _, _ = self.channel.recvmsg(wire.MAX_MESSAGE, socket.CMSG_SPACE(4))
            except ConnectionResetError:
                return 0
            if not message:
                return 0
            fds = []
            for level, kind, data in ancdata:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.extend(int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - 3, 4))
            if len(message) < wire.HEADER.size:
                return 1
            magic, version, kind, length, _ = wire.HEADER.unpack_from(message)
            try:
                if magic != wire.MAGIC or version != wire.VERSION or length != len(message):
                    raise ProtocolError("a header that is not the protocol's")
                if kind == wire.ARENA:
                    self.map_arena(message, fds)
                    fds = []
                elif kind == wire.CALL:
                    self.serve_call(message)
                else:
                    raise ProtocolError("a message the judge does not send")
            except ProtocolError:
                return 1
            finally:
                for fd in fds:
                    os.close(fd)


# ---- the hello -------------------------------------------------------------------

def _text(value, limit):
    raw = (value or "").encode("utf-8", "replace")[:limit - 1]
    return raw.split(b"\0", 1)[0] + b"\0"


def hello(channel, engine, sandboxed):
    present = wire.HAS_ID | wire.HAS_NAME | wire.HAS_VERSION | (wire.HAS_VENDOR if engine.strings[3] else 0)
    present |= wire.SANDBOXED if sandboxed else 0
    present |= wire.HAS_SCOPE if engine.scope is not None else 0
    text = b"".join(_text(s, wire.MAX_TEXT) for s in engine.strings)
    text += b"".join(_text(c, wire.MAX_CAP_LEN) for c in engine.capabilities) + b"\0"
    fixed = wire.HELLO_FIXED.size + wire.SCOPE_BYTES
    body = wire.HELLO_FIXED.pack(wire.MAGIC, wire.VERSION, wire.HELLO, fixed + len(text), 0, abi.ABI_VERSION,
                                 abi.PLUGIN_STRUCT_SIZE, engine.mask, present, os.getpid())
    scope = bytes(engine.scope) if engine.scope is not None else bytes(wire.SCOPE_BYTES)
    channel.sendmsg([body + scope + text])


def load_error(channel, text):
    raw = text.encode("utf-8", "replace")[:wire.MAX_TEXT - 1] + b"\0"
    try:
        channel.sendmsg([wire.header(wire.LOAD_ERROR, wire.HEADER.size + len(raw)) + raw])
    except OSError:
        pass
    return 1


# ---- the process -------------------------------------------------------------------

def _die_with(parent):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:
        os._exit(127)


def main(argv):
    sandboxed, filters, args = True, None, list(argv)
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--no-sandbox":
            sandboxed = False
        elif flag.startswith("--parent="):
            _die_with(int(flag.split("=", 1)[1]))
        elif flag.startswith("--filters="):
            filters = flag.split("=", 1)[1]
        else:
            args = []
    if len(args) != 1:
        print("usage: python3 -m pecert.host [--no-sandbox] [--parent=PID] [--filters=FILE] SPEC "
              "(started by pecert, channel on fd %d)" % wire.CHANNEL_FD, file=sys.stderr)
        return 2
    spec = args[0]
    channel = socket.socket(fileno=wire.CHANNEL_FD)
    if np is None:
        return load_error(channel, "%s: cannot load: pecert's Python host needs numpy (Debian: python3-numpy)" % spec)
    if sandboxed:
        from . import sandbox
        why = sandbox.enter(sandbox.LOADING, filters)
        if why:
            return load_error(channel, "%s: cannot sandbox the engine host: %s" % (spec, why))
    try:
        engine = Engine(*_load_engine(spec))
    except BaseException as exc:  # its import-time code: any failure is the load error
        return load_error(channel, "%s: cannot load: %s" % (spec, _one_line(exc)))
    if sandboxed:
        why = sandbox.enter(sandbox.SERVING, filters)
        if why:
            return load_error(channel, "%s: cannot sandbox the engine host: %s" % (spec, why))
    hello(channel, engine, sandboxed)
    return Host(engine, channel).serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
