/*
 * pecert/plugin.h - the pecert plugin ABI, version 1.
 *
 * A pecert plugin is a shared object that implements positional encodings
 * (RoPE since 1.0; from 1.2 also a decode session, M-RoPE, ALiBi, T5
 * buckets, sinusoidal, learned and 2-D sin-cos absolute embeddings, and the
 * Swin, Shaw and Transformer-XL relative positions; from 1.3 a declared
 * scope: the largest position, whole heads only, the data types; from 1.4 the
 * layer a RoPE call is for, NoPE layers included, and interleaved M-RoPE;
 * from 1.5 the scale of a session's ALiBi term, Falcon's; from 1.6 the 2-D
 * RoPE of vision towers: Qwen2-VL, Pixtral, Llama 4; from 1.7 the resizing
 * of a learned position-embedding grid: ViT, DINOv2, SigLIP 2, Qwen3-VL;
 * from 1.8 contextual position encoding, CoPE; from 1.9 conditional position
 * encoding, CPVT's PEG; from 1.10 Qwen2.5-VL's attention-window patch order;
 * from 1.11 DETR's 2-D sine embedding from a pixel mask; from 1.12 the
 * decomposed relative positions of MViTv2 and SAM; from 1.13 DeBERTa's
 * disentangled relative positions) so that the pecert
 * harness can certify it against golden vectors produced by the official
 * reference code.
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
#define PECERT_ABI_MINOR 14
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
    /* ABI 1.4: the kind of layer the call is for (PECERT_LAYER_*). Models
     * such as Llama 4, SmolLM3, Cohere 2 and Exaone 4 rotate some layers
     * and leave others without any position encoding; the host asks for a
     * NoPE layer with the model's config and this field set. It took the
     * place of the first reserved word, so a plugin built for 1.3 sees a
     * non-zero reserved word and declines (PECERT_E_UNSUPPORTED); the host
     * asks plugins of minor 4 and later only. */
    int32_t layer_kind;
    int32_t reserved1;                        /* must be 0                  */
    /* Reserved for later fields; must be zero. A plugin that finds a
     * non-zero reserved word returns PECERT_E_UNSUPPORTED: a later minor
     * version gave it a meaning. */
    uint64_t reserved[7];
} pecert_rope_config;

/* pecert_rope_config.layer_kind (ABI 1.4). */
enum {
    /* A rotary layer: everything above applies. */
    PECERT_LAYER_ROPE = 0,
    /* A layer with no position encoding (NoPE): rope_apply writes x to out
     * unchanged, bit for bit, whatever the positions and the other fields
     * (it still checks shapes and views), and a decode session with this
     * config caches and attends with keys and queries unrotated.
     * rope_freqs, rope_cos_sin and mrope_apply describe rotary layers
     * only: they return PECERT_E_INVAL for it. */
    PECERT_LAYER_NOPE = 1
};

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
 * Decode session (ABI 1.2): attention over a KV cache, so that cache and
 * position handling are certified, not only the formula.
 *
 * Contract. Each appended token t of sequence s, at position p_t:
 *   - its key is rotated at p_t and cached (rotated) in sequence s;
 *   - its query, rotated at p_t, attends to itself and to every valid
 *     token of s appended before it (append order is causal order, within
 *     a call too), with scores (q . k) * softmax_scale and a softmax;
 *   - its output row is sum(p_j v_j) over those tokens, per query head,
 *     query head h reading kv head h / (n_heads / n_kv_heads).
 * Padding tokens (valid = 0) are cached (they occupy a slot, as in a padded
 * batch) but never attended to; their output rows are unspecified.
 * Frequencies (dynamic NTK, LongRoPE) are those of config.seq_len, fixed
 * for the session's life, so a prefill split into chunks or decode steps
 * must give the same outputs as one prefill.
 * ---------------------------------------------------------------------- */
typedef struct pecert_session_config {
    uint32_t struct_size;              /* sizeof(pecert_session_config)   */
    pecert_rope_pairing pairing;       /* PECERT_PAIRING_*                */
    const pecert_rope_config *rope;    /* copied at create; NULL = no RoPE (ALiBi only) */
    int64_t seq_len;                   /* as rope_freqs: 0 = none given   */
    int32_t n_seqs;                    /* independent sequences (batch)   */
    int32_t max_tokens;                /* cache capacity per sequence     */
    int32_t n_heads;                   /* query heads                     */
    int32_t n_kv_heads;                /* kv heads; n_heads % n_kv_heads == 0 */
    double softmax_scale;              /* 0 = 1/sqrt(head_dim)            */
    /* ALiBi (Bloom, MPT): 1 adds -m_h * (p_q - p_k) to every score, m_h the
     * slopes of pecert_alibi_slopes_args for n_heads and alibi_max_bias. */
    int32_t alibi;                     /* 0 = none, 1 = linear ALiBi      */
    /* Channels per head when rope is NULL (an ALiBi-only model); with a
     * rope config it must be 0 or equal rope->head_dim. */
    int32_t head_dim;
    double alibi_max_bias;             /* 8 = the paper, Bloom; MPT's     */
    /* ABI 1.5 (was reserved[0]): the factor on the ALiBi term, which then
     * reads -alibi_bias_scale * m_h * (p_q - p_k). 0 = 1: Bloom and MPT add
     * the bias to the scaled scores. Falcon (alibi true) adds it to q . k
     * before the 1/sqrt(head_dim) scale (FalconAttention), which is
     * alibi_bias_scale = 1/sqrt(head_dim). Must be 0 without ALiBi. */
    double alibi_bias_scale;
    /* Reserved (sliding windows...); must be zero. */
    uint64_t reserved[5];
} pecert_session_config;

/* Arguments of session_append: T tokens, any mix of sequences. Tensors are
 * f32, q and out [T, n_heads, head_dim], k and v [T, n_kv_heads, head_dim],
 * strided; out must not overlap the inputs. */
typedef struct pecert_session_append_args {
    uint32_t struct_size;              /* sizeof(pecert_session_append_args) */
    uint32_t reserved0;                /* must be 0                       */
    int64_t n_tokens;                  /* T                               */
    const int64_t *positions;          /* [T] position of each token      */
    const int32_t *seq_ids;            /* [T] sequence of each token      */
    const uint8_t *valid;              /* [T] 0 = padding; NULL = all 1   */
    const pecert_tensor *q;
    const pecert_tensor *k;
    const pecert_tensor *v;
    pecert_tensor *out;                /* attention output                */
    uint64_t reserved[8];              /* must be zero                    */
} pecert_session_append_args;

/* ------------------------------------------------------------------------
 * Other positional-encoding families (ABI 1.2). One operation each, with
 * its own sized argument struct (struct_size first, reserved words last:
 * a non-zero reserved word asks for something this minor cannot express,
 * and a plugin returns PECERT_E_UNSUPPORTED for it). Outputs are
 * caller-allocated pecert_tensor views (strided, like every tensor here):
 * float outputs are F32, which every plugin accepts, or F64 where stated
 * ("f32 or f64"), which a plugin may decline with PECERT_E_UNSUPPORTED;
 * integer outputs are I64, or I32 likewise optional. pecert's checks ask
 * for F32 and I64. Inputs are read-only and never written.
 * Capabilities: "pecert.alibi/1", "pecert.t5/1", "pecert.sinusoidal/1",
 * "pecert.learned/1", "pecert.sincos2d/1", "pecert.relpos/1" (Swin, Shaw,
 * Transformer-XL), "pecert.mrope/1" (and from 1.6 "pecert.rope2d/1", from
 * 1.7 "pecert.posinterp/1", from 1.8 "pecert.cope/1", from 1.9 "pecert.peg/1",
 * from 1.11 "pecert.sine2d/1", from 1.12 "pecert.relpos2d/1", from 1.13
 * "pecert.deberta/1").
 * vectors/FORMAT.md gives the official function behind each op.
 * ---------------------------------------------------------------------- */

/*
 * ALiBi (Press et al., ofirpress/attention_with_linear_biases get_slopes;
 * Bloom build_alibi_tensor; MPT gen_slopes with alibi_bias_max). With
 * c = 2^floor(log2(num_heads)) the slopes are
 *     m_h = 2^(-max_bias * h / c)                 h = 1 .. c,
 * followed, when num_heads > c, by
 *     2^(-max_bias * (2j - 1) / (2c))             j = 1 .. num_heads - c
 * (max_bias = 8 in the paper and Bloom; MPT's alibi_bias_max).
 */
typedef struct pecert_alibi_slopes_args {
    uint32_t struct_size;              /* sizeof(pecert_alibi_slopes_args) */
    int32_t num_heads;                 /* >= 1                            */
    double max_bias;                   /* > 0; 8 = the paper              */
    pecert_tensor *out;                /* [num_heads] f64 or f32          */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_alibi_slopes_args;

/*
 * ALiBi bias for query positions q and key positions k:
 *     linear (symmetric = 0):    bias[h][i][j] = -m_h * (q_i - k_j)
 *     symmetric (symmetric = 1): bias[h][i][j] = -m_h * |q_i - k_j|
 * The linear form is the causal one (keys after the query are masked by
 * the caller, not here). Bloom and the ALiBi authors add m_h * k_j to every
 * query row, which softmax cannot tell from -m_h * (q_i - k_j): that is the
 * linear form at q = 0.
 */
typedef struct pecert_alibi_bias_args {
    uint32_t struct_size;              /* sizeof(pecert_alibi_bias_args)  */
    int32_t num_heads;                 /* >= 1                            */
    double max_bias;                   /* > 0; 8 = the paper              */
    int32_t symmetric;                 /* 0 = linear (causal), 1 = |q-k|  */
    int32_t reserved0;                 /* must be 0                       */
    const int64_t *q_positions;        /* [n_q]                           */
    int64_t n_q;
    const int64_t *k_positions;        /* [n_k]                           */
    int64_t n_k;
    pecert_tensor *out;                /* [num_heads, n_q, n_k] f32/f64   */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_alibi_bias_args;

/*
 * T5 relative-position buckets (transformers T5Attention.
 * _relative_position_bucket, after Mesh TensorFlow). relative_positions are
 * key - query (memory_position - context_position). bidirectional = 1 is the
 * encoder (half the buckets for each sign), 0 the causal decoder (positive
 * distances all fall in bucket 0). Buckets below max_exact are exact; the
 * rest grow logarithmically up to max_distance and saturate at the last.
 */
typedef struct pecert_t5_bucket_args {
    uint32_t struct_size;              /* sizeof(pecert_t5_bucket_args)   */
    int32_t bidirectional;             /* 1 = encoder, 0 = causal         */
    int32_t num_buckets;               /* config.relative_attention_num_buckets */
    int32_t reserved0;                 /* must be 0                       */
    int64_t max_distance;              /* config.relative_attention_max_distance */
    const int64_t *relative_positions; /* [n] key - query                 */
    int64_t n;
    pecert_tensor *out;                /* [n] bucket, i64 or i32          */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_t5_bucket_args;

/* Sinusoidal absolute embeddings: the variants differ in layout and
 * constants (d = dim, f_i the frequency of pair i, B = base):
 *   INTERLEAVED  sin(p f_i) at 2i, cos at 2i+1, f_i = B^(-2i/d):
 *                "Attention Is All You Need" 3.5, verbatim in transformers'
 *                create_sinusoidal_embeddings (DistilBERT, XLM).
 *   CONCAT       sin | cos halves, f_i = B^(-2i/d): transformers Marian,
 *                Transformer-XL's table.
 *   T2T          sin | cos halves, f_i = B^(-i/(d/2 - 1)): tensor2tensor
 *                get_timing_signal_1d (denominator max(d/2 - 1, 1)).
 *   FAIRSEQ      the T2T table, row padding_idx + 1 + p for the token at
 *                position p; a padding token (p = -1) gets row padding_idx,
 *                which is zero: fairseq SinusoidalPositionalEmbedding.
 * An odd d gets a zero last channel (T2T, FAIRSEQ) or one more sine than
 * cosine (INTERLEAVED, CONCAT), as the official code does. */
typedef int32_t pecert_sinusoidal_variant;
enum {
    PECERT_SINUSOIDAL_INTERLEAVED = 0,
    PECERT_SINUSOIDAL_CONCAT = 1,
    PECERT_SINUSOIDAL_T2T = 2,
    PECERT_SINUSOIDAL_FAIRSEQ = 3
};

typedef struct pecert_sinusoidal_args {
    uint32_t struct_size;              /* sizeof(pecert_sinusoidal_args)  */
    pecert_sinusoidal_variant variant; /* PECERT_SINUSOIDAL_*             */
    int32_t dim;                       /* embedding_dim, >= 2             */
    int32_t padding_idx;               /* FAIRSEQ: >= 0; others: -1       */
    double base;                       /* 10000 (max_timescale)           */
    const int64_t *positions;          /* [n] 0-based; FAIRSEQ: -1 = pad  */
    int64_t n;
    pecert_tensor *out;                /* [n, dim] f32 or f64             */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_sinusoidal_args;

/* Learned absolute embeddings: a lookup in a host-given table.
 *   PLAIN           row p (BERT: position_ids = arange).
 *   PADDING_OFFSET  row padding_idx + 1 + p, a padding token (p = -1) row
 *                   padding_idx (fairseq LearnedPositionalEmbedding,
 *                   RoBERTa create_position_ids_from_input_ids).
 * A row outside [0, table rows) is PECERT_E_INVAL: never read. */
typedef int32_t pecert_learned_convention;
enum {
    PECERT_LEARNED_PLAIN = 0,
    PECERT_LEARNED_PADDING_OFFSET = 1
};

typedef struct pecert_learned_args {
    uint32_t struct_size;              /* sizeof(pecert_learned_args)     */
    pecert_learned_convention convention; /* PECERT_LEARNED_*             */
    int32_t padding_idx;               /* PADDING_OFFSET: >= 0; else -1   */
    int32_t reserved0;                 /* must be 0                       */
    const pecert_tensor *table;        /* [num_positions, dim] f32        */
    const int64_t *positions;          /* [n] 0-based; -1 = padding token */
    int64_t n;
    pecert_tensor *out;                /* [n, dim] f32                    */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_learned_args;

/* 2-D sin-cos tables: row k of the table (after the cls row, if any) is
 * the 1-D sin | cos embedding of a first coordinate a in channels
 * 0 .. embed_dim/2 - 1 and of a second coordinate b in the rest, each with
 * f_i = base^(-i/(embed_dim/4)). Which patch row k is, by layout:
 *   MAE     facebookresearch/mae get_2d_sincos_pos_embed: the patch in row
 *           r and column c of a grid_h x grid_w grid, k = r grid_w + c
 *           (row-major), a = c, b = r.
 *   RT_DETR (ABI 1.14) RT-DETR's build_2d_sincos_position_embedding(w, h)
 *           (lyuwenyu/RT-DETR's HybridEncoder; transformers v4.57.6's
 *           RT-DETR, RT-DETRv2, D-FINE, OmDet-Turbo): a meshgrid of
 *           (arange(w), arange(h)) with "ij" indexing, flattened, so
 *           a = k / grid_h, b = k mod grid_h (integer division), added
 *           to the feature map flattened row-major. On a square grid that
 *           is a = r, b = c (MAE's halves swapped); on another grid the
 *           rows and columns are not the patch's (transformers after
 *           PR #41380 numbers them a = r, b = c on every grid: the two
 *           agree on square grids only).
 * cls_token = 1 puts a zero row first. */
typedef int32_t pecert_sincos2d_layout;
enum {
    PECERT_SINCOS2D_MAE = 0,
    PECERT_SINCOS2D_RT_DETR = 1 /* ABI 1.14 */
};

typedef struct pecert_sincos2d_args {
    uint32_t struct_size;              /* sizeof(pecert_sincos2d_args)    */
    int32_t embed_dim;                 /* multiple of 4                   */
    int32_t grid_h;                    /* rows of patches                 */
    int32_t grid_w;                    /* columns of patches              */
    int32_t cls_token;                 /* 1 = leading zero row            */
    /* ABI 1.14 (was reserved0, which 1.2 to 1.13 plugins require to be 0:
     * MAE). */
    pecert_sincos2d_layout layout;     /* PECERT_SINCOS2D_*               */
    double base;                       /* 10000                           */
    pecert_tensor *out;                /* [cls + grid_h*grid_w, embed_dim] f32/f64 */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_sincos2d_args;

/* Swin relative_position_index (microsoft/Swin-Transformer WindowAttention):
 * for tokens a = (ha, wa), b = (hb, wb) of a window_h x window_w window,
 *     out[a][b] = (ha - hb + window_h - 1) * (2 window_w - 1)
 *                 + (wa - wb + window_w - 1). */
typedef struct pecert_swin_index_args {
    uint32_t struct_size;              /* sizeof(pecert_swin_index_args)  */
    int32_t window_h;                  /* >= 1                            */
    int32_t window_w;                  /* >= 1                            */
    int32_t reserved0;                 /* must be 0                       */
    pecert_tensor *out;                /* [wh*ww, wh*ww] i64 or i32       */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_swin_index_args;

/* Shaw et al. clipped relative positions (tensor2tensor
 * _generate_relative_positions_matrix):
 *     out[i][j] = clip(k_j - q_i, -K, K) + K,   K = max_relative_position. */
typedef struct pecert_shaw_index_args {
    uint32_t struct_size;              /* sizeof(pecert_shaw_index_args)  */
    int32_t reserved0;                 /* must be 0                       */
    int64_t max_relative_position;     /* K >= 0                          */
    const int64_t *q_positions;        /* [n_q]                           */
    int64_t n_q;
    const int64_t *k_positions;        /* [n_k]                           */
    int64_t n_k;
    pecert_tensor *out;                /* [n_q, n_k] i64 or i32           */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_shaw_index_args;

/* Transformer-XL relative sinusoid (kimiyoung/transformer-xl
 * PositionalEmbedding as MemTransformerLM._forward calls it): row r is the
 * CONCAT sinusoid (f_i = 10000^(-2i/d_model)) of position klen - 1 - r,
 * clamped to clamp_len when clamp_len > 0: reversed, so row 0 is the
 * farthest key. */
typedef struct pecert_txl_pos_emb_args {
    uint32_t struct_size;              /* sizeof(pecert_txl_pos_emb_args) */
    int32_t d_model;                   /* even                            */
    int64_t klen;                      /* mlen + qlen                     */
    int64_t clamp_len;                 /* <= 0: no clamping               */
    pecert_tensor *out;                /* [klen, d_model] f32 or f64      */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_txl_pos_emb_args;

/* Transformer-XL _rel_shift on x [qlen, klen, n] (f32): with
 * mlen = klen - qlen, out[i][j] = x[i][j + qlen - 1 - i] for j <= i + mlen.
 * Above that diagonal the official code leaves what its pad-and-reshape
 * moves there (a zero at j = i + mlen + 1, then x[i + 1][...]); zero_triu = 1
 * zeroes it. out must not overlap x. */
typedef struct pecert_txl_rel_shift_args {
    uint32_t struct_size;              /* sizeof(pecert_txl_rel_shift_args) */
    int32_t zero_triu;                 /* 1 = zero above the diagonal     */
    const pecert_tensor *x;            /* [qlen, klen, n] f32, qlen <= klen */
    pecert_tensor *out;                /* same shape, f32                 */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_txl_rel_shift_args;

/* M-RoPE position ids (transformers Qwen2VLModel.get_rope_index, Qwen2-VL):
 * text tokens count up on all three axes; the merged patches of an image or
 * video (grid t, h, w; h and w divided by spatial_merge_size) after a
 * vision_start token get (t, h, w) offsets from the running position; the
 * next text starts at the largest position so far + 1. Padding
 * (attention_mask 0) gets position 1. deltas[b] = max position + 1 - seq_len.
 * With no grid at all (n_images = n_videos = 0) the text-only branch runs:
 * cumsum(mask) - 1, padding 1, and its deltas count padding's 1 as well. */
typedef struct pecert_mrope_index_args {
    uint32_t struct_size;              /* sizeof(pecert_mrope_index_args) */
    int32_t spatial_merge_size;        /* vision_config.spatial_merge_size */
    int64_t image_token_id;            /* config.image_token_id           */
    int64_t video_token_id;            /* config.video_token_id           */
    int64_t vision_start_token_id;     /* config.vision_start_token_id    */
    int64_t batch;                     /* B                               */
    int64_t seq_len;                   /* S                               */
    const int64_t *input_ids;          /* [B, S]                          */
    const int64_t *attention_mask;     /* [B, S] of 0/1; NULL = all 1     */
    const int64_t *image_grid_thw;     /* [n_images, 3]                   */
    int64_t n_images;
    const int64_t *video_grid_thw;     /* [n_videos, 3]                   */
    int64_t n_videos;
    pecert_tensor *out_position_ids;   /* [3, B, S] i64                   */
    pecert_tensor *out_deltas;         /* [B] i64                         */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_mrope_index_args;

/* M-RoPE apply (transformers apply_multimodal_rotary_pos_emb): rope_apply
 * where frequency i turns by the position of axis a(i), the first
 * section[0] frequencies by axis 0 (temporal), the next section[1] by axis 1
 * (height), and so on; sum(section) = rotary_dim / 2 (Qwen2-VL: [16, 24, 24]
 * of head_dim 128). With identical axes it is rope_apply. */
#define PECERT_MROPE_MAX_AXES 4
typedef struct pecert_mrope_apply_args {
    uint32_t struct_size;              /* sizeof(pecert_mrope_apply_args) */
    pecert_rope_pairing pairing;       /* PECERT_PAIRING_*                */
    const pecert_rope_config *config;  /* frequencies and scaling         */
    int64_t seq_len;                   /* 0 = max over all positions + 1  */
    int32_t num_axes;                  /* 1 .. PECERT_MROPE_MAX_AXES (3)  */
    int32_t section[PECERT_MROPE_MAX_AXES]; /* frequencies per axis; 0 past num_axes */
    /* ABI 1.4 (was reserved0, which 1.3 plugins require to be 0):
     * 0 = sectioned as above (Qwen2-VL, Qwen2.5-VL); 1 = interleaved
     * (Qwen3-VL's mrope_interleaved, Qwen3VLTextRotaryEmbedding.
     * apply_interleaved_mrope): num_axes 3, frequency i turns by axis 1
     * (height) when i % 3 == 1 and i < 3 * section[1], by axis 2 (width)
     * when i % 3 == 2 and i < 3 * section[2], and by axis 0 (temporal)
     * otherwise; sum(section) = rotary_dim / 2 still. A 1.3 plugin
     * refuses a non-zero value as a bad argument, so the host sets it only
     * for plugins of minor 4 and later. */
    int32_t interleaved;
    const int64_t *positions;          /* [num_axes, tokens], axis-major  */
    const pecert_tensor *x;            /* [tokens, heads, head_dim] f32   */
    pecert_tensor *out;                /* same shape; may be x            */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_mrope_apply_args;

/* ------------------------------------------------------------------------
 * 2-D RoPE of vision towers (ABI 1.6, capability "pecert.rope2d/1").
 *
 * Each patch token has a row r and a column c; with D = head_dim (a
 * multiple of 4) the D/2 rotation pairs split in two halves of D/4. Pair i
 * of the first half turns by the first axis' position times f_i, pair
 * D/4 + i of the second half by the other axis' position times g_i:
 *   BLOCKS     f_i = g_i = theta^(-4i/D): transformers' Qwen2-VL
 *              VisionRotaryEmbedding(head_dim / 2) read through
 *              rot_pos_emb (Qwen2.5-VL's too), and Llama 4's
 *              Llama4VisionRotaryEmbedding;
 *   ALTERNATE  f_i = theta^(-2(2i)/D), g_i = theta^(-2(2i+1)/D): Pixtral's
 *              PixtralRotaryEmbedding, the even frequencies of
 *              theta^(-2j/D) for the height and the odd ones for the width.
 * The first axis is the row (columns_first = 0: Qwen2-VL, Pixtral) or the
 * column (columns_first = 1: Llama 4, whose frequencies_x come first).
 * Pairs are split-half (Qwen2-VL's and Pixtral's rotate_half) or
 * interleaved (Llama 4's complex multiply). Every channel is rotated.
 * ---------------------------------------------------------------------- */
typedef int32_t pecert_rope2d_frequencies;
enum {
    PECERT_ROPE2D_BLOCKS = 0,
    PECERT_ROPE2D_ALTERNATE = 1
};

/* Arguments of rope2d_apply. positions is [2, tokens], axis-major: the
 * rows, then the columns (as given: Llama 4's 1-based ones and its class
 * token's (0, 0) come from rope2d_index). */
typedef struct pecert_rope2d_apply_args {
    uint32_t struct_size;              /* sizeof(pecert_rope2d_apply_args) */
    pecert_rope_pairing pairing;       /* PECERT_PAIRING_*                */
    pecert_rope2d_frequencies frequencies; /* PECERT_ROPE2D_*             */
    int32_t columns_first;             /* 1 = the first half by column    */
    int32_t head_dim;                  /* D, a multiple of 4              */
    int32_t reserved0;                 /* must be 0                       */
    double theta;                      /* vision rope_theta, e.g. 10000   */
    const int64_t *positions;          /* [2, tokens]: rows, columns      */
    const pecert_tensor *x;            /* [tokens, heads, D] f32          */
    pecert_tensor *out;                /* same shape, f32; may be x       */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_rope2d_apply_args;

/* The patch order and positions a vision tower gives its rotary
 * embedding, image after image of grid_thw (t, h, w in patches):
 *   MERGE_WINDOWS  Qwen2-VL's rot_pos_emb (Qwen2.5-VL's too): the h x w
 *                  grid in windows of spatial_merge_size^2 patches, the
 *                  windows row-major and the patches row-major inside each,
 *                  repeated for each of the t frames; positions (row, col).
 *   ROW_MAJOR      Pixtral's position_ids_in_meshgrid: t = 1, row-major,
 *                  positions (row, col).
 *   ROW_MAJOR_CLS  Llama 4's Llama4VisionRotaryEmbedding: t = 1, row-major
 *                  positions (row + 1, col + 1), then the class token the
 *                  model appends to each image at (0, 0), which turns by no
 *                  angle.
 *   ATTENTION_WINDOWS (ABI 1.10) Qwen2.5-VL's forward, which reorders the
 *                  tokens and rot_pos_emb's rows by get_window_index: each
 *                  frame's merge units (MERGE_WINDOWS' windows of
 *                  spatial_merge_size^2 patches, (h/m) x (w/m) of them) in
 *                  attention windows of window_units x window_units units
 *                  (window_size // spatial_merge_size // patch_size: 112 //
 *                  2 // 14 = 4), the windows row-major (those of the last
 *                  row and column ragged when window_units does not divide
 *                  h/m or w/m), the units row-major inside each window, the
 *                  patches of a unit row-major; positions (row, col).
 * The output holds every image's tokens in that order. */
typedef int32_t pecert_rope2d_scheme;
enum {
    PECERT_ROPE2D_MERGE_WINDOWS = 0,
    PECERT_ROPE2D_ROW_MAJOR = 1,
    PECERT_ROPE2D_ROW_MAJOR_CLS = 2,
    PECERT_ROPE2D_ATTENTION_WINDOWS = 3 /* ABI 1.10 */
};

typedef struct pecert_rope2d_index_args {
    uint32_t struct_size;              /* sizeof(pecert_rope2d_index_args) */
    pecert_rope2d_scheme scheme;       /* PECERT_ROPE2D_MERGE_WINDOWS ... */
    int32_t spatial_merge_size;        /* MERGE_WINDOWS, ATTENTION_WINDOWS:
                                          divides h and w; else 1         */
    /* ABI 1.10 (was reserved0, which 1.6 to 1.9 plugins require to be 0
     * and refuse otherwise with PECERT_E_UNSUPPORTED): ATTENTION_WINDOWS'
     * window side in merge units, >= 1; 0 for the other schemes. */
    int32_t window_units;
    const int64_t *grid_thw;           /* [n_images, 3]                   */
    int64_t n_images;
    pecert_tensor *out_positions;      /* [2, tokens] i64                 */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_rope2d_index_args;

/* ------------------------------------------------------------------------
 * Position-embedding interpolation (ABI 1.7, capability
 * "pecert.posinterp/1"): a learned table of prefix rows (class token,
 * DeiT's distillation token; copied as they are) and a grid_h x grid_w
 * grid of patch rows (row-major), resized to out_h x out_w as PyTorch's
 * nn.functional.interpolate does it on the CPU, one axis after the other:
 *   BICUBIC   mode="bicubic": four taps of the cubic convolution kernel
 *             with A = -0.75, source indices clamped to the grid
 *             (ViTEmbeddings.interpolate_pos_encoding, DeiT, CLIP, DINOv2);
 *   BILINEAR  mode="bilinear": two taps, the source coordinate clamped at
 *             0 (Siglip2 resize_positional_embeddings; Qwen3-VL's
 *             fast_pos_embed_interpolate is BILINEAR with align_corners:
 *             torch.linspace(0, side - 1, n) is that coordinate).
 * Per axis with n_in -> n_out, output index i reads source coordinate
 *   align_corners  i * (n_in - 1) / (n_out - 1)   (0 when n_out == 1)
 *   otherwise      (i + 0.5) * s - 0.5, s = n_in / n_out (the size form),
 *                  or s = 1 / scale when that axis' scale is > 0 (the
 *                  scale_factor form: DINOv2's scale (n_out + 0.1) / n_in,
 *                  whose grid is then not the identity even at n_out ==
 *                  n_in; n_out must be floor(n_in * scale)).
 * antialias (PyTorch's antialias=True, not with align_corners): the taps
 * are every source index within the kernel's support around the centre
 * (i + 0.5) * s, the support widened by s when s > 1 (downsampling), the
 * cubic kernel with A = -0.5 (bilinear: the triangle), the weights
 * normalised to sum to one (DINOv2 with registers, Siglip2).
 * merge_size m > 1 writes the grid in Qwen3-VL's order: m x m windows
 * row-major, the patches row-major inside each (m divides out_h, out_w).
 * The scale_factor form is bicubic only: PyTorch's CPU bilinear copies an
 * axis whose size does not change whatever the scale, a quirk no released
 * model depends on.
 * ---------------------------------------------------------------------- */
typedef int32_t pecert_posinterp_mode;
enum {
    PECERT_POSINTERP_BICUBIC = 0,
    PECERT_POSINTERP_BILINEAR = 1
};

typedef struct pecert_posinterp_args {
    uint32_t struct_size;              /* sizeof(pecert_posinterp_args)   */
    pecert_posinterp_mode mode;        /* PECERT_POSINTERP_*              */
    int32_t align_corners;             /* 1 = corners to corners          */
    int32_t antialias;                 /* 1 = PyTorch's antialias filter  */
    int32_t prefix_tokens;             /* rows before the grid, copied    */
    int32_t merge_size;                /* 1 = row-major; m = m x m windows */
    int64_t grid_h, grid_w;            /* the table's grid                */
    int64_t out_h, out_w;              /* the grid wanted                 */
    double scale_h, scale_w;           /* 0 = size form; > 0 = scale_factor */
    const pecert_tensor *table;        /* [prefix + grid_h * grid_w, D] f32 */
    pecert_tensor *out;                /* [prefix + out_h * out_w, D] f32 */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_posinterp_args;

/* ------------------------------------------------------------------------
 * Contextual position encoding (ABI 1.8, capability "pecert.cope/1"):
 * CoPE, the attention logits of one head whose positions count gates
 * (facebookresearch/RAM, projects/cope, ContextPosSelfAttn.forward). With
 * d = head_dim, query i of n_q and key j of n_k, m_ij the mask (1 when
 * NULL):
 *   gate       g_ij = sigmoid(q_i . gk_j / sqrt(d)) * m_ij, where gk is
 *              what the gates read: the attention keys, a separate key
 *              projection (--cope-sep-key) or the values (--cope-val-gates);
 *   position   p_ij = min(npos - 1, g_ij + g_i,j+1 + ... + g_i,n_k-1),
 *              the gates summed from key j to the last key (a reversed
 *              cumulative sum);
 *   embedding  z_ij = (1 - w) q_i . e[floor p] + w q_i . e[ceil p],
 *              w = p - floor p, e[t] column t of pos_emb [d, npos];
 *   logit      (q_i . k_j + z_ij) / sqrt(d), or q_i . k_j / sqrt(d) +
 *              z_ij with nodiv (--cope-nodiv); -infinity where m_ij = 0.
 * The mask holds 0 and 1 only (the official code multiplies the gates by
 * it and adds its log to the logits): causal, padding, or both. positions
 * is written everywhere, masked keys included (their gate is 0). n_k >= 1.
 * A position that is NaN (non-finite inputs) is written as NaN, with a NaN
 * logit where the key is visible: there is no embedding to read.
 * ---------------------------------------------------------------------- */
typedef struct pecert_cope_args {
    uint32_t struct_size;              /* sizeof(pecert_cope_args)        */
    int32_t nodiv;                     /* 1 = z added after the 1/sqrt(d) */
    int64_t npos;                      /* positions clamp at npos - 1     */
    const pecert_tensor *q;            /* [n_q, d] f32                    */
    const pecert_tensor *k;            /* [n_k, d] f32: attention keys    */
    const pecert_tensor *gate_k;       /* [n_k, d] f32: what gates read   */
    const pecert_tensor *pos_emb;      /* [d, npos] f32                   */
    const pecert_tensor *mask;         /* [n_q, n_k] f32 of 0/1, or NULL  */
    pecert_tensor *positions;          /* [n_q, n_k] f32                  */
    pecert_tensor *logits;             /* [n_q, n_k] f32                  */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_cope_args;

/* ------------------------------------------------------------------------
 * Conditional position encoding (ABI 1.9, capability "pecert.peg/1"):
 * CPVT's Position Encoding Generator as released with Twins (gvt.py,
 * PosCNN, s = 1), on one image's tokens: prefix rows (a class token, kept
 * out of the convolution) copied as they are, then the grid_h x grid_w
 * patch rows (row-major), each of C channels. For patch (y, x), channel c,
 * r = (kernel - 1) / 2:
 *   out = x[y, x, c] + bias[c]
 *         + sum over i, j in 0..kernel-1 of weight[c, i, j] * x[y + i - r, x + j - r, c]
 * with x = 0 outside the grid (Conv2d's zero padding r, groups = C: one
 * kernel per channel, no mixing). CPVT and Twins use kernel 3.
 * ---------------------------------------------------------------------- */
typedef struct pecert_peg_args {
    uint32_t struct_size;              /* sizeof(pecert_peg_args)         */
    int32_t prefix_tokens;             /* rows before the grid, copied    */
    int64_t grid_h, grid_w;            /* the patch grid                  */
    int64_t kernel;                    /* odd: k x k, zero padding (k-1)/2 */
    const pecert_tensor *x;            /* [prefix + grid_h * grid_w, C] f32 */
    const pecert_tensor *weight;       /* [C, kernel, kernel] f32         */
    const pecert_tensor *bias;         /* [C] f32                         */
    pecert_tensor *out;                /* [prefix + grid_h * grid_w, C] f32 */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_peg_args;

/* ------------------------------------------------------------------------
 * 2-D sine embedding from a pixel mask (ABI 1.11, capability
 * "pecert.sine2d/1"): DETR's DetrSinePositionEmbedding and its copies
 * (Conditional and Deformable DETR, DETA, Table Transformer, Grounding
 * DINO, DAB-DETR, MaskFormer, Mask2Former, OneFormer, SAM 2's neck), for
 * one image's h x w feature map and its mask (1 = a valid pixel, 0 =
 * padding; DETR pads a batch's images at the bottom and the right):
 *   y[r][c] = sum of mask[r'][c] over r' <= r   (down the column)
 *   x[r][c] = sum of mask[r][c'] over c' <= c   (along the row)
 * normalize = 1:  y = (y + offset) / (y[h-1][c] + eps) * scale, and x
 *                 by x[r][w-1] likewise: the valid region's own extent,
 *                 never the padded map's;
 * dim_t[i] = temperature ^ (2 floor(i / 2) / F), i < F (temperature_y for
 * y, temperature_x for x), and the F channels of an axis interleave
 * sin(v / dim_t[i]) at even i with cos(v / dim_t[i]) at odd i. Row
 * r * w + c of out is [y's F channels, x's F channels]. A fully padded
 * column divides offset by eps: Deformable DETR's -0.5 makes its angle
 * ~3e6 there, as the model computes it.
 * ---------------------------------------------------------------------- */
typedef struct pecert_sine2d_args {
    uint32_t struct_size;              /* sizeof(pecert_sine2d_args)      */
    int32_t num_pos_feats;             /* F per axis: even, >= 2          */
    int32_t normalize;                 /* 1 or 0 (the raw cumsums)        */
    int32_t reserved0;                 /* must be 0                       */
    double temperature_y;              /* 10000 (DETR), 20 (Grounding DINO, DAB-DETR) */
    double temperature_x;              /* the same but in DAB-DETR        */
    double scale;                      /* normalize: 2 pi in every model  */
    double offset;                     /* normalize: 0, or -0.5 (Deformable DETR, DETA) */
    double eps;                        /* normalize: 1e-6, > 0            */
    const pecert_tensor *mask;         /* [h, w] i64: 1 valid, 0 padding  */
    pecert_tensor *out;                /* [h * w, 2F] f32                 */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_sine2d_args;

/* ------------------------------------------------------------------------
 * Decomposed relative positions (ABI 1.12, capability "pecert.relpos2d/1"):
 * the attention bias of MViTv2 and of SAM's image encoder (and SAM-HQ,
 * ViTDet, SegGPT), facebookresearch/segment-anything add_decomposed_rel_pos
 * and transformers' SamVisionAttention.get_decomposed_rel_pos, for a query
 * grid q_h x q_w and a key grid k_h x k_w (tokens row-major) and one table
 * per axis, rel_pos_h [L_h, C] and rel_pos_w [L_w, C]. Per axis with q
 * queries and k keys (get_rel_pos):
 *   table'   the table resized along its rows to 2 max(q, k) - 1 rows as
 *            nn.functional.interpolate(mode="linear") does it: row i reads
 *            source coordinate (i + 0.5) L / L' - 0.5, clamped at 0, from
 *            its two neighbours (the last row repeated past the end); a
 *            table already that long is read as it is;
 *   R[a][b]  row trunc(a s_q - b s_k + (k - 1) s_k) of table', with s_q =
 *            max(k / q, 1) and s_k = max(q / k, 1), computed in float32
 *            (torch.arange(q)[:, None] * max(k / q, 1.0), ...): pooled keys
 *            (MViTv2) scale the shorter axis;
 * and for query i = (i_h, i_w), key j = (j_h, j_w), n = 0 .. batch*heads-1:
 *   out[n][i][j] = query[n][i] . Rh[i_h][j_h] + query[n][i] . Rw[i_w][j_w]
 * with the query as the attention computes it, before its 1/sqrt(C) score
 * scale (SAM scales the query for q.k only). The official code adds this
 * to the scores; the op returns the bias alone.
 * ---------------------------------------------------------------------- */
typedef struct pecert_relpos2d_args {
    uint32_t struct_size;              /* sizeof(pecert_relpos2d_args)    */
    int32_t reserved0;                 /* must be 0                       */
    int64_t q_h, q_w;                  /* the query grid, >= 1            */
    int64_t k_h, k_w;                  /* the key grid, >= 1              */
    const pecert_tensor *query;        /* [n, q_h * q_w, C] f32           */
    const pecert_tensor *rel_pos_h;    /* [L_h, C] f32, L_h >= 1          */
    const pecert_tensor *rel_pos_w;    /* [L_w, C] f32, L_w >= 1          */
    pecert_tensor *out;                /* [n, q_h * q_w, k_h * k_w] f32   */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_relpos2d_args;

/* ------------------------------------------------------------------------
 * Disentangled relative positions (ABI 1.13, capability "pecert.deberta/1"):
 * DeBERTa's relative attention bias (v1 deberta, v2/v3 deberta-v2),
 * transformers' DisentangledSelfAttention.disentangled_attention_bias, for
 * L tokens attending to themselves (query i, key j). The relative position
 * r = i - j is bucketed when bucket_size > 0 (make_log_bucket_position):
 *   b(r) = r                                         |r| <= mid = bucket_size / 2
 *   b(r) = sign(r) (mid + ceil((mid - 1) ln(|r| / mid)
 *                           / ln((max_position - 1) / mid)))   otherwise,
 * unclamped (b keeps growing for |r| >= max_position, as transformers has
 * it; microsoft/DeBERTa's current code clamps r to +-(max_position - 1)
 * first: the two differ beyond max_position), and b(r) = r without buckets.
 * With span = bucket_size > 0 ? bucket_size : max_position, the table row
 *   idx(i, j) = clamp(b(i - j) + span, 0, 2 span - 1)
 * is read by both terms (the official p2c gathers at -b(j - i) before a
 * transpose: the same row). With s = sqrt(d sf), sf = 1 + the number of
 * terms, and h = n mod H (the tables repeat over the batch):
 *   c2p: q[n][i] . pos_key[h][idx(i, j)] / s
 *   p2c: k[n][j] . pos_query[h][idx(i, j)] / s
 *   out[n][i][j] = the sum of the terms asked for.
 * The tables are the per-head projections of the relative embeddings, as
 * the model makes them (the LayerNorm and the projections are not the
 * op's); the content score q . k / s is not in the bias.
 * ---------------------------------------------------------------------- */
#define PECERT_DEBERTA_C2P 1u          /* content -> position            */
#define PECERT_DEBERTA_P2C 2u          /* position -> content            */
typedef struct pecert_deberta_args {
    uint32_t struct_size;              /* sizeof(pecert_deberta_args)     */
    uint32_t terms;                    /* C2P | P2C, not 0                */
    int64_t bucket_size;               /* position_buckets; <= 0: none,
                                          else even, 2 .. 65536           */
    int64_t max_position;              /* max_relative_positions, 2 ..
                                          65536 (> mid with buckets)      */
    const pecert_tensor *q;            /* [n, L, d] f32 (query_layer)     */
    const pecert_tensor *k;            /* [n, L, d] f32 (key_layer)       */
    const pecert_tensor *pos_key;      /* [H, 2 span, d] f32, with C2P
                                          (else NULL); n a multiple of H  */
    const pecert_tensor *pos_query;    /* [H, 2 span, d] f32, with P2C
                                          (else NULL)                     */
    pecert_tensor *out;                /* [n, L, L] f32                   */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_deberta_args;

/* ------------------------------------------------------------------------
 * Declared scope (ABI 1.3): what the plugin supports, so that every check
 * runs each case inside it and reports the rest as "not supported (beyond
 * the plugin's declared scope: ...)" without calling the plugin, and a
 * check with no case inside it is "not supported", never passed. An engine
 * that keeps positions in int32 or rotates whole heads only declares it
 * here and is still judged on everything within. NULL (or a descriptor
 * older than 1.3): nothing declared; the plugin declines out-of-range
 * calls itself with PECERT_E_UNSUPPORTED.
 * ---------------------------------------------------------------------- */
enum {
    /* RoPE ops take rotary_dim == head_dim only (no partial rotary). */
    PECERT_SCOPE_WHOLE_HEAD_ONLY = 1u << 0
};

typedef struct pecert_scope {
    uint32_t struct_size;              /* sizeof(pecert_scope)            */
    uint32_t flags;                    /* PECERT_SCOPE_*                  */
    /* The largest |position| the RoPE ops accept (2147483647 for int32
     * positions); 0 = no limit declared. */
    int64_t max_position;
    /* Bit (1u << PECERT_DTYPE_*) per data type rope_apply takes for x and
     * out; 0 = not declared (f32 always, f16/bf16 as the plugin answers). */
    uint32_t rope_apply_dtypes;
    uint32_t reserved0;                /* must be 0                       */
    uint64_t reserved[4];              /* must be zero                    */
} pecert_scope;

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

    /* ---- ABI 1.2: decode session (see pecert_session_config) ---------- */

    /* session_create: a KV-cache attention session. The plugin copies
     * what it needs from config (the rope config included) and owns the
     * cache; its layout is the plugin's business. [after create] */
    pecert_status (*session_create)(void *instance, void **out_session,
                                    const pecert_session_config *config);

    /* session_destroy: release a session; NULL is a no-op. */
    void (*session_destroy)(void *instance, void *session);

    /* session_append: add tokens (a prefill chunk, one decode step, or a
     * batch mixing sequences) and write their attention outputs.
     * See pecert_session_append_args. */
    pecert_status (*session_append)(void *instance, void *session,
                                    const pecert_session_append_args *args);

    /* session_read_keys: the cached, rotated keys of one sequence, in
     * append order, as [n, n_kv_heads, head_dim] f32 (n = tokens appended
     * to that sequence so far, padding included). May be NULL. */
    pecert_status (*session_read_keys)(void *instance, void *session,
                                       pecert_tensor *out_keys, int32_t seq);
    /* ---- ABI 1.2: other encoding families (see the structs above) ----- */
    /* Each may be NULL (not implemented). Semantics per struct. */

    /* alibi_slopes: the per-head slopes. [after create] */
    pecert_status (*alibi_slopes)(void *instance, const pecert_alibi_slopes_args *args);
    /* alibi_bias: the bias added to attention scores. [after create] */
    pecert_status (*alibi_bias)(void *instance, const pecert_alibi_bias_args *args);
    /* t5_bucket: relative-position buckets. [after create] */
    pecert_status (*t5_bucket)(void *instance, const pecert_t5_bucket_args *args);
    /* sinusoidal: absolute sinusoidal embeddings. [after create] */
    pecert_status (*sinusoidal)(void *instance, const pecert_sinusoidal_args *args);
    /* learned_lookup: learned absolute embeddings. [after create] */
    pecert_status (*learned_lookup)(void *instance, const pecert_learned_args *args);
    /* sincos_2d: ViT/MAE 2-D sin-cos embeddings. [after create] */
    pecert_status (*sincos_2d)(void *instance, const pecert_sincos2d_args *args);
    /* swin_index: Swin relative_position_index. [after create] */
    pecert_status (*swin_index)(void *instance, const pecert_swin_index_args *args);
    /* shaw_index: Shaw clipped relative positions. [after create] */
    pecert_status (*shaw_index)(void *instance, const pecert_shaw_index_args *args);
    /* txl_pos_emb: Transformer-XL relative sinusoid. [after create] */
    pecert_status (*txl_pos_emb)(void *instance, const pecert_txl_pos_emb_args *args);
    /* txl_rel_shift: Transformer-XL _rel_shift. [after create] */
    pecert_status (*txl_rel_shift)(void *instance, const pecert_txl_rel_shift_args *args);
    /* mrope_index: Qwen2-VL 3-axis position ids. [after create] */
    pecert_status (*mrope_index)(void *instance, const pecert_mrope_index_args *args);
    /* mrope_apply: multimodal (sectioned) rotary apply. [after create] */
    pecert_status (*mrope_apply)(void *instance, const pecert_mrope_apply_args *args);

    /* ---- ABI 1.3 ------------------------------------------------------ */

    /* scope: what the plugin supports (see pecert_scope), static and
     * immutable; NULL = nothing declared. */
    const pecert_scope *scope;

    /* ---- ABI 1.6: 2-D RoPE of vision towers (see the structs above) --- */

    /* rope2d_index: per-patch (row, column) positions. [after create] */
    pecert_status (*rope2d_index)(void *instance, const pecert_rope2d_index_args *args);
    /* rope2d_apply: the 2-D rotation. [after create] */
    pecert_status (*rope2d_apply)(void *instance, const pecert_rope2d_apply_args *args);

    /* ---- ABI 1.7: position-embedding interpolation --------------------- */

    /* pos_interpolate: a learned grid resized (see the struct). [after create] */
    pecert_status (*pos_interpolate)(void *instance, const pecert_posinterp_args *args);

    /* ---- ABI 1.8: contextual position encoding -------------------------- */

    /* cope_logits: one head's CoPE positions and logits (see the struct). [after create] */
    pecert_status (*cope_logits)(void *instance, const pecert_cope_args *args);

    /* ---- ABI 1.9: conditional position encoding ------------------------- */

    /* peg_apply: CPVT's PEG over one image's patch grid (see the struct). [after create] */
    pecert_status (*peg_apply)(void *instance, const pecert_peg_args *args);

    /* ---- ABI 1.11: 2-D sine embedding from a pixel mask ----------------- */

    /* sine2d: DETR's sine embedding of one feature map (see the struct). [after create] */
    pecert_status (*sine2d)(void *instance, const pecert_sine2d_args *args);

    /* ---- ABI 1.12: decomposed relative positions ------------------------ */

    /* relpos2d_bias: MViTv2's and SAM's attention bias (see the struct). [after create] */
    pecert_status (*relpos2d_bias)(void *instance, const pecert_relpos2d_args *args);

    /* ---- ABI 1.13: disentangled relative positions ---------------------- */

    /* deberta_bias: DeBERTa's c2p and p2c attention bias (see the struct). [after create] */
    pecert_status (*deberta_bias)(void *instance, const pecert_deberta_args *args);
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
