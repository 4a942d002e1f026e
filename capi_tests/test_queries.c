/*
 * test_queries.c - every memory-descriptor query on the descriptors an RNN
 * user makes (tnc, ntc, ldigo, ldgoi, ldnc, x, arbitrary strides,
 * sub-memories, the zero md, `any`), dnnl_memory_desc_get_size, and every
 * primitive-descriptor query on LSTM forward pds (training and inference,
 * with and without states, library and user scratchpad).
 *
 * Values were measured on the real oneDNN 3.13 and 3.2. Nothing
 * implementation-specific is asserted: no implementation name, no exact
 * workspace / scratchpad size, no resolved weights format (the reorder into
 * it is tested in test_reorder.c).
 */
#include <string.h>

#include "check.h"

/* ------------------------------------------------------------------------ */
/* memory descriptor queries                                                */

typedef struct {
    const char *name;
    int ndims;
    dnnl_dim_t dims[5];
    dnnl_data_type_t dt;
    dnnl_format_kind_t fk;
    dnnl_dim_t strides[5]; /* blocked only */
    dnnl_dim_t offset;     /* submemory offset, elements */
    size_t size;           /* get_size, 3.13 value */
    size_t size_32;        /* get_size, 3.2 value */
} md_expect_t;

static void check_md(const_dnnl_memory_desc_t md, const md_expect_t *e) {
    int nd = -1, nblks = -1, nh = -1, i;
    dnnl_data_type_t dt = (dnnl_data_type_t)-1;
    dnnl_format_kind_t fk = (dnnl_format_kind_t)-1;
    const dnnl_dims_t *dims = NULL, *strides = NULL, *pdims = NULL,
                      *poffs = NULL, *blks = NULL, *idxs = NULL;
    dnnl_dim_t off = -1;
    const int blocked = e->fk == dnnl_blocked;
    size_t size, want_size;
    int era;

    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd));
    CHECK(nd == e->ndims, "%s: ndims %d, expected %d", e->name, nd, e->ndims);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
    CHECK(dims != NULL, "%s: dims pointer", e->name);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    CHECK(dt == e->dt, "%s: data type %d, expected %d", e->name, (int)dt,
            (int)e->dt);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_format_kind, &fk));
    CHECK(fk == e->fk, "%s: format kind %d, expected %d", e->name, (int)fk,
            (int)e->fk);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_padded_dims, &pdims));
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_padded_offsets, &poffs));
    CHECK(pdims != NULL && poffs != NULL, "%s: padded dims/offsets", e->name);
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_submemory_offset_s64, &off));
    CHECK(off == e->offset, "%s: submemory offset %ld, expected %ld", e->name,
            (long)off, (long)e->offset);
    if (dims && pdims && poffs && nd == e->ndims)
        for (i = 0; i < nd; i++) {
            CHECK((*dims)[i] == e->dims[i], "%s: dims[%d] = %ld, expected %ld",
                    e->name, i, (long)(*dims)[i], (long)e->dims[i]);
            CHECK((*pdims)[i] == e->dims[i], "%s: padded_dims[%d] = %ld",
                    e->name, i, (long)(*pdims)[i]);
            CHECK((*poffs)[i] == 0, "%s: padded_offsets[%d] = %ld", e->name,
                    i, (long)(*poffs)[i]);
        }

    /* strides and inner blocks exist for blocked descriptors only */
    if (blocked) {
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_strides, &strides));
        if (strides && nd == e->ndims)
            for (i = 0; i < nd; i++)
                CHECK((*strides)[i] == e->strides[i],
                        "%s: strides[%d] = %ld, expected %ld", e->name, i,
                        (long)(*strides)[i], (long)e->strides[i]);
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks));
        CHECK(nblks == 0, "%s: plain layout has no inner blocks (%d)", e->name,
                nblks);
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_inner_blks, &blks));
        CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_inner_idxs, &idxs));
    } else {
        CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_strides, &strides),
                dnnl_invalid_arguments);
        CHECK_STATUS(
                dnnl_memory_desc_query(md, dnnl_query_inner_nblks_s32, &nblks),
                dnnl_invalid_arguments);
    }

    /* num_handles is a _v2 query; the v1 entry point does not answer it */
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_num_handles_s32, &nh),
            dnnl_unimplemented);
    nh = -1;
    CHECK_OK(dnnl_memory_desc_query_v2(md, dnnl_query_num_handles_s32, 0, &nh));
    CHECK(nh == 1, "%s: num_handles %d", e->name, nh);

    /* queries that are not memory-descriptor queries */
    CHECK_STATUS(dnnl_memory_desc_query(md, dnnl_query_prop_kind, &nh),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_memory_desc_query(md, (dnnl_query_t)9999, &nh),
            dnnl_unimplemented);

    size = dnnl_memory_desc_get_size(md);
    era = check_new_onednn_();
    want_size = era == 1 ? e->size_32 : e->size;
    if (era == 0 && size == e->size_32) want_size = size;
    CHECK(size == want_size, "%s: get_size %zu, expected %zu", e->name, size,
            want_size);
}

static void test_memory_desc_queries(void) {
    dnnl_dims_t d3 = {5, 3, 4}, d5 = {2, 1, 4, 4, 3}, d4 = {2, 1, 3, 4},
                d1 = {100}, strides = {32, 8, 1}, sub_dims = {2, 2, 3},
                sub_offs = {1, 1, 1};
    dnnl_memory_desc_t zero, tnc, ntc, ldigo, ldgoi, ldnc, any, strided, sub,
            sub_strided, x;
    /* name, ndims, dims, dt, fk, strides, offset, size(3.13), size(3.2) */
    const md_expect_t e_zero = {"zero", 0, {0}, dnnl_data_type_undef,
            dnnl_format_kind_undef, {0}, 0, 0, 0};
    const md_expect_t e_tnc = {"tnc", 3, {5, 3, 4}, dnnl_f32, dnnl_blocked,
            {12, 4, 1}, 0, 240, 240};
    const md_expect_t e_ntc = {"ntc", 3, {5, 3, 4}, dnnl_f32, dnnl_blocked,
            {4, 20, 1}, 0, 240, 240};
    const md_expect_t e_ldigo = {"ldigo", 5, {2, 1, 4, 4, 3}, dnnl_f32,
            dnnl_blocked, {48, 48, 12, 3, 1}, 0, 384, 384};
    const md_expect_t e_ldgoi = {"ldgoi", 5, {2, 1, 4, 4, 3}, dnnl_f32,
            dnnl_blocked, {48, 48, 1, 12, 4}, 0, 384, 384};
    const md_expect_t e_ldnc = {"ldnc", 4, {2, 1, 3, 4}, dnnl_f32,
            dnnl_blocked, {12, 12, 4, 1}, 0, 96, 96};
    const md_expect_t e_any = {"any", 5, {2, 1, 4, 4, 3}, dnnl_f32,
            dnnl_format_kind_any, {0}, 0, 0, 0};
    const md_expect_t e_strided = {"strided {32,8,1}", 3, {5, 3, 4}, dnnl_f32,
            dnnl_blocked, {32, 8, 1}, 0, 640, 640};
    /* sub-memories: get_size is max_i(dims[i] * strides[i]) elements in 3.13
     * (the offset is not included); 3.2 reported 0 for any sub-memory */
    const md_expect_t e_sub = {"sub-memory of tnc", 3, {2, 2, 3}, dnnl_f32,
            dnnl_blocked, {12, 4, 1}, 1 * 12 + 1 * 4 + 1, 96, 0};
    const md_expect_t e_sub_strided = {"sub-memory of strided", 3, {2, 2, 3},
            dnnl_f32, dnnl_blocked, {32, 8, 1}, 1 * 32 + 1 * 8 + 1, 256, 0};
    const md_expect_t e_x = {"x u8", 1, {100}, dnnl_u8, dnnl_blocked, {1}, 0,
            100, 100};

    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&tnc, 3, d3, dnnl_f32, dnnl_tnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&ntc, 3, d3, dnnl_f32, dnnl_ntc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &ldigo, 5, d5, dnnl_f32, dnnl_ldigo));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &ldgoi, 5, d5, dnnl_f32, dnnl_ldgoi));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&ldnc, 4, d4, dnnl_f32, dnnl_ldnc));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &any, 5, d5, dnnl_f32, dnnl_format_tag_any));
    REQUIRE_OK(dnnl_memory_desc_create_with_strides(
            &strided, 3, d3, dnnl_f32, strides));
    REQUIRE_OK(dnnl_memory_desc_create_submemory(&sub, tnc, sub_dims, sub_offs));
    REQUIRE_OK(dnnl_memory_desc_create_submemory(
            &sub_strided, strided, sub_dims, sub_offs));
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&x, 1, d1, dnnl_u8, dnnl_x));

    check_md(zero, &e_zero);
    check_md(tnc, &e_tnc);
    check_md(ntc, &e_ntc);
    check_md(ldigo, &e_ldigo);
    check_md(ldgoi, &e_ldgoi);
    check_md(ldnc, &e_ldnc);
    check_md(any, &e_any);
    check_md(strided, &e_strided);
    check_md(sub, &e_sub);
    check_md(sub_strided, &e_sub_strided);
    check_md(x, &e_x);

    /* tags and the equivalent strides describe the same layout */
    {
        dnnl_dims_t tnc_strides = {12, 4, 1}, ntc_strides = {4, 20, 1};
        dnnl_memory_desc_t a = NULL, b = NULL, c = NULL;
        CHECK_OK(dnnl_memory_desc_create_with_strides(
                &a, 3, d3, dnnl_f32, tnc_strides));
        CHECK_OK(dnnl_memory_desc_create_with_strides(
                &b, 3, d3, dnnl_f32, ntc_strides));
        /* strides NULL: dense row-major (== tnc) */
        CHECK_OK(dnnl_memory_desc_create_with_strides(&c, 3, d3, dnnl_f32, NULL));
        CHECK(dnnl_memory_desc_equal(a, tnc) == 1, "strides {12,4,1} == tnc");
        CHECK(dnnl_memory_desc_equal(b, ntc) == 1, "strides {4,20,1} == ntc");
        CHECK(dnnl_memory_desc_equal(c, tnc) == 1, "strides NULL == tnc");
        CHECK(dnnl_memory_desc_equal(tnc, any) == 0, "tnc != any");
        dnnl_memory_desc_destroy(a);
        dnnl_memory_desc_destroy(b);
        dnnl_memory_desc_destroy(c);
    }
    /* a sub-memory covering the whole tensor equals its parent */
    {
        dnnl_dims_t zoff = {0, 0, 0};
        dnnl_memory_desc_t full = NULL;
        CHECK_OK(dnnl_memory_desc_create_submemory(&full, tnc, d3, zoff));
        CHECK(dnnl_memory_desc_equal(full, tnc) == 1, "full sub-memory == parent");
        dnnl_memory_desc_destroy(full);
    }
    /* descriptors differing only in data type differ */
    {
        dnnl_memory_desc_t s8 = NULL;
        CHECK_OK(dnnl_memory_desc_create_with_tag(&s8, 3, d3, dnnl_s8, dnnl_tnc));
        CHECK(dnnl_memory_desc_equal(s8, tnc) == 0, "tnc s8 != tnc f32");
        CHECK(dnnl_memory_desc_get_size(s8) == 60, "tnc s8 size");
        dnnl_memory_desc_destroy(s8);
    }

    dnnl_memory_desc_destroy(zero);
    dnnl_memory_desc_destroy(tnc);
    dnnl_memory_desc_destroy(ntc);
    dnnl_memory_desc_destroy(ldigo);
    dnnl_memory_desc_destroy(ldgoi);
    dnnl_memory_desc_destroy(ldnc);
    dnnl_memory_desc_destroy(any);
    dnnl_memory_desc_destroy(strided);
    dnnl_memory_desc_destroy(sub);
    dnnl_memory_desc_destroy(sub_strided);
    dnnl_memory_desc_destroy(x);
}

/* ------------------------------------------------------------------------ */
/* primitive descriptor queries                                             */

static dnnl_memory_desc_t mk(int ndims, dnnl_dim_t a, dnnl_dim_t b,
        dnnl_dim_t c, dnnl_dim_t d, dnnl_dim_t e, dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {a, b, c, d, e};
    dnnl_memory_desc_t md = NULL;
    REQUIRE_OK(dnnl_memory_desc_create_with_tag(&md, ndims, dims, dnnl_f32, tag));
    return md;
}

static int md_ndims(const_dnnl_memory_desc_t md) {
    int nd = -1;
    if (!md || dnnl_memory_desc_query(md, dnnl_query_ndims_s32, &nd)) return -1;
    return nd;
}

/* the pd answers `md` (non-NULL) and it has ndims 0 */
#define CHECK_ZERO_MD(md, what) \
    CHECK((md) != NULL && md_ndims(md) == 0, \
            "%s: expected a zero md, got %s (ndims %d)", (what), \
            (md) ? "a md" : "NULL", md_ndims(md))

#define CHECK_MD_EQ(md, want, what) \
    CHECK((md) != NULL && dnnl_memory_desc_equal((md), (want)) == 1, \
            "%s: md differs from the expected one", (what))

/* checks dims and data type of md */
static void check_dims(const_dnnl_memory_desc_t md, int ndims,
        const dnnl_dim_t *want, dnnl_data_type_t want_dt, const char *what) {
    const dnnl_dims_t *dims = NULL;
    dnnl_data_type_t dt = dnnl_data_type_undef;
    int i;
    if (!CHECK(md != NULL && md_ndims(md) == ndims, "%s: ndims %d, expected %d",
                what, md_ndims(md), ndims))
        return;
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_dims, &dims));
    CHECK_OK(dnnl_memory_desc_query(md, dnnl_query_data_type, &dt));
    CHECK(dt == want_dt, "%s: data type %d", what, (int)dt);
    for (i = 0; dims && i < ndims; i++)
        CHECK((*dims)[i] == want[i], "%s: dims[%d] = %ld, expected %ld", what,
                i, (long)(*dims)[i], (long)want[i]);
}

/* Training, bidirectional_concat, all states given. */
static void test_training_pd(dnnl_engine_t eng) {
    const int T = 3, N = 2, SLC = 5, DHC = 4, G = 4, L = 1, D = 2;
    dnnl_memory_desc_t src = mk(3, T, N, SLC, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t dst = mk(3, T, N, 2 * DHC, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t iter = mk(4, L, D, N, DHC, 0, dnnl_ldnc);
    dnnl_memory_desc_t wl = mk(5, L, D, SLC, G, DHC, dnnl_format_tag_any);
    dnnl_memory_desc_t wi = mk(5, L, D, DHC, G, DHC, dnnl_format_tag_any);
    dnnl_memory_desc_t bias = mk(4, L, D, G, DHC, 0, dnnl_ldgo);
    const dnnl_dim_t wl_dims[5] = {L, D, SLC, G, DHC};
    const dnnl_dim_t wi_dims[5] = {L, D, DHC, G, DHC};
    dnnl_primitive_desc_t pd = NULL, copy = NULL;
    dnnl_primitive_kind_t pk = dnnl_undefined_primitive;
    dnnl_prop_kind_t prop = dnnl_prop_kind_undef;
    dnnl_alg_kind_t cell = dnnl_alg_kind_undef;
    dnnl_rnn_direction_t dir = dnnl_rnn_direction_undef;
    dnnl_engine_t qe = NULL;
    const char *impl = NULL;
    int n_in = -1, n_out = -1;
    dnnl_dim_t mem = -1;
    const_dnnl_primitive_attr_t attr = NULL;
    const_dnnl_memory_desc_t q;

    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng,
            dnnl_forward_training, dnnl_bidirectional_concat, src, iter, iter,
            wl, wi, NULL, NULL, bias, dst, iter, iter, 0, NULL));

    /* what the C++ API checks when it wraps a C pd */
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &pk));
    CHECK(pk == dnnl_rnn, "primitive_kind %d, expected rnn", (int)pk);
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &prop));
    CHECK(prop == dnnl_forward_training, "prop_kind %d", (int)prop);
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_cell_kind, 0, &cell));
    CHECK(cell == dnnl_vanilla_lstm, "cell_kind %#x", (unsigned)cell);
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_direction, 0, &dir));
    CHECK(dir == dnnl_bidirectional_concat, "direction %d", (int)dir);
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &qe));
    CHECK(qe == eng, "engine of the pd");
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    CHECK(impl != NULL && impl[0] != '\0', "impl_info_str");
    /* inputs: src_layer, src_iter, src_iter_c, weights x2, bias;
     * outputs: dst_layer, dst_iter, dst_iter_c, workspace */
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &n_in));
    CHECK(n_in == 6, "num_of_inputs %d, expected 6", n_in);
    CHECK_OK(dnnl_primitive_desc_query(
            pd, dnnl_query_num_of_outputs_s32, 0, &n_out));
    CHECK(n_out == 4, "num_of_outputs %d, expected 4", n_out);
    CHECK_OK(dnnl_primitive_desc_query(
            pd, dnnl_query_memory_consumption_s64, 0, &mem));
    CHECK(mem >= 0, "memory_consumption %ld", (long)mem);
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_inputs_s32, 0) == 6,
            "query_s32(num_of_inputs)");
    CHECK(dnnl_primitive_desc_query_s32(pd, dnnl_query_num_of_outputs_s32, 0)
                    == 4,
            "query_s32(num_of_outputs)");
    /* queries an RNN pd does not answer */
    CHECK_STATUS(dnnl_primitive_desc_query(pd, dnnl_query_strides, 0, &n_in),
            dnnl_unimplemented);
    CHECK_STATUS(dnnl_primitive_desc_query(pd, (dnnl_query_t)9999, 0, &n_in),
            dnnl_unimplemented);
    CHECK(dnnl_primitive_desc_query_md(pd, dnnl_query_engine, 0) == NULL,
            "query_md(engine) is NULL");
    CHECK(dnnl_primitive_desc_query_md(pd, (dnnl_query_t)9999, 0) == NULL,
            "query_md(unknown) is NULL");

    /* generic md queries by index */
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), src,
            "src_md(0) = src_layer");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 1), iter,
            "src_md(1) = src_iter");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 2), iter,
            "src_md(2) = src_iter_c");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 3),
            "src_md(3)");
    check_dims(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), 5,
            wl_dims, dnnl_f32, "weights_md(0) = weights_layer");
    check_dims(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1), 5,
            wi_dims, dnnl_f32, "weights_md(1) = weights_iter");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 2),
            bias, "weights_md(2) = bias");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 3),
            "weights_md(3)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), dst,
            "dst_md(0) = dst_layer");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 1), iter,
            "dst_md(1) = dst_iter");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 2), iter,
            "dst_md(2) = dst_iter_c");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 3),
            "dst_md(3)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_diff_src_md, 0),
            "diff_src_md(0) of a forward pd");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_diff_weights_md, 0),
            "diff_weights_md(0) of a forward pd");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_diff_dst_md, 0),
            "diff_dst_md(0) of a forward pd");
    /* library scratchpad: nothing to pass */
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0),
            "scratchpad_md (library mode)");

    /* training workspace: u8, 1-D, non-empty */
    q = dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0);
    if (CHECK(q != NULL && md_ndims(q) == 1, "workspace md is 1-D")) {
        dnnl_data_type_t dt = dnnl_data_type_undef;
        const dnnl_dims_t *dims = NULL;
        CHECK_OK(dnnl_memory_desc_query(q, dnnl_query_data_type, &dt));
        CHECK(dt == dnnl_u8, "workspace data type %d, expected u8", (int)dt);
        CHECK_OK(dnnl_memory_desc_query(q, dnnl_query_dims, &dims));
        CHECK(dims && (*dims)[0] > 0
                        && dnnl_memory_desc_get_size(q) == (size_t)(*dims)[0],
                "workspace: dims[0] bytes, non-zero");
    }

    /* exec_arg_md: what the C++ RNN accessors use */
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_LAYER),
            src, "exec_arg_md(SRC_LAYER)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_ITER),
            iter, "exec_arg_md(SRC_ITER)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_ITER_C),
            iter, "exec_arg_md(SRC_ITER_C)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_LAYER),
            dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
            "exec_arg_md(WEIGHTS_LAYER) == weights_md(0)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_ITER),
            dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1),
            "exec_arg_md(WEIGHTS_ITER) == weights_md(1)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_BIAS),
            bias, "exec_arg_md(BIAS)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_DST_LAYER),
            dst, "exec_arg_md(DST_LAYER)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_DST_ITER),
            iter, "exec_arg_md(DST_ITER)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_DST_ITER_C),
            iter, "exec_arg_md(DST_ITER_C)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_WORKSPACE),
            dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0),
            "exec_arg_md(WORKSPACE) == workspace_md");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_WEIGHTS_PEEPHOLE),
            "exec_arg_md(WEIGHTS_PEEPHOLE) without peephole");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md,
                          DNNL_ARG_WEIGHTS_PROJECTION),
            "exec_arg_md(WEIGHTS_PROJECTION) without projection");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_SCRATCHPAD),
            "exec_arg_md(SCRATCHPAD), library mode");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_AUGRU_ATTENTION),
            "exec_arg_md(AUGRU_ATTENTION) of an LSTM");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_DIFF_SRC_LAYER),
            "exec_arg_md(DIFF_SRC_LAYER) of a forward pd");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, 999),
            "exec_arg_md(999)");

    /* attributes: a default attr was used */
    CHECK_OK(dnnl_primitive_desc_get_attr(pd, &attr));
    if (CHECK(attr != NULL, "get_attr")) {
        dnnl_scratchpad_mode_t mode = dnnl_scratchpad_mode_user;
        CHECK_OK(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode));
        CHECK(mode == dnnl_scratchpad_mode_library, "pd attr scratchpad mode");
    }

    /* clone: same answers, independent lifetime */
    CHECK_OK(dnnl_primitive_desc_clone(&copy, pd));
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(copy, dnnl_query_weights_md, 0),
            dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0),
            "clone: weights_layer md");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(copy, dnnl_query_workspace_md, 0),
            dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0),
            "clone: workspace md");

    /* the primitive made from the pd answers the same */
    {
        dnnl_primitive_t prim = NULL;
        const_dnnl_primitive_desc_t ppd = NULL;
        CHECK_OK(dnnl_primitive_create(&prim, pd));
        CHECK_OK(dnnl_primitive_get_primitive_desc(prim, &ppd));
        if (CHECK(ppd != NULL, "primitive's pd")) {
            pk = dnnl_undefined_primitive;
            CHECK_OK(dnnl_primitive_desc_query(
                    ppd, dnnl_query_primitive_kind, 0, &pk));
            CHECK(pk == dnnl_rnn, "primitive's pd: kind");
            CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                                ppd, dnnl_query_workspace_md, 0),
                    dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0),
                    "primitive's pd: workspace md");
        }
        dnnl_primitive_destroy(prim);
    }
    CHECK_OK(dnnl_primitive_desc_destroy(pd));

    /* next_impl: nothing after the chosen implementation */
    CHECK_STATUS(dnnl_primitive_desc_next_impl(copy), dnnl_last_impl_reached);
    CHECK_STATUS(dnnl_primitive_desc_next_impl(copy), dnnl_last_impl_reached);
    impl = NULL;
    CHECK_OK(dnnl_primitive_desc_query(copy, dnnl_query_impl_info_str, 0, &impl));
    CHECK(impl != NULL, "pd still usable after last_impl_reached");
    pk = dnnl_undefined_primitive;
    CHECK_OK(dnnl_primitive_desc_query(copy, dnnl_query_primitive_kind, 0, &pk));
    CHECK(pk == dnnl_rnn, "clone after the original was destroyed");
    CHECK_OK(dnnl_primitive_desc_destroy(copy));

    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(dst);
    dnnl_memory_desc_destroy(iter);
    dnnl_memory_desc_destroy(wl);
    dnnl_memory_desc_destroy(wi);
    dnnl_memory_desc_destroy(bias);
}

/*
 * Inference, left2right, L = 2, no states: once with NULL for the states,
 * once with zero mds (what the C++ API passes). Omitted tensors come back as
 * zero mds (not NULL) in both oneDNN 3.2 and 3.13.
 */
static void test_inference_pd(dnnl_engine_t eng, int zero_states) {
    const int T = 4, N = 3, C = 6, G = 4, L = 2, D = 1;
    dnnl_memory_desc_t src = mk(3, T, N, C, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t wl = mk(5, L, D, C, G, C, dnnl_format_tag_any);
    dnnl_memory_desc_t wi = mk(5, L, D, C, G, C, dnnl_format_tag_any);
    dnnl_memory_desc_t bias = mk(4, L, D, G, C, 0, dnnl_ldgo);
    dnnl_memory_desc_t zero = NULL;
    const_dnnl_memory_desc_t st;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_prop_kind_t prop = dnnl_prop_kind_undef;
    dnnl_rnn_direction_t dir = dnnl_rnn_direction_undef;
    int n_in = -1, n_out = -1;
    const char *what = zero_states ? "zero-md states" : "NULL states";

    REQUIRE_OK(dnnl_memory_desc_create_with_tag(
            &zero, 0, NULL, dnnl_data_type_undef, dnnl_format_tag_undef));
    st = zero_states ? zero : NULL;
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng,
            dnnl_forward_inference, dnnl_unidirectional_left2right, src, st,
            st, wl, wi, zero_states ? zero : NULL, zero_states ? zero : NULL,
            bias, src, st, st, 0, NULL));

    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_prop_kind, 0, &prop));
    CHECK(prop == dnnl_forward_inference, "%s: prop_kind %d", what, (int)prop);
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_direction, 0, &dir));
    CHECK(dir == dnnl_unidirectional_left2right, "%s: direction", what);
    /* inputs: src_layer, weights x2, bias; outputs: dst_layer */
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &n_in));
    CHECK(n_in == 4, "%s: num_of_inputs %d, expected 4", what, n_in);
    CHECK_OK(dnnl_primitive_desc_query(
            pd, dnnl_query_num_of_outputs_s32, 0, &n_out));
    CHECK(n_out == 1, "%s: num_of_outputs %d, expected 1", what, n_out);

    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), src,
            "inference src_md(0)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 1),
            "omitted src_iter: src_md(1)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 2),
            "omitted src_iter_c: src_md(2)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 1),
            "omitted dst_iter: dst_md(1)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 2),
            "omitted dst_iter_c: dst_md(2)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_ITER),
            "omitted src_iter: exec_arg_md(SRC_ITER)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_SRC_ITER_C),
            "omitted src_iter_c: exec_arg_md(SRC_ITER_C)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_DST_ITER),
            "omitted dst_iter: exec_arg_md(DST_ITER)");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_DST_ITER_C),
            "omitted dst_iter_c: exec_arg_md(DST_ITER_C)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 2),
            bias, "weights_md(2) = bias");
    /* inference: no workspace */
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(pd, dnnl_query_workspace_md, 0),
            "inference workspace_md");
    CHECK_ZERO_MD(dnnl_primitive_desc_query_md(
                          pd, dnnl_query_exec_arg_md, DNNL_ARG_WORKSPACE),
            "inference exec_arg_md(WORKSPACE)");
    CHECK(dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(
                  pd, dnnl_query_workspace_md, 0))
                    == 0,
            "inference workspace size 0");
    CHECK_STATUS(dnnl_primitive_desc_next_impl(pd), dnnl_last_impl_reached);

    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(zero);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(wl);
    dnnl_memory_desc_destroy(wi);
    dnnl_memory_desc_destroy(bias);
}

/* User scratchpad mode: the pd reports what the user must pass. */
static void test_user_scratchpad_pd(dnnl_engine_t eng) {
    dnnl_memory_desc_t src = mk(3, 3, 2, 4, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t iter = mk(4, 1, 1, 2, 4, 0, dnnl_ldnc);
    dnnl_memory_desc_t w = mk(5, 1, 1, 4, 4, 4, dnnl_ldigo);
    dnnl_memory_desc_t bias = mk(4, 1, 1, 4, 4, 0, dnnl_ldgo);
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_desc_t pd = NULL;
    const_dnnl_primitive_attr_t pattr = NULL;
    const_dnnl_memory_desc_t sp;

    REQUIRE_OK(dnnl_primitive_attr_create(&attr));
    REQUIRE_OK(dnnl_primitive_attr_set_scratchpad_mode(
            attr, dnnl_scratchpad_mode_user));
    REQUIRE_OK(dnnl_lstm_forward_primitive_desc_create(&pd, eng,
            dnnl_forward_inference, dnnl_unidirectional_left2right, src, iter,
            iter, w, w, NULL, NULL, bias, src, iter, iter, 0, attr));
    /* the pd keeps its own copy of the attr */
    CHECK_OK(dnnl_primitive_attr_destroy(attr));

    CHECK_OK(dnnl_primitive_desc_get_attr(pd, &pattr));
    if (CHECK(pattr != NULL, "get_attr (user scratchpad)")) {
        dnnl_scratchpad_mode_t mode = dnnl_scratchpad_mode_library;
        CHECK_OK(dnnl_primitive_attr_get_scratchpad_mode(pattr, &mode));
        CHECK(mode == dnnl_scratchpad_mode_user, "pd attr: user scratchpad");
    }
    /* a 1-D u8 buffer (or nothing, when the implementation needs none) */
    sp = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    if (CHECK(sp != NULL, "scratchpad_md (user mode) is not NULL")
            && md_ndims(sp) != 0) {
        dnnl_data_type_t dt = dnnl_data_type_undef;
        CHECK(md_ndims(sp) == 1, "user scratchpad md is 1-D");
        CHECK_OK(dnnl_memory_desc_query(sp, dnnl_query_data_type, &dt));
        CHECK(dt == dnnl_u8, "user scratchpad md is u8");
    }
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_SCRATCHPAD),
            sp, "exec_arg_md(SCRATCHPAD) == scratchpad_md");

    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(src);
    dnnl_memory_desc_destroy(iter);
    dnnl_memory_desc_destroy(w);
    dnnl_memory_desc_destroy(bias);
}

/* Reorder pds answer the generic queries too. */
static void test_reorder_pd(dnnl_engine_t eng) {
    dnnl_memory_desc_t tnc = mk(3, 3, 2, 5, 0, 0, dnnl_tnc);
    dnnl_memory_desc_t ntc = mk(3, 3, 2, 5, 0, 0, dnnl_ntc);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_kind_t pk = dnnl_undefined_primitive;
    dnnl_engine_t qe = NULL;
    int n_in = -1, n_out = -1;

    REQUIRE_OK(dnnl_reorder_primitive_desc_create(&pd, tnc, eng, ntc, eng, NULL));
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &pk));
    CHECK(pk == dnnl_reorder, "reorder primitive_kind %d", (int)pk);
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_engine, 0, &qe));
    CHECK(qe == eng, "reorder engine");
    CHECK_OK(dnnl_primitive_desc_query(pd, dnnl_query_num_of_inputs_s32, 0, &n_in));
    CHECK_OK(dnnl_primitive_desc_query(
            pd, dnnl_query_num_of_outputs_s32, 0, &n_out));
    CHECK(n_in == 1 && n_out == 1, "reorder: 1 input, 1 output");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), tnc,
            "reorder src_md");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), ntc,
            "reorder dst_md");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(
                        pd, dnnl_query_exec_arg_md, DNNL_ARG_FROM),
            tnc, "reorder exec_arg_md(FROM)");
    CHECK_MD_EQ(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, DNNL_ARG_TO),
            ntc, "reorder exec_arg_md(TO)");
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(tnc);
    dnnl_memory_desc_destroy(ntc);
}

int main(void) {
    dnnl_engine_t eng = NULL;

    test_memory_desc_queries();
    REQUIRE_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    test_training_pd(eng);
    test_inference_pd(eng, 0);
    test_inference_pd(eng, 1);
    test_user_scratchpad_pd(eng);
    test_reorder_pd(eng);
    dnnl_engine_destroy(eng);
    return check_summary();
}
