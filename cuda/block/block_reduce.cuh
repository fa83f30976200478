// Block layer: reduction across a thread block by warp shuffles. Each warp
// reduces its lanes (kd_warp_reduce_down), lane 0 of each warp publishes the
// warp's sums to shared memory, and warp 0 reduces those. Chains and their
// operators as in warp_reduce.cuh.
#ifndef KD_BLOCK_REDUCE_CUH
#define KD_BLOCK_REDUCE_CUH

#include "warp_reduce.cuh"

template <int THREADS, int NUM, typename T>
struct kd_block_reduce {
    static_assert(THREADS >= KD_WARP_THREADS && THREADS <= 1024 && THREADS % KD_WARP_THREADS == 0,
                  "whole warps, at most 32 of them");
    static constexpr int WARPS = THREADS / KD_WARP_THREADS;
    static_assert((WARPS & (WARPS - 1)) == 0, "a power of two of warps");

    struct storage {
        T warp_sums[NUM][WARPS];
    };

    // values[c]: this thread's value of chain c. On return thread 0 holds each
    // chain's op-sum over the block (other threads hold partial sums). Every
    // thread of the block calls it. One __syncthreads() inside (none with one
    // warp): a caller that calls it again must synchronize before reusing `s`.
    template <typename ChainOp>
    __device__ __forceinline__ static void reduce(T (&values)[NUM], ChainOp op, storage &s)
    {
        const unsigned lane = threadIdx.x % KD_WARP_THREADS, warp = threadIdx.x / KD_WARP_THREADS;
        kd_warp_reduce_down<KD_WARP_THREADS>(values, op);
        if (WARPS == 1)
            return;
        if (lane == 0) {
#pragma unroll
            for (int c = 0; c < NUM; c++)
                s.warp_sums[c][warp] = values[c];
        }
        __syncthreads();
        if (warp == 0) {
#pragma unroll
            for (int c = 0; c < NUM; c++)
                values[c] = lane < (unsigned)WARPS ? s.warp_sums[c][lane] : op.identity(c);
            kd_warp_reduce_down<WARPS>(values, op);
        }
    }
};

#endif
