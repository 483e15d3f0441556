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
_Static_assert(offsetof(pecert_rope_config, reserved) == 136, "ABI v1 layout: pecert_rope_config.reserved");
_Static_assert(sizeof(pecert_rope_apply_args) == 112, "ABI v1 layout: sizeof pecert_rope_apply_args");
_Static_assert(offsetof(pecert_rope_apply_args, pairing) == 4, "ABI v1 layout: pecert_rope_apply_args.pairing");
_Static_assert(offsetof(pecert_rope_apply_args, config) == 8, "ABI v1 layout: pecert_rope_apply_args.config");
_Static_assert(offsetof(pecert_rope_apply_args, seq_len) == 16, "ABI v1 layout: pecert_rope_apply_args.seq_len");
_Static_assert(offsetof(pecert_rope_apply_args, positions) == 24, "ABI v1 layout: pecert_rope_apply_args.positions");
_Static_assert(offsetof(pecert_rope_apply_args, x) == 32, "ABI v1 layout: pecert_rope_apply_args.x");
_Static_assert(offsetof(pecert_rope_apply_args, out) == 40, "ABI v1 layout: pecert_rope_apply_args.out");
_Static_assert(offsetof(pecert_rope_apply_args, reserved) == 48, "ABI v1 layout: pecert_rope_apply_args.reserved");
_Static_assert(sizeof(pecert_plugin) == 112, "ABI v1 layout: sizeof pecert_plugin");
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
#endif
