// GPU test of the tile load and store on their own (block_load_store.cuh):
// striped tiles of 4-byte and 1-byte elements, full tiles by vectors and the
// partial last tile (or a misaligned buffer) element by element, the fill
// rules past the end, and that nothing at or after n is written. Sizes from
// one element to many tiles, odd ones included. Exits 77 without a device.
#include "block_load_store.cuh"
#include "layer_test.cuh"

namespace {

constexpr int kThreads = 128, kVecs = 3, kTile = kThreads * kVecs * 4;

// loaded[] (grid x tile, dense) gets every item as loaded, the fill
// included; out[] gets 2x + 1 of each element below n; words[] the byte
// tile as loaded; vec_out[] a copy of in[] by kd_store_vector.
__global__ void __launch_bounds__(kThreads)
    tile_kernel(const uint32_t *in, const uint8_t *bytes, size_t n, bool aligned, uint32_t *loaded, uint32_t *out,
                uint32_t *words, uint32_t *vec_out)
{
    const size_t tile_base = (size_t)blockIdx.x * kTile;
    const bool vector = tile_base + kTile <= n && aligned;
    uint32_t items[kVecs][4];
    kd_block_load_striped<kThreads, kVecs>(in, tile_base, n, vector, items, kd_fill_last<uint32_t>{in, n});
    for (int j = 0; j < kVecs; j++)
        for (int k = 0; k < 4; k++)
            loaded[kd_striped_index<kThreads>(tile_base, threadIdx.x, j, k)] = items[j][k];
    kd_block_store_striped<kThreads, kVecs>(out, tile_base, n, vector,
                                            [&](int j, int k) { return 2u * items[j][k] + 1u; });
    uint32_t w[kVecs];
    kd_block_load_striped_bytes<kThreads, kVecs>(bytes, tile_base, n, vector, w);
    for (int j = 0; j < kVecs; j++)
        words[tile_base / 4 + j * kThreads + threadIdx.x] = w[j];
    for (int j = 0; j < kVecs; j++) {
        const size_t first = kd_striped_index<kThreads>(tile_base, threadIdx.x, j, 0);
        kd_store_vector(vec_out, first, n, vector, items[j]);
    }
}

// Runs the kernel on n elements at `offset` words (bytes) past an aligned
// start, so that offset > 0 takes the element-wise path throughout.
void check_tiles(prim_rng *rng, size_t n, size_t offset)
{
    const size_t tiles = (n + kTile - 1) / kTile, slack = 64;
    std::vector<uint32_t> in(n + offset);
    std::vector<uint8_t> bytes(n + offset);
    for (size_t i = 0; i < n + offset; i++)
        in[i] = prim_rng_u32(rng), bytes[i] = (uint8_t)prim_rng_below(rng, 4);
    DeviceArray<uint32_t> d_in(in), d_loaded(tiles * kTile), d_out(n + offset + slack),
        d_words(tiles * kTile / 4), d_vec_out(n + offset + slack);
    DeviceArray<uint8_t> d_bytes(bytes);
    tile_kernel<<<(unsigned)tiles, kThreads>>>(d_in.ptr + offset, d_bytes.ptr + offset, n, offset == 0,
                                               d_loaded.ptr, d_out.ptr + offset, d_words.ptr,
                                               d_vec_out.ptr + offset);
    LAYER_CHECK_LAUNCH();
    const std::vector<uint32_t> loaded = d_loaded.get(), out = d_out.get(), words = d_words.get(),
                                vec_out = d_vec_out.get();
    int bad_load = 0, bad_store = 0, bad_bytes = 0, written_past = 0;
    for (size_t i = 0; i < tiles * kTile; i++) {
        const uint32_t want = in[offset + (i < n ? i : n - 1)];
        bad_load += loaded[i] != want;
        const uint32_t byte = (words[i / 4] >> (8 * (i % 4))) & 0xffu;
        bad_bytes += byte != (i < n ? bytes[offset + i] : 0u);
    }
    for (size_t i = 0; i < n; i++)
        bad_store += out[offset + i] != 2u * in[offset + i] + 1u || vec_out[offset + i] != in[offset + i];
    for (size_t i = offset + n; i < out.size(); i++)
        written_past += out[i] != PRIM_POISON_WORD || vec_out[i] != PRIM_POISON_WORD;
    CHECK_MSG(bad_load == 0, "n=%zu offset %zu: %d items loaded wrong", n, offset, bad_load);
    CHECK_MSG(bad_bytes == 0, "n=%zu offset %zu: %d bytes loaded wrong", n, offset, bad_bytes);
    CHECK_MSG(bad_store == 0, "n=%zu offset %zu: %d elements stored wrong", n, offset, bad_store);
    CHECK_MSG(written_past == 0, "n=%zu offset %zu: %d words written at or past n", n, offset, written_past);
}

} // namespace

int main(void)
{
    LAYER_SKIP_WITHOUT_DEVICE("layer_block_load_store_gpu");
    prim_rng rng;
    prim_rng_seed(&rng, 0x4C4F414453ull);
    const size_t sizes[] = {1, 3, 4, 5, kTile - 1, kTile, kTile + 1, 7 * kTile + 13, 100003, (size_t)1 << 20};
    for (size_t n : sizes)
        for (size_t offset = 0; offset < 4; offset++)
            if (!prim_quick() || n <= 100003) // KD_TEST_QUICK: sanitizer runs
                check_tiles(&rng, n, offset);
    return kd_test_finish("layer_block_load_store_gpu");
}
