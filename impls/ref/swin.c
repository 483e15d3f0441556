/*
 * swin.c - Swin relative_position_index (op swin_index).
 *
 * microsoft/Swin-Transformer models/swin_transformer.py,
 * WindowAttention.__init__: tokens of a window_h x window_w window in
 * row-major order (torch.meshgrid "ij" of coords_h, coords_w); for tokens
 * a = (ha, wa) and b = (hb, wb),
 *     index = (ha - hb + window_h - 1) * (2 window_w - 1) + (wa - wb + window_w - 1),
 * a bijection from the (2 window_h - 1)(2 window_w - 1) relative offsets onto
 * the bias-table rows.
 */
#include <inttypes.h>

#include "ref.h"

pecert_status pecert__ref_check_swin_args(const pecert__ref_call *call, const void *op_args)
{
    const pecert_swin_index_args *args = op_args;
    int64_t shape[2];
    pecert_status status = pecert__ref_check_reserved(call, "args", args->reserved, 4);

    if (status == PECERT_OK && args->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    if (status == PECERT_OK &&
        (args->window_h < 1 || args->window_w < 1 || args->window_h > 4096 || args->window_w > 4096)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "window %" PRId32 " x %" PRId32 " must be 1..4096 each",
                                  args->window_h, args->window_w);
    }
    if (status != PECERT_OK) {
        return status;
    }
    shape[0] = (int64_t)args->window_h * args->window_w;
    shape[1] = shape[0];
    return pecert__ref_check_view(call, "out", args->out, 2, shape, PECERT__REF_INT, 1);
}

static pecert_status swin_index(const pecert__ref_call *call, const void *op_args)
{
    const pecert_swin_index_args *args = op_args;
    int64_t tokens = (int64_t)args->window_h * args->window_w;
    int64_t idx[2];

    (void)call;
    for (idx[0] = 0; idx[0] < tokens; idx[0]++) {
        int64_t ha = idx[0] / args->window_w;
        int64_t wa = idx[0] % args->window_w;

        for (idx[1] = 0; idx[1] < tokens; idx[1]++) {
            int64_t hb = idx[1] / args->window_w;
            int64_t wb = idx[1] % args->window_w;

            pecert__ref_store_int(args->out, idx,
                                  (ha - hb + args->window_h - 1) * (2 * (int64_t)args->window_w - 1) +
                                      (wa - wb + args->window_w - 1));
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_swin_index(void *instance, const pecert_swin_index_args *args)
{
    return pecert__ref_run(instance, "swin_index", args, sizeof(*args), pecert__ref_check_swin_args,
                           swin_index);
}
