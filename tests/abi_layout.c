/*
 * abi_layout.c - freezes the ABI v1 layout. Fields may only be appended:
 * if one of these fails, a field moved, and every plugin built against the
 * old header would read garbage. Bump PECERT_ABI_MAJOR instead (and then
 * regenerate these lines), or append the field at the end.
 *
 * Values recorded on x86-64 Linux (LP64), the platform pecert supports.
 */
#include <stddef.h>

#include "pecert/plugin.h"
#include "pecert/wire.h"

#if defined(__x86_64__) && defined(__LP64__)
_Static_assert(sizeof(pecert_tensor) == 152, "ABI v1 layout: sizeof pecert_tensor");
_Static_assert(offsetof(pecert_tensor, dtype) == 4, "ABI v1 layout: pecert_tensor.dtype");
_Static_assert(offsetof(pecert_tensor, ndim) == 8, "ABI v1 layout: pecert_tensor.ndim");
_Static_assert(offsetof(pecert_tensor, data) == 16, "ABI v1 layout: pecert_tensor.data");
_Static_assert(offsetof(pecert_tensor, shape) == 24, "ABI v1 layout: pecert_tensor.shape");
_Static_assert(offsetof(pecert_tensor, strides) == 88, "ABI v1 layout: pecert_tensor.strides");
_Static_assert(sizeof(pecert_rope_config) == 200, "ABI v1 layout: sizeof pecert_rope_config");
_Static_assert(offsetof(pecert_rope_config, rope_type) == 4, "ABI v1 layout: pecert_rope_config.rope_type");
_Static_assert(offsetof(pecert_rope_config, present) == 8, "ABI v1 layout: pecert_rope_config.present");
_Static_assert(offsetof(pecert_rope_config, head_dim) == 12, "ABI v1 layout: pecert_rope_config.head_dim");
_Static_assert(offsetof(pecert_rope_config, rotary_dim) == 16, "ABI v1 layout: pecert_rope_config.rotary_dim");
_Static_assert(offsetof(pecert_rope_config, truncate) == 20, "ABI v1 layout: pecert_rope_config.truncate");
_Static_assert(offsetof(pecert_rope_config, rope_theta) == 24, "ABI v1 layout: pecert_rope_config.rope_theta");
_Static_assert(offsetof(pecert_rope_config, factor) == 32, "ABI v1 layout: pecert_rope_config.factor");
_Static_assert(offsetof(pecert_rope_config, max_position_embeddings) == 40, "ABI v1 layout: pecert_rope_config.max_position_embeddings");
_Static_assert(offsetof(pecert_rope_config, original_max_position_embeddings) == 48, "ABI v1 layout: pecert_rope_config.original_max_position_embeddings");
_Static_assert(offsetof(pecert_rope_config, attention_factor) == 56, "ABI v1 layout: pecert_rope_config.attention_factor");
_Static_assert(offsetof(pecert_rope_config, high_freq_factor) == 104, "ABI v1 layout: pecert_rope_config.high_freq_factor");
_Static_assert(offsetof(pecert_rope_config, num_factors) == 112, "ABI v1 layout: pecert_rope_config.num_factors");
_Static_assert(offsetof(pecert_rope_config, short_factor) == 120, "ABI v1 layout: pecert_rope_config.short_factor");
_Static_assert(offsetof(pecert_rope_config, long_factor) == 128, "ABI v1 layout: pecert_rope_config.long_factor");
/* ABI 1.4: layer_kind and reserved1 took the first reserved word (136). */
_Static_assert(offsetof(pecert_rope_config, layer_kind) == 136, "ABI 1.4 layout: pecert_rope_config.layer_kind");
_Static_assert(offsetof(pecert_rope_config, reserved1) == 140, "ABI 1.4 layout: pecert_rope_config.reserved1");
_Static_assert(offsetof(pecert_rope_config, reserved) == 144, "ABI 1.4 layout: pecert_rope_config.reserved");
_Static_assert(sizeof(pecert_rope_apply_args) == 112, "ABI v1 layout: sizeof pecert_rope_apply_args");
_Static_assert(offsetof(pecert_rope_apply_args, pairing) == 4, "ABI v1 layout: pecert_rope_apply_args.pairing");
_Static_assert(offsetof(pecert_rope_apply_args, config) == 8, "ABI v1 layout: pecert_rope_apply_args.config");
_Static_assert(offsetof(pecert_rope_apply_args, seq_len) == 16, "ABI v1 layout: pecert_rope_apply_args.seq_len");
_Static_assert(offsetof(pecert_rope_apply_args, positions) == 24, "ABI v1 layout: pecert_rope_apply_args.positions");
_Static_assert(offsetof(pecert_rope_apply_args, x) == 32, "ABI v1 layout: pecert_rope_apply_args.x");
_Static_assert(offsetof(pecert_rope_apply_args, out) == 40, "ABI v1 layout: pecert_rope_apply_args.out");
_Static_assert(offsetof(pecert_rope_apply_args, reserved) == 48, "ABI v1 layout: pecert_rope_apply_args.reserved");
_Static_assert(offsetof(pecert_plugin, struct_size) == 4, "ABI v1 layout: pecert_plugin.struct_size");
_Static_assert(offsetof(pecert_plugin, id) == 8, "ABI v1 layout: pecert_plugin.id");
_Static_assert(offsetof(pecert_plugin, capabilities) == 40, "ABI v1 layout: pecert_plugin.capabilities");
_Static_assert(offsetof(pecert_plugin, create) == 48, "ABI v1 layout: pecert_plugin.create");
_Static_assert(offsetof(pecert_plugin, destroy) == 56, "ABI v1 layout: pecert_plugin.destroy");
_Static_assert(offsetof(pecert_plugin, last_error) == 64, "ABI v1 layout: pecert_plugin.last_error");
_Static_assert(offsetof(pecert_plugin, rope_freqs) == 72, "ABI v1 layout: pecert_plugin.rope_freqs");
_Static_assert(offsetof(pecert_plugin, rope_cos_sin) == 80, "ABI v1 layout: pecert_plugin.rope_cos_sin");
_Static_assert(offsetof(pecert_plugin, rope_apply) == 88, "ABI v1 layout: pecert_plugin.rope_apply");
_Static_assert(offsetof(pecert_plugin, set_num_threads) == 96, "ABI 1.1 layout: pecert_plugin.set_num_threads");
_Static_assert(offsetof(pecert_plugin, describe) == 104, "ABI 1.1 layout: pecert_plugin.describe");
_Static_assert(offsetof(pecert_plugin, session_create) == 112, "ABI 1.2 layout: pecert_plugin.session_create");
_Static_assert(offsetof(pecert_plugin, session_destroy) == 120, "ABI 1.2 layout: pecert_plugin.session_destroy");
_Static_assert(offsetof(pecert_plugin, session_append) == 128, "ABI 1.2 layout: pecert_plugin.session_append");
_Static_assert(offsetof(pecert_plugin, session_read_keys) == 136, "ABI 1.2 layout: pecert_plugin.session_read_keys");
_Static_assert(sizeof(pecert_session_config) == 112, "ABI 1.2 layout: sizeof pecert_session_config");
_Static_assert(offsetof(pecert_session_config, pairing) == 4, "ABI 1.2 layout: pecert_session_config.pairing");
_Static_assert(offsetof(pecert_session_config, rope) == 8, "ABI 1.2 layout: pecert_session_config.rope");
_Static_assert(offsetof(pecert_session_config, seq_len) == 16, "ABI 1.2 layout: pecert_session_config.seq_len");
_Static_assert(offsetof(pecert_session_config, n_seqs) == 24, "ABI 1.2 layout: pecert_session_config.n_seqs");
_Static_assert(offsetof(pecert_session_config, max_tokens) == 28, "ABI 1.2 layout: pecert_session_config.max_tokens");
_Static_assert(offsetof(pecert_session_config, n_heads) == 32, "ABI 1.2 layout: pecert_session_config.n_heads");
_Static_assert(offsetof(pecert_session_config, n_kv_heads) == 36, "ABI 1.2 layout: pecert_session_config.n_kv_heads");
_Static_assert(offsetof(pecert_session_config, softmax_scale) == 40, "ABI 1.2 layout: pecert_session_config.softmax_scale");
_Static_assert(offsetof(pecert_session_config, alibi) == 48, "ABI 1.2 layout: pecert_session_config.alibi");
_Static_assert(offsetof(pecert_session_config, head_dim) == 52, "ABI 1.2 layout: pecert_session_config.head_dim");
_Static_assert(offsetof(pecert_session_config, alibi_max_bias) == 56, "ABI 1.2 layout: pecert_session_config.alibi_max_bias");
/* ABI 1.5: alibi_bias_scale took the first reserved word (64). */
_Static_assert(offsetof(pecert_session_config, alibi_bias_scale) == 64, "ABI 1.5 layout: pecert_session_config.alibi_bias_scale");
_Static_assert(offsetof(pecert_session_config, reserved) == 72, "ABI 1.5 layout: pecert_session_config.reserved");
_Static_assert(sizeof(pecert_session_append_args) == 136, "ABI 1.2 layout: sizeof pecert_session_append_args");
_Static_assert(offsetof(pecert_session_append_args, n_tokens) == 8, "ABI 1.2 layout: pecert_session_append_args.n_tokens");
_Static_assert(offsetof(pecert_session_append_args, positions) == 16, "ABI 1.2 layout: pecert_session_append_args.positions");
_Static_assert(offsetof(pecert_session_append_args, seq_ids) == 24, "ABI 1.2 layout: pecert_session_append_args.seq_ids");
_Static_assert(offsetof(pecert_session_append_args, valid) == 32, "ABI 1.2 layout: pecert_session_append_args.valid");
_Static_assert(offsetof(pecert_session_append_args, q) == 40, "ABI 1.2 layout: pecert_session_append_args.q");
_Static_assert(offsetof(pecert_session_append_args, k) == 48, "ABI 1.2 layout: pecert_session_append_args.k");
_Static_assert(offsetof(pecert_session_append_args, v) == 56, "ABI 1.2 layout: pecert_session_append_args.v");
_Static_assert(offsetof(pecert_session_append_args, out) == 64, "ABI 1.2 layout: pecert_session_append_args.out");
_Static_assert(offsetof(pecert_session_append_args, reserved) == 72, "ABI 1.2 layout: pecert_session_append_args.reserved");
/* ABI 1.2: the other encoding families (appended after the session). */
/* ABI 1.3 ended the descriptor at 248; 1.6 appended the 2-D RoPE ops there. */
_Static_assert(offsetof(pecert_plugin, scope) == 240, "ABI 1.3 layout: pecert_plugin.scope");
_Static_assert(sizeof(pecert_scope) == 56, "ABI 1.3 layout: sizeof pecert_scope");
_Static_assert(offsetof(pecert_scope, flags) == 4, "ABI 1.3 layout: pecert_scope.flags");
_Static_assert(offsetof(pecert_scope, max_position) == 8, "ABI 1.3 layout: pecert_scope.max_position");
_Static_assert(offsetof(pecert_scope, rope_apply_dtypes) == 16, "ABI 1.3 layout: pecert_scope.rope_apply_dtypes");
_Static_assert(offsetof(pecert_scope, reserved) == 24, "ABI 1.3 layout: pecert_scope.reserved");
_Static_assert(offsetof(pecert_plugin, alibi_slopes) == 144, "ABI 1.2 layout: pecert_plugin.alibi_slopes");
_Static_assert(offsetof(pecert_plugin, alibi_bias) == 152, "ABI 1.2 layout: pecert_plugin.alibi_bias");
_Static_assert(offsetof(pecert_plugin, t5_bucket) == 160, "ABI 1.2 layout: pecert_plugin.t5_bucket");
_Static_assert(offsetof(pecert_plugin, sinusoidal) == 168, "ABI 1.2 layout: pecert_plugin.sinusoidal");
_Static_assert(offsetof(pecert_plugin, learned_lookup) == 176, "ABI 1.2 layout: pecert_plugin.learned_lookup");
_Static_assert(offsetof(pecert_plugin, sincos_2d) == 184, "ABI 1.2 layout: pecert_plugin.sincos_2d");
_Static_assert(offsetof(pecert_plugin, swin_index) == 192, "ABI 1.2 layout: pecert_plugin.swin_index");
_Static_assert(offsetof(pecert_plugin, shaw_index) == 200, "ABI 1.2 layout: pecert_plugin.shaw_index");
_Static_assert(offsetof(pecert_plugin, txl_pos_emb) == 208, "ABI 1.2 layout: pecert_plugin.txl_pos_emb");
_Static_assert(offsetof(pecert_plugin, txl_rel_shift) == 216, "ABI 1.2 layout: pecert_plugin.txl_rel_shift");
_Static_assert(offsetof(pecert_plugin, mrope_index) == 224, "ABI 1.2 layout: pecert_plugin.mrope_index");
_Static_assert(offsetof(pecert_plugin, mrope_apply) == 232, "ABI 1.2 layout: pecert_plugin.mrope_apply");
_Static_assert(sizeof(pecert_alibi_slopes_args) == 56, "ABI 1.2 layout: sizeof pecert_alibi_slopes_args");
_Static_assert(offsetof(pecert_alibi_slopes_args, num_heads) == 4, "ABI 1.2 layout: pecert_alibi_slopes_args.num_heads");
_Static_assert(offsetof(pecert_alibi_slopes_args, max_bias) == 8, "ABI 1.2 layout: pecert_alibi_slopes_args.max_bias");
_Static_assert(offsetof(pecert_alibi_slopes_args, out) == 16, "ABI 1.2 layout: pecert_alibi_slopes_args.out");
_Static_assert(offsetof(pecert_alibi_slopes_args, reserved) == 24, "ABI 1.2 layout: pecert_alibi_slopes_args.reserved");
_Static_assert(sizeof(pecert_alibi_bias_args) == 96, "ABI 1.2 layout: sizeof pecert_alibi_bias_args");
_Static_assert(offsetof(pecert_alibi_bias_args, num_heads) == 4, "ABI 1.2 layout: pecert_alibi_bias_args.num_heads");
_Static_assert(offsetof(pecert_alibi_bias_args, max_bias) == 8, "ABI 1.2 layout: pecert_alibi_bias_args.max_bias");
_Static_assert(offsetof(pecert_alibi_bias_args, symmetric) == 16, "ABI 1.2 layout: pecert_alibi_bias_args.symmetric");
_Static_assert(offsetof(pecert_alibi_bias_args, q_positions) == 24, "ABI 1.2 layout: pecert_alibi_bias_args.q_positions");
_Static_assert(offsetof(pecert_alibi_bias_args, n_q) == 32, "ABI 1.2 layout: pecert_alibi_bias_args.n_q");
_Static_assert(offsetof(pecert_alibi_bias_args, k_positions) == 40, "ABI 1.2 layout: pecert_alibi_bias_args.k_positions");
_Static_assert(offsetof(pecert_alibi_bias_args, n_k) == 48, "ABI 1.2 layout: pecert_alibi_bias_args.n_k");
_Static_assert(offsetof(pecert_alibi_bias_args, out) == 56, "ABI 1.2 layout: pecert_alibi_bias_args.out");
_Static_assert(offsetof(pecert_alibi_bias_args, reserved) == 64, "ABI 1.2 layout: pecert_alibi_bias_args.reserved");
_Static_assert(sizeof(pecert_t5_bucket_args) == 80, "ABI 1.2 layout: sizeof pecert_t5_bucket_args");
_Static_assert(offsetof(pecert_t5_bucket_args, bidirectional) == 4, "ABI 1.2 layout: pecert_t5_bucket_args.bidirectional");
_Static_assert(offsetof(pecert_t5_bucket_args, num_buckets) == 8, "ABI 1.2 layout: pecert_t5_bucket_args.num_buckets");
_Static_assert(offsetof(pecert_t5_bucket_args, max_distance) == 16, "ABI 1.2 layout: pecert_t5_bucket_args.max_distance");
_Static_assert(offsetof(pecert_t5_bucket_args, relative_positions) == 24, "ABI 1.2 layout: pecert_t5_bucket_args.relative_positions");
_Static_assert(offsetof(pecert_t5_bucket_args, n) == 32, "ABI 1.2 layout: pecert_t5_bucket_args.n");
_Static_assert(offsetof(pecert_t5_bucket_args, out) == 40, "ABI 1.2 layout: pecert_t5_bucket_args.out");
_Static_assert(offsetof(pecert_t5_bucket_args, reserved) == 48, "ABI 1.2 layout: pecert_t5_bucket_args.reserved");
_Static_assert(sizeof(pecert_sinusoidal_args) == 80, "ABI 1.2 layout: sizeof pecert_sinusoidal_args");
_Static_assert(offsetof(pecert_sinusoidal_args, variant) == 4, "ABI 1.2 layout: pecert_sinusoidal_args.variant");
_Static_assert(offsetof(pecert_sinusoidal_args, dim) == 8, "ABI 1.2 layout: pecert_sinusoidal_args.dim");
_Static_assert(offsetof(pecert_sinusoidal_args, padding_idx) == 12, "ABI 1.2 layout: pecert_sinusoidal_args.padding_idx");
_Static_assert(offsetof(pecert_sinusoidal_args, base) == 16, "ABI 1.2 layout: pecert_sinusoidal_args.base");
_Static_assert(offsetof(pecert_sinusoidal_args, positions) == 24, "ABI 1.2 layout: pecert_sinusoidal_args.positions");
_Static_assert(offsetof(pecert_sinusoidal_args, n) == 32, "ABI 1.2 layout: pecert_sinusoidal_args.n");
_Static_assert(offsetof(pecert_sinusoidal_args, out) == 40, "ABI 1.2 layout: pecert_sinusoidal_args.out");
_Static_assert(offsetof(pecert_sinusoidal_args, reserved) == 48, "ABI 1.2 layout: pecert_sinusoidal_args.reserved");
_Static_assert(sizeof(pecert_learned_args) == 80, "ABI 1.2 layout: sizeof pecert_learned_args");
_Static_assert(offsetof(pecert_learned_args, convention) == 4, "ABI 1.2 layout: pecert_learned_args.convention");
_Static_assert(offsetof(pecert_learned_args, padding_idx) == 8, "ABI 1.2 layout: pecert_learned_args.padding_idx");
_Static_assert(offsetof(pecert_learned_args, table) == 16, "ABI 1.2 layout: pecert_learned_args.table");
_Static_assert(offsetof(pecert_learned_args, positions) == 24, "ABI 1.2 layout: pecert_learned_args.positions");
_Static_assert(offsetof(pecert_learned_args, n) == 32, "ABI 1.2 layout: pecert_learned_args.n");
_Static_assert(offsetof(pecert_learned_args, out) == 40, "ABI 1.2 layout: pecert_learned_args.out");
_Static_assert(offsetof(pecert_learned_args, reserved) == 48, "ABI 1.2 layout: pecert_learned_args.reserved");
_Static_assert(sizeof(pecert_sincos2d_args) == 72, "ABI 1.2 layout: sizeof pecert_sincos2d_args");
_Static_assert(offsetof(pecert_sincos2d_args, embed_dim) == 4, "ABI 1.2 layout: pecert_sincos2d_args.embed_dim");
_Static_assert(offsetof(pecert_sincos2d_args, grid_h) == 8, "ABI 1.2 layout: pecert_sincos2d_args.grid_h");
_Static_assert(offsetof(pecert_sincos2d_args, grid_w) == 12, "ABI 1.2 layout: pecert_sincos2d_args.grid_w");
_Static_assert(offsetof(pecert_sincos2d_args, cls_token) == 16, "ABI 1.2 layout: pecert_sincos2d_args.cls_token");
_Static_assert(offsetof(pecert_sincos2d_args, layout) == 20, "ABI 1.14 layout: pecert_sincos2d_args.layout");
_Static_assert(offsetof(pecert_sincos2d_args, base) == 24, "ABI 1.2 layout: pecert_sincos2d_args.base");
_Static_assert(offsetof(pecert_sincos2d_args, out) == 32, "ABI 1.2 layout: pecert_sincos2d_args.out");
_Static_assert(offsetof(pecert_sincos2d_args, reserved) == 40, "ABI 1.2 layout: pecert_sincos2d_args.reserved");
_Static_assert(sizeof(pecert_swin_index_args) == 56, "ABI 1.2 layout: sizeof pecert_swin_index_args");
_Static_assert(offsetof(pecert_swin_index_args, window_h) == 4, "ABI 1.2 layout: pecert_swin_index_args.window_h");
_Static_assert(offsetof(pecert_swin_index_args, window_w) == 8, "ABI 1.2 layout: pecert_swin_index_args.window_w");
_Static_assert(offsetof(pecert_swin_index_args, out) == 16, "ABI 1.2 layout: pecert_swin_index_args.out");
_Static_assert(offsetof(pecert_swin_index_args, reserved) == 24, "ABI 1.2 layout: pecert_swin_index_args.reserved");
_Static_assert(sizeof(pecert_shaw_index_args) == 88, "ABI 1.2 layout: sizeof pecert_shaw_index_args");
_Static_assert(offsetof(pecert_shaw_index_args, max_relative_position) == 8, "ABI 1.2 layout: pecert_shaw_index_args.max_relative_position");
_Static_assert(offsetof(pecert_shaw_index_args, q_positions) == 16, "ABI 1.2 layout: pecert_shaw_index_args.q_positions");
_Static_assert(offsetof(pecert_shaw_index_args, n_q) == 24, "ABI 1.2 layout: pecert_shaw_index_args.n_q");
_Static_assert(offsetof(pecert_shaw_index_args, k_positions) == 32, "ABI 1.2 layout: pecert_shaw_index_args.k_positions");
_Static_assert(offsetof(pecert_shaw_index_args, n_k) == 40, "ABI 1.2 layout: pecert_shaw_index_args.n_k");
_Static_assert(offsetof(pecert_shaw_index_args, out) == 48, "ABI 1.2 layout: pecert_shaw_index_args.out");
_Static_assert(offsetof(pecert_shaw_index_args, reserved) == 56, "ABI 1.2 layout: pecert_shaw_index_args.reserved");
_Static_assert(sizeof(pecert_txl_pos_emb_args) == 64, "ABI 1.2 layout: sizeof pecert_txl_pos_emb_args");
_Static_assert(offsetof(pecert_txl_pos_emb_args, d_model) == 4, "ABI 1.2 layout: pecert_txl_pos_emb_args.d_model");
_Static_assert(offsetof(pecert_txl_pos_emb_args, klen) == 8, "ABI 1.2 layout: pecert_txl_pos_emb_args.klen");
_Static_assert(offsetof(pecert_txl_pos_emb_args, clamp_len) == 16, "ABI 1.2 layout: pecert_txl_pos_emb_args.clamp_len");
_Static_assert(offsetof(pecert_txl_pos_emb_args, out) == 24, "ABI 1.2 layout: pecert_txl_pos_emb_args.out");
_Static_assert(offsetof(pecert_txl_pos_emb_args, reserved) == 32, "ABI 1.2 layout: pecert_txl_pos_emb_args.reserved");
_Static_assert(sizeof(pecert_txl_rel_shift_args) == 56, "ABI 1.2 layout: sizeof pecert_txl_rel_shift_args");
_Static_assert(offsetof(pecert_txl_rel_shift_args, zero_triu) == 4, "ABI 1.2 layout: pecert_txl_rel_shift_args.zero_triu");
_Static_assert(offsetof(pecert_txl_rel_shift_args, x) == 8, "ABI 1.2 layout: pecert_txl_rel_shift_args.x");
_Static_assert(offsetof(pecert_txl_rel_shift_args, out) == 16, "ABI 1.2 layout: pecert_txl_rel_shift_args.out");
_Static_assert(offsetof(pecert_txl_rel_shift_args, reserved) == 24, "ABI 1.2 layout: pecert_txl_rel_shift_args.reserved");
_Static_assert(sizeof(pecert_mrope_index_args) == 144, "ABI 1.2 layout: sizeof pecert_mrope_index_args");
_Static_assert(offsetof(pecert_mrope_index_args, spatial_merge_size) == 4, "ABI 1.2 layout: pecert_mrope_index_args.spatial_merge_size");
_Static_assert(offsetof(pecert_mrope_index_args, image_token_id) == 8, "ABI 1.2 layout: pecert_mrope_index_args.image_token_id");
_Static_assert(offsetof(pecert_mrope_index_args, video_token_id) == 16, "ABI 1.2 layout: pecert_mrope_index_args.video_token_id");
_Static_assert(offsetof(pecert_mrope_index_args, vision_start_token_id) == 24, "ABI 1.2 layout: pecert_mrope_index_args.vision_start_token_id");
_Static_assert(offsetof(pecert_mrope_index_args, batch) == 32, "ABI 1.2 layout: pecert_mrope_index_args.batch");
_Static_assert(offsetof(pecert_mrope_index_args, seq_len) == 40, "ABI 1.2 layout: pecert_mrope_index_args.seq_len");
_Static_assert(offsetof(pecert_mrope_index_args, input_ids) == 48, "ABI 1.2 layout: pecert_mrope_index_args.input_ids");
_Static_assert(offsetof(pecert_mrope_index_args, attention_mask) == 56, "ABI 1.2 layout: pecert_mrope_index_args.attention_mask");
_Static_assert(offsetof(pecert_mrope_index_args, image_grid_thw) == 64, "ABI 1.2 layout: pecert_mrope_index_args.image_grid_thw");
_Static_assert(offsetof(pecert_mrope_index_args, n_images) == 72, "ABI 1.2 layout: pecert_mrope_index_args.n_images");
_Static_assert(offsetof(pecert_mrope_index_args, video_grid_thw) == 80, "ABI 1.2 layout: pecert_mrope_index_args.video_grid_thw");
_Static_assert(offsetof(pecert_mrope_index_args, n_videos) == 88, "ABI 1.2 layout: pecert_mrope_index_args.n_videos");
_Static_assert(offsetof(pecert_mrope_index_args, out_position_ids) == 96, "ABI 1.2 layout: pecert_mrope_index_args.out_position_ids");
_Static_assert(offsetof(pecert_mrope_index_args, out_deltas) == 104, "ABI 1.2 layout: pecert_mrope_index_args.out_deltas");
_Static_assert(offsetof(pecert_mrope_index_args, reserved) == 112, "ABI 1.2 layout: pecert_mrope_index_args.reserved");
_Static_assert(sizeof(pecert_mrope_apply_args) == 104, "ABI 1.2 layout: sizeof pecert_mrope_apply_args");
_Static_assert(offsetof(pecert_mrope_apply_args, pairing) == 4, "ABI 1.2 layout: pecert_mrope_apply_args.pairing");
_Static_assert(offsetof(pecert_mrope_apply_args, config) == 8, "ABI 1.2 layout: pecert_mrope_apply_args.config");
_Static_assert(offsetof(pecert_mrope_apply_args, seq_len) == 16, "ABI 1.2 layout: pecert_mrope_apply_args.seq_len");
_Static_assert(offsetof(pecert_mrope_apply_args, num_axes) == 24, "ABI 1.2 layout: pecert_mrope_apply_args.num_axes");
_Static_assert(offsetof(pecert_mrope_apply_args, section) == 28, "ABI 1.2 layout: pecert_mrope_apply_args.section");
/* ABI 1.4: interleaved is 1.2's reserved0. */
_Static_assert(offsetof(pecert_mrope_apply_args, interleaved) == 44, "ABI 1.4 layout: pecert_mrope_apply_args.interleaved");
_Static_assert(offsetof(pecert_mrope_apply_args, positions) == 48, "ABI 1.2 layout: pecert_mrope_apply_args.positions");
_Static_assert(offsetof(pecert_mrope_apply_args, x) == 56, "ABI 1.2 layout: pecert_mrope_apply_args.x");
_Static_assert(offsetof(pecert_mrope_apply_args, out) == 64, "ABI 1.2 layout: pecert_mrope_apply_args.out");
_Static_assert(offsetof(pecert_mrope_apply_args, reserved) == 72, "ABI 1.2 layout: pecert_mrope_apply_args.reserved");
_Static_assert(sizeof(pecert_rope2d_apply_args) == 88, "ABI 1.6 layout: sizeof pecert_rope2d_apply_args");
_Static_assert(offsetof(pecert_rope2d_apply_args, pairing) == 4, "ABI 1.6 layout: pecert_rope2d_apply_args.pairing");
_Static_assert(offsetof(pecert_rope2d_apply_args, frequencies) == 8, "ABI 1.6 layout: pecert_rope2d_apply_args.frequencies");
_Static_assert(offsetof(pecert_rope2d_apply_args, columns_first) == 12, "ABI 1.6 layout: pecert_rope2d_apply_args.columns_first");
_Static_assert(offsetof(pecert_rope2d_apply_args, head_dim) == 16, "ABI 1.6 layout: pecert_rope2d_apply_args.head_dim");
_Static_assert(offsetof(pecert_rope2d_apply_args, theta) == 24, "ABI 1.6 layout: pecert_rope2d_apply_args.theta");
_Static_assert(offsetof(pecert_rope2d_apply_args, positions) == 32, "ABI 1.6 layout: pecert_rope2d_apply_args.positions");
_Static_assert(offsetof(pecert_rope2d_apply_args, x) == 40, "ABI 1.6 layout: pecert_rope2d_apply_args.x");
_Static_assert(offsetof(pecert_rope2d_apply_args, out) == 48, "ABI 1.6 layout: pecert_rope2d_apply_args.out");
_Static_assert(offsetof(pecert_rope2d_apply_args, reserved) == 56, "ABI 1.6 layout: pecert_rope2d_apply_args.reserved");
_Static_assert(sizeof(pecert_rope2d_index_args) == 72, "ABI 1.6 layout: sizeof pecert_rope2d_index_args");
_Static_assert(offsetof(pecert_rope2d_index_args, scheme) == 4, "ABI 1.6 layout: pecert_rope2d_index_args.scheme");
_Static_assert(offsetof(pecert_rope2d_index_args, spatial_merge_size) == 8, "ABI 1.6 layout: pecert_rope2d_index_args.spatial_merge_size");
_Static_assert(offsetof(pecert_rope2d_index_args, grid_thw) == 16, "ABI 1.6 layout: pecert_rope2d_index_args.grid_thw");
_Static_assert(offsetof(pecert_rope2d_index_args, n_images) == 24, "ABI 1.6 layout: pecert_rope2d_index_args.n_images");
_Static_assert(offsetof(pecert_rope2d_index_args, out_positions) == 32, "ABI 1.6 layout: pecert_rope2d_index_args.out_positions");
_Static_assert(offsetof(pecert_rope2d_index_args, reserved) == 40, "ABI 1.6 layout: pecert_rope2d_index_args.reserved");
_Static_assert(offsetof(pecert_plugin, rope2d_index) == 248, "ABI 1.6 layout: pecert_plugin.rope2d_index");
_Static_assert(offsetof(pecert_plugin, rope2d_apply) == 256, "ABI 1.6 layout: pecert_plugin.rope2d_apply");
/* ABI 1.7: position-embedding interpolation. */
_Static_assert(sizeof(pecert_posinterp_args) == 120, "ABI 1.7 layout: sizeof pecert_posinterp_args");
_Static_assert(offsetof(pecert_posinterp_args, mode) == 4, "ABI 1.7 layout: pecert_posinterp_args.mode");
_Static_assert(offsetof(pecert_posinterp_args, align_corners) == 8, "ABI 1.7 layout: pecert_posinterp_args.align_corners");
_Static_assert(offsetof(pecert_posinterp_args, antialias) == 12, "ABI 1.7 layout: pecert_posinterp_args.antialias");
_Static_assert(offsetof(pecert_posinterp_args, prefix_tokens) == 16, "ABI 1.7 layout: pecert_posinterp_args.prefix_tokens");
_Static_assert(offsetof(pecert_posinterp_args, merge_size) == 20, "ABI 1.7 layout: pecert_posinterp_args.merge_size");
_Static_assert(offsetof(pecert_posinterp_args, grid_h) == 24, "ABI 1.7 layout: pecert_posinterp_args.grid_h");
_Static_assert(offsetof(pecert_posinterp_args, out_w) == 48, "ABI 1.7 layout: pecert_posinterp_args.out_w");
_Static_assert(offsetof(pecert_posinterp_args, scale_h) == 56, "ABI 1.7 layout: pecert_posinterp_args.scale_h");
_Static_assert(offsetof(pecert_posinterp_args, table) == 72, "ABI 1.7 layout: pecert_posinterp_args.table");
_Static_assert(offsetof(pecert_posinterp_args, out) == 80, "ABI 1.7 layout: pecert_posinterp_args.out");
_Static_assert(offsetof(pecert_posinterp_args, reserved) == 88, "ABI 1.7 layout: pecert_posinterp_args.reserved");
_Static_assert(offsetof(pecert_plugin, pos_interpolate) == 264, "ABI 1.7 layout: pecert_plugin.pos_interpolate");
/* ABI 1.8: CoPE. */
_Static_assert(sizeof(pecert_cope_args) == 104, "ABI 1.8 layout: sizeof pecert_cope_args");
_Static_assert(offsetof(pecert_cope_args, nodiv) == 4, "ABI 1.8 layout: pecert_cope_args.nodiv");
_Static_assert(offsetof(pecert_cope_args, npos) == 8, "ABI 1.8 layout: pecert_cope_args.npos");
_Static_assert(offsetof(pecert_cope_args, q) == 16, "ABI 1.8 layout: pecert_cope_args.q");
_Static_assert(offsetof(pecert_cope_args, gate_k) == 32, "ABI 1.8 layout: pecert_cope_args.gate_k");
_Static_assert(offsetof(pecert_cope_args, mask) == 48, "ABI 1.8 layout: pecert_cope_args.mask");
_Static_assert(offsetof(pecert_cope_args, positions) == 56, "ABI 1.8 layout: pecert_cope_args.positions");
_Static_assert(offsetof(pecert_cope_args, logits) == 64, "ABI 1.8 layout: pecert_cope_args.logits");
_Static_assert(offsetof(pecert_cope_args, reserved) == 72, "ABI 1.8 layout: pecert_cope_args.reserved");
_Static_assert(offsetof(pecert_plugin, cope_logits) == 272, "ABI 1.8 layout: pecert_plugin.cope_logits");
/* ABI 1.9: CPVT's PEG. */
_Static_assert(sizeof(pecert_peg_args) == 96, "ABI 1.9 layout: sizeof pecert_peg_args");
_Static_assert(offsetof(pecert_peg_args, prefix_tokens) == 4, "ABI 1.9 layout: pecert_peg_args.prefix_tokens");
_Static_assert(offsetof(pecert_peg_args, grid_h) == 8, "ABI 1.9 layout: pecert_peg_args.grid_h");
_Static_assert(offsetof(pecert_peg_args, kernel) == 24, "ABI 1.9 layout: pecert_peg_args.kernel");
_Static_assert(offsetof(pecert_peg_args, x) == 32, "ABI 1.9 layout: pecert_peg_args.x");
_Static_assert(offsetof(pecert_peg_args, out) == 56, "ABI 1.9 layout: pecert_peg_args.out");
_Static_assert(offsetof(pecert_peg_args, reserved) == 64, "ABI 1.9 layout: pecert_peg_args.reserved");
_Static_assert(offsetof(pecert_plugin, peg_apply) == 280, "ABI 1.9 layout: pecert_plugin.peg_apply");
/* ABI 1.11: DETR's 2-D sine embedding from a pixel mask. */
_Static_assert(sizeof(pecert_sine2d_args) == 104, "ABI 1.11 layout: sizeof pecert_sine2d_args");
_Static_assert(offsetof(pecert_sine2d_args, num_pos_feats) == 4, "ABI 1.11 layout: pecert_sine2d_args.num_pos_feats");
_Static_assert(offsetof(pecert_sine2d_args, normalize) == 8, "ABI 1.11 layout: pecert_sine2d_args.normalize");
_Static_assert(offsetof(pecert_sine2d_args, temperature_y) == 16, "ABI 1.11 layout: pecert_sine2d_args.temperature_y");
_Static_assert(offsetof(pecert_sine2d_args, eps) == 48, "ABI 1.11 layout: pecert_sine2d_args.eps");
_Static_assert(offsetof(pecert_sine2d_args, mask) == 56, "ABI 1.11 layout: pecert_sine2d_args.mask");
_Static_assert(offsetof(pecert_sine2d_args, out) == 64, "ABI 1.11 layout: pecert_sine2d_args.out");
_Static_assert(offsetof(pecert_sine2d_args, reserved) == 72, "ABI 1.11 layout: pecert_sine2d_args.reserved");
_Static_assert(offsetof(pecert_plugin, sine2d) == 288, "ABI 1.11 layout: pecert_plugin.sine2d");
/* ABI 1.12: the decomposed relative positions of MViTv2 and SAM. */
_Static_assert(sizeof(pecert_relpos2d_args) == 104, "ABI 1.12 layout: sizeof pecert_relpos2d_args");
_Static_assert(offsetof(pecert_relpos2d_args, q_h) == 8, "ABI 1.12 layout: pecert_relpos2d_args.q_h");
_Static_assert(offsetof(pecert_relpos2d_args, k_w) == 32, "ABI 1.12 layout: pecert_relpos2d_args.k_w");
_Static_assert(offsetof(pecert_relpos2d_args, query) == 40, "ABI 1.12 layout: pecert_relpos2d_args.query");
_Static_assert(offsetof(pecert_relpos2d_args, rel_pos_h) == 48, "ABI 1.12 layout: pecert_relpos2d_args.rel_pos_h");
_Static_assert(offsetof(pecert_relpos2d_args, rel_pos_w) == 56, "ABI 1.12 layout: pecert_relpos2d_args.rel_pos_w");
_Static_assert(offsetof(pecert_relpos2d_args, out) == 64, "ABI 1.12 layout: pecert_relpos2d_args.out");
_Static_assert(offsetof(pecert_relpos2d_args, reserved) == 72, "ABI 1.12 layout: pecert_relpos2d_args.reserved");
_Static_assert(offsetof(pecert_plugin, relpos2d_bias) == 296, "ABI 1.12 layout: pecert_plugin.relpos2d_bias");
/* ABI 1.13: DeBERTa's disentangled relative positions. */
_Static_assert(sizeof(pecert_deberta_args) == 96, "ABI 1.13 layout: sizeof pecert_deberta_args");
_Static_assert(offsetof(pecert_deberta_args, terms) == 4, "ABI 1.13 layout: pecert_deberta_args.terms");
_Static_assert(offsetof(pecert_deberta_args, bucket_size) == 8, "ABI 1.13 layout: pecert_deberta_args.bucket_size");
_Static_assert(offsetof(pecert_deberta_args, max_position) == 16, "ABI 1.13 layout: pecert_deberta_args.max_position");
_Static_assert(offsetof(pecert_deberta_args, q) == 24, "ABI 1.13 layout: pecert_deberta_args.q");
_Static_assert(offsetof(pecert_deberta_args, k) == 32, "ABI 1.13 layout: pecert_deberta_args.k");
_Static_assert(offsetof(pecert_deberta_args, pos_key) == 40, "ABI 1.13 layout: pecert_deberta_args.pos_key");
_Static_assert(offsetof(pecert_deberta_args, pos_query) == 48, "ABI 1.13 layout: pecert_deberta_args.pos_query");
_Static_assert(offsetof(pecert_deberta_args, out) == 56, "ABI 1.13 layout: pecert_deberta_args.out");
_Static_assert(offsetof(pecert_deberta_args, reserved) == 64, "ABI 1.13 layout: pecert_deberta_args.reserved");
_Static_assert(offsetof(pecert_plugin, deberta_bias) == 304, "ABI 1.13 layout: pecert_plugin.deberta_bias");
_Static_assert(sizeof(pecert_plugin) == 312, "ABI 1.13 layout: sizeof pecert_plugin");

/* ABI 1.10: Qwen2.5-VL's attention windows, in the rope2d index word 1.6
 * reserved (the struct's size and every other offset unchanged). */
_Static_assert(offsetof(pecert_rope2d_index_args, window_units) == 12,
               "ABI 1.10 layout: pecert_rope2d_index_args.window_units");

/* The wire protocol (include/pecert/WIRE.md), version 1: a host in another
 * language reads these bytes; a change here is a new PECERT_WIRE_VERSION. */
_Static_assert(sizeof(pecert_wire_header) == 16, "wire v1 layout: sizeof pecert_wire_header");
_Static_assert(offsetof(pecert_wire_header, version) == 4, "wire v1 layout: pecert_wire_header.version");
_Static_assert(offsetof(pecert_wire_header, type) == 6, "wire v1 layout: pecert_wire_header.type");
_Static_assert(offsetof(pecert_wire_header, length) == 8, "wire v1 layout: pecert_wire_header.length");
_Static_assert(offsetof(pecert_wire_header, seq) == 12, "wire v1 layout: pecert_wire_header.seq");
_Static_assert(sizeof(pecert_wire_hello) == 96, "wire v1 layout: sizeof pecert_wire_hello");
_Static_assert(offsetof(pecert_wire_hello, abi_version) == 16, "wire v1 layout: pecert_wire_hello.abi_version");
_Static_assert(offsetof(pecert_wire_hello, struct_size) == 20, "wire v1 layout: pecert_wire_hello.struct_size");
_Static_assert(offsetof(pecert_wire_hello, op_mask) == 24, "wire v1 layout: pecert_wire_hello.op_mask");
_Static_assert(offsetof(pecert_wire_hello, present) == 32, "wire v1 layout: pecert_wire_hello.present");
_Static_assert(offsetof(pecert_wire_hello, host_pid) == 36, "wire v1 layout: pecert_wire_hello.host_pid");
_Static_assert(offsetof(pecert_wire_hello, scope) == 40, "wire v1 layout: pecert_wire_hello.scope");
_Static_assert(sizeof(pecert_wire_arena) == 32, "wire v1 layout: sizeof pecert_wire_arena");
_Static_assert(offsetof(pecert_wire_arena, size) == 16, "wire v1 layout: pecert_wire_arena.size");
_Static_assert(offsetof(pecert_wire_arena, generation) == 24, "wire v1 layout: pecert_wire_arena.generation");
_Static_assert(sizeof(pecert_wire_reloc) == 16, "wire v1 layout: sizeof pecert_wire_reloc");
_Static_assert(offsetof(pecert_wire_reloc, space) == 4, "wire v1 layout: pecert_wire_reloc.space");
_Static_assert(offsetof(pecert_wire_reloc, target) == 8, "wire v1 layout: pecert_wire_reloc.target");
_Static_assert(sizeof(pecert_wire_call) == 48, "wire v1 layout: sizeof pecert_wire_call");
_Static_assert(offsetof(pecert_wire_call, op) == 16, "wire v1 layout: pecert_wire_call.op");
_Static_assert(offsetof(pecert_wire_call, instance) == 20, "wire v1 layout: pecert_wire_call.instance");
_Static_assert(offsetof(pecert_wire_call, session) == 24, "wire v1 layout: pecert_wire_call.session");
_Static_assert(offsetof(pecert_wire_call, frame_len) == 28, "wire v1 layout: pecert_wire_call.frame_len");
_Static_assert(offsetof(pecert_wire_call, n_relocs) == 32, "wire v1 layout: pecert_wire_call.n_relocs");
_Static_assert(offsetof(pecert_wire_call, generation) == 40, "wire v1 layout: pecert_wire_call.generation");
_Static_assert(sizeof(pecert_wire_reply) == 32, "wire v1 layout: sizeof pecert_wire_reply");
_Static_assert(offsetof(pecert_wire_reply, status) == 16, "wire v1 layout: pecert_wire_reply.status");
_Static_assert(offsetof(pecert_wire_reply, handle) == 20, "wire v1 layout: pecert_wire_reply.handle");
_Static_assert(offsetof(pecert_wire_reply, text_len) == 24, "wire v1 layout: pecert_wire_reply.text_len");
_Static_assert(offsetof(pecert_wire_reply, flags) == 28, "wire v1 layout: pecert_wire_reply.flags");
_Static_assert(sizeof(pecert_wire_frame_rope_freqs) == 32, "wire v1 layout: sizeof pecert_wire_frame_rope_freqs");
_Static_assert(offsetof(pecert_wire_frame_rope_freqs, config) == 16,
               "wire v1 layout: pecert_wire_frame_rope_freqs.config");
_Static_assert(offsetof(pecert_wire_frame_rope_freqs, seq_len) == 24,
               "wire v1 layout: pecert_wire_frame_rope_freqs.seq_len");
_Static_assert(sizeof(pecert_wire_frame_rope_cos_sin) == 48, "wire v1 layout: sizeof pecert_wire_frame_rope_cos_sin");
_Static_assert(offsetof(pecert_wire_frame_rope_cos_sin, positions) == 32,
               "wire v1 layout: pecert_wire_frame_rope_cos_sin.positions");
_Static_assert(offsetof(pecert_wire_frame_rope_cos_sin, n_positions) == 40,
               "wire v1 layout: pecert_wire_frame_rope_cos_sin.n_positions");
_Static_assert(sizeof(pecert_wire_frame_threads) == 8, "wire v1 layout: sizeof pecert_wire_frame_threads");
_Static_assert(sizeof(pecert_wire_frame_session_create) == 8,
               "wire v1 layout: sizeof pecert_wire_frame_session_create");
_Static_assert(sizeof(pecert_wire_frame_read_keys) == 16, "wire v1 layout: sizeof pecert_wire_frame_read_keys");
_Static_assert(offsetof(pecert_wire_frame_read_keys, seq) == 8, "wire v1 layout: pecert_wire_frame_read_keys.seq");
#endif
