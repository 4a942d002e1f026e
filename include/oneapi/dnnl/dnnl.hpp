/*
 * oxidnn: oneDNN v3's C++ API (<oneapi/dnnl/dnnl.hpp>) for the RNN primitives.
 *
 * Header-only wrappers over the C API of oxidnn.h, source-compatible with oneDNN 3.13's C++ API
 * for what an RNN program uses: error, engine, stream, memory (+ desc), primitive_attr,
 * primitive, primitive_desc_base, reorder and the six RNN cells' forward and backward
 * primitives. C++11 or later. Calls the C API does not implement (blobs, cache blobs) throw
 * dnnl::error with dnnl_unimplemented.
 */
#ifndef OXIDNN_ONEAPI_DNNL_DNNL_HPP
#define OXIDNN_ONEAPI_DNNL_DNNL_HPP

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "dnnl.h"

namespace dnnl {

/// The library's version record (dnnl::version()).
using version_t = dnnl_version_t;

/// A failed C API call: its status and a fixed description.
struct error : public std::exception {
    dnnl_status_t status;
    const char *message;

    error(dnnl_status_t s, const char *msg) : status(s), message(msg) {}
    const char *what() const noexcept override { return message; }

    /// Throws unless `s` is dnnl_success.
    static void wrap_c_api(dnnl_status_t s, const char *msg);
};

namespace detail {
/// Throws dnnl::error; without C++ exceptions (-fno-exceptions), prints `msg` and aborts.
[[noreturn]] inline void raise(dnnl_status_t s, const char *msg) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
    throw error(s, msg);
#else
    std::fprintf(stderr, "oneDNN error %d: %s\n", static_cast<int>(s), msg);
    std::abort();
#endif
}

[[noreturn]] inline void unimplemented(const char *what) { raise(dnnl_unimplemented, what); }

/// A handle_traits body: destroys with `Destroy`.
template <typename T, dnnl_status_t (*Destroy)(T)>
struct destroyed_by {
    static dnnl_status_t destructor(T p) { return Destroy(p); }
};
} // namespace detail

inline void error::wrap_c_api(dnnl_status_t s, const char *msg) {
    if (s != dnnl_success) detail::raise(s, msg);
}

template <typename T>
struct handle_traits {};

/// Shared ownership of a C handle; copies share it, the last one destroys it (unless weak).
template <typename T, typename traits = handle_traits<T>>
struct handle {
    handle() = default;
    handle(const handle &) = default;
    handle &operator=(const handle &) = default;
    handle(handle &&) = default;
    handle &operator=(handle &&) = default;
    explicit handle(T t, bool weak = false) { reset(t, weak); }

    /// Takes `t` over (`weak`: only refers to it, never destroys it).
    void reset(T t, bool weak = false) {
        if (weak)
            data_.reset(t, [](T) {});
        else
            data_.reset(t, [](T p) { traits::destructor(p); });
    }

    /// The C handle; throws dnnl_invalid_arguments on an empty object unless `allow_empty`.
    T get(bool allow_empty = false) const {
        T p = data_.get();
        if (p == nullptr && !allow_empty)
            detail::raise(dnnl_invalid_arguments, "object is not initialized");
        return p;
    }

    explicit operator T() const { return get(true); }
    explicit operator bool() const { return get(true) != nullptr; }
    bool operator==(const handle &other) const { return data_.get() == other.data_.get(); }
    bool operator!=(const handle &other) const { return !(*this == other); }

private:
    std::shared_ptr<typename std::remove_pointer<T>::type> data_;
};

template <>
struct handle_traits<dnnl_engine_t> : detail::destroyed_by<dnnl_engine_t, dnnl_engine_destroy> {};
template <>
struct handle_traits<dnnl_stream_t> : detail::destroyed_by<dnnl_stream_t, dnnl_stream_destroy> {};
template <>
struct handle_traits<dnnl_memory_desc_t>
    : detail::destroyed_by<dnnl_memory_desc_t, dnnl_memory_desc_destroy> {};
template <>
struct handle_traits<dnnl_memory_t> : detail::destroyed_by<dnnl_memory_t, dnnl_memory_destroy> {};
template <>
struct handle_traits<dnnl_primitive_attr_t>
    : detail::destroyed_by<dnnl_primitive_attr_t, dnnl_primitive_attr_destroy> {};
template <>
struct handle_traits<dnnl_primitive_desc_t>
    : detail::destroyed_by<dnnl_primitive_desc_t, dnnl_primitive_desc_destroy> {};
template <>
struct handle_traits<dnnl_primitive_t>
    : detail::destroyed_by<dnnl_primitive_t, dnnl_primitive_destroy> {};

// ---- enumerations ----------------------------------------------------------------------------

namespace detail {
/// Enumerations that combine as bit masks.
template <typename E>
struct is_bitmask : std::false_type {};
} // namespace detail

template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E operator|(E a, E b) {
    return static_cast<E>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E operator&(E a, E b) {
    return static_cast<E>(static_cast<unsigned>(a) & static_cast<unsigned>(b));
}
template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E operator^(E a, E b) {
    return static_cast<E>(static_cast<unsigned>(a) ^ static_cast<unsigned>(b));
}
template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E operator~(E a) {
    return static_cast<E>(~static_cast<unsigned>(a));
}
template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E &operator|=(E &a, E b) {
    return a = a | b;
}
template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E &operator&=(E &a, E b) {
    return a = a & b;
}
template <typename E, typename = typename std::enable_if<detail::is_bitmask<E>::value>::type>
inline E &operator^=(E &a, E b) {
    return a = a ^ b;
}

/// Status codes (set_verbose's result).
enum class status {
    success = dnnl_success,
    out_of_memory = dnnl_out_of_memory,
    invalid_arguments = dnnl_invalid_arguments,
    unimplemented = dnnl_unimplemented,
    last_impl_reached = dnnl_last_impl_reached,
    runtime_error = dnnl_runtime_error,
    not_required = dnnl_not_required,
};

enum class scratchpad_mode {
    library = dnnl_scratchpad_mode_library,
    user = dnnl_scratchpad_mode_user,
};

enum class fpmath_mode {
    strict = dnnl_fpmath_mode_strict,
    bf16 = dnnl_fpmath_mode_bf16,
    f16 = dnnl_fpmath_mode_f16,
    tf32 = dnnl_fpmath_mode_tf32,
    any = dnnl_fpmath_mode_any,
};

enum class prop_kind {
    undef = dnnl_prop_kind_undef,
    forward_training = dnnl_forward_training,
    forward_inference = dnnl_forward_inference,
    forward = dnnl_forward,
    backward = dnnl_backward,
    backward_data = dnnl_backward_data,
    backward_weights = dnnl_backward_weights,
    backward_bias = dnnl_backward_bias,
};

/// The algorithms of the RNN primitives: cell kinds and vanilla RNN activations.
enum class algorithm {
    undef = dnnl_alg_kind_undef,
    eltwise_relu = dnnl_eltwise_relu,
    eltwise_tanh = dnnl_eltwise_tanh,
    eltwise_logistic = dnnl_eltwise_logistic,
    vanilla_rnn = dnnl_vanilla_rnn,
    vanilla_lstm = dnnl_vanilla_lstm,
    vanilla_gru = dnnl_vanilla_gru,
    lbr_gru = dnnl_lbr_gru,
    vanilla_augru = dnnl_vanilla_augru,
    lbr_augru = dnnl_lbr_augru,
};

enum class rnn_flags : unsigned {
    undef = dnnl_rnn_flags_undef,
    diff_weights_overwrite = dnnl_rnn_flags_diff_weights_overwrite,
};

enum class rnn_direction {
    undef = dnnl_rnn_direction_undef,
    unidirectional_left2right = dnnl_unidirectional_left2right,
    unidirectional_right2left = dnnl_unidirectional_right2left,
    bidirectional_concat = dnnl_bidirectional_concat,
    bidirectional_sum = dnnl_bidirectional_sum,
};

/// Primitive-descriptor and memory-descriptor queries.
enum class query {
    undef = dnnl_query_undef,
    engine = dnnl_query_engine,
    primitive_kind = dnnl_query_primitive_kind,
    num_of_inputs_s32 = dnnl_query_num_of_inputs_s32,
    num_of_outputs_s32 = dnnl_query_num_of_outputs_s32,
    time_estimate_f64 = dnnl_query_time_estimate_f64,
    memory_consumption_s64 = dnnl_query_memory_consumption_s64,
    scratchpad_engine = dnnl_query_scratchpad_engine,
    impl_info_str = dnnl_query_impl_info_str,
    reorder_src_engine = dnnl_query_reorder_src_engine,
    reorder_dst_engine = dnnl_query_reorder_dst_engine,
    prop_kind = dnnl_query_prop_kind,
    cache_blob_id_size_s64 = dnnl_query_cache_blob_id_size_s64,
    cache_blob_id = dnnl_query_cache_blob_id,
    strides = dnnl_query_strides,
    dilations = dnnl_query_dilations,
    padding_l = dnnl_query_padding_l,
    padding_r = dnnl_query_padding_r,
    epsilon_f32 = dnnl_query_epsilon_f32,
    flags = dnnl_query_flags,
    alg_kind = dnnl_query_alg_kind,
    alpha_f32 = dnnl_query_alpha_f32,
    beta_f32 = dnnl_query_beta_f32,
    axis_s32 = dnnl_query_axis_s32,
    local_size_s64 = dnnl_query_local_size_s64,
    k_f32 = dnnl_query_k_f32,
    p_f32 = dnnl_query_p_f32,
    factors = dnnl_query_factors,
    cell_kind = dnnl_query_cell_kind,
    direction = dnnl_query_direction,
    activation_kind = dnnl_query_activation_kind,
    kernel = dnnl_query_kernel,
    group_size_s64 = dnnl_query_group_size_s64,
    some_md = dnnl_query_some_md,
    src_md = dnnl_query_src_md,
    diff_src_md = dnnl_query_diff_src_md,
    weights_md = dnnl_query_weights_md,
    diff_weights_md = dnnl_query_diff_weights_md,
    dst_md = dnnl_query_dst_md,
    diff_dst_md = dnnl_query_diff_dst_md,
    workspace_md = dnnl_query_workspace_md,
    scratchpad_md = dnnl_query_scratchpad_md,
    exec_arg_md = dnnl_query_exec_arg_md,
    ndims_s32 = dnnl_query_ndims_s32,
    dims = dnnl_query_dims,
    data_type = dnnl_query_data_type,
    submemory_offset_s64 = dnnl_query_submemory_offset_s64,
    padded_dims = dnnl_query_padded_dims,
    padded_offsets = dnnl_query_padded_offsets,
    format_kind = dnnl_query_format_kind,
    inner_nblks_s32 = dnnl_query_inner_nblks_s32,
    inner_blks = dnnl_query_inner_blks,
    inner_idxs = dnnl_query_inner_idxs,
    num_handles_s32 = dnnl_query_num_handles_s32,
};

namespace detail {
template <>
struct is_bitmask<rnn_flags> : std::true_type {};
} // namespace detail

inline dnnl_scratchpad_mode_t convert_to_c(scratchpad_mode v) {
    return static_cast<dnnl_scratchpad_mode_t>(v);
}
inline dnnl_fpmath_mode_t convert_to_c(fpmath_mode v) { return static_cast<dnnl_fpmath_mode_t>(v); }
inline dnnl_prop_kind_t convert_to_c(prop_kind v) { return static_cast<dnnl_prop_kind_t>(v); }
inline dnnl_alg_kind_t convert_to_c(algorithm v) { return static_cast<dnnl_alg_kind_t>(v); }
inline dnnl_rnn_flags_t convert_to_c(rnn_flags v) { return static_cast<dnnl_rnn_flags_t>(v); }
inline dnnl_rnn_direction_t convert_to_c(rnn_direction v) {
    return static_cast<dnnl_rnn_direction_t>(v);
}
inline dnnl_query_t convert_to_c(query v) { return static_cast<dnnl_query_t>(v); }

/// Sets the verbosity of ONEDNN_VERBOSE-style logging (0: none, 1: executions, 2: + creation).
inline status set_verbose(int level) { return static_cast<status>(dnnl_set_verbose(level)); }

/// The library's version (major, minor, patch, hash, runtimes).
inline const version_t *version() { return dnnl_version(); }

// ---- engine, stream --------------------------------------------------------------------------

struct engine : public handle<dnnl_engine_t> {
    enum class kind {
        any = dnnl_any_engine,
        cpu = dnnl_cpu,
        gpu = dnnl_gpu,
    };

    using handle::handle;
    engine() = default;

    /// How many engines of kind `k` exist.
    static size_t get_count(kind k) {
        return dnnl_engine_get_count(static_cast<dnnl_engine_kind_t>(k));
    }

    engine(kind k, size_t index) {
        dnnl_engine_t e = nullptr;
        error::wrap_c_api(dnnl_engine_create(&e, static_cast<dnnl_engine_kind_t>(k), index),
                          "could not create an engine");
        reset(e);
    }

    kind get_kind() const {
        dnnl_engine_kind_t k = dnnl_any_engine;
        error::wrap_c_api(dnnl_engine_get_kind(get(), &k), "could not get the engine kind");
        return static_cast<kind>(k);
    }
};

inline dnnl_engine_kind_t convert_to_c(engine::kind v) {
    return static_cast<dnnl_engine_kind_t>(v);
}

struct stream : public handle<dnnl_stream_t> {
    enum class flags : unsigned {
        in_order = dnnl_stream_in_order,
        out_of_order = dnnl_stream_out_of_order,
        default_flags = dnnl_stream_default_flags,
    };

    using handle::handle;
    stream() = default;

    explicit stream(const engine &eng, flags f = flags::default_flags) {
        dnnl_stream_t s = nullptr;
        error::wrap_c_api(dnnl_stream_create(&s, eng.get(), static_cast<dnnl_stream_flags_t>(f)),
                          "could not create a stream");
        reset(s);
    }

    /// The stream's engine (not owned: it lives as long as the user keeps it).
    engine get_engine() const {
        dnnl_engine_t e = nullptr;
        error::wrap_c_api(dnnl_stream_get_engine(get(), &e), "could not get the stream's engine");
        return engine(e, true);
    }

    /// Blocks until every primitive submitted to the stream has finished.
    stream &wait() {
        error::wrap_c_api(dnnl_stream_wait(get()), "could not wait on a stream");
        return *this;
    }
};

namespace detail {
template <>
struct is_bitmask<stream::flags> : std::true_type {};
} // namespace detail

// ---- memory ----------------------------------------------------------------------------------

struct memory : public handle<dnnl_memory_t> {
    using handle::handle;

    using dim = dnnl_dim_t;
    using dims = std::vector<dim>;

    /// Throws dnnl_invalid_arguments unless `min_size` <= v.size() <= DNNL_MAX_NDIMS.
    template <typename T>
    static void validate_dims(const std::vector<T> &v, int min_size = 0) {
        if (v.size() < static_cast<size_t>(min_size) || v.size() > DNNL_MAX_NDIMS)
            detail::raise(dnnl_invalid_arguments, "dimensions are invalid");
    }

    enum class data_type {
        undef = dnnl_data_type_undef,
        f16 = dnnl_f16,
        bf16 = dnnl_bf16,
        f32 = dnnl_f32,
        f64 = dnnl_f64,
        s32 = dnnl_s32,
        s8 = dnnl_s8,
        u8 = dnnl_u8,
    };

    enum class format_kind {
        undef = dnnl_format_kind_undef,
        any = dnnl_format_kind_any,
        blocked = dnnl_blocked,
        opaque = dnnl_format_kind_opaque,
    };

    /// Plain layouts: letters name the dimensions in memory order, outermost first.
    enum class format_tag {
        undef = dnnl_format_tag_undef,
        any = dnnl_format_tag_any,
        a = dnnl_a,
        ab = dnnl_ab,
        abc = dnnl_abc,
        abcd = dnnl_abcd,
        abcde = dnnl_abcde,
        abcdef = dnnl_abcdef,
        ba = dnnl_ba,
        acb = dnnl_acb,
        bac = dnnl_bac,
        bca = dnnl_bca,
        cab = dnnl_cab,
        cba = dnnl_cba,
        abdc = dnnl_abdc,
        acbd = dnnl_acbd,
        acdb = dnnl_acdb,
        adbc = dnnl_adbc,
        adcb = dnnl_adcb,
        bacd = dnnl_bacd,
        bcda = dnnl_bcda,
        cdab = dnnl_cdab,
        cdba = dnnl_cdba,
        dcab = dnnl_dcab,
        abced = dnnl_abced,
        abdec = dnnl_abdec,
        acbde = dnnl_acbde,
        acdeb = dnnl_acdeb,
        adecb = dnnl_adecb,
        bacde = dnnl_bacde,
        bcdea = dnnl_bcdea,
        cdeab = dnnl_cdeab,
        cdeba = dnnl_cdeba,
        decab = dnnl_decab,
        abcdfe = dnnl_abcdfe,
        abdefc = dnnl_abdefc,
        abdfce = dnnl_abdfce,
        acbdef = dnnl_acbdef,
        adefcb = dnnl_adefcb,
        defcab = dnnl_defcab,
        x = dnnl_x,
        nc = dnnl_nc,
        cn = dnnl_cn,
        tn = dnnl_tn,
        nt = dnnl_nt,
        tnc = dnnl_tnc,
        ntc = dnnl_ntc,
        ldnc = dnnl_ldnc,
        ldigo = dnnl_ldigo,
        ldgoi = dnnl_ldgoi,
        ldio = dnnl_ldio,
        ldoi = dnnl_ldoi,
        ldgo = dnnl_ldgo,
    };

    static dnnl_data_type_t convert_to_c(data_type v) { return static_cast<dnnl_data_type_t>(v); }
    static dnnl_format_tag_t convert_to_c(format_tag v) {
        return static_cast<dnnl_format_tag_t>(v);
    }

    /// Bytes of one element of `dt` (0 for undef).
    static size_t data_type_size(data_type dt) {
        const dim one = 1;
        dnnl_memory_desc_t md = nullptr;
        if (dnnl_memory_desc_create_with_tag(&md, 1, &one, convert_to_c(dt), dnnl_a)
            != dnnl_success)
            return 0;
        const size_t size = dnnl_memory_desc_get_size(md);
        dnnl_memory_desc_destroy(md);
        return size;
    }

    /// A memory descriptor: dims, data type and layout of a tensor.
    struct desc : public handle<dnnl_memory_desc_t> {
        using handle<dnnl_memory_desc_t>::handle;

        /// The zero descriptor (ndims 0): an absent tensor.
        desc()
            : desc(made_by(false, "could not create a zero memory descriptor",
                           dnnl_memory_desc_create_with_tag, 0, nullptr, dnnl_data_type_undef,
                           dnnl_format_tag_undef)) {}

        desc(const dims &adims, data_type dt, format_tag tag, bool allow_empty = false)
            : desc(made_by(allow_empty, "could not create a memory descriptor from a format tag",
                           dnnl_memory_desc_create_with_tag, ndims_of(adims), adims.data(),
                           convert_to_c(dt), convert_to_c(tag))) {}

        /// Strides in elements; empty strides give the dense row-major layout.
        desc(const dims &adims, data_type dt, const dims &strides, bool allow_empty = false)
            : desc(made_by(allow_empty, "could not create a memory descriptor from strides",
                           dnnl_memory_desc_create_with_strides, ndims_of(adims), adims.data(),
                           convert_to_c(dt),
                           strides.empty() ? nullptr
                                           : checked(strides, ndims_of(adims)).data())) {}

        /// Takes ownership of a C descriptor.
        desc(dnnl_memory_desc_t md) : handle<dnnl_memory_desc_t>(md) {}

        /// Serialized descriptors are not supported (no dnnl_memory_desc_create_with_blob).
        desc(const std::vector<uint8_t> &blob) {
            (void)blob;
            detail::unimplemented("memory::desc from a blob is not implemented");
        }

        /// The part `adims` at `offsets` of this descriptor's tensor, same strides.
        desc submemory_desc(const dims &adims, const dims &offsets,
                            bool allow_empty = false) const {
            return made_by(allow_empty, "could not create a sub-memory descriptor",
                           dnnl_memory_desc_create_submemory, get(),
                           checked(adims, get_ndims()).data(),
                           checked(offsets, get_ndims()).data());
        }

        /// The same memory seen with dims `adims` (same number of elements).
        desc reshape(const dims &adims, bool allow_empty = false) const {
            validate_dims(adims, 1);
            return made_by(allow_empty, "could not reshape a memory descriptor",
                           dnnl_memory_desc_reshape, get(), static_cast<int>(adims.size()),
                           adims.data());
        }

        /// The same memory seen with its axes renumbered: axis i becomes permutation[i].
        desc permute_axes(const std::vector<int> &permutation, bool allow_empty = false) const {
            validate_dims(permutation, get_ndims());
            return made_by(allow_empty, "could not permute the axes of a memory descriptor",
                           dnnl_memory_desc_permute_axes, get(), permutation.data());
        }

        int get_ndims() const { return query_s32(query::ndims_s32); }
        dims get_dims() const { return query_dims(query::dims); }
        dims get_padded_dims() const { return query_dims(query::padded_dims); }
        dims get_padded_offsets() const { return query_dims(query::padded_offsets); }
        dims get_strides() const { return query_dims(query::strides); }
        int get_inner_nblks() const { return query_s32(query::inner_nblks_s32); }
        dims get_inner_blks() const { return query_dims(query::inner_blks, get_inner_nblks()); }
        dims get_inner_idxs() const { return query_dims(query::inner_idxs, get_inner_nblks()); }

        dim get_submemory_offset() const {
            dim offset = 0;
            return dnnl_memory_desc_query(get(), dnnl_query_submemory_offset_s64, &offset)
                                   == dnnl_success
                           ? offset
                           : 0;
        }

        int get_num_handles() const {
            int n = 0;
            return dnnl_memory_desc_query_v2(get(), dnnl_query_num_handles_s32, 0, &n)
                                   == dnnl_success
                           ? n
                           : 0;
        }

        data_type get_data_type(int index = 0) const {
            dnnl_data_type_t dt = dnnl_data_type_undef;
            dnnl_memory_desc_query_v2(get(), dnnl_query_data_type, index, &dt);
            return static_cast<data_type>(dt);
        }

        memory::format_kind get_format_kind() const {
            dnnl_format_kind_t fk = dnnl_format_kind_undef;
            dnnl_memory_desc_query(get(), dnnl_query_format_kind, &fk);
            return static_cast<memory::format_kind>(fk);
        }

        /// Bytes a buffer for handle `index` needs.
        size_t get_size(int index = 0) const { return dnnl_memory_desc_get_size_v2(get(), index); }

        /// Not supported (no dnnl_memory_desc_get_blob): throws dnnl_unimplemented.
        std::vector<uint8_t> get_blob() {
            detail::unimplemented("memory::desc::get_blob is not implemented");
        }

        bool is_zero() const { return get_ndims() == 0; }

        bool operator==(const desc &other) const {
            return dnnl_memory_desc_equal(get(), other.get()) != 0;
        }
        bool operator!=(const desc &other) const { return !(*this == other); }

    private:
        // The descriptor C call `fn(&md, args...)` makes: throws on failure, or with
        // `allow_empty` is empty.
        template <typename... Params, typename... Args>
        static desc made_by(bool allow_empty, const char *msg,
                            dnnl_status_t (*fn)(dnnl_memory_desc_t *, Params...), Args... args) {
            dnnl_memory_desc_t md = nullptr;
            const dnnl_status_t s = fn(&md, args...);
            if (s != dnnl_success) {
                if (!allow_empty) detail::raise(s, msg);
                md = nullptr;
            }
            return desc(md);
        }

        static const dims &checked(const dims &d, int min_size) {
            validate_dims(d, min_size);
            return d;
        }
        static int ndims_of(const dims &d) { return static_cast<int>(checked(d, 0).size()); }

        int query_s32(query what) const {
            int v = 0;
            return dnnl_memory_desc_query(get(), dnnl::convert_to_c(what), &v) == dnnl_success ? v
                                                                                               : 0;
        }

        // `n` leading values of a dims-array query (default: ndims); {} when not answered.
        dims query_dims(query what, int n = -1) const {
            const dnnl_dims_t *arr = nullptr;
            if (dnnl_memory_desc_query(get(), dnnl::convert_to_c(what), &arr) != dnnl_success
                || arr == nullptr)
                return dims();
            const int count = n < 0 ? get_ndims() : n;
            return dims(*arr, *arr + count);
        }
    };

    memory() = default;

    /// A memory over the user's buffer `handle` (or DNNL_MEMORY_ALLOCATE / DNNL_MEMORY_NONE).
    memory(const desc &md, const engine &eng, void *handle) {
        dnnl_memory_t m = nullptr;
        error::wrap_c_api(dnnl_memory_create(&m, md.get(), eng.get(), handle),
                          "could not create a memory object");
        reset(m);
    }

    /// One buffer per handle of `md`.
    memory(const desc &md, const engine &eng, std::vector<void *> handles) {
        dnnl_memory_t m = nullptr;
        error::wrap_c_api(dnnl_memory_create_v2(&m, md.get(), eng.get(),
                                                static_cast<int>(handles.size()), handles.data()),
                          "could not create a memory object");
        reset(m);
    }

    /// A memory whose buffers the library allocates.
    memory(const desc &md, const engine &eng)
        : memory(md, eng,
                 std::vector<void *>(static_cast<size_t>(std::max(md.get_num_handles(), 1)),
                                     DNNL_MEMORY_ALLOCATE)) {}

    /// A copy of the memory's descriptor.
    desc get_desc() const {
        const_dnnl_memory_desc_t md = nullptr;
        error::wrap_c_api(dnnl_memory_get_memory_desc(get(), &md),
                          "could not get a memory descriptor from a memory object");
        return clone_md(md);
    }

    engine get_engine() const {
        dnnl_engine_t e = nullptr;
        error::wrap_c_api(dnnl_memory_get_engine(get(), &e),
                          "could not get the engine of a memory object");
        return engine(e, true);
    }

    void *get_data_handle(int index = 0) const {
        void *h = nullptr;
        error::wrap_c_api(dnnl_memory_get_data_handle_v2(get(), &h, index),
                          "could not get a data handle from a memory object");
        return h;
    }

    void set_data_handle(void *h, int index = 0) const {
        error::wrap_c_api(dnnl_memory_set_data_handle_v2(get(), h, index),
                          "could not set the data handle of a memory object");
    }

    /// The buffer as host memory (unmap_data gives it back).
    template <typename T = void>
    T *map_data(int index = 0) const {
        void *p = nullptr;
        error::wrap_c_api(dnnl_memory_map_data_v2(get(), &p, index),
                          "could not map memory object data");
        return static_cast<T *>(p);
    }

    void unmap_data(void *mapped_ptr, int index = 0) const {
        error::wrap_c_api(dnnl_memory_unmap_data_v2(get(), mapped_ptr, index),
                          "could not unmap memory object data");
    }

private:
    friend struct primitive_desc_base;

    // An owned copy of a C descriptor (the zero descriptor for NULL).
    static desc clone_md(const_dnnl_memory_desc_t md) {
        if (md == nullptr) return desc();
        dnnl_memory_desc_t copy = nullptr;
        error::wrap_c_api(dnnl_memory_desc_clone(&copy, md),
                          "could not clone a memory descriptor");
        return desc(copy);
    }
};

inline bool operator==(dnnl_data_type_t a, memory::data_type b) {
    return a == memory::convert_to_c(b);
}
inline bool operator!=(dnnl_data_type_t a, memory::data_type b) { return !(a == b); }
inline bool operator==(memory::data_type a, dnnl_data_type_t b) { return b == a; }
inline bool operator!=(memory::data_type a, dnnl_data_type_t b) { return !(b == a); }
inline bool operator==(dnnl_format_tag_t a, memory::format_tag b) {
    return a == memory::convert_to_c(b);
}
inline bool operator!=(dnnl_format_tag_t a, memory::format_tag b) { return !(a == b); }
inline bool operator==(memory::format_tag a, dnnl_format_tag_t b) { return b == a; }
inline bool operator!=(memory::format_tag a, dnnl_format_tag_t b) { return !(b == a); }

// ---- attributes ------------------------------------------------------------------------------

struct primitive_attr : public handle<dnnl_primitive_attr_t> {
    using handle<dnnl_primitive_attr_t>::handle;

    primitive_attr() {
        dnnl_primitive_attr_t a = nullptr;
        error::wrap_c_api(dnnl_primitive_attr_create(&a),
                          "could not create primitive attributes");
        reset(a);
    }

    /// Takes ownership of C attributes.
    primitive_attr(dnnl_primitive_attr_t attr) : handle<dnnl_primitive_attr_t>(attr) {}

    scratchpad_mode get_scratchpad_mode() const {
        dnnl_scratchpad_mode_t m = dnnl_scratchpad_mode_library;
        error::wrap_c_api(dnnl_primitive_attr_get_scratchpad_mode(get(), &m),
                          "could not get the scratchpad mode");
        return static_cast<scratchpad_mode>(m);
    }
    void set_scratchpad_mode(scratchpad_mode m) {
        error::wrap_c_api(dnnl_primitive_attr_set_scratchpad_mode(get(), convert_to_c(m)),
                          "could not set the scratchpad mode");
    }

    fpmath_mode get_fpmath_mode() const {
        fpmath_mode m;
        bool apply_to_int;
        get_fpmath_mode(m, apply_to_int);
        return m;
    }
    void get_fpmath_mode(fpmath_mode &m, bool &apply_to_int) const {
        dnnl_fpmath_mode_t c_mode = dnnl_fpmath_mode_strict;
        int c_apply = 0;
        error::wrap_c_api(dnnl_primitive_attr_get_fpmath_mode_v2(get(), &c_mode, &c_apply),
                          "could not get the fpmath mode");
        m = static_cast<fpmath_mode>(c_mode);
        apply_to_int = c_apply != 0;
    }
    void set_fpmath_mode(fpmath_mode m, bool apply_to_int = false) {
        error::wrap_c_api(
                dnnl_primitive_attr_set_fpmath_mode_v2(get(), convert_to_c(m), apply_to_int),
                "could not set the fpmath mode");
    }

    bool get_deterministic() const {
        int v = 0;
        error::wrap_c_api(dnnl_primitive_attr_get_deterministic(get(), &v),
                          "could not get the deterministic attribute");
        return v != 0;
    }
    void set_deterministic(bool value) {
        error::wrap_c_api(dnnl_primitive_attr_set_deterministic(get(), value),
                          "could not set the deterministic attribute");
    }

    /// int8 RNN data quantization: data_u8 = scale * data_f32 + shift.
    void set_rnn_data_qparams(float scale, float shift) {
        error::wrap_c_api(dnnl_primitive_attr_set_rnn_data_qparams(get(), scale, shift),
                          "could not set the RNN data quantization parameters");
    }
    void get_rnn_data_qparams(float &scale, float &shift) const {
        error::wrap_c_api(dnnl_primitive_attr_get_rnn_data_qparams(get(), &scale, &shift),
                          "could not get the RNN data quantization parameters");
    }

    void set_rnn_weights_qparams(int mask, const std::vector<float> &scales) {
        error::wrap_c_api(dnnl_primitive_attr_set_rnn_weights_qparams(
                                  get(), static_cast<dnnl_dim_t>(scales.size()), mask,
                                  scales.data()),
                          "could not set the RNN weights quantization parameters");
    }
    void get_rnn_weights_qparams(int &mask, std::vector<float> &scales) const {
        get_scales(dnnl_primitive_attr_get_rnn_weights_qparams, mask, scales);
    }

    void set_rnn_weights_projection_qparams(int mask, const std::vector<float> &scales) {
        error::wrap_c_api(dnnl_primitive_attr_set_rnn_weights_projection_qparams(
                                  get(), static_cast<dnnl_dim_t>(scales.size()), mask,
                                  scales.data()),
                          "could not set the RNN projection weights quantization parameters");
    }
    void get_rnn_weights_projection_qparams(int &mask, std::vector<float> &scales) const {
        get_scales(dnnl_primitive_attr_get_rnn_weights_projection_qparams, mask, scales);
    }

private:
    using scales_getter = dnnl_status_t (*)(const_dnnl_primitive_attr_t, dnnl_dim_t *, int *,
                                            const float **);
    void get_scales(scales_getter fn, int &mask, std::vector<float> &scales) const {
        dnnl_dim_t count = 0;
        const float *c_scales = nullptr;
        error::wrap_c_api(fn(get(), &count, &mask, &c_scales),
                          "could not get the RNN weights quantization parameters");
        scales.assign(c_scales, c_scales + count);
    }
};

// ---- primitive, primitive descriptors --------------------------------------------------------

struct primitive_desc_base;

struct primitive : public handle<dnnl_primitive_t> {
    /// Primitive kinds this library implements.
    enum class kind {
        undef = dnnl_undefined_primitive,
        reorder = dnnl_reorder,
        rnn = dnnl_rnn,
    };

    using handle::handle;
    primitive() = default;

    /// Creates the primitive a C primitive descriptor describes.
    primitive(const_dnnl_primitive_desc_t c_pd) {
        dnnl_primitive_t p = nullptr;
        error::wrap_c_api(dnnl_primitive_create(&p, c_pd), "could not create a primitive");
        reset(p);
    }

    /// Not supported (no primitive cache blobs): throws dnnl_unimplemented.
    primitive(const_dnnl_primitive_desc_t c_pd, const std::vector<uint8_t> &cache_blob) {
        (void)c_pd;
        (void)cache_blob;
        detail::unimplemented("creating a primitive from a cache blob is not implemented");
    }

    primitive(const primitive_desc_base &pd);
    primitive(const primitive_desc_base &pd, const std::vector<uint8_t> &cache_blob);

    /// The primitive's descriptor (owned by the primitive).
    const_dnnl_primitive_desc_t get_primitive_desc() const {
        const_dnnl_primitive_desc_t pd = nullptr;
        error::wrap_c_api(dnnl_primitive_get_primitive_desc(get(), &pd),
                          "could not get the primitive descriptor of a primitive");
        return pd;
    }

    kind get_kind() const {
        dnnl_primitive_kind_t k = dnnl_undefined_primitive;
        error::wrap_c_api(
                dnnl_primitive_desc_query(get_primitive_desc(), dnnl_query_primitive_kind, 0, &k),
                "could not get the kind of a primitive");
        return static_cast<kind>(k);
    }

    /// Not supported: throws dnnl_unimplemented.
    std::vector<uint8_t> get_cache_blob() const {
        detail::unimplemented("primitive cache blobs are not implemented");
    }

    /// Runs the primitive on `args` (DNNL_ARG_* index -> memory).
    void execute(const stream &astream, const std::unordered_map<int, memory> &args) const;
};

inline dnnl_primitive_kind_t convert_to_c(primitive::kind v) {
    return static_cast<dnnl_primitive_kind_t>(v);
}

/// Queries common to every primitive descriptor.
struct primitive_desc_base : public handle<dnnl_primitive_desc_t> {
    using handle<dnnl_primitive_desc_t>::handle;
    primitive_desc_base() = default;

    /// The engine the primitive runs on (not owned).
    engine get_engine() const { return query_engine(query::engine); }

    /// The implementation's name (for logs).
    const char *impl_info_str() const {
        const char *s = nullptr;
        error::wrap_c_api(dnnl_primitive_desc_query(get(), dnnl_query_impl_info_str, 0, &s),
                          "could not get the implementation info string");
        return s;
    }

    /// An int64 query (0 when not answered).
    memory::dim query_s64(query what) const {
        memory::dim v = 0;
        return dnnl_primitive_desc_query(get(), convert_to_c(what), 0, &v) == dnnl_success ? v : 0;
    }

    float get_alpha() const { return query_f32(query::alpha_f32); }
    float get_beta() const { return query_f32(query::beta_f32); }
    algorithm get_cell_kind() const { return query_alg(query::cell_kind); }
    algorithm get_activation_kind() const { return query_alg(query::activation_kind); }
    algorithm get_algorithm() const { return query_alg(query::alg_kind); }

    rnn_direction get_direction() const {
        return static_cast<rnn_direction>(query_enum(query::direction, dnnl_rnn_direction_undef));
    }
    prop_kind get_prop_kind() const {
        return static_cast<prop_kind>(query_enum(query::prop_kind, dnnl_prop_kind_undef));
    }

    /// A memory-descriptor query (`idx`: which one, or the DNNL_ARG_* of exec_arg_md); the zero
    /// descriptor for a tensor the primitive does not use.
    memory::desc query_md(query what, int idx = 0) const {
        const bool md_query = what == query::exec_arg_md
                              || (convert_to_c(what) >= dnnl_query_some_md
                                  && convert_to_c(what) <= dnnl_query_scratchpad_md);
        if (!md_query) detail::raise(dnnl_invalid_arguments, "not a memory descriptor query");
        return memory::clone_md(dnnl_primitive_desc_query_md(get(), convert_to_c(what), idx));
    }

    memory::desc src_desc(int idx) const { return query_md(query::src_md, idx); }
    memory::desc dst_desc(int idx) const { return query_md(query::dst_md, idx); }
    memory::desc weights_desc(int idx) const { return query_md(query::weights_md, idx); }
    memory::desc diff_src_desc(int idx) const { return query_md(query::diff_src_md, idx); }
    memory::desc diff_dst_desc(int idx) const { return query_md(query::diff_dst_md, idx); }
    memory::desc diff_weights_desc(int idx) const { return query_md(query::diff_weights_md, idx); }
    memory::desc src_desc() const { return src_desc(0); }
    memory::desc dst_desc() const { return dst_desc(0); }
    memory::desc weights_desc() const { return weights_desc(0); }
    memory::desc diff_src_desc() const { return diff_src_desc(0); }
    memory::desc diff_dst_desc() const { return diff_dst_desc(0); }
    memory::desc diff_weights_desc() const { return diff_weights_desc(0); }
    memory::desc workspace_desc() const { return query_md(query::workspace_md, 0); }
    memory::desc scratchpad_desc() const { return query_md(query::scratchpad_md, 0); }

    engine scratchpad_engine() const { return query_engine(query::scratchpad_engine); }

    /// A copy of the attributes the descriptor was created with.
    primitive_attr get_primitive_attr() const {
        const_dnnl_primitive_attr_t c_attr = nullptr;
        error::wrap_c_api(dnnl_primitive_desc_get_attr(get(), &c_attr),
                          "could not get the attributes of a primitive descriptor");
        dnnl_primitive_attr_t copy = nullptr;
        error::wrap_c_api(dnnl_primitive_attr_clone(&copy, c_attr),
                          "could not clone primitive attributes");
        return primitive_attr(copy);
    }

    primitive::kind get_kind() const {
        return static_cast<primitive::kind>(
                query_enum(query::primitive_kind, dnnl_undefined_primitive));
    }

    /// The primitive cache key (empty: this library exposes no cache).
    std::vector<uint8_t> get_cache_blob_id() const {
        const memory::dim n = query_s64(query::cache_blob_id_size_s64);
        const uint8_t *id = nullptr;
        if (n <= 0
            || dnnl_primitive_desc_query(get(), dnnl_query_cache_blob_id, 0, &id) != dnnl_success
            || id == nullptr)
            return std::vector<uint8_t>();
        return std::vector<uint8_t>(id, id + n);
    }

protected:
    using base = primitive_desc_base;

    /// The attributes a descriptor gets when the user passes none.
    static const primitive_attr &default_attr() {
        static const primitive_attr attr;
        return attr;
    }

    /// Holds a copy of `pd` (the caller keeps its own).
    void reset_with_clone(const_dnnl_primitive_desc_t pd) {
        dnnl_primitive_desc_t copy = nullptr;
        error::wrap_c_api(dnnl_primitive_desc_clone(&copy, pd),
                          "could not clone a primitive descriptor");
        reset(copy);
    }

    float query_f32(query what) const {
        float v = 0.0f;
        return dnnl_primitive_desc_query(get(), convert_to_c(what), 0, &v) == dnnl_success ? v
                                                                                          : 0.0f;
    }
    algorithm query_alg(query what) const {
        return static_cast<algorithm>(query_enum(what, dnnl_alg_kind_undef));
    }
    engine query_engine(query what) const {
        dnnl_engine_t e = nullptr;
        error::wrap_c_api(dnnl_primitive_desc_query(get(), convert_to_c(what), 0, &e),
                          "could not get an engine from a primitive descriptor");
        return engine(e, true);
    }

private:
    int query_enum(query what, int fallback) const {
        int v = fallback;
        return dnnl_primitive_desc_query(get(), convert_to_c(what), 0, &v) == dnnl_success
                       ? v
                       : fallback;
    }
};

/// A primitive descriptor of an operation primitive (the RNN ones here).
struct primitive_desc : public primitive_desc_base {
    using primitive_desc_base::primitive_desc_base;
    primitive_desc() = default;

    /// Moves to the next implementation; false when there is none.
    bool next_impl() {
        const dnnl_status_t s = dnnl_primitive_desc_next_impl(get());
        if (s == dnnl_last_impl_reached) return false;
        error::wrap_c_api(s, "could not move to the next implementation");
        return true;
    }
};

inline primitive::primitive(const primitive_desc_base &pd) : primitive(pd.get()) {}

inline primitive::primitive(const primitive_desc_base &pd, const std::vector<uint8_t> &cache_blob)
    : primitive(pd.get(), cache_blob) {}

inline void primitive::execute(const stream &astream,
                               const std::unordered_map<int, memory> &args) const {
    std::vector<dnnl_exec_arg_t> c_args;
    c_args.reserve(args.size());
    for (const auto &a : args) c_args.push_back({a.first, a.second.get(true)});
    error::wrap_c_api(dnnl_primitive_execute(get(), astream.get(), static_cast<int>(c_args.size()),
                                             c_args.data()),
                      "could not execute a primitive");
}

// ---- reorder ---------------------------------------------------------------------------------

/// Copies a tensor between layouts / data types.
struct reorder : public primitive {
    struct primitive_desc : public primitive_desc_base {
        using primitive_desc_base::primitive_desc_base;
        primitive_desc() = default;

        primitive_desc(const engine &src_engine, const memory::desc &src_md,
                       const engine &dst_engine, const memory::desc &dst_md,
                       const primitive_attr &attr = default_attr(), bool allow_empty = false) {
            dnnl_primitive_desc_t pd = nullptr;
            const dnnl_status_t s = dnnl_reorder_primitive_desc_create(
                    &pd, src_md.get(), src_engine.get(), dst_md.get(), dst_engine.get(),
                    attr.get());
            if (!allow_empty)
                error::wrap_c_api(s, "could not create a reorder primitive descriptor");
            reset(pd);
        }

        primitive_desc(const memory &src, const memory &dst,
                       const primitive_attr &attr = default_attr(), bool allow_empty = false)
            : primitive_desc(src.get_engine(), src.get_desc(), dst.get_engine(), dst.get_desc(),
                             attr, allow_empty) {}

        /// A copy of a C reorder descriptor.
        primitive_desc(dnnl_primitive_desc_t pd) {
            dnnl_primitive_kind_t k = dnnl_undefined_primitive;
            error::wrap_c_api(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &k),
                              "could not get the kind of a primitive descriptor");
            if (k != dnnl_reorder)
                detail::raise(dnnl_invalid_arguments,
                              "the primitive descriptor is not a reorder's");
            reset_with_clone(pd);
        }

        engine get_src_engine() const { return query_engine(query::reorder_src_engine); }
        engine get_dst_engine() const { return query_engine(query::reorder_dst_engine); }
        memory::desc src_desc() const { return base::src_desc(0); }
        memory::desc dst_desc() const { return base::dst_desc(0); }
    };

    reorder() = default;
    reorder(const primitive_desc &pd) : primitive(pd) {}
    reorder(const primitive_desc &pd, const std::vector<uint8_t> &cache_blob)
        : primitive(pd, cache_blob) {}
    reorder(const memory &src, const memory &dst, const primitive_attr &attr = primitive_attr())
        : primitive(primitive_desc(src, dst, attr)) {}

    using primitive::execute;

    /// Runs the reorder from `src` into `dst`.
    void execute(const stream &astream, const memory &src, const memory &dst) const {
        primitive::execute(astream, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst}});
    }
};

// ---- RNN -------------------------------------------------------------------------------------

namespace detail {
/// The memory descriptors of one side of an RNN primitive (the tensors, or their gradients);
/// nullptr where the cell has no such tensor.
struct rnn_mds {
    const memory::desc *src_layer, *src_iter, *src_iter_c, *attention;
    const memory::desc *weights_layer, *weights_iter, *weights_peephole, *weights_projection;
    const memory::desc *bias, *dst_layer, *dst_iter, *dst_iter_c;

    /// Vanilla RNN, GRU, LBR-GRU.
    static rnn_mds plain(const memory::desc &src_layer, const memory::desc &src_iter,
                         const memory::desc &weights_layer, const memory::desc &weights_iter,
                         const memory::desc &bias, const memory::desc &dst_layer,
                         const memory::desc &dst_iter) {
        return rnn_mds{&src_layer, &src_iter, nullptr, nullptr, &weights_layer, &weights_iter,
                       nullptr, nullptr, &bias, &dst_layer, &dst_iter, nullptr};
    }

    /// AUGRU, LBR-AUGRU.
    static rnn_mds with_attention(const memory::desc &src_layer, const memory::desc &src_iter,
                                  const memory::desc &attention,
                                  const memory::desc &weights_layer,
                                  const memory::desc &weights_iter, const memory::desc &bias,
                                  const memory::desc &dst_layer, const memory::desc &dst_iter) {
        rnn_mds m = plain(src_layer, src_iter, weights_layer, weights_iter, bias, dst_layer,
                          dst_iter);
        m.attention = &attention;
        return m;
    }

    /// LSTM (peephole and projection optional).
    static rnn_mds lstm(const memory::desc &src_layer, const memory::desc &src_iter,
                        const memory::desc &src_iter_c, const memory::desc &weights_layer,
                        const memory::desc &weights_iter, const memory::desc *weights_peephole,
                        const memory::desc *weights_projection, const memory::desc &bias,
                        const memory::desc &dst_layer, const memory::desc &dst_iter,
                        const memory::desc &dst_iter_c) {
        return rnn_mds{&src_layer, &src_iter, &src_iter_c, nullptr, &weights_layer,
                       &weights_iter, weights_peephole, weights_projection, &bias, &dst_layer,
                       &dst_iter, &dst_iter_c};
    }
};

/// The C handle of an optional descriptor (NULL when absent).
inline const_dnnl_memory_desc_t c_md(const memory::desc *md) {
    return md == nullptr ? nullptr : md->get();
}
} // namespace detail

/// Queries of every RNN primitive descriptor, and their creation from memory descriptors.
struct rnn_primitive_desc_base : public primitive_desc {
    using primitive_desc::primitive_desc;
    rnn_primitive_desc_base() = default;

    /// A copy of C descriptor `pd`, checked to be an RNN of `cell` with `aprop_kind`.
    rnn_primitive_desc_base(dnnl_primitive_desc_t pd, prop_kind aprop_kind, algorithm cell)
        : rnn_primitive_desc_base(pd, aprop_kind, aprop_kind, cell) {}

    memory::desc src_layer_desc() const { return arg_md(DNNL_ARG_SRC_LAYER); }
    memory::desc augru_attention_desc() const { return arg_md(DNNL_ARG_AUGRU_ATTENTION); }
    memory::desc src_iter_desc() const { return arg_md(DNNL_ARG_SRC_ITER); }
    memory::desc src_iter_c_desc() const { return arg_md(DNNL_ARG_SRC_ITER_C); }
    memory::desc weights_layer_desc() const { return arg_md(DNNL_ARG_WEIGHTS_LAYER); }
    memory::desc weights_iter_desc() const { return arg_md(DNNL_ARG_WEIGHTS_ITER); }
    memory::desc weights_peephole_desc() const { return arg_md(DNNL_ARG_WEIGHTS_PEEPHOLE); }
    memory::desc weights_projection_desc() const { return arg_md(DNNL_ARG_WEIGHTS_PROJECTION); }
    memory::desc bias_desc() const { return arg_md(DNNL_ARG_BIAS); }
    memory::desc dst_layer_desc() const { return arg_md(DNNL_ARG_DST_LAYER); }
    memory::desc dst_iter_desc() const { return arg_md(DNNL_ARG_DST_ITER); }
    memory::desc dst_iter_c_desc() const { return arg_md(DNNL_ARG_DST_ITER_C); }
    memory::desc diff_src_layer_desc() const { return arg_md(DNNL_ARG_DIFF_SRC_LAYER); }
    memory::desc diff_augru_attention_desc() const {
        return arg_md(DNNL_ARG_DIFF_AUGRU_ATTENTION);
    }
    memory::desc diff_src_iter_desc() const { return arg_md(DNNL_ARG_DIFF_SRC_ITER); }
    memory::desc diff_src_iter_c_desc() const { return arg_md(DNNL_ARG_DIFF_SRC_ITER_C); }
    memory::desc diff_weights_layer_desc() const { return arg_md(DNNL_ARG_DIFF_WEIGHTS_LAYER); }
    memory::desc diff_weights_iter_desc() const { return arg_md(DNNL_ARG_DIFF_WEIGHTS_ITER); }
    memory::desc diff_weights_peephole_desc() const {
        return arg_md(DNNL_ARG_DIFF_WEIGHTS_PEEPHOLE);
    }
    memory::desc diff_weights_projection_desc() const {
        return arg_md(DNNL_ARG_DIFF_WEIGHTS_PROJECTION);
    }
    memory::desc diff_bias_desc() const { return arg_md(DNNL_ARG_DIFF_BIAS); }
    memory::desc diff_dst_layer_desc() const { return arg_md(DNNL_ARG_DIFF_DST_LAYER); }
    memory::desc diff_dst_iter_desc() const { return arg_md(DNNL_ARG_DIFF_DST_ITER); }
    memory::desc diff_dst_iter_c_desc() const { return arg_md(DNNL_ARG_DIFF_DST_ITER_C); }

protected:
    using rnn_base = rnn_primitive_desc_base;

    /// A copy of `pd` after checking it is an RNN of `cell` with either propagation kind.
    rnn_primitive_desc_base(dnnl_primitive_desc_t pd, prop_kind prop1, prop_kind prop2,
                            algorithm cell) {
        int kind = 0, prop = 0, c_cell = 0;
        error::wrap_c_api(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind),
                          "could not get the kind of a primitive descriptor");
        const bool is_rnn = kind == dnnl_rnn
                            && dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &prop)
                                       == dnnl_success
                            && dnnl_primitive_desc_query(pd, dnnl_query_cell_kind, 0, &c_cell)
                                       == dnnl_success;
        if (!is_rnn || (prop != convert_to_c(prop1) && prop != convert_to_c(prop2))
            || c_cell != convert_to_c(cell))
            detail::raise(dnnl_invalid_arguments,
                        "the primitive descriptor is not the expected RNN primitive's");
        reset_with_clone(pd);
    }

    /// Creates the descriptor of an RNN of kind `cell`: forward when `diff` is nullptr, else
    /// backward with `hint` the forward one. With `allow_empty`, a failure leaves it empty.
    rnn_primitive_desc_base(const engine &eng, algorithm cell, prop_kind aprop_kind,
                            algorithm activation, rnn_direction direction,
                            const detail::rnn_mds &t, const detail::rnn_mds *diff, float alpha,
                            float beta, const primitive_desc_base *hint,
                            const primitive_attr &attr, bool allow_empty) {
        dnnl_primitive_desc_t pd = nullptr;
        const dnnl_status_t s = create(&pd, eng, cell, aprop_kind, activation, direction, t, diff,
                                       alpha, beta, hint ? hint->get() : nullptr, attr);
        if (!allow_empty)
            error::wrap_c_api(s, diff ? "could not create an RNN backward primitive descriptor "
                                        "(ONEDNN_VERBOSE=1 tells why)"
                                      : "could not create an RNN forward primitive descriptor "
                                        "(ONEDNN_VERBOSE=1 tells why)");
        reset(pd);
    }

private:
    memory::desc arg_md(int arg) const { return query_md(query::exec_arg_md, arg); }

    // One C call per cell family; GRU and AUGRU pick their linear-before-reset twin by pointer.
    static dnnl_status_t create(dnnl_primitive_desc_t *pd, const engine &eng, algorithm cell,
                                prop_kind aprop_kind, algorithm activation,
                                rnn_direction direction, const detail::rnn_mds &t,
                                const detail::rnn_mds *d, float alpha, float beta,
                                const_dnnl_primitive_desc_t hint, const primitive_attr &attr) {
        using detail::c_md;
        const dnnl_prop_kind_t prop = convert_to_c(aprop_kind);
        const dnnl_rnn_direction_t dir = convert_to_c(direction);
        const unsigned flags = convert_to_c(rnn_flags::undef);
        switch (cell) {
            case algorithm::vanilla_rnn:
                if (!d)
                    return dnnl_vanilla_rnn_forward_primitive_desc_create(
                            pd, eng.get(), prop, convert_to_c(activation), dir, c_md(t.src_layer),
                            c_md(t.src_iter), c_md(t.weights_layer), c_md(t.weights_iter),
                            c_md(t.bias), c_md(t.dst_layer), c_md(t.dst_iter), flags, alpha, beta,
                            attr.get());
                return dnnl_vanilla_rnn_backward_primitive_desc_create(
                        pd, eng.get(), prop, convert_to_c(activation), dir, c_md(t.src_layer),
                        c_md(t.src_iter), c_md(t.weights_layer), c_md(t.weights_iter),
                        c_md(t.bias), c_md(t.dst_layer), c_md(t.dst_iter), c_md(d->src_layer),
                        c_md(d->src_iter), c_md(d->weights_layer), c_md(d->weights_iter),
                        c_md(d->bias), c_md(d->dst_layer), c_md(d->dst_iter), flags, alpha, beta,
                        hint, attr.get());
            case algorithm::vanilla_lstm:
                if (!d)
                    return dnnl_lstm_forward_primitive_desc_create(
                            pd, eng.get(), prop, dir, c_md(t.src_layer), c_md(t.src_iter),
                            c_md(t.src_iter_c), c_md(t.weights_layer), c_md(t.weights_iter),
                            c_md(t.weights_peephole), c_md(t.weights_projection), c_md(t.bias),
                            c_md(t.dst_layer), c_md(t.dst_iter), c_md(t.dst_iter_c), flags,
                            attr.get());
                return dnnl_lstm_backward_primitive_desc_create(
                        pd, eng.get(), prop, dir, c_md(t.src_layer), c_md(t.src_iter),
                        c_md(t.src_iter_c), c_md(t.weights_layer), c_md(t.weights_iter),
                        c_md(t.weights_peephole), c_md(t.weights_projection), c_md(t.bias),
                        c_md(t.dst_layer), c_md(t.dst_iter), c_md(t.dst_iter_c),
                        c_md(d->src_layer), c_md(d->src_iter), c_md(d->src_iter_c),
                        c_md(d->weights_layer), c_md(d->weights_iter), c_md(d->weights_peephole),
                        c_md(d->weights_projection), c_md(d->bias), c_md(d->dst_layer),
                        c_md(d->dst_iter), c_md(d->dst_iter_c), flags, hint, attr.get());
            case algorithm::vanilla_gru:
            case algorithm::lbr_gru: {
                const bool lbr = cell == algorithm::lbr_gru;
                if (!d) {
                    const auto fwd = lbr ? dnnl_lbr_gru_forward_primitive_desc_create
                                         : dnnl_gru_forward_primitive_desc_create;
                    return fwd(pd, eng.get(), prop, dir, c_md(t.src_layer), c_md(t.src_iter),
                               c_md(t.weights_layer), c_md(t.weights_iter), c_md(t.bias),
                               c_md(t.dst_layer), c_md(t.dst_iter), flags, attr.get());
                }
                const auto bwd = lbr ? dnnl_lbr_gru_backward_primitive_desc_create
                                     : dnnl_gru_backward_primitive_desc_create;
                return bwd(pd, eng.get(), prop, dir, c_md(t.src_layer), c_md(t.src_iter),
                           c_md(t.weights_layer), c_md(t.weights_iter), c_md(t.bias),
                           c_md(t.dst_layer), c_md(t.dst_iter), c_md(d->src_layer),
                           c_md(d->src_iter), c_md(d->weights_layer), c_md(d->weights_iter),
                           c_md(d->bias), c_md(d->dst_layer), c_md(d->dst_iter), flags, hint,
                           attr.get());
            }
            case algorithm::vanilla_augru:
            case algorithm::lbr_augru: {
                const bool lbr = cell == algorithm::lbr_augru;
                if (!d) {
                    const auto fwd = lbr ? dnnl_lbr_augru_forward_primitive_desc_create
                                         : dnnl_augru_forward_primitive_desc_create;
                    return fwd(pd, eng.get(), prop, dir, c_md(t.src_layer), c_md(t.src_iter),
                               c_md(t.attention), c_md(t.weights_layer), c_md(t.weights_iter),
                               c_md(t.bias), c_md(t.dst_layer), c_md(t.dst_iter), flags,
                               attr.get());
                }
                const auto bwd = lbr ? dnnl_lbr_augru_backward_primitive_desc_create
                                     : dnnl_augru_backward_primitive_desc_create;
                return bwd(pd, eng.get(), prop, dir, c_md(t.src_layer), c_md(t.src_iter),
                           c_md(t.attention), c_md(t.weights_layer), c_md(t.weights_iter),
                           c_md(t.bias), c_md(t.dst_layer), c_md(t.dst_iter), c_md(d->src_layer),
                           c_md(d->src_iter), c_md(d->attention), c_md(d->weights_layer),
                           c_md(d->weights_iter), c_md(d->bias), c_md(d->dst_layer),
                           c_md(d->dst_iter), flags, hint, attr.get());
            }
            default: return dnnl_unimplemented;
        }
    }
};

namespace detail {
/// What the descriptors of one RNN primitive class share: the cell, the direction of
/// propagation, and the checked adoption of a C descriptor.
template <algorithm Cell, bool Backward>
struct rnn_pd : public rnn_primitive_desc_base {
    rnn_pd() = default;

    /// A copy of C descriptor `pd` (which must be this class's kind).
    rnn_pd(dnnl_primitive_desc_t pd)
        : rnn_primitive_desc_base(pd, Backward ? prop_kind::backward : prop_kind::forward_training,
                                  Backward ? prop_kind::backward : prop_kind::forward_inference,
                                  Cell) {}

protected:
    // Forward (activation and alpha: vanilla RNN only).
    rnn_pd(const engine &eng, prop_kind aprop_kind, algorithm activation, rnn_direction direction,
           const rnn_mds &t, float alpha, const primitive_attr &attr, bool allow_empty)
        : rnn_primitive_desc_base(eng, Cell, aprop_kind, activation, direction, t, nullptr, alpha,
                                  0.0f, nullptr, attr, allow_empty) {}

    // Backward: the tensors `t`, their gradients `diff`, the forward descriptor `hint`.
    rnn_pd(const engine &eng, prop_kind aprop_kind, algorithm activation, rnn_direction direction,
           const rnn_mds &t, const rnn_mds &diff, float alpha, const primitive_desc_base &hint,
           const primitive_attr &attr, bool allow_empty)
        : rnn_primitive_desc_base(eng, Cell, aprop_kind, activation, direction, t, &diff, alpha,
                                  0.0f, &hint, attr, allow_empty) {}
};

struct vanilla_rnn_forward_pd : public rnn_pd<algorithm::vanilla_rnn, false> {
    vanilla_rnn_forward_pd() = default;
    using rnn_pd::rnn_pd;

    vanilla_rnn_forward_pd(const engine &eng, prop_kind aprop_kind, algorithm activation,
                           rnn_direction direction, const memory::desc &src_layer_desc,
                           const memory::desc &src_iter_desc,
                           const memory::desc &weights_layer_desc,
                           const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
                           const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
                           const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : vanilla_rnn_forward_pd(eng, aprop_kind, activation, direction, src_layer_desc,
                                 src_iter_desc, weights_layer_desc, weights_iter_desc, bias_desc,
                                 dst_layer_desc, dst_iter_desc, 0.0f, attr, allow_empty) {}

    /// `alpha`: the negative slope of a relu activation.
    vanilla_rnn_forward_pd(const engine &eng, prop_kind aprop_kind, algorithm activation,
                           rnn_direction direction, const memory::desc &src_layer_desc,
                           const memory::desc &src_iter_desc,
                           const memory::desc &weights_layer_desc,
                           const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
                           const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
                           float alpha, const primitive_attr &attr = default_attr(),
                           bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, activation, direction,
                 rnn_mds::plain(src_layer_desc, src_iter_desc, weights_layer_desc,
                                weights_iter_desc, bias_desc, dst_layer_desc, dst_iter_desc),
                 alpha, attr, allow_empty) {}
};

struct vanilla_rnn_backward_pd : public rnn_pd<algorithm::vanilla_rnn, true> {
    vanilla_rnn_backward_pd() = default;
    using rnn_pd::rnn_pd;

    vanilla_rnn_backward_pd(
            const engine &eng, prop_kind aprop_kind, algorithm activation,
            rnn_direction direction, const memory::desc &src_layer_desc,
            const memory::desc &src_iter_desc, const memory::desc &weights_layer_desc,
            const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
            const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
            const memory::desc &diff_src_layer_desc, const memory::desc &diff_src_iter_desc,
            const memory::desc &diff_weights_layer_desc,
            const memory::desc &diff_weights_iter_desc, const memory::desc &diff_bias_desc,
            const memory::desc &diff_dst_layer_desc, const memory::desc &diff_dst_iter_desc,
            const vanilla_rnn_forward_pd &hint_fwd_pd, const primitive_attr &attr = default_attr(),
            bool allow_empty = false)
        : vanilla_rnn_backward_pd(eng, aprop_kind, activation, direction, src_layer_desc,
                                  src_iter_desc, weights_layer_desc, weights_iter_desc, bias_desc,
                                  dst_layer_desc, dst_iter_desc, diff_src_layer_desc,
                                  diff_src_iter_desc, diff_weights_layer_desc,
                                  diff_weights_iter_desc, diff_bias_desc, diff_dst_layer_desc,
                                  diff_dst_iter_desc, 0.0f, hint_fwd_pd, attr, allow_empty) {}

    vanilla_rnn_backward_pd(
            const engine &eng, prop_kind aprop_kind, algorithm activation,
            rnn_direction direction, const memory::desc &src_layer_desc,
            const memory::desc &src_iter_desc, const memory::desc &weights_layer_desc,
            const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
            const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
            const memory::desc &diff_src_layer_desc, const memory::desc &diff_src_iter_desc,
            const memory::desc &diff_weights_layer_desc,
            const memory::desc &diff_weights_iter_desc, const memory::desc &diff_bias_desc,
            const memory::desc &diff_dst_layer_desc, const memory::desc &diff_dst_iter_desc,
            float alpha, const vanilla_rnn_forward_pd &hint_fwd_pd,
            const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, activation, direction,
                 rnn_mds::plain(src_layer_desc, src_iter_desc, weights_layer_desc,
                                weights_iter_desc, bias_desc, dst_layer_desc, dst_iter_desc),
                 rnn_mds::plain(diff_src_layer_desc, diff_src_iter_desc, diff_weights_layer_desc,
                                diff_weights_iter_desc, diff_bias_desc, diff_dst_layer_desc,
                                diff_dst_iter_desc),
                 alpha, hint_fwd_pd, attr, allow_empty) {}
};

struct lstm_forward_pd : public rnn_pd<algorithm::vanilla_lstm, false> {
    lstm_forward_pd() = default;
    using rnn_pd::rnn_pd;

    /// With peephole and projection weights.
    lstm_forward_pd(const engine &eng, prop_kind aprop_kind, rnn_direction direction,
                    const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
                    const memory::desc &src_iter_c_desc, const memory::desc &weights_layer_desc,
                    const memory::desc &weights_iter_desc,
                    const memory::desc &weights_peephole_desc,
                    const memory::desc &weights_projection_desc, const memory::desc &bias_desc,
                    const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
                    const memory::desc &dst_iter_c_desc,
                    const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, algorithm::undef, direction,
                 rnn_mds::lstm(src_layer_desc, src_iter_desc, src_iter_c_desc, weights_layer_desc,
                               weights_iter_desc, &weights_peephole_desc,
                               &weights_projection_desc, bias_desc, dst_layer_desc,
                               dst_iter_desc, dst_iter_c_desc),
                 0.0f, attr, allow_empty) {}

    /// With peephole weights.
    lstm_forward_pd(const engine &eng, prop_kind aprop_kind, rnn_direction direction,
                    const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
                    const memory::desc &src_iter_c_desc, const memory::desc &weights_layer_desc,
                    const memory::desc &weights_iter_desc,
                    const memory::desc &weights_peephole_desc, const memory::desc &bias_desc,
                    const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
                    const memory::desc &dst_iter_c_desc,
                    const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, algorithm::undef, direction,
                 rnn_mds::lstm(src_layer_desc, src_iter_desc, src_iter_c_desc, weights_layer_desc,
                               weights_iter_desc, &weights_peephole_desc, nullptr, bias_desc,
                               dst_layer_desc, dst_iter_desc, dst_iter_c_desc),
                 0.0f, attr, allow_empty) {}

    lstm_forward_pd(const engine &eng, prop_kind aprop_kind, rnn_direction direction,
                    const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
                    const memory::desc &src_iter_c_desc, const memory::desc &weights_layer_desc,
                    const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
                    const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
                    const memory::desc &dst_iter_c_desc,
                    const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, algorithm::undef, direction,
                 rnn_mds::lstm(src_layer_desc, src_iter_desc, src_iter_c_desc, weights_layer_desc,
                               weights_iter_desc, nullptr, nullptr, bias_desc, dst_layer_desc,
                               dst_iter_desc, dst_iter_c_desc),
                 0.0f, attr, allow_empty) {}
};

struct lstm_backward_pd : public rnn_pd<algorithm::vanilla_lstm, true> {
    lstm_backward_pd() = default;
    using rnn_pd::rnn_pd;

    /// With peephole and projection weights.
    lstm_backward_pd(
            const engine &eng, prop_kind aprop_kind, rnn_direction direction,
            const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
            const memory::desc &src_iter_c_desc, const memory::desc &weights_layer_desc,
            const memory::desc &weights_iter_desc, const memory::desc &weights_peephole_desc,
            const memory::desc &weights_projection_desc, const memory::desc &bias_desc,
            const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
            const memory::desc &dst_iter_c_desc, const memory::desc &diff_src_layer_desc,
            const memory::desc &diff_src_iter_desc, const memory::desc &diff_src_iter_c_desc,
            const memory::desc &diff_weights_layer_desc,
            const memory::desc &diff_weights_iter_desc,
            const memory::desc &diff_weights_peephole_desc,
            const memory::desc &diff_weights_projection_desc, const memory::desc &diff_bias_desc,
            const memory::desc &diff_dst_layer_desc, const memory::desc &diff_dst_iter_desc,
            const memory::desc &diff_dst_iter_c_desc, const lstm_forward_pd &hint_fwd_pd,
            const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, algorithm::undef, direction,
                 rnn_mds::lstm(src_layer_desc, src_iter_desc, src_iter_c_desc, weights_layer_desc,
                               weights_iter_desc, &weights_peephole_desc,
                               &weights_projection_desc, bias_desc, dst_layer_desc,
                               dst_iter_desc, dst_iter_c_desc),
                 rnn_mds::lstm(diff_src_layer_desc, diff_src_iter_desc, diff_src_iter_c_desc,
                               diff_weights_layer_desc, diff_weights_iter_desc,
                               &diff_weights_peephole_desc, &diff_weights_projection_desc,
                               diff_bias_desc, diff_dst_layer_desc, diff_dst_iter_desc,
                               diff_dst_iter_c_desc),
                 0.0f, hint_fwd_pd, attr, allow_empty) {}

    /// With peephole weights.
    lstm_backward_pd(
            const engine &eng, prop_kind aprop_kind, rnn_direction direction,
            const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
            const memory::desc &src_iter_c_desc, const memory::desc &weights_layer_desc,
            const memory::desc &weights_iter_desc, const memory::desc &weights_peephole_desc,
            const memory::desc &bias_desc, const memory::desc &dst_layer_desc,
            const memory::desc &dst_iter_desc, const memory::desc &dst_iter_c_desc,
            const memory::desc &diff_src_layer_desc, const memory::desc &diff_src_iter_desc,
            const memory::desc &diff_src_iter_c_desc, const memory::desc &diff_weights_layer_desc,
            const memory::desc &diff_weights_iter_desc,
            const memory::desc &diff_weights_peephole_desc, const memory::desc &diff_bias_desc,
            const memory::desc &diff_dst_layer_desc, const memory::desc &diff_dst_iter_desc,
            const memory::desc &diff_dst_iter_c_desc, const lstm_forward_pd &hint_fwd_pd,
            const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, algorithm::undef, direction,
                 rnn_mds::lstm(src_layer_desc, src_iter_desc, src_iter_c_desc, weights_layer_desc,
                               weights_iter_desc, &weights_peephole_desc, nullptr, bias_desc,
                               dst_layer_desc, dst_iter_desc, dst_iter_c_desc),
                 rnn_mds::lstm(diff_src_layer_desc, diff_src_iter_desc, diff_src_iter_c_desc,
                               diff_weights_layer_desc, diff_weights_iter_desc,
                               &diff_weights_peephole_desc, nullptr, diff_bias_desc,
                               diff_dst_layer_desc, diff_dst_iter_desc, diff_dst_iter_c_desc),
                 0.0f, hint_fwd_pd, attr, allow_empty) {}

    lstm_backward_pd(
            const engine &eng, prop_kind aprop_kind, rnn_direction direction,
            const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
            const memory::desc &src_iter_c_desc, const memory::desc &weights_layer_desc,
            const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
            const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
            const memory::desc &dst_iter_c_desc, const memory::desc &diff_src_layer_desc,
            const memory::desc &diff_src_iter_desc, const memory::desc &diff_src_iter_c_desc,
            const memory::desc &diff_weights_layer_desc,
            const memory::desc &diff_weights_iter_desc, const memory::desc &diff_bias_desc,
            const memory::desc &diff_dst_layer_desc, const memory::desc &diff_dst_iter_desc,
            const memory::desc &diff_dst_iter_c_desc, const lstm_forward_pd &hint_fwd_pd,
            const primitive_attr &attr = default_attr(), bool allow_empty = false)
        : rnn_pd(eng, aprop_kind, algorithm::undef, direction,
                 rnn_mds::lstm(src_layer_desc, src_iter_desc, src_iter_c_desc, weights_layer_desc,
                               weights_iter_desc, nullptr, nullptr, bias_desc, dst_layer_desc,
                               dst_iter_desc, dst_iter_c_desc),
                 rnn_mds::lstm(diff_src_layer_desc, diff_src_iter_desc, diff_src_iter_c_desc,
                               diff_weights_layer_desc, diff_weights_iter_desc, nullptr, nullptr,
                               diff_bias_desc, diff_dst_layer_desc, diff_dst_iter_desc,
                               diff_dst_iter_c_desc),
                 0.0f, hint_fwd_pd, attr, allow_empty) {}
};

/// GRU and LBR-GRU forward.
template <algorithm Cell>
struct gru_forward_pd : public rnn_pd<Cell, false> {
    using base_pd = rnn_pd<Cell, false>;
    gru_forward_pd() = default;
    using base_pd::base_pd;

    gru_forward_pd(const engine &eng, prop_kind aprop_kind, rnn_direction direction,
                   const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
                   const memory::desc &weights_layer_desc, const memory::desc &weights_iter_desc,
                   const memory::desc &bias_desc, const memory::desc &dst_layer_desc,
                   const memory::desc &dst_iter_desc,
                   const primitive_attr &attr = base_pd::default_attr(), bool allow_empty = false)
        : base_pd(eng, aprop_kind, algorithm::undef, direction,
                  rnn_mds::plain(src_layer_desc, src_iter_desc, weights_layer_desc,
                                 weights_iter_desc, bias_desc, dst_layer_desc, dst_iter_desc),
                  0.0f, attr, allow_empty) {}
};

/// GRU and LBR-GRU backward.
template <algorithm Cell>
struct gru_backward_pd : public rnn_pd<Cell, true> {
    using base_pd = rnn_pd<Cell, true>;
    gru_backward_pd() = default;
    using base_pd::base_pd;

    gru_backward_pd(const engine &eng, prop_kind aprop_kind, rnn_direction direction,
                    const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
                    const memory::desc &weights_layer_desc, const memory::desc &weights_iter_desc,
                    const memory::desc &bias_desc, const memory::desc &dst_layer_desc,
                    const memory::desc &dst_iter_desc, const memory::desc &diff_src_layer_desc,
                    const memory::desc &diff_src_iter_desc,
                    const memory::desc &diff_weights_layer_desc,
                    const memory::desc &diff_weights_iter_desc,
                    const memory::desc &diff_bias_desc, const memory::desc &diff_dst_layer_desc,
                    const memory::desc &diff_dst_iter_desc,
                    const gru_forward_pd<Cell> &hint_fwd_pd,
                    const primitive_attr &attr = base_pd::default_attr(),
                    bool allow_empty = false)
        : base_pd(eng, aprop_kind, algorithm::undef, direction,
                  rnn_mds::plain(src_layer_desc, src_iter_desc, weights_layer_desc,
                                 weights_iter_desc, bias_desc, dst_layer_desc, dst_iter_desc),
                  rnn_mds::plain(diff_src_layer_desc, diff_src_iter_desc,
                                 diff_weights_layer_desc, diff_weights_iter_desc, diff_bias_desc,
                                 diff_dst_layer_desc, diff_dst_iter_desc),
                  0.0f, hint_fwd_pd, attr, allow_empty) {}
};

/// AUGRU and LBR-AUGRU forward.
template <algorithm Cell>
struct augru_forward_pd : public rnn_pd<Cell, false> {
    using base_pd = rnn_pd<Cell, false>;
    augru_forward_pd() = default;
    using base_pd::base_pd;

    augru_forward_pd(const engine &eng, prop_kind aprop_kind, rnn_direction direction,
                     const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
                     const memory::desc &attention_desc, const memory::desc &weights_layer_desc,
                     const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
                     const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
                     const primitive_attr &attr = base_pd::default_attr(),
                     bool allow_empty = false)
        : base_pd(eng, aprop_kind, algorithm::undef, direction,
                  rnn_mds::with_attention(src_layer_desc, src_iter_desc, attention_desc,
                                          weights_layer_desc, weights_iter_desc, bias_desc,
                                          dst_layer_desc, dst_iter_desc),
                  0.0f, attr, allow_empty) {}

    memory::desc attention_desc() const { return this->augru_attention_desc(); }
};

/// AUGRU and LBR-AUGRU backward.
template <algorithm Cell>
struct augru_backward_pd : public rnn_pd<Cell, true> {
    using base_pd = rnn_pd<Cell, true>;
    augru_backward_pd() = default;
    using base_pd::base_pd;

    augru_backward_pd(
            const engine &eng, prop_kind aprop_kind, rnn_direction direction,
            const memory::desc &src_layer_desc, const memory::desc &src_iter_desc,
            const memory::desc &attention_desc, const memory::desc &weights_layer_desc,
            const memory::desc &weights_iter_desc, const memory::desc &bias_desc,
            const memory::desc &dst_layer_desc, const memory::desc &dst_iter_desc,
            const memory::desc &diff_src_layer_desc, const memory::desc &diff_src_iter_desc,
            const memory::desc &diff_attention_desc, const memory::desc &diff_weights_layer_desc,
            const memory::desc &diff_weights_iter_desc, const memory::desc &diff_bias_desc,
            const memory::desc &diff_dst_layer_desc, const memory::desc &diff_dst_iter_desc,
            const augru_forward_pd<Cell> &hint_fwd_pd,
            const primitive_attr &attr = base_pd::default_attr(), bool allow_empty = false)
        : base_pd(eng, aprop_kind, algorithm::undef, direction,
                  rnn_mds::with_attention(src_layer_desc, src_iter_desc, attention_desc,
                                          weights_layer_desc, weights_iter_desc, bias_desc,
                                          dst_layer_desc, dst_iter_desc),
                  rnn_mds::with_attention(diff_src_layer_desc, diff_src_iter_desc,
                                          diff_attention_desc, diff_weights_layer_desc,
                                          diff_weights_iter_desc, diff_bias_desc,
                                          diff_dst_layer_desc, diff_dst_iter_desc),
                  0.0f, hint_fwd_pd, attr, allow_empty) {}

    memory::desc attention_desc() const { return this->augru_attention_desc(); }
    memory::desc diff_attention_desc() const { return this->diff_augru_attention_desc(); }
};

/// An RNN primitive made from its descriptor class PD (the class's `primitive_desc`).
template <typename PD>
struct rnn_primitive : public primitive {
    using primitive_desc = PD;

    rnn_primitive() = default;
    rnn_primitive(const primitive_desc &pd) : primitive(pd) {}
    rnn_primitive(const primitive_desc &pd, const std::vector<uint8_t> &cache_blob)
        : primitive(pd, cache_blob) {}
};
} // namespace detail

struct vanilla_rnn_forward : public detail::rnn_primitive<detail::vanilla_rnn_forward_pd> {
    using rnn_primitive::rnn_primitive;
};
struct vanilla_rnn_backward : public detail::rnn_primitive<detail::vanilla_rnn_backward_pd> {
    using rnn_primitive::rnn_primitive;
};
struct lstm_forward : public detail::rnn_primitive<detail::lstm_forward_pd> {
    using rnn_primitive::rnn_primitive;
};
struct lstm_backward : public detail::rnn_primitive<detail::lstm_backward_pd> {
    using rnn_primitive::rnn_primitive;
};
struct gru_forward
    : public detail::rnn_primitive<detail::gru_forward_pd<algorithm::vanilla_gru>> {
    using rnn_primitive::rnn_primitive;
};
struct gru_backward
    : public detail::rnn_primitive<detail::gru_backward_pd<algorithm::vanilla_gru>> {
    using rnn_primitive::rnn_primitive;
};
struct lbr_gru_forward
    : public detail::rnn_primitive<detail::gru_forward_pd<algorithm::lbr_gru>> {
    using rnn_primitive::rnn_primitive;
};
struct lbr_gru_backward
    : public detail::rnn_primitive<detail::gru_backward_pd<algorithm::lbr_gru>> {
    using rnn_primitive::rnn_primitive;
};
struct augru_forward
    : public detail::rnn_primitive<detail::augru_forward_pd<algorithm::vanilla_augru>> {
    using rnn_primitive::rnn_primitive;
};
struct augru_backward
    : public detail::rnn_primitive<detail::augru_backward_pd<algorithm::vanilla_augru>> {
    using rnn_primitive::rnn_primitive;
};
struct lbr_augru_forward
    : public detail::rnn_primitive<detail::augru_forward_pd<algorithm::lbr_augru>> {
    using rnn_primitive::rnn_primitive;
};
struct lbr_augru_backward
    : public detail::rnn_primitive<detail::augru_backward_pd<algorithm::lbr_augru>> {
    using rnn_primitive::rnn_primitive;
};

} // namespace dnnl

#endif /* OXIDNN_ONEAPI_DNNL_DNNL_HPP */
