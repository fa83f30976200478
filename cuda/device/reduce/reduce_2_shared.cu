// Reduce2: shared memory: the block first copies its tile into shared memory and reduces there,
// leaving global memory after one coalesced read.
#include "reduce_segmented.cuh"

namespace kdr {

struct Rung2 {
    static constexpr int kMaxThreads = 1024;
    static constexpr bool kWarpRuns = false;
    __host__ __device__ static constexpr int items_per_thread(int) { return 1; }
    __host__ __device__ static constexpr size_t smem_bytes(int lanes, int block_size)
    {
        return (size_t)lanes * block_size * sizeof(float);
    }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &work, float (&result)[K])
    {
        const unsigned id = threadIdx.x;
        const unsigned elements = blockDim.x;
        float *s_values = work.smem; // lane k at s_values + k * elements
#pragma unroll
        for (int k = 0; k < K; k++)
            s_values[k * elements + id] = id < count ? in.p[k][begin + id] : lane_identity<OPS>(k);
        __syncthreads();
#pragma unroll 1
        for (unsigned offset = elements / 2; offset > 0; offset /= 2) {
            if (id < offset) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    float *values = s_values + k * elements;
                    values[id] = lane_op<OPS>(k, values[id], values[id + offset]);
                }
            }
            __syncthreads();
        }
        if (id == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                result[k] = s_values[k * elements];
        }
        // No closing barrier: only thread 0 reads element 0, and only thread 0 writes it next.
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung2::items_per_thread(lanes), false}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_shape<Rung2>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_shape<Rung2>(a, s); }
} // namespace

const RungEntry reduce2_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
