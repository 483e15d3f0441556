"""A C plugin served as a Python engine: every operation's keyword
arguments, as the Python host hands them to an engine, are put back into
the C structs and passed to the plugin's own function.

This is how the tests prove that the Python host carries every operation
whole: `pecert run` of ref through this engine must give ref's results
through the C host, check for check and number for number (a field the
host dropped, a stride it scaled wrongly, a matrix it shaped wrongly would
change a result or fail a check). It is a test fixture, not a way to run C
plugins: the C host does that.

    PECERT_C_PLUGIN=build/impls/ref.so pecert run --impl python:tests/python/c_plugin_engine.py:Engine
"""
import ctypes
import os

import numpy as np

import pecert
from pecert import abi

_DTYPES = {np.dtype("<f4"): abi.DTYPE_F32, np.dtype("<f8"): abi.DTYPE_F64, np.dtype("<f2"): abi.DTYPE_F16,
           np.dtype("<u2"): abi.DTYPE_BF16, np.dtype("<i4"): abi.DTYPE_I32, np.dtype("<i8"): abi.DTYPE_I64}

# The struct each one-struct operation takes, and which of its pointer
# fields are pecert_tensor pointers (the others point at plain arrays).
_ONE_STRUCT = {
    "rope_apply": (abi.RopeApplyArgs, {"x", "out"}),
    "alibi_slopes": (abi.AlibiSlopesArgs, {"out"}),
    "alibi_bias": (abi.AlibiBiasArgs, {"out"}),
    "t5_bucket": (abi.T5BucketArgs, {"out"}),
    "sinusoidal": (abi.SinusoidalArgs, {"out"}),
    "learned_lookup": (abi.LearnedArgs, {"table", "out"}),
    "sincos_2d": (abi.Sincos2dArgs, {"out"}),
    "swin_index": (abi.SwinIndexArgs, {"out"}),
    "shaw_index": (abi.ShawIndexArgs, {"out"}),
    "txl_pos_emb": (abi.TxlPosEmbArgs, {"out"}),
    "txl_rel_shift": (abi.TxlRelShiftArgs, {"x", "out"}),
    "mrope_index": (abi.MropeIndexArgs, {"out_position_ids", "out_deltas"}),
    "mrope_apply": (abi.MropeApplyArgs, {"x", "out"}),
    "rope2d_index": (abi.Rope2dIndexArgs, {"out_positions"}),
    "rope2d_apply": (abi.Rope2dApplyArgs, {"x", "out"}),
    "pos_interpolate": (abi.PosinterpArgs, {"table", "out"}),
    "cope_logits": (abi.CopeArgs, {"q", "k", "gate_k", "pos_emb", "mask", "positions", "logits"}),
    "peg_apply": (abi.PegArgs, {"x", "weight", "bias", "out"}),
    "sine2d": (abi.Sine2dArgs, {"mask", "out"}),
    "relpos2d_bias": (abi.Relpos2dArgs, {"query", "rel_pos_h", "rel_pos_w", "out"}),
    "deberta_bias": (abi.DebertaArgs, {"q", "k", "pos_key", "pos_query", "out"}),
}

# The C counts that a Python engine reads off its arrays' lengths.
_COUNTS = {"n": ("positions", "relative_positions"), "n_q": ("q_positions",), "n_k": ("k_positions",)}

_status = ctypes.c_int32
_vp = ctypes.c_void_p
_SIGNATURES = {
    "create": ctypes.CFUNCTYPE(_status, ctypes.POINTER(_vp)),
    "destroy": ctypes.CFUNCTYPE(None, _vp),
    "last_error": ctypes.CFUNCTYPE(ctypes.c_char_p, _vp),
    "describe": ctypes.CFUNCTYPE(ctypes.c_char_p, _vp),
    "set_num_threads": ctypes.CFUNCTYPE(_status, _vp, ctypes.c_int32),
    "rope_freqs": ctypes.CFUNCTYPE(_status, _vp, _vp, _vp, _vp, ctypes.c_int64),
    "rope_cos_sin": ctypes.CFUNCTYPE(_status, _vp, _vp, _vp, _vp, ctypes.c_int64, _vp, ctypes.c_int64),
    "session_create": ctypes.CFUNCTYPE(_status, _vp, ctypes.POINTER(_vp), _vp),
    "session_destroy": ctypes.CFUNCTYPE(None, _vp, _vp),
    "session_append": ctypes.CFUNCTYPE(_status, _vp, _vp, _vp),
    "session_read_keys": ctypes.CFUNCTYPE(_status, _vp, _vp, _vp, ctypes.c_int32),
}
_ARGS_OP = ctypes.CFUNCTYPE(_status, _vp, _vp)

# Loaded when the module is imported: under the sandbox's loading filter,
# the only time a file may be opened.
_library = ctypes.CDLL(os.environ["PECERT_C_PLUGIN"])
_library.pecert_plugin_entry.restype = _vp
_library.pecert_plugin_entry.argtypes = [ctypes.c_uint32]
_descriptor = abi.Plugin.from_address(_library.pecert_plugin_entry(abi.ABI_VERSION))


def _function(name):
    """The plugin's function of that name, or None: NULL, or past the end
    of an older ABI's descriptor."""
    field = getattr(abi.Plugin, name, None)
    inside = field is not None and field.offset + field.size <= _descriptor.struct_size
    address = getattr(_descriptor, name) if inside else 0
    return _SIGNATURES.get(name, _ARGS_OP)(address) if address else None


def _string(address):
    return ctypes.string_at(address).decode() if address else None


def _capabilities():
    found, at = [], _descriptor.capabilities
    while at:
        item = ctypes.c_void_p.from_address(at).value
        if not item:
            break
        found.append(_string(item))
        at += ctypes.sizeof(ctypes.c_void_p)
    return found


def _scope():
    """The plugin's declared scope, as a Python engine declares one."""
    field = abi.Plugin.scope
    if field.offset + field.size > _descriptor.struct_size or not _descriptor.scope:
        return None
    scope = abi.Scope.from_address(_descriptor.scope)
    return {"flags": scope.flags, "max_position": scope.max_position, "rope_apply_dtypes": scope.rope_apply_dtypes}


class _Keep:
    """The C structs one call builds, alive until it returns."""

    def __init__(self):
        self.alive = []

    def __call__(self, thing):
        self.alive.append(thing)
        return thing

    def pointer(self, value):
        return 0 if value is None else ctypes.addressof(self(value))

    def tensor(self, array):
        if array is None:
            return 0
        t = abi.Tensor(struct_size=ctypes.sizeof(abi.Tensor), dtype=_DTYPES[array.dtype], ndim=array.ndim,
                       data=array.ctypes.data)
        for k in range(array.ndim):
            t.shape[k] = array.shape[k]
            t.strides[k] = array.strides[k] // array.itemsize
        return self.pointer(t)

    def array(self, array):
        return 0 if array is None else self(array).ctypes.data

    def config(self, config):
        if config is None:
            return 0
        c = abi.RopeConfig(struct_size=ctypes.sizeof(abi.RopeConfig))
        for name, _ in abi.RopeConfig._fields_:
            if name in ("short_factor", "long_factor"):
                setattr(c, name, self.array(getattr(config, name)))
            elif hasattr(config, name):
                setattr(c, name, getattr(config, name))
        return self.pointer(c)

    def struct(self, cls, tensors, kwargs):
        s = cls(struct_size=ctypes.sizeof(cls))
        for name, kind in cls._fields_:
            if name in _COUNTS:  # not an argument in Python: the array's length
                value = next((len(kwargs[a]) for a in _COUNTS[name] if kwargs.get(a) is not None), 0)
                setattr(s, name, value)
            if name not in kwargs:
                continue  # struct_size, the reserved words
            value = kwargs[name]
            if value is None:
                value = 0
            elif name == "config":
                value = self.config(value)
            elif name in tensors:
                value = self.tensor(value)
            elif isinstance(value, np.ndarray):
                value = self.array(value)
            elif isinstance(value, list):
                value = kind(*value)
            setattr(s, name, value)
        return self.pointer(s)


class _Session:
    def __init__(self, handle):
        self.handle = handle


class Engine:
    id = _string(_descriptor.id)
    name = _string(_descriptor.name)
    version = _string(_descriptor.version)
    vendor = _string(_descriptor.vendor)
    capabilities = _capabilities()
    scope = _scope()

    def __init__(self):
        self.instance = _vp()
        create = _function("create")
        if create is not None:
            self._checked(create(ctypes.byref(self.instance)), "create")

    def __del__(self):
        destroy = _function("destroy")
        if destroy is not None and self.instance.value:
            destroy(self.instance)

    def _checked(self, status, name):
        """A C status as the Python host reads an exception: the plugin's
        own last_error is the message."""
        if status == abi.OK:
            return None
        last_error = _function("last_error")
        text = last_error(self.instance) if last_error is not None and name != "create" else b""
        text = (text or b"").decode("utf-8", "replace")
        raise {abi.E_UNSUPPORTED: NotImplementedError, abi.E_INVAL: pecert.InvalidArgument,
               abi.E_NOMEM: MemoryError}.get(status, RuntimeError)(text)

    def rope_freqs(self, out_inv_freq, out_attention_scaling, config, seq_len):
        keep = _Keep()
        return self._checked(_function("rope_freqs")(self.instance, keep.array(out_inv_freq),
                                                     keep.array(out_attention_scaling), keep.config(config),
                                                     seq_len), "rope_freqs")

    def rope_cos_sin(self, out_cos, out_sin, config, seq_len, positions):
        keep = _Keep()
        n = 0 if positions is None else positions.shape[0]
        return self._checked(_function("rope_cos_sin")(self.instance, keep.tensor(out_cos), keep.tensor(out_sin),
                                                       keep.config(config), seq_len, keep.array(positions), n),
                             "rope_cos_sin")

    def set_num_threads(self, n):
        return self._checked(_function("set_num_threads")(self.instance, n), "set_num_threads")

    def describe(self):
        text = _function("describe")(self.instance)
        return None if text is None else text.decode("utf-8", "replace")

    def session_create(self, config):
        keep = _Keep()
        c = abi.SessionConfig(struct_size=ctypes.sizeof(abi.SessionConfig))
        for name, _ in abi.SessionConfig._fields_:
            if name == "rope":
                c.rope = keep.config(config.rope)
            elif hasattr(config, name):
                setattr(c, name, getattr(config, name))
        handle = _vp()
        self._checked(_function("session_create")(self.instance, ctypes.byref(handle), keep.pointer(c)),
                      "session_create")
        return _Session(handle)

    def session_destroy(self, session):
        _function("session_destroy")(self.instance, session.handle)

    def session_append(self, session, **kwargs):
        keep = _Keep()
        args = keep.struct(abi.SessionAppendArgs, {"q", "k", "v", "out"}, kwargs)
        return self._checked(_function("session_append")(self.instance, session.handle, args), "session_append")

    def session_read_keys(self, session, out_keys, seq):
        keep = _Keep()
        return self._checked(_function("session_read_keys")(self.instance, session.handle, keep.tensor(out_keys),
                                                            seq), "session_read_keys")


def _one_struct_op(name, cls, tensors):
    def op(self, **kwargs):
        keep = _Keep()
        return self._checked(_function(name)(self.instance, keep.struct(cls, tensors, kwargs)), name)
    op.__name__ = name
    return op


# Only what the plugin has: a NULL operation stays absent, so the Python
# host does not offer it either.
for _name, (_cls, _tensors) in _ONE_STRUCT.items():
    setattr(Engine, _name, _one_struct_op(_name, _cls, _tensors))
for _name in list(vars(Engine)):
    if _name in _SIGNATURES or _name in _ONE_STRUCT:
        if _function(_name) is None:
            delattr(Engine, _name)
