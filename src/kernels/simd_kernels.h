// simd_kernels.h: the vector kernels, written once. Not a header to include
// anywhere else: simd_avx512.c and simd_avx2.c each define `vec`, VEC (its
// floats), GEMM_ROWS, KERNEL(name) (the name with the instruction set's
// suffix), TARGET and the vec_ operations, and then include this file, which
// so compiles into gemm_panel_avx512, gemm_panel_avx2, and so on. simd.h
// declares them; the reference code each one replaces is named beside it.
//
//   n, k, w   a product block: c is (n, w), w <= 2 VEC columns, summing over k
//   rows, L   softmax: rows of L numbers each
//   n         Adam: numbers updated

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INLINE TARGET static inline __attribute__((always_inline))

// ---------------------------------------------------------------- gemm

// The w (0 < w) numbers from p, up to a vector, zero beyond w.
INLINE vec load_part(const float *p, int w) { return w >= VEC ? vec_load(p) : vec_load_first(p, w); }
INLINE void store_part(float *p, vec x, int w) {
    if (w >= VEC) vec_store(p, x);
    else vec_store_first(p, x, w);
}

// A whole vector, or (partial) the first w numbers.
INLINE vec load_vec(const float *p, int partial, int w) { return partial ? vec_load_first(p, w) : vec_load(p); }
INLINE void store_vec(float *p, vec x, int partial, int w) {
    if (partial) vec_store_first(p, x, w);
    else vec_store(p, x);
}

//> gemm-block
// c[0 .. R, columns) += sum_p a(r, p) b[p, columns): R rows of c, each NV
// vectors of columns wide, the last one only w_last numbers when PART; in
// all R NV vectors of sums, kept in registers. a(r, p) = a[r a_i + p a_p].
// R, NV and PART are constants where it is called: the loops over them are
// unrolled, and nothing is decided inside the loop over p. With ZERO the
// sums start from 0 instead of c's numbers, and with start (not NULL) from
// the numbers of that one row, the same for every row (c is then written,
// not read).
INLINE void gemm_block(float *c, long ldc, const float *start, const float *a, long a_i,
                       long a_p, const float *b, long ldb, int k, int R, int NV, int PART,
                       int w_last, int ZERO) {
    vec acc[GEMM_ROWS][2];
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            acc[r][v] = ZERO    ? vec_set(0)
                        : start ? load_vec(start + v * VEC, PART && v == NV - 1, w_last)
                                : load_vec(c + r * ldc + v * VEC, PART && v == NV - 1, w_last);
    for (int p = 0; p < k; p++) {
        const float *bp = b + p * ldb, *ap = a + p * a_p;
        vec bv[2];
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            bv[v] = load_vec(bp + v * VEC, PART && v == NV - 1, w_last);
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            vec x = vec_set(ap[r * a_i]);  // a(r, p) in every lane
#pragma GCC unroll 2
            for (int v = 0; v < NV; v++) acc[r][v] = vec_fma(x, bv[v], acc[r][v]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 2
        for (int v = 0; v < NV; v++)
            store_vec(c + r * ldc + v * VEC, acc[r][v], PART && v == NV - 1, w_last);
}
//< gemm-block

// All n rows, GEMM_ROWS at a time, then 2 and 1, for one shape of columns.
INLINE void gemm_rows(float *c, long ldc, const float *start, const float *a, long a_i, long a_p,
                      const float *b, long ldb, int n, int k, int NV, int PART, int w_last,
                      int ZERO) {
    int i = 0;
    for (; i + GEMM_ROWS <= n; i += GEMM_ROWS)
        gemm_block(c + i * ldc, ldc, start, a + i * a_i, a_i, a_p, b, ldb, k, GEMM_ROWS, NV, PART, w_last, ZERO);
    for (; i + 2 <= n; i += 2) gemm_block(c + i * ldc, ldc, start, a + i * a_i, a_i, a_p, b, ldb, k, 2, NV, PART, w_last, ZERO);
    for (; i < n; i++) gemm_block(c + i * ldc, ldc, start, a + i * a_i, a_i, a_p, b, ldb, k, 1, NV, PART, w_last, ZERO);
}

// Columns [0, w) (w <= 2 VEC) of c, all n rows, by the shape of the columns;
// each row's sums start from start's numbers when start is not NULL.
INLINE void gemm_columns_from(float *c, long ldc, const float *start, const float *a, long a_i,
                              long a_p, const float *b, long ldb, int n, int k, int w, int ZERO) {
    if (w == 2 * VEC) gemm_rows(c, ldc, start, a, a_i, a_p, b, ldb, n, k, 2, 0, VEC, ZERO);
    else if (w > VEC) gemm_rows(c, ldc, start, a, a_i, a_p, b, ldb, n, k, 2, 1, w - VEC, ZERO);
    else if (w == VEC) gemm_rows(c, ldc, start, a, a_i, a_p, b, ldb, n, k, 1, 0, VEC, ZERO);
    else gemm_rows(c, ldc, start, a, a_i, a_p, b, ldb, n, k, 1, 1, w, ZERO);
}

INLINE void gemm_columns(float *c, long ldc, const float *a, long a_i, long a_p, const float *b,
                         long ldb, int n, int k, int w, int ZERO) {
    gemm_columns_from(c, ldc, NULL, a, a_i, a_p, b, ldb, n, k, w, ZERO);
}

// Replaces the inner loops of gemm_reference (gemm_reference.c): rows [0, n) of c
// and w <= 2 VEC of its columns, c(i, j) = c[i ldc + j],
// += a(i, p) b[p ldb + j] with a(i, p) = a[i a_i + p a_p]; with start not
// NULL, c(i, j) = start[j] + the same terms (c written, not read: what
// setting each row of c to start first would give, to the bit).
TARGET void KERNEL(gemm_panel)(float *c, long ldc, const float *start, const float *a, long a_i,
                               long a_p, const float *b, long ldb, int n, int k, int w) {
    gemm_columns_from(c, ldc, start, a, a_i, a_p, b, ldb, n, k, w, 0);
}

// Replaces gemm_panel for a single row of c, eight vectors of columns at
// once (four panels): c[j] += sum_p a[p a_p] b[p ldb + j] for j < 8 VEC.
// Eight chains of fused multiply-adds are in flight where a panel of one
// row has two, so the loads of b overlap; each entry still adds its terms
// in order, one rounding each: gemm_panel's numbers.
TARGET void KERNEL(gemm_row)(float *c, const float *a, long a_p, const float *b, long ldb, int k) {
    vec acc[8];
#pragma GCC unroll 8
    for (int v = 0; v < 8; v++) acc[v] = vec_load(c + v * VEC);
    for (int p = 0; p < k; p++) {
        const vec x = vec_set(a[p * a_p]);
        const float *bp = b + p * ldb;
#pragma GCC unroll 8
        for (int v = 0; v < 8; v++) acc[v] = vec_fma(x, vec_load(bp + v * VEC), acc[v]);
    }
#pragma GCC unroll 8
    for (int v = 0; v < 8; v++) vec_store(c + v * VEC, acc[v]);
}

// Replaces the copy in gemm_fast_rows of a slice of b^T for GEMM_ABT:
// bt[p W + j] = b[j ldb + p] for p < k, j < w <= W (W = 2 VEC). Whole
// VEC x VEC blocks are loaded row by row and transposed in registers; what
// is left, a column of b at a time into a vector.
TARGET void KERNEL(pack_transposed)(float *bt, const float *b, long ldb, int k, int w) {
    int W = 2 * VEC;
    for (int j = 0; j < w; j += VEC) {
        int p = 0;
        if (w - j >= VEC)
            for (; p + VEC <= k; p += VEC) {
                vec block[VEC];
                for (int i = 0; i < VEC; i++) block[i] = vec_load(b + (j + i) * ldb + p);
                vec_transpose(block);  // block[i]: b[j .. j + VEC, p + i]
                for (int i = 0; i < VEC; i++) vec_store(bt + (p + i) * W + j, block[i]);
            }
        for (; p < k; p++) vec_store(bt + p * W + j, vec_gather(b + j * ldb + p, (int)ldb, w - j));
    }
}

// ---------------------------------------------------------------- softmax

// e^x, to about one unit in the last place, for x <= 88: x = n ln 2 + r
// with n whole and |r| <= ln(2)/2, e^r by its Taylor polynomial (Cephes'
// coefficients, fitted for that range), then times 2^n. Below -87.3 the
// true value is not a normal float; this returns e^-87.3 instead (about
// 1e-38, as good as zero next to the 1 that a softmax row always holds).
INLINE vec vec_exp(vec x) {
    x = vec_max(x, vec_set(-87.3f));
    vec n = vec_round(vec_mul(x, vec_set(1.44269504088896341f)));  // x / ln 2
    vec r = vec_fma(n, vec_set(-0.693359375f), x);  // x - n ln 2, ln 2 in two parts
    r = vec_fma(n, vec_set(2.12194440e-4f), r);
    vec p = vec_set(1.9875691500e-4f);
    p = vec_fma(p, r, vec_set(1.3981999507e-3f));
    p = vec_fma(p, r, vec_set(8.3334519073e-3f));
    p = vec_fma(p, r, vec_set(4.1665795894e-2f));
    p = vec_fma(p, r, vec_set(1.6666665459e-1f));
    p = vec_fma(p, r, vec_set(5.0000001201e-1f));
    p = vec_fma(p, vec_mul(r, r), vec_add(r, vec_set(1)));  // 1 + r + r^2 (1/2 + ...)
    return vec_mul(p, vec_pow2(n));
}

// Replaces the scaling loops of attention_head_forward and _backward,
// with the same bits: x[i] *= s for the n numbers of x.
TARGET void KERNEL(scale)(float *x, long n, float s) {
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        store_part(x + i, vec_mul(load_part(x + i, w), vec_set(s)), w);
    }
}

// The largest of the n (0 < n) numbers of row.
INLINE float row_max(const float *row, int n) {
    vec mx = vec_set(-INFINITY);
    for (int j = 0; j < n; j += VEC) mx = vec_max(mx, vec_load_first_or(row + j, n - j, -INFINITY));
    return vec_max_all(mx);
}

// Replaces softmax_rows (softmax.c) in attention_head_forward: each row
// of x (rows, L) becomes softmax(row). The max and the sum are taken a
// vector at a time, then across the vector; the lanes of a last, partial
// vector are filled with -infinity for the max and left out of the sum.
TARGET void KERNEL(softmax_rows)(float *x, int rows, int L) {
    for (int i = 0; i < rows; i++) {
        float *row = x + (long)i * L;
        vec sum = vec_set(0), top = vec_set(row_max(row, L));  // pass 1: the largest
        for (int j = 0; j < L; j += VEC) {  // pass 2: e^(x - max) and their sum
            vec e = vec_keep_first(vec_exp(vec_sub(load_part(row + j, L - j), top)), L - j);
            sum = vec_add(sum, e);
            store_part(row + j, e, L - j);
        }
        vec total = vec_set(vec_sum(sum));
        for (int j = 0; j < L; j += VEC)  // pass 3: divided by the sum
            store_part(row + j, vec_div(load_part(row + j, L - j), total), L - j);
    }
}

// Replaces softmax_backward_rows (softmax.c) in attention_head_backward:
// with w a row of softmax weights and g the gradient with respect to it, g
// becomes w (g - g . w), the gradient with respect to the scores. g, w are
// (rows, L).
TARGET void KERNEL(softmax_backward_rows)(float *g, const float *w, int rows, int L) {
    for (int i = 0; i < rows; i++) {
        float *gi = g + (long)i * L;
        const float *wi = w + (long)i * L;
        vec dot = vec_set(0);
        for (int j = 0; j < L; j += VEC)  // missing lanes load as 0 and add 0
            dot = vec_fma(load_part(gi + j, L - j), load_part(wi + j, L - j), dot);
        vec d = vec_set(vec_sum(dot));
        for (int j = 0; j < L; j += VEC)
            store_part(gi + j, vec_mul(load_part(wi + j, L - j), vec_sub(load_part(gi + j, L - j), d)),
                       L - j);
    }
}

// ---------------------------------------------------------------- embedding

// Replaces the loop of embedding_backward (embedding.c), with the same bits:
// row ids[t] of table (V, d) += row t of src (n, d), token after token, a
// vector at a time; the rows a few tokens ahead are asked for early, since
// they are scattered over the table.
TARGET void KERNEL(scatter_add_rows)(float *table, const float *src, const int32_t *ids, int n, int d) {
    for (int t = 0; t < n; t++) {
        if (t + 4 < n)
            for (int j = 0; j < d; j += 16) __builtin_prefetch(table + (long)ids[t + 4] * d + j);
        float *row = table + (long)ids[t] * d;
        const float *g = src + (long)t * d;
        for (int j = 0; j < d; j += VEC) store_part(row + j, vec_add(load_part(row + j, d - j), load_part(g + j, d - j)), d - j);
    }
}

// Replace the loops of mean_forward and mean_backward (mean.c), with the
// same bits: out[b] = (sum_t inp[b, t]) / L, added in the order of t; and
// dinp[b, t] += dout[b] / L. inp, dinp are (B, L, d), out, dout (B, d).
TARGET void KERNEL(mean_rows)(float *out, const float *inp, int B, int L, int d) {
    for (int b = 0; b < B; b++)
        for (int j = 0; j < d; j += VEC) {
            vec sum = vec_set(0);
            for (int t = 0; t < L; t++) sum = vec_add(sum, load_part(inp + ((long)b * L + t) * d + j, d - j));
            store_part(out + (long)b * d + j, vec_div(sum, vec_set((float)L)), d - j);
        }
}

TARGET void KERNEL(mean_backward_rows)(float *dinp, const float *dout, int B, int L, int d) {
    for (int b = 0; b < B; b++)
        for (int j = 0; j < d; j += VEC) {
            vec g = vec_div(load_part(dout + (long)b * d + j, d - j), vec_set((float)L));
            for (int t = 0; t < L; t++) {
                float *row = dinp + ((long)b * L + t) * d + j;
                store_part(row, vec_add(load_part(row, d - j), g), d - j);
            }
        }
}

// Replaces the bias loop of linear_backward (linear.c), with the same bits:
// out[j] += x[0, j] + x[1, j] + ..., in the order of the rows. x is (rows, d).
// Four vectors of columns at a time: four chains of additions side by side,
// where one would wait for each addition before the next.
TARGET void KERNEL(add_column_sums)(float *out, const float *x, int rows, int d) {
    int j = 0;
    for (; j + 4 * VEC <= d; j += 4 * VEC) {
        vec sum[4];
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) sum[v] = vec_load(out + j + v * VEC);
        for (int t = 0; t < rows; t++)
#pragma GCC unroll 4
            for (int v = 0; v < 4; v++)
                sum[v] = vec_add(sum[v], vec_load(x + (long)t * d + j + v * VEC));
#pragma GCC unroll 4
        for (int v = 0; v < 4; v++) vec_store(out + j + v * VEC, sum[v]);
    }
    for (; j < d; j += VEC) {
        vec sum = load_part(out + j, d - j);
        for (int t = 0; t < rows; t++) sum = vec_add(sum, load_part(x + (long)t * d + j, d - j));
        store_part(out + j, sum, d - j);
    }
}

// ---------------------------------------------------------------- Adam

// Replaces the loop of gradient_step (adam.c), adam_step's loop, and gives
// the same bits: the
// same operations in the same order, each rounded once (no fused
// multiply-add here), a vector of parameters at a time.
TARGET void KERNEL(adam_dense)(float *p, const float *g, float *m, float *v, long n, float b1, float b2,
                               float eps, float step, float inv_root_c2) {
    vec B1 = vec_set(b1), B2 = vec_set(b2), C1 = vec_set(1 - b1), C2 = vec_set(1 - b2);
    vec E = vec_set(eps), S = vec_set(step), R = vec_set(inv_root_c2);
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        vec gi = load_part(g + i, w);
        vec mi = vec_add(vec_mul(B1, load_part(m + i, w)), vec_mul(C1, gi));
        vec vi = vec_add(vec_mul(B2, load_part(v + i, w)), vec_mul(vec_mul(C2, gi), gi));
        vec pi = vec_sub(load_part(p + i, w), vec_div(vec_mul(S, mi), vec_add(vec_mul(vec_sqrt(vi), R), E)));
        store_part(m + i, mi, w);
        store_part(v + i, vi, w);
        store_part(p + i, pi, w);
    }
}

// Replaces the loop of adamw_step (adamw.c) on a run of parameters that are
// all decayed (shrink 1 - lr wd) or all not (shrink 1, which leaves a
// parameter as it is), with the same bits: the same operations in the same
// order, each rounded once (no fused multiply-add), a vector at a time.
// a1 = 1 - b1 and a2 = 1 - b2 as the caller rounded them.
TARGET void KERNEL(adamw_dense)(float *p, const float *g, float *m, float *v, long n, float shrink,
                                float b1, float b2, float a1, float a2, float eps, float step,
                                float root_c2) {
    vec B1 = vec_set(b1), B2 = vec_set(b2), A1 = vec_set(a1), A2 = vec_set(a2), E = vec_set(eps);
    vec S = vec_set(step), R = vec_set(root_c2), K = vec_set(shrink);
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        vec gi = load_part(g + i, w), pi = vec_mul(load_part(p + i, w), K);
        vec mi = vec_add(vec_mul(B1, load_part(m + i, w)), vec_mul(A1, gi));
        vec vi = vec_add(vec_mul(B2, load_part(v + i, w)), vec_mul(vec_mul(A2, gi), gi));
        pi = vec_sub(pi, vec_div(vec_mul(S, mi), vec_add(vec_div(vec_sqrt(vi), R), E)));
        store_part(m + i, mi, w);
        store_part(v + i, vi, w);
        store_part(p + i, pi, w);
    }
}

// Replaces the loops of missed_steps (adam.c): steps t0 + 1 .. t1 of Adam
// with a zero gradient on p, m, v (n each), step t with the constants
// step_at[t] and inv_root_c2_at[t]. A vector of parameters stays in
// registers through all the steps: one load and one store for any number of
// steps.
TARGET void KERNEL(adam_missed_steps)(float *p, float *m, float *v, long n, const float *step_at,
                                      const float *inv_root_c2_at, long t0, long t1, float b1, float b2,
                                      float eps) {
    vec B1 = vec_set(b1), B2 = vec_set(b2), E = vec_set(eps);
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        vec pi = load_part(p + i, w), mi = load_part(m + i, w), vi = load_part(v + i, w);
        for (long t = t0 + 1; t <= t1; t++) {
            mi = vec_mul(B1, mi);  // b1 m + (1 - b1) 0
            vi = vec_mul(B2, vi);
            vec root = vec_add(vec_mul(vec_sqrt(vi), vec_set(inv_root_c2_at[t])), E);
            pi = vec_sub(pi, vec_div(vec_mul(vec_set(step_at[t]), mi), root));
        }
        store_part(m + i, mi, w);
        store_part(v + i, vi, w);
        store_part(p + i, pi, w);
    }
}

// ---------------------------------------------------------------- one head of nn.MultiheadAttention

// The readable code of multihead_attention.c copies each head's columns out
// (split_heads), runs gemm on the copies and copies the results back
// (merge_heads); these read and write the columns in place, rows ld
// numbers apart. Every product entry is summed as gemm_panel sums it (from
// its start value, one fused multiply-add per term, in the order of the
// terms). The softmax's e^x is vec_exp, not expf, and its sums (the row's
// total, and w . dw backward) are taken in 16 interleaved partial sums
// added in a tree (sum16), so these agree with masked_softmax and
// head_backward to rounding (within 1e-5 relative, tests/test_kernels.c),
// and AVX2 with AVX-512 to the bit.
//
//   nq, nk   the head's queries and keys, dk its columns

// t (dk, nk) = the head's columns of x (nk rows, ld apart), transposed:
// VEC x VEC blocks loaded row by row and transposed in registers, what is
// left one number at a time, a column of t after the other.
INLINE void head_transposed(float *t, const float *x, long ld, int nk, int dk) {
    int j0 = 0;
    for (; j0 + VEC <= nk; j0 += VEC)
        for (int c0 = 0; c0 + VEC <= dk; c0 += VEC) {
            vec block[VEC];
            for (int i = 0; i < VEC; i++) block[i] = vec_load(x + (j0 + i) * ld + c0);
            vec_transpose(block);  // block[i]: column c0 + i of rows j0 .. j0 + VEC
            for (int i = 0; i < VEC; i++) vec_store(t + (long)(c0 + i) * nk + j0, block[i]);
        }
    int c_whole = dk / VEC * VEC;  // the blocks' columns, of the rows before j0
    for (int c = 0; c < dk; c++)
        for (int j = c < c_whole ? j0 : 0; j < nk; j++) t[(long)c * nk + j] = x[j * ld + c];
}

// y (n, w), rows ldy apart, = x b: x(i, p) = x[i x_i + p x_p] is (n, m),
// b (m, w) rows ldb apart. Every entry of y is summed from 0 over p in
// order, one fused multiply-add a term, as gemm_panel sums it into a
// cleared c: the same bits, without clearing. The blocks are gemm_panel's
// (GEMM_ROWS rows and two vectors of columns in registers).
INLINE void head_product(float *y, long ldy, const float *x, long x_i, long x_p, const float *b,
                         long ldb, int n, int m, int w) {
    for (int c = 0; c < w; c += 2 * VEC)
        gemm_columns(y + c, ldy, x, x_i, x_p, b + c, ldb, n, m, w - c < 2 * VEC ? w - c : 2 * VEC, 1);
}

// s (nq, nk) = a b^T with bt = b^T (dk, nk) and a (nq rows, ld apart).
INLINE void head_scores(float *s, const float *a, long ld, const float *bt, int nq, int nk, int dk) {
    head_product(s, nk, a, ld, 1, bt, nk, nq, dk, nk);
}

// Under the causal mask a head's weights are 0 wherever key j comes after
// query i, and so are their gradients: the products skip those terms. A
// sum that starts from 0 and leaves out terms that are exactly 0, at its
// end or at its start, has the same bits.
//
// head_product with x causal weights: lead 0, x(i, p) query i's weight of
// key p (a block of rows needs no key beyond its last query); lead 1,
// x(i, p) query p's weight of key i (a block of rows, keys, needs no query
// before its first key).
INLINE void head_product_causal(float *y, long ldy, const float *x, long x_i, long x_p,
                                const float *b, long ldb, int n, int m, int w, int lead) {
    for (int i = 0; i < n; i += GEMM_ROWS) {
        int R = n - i < GEMM_ROWS ? n - i : GEMM_ROWS;
        int p0 = lead ? (i < m ? i : m) : 0, p1 = lead || i + R > m ? m : i + R;
        head_product(y + i * ldy, ldy, x + i * x_i + p0 * x_p, x_i, x_p, b + p0 * ldb, ldb, R,
                     p1 - p0, w);
    }
}

// head_scores under the causal mask: a panel of keys from c on only for the
// queries from c on, the others see none of them (their places in s are
// left as they were: head_softmax and the backward kernel read no place of
// a key a query does not see beyond the vector that holds its last one).
INLINE void head_scores_causal(float *s, const float *a, long ld, const float *bt, int nq, int nk,
                               int dk) {
    for (int c = 0; c < nk; c += 2 * VEC) {
        int r0 = c < nq ? c : nq;
        gemm_columns(s + (long)r0 * nk + c, nk, a + r0 * ld, ld, 1, bt + c, nk, nq - r0, dk,
                     nk - c < 2 * VEC ? nk - c : 2 * VEC, 1);
    }
}

INLINE float partial_sums(const float *x, float mu, int squares, int d);

// The 16 partial sums held in part (16 / VEC vectors) added in a fixed
// tree: lane i and lane i + 8, then i and i + 4, i and i + 2, and 0 and 1
// (vec_sum). AVX2's two vectors are the two halves of AVX-512's one, so
// both give the same bits; four additions deep where one after the other
// would be sixteen, which a softmax row waits for.
INLINE float sum16(const vec *part) {
    enum { NV = 16 / VEC };
    return vec_sum(NV == 1 ? part[0] : vec_add(part[0], part[NV - 1]));
}

// The n numbers of x in 16 interleaved partial sums, as partial_sums adds
// them, then those in sum16's tree, then the tail one by one.
INLINE float head_sum(const float *x, int n) {
    enum { NV = 16 / VEC };
    vec part[NV];
    for (int v = 0; v < NV; v++) part[v] = vec_set(0);
    int j = 0;
    for (; j + 16 <= n; j += 16)
        for (int v = 0; v < NV; v++) part[v] = vec_add(part[v], vec_load(x + j + v * VEC));
    float sum = sum16(part);
    for (; j < n; j++) sum += x[j];
    return sum;
}

// masked_softmax (multihead_attention.c) on the rows of w (nq, nk), with
// vec_exp for expf (to about a unit in the last place, not the same bits)
// and the row's sum in 16 interleaved partial sums added in a tree
// (head_sum), so that AVX2 and AVX-512 still agree to the bit. The
// readable loop is softmax_row (softmax.c), which masked_softmax calls.
INLINE void head_softmax(float *w, const bool *pad, int causal, int nq, int nk) {
    for (int r = 0; r < nq; r++) {
        float *row = w + (long)r * nk;
        int seen = causal && r + 1 < nk ? r + 1 : nk;
        float top = -INFINITY;
        if (pad) {
            for (int j = 0; j < seen; j++)
                if (!pad[j] && row[j] > top) top = row[j];
        } else {
            top = row_max(row, seen);
        }
        if (top == -INFINITY) {  // every key hidden: a row of zeros
            for (int j = 0; j < nk; j++) row[j] = 0;
            continue;
        }
        for (int j = 0; j < nk; j += VEC) {  // e^(x - top), 0 beyond seen (a vector not read)
            int keep = seen - j < 0 ? 0 : seen - j;
            vec e = keep == 0 ? vec_set(0)
                              : vec_keep_first(vec_exp(vec_sub(load_part(row + j, nk - j), vec_set(top))), keep);
            store_part(row + j, e, nk - j);
        }
        if (pad)
            for (int j = 0; j < seen; j++)
                if (pad[j]) row[j] = 0;
        float sum = head_sum(row, nk);
        if (sum > 0)  // the vectors beyond seen hold zeros, which stay zeros
            for (int j = 0; j < seen; j += VEC)
                store_part(row + j, vec_div(load_part(row + j, nk - j), vec_set(sum)), nk - j);
    }
}

// a . b over n numbers: the products (each rounded) in 16 interleaved
// partial sums, as head_sum adds, those in sum16's tree, then the tail one
// by one; the same bits with AVX2 and AVX-512, not the loop's order.
INLINE float head_dot(const float *a, const float *b, int n) {
    enum { NV = 16 / VEC };
    vec part[NV];
    for (int v = 0; v < NV; v++) part[v] = vec_set(0);
    int j = 0;
    for (; j + 16 <= n; j += 16)
        for (int v = 0; v < NV; v++)
            part[v] = vec_add(part[v], vec_mul(vec_load(a + j + v * VEC), vec_load(b + j + v * VEC)));
    float sum = sum16(part);
    for (; j < n; j++) sum += a[j] * b[j];
    return sum;
}

// Replaces the loops of mha_head_forward (multihead_attention.c), one head
// of one sequence: w (nq, nk) = masked softmax(q k^T), z = w v. q, z have
// nq rows, k, v nk rows, all ld apart; pad (nk) or NULL; scratch (dk nk).
// Under the causal mask, no score of a key a query does not see is
// computed, nor multiplied by its weight 0.
TARGET void KERNEL(attention_head_forward)(float *w, float *z, const float *q, const float *k,
                                           const float *v, long ld, const bool *pad, int causal,
                                           int nq, int nk, int dk, float *scratch) {
    head_transposed(scratch, k, ld, nk, dk);
    if (causal) head_scores_causal(w, q, ld, scratch, nq, nk, dk);
    else head_scores(w, q, ld, scratch, nq, nk, dk);
    head_softmax(w, pad, causal, nq, nk);
    if (causal) head_product_causal(z, ld, w, nk, 1, v, ld, nq, nk, dk, 0);
    else head_product(z, ld, w, nk, 1, v, ld, nq, nk, dk);
}

// The numbers of a row of causal weights that head_dot must read to give
// the bits of the whole row, whose others are 0: its first seen, in
// head_dot's blocks of 16 (or all nk).
INLINE int causal_dot_length(int seen, int nk) {
    int n = (seen + 15) / 16 * 16;
    return n < nk ? n : nk;
}

// attention_head_forward for one query, no mask, with the keys already
// transposed, kt (dk, nk) rows ld_kt apart: the same operations, so the
// same bits, without the copy. z (dk), v (nk, dk) rows dk apart, w (nk).
TARGET void KERNEL(attention_query_forward)(float *w, float *z, const float *q, const float *kt,
                                            long ld_kt, const float *v, int nk, int dk) {
    head_product(w, nk, q, dk, 1, kt, ld_kt, 1, dk, nk);
    head_softmax(w, NULL, 0, 1, nk);
    head_product(z, dk, w, nk, 1, v, dk, 1, nk, dk);
}

// Replaces head_backward (multihead_attention.c) on the head's columns in
// place, where nothing else writes: dq = ds k, dk = ds^T q, dv = w^T dz
// (written, not added: what head_backward adds into cleared arrays), with
// dw (nq, nk) scratch
// that ends up holding ds; dz, q, dq nq rows, k, v, dk, dv nk rows, ld
// apart; scratch (dk nk). causal: w is the forward's under the causal mask,
// whose zeros the products skip, as there (ds is 0 where w is).
TARGET void KERNEL(attention_head_backward)(float *dq, float *dk, float *dv, float *dw,
                                            const float *dz, const float *q, const float *k,
                                            const float *v, const float *w, long ld, int causal,
                                            int nq, int nk, int d_k, float *scratch) {
    head_transposed(scratch, v, ld, nk, d_k);
    if (causal) {
        head_scores_causal(dw, dz, ld, scratch, nq, nk, d_k);           // dw = dz v^T
        head_product_causal(dv, ld, w, 1, nk, dz, ld, nk, nq, d_k, 1);  // dv = w^T dz
    } else {
        head_scores(dw, dz, ld, scratch, nq, nk, d_k);
        head_product(dv, ld, w, 1, nk, dz, ld, nk, nq, d_k);
    }
    for (int r = 0; r < nq; r++) {  // ds = w (dw - w . dw), row by row
        const float *wr = w + (long)r * nk;
        float *g = dw + (long)r * nk;
        int n = causal ? causal_dot_length(r + 1 < nk ? r + 1 : nk, nk) : nk;
        vec dot = vec_set(head_dot(wr, g, n));
        for (int j = 0; j < nk; j += VEC)
            store_part(g + j, j >= n ? vec_set(0) : vec_mul(load_part(wr + j, nk - j), vec_sub(load_part(g + j, nk - j), dot)), nk - j);
    }
    if (causal) {
        head_product_causal(dq, ld, dw, nk, 1, k, ld, nq, nk, d_k, 0);  // dq = ds k
        head_product_causal(dk, ld, dw, 1, nk, q, ld, nk, nq, d_k, 1);  // dk = ds^T q
    } else {
        head_product(dq, ld, dw, nk, 1, k, ld, nq, nk, d_k);
        head_product(dk, ld, dw, 1, nk, q, ld, nk, nq, d_k);
    }
}

// ---------------------------------------------------------------- layer norm

// Replaces the loops of layernorm_forward (layernorm.c), with the same
// bits: row_sum's and row_squares's 16 interleaved partial sums are 16
// lanes (one vector, or two of 8), the tail and the partial sums then added
// one by one in row_sum's order, and y = (x - mean) rstd gain + bias a
// vector at a time, each operation rounded once as there.
INLINE float partial_sums(const float *x, float mu, int squares, int d) {
    enum { NV = 16 / VEC };
    vec part[NV];
    for (int v = 0; v < NV; v++) part[v] = vec_set(0);
    int j = 0;
    for (; j + 16 <= d; j += 16)
        for (int v = 0; v < NV; v++) {
            vec e = vec_load(x + j + v * VEC);
            if (squares) e = vec_sub(e, vec_set(mu));
            part[v] = vec_add(part[v], squares ? vec_mul(e, e) : e);
        }
    float sum = 0, lanes[16];
    for (; j < d; j++) sum += squares ? (x[j] - mu) * (x[j] - mu) : x[j];
    for (int v = 0; v < NV; v++) vec_store(lanes + v * VEC, part[v]);
    for (int k = 0; k < 16; k++) sum += lanes[k];
    return sum;
}

TARGET void KERNEL(layer_norm_rows)(float *out, float *mean, float *rstd, const float *inp,
                                    const float *gain, const float *bias, int n, int d, float eps) {
    for (int r = 0; r < n; r++) {
        const float *x = inp + (long)r * d;
        float *y = out + (long)r * d;
        float mu = partial_sums(x, 0, 0, d) / d, var = partial_sums(x, mu, 1, d) / d;
        float s = 1 / sqrtf(var + eps);
        for (int j = 0; j < d; j += VEC) {
            vec e = vec_mul(vec_mul(vec_sub(load_part(x + j, d - j), vec_set(mu)), vec_set(s)),
                            load_part(gain + j, d - j));
            store_part(y + j, vec_add(e, load_part(bias + j, d - j)), d - j);
        }
        mean[r] = mu;
        rstd[r] = s;
    }
}

// One row of layer_norm_backward_rows over w <= LN_BLOCK columns: gs = g =
// dout gain and gxs = g xhat, xhat = (x - mu) s, a vector at a time, and
// dgain += dout xhat, dbias += dout (each NULL or not).
INLINE void ln_backward_columns(float *gs, float *gxs, float *dgain, float *dbias,
                                const float *dy, const float *x, vec mu, vec s,
                                const float *gain, int w) {
    for (int j = 0; j < w; j += VEC) {
        int m = w - j;
        vec dyv = load_part(dy + j, m);
        vec xhat = vec_mul(vec_sub(load_part(x + j, m), mu), s);
        vec g = vec_mul(dyv, load_part(gain + j, m));
        store_part(gs + j, g, m);
        store_part(gxs + j, vec_mul(g, xhat), m);
        if (dgain) store_part(dgain + j, vec_add(load_part(dgain + j, m), vec_mul(dyv, xhat)), m);
        if (dbias) store_part(dbias + j, vec_add(load_part(dbias + j, m), dyv), m);
    }
}

// Replaces the loops of layernorm_backward (layernorm.c), with the same
// bits: xhat, g = dout gain and g xhat a vector at a time (kept for a
// block of up to 256 columns), their sums then taken one by one in the
// order of the columns as there, dgain and dbias a vector at a time (each
// column's own sum over the rows, in the order of the rows), and dinp.
// LN_ROWS rows at a time: a row's sums one by one are chains of additions,
// each waiting for the one before, and the rows' chains side by side keep
// the adder busy.
enum { LN_ROWS = 4, LN_BLOCK = 256 };

TARGET void KERNEL(layer_norm_backward_rows)(float *dinp, float *dgain, float *dbias,
                                             const float *dout, const float *inp,
                                             const float *mean, const float *rstd,
                                             const float *gain, int n, int d) {
    float gs[LN_ROWS][LN_BLOCK], gxs[LN_ROWS][LN_BLOCK];
    for (int r0 = 0; r0 < n; r0 += LN_ROWS) {
        int R = n - r0 < LN_ROWS ? n - r0 : LN_ROWS;
        float g_mean[LN_ROWS] = {0}, gx_mean[LN_ROWS] = {0};  // mean(g), mean(g xhat)
        for (int j0 = 0; j0 < d; j0 += LN_BLOCK) {
            int w = d - j0 < LN_BLOCK ? d - j0 : LN_BLOCK;
            for (int i = 0; i < LN_ROWS; i++) {
                long at = (long)(r0 + i) * d + j0;
                if (i < R)
                    ln_backward_columns(gs[i], gxs[i], dgain ? dgain + j0 : NULL,
                                        dbias ? dbias + j0 : NULL, dout + at, inp + at,
                                        vec_set(mean[r0 + i]), vec_set(rstd[r0 + i]),
                                        gain + j0, w);
                else  // no row: sums of zeros, not used
                    for (int j = 0; j < w; j++) gs[i][j] = gxs[i][j] = 0;
            }
            for (int j = 0; j < w; j++)
#pragma GCC unroll 4
                for (int i = 0; i < LN_ROWS; i++) {
                    g_mean[i] += gs[i][j];
                    gx_mean[i] += gxs[i][j];
                }
        }
        for (int i = 0; i < R && dinp; i++) {
            const long r = r0 + i;
            const float *x = inp + r * d, *dy = dout + r * d;
            float *dx = dinp + r * d;
            vec mu = vec_set(mean[r]), s = vec_set(rstd[r]);
            vec gm = vec_set(g_mean[i] / d), gxm = vec_set(gx_mean[i] / d);
            for (int j = 0; j < d; j += VEC) {
                int m = d - j;
                vec xhat = vec_mul(vec_sub(load_part(x + j, m), mu), s);
                vec t = vec_sub(vec_sub(vec_mul(load_part(dy + j, m), load_part(gain + j, m)),
                                        gm),
                                vec_mul(xhat, gxm));
                store_part(dx + j, vec_add(load_part(dx + j, m), vec_mul(s, t)), m);
            }
        }
    }
}

// ---------------------------------------------------------------- residual sums

// Replaces the residual sums of transformer_layer.c, with the same bits:
// y = a + b for the n numbers (y may be a).
TARGET void KERNEL(add_arrays)(float *y, const float *a, const float *b, long n) {
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        store_part(y + i, vec_add(load_part(a + i, w), load_part(b + i, w)), w);
    }
}

// ---------------------------------------------------------------- GELU

// GELU's sigmoid s = 1 / (1 + e), e = exp(-2u), u = sqrt(2/pi) (x + 0.044715
// x^3) (layers/gelu.h), and 1 - s = e s, both without cancellation: s is
// a quotient, and e s is e / (1 + e). -2u is capped at 88 so that e stays
// a float (s is then about 1e-38, as good as 0); vec_exp caps it below.
INLINE vec gelu_sigmoid_vec(vec x, vec *rest) {
    vec u = vec_mul(vec_set(0.7978845608028654f),
                    vec_fma(vec_mul(vec_set(0.044715f), x), vec_mul(x, x), x));
    vec minus_2u = vec_mul(vec_set(-2), u);
    minus_2u = vec_sub(vec_set(0), vec_max(vec_sub(vec_set(0), minus_2u), vec_set(-88)));
    vec e = vec_exp(minus_2u), s = vec_div(vec_set(1), vec_add(vec_set(1), e));
    *rest = vec_mul(e, s);
    return s;
}

// gelu'(x) = s + 2 x s (1 - s) du/dx, du/dx = sqrt(2/pi) (1 + 3 * 0.044715
// x^2), from s and rest = 1 - s: the one slope of the forward (which may
// keep it) and of the backward.
INLINE vec gelu_slope_vec(vec x, vec s, vec rest) {
    vec du_dx = vec_mul(vec_set(0.7978845608028654f),
                        vec_fma(vec_mul(vec_set(3 * 0.044715f), x), x, vec_set(1)));
    vec two_x_s = vec_mul(vec_mul(vec_set(2), x), s);
    return vec_fma(vec_mul(two_x_s, rest), du_dx, s);
}

// Replaces the loops of gelu_forward, gelu_forward_slope and gelu_backward
// (layers/gelu.c), to a few units in the last place (vec_exp for exp):
// out = x s for the n numbers (out may be inp), and when slope is not NULL
// slope = gelu'(x) too (slope may be inp, not out); dinp += dout gelu'(x),
// or with add 0 dinp = 0 + the same (dinp not read: the bits of adding
// into a cleared dinp; dinp may be dout).
TARGET void KERNEL(gelu_forward)(float *out, float *slope, const float *inp, long n) {
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        vec x = load_part(inp + i, w), rest, s = gelu_sigmoid_vec(x, &rest);
        if (slope) store_part(slope + i, gelu_slope_vec(x, s, rest), w);
        store_part(out + i, vec_mul(x, s), w);
    }
}

// Replaces the loop of gelu_backward_slope (layers/gelu.c): dinp = 0 +
// dout slope, one rounding (dinp may be dout).
TARGET void KERNEL(gelu_backward_slope)(float *dinp, const float *dout, const float *slope,
                                        long n) {
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        store_part(dinp + i, vec_fma(load_part(dout + i, w), load_part(slope + i, w), vec_set(0)), w);
    }
}

TARGET void KERNEL(gelu_backward)(float *dinp, const float *dout, const float *inp, long n,
                                  int add) {
    for (long i = 0; i < n; i += VEC) {
        int w = n - i < VEC ? (int)(n - i) : VEC;
        vec x = load_part(inp + i, w), rest, s = gelu_sigmoid_vec(x, &rest);
        vec before = add ? load_part(dinp + i, w) : vec_set(0);
        store_part(dinp + i, vec_fma(load_part(dout + i, w), gelu_slope_vec(x, s, rest), before), w);
    }
}

// ---------------------------------------------------------------- cross-entropy

// Replaces the loop of cross_entropy_rows (layers/cross_entropy.c), row by
// row: the largest logit top, the sum of e^(z - top) with vec_exp in float
// (where the loop takes exp in double), in 16 interleaved partial sums added
// in sum16's tree so that AVX2 and AVX-512 agree to the bit; then, in
// double as there, lse = top + log(sum) and the loss lse - z[y].
TARGET void KERNEL(cross_entropy_rows)(double *loss, double *lse, const float *z,
                                       const int32_t *y, int rows, int V) {
    enum { NV = 16 / VEC };
    for (int r = 0; r < rows; r++) {
        const float *row = z + (long)r * V;
        float top = row_max(row, V);
        vec part[NV];
        for (int v = 0; v < NV; v++) part[v] = vec_set(0);
        for (int j = 0; j < V; j += 16)
            for (int v = 0; v < NV && j + v * VEC < V; v++) {  // a vector past the row adds nothing
                int at = j + v * VEC;
                vec e = vec_exp(vec_sub(load_part(row + at, V - at), vec_set(top)));
                part[v] = vec_add(part[v], vec_keep_first(e, V - at));
            }
        lse[r] = (double)top + log((double)sum16(part));
        loss[r] = lse[r] - row[y[r]];
    }
}

// Replaces the loop of cross_entropy_rows_backward: each row of dz written,
// (e^(z - lse) - onehot(y)) / C, in float: e^((z - top) - (lse - top)) by
// vec_exp, top the row's largest logit, so that only lse - top, at most
// log V, is rounded to float (lse itself may be far from 0, and a float of
// it off by more than the exponent may be); the difference and the quotient
// each rounded once.
TARGET void KERNEL(cross_entropy_rows_backward)(float *dz, const float *z, const int32_t *y,
                                                const double *lse, int rows, int V, int C) {
    for (int r = 0; r < rows; r++) {
        const float *row = z + (long)r * V;
        float *out = dz + (long)r * V;
        float top = row_max(row, V);
        vec shift = vec_set((float)(lse[r] - top)), count = vec_set((float)C);
        for (int j = 0; j < V; j += VEC) {
            vec x = vec_sub(load_part(row + j, V - j), vec_set(top));
            store_part(out + j, vec_exp(vec_sub(x, shift)), V - j);
        }
        out[y[r]] -= 1;
        for (int j = 0; j < V; j += VEC)
            store_part(out + j, vec_div(load_part(out + j, V - j), count), V - j);
    }
}
