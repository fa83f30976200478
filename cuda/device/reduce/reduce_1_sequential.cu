// Reduce1: sequential (coalesced) addressing: the first `offset` threads stay active and read
// values[id + offset], so warps retire whole and loads coalesce; no modulo. Still in global memory.
#include "reduce_segmented.cuh"

namespace kdr {

struct Rung1 {
    static constexpr int kMaxThreads = 1024;
    static constexpr bool kWarpRuns = false;
    __host__ __device__ static constexpr int items_per_thread(int) { return 1; }
    __host__ __device__ static constexpr size_t smem_bytes(int, int) { return 0; }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &work, float (&result)[K])
    {
        const unsigned id = threadIdx.x;
        const unsigned elements = blockDim.x;
#pragma unroll
        for (int k = 0; k < K; k++)
            work.gscratch[k * work.gstride + id] =
                id < count ? in.p[k][begin + id] : lane_identity<OPS>(k);
        __syncthreads();
#pragma unroll 1
        for (unsigned offset = elements / 2; offset > 0; offset /= 2) {
            if (id < offset) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    float *values = work.gscratch + k * work.gstride;
                    values[id] = lane_op<OPS>(k, values[id], values[id + offset]);
                }
            }
            __syncthreads();
        }
        if (id == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                result[k] = work.gscratch[k * work.gstride];
        }
        // No closing barrier: only thread 0 reads element 0, and only thread 0 writes it next.
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung1::items_per_thread(lanes), true}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_shape<Rung1>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_shape<Rung1>(a, s); }
} // namespace

const RungEntry reduce1_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
