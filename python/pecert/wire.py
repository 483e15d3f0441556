"""The wire protocol of include/pecert/wire.h and WIRE.md, version 1.

Every message is one SOCK_SEQPACKET packet starting with the header
(magic, version, type, length, seq), little-endian, fixed-size structs.
"""
import struct

MAGIC = 0x31574350  # "PCW1"
VERSION = 1
MAX_MESSAGE = 1 << 16
CHANNEL_FD = 3
MAX_TEXT = 2048
MAX_CAPS = 64
MAX_CAP_LEN = 128
MAX_RELOCS = 256
MAX_FRAME = 16384
MAX_SESSIONS = 64

HELLO, LOAD_ERROR, ARENA, CALL, REPLY = 1, 2, 3, 4, 5

# pecert_wire_op, in order: the index is the op's number.
OPS = ["create", "destroy", "last_error", "rope_freqs", "rope_cos_sin", "rope_apply", "set_num_threads",
       "describe", "session_create", "session_destroy", "session_append", "session_read_keys", "alibi_slopes",
       "alibi_bias", "t5_bucket", "sinusoidal", "learned_lookup", "sincos_2d", "swin_index", "shaw_index",
       "txl_pos_emb", "txl_rel_shift", "mrope_index", "mrope_apply", "rope2d_index", "rope2d_apply",
       "pos_interpolate", "cope_logits", "peg_apply", "sine2d", "relpos2d_bias", "deberta_bias"]
OP = {name: i for i, name in enumerate(OPS)}

HAS_ID, HAS_NAME, HAS_VERSION, HAS_VENDOR, HAS_SCOPE, SANDBOXED = (1 << k for k in range(6))

SPACE_FRAME, SPACE_ARENA = 0, 1
REPLY_TEXT_NULL = 1

HEADER = struct.Struct("<IHHII")
# hello: header, abi_version, struct_size, op_mask, present, host_pid, then the scope (SCOPE_BYTES)
HELLO_FIXED = struct.Struct("<IHHII" + "IIQII")
ARENA_MSG = struct.Struct("<IHHII" + "QQ")
CALL_FIXED = struct.Struct("<IHHII" + "IIIIIIQ")
RELOC = struct.Struct("<IIQ")
REPLY_FIXED = struct.Struct("<IHHII" + "iIII")
SCOPE_BYTES = 56


def header(kind, length, seq=0):
    return HEADER.pack(MAGIC, VERSION, kind, length, seq)
