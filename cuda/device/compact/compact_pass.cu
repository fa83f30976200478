// Stream compaction's single pass (see compact_internal.cuh): select, rank in
// the tile, look back for the tile's output offset, move the selected.
#include "compact_internal.cuh"

#include "block_load_store.cuh"
#include "block_scan.cuh"
#include "launch.cuh"
#include "lookback.cuh"
#include "temp_storage.cuh"

namespace {

typedef kd_block_scan<COMPACT_THREADS, COMPACT_VECS, uint32_t> compact_scan;

// ---- Step 1: which elements of the tile are selected (1 or 0; 0 past the end)

// Flag bytes: any nonzero byte selects. The tile's payloads are not needed
// until step 4: payload 0 starts on its way into L2 meanwhile.
struct select_flagged {
    static __device__ __forceinline__ void prefetch(const compact_params &p, size_t base)
    {
        if (p.num_payloads == 0)
            return;
        const uint32_t bytes_each = p.payloads[0].words * 4;
        const char *first = static_cast<const char *>(p.payloads[0].in) + base * bytes_each;
        const size_t bytes = min((size_t)COMPACT_TILE, p.n - base) * bytes_each;
        for (size_t b = (size_t)threadIdx.x * 128; b < bytes; b += COMPACT_THREADS * 128)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(first + b));
    }

    static __device__ __forceinline__ void select(const compact_params &p, size_t base, bool full,
                                                  uint32_t (&chosen)[COMPACT_VECS][4])
    {
        uint32_t words[COMPACT_VECS];
        kd_block_load_striped_bytes<COMPACT_THREADS, COMPACT_VECS>(p.flags, base, p.n, full && p.vector_loads,
                                                                   words);
#pragma unroll
        for (int j = 0; j < COMPACT_VECS; j++)
#pragma unroll
            for (int k = 0; k < 4; k++)
                chosen[j][k] = (words[j] >> (8 * k)) & 0xffu ? 1u : 0u;
    }
};

// A predicate of the loaded words; the words are payload 0, read back from
// the caches in step 4.
template <compact_form FORM>
struct select_if {
    static __device__ __forceinline__ bool keep(uint32_t x, uint32_t bound)
    {
        return FORM == COMPACT_NONZERO ? x != 0u : FORM == COMPACT_LESS ? x < bound : x >= bound;
    }

    static __device__ __forceinline__ void prefetch(const compact_params &, size_t) {}

    static __device__ __forceinline__ void select(const compact_params &p, size_t base, bool full,
                                                  uint32_t (&chosen)[COMPACT_VECS][4])
    {
        uint32_t words[COMPACT_VECS][4];
        kd_block_load_striped<COMPACT_THREADS, COMPACT_VECS>(p.keys, base, p.n, full && p.vector_loads, words,
                                                             kd_fill_value<uint32_t>{0u});
#pragma unroll
        for (int j = 0; j < COMPACT_VECS; j++)
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const bool inside = full || kd_striped_index<COMPACT_THREADS>(base, threadIdx.x, j, k) < p.n;
                chosen[j][k] = inside && keep(words[j][k], p.bound) ? 1u : 0u;
            }
    }
};

// ---- Step 4: the selected elements of one payload, slot by slot

// Each thread gathers up to KD_COMPACT_BATCH elements before it stores them,
// so that several loads are in flight at once (in and out may not alias, which
// the compiler cannot know).
template <typename W>
__device__ __forceinline__ void move_selected(const compact_payload_desc &d, size_t base, uint32_t before,
                                              uint32_t selected, const uint16_t *source)
{
    const W *in = static_cast<const W *>(d.in) + base;
    W *out = static_cast<W *>(d.out) + before;
    for (uint32_t first = threadIdx.x; first < selected; first += KD_COMPACT_BATCH * COMPACT_THREADS) {
        W v[KD_COMPACT_BATCH];
#pragma unroll
        for (int u = 0; u < KD_COMPACT_BATCH; u++) {
            const uint32_t q = first + u * COMPACT_THREADS;
            if (q < selected)
                v[u] = __ldg(in + source[q]);
        }
#pragma unroll
        for (int u = 0; u < KD_COMPACT_BATCH; u++) {
            const uint32_t q = first + u * COMPACT_THREADS;
            if (q < selected)
                out[q] = v[u];
        }
    }
}

// ---- The pass: one tile a block, tiles in blockIdx order (lookback.cuh)

template <class Select>
__global__ void __launch_bounds__(COMPACT_THREADS) compact_kernel(compact_params p)
{
    kd_wait_prior();
    __shared__ typename compact_scan::storage scan_storage;
    __shared__ uint16_t source[COMPACT_TILE]; // slot -> position in the tile
    __shared__ uint32_t s_before;

    const size_t base = (size_t)blockIdx.x * COMPACT_TILE;
    const bool full = base + COMPACT_TILE <= p.n;
    Select::prefetch(p, base);

    // Steps 1 and 2: the flags, then each selected element's rank in the tile.
    uint32_t rank[COMPACT_VECS][4];
    Select::select(p, base, full, rank);
    uint32_t chosen_bits = 0;
#pragma unroll
    for (int j = 0; j < COMPACT_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            chosen_bits |= rank[j][k] << (j * 4 + k);
    const uint32_t selected = kd_tile_exclusive_scan<COMPACT_THREADS, COMPACT_VECS>(rank, 0u, kd_sum_op(),
                                                                                    scan_storage);
#pragma unroll
    for (int j = 0; j < COMPACT_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (chosen_bits & (1u << (j * 4 + k)))
                source[rank[j][k]] = (uint16_t)((j * COMPACT_THREADS + threadIdx.x) * 4 + k);

    // Step 3: the tile's offset. The look-back's barrier also publishes the
    // slots written above to the whole block.
    const uint32_t before =
        kd_lookback_block<kd_codec_u32>(p.states, blockIdx.x, selected, kd_sum_op(), s_before);
    const bool last_tile = base + COMPACT_TILE >= p.n;
    if (threadIdx.x == 0 && last_tile && p.num_selected)
        *p.num_selected = before + selected;

    // Step 4.
    for (int q = 0; q < p.num_payloads; q++) {
        const compact_payload_desc &d = p.payloads[q];
        if (d.words == 1)
            move_selected<uint32_t>(d, base, before, selected, source);
        else if (d.words == 2)
            move_selected<uint2>(d, base, before, selected, source);
        else
            move_selected<uint4>(d, base, before, selected, source);
    }
}

// Zeroes the look-back words; it waits for the kernel before it like every
// dependent launch.
__global__ void compact_reset_kernel(uint64_t *states, unsigned num_states)
{
    kd_wait_prior();
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < num_states; i += stride)
        states[i] = 0;
}

template <class Select>
cudaError_t launch(const compact_params &p, cudaStream_t stream)
{
    return kd_launch_dependent(compact_kernel<Select>, compact_tiles(p.n), COMPACT_THREADS, 0, stream, p);
}

} // namespace

cudaError_t compact_launch(const compact_params &p, compact_form form, cudaStream_t stream)
{
    // One tile reads no predecessor's word, so it needs no reset.
    const unsigned tiles = compact_tiles(p.n);
    if (tiles > 1) {
        const unsigned wanted = kd_div_ceil_u32(tiles, 256);
        const unsigned blocks = wanted < KD_FILL_MAX_BLOCKS ? wanted : KD_FILL_MAX_BLOCKS;
        KD_TRY_CUDA(kd_launch_dependent(compact_reset_kernel, blocks, 256, 0, stream, p.states, tiles));
    }
    switch (form) {
    case COMPACT_FLAGGED: return launch<select_flagged>(p, stream);
    case COMPACT_NONZERO: return launch<select_if<COMPACT_NONZERO>>(p, stream);
    case COMPACT_LESS: return launch<select_if<COMPACT_LESS>>(p, stream);
    case COMPACT_AT_LEAST: return launch<select_if<COMPACT_AT_LEAST>>(p, stream);
    }
    return cudaErrorInvalidValue;
}
