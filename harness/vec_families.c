/*
 * vec_families.c - the ops of vectors/FORMAT.md beyond rope.*: ALiBi, T5
 * buckets, sinusoidal and learned absolute embeddings, 2-D sin-cos, Swin,
 * Shaw, Transformer-XL, M-RoPE, the 2-D RoPE of vision towers, the
 * resizing of learned position grids, CoPE's attention logits, CPVT's
 * PEG, DETR's sine embedding from a pixel mask, the decomposed relative
 * positions of MViTv2 and SAM and DeBERTa's disentangled ones. Each row gives the typed keys of its
 * "config" and "params", the tensors with their dtypes and shapes, and the
 * checks that span keys.
 */
#include <math.h>
#include <stdint.h>

#include "vec_internal.h"

#define JSON_INT_MAX (((int64_t)1 << 53) - 1)

/* Shorthands for key rows. */
#define CFG_INT(n, lo, hi) {n, 1, 0, VK_INT, lo, hi, 0, NULL, 0}
#define CFG_INT_OPT(n, lo, hi) {n, 0, 0, VK_INT, lo, hi, 0, NULL, 0}
#define CFG_NUM(n, bound) {n, 1, 0, VK_NUMBER, 0, 0, bound, NULL, 0}
#define CFG_NUM_OPT(n, bound) {n, 0, 0, VK_NUMBER, 0, 0, bound, NULL, 0}
#define CFG_BOOL(n) {n, 1, 0, VK_BOOL, 0, 0, 0, NULL, 0}
#define CFG_BOOL_OPT(n) {n, 0, 0, VK_BOOL, 0, 0, 0, NULL, 0}
#define CFG_ENUM(n, choices) {n, 1, 0, VK_ENUM, 0, 0, 0, choices, 0}
#define CFG_ENUM_OPT(n, choices) {n, 0, 0, VK_ENUM, 0, 0, 0, choices, 0}
#define PAR_INT(n, lo, hi) {n, 1, 1, VK_INT, lo, hi, 0, NULL, 0}
#define PAR_BOOL(n) {n, 1, 1, VK_BOOL, 0, 0, 0, NULL, 0}
#define PAR_ENUM(n, choices) {n, 1, 1, VK_ENUM, 0, 0, 0, choices, 0}

/* Enum spellings; the index of each is the ABI enum value. */
static const char *const sinusoidal_variants[] = {"interleaved", "concat", "t2t",
                                                  "fairseq", NULL};
static const char *const learned_conventions[] = {"plain", "padding_offset", NULL};
static const char *const sincos2d_layouts[] = {"mae", "rt_detr", NULL};
static const char *const rope2d_schemes[] = {"merge_windows", "row_major", "row_major_cls", "attention_windows",
                                              NULL};
static const char *const rope2d_frequencies[] = {"blocks", "alternate", NULL};
static const char *const pairings[] = {"split_half", "interleaved", NULL};
static const char *const posinterp_modes[] = {"bicubic", "bilinear", NULL};
static const char *const cope_gates[] = {"keys", "sep_key", "values", NULL};
/* The transformers classes the sine2d vectors were recorded from. */
static const char *const sine2d_modules[] = {
    "DetrSinePositionEmbedding", "ConditionalDetrSinePositionEmbedding", "TableTransformerSinePositionEmbedding",
    "DeformableDetrSinePositionEmbedding", "DetaSinePositionEmbedding", "GroundingDinoSinePositionEmbedding",
    "MMGroundingDinoSinePositionEmbedding", "DabDetrSinePositionEmbedding", "MaskFormerSinePositionEmbedding",
    "Mask2FormerSinePositionEmbedding", "OneFormerSinePositionEmbedding", "Sam2SinePositionEmbedding", NULL};

/* ---- checks spanning keys ---------------------------------------------- */

/* T5: the log buckets need max_distance above max_exact (the reference
 * divides by log(max_distance / max_exact)). */
static int t5_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t nb = pecert_vtest_int(t, "num_buckets", 0);
    int64_t half = pecert_vtest_int(t, "bidirectional", 0) ? nb / 2 : nb;
    int64_t max_exact = half / 2;

    if (max_exact < 1) {
        return pecert__vec_fail(ctx, loc, "num_buckets",
                                "%lld leaves no exact bucket", (long long)nb);
    }
    if (pecert_vtest_int(t, "max_distance", 0) <= max_exact) {
        return pecert__vec_fail(ctx, loc, "max_distance",
                                "must exceed max_exact %lld", (long long)max_exact);
    }
    return 0;
}

/* DeBERTa's buckets: none (<= 0), or an even count whose log buckets have
 * a range to spread over (ln((max_position - 1) / mid) > 0). */
static int deberta_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t buckets = pecert_vtest_int(t, "bucket_size", 0);
    int64_t max_position = pecert_vtest_int(t, "max_position", 0);
    if (buckets > 0 && buckets % 2 != 0) {
        return pecert__vec_fail(ctx, loc, "bucket_size", "%lld is odd", (long long)buckets);
    }
    if (buckets > 0 && max_position - 1 <= buckets / 2) {
        return pecert__vec_fail(ctx, loc, "max_position", "%lld: max_position - 1 must exceed bucket_size / 2 = %lld",
                                (long long)max_position, (long long)(buckets / 2));
    }
    return 0;
}

/* deberta.bias: the tables' rows, 2 span (span = bucket_size > 0 ?
 * bucket_size : max_position). */
static int64_t deberta_table_rows(const pecert_vtest *t, int k)
{
    (void)k;
    int64_t buckets = pecert_vtest_int(t, "bucket_size", 0);
    return 2 * (buckets > 0 ? buckets : pecert_vtest_int(t, "max_position", 0));
}

/* padding_idx is the FAIRSEQ / PADDING_OFFSET parameter, and only theirs. */
static int padding_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t,
                            const char *key, int64_t needs_it)
{
    int has = pecert_vtest_value(t, "padding_idx") != NULL;
    int64_t value = pecert_vtest_int(t, key, -1);

    if (value == needs_it && !has) {
        return pecert__vec_fail(ctx, loc, "padding_idx", "required for %s %s", key,
                                pecert_vtest_value(t, key)->s);
    }
    if (value != needs_it && has) {
        return pecert__vec_fail(ctx, loc, "padding_idx", "not allowed for %s %s", key,
                                pecert_vtest_value(t, key)->s);
    }
    return 0;
}

static int sinusoidal_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    return padding_validate(ctx, loc, t, "variant", PECERT_SINUSOIDAL_FAIRSEQ);
}

static int learned_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    return padding_validate(ctx, loc, t, "convention", PECERT_LEARNED_PADDING_OFFSET);
}

static int sincos2d_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t d = pecert_vtest_int(t, "embed_dim", 0);

    if (d % 4 != 0) {
        return pecert__vec_fail(ctx, loc, "embed_dim", "%lld is not a multiple of 4",
                                (long long)d);
    }
    return 0;
}

static int txl_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t d = pecert_vtest_int(t, "d_model", 0);

    if (d % 2 != 0) {
        return pecert__vec_fail(ctx, loc, "d_model", "%lld is odd", (long long)d);
    }
    return 0;
}

/* mrope_section must cover the rotated frequencies exactly. */
static int mrope_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    const pecert_vvalue *v = pecert_vtest_value(t, "mrope_section");
    int64_t sum = 0;

    for (size_t i = 0; v != NULL && i < v->n_list; i++) {
        sum += v->list[i];
    }
    if (sum != t->rope.rotary_dim / 2) {
        return pecert__vec_fail(ctx, loc, "mrope_section",
                                "sums to %lld, rotary_dim / 2 is %d", (long long)sum,
                                (int)(t->rope.rotary_dim / 2));
    }
    return 0;
}

/* The row-major schemes take no merge windows (spatial_merge_size 1);
 * window_units belongs to attention_windows (Qwen2.5-VL) alone, which
 * needs it. */
static int rope2d_index_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t merge = pecert_vtest_int(t, "spatial_merge_size", 0);
    int64_t scheme = pecert_vtest_int(t, "scheme", 0);
    int windowed = scheme == PECERT_ROPE2D_ATTENTION_WINDOWS;
    int has_units = pecert_vtest_value(t, "window_units") != NULL;

    if (scheme != PECERT_ROPE2D_MERGE_WINDOWS && !windowed && merge != 1) {
        return pecert__vec_fail(ctx, loc, "spatial_merge_size",
                                "%lld: scheme %s has no merge windows (must be 1)",
                                (long long)merge, pecert_vtest_value(t, "scheme")->s);
    }
    if (windowed != has_units) {
        return pecert__vec_fail(ctx, loc, "window_units", "%s with scheme %s (only attention_windows takes it)",
                                has_units ? "present" : "missing", pecert_vtest_value(t, "scheme")->s);
    }
    return 0;
}

/* Each half of the rotation pairs takes D/4 of them. */
static int rope2d_apply_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t d = pecert_vtest_int(t, "head_dim", 0);

    if (d % 4 != 0) {
        return pecert__vec_fail(ctx, loc, "head_dim", "%lld is not a multiple of 4",
                                (long long)d);
    }
    return 0;
}

/* One scale_factor axis: >= 0, and when > 0 bicubic without align_corners
 * and sized floor(n_in * scale) (plugin.h, pecert_posinterp_args). */
static int posinterp_scale_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t,
                                    const char *key, const char *in_key, const char *out_key)
{
    double scale = pecert_vtest_number(t, key, 0.0);
    int64_t n_in = pecert_vtest_int(t, in_key, 0);
    int64_t n_out = pecert_vtest_int(t, out_key, 0);

    if (scale < 0.0) {
        return pecert__vec_fail(ctx, loc, key, "%g must be >= 0 (0: the size form)", scale);
    }
    if (scale > 0.0 && (pecert_vtest_int(t, "mode", 0) != PECERT_POSINTERP_BICUBIC ||
                        pecert_vtest_int(t, "align_corners", 0))) {
        return pecert__vec_fail(ctx, loc, key, "%g: the scale_factor form is bicubic without align_corners",
                                scale);
    }
    if (scale > 0.0 && floor((double)n_in * scale) != (double)n_out) {
        return pecert__vec_fail(ctx, loc, key, "%.17g: floor(%s %lld * scale) is not %s %lld", scale, in_key,
                                (long long)n_in, out_key, (long long)n_out);
    }
    return 0;
}

static int posinterp_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t m = pecert_vtest_int(t, "merge_size", 1);

    if (pecert_vtest_int(t, "out_h", 0) % m != 0 || pecert_vtest_int(t, "out_w", 0) % m != 0) {
        return pecert__vec_fail(ctx, loc, "merge_size", "%lld does not divide out_h and out_w", (long long)m);
    }
    if (pecert_vtest_int(t, "align_corners", 0) && pecert_vtest_int(t, "antialias", 0)) {
        return pecert__vec_fail(ctx, loc, "antialias", "not defined with align_corners");
    }
    if (posinterp_scale_validate(ctx, loc, t, "scale_h", "grid_h", "out_h") != 0) {
        return -1;
    }
    return posinterp_scale_validate(ctx, loc, t, "scale_w", "grid_w", "out_w");
}

/* peg.apply: an odd kernel (its zero padding (kernel - 1) / 2 is centred). */
static int peg_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t k = pecert_vtest_int(t, "kernel", 1);

    if (k % 2 == 0) {
        return pecert__vec_fail(ctx, loc, "kernel", "%lld is even: the zero padding (kernel - 1) / 2 is not centred",
                                (long long)k);
    }
    return 0;
}

/* ---- derived extents ---------------------------------------------------- */

static int64_t sincos2d_rows(const pecert_vtest *t, int k)
{
    (void)k;
    return pecert_vtest_int(t, "cls_token", 0) +
           pecert_vtest_int(t, "grid_h", 0) * pecert_vtest_int(t, "grid_w", 0);
}

/* posinterp.resize: the table's rows (k = 0) and the output's (k = 1). */
static int64_t posinterp_rows(const pecert_vtest *t, int k)
{
    return pecert_vtest_int(t, "prefix_tokens", 0) + (k == 0 ? pecert_vtest_int(t, "grid_h", 0) * pecert_vtest_int(t, "grid_w", 0)
                                                             : pecert_vtest_int(t, "out_h", 0) * pecert_vtest_int(t, "out_w", 0));
}

/* peg.apply: the rows of x and out (prefix + grid). */
static int64_t peg_rows(const pecert_vtest *t, int k)
{
    (void)k;
    return pecert_vtest_int(t, "prefix_tokens", 0) +
           pecert_vtest_int(t, "grid_h", 0) * pecert_vtest_int(t, "grid_w", 0);
}

/* sine2d.embed: the output's rows (k = 0: h * w) and channels (k = 1: 2F). */
static int64_t sine2d_extent(const pecert_vtest *t, int k)
{
    return k == 0 ? pecert_vtest_int(t, "h", 0) * pecert_vtest_int(t, "w", 0) : 2 * pecert_vtest_int(t, "num_pos_feats", 0);
}

/* sine2d.embed: an even F (sin and cos pairs). */
static int sine2d_validate(const vec_ctx *ctx, const char *loc, const pecert_vtest *t)
{
    int64_t f = pecert_vtest_int(t, "num_pos_feats", 2);
    if (f % 2 != 0) {
        return pecert__vec_fail(ctx, loc, "num_pos_feats", "%lld is odd: an axis' channels are sin, cos pairs",
                                (long long)f);
    }
    return 0;
}

static int64_t swin_tokens(const pecert_vtest *t, int k)
{
    (void)k;
    return pecert_vtest_int(t, "window_h", 0) * pecert_vtest_int(t, "window_w", 0);
}

static int64_t mrope_axes(const pecert_vtest *t, int k)
{
    const pecert_vvalue *v = pecert_vtest_value(t, "mrope_section");

    (void)k;
    return v != NULL ? (int64_t)v->n_list : 0;
}

/* ---- key tables ----------------------------------------------------------- */

/* bias_scale: the model's factor on the bias in its attention scores
 * (Falcon's 1/sqrt(head_dim)), read off the model; absent = 1. */
static const vec_vkey alibi_slopes_keys[] = {
    CFG_INT("num_heads", 1, 65536),
    CFG_NUM("max_bias", 1),
    CFG_NUM_OPT("bias_scale", 1),
};
static const vec_vkey alibi_bias_keys[] = {
    CFG_INT("num_heads", 1, 65536),
    CFG_NUM("max_bias", 1),
    CFG_NUM_OPT("bias_scale", 1),
    PAR_BOOL("symmetric"),
};
static const vec_vkey t5_keys[] = {
    CFG_BOOL("bidirectional"),
    CFG_INT("num_buckets", 2, 1 << 20),
    CFG_INT("max_distance", 1, JSON_INT_MAX),
};
static const vec_vkey sinusoidal_keys[] = {
    CFG_ENUM("variant", sinusoidal_variants),
    CFG_INT("dim", 1, 1 << 16),
    CFG_NUM("base", 2),
    CFG_INT_OPT("padding_idx", 0, INT32_MAX),
};
static const vec_vkey learned_keys[] = {
    CFG_ENUM("convention", learned_conventions),
    CFG_INT_OPT("padding_idx", 0, INT32_MAX),
};
static const vec_vkey sincos2d_keys[] = {
    CFG_INT("embed_dim", 4, 1 << 16),
    CFG_INT("grid_h", 1, 1 << 16),
    CFG_INT("grid_w", 1, 1 << 16),
    CFG_BOOL("cls_token"),
    CFG_NUM("base", 2),
    CFG_ENUM_OPT("layout", sincos2d_layouts), /* absent: mae */
};
static const vec_vkey swin_keys[] = {
    CFG_INT("window_h", 1, 1 << 12),
    CFG_INT("window_w", 1, 1 << 12),
};
static const vec_vkey shaw_keys[] = {
    CFG_INT("max_relative_position", 0, JSON_INT_MAX),
};
static const vec_vkey txl_pos_emb_keys[] = {
    CFG_INT("d_model", 2, 1 << 16),
    CFG_INT("clamp_len", -JSON_INT_MAX, JSON_INT_MAX),
    PAR_INT("klen", 0, 1 << 24),
};
static const vec_vkey txl_rel_shift_keys[] = {
    PAR_BOOL("zero_triu"),
};
static const vec_vkey mrope_index_keys[] = {
    CFG_INT("spatial_merge_size", 1, 64),
    CFG_INT("image_token_id", 0, JSON_INT_MAX),
    CFG_INT("video_token_id", 0, JSON_INT_MAX),
    CFG_INT("vision_start_token_id", 0, JSON_INT_MAX),
};
/* mrope_interleaved: Qwen3-VL's frequency-to-axis assignment (plugin.h,
 * pecert_mrope_apply_args.interleaved); absent = sections in blocks. */
static const vec_vkey mrope_apply_keys[] = {
    {"mrope_section", 1, 0, VK_INT_LIST, 0, 1 << 16, 0, NULL, PECERT_MROPE_MAX_AXES},
    CFG_BOOL_OPT("mrope_interleaved"),
};

/* The grid's tokens are counted by the check (the grids are data). */
static const vec_vkey rope2d_index_keys[] = {
    CFG_ENUM("scheme", rope2d_schemes),
    CFG_INT("spatial_merge_size", 1, 64),
    CFG_INT_OPT("window_units", 1, 64),
};
static const vec_vkey rope2d_apply_keys[] = {
    CFG_ENUM("frequencies", rope2d_frequencies),
    CFG_BOOL("columns_first"),
    CFG_INT("head_dim", 4, 1 << 16),
    CFG_NUM("theta", 2),
    PAR_ENUM("pairing", pairings),
};
/* Grids up to 4096 per side and 64 prefix rows: ref's limits. */
static const vec_vkey posinterp_keys[] = {
    CFG_ENUM("mode", posinterp_modes),
    CFG_BOOL("align_corners"),
    CFG_BOOL("antialias"),
    CFG_INT("prefix_tokens", 0, 64),
    CFG_INT("merge_size", 1, 64),
    CFG_INT("grid_h", 1, 4096),
    CFG_INT("grid_w", 1, 4096),
    CFG_INT("out_h", 1, 4096),
    CFG_INT("out_w", 1, 4096),
    CFG_NUM("scale_h", 0),
    CFG_NUM("scale_w", 0),
};
/* npos first: pos_emb's second extent is its value (DIM_KEY(0)). gates
 * says what gate_k holds (the keys, a separate projection, the values);
 * masked false: the official call had no mask (the stored one is ones). */
static const vec_vkey cope_keys[] = {
    CFG_INT("npos", 1, INT64_C(1) << 20),
    CFG_BOOL("nodiv"),
    CFG_BOOL("masked"),
    CFG_ENUM("gates", cope_gates),
};
/* kernel last: weight's extents are its value (DIM_KEY(3)). */
static const vec_vkey peg_keys[] = {
    CFG_INT("prefix_tokens", 0, 64),
    CFG_INT("grid_h", 1, 4096),
    CFG_INT("grid_w", 1, 4096),
    CFG_INT("kernel", 1, 31),
};

/* The transformers classes (and the original code) the relpos2d vectors
 * were recorded from. */
static const char *const relpos2d_modules[] = {"SamVisionAttention", "SamHQVisionAttention", "VitDetAttention",
                                               "SegGptAttention", "segment_anything", NULL};

/* relpos2d.bias: the query's tokens (k = 0: q_h * q_w) and the keys'
 * (k = 1: k_h * k_w). */
static int64_t relpos2d_extent(const pecert_vtest *t, int k)
{
    return k == 0 ? pecert_vtest_int(t, "q_h", 0) * pecert_vtest_int(t, "q_w", 0)
                  : pecert_vtest_int(t, "k_h", 0) * pecert_vtest_int(t, "k_w", 0);
}

static const vec_vkey relpos2d_keys[] = {
    CFG_INT("q_h", 1, 4096),
    CFG_INT("q_w", 1, 4096),
    CFG_INT("k_h", 1, 4096),
    CFG_INT("k_w", 1, 4096),
    CFG_ENUM("module", relpos2d_modules),
};

/* DeBERTa: which terms, and the class a bias vector was recorded from. */
static const char *const deberta_terms[] = {"c2p", "p2c", "c2p|p2c", NULL};
static const char *const deberta_modules[] = {"DebertaV2", "Deberta", NULL};

/* q_len and k_len first: the output's extents are their values. */
static const vec_vkey deberta_relpos_keys[] = {
    CFG_INT("q_len", 1, 65536),
    CFG_INT("k_len", 1, 65536),
    CFG_INT("bucket_size", -1, 65536),
    CFG_INT("max_position", 2, 65536),
};
static const vec_vkey deberta_bias_keys[] = {
    CFG_INT("bucket_size", -1, 65536),
    CFG_INT("max_position", 2, 65536),
    CFG_ENUM("terms", deberta_terms),
    CFG_ENUM("module", deberta_modules),
};

/* h and w first: the mask's extents are their values (DIM_KEY(0, 1)). */
static const vec_vkey sine2d_keys[] = {
    CFG_INT("h", 1, 16384),
    CFG_INT("w", 1, 16384),
    CFG_INT("num_pos_feats", 2, 8192),
    CFG_BOOL("normalize"),
    CFG_NUM("temperature_y", 1),
    CFG_NUM("temperature_x", 1),
    CFG_NUM("scale", 0),
    CFG_NUM("offset", 0),
    CFG_NUM("eps", 1),
    CFG_ENUM("module", sine2d_modules),
};

#define KEYS(t) .keys = t, .n_keys = sizeof t / sizeof t[0]
#define ANY_FLOAT PECERT_DTYPE_INVALID
#define I64 PECERT_DTYPE_I64
#define F32 PECERT_DTYPE_F32
#define I32 PECERT_DTYPE_I32

const vec_op pecert__vec_family_ops[] = {
    {.name = "alibi.slopes", KEYS(alibi_slopes_keys),
     .outputs = {{"slopes", ANY_FLOAT, 1, {DIM_KEY(0)}}}, .n_outputs = 1},
    {.name = "alibi.bias", KEYS(alibi_bias_keys), .var_names = {"Q", "K"},
     .inputs = {{"q_positions", I64, 1, {DIM_VAR(0)}},
                {"k_positions", I64, 1, {DIM_VAR(1)}}},
     .n_inputs = 2,
     .outputs = {{"bias", ANY_FLOAT, 3, {DIM_KEY(0), DIM_VAR(0), DIM_VAR(1)}}},
     .n_outputs = 1},
    {.name = "t5.bucket", KEYS(t5_keys), .validate = t5_validate, .var_names = {"n"},
     .inputs = {{"relative_position", I64, 1, {DIM_VAR(0)}}}, .n_inputs = 1,
     .outputs = {{"bucket", I64, 1, {DIM_VAR(0)}}}, .n_outputs = 1},
    {.name = "sinusoidal.embed", KEYS(sinusoidal_keys), .validate = sinusoidal_validate,
     .var_names = {"n"},
     .inputs = {{"positions", I64, 1, {DIM_VAR(0)}}}, .n_inputs = 1,
     .outputs = {{"embedding", ANY_FLOAT, 2, {DIM_VAR(0), DIM_KEY(1)}}}, .n_outputs = 1},
    {.name = "learned.lookup", KEYS(learned_keys), .validate = learned_validate,
     .var_names = {"L", "D", "n"},
     .inputs = {{"table", F32, 2, {DIM_VAR(0), DIM_VAR(1)}},
                {"positions", I64, 1, {DIM_VAR(2)}}},
     .n_inputs = 2,
     .outputs = {{"embedding", F32, 2, {DIM_VAR(2), DIM_VAR(1)}}}, .n_outputs = 1},
    {.name = "sincos2d.embed", KEYS(sincos2d_keys), .validate = sincos2d_validate,
     .derive = sincos2d_rows,
     .outputs = {{"embedding", ANY_FLOAT, 2, {DIM_DERIVED(0), DIM_KEY(0)}}},
     .n_outputs = 1},
    {.name = "swin.index", KEYS(swin_keys), .derive = swin_tokens,
     .outputs = {{"index", I64, 2, {DIM_DERIVED(0), DIM_DERIVED(0)}}}, .n_outputs = 1},
    {.name = "shaw.index", KEYS(shaw_keys), .var_names = {"Q", "K"},
     .inputs = {{"q_positions", I64, 1, {DIM_VAR(0)}},
                {"k_positions", I64, 1, {DIM_VAR(1)}}},
     .n_inputs = 2,
     .outputs = {{"index", I64, 2, {DIM_VAR(0), DIM_VAR(1)}}}, .n_outputs = 1},
    {.name = "txl.pos_emb", KEYS(txl_pos_emb_keys), .validate = txl_validate,
     .outputs = {{"pos_emb", ANY_FLOAT, 2, {DIM_KEY(2), DIM_KEY(0)}}}, .n_outputs = 1},
    {.name = "txl.rel_shift", KEYS(txl_rel_shift_keys), .var_names = {"Q", "K", "N"},
     .inputs = {{"x", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_VAR(2)}}}, .n_inputs = 1,
     .outputs = {{"out", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_VAR(2)}}}, .n_outputs = 1},
    {.name = "mrope.index", KEYS(mrope_index_keys), .var_names = {"B", "S", "I", "V"},
     .inputs = {{"input_ids", I64, 2, {DIM_VAR(0), DIM_VAR(1)}},
                {"attention_mask", I64, 2, {DIM_VAR(0), DIM_VAR(1)}},
                {"image_grid_thw", I64, 2, {DIM_VAR(2), 3}},
                {"video_grid_thw", I64, 2, {DIM_VAR(3), 3}}},
     .n_inputs = 4,
     .outputs = {{"position_ids", I64, 3, {3, DIM_VAR(0), DIM_VAR(1)}},
                 {"deltas", I64, 1, {DIM_VAR(0)}}},
     .n_outputs = 2},
    {.name = "mrope.apply", .rope_config = 1, .has_pairing = 1, KEYS(mrope_apply_keys),
     .validate = mrope_validate, .derive = mrope_axes, .var_names = {"T", "H"},
     .inputs = {{"positions", I64, 2, {DIM_DERIVED(0), DIM_VAR(0)}},
                {"x", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_HEAD}}},
     .n_inputs = 2,
     .outputs = {{"out", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_HEAD}}}, .n_outputs = 1},
    {.name = "rope2d.index", KEYS(rope2d_index_keys), .validate = rope2d_index_validate,
     .var_names = {"N", "T"},
     .inputs = {{"grid_thw", I64, 2, {DIM_VAR(0), 3}}}, .n_inputs = 1,
     .outputs = {{"positions", I64, 2, {2, DIM_VAR(1)}}}, .n_outputs = 1},
    {.name = "rope2d.apply", KEYS(rope2d_apply_keys), .validate = rope2d_apply_validate,
     .var_names = {"T", "H"},
     .inputs = {{"positions", I64, 2, {2, DIM_VAR(0)}},
                {"x", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_KEY(2)}}},
     .n_inputs = 2,
     .outputs = {{"out", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_KEY(2)}}}, .n_outputs = 1},
    {.name = "posinterp.resize", KEYS(posinterp_keys), .validate = posinterp_validate, .derive = posinterp_rows,
     .var_names = {"D"}, .var_min = {1},
     .inputs = {{"table", F32, 2, {DIM_DERIVED(0), DIM_VAR(0)}}}, .n_inputs = 1,
     .outputs = {{"out", F32, 2, {DIM_DERIVED(1), DIM_VAR(0)}}}, .n_outputs = 1},
    {.name = "cope.logits", KEYS(cope_keys), .var_names = {"Q", "K", "D"}, .var_min = {0, 1, 1},
     .inputs = {{"q", F32, 2, {DIM_VAR(0), DIM_VAR(2)}},
                {"k", F32, 2, {DIM_VAR(1), DIM_VAR(2)}},
                {"gate_k", F32, 2, {DIM_VAR(1), DIM_VAR(2)}},
                {"pos_emb", F32, 2, {DIM_VAR(2), DIM_KEY(0)}},
                {"mask", F32, 2, {DIM_VAR(0), DIM_VAR(1)}}},
     .n_inputs = 5,
     .outputs = {{"positions", ANY_FLOAT, 2, {DIM_VAR(0), DIM_VAR(1)}},
                 {"logits", ANY_FLOAT, 2, {DIM_VAR(0), DIM_VAR(1)}}},
     .n_outputs = 2},
    {.name = "peg.apply", KEYS(peg_keys), .validate = peg_validate, .derive = peg_rows, .var_names = {"C"},
     .var_min = {1},
     .inputs = {{"x", F32, 2, {DIM_DERIVED(0), DIM_VAR(0)}},
                {"weight", F32, 3, {DIM_VAR(0), DIM_KEY(3), DIM_KEY(3)}},
                {"bias", F32, 1, {DIM_VAR(0)}}},
     .n_inputs = 3,
     .outputs = {{"out", ANY_FLOAT, 2, {DIM_DERIVED(0), DIM_VAR(0)}}}, .n_outputs = 1},
    {.name = "sine2d.embed", KEYS(sine2d_keys), .validate = sine2d_validate, .derive = sine2d_extent,
     .inputs = {{"mask", I32, 2, {DIM_KEY(0), DIM_KEY(1)}}}, .n_inputs = 1,
     .outputs = {{"embedding", ANY_FLOAT, 2, {DIM_DERIVED(0), DIM_DERIVED(1)}}}, .n_outputs = 1},
    {.name = "relpos2d.bias", KEYS(relpos2d_keys), .derive = relpos2d_extent, .var_names = {"n", "C", "Lh", "Lw"},
     .var_min = {1, 1, 1, 1},
     .inputs = {{"query", F32, 3, {DIM_VAR(0), DIM_DERIVED(0), DIM_VAR(1)}},
                {"rel_pos_h", F32, 2, {DIM_VAR(2), DIM_VAR(1)}},
                {"rel_pos_w", F32, 2, {DIM_VAR(3), DIM_VAR(1)}}},
     .n_inputs = 3,
     .outputs = {{"bias", ANY_FLOAT, 3, {DIM_VAR(0), DIM_DERIVED(0), DIM_DERIVED(1)}}}, .n_outputs = 1},
    {.name = "deberta.relpos", KEYS(deberta_relpos_keys), .validate = deberta_validate,
     .outputs = {{"relative_pos", I64, 2, {DIM_KEY(0), DIM_KEY(1)}}}, .n_outputs = 1},
    {.name = "deberta.bias", KEYS(deberta_bias_keys), .validate = deberta_validate, .derive = deberta_table_rows,
     .var_names = {"n", "L", "d", "H"}, .var_min = {1, 1, 1, 1},
     .inputs = {{"q", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_VAR(2)}},
                {"k", F32, 3, {DIM_VAR(0), DIM_VAR(1), DIM_VAR(2)}},
                {"pos_key", F32, 3, {DIM_VAR(3), DIM_DERIVED(0), DIM_VAR(2)}},
                {"pos_query", F32, 3, {DIM_VAR(3), DIM_DERIVED(0), DIM_VAR(2)}}},
     .n_inputs = 4,
     .outputs = {{"bias", ANY_FLOAT, 3, {DIM_VAR(0), DIM_VAR(1), DIM_VAR(1)}}}, .n_outputs = 1},
};

const size_t pecert__vec_num_family_ops =
    sizeof pecert__vec_family_ops / sizeof pecert__vec_family_ops[0];
