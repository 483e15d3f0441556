"""The C plugin ABI (include/pecert/plugin.h) as a Python engine sees it.

Status codes, dtypes and the other enumerations carry the C names without
their PECERT_ prefix. The argument structs are mirrored with ctypes, field
for field, in the C order; pointers are plain 64-bit words here (the host
resolves each through the call's relocations, include/pecert/WIRE.md).
tests/python/check_abi_layout.py checks every offset and size against the C
compiler's, so this file cannot drift from plugin.h unnoticed.
"""
import ctypes

ABI_MAJOR = 1
ABI_MINOR = 14
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

# learned conventions
LEARNED_PLAIN = 0
LEARNED_PADDING_OFFSET = 1

# M-RoPE
MROPE_MAX_AXES = 4

# rope2d frequencies and index schemes
ROPE2D_BLOCKS = 0
ROPE2D_ALTERNATE = 1
ROPE2D_MERGE_WINDOWS = 0
ROPE2D_ROW_MAJOR = 1
ROPE2D_ROW_MAJOR_CLS = 2
ROPE2D_ATTENTION_WINDOWS = 3

# pos_interpolate modes
POSINTERP_BICUBIC = 0
POSINTERP_BILINEAR = 1

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


class LearnedArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("convention", _i32), ("padding_idx", _i32), ("reserved0", _i32),
                ("table", _ptr), ("positions", _ptr), ("n", _i64), ("out", _ptr), ("reserved", _u64 * 4)]


class Sincos2dArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("embed_dim", _i32), ("grid_h", _i32), ("grid_w", _i32), ("cls_token", _i32),
                ("layout", _i32), ("base", _f64), ("out", _ptr), ("reserved", _u64 * 4)]


class SwinIndexArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("window_h", _i32), ("window_w", _i32), ("reserved0", _i32), ("out", _ptr),
                ("reserved", _u64 * 4)]


class ShawIndexArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("reserved0", _i32), ("max_relative_position", _i64), ("q_positions", _ptr),
                ("n_q", _i64), ("k_positions", _ptr), ("n_k", _i64), ("out", _ptr), ("reserved", _u64 * 4)]


class TxlPosEmbArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("d_model", _i32), ("klen", _i64), ("clamp_len", _i64), ("out", _ptr),
                ("reserved", _u64 * 4)]


class TxlRelShiftArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("zero_triu", _i32), ("x", _ptr), ("out", _ptr), ("reserved", _u64 * 4)]


class MropeIndexArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("spatial_merge_size", _i32), ("image_token_id", _i64),
                ("video_token_id", _i64), ("vision_start_token_id", _i64), ("batch", _i64), ("seq_len", _i64),
                ("input_ids", _ptr), ("attention_mask", _ptr), ("image_grid_thw", _ptr), ("n_images", _i64),
                ("video_grid_thw", _ptr), ("n_videos", _i64), ("out_position_ids", _ptr), ("out_deltas", _ptr),
                ("reserved", _u64 * 4)]


class MropeApplyArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("pairing", _i32), ("config", _ptr), ("seq_len", _i64), ("num_axes", _i32),
                ("section", _i32 * MROPE_MAX_AXES), ("interleaved", _i32), ("positions", _ptr), ("x", _ptr),
                ("out", _ptr), ("reserved", _u64 * 4)]


class Rope2dApplyArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("pairing", _i32), ("frequencies", _i32), ("columns_first", _i32),
                ("head_dim", _i32), ("reserved0", _i32), ("theta", _f64), ("positions", _ptr), ("x", _ptr),
                ("out", _ptr), ("reserved", _u64 * 4)]


class Rope2dIndexArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("scheme", _i32), ("spatial_merge_size", _i32), ("window_units", _i32),
                ("grid_thw", _ptr), ("n_images", _i64), ("out_positions", _ptr), ("reserved", _u64 * 4)]


class PosinterpArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("mode", _i32), ("align_corners", _i32), ("antialias", _i32),
                ("prefix_tokens", _i32), ("merge_size", _i32), ("grid_h", _i64), ("grid_w", _i64), ("out_h", _i64),
                ("out_w", _i64), ("scale_h", _f64), ("scale_w", _f64), ("table", _ptr), ("out", _ptr),
                ("reserved", _u64 * 4)]


class CopeArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("nodiv", _i32), ("npos", _i64), ("q", _ptr), ("k", _ptr), ("gate_k", _ptr),
                ("pos_emb", _ptr), ("mask", _ptr), ("positions", _ptr), ("logits", _ptr), ("reserved", _u64 * 4)]


class PegArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("prefix_tokens", _i32), ("grid_h", _i64), ("grid_w", _i64), ("kernel", _i64),
                ("x", _ptr), ("weight", _ptr), ("bias", _ptr), ("out", _ptr), ("reserved", _u64 * 4)]


class Sine2dArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("num_pos_feats", _i32), ("normalize", _i32), ("reserved0", _i32),
                ("temperature_y", _f64), ("temperature_x", _f64), ("scale", _f64), ("offset", _f64), ("eps", _f64),
                ("mask", _ptr), ("out", _ptr), ("reserved", _u64 * 4)]


class Relpos2dArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("reserved0", _i32), ("q_h", _i64), ("q_w", _i64), ("k_h", _i64),
                ("k_w", _i64), ("query", _ptr), ("rel_pos_h", _ptr), ("rel_pos_w", _ptr), ("out", _ptr),
                ("reserved", _u64 * 4)]


class DebertaArgs(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("terms", _u32), ("bucket_size", _i64), ("max_position", _i64),
                ("q", _ptr), ("k", _ptr), ("pos_key", _ptr), ("pos_query", _ptr), ("out", _ptr),
                ("reserved", _u64 * 4)]


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


# The plugin descriptor: two words, five strings, the operations (each a
# function pointer, in the wire's order) with the scope pointer after
# mrope_apply, where ABI 1.3 added it.
_DESCRIPTOR_OPS = ["create", "destroy", "last_error", "rope_freqs", "rope_cos_sin", "rope_apply",
                   "set_num_threads", "describe", "session_create", "session_destroy", "session_append",
                   "session_read_keys", "alibi_slopes", "alibi_bias", "t5_bucket", "sinusoidal", "learned_lookup",
                   "sincos_2d", "swin_index", "shaw_index", "txl_pos_emb", "txl_rel_shift", "mrope_index",
                   "mrope_apply", "scope", "rope2d_index", "rope2d_apply", "pos_interpolate", "cope_logits",
                   "peg_apply", "sine2d", "relpos2d_bias", "deberta_bias"]


class Plugin(ctypes.Structure):
    _fields_ = ([("abi_version", _u32), ("struct_size", _u32), ("id", _ptr), ("name", _ptr), ("version", _ptr),
                 ("vendor", _ptr), ("capabilities", _ptr)] + [(name, _ptr) for name in _DESCRIPTOR_OPS])


# sizeof(pecert_plugin) at ABI 1.14, what this host's hello declares.
PLUGIN_STRUCT_SIZE = ctypes.sizeof(Plugin)

# The C layouts the tests compare: (C struct name, ctypes mirror).
MIRRORS = [
    ("pecert_tensor", Tensor), ("pecert_rope_config", RopeConfig), ("pecert_rope_apply_args", RopeApplyArgs),
    ("pecert_alibi_slopes_args", AlibiSlopesArgs), ("pecert_alibi_bias_args", AlibiBiasArgs),
    ("pecert_t5_bucket_args", T5BucketArgs), ("pecert_sinusoidal_args", SinusoidalArgs), ("pecert_scope", Scope),
    ("pecert_wire_frame_rope_freqs", FrameRopeFreqs), ("pecert_wire_frame_rope_cos_sin", FrameRopeCosSin),
    ("pecert_wire_frame_threads", FrameThreads), ("pecert_session_config", SessionConfig),
    ("pecert_session_append_args", SessionAppendArgs), ("pecert_wire_frame_session_create", FrameSessionCreate),
    ("pecert_wire_frame_read_keys", FrameReadKeys), ("pecert_learned_args", LearnedArgs),
    ("pecert_sincos2d_args", Sincos2dArgs), ("pecert_swin_index_args", SwinIndexArgs),
    ("pecert_shaw_index_args", ShawIndexArgs), ("pecert_txl_pos_emb_args", TxlPosEmbArgs),
    ("pecert_txl_rel_shift_args", TxlRelShiftArgs), ("pecert_mrope_index_args", MropeIndexArgs),
    ("pecert_mrope_apply_args", MropeApplyArgs), ("pecert_rope2d_apply_args", Rope2dApplyArgs),
    ("pecert_rope2d_index_args", Rope2dIndexArgs), ("pecert_posinterp_args", PosinterpArgs),
    ("pecert_cope_args", CopeArgs), ("pecert_peg_args", PegArgs), ("pecert_sine2d_args", Sine2dArgs),
    ("pecert_relpos2d_args", Relpos2dArgs), ("pecert_deberta_args", DebertaArgs), ("pecert_plugin", Plugin),
]
