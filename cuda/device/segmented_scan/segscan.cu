// Segmented exclusive scan: the look-back scan (scan_3_lookback.cu) over pairs
// (segment-start flag, sum), whose operator restarts the sum at each start.
//
// Segment starts are where the segment id changes, so empty segments (ids no
// element carries) need no special case. One pass reads ids and values once
// and writes the result once. A look-back also stops early at any predecessor
// whose aggregate already contains a segment start. The default tile shape
// lands its ids and values in shared memory by cp.async ("staged"): the bytes
// in flight then cost no registers, so more blocks stay resident.
#include "kd_primitives.h"

#include <cuda_pipeline.h>

#include "block_load_store.cuh"
#include "block_scan.cuh"
#include "scan_internal.cuh"
#include "segscan_pair.h"
#include "scan_variants.h"
#include "lookback.cuh"
#include "temp_storage.cuh"

namespace {

// One vector's head flags (an element starts a segment where its id differs
// from the one before it; bit j * 4 + k of heads) and what it contributes to
// the scan: (has a head, sum since its last head).
__device__ __forceinline__ seg_pair vector_heads(const uint32_t (&id)[4], const uint32_t (&value)[4],
                                                 uint32_t previous, int j, unsigned &heads)
{
    seg_pair sum = seg_codec::identity();
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const uint32_t head = id[k] != previous;
        heads |= head << (j * 4 + k);
        sum.flag |= head;
        sum.sum = head ? value[k] : sum.sum + value[k];
        previous = id[k];
    }
    return sum;
}

// Within one vector, from the sum before it: each element's exclusive sum,
// restarting at each head.
__device__ __forceinline__ void vector_results(uint32_t running, const uint32_t (&value)[4], unsigned heads, int j,
                                               uint32_t (&result)[4])
{
#pragma unroll
    for (int k = 0; k < 4; k++) {
        if ((heads >> (j * 4 + k)) & 1u)
            running = 0;
        result[k] = running;
        running += value[k];
    }
}

// SEG_THREADS threads, each holding SEG_VECS 16-byte vectors of ids and
// values; MIN_BLOCKS resident blocks per multiprocessor cap the registers.
template <int SEG_THREADS, int SEG_VECS, int MIN_BLOCKS>
__global__ void __launch_bounds__(SEG_THREADS, MIN_BLOCKS)
segscan_kernel(const uint32_t *d_ids, const uint32_t *d_in, uint32_t *d_out, size_t n, uint64_t *states,
               bool vector_io)
{
    constexpr int SEG_TILE = SEG_THREADS * SEG_VECS * 4;
    static_assert(SEG_VECS * 4 <= 32, "head flags are kept in one 32-bit mask");
    typedef kd_block_scan<SEG_THREADS, SEG_VECS, seg_pair> block_scan;
    __shared__ typename block_scan::storage scan_storage;
    __shared__ seg_pair s_prefix;

    const unsigned tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * SEG_TILE;
    const bool full_tile = tile_base + SEG_TILE <= n;
    const unsigned t = threadIdx.x;

    // Past the end: continue the last id, so no segment starts there.
    uint32_t ids[SEG_VECS][4];
    uint32_t values[SEG_VECS][4];
    const bool vector = full_tile && vector_io;
    kd_block_load_striped<SEG_THREADS, SEG_VECS>(d_ids, tile_base, n, vector, ids, kd_fill_last<uint32_t>{d_ids, n});
    kd_block_load_striped<SEG_THREADS, SEG_VECS>(d_in, tile_base, n, vector, values, kd_fill_value<uint32_t>{0u});

    // The id before each vector: lane - 1's last id, or memory for lane 0.
    unsigned heads = 0;
    seg_pair vector_sums[SEG_VECS];
#pragma unroll
    for (int j = 0; j < SEG_VECS; j++) {
        uint32_t previous = kd_shfl_up(ids[j][3], 1);
        const size_t first = tile_base + (size_t)(j * SEG_THREADS + t) * 4;
        if (kd_lane_id() == 0)
            previous = first == 0 ? ~ids[j][0] : (first <= n ? d_ids[first - 1] : ids[j][0]);
        vector_sums[j] = vector_heads(ids[j], values[j], previous, j, heads);
    }

    const seg_pair aggregate =
        kd_tile_vector_prefix<SEG_THREADS, SEG_VECS>(vector_sums, seg_codec::identity(), seg_op(), scan_storage);
    const seg_pair prefix = kd_lookback_block<seg_codec>(states, tile, aggregate, seg_op(), s_prefix);

    uint32_t result[SEG_VECS][4];
#pragma unroll
    for (int j = 0; j < SEG_VECS; j++)
        vector_results(seg_op()(prefix, vector_sums[j]).sum, values[j], heads, j, result[j]);

    kd_block_store_striped<SEG_THREADS, SEG_VECS>(d_out, tile_base, n, vector,
                                                  [&](int j, int k) { return result[j][k]; });
}

extern __shared__ uint4 segscan_dynamic_smem[];

// Copies a tile's ids and values to shared memory: a full aligned tile by
// cp.async in 16-byte pieces, any other element by element. Past the end the
// last id continues, so no segment starts there. Ends with a barrier.
template <int SEG_THREADS, int SEG_TILE>
__device__ __forceinline__ void stage_tile(const uint32_t *d_ids, const uint32_t *d_in, uint32_t *s_ids,
                                           uint32_t *s_values, size_t tile_base, size_t n, bool vector)
{
    const unsigned t = threadIdx.x;
    if (vector) {
        for (int c = t; c < SEG_TILE / 4; c += SEG_THREADS) {
            __pipeline_memcpy_async(s_ids + 4 * c, d_ids + tile_base + 4 * c, 16);
            __pipeline_memcpy_async(s_values + 4 * c, d_in + tile_base + 4 * c, 16);
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
    } else {
        for (int i = t; i < SEG_TILE; i += SEG_THREADS) {
            s_ids[i] = tile_base + i < n ? d_ids[tile_base + i] : d_ids[n - 1];
            s_values[i] = tile_base + i < n ? d_in[tile_base + i] : 0u;
        }
    }
    __syncthreads();
}

// The same scan with the tile's ids and values landing in shared memory
// (cp.async) instead of registers: the bytes in flight then cost no
// registers, so more blocks stay resident, and each vector is read from
// shared memory only when it is used.
template <int SEG_THREADS, int SEG_VECS>
__global__ void __launch_bounds__(SEG_THREADS)
segscan_staged_kernel(const uint32_t *d_ids, const uint32_t *d_in, uint32_t *d_out, size_t n, uint64_t *states,
                      bool vector_io)
{
    constexpr int SEG_TILE = SEG_THREADS * SEG_VECS * 4;
    static_assert(SEG_VECS * 4 <= 32, "head flags are kept in one 32-bit mask");
    typedef kd_block_scan<SEG_THREADS, SEG_VECS, seg_pair> block_scan;
    __shared__ typename block_scan::storage scan_storage;
    __shared__ seg_pair s_prefix;
    uint32_t *s_ids = reinterpret_cast<uint32_t *>(segscan_dynamic_smem);
    uint32_t *s_values = s_ids + SEG_TILE;

    const unsigned tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * SEG_TILE;
    const bool full_tile = tile_base + SEG_TILE <= n;
    const unsigned t = threadIdx.x;

    stage_tile<SEG_THREADS, SEG_TILE>(d_ids, d_in, s_ids, s_values, tile_base, n, full_tile && vector_io);

    // The id before each vector: the staged one, or memory for the tile's first.
    unsigned heads = 0;
    seg_pair vector_sums[SEG_VECS];
#pragma unroll
    for (int j = 0; j < SEG_VECS; j++) {
        const unsigned local = (j * SEG_THREADS + t) * 4;
        const uint4 a = reinterpret_cast<const uint4 *>(s_ids)[j * SEG_THREADS + t];
        const uint4 v = reinterpret_cast<const uint4 *>(s_values)[j * SEG_THREADS + t];
        const uint32_t id[4] = {a.x, a.y, a.z, a.w};
        const uint32_t value[4] = {v.x, v.y, v.z, v.w};
        const uint32_t previous = local > 0 ? s_ids[local - 1] : (tile_base == 0 ? ~a.x : d_ids[tile_base - 1]);
        vector_sums[j] = vector_heads(id, value, previous, j, heads);
    }

    const seg_pair aggregate =
        kd_tile_vector_prefix<SEG_THREADS, SEG_VECS>(vector_sums, seg_codec::identity(), seg_op(), scan_storage);
    const seg_pair prefix = kd_lookback_block<seg_codec>(states, tile, aggregate, seg_op(), s_prefix);

#pragma unroll
    for (int j = 0; j < SEG_VECS; j++) {
        const uint4 v = reinterpret_cast<const uint4 *>(s_values)[j * SEG_THREADS + t];
        const uint32_t value[4] = {v.x, v.y, v.z, v.w};
        uint32_t result[4];
        vector_results(seg_op()(prefix, vector_sums[j]).sum, value, heads, j, result);
        const size_t first = tile_base + (size_t)(j * SEG_THREADS + t) * 4;
        kd_store_vector(d_out, first, n, full_tile && vector_io, result);
    }
}

template <int SEG_THREADS, int SEG_VECS, int MIN_BLOCKS, bool STAGED>
cudaError_t segscan_launch(void *d_temp, size_t *temp_bytes, const uint32_t *d_segment_ids, const uint32_t *d_in,
                           uint32_t *d_out, size_t n, cudaStream_t stream)
{
    constexpr int SEG_TILE = SEG_THREADS * SEG_VECS * 4;
    const size_t num_tiles_wide = (n + SEG_TILE - 1) / SEG_TILE;
    if (temp_bytes == NULL || num_tiles_wide > 0x7fffffffu)
        return cudaErrorInvalidValue;
    const unsigned num_tiles = (unsigned)num_tiles_wide;
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_states = kd_temp_add(&layout, kd_lookback_state_bytes(num_tiles));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err) || n == 0)
        return err;
    if (d_segment_ids == NULL || d_in == NULL || d_out == NULL)
        return cudaErrorInvalidValue;

    uint64_t *states = kd_temp_slot<uint64_t>(&layout, d_temp, slot_states);
    kd_lookback_init_kernel<<<kd_div_ceil_u32(num_tiles, 256), 256, 0, stream>>>(states, num_tiles);
    KD_TRY_LAUNCH();
    const bool vector_io = ((uintptr_t)d_segment_ids % 16 == 0) && ((uintptr_t)d_in % 16 == 0) &&
                           ((uintptr_t)d_out % 16 == 0);
    if constexpr (STAGED) {
        const int smem = SEG_TILE * 2 * (int)sizeof(uint32_t);
        KD_TRY_CUDA(cudaFuncSetAttribute(segscan_staged_kernel<SEG_THREADS, SEG_VECS>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        segscan_staged_kernel<SEG_THREADS, SEG_VECS>
            <<<num_tiles, SEG_THREADS, smem, stream>>>(d_segment_ids, d_in, d_out, n, states, vector_io);
    } else
        segscan_kernel<SEG_THREADS, SEG_VECS, MIN_BLOCKS>
            <<<num_tiles, SEG_THREADS, 0, stream>>>(d_segment_ids, d_in, d_out, n, states, vector_io);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}

} // namespace

const char *kd_segscan_config_name(int config)
{
    switch (config) {
    case 0: return "256x32";
    case 1: return "128x32";
    case 2: return "256x16";
    case 3: return "256x12";
    }
    return "?";
}

cudaError_t kd_segscan_run(int config, void *d_temp, size_t *temp_bytes, const uint32_t *d_segment_ids,
                           const uint32_t *d_in, uint32_t *d_out, size_t n, cudaStream_t stream)
{
    switch (config) {
    case 0: return segscan_launch<256, 8, 1, true>(d_temp, temp_bytes, d_segment_ids, d_in, d_out, n, stream);
    case 1: return segscan_launch<128, 8, 1, true>(d_temp, temp_bytes, d_segment_ids, d_in, d_out, n, stream);
    case 2: return segscan_launch<256, 4, 1, true>(d_temp, temp_bytes, d_segment_ids, d_in, d_out, n, stream);
    case 3: return segscan_launch<256, 3, 1, false>(d_temp, temp_bytes, d_segment_ids, d_in, d_out, n, stream);
    }
    return cudaErrorInvalidValue;
}

extern "C" int kd_segmented_scan_num_variants(void)
{
    return KD_SEGSCAN_NUM_CONFIGS;
}

extern "C" cudaError_t kd_segmented_scan_exclusive_i32_variant(int variant, void *d_temp, size_t *temp_bytes,
                                                               const uint32_t *d_segment_ids, const int32_t *d_in,
                                                               int32_t *d_out, size_t n, cudaStream_t stream)
{
    return kd_segscan_run(variant, d_temp, temp_bytes, d_segment_ids, reinterpret_cast<const uint32_t *>(d_in),
                          reinterpret_cast<uint32_t *>(d_out), n, stream);
}

extern "C" cudaError_t kd_segmented_scan_exclusive_i32(void *d_temp, size_t *temp_bytes,
                                                       const uint32_t *d_segment_ids, const int32_t *d_in,
                                                       int32_t *d_out, size_t n, cudaStream_t stream)
{
    return kd_segscan_run(0, d_temp, temp_bytes, d_segment_ids, reinterpret_cast<const uint32_t *>(d_in),
                          reinterpret_cast<uint32_t *>(d_out), n, stream);
}
