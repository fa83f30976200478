// Split-by-side (split_by_side.cu), shared by its passes:
//   count pass   (split_count.cu): per-tile numbers of left- and right-going
//                elements and their running prefix by decoupled look-back;
//                with several segments also each segment's start and end
//                prefixes and its counts;
//   scatter pass (split_scatter.cu): each element's addresses from that
//                prefix and an in-tile scan; each output slot of the tile
//                then gathers its element, so global writes are coalesced.
// Addresses (thesis, extended to "both" and to segments): with Lx[i] / Rx[i]
// the numbers of left- / right-going elements before i over the whole input,
// an element of segment s goes left to Lx[i] + Rx[start(s)] and right to
// Rx[i] + Lx[end(s)]. One segment: Rx[start] = 0 and Lx[end] = all lefts.
// The two counts travel as one 64-bit scan value (right << 32 | left).
#ifndef KD_SPLIT_INTERNAL_CUH
#define KD_SPLIT_INTERNAL_CUH

#include <stdint.h>

#include "block_load_store.cuh"
#include "kd_primitives.h"
#include "launch.cuh"
#include "lookback.cuh"
#include "primitives_tuning.h"
#include "split_counts.h"

#define SPLIT_THREADS KD_SPLIT_THREADS
#define SPLIT_VECS KD_SPLIT_VECS                      // 4-element vectors per thread
#define SPLIT_TILE (SPLIT_THREADS * SPLIT_VECS * 4)   // elements per scatter tile
#define SPLIT_COUNT_WARPS (SPLIT_THREADS / 32)        // one-segment count pass:
#define SPLIT_COUNT_TILE (SPLIT_TILE * SPLIT_COUNT_WARPS) // a warp counts a scatter tile
#define SPLIT_MAX_OUTPUTS (2 * SPLIT_TILE)            // a tile's outputs when all are "both"

struct split_payload_desc {
    const void *in;
    void *out;
    uint32_t words;     // payload size in 32-bit words: 1, 2 or 4
};

// Vectors per thread of a scatter tile: SPLIT_VECS, or with segments and
// fewer elements (the builder's levels) fewer, so that the tiles still give
// the GPU a few blocks per SM.
static inline int split_vecs(size_t n, bool segmented)
{
    return !segmented || n >= (size_t)KD_SPLIT_TWO_VECS_BELOW ? SPLIT_VECS
           : n >= (size_t)KD_SPLIT_ONE_VEC_BELOW              ? 2
                                                               : 1;
}

static inline unsigned split_tile_elems(int vecs)
{
    return (unsigned)(SPLIT_THREADS * vecs * 4);
}

struct split_params {
    const uint32_t *ids;        // NULL with one segment (never read then)
    const uint8_t *sides;
    size_t n;
    uint32_t num_segments;
    uint32_t sides_vector;      // sides 16-byte aligned
    uint32_t ids_vector;        // ids 16-byte aligned
    uint64_t *states;           // look-back words, one per counted tile
    uint64_t *tile_prefix;      // per scatter tile: (right << 32 | left) before it
    uint64_t *totals;           // whole input's (right << 32 | left)
    uint32_t *seg_start_right;  // per segment: Rx at its first element
    uint32_t *seg_end_left;     // per segment: Lx after its last element
    uint32_t *left_counts;
    uint32_t *right_counts;
    uint32_t *out_total;
    int num_payloads;
    split_payload_desc payloads[KD_SPLIT_MAX_PAYLOADS];
};

// Loads a scatter tile's sides (four per word, one word per vector) and, with
// segments, its ids, striped by vector (block_load_store.cuh). Past the end:
// side 0 (goes nowhere) and the last id.
template <bool SEGMENTED, int VECS>
__device__ __forceinline__ void split_load_tile(const split_params &p, size_t tile_base, bool full_tile,
                                                uint32_t (&side_words)[VECS], uint32_t (&ids)[VECS][4])
{
    kd_block_load_striped_bytes<SPLIT_THREADS, VECS>(p.sides, tile_base, p.n, full_tile && p.sides_vector,
                                                     side_words);
    if (SEGMENTED)
        kd_block_load_striped<SPLIT_THREADS, VECS>(p.ids, tile_base, p.n, full_tile && p.ids_vector, ids,
                                                   kd_fill_last<uint32_t>{p.ids, p.n});
}

// Kernel launches of the two passes (n > 0; `segmented` = more than one
// segment; `vecs` from split_vecs).
cudaError_t split_launch_count(const split_params &p, bool segmented, int vecs, cudaStream_t stream);
cudaError_t split_launch_scatter(const split_params &p, bool segmented, int vecs, cudaStream_t stream);

#endif
