// augru.cpp - an AUGRU (GRU with attentional update gate, as in DIEN) with oneDNN's C++ API:
// forward training, then backward for the gradients of the inputs, the attention and the
// weights; once as AUGRU and once as LBR-AUGRU. The C++ counterpart of examples_c/augru.c.
//
// The attention a[t][n] (one scalar per step and batch row) scales the update gate:
// u~ = (1 - a) * u, h' = u~ * h + (1 - u~) * o.
#include <cstdio>
#include <string>

#include "example_utils.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {
const memory::dim L = 1, D = 1, T = 5, N = 2, SLC = 6, DIC = 8, G = 3;  // G: GRU gates

// Forward training then backward with primitives Fwd / Bwd (augru_* or lbr_augru_*),
// `bias_rows` bias rows; prints the outputs and gradients under `name`.
template <typename Fwd, typename Bwd>
void run_augru(const std::string &name, engine &eng, stream &strm, memory::dim bias_rows) {
    memory::desc layer_md({T, N, SLC}, dt::f32, tag::tnc);
    memory::desc dst_md({T, N, DIC}, dt::f32, tag::tnc);
    memory::desc attention_md({T, N, 1}, dt::f32, tag::tnc);
    memory::desc state_md({L, D, N, DIC}, dt::f32, tag::ldnc);
    memory::desc wl_md({L, D, SLC, G, DIC}, dt::f32, tag::ldigo);
    memory::desc wi_md({L, D, DIC, G, DIC}, dt::f32, tag::ldigo);
    memory::desc bias_md({L, D, bias_rows, DIC}, dt::f32, tag::ldgo);
    memory::desc wl_any({L, D, SLC, G, DIC}, dt::f32, tag::any);
    memory::desc wi_any({L, D, DIC, G, DIC}, dt::f32, tag::any);

    typename Fwd::primitive_desc fwd_pd(eng, prop_kind::forward_training,
            rnn_direction::unidirectional_left2right, layer_md, state_md, attention_md, wl_any,
            wi_any, bias_md, dst_md, state_md);
    typename Bwd::primitive_desc bwd_pd(eng, prop_kind::backward,
            rnn_direction::unidirectional_left2right, layer_md, state_md, attention_md, wl_any,
            wi_any, bias_md, dst_md, state_md, layer_md, state_md, attention_md, wl_any, wi_any,
            bias_md, dst_md, state_md, fwd_pd);
    std::printf("# %s: cell kind %d, attention %d-d, workspace %zu bytes\n", name.c_str(),
                static_cast<int>(bwd_pd.get_cell_kind()), fwd_pd.attention_desc().get_ndims(),
                fwd_pd.workspace_desc().get_size());

    memory src(layer_md, eng), attention(attention_md, eng), h0(state_md, eng);
    memory wl(wl_md, eng), wi(wi_md, eng), bias(bias_md, eng);
    memory dst(dst_md, eng), h_last(state_md, eng), ws(fwd_pd.workspace_desc(), eng);
    fill(src, 1.0f);
    fill(h0, 0.5f);
    fill(wl, 0.4f);
    fill(wi, 0.4f);
    fill(bias, 0.2f);
    std::vector<float> a(static_cast<size_t>(T * N));
    for (float &x : a) x = 0.5f + rnd(0.5f);  // attention in [0, 1]
    write(attention, a);

    Fwd(fwd_pd).execute(strm,
            {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, h0},
                    {DNNL_ARG_AUGRU_ATTENTION, attention},
                    {DNNL_ARG_WEIGHTS_LAYER, as_layout(wl, fwd_pd.weights_layer_desc(), strm)},
                    {DNNL_ARG_WEIGHTS_ITER, as_layout(wi, fwd_pd.weights_iter_desc(), strm)},
                    {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
                    {DNNL_ARG_DST_ITER, h_last}, {DNNL_ARG_WORKSPACE, ws}});
    strm.wait();
    print_values(name + ".dst_layer", read(dst));

    // Backward from random output gradients; diff weights accumulate onto zeros.
    memory diff_dst(dst_md, eng), diff_h_last(state_md, eng), diff_src(layer_md, eng);
    memory diff_h0(state_md, eng), diff_attention(attention_md, eng);
    memory diff_bias(bias_md, eng), dwl(wl_md, eng), dwi(wi_md, eng);
    memory bwd_dwl(bwd_pd.diff_weights_layer_desc(), eng);
    memory bwd_dwi(bwd_pd.diff_weights_iter_desc(), eng);
    fill(diff_dst, 1.0f);
    fill(diff_h_last, 1.0f);
    for (const memory &m : {dwl, dwi, diff_bias})
        write(m, std::vector<float>(m.get_desc().get_size() / sizeof(float), 0.0f));
    reorder(dwl, bwd_dwl).execute(strm, dwl, bwd_dwl);
    reorder(dwi, bwd_dwi).execute(strm, dwi, bwd_dwi);
    Bwd(bwd_pd).execute(strm,
            {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, h0},
                    {DNNL_ARG_AUGRU_ATTENTION, attention},
                    {DNNL_ARG_WEIGHTS_LAYER, as_layout(wl, bwd_pd.weights_layer_desc(), strm)},
                    {DNNL_ARG_WEIGHTS_ITER, as_layout(wi, bwd_pd.weights_iter_desc(), strm)},
                    {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
                    {DNNL_ARG_DST_ITER, h_last}, {DNNL_ARG_WORKSPACE, ws},
                    {DNNL_ARG_DIFF_DST_LAYER, diff_dst}, {DNNL_ARG_DIFF_DST_ITER, diff_h_last},
                    {DNNL_ARG_DIFF_SRC_LAYER, diff_src}, {DNNL_ARG_DIFF_SRC_ITER, diff_h0},
                    {DNNL_ARG_DIFF_AUGRU_ATTENTION, diff_attention},
                    {DNNL_ARG_DIFF_WEIGHTS_LAYER, bwd_dwl},
                    {DNNL_ARG_DIFF_WEIGHTS_ITER, bwd_dwi}, {DNNL_ARG_DIFF_BIAS, diff_bias}});
    reorder(bwd_dwl, dwl).execute(strm, bwd_dwl, dwl);
    reorder(bwd_dwi, dwi).execute(strm, bwd_dwi, dwi);
    strm.wait();
    print_values(name + ".diff_attention", read(diff_attention));
    print_values(name + ".diff_src_iter", read(diff_h0));
    print_values(name + ".diff_bias", read(diff_bias));
    print_sums(name + ".diff_src_layer", read(diff_src));
    print_sums(name + ".diff_weights_layer", read(dwl));
    print_sums(name + ".diff_weights_iter", read(dwi));
}
} // namespace

int main() {
    return run_example([] {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        run_augru<augru_forward, augru_backward>("augru", eng, strm, G);
        run_augru<lbr_augru_forward, lbr_augru_backward>("lbr_augru", eng, strm, G + 1);
        return 0;
    });
}
