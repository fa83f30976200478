// Split-by-side, count pass (see split_internal.cuh): the running numbers of
// left- and right-going elements per scatter tile, by decoupled look-back.
#include "split_internal.cuh"

#include "block_scan.cuh"
#include "warp_reduce.cuh"
#include "temp_storage.cuh"

namespace {

// The last tile also records the totals: output length and, with one
// segment, that segment's counts.
__device__ void split_write_totals(const split_params &p, uint64_t totals, bool one_segment)
{
    const uint32_t left = (uint32_t)totals, right = (uint32_t)(totals >> 32);
    *p.totals = totals;
    if (p.out_total)
        *p.out_total = left + right;
    if (one_segment) {
        if (p.left_counts)
            *p.left_counts = left;
        if (p.right_counts)
            *p.right_counts = right;
    }
}

// One segment: only the sides are read. Each warp counts one scatter tile
// (2048 sides, 16-byte loads) and the block looks back once for all eight.
__global__ void __launch_bounds__(SPLIT_THREADS) split_count_kernel(split_params p)
{
    kd_wait_prior();
    __shared__ uint64_t s_warp_counts[SPLIT_COUNT_WARPS];
    const unsigned tile = blockIdx.x;
    const unsigned warp = threadIdx.x / 32, lane = kd_lane_id();
    const size_t sub_base = ((size_t)tile * SPLIT_COUNT_WARPS + warp) * SPLIT_TILE;

    uint32_t left = 0, right = 0;
    if (sub_base + SPLIT_TILE <= p.n && p.sides_vector) {
        const uint4 *sides4 = reinterpret_cast<const uint4 *>(p.sides + sub_base);
        uint4 v[SPLIT_TILE / 16 / 32];
#pragma unroll
        for (int q = 0; q < SPLIT_TILE / 16 / 32; q++)
            v[q] = sides4[q * 32 + lane];
#pragma unroll
        for (int q = 0; q < SPLIT_TILE / 16 / 32; q++) {
            const uint32_t w[4] = {v[q].x, v[q].y, v[q].z, v[q].w};
#pragma unroll
            for (int c = 0; c < 4; c++) {
                left += __popc(w[c] & 0x01010101u);
                right += __popc(w[c] & 0x02020202u);
            }
        }
    } else if (sub_base < p.n) {
        const size_t end = min(p.n, sub_base + SPLIT_TILE);
        for (size_t i = sub_base + lane; i < end; i += 32) {
            left += p.sides[i] & 1u;
            right += (p.sides[i] >> 1) & 1u;
        }
    }
    left = kd_warp_sum_u32(left);
    right = kd_warp_sum_u32(right);
    if (lane == 0)
        s_warp_counts[warp] = ((uint64_t)right << 32) | left;
    __syncthreads();

    if (warp == 0) {
        uint64_t own = lane < SPLIT_COUNT_WARPS ? s_warp_counts[lane] : 0;
        uint64_t inclusive[1] = {own};
        kd_warp_inclusive_scan<1>(inclusive, kd_sum_op());
        const uint64_t aggregate = kd_shfl_idx(inclusive[0], SPLIT_COUNT_WARPS - 1);
        const uint64_t prefix = kd_lookback_tile<split_count_codec>(p.states, tile, aggregate, kd_sum_op());
        const size_t scatter_tile = (size_t)tile * SPLIT_COUNT_WARPS + lane;
        if (lane < SPLIT_COUNT_WARPS && scatter_tile * SPLIT_TILE < p.n)
            p.tile_prefix[scatter_tile] = prefix + inclusive[0] - own;
        if (lane == 0 && ((size_t)tile + 1) * SPLIT_COUNT_TILE >= p.n)
            split_write_totals(p, prefix + aggregate, true);
    }
}

// Several segments: every element's prefix is needed, to record each
// segment's Rx at its start and Lx at its end, and its counts (end minus
// start, accumulated by atomics so start and end may lie in different tiles).
template <int VECS>
__global__ void __launch_bounds__(SPLIT_THREADS) split_bounds_kernel(split_params p)
{
    kd_wait_prior();
    typedef kd_block_scan<SPLIT_THREADS, VECS, uint32_t> block_scan;
    __shared__ typename block_scan::storage scan_storage;
    __shared__ uint64_t s_prefix;

    const unsigned tile = blockIdx.x, tile_elems = SPLIT_THREADS * VECS * 4;
    const size_t tile_base = (size_t)tile * tile_elems;
    const bool full_tile = tile_base + tile_elems <= p.n;
    const unsigned t = threadIdx.x, lane = kd_lane_id();

    uint32_t side_words[VECS], ids[VECS][4], counts[VECS][4];
    split_load_tile<true, VECS>(p, tile_base, full_tile, side_words, ids);
#pragma unroll
    for (int j = 0; j < VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            counts[j][k] = split_tile_count(split_side(side_words[j], k));

    const uint32_t aggregate = kd_tile_exclusive_scan<SPLIT_THREADS, VECS>(counts, 0u, kd_sum_op(),
                                                                                 scan_storage);
    if (t < 32) {
        uint64_t prefix =
            kd_lookback_tile<split_count_codec>(p.states, tile, widen_tile_count(aggregate), kd_sum_op());
        if (t == 0) {
            s_prefix = prefix;
            p.tile_prefix[tile] = prefix;
            if (tile_base + tile_elems >= p.n)
                split_write_totals(p, prefix + widen_tile_count(aggregate), false);
        }
    }
    __syncthreads();
    const uint64_t prefix = s_prefix;

#pragma unroll
    for (int j = 0; j < VECS; j++) {
        const size_t first = tile_base + (size_t)(j * SPLIT_THREADS + t) * 4;
        // Neighbours' ids across the vector's edges: from adjacent lanes, or
        // from memory at a warp's edge.
        uint32_t before = kd_shfl_up(ids[j][3], 1);
        uint32_t after = kd_shfl_down(ids[j][0], 1);
        if (lane == 0 && first < p.n)
            before = first == 0 ? ~ids[j][0] : p.ids[first - 1];
        if (lane == 31 && first < p.n)
            after = first + 4 < p.n ? p.ids[first + 4] : ~ids[j][3];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const size_t i = first + k;
            if (i >= p.n)
                break;
            const uint32_t s = ids[j][k];
            const uint32_t next = k < 3 ? ids[j][k + 1] : after;
            const bool last = i + 1 == p.n || next != s;
            const uint32_t lx = (uint32_t)prefix + (counts[j][k] & 0xffffu);
            const uint32_t rx = (uint32_t)(prefix >> 32) + (counts[j][k] >> 16);
            if (s < p.num_segments) {
                if (s != before) { // segment start
                    p.seg_start_right[s] = rx;
                    if (p.left_counts)
                        atomicAdd(p.left_counts + s, 0u - lx);
                    if (p.right_counts)
                        atomicAdd(p.right_counts + s, 0u - rx);
                }
                if (last) { // segment end: prefixes after this element
                    const uint32_t side = split_side(side_words[j], k);
                    const uint32_t lx_end = lx + (side & 1u);
                    const uint32_t rx_end = rx + ((side >> 1) & 1u);
                    p.seg_end_left[s] = lx_end;
                    if (p.left_counts)
                        atomicAdd(p.left_counts + s, lx_end);
                    if (p.right_counts)
                        atomicAdd(p.right_counts + s, rx_end);
                }
            }
            before = s;
        }
    }
}

} // namespace

cudaError_t split_launch_count(const split_params &p, bool segmented, int vecs, cudaStream_t stream)
{
    if (segmented) {
        const unsigned tiles = kd_div_ceil_u32(p.n, split_tile_elems(vecs));
        return vecs == 1   ? kd_launch_dependent(split_bounds_kernel<1>, tiles, SPLIT_THREADS, 0, stream, p)
               : vecs == 2 ? kd_launch_dependent(split_bounds_kernel<2>, tiles, SPLIT_THREADS, 0, stream, p)
                           : kd_launch_dependent(split_bounds_kernel<SPLIT_VECS>, tiles, SPLIT_THREADS, 0, stream, p);
    }
    return kd_launch_dependent(split_count_kernel, kd_div_ceil_u32(p.n, SPLIT_COUNT_TILE), SPLIT_THREADS, 0, stream, p);
}
