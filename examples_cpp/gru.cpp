// gru.cpp - a bidirectional GRU layer (outputs of both directions concatenated) with an initial
// state, run as oneDNN's GRU and as its linear-before-reset variant (LBR-GRU, the PyTorch /
// cuDNN formulation, which has a fourth bias row), with oneDNN's C++ API.
// The C++ counterpart of examples_c/gru_pytorch.c.
#include <cstdio>
#include <string>

#include "example_utils.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {
const memory::dim L = 1, D = 2, T = 6, N = 3, SLC = 5, DIC = 4, G = 3;  // G: GRU gates

// Runs the GRU flavour whose primitive is P (gru_forward or lbr_gru_forward) with `bias_rows`
// bias rows, and prints its outputs under `name`.
template <typename P>
void run_gru(const std::string &name, engine &eng, stream &strm, memory::dim bias_rows) {
    memory::desc src_md({T, N, SLC}, dt::f32, tag::tnc);
    memory::desc state_md({L, D, N, DIC}, dt::f32, tag::ldnc);
    memory::desc wl_md({L, D, SLC, G, DIC}, dt::f32, tag::ldigo);
    memory::desc wi_md({L, D, DIC, G, DIC}, dt::f32, tag::ldigo);
    memory::desc bias_md({L, D, bias_rows, DIC}, dt::f32, tag::ldgo);
    memory::desc dst_md({T, N, D * DIC}, dt::f32, tag::tnc);

    // weights as `any`; the primitive's layouts come back from the descriptor
    typename P::primitive_desc pd(eng, prop_kind::forward_inference,
            rnn_direction::bidirectional_concat, src_md, state_md,
            memory::desc({L, D, SLC, G, DIC}, dt::f32, tag::any),
            memory::desc({L, D, DIC, G, DIC}, dt::f32, tag::any), bias_md, dst_md, state_md);
    std::printf("# %s: cell kind %d, direction %d, %s\n", name.c_str(),
                static_cast<int>(pd.get_cell_kind()), static_cast<int>(pd.get_direction()),
                pd.impl_info_str());

    memory src(src_md, eng), h0(state_md, eng), wl(wl_md, eng), wi(wi_md, eng);
    memory bias(bias_md, eng), dst(dst_md, eng), h_last(state_md, eng);
    fill(src, 1.0f);
    fill(h0, 0.5f);
    fill(wl, 0.4f);
    fill(wi, 0.4f);
    fill(bias, 0.2f);

    P(pd).execute(strm, {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, h0},
                         {DNNL_ARG_WEIGHTS_LAYER, as_layout(wl, pd.weights_layer_desc(), strm)},
                         {DNNL_ARG_WEIGHTS_ITER, as_layout(wi, pd.weights_iter_desc(), strm)},
                         {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
                         {DNNL_ARG_DST_ITER, h_last}});
    strm.wait();
    print_values(name + ".dst_layer", read(dst));
    print_values(name + ".dst_iter", read(h_last));
}
} // namespace

int main() {
    return run_example([] {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        run_gru<gru_forward>("gru", eng, strm, G);
        run_gru<lbr_gru_forward>("lbr_gru", eng, strm, G + 1);
        return 0;
    });
}
