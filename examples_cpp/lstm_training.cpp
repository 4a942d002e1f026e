// lstm_training.cpp - one training step of a 1-layer LSTM with oneDNN's C++ API: forward
// training, the loss, backward (diff weights and bias), one SGD step on the user's weights,
// and the loss again, which must have decreased (exit 1 if not). The C++ twin of
// examples_c/lstm_training.c.
//
// The task: from a sine wave over C channels, predict the same wave a quarter period later
// (mean squared error over dst_layer). The C++ API creates backward primitives without
// rnn_flags::diff_weights_overwrite, so the diff weights accumulate: they are zeroed first.
// The initial states are explicit zeros: without src_iter, oneDNN 3.2 / 3.13 compute the last
// layer's diff_weights_iter from each step's own output (tests/goldens/README.md).
#include <cmath>
#include <cstdio>

#include "example_utils.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {
const memory::dim L = 1, D = 1, T = 10, N = 4, C = 8, G = 4;  // G: LSTM gates
const float learning_rate = 0.5f;

// Mean squared error of y against target; its gradient into *grad when given.
double mse(const std::vector<float> &y, const std::vector<float> &target,
           std::vector<float> *grad) {
    double sum = 0.0;
    if (grad) grad->resize(y.size());
    for (size_t i = 0; i < y.size(); i++) {
        const double e = static_cast<double>(y[i]) - static_cast<double>(target[i]);
        sum += e * e;
        if (grad) (*grad)[i] = static_cast<float>(2.0 * e / static_cast<double>(y.size()));
    }
    return sum / static_cast<double>(y.size());
}
} // namespace

int main() {
    return run_example([] {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);

        // 1. Tensors in the user's plain layouts; weights as `any` for the primitives.
        memory::desc layer_md({T, N, C}, dt::f32, tag::tnc);
        memory::desc user_w_md({L, D, C, G, C}, dt::f32, tag::ldigo);
        memory::desc bias_md({L, D, G, C}, dt::f32, tag::ldgo);
        memory::desc any_w_md({L, D, C, G, C}, dt::f32, tag::any);
        memory::desc state_md({L, D, N, C}, dt::f32, tag::ldnc);
        const memory::desc none;  // no final states

        // 2. Forward training and backward descriptors (the forward one is the hint).
        lstm_forward::primitive_desc fwd_pd(eng, prop_kind::forward_training,
                rnn_direction::unidirectional_left2right, layer_md, state_md, state_md, any_w_md,
                any_w_md, bias_md, layer_md, none, none);
        lstm_backward::primitive_desc bwd_pd(eng, prop_kind::backward,
                rnn_direction::unidirectional_left2right, layer_md, state_md, state_md, any_w_md,
                any_w_md, bias_md, layer_md, none, none, layer_md, state_md, state_md, any_w_md,
                any_w_md, bias_md, layer_md, none, none, fwd_pd);

        // 3. User data: the input wave, the target a quarter period later, small weights.
        memory src(layer_md, eng), dst(layer_md, eng), diff_dst(layer_md, eng);
        memory diff_src(layer_md, eng), bias(bias_md, eng), diff_bias(bias_md, eng);
        memory wl(user_w_md, eng), wi(user_w_md, eng), dwl(user_w_md, eng), dwi(user_w_md, eng);
        memory h0(state_md, eng), c0(state_md, eng), diff_h0(state_md, eng), diff_c0(state_md, eng);
        const std::vector<float> zero_state(static_cast<size_t>(L * D * N * C), 0.0f);
        write(h0, zero_state);
        write(c0, zero_state);
        std::vector<float> x(static_cast<size_t>(T * N * C)), target(x.size());
        for (memory::dim t = 0; t < T; t++)
            for (memory::dim n = 0; n < N; n++)
                for (memory::dim c = 0; c < C; c++) {
                    const float phase = 0.6f * static_cast<float>(t)
                                        + 0.8f * static_cast<float>(c)
                                        + 1.3f * static_cast<float>(n);
                    const size_t i = static_cast<size_t>((t * N + n) * C + c);
                    x[i] = std::sin(phase);
                    target[i] = 0.8f * std::sin(phase + 1.5708f);
                }
        write(src, x);
        fill(wl, 0.3f);
        fill(wi, 0.3f);
        fill(bias, 0.1f);

        // 4. The workspace links the passes; diff weights in the backward pass's layout.
        memory ws(fwd_pd.workspace_desc(), eng);
        memory bwd_dwl(bwd_pd.diff_weights_layer_desc(), eng);
        memory bwd_dwi(bwd_pd.diff_weights_iter_desc(), eng);
        lstm_forward fwd(fwd_pd);
        lstm_backward bwd(bwd_pd);
        auto forward = [&] {
            fwd.execute(strm,
                    {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, h0}, {DNNL_ARG_SRC_ITER_C, c0},
                            {DNNL_ARG_WEIGHTS_LAYER,
                                    as_layout(wl, fwd_pd.weights_layer_desc(), strm)},
                            {DNNL_ARG_WEIGHTS_ITER,
                                    as_layout(wi, fwd_pd.weights_iter_desc(), strm)},
                            {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
                            {DNNL_ARG_WORKSPACE, ws}});
            strm.wait();
        };

        // 5. Forward training, the loss and its gradient.
        forward();
        std::vector<float> grad;
        const double loss_before = mse(read(dst), target, &grad);
        write(diff_dst, grad);

        // 6. Backward: diff weights and bias (and diff sources), accumulated onto zeros.
        write(dwl, std::vector<float>(static_cast<size_t>(L * D * C * G * C), 0.0f));
        write(dwi, std::vector<float>(static_cast<size_t>(L * D * C * G * C), 0.0f));
        write(diff_bias, std::vector<float>(static_cast<size_t>(L * D * G * C), 0.0f));
        reorder(dwl, bwd_dwl).execute(strm, dwl, bwd_dwl);
        reorder(dwi, bwd_dwi).execute(strm, dwi, bwd_dwi);
        bwd.execute(strm,
                {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, h0}, {DNNL_ARG_SRC_ITER_C, c0},
                        {DNNL_ARG_WEIGHTS_LAYER, as_layout(wl, bwd_pd.weights_layer_desc(), strm)},
                        {DNNL_ARG_WEIGHTS_ITER, as_layout(wi, bwd_pd.weights_iter_desc(), strm)},
                        {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST_LAYER, dst},
                        {DNNL_ARG_DIFF_DST_LAYER, diff_dst}, {DNNL_ARG_WORKSPACE, ws},
                        {DNNL_ARG_DIFF_SRC_LAYER, diff_src}, {DNNL_ARG_DIFF_SRC_ITER, diff_h0},
                        {DNNL_ARG_DIFF_SRC_ITER_C, diff_c0},
                        {DNNL_ARG_DIFF_WEIGHTS_LAYER, bwd_dwl},
                        {DNNL_ARG_DIFF_WEIGHTS_ITER, bwd_dwi}, {DNNL_ARG_DIFF_BIAS, diff_bias}});
        strm.wait();

        // 7. One SGD step on the user's weights (diff weights reordered to ldigo first).
        reorder(bwd_dwl, dwl).execute(strm, bwd_dwl, dwl);
        reorder(bwd_dwi, dwi).execute(strm, bwd_dwi, dwi);
        strm.wait();
        const memory params[3] = {wl, wi, bias}, grads[3] = {dwl, dwi, diff_bias};
        for (int k = 0; k < 3; k++) {
            std::vector<float> p = read(params[k]);
            const std::vector<float> g = read(grads[k]);
            for (size_t i = 0; i < p.size(); i++) p[i] -= learning_rate * g[i];
            write(params[k], p);
        }

        // 8. The loss with the updated weights.
        forward();
        const double loss_after = mse(read(dst), target, nullptr);

        std::printf("# LSTM training step: %d layer, left2right, T=%d, N=%d, C=%d, SGD lr %.2f\n",
                    static_cast<int>(L), static_cast<int>(T), static_cast<int>(N),
                    static_cast<int>(C), static_cast<double>(learning_rate));
        print_values("diff_bias", read(diff_bias));
        print_sums("diff_weights_layer", read(dwl));
        print_sums("diff_weights_iter", read(dwi));
        print_sums("diff_src_layer", read(diff_src));
        print_values("diff_src_iter", read(diff_h0));
        print_values("diff_src_iter_c", read(diff_c0));
        std::printf("loss_before %.8g\nloss_after %.8g\n", loss_before, loss_after);
        const bool ok = loss_after < loss_before;
        std::printf("# %s\n", ok ? "the loss decreased" : "ERROR: the loss did not decrease");
        return ok ? 0 : 1;
    });
}
