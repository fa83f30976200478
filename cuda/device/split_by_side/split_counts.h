// Split-by-side's counts (split_internal.cuh), as code the host runs too
// (host_device.h): an element's side, its (left, right) contribution inside a tile,
// and the look-back codec of the running pair across tiles.
#ifndef KD_SPLIT_COUNTS_H
#define KD_SPLIT_COUNTS_H

#include <stdint.h>

#include "host_device.h"

// Look-back codec for the count pair; each count needs 31 bits (n < 2^31).
struct split_count_codec {
    typedef uint64_t value_type;
    static __host__ __device__ __forceinline__ uint64_t pack(unsigned status, uint64_t v)
    {
        return ((uint64_t)status << 62) | ((v >> 32) << 31) | (v & 0x7fffffffu);
    }
    static __host__ __device__ __forceinline__ uint64_t unpack(uint64_t word)
    {
        return (((word >> 31) & 0x7fffffffu) << 32) | (word & 0x7fffffffu);
    }
    static __host__ __device__ __forceinline__ uint64_t identity() { return 0; }
};

// An element's contribution inside a tile: right << 16 | left (tiles hold
// fewer than 2^16 elements, so the halves never carry into each other).
__host__ __device__ __forceinline__ uint32_t split_tile_count(uint32_t side)
{
    return ((side >> 1) & 1u) << 16 | (side & 1u);
}

// Side of element k of a vector whose four side bytes are packed in a word.
__host__ __device__ __forceinline__ uint32_t split_side(uint32_t side_word, int k)
{
    return (side_word >> (8 * k)) & 0xffu;
}

// A tile's 16-bit pair widened to the look-back's 32-bit halves.
__host__ __device__ __forceinline__ uint64_t widen_tile_count(uint32_t packed)
{
    return ((uint64_t)(packed >> 16) << 32) | (packed & 0xffffu);
}

#endif
