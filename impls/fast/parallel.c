/*
 * parallel.c - the one OpenMP region of fast, and the static split.
 *
 * Work functions take (ith, nth) and compute their own share of the
 * items with pecert__fast_share (ggml's ggml_compute_params idea), so
 * no kernel contains a pragma and which thread computes an item never
 * changes its value: results are bit-identical for any thread count.
 */
#include <omp.h>

#include "fast.h"

void pecert__fast_run(int n_threads, pecert__fast_work_fn fn, void *context)
{
    if (n_threads <= 1) {
        fn(context, 0, 1);
        return;
    }
    /* nth is read inside: OpenMP may grant fewer threads than asked
     * (nested regions, thread limits), never more. */
#pragma omp parallel num_threads(n_threads)
    fn(context, omp_get_thread_num(), omp_get_num_threads());
}

void pecert__fast_share(int64_t n, int ith, int nth, int64_t *begin, int64_t *end)
{
    int64_t base = n / nth;
    int64_t extra = n % nth;

    /* The first n % nth shares get one item more. */
    *begin = base * ith + (ith < extra ? ith : extra);
    *end = *begin + base + (ith < extra ? 1 : 0);
}
