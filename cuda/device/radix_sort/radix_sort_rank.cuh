// Radix sort: stable ranking of one tile's keys by one 8-bit digit, shared by
// the sort's scatter kernels (radix_sort_scatter.cu, radix_sort_onesweep.cu).
//
// The tile's keys sit in shared memory, warp-striped: item j of lane l of
// warp w is key w * 32 * SORT_ITEMS + j * 32 + l, so (warp, j, lane) order is
// input order. A warp finds, for each item, the lanes holding the same digit
// (a warp match); the lowest of them bumps the warp's counter for the digit.
#ifndef KD_RADIX_SORT_RANK_CUH
#define KD_RADIX_SORT_RANK_CUH

#include "block_scan.cuh"
#include "radix_sort_internal.cuh"

struct sort_rank_shared {
    uint16_t warp_digit[SORT_WARPS][SORT_DIGITS]; // per-warp digit counts, then run starts
    kd_block_scan<SORT_THREADS, 1, uint32_t>::storage scan;
};

// Lanes of the warp whose digit equals this lane's. MATCH_ANY: the hardware
// match instruction; otherwise 8 ballots, one per bit.
template <bool MATCH_ANY>
__device__ __forceinline__ unsigned sort_match_digit(uint32_t digit)
{
    if (MATCH_ANY)
        return __match_any_sync(KD_FULL_MASK, digit);
    unsigned peers = KD_FULL_MASK;
#pragma unroll
    for (int bit = 0; bit < SORT_RADIX_BITS; bit++) {
        const unsigned set = __ballot_sync(KD_FULL_MASK, (digit >> bit) & 1u);
        peers &= ((digit >> bit) & 1u) ? set : ~set;
    }
    return peers;
}

// Zeroes the warp counters; the caller's next barrier publishes this.
__device__ __forceinline__ void sort_rank_reset(sort_rank_shared &s)
{
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++)
        s.warp_digit[w][threadIdx.x] = 0;
}

// Ranks the first tile_count keys of s_keys (after sort_rank_reset and a
// barrier). On return slot[j] is item j's position in the tile sorted by
// digit (stable), and for digit d = threadIdx.x, *digit_total is its count in
// the tile and *digit_start its first slot. Contains three barriers.
template <bool MATCH_ANY>
__device__ __forceinline__ void sort_rank_tile(const uint32_t *s_keys, unsigned tile_count, int shift,
                                               sort_rank_shared &s, uint32_t (&slot)[SORT_ITEMS],
                                               uint32_t *digit_total, uint32_t *digit_start)
{
    const unsigned t = threadIdx.x, warp = t / 32, lane = kd_lane_id();
    const unsigned lanes_below = (1u << lane) - 1u;
    const unsigned warp_base = warp * 32 * SORT_ITEMS;
    const uint32_t *keys = s_keys + warp_base + lane;
    const unsigned valid_end = tile_count > warp_base ? tile_count - warp_base : 0;

    // The matches carry no dependency, so they are all found first.
#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++) {
        const unsigned valid = __ballot_sync(KD_FULL_MASK, j * 32 + lane < valid_end);
        slot[j] = sort_match_digit<MATCH_ANY>((keys[j * 32] >> shift) & 0xffu) & valid;
    }
    uint16_t *counters = s.warp_digit[warp];
#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++) {
        const unsigned peers = slot[j];
        const int leader = __ffs(peers) - 1; // -1 for lanes past the end
        uint32_t before = 0;
        if (leader == (int)lane) {
            const uint32_t digit = (keys[j * 32] >> shift) & 0xffu;
            before = counters[digit];
            counters[digit] = (uint16_t)(before + __popc(peers));
        }
        __syncwarp();
        before = __shfl_sync(KD_FULL_MASK, before, leader < 0 ? 0 : leader);
        slot[j] = before + __popc(peers & lanes_below); // rank within the warp and digit
    }
    __syncthreads();

    // Per digit (thread t = digit t): each warp's run start within the digit,
    // then the digit's start in the tile (a block scan).
    uint32_t total = 0;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++) {
        const uint32_t c = s.warp_digit[w][t];
        s.warp_digit[w][t] = (uint16_t)total;
        total += c;
    }
    uint32_t start[1] = {total}, all[1];
    kd_block_scan<SORT_THREADS, 1, uint32_t>::exclusive_scan(start, all, 0u, kd_sum_op(), s.scan);
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++)
        s.warp_digit[w][t] = (uint16_t)(s.warp_digit[w][t] + start[0]);
    *digit_total = total;
    *digit_start = start[0];
    __syncthreads();

#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++)
        if (j * 32 + lane < valid_end)
            slot[j] += s.warp_digit[warp][(keys[j * 32] >> shift) & 0xffu];
}

// Starts copying `count` words of a tile into shared memory; whole aligned
// tiles go as 16-byte pieces. Commits one pipeline stage (empty if count 0).
__device__ __forceinline__ void sort_copy_tile_async(uint32_t *s_dst, const uint32_t *src, unsigned count,
                                                     bool vector)
{
    if (count == SORT_TILE && vector) {
        for (unsigned c = threadIdx.x; c < SORT_TILE / 4; c += SORT_THREADS)
            __pipeline_memcpy_async(s_dst + 4 * c, src + 4 * c, 16);
    } else {
        for (unsigned i = threadIdx.x; i < count; i += SORT_THREADS)
            __pipeline_memcpy_async(s_dst + i, src + i, 4);
    }
    __pipeline_commit();
}

#endif
