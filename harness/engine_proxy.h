/*
 * engine_proxy.h - the descriptor of proxies (engine_proxy.c), filled from
 * a host's hello. Not for use outside harness/engine_*.c.
 */
#ifndef PECERT_HARNESS_ENGINE_PROXY_H
#define PECERT_HARNESS_ENGINE_PROXY_H

#include <stdint.h>

#include "engine_internal.h"

/* engine_proxies_fill: e->desc as the plugin's descriptor reads to the
 * judge: its ABI version and struct_size, its strings and capabilities
 * (e->text, e->caps), its scope (e->scope when the hello has one), and a
 * proxy for each operation of e->op_mask. */
void engine_proxies_fill(pecert_engine *e, uint32_t abi_version, uint32_t struct_size);

#endif /* PECERT_HARNESS_ENGINE_PROXY_H */
