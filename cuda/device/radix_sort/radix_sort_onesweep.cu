// Radix sort, single-pass variant (after Onesweep, Adinets & Merrill): one
// read of the keys counts the digits of every pass at once (and finds the
// largest key); then each pass is ONE kernel in which tile i, taken in
// blockIdx order, ranks its keys, publishes its per-digit counts and looks
// back over tiles i-1, i-2, ... for each digit's prefix (decoupled look-back,
// one chain per digit). Consecutive tiles run at the same time and write
// adjacent pieces of each digit's run, so the scattered writes merge in L2.
#include "radix_sort_internal.cuh"

#include <cuda_pipeline.h>

#include "lookback.cuh"
#include "radix_sort_rank.cuh"
#include "temp_storage.cuh"

namespace {

// Per-digit look-back word: status in the top two bits, count below (n < 2^30).
const uint32_t WORD_AGGREGATE = 1u << 30, WORD_INCLUSIVE = 2u << 30, WORD_COUNT = (1u << 30) - 1;

struct onesweep_shared {
    uint32_t keys_in[SORT_TILE];
    uint32_t values_in[SORT_TILE];
    uint32_t staged[SORT_TILE];               // keys, then values, in sorted order
    uint32_t global_minus_local[SORT_DIGITS]; // output index of a staged slot = this + slot
    sort_rank_shared rank;
};

extern __shared__ uint4 onesweep_dynamic_smem[];

// Digit counts of all passes and the largest key, in one read of the keys.
__global__ void __launch_bounds__(256)
onesweep_histogram_kernel(const uint32_t *d_keys, size_t n, bool vector_in, uint32_t *d_hist, uint32_t *d_max)
{
    __shared__ uint32_t s_hist[SORT_MAX_PASSES][SORT_DIGITS];
    const unsigned t = threadIdx.x;
#pragma unroll
    for (int p = 0; p < SORT_MAX_PASSES; p++)
        s_hist[p][t] = 0;
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + t;
    uint32_t best = 0;
    size_t tail = 0;
    if (vector_in) {
        const uint4 *keys4 = reinterpret_cast<const uint4 *>(d_keys);
        const size_t n4 = n / 4;
        for (size_t i = first; i < n4; i += stride) {
            const uint4 v = __ldg(keys4 + i);
            const uint32_t k[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int c = 0; c < 4; c++) {
                best = max(best, k[c]);
#pragma unroll
                for (int p = 0; p < SORT_MAX_PASSES; p++)
                    atomicAdd(&s_hist[p][(k[c] >> (p * SORT_RADIX_BITS)) & 0xffu], 1u);
            }
        }
        tail = n4 * 4;
    }
    for (size_t i = tail + first; i < n; i += stride) {
        const uint32_t key = __ldg(d_keys + i);
        best = max(best, key);
#pragma unroll
        for (int p = 0; p < SORT_MAX_PASSES; p++)
            atomicAdd(&s_hist[p][(key >> (p * SORT_RADIX_BITS)) & 0xffu], 1u);
    }
    best = kd_warp_max_u32(best);
    if (kd_lane_id() == 0)
        atomicMax(d_max, best);
    __syncthreads();
#pragma unroll
    for (int p = 0; p < SORT_MAX_PASSES; p++)
        if (s_hist[p][t])
            atomicAdd(d_hist + p * SORT_DIGITS + t, s_hist[p][t]);
}

// Each pass's digit bases: the exclusive scan of its digit counts.
__global__ void __launch_bounds__(SORT_THREADS) onesweep_bases_kernel(const uint32_t *d_hist, uint32_t *d_bases)
{
    __shared__ kd_block_scan<SORT_THREADS, 1, uint32_t>::storage scan;
    for (int p = 0; p < SORT_MAX_PASSES; p++) {
        uint32_t value[1] = {d_hist[p * SORT_DIGITS + threadIdx.x]}, total[1];
        kd_block_scan<SORT_THREADS, 1, uint32_t>::exclusive_scan(value, total, 0u, kd_sum_op(), scan);
        d_bases[p * SORT_DIGITS + threadIdx.x] = value[0];
        __syncthreads();
    }
}

// KD_SORT_ONESWEEP_MIN_BLOCKS resident blocks per multiprocessor: many tiles
// in flight hide the look-back's latency.
template <bool MATCH_ANY>
__global__ void __launch_bounds__(SORT_THREADS, KD_SORT_ONESWEEP_MIN_BLOCKS)
onesweep_pass_kernel(sort_buffers b, int pass, uint32_t *d_states, const uint32_t *d_bases)
{
    sort_pass ps;
    if (!sort_pass_begin(b, pass, &ps))
        return;
    const int shift = ps.shift;

    onesweep_shared &s = *reinterpret_cast<onesweep_shared *>(onesweep_dynamic_smem);
    const unsigned t = threadIdx.x, warp = t / 32, lane = kd_lane_id();
    const unsigned tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * SORT_TILE;
    const unsigned tile_count = (unsigned)min((size_t)SORT_TILE, b.n - tile_base);
    sort_copy_tile_async(s.keys_in, ps.src_keys + tile_base, tile_count, b.keys_vector);
    sort_copy_tile_async(s.values_in, ps.src_values + tile_base, tile_count, b.keys_vector);
    sort_rank_reset(s.rank);
    __pipeline_wait_prior(1); // the keys
    __syncthreads();

    uint32_t slot[SORT_ITEMS], digit_total, digit_start;
    sort_rank_tile<MATCH_ANY>(s.keys_in, tile_count, shift, s.rank, slot, &digit_total, &digit_start);

    // Thread t looks back for digit t over the earlier tiles' counts.
    uint32_t *own = d_states + (size_t)tile * SORT_DIGITS + t;
    uint32_t before = 0;
    if (tile == 0) {
        kd_store_relaxed_u32(own, WORD_INCLUSIVE | digit_total);
    } else {
        kd_store_relaxed_u32(own, WORD_AGGREGATE | digit_total);
        for (const uint32_t *pred = own - SORT_DIGITS;; pred -= SORT_DIGITS) {
            uint32_t word;
            do
                word = kd_load_relaxed_u32(pred);
            while ((word & ~WORD_COUNT) == 0);
            before += word & WORD_COUNT;
            if (word & WORD_INCLUSIVE)
                break;
        }
        kd_store_relaxed_u32(own, WORD_INCLUSIVE | (before + digit_total));
    }
    s.global_minus_local[t] = d_bases[pass * SORT_DIGITS + t] + before - digit_start;

    // Reorder keys in shared memory, then write each digit's run; the values
    // follow the same permutation.
    const unsigned warp_base = warp * 32 * SORT_ITEMS;
#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++)
        if (warp_base + j * 32 + lane < tile_count)
            s.staged[slot[j]] = s.keys_in[warp_base + j * 32 + lane];
    __syncthreads();
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
    __pipeline_wait_prior(0); // the values
    __syncthreads();
#pragma unroll
    for (int j = 0; j < SORT_ITEMS; j++)
        if (warp_base + j * 32 + lane < tile_count)
            s.staged[slot[j]] = s.values_in[warp_base + j * 32 + lane];
    __syncthreads();
#pragma unroll
    for (int r = 0; r < SORT_ITEMS; r++) {
        const unsigned i = r * SORT_THREADS + t;
        if (i < tile_count) {
            const uint32_t digit = (slot_digits[r / 4] >> (8 * (r % 4))) & 0xffu;
            ps.dst_values[s.global_minus_local[digit] + i] = s.staged[i];
        }
    }
}

} // namespace

size_t sort_onesweep_state_bytes(size_t n)
{
    const size_t num_tiles = (n + SORT_TILE - 1) / SORT_TILE;
    return (size_t)SORT_MAX_PASSES * num_tiles * SORT_DIGITS * sizeof(uint32_t);
}

cudaError_t sort_launch_onesweep(bool match_any, const sort_buffers &b, uint32_t *d_hist, uint32_t *d_bases,
                                 uint32_t *d_states, cudaStream_t stream)
{
    const size_t num_tiles = (b.n + SORT_TILE - 1) / SORT_TILE;
    if (num_tiles > 0x7fffffffu)
        return cudaErrorInvalidValue;
    // d_hist (and the max key right after it) and the states were zeroed by
    // the caller.
    const unsigned hist_blocks =
        (unsigned)(num_tiles < KD_SORT_HISTOGRAM_MAX_BLOCKS ? num_tiles : KD_SORT_HISTOGRAM_MAX_BLOCKS);
    onesweep_histogram_kernel<<<hist_blocks, 256, 0, stream>>>(b.keys_in, b.n, (uintptr_t)b.keys_in % 16 == 0,
                                                               d_hist, const_cast<uint32_t *>(b.max_key));
    KD_TRY_LAUNCH();
    onesweep_bases_kernel<<<1, SORT_THREADS, 0, stream>>>(d_hist, d_bases);
    KD_TRY_LAUNCH();
    const size_t smem = sizeof(onesweep_shared);
    for (int pass = 0; pass < SORT_MAX_PASSES; pass++) {
        uint32_t *states = d_states + (size_t)pass * num_tiles * SORT_DIGITS;
        if (match_any) {
            KD_TRY_CUDA(cudaFuncSetAttribute(onesweep_pass_kernel<true>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            onesweep_pass_kernel<true><<<(unsigned)num_tiles, SORT_THREADS, smem, stream>>>(b, pass, states, d_bases);
        } else {
            KD_TRY_CUDA(cudaFuncSetAttribute(onesweep_pass_kernel<false>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            onesweep_pass_kernel<false><<<(unsigned)num_tiles, SORT_THREADS, smem, stream>>>(b, pass, states, d_bases);
        }
        KD_TRY_LAUNCH();
    }
    return cudaSuccess;
}
