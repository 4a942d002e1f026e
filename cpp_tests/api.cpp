// api.cpp - the C++ API's objects and queries around the RNN primitives: memory descriptors
// (queries, sub-memory, permuted axes, equality), memories (handles, mapping), attributes
// (scratchpad, fpmath, RNN quantization), primitive descriptors (queries, adoption of a C
// descriptor, kind checks, allow_empty, errors), reorder. Prints "<label> <value>" lines;
// api.expected.txt is oneDNN 3.13's listing. Built against oxidnn, it also checks the calls
// the C API lacks throw dnnl_unimplemented.
#include <cstdio>
#include <string>

#include "example_utils.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {
void print_dims(const std::string &label, const memory::dims &d) {
    std::printf("%s.size %zu\n", label.c_str(), d.size());
    for (size_t i = 0; i < d.size(); i++)
        std::printf("%s[%zu] %lld\n", label.c_str(), i, static_cast<long long>(d[i]));
}

void print(const std::string &label, double v) { std::printf("%s %.8g\n", label.c_str(), v); }

// The status of the dnnl::error `f` throws, or 0.
template <typename F>
int status_of(F f) {
    try {
        f();
    } catch (const error &e) {
        return static_cast<int>(e.status);
    }
    return 0;
}

void memory_descs() {
    const memory::desc zero;
    print("zero.ndims", zero.get_ndims());
    print("zero.is_zero", zero.is_zero());
    print("zero.size", static_cast<double>(zero.get_size()));

    memory::desc tnc({5, 3, 4}, dt::f32, tag::tnc);
    print_dims("tnc.dims", tnc.get_dims());
    print_dims("tnc.strides", tnc.get_strides());
    print_dims("tnc.padded_dims", tnc.get_padded_dims());
    print_dims("tnc.padded_offsets", tnc.get_padded_offsets());
    print("tnc.data_type", static_cast<int>(tnc.get_data_type()));
    print("tnc.format_kind", static_cast<int>(tnc.get_format_kind()));
    print("tnc.inner_nblks", tnc.get_inner_nblks());
    print("tnc.num_handles", tnc.get_num_handles());
    print("tnc.size", static_cast<double>(tnc.get_size()));

    memory::desc ntc({5, 3, 4}, dt::f32, tag::ntc);
    memory::desc strided({5, 3, 4}, dt::f32, memory::dims{4, 20, 1});
    print("ntc_eq_strided", ntc == strided);
    print("tnc_ne_ntc", tnc != ntc);
    print("dense_eq_tnc", memory::desc({5, 3, 4}, dt::f32, memory::dims{}) == tnc);

    const memory::desc sub = tnc.submemory_desc({2, 2, 3}, {1, 1, 0});
    print_dims("sub.dims", sub.get_dims());
    print_dims("sub.strides", sub.get_strides());
    print("sub.offset", static_cast<double>(sub.get_submemory_offset()));

    const memory::desc permuted = tnc.permute_axes({1, 0, 2});
    print_dims("permuted.dims", permuted.get_dims());
    print_dims("permuted.strides", permuted.get_strides());
    print("permuted_eq_ntc", permuted == memory::desc({3, 5, 4}, dt::f32, tag::ntc));

    memory::desc any({1, 1, 4, 4, 8}, dt::f32, tag::any);
    print("any.format_kind", static_cast<int>(any.get_format_kind()));
    print("u8.data_type", static_cast<int>(memory::desc({8}, dt::u8, tag::x).get_data_type()));
    print("size.f32", static_cast<double>(memory::data_type_size(dt::f32)));
    print("size.bf16", static_cast<double>(memory::data_type_size(dt::bf16)));
    print("size.s8", static_cast<double>(memory::data_type_size(dt::s8)));

    print("bad_dims.status", status_of([] { memory::desc({2, -3}, dt::f32, tag::ab); }));
    print("bad_tag.status", status_of([] { memory::desc({2, 3}, dt::f32, tag::abc); }));
    print("bad_dims.allow_empty",
          static_cast<bool>(memory::desc({2, -3}, dt::f32, tag::ab, true)));
    print("bad_sub.status", status_of([&] { tnc.submemory_desc({6, 3, 4}, {0, 0, 0}); }));
#if defined(OXIDNN_H)
    // with oxidnn's C API (under its own dnnl.hpp or oneDNN's): reshape works, blobs do not
    if (tnc.reshape({15, 4}).get_dims() != memory::dims{15, 4}
        || status_of([&] { tnc.get_blob(); }) != dnnl_unimplemented)
        throw error(dnnl_runtime_error, "reshape should work and get_blob be unimplemented");
#endif
}

void memories(engine &eng, stream &strm) {
    memory::desc md({2, 3}, dt::f32, tag::ab);
    float buffer[6] = {1, 2, 3, 4, 5, 6};
    memory user(md, eng, buffer);
    print("user.handle_is_buffer", user.get_data_handle() == buffer);
    print("user.desc_eq", user.get_desc() == md);
    print("user.engine_kind", static_cast<int>(user.get_engine().get_kind()));
    memory owned(md, eng);
    write(owned, {10, 20, 30, 40, 50, 60});
    float other[6] = {0};
    owned.set_data_handle(other);
    print("owned.handle_is_other", owned.get_data_handle() == other);

    // a reorder ab -> ba through the reorder primitive and its descriptor's queries
    memory::desc ba({2, 3}, dt::f32, tag::ba);
    memory transposed(ba, eng);
    reorder::primitive_desc rpd(eng, md, eng, ba);
    print("reorder.kind", static_cast<int>(rpd.get_kind()));
    print("reorder.src_eq", rpd.src_desc() == md);
    print("reorder.dst_eq", rpd.dst_desc() == ba);
    print("reorder.src_engine_kind", static_cast<int>(rpd.get_src_engine().get_kind()));
    reorder(rpd).execute(strm, user, transposed);
    strm.wait();
    print_values("transposed", read(transposed));
    print("reorder.bad.status", status_of([&] {
              reorder::primitive_desc(eng, md, eng, memory::desc({3, 2}, dt::f32, tag::ab));
          }));
    print("reorder.bad.allow_empty",
          static_cast<bool>(reorder::primitive_desc(
                  eng, md, eng, memory::desc({3, 2}, dt::f32, tag::ab), primitive_attr(), true)));
}

void attributes() {
    primitive_attr attr;
    print("attr.scratchpad_default", static_cast<int>(attr.get_scratchpad_mode()));
    attr.set_scratchpad_mode(scratchpad_mode::user);
    print("attr.scratchpad", static_cast<int>(attr.get_scratchpad_mode()));
    print("attr.fpmath_default", static_cast<int>(attr.get_fpmath_mode()));
#if DNNL_VERSION_MAJOR * 100 + DNNL_VERSION_MINOR >= 313  // apply_to_int: not in oneDNN 3.2
    attr.set_fpmath_mode(fpmath_mode::bf16, true);
    fpmath_mode m;
    bool apply_to_int = false;
    attr.get_fpmath_mode(m, apply_to_int);
    if (m != fpmath_mode::bf16 || !apply_to_int)
        throw error(dnnl_runtime_error, "fpmath mode (bf16, apply_to_int) did not round-trip");
#else
    attr.set_fpmath_mode(fpmath_mode::bf16);
#endif
    print("attr.fpmath", static_cast<int>(attr.get_fpmath_mode()));
    attr.set_rnn_data_qparams(0.5f, 2.0f);
    float scale = 0, shift = 0;
    attr.get_rnn_data_qparams(scale, shift);
    print("attr.data_scale", scale);
    print("attr.data_shift", shift);
    attr.set_rnn_weights_qparams(3, {0.5f, 0.25f, 0.125f});
    int mask = 0;
    std::vector<float> scales;
    attr.get_rnn_weights_qparams(mask, scales);
    print("attr.weights_mask", mask);
    print_values("attr.weights_scales", scales);
    attr.set_rnn_weights_projection_qparams(0, {4.0f});
    attr.get_rnn_weights_projection_qparams(mask, scales);
    print("attr.projection_mask", mask);
    print_values("attr.projection_scales", scales);
}

void rnn_descs(engine &eng, stream &strm) {
    const memory::dim T = 4, N = 2, C = 8;
    memory::desc layer({T, N, C}, dt::f32, tag::tnc);
    memory::desc state({1, 1, N, C}, dt::f32, tag::ldnc);
    memory::desc w({1, 1, C, 4, C}, dt::f32, tag::ldigo), b({1, 1, 4, C}, dt::f32, tag::ldgo);
    const memory::desc none;

    primitive_attr attr;
    attr.set_scratchpad_mode(scratchpad_mode::user);
    lstm_forward::primitive_desc pd(eng, prop_kind::forward_inference,
                                    rnn_direction::unidirectional_left2right, layer, state, state,
                                    w, w, b, layer, state, state, attr);
    print("lstm.src_layer_eq", pd.src_layer_desc() == layer);
    print("lstm.src_desc0_eq", pd.src_desc() == layer);
    print("lstm.src_desc1_eq", pd.src_desc(1) == state);
    print("lstm.weights_desc0_eq", pd.weights_desc() == w);
    print("lstm.dst_desc2_eq", pd.dst_desc(2) == state);
    print("lstm.peephole_is_zero", pd.weights_peephole_desc().is_zero());
    print("lstm.workspace_is_zero", pd.workspace_desc().is_zero());
    print("lstm.diff_src_is_zero", pd.diff_src_desc().is_zero());
    print("lstm.scratchpad_mode", static_cast<int>(pd.get_primitive_attr().get_scratchpad_mode()));
    print("lstm.engine_kind", static_cast<int>(pd.get_engine().get_kind()));
    print("lstm.not_md_query.status", status_of([&] { pd.query_md(query::prop_kind); }));
    lstm_forward::primitive_desc copy = pd;
    print("lstm.next_impl", copy.next_impl());

    // a primitive, and its descriptor adopted back through the C handle
    lstm_forward prim(pd);
    print("prim.kind", static_cast<int>(prim.get_kind()));
    lstm_forward::primitive_desc adopted(
            const_cast<dnnl_primitive_desc_t>(prim.get_primitive_desc()));
    print("adopted.dst_iter_c_eq", adopted.dst_iter_c_desc() == state);
    print("adopted.wrong_class.status", status_of([&] {
              gru_forward::primitive_desc(
                      const_cast<dnnl_primitive_desc_t>(prim.get_primitive_desc()));
          }));
    print("adopted.wrong_direction.status", status_of([&] {
              lstm_backward::primitive_desc(
                      const_cast<dnnl_primitive_desc_t>(prim.get_primitive_desc()));
          }));

    // user scratchpad: the primitive runs with the memory the descriptor asks for
    memory src(layer, eng), dst(layer, eng), h(state, eng), c(state, eng), h1(state, eng);
    memory c1(state, eng), wl(w, eng), wi(w, eng), bias(b, eng);
    memory scratch(pd.scratchpad_desc(), eng);
    for (const memory &m : {src, h, c, wl, wi, bias}) fill(m, 0.5f);
    prim.execute(strm, {{DNNL_ARG_SRC_LAYER, src}, {DNNL_ARG_SRC_ITER, h},
                        {DNNL_ARG_SRC_ITER_C, c}, {DNNL_ARG_WEIGHTS_LAYER, wl},
                        {DNNL_ARG_WEIGHTS_ITER, wi}, {DNNL_ARG_BIAS, bias},
                        {DNNL_ARG_DST_LAYER, dst}, {DNNL_ARG_DST_ITER, h1},
                        {DNNL_ARG_DST_ITER_C, c1}, {DNNL_ARG_SCRATCHPAD, scratch}});
    strm.wait();
    print_values("lstm.dst_iter", read(h1));
    print_values("lstm.dst_iter_c", read(c1));

    // creation failures: wrong channels throw invalid_arguments, or give an empty descriptor
    memory::desc bad({T, N, C + 1}, dt::f32, tag::tnc);
    print("lstm.bad.status", status_of([&] {
              lstm_forward::primitive_desc(eng, prop_kind::forward_inference,
                                           rnn_direction::unidirectional_left2right, layer, none,
                                           none, w, w, b, bad, none, none);
          }));
    lstm_forward::primitive_desc empty(eng, prop_kind::forward_inference,
                                       rnn_direction::unidirectional_left2right, layer, none,
                                       none, w, w, b, bad, none, none, primitive_attr(), true);
    print("lstm.bad.allow_empty", static_cast<bool>(empty));
    print("empty.get.status", status_of([&] { empty.get(); }));
}
} // namespace

int main() {
    return run_example([] {
        engine eng(engine::kind::cpu, 0);
        stream strm(eng);
        print("engine.count", static_cast<double>(engine::get_count(engine::kind::cpu)));
        print("engine.kind", static_cast<int>(eng.get_kind()));
        print("stream.engine_eq", strm.get_engine() == eng);
        print("set_verbose", static_cast<int>(set_verbose(0)));
        memory_descs();
        memories(eng, strm);
        attributes();
        rnn_descs(eng, strm);
        return 0;
    });
}
