/*
 * certify_describe.c - a checkpoint's derived parameters in words: the
 * lines `pecert certify` prints (pecert_certify_describe) and the one-line
 * label reports show as a run's selection (pecert_certify_label). Split
 * from certify_config.c (the reading of config.json), which it only reads.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "vectors.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the derived parameters, as `pecert certify` prints them ---------- */

typedef struct text_buf {
    char *out;
    size_t len;
    size_t used;
} text_buf;

static void put(text_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text_buf *b, const char *fmt, ...)
{
    if (b->used + 1 >= b->len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->out + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (n > 0) {
        b->used += (size_t)n < b->len - b->used ? (size_t)n : b->len - b->used - 1;
    }
}

/* What _compute_yarn_parameters (transformers v4.57.6) reads for the
 * keys a YaRN config leaves out, or sets to a falsy value: beta_fast and
 * beta_slow are read as `get(...) or 32` and `or 1` (so 0 is the default
 * too), truncate as `get("truncate", True)`. A porter must see the values
 * the checkpoint runs with, not only those its config spells out. */
static void describe_yarn_defaults(text_buf *b, const pecert_rope_config *r)
{
    if (r->rope_type != PECERT_ROPE_YARN) {
        return;
    }
    if (!(r->present & PECERT_ROPE_HAS_BETA_FAST)) {
        put(b, "  %-34s 32 (default)\n", "beta_fast");
    } else if (r->beta_fast == 0.0) {
        put(b, "  %-34s 32 (0 in the config reads as the default: `or 32`)\n", "beta_fast");
    }
    if (!(r->present & PECERT_ROPE_HAS_BETA_SLOW)) {
        put(b, "  %-34s 1 (default)\n", "beta_slow");
    } else if (r->beta_slow == 0.0) {
        put(b, "  %-34s 1 (0 in the config reads as the default: `or 1`)\n", "beta_slow");
    }
    if (!(r->present & PECERT_ROPE_HAS_TRUNCATE)) {
        put(b, "  %-34s true (default)\n", "truncate");
    }
}

/* The rope_scaling values that are present, "-" otherwise. */
static void describe_scaling(text_buf *b, const pecert_rope_config *r)
{
    static const struct { uint32_t bit; const char *name; size_t off; } fields[] = {
        {PECERT_ROPE_HAS_FACTOR, "factor", offsetof(pecert_rope_config, factor)},
        {PECERT_ROPE_HAS_ATTENTION_FACTOR, "attention_factor", offsetof(pecert_rope_config, attention_factor)},
        {PECERT_ROPE_HAS_BETA_FAST, "beta_fast", offsetof(pecert_rope_config, beta_fast)},
        {PECERT_ROPE_HAS_BETA_SLOW, "beta_slow", offsetof(pecert_rope_config, beta_slow)},
        {PECERT_ROPE_HAS_MSCALE, "mscale", offsetof(pecert_rope_config, mscale)},
        {PECERT_ROPE_HAS_MSCALE_ALL_DIM, "mscale_all_dim", offsetof(pecert_rope_config, mscale_all_dim)},
        {PECERT_ROPE_HAS_LOW_FREQ_FACTOR, "low_freq_factor", offsetof(pecert_rope_config, low_freq_factor)},
        {PECERT_ROPE_HAS_HIGH_FREQ_FACTOR, "high_freq_factor", offsetof(pecert_rope_config, high_freq_factor)},
    };
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (r->present & fields[i].bit) {
            double v;
            memcpy(&v, (const char *)r + fields[i].off, sizeof(v));
            put(b, "  %-34s %.17g\n", fields[i].name, v);
        }
    }
    if (r->present & PECERT_ROPE_HAS_TRUNCATE) {
        put(b, "  %-34s %s\n", "truncate", r->truncate ? "true" : "false");
    }
    describe_yarn_defaults(b, r);
    if (r->present & PECERT_ROPE_HAS_ORIGINAL_MAX_POS) {
        put(b, "  %-34s %lld (rope_scaling)\n", "original_max_position_embeddings",
            (long long)r->original_max_position_embeddings);
    }
    if (r->present & PECERT_ROPE_HAS_TOP_ORIGINAL_MAX_POS) {
        put(b, "  %-34s %lld (top level)\n", "original_max_position_embeddings",
            (long long)r->original_max_position_embeddings);
    }
    if (r->num_factors > 0) {
        put(b, "  %-34s %d each (short %.6g .. %.6g, long %.6g .. %.6g)\n", "short_factor/long_factor",
            r->num_factors, r->short_factor[0], r->short_factor[r->num_factors - 1], r->long_factor[0],
            r->long_factor[r->num_factors - 1]);
    }
}

static void describe_rope(text_buf *b, const pecert_certify_model *m)
{
    const pecert_rope_config *r = &m->rope;
    put(b, "  %-34s %s%s%s%s\n", "rope_type", pecert_rope_type_name(r->rope_type),
        m->rope_type_key[0] != '\0' ? " (from rope_scaling." : "", m->rope_type_key,
        m->rope_type_key[0] != '\0' ? ")" : "");
    put(b, "  %-34s %.17g\n", "rope_theta", r->rope_theta);
    put(b, "  %-34s %d of head_dim %d\n", "rotary_dim", r->rotary_dim, r->head_dim);
    put(b, "  %-34s %s\n", "pairing",
        m->pairing == PECERT_PAIRING_INTERLEAVED ? "interleaved (2i, 2i+1)" : "split_half (i, i + rotary_dim/2)");
    put(b, "  %-34s %lld\n", "max_position_embeddings", (long long)m->max_position_embeddings);
    describe_scaling(b, r);
    for (int i = 0; i < m->n_sections; i++) {
        put(b, "%s%d%s", i == 0 ? "  mrope_section                      [" : ", ", m->mrope_section[i],
            i + 1 == m->n_sections ? "]\n" : "");
    }
    if (m->kind == PECERT_PE_MROPE) {
        put(b, "  %-34s %s\n", "mrope layout",
            m->mrope_interleaved ? "interleaved (t h w t h w ..., Qwen3-VL)" : "blocks (t..t h..h w..w, Qwen2-VL)");
    }
}

void pecert_certify_layer_ranges(char *out, size_t len, const pecert_certify_model *m, int t)
{
    text_buf b = {out, len, 0};
    if (len > 0) {
        out[0] = '\0';
    }
    for (int32_t i = 0; i < m->n_layers; i++) {
        if (m->layer_type_of[i] != t || (i > 0 && m->layer_type_of[i - 1] == t)) {
            continue;
        }
        int32_t last = i;
        while (last + 1 < m->n_layers && m->layer_type_of[last + 1] == t) {
            last++;
        }
        put(&b, last > i ? "%s%d-%d" : "%s%d", b.used > 0 ? ", " : "", (int)i, (int)last);
    }
}

/* A layer type's encoding in a few words: "NoPE (no rotation)",
 * "rope_theta 10000, default", "rope_theta 1e+06, linear factor 8". */
static void layer_encoding(char *out, size_t len, const pecert_rope_config *r)
{
    if (r->layer_kind == PECERT_LAYER_NOPE) {
        snprintf(out, len, "NoPE (no rotation)");
        return;
    }
    char factor[48] = "";
    if (r->present & PECERT_ROPE_HAS_FACTOR) {
        snprintf(factor, sizeof(factor), " factor %g", r->factor);
    }
    snprintf(out, len, "rope_theta %.17g, %s%s", r->rope_theta, pecert_rope_type_name(r->rope_type), factor);
}

/* The layer types, their layers and encodings. */
static void describe_layers(text_buf *b, const pecert_certify_model *m)
{
    if (m->n_layer_types == 0) {
        return;
    }
    put(b, "  %-34s %d:", "layers", (int)m->n_layers);
    for (int t = 0; t < m->n_layer_types; t++) {
        put(b, "%s %s %d", t == 0 ? "" : ",", m->layer_types[t].name, (int)m->layer_types[t].n_layers);
    }
    put(b, "\n");
    for (int t = 0; t < m->n_layer_types; t++) {
        char title[64], ranges[1024], encoding[128];
        snprintf(title, sizeof(title), "layer type %s", m->layer_types[t].name);
        pecert_certify_layer_ranges(ranges, sizeof(ranges), m, t);
        layer_encoding(encoding, sizeof(encoding), &m->layer_types[t].rope);
        put(b, "  %-34s %s; layers %s\n", title, encoding, ranges);
    }
}

/* The sinusoidal variants as the vector files spell them. */
static const char *sinusoidal_variant_name(int32_t variant)
{
    static const char *const names[] = {"interleaved", "concat", "t2t", "fairseq"};
    return variant >= 0 && variant <= PECERT_SINUSOIDAL_FAIRSEQ ? names[variant] : "?";
}

/* The table's formula and layout, and which row a token reads. */
static void describe_sinusoidal(text_buf *b, const pecert_certify_model *m)
{
    static const char *const formula[] = {
        "sin at 2i, cos at 2i+1, f_i = base^(-2i/d)",
        "sin | cos halves, f_i = base^(-2i/d)",
        "sin | cos halves, f_i = base^(-i/(d/2 - 1))",
        "sin | cos halves, f_i = base^(-i/(d/2 - 1)), fairseq's rows",
    };
    int32_t v = m->sinusoidal_variant;
    put(b, "  %-34s %s: %s, base %g, width %d\n", "sinusoidal table", sinusoidal_variant_name(v),
        v >= 0 && v <= PECERT_SINUSOIDAL_FAIRSEQ ? formula[v] : "?", m->sinusoidal_base, m->sinusoidal_dim);
    if (m->sinusoidal_padding_idx < 0) {
        put(b, "  %-34s row p, p < %lld\n", "sinusoidal positions", (long long)m->sinusoidal_positions);
    } else if (m->sinusoidal_padding_row) {
        put(b, "  %-34s row %d + p, p < %lld; a padding token the zero row %d\n", "sinusoidal positions",
            m->sinusoidal_padding_idx + 1, (long long)m->sinusoidal_positions, m->sinusoidal_padding_idx);
    } else {
        put(b, "  %-34s row %d + p, p < %lld (padding takes positions like any token)\n", "sinusoidal positions",
            m->sinusoidal_padding_idx + 1, (long long)m->sinusoidal_positions);
    }
}
/* DETR's sine embedding: its width, temperatures, normalisation, mask. */
static void describe_sine2d(text_buf *b, const pecert_certify_model *m)
{
    put(b, "  %-34s %d channels per axis (rows, then columns), sin and cos interleaved\n", "sine embedding",
        m->sine2d_feats);
    put(b, "  %-34s rows %g, columns %g: f = temperature^(-2 floor(i/2) / %d)\n", "temperatures",
        m->sine2d_temperature_y, m->sine2d_temperature_x, m->sine2d_feats);
    put(b, "  %-34s (count %+g) / (line's valid count + 1e-6) * %g\n", "coordinates", m->sine2d_offset,
        m->sine2d_scale);
    put(b, "  %-34s %s\n", "pixel mask",
        m->sine2d_reads_mask ? "read: each line normalised by its own valid extent"
                             : "none passed: every pixel valid, even on a padded batch");
}

size_t pecert_certify_describe(char *out, size_t len, const pecert_certify_model *m)
{
    text_buf b = {out, len, 0};
    if (len > 0) {
        out[0] = '\0';
    }
    put(&b, "  %-34s %s\n", "model_type", m->model_type);
    put(&b, "  %-34s %s\n", "positional encoding", pecert_pe_kind_name(m->kind));
    /* Swin's heads differ per stage, and the index depends on none; a sine
     * embedding is added to the feature map before any head. */
    if (m->kind != PECERT_PE_SWIN && m->kind != PECERT_PE_SINE2D && m->kind != PECERT_PE_SINCOS2D) {
        put(&b, "  %-34s %d query, %d key/value, head_dim %d\n", "heads", m->num_heads, m->num_kv_heads,
            m->head_dim);
    }
    switch (m->kind) {
    case PECERT_PE_ROPE:
    case PECERT_PE_MROPE:
        describe_rope(&b, m);
        describe_layers(&b, m);
        break;
    case PECERT_PE_ALIBI:
        put(&b, "  %-34s %g\n", "alibi max_bias", m->alibi_max_bias);
        if (m->alibi_bias_scale != 1.0) {
            put(&b, "  %-34s %.9g (1/sqrt(head_dim): the bias is added to q.k before the score scale)\n",
                "alibi bias scale", m->alibi_bias_scale);
        }
        if (m->alibi_bf16_reference) {
            put(&b, "  %-34s %s\n", "alibi reference precision",
                "bfloat16 slopes and bias (the model's code rounds them; exact ones pass too)");
        }
        break;
    case PECERT_PE_T5:
        put(&b, "  %-34s %d buckets, max_distance %lld\n", "relative_attention", m->t5_num_buckets,
            (long long)m->t5_max_distance);
        break;
    case PECERT_PE_LEARNED:
        put(&b, "  %-34s %lld rows x %d\n", "learned table", (long long)m->learned_rows, m->learned_dim);
        if (m->learned_convention == PECERT_LEARNED_PADDING_OFFSET && m->learned_padding_row) {
            put(&b, "  %-34s row %d + p; a padding token row %d\n", "learned positions", m->learned_padding_idx + 1,
                m->learned_padding_idx);
        } else if (m->learned_convention == PECERT_LEARNED_PADDING_OFFSET) {
            put(&b, "  %-34s row %d + p (padding takes positions like any token)\n", "learned positions",
                m->learned_padding_idx + 1);
        }
        break;
    case PECERT_PE_SINUSOIDAL:
        describe_sinusoidal(&b, m);
        break;
    case PECERT_PE_SWIN:
        put(&b, "  %-34s %d x %d tokens: relative_position_index into a (2W-1)^2-row bias table\n", "window",
            m->swin_window, m->swin_window);
        break;
    case PECERT_PE_SINE2D:
        describe_sine2d(&b, m);
        break;
    case PECERT_PE_DEBERTA:
        put(&b, "  %-34s %s%s%s over %s\n", "disentangled attention bias",
            (m->deberta_terms & PECERT_DEBERTA_C2P) ? "c2p" : "", m->deberta_terms == 3u ? " + " : "",
            (m->deberta_terms & PECERT_DEBERTA_P2C) ? "p2c" : "",
            m->deberta_bucket_size > 0 ? "log buckets" : "the clamped distance");
        if (m->deberta_bucket_size > 0) {
            put(&b, "  %-34s %lld buckets over max_relative_positions %lld: table rows 2 x %lld\n", "relative positions",
                (long long)m->deberta_bucket_size, (long long)m->deberta_max_position,
                (long long)m->deberta_bucket_size);
        } else {
            put(&b, "  %-34s i - j, table rows 2 x %lld (max_relative_positions)\n", "relative positions",
                (long long)m->deberta_max_position);
        }
        break;
    case PECERT_PE_SINCOS2D:
        put(&b, "  %-34s %d channels: sin | cos of a, then of b, at %g^(-i/%d)\n", "2-D sin-cos table",
            m->sincos2d_dim, m->sincos2d_base, m->sincos2d_dim / 4);
        put(&b, "  %-34s %s\n", "rows",
            m->sincos2d_layout == PECERT_SINCOS2D_RT_DETR
                ? "token k of an h x w feature map (row-major): a = k / h, b = k mod h (RT-DETR's 'ij' meshgrid)"
                : "patch (r, c): a = c, b = r (MAE)");
        break;
    case PECERT_PE_RELPOS2D:
        for (int k = 0; k < m->relpos2d_n_grids; k++) {
            put(&b, "  %-34s %s attention over %d x %d patches: rel_pos_h %d rows, rel_pos_w %d rows of %d\n",
                "relative positions", m->relpos2d_grid_name[k], m->relpos2d_grid[k][0], m->relpos2d_grid[k][1],
                2 * m->relpos2d_grid[k][0] - 1, 2 * m->relpos2d_grid[k][1] - 1, m->relpos2d_head_dim);
        }
        break;
    case PECERT_PE_ROPE2D:
        break;
    }
    if (m->decoder_learned_rows > 0) {
        put(&b, "  %-34s %lld rows x %d, learned, row p (the @decoder pass)\n", "decoder table",
            (long long)m->decoder_learned_rows, m->decoder_learned_dim);
    }
    b.used = cfg_describe_vision(out, len, b.used, m);
    return b.used;
}

void pecert_certify_point_factors(pecert_certify_model *m)
{
    m->rope.short_factor = m->rope.num_factors > 0 ? m->short_factor : NULL;
    m->rope.long_factor = m->rope.num_factors > 0 ? m->long_factor : NULL;
}

int64_t pecert_certify_l0(const pecert_certify_model *m)
{
    int64_t original = m->kind <= PECERT_PE_MROPE ? pecert_rope_original_length(&m->rope) : 0;
    return original > 0 ? original : m->max_position_embeddings;
}

void pecert_certify_label(char *out, size_t len, const pecert_certify_model *m)
{
    const pecert_rope_config *r = &m->rope;
    switch (m->kind) {
    case PECERT_PE_ROPE:
    case PECERT_PE_MROPE: {
        char factor[48] = "";
        if (r->present & PECERT_ROPE_HAS_FACTOR) {
            snprintf(factor, sizeof(factor), " factor=%g", r->factor);
        }
        snprintf(out, len, "%s%s theta=%g rot=%d/%d %s%s L0=%lld max_pos=%lld",
                 m->kind != PECERT_PE_MROPE ? "" : m->mrope_interleaved ? "mrope-interleaved " : "mrope ",
                 pecert_rope_type_name(r->rope_type),
                 r->rope_theta, r->rotary_dim, r->head_dim,
                 pecert_rope_pairing_name(m->pairing), factor,
                 (long long)pecert_certify_l0(m), (long long)m->max_position_embeddings);
        for (int t = 0; t < m->n_layer_types; t++) {
            char encoding[128];
            size_t used = strlen(out);
            layer_encoding(encoding, sizeof(encoding), &m->layer_types[t].rope);
            snprintf(out + used, len - used, "%s%s x%d: %s", t == 0 ? "; layers " : "; ", m->layer_types[t].name,
                     (int)m->layer_types[t].n_layers, encoding);
        }
        break;
    }
    case PECERT_PE_ALIBI:
        snprintf(out, len, "alibi heads=%d max_bias=%g%s", m->num_heads, m->alibi_max_bias,
                 m->alibi_bias_scale != 1.0 ? " bias/sqrt(head_dim)" : "");
        break;
    case PECERT_PE_T5:
        snprintf(out, len, "t5 buckets=%d max_distance=%lld", m->t5_num_buckets, (long long)m->t5_max_distance);
        break;
    case PECERT_PE_LEARNED:
        snprintf(out, len, "learned %lldx%d", (long long)m->learned_rows, m->learned_dim);
        break;
    case PECERT_PE_SWIN:
        snprintf(out, len, "swin window=%dx%d", m->swin_window, m->swin_window);
        break;
    case PECERT_PE_SINE2D:
        snprintf(out, len, "sine2d F=%d temperature=%g/%g offset=%g%s", m->sine2d_feats, m->sine2d_temperature_y,
                 m->sine2d_temperature_x, m->sine2d_offset, m->sine2d_reads_mask ? " mask" : " all-valid");
        break;
    case PECERT_PE_DEBERTA:
        snprintf(out, len, "deberta buckets=%lld max=%lld %s", (long long)m->deberta_bucket_size,
                 (long long)m->deberta_max_position,
                 m->deberta_terms == 3u ? "c2p|p2c" : m->deberta_terms == PECERT_DEBERTA_C2P ? "c2p" : "p2c");
        break;
    case PECERT_PE_SINCOS2D:
        snprintf(out, len, "sincos2d %s D=%d temperature=%g",
                 m->sincos2d_layout == PECERT_SINCOS2D_RT_DETR ? "rt_detr" : "mae", m->sincos2d_dim, m->sincos2d_base);
        break;
    case PECERT_PE_RELPOS2D:
        snprintf(out, len, "relpos2d %s %dx%d%s%s", m->relpos2d_grid_name[0], m->relpos2d_grid[0][0],
                 m->relpos2d_grid[0][1], m->relpos2d_n_grids > 1 ? " + global " : "",
                 m->relpos2d_n_grids > 1 ? "grid" : "");
        break;
    case PECERT_PE_SINUSOIDAL:
        snprintf(out, len, "sinusoidal %s %lldx%d%s", sinusoidal_variant_name(m->sinusoidal_variant),
                 (long long)m->sinusoidal_positions, m->sinusoidal_dim,
                 m->sinusoidal_padding_idx >= 0 ? " padding_idx" : "");
        if (m->sinusoidal_padding_idx >= 0) {
            size_t used = strlen(out);
            snprintf(out + used, len - used, "=%d", m->sinusoidal_padding_idx);
        }
        break;
    case PECERT_PE_ROPE2D: {
        const pecert_certify_vision *v = &m->vision;
        snprintf(out, len, "rope2d %s %s %s-first %s theta=%g head_dim=%d", v->tower,
                 v->frequencies == PECERT_ROPE2D_BLOCKS ? "blocks" : "alternate", v->columns_first ? "columns" : "rows",
                 pecert_rope_pairing_name(v->pairing), v->theta, v->head_dim);
        break;
    }
    }
}
