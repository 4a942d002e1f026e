// Helpers shared by the C++ examples: deterministic data, reorders into the layout a primitive
// wants, and output as "<label> <value>" lines ('#' lines are comments), the listing
// capi_tests/vs_onednn/compare_outputs.py compares between oxidnn and the real oneDNN.
#ifndef OXIDNN_EXAMPLE_UTILS_HPP
#define OXIDNN_EXAMPLE_UTILS_HPP

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "oneapi/dnnl/dnnl.hpp"

// Deterministic "random" numbers in [-scale, scale].
inline float rnd(float scale) {
    static unsigned state = 12345u;
    state = state * 1103515245u + 12345u;
    return (static_cast<float>((state >> 8) & 0xFFFF) / 32767.5f - 1.0f) * scale;
}

// The f32 values of a plain-layout memory.
inline std::vector<float> read(const dnnl::memory &m) {
    const size_t n = m.get_desc().get_size() / sizeof(float);
    const float *p = m.map_data<float>();
    std::vector<float> v(p, p + n);
    m.unmap_data(const_cast<float *>(p));
    return v;
}

// Overwrites a plain-layout f32 memory with `v`.
inline void write(const dnnl::memory &m, const std::vector<float> &v) {
    float *p = m.map_data<float>();
    std::copy(v.begin(), v.end(), p);
    m.unmap_data(p);
}

// Fills a plain-layout f32 memory with rnd(scale) values.
inline void fill(const dnnl::memory &m, float scale) {
    std::vector<float> v(m.get_desc().get_size() / sizeof(float));
    for (float &x : v) x = rnd(scale);
    write(m, v);
}

// `user` itself when the primitive wants its layout, else a copy reordered into `want`.
inline dnnl::memory as_layout(dnnl::memory user, const dnnl::memory::desc &want,
                              dnnl::stream &strm) {
    if (user.get_desc() == want) return user;
    dnnl::memory m(want, user.get_engine());
    dnnl::reorder(user, m).execute(strm, user, m);
    strm.wait();
    return m;
}

// One "<label>[i] <value>" line per value.
inline void print_values(const std::string &label, const std::vector<float> &v) {
    for (size_t i = 0; i < v.size(); i++) std::printf("%s[%zu] %.8g\n", label.c_str(), i, v[i]);
}

// Sum and sum of absolute values of a tensor, as two lines.
inline void print_sums(const std::string &label, const std::vector<float> &v) {
    double sum = 0.0, abs_sum = 0.0;
    for (float x : v) sum += x, abs_sum += std::fabs(x);
    std::printf("%s.sum %.8g\n%s.abs_sum %.8g\n", label.c_str(), sum, label.c_str(), abs_sum);
}

// Runs an example's body; a dnnl::error becomes a message and exit status 1.
inline int run_example(const std::function<int()> &body) {
    try {
        const dnnl::version_t *v = dnnl::version();
        std::printf("# library %d.%d.%d\n", v->major, v->minor, v->patch);
        return body();
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "oneDNN error: %s (status %d)\n", e.what(),
                     static_cast<int>(e.status));
        return 1;
    }
}

#endif
