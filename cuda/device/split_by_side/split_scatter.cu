// Split-by-side, scatter pass (see split_internal.cuh): addresses from the
// count pass's tile prefixes plus an in-tile scan. The tile's outputs, sorted
// by address, are its "slots"; shared memory records which element each slot
// takes, and each payload is then moved slot by slot: consecutive threads
// write consecutive addresses, and read nearby elements of the tile (cached).
#include "split_internal.cuh"

#include "block_scan.cuh"
#include "temp_storage.cuh"

namespace {

// Dynamic shared memory: the scan's storage, each slot's element (position in
// the tile), and with segments each slot's output address. A tile of VECS
// vectors per thread has at most twice its elements as outputs.
template <int VECS>
struct scatter_smem {
    typedef typename kd_block_scan<SPLIT_THREADS, VECS, uint32_t>::storage scan_storage;
    static constexpr size_t MAX_OUTPUTS = 2 * (size_t)SPLIT_THREADS * VECS * 4;
    static constexpr size_t SCAN_BYTES = (sizeof(scan_storage) + 15) / 16 * 16;
    static constexpr size_t SOURCE_BYTES = MAX_OUTPUTS * sizeof(uint16_t);
    static constexpr size_t ADDR_BYTES = MAX_OUTPUTS * sizeof(uint32_t);
};
static_assert(scatter_smem<SPLIT_VECS>::MAX_OUTPUTS == SPLIT_MAX_OUTPUTS, "largest tile");

extern __shared__ uint4 split_dynamic_smem[];

// What every thread knows about its tile once the slots are assigned.
struct scatter_tile {
    size_t base;
    uint32_t outputs;       // slots: the tile's lefts + rights
    uint32_t tile_left;     // how many of them are lefts
    uint32_t left0, right0; // Lx, Rx at the tile's start
    uint32_t end_left;      // one segment: Lx after the last element
};

// Output address of slot q. With one segment the tile's outputs are its
// lefts then its rights, each a contiguous run; with several, the address was
// recorded in shared memory.
template <bool SEGMENTED>
__device__ __forceinline__ uint32_t slot_address(const scatter_tile &tile, const uint32_t *addr, uint32_t q)
{
    if (SEGMENTED)
        return addr[q];
    return q < tile.tile_left ? tile.left0 + q : tile.right0 + (q - tile.tile_left) + tile.end_left;
}

template <bool SEGMENTED, typename W>
__device__ __forceinline__ void move_payload(const split_payload_desc &d, const scatter_tile &tile,
                                             const uint16_t *source, const uint32_t *addr)
{
    const W *in = static_cast<const W *>(d.in) + tile.base;
    W *out = static_cast<W *>(d.out);
    for (uint32_t q = threadIdx.x; q < tile.outputs; q += SPLIT_THREADS)
        out[slot_address<SEGMENTED>(tile, addr, q)] = __ldg(in + source[q]);
}

template <bool SEGMENTED, int VECS>
__global__ void __launch_bounds__(SPLIT_THREADS) split_scatter_kernel(split_params p)
{
    typedef scatter_smem<VECS> layout;
    const unsigned tile_elems = SPLIT_THREADS * VECS * 4;
    kd_wait_prior();
    char *smem = reinterpret_cast<char *>(split_dynamic_smem);
    typename layout::scan_storage &scan = *reinterpret_cast<typename layout::scan_storage *>(smem);
    uint16_t *source = reinterpret_cast<uint16_t *>(smem + layout::SCAN_BYTES);
    uint32_t *addr = reinterpret_cast<uint32_t *>(smem + layout::SCAN_BYTES + layout::SOURCE_BYTES);

    scatter_tile tile;
    tile.base = (size_t)blockIdx.x * tile_elems;
    const bool full_tile = tile.base + tile_elems <= p.n;

    // Start bringing the first payload's tile into L2 while the sides are
    // loaded and scanned.
    if (p.num_payloads > 0) {
        const char *first = static_cast<const char *>(p.payloads[0].in) + tile.base * p.payloads[0].words * 4;
        const size_t bytes = (size_t)min((size_t)tile_elems, p.n - tile.base) * p.payloads[0].words * 4;
        for (size_t b = (size_t)threadIdx.x * 128; b < bytes; b += SPLIT_THREADS * 128)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(first + b));
    }

    uint32_t side_words[VECS], ids[VECS][4], counts[VECS][4];
    split_load_tile<SEGMENTED, VECS>(p, tile.base, full_tile, side_words, ids);
#pragma unroll
    for (int j = 0; j < VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            counts[j][k] = split_tile_count(split_side(side_words[j], k));
    const uint32_t aggregate = kd_tile_exclusive_scan<SPLIT_THREADS, VECS>(counts, 0u, kd_sum_op(), scan);
    tile.tile_left = aggregate & 0xffffu;
    tile.outputs = tile.tile_left + (aggregate >> 16);

    const uint64_t prefix = p.tile_prefix[blockIdx.x];
    tile.left0 = (uint32_t)prefix;
    tile.right0 = (uint32_t)(prefix >> 32);
    tile.end_left = SEGMENTED ? 0u : (uint32_t)*p.totals;
    uint32_t start_right = 0, end_left = tile.end_left;

    // Each output's slot = its rank by output address among the tile's
    // outputs (see split_internal.cuh for the address formulas).
#pragma unroll
    for (int j = 0; j < VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const uint32_t side = split_side(side_words[j], k);
            if (SEGMENTED) {
                const uint32_t seg = min(ids[j][k], p.num_segments - 1);
                start_right = p.seg_start_right[seg];
                end_left = p.seg_end_left[seg];
            }
            const uint32_t l = counts[j][k] & 0xffffu, r = counts[j][k] >> 16;
            const uint16_t position = (uint16_t)((j * SPLIT_THREADS + threadIdx.x) * 4 + k);
            if (side & 1u) {
                const uint32_t slot = l + max(start_right, tile.right0) - tile.right0;
                source[slot] = position;
                if (SEGMENTED)
                    addr[slot] = tile.left0 + l + start_right;
            }
            if (side & 2u) {
                const uint32_t slot = min(end_left, tile.left0 + tile.tile_left) - tile.left0 + r;
                source[slot] = position;
                if (SEGMENTED)
                    addr[slot] = tile.right0 + r + end_left;
            }
        }
    __syncthreads();

    for (int q = 0; q < p.num_payloads; q++) {
        const split_payload_desc &d = p.payloads[q];
        if (d.words == 1)
            move_payload<SEGMENTED, uint32_t>(d, tile, source, addr);
        else if (d.words == 2)
            move_payload<SEGMENTED, uint2>(d, tile, source, addr);
        else
            move_payload<SEGMENTED, uint4>(d, tile, source, addr);
    }
}

template <bool SEGMENTED, int VECS>
cudaError_t launch(const split_params &p, cudaStream_t stream)
{
    typedef scatter_smem<VECS> layout;
    const size_t smem = layout::SCAN_BYTES + layout::SOURCE_BYTES + (SEGMENTED ? layout::ADDR_BYTES : 0);
    KD_TRY_CUDA(cudaFuncSetAttribute(split_scatter_kernel<SEGMENTED, VECS>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    return kd_launch_dependent(split_scatter_kernel<SEGMENTED, VECS>, kd_div_ceil_u32(p.n, split_tile_elems(VECS)),
                               SPLIT_THREADS, smem, stream, p);
}

} // namespace

cudaError_t split_launch_scatter(const split_params &p, bool segmented, int vecs, cudaStream_t stream)
{
    if (!segmented)
        return launch<false, SPLIT_VECS>(p, stream);
    return vecs == 1 ? launch<true, 1>(p, stream) : vecs == 2 ? launch<true, 2>(p, stream)
                                                              : launch<true, SPLIT_VECS>(p, stream);
}
