// Radix sort: the stable scatter of one pass (see radix_sort_internal.cuh).
#include "radix_sort_internal.cuh"

#include "block_scan.cuh"
#include "temp_storage.cuh"

namespace {

struct scatter_shared {
    uint32_t staged[SORT_TILE];                 // tile keys, then values, in sorted order
    uint32_t warp_digit[SORT_WARPS][SORT_DIGITS]; // per-warp digit counts, then run starts
    uint32_t global_minus_local[SORT_DIGITS];   // output index of a staged slot = this + slot
    kd_block_scan<SORT_THREADS, 1, uint32_t>::storage scan;
};

// Lanes of the warp whose digit equals this lane's (8 ballots, one per bit),
// among the lanes in `valid`.
__device__ __forceinline__ unsigned match_digit(uint32_t digit, unsigned valid)
{
    unsigned peers = valid;
#pragma unroll
    for (int bit = 0; bit < SORT_RADIX_BITS; bit++) {
        const unsigned set = __ballot_sync(KD_FULL_MASK, (digit >> bit) & 1u);
        peers &= ((digit >> bit) & 1u) ? set : ~set;
    }
    return peers;
}

// Three resident blocks per multiprocessor: enough loads in flight to cover
// memory latency while the block ranks and reorders.
__global__ void __launch_bounds__(SORT_THREADS, 3)
sort_scatter_kernel(sort_buffers b, int pass, const uint32_t *d_table_scanned)
{
    const int passes = sort_num_passes(*b.max_key);
    if (pass >= passes)
        return;
    const uint32_t *src_keys, *src_values;
    uint32_t *dst_keys, *dst_values;
    sort_pass_buffers(b, pass, passes, &src_keys, &src_values, &dst_keys, &dst_values);
    const int shift = pass * SORT_RADIX_BITS;

    __shared__ scatter_shared s;
    const unsigned t = threadIdx.x, warp = t / 32, lane = kd_lane_id();
    const unsigned lanes_below = (1u << lane) - 1u;
    // Thread t keeps digit t's next output index for this block.
    uint32_t digit_next = d_table_scanned[(size_t)t * b.num_blocks + blockIdx.x];

    const size_t chunk_begin = (size_t)blockIdx.x * b.chunk;
    const size_t chunk_end = min(b.n, chunk_begin + b.chunk);
    for (size_t tile_base = chunk_begin; tile_base < chunk_end; tile_base += SORT_TILE) {
        const unsigned tile_count = (unsigned)min((size_t)SORT_TILE, chunk_end - tile_base);
#pragma unroll
        for (int w = 0; w < SORT_WARPS; w++)
            s.warp_digit[w][t] = 0;

        // Each warp owns 32 * SORT_ITEMS consecutive keys; item j of lane l is
        // key warp_base + j * 32 + l, so (j, lane) order is input order.
        const unsigned warp_base = warp * 32 * SORT_ITEMS;
        uint32_t keys[SORT_ITEMS];
#pragma unroll
        for (int j = 0; j < SORT_ITEMS; j++) {
            const unsigned i = warp_base + j * 32 + lane;
            keys[j] = i < tile_count ? src_keys[tile_base + i] : 0u;
        }
        __syncthreads();

        // Rank each key among the warp's earlier keys of the same digit.
        uint32_t rank[SORT_ITEMS];
#pragma unroll
        for (int j = 0; j < SORT_ITEMS; j++) {
            const bool valid = warp_base + j * 32 + lane < tile_count;
            const uint32_t digit = (keys[j] >> shift) & 0xffu;
            const unsigned peers = match_digit(digit, __ballot_sync(KD_FULL_MASK, valid));
            uint32_t before = 0;
            if (valid)
                before = s.warp_digit[warp][digit];
            __syncwarp();
            if (valid && (peers & lanes_below) == 0) // lowest peer updates the counter
                s.warp_digit[warp][digit] = before + __popc(peers);
            __syncwarp();
            rank[j] = before + __popc(peers & lanes_below);
        }
        __syncthreads();

        // Per digit (thread t = digit t): runs of each warp, the tile's digit
        // starts (a block scan), and where the digit's run goes in the output.
        uint32_t digit_total = 0;
#pragma unroll
        for (int w = 0; w < SORT_WARPS; w++) {
            const uint32_t c = s.warp_digit[w][t];
            s.warp_digit[w][t] = digit_total;
            digit_total += c;
        }
        uint32_t digit_start[1] = {digit_total}, all[1];
        kd_block_scan<SORT_THREADS, 1, uint32_t>::exclusive_scan(digit_start, all, 0u, kd_sum_op(), s.scan);
#pragma unroll
        for (int w = 0; w < SORT_WARPS; w++)
            s.warp_digit[w][t] += digit_start[0];
        s.global_minus_local[t] = digit_next - digit_start[0];
        digit_next += digit_total;
        __syncthreads();

        // Reorder keys in shared memory (rank becomes the tile slot), then
        // write each digit's run; remember the digits for the values.
#pragma unroll
        for (int j = 0; j < SORT_ITEMS; j++) {
            const uint32_t digit = (keys[j] >> shift) & 0xffu;
            rank[j] += s.warp_digit[warp][digit];
            if (warp_base + j * 32 + lane < tile_count)
                s.staged[rank[j]] = keys[j];
        }
        __syncthreads();
        uint32_t slot_digits[SORT_ITEMS / 4] = {}; // four 8-bit digits per word
#pragma unroll
        for (int r = 0; r < SORT_ITEMS; r++) {
            const unsigned i = r * SORT_THREADS + t;
            if (i < tile_count) {
                const uint32_t key = s.staged[i];
                const uint32_t digit = (key >> shift) & 0xffu;
                slot_digits[r / 4] |= digit << (8 * (r % 4));
                dst_keys[s.global_minus_local[digit] + i] = key;
            }
        }
        __syncthreads();
        // Values follow the same permutation (loaded only now, to keep the
        // registers for the keys; other resident blocks cover the latency).
#pragma unroll
        for (int j = 0; j < SORT_ITEMS; j++) {
            const unsigned i = warp_base + j * 32 + lane;
            if (i < tile_count)
                s.staged[rank[j]] = src_values[tile_base + i];
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < SORT_ITEMS; r++) {
            const unsigned i = r * SORT_THREADS + t;
            if (i < tile_count) {
                const uint32_t digit = (slot_digits[r / 4] >> (8 * (r % 4))) & 0xffu;
                dst_values[s.global_minus_local[digit] + i] = s.staged[i];
            }
        }
        __syncthreads();
    }
}

} // namespace

cudaError_t sort_launch_scatter(const sort_buffers &b, int pass, const uint32_t *d_table_scanned,
                                cudaStream_t stream)
{
    sort_scatter_kernel<<<b.num_blocks, SORT_THREADS, 0, stream>>>(b, pass, d_table_scanned);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}

cudaError_t sort_scatter_blocks_per_sm(int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, sort_scatter_kernel, SORT_THREADS, 0);
}
