// Head flags to segment ids: an inclusive count of segment starts, minus one,
// by the look-back scan (scan_3_lookback.cu) over 1-byte flags. Element 0
// always starts a segment, whatever its flag says.
#include "kd_primitives.h"

#include "block_load_store.cuh"
#include "block_scan.cuh"
#include "lookback.cuh"
#include "primitives_tuning.h"
#include "temp_storage.cuh"

namespace {

const int HEAD_THREADS = KD_HEADS_THREADS;
const int HEAD_VECS = KD_HEADS_VECS; // 4 flags (one 32-bit word) per vector
const int HEAD_TILE = HEAD_THREADS * HEAD_VECS * 4;

__global__ void __launch_bounds__(HEAD_THREADS)
heads_to_ids_kernel(const uint8_t *d_flags, uint32_t *d_ids, size_t n, uint64_t *states, bool vector_in,
                    bool vector_out)
{
    typedef kd_block_scan<HEAD_THREADS, HEAD_VECS, uint32_t> block_scan;
    __shared__ typename block_scan::storage scan_storage;
    __shared__ uint32_t s_prefix;

    const unsigned tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * HEAD_TILE;
    const bool full_tile = tile_base + HEAD_TILE <= n;
    const unsigned t = threadIdx.x;

    uint32_t words[HEAD_VECS], items[HEAD_VECS][4];
    kd_block_load_striped_bytes<HEAD_THREADS, HEAD_VECS>(d_flags, tile_base, n, full_tile && vector_in, words);
#pragma unroll
    for (int j = 0; j < HEAD_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            items[j][k] = ((words[j] >> (8 * k)) & 0xffu) != 0;
    if (tile == 0 && t == 0)
        items[0][0] = 1;
    uint32_t heads[HEAD_VECS][4];
#pragma unroll
    for (int j = 0; j < HEAD_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            heads[j][k] = items[j][k];

    const uint32_t aggregate = kd_tile_exclusive_scan<HEAD_THREADS, HEAD_VECS>(items, 0u, kd_sum_op(), scan_storage);
    // Inclusive count minus one = exclusive count + own flag - 1.
    const uint32_t prefix =
        kd_lookback_block<kd_codec_u32>(states, tile, aggregate, kd_sum_op(), s_prefix) - 1u;

    kd_block_store_striped<HEAD_THREADS, HEAD_VECS>(d_ids, tile_base, n, full_tile && vector_out, [&](int j, int k) {
        return prefix + items[j][k] + heads[j][k];
    });
}

} // namespace

extern "C" cudaError_t kd_head_flags_to_segment_ids(void *d_temp, size_t *temp_bytes, const uint8_t *d_head_flags,
                                                    uint32_t *d_segment_ids, size_t n, cudaStream_t stream)
{
    const size_t num_tiles_wide = (n + HEAD_TILE - 1) / HEAD_TILE;
    if (temp_bytes == NULL || num_tiles_wide > 0x7fffffffu)
        return cudaErrorInvalidValue;
    const unsigned num_tiles = (unsigned)num_tiles_wide;
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_states = kd_temp_add(&layout, kd_lookback_state_bytes(num_tiles));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err) || n == 0)
        return err;
    if (d_head_flags == NULL || d_segment_ids == NULL)
        return cudaErrorInvalidValue;

    uint64_t *states = kd_temp_slot<uint64_t>(&layout, d_temp, slot_states);
    kd_lookback_init_kernel<<<kd_div_ceil_u32(num_tiles, 256), 256, 0, stream>>>(states, num_tiles);
    KD_TRY_LAUNCH();
    heads_to_ids_kernel<<<num_tiles, HEAD_THREADS, 0, stream>>>(d_head_flags, d_segment_ids, n, states,
                                                               (uintptr_t)d_head_flags % 4 == 0,
                                                               (uintptr_t)d_segment_ids % 16 == 0);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}
