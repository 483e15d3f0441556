/*
 * pecert/wire.h - the wire protocol between pecert (the judge) and an engine
 * host, the process that loads a plugin and runs the operations the judge
 * asks for. include/pecert/WIRE.md is its document: the messages, their
 * order, the limits and what each side must refuse.
 *
 * A host written in another language (issue: Python engines) speaks the
 * same bytes: every struct here is fixed-size, little-endian, with its
 * padding spelled out, and tests/abi_layout.c pins its layout.
 *
 * Self-contained (<stdint.h>, plugin.h), usable from C and C++.
 */
#ifndef PECERT_WIRE_H
#define PECERT_WIRE_H

#include <stdint.h>

#include "pecert/plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "PCW1" read as a little-endian uint32. */
#define PECERT_WIRE_MAGIC   0x31574350u
#define PECERT_WIRE_VERSION 1u

/* The channel is a SOCK_SEQPACKET socket pair: one message per packet,
 * never more than this many bytes. The host finds it at this descriptor. */
#define PECERT_WIRE_MAX_MESSAGE ((uint32_t)1 << 16)
#define PECERT_WIRE_CHANNEL_FD  3

/* Text a host sends (a load error, describe(), last_error()) is cut to
 * this many bytes; the judge reads it up to its first NUL. */
#define PECERT_WIRE_MAX_TEXT 2048u
/* Capabilities a hello may list, and the length of each. */
#define PECERT_WIRE_MAX_CAPS    64u
#define PECERT_WIRE_MAX_CAP_LEN 128u
/* Relocations one call may carry, and the frame (argument structs) size. */
#define PECERT_WIRE_MAX_RELOCS 256u
#define PECERT_WIRE_MAX_FRAME  16384u
/* Live sessions one host keeps. */
#define PECERT_WIRE_MAX_SESSIONS 64u

typedef enum pecert_wire_type {
    PECERT_WIRE_HELLO = 1,      /* host -> judge: the plugin loaded        */
    PECERT_WIRE_LOAD_ERROR = 2, /* host -> judge: it did not; text why     */
    PECERT_WIRE_ARENA = 3,      /* judge -> host: map this memfd (SCM_RIGHTS) */
    PECERT_WIRE_CALL = 4,       /* judge -> host: one operation            */
    PECERT_WIRE_REPLY = 5       /* host -> judge: its status (and text)    */
} pecert_wire_type;

/* Every message starts with this header; `length` counts the header. */
typedef struct pecert_wire_header {
    uint32_t magic;   /* PECERT_WIRE_MAGIC                               */
    uint16_t version; /* PECERT_WIRE_VERSION                             */
    uint16_t type;    /* pecert_wire_type                                */
    uint32_t length;  /* bytes of the whole message, <= MAX_MESSAGE      */
    uint32_t seq;     /* a CALL's number; its REPLY carries the same     */
} pecert_wire_header;

/* The operations, one per function pointer of pecert_plugin. A hello's
 * op_mask has bit (1 << op) set for each one the descriptor holds. */
typedef enum pecert_wire_op {
    PECERT_WIRE_OP_CREATE = 0,
    PECERT_WIRE_OP_DESTROY = 1,
    PECERT_WIRE_OP_LAST_ERROR = 2,
    PECERT_WIRE_OP_ROPE_FREQS = 3,
    PECERT_WIRE_OP_ROPE_COS_SIN = 4,
    PECERT_WIRE_OP_ROPE_APPLY = 5,
    PECERT_WIRE_OP_SET_NUM_THREADS = 6,
    PECERT_WIRE_OP_DESCRIBE = 7,
    PECERT_WIRE_OP_SESSION_CREATE = 8,
    PECERT_WIRE_OP_SESSION_DESTROY = 9,
    PECERT_WIRE_OP_SESSION_APPEND = 10,
    PECERT_WIRE_OP_SESSION_READ_KEYS = 11,
    PECERT_WIRE_OP_ALIBI_SLOPES = 12,
    PECERT_WIRE_OP_ALIBI_BIAS = 13,
    PECERT_WIRE_OP_T5_BUCKET = 14,
    PECERT_WIRE_OP_SINUSOIDAL = 15,
    PECERT_WIRE_OP_LEARNED_LOOKUP = 16,
    PECERT_WIRE_OP_SINCOS_2D = 17,
    PECERT_WIRE_OP_SWIN_INDEX = 18,
    PECERT_WIRE_OP_SHAW_INDEX = 19,
    PECERT_WIRE_OP_TXL_POS_EMB = 20,
    PECERT_WIRE_OP_TXL_REL_SHIFT = 21,
    PECERT_WIRE_OP_MROPE_INDEX = 22,
    PECERT_WIRE_OP_MROPE_APPLY = 23,
    PECERT_WIRE_OP_ROPE2D_INDEX = 24,
    PECERT_WIRE_OP_ROPE2D_APPLY = 25,
    PECERT_WIRE_OP_POS_INTERPOLATE = 26,
    PECERT_WIRE_OP_COPE_LOGITS = 27,
    PECERT_WIRE_OP_PEG_APPLY = 28,
    PECERT_WIRE_OP_SINE2D = 29,
    PECERT_WIRE_OP_RELPOS2D_BIAS = 30,
    PECERT_WIRE_OP_DEBERTA_BIAS = 31,
    PECERT_WIRE_OP_COUNT = 32
} pecert_wire_op;

/* HELLO: the descriptor as the judge may read it, followed by text:
 * id, name, version, vendor, each NUL-terminated, then each capability
 * NUL-terminated, then one more NUL. */
typedef struct pecert_wire_hello {
    pecert_wire_header h;
    uint32_t abi_version; /* the descriptor's                           */
    uint32_t struct_size; /* the descriptor's                           */
    uint64_t op_mask;     /* bit (1 << pecert_wire_op) per non-NULL op  */
    uint32_t present;     /* PECERT_WIRE_HAS_* bits                     */
    uint32_t host_pid;    /* the host's process id (its process group)  */
    pecert_scope scope;   /* when PECERT_WIRE_HAS_SCOPE                 */
} pecert_wire_hello;

enum {
    PECERT_WIRE_HAS_ID = 1u << 0, /* id, name, version, vendor: non-NULL */
    PECERT_WIRE_HAS_NAME = 1u << 1,
    PECERT_WIRE_HAS_VERSION = 1u << 2,
    PECERT_WIRE_HAS_VENDOR = 1u << 3,
    PECERT_WIRE_HAS_SCOPE = 1u << 4, /* a scope of a readable struct_size */
    PECERT_WIRE_SANDBOXED = 1u << 5  /* the host runs under its seccomp filter */
};

/* ARENA: one descriptor in the message's SCM_RIGHTS, a sealed memfd of
 * `size` bytes; later calls name offsets into it. A new arena replaces the
 * one before (the host unmaps it). */
typedef struct pecert_wire_arena {
    pecert_wire_header h;
    uint64_t size;
    uint64_t generation; /* CALLs name the arena they were built for     */
} pecert_wire_arena;

/* A relocation: the pointer-sized slot at `slot` (a byte offset into the
 * call's frame, 8-aligned) is set to the address of `target` bytes into
 * the frame (space FRAME) or into the arena (space ARENA). Every pointer
 * an operation's arguments hold crosses as one; a slot without one is
 * NULL. */
typedef struct pecert_wire_reloc {
    uint32_t slot;
    uint32_t space; /* PECERT_WIRE_SPACE_*                               */
    uint64_t target;
} pecert_wire_reloc;

enum { PECERT_WIRE_SPACE_FRAME = 0, PECERT_WIRE_SPACE_ARENA = 1 };

/* CALL: then frame_len bytes of frame (the operation's argument struct, or
 * for the operations that take plain arguments, the pecert_wire_frame_*
 * struct below, followed by the structs its pointers reach), padded to 8,
 * then n_relocs pecert_wire_reloc. The host calls the operation on its own
 * copy of the frame, never on the arena's bytes. */
typedef struct pecert_wire_call {
    pecert_wire_header h;
    uint32_t op;         /* pecert_wire_op                              */
    uint32_t instance;   /* the handle CREATE returned; 0 = none        */
    uint32_t session;    /* the handle SESSION_CREATE returned          */
    uint32_t frame_len;  /* <= PECERT_WIRE_MAX_FRAME                     */
    uint32_t n_relocs;   /* <= PECERT_WIRE_MAX_RELOCS                    */
    uint32_t reserved0;  /* 0                                           */
    uint64_t generation; /* the arena the offsets are into              */
} pecert_wire_call;

/* REPLY: the operation's status, the handle it made (CREATE,
 * SESSION_CREATE), then text_len bytes of text: describe()'s line, or
 * last_error()'s after a status other than PECERT_OK (and for
 * PECERT_WIRE_OP_LAST_ERROR). */
typedef struct pecert_wire_reply {
    pecert_wire_header h;
    int32_t status;    /* what the plugin returned                       */
    uint32_t handle;   /* CREATE / SESSION_CREATE: the new handle, > 0   */
    uint32_t text_len; /* <= PECERT_WIRE_MAX_TEXT                         */
    uint32_t flags;    /* PECERT_WIRE_REPLY_*                             */
} pecert_wire_reply;

enum {
    /* describe() or last_error() returned NULL (text_len is 0). */
    PECERT_WIRE_REPLY_TEXT_NULL = 1u << 0
};

/* The frames of the operations whose arguments are not one struct. */
typedef struct pecert_wire_frame_rope_freqs {
    double *out_inv_freq;
    double *out_attention_scaling;
    const pecert_rope_config *config;
    int64_t seq_len;
} pecert_wire_frame_rope_freqs;

typedef struct pecert_wire_frame_rope_cos_sin {
    pecert_tensor *out_cos;
    pecert_tensor *out_sin;
    const pecert_rope_config *config;
    int64_t seq_len;
    const int64_t *positions;
    int64_t n_positions;
} pecert_wire_frame_rope_cos_sin;

typedef struct pecert_wire_frame_threads {
    int32_t n;
    int32_t reserved0;
} pecert_wire_frame_threads;

typedef struct pecert_wire_frame_session_create {
    const pecert_session_config *config;
} pecert_wire_frame_session_create;

typedef struct pecert_wire_frame_read_keys {
    pecert_tensor *out_keys;
    int32_t seq;
    int32_t reserved0;
} pecert_wire_frame_read_keys;

#ifdef __cplusplus
}
#endif

#endif /* PECERT_WIRE_H */
