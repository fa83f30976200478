// Reduce5's block reduction by warp shuffles, shared with Reduce6.
#ifndef KD_REDUCE_5_SHUFFLE_CUH
#define KD_REDUCE_5_SHUFFLE_CUH

#include "reduce_common.cuh"

namespace kdr {

// Reduces each thread's r_value[K] over the block; thread 0 ends with the
// result. Uses BLOCK/32 floats of shared memory per lane: a caller that calls
// it again must put a barrier between the two calls.
template <int K, unsigned OPS, int BLOCK>
__device__ __forceinline__ void block_reduce_shuffle(float (&r_value)[K])
{
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && BLOCK % 32 == 0, "block size");
    constexpr int kWarps = BLOCK / 32;
    __shared__ float s_warp[K][kWarps];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
#pragma unroll
        for (int k = 0; k < K; k++)
            r_value[k] = lane_op<OPS>(k, r_value[k], __shfl_down_sync(0xffffffffu, r_value[k], offset));
    }
    if (kWarps == 1)
        return;
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            s_warp[k][warp] = r_value[k];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            r_value[k] = lane < (unsigned)kWarps ? s_warp[k][lane] : lane_identity<OPS>(k);
#pragma unroll
        for (int offset = kWarps / 2; offset > 0; offset /= 2) {
#pragma unroll
            for (int k = 0; k < K; k++)
                r_value[k] =
                    lane_op<OPS>(k, r_value[k], __shfl_down_sync(0xffffffffu, r_value[k], offset));
        }
    }
}

} // namespace kdr

#endif
