/*
 * test_submemory_exec.c - oneDNN's execute-time rule: the primitive's
 * descriptor decides how an argument's buffer is read, the memory supplies
 * the handle. The pattern of oneDNN's rnn_training_f32 example: two LSTMs
 * created on sub-memory views of one sequence tensor,
 *   leftmost:  steps [0, T1) of all N sequences,
 *   rightmost: steps [T1, T) of the first N0 sequences, starting from the
 *              leftmost's final states (a view of its dst_iter / dst_iter_c),
 * each executed with the WHOLE memories (src_layer, dst_layer, states).
 * Checked against lstm_ref.h on dense copies of the views; the part of
 * dst_layer outside both views stays untouched.
 * Only with oxidnn (the real oneDNN does not check it and reads out of
 * bounds): a memory whose own descriptor spans less than the pd's view
 * needs is refused with invalid_arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lstm_ref.h"

enum { T = 5, T1 = 3, N = 4, N0 = 2, C = 4, G = 4 };
#define SENTINEL 7.0f

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static dnnl_memory_desc_t md_tag(int ndims, const dnnl_dim_t *dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

static dnnl_memory_desc_t md_sub(const_dnnl_memory_desc_t parent, const dnnl_dim_t *dims,
        const dnnl_dim_t *offsets) {
    dnnl_memory_desc_t md = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_submemory(&md, parent, dims, offsets));
    return md;
}

/* A memory over the user buffer `data`. */
static dnnl_memory_t mem_of(const_dnnl_memory_desc_t md, float *data) {
    dnnl_memory_t m = NULL;
    REQUIRE_OK(dnnl_memory_create(&m, md, eng, data));
    return m;
}

/* An inference LSTM (L = 1, left2right, SLC = DHC = C) on the given views. */
static dnnl_primitive_t lstm(const_dnnl_memory_desc_t src, const_dnnl_memory_desc_t src_iter,
        const_dnnl_memory_desc_t dst, const_dnnl_memory_desc_t dst_iter) {
    const dnnl_dim_t wd[5] = {1, 1, C, G, C}, bd[4] = {1, 1, G, C};
    dnnl_memory_desc_t w = md_tag(5, wd, dnnl_ldigo), b = md_tag(4, bd, dnnl_ldgo);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t p = NULL;
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng, dnnl_forward_inference,
            dnnl_unidirectional_left2right, src, src_iter, src_iter, w, w, NULL, NULL, b, dst,
            dst_iter, dst_iter, 0, NULL));
    REQUIRE_OK(dnnl_primitive_create(&p, pd));
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(b);
    return p;
}

static dnnl_status_t run(dnnl_primitive_t p, dnnl_memory_t src, dnnl_memory_t src_iter,
        dnnl_memory_t src_iter_c, dnnl_memory_t wl, dnnl_memory_t wi, dnnl_memory_t bias,
        dnnl_memory_t dst, dnnl_memory_t dst_iter, dnnl_memory_t dst_iter_c) {
    dnnl_exec_arg_t args[9] = {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, src_iter},
            {DNNL_ARG_SRC_ITER_C, src_iter_c}, {DNNL_ARG_WEIGHTS_LAYER, wl},
            {DNNL_ARG_WEIGHTS_ITER, wi}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
            {DNNL_ARG_DST_ITER, dst_iter}, {DNNL_ARG_DST_ITER_C, dst_iter_c}};
    dnnl_status_t s = dnnl_primitive_execute(p, strm, 9, args);
    if (s == dnnl_success) s = dnnl_stream_wait(strm);
    return s;
}

/* Copies steps [t0, t0 + nt) of sequences [0, nb) of a T x N x C tnc buffer. */
static void gather(const float *whole, int t0, int nt, int nb, float *out) {
    int t, n;
    for (t = 0; t < nt; t++)
        for (n = 0; n < nb; n++)
            memcpy(out + ((size_t)t * nb + n) * C, whole + ((size_t)(t0 + t) * N + n) * C,
                    sizeof(float) * C);
}

int main(void) {
    static float src[T * N * C], dst[T * N * C], wl[C * G * C], wi[C * G * C], bias[G * C];
    /* the right states' memories have the N0-row view as their descriptor: their buffers hold
     * what its dnnl_memory_desc_get_size says (the parent's N rows) */
    static float h_left[N * C], c_left[N * C], h_right[N * C], c_right[N * C];
    static float x[T * N * C], want[T * N * C], want_h[N * C], want_c[N * C];
    const dnnl_dim_t whole_d[3] = {T, N, C}, state_d[4] = {1, 1, N, C};
    const dnnl_dim_t left_d[3] = {T1, N, C}, right_d[3] = {T - T1, N0, C};
    const dnnl_dim_t right_state_d[4] = {1, 1, N0, C}, wd[5] = {1, 1, C, G, C};
    const dnnl_dim_t bd[4] = {1, 1, G, C};
    const dnnl_dim_t at0[4] = {0, 0, 0, 0}, at_t1[3] = {T1, 0, 0};
    dnnl_memory_desc_t whole_md, state_md, left_md, right_md, right_state_md, w_md, b_md;
    dnnl_memory_t m_src, m_dst, m_wl, m_wi, m_b, m_h_left, m_c_left, m_h_right, m_c_right;
    dnnl_primitive_t left, right;
    int i, t, n, untouched = 1;

    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    REQUIRE_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    ref_fill(src, T * N * C, 1, 2.0f);
    ref_fill(wl, C * G * C, 2, 1.0f);
    ref_fill(wi, C * G * C, 3, 1.0f);
    ref_fill(bias, G * C, 4, 1.0f);
    for (i = 0; i < T * N * C; i++) dst[i] = SENTINEL;

    whole_md = md_tag(3, whole_d, dnnl_tnc);
    state_md = md_tag(4, state_d, dnnl_ldnc);
    w_md = md_tag(5, wd, dnnl_ldigo);
    b_md = md_tag(4, bd, dnnl_ldgo);
    left_md = md_sub(whole_md, left_d, at0);
    right_md = md_sub(whole_md, right_d, at_t1);
    right_state_md = md_sub(state_md, right_state_d, at0);

    /* the pds are made on the views; the memories are the whole tensors */
    left = lstm(left_md, NULL, left_md, state_md);
    right = lstm(right_md, right_state_md, right_md, right_state_md);
    m_src = mem_of(whole_md, src);
    m_dst = mem_of(whole_md, dst);
    m_wl = mem_of(w_md, wl);
    m_wi = mem_of(w_md, wi);
    m_b = mem_of(b_md, bias);
    m_h_left = mem_of(state_md, h_left);
    m_c_left = mem_of(state_md, c_left);
    m_h_right = mem_of(right_state_md, h_right);
    m_c_right = mem_of(right_state_md, c_right);

    CHECK_OK(run(left, m_src, NULL, NULL, m_wl, m_wi, m_b, m_dst, m_h_left, m_c_left));
    CHECK_OK(run(right, m_src, m_h_left, m_c_left, m_wl, m_wi, m_b, m_dst, m_h_right,
            m_c_right));

    /* leftmost: steps [0, T1) of every sequence from zero states */
    gather(src, 0, T1, N, x);
    REQUIRE(ref_lstm_forward(dnnl_unidirectional_left2right, 1, T1, N, C, C, x, NULL, NULL,
                    wl, wi, bias, want, want_h, want_c) == 0, "reference");
    CHECK_FLOATS(dst, want, (size_t)T1 * N * C, "leftmost dst_layer");
    CHECK_FLOATS(h_left, want_h, (size_t)N * C, "leftmost dst_iter");
    CHECK_FLOATS(c_left, want_c, (size_t)N * C, "leftmost dst_iter_c");
    /* rightmost: steps [T1, T) of the first N0 sequences, from the leftmost's states */
    gather(src, T1, T - T1, N0, x);
    REQUIRE(ref_lstm_forward(dnnl_unidirectional_left2right, 1, T - T1, N0, C, C, x, h_left,
                    c_left, wl, wi, bias, want, want_h, want_c) == 0, "reference");
    gather(dst, T1, T - T1, N0, x);
    CHECK_FLOATS(x, want, (size_t)(T - T1) * N0 * C, "rightmost dst_layer");
    CHECK_FLOATS(h_right, want_h, (size_t)N0 * C, "rightmost dst_iter");
    CHECK_FLOATS(c_right, want_c, (size_t)N0 * C, "rightmost dst_iter_c");
    for (t = T1; t < T; t++)
        for (n = N0; n < N; n++)
            for (i = 0; i < C; i++)
                untouched &= dst[((size_t)t * N + n) * C + i] == SENTINEL;
    CHECK(untouched, "dst_layer outside both views changed");

#if defined(OXIDNN_H)
    /* a memory spanning less than the view the pd reads: refused */
    {
        const dnnl_dim_t short_d[3] = {T1 - 1, N, C};
        dnnl_memory_desc_t short_md = md_tag(3, short_d, dnnl_tnc);
        dnnl_memory_t m_short = mem_of(short_md, src);
        CHECK_STATUS(run(left, m_short, NULL, NULL, m_wl, m_wi, m_b, m_dst, m_h_left,
                             m_c_left),
                dnnl_invalid_arguments);
        const dnnl_dim_t few_d[4] = {1, 1, N0, C};
        dnnl_memory_desc_t few_md = md_tag(4, few_d, dnnl_ldnc);
        dnnl_memory_t m_few = mem_of(few_md, h_right);
        CHECK_STATUS(run(left, m_src, NULL, NULL, m_wl, m_wi, m_b, m_dst, m_few, m_c_left),
                dnnl_invalid_arguments); /* N0 rows where the pd writes N */
        dnnl_memory_destroy(m_few);
        dnnl_memory_desc_destroy(few_md);
        dnnl_memory_destroy(m_short);
        dnnl_memory_desc_destroy(short_md);
    }
#endif

    dnnl_primitive_destroy(left);
    dnnl_primitive_destroy(right);
    dnnl_memory_destroy(m_src);
    dnnl_memory_destroy(m_dst);
    dnnl_memory_destroy(m_wl);
    dnnl_memory_destroy(m_wi);
    dnnl_memory_destroy(m_b);
    dnnl_memory_destroy(m_h_left);
    dnnl_memory_destroy(m_c_left);
    dnnl_memory_destroy(m_h_right);
    dnnl_memory_destroy(m_c_right);
    dnnl_memory_desc_destroy(whole_md);
    dnnl_memory_desc_destroy(state_md);
    dnnl_memory_desc_destroy(w_md);
    dnnl_memory_desc_destroy(b_md);
    dnnl_memory_desc_destroy(left_md);
    dnnl_memory_desc_destroy(right_md);
    dnnl_memory_desc_destroy(right_state_md);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return check_summary();
}
