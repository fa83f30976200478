// Stream compaction (compact.cu), one pass (compact_pass.cu). Each block
// takes a tile of the input and
//   1. finds which of its elements are selected: the flag bytes, or the
//      predicate of the loaded words (select-if);
//   2. ranks the selected ones inside the tile by a block scan of the flags;
//   3. learns how many earlier tiles selected by decoupled look-back on the
//      tile's count (lookback.cuh), the tile's offset in the output;
//   4. records in shared memory which tile element each of its output slots
//      takes, and moves every payload slot by slot: consecutive threads write
//      consecutive addresses and read their elements back from the tile.
// The flags and each payload are read once (step 4 reads what step 1 loaded
// or prefetched, from the caches) and only the selected elements are written:
// no pass stores flags, scanned offsets or the rejected elements.
#ifndef KD_COMPACT_INTERNAL_CUH
#define KD_COMPACT_INTERNAL_CUH

#include <stdint.h>

#include "kd_primitives.h"
#include "primitives_tuning.h"

#define COMPACT_THREADS KD_COMPACT_THREADS
#define COMPACT_VECS KD_COMPACT_VECS                        // 4-element vectors per thread
#define COMPACT_TILE (COMPACT_THREADS * COMPACT_VECS * 4)   // elements per tile
static_assert(COMPACT_TILE <= 65536, "tile positions are 16-bit");

// How a launch selects: by flag bytes, or by one of the predicates.
enum compact_form { COMPACT_FLAGGED = 0, COMPACT_NONZERO, COMPACT_LESS, COMPACT_AT_LEAST };

struct compact_payload_desc {
    const void *in;
    void *out;
    uint32_t words;     // element size in 32-bit words: 1, 2 or 4
};

struct compact_params {
    const uint8_t *flags;   // flagged form (nonzero selects)
    const uint32_t *keys;   // select-if form: the words tested (payload 0 too)
    uint32_t bound;         // select-if form: the predicate's constant
    size_t n;
    uint32_t vector_loads;  // flags 4-byte / keys 16-byte aligned: full tiles load vectors
    uint64_t *states;       // look-back words, one per tile
    uint32_t *num_selected; // may be NULL
    int num_payloads;
    compact_payload_desc payloads[KD_COMPACT_MAX_PAYLOADS];
};

// Tiles of an input of n elements.
static inline unsigned compact_tiles(size_t n)
{
    return (unsigned)((n + COMPACT_TILE - 1) / COMPACT_TILE);
}

// Resets the look-back words (when there are several tiles) and launches the
// pass (n > 0).
cudaError_t compact_launch(const compact_params &p, compact_form form, cudaStream_t stream);

#endif
