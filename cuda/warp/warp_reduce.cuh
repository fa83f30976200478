// Warp layer: reductions of a warp's values.
//
// A "chained" operator reduces NUM independent chains at once, each with its
// own operator: op(c, a, b) combines two values of chain c and op.identity(c)
// is chain c's identity (the min/max ladder's bounds are six chains, three
// taking min and three max). Interleaving the chains lets their shuffles
// overlap.
#ifndef KD_WARP_REDUCE_CUH
#define KD_WARP_REDUCE_CUH

#include "warp_shuffle.cuh"

// Shuffles down by halving offsets: afterwards lane 0 holds, for each chain,
// the op-sum of lanes 0 .. LANES-1 (other lanes hold partial sums). LANES is
// a power of two up to 32; all 32 lanes must take part.
template <int LANES, int NUM, typename T, typename ChainOp>
__device__ __forceinline__ void kd_warp_reduce_down(T (&values)[NUM], ChainOp op)
{
    static_assert(LANES >= 1 && LANES <= KD_WARP_THREADS && (LANES & (LANES - 1)) == 0,
                  "a power of two up to a warp");
#pragma unroll
    for (int offset = LANES / 2; offset > 0; offset /= 2) {
#pragma unroll
        for (int c = 0; c < NUM; c++)
            values[c] = op(c, values[c], kd_shfl_down(values[c], offset));
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

// The hardware's integer reductions (sm_80 and later), in every lane.
__device__ __forceinline__ uint32_t kd_warp_sum_u32(uint32_t value)
{
    return __reduce_add_sync(KD_FULL_MASK, value);
}

__device__ __forceinline__ uint32_t kd_warp_max_u32(uint32_t value)
{
    return __reduce_max_sync(KD_FULL_MASK, value);
}

#endif
