/*
 * engine_proxy.c - one proxy per operation of pecert_plugin, written once:
 * each copies its arguments into a call's frame, names every pointer they
 * hold (a struct, an input, an output) with the bytes it reaches as
 * plugin.h defines them, and runs the call (engine_call.c). The checks call
 * these exactly as they called a plugin's own functions.
 */
#include <stdlib.h>
#include <string.h>

#include "engine_proxy.h"

#define IN  0
#define OUT 1

/* A count the ABI gives as int64, as bytes of elements of size esize: 0
 * for a negative one (the plugin must refuse it, and reads nothing). */
static size_t count_bytes(int64_t n, size_t esize)
{
    return n > 0 && (uint64_t)n <= ((uint64_t)1 << 40) / esize ? (size_t)n * esize : 0;
}

/* Rows of a [rows, ...] tensor, 0 for a view without one. */
static int64_t rows_of(const pecert_tensor *t)
{
    return t != NULL && t->ndim >= 1 && t->ndim <= PECERT_MAX_DIMS ? t->shape[0] : 0;
}

static void put_config(engine_call *c, size_t slot, const pecert_rope_config *cfg)
{
    size_t at = engine_struct(c, slot, cfg, sizeof(*cfg));
    if (at == (size_t)-1) {
        return;
    }
    size_t factors = count_bytes(cfg->num_factors, sizeof(double));
    engine_data(c, at + offsetof(pecert_rope_config, short_factor), cfg->short_factor, factors, IN,
                "config.short_factor");
    engine_data(c, at + offsetof(pecert_rope_config, long_factor), cfg->long_factor, factors, IN, "config.long_factor");
}

static engine_instance *inst(void *instance)
{
    return instance;
}

#define BEGIN(OP, NAME)                                                                                                \
    engine_instance *ei = inst(instance);                                                                              \
    engine_call call;                                                                                                  \
    engine_call *c = &call;                                                                                            \
    engine_call_begin(c, ei->e, OP, NAME)

/* A family operation's argument struct at the frame's start. */
#define ARGS(type)        engine_frame(c, a, sizeof(type))
#define SLOT(type, field) (at + offsetof(type, field))

static pecert_status run(engine_call *c, const engine_instance *ei, uint32_t session)
{
    return engine_call_run(c, ei->handle, session).status;
}

/* ---- RoPE (ABI 1.0) ------------------------------------------------------ */

static pecert_status proxy_rope_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                      const pecert_rope_config *config, int64_t seq_len)
{
    BEGIN(PECERT_WIRE_OP_ROPE_FREQS, "rope_freqs");
    pecert_wire_frame_rope_freqs f = {NULL, NULL, NULL, seq_len};
    size_t at = engine_frame(c, &f, sizeof(f));
    int64_t n = config != NULL ? config->rotary_dim / 2 : 0;
    engine_data(c, SLOT(pecert_wire_frame_rope_freqs, out_inv_freq), out_inv_freq, count_bytes(n, sizeof(double)), OUT,
                "out_inv_freq");
    engine_data(c, SLOT(pecert_wire_frame_rope_freqs, out_attention_scaling), out_scaling, sizeof(double), OUT,
                "out_attention_scaling");
    put_config(c, SLOT(pecert_wire_frame_rope_freqs, config), config);
    return run(c, ei, 0);
}

static pecert_status proxy_rope_cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                                        const pecert_rope_config *config, int64_t seq_len, const int64_t *positions,
                                        int64_t n_positions)
{
    BEGIN(PECERT_WIRE_OP_ROPE_COS_SIN, "rope_cos_sin");
    pecert_wire_frame_rope_cos_sin f = {NULL, NULL, NULL, seq_len, NULL, n_positions};
    size_t at = engine_frame(c, &f, sizeof(f));
    engine_tensor(c, SLOT(pecert_wire_frame_rope_cos_sin, out_cos), out_cos, OUT, "out_cos");
    engine_tensor(c, SLOT(pecert_wire_frame_rope_cos_sin, out_sin), out_sin, OUT, "out_sin");
    put_config(c, SLOT(pecert_wire_frame_rope_cos_sin, config), config);
    engine_data(c, SLOT(pecert_wire_frame_rope_cos_sin, positions), positions,
                count_bytes(n_positions, sizeof(int64_t)), IN, "positions");
    return run(c, ei, 0);
}

static pecert_status proxy_rope_apply(void *instance, const pecert_rope_apply_args *a)
{
    BEGIN(PECERT_WIRE_OP_ROPE_APPLY, "rope_apply");
    size_t at = ARGS(pecert_rope_apply_args);
    put_config(c, SLOT(pecert_rope_apply_args, config), a->config);
    engine_data(c, SLOT(pecert_rope_apply_args, positions), a->positions, count_bytes(rows_of(a->x), sizeof(int64_t)),
                IN, "positions");
    engine_tensor(c, SLOT(pecert_rope_apply_args, x), a->x, IN, "x");
    engine_tensor(c, SLOT(pecert_rope_apply_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

/* ---- instance-wide (ABI 1.1) ---------------------------------------------- */

static pecert_status proxy_set_num_threads(void *instance, int32_t n)
{
    BEGIN(PECERT_WIRE_OP_SET_NUM_THREADS, "set_num_threads");
    pecert_wire_frame_threads f = {n, 0};
    (void)engine_frame(c, &f, sizeof(f));
    return run(c, ei, 0);
}

/* The reply's text as the plugin's function returned it: NULL or a
 * string valid until the next call (it lives in the engine). */
static const char *reply_text(const pecert_engine *e)
{
    return e->reply_text_null ? NULL : e->reply_text;
}

static const char *proxy_describe(void *instance)
{
    BEGIN(PECERT_WIRE_OP_DESCRIBE, "describe");
    (void)run(c, ei, 0);
    return reply_text(ei->e);
}

/* last_error after a failed call came with its reply; any other time it
 * is asked for. */
static const char *proxy_last_error(void *instance)
{
    engine_instance *ei = inst(instance);
    if (ei->e->error_text_valid) {
        return reply_text(ei->e);
    }
    engine_call call;
    engine_call_begin(&call, ei->e, PECERT_WIRE_OP_LAST_ERROR, "last_error");
    (void)run(&call, ei, 0);
    return reply_text(ei->e);
}

/* ---- the decode session (ABI 1.2) -------------------------------------- */

/* A session is the host's handle, never a pointer of the host's. */
static uint32_t session_handle(const void *session)
{
    return (uint32_t)(uintptr_t)session;
}

static pecert_status proxy_session_create(void *instance, void **out_session, const pecert_session_config *config)
{
    BEGIN(PECERT_WIRE_OP_SESSION_CREATE, "session_create");
    pecert_wire_frame_session_create f = {NULL};
    size_t at = engine_frame(c, &f, sizeof(f));
    size_t cfg = engine_struct(c, SLOT(pecert_wire_frame_session_create, config), config, sizeof(*config));
    if (cfg != (size_t)-1) {
        put_config(c, cfg + offsetof(pecert_session_config, rope), config->rope);
    }
    engine_reply r = engine_call_run(c, ei->handle, 0);
    if (r.status == PECERT_OK && out_session != NULL) {
        *out_session = (void *)(uintptr_t)r.handle;
    }
    return r.status;
}

static void proxy_session_destroy(void *instance, void *session)
{
    BEGIN(PECERT_WIRE_OP_SESSION_DESTROY, "session_destroy");
    (void)run(c, ei, session_handle(session));
}

static pecert_status proxy_session_append(void *instance, void *session, const pecert_session_append_args *a)
{
    BEGIN(PECERT_WIRE_OP_SESSION_APPEND, "session_append");
    size_t at = ARGS(pecert_session_append_args);
    int64_t n = a->n_tokens;
    engine_data(c, SLOT(pecert_session_append_args, positions), a->positions, count_bytes(n, sizeof(int64_t)), IN,
                "positions");
    engine_data(c, SLOT(pecert_session_append_args, seq_ids), a->seq_ids, count_bytes(n, sizeof(int32_t)), IN,
                "seq_ids");
    engine_data(c, SLOT(pecert_session_append_args, valid), a->valid, count_bytes(n, sizeof(uint8_t)), IN, "valid");
    engine_tensor(c, SLOT(pecert_session_append_args, q), a->q, IN, "q");
    engine_tensor(c, SLOT(pecert_session_append_args, k), a->k, IN, "k");
    engine_tensor(c, SLOT(pecert_session_append_args, v), a->v, IN, "v");
    engine_tensor(c, SLOT(pecert_session_append_args, out), a->out, OUT, "out");
    return run(c, ei, session_handle(session));
}

static pecert_status proxy_session_read_keys(void *instance, void *session, pecert_tensor *out_keys, int32_t seq)
{
    BEGIN(PECERT_WIRE_OP_SESSION_READ_KEYS, "session_read_keys");
    pecert_wire_frame_read_keys f = {NULL, seq, 0};
    size_t at = engine_frame(c, &f, sizeof(f));
    engine_tensor(c, SLOT(pecert_wire_frame_read_keys, out_keys), out_keys, OUT, "out_keys");
    return run(c, ei, session_handle(session));
}

/* ---- the other families (ABI 1.2 and later) ------------------------------ */

static pecert_status proxy_alibi_slopes(void *instance, const pecert_alibi_slopes_args *a)
{
    BEGIN(PECERT_WIRE_OP_ALIBI_SLOPES, "alibi_slopes");
    size_t at = ARGS(pecert_alibi_slopes_args);
    engine_tensor(c, SLOT(pecert_alibi_slopes_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_alibi_bias(void *instance, const pecert_alibi_bias_args *a)
{
    BEGIN(PECERT_WIRE_OP_ALIBI_BIAS, "alibi_bias");
    size_t at = ARGS(pecert_alibi_bias_args);
    engine_data(c, SLOT(pecert_alibi_bias_args, q_positions), a->q_positions, count_bytes(a->n_q, sizeof(int64_t)), IN,
                "q_positions");
    engine_data(c, SLOT(pecert_alibi_bias_args, k_positions), a->k_positions, count_bytes(a->n_k, sizeof(int64_t)), IN,
                "k_positions");
    engine_tensor(c, SLOT(pecert_alibi_bias_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_t5_bucket(void *instance, const pecert_t5_bucket_args *a)
{
    BEGIN(PECERT_WIRE_OP_T5_BUCKET, "t5_bucket");
    size_t at = ARGS(pecert_t5_bucket_args);
    engine_data(c, SLOT(pecert_t5_bucket_args, relative_positions), a->relative_positions,
                count_bytes(a->n, sizeof(int64_t)), IN, "relative_positions");
    engine_tensor(c, SLOT(pecert_t5_bucket_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_sinusoidal(void *instance, const pecert_sinusoidal_args *a)
{
    BEGIN(PECERT_WIRE_OP_SINUSOIDAL, "sinusoidal");
    size_t at = ARGS(pecert_sinusoidal_args);
    engine_data(c, SLOT(pecert_sinusoidal_args, positions), a->positions, count_bytes(a->n, sizeof(int64_t)), IN,
                "positions");
    engine_tensor(c, SLOT(pecert_sinusoidal_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_learned_lookup(void *instance, const pecert_learned_args *a)
{
    BEGIN(PECERT_WIRE_OP_LEARNED_LOOKUP, "learned_lookup");
    size_t at = ARGS(pecert_learned_args);
    engine_tensor(c, SLOT(pecert_learned_args, table), a->table, IN, "table");
    engine_data(c, SLOT(pecert_learned_args, positions), a->positions, count_bytes(a->n, sizeof(int64_t)), IN,
                "positions");
    engine_tensor(c, SLOT(pecert_learned_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_sincos_2d(void *instance, const pecert_sincos2d_args *a)
{
    BEGIN(PECERT_WIRE_OP_SINCOS_2D, "sincos_2d");
    size_t at = ARGS(pecert_sincos2d_args);
    engine_tensor(c, SLOT(pecert_sincos2d_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_swin_index(void *instance, const pecert_swin_index_args *a)
{
    BEGIN(PECERT_WIRE_OP_SWIN_INDEX, "swin_index");
    size_t at = ARGS(pecert_swin_index_args);
    engine_tensor(c, SLOT(pecert_swin_index_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_shaw_index(void *instance, const pecert_shaw_index_args *a)
{
    BEGIN(PECERT_WIRE_OP_SHAW_INDEX, "shaw_index");
    size_t at = ARGS(pecert_shaw_index_args);
    engine_data(c, SLOT(pecert_shaw_index_args, q_positions), a->q_positions, count_bytes(a->n_q, sizeof(int64_t)), IN,
                "q_positions");
    engine_data(c, SLOT(pecert_shaw_index_args, k_positions), a->k_positions, count_bytes(a->n_k, sizeof(int64_t)), IN,
                "k_positions");
    engine_tensor(c, SLOT(pecert_shaw_index_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_txl_pos_emb(void *instance, const pecert_txl_pos_emb_args *a)
{
    BEGIN(PECERT_WIRE_OP_TXL_POS_EMB, "txl_pos_emb");
    size_t at = ARGS(pecert_txl_pos_emb_args);
    engine_tensor(c, SLOT(pecert_txl_pos_emb_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_txl_rel_shift(void *instance, const pecert_txl_rel_shift_args *a)
{
    BEGIN(PECERT_WIRE_OP_TXL_REL_SHIFT, "txl_rel_shift");
    size_t at = ARGS(pecert_txl_rel_shift_args);
    engine_tensor(c, SLOT(pecert_txl_rel_shift_args, x), a->x, IN, "x");
    engine_tensor(c, SLOT(pecert_txl_rel_shift_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

/* batch * seq_len elements of eight bytes, 0 when it overflows. */
static size_t grid_bytes(int64_t a, int64_t b)
{
    int64_t n;
    return a > 0 && b > 0 && !__builtin_mul_overflow(a, b, &n) ? count_bytes(n, sizeof(int64_t)) : 0;
}

static pecert_status proxy_mrope_index(void *instance, const pecert_mrope_index_args *a)
{
    BEGIN(PECERT_WIRE_OP_MROPE_INDEX, "mrope_index");
    size_t at = ARGS(pecert_mrope_index_args);
    engine_data(c, SLOT(pecert_mrope_index_args, input_ids), a->input_ids, grid_bytes(a->batch, a->seq_len), IN,
                "input_ids");
    engine_data(c, SLOT(pecert_mrope_index_args, attention_mask), a->attention_mask, grid_bytes(a->batch, a->seq_len),
                IN, "attention_mask");
    engine_data(c, SLOT(pecert_mrope_index_args, image_grid_thw), a->image_grid_thw, grid_bytes(a->n_images, 3), IN,
                "image_grid_thw");
    engine_data(c, SLOT(pecert_mrope_index_args, video_grid_thw), a->video_grid_thw, grid_bytes(a->n_videos, 3), IN,
                "video_grid_thw");
    engine_tensor(c, SLOT(pecert_mrope_index_args, out_position_ids), a->out_position_ids, OUT, "out_position_ids");
    engine_tensor(c, SLOT(pecert_mrope_index_args, out_deltas), a->out_deltas, OUT, "out_deltas");
    return run(c, ei, 0);
}

static pecert_status proxy_mrope_apply(void *instance, const pecert_mrope_apply_args *a)
{
    BEGIN(PECERT_WIRE_OP_MROPE_APPLY, "mrope_apply");
    size_t at = ARGS(pecert_mrope_apply_args);
    int64_t axes = a->num_axes >= 1 && a->num_axes <= PECERT_MROPE_MAX_AXES ? a->num_axes : 0;
    put_config(c, SLOT(pecert_mrope_apply_args, config), a->config);
    engine_data(c, SLOT(pecert_mrope_apply_args, positions), a->positions, grid_bytes(axes, rows_of(a->x)), IN,
                "positions");
    engine_tensor(c, SLOT(pecert_mrope_apply_args, x), a->x, IN, "x");
    engine_tensor(c, SLOT(pecert_mrope_apply_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_rope2d_index(void *instance, const pecert_rope2d_index_args *a)
{
    BEGIN(PECERT_WIRE_OP_ROPE2D_INDEX, "rope2d_index");
    size_t at = ARGS(pecert_rope2d_index_args);
    engine_data(c, SLOT(pecert_rope2d_index_args, grid_thw), a->grid_thw, grid_bytes(a->n_images, 3), IN, "grid_thw");
    engine_tensor(c, SLOT(pecert_rope2d_index_args, out_positions), a->out_positions, OUT, "out_positions");
    return run(c, ei, 0);
}

static pecert_status proxy_rope2d_apply(void *instance, const pecert_rope2d_apply_args *a)
{
    BEGIN(PECERT_WIRE_OP_ROPE2D_APPLY, "rope2d_apply");
    size_t at = ARGS(pecert_rope2d_apply_args);
    engine_data(c, SLOT(pecert_rope2d_apply_args, positions), a->positions, grid_bytes(2, rows_of(a->x)), IN,
                "positions");
    engine_tensor(c, SLOT(pecert_rope2d_apply_args, x), a->x, IN, "x");
    engine_tensor(c, SLOT(pecert_rope2d_apply_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_pos_interpolate(void *instance, const pecert_posinterp_args *a)
{
    BEGIN(PECERT_WIRE_OP_POS_INTERPOLATE, "pos_interpolate");
    size_t at = ARGS(pecert_posinterp_args);
    engine_tensor(c, SLOT(pecert_posinterp_args, table), a->table, IN, "table");
    engine_tensor(c, SLOT(pecert_posinterp_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_cope_logits(void *instance, const pecert_cope_args *a)
{
    BEGIN(PECERT_WIRE_OP_COPE_LOGITS, "cope_logits");
    size_t at = ARGS(pecert_cope_args);
    engine_tensor(c, SLOT(pecert_cope_args, q), a->q, IN, "q");
    engine_tensor(c, SLOT(pecert_cope_args, k), a->k, IN, "k");
    engine_tensor(c, SLOT(pecert_cope_args, gate_k), a->gate_k, IN, "gate_k");
    engine_tensor(c, SLOT(pecert_cope_args, pos_emb), a->pos_emb, IN, "pos_emb");
    engine_tensor(c, SLOT(pecert_cope_args, mask), a->mask, IN, "mask");
    engine_tensor(c, SLOT(pecert_cope_args, positions), a->positions, OUT, "positions");
    engine_tensor(c, SLOT(pecert_cope_args, logits), a->logits, OUT, "logits");
    return run(c, ei, 0);
}

static pecert_status proxy_peg_apply(void *instance, const pecert_peg_args *a)
{
    BEGIN(PECERT_WIRE_OP_PEG_APPLY, "peg_apply");
    size_t at = ARGS(pecert_peg_args);
    engine_tensor(c, SLOT(pecert_peg_args, x), a->x, IN, "x");
    engine_tensor(c, SLOT(pecert_peg_args, weight), a->weight, IN, "weight");
    engine_tensor(c, SLOT(pecert_peg_args, bias), a->bias, IN, "bias");
    engine_tensor(c, SLOT(pecert_peg_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_sine2d(void *instance, const pecert_sine2d_args *a)
{
    BEGIN(PECERT_WIRE_OP_SINE2D, "sine2d");
    size_t at = ARGS(pecert_sine2d_args);
    engine_tensor(c, SLOT(pecert_sine2d_args, mask), a->mask, IN, "mask");
    engine_tensor(c, SLOT(pecert_sine2d_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_relpos2d_bias(void *instance, const pecert_relpos2d_args *a)
{
    BEGIN(PECERT_WIRE_OP_RELPOS2D_BIAS, "relpos2d_bias");
    size_t at = ARGS(pecert_relpos2d_args);
    engine_tensor(c, SLOT(pecert_relpos2d_args, query), a->query, IN, "query");
    engine_tensor(c, SLOT(pecert_relpos2d_args, rel_pos_h), a->rel_pos_h, IN, "rel_pos_h");
    engine_tensor(c, SLOT(pecert_relpos2d_args, rel_pos_w), a->rel_pos_w, IN, "rel_pos_w");
    engine_tensor(c, SLOT(pecert_relpos2d_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

static pecert_status proxy_deberta_bias(void *instance, const pecert_deberta_args *a)
{
    BEGIN(PECERT_WIRE_OP_DEBERTA_BIAS, "deberta_bias");
    size_t at = ARGS(pecert_deberta_args);
    engine_tensor(c, SLOT(pecert_deberta_args, q), a->q, IN, "q");
    engine_tensor(c, SLOT(pecert_deberta_args, k), a->k, IN, "k");
    engine_tensor(c, SLOT(pecert_deberta_args, pos_key), a->pos_key, IN, "pos_key");
    engine_tensor(c, SLOT(pecert_deberta_args, pos_query), a->pos_query, IN, "pos_query");
    engine_tensor(c, SLOT(pecert_deberta_args, out), a->out, OUT, "out");
    return run(c, ei, 0);
}

/* ---- instances ------------------------------------------------------------ */

static int has(const pecert_engine *e, pecert_wire_op op)
{
    return (int)(e->op_mask >> op & 1u);
}

/* create and destroy are never called through the descriptor: an
 * instance needs its engine, which pecert_plugin_instance hands here. */
static pecert_status proxy_create(void **out_instance)
{
    *out_instance = NULL;
    return PECERT_E_INTERNAL;
}

static void proxy_destroy(void *instance)
{
    (void)instance;
}

pecert_status pecert_engine_instance(pecert_engine *e, void **out)
{
    *out = NULL;
    engine_instance *ei = calloc(1, sizeof(*ei));
    if (ei == NULL) {
        return PECERT_E_NOMEM;
    }
    ei->e = e;
    engine_connect(e);
    if (has(e, PECERT_WIRE_OP_CREATE)) {
        engine_call call;
        engine_call_begin(&call, e, PECERT_WIRE_OP_CREATE, "create");
        engine_reply r = engine_call_run(&call, 0, 0);
        if (r.status != PECERT_OK || r.handle == 0) {
            free(ei);
            return r.status != PECERT_OK ? r.status : PECERT_E_NOMEM;
        }
        ei->handle = r.handle;
    }
    *out = ei;
    return PECERT_OK;
}

void pecert_engine_release(pecert_engine *e, void *instance)
{
    engine_instance *ei = instance;
    if (ei == NULL) {
        return;
    }
    if (has(e, PECERT_WIRE_OP_DESTROY) && ei->handle != 0) {
        engine_call call;
        engine_call_begin(&call, e, PECERT_WIRE_OP_DESTROY, "destroy");
        (void)engine_call_run(&call, ei->handle, 0);
    }
    free(ei);
}

pecert_engine *pecert_engine_of(const pecert_plugin *desc)
{
    if (desc == NULL || desc->last_error != proxy_last_error || desc->id == NULL) {
        return NULL;
    }
    /* The id string lives in its engine, whatever copy of the descriptor
     * (the scope guard's) carries it. */
    return (pecert_engine *)(uintptr_t)(desc->id - offsetof(pecert_engine, text));
}

/* ---- the descriptor ------------------------------------------------------- */

#define PROXY(OP, field, fn)                                                                                           \
    if (has(e, OP)) {                                                                                                  \
        d->field = fn;                                                                                                 \
    }

void engine_proxies_fill(pecert_engine *e, uint32_t abi_version, uint32_t struct_size)
{
    pecert_plugin *d = &e->desc;
    memset(d, 0, sizeof(*d));
    d->abi_version = abi_version;
    d->struct_size = struct_size;
    d->id = (e->hello_present & PECERT_WIRE_HAS_ID) ? e->text[0] : NULL;
    d->name = (e->hello_present & PECERT_WIRE_HAS_NAME) ? e->text[1] : NULL;
    d->version = (e->hello_present & PECERT_WIRE_HAS_VERSION) ? e->text[2] : NULL;
    d->vendor = (e->hello_present & PECERT_WIRE_HAS_VENDOR) ? e->text[3] : NULL;
    d->capabilities = e->caps;
    d->scope = (e->hello_present & PECERT_WIRE_HAS_SCOPE) ? &e->scope : NULL;
    PROXY(PECERT_WIRE_OP_CREATE, create, proxy_create)
    PROXY(PECERT_WIRE_OP_DESTROY, destroy, proxy_destroy)
    PROXY(PECERT_WIRE_OP_LAST_ERROR, last_error, proxy_last_error)
    PROXY(PECERT_WIRE_OP_ROPE_FREQS, rope_freqs, proxy_rope_freqs)
    PROXY(PECERT_WIRE_OP_ROPE_COS_SIN, rope_cos_sin, proxy_rope_cos_sin)
    PROXY(PECERT_WIRE_OP_ROPE_APPLY, rope_apply, proxy_rope_apply)
    PROXY(PECERT_WIRE_OP_SET_NUM_THREADS, set_num_threads, proxy_set_num_threads)
    PROXY(PECERT_WIRE_OP_DESCRIBE, describe, proxy_describe)
    PROXY(PECERT_WIRE_OP_SESSION_CREATE, session_create, proxy_session_create)
    PROXY(PECERT_WIRE_OP_SESSION_DESTROY, session_destroy, proxy_session_destroy)
    PROXY(PECERT_WIRE_OP_SESSION_APPEND, session_append, proxy_session_append)
    PROXY(PECERT_WIRE_OP_SESSION_READ_KEYS, session_read_keys, proxy_session_read_keys)
    PROXY(PECERT_WIRE_OP_ALIBI_SLOPES, alibi_slopes, proxy_alibi_slopes)
    PROXY(PECERT_WIRE_OP_ALIBI_BIAS, alibi_bias, proxy_alibi_bias)
    PROXY(PECERT_WIRE_OP_T5_BUCKET, t5_bucket, proxy_t5_bucket)
    PROXY(PECERT_WIRE_OP_SINUSOIDAL, sinusoidal, proxy_sinusoidal)
    PROXY(PECERT_WIRE_OP_LEARNED_LOOKUP, learned_lookup, proxy_learned_lookup)
    PROXY(PECERT_WIRE_OP_SINCOS_2D, sincos_2d, proxy_sincos_2d)
    PROXY(PECERT_WIRE_OP_SWIN_INDEX, swin_index, proxy_swin_index)
    PROXY(PECERT_WIRE_OP_SHAW_INDEX, shaw_index, proxy_shaw_index)
    PROXY(PECERT_WIRE_OP_TXL_POS_EMB, txl_pos_emb, proxy_txl_pos_emb)
    PROXY(PECERT_WIRE_OP_TXL_REL_SHIFT, txl_rel_shift, proxy_txl_rel_shift)
    PROXY(PECERT_WIRE_OP_MROPE_INDEX, mrope_index, proxy_mrope_index)
    PROXY(PECERT_WIRE_OP_MROPE_APPLY, mrope_apply, proxy_mrope_apply)
    PROXY(PECERT_WIRE_OP_ROPE2D_INDEX, rope2d_index, proxy_rope2d_index)
    PROXY(PECERT_WIRE_OP_ROPE2D_APPLY, rope2d_apply, proxy_rope2d_apply)
    PROXY(PECERT_WIRE_OP_POS_INTERPOLATE, pos_interpolate, proxy_pos_interpolate)
    PROXY(PECERT_WIRE_OP_COPE_LOGITS, cope_logits, proxy_cope_logits)
    PROXY(PECERT_WIRE_OP_PEG_APPLY, peg_apply, proxy_peg_apply)
    PROXY(PECERT_WIRE_OP_SINE2D, sine2d, proxy_sine2d)
    PROXY(PECERT_WIRE_OP_RELPOS2D_BIAS, relpos2d_bias, proxy_relpos2d_bias)
    PROXY(PECERT_WIRE_OP_DEBERTA_BIAS, deberta_bias, proxy_deberta_bias)
}
