// Warp layer: inclusive scans of a warp's values for any associative
// operator (not necessarily commutative: the segmented pair operator is not).
#ifndef KD_WARP_SCAN_CUH
#define KD_WARP_SCAN_CUH

#include "warp_shuffle.cuh"

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

#endif
