// Block layer: the 64-bit tile status word of the decoupled look-back
// (lookback.cuh), as code the host runs too (host_device.h): the status in the
// top two bits, a codec's value in the low 62, so that one relaxed load
// observes both consistently. A codec packs its value type:
//   struct codec { typedef ... value_type;
//                  static uint64_t pack(unsigned status, value_type v);
//                  static value_type unpack(uint64_t word);
//                  static value_type identity(); };
// and unpack(pack(s, v)) == v for every value the scan can produce.
#ifndef KD_LOOKBACK_WORD_H
#define KD_LOOKBACK_WORD_H

#include <stdint.h>

#include "host_device.h"

enum { KD_TILE_INVALID = 0, KD_TILE_AGGREGATE = 1, KD_TILE_INCLUSIVE = 2 };

__host__ __device__ __forceinline__ unsigned kd_tile_status(uint64_t word)
{
    return (unsigned)(word >> 62);
}

// 32-bit sums (int32 scans wrap, so they travel as uint32).
struct kd_codec_u32 {
    typedef uint32_t value_type;
    static __host__ __device__ __forceinline__ uint64_t pack(unsigned status, uint32_t v) { return ((uint64_t)status << 62) | v; }
    static __host__ __device__ __forceinline__ uint32_t unpack(uint64_t word) { return (uint32_t)word; }
    static __host__ __device__ __forceinline__ uint32_t identity() { return 0; }
};

#endif
