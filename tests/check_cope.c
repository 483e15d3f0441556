/*
 * check_cope.c - CoPE's op (ABI 1.8, cope_logits) in `ref`, `fast` and an
 * honest float32 variant: rows worked out on paper (the golden vectors
 * check the authors' code), fast's own invariants (strided inputs packed
 * to the packed call's bits, the thread split and the shared gate logits
 * changing no bit, under every ISA variant), and the refusals of bad
 * arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fast_handle.h"
#include "suites.h"

/* One call's tensors, packed unless a stride says otherwise. */
typedef struct cope_io {
    pecert_tensor q, k, g, e, m, p, l;
} cope_io;

static pecert_cope_args make_args(cope_io *io, int64_t npos, int nodiv, int masked)
{
    return (pecert_cope_args){.struct_size = sizeof(pecert_cope_args), .npos = npos, .nodiv = nodiv,
                              .q = &io->q, .k = &io->k, .gate_k = &io->g, .pos_emb = &io->e,
                              .mask = masked ? &io->m : NULL, .positions = &io->p, .logits = &io->l};
}

static pecert_tensor f32(float *data, int64_t rows, int64_t cols)
{
    return pecert_tensor_2d(data, PECERT_DTYPE_F32, rows, cols);
}

/* ---- on paper ------------------------------------------------------------------ */

/*
 * Three tokens, head_dim 1, q = 1, every key and gate key 0: every gate
 * logit is 0, every visible gate sigmoid(0) = 1/2 (exact in binary), and
 * q . k = 0. pos_emb = [0, 1, 2, 3] makes the embedding logit of position
 * p exactly p (the blend of t and t + 1 at weight w is t + w), so under
 * the causal mask row i reads positions (i - j + 1) / 2 for j <= i:
 *   row 0: 0.5,  0,   0      logits 0.5, -inf, -inf
 *   row 1: 1.0,  0.5, 0      logits 1.0, 0.5, -inf
 *   row 2: 1.5,  1.0, 0.5    logits 1.5, 1.0, 0.5
 * (d = 1: the 1/sqrt(d) scale is 1, nodiv or not). With npos = 2 every
 * position clamps at 1: row 2 becomes 1, 1, 0.5. Without a mask every
 * row sees all three keys: positions 1.5, 1.0, 0.5 in each row.
 * All of these are dyadic, so every engine must give them exactly.
 */
typedef struct paper_case {
    const char *what;
    int64_t npos;
    int masked;
    float want_p[9];
    float want_l[9];
} paper_case;

static void paper_run(const char *plugin, const paper_case *pc)
{
    fast_handle h;
    builtin_open(&h, plugin);
    float q[3] = {1, 1, 1}, k[3] = {0}, e[4] = {0, 1, 2, 3};
    float m[9] = {1, 0, 0, 1, 1, 0, 1, 1, 1};
    float p[9], l[9];
    cope_io io = {f32(q, 3, 1), f32(k, 3, 1), f32(k, 3, 1), f32(e, 1, pc->npos), f32(m, 3, 3), f32(p, 3, 3),
                  f32(l, 3, 3)};
    pecert_cope_args a = make_args(&io, pc->npos, 0, pc->masked);
    pecert_status st = h.plugin.desc->cope_logits(h.instance, &a);
    ck_assert_msg(st == PECERT_OK, "%s, %s: %s", plugin, pc->what, h.plugin.desc->last_error(h.instance));
    for (int i = 0; i < 9; i++) {
        ck_assert_msg(p[i] == pc->want_p[i] && l[i] == pc->want_l[i], "%s, %s: [%d] got p %g l %g, want p %g l %g",
                      plugin, pc->what, i, (double)p[i], (double)l[i], (double)pc->want_p[i], (double)pc->want_l[i]);
    }
    builtin_close(&h);
}

START_TEST(test_on_paper)
{
    const float ninf = -INFINITY;
    const paper_case cases[] = {
        {"causal", 4, 1, {0.5f, 0, 0, 1, 0.5f, 0, 1.5f, 1, 0.5f}, {0.5f, ninf, ninf, 1, 0.5f, ninf, 1.5f, 1, 0.5f}},
        {"causal, npos 2", 2, 1, {0.5f, 0, 0, 1, 0.5f, 0, 1, 1, 0.5f}, {0.5f, ninf, ninf, 1, 0.5f, ninf, 1, 1, 0.5f}},
        {"no mask", 4, 0, {1.5f, 1, 0.5f, 1.5f, 1, 0.5f, 1.5f, 1, 0.5f}, {1.5f, 1, 0.5f, 1.5f, 1, 0.5f, 1.5f, 1, 0.5f}},
    };
    for (size_t k = 0; k < ARRAY_LEN(abi_engines); k++) {
        for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
            paper_run(abi_engines[k], &cases[c]);
        }
    }
}
END_TEST

/*
 * The scale, on paper: head_dim 4, q = (1, 1, 1, 1), one key k = (1, 0, 0, 0)
 * and a gate key of 0 (gate 1/2, position 0.5), pos_emb all 2 (so z = q .
 * e = 8 at any position): the default logit is (q . k + z) / sqrt(4) =
 * (1 + 8) / 2 = 4.5, nodiv's q . k / 2 + z = 8.5.
 */
START_TEST(test_scale_on_paper)
{
    for (size_t k = 0; k < ARRAY_LEN(abi_engines); k++) {
        fast_handle h;
        builtin_open(&h, abi_engines[k]);
        float q[4] = {1, 1, 1, 1}, key[4] = {1, 0, 0, 0}, g[4] = {0}, e[8] = {2, 2, 2, 2, 2, 2, 2, 2};
        for (int nodiv = 0; nodiv <= 1; nodiv++) {
            float p = -1, l = -1;
            cope_io io = {f32(q, 1, 4), f32(key, 1, 4), f32(g, 1, 4), f32(e, 4, 2), f32(NULL, 0, 0), f32(&p, 1, 1),
                          f32(&l, 1, 1)};
            pecert_cope_args a = make_args(&io, 2, nodiv, 0);
            ck_assert_int_eq(h.plugin.desc->cope_logits(h.instance, &a), PECERT_OK);
            ck_assert_msg(p == 0.5f && l == (nodiv ? 8.5f : 4.5f), "%s nodiv=%d: p %g l %g", abi_engines[k], nodiv,
                          (double)p, (double)l);
        }
        builtin_close(&h);
    }
}
END_TEST

/* ---- fast's invariants ----------------------------------------------------------- */

/* 61 x (83 + 84) dot products of 32 floats: 1.3 MB of work, past fast's
 * 1 MiB threshold, so the 2-thread runs do split the rows. */
enum { NQ = 61, NK = 83, D = 32, NPOS = 84 };

typedef struct cope_data {
    float q[NQ * D], k[NK * D], g[NK * D], e[D * NPOS], m[NQ * NK];
} cope_data;

static void fill(cope_data *x)
{
    pecert_rng rng = {0x636f7065u};
    for (size_t i = 0; i < ARRAY_LEN(x->q); i++) {
        x->q[i] = 2.0f * pecert_rng_float(&rng);
    }
    for (size_t i = 0; i < ARRAY_LEN(x->k); i++) {
        x->k[i] = 2.0f * pecert_rng_float(&rng);
        x->g[i] = 2.0f * pecert_rng_float(&rng);
    }
    for (size_t i = 0; i < ARRAY_LEN(x->e); i++) {
        x->e[i] = pecert_rng_float(&rng);
    }
    for (int i = 0; i < NQ; i++) {
        for (int j = 0; j < NK; j++) {
            x->m[i * NK + j] = j <= i + (NK - NQ) && j != 3 ? 1.0f : 0.0f; /* causal, key 3 padded */
        }
    }
}

/* Runs fast (isa, threads) on x with the gate keys g_src, every input
 * strided by `spread` floats per element when spread > 1; p, l [NQ * NK]. */
static void fast_run(const char *isa, int threads, const cope_data *x, const float *g_src, int spread, float *p,
                     float *l)
{
    fast_handle h;
    ck_assert_int_eq(fast_open(&h, isa), PECERT_OK);
    ck_assert_int_eq(h.plugin.desc->set_num_threads(h.instance, threads), PECERT_OK);
    size_t n = (size_t)spread * (NQ * D + 2 * NK * D + D * NPOS);
    float *wide = calloc(n, sizeof(float));
    ck_assert_ptr_nonnull(wide);
    const float *src[4] = {x->q, x->k, g_src, x->e};
    const int64_t rows[4] = {NQ, NK, NK, D}, cols[4] = {D, D, D, NPOS};
    pecert_tensor t[4];
    float *at = wide;
    for (int s = 0; s < 4; s++) {
        for (int64_t i = 0; i < rows[s] * cols[s]; i++) {
            at[i * spread] = src[s][i];
        }
        t[s] = f32(at, rows[s], cols[s]);
        t[s].strides[0] = cols[s] * spread;
        t[s].strides[1] = spread;
        at += rows[s] * cols[s] * spread;
    }
    cope_io io = {t[0], t[1], t[2], t[3], f32((void *)(uintptr_t)x->m, NQ, NK), f32(p, NQ, NK), f32(l, NQ, NK)};
    pecert_cope_args a = make_args(&io, NPOS, 0, 1);
    ck_assert_msg(h.plugin.desc->cope_logits(h.instance, &a) == PECERT_OK, "%s", h.plugin.desc->last_error(h.instance));
    free(wide);
    fast_close(&h);
}

static void same_bits(const float *x, const float *y, const char *what, const char *isa)
{
    ck_assert_msg(memcmp(x, y, NQ * NK * sizeof(float)) == 0, "%s changes fast's bits (PECERT_ISA=%s)", what,
                  isa != NULL ? isa : "best");
}

/* fast packs strided inputs, splits query rows over threads with each row
 * whole on one thread, and reuses the gate logits as q . k only when the
 * gate keys are the key view itself: none of it may change a bit. */
START_TEST(test_fast_invariants)
{
    static cope_data x;
    static float p0[NQ * NK], l0[NQ * NK], p1[NQ * NK], l1[NQ * NK];
    fill(&x);
    for (size_t i = 0; i < ARRAY_LEN(fast_isas); i++) {
        fast_handle probe;
        pecert_status st = fast_open(&probe, fast_isas[i]);
        fast_close(&probe);
        if (st == PECERT_E_UNSUPPORTED) {
            continue; /* this CPU lacks the ISA */
        }
        fast_run(fast_isas[i], 1, &x, x.k, 1, p0, l0);
        fast_run(fast_isas[i], 2, &x, x.k, 1, p1, l1);
        same_bits(p0, p1, "the thread count", fast_isas[i]);
        same_bits(l0, l1, "the thread count", fast_isas[i]);
        fast_run(fast_isas[i], 2, &x, x.k, 3, p1, l1);
        same_bits(p0, p1, "strided inputs", fast_isas[i]);
        same_bits(l0, l1, "strided inputs", fast_isas[i]);
        static float k_copy[NK * D];
        memcpy(k_copy, x.k, sizeof(k_copy));
        fast_run(fast_isas[i], 2, &x, k_copy, 1, p1, l1);
        same_bits(p0, p1, "gate keys as a copy of the keys", fast_isas[i]);
        same_bits(l0, l1, "gate keys as a copy of the keys", fast_isas[i]);
    }
}
END_TEST

/* ---- refusals ------------------------------------------------------------------ */

static void expect_refusal(const fast_handle *h, const char *name, pecert_cope_args a, const float *out, size_t n,
                           pecert_status want, const char *field)
{
    expect_refused(h, name, h->plugin.desc->cope_logits(h->instance, &a), want, field);
    expect_unwritten(out, n, -7.0f, name, field);
}

START_TEST(test_refusals)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float q[2 * 4] = {0}, k[3 * 4] = {0}, e[4 * 5] = {0}, m[2 * 3] = {1, 1, 1, 1, 1, 1};
        float out[2 * 2 * 3];
        fill_f32(out, ARRAY_LEN(out), -7.0f);
        cope_io io = {f32(q, 2, 4), f32(k, 3, 4), f32(k, 3, 4), f32(e, 4, 5), f32(m, 2, 3), f32(out, 2, 3),
                      f32(out + 6, 2, 3)};
        const pecert_cope_args good = make_args(&io, 5, 0, 1);
        size_t n = ARRAY_LEN(out);
        pecert_cope_args a = good;
        m[4] = 0.5f;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "mask[1, 1]");
        m[4] = 1.0f;
        a.npos = 0;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "npos");
        a = good;
        a.npos = 4; /* pos_emb holds 5 positions */
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "pos_emb");
        a = good;
        a.nodiv = 2;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "nodiv");
        pecert_tensor no_keys = f32(k, 0, 4), no_gates = f32(k, 0, 4), no_mask = f32(m, 2, 0);
        pecert_tensor no_p = f32(out, 2, 0), no_l = f32(out + 6, 2, 0);
        a = good;
        a.k = &no_keys;
        a.gate_k = &no_gates;
        a.mask = &no_mask;
        a.positions = &no_p;
        a.logits = &no_l;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "k.shape");
        pecert_tensor narrow_g = f32(k, 3, 3);
        a = good;
        a.gate_k = &narrow_g;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "gate_k");
        pecert_tensor short_l = f32(out + 6, 2, 2);
        a = good;
        a.logits = &short_l;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "logits");
        pecert_tensor over_q = f32(q, 2, 3);
        a = good;
        a.positions = &over_q;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "overlaps q");
        pecert_tensor over_p = f32(out + 2, 2, 3);
        a = good;
        a.logits = &over_p;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_INVAL, "positions overlaps logits");
        a = good;
        a.reserved[1] = 1;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_UNSUPPORTED, "reserved");
        a = good;
        a.struct_size = 16;
        expect_refusal(&h, abi_engines[p], a, out, n, PECERT_E_ABI, "struct_size");
        ck_assert_int_eq(h.plugin.desc->cope_logits(h.instance, &good), PECERT_OK);
        pecert_tensor no_q = f32(q, 0, 4), none_m = f32(m, 0, 3), none_p = f32(out, 0, 3), none_l = f32(out + 6, 0, 3);
        a = good;
        a.q = &no_q;
        a.mask = &none_m;
        a.positions = &none_p;
        a.logits = &none_l;
        ck_assert_msg(h.plugin.desc->cope_logits(h.instance, &a) == PECERT_OK, "%s: no queries refused: %s",
                      abi_engines[p], h.plugin.desc->last_error(h.instance));
        builtin_close(&h);
    }
}
END_TEST

/* A NaN gate logit at the last key (a gate key of inf against a query
 * component of 0) makes every position of the row NaN, whatever the order
 * the gates are summed in: plugin.h asks for NaN positions and logits
 * there (no embedding to read), never an index taken from a NaN. */
START_TEST(test_nan_position)
{
    for (size_t p = 0; p < ARRAY_LEN(abi_engines); p++) {
        fast_handle h;
        builtin_open(&h, abi_engines[p]);
        float q[2] = {0, 1}, k[4] = {0}, g[4] = {0, 0, INFINITY, 0}, e[2 * 3] = {0}, pos[2], l[2];
        cope_io io = {f32(q, 1, 2), f32(k, 2, 2), f32(g, 2, 2), f32(e, 2, 3), f32(NULL, 0, 0), f32(pos, 1, 2),
                      f32(l, 1, 2)};
        pecert_cope_args a = make_args(&io, 3, 0, 0);
        ck_assert_int_eq(h.plugin.desc->cope_logits(h.instance, &a), PECERT_OK);
        for (int j = 0; j < 2; j++) {
            ck_assert_msg(isnan(pos[j]) && isnan(l[j]), "%s: key %d: position %g, logit %g", abi_engines[p], j,
                          (double)pos[j], (double)l[j]);
        }
        builtin_close(&h);
    }
}
END_TEST

Suite *make_cope_suite(void)
{
    return test_suite_of("cope",
                         TEST_TCASE("cope", 120,
                                    test_on_paper,
                                    test_scale_on_paper,
                                    test_fast_invariants,
                                    test_refusals,
                                    test_nan_position),
                         NULL);
}
