// Radix sort: the stable scatter of one pass (see radix_sort_internal.cuh).
//
// A block walks its chunk tile by tile. The next tile's keys and values are
// copied into shared memory asynchronously (cp.async) while the current one
// is ranked and written, so global-memory latency is hidden.
#include "radix_sort_internal.cuh"

#include <cuda_pipeline.h>

#include "radix_sort_rank.cuh"
#include "temp_storage.cuh"

namespace {

struct scatter_shared {
    uint32_t keys_in[SORT_TILE];              // next tile's keys (async copy)
    uint32_t values_in[SORT_TILE];            // next tile's values (async copy)
    uint32_t staged[SORT_TILE];               // keys, then values, in sorted order
    uint32_t global_minus_local[SORT_DIGITS]; // output index of a staged slot = this + slot
    sort_rank_shared rank;
};

extern __shared__ uint4 sort_dynamic_smem[];

// MIN_BLOCKS resident blocks per multiprocessor (caps the registers);
// MATCH_ANY picks the warp match (see sort_match_digit).
template <int MIN_BLOCKS, bool MATCH_ANY>
__global__ void __launch_bounds__(SORT_THREADS, MIN_BLOCKS)
sort_scatter_kernel(sort_buffers b, int pass, const uint32_t *d_table_scanned)
{
    sort_pass ps;
    if (!sort_pass_begin(b, pass, &ps))
        return;
    const int shift = ps.shift;

    scatter_shared &s = *reinterpret_cast<scatter_shared *>(sort_dynamic_smem);
    const unsigned t = threadIdx.x, warp = t / 32, lane = kd_lane_id();
    // Thread t keeps digit t's next output index for this block.
    uint32_t digit_next = d_table_scanned[(size_t)t * b.num_blocks + blockIdx.x];

    const size_t chunk_begin = (size_t)blockIdx.x * b.chunk;
    const size_t chunk_end = min(b.n, chunk_begin + b.chunk);
    // Pipeline stages are committed in the order keys(t), values(t), keys(t+1),
    // values(t+1), ...: waiting for all but the newest leaves exactly the one
    // needed next complete.
    sort_copy_tile_async(s.keys_in, ps.src_keys + chunk_begin, (unsigned)min((size_t)SORT_TILE, chunk_end - chunk_begin),
                    b.keys_vector);
    sort_copy_tile_async(s.values_in, ps.src_values + chunk_begin,
                    (unsigned)min((size_t)SORT_TILE, chunk_end - chunk_begin), b.keys_vector);
    for (size_t tile_base = chunk_begin; tile_base < chunk_end; tile_base += SORT_TILE) {
        const unsigned tile_count = (unsigned)min((size_t)SORT_TILE, chunk_end - tile_base);
        const size_t next_base = tile_base + SORT_TILE;
        const unsigned next_count = next_base < chunk_end ? (unsigned)min((size_t)SORT_TILE, chunk_end - next_base) : 0;
        __pipeline_wait_prior(1); // this tile's keys
        sort_rank_reset(s.rank);
        __syncthreads();

        // Stable slots of the tile's keys, and where each digit's run goes.
        uint32_t slot[SORT_ITEMS], digit_total, digit_start;
        sort_rank_tile<MATCH_ANY>(s.keys_in, tile_count, shift, s.rank, slot, &digit_total, &digit_start);
        s.global_minus_local[t] = digit_next - digit_start;
        digit_next += digit_total;

        // Reorder keys in shared memory, then write each digit's run;
        // remember the digits for the values.
        const unsigned warp_base = warp * 32 * SORT_ITEMS;
#pragma unroll
        for (int j = 0; j < SORT_ITEMS; j++)
            if (warp_base + j * 32 + lane < tile_count)
                s.staged[slot[j]] = s.keys_in[warp_base + j * 32 + lane];
        __syncthreads();
        sort_copy_tile_async(s.keys_in, ps.src_keys + next_base, next_count, b.keys_vector);
        uint32_t slot_digits[SORT_ITEMS / 4] = {}; // four 8-bit digits per word
#pragma unroll
        for (int r = 0; r < SORT_ITEMS; r++) {
            const unsigned i = r * SORT_THREADS + t;
            if (i < tile_count) {
                const uint32_t key = s.staged[i];
                const uint32_t digit = (key >> shift) & 0xffu;
                slot_digits[r / 4] |= digit << (8 * (r % 4));
                ps.dst_keys[s.global_minus_local[digit] + i] = key;
            }
        }
        __pipeline_wait_prior(1); // this tile's values
        __syncthreads();
        // Values follow the same permutation.
#pragma unroll
        for (int j = 0; j < SORT_ITEMS; j++) {
            const unsigned i = warp_base + j * 32 + lane;
            if (i < tile_count)
                s.staged[slot[j]] = s.values_in[i];
        }
        __syncthreads();
        sort_copy_tile_async(s.values_in, ps.src_values + next_base, next_count, b.keys_vector);
#pragma unroll
        for (int r = 0; r < SORT_ITEMS; r++) {
            const unsigned i = r * SORT_THREADS + t;
            if (i < tile_count) {
                const uint32_t digit = (slot_digits[r / 4] >> (8 * (r % 4))) & 0xffu;
                ps.dst_values[s.global_minus_local[digit] + i] = s.staged[i];
            }
        }
    }
    __pipeline_wait_prior(0); // nothing may be left in flight at exit
}

template <int MIN_BLOCKS, bool MATCH_ANY>
cudaError_t launch(const sort_buffers &b, int pass, const uint32_t *d_table_scanned, cudaStream_t stream)
{
    KD_TRY_CUDA(cudaFuncSetAttribute(sort_scatter_kernel<MIN_BLOCKS, MATCH_ANY>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sizeof(scatter_shared)));
    sort_scatter_kernel<MIN_BLOCKS, MATCH_ANY>
        <<<b.num_blocks, SORT_THREADS, sizeof(scatter_shared), stream>>>(b, pass, d_table_scanned);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}

template <int MIN_BLOCKS, bool MATCH_ANY>
cudaError_t blocks_per_sm(int *blocks)
{
    KD_TRY_CUDA(cudaFuncSetAttribute(sort_scatter_kernel<MIN_BLOCKS, MATCH_ANY>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sizeof(scatter_shared)));
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, sort_scatter_kernel<MIN_BLOCKS, MATCH_ANY>,
                                                         SORT_THREADS, sizeof(scatter_shared));
}

} // namespace

cudaError_t sort_launch_scatter(bool match_any, const sort_buffers &b, int pass, const uint32_t *d_table_scanned,
                                cudaStream_t stream)
{
    return match_any ? launch<KD_SORT_SCATTER_MIN_BLOCKS, true>(b, pass, d_table_scanned, stream)
                     : launch<KD_SORT_SCATTER_MIN_BLOCKS, false>(b, pass, d_table_scanned, stream);
}

cudaError_t sort_scatter_blocks_per_sm(bool match_any, int *blocks)
{
    return match_any ? blocks_per_sm<KD_SORT_SCATTER_MIN_BLOCKS, true>(blocks)
                     : blocks_per_sm<KD_SORT_SCATTER_MIN_BLOCKS, false>(blocks);
}
