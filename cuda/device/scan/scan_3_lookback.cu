// Scan3: this version scans in one pass: each tile gets its prefix from its predecessors'
// published sums (decoupled look-back) instead of a second sweep.
//
// A block scans one tile of THREADS x VECS x 4 ints held in registers (16-byte
// loads, see block_scan.cuh), publishes the tile's sum, looks back for its
// prefix (lookback.cuh) and writes the tile once: about 2n memory traffic,
// the minimum for a scan. Full tiles load unguarded; only the last one checks
// bounds. Each tile reads all its input before writing, so d_out may be d_in.
#include "scan_internal.cuh"
#include "scan_variants.h"

#include "block_load_store.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "temp_storage.cuh"

namespace {

template <int THREADS, int VECS>
__global__ void __launch_bounds__(THREADS)
scan_lookback_kernel(const uint32_t *d_in, uint32_t *d_out, size_t n, uint64_t *states, bool vector_io)
{
    constexpr int TILE = THREADS * VECS * 4;
    typedef kd_block_scan<THREADS, VECS, uint32_t> block_scan;
    __shared__ typename block_scan::storage scan_storage;
    __shared__ uint32_t s_prefix;

    const unsigned tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * TILE;
    const bool full_tile = tile_base + TILE <= n;

    uint32_t items[VECS][4];
    const bool vector = full_tile && vector_io;
    kd_block_load_striped<THREADS, VECS>(d_in, tile_base, n, vector, items, kd_fill_value<uint32_t>{0u});

    const uint32_t aggregate = kd_tile_exclusive_scan<THREADS, VECS>(items, 0u, kd_sum_op(), scan_storage);

    const uint32_t prefix = kd_lookback_block<kd_codec_u32>(states, tile, aggregate, kd_sum_op(), s_prefix);

    kd_block_store_striped<THREADS, VECS>(d_out, tile_base, n, vector,
                                          [&](int j, int k) { return prefix + items[j][k]; });
}

template <int THREADS, int VECS>
cudaError_t scan_lookback_launch(void *d_temp, size_t *temp_bytes, const uint32_t *d_in, uint32_t *d_out,
                                 size_t n, cudaStream_t stream)
{
    constexpr size_t TILE = (size_t)THREADS * VECS * 4;
    const size_t num_tiles_wide = (n + TILE - 1) / TILE;
    if (num_tiles_wide > 0x7fffffffu)
        return cudaErrorInvalidValue;
    const unsigned num_tiles = (unsigned)num_tiles_wide;

    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_states = kd_temp_add(&layout, kd_lookback_state_bytes(num_tiles));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;

    uint64_t *states = kd_temp_slot<uint64_t>(&layout, d_temp, slot_states);
    kd_lookback_init_kernel<<<kd_div_ceil_u32(num_tiles, 256), 256, 0, stream>>>(states, num_tiles);
    KD_TRY_LAUNCH();
    const bool vector_io = ((uintptr_t)d_in % 16 == 0) && ((uintptr_t)d_out % 16 == 0);
    scan_lookback_kernel<THREADS, VECS><<<num_tiles, THREADS, 0, stream>>>(d_in, d_out, n, states, vector_io);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}

} // namespace

const char *kd_scan_lookback_config_name(int config)
{
    switch (config) {
    case 0: return "128x32";
    case 1: return "256x16";
    case 2: return "256x32";
    case 3: return "128x24";
    }
    return "?";
}

cudaError_t kd_scan_lookback_run(int config, void *d_temp, size_t *temp_bytes, const uint32_t *d_in,
                                 uint32_t *d_out, size_t n, cudaStream_t stream)
{
    switch (config) {
    case 0: return scan_lookback_launch<128, 8>(d_temp, temp_bytes, d_in, d_out, n, stream);
    case 1: return scan_lookback_launch<256, 4>(d_temp, temp_bytes, d_in, d_out, n, stream);
    case 2: return scan_lookback_launch<256, 8>(d_temp, temp_bytes, d_in, d_out, n, stream);
    case 3: return scan_lookback_launch<128, 6>(d_temp, temp_bytes, d_in, d_out, n, stream);
    }
    return cudaErrorInvalidValue;
}

extern "C" int kd_scan_lookback_num_variants(void)
{
    return KD_SCAN_LOOKBACK_NUM_CONFIGS;
}

extern "C" cudaError_t kd_scan_lookback_i32_variant(int variant, void *d_temp, size_t *temp_bytes,
                                                    const int32_t *d_in, int32_t *d_out, size_t n,
                                                    cudaStream_t stream)
{
    if (temp_bytes == NULL)
        return cudaErrorInvalidValue;
    if (n == 0) {
        if (d_temp == NULL)
            *temp_bytes = KD_TEMP_ALIGN;
        return cudaSuccess;
    }
    return kd_scan_lookback_run(variant, d_temp, temp_bytes, reinterpret_cast<const uint32_t *>(d_in),
                                reinterpret_cast<uint32_t *>(d_out), n, stream);
}
