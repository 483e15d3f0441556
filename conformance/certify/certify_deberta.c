/*
 * certify_deberta.c - DeBERTa (deberta, v1) and DeBERTa-v2/v3 (deberta-v2)
 * checkpoints with relative_attention: each attention layer adds the
 * disentangled bias (plugin.h, pecert_deberta_args) of the terms its
 * pos_att_type names, over the relative positions the encoder builds
 * (transformers v4.57.6, 753d6110):
 *
 *   DebertaV2Config / DebertaConfig: pos_att_type a list, or a "|"-joined
 *     string the config lowercases and splits; relative_attention false
 *     (both classes' default) leaves the absolute table alone
 *     (certify_learned.c).
 *   DisentangledSelfAttention (modeling_deberta_v2.py): position_buckets
 *     (-1: none) and max_relative_positions (< 1: max_position_embeddings)
 *     give the encoder's build_relative_position(bucket_size,
 *     max_position); the tables have pos_ebd_size = position_buckets (> 0)
 *     or max_relative_positions rows a side; the head is
 *     attention_head_size or hidden_size / num_attention_heads.
 *   Deberta v1 (modeling_deberta.py): no buckets (position_buckets is not
 *     read), max_relative_positions as above; its table sliced around its
 *     middle is read at span max_relative_positions (plugin.h).
 *
 * position_biased_input true adds the absolute table as well: named, not
 * certified beside the bias. A pos_att_type with no term has no bias.
 */
#include "certify_reads.h"

#include <stdio.h>
#include <string.h>

/* pos_att_type: "c2p|p2c" or ["p2c", "c2p"], case-insensitive as the
 * config classes lowercase the string form. */
static int read_terms(map_ctx *c, uint32_t *terms)
{
    const cJSON *v = cfg_get(c->root, "pos_att_type");
    char text[64] = "";
    *terms = 0;
    if (cJSON_IsString(v)) {
        snprintf(text, sizeof(text), "%s", v->valuestring);
    } else if (cJSON_IsArray(v)) {
        const cJSON *e = NULL;
        cJSON_ArrayForEach(e, v) {
            if (!cJSON_IsString(e) || strlen(text) + strlen(e->valuestring) + 2 > sizeof(text)) {
                return cfg_fail(c, "pos_att_type", "expected a list of \"c2p\" and \"p2c\"");
            }
            strcat(text, e->valuestring);
            strcat(text, "|");
        }
    } else if (v != NULL) {
        return cfg_fail(c, "pos_att_type", "expected \"c2p|p2c\" or a list of \"c2p\" and \"p2c\"");
    }
    for (char *save = NULL, *tok = strtok_r(text, "|", &save); tok != NULL; tok = strtok_r(NULL, "|", &save)) {
        while (*tok == ' ') {
            tok++;
        }
        for (char *t = tok; *t != '\0'; t++) {
            *t = (char)(*t >= 'A' && *t <= 'Z' ? *t - 'A' + 'a' : *t);
        }
        size_t n = strcspn(tok, " ");
        if (n == 3 && strncmp(tok, "c2p", 3) == 0) {
            *terms |= PECERT_DEBERTA_C2P;
        } else if (n == 3 && strncmp(tok, "p2c", 3) == 0) {
            *terms |= PECERT_DEBERTA_P2C;
        } else if (n > 0) {
            return cfg_fail(c, "pos_att_type", "'%.*s': only c2p and p2c are terms transformers computes",
                            (int)n, tok);
        }
    }
    if (*terms == 0) {
        return cfg_fail(c, "pos_att_type", "no term (c2p, p2c): relative_attention then adds no bias, nothing "
                        "to certify");
    }
    return 0;
}

/* The head: attention_head_size where the config states it (v2), else
 * hidden_size / num_attention_heads. */
static int read_head(map_ctx *c, int v2)
{
    pecert_certify_model *m = c->m;
    int32_t head = 0;
    if (cfg_read_heads_or(c, "hidden_size", "num_attention_heads", NULL, v2 ? 1536 : 768, v2 ? 24 : 12) != 0 ||
        (v2 && cfg_read_int32(c, c->root, "attention_head_size", 1, 1 << 16, &head) < 0)) {
        return -1;
    }
    if (head > 0) {
        m->head_dim = head;
    }
    return 0;
}

static int map_relative(map_ctx *c, int v2)
{
    static const char *const known[] = {"relative_attention", "position_biased_input", "max_relative_positions",
                                        "position_buckets", "max_position_embeddings", NULL};
    pecert_certify_model *m = c->m;
    int biased = 1;
    int64_t max_rel = -1;
    m->max_position_embeddings = 512;
    m->deberta_bucket_size = -1;
    if (cfg_reject_unknown_positional(c, c->root, known, "") != 0 || read_head(c, v2) != 0 ||
        read_terms(c, &m->deberta_terms) != 0 ||
        cfg_read_bool(c, c->root, "position_biased_input", "position_biased_input", &biased) < 0 ||
        cfg_read_int(c, c->root, "max_position_embeddings", "max_position_embeddings", 2, (int64_t)1 << 24,
                     &m->max_position_embeddings) < 0 ||
        cfg_read_int(c, c->root, "max_relative_positions", "max_relative_positions", -((int64_t)1 << 24),
                     (int64_t)1 << 24, &max_rel) < 0 ||
        (v2 && cfg_read_int(c, c->root, "position_buckets", "position_buckets", -((int64_t)1 << 24),
                            (int64_t)1 << 16, &m->deberta_bucket_size) < 0)) {
        return -1;
    }
    m->deberta_max_position = max_rel < 1 ? m->max_position_embeddings : max_rel;
    if (m->deberta_bucket_size <= 0) {
        m->deberta_bucket_size = -1;
    } else if (m->deberta_bucket_size % 2 != 0 || m->deberta_max_position - 1 <= m->deberta_bucket_size / 2 ||
               m->deberta_max_position < 2) {
        return cfg_fail(c, "position_buckets", "%lld: the log buckets need an even count whose half is below "
                        "max_relative_positions - 1 (%lld)", (long long)m->deberta_bucket_size,
                        (long long)m->deberta_max_position - 1);
    }
    if (!v2 && cfg_get(c->root, "position_buckets") != NULL) {
        cfg_warn(c, "position_buckets", "DeBERTa v1's attention does not read it: no buckets");
    }
    if (biased) {
        cfg_warn(c, "position_biased_input", "true: the embeddings add the absolute table (%lld rows) too, which "
                 "certify does not check beside the relative bias", (long long)m->max_position_embeddings);
    }
    m->kind = PECERT_PE_DEBERTA;
    return 0;
}

int cfg_map_deberta(map_ctx *c)
{
    int relative = 0;
    if (cfg_read_bool(c, c->root, "relative_attention", "relative_attention", &relative) < 0) {
        return -1;
    }
    return relative ? map_relative(c, strcmp(c->m->model_type, "deberta-v2") == 0) : cfg_map_learned_text(c);
}
