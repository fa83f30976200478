// Split-by-side's public launcher: temporary storage, one reset kernel, the
// count pass and the scatter pass (split_internal.cuh explains the design).
#include "kd_primitives.h"

#include "split_internal.cuh"
#include "temp_storage.cuh"

namespace {

// Resets the look-back words, and with several segments the per-segment
// counts, which the count pass accumulates by atomics.
__global__ void split_reset_kernel(uint64_t *states, unsigned num_states, uint32_t *left_counts,
                                   uint32_t *right_counts, uint32_t num_segments)
{
    kd_wait_prior();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < num_states || i < num_segments;
         i += stride) {
        if (i < num_states)
            states[i] = 0;
        if (i < num_segments) {
            if (left_counts)
                left_counts[i] = 0;
            if (right_counts)
                right_counts[i] = 0;
        }
    }
}

bool valid_elem_bytes(uint32_t bytes)
{
    return bytes == 4 || bytes == 8 || bytes == 16;
}

} // namespace

extern "C" cudaError_t kd_split_by_side(void *d_temp, size_t *temp_bytes, const uint32_t *d_segment_ids,
                                        uint32_t num_segments, const uint8_t *d_sides, size_t n,
                                        const kd_split_payload *payloads, int num_payloads,
                                        uint32_t *d_left_counts, uint32_t *d_right_counts, uint32_t *d_out_total,
                                        cudaStream_t stream)
{
    // Counts and addresses must fit the 31-bit halves of the look-back word.
    if (temp_bytes == NULL || n > 0x7fffffffu || num_payloads < 0 || num_payloads > KD_SPLIT_MAX_PAYLOADS)
        return cudaErrorInvalidValue;
    const bool segmented = num_segments > 1;
    const int vecs = split_vecs(n, segmented);
    const unsigned scatter_tiles = kd_div_ceil_u32(n, split_tile_elems(vecs));
    const unsigned counted_tiles = segmented ? scatter_tiles : kd_div_ceil_u32(n, SPLIT_COUNT_TILE);

    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_states = kd_temp_add(&layout, kd_lookback_state_bytes(counted_tiles));
    const int slot_prefix = kd_temp_add(&layout, (size_t)scatter_tiles * sizeof(uint64_t));
    const int slot_totals = kd_temp_add(&layout, sizeof(uint64_t));
    const int slot_start = kd_temp_add(&layout, segmented ? (size_t)num_segments * sizeof(uint32_t) : 0);
    const int slot_end = kd_temp_add(&layout, segmented ? (size_t)num_segments * sizeof(uint32_t) : 0);
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;

    if (n == 0) {
        // Nothing to move, but the counts and the total of an empty input are
        // well defined: all zero.
        if (d_left_counts && num_segments > 0)
            KD_TRY_CUDA(cudaMemsetAsync(d_left_counts, 0, (size_t)num_segments * sizeof(uint32_t), stream));
        if (d_right_counts && num_segments > 0)
            KD_TRY_CUDA(cudaMemsetAsync(d_right_counts, 0, (size_t)num_segments * sizeof(uint32_t), stream));
        if (d_out_total)
            KD_TRY_CUDA(cudaMemsetAsync(d_out_total, 0, sizeof(uint32_t), stream));
        return cudaSuccess;
    }
    if (num_segments == 0 || d_sides == NULL || (segmented && d_segment_ids == NULL) ||
        (num_payloads > 0 && payloads == NULL))
        return cudaErrorInvalidValue;

    split_params p;
    p.ids = segmented ? d_segment_ids : NULL;
    p.sides = d_sides;
    p.n = n;
    p.num_segments = num_segments;
    p.sides_vector = (uintptr_t)d_sides % 16 == 0;
    p.ids_vector = (uintptr_t)d_segment_ids % 16 == 0;
    p.states = kd_temp_slot<uint64_t>(&layout, d_temp, slot_states);
    p.tile_prefix = kd_temp_slot<uint64_t>(&layout, d_temp, slot_prefix);
    p.totals = kd_temp_slot<uint64_t>(&layout, d_temp, slot_totals);
    p.seg_start_right = kd_temp_slot<uint32_t>(&layout, d_temp, slot_start);
    p.seg_end_left = kd_temp_slot<uint32_t>(&layout, d_temp, slot_end);
    p.left_counts = d_left_counts;
    p.right_counts = d_right_counts;
    p.out_total = d_out_total;
    p.num_payloads = num_payloads;
    for (int q = 0; q < num_payloads; q++) {
        const kd_split_payload &src = payloads[q];
        if (!valid_elem_bytes(src.elem_bytes) || src.d_in == NULL || src.d_out == NULL ||
            (uintptr_t)src.d_in % src.elem_bytes != 0 || (uintptr_t)src.d_out % src.elem_bytes != 0)
            return cudaErrorInvalidValue;
        p.payloads[q].in = src.d_in;
        p.payloads[q].out = src.d_out;
        p.payloads[q].words = src.elem_bytes / 4;
    }

    const uint32_t reset_segments = segmented ? num_segments : 0;
    const size_t reset_items = counted_tiles > reset_segments ? counted_tiles : reset_segments;
    const size_t reset_wanted = (reset_items + 255) / 256;
    const unsigned reset_blocks = (unsigned)(reset_wanted < KD_FILL_MAX_BLOCKS ? reset_wanted : KD_FILL_MAX_BLOCKS);
    KD_TRY_CUDA(kd_launch_dependent(split_reset_kernel, reset_blocks, 256, 0, stream, p.states, counted_tiles,
                                    d_left_counts, d_right_counts, reset_segments));
    KD_TRY_CUDA(split_launch_count(p, segmented, vecs, stream));
    if (num_payloads > 0)
        KD_TRY_CUDA(split_launch_scatter(p, segmented, vecs, stream));
    return cudaSuccess;
}
