"""The C plugin ABI (include/pecert/plugin.h) as a Python engine sees it.

Status codes, dtypes and the other enumerations carry the C names without
their PECERT_ prefix. The argument structs are mirrored with ctypes, field
for field, in the C order; pointers are plain 64-bit words here (the host
resolves each through the call's relocations, include/pecert/WIRE.md).
tests/python/test_abi_layout.py checks every offset and size against the C
compiler's, so this file cannot drift from plugin.h unnoticed.
"""
import ctypes

ABI_MAJOR = 1
ABI_MINOR = 10
ABI_VERSION = (ABI_MAJOR << 16) | ABI_MINOR

# Status codes: 0 is success, every error negative.
OK = 0
E_UNSUPPORTED = -1
E_INVAL = -2
E_NOMEM = -3
E_INTERNAL = -4
E_ABI = -5

# Data types of a tensor.
DTYPE_F32 = 1
DTYPE_F64 = 2
DTYPE_F16 = 3
DTYPE_BF16 = 4
DTYPE_I32 = 5
DTYPE_I64 = 6

MAX_DIMS = 8

# rope_type
ROPE_DEFAULT = 0
ROPE_LINEAR = 1
ROPE_DYNAMIC = 2
ROPE_YARN = 3
ROPE_LONGROPE = 4
ROPE_LLAMA3 = 5

# pairing
PAIRING_SPLIT_HALF = 0
PAIRING_INTERLEAVED = 1

# pecert_rope_config.present bits
ROPE_HAS_FACTOR = 1 << 0
ROPE_HAS_ORIGINAL_MAX_POS = 1 << 1
ROPE_HAS_ATTENTION_FACTOR = 1 << 2
ROPE_HAS_BETA_FAST = 1 << 3
ROPE_HAS_BETA_SLOW = 1 << 4
ROPE_HAS_MSCALE = 1 << 5
ROPE_HAS_MSCALE_ALL_DIM = 1 << 6
ROPE_HAS_TRUNCATE = 1 << 7
ROPE_HAS_LOW_FREQ_FACTOR = 1 << 8
ROPE_HAS_HIGH_FREQ_FACTOR = 1 << 9
ROPE_HAS_TOP_ORIGINAL_MAX_POS = 1 << 10

# layer_kind
LAYER_ROPE = 0
LAYER_NOPE = 1

# sinusoidal variants
SINUSOIDAL_INTERLEAVED = 0
SINUSOIDAL_CONCAT = 1
SINUSOIDAL_T2T = 2
SINUSOIDAL_FAIRSEQ = 3

# pecert_scope.flags
SCOPE_WHOLE_HEAD_ONLY = 1 << 0

_u32, _i32, _i64, _u64, _f64 = ctypes.c_uint32, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_double
_ptr = ctypes.c_uint64  # a pointer slot: resolved through the call's relocations


class Tensor(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("dtype", _i32), ("ndim", _u32), ("reserved0", _u32),
                ("data", _ptr), ("shape", _i64 * MAX_DIMS), ("strides", _i64 * MAX_DIMS)]


class RopeConfig(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("rope_type", _i32), ("present", _u32), ("head_dim", _i32),
                ("rotary_dim", _i32), ("truncate", _i32), ("rope_theta", _f64), ("factor", _f64),
                ("max_position_embeddings", _i64), ("original_max_position_embeddings", _i64),
                ("attention_factor", _f64), ("beta_fast", _f64), ("beta_slow", _f64), ("mscale", _f64),
                ("mscale_all_dim", _f64), ("low_freq_factor", _f64), ("high_freq_factor", _f64),
                ("num_factors", _i32), ("reserved0", _i32), ("short_factor", _ptr), ("long_factor", _ptr),
                ("layer_kind", _i32), ("reserved1", _i32), ("reserved", _u64 * 7)]


class RopeApplyArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("pairing", _i32), ("config", _ptr), ("seq_len", _i64),
                ("positions", _ptr), ("x", _ptr), ("out", _ptr), ("reserved", _u64 * 8)]


class AlibiSlopesArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("num_heads", _i32), ("max_bias", _f64), ("out", _ptr),
                ("reserved", _u64 * 4)]


class AlibiBiasArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("num_heads", _i32), ("max_bias", _f64), ("symmetric", _i32),
                ("reserved0", _i32), ("q_positions", _ptr), ("n_q", _i64), ("k_positions", _ptr), ("n_k", _i64),
                ("out", _ptr), ("reserved", _u64 * 4)]


class T5BucketArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("bidirectional", _i32), ("num_buckets", _i32), ("reserved0", _i32),
                ("max_distance", _i64), ("relative_positions", _ptr), ("n", _i64), ("out", _ptr),
                ("reserved", _u64 * 4)]


class SinusoidalArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("variant", _i32), ("dim", _i32), ("padding_idx", _i32), ("base", _f64),
                ("positions", _ptr), ("n", _i64), ("out", _ptr), ("reserved", _u64 * 4)]


class SessionConfig(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("pairing", _i32), ("rope", _ptr), ("seq_len", _i64), ("n_seqs", _i32),
                ("max_tokens", _i32), ("n_heads", _i32), ("n_kv_heads", _i32), ("softmax_scale", _f64),
                ("alibi", _i32), ("head_dim", _i32), ("alibi_max_bias", _f64), ("alibi_bias_scale", _f64),
                ("reserved", _u64 * 5)]


class SessionAppendArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("reserved0", _u32), ("n_tokens", _i64), ("positions", _ptr),
                ("seq_ids", _ptr), ("valid", _ptr), ("q", _ptr), ("k", _ptr), ("v", _ptr), ("out", _ptr),
                ("reserved", _u64 * 8)]


class Scope(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("flags", _u32), ("max_position", _i64), ("rope_apply_dtypes", _u32),
                ("reserved0", _u32), ("reserved", _u64 * 4)]


# The wire's frames for the operations whose C arguments are not one struct.
class FrameRopeFreqs(ctypes.Structure):
    _fields_ = [("out_inv_freq", _ptr), ("out_attention_scaling", _ptr), ("config", _ptr), ("seq_len", _i64)]


class FrameRopeCosSin(ctypes.Structure):
    _fields_ = [("out_cos", _ptr), ("out_sin", _ptr), ("config", _ptr), ("seq_len", _i64), ("positions", _ptr),
                ("n_positions", _i64)]


class FrameThreads(ctypes.Structure):
    _fields_ = [("n", _i32), ("reserved0", _i32)]


class FrameSessionCreate(ctypes.Structure):
    _fields_ = [("config", _ptr)]


class FrameReadKeys(ctypes.Structure):
    _fields_ = [("out_keys", _ptr), ("seq", _i32), ("reserved0", _i32)]


# sizeof(pecert_plugin) at ABI 1.10, what this host's hello declares: two
# words, five strings, 29 operations and the scope pointer (checked against
# the compiler's by the layout test).
PLUGIN_STRUCT_SIZE = 8 + 8 * 5 + 8 * 29 + 8

# The C layouts the tests compare: (C struct name, ctypes mirror).
MIRRORS = [
    ("pecert_tensor", Tensor), ("pecert_rope_config", RopeConfig), ("pecert_rope_apply_args", RopeApplyArgs),
    ("pecert_alibi_slopes_args", AlibiSlopesArgs), ("pecert_alibi_bias_args", AlibiBiasArgs),
    ("pecert_t5_bucket_args", T5BucketArgs), ("pecert_sinusoidal_args", SinusoidalArgs), ("pecert_scope", Scope),
    ("pecert_wire_frame_rope_freqs", FrameRopeFreqs), ("pecert_wire_frame_rope_cos_sin", FrameRopeCosSin),
    ("pecert_wire_frame_threads", FrameThreads), ("pecert_session_config", SessionConfig),
    ("pecert_session_append_args", SessionAppendArgs), ("pecert_wire_frame_session_create", FrameSessionCreate),
    ("pecert_wire_frame_read_keys", FrameReadKeys),
]
