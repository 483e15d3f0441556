/*
 * shaw.c - Shaw et al. clipped relative positions (op shaw_index).
 *
 * tensorflow/tensor2tensor layers/common_attention.py,
 * _generate_relative_positions_matrix: for query position q and key
 * position k, index = clip(k - q, -K, K) + K with K = max_relative_position
 * (the row of the 2K + 1 relative embeddings). t2t's queries are the last
 * length_q keys, or with the decoding cache the last key alone; here they
 * are given.
 */
#include <inttypes.h>

#include "ref.h"

static pecert_status check_shaw_args(const pecert__ref_call *call, const void *args)
{
    const pecert_shaw_index_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);

    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    if (status == PECERT_OK &&
        (a->max_relative_position < 0 || a->max_relative_position >= PECERT__REF_POSITION_LIMIT)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "max_relative_position=%" PRId64 " must be in [0, 2^53)",
                                  a->max_relative_position);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "q_positions", a->q_positions, a->n_q);
    }
    if (status == PECERT_OK) {
        status = pecert__ref_check_ints(call, "k_positions", a->k_positions, a->n_k);
    }
    if (status == PECERT_OK) {
        int64_t shape[2] = {a->n_q, a->n_k};

        status = pecert__ref_check_view(call, "out", a->out, 2, shape, PECERT__REF_INT, 1);
    }
    return status;
}

/* out[i][j] = clip(k_j - q_i, -K, K) + K. */
static pecert_status shaw_index(const pecert__ref_call *call, const void *args)
{
    const pecert_shaw_index_args *a = args;
    int64_t k = a->max_relative_position;
    int64_t idx[2];

    (void)call;
    for (idx[0] = 0; idx[0] < a->n_q; idx[0]++) {
        for (idx[1] = 0; idx[1] < a->n_k; idx[1]++) {
            /* |positions| < 2^53: the difference is exact. */
            int64_t d = a->k_positions[idx[1]] - a->q_positions[idx[0]];

            d = d < -k ? -k : (d > k ? k : d);
            pecert__ref_store_int(a->out, idx, d + k);
        }
    }
    return PECERT_OK;
}

pecert_status pecert__ref_shaw_index(void *instance, const pecert_shaw_index_args *args)
{
    return pecert__ref_run(instance, "shaw_index", args, sizeof(*args), check_shaw_args,
                           shaw_index);
}
