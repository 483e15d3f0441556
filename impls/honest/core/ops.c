/*
 * ops.c - rope_freqs and rope_cos_sin of an honest variant: the float32
 * frequency set and cos/sin rows of freqs.c and cache.c, widened.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "honest.h"

pecert_status honest_rope_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                const pecert_rope_config *config, int64_t seq_len)
{
    pecert__ref_call call;
    honest_freqs f;
    pecert__ref_begin_call(&call, instance, "rope_freqs");
    if (out_inv_freq == NULL || out_scaling == NULL) {
        return pecert__ref_fail(&call, PECERT_E_INVAL, "%s is NULL",
                                out_inv_freq == NULL ? "out_inv_freq" : "out_attention_scaling");
    }
    pecert_status st = pecert__ref_check_config(&call, config);
    if (st == PECERT_OK) {
        st = pecert__ref_check_seq_len(&call, seq_len);
    }
    if (st == PECERT_OK) {
        st = honest_freqs_init(&call, &f, config, seq_len, NULL, 0);
    }
    if (st != PECERT_OK) {
        return st;
    }
    for (int32_t i = 0; i < f.half; i++) {
        out_inv_freq[i] = f.inv_freq[i];
    }
    *out_scaling = f.scaling;
    honest_freqs_free(&f);
    return PECERT_OK;
}

static pecert_status check_table(const pecert__ref_call *call, const char *name,
                                 const pecert_tensor *t, int64_t n, int32_t half)
{
    pecert_status st = pecert__ref_check_tensor(call, name, t, 2, 1, 1);
    if (st == PECERT_OK && (t->shape[0] != n || t->shape[1] != half)) {
        st = pecert__ref_fail(call, PECERT_E_INVAL,
                              "%s.shape=[%" PRId64 ", %" PRId64 "] must be [n_positions=%" PRId64
                              ", rotary_dim/2=%" PRId32 "]",
                              name, t->shape[0], t->shape[1], n, half);
    }
    return st;
}

static pecert_status check_cos_sin(const pecert__ref_call *call, const pecert_tensor *out_cos,
                                   const pecert_tensor *out_sin, const pecert_rope_config *config,
                                   int64_t seq_len, const int64_t *positions, int64_t n)
{
    pecert_status st = pecert__ref_check_config(call, config);
    if (st == PECERT_OK) {
        st = pecert__ref_check_seq_len(call, seq_len);
    }
    if (st == PECERT_OK && n < 0) {
        st = pecert__ref_check_positions(call, positions, n);
    }
    if (st == PECERT_OK) {
        st = check_table(call, "out_cos", out_cos, n, config->rotary_dim / 2);
    }
    if (st == PECERT_OK) {
        st = check_table(call, "out_sin", out_sin, n, config->rotary_dim / 2);
    }
    if (st == PECERT_OK) {
        st = pecert__ref_check_positions(call, positions, n);
    }
    if (st == PECERT_OK && n > 0 && out_cos->data == out_sin->data) {
        st = pecert__ref_fail(call, PECERT_E_INVAL, "out_cos and out_sin share their data pointer");
    }
    return st;
}

static void store(const pecert_tensor *t, int64_t row, int32_t i, float v)
{
    int64_t off = row * t->strides[0] + i * t->strides[1];
    if (t->dtype == PECERT_DTYPE_F64) {
        ((double *)t->data)[off] = v;
    } else {
        ((float *)t->data)[off] = v;
    }
}

pecert_status honest_rope_cos_sin(void *instance, pecert_tensor *out_cos, pecert_tensor *out_sin,
                                  const pecert_rope_config *config, int64_t seq_len,
                                  const int64_t *positions, int64_t n)
{
    pecert__ref_call call;
    honest_freqs f;
    pecert__ref_begin_call(&call, instance, "rope_cos_sin");
    pecert_status st = check_cos_sin(&call, out_cos, out_sin, config, seq_len, positions, n);
    if (st == PECERT_OK) {
        st = honest_freqs_init(&call, &f, config, seq_len, positions, n);
    }
    if (st != PECERT_OK) {
        return st;
    }
    size_t half = (size_t)(f.half > 0 ? f.half : 1);
    float *c = malloc(2 * half * sizeof(float));
    st = c != NULL ? PECERT_OK : pecert__ref_fail(&call, PECERT_E_NOMEM, "out of memory");
    for (int64_t r = 0; st == PECERT_OK && r < n; r++) {
        st = honest_row(&call, instance, &f, config, positions[r], c, c + half);
        for (int32_t i = 0; st == PECERT_OK && i < f.half; i++) {
            store(out_cos, r, i, c[i]);
            store(out_sin, r, i, c[half + (size_t)i]);
        }
    }
    free(c);
    honest_freqs_free(&f);
    return st;
}
