/*
 * pecert/plugin.h - the pecert plugin ABI, version 1.
 *
 * A pecert plugin is a shared object that implements positional encodings
 * (RoPE today; ALiBi, T5 buckets, sinusoidal tables and a decode session in
 * later minor versions) so that the pecert harness can certify it against
 * golden vectors produced by the official reference code.
 *
 * This header is self-contained (only <stdint.h> and <stddef.h>) and usable
 * from C and C++. A plugin exports exactly one symbol:
 *
 *     const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version);
 *
 * which returns a pointer to a static, immutable descriptor, or NULL to
 * refuse a host whose ABI major it does not speak.
 *
 * Compatibility rules
 *   - Every struct that crosses the boundary starts with `uint32_t
 *     struct_size` (the descriptor also with `abi_version`). Fields are only
 *     ever appended; a reader uses a field only when `struct_size` covers it.
 *   - Same major version = compatible. A minor version only appends fields,
 *     enum values and function pointers.
 *   - A NULL function pointer means "not implemented": the harness reports
 *     the check as not supported, never as passed.
 *
 * Ownership
 *   - The host (caller) allocates every tensor and array, inputs and
 *     outputs alike. A plugin never frees caller memory and never keeps a
 *     pointer to it after the call returns.
 *   - A plugin owns its instance and the string returned by last_error(),
 *     which stays valid until the next call on that instance or destroy().
 *
 * Errors
 *   - Every operation returns a pecert_status: 0 is success, errors are
 *     negative. A plugin never prints, exits or aborts on bad input; it
 *     returns PECERT_E_INVAL and says why through last_error().
 *
 * Threads
 *   - The host calls one instance from one thread at a time. A plugin may
 *     use threads internally; results must not depend on how many.
 */
#ifndef PECERT_PLUGIN_H
#define PECERT_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PECERT_ABI_MAJOR 1
#define PECERT_ABI_MINOR 1
/* The packed version a descriptor carries: major in the high 16 bits. */
#define PECERT_ABI_VERSION ((uint32_t)((PECERT_ABI_MAJOR << 16) | PECERT_ABI_MINOR))
#define PECERT_ABI_MAJOR_OF(v) ((uint32_t)(v) >> 16)

#if defined(_WIN32)
#define PECERT_EXPORT __declspec(dllexport)
#else
#define PECERT_EXPORT __attribute__((visibility("default")))
#endif

/* ------------------------------------------------------------------------
 * Status codes. 0 is success; every error is negative.
 * ---------------------------------------------------------------------- */
typedef int32_t pecert_status;
enum {
    PECERT_OK = 0,
    PECERT_E_UNSUPPORTED = -1, /* valid request this plugin does not do   */
    PECERT_E_INVAL = -2,       /* bad argument: shape, dtype, range ...   */
    PECERT_E_NOMEM = -3,       /* the plugin could not allocate           */
    PECERT_E_INTERNAL = -4,    /* a bug in the plugin                     */
    PECERT_E_ABI = -5          /* struct too small / version mismatch     */
};

/* ------------------------------------------------------------------------
 * Tensors: caller-allocated, strided, little-endian host memory.
 * ---------------------------------------------------------------------- */
typedef int32_t pecert_dtype;
enum {
    PECERT_DTYPE_INVALID = 0,
    PECERT_DTYPE_F32 = 1,
    PECERT_DTYPE_F64 = 2,
    PECERT_DTYPE_F16 = 3,  /* reserved: RoPE apply on f16 (later minor)  */
    PECERT_DTYPE_BF16 = 4, /* reserved: RoPE apply on bf16 (later minor) */
    PECERT_DTYPE_I32 = 5,
    PECERT_DTYPE_I64 = 6
};

#define PECERT_MAX_DIMS 8

/*
 * pecert_tensor describes a strided view of caller memory. Strides are in
 * elements, not bytes, and may be larger than the packed stride (a Q slice
 * of a fused QKV buffer). Element (i0, i1, ...) lives at
 * data + sum(ik * strides[k]) elements.
 */
typedef struct pecert_tensor {
    uint32_t struct_size;             /* sizeof(pecert_tensor)           */
    pecert_dtype dtype;               /* PECERT_DTYPE_*                  */
    uint32_t ndim;                    /* 0..PECERT_MAX_DIMS              */
    uint32_t reserved0;               /* must be 0                       */
    void *data;                       /* first element                   */
    int64_t shape[PECERT_MAX_DIMS];   /* extent of each axis             */
    int64_t strides[PECERT_MAX_DIMS]; /* in elements; >= 0               */
} pecert_tensor;

/* ------------------------------------------------------------------------
 * RoPE configuration: the resolved positional-encoding parameters of a
 * checkpoint, named after the Hugging Face config fields they come from.
 * ---------------------------------------------------------------------- */
typedef int32_t pecert_rope_type;
enum {
    PECERT_ROPE_DEFAULT = 0,  /* theta^(-2i/d)                              */
    PECERT_ROPE_LINEAR = 1,   /* positions / factor                         */
    PECERT_ROPE_DYNAMIC = 2,  /* dynamic NTK: base grows past max_position  */
    PECERT_ROPE_YARN = 3,     /* YaRN ramp + attention factor (mscale)      */
    PECERT_ROPE_LONGROPE = 4, /* per-frequency short/long factors (Phi-3)   */
    PECERT_ROPE_LLAMA3 = 5    /* Llama 3.1 low/high frequency smoothing     */
    /* Values 6..63 are reserved for later rope types. */
};

typedef int32_t pecert_rope_pairing;
enum {
    /* Channel i pairs with channel i + rotary_dim/2 (GPT-NeoX, Llama,
     * Hugging Face's rotate_half). */
    PECERT_PAIRING_SPLIT_HALF = 0,
    /* Channel 2i pairs with channel 2i+1 (GPT-J, Meta's original llama
     * complex multiply, ggml's "normal" mode). */
    PECERT_PAIRING_INTERLEAVED = 1
};

/* Bits of pecert_rope_config.present: which optional fields carry a value.
 * An absent field takes the default the reference code gives it; the
 * plugin applies that default (getting it wrong is a bug pecert catches). */
enum {
    PECERT_ROPE_HAS_FACTOR = 1u << 0,
    PECERT_ROPE_HAS_ORIGINAL_MAX_POS = 1u << 1, /* in rope_scaling          */
    PECERT_ROPE_HAS_ATTENTION_FACTOR = 1u << 2,
    PECERT_ROPE_HAS_BETA_FAST = 1u << 3,
    PECERT_ROPE_HAS_BETA_SLOW = 1u << 4,
    PECERT_ROPE_HAS_MSCALE = 1u << 5,
    PECERT_ROPE_HAS_MSCALE_ALL_DIM = 1u << 6,
    PECERT_ROPE_HAS_TRUNCATE = 1u << 7,
    PECERT_ROPE_HAS_LOW_FREQ_FACTOR = 1u << 8,
    PECERT_ROPE_HAS_HIGH_FREQ_FACTOR = 1u << 9,
    /* original_max_position_embeddings at the top level of config.json
     * (Phi-3 LongRoPE reads it there, not from rope_scaling). */
    PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS = 1u << 10
};

/*
 * pecert_rope_config. Semantics follow Hugging Face transformers v4.57
 * (src/transformers/modeling_rope_utils.py) field for field:
 *
 *   rotary_dim   = int(head_dim * partial_rotary_factor), even, <= head_dim.
 *                  Frequencies are indexed i = 0 .. rotary_dim/2 - 1.
 *   factor, original_max_position_embeddings, attention_factor, beta_fast,
 *   beta_slow, mscale, mscale_all_dim, truncate, low/high_freq_factor:
 *                  as in config.json's rope_scaling; see `present`.
 *   short_factor, long_factor: LongRoPE, each num_factors = rotary_dim/2
 *                  values (NULL for other types).
 */
typedef struct pecert_rope_config {
    uint32_t struct_size;                     /* sizeof(pecert_rope_config) */
    pecert_rope_type rope_type;               /* PECERT_ROPE_*              */
    uint32_t present;                         /* PECERT_ROPE_HAS_* bits     */
    int32_t head_dim;                         /* channels per head          */
    int32_t rotary_dim;                       /* rotated channels, even     */
    int32_t truncate;                         /* yarn: 1 = floor/ceil range */
    double rope_theta;                        /* base, e.g. 10000, 500000   */
    double factor;                            /* scaling factor             */
    int64_t max_position_embeddings;          /* config.json top level      */
    /* The pretraining length L0. Which source it came from is in
     * `present`: HAS_ORIGINAL_MAX_POS (rope_scaling; yarn, llama3 read it
     * there) or HAS_TOP_ORIGINAL_MAX_POS (config.json top level; longrope
     * reads it there). transformers reads exactly one source per type. */
    int64_t original_max_position_embeddings;
    double attention_factor;                  /* yarn / longrope            */
    double beta_fast;                         /* yarn, default 32           */
    double beta_slow;                         /* yarn, default 1            */
    double mscale;                            /* yarn (DeepSeek)            */
    double mscale_all_dim;                    /* yarn (DeepSeek)            */
    double low_freq_factor;                   /* llama3                     */
    double high_freq_factor;                  /* llama3                     */
    int32_t num_factors;                      /* longrope: rotary_dim/2     */
    int32_t reserved0;                        /* must be 0                  */
    const double *short_factor;               /* longrope, num_factors      */
    const double *long_factor;                /* longrope, num_factors      */
    /* Reserved for M-RoPE sections and later fields; must be zero. A
     * plugin that finds a non-zero reserved word returns
     * PECERT_E_UNSUPPORTED: a later minor version gave it a meaning. */
    uint64_t reserved[8];
} pecert_rope_config;

/*
 * Arguments of rope_apply. x and out are [tokens, heads, head_dim] (ndim 3).
 * out may be exactly the same view as x (in place); two views that share
 * some element without being the same view are PECERT_E_INVAL. Views that
 * interleave without sharing an element (read the Q slice of a fused QKV
 * buffer, write its K slice) are valid.
 *
 * Positions may be negative (rotating by -p undoes p); |p| < 2^53. A
 * plugin that cannot take negative positions returns PECERT_E_UNSUPPORTED
 * for them.
 */
typedef struct pecert_rope_apply_args {
    uint32_t struct_size;              /* sizeof(pecert_rope_apply_args)   */
    pecert_rope_pairing pairing;       /* PECERT_PAIRING_*                 */
    const pecert_rope_config *config;  /* frequencies and scaling          */
    /* The sequence length that selects dynamic / longrope frequencies;
     * 0 means max(positions) + 1, as transformers' forward derives it. */
    int64_t seq_len;
    const int64_t *positions;          /* [tokens] position id per token   */
    const pecert_tensor *x;            /* input  [tokens, heads, head_dim] */
    pecert_tensor *out;                /* output, same shape; may be x     */
    /* Reserved for M-RoPE (position axes, sections) and later fields. */
    uint64_t reserved[8];
} pecert_rope_apply_args;

/* ------------------------------------------------------------------------
 * The plugin descriptor.
 * ---------------------------------------------------------------------- */
typedef struct pecert_plugin {
    uint32_t abi_version;  /* PECERT_ABI_VERSION the plugin was built with */
    uint32_t struct_size;  /* sizeof(pecert_plugin)                        */
    const char *id;        /* reverse-DNS, e.g. "org.pecert.ref"           */
    const char *name;      /* short name, e.g. "ref"                       */
    const char *version;   /* the plugin's own version string              */
    const char *vendor;    /* who made it                                  */
    /* NULL-terminated versioned capabilities, e.g. "pecert.rope/1". */
    const char *const *capabilities;

    /* create: make an instance. [thread-safe]
     * May be NULL: the plugin is stateless and every call gets NULL. */
    pecert_status (*create)(void **out_instance);

    /* destroy: release an instance made by create. [after create] */
    void (*destroy)(void *instance);

    /* last_error: one line on the last failed call, or "" (never NULL).
     * Owned by the plugin; valid until the next call on the instance. */
    const char *(*last_error)(void *instance);

    /* rope_freqs: the inverse frequencies at sequence length seq_len
     * (which selects dynamic / longrope behaviour; 0 = the init-time value
     * transformers uses when no length is given), written as rotary_dim/2
     * doubles to out_inv_freq, and the attention scaling that multiplies
     * cos and sin (1 for default, linear, dynamic, llama3). */
    pecert_status (*rope_freqs)(void *instance, double *out_inv_freq,
                                double *out_attention_scaling,
                                const pecert_rope_config *config,
                                int64_t seq_len);

    /* rope_cos_sin: for each of n_positions positions p and frequency i,
     * cos(p * inv_freq[i]) * attention_scaling and likewise sin, written to
     * out_cos and out_sin of shape [n_positions, rotary_dim/2] (f32 or f64,
     * strided). seq_len selects frequencies as in rope_apply. */
    pecert_status (*rope_cos_sin)(void *instance, pecert_tensor *out_cos,
                                  pecert_tensor *out_sin,
                                  const pecert_rope_config *config,
                                  int64_t seq_len, const int64_t *positions,
                                  int64_t n_positions);

    /* rope_apply: rotate the first rotary_dim channels of every head of
     * every token by its position, with the given pairing; rotated channels
     * are scaled by the attention scaling, channels past rotary_dim are
     * copied unchanged. f32 in ABI 1.0. */
    pecert_status (*rope_apply)(void *instance,
                                const pecert_rope_apply_args *args);

    /* ---- ABI 1.1 ------------------------------------------------------ */

    /* set_num_threads: use at most n (>= 1) threads in later calls on this
     * instance; results must be bit-identical for every n. NULL: the
     * plugin is single-threaded. [after create] */
    pecert_status (*set_num_threads)(void *instance, int32_t n);

    /* describe: one line on how the instance runs, for reports, e.g.
     * "isa=avx512 threads=2". May be NULL. Owned by the plugin, valid
     * until the next call on the instance. [after create] */
    const char *(*describe)(void *instance);
} pecert_plugin;

/* PECERT_HAS_FIELD: 1 if the struct at ptr (of type `type`, starting with
 * struct_size) is large enough to hold `field`. A host reads a field added
 * in a later minor version only through this test. */
#define PECERT_HAS_FIELD(ptr, type, field)                                      \
    ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* The one symbol a plugin exports. host_abi_version is the host's
 * PECERT_ABI_VERSION; return NULL to refuse a major you do not speak. */
typedef const pecert_plugin *(*pecert_plugin_entry_fn)(uint32_t host_abi_version);
#define PECERT_PLUGIN_ENTRY_SYMBOL "pecert_plugin_entry"
PECERT_EXPORT const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version);

#ifdef __cplusplus
}
#endif

#endif /* PECERT_PLUGIN_H */
