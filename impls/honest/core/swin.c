/*
 * swin.c - the Swin relative_position_index as transformers builds it
 * (SwinSelfAttention.__init__, modeling_swin.py): the window's coordinates
 * flattened, their pairwise differences shifted to start at 0, the row
 * difference multiplied by the row length 2 window_w - 1, the two summed.
 * Integer arithmetic, as torch's int64 tensors do it; the argument checks
 * are ref's.
 */
#include "honest.h"

static pecert_status swin_index(const pecert__ref_call *call, const void *op_args)
{
    const pecert_swin_index_args *args = op_args;
    int64_t tokens = (int64_t)args->window_h * args->window_w;

    (void)call;
    for (int64_t a = 0; a < tokens; a++) {
        for (int64_t b = 0; b < tokens; b++) {
            /* relative_coords = coords_flatten[:, :, None] - coords_flatten[:, None, :] */
            int64_t dh = a / args->window_w - b / args->window_w + (args->window_h - 1);
            int64_t dw = a % args->window_w - b % args->window_w + (args->window_w - 1);
            int64_t at[2] = {a, b};
            pecert__ref_store_int(args->out, at, dh * (2 * (int64_t)args->window_w - 1) + dw);
        }
    }
    return PECERT_OK;
}

pecert_status honest_swin_index(void *instance, const pecert_swin_index_args *args)
{
    return pecert__ref_run(instance, "swin_index", args, sizeof(*args), pecert__ref_check_swin_args, swin_index);
}
