// Radix sort's public launcher: temporary storage, the max reduction, then
// up to four 8-bit passes of histogram, table scan and stable scatter
// (radix_sort_internal.cuh explains the design).
#include "kd_primitives.h"

#include "radix_sort_internal.cuh"
#include "temp_storage.cuh"

namespace {

// Blocks of the histogram and scatter kernels: as many as stay resident, each
// taking a contiguous chunk of whole tiles, so the digit table stays small.
cudaError_t sort_grid(size_t n, unsigned *num_blocks, size_t *chunk)
{
    int device = 0, sms = 0, per_sm = 0;
    KD_TRY_CUDA(cudaGetDevice(&device));
    KD_TRY_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    KD_TRY_CUDA(sort_scatter_blocks_per_sm(&per_sm));
    const size_t num_tiles = (n + SORT_TILE - 1) / SORT_TILE;
    size_t resident = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1);
    size_t blocks = num_tiles < resident ? num_tiles : resident;
    if (blocks == 0)
        blocks = 1;
    const size_t tiles_per_block = (num_tiles + blocks - 1) / blocks;
    *chunk = tiles_per_block * SORT_TILE;
    *num_blocks = (unsigned)((num_tiles + tiles_per_block - 1) / tiles_per_block);
    if (*num_blocks == 0)
        *num_blocks = 1;
    return cudaSuccess;
}

} // namespace

extern "C" cudaError_t kd_radix_sort_pairs_u32(void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                                               uint32_t *d_keys_out, const uint32_t *d_values_in,
                                               uint32_t *d_values_out, size_t n, cudaStream_t stream)
{
    if (temp_bytes == NULL)
        return cudaErrorInvalidValue;
    if (n == 0) {
        if (d_temp == NULL)
            *temp_bytes = KD_TEMP_ALIGN;
        return cudaSuccess;
    }
    // Output positions travel as 32-bit table entries.
    if (n > 0xffffffffu)
        return cudaErrorInvalidValue;
    unsigned num_blocks = 0;
    size_t chunk = 0;
    KD_TRY_CUDA(sort_grid(n, &num_blocks, &chunk));
    const size_t table_entries = (size_t)SORT_DIGITS * num_blocks;
    size_t scan_bytes = 0;
    KD_TRY_CUDA(kd_scan_exclusive_i32(KD_SCAN_LOOKBACK, NULL, &scan_bytes, NULL, NULL, table_entries, stream));

    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_keys_alt = kd_temp_add(&layout, n * sizeof(uint32_t));
    const int slot_values_alt = kd_temp_add(&layout, n * sizeof(uint32_t));
    const int slot_table = kd_temp_add(&layout, table_entries * sizeof(uint32_t));
    const int slot_max = kd_temp_add(&layout, sizeof(uint32_t));
    const int slot_scan = kd_temp_add(&layout, scan_bytes);
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;
    if (d_keys_in == NULL || d_keys_out == NULL || d_values_in == NULL || d_values_out == NULL)
        return cudaErrorInvalidValue;

    sort_buffers b;
    b.keys_in = d_keys_in;
    b.values_in = d_values_in;
    b.keys_out = d_keys_out;
    b.values_out = d_values_out;
    b.keys_alt = kd_temp_slot<uint32_t>(&layout, d_temp, slot_keys_alt);
    b.values_alt = kd_temp_slot<uint32_t>(&layout, d_temp, slot_values_alt);
    uint32_t *max_key = kd_temp_slot<uint32_t>(&layout, d_temp, slot_max);
    b.max_key = max_key;
    b.n = n;
    b.chunk = chunk;
    b.num_blocks = num_blocks;
    b.keys_vector = (uintptr_t)d_keys_in % 16 == 0 && (uintptr_t)d_keys_out % 16 == 0;
    uint32_t *table = kd_temp_slot<uint32_t>(&layout, d_temp, slot_table);
    void *scan_temp = kd_temp_slot<void>(&layout, d_temp, slot_scan);

    KD_TRY_CUDA(sort_launch_max(b, max_key, stream));
    for (int pass = 0; pass < SORT_MAX_PASSES; pass++) {
        // Passes above the largest key's top bit return at once on the device.
        KD_TRY_CUDA(sort_launch_histogram(b, pass, table, stream));
        KD_TRY_CUDA(kd_scan_exclusive_i32(KD_SCAN_LOOKBACK, scan_temp, &scan_bytes, (const int32_t *)table,
                                          (int32_t *)table, table_entries, stream));
        KD_TRY_CUDA(sort_launch_scatter(b, pass, table, stream));
    }
    return cudaSuccess;
}
