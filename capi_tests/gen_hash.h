/*
 * gen_hash.h - the deterministic input generator the C tests share (the same
 * formula as tools/goldens): an integer hash of an element's index and its
 * tensor's id, and the value in [-scale/2, scale/2] drawn from it.
 *
 * Header-only, C99, <stdint.h> only, so programs built against the real
 * oneDNN (vs_onednn/) include it too.
 */
#ifndef CAPI_TESTS_GEN_HASH_H
#define CAPI_TESTS_GEN_HASH_H

#include <stdint.h>

/* Element i of the stream with id `seed` (C precedence: `*` before `^`). */
static inline uint32_t ref_hash(uint32_t i, uint32_t seed) {
    uint32_t h = i * 2654435761u ^ (seed * 40503u + 0x9E3779B9u);
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return h;
}

/* Element i of the tensor with id `seed`: a value in [-scale/2, scale/2]. */
static inline float ref_gen_value(uint32_t seed, uint32_t i, float scale) {
    return ((float)(ref_hash(i, seed) & 0xFFFFu) / 65535.0f - 0.5f) * scale;
}

#endif
