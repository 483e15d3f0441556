/*
 * certify_families.c - the readers of the other model families: the RoPE
 * decoders with config classes of their own (GPT-NeoX, GPT-J, Falcon,
 * HunYuan), ALiBi (BLOOM, MPT; Falcon's alibi), T5's buckets, and ViT's
 * learned table (the text models' learned tables: certify_learned.c).
 *
 * Source of every rule: transformers v4.57.6 (753d6110), the model's
 * configuration_*.py.
 */
#include "certify_config.h"
#include "certify_reads.h"
#include "vectors.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* GPT-NeoX: rotary_pct (default 0.25) and rotary_emb_base (default 10000)
 * become partial_rotary_factor and rope_theta (GPTNeoXConfig.__init__).
 * A config.json that save_pretrained wrote holds those two as well; the
 * class sets them from rotary_pct and rotary_emb_base whatever the file
 * says (the inventory's probes: conformance/inventory.json), so they are
 * read by nothing and ignored here too. */
int cfg_map_gpt_neox(map_ctx *c)
{
    static const char *const known[] = {"rotary_pct", "rotary_emb_base", "rope_scaling",
                                        "max_position_embeddings", "use_parallel_residual",
                                        "partial_rotary_factor", "rope_theta", NULL};
    /* GPTNeoXJapaneseConfig: the same keys and rule, rotary_pct 1.0; its
     * attention slices the rotary part off (query[..., :rotary_ndims]). */
    double partial = strcmp(c->m->model_type, "gpt_neox_japanese") == 0 ? 1.0 : 0.25;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_read_num(c, c->root, "rotary_pct", "rotary_pct", 1e-6, 1.0, &partial) < 0 ||
        cfg_read_rope_common(c, "rotary_emb_base", 10000.0) != 0 ||
        cfg_set_rotary_dim(c, partial, "rotary_pct") != 0) {
        return -1;
    }
    return cfg_map_rope_scaling(c);
}

/* GPT-J and CodeGen (its modeling_codegen.py copies GPT-J's scheme):
 * rotary_dim channels, base 10000 literal in create_sinusoidal_positions,
 * table of n_positions rows. A null rotary_dim builds the table
 * n_embd wide (`pos_embd_dim = self.rotary_dim or self.embed_dim`) and
 * rotates the whole head with it, which broadcasts only when the head is
 * all of n_embd: one head. */
int cfg_map_gptj(map_ctx *c)
{
    static const char *const known[] = {"rotary_dim", "n_positions", NULL};
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "n_embd", "n_head", NULL) != 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    r->head_dim = m->head_dim;
    /* GPTJConfig's and CodeGenConfig's rotary_dim default to 64; an
     * explicit null rotates the whole head (`if self.rotary_dim is not
     * None`) with a table n_embd wide. */
    const int null_dim = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c->root, "rotary_dim"));
    r->rotary_dim = null_dim ? m->head_dim : 64;
    if (null_dim && m->num_heads > 1) {
        return cfg_fail(c, "rotary_dim", "null with %d heads: the attention then builds its sin/cos table n_embd = %d "
                        "wide for heads of %d (create_sinusoidal_positions(n_positions, embed_dim)), which transformers "
                        "cannot run", m->num_heads, m->head_dim * m->num_heads, m->head_dim);
    }
    if (cfg_read_int32(c, c->root, "rotary_dim", 2, m->head_dim, &r->rotary_dim) < 0 ||
        cfg_read_int(c, c->root, "n_positions", "n_positions", 1, (int64_t)1 << 40, &m->max_position_embeddings) < 0) {
        return -1;
    }
    if (r->rotary_dim % 2 != 0 || r->rotary_dim > m->head_dim) {
        return cfg_fail(c, "rotary_dim", "%d: must be even and at most head_dim %d (64 when absent)", r->rotary_dim,
                        m->head_dim);
    }
    if (m->max_position_embeddings < 1) {
        return cfg_fail(c, "n_positions", "required");
    }
    r->max_position_embeddings = m->max_position_embeddings;
    return 0;
}

/* ESM (EsmConfig; ESM-1b "absolute", ESM-2 "rotary"): position_embedding_type
 * "absolute" (the default) is RoBERTa's learned rows from pad_token_id
 * (EsmEmbeddings, create_position_ids_from_input_ids: certify_learned.c);
 * "rotary" leaves the embeddings without positions and rotates q (scaled
 * first) and k in every layer by RotaryEmbedding(head_dim): inv_freq
 * 1 / 10000^(2i/d), cos/sin of arange(seq_len) whatever position_ids say,
 * rotate_half (split halves), no key for a base or a scaling; "relative_key"
 * and "relative_key_query" (a distance table over max_position_embeddings)
 * are not a family pecert certifies. */
int cfg_map_esm(map_ctx *c)
{
    static const char *const known[] = {"max_position_embeddings", "position_embedding_type", NULL};
    pecert_certify_model *m = c->m;
    const cJSON *pet = cfg_get(c->root, "position_embedding_type");
    if (pet != NULL && !cJSON_IsString(pet)) {
        return cfg_fail(c, "position_embedding_type", "expected a string");
    }
    const char *kind = pet != NULL ? pet->valuestring : "absolute";
    if (strcmp(kind, "absolute") == 0) {
        return cfg_map_learned_text(c);
    }
    if (strcmp(kind, "rotary") != 0) {
        return cfg_fail(c, "position_embedding_type", "'%.40s': ESM's relative_key / relative_key_query distance "
                        "table is not a family pecert certifies (absolute and rotary are)", kind);
    }
    pecert_rope_config *r = &m->rope;
    m->max_position_embeddings = 1026;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 40,
                     &m->max_position_embeddings) < 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    r->head_dim = m->head_dim;
    r->rotary_dim = m->head_dim;
    r->max_position_embeddings = m->max_position_embeddings;
    return 0;
}

/* Falcon (FalconConfig, modeling_falcon.py): head_dim is a read-only
 * property (hidden_size // num_attention_heads), so a head_dim key makes
 * PretrainedConfig's setattr raise; the key/value heads are num_kv_heads
 * under new_decoder_architecture or without multi_query, else 1
 * (FalconAttention.num_kv_heads); FalconRotaryEmbedding is Llama's
 * (rope_type read first, no validation) and rotates the whole head with
 * rotate_half. alibi true replaces the rotation by ALiBi. */
static int read_falcon_heads(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    int new_arch = 0;
    int multi_query = 1;
    if (cfg_get(c->root, "head_dim") != NULL) {
        return cfg_fail(c, "head_dim", "FalconConfig.head_dim is a read-only property (hidden_size // "
                        "num_attention_heads): transformers cannot load a config that sets it");
    }
    const char *hidden = cfg_get(c->root, "hidden_size") == NULL && cfg_get(c->root, "n_embed") != NULL ? "n_embed"
                                                                                                 : "hidden_size";
    if (cfg_read_heads(c, hidden, "num_attention_heads", "num_kv_heads") != 0 ||
        cfg_read_bool(c, c->root, "new_decoder_architecture", "new_decoder_architecture", &new_arch) < 0 ||
        cfg_read_bool(c, c->root, "multi_query", "multi_query", &multi_query) < 0) {
        return -1;
    }
    if (!new_arch && multi_query) {
        m->num_kv_heads = 1;
    }
    return 0;
}

/* Falcon with alibi true (Falcon-RW): build_alibi_tensor is Bloom's
 * (max_bias 8), but FalconAttention adds the bias to q . k and scales the
 * sum by 1/sqrt(head_dim) (eager: attention_logits *= inv_norm_factor;
 * sdpa: _update_causal_mask puts alibi / sqrt(head_dim) in the mask). The
 * rotary fields stay in the config (FalconRotaryEmbedding is built and
 * never applied); a rope_scaling there would be ignored: refused. */
static int map_falcon_alibi(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    if (rs != NULL && !cJSON_IsNull(rs)) {
        return cfg_fail(c, "rope_scaling", "set with alibi true: FalconAttention never rotates then, so the model "
                        "ignores it; pecert refuses a field the model ignores");
    }
    m->kind = PECERT_PE_ALIBI;
    m->alibi_max_bias = 8.0;
    m->alibi_bias_scale = 1.0 / sqrt((double)m->head_dim);
    m->alibi_bf16_reference = 1; /* slopes[..., None].bfloat16() * arange_tensor */
    m->max_position_embeddings = 2048; /* FalconConfig's default */
    return cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 40,
                        &m->max_position_embeddings) < 0 ? -1 : 0;
}

int cfg_map_falcon(map_ctx *c)
{
    static const char *const known[] = {"alibi", "rope_theta", "rope_scaling", "max_position_embeddings", NULL};
    int alibi = 0;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 || read_falcon_heads(c) != 0 ||
        cfg_read_bool(c, c->root, "alibi", "alibi", &alibi) < 0) {
        return -1;
    }
    if (alibi) {
        return map_falcon_alibi(c);
    }
    c->m->max_position_embeddings = 2048; /* FalconConfig's default */
    return cfg_read_rope_common(c, "rope_theta", 10000.0) != 0 || cfg_set_rotary_dim(c, 1.0, "num_attention_heads") != 0
               ? -1
               : cfg_map_rope_scaling(c);
}

/* Hunyuan (HunYuanDenseV1 / HunYuanMoEV1RotaryEmbedding, transformers
 * v4.57.6): rope_scaling type "dynamic" with a truthy alpha is a fixed
 * base, rope_theta * alpha^(d / (d - 2)) with d = config.head_dim, over
 * the whole head, attention_scaling 1; the other keys of that dict are not
 * read (factor only by dynamic_rope_update past max_position_embeddings,
 * where it recomputes dynamic NTK from rope_theta without alpha). Any other
 * rope_scaling is the library's. Both classes size their heads by
 * config.head_dim, which the config class leaves None: required. */
static int map_hunyuan_alpha(map_ctx *c, const cJSON *rs)
{
    static const char *const keys[] = {"type", "rope_type", "alpha", "factor", "beta_fast", "beta_slow",
                                       "mscale", "mscale_all_dim", NULL};
    pecert_rope_config *r = &c->m->rope;
    double alpha = 0.0;
    const cJSON *item = NULL;
    int unread = 0;
    cJSON_ArrayForEach(item, rs) {
        char shown[160];
        snprintf(shown, sizeof(shown), "rope_scaling.%s", item->string);
        if (!cfg_in_list(item->string, keys)) {
            return cfg_fail(c, shown, "not a key of Hunyuan's dynamic-alpha rope_scaling (pecert refuses what it "
                            "cannot certify)");
        }
        unread += strcmp(item->string, "type") != 0 && strcmp(item->string, "rope_type") != 0 &&
                  strcmp(item->string, "alpha") != 0;
    }
    if (cfg_read_num(c, rs, "alpha", "rope_scaling.alpha", DBL_TRUE_MIN, 1e12, &alpha) < 0) {
        return -1;
    }
    if (r->head_dim <= 2) {
        return cfg_fail(c, "head_dim", "%d: the alpha base divides by head_dim - 2", r->head_dim);
    }
    double theta = r->rope_theta;
    r->rope_theta = theta * pow(alpha, (double)r->head_dim / (double)(r->head_dim - 2));
    r->rope_type = PECERT_ROPE_DEFAULT;
    if (unread > 0) {
        cfg_warn(c, "rope_scaling", "%d key(s) besides type and alpha are not read by the alpha path (ignored)",
                 unread);
    }
    cfg_warn(c, "rope_scaling.alpha", "certified as default RoPE, base rope_theta * alpha^(d/(d-2)) = %.17g, at every "
             "position; past max_position_embeddings transformers recomputes dynamic NTK without alpha", r->rope_theta);
    return 0;
}

int cfg_map_hunyuan(map_ctx *c)
{
    static const char *const known[] = {"rope_theta", "rope_scaling", "max_position_embeddings", NULL};
    const cJSON *hd = cfg_get(c->root, "head_dim");
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", "num_key_value_heads") != 0) {
        return -1;
    }
    if (hd == NULL || cJSON_IsNull(hd)) {
        return cfg_fail(c, "head_dim", "required: the attention sizes its heads by config.head_dim, which the config "
                        "class leaves None (transformers cannot run it)");
    }
    c->m->max_position_embeddings = 2048; /* both config classes' default */
    if (cfg_read_rope_common(c, "rope_theta", 10000.0) != 0 || cfg_set_rotary_dim(c, 1.0, "head_dim") != 0) {
        return -1;
    }
    const cJSON *rs = cfg_get(c->root, "rope_scaling");
    const cJSON *type = cJSON_IsObject(rs) ? cfg_get(rs, "rope_type") : NULL;
    type = cJSON_IsObject(rs) && type == NULL ? cfg_get(rs, "type") : type;
    const cJSON *alpha = cJSON_IsObject(rs) ? cfg_get(rs, "alpha") : NULL;
    int alpha_path = cJSON_IsString(type) && strcmp(type->valuestring, "dynamic") == 0 && alpha != NULL &&
                     !cJSON_IsNull(alpha) && !(cJSON_IsNumber(alpha) && alpha->valuedouble == 0.0) &&
                     !cJSON_IsFalse(alpha);
    return alpha_path ? map_hunyuan_alpha(c, rs) : cfg_map_rope_scaling(c);
}

/* Bloom: ALiBi with max_bias 8 (build_alibi_tensor's literal), n_head. */
int cfg_map_bloom(map_ctx *c)
{
    static const char *const known[] = {NULL};
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "n_head", NULL) != 0) {
        return -1;
    }
    c->m->kind = PECERT_PE_ALIBI;
    c->m->alibi_max_bias = 8.0;
    c->m->alibi_bias_scale = 1.0;
    return 0;
}

/* MPT: attn_config.alibi / alibi_bias_max (MptAttentionConfig defaults
 * true / 8). transformers' MptModel always applies ALiBi, so alibi false
 * (llm-foundry's learned or rotary positions) has no reference here; and
 * learned_pos_emb is llm-foundry's switch, which MptModel never reads. */
int cfg_map_mpt(map_ctx *c)
{
    static const char *const known_top[] = {"max_seq_len", "learned_pos_emb", NULL};
    static const char *const known_attn[] = {"alibi", "alibi_bias_max", NULL};
    const cJSON *attn = cfg_get(c->root, "attn_config");
    int alibi = 1;
    int32_t bias_max = 8;
    pecert_certify_model *m = c->m;
    /* An array's items have no key: only an object can be read (a fuzzer
     * find: attn_config given as [3, 1, 1]). */
    if (attn != NULL && !cJSON_IsObject(attn)) {
        return cfg_fail(c, "attn_config", "expected an object (MptAttentionConfig's fields)");
    }
    if (cfg_reject_unknown_positional(c, c->root, known_top, "") != 0 ||
        (attn != NULL && cfg_reject_unknown_positional(c, attn, known_attn, "attn_config.") != 0) ||
        cfg_read_heads(c, "d_model", "n_heads", NULL) != 0 ||
        cfg_read_int(c, c->root, "max_seq_len", "max_seq_len", 1, (int64_t)1 << 40, &m->max_position_embeddings) < 0) {
        return -1;
    }
    if (attn != NULL && (cfg_read_bool(c, attn, "alibi", "attn_config.alibi", &alibi) < 0 ||
                         cfg_read_int32(c, attn, "alibi_bias_max", 1, 64, &bias_max) < 0)) {
        return -1;
    }
    if (!alibi) {
        return cfg_fail(c, "attn_config.alibi", "false has no reference in transformers' MptModel (ALiBi only)");
    }
    m->kind = PECERT_PE_ALIBI;
    m->alibi_max_bias = bias_max;
    m->alibi_bias_scale = 1.0;
    return 0;
}

/* DBRX (DbrxConfig, modeling_dbrx.py): heads d_model / n_heads; the
 * base and the key/value heads are attn_config's (DbrxAttentionConfig:
 * rope_theta 10000, kv_n_heads 1 by default), and DbrxAttention builds
 * DbrxRotaryEmbedding from (head_dim, max_seq_len, rope_theta) alone:
 * default RoPE over the whole head, split-half pairs (rotate_half), no
 * scaling (neither config class has rope_scaling). */
int cfg_map_dbrx(map_ctx *c)
{
    static const char *const known_top[] = {"max_seq_len", NULL};
    static const char *const known_attn[] = {"rope_theta", NULL};
    const cJSON *attn = cfg_get(c->root, "attn_config");
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    int64_t kv_heads = 1;
    if (attn != NULL && !cJSON_IsObject(attn)) {
        return cfg_fail(c, "attn_config", "expected an object (DbrxAttentionConfig's fields)");
    }
    m->max_position_embeddings = 2048;
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    if (cfg_reject_unknown_positional(c, c->root, known_top, "") != 0 ||
        (attn != NULL && cfg_reject_unknown_positional(c, attn, known_attn, "attn_config.") != 0) ||
        cfg_read_heads(c, "d_model", "n_heads", NULL) != 0 ||
        cfg_read_int(c, c->root, "max_seq_len", "max_seq_len", 1, (int64_t)1 << 40, &m->max_position_embeddings) < 0 ||
        (attn != NULL &&
         (cfg_read_num(c, attn, "rope_theta", "attn_config.rope_theta", 1.0 + 1e-9, 1e12, &r->rope_theta) < 0 ||
          cfg_read_int(c, attn, "kv_n_heads", "attn_config.kv_n_heads", 1, 1 << 16, &kv_heads) < 0)) ||
        cfg_set_rotary_dim(c, 1.0, "n_heads") != 0) {
        return -1;
    }
    if (m->num_heads % kv_heads != 0) {
        return cfg_fail(c, "attn_config.kv_n_heads", "%d does not divide n_heads = %d", (int)kv_heads, m->num_heads);
    }
    m->num_kv_heads = (int32_t)kv_heads;
    r->max_position_embeddings = m->max_position_embeddings;
    return 0;
}

/* IDEFICS (IdeficsConfig, modeling_idefics.py): a Llama decoder whose
 * self-attention builds IdeficsEmbedding(head_dim) with its defaults (base
 * 10000, a cos/sin cache of 2048 rows, rebuilt with the same formula for a
 * longer sequence) and whose gated cross-attention layers rotate nothing.
 * The config has no positional key at all; 2048 is the length certified.
 * The vision tower (CLIP's learned table, interpolated) is named, not
 * certified. */
int cfg_map_idefics(map_ctx *c)
{
    static const char *const none[] = {NULL};
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    if (cfg_reject_unknown_positional(c, c->root, none, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_set_rotary_dim(c, 1.0, "hidden_size") != 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    m->max_position_embeddings = 2048;
    r->max_position_embeddings = m->max_position_embeddings;
    snprintf(m->vision_note, sizeof(m->vision_note), "%s",
             "IDEFICS's vision tower (CLIP's learned table, interpolated to the image) is not certified");
    return 0;
}

/* RoFormer (RoFormerSelfAttention.apply_rotary_position_embeddings, a
 * table of RoFormerSinusoidalPositionalEmbedding): default RoPE over the
 * whole head (hidden_size / num_attention_heads), base 10000 fixed in
 * code, adjacent pairs ([-q1, q0, -q3, q2, ...] against sin/cos each
 * repeated twice), the table's max_position_embeddings rows (1536) read at
 * arange(past, past + L), padding numbered like any token. rotary_value
 * also rotates the values, which no position rule of pecert states. */
int cfg_map_roformer(map_ctx *c)
{
    static const char *const known[] = {"max_position_embeddings", "rotary_value", NULL};
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    int rotary_value = 0;
    m->max_position_embeddings = 1536;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads_or(c, "hidden_size", "num_attention_heads", NULL, 768, 12) != 0 ||
        cfg_set_rotary_dim(c, 1.0, "hidden_size") != 0 ||
        cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 1, (int64_t)1 << 32,
                     &m->max_position_embeddings) < 0 ||
        cfg_read_bool(c, c->root, "rotary_value", "rotary_value", &rotary_value) < 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    r->max_position_embeddings = m->max_position_embeddings;
    if (rotary_value) {
        cfg_warn(c, "rotary_value", "true: RoFormer rotates the values too (as the keys, by the key's position), "
                 "which certify does not check: only the query and key rotation is certified");
    }
    return 0;
}

/* MEGA (deprecated/mega, MegaRotaryRelativePositionalBias, the default
 * relative_positional_bias "rotary"): sin and cos of p * 10000^(-i/h), h =
 * shared_representation_size / 2, tables of max_positions rows in float32;
 * rotary() turns [x1 | x2] into [x1 cos - x2 sin | x2 cos + x1 sin] (split
 * halves) at p = 0 .. L - 1. What it turns is two learned vectors, alpha
 * and b_param, broadcast over the L tokens: the attention adds rot(alpha,
 * m) . rot(b_param, n) to its scaled q.k (named). With use_chunking the
 * bias is built per chunk, so positions restart at 0 in each of
 * chunk_size tokens. "simple" (a learned scalar per distance) is refused. */
int cfg_map_mega(map_ctx *c)
{
    static const char *const known[] = {"max_positions", "relative_positional_bias", NULL};
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    int32_t width = 64;
    int chunking = 0;
    int64_t chunk = -1;
    m->max_position_embeddings = 2048;
    const cJSON *kind = cfg_get(c->root, "relative_positional_bias");
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_int32(c, c->root, "shared_representation_size", 2, 1 << 16, &width) < 0 ||
        cfg_read_int(c, c->root, "max_positions", "max_positions", 1, (int64_t)1 << 32, &m->max_position_embeddings) < 0 ||
        cfg_read_bool(c, c->root, "use_chunking", "use_chunking", &chunking) < 0 ||
        cfg_read_int(c, c->root, "chunk_size", "chunk_size", -1, (int64_t)1 << 32, &chunk) < 0) {
        return -1;
    }
    if (kind != NULL && !(cJSON_IsString(kind) && strcmp(kind->valuestring, "rotary") == 0)) {
        return cfg_fail(c, "relative_positional_bias", "only \"rotary\" is certified (\"simple\": a learned scalar "
                        "per relative distance, no family of pecert's)");
    }
    if (width % 2 != 0) {
        return cfg_fail(c, "shared_representation_size", "%d: the rotation splits it in two halves", width);
    }
    if (chunking && chunk < 1) {
        return cfg_fail(c, "chunk_size", "%lld: use_chunking needs a positive chunk_size", (long long)chunk);
    }
    m->num_heads = m->num_kv_heads = 1;
    m->head_dim = width;
    if (cfg_set_rotary_dim(c, 1.0, "shared_representation_size") != 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = 10000.0;
    if (chunking) {
        m->max_position_embeddings = chunk;
        cfg_warn(c, "use_chunking", "the bias is built per chunk: positions restart at 0 in each chunk of %lld "
                 "tokens", (long long)chunk);
    }
    r->max_position_embeddings = m->max_position_embeddings;
    cfg_warn(c, "relative_positional_bias", "MEGA turns two learned vectors (alpha, b_param), not q and k, and adds "
             "rot(alpha, m) . rot(b_param, n) to the scores: certify checks that rotation");
    return 0;
}

/* Wav2Vec2-Conformer (Wav2Vec2ConformerConfig) with position_embeddings_type
 * "rotary": Wav2Vec2ConformerRotaryPositionalEmbedding, default RoPE over
 * hidden_size / num_attention_heads at base rotary_embedding_base, cos and
 * sin of arange(T) repeated over the two halves (rotate_half: split_half);
 * the self-attention turns its input hidden states, head by head, before
 * linear_q and linear_k (warned: the rotation is certified, not where it
 * sits). Its other types are refused: "relative" (the default: ESPnet's
 * RelPositionalEncoding through linear_pos and pos_bias_u/v) is no family
 * of pecert's, null has no positions. max_source_positions bounds nothing
 * the rotary class computes (it caches any length); certify reads it as the
 * trained length (5000 by default). */
int cfg_map_conformer_rotary(map_ctx *c)
{
    static const char *const known[] = {"position_embeddings_type", "rotary_embedding_base", "max_source_positions",
                                        "num_conv_pos_embeddings", "num_conv_pos_embedding_groups", NULL};
    pecert_certify_model *m = c->m;
    pecert_rope_config *r = &m->rope;
    const cJSON *type = cfg_get(c->root, "position_embeddings_type");
    double base = 10000.0;
    m->max_position_embeddings = 5000;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0) {
        return -1;
    }
    if (type != NULL && !cJSON_IsString(type)) {
        return cfg_fail(c, "position_embeddings_type", "expected \"relative\", \"rotary\" or null");
    }
    if (type == NULL || strcmp(type->valuestring, "rotary") != 0) {
        return cfg_fail(c, "position_embeddings_type", "'%s': ESPnet's relative positional encoding (linear_pos, "
                        "pos_bias_u and pos_bias_v) is not a family pecert certifies; \"rotary\" is",
                        type != NULL ? type->valuestring : "relative");
    }
    if (cfg_read_heads_or(c, "hidden_size", "num_attention_heads", NULL, 1024, 16) != 0 ||
        cfg_set_rotary_dim(c, 1.0, "hidden_size") != 0 ||
        cfg_read_num(c, c->root, "rotary_embedding_base", "rotary_embedding_base", 1.0 + 1e-9, 1e300, &base) < 0 ||
        cfg_read_int(c, c->root, "max_source_positions", "max_source_positions", 1, (int64_t)1 << 32,
                     &m->max_position_embeddings) < 0) {
        return -1;
    }
    r->struct_size = sizeof(*r);
    r->rope_theta = base;
    r->max_position_embeddings = m->max_position_embeddings;
    cfg_warn(c, "position_embeddings_type", "rotary: every layer turns its input hidden states before linear_q and "
             "linear_k (not q and k): certify checks the rotation, not where it sits; the conv module is not certified");
    return 0;
}

/* T5: relative_attention_num_buckets (32), _max_distance (128). MT5,
 * Switch Transformers and Pop2Piano copy T5's _relative_position_bucket
 * and its layer-0 bias; UMT5's is the same arithmetic (its log ratio
 * written in two steps, the same operations in the same order) with a bias
 * table in every layer (UMT5Block: has_relative_attention_bias=True),
 * which pecert does not see: warned. LongT5 and Pix2Struct's text decoder
 * copy T5's function and keys too; CPM-Ant's _position_bucket is T5's
 * bidirectional branch under keys of its own. What each adds around the
 * buckets is said by t5_variant_notes. */
static void t5_variant_notes(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    if (strcmp(m->model_type, "umt5") == 0) {
        cfg_warn(c, "relative_attention_num_buckets", "UMT5 gives every layer its own bias table: pecert certifies "
                 "the buckets, which every layer computes alike, not that each layer reads its own table");
    }
    /* LongT5's encoder (LongT5LocalAttention, or LongT5TransientGlobalAttention
     * with its side bias over global blocks) buckets the relative positions
     * of local windows local_radius wide; the decoder is T5's. */
    if (strcmp(m->model_type, "longt5") == 0) {
        cfg_warn(c, "encoder_attention_type", "LongT5's encoder buckets the positions of local windows (and "
                 "transient global blocks): certify checks T5's buckets and bias, not that window layout");
    }
    /* Pix2StructTextAttention: T5's buckets, causal; its vision encoder adds
     * learned row and column embeddings of each patch (Pix2StructVisionEmbeddings). */
    if (strcmp(m->model_type, "pix2struct") == 0) {
        snprintf(m->vision_note, sizeof(m->vision_note), "%s",
                 "Pix2Struct's vision encoder (learned row and column embeddings per patch) is not certified");
    }
    /* CpmAntSegmentPositionEmbedding: T5's bidirectional buckets between
     * tokens of one segment, a bucket per (query, key) segment pair between
     * segments, and the positions arange(keylen) - arange(querylen). */
    if (strcmp(m->model_type, "cpmant") == 0) {
        cfg_warn(c, "segment_types", "CPM-Ant gives tokens of different segments a bucket per segment pair: certify "
                 "checks T5's buckets within a segment, not those");
    }
}

/* Where a T5-bucket config class keeps T5's four fields, and its
 * defaults: T5Config's names, or CpmAntConfig's (num_attention_heads,
 * dim_head, position_bias_num_buckets 512, position_bias_max_distance
 * 2048). */
typedef struct t5_keys {
    const char *heads, *head_dim, *buckets, *max_distance;
    int32_t default_heads, default_head_dim, default_buckets;
    int64_t default_max_distance;
    const char *conv_key, *conv_groups_key; /* WavLM's convolutional positions: named */
} t5_keys;

static const t5_keys t5_config_keys = {"num_heads", "d_kv", "relative_attention_num_buckets",
                                       "relative_attention_max_distance", 0, 64, 32, 128, NULL, NULL};
static const t5_keys cpmant_config_keys = {"num_attention_heads", "dim_head", "position_bias_num_buckets",
                                           "position_bias_max_distance", 32, 128, 512, 2048, NULL, NULL};
/* WavLM: WavLMAttention._relative_positions_bucket is T5's bidirectional
 * branch (num_buckets halved per direction, log spacing from num_buckets /
 * 4 to max_distance) on memory - context, with the config's num_buckets
 * (320) and max_bucket_distance (800); head_dim has no key of its own. */
static const t5_keys wavlm_config_keys = {"num_attention_heads", "head_dim", "num_buckets", "max_bucket_distance",
                                          12, 64, 320, 800, "num_conv_pos_embeddings",
                                          "num_conv_pos_embedding_groups"};

/* n_positions: T5Config's maximum length in transformers 2 and 3, still in
 * released config.json files (t5-base's 512, LongT5's 4096); no class of
 * v4.57.6 reads it (the attention reads positions only as relative
 * buckets, with no length limit): said, not refused. */
static void note_t5_n_positions(map_ctx *c)
{
    const cJSON *n = cfg_get(c->root, "n_positions");
    if (n != NULL) {
        cfg_warn(c, "n_positions", "%g is read by nothing in transformers v4.57.6 (%s reads positions only as "
                 "relative buckets, with no length limit): a port that stops there does so on its own",
                 cJSON_IsNumber(n) ? n->valuedouble : 0.0, c->m->model_type);
    }
}

static int read_t5_buckets(map_ctx *c, const t5_keys *k, int32_t *d_kv)
{
    const char *const known[] = {k->buckets, k->max_distance, "n_positions",
                                 k->conv_key != NULL ? k->conv_key : "n_positions",
                                 k->conv_groups_key != NULL ? k->conv_groups_key : "n_positions", NULL};
    pecert_certify_model *m = c->m;
    m->num_heads = k->default_heads;
    *d_kv = k->default_head_dim;
    m->t5_num_buckets = k->default_buckets;
    m->t5_max_distance = k->default_max_distance;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_int32(c, c->root, k->heads, 1, 1 << 16, &m->num_heads) < 0 ||
        cfg_read_int32(c, c->root, k->head_dim, 1, 1 << 16, d_kv) < 0 ||
        cfg_read_int32(c, c->root, k->buckets, 4, 1 << 20, &m->t5_num_buckets) < 0 ||
        cfg_read_int(c, c->root, k->max_distance, k->max_distance, 1, (int64_t)1 << 40, &m->t5_max_distance) < 0) {
        return -1;
    }
    /* _relative_position_bucket: max_exact = num_buckets/2 (bidirectional
     * halves it again) must stay below max_distance for the log branch. */
    if (m->t5_max_distance <= m->t5_num_buckets / 2) {
        return cfg_fail(c, k->max_distance, "%lld must exceed num_buckets/2 = %d", (long long)m->t5_max_distance,
                        m->t5_num_buckets / 2);
    }
    return 0;
}

int cfg_map_t5(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    int32_t d_kv = 0;
    const t5_keys *keys = strcmp(m->model_type, "cpmant") == 0   ? &cpmant_config_keys
                          : strcmp(m->model_type, "wavlm") == 0 ? &wavlm_config_keys
                                                                : &t5_config_keys;
    if (read_t5_buckets(c, keys, &d_kv) != 0) {
        return -1;
    }
    if (strcmp(m->model_type, "wavlm") == 0) {
        cfg_warn(c, "num_buckets", "WavLM's first layer computes the bucketed bias and every layer gates it by its "
                 "query (gru_rel_pos); the convolutional position embedding is not certified: the buckets are");
    }
    t5_variant_notes(c);
    note_t5_n_positions(c);
    m->kind = PECERT_PE_T5;
    m->head_dim = d_kv;
    m->num_kv_heads = m->num_heads;
    return 0;
}

/* The ViT family: a learned table of (image_size / patch_size)^2 rows
 * after its class row (ViTEmbeddings, Dinov2Embeddings,
 * Dinov2WithRegistersEmbeddings: the registers take no position) or its
 * class and distillation rows (DeiTEmbeddings). The config classes'
 * patch_size defaults: 16, and Dinov2Config's 14. The resize of the
 * table to another image is the @vision pass's (certify_vision.c). */
/* SigLIP 2's table (no image_size): num_patches rows, a square of them
 * (certify_vision.c's rule resizes it to every image). */
static int map_patch_table(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    int32_t side = 0;
    static const char *const none[] = {NULL};
    if (cfg_reject_unknown_positional(c, c->root, none, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_read_patch_table(c, c->root, &side) != 0) {
        return -1;
    }
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = (int64_t)side * side;
    m->learned_dim = m->head_dim * m->num_heads;
    m->max_position_embeddings = m->learned_rows;
    return 0;
}

int cfg_map_vit(map_ctx *c)
{
    pecert_certify_model *m = c->m;
    const char *const *known = NULL;
    int32_t image, patch, prefix;
    int absolute = 1;
    if (cfg_vit_defaults(m->model_type, &image, &patch, &prefix, &known) != 0) {
        return cfg_fail(c, "model_type", "'%s' has no ViT-family rule in certify_vision.c", m->model_type);
    }
    if (image < 0) {
        return map_patch_table(c);
    }
    /* The tower rule's positional keys (certify_vision.c): InternVL's
     * use_absolute_position_embeddings, read here; none for the others. */
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 ||
        cfg_read_heads(c, "hidden_size", "num_attention_heads", NULL) != 0 ||
        cfg_read_side(c, c->root, "image_size", 1, 1 << 16, &image) < 0 ||
        cfg_read_side(c, c->root, "patch_size", 1, 1 << 16, &patch) < 0 ||
        cfg_read_bool(c, c->root, "use_absolute_position_embeddings", "use_absolute_position_embeddings",
                      &absolute) < 0) {
        return -1;
    }
    /* DPT: DPTViTHybridEmbeddings (is_hybrid: a BiT backbone's feature
     * map) and a backbone_config's own positions are other models. */
    int hybrid = 0;
    if (strcmp(m->model_type, "dpt") == 0 &&
        (cfg_read_bool(c, c->root, "is_hybrid", "is_hybrid", &hybrid) < 0 ||
         (hybrid && cfg_fail(c, "is_hybrid", "true: DPT-Hybrid's table is laid over its BiT backbone's feature "
                             "map (DPTViTHybridEmbeddings), which pecert does not map") != 0) ||
         ((cfg_get(c->root, "backbone_config") != NULL || cfg_get(c->root, "backbone") != NULL) &&
          cfg_fail(c, "backbone_config", "DPT on a backbone takes that backbone's positions, not its own "
                   "table: map the backbone's config") != 0))) {
        return -1;
    }
    /* InternVLVisionEmbeddings builds its table only with
     * use_absolute_position_embeddings (the default); without it the tower
     * has no positions at all. */
    if (!absolute) {
        return cfg_fail(c, "use_absolute_position_embeddings", "false: InternVL's vision tower then has no "
                        "position table and no other positions, nothing to certify");
    }
    /* The patch convolution floors: image_size // patch_size patches a side
     * (SigLIP so400m's 384 // 14 = 27), as the table's num_patches does. */
    if (image < patch) {
        return cfg_fail(c, "patch_size", "%d is larger than image_size %d: no patch fits", patch, image);
    }
    if (strcmp(m->model_type, "vit_mae") == 0) {
        cfg_warn(c, "mask_ratio", "random_masking keeps (1 - mask_ratio) of the patches after their rows are added, "
                 "and the decoder has a sincos table of its own: certify checks the table and its resize");
    }
    m->kind = PECERT_PE_LEARNED;
    m->learned_rows = (int64_t)(image / patch) * (image / patch) + prefix;
    m->learned_dim = m->head_dim * m->num_heads;
    m->max_position_embeddings = m->learned_rows;
    return 0;
}
