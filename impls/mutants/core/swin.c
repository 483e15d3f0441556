/*
 * swin.c - a Swin relative_position_index built with another row
 * multiplier: the base's own call (which validates the arguments and
 * fills the output), then every entry rewritten as
 *     (ha - hb + window_h - 1) * row_length + (wa - wb + window_w - 1)
 * with the mutant's row_length in place of 2 * window_w - 1.
 */
#include <stddef.h>

#include "mutant.h"

static pecert_status (*base_index)(void *instance, const pecert_swin_index_args *args);
static mutant_swin_row_length active_row_length;

static pecert_status swin_index(void *instance, const pecert_swin_index_args *a)
{
    pecert_status st = base_index(instance, a);
    int64_t tokens = (int64_t)a->window_h * a->window_w;
    int64_t row_length = active_row_length(a->window_h, a->window_w);
    for (int64_t i = 0; st == PECERT_OK && i < tokens; i++) {
        for (int64_t j = 0; j < tokens; j++) {
            int64_t dh = i / a->window_w - j / a->window_w + a->window_h - 1;
            int64_t dw = i % a->window_w - j % a->window_w + a->window_w - 1;
            mutant_store_2d_int(a->out, i, j, dh * row_length + dw);
        }
    }
    return st;
}

void mutant_patch_swin_index(pecert_plugin *desc, mutant_swin_row_length row_length)
{
    base_index = desc->swin_index;
    active_row_length = row_length;
    if (base_index != NULL) {
        desc->swin_index = swin_index;
    }
}
