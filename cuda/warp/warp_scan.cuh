// Warp layer: shuffles of any 4-byte-multiple type, and inclusive scans and
// ordered reductions of a warp's values for any associative operator (not
// necessarily commutative: the segmented pair operator is not).
#ifndef KD_WARP_SCAN_CUH
#define KD_WARP_SCAN_CUH

#include <stdint.h>
#include <string.h>

#define KD_WARP_THREADS 32
#define KD_FULL_MASK 0xffffffffu

// Shuffle a value word by word; the compiler keeps it in registers.
template <typename T>
__device__ __forceinline__ T kd_shfl_up(T value, unsigned delta)
{
    static_assert(sizeof(T) % 4 == 0, "shuffled types are made of 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++)
        words[i] = __shfl_up_sync(KD_FULL_MASK, words[i], delta);
    memcpy(&value, words, sizeof(T));
    return value;
}

template <typename T>
__device__ __forceinline__ T kd_shfl_down(T value, unsigned delta)
{
    static_assert(sizeof(T) % 4 == 0, "shuffled types are made of 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++)
        words[i] = __shfl_down_sync(KD_FULL_MASK, words[i], delta);
    memcpy(&value, words, sizeof(T));
    return value;
}

template <typename T>
__device__ __forceinline__ T kd_shfl_idx(T value, int lane)
{
    static_assert(sizeof(T) % 4 == 0, "shuffled types are made of 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++)
        words[i] = __shfl_sync(KD_FULL_MASK, words[i], lane);
    memcpy(&value, words, sizeof(T));
    return value;
}

__device__ __forceinline__ unsigned kd_lane_id()
{
    return threadIdx.x & (KD_WARP_THREADS - 1);
}

// Inclusive scan of NUM independent values per lane (NUM chains interleaved
// so their shuffles overlap), in lane order. All 32 lanes must take part.
template <int NUM, typename T, typename Op>
__device__ __forceinline__ void kd_warp_inclusive_scan(T (&values)[NUM], Op op)
{
    const unsigned lane = kd_lane_id();
#pragma unroll
    for (unsigned delta = 1; delta < KD_WARP_THREADS; delta *= 2) {
        T from_below[NUM];
#pragma unroll
        for (int c = 0; c < NUM; c++)
            from_below[c] = kd_shfl_up(values[c], delta);
        if (lane >= delta) {
#pragma unroll
            for (int c = 0; c < NUM; c++)
                values[c] = op(from_below[c], values[c]);
        }
    }
}

// Reduction in which lower lanes come *later* in sequence order (lane 0 is
// the last element): returns, in every lane, op(v[31], op(v[30], ... v[0])).
// The decoupled look-back reads its window of predecessors this way.
template <typename T, typename Op>
__device__ __forceinline__ T kd_warp_reduce_reversed(T value, Op op)
{
#pragma unroll
    for (unsigned delta = 1; delta < KD_WARP_THREADS; delta *= 2) {
        T earlier = kd_shfl_down(value, delta);
        // Lane l combines with lane l + delta, which precedes it in sequence;
        // upper lanes read out of range but only lane 0's result is used.
        value = op(earlier, value);
    }
    return kd_shfl_idx(value, 0);
}

#endif
