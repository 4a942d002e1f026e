// rnn_all.cpp - every RNN primitive class of the C++ API, forward training then backward, with
// each constructor overload: vanilla RNN (with and without alpha), LSTM (plain, peephole,
// peephole + projection), GRU, LBR-GRU, AUGRU, LBR-AUGRU. Prints the descriptor queries and
// every output and gradient as "<label> <value>" lines; rnn_all.expected.txt is oneDNN 3.13's
// listing (compare_outputs.py).
#include <cstdio>
#include <map>
#include <string>

#include "example_utils.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using mds = std::map<int, memory::desc>;  // DNNL_ARG_* -> the user's plain layout

namespace {
const memory::dim T = 3, N = 2, SLC = 3, DIC = 4;
const int diff_of = 128;  // DNNL_ARG_DIFF_X = DNNL_ARG_X + 128

memory::desc md(const memory::dims &dims, tag t) { return memory::desc(dims, dt::f32, t); }
memory::desc any(const memory::dims &dims) { return memory::desc(dims, dt::f32, tag::any); }

// The user's tensors of a cell: layer tensors tnc, states ldnc, weights ldigo, bias ldgo.
mds user_mds(memory::dim L, memory::dim D, memory::dim G, memory::dim bias_rows, memory::dim dlc,
             bool attention) {
    mds m = {{DNNL_ARG_SRC_LAYER, md({T, N, SLC}, tag::tnc)},
             {DNNL_ARG_SRC_ITER, md({L, D, N, DIC}, tag::ldnc)},
             {DNNL_ARG_WEIGHTS_LAYER, md({L, D, SLC, G, DIC}, tag::ldigo)},
             {DNNL_ARG_WEIGHTS_ITER, md({L, D, DIC, G, DIC}, tag::ldigo)},
             {DNNL_ARG_BIAS, md({L, D, bias_rows, DIC}, tag::ldgo)},
             {DNNL_ARG_DST_LAYER, md({T, N, dlc}, tag::tnc)},
             {DNNL_ARG_DST_ITER, md({L, D, N, DIC}, tag::ldnc)}};
    if (attention) m[DNNL_ARG_AUGRU_ATTENTION] = md({T, N, 1}, tag::tnc);
    return m;
}

// Prints the descriptor's queries.
void print_queries(const std::string &name, const rnn_primitive_desc_base &pd) {
    std::printf("%s.prop_kind %d\n%s.cell_kind %d\n%s.direction %d\n%s.activation_kind %d\n",
                name.c_str(), static_cast<int>(pd.get_prop_kind()), name.c_str(),
                static_cast<int>(pd.get_cell_kind()), name.c_str(),
                static_cast<int>(pd.get_direction()), name.c_str(),
                static_cast<int>(pd.get_activation_kind()));
    std::printf("%s.alpha %g\n%s.primitive_kind %d\n%s.workspace_ndims %d\n", name.c_str(),
                static_cast<double>(pd.get_alpha()), name.c_str(),
                static_cast<int>(pd.get_kind()), name.c_str(), pd.workspace_desc().get_ndims());
}

// Runs forward training and backward for the descriptors made by `fwd_pd` / `bwd_pd`, with the
// user's tensors `user`, and prints every output and gradient.
template <typename Fwd, typename Bwd>
void run(const std::string &name, const typename Fwd::primitive_desc &fwd_pd,
         const typename Bwd::primitive_desc &bwd_pd, const mds &user) {
    engine eng = fwd_pd.get_engine();
    stream strm(eng);
    print_queries(name + ".fwd", fwd_pd);
    print_queries(name + ".bwd", bwd_pd);

    // A memory in the primitive's layout for every argument it uses.
    std::unordered_map<int, memory> fwd_args, bwd_args;
    std::map<int, memory> user_mem;
    for (const auto &u : user) {
        memory m(u.second, eng);
        fill(m, u.first == DNNL_ARG_AUGRU_ATTENTION ? 0.5f : 0.6f);
        user_mem[u.first] = m;
        const memory::desc want = fwd_pd.query_md(query::exec_arg_md, u.first);
        if (!want.is_zero()) fwd_args[u.first] = as_layout(m, want, strm);
    }
    fwd_args[DNNL_ARG_WORKSPACE] = memory(fwd_pd.workspace_desc(), eng);
    Fwd(fwd_pd).execute(strm, fwd_args);
    strm.wait();

    // Backward: the forward tensors, random output gradients, zeroed weight gradients.
    const int outputs[] = {DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C};
    std::map<int, memory> diff_user;
    for (const auto &u : user) {
        const bool is_output = std::find(std::begin(outputs), std::end(outputs), u.first)
                               != std::end(outputs);
        const int arg = u.first;
        const memory::desc want = bwd_pd.query_md(query::exec_arg_md, arg);
        if (!want.is_zero())
            bwd_args[arg] = is_output ? fwd_args[arg] : as_layout(user_mem[arg], want, strm);
        const memory::desc want_diff = bwd_pd.query_md(query::exec_arg_md, arg + diff_of);
        if (want_diff.is_zero()) continue;
        memory d(u.second, eng);
        if (is_output)
            fill(d, 1.0f);
        else
            write(d, std::vector<float>(u.second.get_size() / sizeof(float), 0.0f));
        diff_user[arg + diff_of] = d;
        bwd_args[arg + diff_of] = as_layout(d, want_diff, strm);
    }
    bwd_args[DNNL_ARG_WORKSPACE] = fwd_args[DNNL_ARG_WORKSPACE];
    Bwd(bwd_pd).execute(strm, bwd_args);
    strm.wait();

    // Outputs and gradients, back in the user's layouts.
    for (int arg : outputs)
        if (fwd_args.count(arg))
            print_values(name + ".out" + std::to_string(arg), read(fwd_args[arg]));
    for (auto &d : diff_user) {
        if (std::find(std::begin(outputs), std::end(outputs), d.first - diff_of)
            != std::end(outputs))
            continue;
        memory mine = bwd_args[d.first];
        if (mine != d.second) reorder(mine, d.second).execute(strm, mine, d.second);
        strm.wait();
        print_values(name + ".diff" + std::to_string(d.first - diff_of), read(d.second));
    }
}

const prop_kind train = prop_kind::forward_training, bwd = prop_kind::backward;
const rnn_direction l2r = rnn_direction::unidirectional_left2right,
                    r2l = rnn_direction::unidirectional_right2left,
                    concat = rnn_direction::bidirectional_concat,
                    bisum = rnn_direction::bidirectional_sum;

void vanilla(engine &eng) {
    // relu with a negative slope (the alpha overloads), two layers
    mds u = user_mds(2, 1, 1, 1, DIC, false);
    u[DNNL_ARG_SRC_LAYER] = md({T, N, DIC}, tag::tnc);
    u[DNNL_ARG_WEIGHTS_LAYER] = md({2, 1, DIC, 1, DIC}, tag::ldigo);
    const memory::desc &sl = u[DNNL_ARG_SRC_LAYER], &si = u[DNNL_ARG_SRC_ITER],
                       &b = u[DNNL_ARG_BIAS], &dl = u[DNNL_ARG_DST_LAYER],
                       &di = u[DNNL_ARG_DST_ITER];
    const memory::desc wl = any({2, 1, DIC, 1, DIC}), wi = any({2, 1, DIC, 1, DIC});
    vanilla_rnn_forward::primitive_desc f(eng, train, algorithm::eltwise_relu, l2r, sl, si, wl,
                                          wi, b, dl, di, 0.25f);
    vanilla_rnn_backward::primitive_desc g(eng, bwd, algorithm::eltwise_relu, l2r, sl, si, wl, wi,
                                           b, dl, di, sl, si, wl, wi, b, dl, di, 0.25f, f);
    run<vanilla_rnn_forward, vanilla_rnn_backward>("rnn_relu", f, g, u);

    // tanh, right to left, without src_iter
    mds v = user_mds(1, 1, 1, 1, DIC, false);
    v.erase(DNNL_ARG_SRC_ITER);
    const memory::desc none, wl1 = any({1, 1, SLC, 1, DIC}), wi1 = any({1, 1, DIC, 1, DIC});
    vanilla_rnn_forward::primitive_desc f2(eng, train, algorithm::eltwise_tanh, r2l,
                                           v[DNNL_ARG_SRC_LAYER], none, wl1, wi1, v[DNNL_ARG_BIAS],
                                           v[DNNL_ARG_DST_LAYER], v[DNNL_ARG_DST_ITER]);
    vanilla_rnn_backward::primitive_desc g2(
            eng, bwd, algorithm::eltwise_tanh, r2l, v[DNNL_ARG_SRC_LAYER], none, wl1, wi1,
            v[DNNL_ARG_BIAS], v[DNNL_ARG_DST_LAYER], v[DNNL_ARG_DST_ITER], v[DNNL_ARG_SRC_LAYER],
            none, wl1, wi1, v[DNNL_ARG_BIAS], v[DNNL_ARG_DST_LAYER], v[DNNL_ARG_DST_ITER], f2);
    run<vanilla_rnn_forward, vanilla_rnn_backward>("rnn_tanh", f2, g2, v);
}

void lstm(engine &eng) {
    const memory::dim DHC = 6;  // hidden size; DIC: the projected output size
    // peephole + projection, left to right
    mds u = user_mds(1, 1, 4, 4, DIC, false);
    u[DNNL_ARG_SRC_ITER_C] = md({1, 1, N, DHC}, tag::ldnc);
    u[DNNL_ARG_DST_ITER_C] = md({1, 1, N, DHC}, tag::ldnc);
    u[DNNL_ARG_WEIGHTS_LAYER] = md({1, 1, SLC, 4, DHC}, tag::ldigo);
    u[DNNL_ARG_WEIGHTS_ITER] = md({1, 1, DIC, 4, DHC}, tag::ldigo);
    u[DNNL_ARG_WEIGHTS_PEEPHOLE] = md({1, 1, 3, DHC}, tag::ldgo);
    u[DNNL_ARG_WEIGHTS_PROJECTION] = md({1, 1, DHC, DIC}, tag::ldio);
    u[DNNL_ARG_BIAS] = md({1, 1, 4, DHC}, tag::ldgo);
    const memory::desc wl = any({1, 1, SLC, 4, DHC}), wi = any({1, 1, DIC, 4, DHC});
    const memory::desc wproj = any({1, 1, DHC, DIC});
    const memory::desc &sl = u[DNNL_ARG_SRC_LAYER], &si = u[DNNL_ARG_SRC_ITER],
                       &sic = u[DNNL_ARG_SRC_ITER_C], &wp = u[DNNL_ARG_WEIGHTS_PEEPHOLE],
                       &b = u[DNNL_ARG_BIAS], &dl = u[DNNL_ARG_DST_LAYER],
                       &di = u[DNNL_ARG_DST_ITER], &dic = u[DNNL_ARG_DST_ITER_C];
    lstm_forward::primitive_desc f(eng, train, l2r, sl, si, sic, wl, wi, wp, wproj, b, dl, di,
                                   dic);
    lstm_backward::primitive_desc g(eng, bwd, l2r, sl, si, sic, wl, wi, wp, wproj, b, dl, di, dic,
                                    sl, si, sic, wl, wi, wp, wproj, b, dl, di, dic, f);
    run<lstm_forward, lstm_backward>("lstm_projection", f, g, u);

    // peephole, bidirectional sum
    mds v = user_mds(1, 2, 4, 4, DIC, false);
    v[DNNL_ARG_SRC_ITER_C] = md({1, 2, N, DIC}, tag::ldnc);
    v[DNNL_ARG_DST_ITER_C] = md({1, 2, N, DIC}, tag::ldnc);
    v[DNNL_ARG_WEIGHTS_PEEPHOLE] = md({1, 2, 3, DIC}, tag::ldgo);
    const memory::desc vwl = any({1, 2, SLC, 4, DIC}), vwi = any({1, 2, DIC, 4, DIC});
    lstm_forward::primitive_desc f2(eng, train, bisum, v[DNNL_ARG_SRC_LAYER], v[DNNL_ARG_SRC_ITER],
                                    v[DNNL_ARG_SRC_ITER_C], vwl, vwi, v[DNNL_ARG_WEIGHTS_PEEPHOLE],
                                    v[DNNL_ARG_BIAS], v[DNNL_ARG_DST_LAYER], v[DNNL_ARG_DST_ITER],
                                    v[DNNL_ARG_DST_ITER_C]);
    lstm_backward::primitive_desc g2(
            eng, bwd, bisum, v[DNNL_ARG_SRC_LAYER], v[DNNL_ARG_SRC_ITER], v[DNNL_ARG_SRC_ITER_C],
            vwl, vwi, v[DNNL_ARG_WEIGHTS_PEEPHOLE], v[DNNL_ARG_BIAS], v[DNNL_ARG_DST_LAYER],
            v[DNNL_ARG_DST_ITER], v[DNNL_ARG_DST_ITER_C], v[DNNL_ARG_SRC_LAYER],
            v[DNNL_ARG_SRC_ITER], v[DNNL_ARG_SRC_ITER_C], vwl, vwi, v[DNNL_ARG_WEIGHTS_PEEPHOLE],
            v[DNNL_ARG_BIAS], v[DNNL_ARG_DST_LAYER], v[DNNL_ARG_DST_ITER], v[DNNL_ARG_DST_ITER_C],
            f2);
    run<lstm_forward, lstm_backward>("lstm_peephole", f2, g2, v);

    // plain, bidirectional concat
    mds w = user_mds(1, 2, 4, 4, 2 * DIC, false);
    w[DNNL_ARG_SRC_ITER_C] = md({1, 2, N, DIC}, tag::ldnc);
    w[DNNL_ARG_DST_ITER_C] = md({1, 2, N, DIC}, tag::ldnc);
    lstm_forward::primitive_desc f3(eng, train, concat, w[DNNL_ARG_SRC_LAYER],
                                    w[DNNL_ARG_SRC_ITER], w[DNNL_ARG_SRC_ITER_C], vwl, vwi,
                                    w[DNNL_ARG_BIAS], w[DNNL_ARG_DST_LAYER], w[DNNL_ARG_DST_ITER],
                                    w[DNNL_ARG_DST_ITER_C]);
    lstm_backward::primitive_desc g3(
            eng, bwd, concat, w[DNNL_ARG_SRC_LAYER], w[DNNL_ARG_SRC_ITER], w[DNNL_ARG_SRC_ITER_C],
            vwl, vwi, w[DNNL_ARG_BIAS], w[DNNL_ARG_DST_LAYER], w[DNNL_ARG_DST_ITER],
            w[DNNL_ARG_DST_ITER_C], w[DNNL_ARG_SRC_LAYER], w[DNNL_ARG_SRC_ITER],
            w[DNNL_ARG_SRC_ITER_C], vwl, vwi, w[DNNL_ARG_BIAS], w[DNNL_ARG_DST_LAYER],
            w[DNNL_ARG_DST_ITER], w[DNNL_ARG_DST_ITER_C], f3);
    run<lstm_forward, lstm_backward>("lstm_concat", f3, g3, w);
}

// GRU and LBR-GRU (Fwd/Bwd), `bias_rows` bias rows.
template <typename Fwd, typename Bwd>
void gru(engine &eng, const std::string &name, memory::dim bias_rows, rnn_direction dir,
         memory::dim D, memory::dim dlc) {
    mds u = user_mds(1, D, 3, bias_rows, dlc, false);
    const memory::desc wl = any({1, D, SLC, 3, DIC}), wi = any({1, D, DIC, 3, DIC});
    const memory::desc &sl = u[DNNL_ARG_SRC_LAYER], &si = u[DNNL_ARG_SRC_ITER],
                       &b = u[DNNL_ARG_BIAS], &dl = u[DNNL_ARG_DST_LAYER],
                       &di = u[DNNL_ARG_DST_ITER];
    typename Fwd::primitive_desc f(eng, train, dir, sl, si, wl, wi, b, dl, di);
    typename Bwd::primitive_desc g(eng, bwd, dir, sl, si, wl, wi, b, dl, di, sl, si, wl, wi, b, dl,
                                   di, f);
    run<Fwd, Bwd>(name, f, g, u);
}

// AUGRU and LBR-AUGRU (Fwd/Bwd), `bias_rows` bias rows.
template <typename Fwd, typename Bwd>
void augru(engine &eng, const std::string &name, memory::dim bias_rows) {
    mds u = user_mds(1, 1, 3, bias_rows, DIC, true);
    const memory::desc wl = any({1, 1, SLC, 3, DIC}), wi = any({1, 1, DIC, 3, DIC});
    const memory::desc &sl = u[DNNL_ARG_SRC_LAYER], &si = u[DNNL_ARG_SRC_ITER],
                       &a = u[DNNL_ARG_AUGRU_ATTENTION], &b = u[DNNL_ARG_BIAS],
                       &dl = u[DNNL_ARG_DST_LAYER], &di = u[DNNL_ARG_DST_ITER];
    typename Fwd::primitive_desc f(eng, train, l2r, sl, si, a, wl, wi, b, dl, di);
    typename Bwd::primitive_desc g(eng, bwd, l2r, sl, si, a, wl, wi, b, dl, di, sl, si, a, wl, wi,
                                   b, dl, di, f);
    run<Fwd, Bwd>(name, f, g, u);
}
} // namespace

int main() {
    return run_example([] {
        engine eng(engine::kind::cpu, 0);
        vanilla(eng);
        lstm(eng);
        gru<gru_forward, gru_backward>(eng, "gru", 3, bisum, 2, DIC);
        gru<lbr_gru_forward, lbr_gru_backward>(eng, "lbr_gru", 4, r2l, 1, DIC);
        augru<augru_forward, augru_backward>(eng, "augru", 3);
        augru<lbr_augru_forward, lbr_augru_backward>(eng, "lbr_augru", 4);
        return 0;
    });
}
