// Segmented min/max (per-node bounds for the builder): for rungs 0-7 the
// records start at each lane's identity, then the rung's segmented kernel
// combines every tile's runs into them with atomics (reduce_segmented.cuh);
// Reduce8 writes every record itself in one launch (reduce_8_segmented.cu).
#include "reduce_common.cuh"
#include "temp_storage.cuh"

using namespace kdr;

namespace {

template <int K, unsigned OPS>
__global__ void init_records_kernel(float *records, size_t num_values)
{
    kd_wait_prior();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < num_values;
         i += (size_t)gridDim.x * blockDim.x)
        records[i] = lane_identity<OPS>((int)(i % K));
}

cudaError_t init_records(kd_reduce_shape shape, float *records, uint32_t num_segments,
                         cudaStream_t stream)
{
    const int lanes = kd_reduce_shape_lanes(shape);
    const size_t values = (size_t)num_segments * lanes;
    const unsigned block = 256;
    const size_t want = (values + block - 1) / block;
    const unsigned grid = (unsigned)(want < KD_FILL_MAX_BLOCKS ? want : KD_FILL_MAX_BLOCKS);
    switch (shape) {
    case KD_REDUCE_SHAPE_MIN:
        return kd_launch_dependent(init_records_kernel<1, kOpsMin>, grid, block, 0, stream, records, values);
    case KD_REDUCE_SHAPE_MAX:
        return kd_launch_dependent(init_records_kernel<1, kOpsMax>, grid, block, 0, stream, records, values);
    case KD_REDUCE_SHAPE_BOUNDS:
        return kd_launch_dependent(init_records_kernel<6, kOpsBounds>, grid, block, 0, stream, records, values);
    }
    return cudaErrorInvalidValue;
}

} // namespace

extern "C" cudaError_t kd_reduce_segmented_lanes(kd_reduce_variant variant, int block_size,
                                                 kd_reduce_shape shape, void *d_temp,
                                                 size_t *temp_bytes, const uint32_t *d_segment_ids,
                                                 uint32_t num_segments, const float *const *d_in,
                                                 float *d_out, size_t n, cudaStream_t stream)
{
    if (temp_bytes == nullptr ||
        (shape != KD_REDUCE_SHAPE_MIN && shape != KD_REDUCE_SHAPE_MAX && shape != KD_REDUCE_SHAPE_BOUNDS))
        return cudaErrorInvalidValue;
    const int lanes = kd_reduce_shape_lanes(shape);
    RungTraits traits{};
    cudaError_t (*launch)(const SegArgs &, cudaStream_t) = nullptr;
    cudaError_t e = rung_segmented_plan(variant, lanes, block_size, &traits, &launch);
    if (e != cudaSuccess)
        return e;
    const size_t tile = (size_t)traits.items_per_thread * block_size;
    const size_t tiles = (n + tile - 1) / tile;
    if (tiles > 0x7fffffffu)
        return cudaErrorInvalidValue;
    // Scratch: one float per thread (rungs 0 and 1) or Reduce8's boundary entries.
    const size_t scratch_bytes = traits.global_scratch   ? lanes * tiles * block_size * sizeof(float)
                                 : traits.writes_records ? reduce8_segmented_scratch_bytes(lanes, tiles)
                                                         : 0;
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_scratch = kd_temp_add(&layout, scratch_bytes);
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &e))
        return e;
    if (num_segments == 0)
        return cudaSuccess;
    if (d_out == nullptr || (n > 0 && (d_segment_ids == nullptr || d_in == nullptr)))
        return cudaErrorInvalidValue;
    if (n == 0 || !traits.writes_records) {
        e = init_records(shape, d_out, num_segments, stream);
        if (e != cudaSuccess || n == 0)
            return e;
    }
    SegArgs args{};
    args.shape = shape;
    args.block_size = block_size;
    for (int k = 0; k < lanes; k++) {
        if (d_in[k] == nullptr)
            return cudaErrorInvalidValue;
        args.in.p[k] = d_in[k];
    }
    args.ids = d_segment_ids;
    args.num_segments = num_segments;
    args.records = d_out;
    args.n = n;
    args.num_tiles = (unsigned)tiles;
    args.scratch = scratch_bytes > 0 ? kd_temp_slot<float>(&layout, d_temp, slot_scratch) : nullptr;
    args.scratch_stride = tiles * block_size;
    return launch(args, stream);
}
