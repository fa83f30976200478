// Reduce3: register-held value: each thread keeps its running value in a register and only
// publishes it to shared memory for its partner, saving one shared load per step.
#include "reduce_segmented.cuh"

namespace kdr {

struct Rung3 {
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
        float *s_values = work.smem;
        float r_value[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            r_value[k] = id < count ? in.p[k][begin + id] : lane_identity<OPS>(k);
            s_values[k * elements + id] = r_value[k];
        }
        __syncthreads();
#pragma unroll 1
        for (unsigned offset = elements / 2; offset > 0; offset /= 2) {
            if (id < offset) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    r_value[k] = lane_op<OPS>(k, r_value[k], s_values[k * elements + id + offset]);
                    s_values[k * elements + id] = r_value[k];
                }
            }
            __syncthreads();
        }
        if (id == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                result[k] = r_value[k];
        }
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung3::items_per_thread(lanes), false}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_shape<Rung3>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_shape<Rung3>(a, s); }
} // namespace

const RungEntry reduce3_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
