// Radix sort's public launcher: temporary storage and the sequence of
// launches of each variant (radix_sort_internal.cuh explains the designs).
// The single-pass variant is the default: each pass reads and writes the
// keys once, where the classic one reads them twice (histogram, scatter).
#include "kd_primitives.h"
#include "launch.cuh"

#include "radix_sort_internal.cuh"
#include "radix_sort_variants.h"
#include "temp_storage.cuh"

namespace {

bool is_onesweep(int config)
{
    return config == 0 || config == 1;
}

bool uses_match_any(int config)
{
    return config == 1 || config == 3;
}

// Classic variant: as many blocks as stay resident, each taking a contiguous
// chunk of whole tiles, so the digit table stays small.
cudaError_t classic_grid(bool match_any, size_t n, unsigned *num_blocks, size_t *chunk)
{
    int sms = 0, per_sm = 0;
    KD_TRY_CUDA(kd_device_attribute(cudaDevAttrMultiProcessorCount, &sms));
    KD_TRY_CUDA(sort_scatter_blocks_per_sm(match_any, &per_sm));
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

void init_buffers(sort_buffers *b, const uint32_t *d_keys_in, uint32_t *d_keys_out, const uint32_t *d_values_in,
                  uint32_t *d_values_out, size_t n)
{
    b->keys_in = d_keys_in;
    b->values_in = d_values_in;
    b->keys_out = d_keys_out;
    b->values_out = d_values_out;
    b->n = n;
    b->chunk = 0;
    b->num_blocks = 0;
    b->keys_vector = (uintptr_t)d_keys_in % 16 == 0 && (uintptr_t)d_keys_out % 16 == 0 &&
                     (uintptr_t)d_values_in % 16 == 0 && (uintptr_t)d_values_out % 16 == 0;
}

// Max reduction, then per pass: digit histograms, their scan, the scatter.
cudaError_t run_classic(bool match_any, void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                        uint32_t *d_keys_out, const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                        cudaStream_t stream)
{
    unsigned num_blocks = 0;
    size_t chunk = 0;
    KD_TRY_CUDA(classic_grid(match_any, n, &num_blocks, &chunk));
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
    init_buffers(&b, d_keys_in, d_keys_out, d_values_in, d_values_out, n);
    b.keys_alt = kd_temp_slot<uint32_t>(&layout, d_temp, slot_keys_alt);
    b.values_alt = kd_temp_slot<uint32_t>(&layout, d_temp, slot_values_alt);
    uint32_t *max_key = kd_temp_slot<uint32_t>(&layout, d_temp, slot_max);
    b.max_key = max_key;
    b.chunk = chunk;
    b.num_blocks = num_blocks;
    uint32_t *table = kd_temp_slot<uint32_t>(&layout, d_temp, slot_table);
    void *scan_temp = kd_temp_slot<void>(&layout, d_temp, slot_scan);

    KD_TRY_CUDA(sort_launch_max(b, max_key, stream));
    for (int pass = 0; pass < SORT_MAX_PASSES; pass++) {
        // Passes above the largest key's top bit return at once on the device.
        KD_TRY_CUDA(sort_launch_histogram(b, pass, table, stream));
        KD_TRY_CUDA(kd_scan_exclusive_i32(KD_SCAN_LOOKBACK, scan_temp, &scan_bytes, (const int32_t *)table,
                                          (int32_t *)table, table_entries, stream));
        KD_TRY_CUDA(sort_launch_scatter(match_any, b, pass, table, stream));
    }
    return cudaSuccess;
}

// One reset, one counting read (histograms of all passes and the max key),
// the digit bases, then one kernel per pass.
cudaError_t run_onesweep(bool match_any, void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                         uint32_t *d_keys_out, const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                         cudaStream_t stream)
{
    // The counts, the max key and the look-back words share one sub-buffer,
    // so a single memset resets them.
    const size_t counts_bytes = (SORT_MAX_PASSES * SORT_DIGITS + 64) * sizeof(uint32_t);
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_keys_alt = kd_temp_add(&layout, n * sizeof(uint32_t));
    const int slot_values_alt = kd_temp_add(&layout, n * sizeof(uint32_t));
    const int slot_zeroed = kd_temp_add(&layout, counts_bytes + sort_onesweep_state_bytes(n));
    const int slot_bases = kd_temp_add(&layout, SORT_MAX_PASSES * SORT_DIGITS * sizeof(uint32_t));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;
    if (d_keys_in == NULL || d_keys_out == NULL || d_values_in == NULL || d_values_out == NULL)
        return cudaErrorInvalidValue;

    sort_buffers b;
    init_buffers(&b, d_keys_in, d_keys_out, d_values_in, d_values_out, n);
    b.keys_alt = kd_temp_slot<uint32_t>(&layout, d_temp, slot_keys_alt);
    b.values_alt = kd_temp_slot<uint32_t>(&layout, d_temp, slot_values_alt);
    uint32_t *zeroed = kd_temp_slot<uint32_t>(&layout, d_temp, slot_zeroed);
    uint32_t *hist = zeroed;
    b.max_key = zeroed + SORT_MAX_PASSES * SORT_DIGITS;
    uint32_t *states = zeroed + counts_bytes / sizeof(uint32_t);
    KD_TRY_CUDA(cudaMemsetAsync(zeroed, 0, counts_bytes + sort_onesweep_state_bytes(n), stream));
    return sort_launch_onesweep(match_any, b, hist, kd_temp_slot<uint32_t>(&layout, d_temp, slot_bases), states,
                                stream);
}

} // namespace

const char *kd_radix_sort_config_name(int config)
{
    switch (config) {
    case 0: return "onesweep, ballots";
    case 1: return "onesweep, match.any";
    case 2: return "classic, ballots";
    case 3: return "classic, match.any";
    }
    return "?";
}

cudaError_t kd_radix_sort_run(int config, void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                              uint32_t *d_keys_out, const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                              cudaStream_t stream)
{
    if (config < 0 || config >= KD_RADIX_SORT_NUM_CONFIGS || temp_bytes == NULL)
        return cudaErrorInvalidValue;
    if (n == 0) {
        if (d_temp == NULL)
            *temp_bytes = KD_TEMP_ALIGN;
        return cudaSuccess;
    }
    // Output positions travel as 32-bit values.
    if (n > 0xffffffffu)
        return cudaErrorInvalidValue;
    if (is_onesweep(config) && n < (1u << 30))
        return run_onesweep(uses_match_any(config), d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
                            d_values_out, n, stream);
    return run_classic(uses_match_any(config), d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out,
                       n, stream);
}

extern "C" cudaError_t kd_radix_sort_pairs_u32(void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                                               uint32_t *d_keys_out, const uint32_t *d_values_in,
                                               uint32_t *d_values_out, size_t n, cudaStream_t stream)
{
    return kd_radix_sort_run(KD_RADIX_SORT_DEFAULT_CONFIG, d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
                             d_values_out, n, stream);
}

extern "C" int kd_radix_sort_num_variants(void)
{
    return KD_RADIX_SORT_NUM_CONFIGS;
}

extern "C" const char *kd_radix_sort_variant_name(int variant)
{
    return kd_radix_sort_config_name(variant);
}

extern "C" cudaError_t kd_radix_sort_pairs_u32_variant(int variant, void *d_temp, size_t *temp_bytes,
                                                       const uint32_t *d_keys_in, uint32_t *d_keys_out,
                                                       const uint32_t *d_values_in, uint32_t *d_values_out,
                                                       size_t n, cudaStream_t stream)
{
    return kd_radix_sort_run(variant, d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n,
                             stream);
}
