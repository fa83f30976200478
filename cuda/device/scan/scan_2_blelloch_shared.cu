// Scan2: this version sweeps in shared memory: each block runs the up/down-sweep on its tile
// (bank-conflict padded); block sums are scanned the same way, level by level.
//
// Global memory is touched about twice per level of block sums instead of
// twice per tree level. The padding inserts one word after every 32 so that
// the power-of-two strides of the sweeps fall into different banks.
#include "primitives_tuning.h"
#include "scan_internal.cuh"

#include "temp_storage.cuh"

namespace {

const unsigned SHARED_THREADS = KD_SCAN_SHARED_THREADS;
const unsigned SHARED_ITEMS = 2 * SHARED_THREADS; // elements per block
const int MAX_LEVELS = 8;                         // 1024^7 elements: never reached

__device__ __forceinline__ unsigned padded(unsigned i)
{
    return i + (i >> 5);
}

__global__ void __launch_bounds__(SHARED_THREADS)
block_sweep_kernel(const uint32_t *d_in, uint32_t *d_out, size_t n, uint32_t *d_block_sums)
{
    __shared__ uint32_t s[SHARED_ITEMS + SHARED_ITEMS / 32];
    const unsigned t = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * SHARED_ITEMS;
    // Coalesced load: thread t takes elements t and t + 512.
    for (unsigned e = t; e < SHARED_ITEMS; e += SHARED_THREADS)
        s[padded(e)] = base + e < n ? d_in[base + e] : 0u;

    // Up-sweep: partial sums at the tree's right children.
    unsigned offset = 1;
    for (unsigned active = SHARED_ITEMS / 2; active > 0; active /= 2) {
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1;
            s[padded(left + offset)] += s[padded(left)];
        }
        offset *= 2;
    }
    // The root holds the block's sum; clear it for the exclusive down-sweep.
    if (t == 0) {
        d_block_sums[blockIdx.x] = s[padded(SHARED_ITEMS - 1)];
        s[padded(SHARED_ITEMS - 1)] = 0;
    }
    // Down-sweep: each node hands its prefix left and prefix + left sum right.
    for (unsigned active = 1; active < SHARED_ITEMS; active *= 2) {
        offset /= 2;
        __syncthreads();
        if (t < active) {
            unsigned left = offset * (2 * t + 1) - 1;
            uint32_t left_sum = s[padded(left)];
            s[padded(left)] = s[padded(left + offset)];
            s[padded(left + offset)] += left_sum;
        }
    }
    __syncthreads();
    for (unsigned e = t; e < SHARED_ITEMS; e += SHARED_THREADS)
        if (base + e < n)
            d_out[base + e] = s[padded(e)];
}

// Adds each block's scanned sum to its elements (block 0's is zero).
__global__ void add_block_sums_kernel(uint32_t *d_data, size_t n, const uint32_t *d_scanned_sums)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i >= SHARED_ITEMS)
        d_data[i] += d_scanned_sums[i / SHARED_ITEMS];
}

} // namespace

cudaError_t kd_scan_blelloch_shared_run(void *d_temp, size_t *temp_bytes, const uint32_t *d_in,
                                        uint32_t *d_out, size_t n, cudaStream_t stream)
{
    // Level l holds level_size[l] values; level l + 1 their per-block sums.
    size_t level_size[MAX_LEVELS + 1];
    int num_levels = 0; // levels that get scanned
    level_size[0] = n;
    while (num_levels < MAX_LEVELS) {
        level_size[num_levels + 1] = (level_size[num_levels] + SHARED_ITEMS - 1) / SHARED_ITEMS;
        num_levels++;
        if (level_size[num_levels] <= 1)
            break;
    }
    if (level_size[num_levels] > 1 || level_size[1] > 0x7fffffffu)
        return cudaErrorInvalidValue;

    kd_temp_layout layout;
    kd_temp_init(&layout);
    int slot[MAX_LEVELS + 1];
    for (int l = 1; l <= num_levels; l++)
        slot[l] = kd_temp_add(&layout, level_size[l] * sizeof(uint32_t));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;

    uint32_t *level[MAX_LEVELS + 1];
    level[0] = d_out;
    for (int l = 1; l <= num_levels; l++)
        level[l] = kd_temp_slot<uint32_t>(&layout, d_temp, slot[l]);

    // Scan upward: level 0 from the input, then each sums level in place.
    for (int l = 0; l < num_levels; l++) {
        const uint32_t *src = l == 0 ? d_in : level[l];
        block_sweep_kernel<<<(unsigned)level_size[l + 1], SHARED_THREADS, 0, stream>>>(src, level[l], level_size[l],
                                                                                       level[l + 1]);
        KD_TRY_LAUNCH();
    }
    // Propagate downward: each level gets its block's scanned sum.
    for (int l = num_levels - 1; l >= 1; l--) {
        add_block_sums_kernel<<<kd_div_ceil_u32(level_size[l - 1], 256), 256, 0, stream>>>(level[l - 1],
                                                                                           level_size[l - 1],
                                                                                           level[l]);
        KD_TRY_LAUNCH();
    }
    return cudaSuccess;
}
