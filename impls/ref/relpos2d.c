/*
 * relpos2d.c - the decomposed relative positions of MViTv2 and SAM's image
 * encoder (op relpos2d_bias), in double, as plugin.h states it:
 * segment-anything's add_decomposed_rel_pos and transformers'
 * SamVisionAttention.get_decomposed_rel_pos (SAM-HQ, ViTDet, SegGPT copy it).
 *
 * Per axis, the table is resized to 2 max(q, k) - 1 rows by PyTorch's
 * linear interpolation (half-pixel centres, weights in double here), and
 * query a meets key b at row trunc(a s_q - b s_k + (k - 1) s_k): that index
 * is computed in float32 as torch computes it, because truncation turns a
 * rounding into another row. Each bias is the two dot products in double,
 * rounded once to f32 on the store.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "ref.h"

#define MAX_SIDE 4096
#define MAX_CHANNELS 65536
#define MAX_TABLE_ROWS 65536
#define MAX_OUT ((int64_t)1 << 28)

/* ---- argument checks -------------------------------------------------------- */

static pecert_status check_sides(const pecert__ref_call *call, const pecert_relpos2d_args *a)
{
    const int64_t sides[4] = {a->q_h, a->q_w, a->k_h, a->k_w};
    for (int i = 0; i < 4; i++) {
        if (sides[i] < 1 || sides[i] > MAX_SIDE) {
            return pecert__ref_fail(call, PECERT_E_INVAL,
                                    "q_h=%" PRId64 ", q_w=%" PRId64 ", k_h=%" PRId64 ", k_w=%" PRId64
                                    ": each must be in 1..%d",
                                    a->q_h, a->q_w, a->k_h, a->k_w, MAX_SIDE);
        }
    }
    return PECERT_OK;
}

/* A table [L, C]: L in 1..MAX_TABLE_ROWS, C the query's. */
static pecert_status check_table(const pecert__ref_call *call, const char *name, const pecert_tensor *t,
                                 int64_t channels)
{
    pecert_status status = pecert__ref_check_view(call, name, t, 2, NULL, PECERT__REF_F32_ONLY, 0);
    if (status == PECERT_OK && (t->shape[0] < 1 || t->shape[0] > MAX_TABLE_ROWS || t->shape[1] != channels)) {
        status = pecert__ref_fail(call, PECERT_E_INVAL,
                                  "%s.shape=[%" PRId64 ", %" PRId64 "]: rows must be in 1..%d, channels the query's %" PRId64,
                                  name, t->shape[0], t->shape[1], MAX_TABLE_ROWS, channels);
    }
    return status;
}

pecert_status pecert__ref_check_relpos2d(const pecert__ref_call *call, const void *args)
{
    const pecert_relpos2d_args *a = args;
    pecert_status status = pecert__ref_check_reserved(call, "args", a->reserved, 4);
    if (status == PECERT_OK && a->reserved0 != 0) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "reserved0 must be 0");
    }
    status = status == PECERT_OK ? check_sides(call, a) : status;
    status = status == PECERT_OK ? pecert__ref_check_view(call, "query", a->query, 3, NULL, PECERT__REF_F32_ONLY, 0)
                                 : status;
    if (status != PECERT_OK) {
        return status;
    }
    int64_t n = a->query->shape[0];
    int64_t channels = a->query->shape[2];
    int64_t tokens_q = a->q_h * a->q_w;
    int64_t tokens_k = a->k_h * a->k_w;
    if (a->query->shape[1] != tokens_q || channels < 1 || channels > MAX_CHANNELS || n < 1 ||
        n * tokens_q > MAX_OUT / tokens_k) {
        return pecert__ref_fail(call, PECERT_E_INVAL,
                                "query.shape=[%" PRId64 ", %" PRId64 ", %" PRId64 "]: expected [n >= 1, q_h * q_w = %" PRId64
                                ", C in 1..%d] and n * q * k <= %" PRId64,
                                n, a->query->shape[1], channels, tokens_q, MAX_CHANNELS, MAX_OUT);
    }
    status = check_table(call, "rel_pos_h", a->rel_pos_h, channels);
    status = status == PECERT_OK ? check_table(call, "rel_pos_w", a->rel_pos_w, channels) : status;
    if (status == PECERT_OK) {
        int64_t shape[3] = {n, tokens_q, tokens_k};
        status = pecert__ref_check_view(call, "out", a->out, 3, shape, PECERT__REF_F32_ONLY, 1);
    }
    if (status == PECERT_OK && (pecert__ref_views_overlap(a->query, a->out, sizeof(float)) ||
                                pecert__ref_views_overlap(a->rel_pos_h, a->out, sizeof(float)) ||
                                pecert__ref_views_overlap(a->rel_pos_w, a->out, sizeof(float)))) {
        status = pecert__ref_fail(call, PECERT_E_INVAL, "out overlaps an input");
    }
    return status;
}

/* ---- the rows each query and key pair reads --------------------------------- */

/* get_rel_pos' index for query a and key b of an axis with q queries and
 * k keys, in float32 as torch.arange(q)[:, None] * max(k / q, 1.0) and the
 * rest compute it, truncated as .long() does. */
int64_t pecert__ref_relpos2d_row(int64_t q, int64_t k, int64_t a, int64_t b)
{
    double ratio_q = (double)k / (double)q > 1.0 ? (double)k / (double)q : 1.0;
    double ratio_k = (double)q / (double)k > 1.0 ? (double)q / (double)k : 1.0;
    float q_coord = (float)a * (float)ratio_q;
    float k_coord = (float)b * (float)ratio_k;
    float offset = (float)((double)(k - 1) * ratio_k);
    float rel = (q_coord - k_coord) + offset;
    return (int64_t)rel;
}

/* Row `row` of the table resized from L to out_rows rows, channel c: linear,
 * half-pixel centres, the source coordinate clamped at 0 and the upper
 * neighbour clamped to the last row (nn.functional.interpolate, "linear"). */
static double resized(const pecert_tensor *table, int64_t out_rows, int64_t row, int64_t c)
{
    int64_t rows = table->shape[0];
    int64_t idx[2] = {row, c};
    if (rows == out_rows) {
        return (double)*(const float *)pecert__ref_elem(table, idx);
    }
    double src = ((double)row + 0.5) * (double)rows / (double)out_rows - 0.5;
    src = src > 0.0 ? src : 0.0;
    int64_t lo = (int64_t)src;
    int64_t hi = lo < rows - 1 ? lo + 1 : lo;
    double w = src - (double)lo;
    idx[0] = lo;
    double a = (double)*(const float *)pecert__ref_elem(table, idx);
    idx[0] = hi;
    double b = (double)*(const float *)pecert__ref_elem(table, idx);
    return (1.0 - w) * a + w * b;
}

/* The resized table [2 max(q, k) - 1, C] in double. */
static double *resize_table(const pecert_tensor *table, int64_t q, int64_t k, int64_t *out_rows)
{
    int64_t rows = 2 * (q > k ? q : k) - 1;
    int64_t channels = table->shape[1];
    double *out = malloc((size_t)(rows * channels) * sizeof(double));
    if (out != NULL) {
        for (int64_t r = 0; r < rows; r++) {
            for (int64_t c = 0; c < channels; c++) {
                out[r * channels + c] = resized(table, rows, r, c);
            }
        }
    }
    *out_rows = rows;
    return out;
}

/* dots[(n * tokens_q + i) * keys + b]: query token i of head n against the
 * axis' row for its coordinate and key coordinate b. */
static void axis_dots(const pecert_relpos2d_args *a, const double *table, int64_t q, int64_t k, int vertical,
                      double *dots)
{
    int64_t n = a->query->shape[0];
    int64_t tokens_q = a->q_h * a->q_w;
    int64_t channels = a->query->shape[2];
    for (int64_t h = 0; h < n; h++) {
        for (int64_t i = 0; i < tokens_q; i++) {
            int64_t coord = vertical ? i / a->q_w : i % a->q_w;
            for (int64_t b = 0; b < k; b++) {
                const double *row = table + pecert__ref_relpos2d_row(q, k, coord, b) * channels;
                double dot = 0.0;
                for (int64_t c = 0; c < channels; c++) {
                    int64_t idx[3] = {h, i, c};
                    dot += (double)*(const float *)pecert__ref_elem(a->query, idx) * row[c];
                }
                dots[(h * tokens_q + i) * k + b] = dot;
            }
        }
    }
}

static pecert_status relpos2d(const pecert__ref_call *call, const void *op_args)
{
    const pecert_relpos2d_args *a = op_args;
    int64_t n = a->query->shape[0];
    int64_t tokens_q = a->q_h * a->q_w;
    int64_t rows_h = 0;
    int64_t rows_w = 0;
    double *table_h = resize_table(a->rel_pos_h, a->q_h, a->k_h, &rows_h);
    double *table_w = resize_table(a->rel_pos_w, a->q_w, a->k_w, &rows_w);
    double *dots_h = malloc((size_t)(n * tokens_q * a->k_h) * sizeof(double));
    double *dots_w = malloc((size_t)(n * tokens_q * a->k_w) * sizeof(double));
    pecert_status status = PECERT_OK;
    if (table_h == NULL || table_w == NULL || dots_h == NULL || dots_w == NULL) {
        status = pecert__ref_fail(call, PECERT_E_NOMEM, "out of memory");
    } else {
        axis_dots(a, table_h, a->q_h, a->k_h, 1, dots_h);
        axis_dots(a, table_w, a->q_w, a->k_w, 0, dots_w);
        for (int64_t h = 0; h < n; h++) {
            for (int64_t i = 0; i < tokens_q; i++) {
                for (int64_t j = 0; j < a->k_h * a->k_w; j++) {
                    int64_t idx[3] = {h, i, j};
                    double bias = dots_h[(h * tokens_q + i) * a->k_h + j / a->k_w] +
                                  dots_w[(h * tokens_q + i) * a->k_w + j % a->k_w];
                    pecert__ref_store_float(a->out, idx, bias);
                }
            }
        }
    }
    free(table_h);
    free(table_w);
    free(dots_h);
    free(dots_w);
    return status;
}

pecert_status pecert__ref_relpos2d_bias(void *instance, const pecert_relpos2d_args *args)
{
    return pecert__ref_run(instance, "relpos2d_bias", args, sizeof(*args), pecert__ref_check_relpos2d, relpos2d);
}
