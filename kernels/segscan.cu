// Segmented exclusive scan: the look-back scan (scan_lookback.cu) over pairs
// (segment-start flag, sum), whose operator restarts the sum at each start.
//
// Segment starts are where the segment id changes, so empty segments (ids no
// element carries) need no special case. One pass reads ids and values once
// and writes the result once. A look-back also stops early at any predecessor
// whose aggregate already contains a segment start.
#include "kd_primitives.h"

#include "block_scan.cuh"
#include "lookback.cuh"
#include "temp_storage.cuh"

namespace {

const int SEG_THREADS = 256;
const int SEG_VECS = 3; // 16-byte vectors of ids and of values per thread
const int SEG_TILE = SEG_THREADS * SEG_VECS * 4;

struct seg_pair {
    uint32_t flag; // 1 if a segment starts in the range
    uint32_t sum;  // sum since the range's last segment start
};

struct seg_op {
    __device__ __forceinline__ seg_pair operator()(seg_pair a, seg_pair b) const
    {
        seg_pair r;
        r.flag = a.flag | b.flag;
        r.sum = b.flag ? b.sum : a.sum + b.sum;
        return r;
    }
};

struct seg_codec {
    typedef seg_pair value_type;
    static __device__ __forceinline__ uint64_t pack(unsigned status, seg_pair v)
    {
        return ((uint64_t)status << 62) | ((uint64_t)(v.flag & 1u) << 32) | v.sum;
    }
    static __device__ __forceinline__ seg_pair unpack(uint64_t word)
    {
        seg_pair v;
        v.flag = (uint32_t)(word >> 32) & 1u;
        v.sum = (uint32_t)word;
        return v;
    }
    static __device__ __forceinline__ seg_pair identity()
    {
        seg_pair v;
        v.flag = 0;
        v.sum = 0;
        return v;
    }
};

__global__ void __launch_bounds__(SEG_THREADS)
segscan_kernel(const uint32_t *d_ids, const uint32_t *d_in, uint32_t *d_out, size_t n, uint64_t *states,
               unsigned *tile_counter, bool vector_io)
{
    typedef kd_block_scan<SEG_THREADS, SEG_VECS, seg_pair> block_scan;
    __shared__ typename block_scan::storage scan_storage;
    __shared__ unsigned s_tile;
    __shared__ seg_pair s_prefix;

    const unsigned tile = kd_lookback_take_tile(tile_counter, &s_tile);
    const size_t tile_base = (size_t)tile * SEG_TILE;
    const bool full_tile = tile_base + SEG_TILE <= n;
    const unsigned t = threadIdx.x;

    uint32_t ids[SEG_VECS][4];
    uint32_t values[SEG_VECS][4];
    if (full_tile && vector_io) {
        const uint4 *ids4 = reinterpret_cast<const uint4 *>(d_ids + tile_base);
        const uint4 *in4 = reinterpret_cast<const uint4 *>(d_in + tile_base);
#pragma unroll
        for (int j = 0; j < SEG_VECS; j++) {
            uint4 a = ids4[j * SEG_THREADS + t];
            uint4 v = in4[j * SEG_THREADS + t];
            ids[j][0] = a.x, ids[j][1] = a.y, ids[j][2] = a.z, ids[j][3] = a.w;
            values[j][0] = v.x, values[j][1] = v.y, values[j][2] = v.z, values[j][3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < SEG_VECS; j++) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                size_t i = tile_base + (size_t)(j * SEG_THREADS + t) * 4 + k;
                // Past the end: continue the last id, so no segment starts there.
                ids[j][k] = i < n ? d_ids[i] : d_ids[n - 1];
                values[j][k] = i < n ? d_in[i] : 0u;
            }
        }
    }

    // Head flags: an element starts a segment where its id differs from the
    // previous element's (lane - 1's last id, or memory for lane 0).
    seg_pair items[SEG_VECS][4];
    unsigned heads = 0;
#pragma unroll
    for (int j = 0; j < SEG_VECS; j++) {
        uint32_t previous = kd_shfl_up(ids[j][3], 1);
        const size_t first = tile_base + (size_t)(j * SEG_THREADS + t) * 4;
        if (kd_lane_id() == 0)
            previous = first == 0 ? ~ids[j][0] : (first <= n ? d_ids[first - 1] : ids[j][0]);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const uint32_t head = ids[j][k] != previous;
            heads |= head << (j * 4 + k);
            items[j][k].flag = head;
            items[j][k].sum = values[j][k];
            previous = ids[j][k];
        }
    }

    const seg_pair aggregate =
        kd_tile_exclusive_scan<SEG_THREADS, SEG_VECS>(items, seg_codec::identity(), seg_op(), scan_storage);
    if (t < KD_WARP_THREADS) {
        seg_pair prefix = kd_lookback_tile<seg_codec>(states, tile, aggregate, seg_op());
        if (t == 0)
            s_prefix = prefix;
    }
    __syncthreads();
    const seg_pair prefix = s_prefix;

    uint32_t result[SEG_VECS][4];
#pragma unroll
    for (int j = 0; j < SEG_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            result[j][k] = (heads >> (j * 4 + k)) & 1u ? 0u : seg_op()(prefix, items[j][k]).sum;

    if (full_tile && vector_io) {
        uint4 *out4 = reinterpret_cast<uint4 *>(d_out + tile_base);
#pragma unroll
        for (int j = 0; j < SEG_VECS; j++)
            out4[j * SEG_THREADS + t] = make_uint4(result[j][0], result[j][1], result[j][2], result[j][3]);
    } else {
#pragma unroll
        for (int j = 0; j < SEG_VECS; j++)
#pragma unroll
            for (int k = 0; k < 4; k++) {
                size_t i = tile_base + (size_t)(j * SEG_THREADS + t) * 4 + k;
                if (i < n)
                    d_out[i] = result[j][k];
            }
    }
}

} // namespace

extern "C" cudaError_t kd_segmented_scan_exclusive_i32(void *d_temp, size_t *temp_bytes,
                                                       const uint32_t *d_segment_ids, const int32_t *d_in,
                                                       int32_t *d_out, size_t n, cudaStream_t stream)
{
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
    unsigned *counter = kd_lookback_counter(states, num_tiles);
    kd_lookback_init_kernel<<<kd_div_ceil_u32(num_tiles, 256), 256, 0, stream>>>(states, num_tiles, counter);
    KD_TRY_LAUNCH();
    const bool vector_io = ((uintptr_t)d_segment_ids % 16 == 0) && ((uintptr_t)d_in % 16 == 0) &&
                           ((uintptr_t)d_out % 16 == 0);
    segscan_kernel<<<num_tiles, SEG_THREADS, 0, stream>>>(d_segment_ids, reinterpret_cast<const uint32_t *>(d_in),
                                                          reinterpret_cast<uint32_t *>(d_out), n, states,
                                                          counter, vector_io);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}
