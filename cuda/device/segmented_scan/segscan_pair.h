// The segmented scan's value (segscan.cu), as code the host runs too
// (host_device.h): a pair (segment-start flag, sum since the last start), the operator
// that restarts the sum at a start (associative, not commutative), and its
// look-back codec (lookback_word.h): the flag in bit 32, the sum below.
#ifndef KD_SEGSCAN_PAIR_H
#define KD_SEGSCAN_PAIR_H

#include <stdint.h>

#include "host_device.h"

struct seg_pair {
    uint32_t flag; // 1 if a segment starts in the range
    uint32_t sum;  // sum since the range's last segment start
};

struct seg_op {
    __host__ __device__ __forceinline__ seg_pair operator()(seg_pair a, seg_pair b) const
    {
        seg_pair r;
        r.flag = a.flag | b.flag;
        r.sum = b.flag ? b.sum : a.sum + b.sum;
        return r;
    }
};

struct seg_codec {
    typedef seg_pair value_type;
    static __host__ __device__ __forceinline__ uint64_t pack(unsigned status, seg_pair v)
    {
        return ((uint64_t)status << 62) | ((uint64_t)(v.flag & 1u) << 32) | v.sum;
    }
    static __host__ __device__ __forceinline__ seg_pair unpack(uint64_t word)
    {
        seg_pair v;
        v.flag = (uint32_t)(word >> 32) & 1u;
        v.sum = (uint32_t)word;
        return v;
    }
    static __host__ __device__ __forceinline__ seg_pair identity()
    {
        seg_pair v;
        v.flag = 0;
        v.sum = 0;
        return v;
    }
};

#endif
