// lstm_inference.cpp - a 2-layer LSTM over a 20-step sequence with oneDNN's C++ API: engine
// and stream, user memories in plain layouts, a primitive descriptor with weights as `any`,
// reorders into the layouts the primitive chose, execution, and a summary of the outputs.
// The C++ twin of examples_c/lstm_inference.c.
#include <cmath>
#include <cstdio>

#include "example_utils.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

int main() {
    return run_example([] {
        const memory::dim L = 2, D = 1, T = 20, N = 2, C = 16, G = 4;  // G: LSTM gates
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);

        // 1. The user's tensors in plain layouts.
        memory::desc layer_md({T, N, C}, dt::f32, tag::tnc);
        memory::desc state_md({L, D, N, C}, dt::f32, tag::ldnc);
        memory::desc user_w_md({L, D, C, G, C}, dt::f32, tag::ldigo);
        memory::desc bias_md({L, D, G, C}, dt::f32, tag::ldgo);
        memory::desc any_w_md({L, D, C, G, C}, dt::f32, tag::any);

        // 2. The primitive descriptor: no initial state (zero descriptors), final states wanted.
        lstm_forward::primitive_desc pd(eng, prop_kind::forward_inference,
                rnn_direction::unidirectional_left2right, layer_md, memory::desc(),
                memory::desc(), any_w_md, any_w_md, bias_md, layer_md, state_md, state_md);
        std::printf("# implementation: %s\n", pd.impl_info_str());

        // 3. User data: a smooth input signal, small random weights and bias.
        memory src(layer_md, eng), wl(user_w_md, eng), wi(user_w_md, eng), bias(bias_md, eng);
        memory dst(layer_md, eng), h_last(state_md, eng), c_last(state_md, eng);
        std::vector<float> x(static_cast<size_t>(T * N * C));
        for (memory::dim t = 0; t < T; t++)
            for (memory::dim n = 0; n < N; n++)
                for (memory::dim c = 0; c < C; c++)
                    x[static_cast<size_t>((t * N + n) * C + c)] = std::sin(
                            0.3f * static_cast<float>(t) + 0.5f * static_cast<float>(c)
                            + static_cast<float>(n));
        write(src, x);
        fill(wl, 0.5f);
        fill(wi, 0.5f);
        fill(bias, 0.2f);

        // 4. Weights in the layout the primitive wants, then the LSTM.
        lstm_forward(pd).execute(strm,
                {{DNNL_ARG_SRC_LAYER, src},
                        {DNNL_ARG_WEIGHTS_LAYER, as_layout(wl, pd.weights_layer_desc(), strm)},
                        {DNNL_ARG_WEIGHTS_ITER, as_layout(wi, pd.weights_iter_desc(), strm)},
                        {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
                        {DNNL_ARG_DST_ITER, h_last}, {DNNL_ARG_DST_ITER_C, c_last}});
        strm.wait();

        // 5. A summary: the first and last steps, sums, the final states of layer 1.
        const std::vector<float> y = read(dst);
        print_values("dst_layer_t0", std::vector<float>(y.begin(), y.begin() + N * C));
        print_values("dst_layer_t19", std::vector<float>(y.end() - N * C, y.end()));
        print_sums("dst_layer", y);
        const std::vector<float> h = read(h_last), c = read(c_last);
        print_values("dst_iter_l1", std::vector<float>(h.begin() + D * N * C, h.end()));
        print_values("dst_iter_c_l1", std::vector<float>(c.begin() + D * N * C, c.end()));
        return 0;
    });
}
