// Split-by-side, scatter pass (see split_internal.cuh): addresses from the
// count pass's tile prefixes plus an in-tile scan; payloads staged in shared
// memory in output order, so consecutive threads write consecutive addresses.
#include "split_internal.cuh"

#include "block_scan.cuh"
#include "temp_storage.cuh"

namespace {

struct scatter_shared {
    kd_block_scan<SPLIT_THREADS, SPLIT_VECS, uint32_t>::storage scan;
    uint32_t addr[2 * SPLIT_TILE];     // output address of each staged slot
    uint4 stage[SPLIT_STAGE_WORDS / 4]; // payload words of a chunk of slots
};

// Reads this thread's j-th vector of payload elements (WORDS words each).
template <int WORDS>
__device__ __forceinline__ void load_payload_vector(const split_payload_desc &d, size_t n, size_t first,
                                                    bool full_tile, uint32_t (&w)[4][WORDS])
{
    const uint32_t *in = static_cast<const uint32_t *>(d.in);
    if (full_tile && d.vector_in) {
        // 4 elements = WORDS 16-byte loads.
        const uint4 *src = reinterpret_cast<const uint4 *>(in + first * WORDS);
#pragma unroll
        for (int q = 0; q < WORDS; q++) {
            uint4 v = src[q];
            const uint32_t words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int c = 0; c < 4; c++)
                w[(q * 4 + c) / WORDS][(q * 4 + c) % WORDS] = words[c];
        }
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++)
#pragma unroll
            for (int c = 0; c < WORDS; c++)
                w[k][c] = first + k < n ? in[(first + k) * WORDS + c] : 0u;
    }
}

template <int WORDS>
__device__ __forceinline__ void store_slot(void *out, uint32_t addr, const uint4 *stage, unsigned q)
{
    if (WORDS == 1)
        static_cast<uint32_t *>(out)[addr] = reinterpret_cast<const uint32_t *>(stage)[q];
    else if (WORDS == 2)
        static_cast<uint2 *>(out)[addr] = reinterpret_cast<const uint2 *>(stage)[q];
    else
        static_cast<uint4 *>(out)[addr] = stage[q];
}

// Scatters one payload: stage chunks of the tile's output slots in shared
// memory, then write each chunk out in slot (= address) order.
template <int WORDS>
__device__ void scatter_payload(const split_payload_desc &d, size_t n, size_t tile_base, bool full_tile,
                                const uint32_t (&sides)[SPLIT_VECS][4], const uint32_t (&ranks)[SPLIT_VECS][4],
                                unsigned tile_outputs, scatter_shared &s)
{
    constexpr unsigned CHUNK = SPLIT_STAGE_WORDS / WORDS; // slots per round
    uint32_t *stage_words = reinterpret_cast<uint32_t *>(s.stage);
    // Wider payloads take several rounds and re-read their input (from
    // cache) each round rather than hold it all in registers.
    for (unsigned chunk_base = 0; chunk_base < tile_outputs; chunk_base += CHUNK) {
#pragma unroll
        for (int j = 0; j < SPLIT_VECS; j++) {
            uint32_t w[4][WORDS];
            load_payload_vector<WORDS>(d, n, tile_base + (size_t)(j * SPLIT_THREADS + threadIdx.x) * 4, full_tile,
                                       w);
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const unsigned left_slot = (ranks[j][k] & 0xffffu) - chunk_base;
                const unsigned right_slot = (ranks[j][k] >> 16) - chunk_base;
                if ((sides[j][k] & 1u) && left_slot < CHUNK)
#pragma unroll
                    for (int c = 0; c < WORDS; c++)
                        stage_words[left_slot * WORDS + c] = w[k][c];
                if ((sides[j][k] & 2u) && right_slot < CHUNK)
#pragma unroll
                    for (int c = 0; c < WORDS; c++)
                        stage_words[right_slot * WORDS + c] = w[k][c];
            }
        }
        __syncthreads();
        const unsigned count = min(CHUNK, tile_outputs - chunk_base);
        for (unsigned q = threadIdx.x; q < count; q += SPLIT_THREADS)
            store_slot<WORDS>(d.out, s.addr[chunk_base + q], s.stage, q);
        __syncthreads();
    }
}

// MAX_WORDS: the widest payload of the call, so that narrow payloads run in a
// kernel whose register count is not set by the 16-byte path.
template <bool SEGMENTED, int MAX_WORDS>
__global__ void __launch_bounds__(SPLIT_THREADS) split_scatter_kernel(split_params p)
{
    __shared__ scatter_shared s;
    const unsigned tile = blockIdx.x;
    const size_t tile_base = (size_t)tile * SPLIT_TILE;
    const bool full_tile = tile_base + SPLIT_TILE <= p.n;

    uint32_t sides[SPLIT_VECS][4], ids[SPLIT_VECS][4], counts[SPLIT_VECS][4];
    split_load_tile<SEGMENTED>(p, tile_base, full_tile, sides, ids);
#pragma unroll
    for (int j = 0; j < SPLIT_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            counts[j][k] = split_tile_count(sides[j][k]);
    const uint32_t aggregate =
        kd_tile_exclusive_scan<SPLIT_THREADS, SPLIT_VECS>(counts, 0u, kd_sum_op(), s.scan);
    const uint32_t tile_left = aggregate & 0xffffu, tile_right = aggregate >> 16;

    const uint64_t prefix = p.tile_prefix[tile];
    const uint32_t left0 = (uint32_t)prefix, right0 = (uint32_t)(prefix >> 32);
    uint32_t start_right = 0, end_left = 0;
    if (!SEGMENTED)
        end_left = (uint32_t)*p.totals;

    // Each output's slot in the tile = its rank by output address (the
    // tile's outputs sorted by address); its address goes to shared memory.
    uint32_t ranks[SPLIT_VECS][4];
#pragma unroll
    for (int j = 0; j < SPLIT_VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (SEGMENTED) {
                const uint32_t seg = min(ids[j][k], p.num_segments - 1);
                start_right = p.seg_start_right[seg];
                end_left = p.seg_end_left[seg];
            }
            const uint32_t l = counts[j][k] & 0xffffu, r = counts[j][k] >> 16;
            const uint32_t left_rank = l + max(start_right, right0) - right0;
            const uint32_t right_rank = min(end_left, left0 + tile_left) - left0 + r;
            ranks[j][k] = right_rank << 16 | left_rank;
            if (sides[j][k] & 1u)
                s.addr[left_rank] = left0 + l + start_right;
            if (sides[j][k] & 2u)
                s.addr[right_rank] = right0 + r + end_left;
        }
    // (The first staging round's barrier orders these address writes.)
    const unsigned tile_outputs = tile_left + tile_right;
    for (int q = 0; q < p.num_payloads; q++) {
        const split_payload_desc &d = p.payloads[q];
        if (d.words == 1 || MAX_WORDS == 1)
            scatter_payload<1>(d, p.n, tile_base, full_tile, sides, ranks, tile_outputs, s);
        else if (d.words == 2 || MAX_WORDS == 2)
            scatter_payload<(MAX_WORDS >= 2 ? 2 : 1)>(d, p.n, tile_base, full_tile, sides, ranks, tile_outputs, s);
        else
            scatter_payload<MAX_WORDS>(d, p.n, tile_base, full_tile, sides, ranks, tile_outputs, s);
    }
}

} // namespace

cudaError_t split_launch_scatter(const split_params &p, bool segmented, cudaStream_t stream)
{
    const unsigned num_tiles = kd_div_ceil_u32(p.n, SPLIT_TILE);
    uint32_t max_words = 1;
    for (int q = 0; q < p.num_payloads; q++)
        max_words = max(max_words, p.payloads[q].words);
    if (segmented) {
        if (max_words == 1)
            split_scatter_kernel<true, 1><<<num_tiles, SPLIT_THREADS, 0, stream>>>(p);
        else if (max_words == 2)
            split_scatter_kernel<true, 2><<<num_tiles, SPLIT_THREADS, 0, stream>>>(p);
        else
            split_scatter_kernel<true, 4><<<num_tiles, SPLIT_THREADS, 0, stream>>>(p);
    } else {
        if (max_words == 1)
            split_scatter_kernel<false, 1><<<num_tiles, SPLIT_THREADS, 0, stream>>>(p);
        else if (max_words == 2)
            split_scatter_kernel<false, 2><<<num_tiles, SPLIT_THREADS, 0, stream>>>(p);
        else
            split_scatter_kernel<false, 4><<<num_tiles, SPLIT_THREADS, 0, stream>>>(p);
    }
    KD_TRY_LAUNCH();
    return cudaSuccess;
}
