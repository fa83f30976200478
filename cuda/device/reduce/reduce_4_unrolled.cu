// Reduce4: first op during load and an unrolled warp tail: each thread combines two elements as
// it loads them (half the blocks), the loop is unrolled for a compile-time block size, and the
// last warp finishes with __syncwarp instead of block barriers.
#include "reduce_segmented.cuh"

namespace kdr {

template <int BLOCK>
struct Rung4 {
    static_assert(BLOCK >= 64 && (BLOCK & (BLOCK - 1)) == 0, "block size: power of two >= 64");
    static constexpr int kMaxThreads = BLOCK;
    static constexpr bool kWarpRuns = false;
    __host__ __device__ static constexpr int items_per_thread(int) { return 2; }
    __host__ __device__ static constexpr size_t smem_bytes(int, int) { return 0; }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &, float (&result)[K])
    {
        __shared__ float s_values[K][BLOCK];
        const unsigned id = threadIdx.x;
        float r_value[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const float a = id < count ? in.p[k][begin + id] : lane_identity<OPS>(k);
            const float b = id + BLOCK < count ? in.p[k][begin + id + BLOCK] : lane_identity<OPS>(k);
            r_value[k] = lane_op<OPS>(k, a, b);
            s_values[k][id] = r_value[k];
        }
        __syncthreads();
#pragma unroll
        for (unsigned offset = BLOCK / 2; offset > 32; offset /= 2) {
            if (id < offset) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    r_value[k] = lane_op<OPS>(k, r_value[k], s_values[k][id + offset]);
                    s_values[k][id] = r_value[k];
                }
            }
            __syncthreads();
        }
        if (id < 32) {
            // Warp-synchronous tail: read partners, then publish, each behind a __syncwarp.
#pragma unroll
            for (unsigned offset = 32; offset > 1; offset /= 2) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    r_value[k] = lane_op<OPS>(k, r_value[k], s_values[k][id + offset]);
                __syncwarp();
#pragma unroll
                for (int k = 0; k < K; k++)
                    s_values[k][id] = r_value[k];
                __syncwarp();
            }
            // Thread 0's last step goes straight to the result (the thesis' final min).
            if (id == 0) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    result[k] = lane_op<OPS>(k, r_value[k], s_values[k][1]);
            }
        }
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung4<256>::items_per_thread(lanes), false}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_block<Rung4>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_block<Rung4>(a, s); }
} // namespace

const RungEntry reduce4_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
