// Reduce0: interleaved addressing (the thesis' naive kernel): a thread stays active while its id
// is a multiple of 2 * offset, tested with the slow modulo, and every intermediate value lives in
// global memory.
#include "reduce_segmented.cuh"

namespace kdr {

struct Rung0 {
    static constexpr int kMaxThreads = 1024;
    static constexpr bool kWarpRuns = false;
    __host__ __device__ static constexpr int items_per_thread(int) { return 1; }
    __host__ __device__ static constexpr size_t smem_bytes(int, int) { return 0; }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &work, float (&result)[K])
    {
        const unsigned id = threadIdx.x;
        const unsigned elements = blockDim.x; // the tile, padded with the identity
        // Our input is read-only, so the "values" the thesis reduces in place are this block's
        // region of a global scratch buffer; each thread copies its element there first.
#pragma unroll
        for (int k = 0; k < K; k++)
            work.gscratch[k * work.gstride + id] =
                id < count ? in.p[k][begin + id] : lane_identity<OPS>(k);
        __syncthreads();
        // The loop bound is uniform so every thread reaches each barrier; the modulo on a
        // run-time offset is kept on purpose (it is what makes this rung slow).
#pragma unroll 1
        for (unsigned offset = 1; offset < elements; offset *= 2) {
            if (id % (offset * 2) == 0) {
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
RungTraits traits(int lanes, int) { return {Rung0::items_per_thread(lanes), true}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_shape<Rung0>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_shape<Rung0>(a, s); }
} // namespace

const RungEntry reduce0_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
