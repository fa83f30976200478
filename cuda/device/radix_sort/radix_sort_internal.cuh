// LSB radix sort of (key, value) pairs (radix_sort.cu), 8 bits per pass; each
// pass is a stable 256-way split of the keys by one digit. Two designs:
//
// Single pass per digit (default; radix_sort_onesweep.cu, after Onesweep):
//   one read of the keys counts the digits of all passes and finds the
//   largest key; per pass ONE kernel, tiles in blockIdx order, each tile
//   ranking its keys (radix_sort_rank.cuh), publishing its digit counts and
//   looking back over earlier tiles for each digit's prefix.
// Classic, built on the scan (radix_sort_histogram.cu, radix_sort_scatter.cu):
//   histogram: each block counts the digits of its contiguous chunk of tiles
//              into table[digit * blocks + block];
//   scan:      the look-back scan of that table (digit-major, so its exclusive
//              sum is where each block's run of each digit starts);
//   scatter:   each block walks its chunk tile by tile (the next tile copied in
//              asynchronously), ranks, reorders in shared memory and writes
//              each digit's run contiguously.
// Either way a max reduction over the keys comes first; passes above the
// largest key's highest set bit return at once. The number of passes is only
// known on the device, so each pass picks its source and destination there,
// arranging that the last pass run writes the caller's output.
#ifndef KD_RADIX_SORT_INTERNAL_CUH
#define KD_RADIX_SORT_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "primitives_tuning.h"

#define SORT_RADIX_BITS 8
#define SORT_DIGITS 256
#define SORT_MAX_PASSES 4
#define SORT_THREADS 256 // one thread per digit in the per-digit steps
#define SORT_WARPS (SORT_THREADS / 32)
#define SORT_ITEMS KD_SORT_ITEMS // keys per thread per tile
#define SORT_TILE (SORT_THREADS * SORT_ITEMS)

struct sort_buffers {
    const uint32_t *keys_in, *values_in;
    uint32_t *keys_out, *values_out;
    uint32_t *keys_alt, *values_alt; // ping-pong partner (NULL if unused)
    const uint32_t *max_key;         // device word written by the max reduction
    size_t n;
    size_t chunk;                    // keys per block (a multiple of SORT_TILE)
    unsigned num_blocks;
    bool keys_vector;                // every key and value buffer 16-byte aligned
};

// Passes needed for keys up to max_key (at least one, so the output is written).
__device__ __forceinline__ int sort_num_passes(uint32_t max_key)
{
    const int bits = max_key ? 32 - __clz(max_key) : 0;
    const int passes = (bits + SORT_RADIX_BITS - 1) / SORT_RADIX_BITS;
    return passes > 0 ? passes : 1;
}

// Pass `pass` of `passes` writes the output if an even number of passes
// follow it, else the alternate buffer; it reads where the previous one wrote.
__device__ __forceinline__ bool sort_pass_writes_output(int pass, int passes)
{
    return ((passes - 1 - pass) & 1) == 0;
}

// Pass `pass`: where it reads and writes, and its digit's shift.
struct sort_pass {
    const uint32_t *src_keys, *src_values;
    uint32_t *dst_keys, *dst_values;
    int shift;
};

// False where the pass lies above the largest key's top bit (the kernel then
// returns at once: the host launches every pass without reading the key back).
__device__ __forceinline__ bool sort_pass_begin(const sort_buffers &b, int pass, sort_pass *p)
{
    const int passes = sort_num_passes(*b.max_key);
    if (pass >= passes)
        return false;
    const bool to_out = sort_pass_writes_output(pass, passes);
    p->dst_keys = to_out ? b.keys_out : b.keys_alt;
    p->dst_values = to_out ? b.values_out : b.values_alt;
    if (pass == 0) {
        p->src_keys = b.keys_in;
        p->src_values = b.values_in;
    } else {
        const bool prev_to_out = sort_pass_writes_output(pass - 1, passes);
        p->src_keys = prev_to_out ? b.keys_out : b.keys_alt;
        p->src_values = prev_to_out ? b.values_out : b.values_alt;
    }
    p->shift = pass * SORT_RADIX_BITS;
    return true;
}

cudaError_t sort_launch_max(const sort_buffers &b, uint32_t *d_max, cudaStream_t stream);
cudaError_t sort_launch_histogram(const sort_buffers &b, int pass, uint32_t *d_table, cudaStream_t stream);
// Classic scatter (radix_sort_scatter.cu); match_any picks the warp match.
cudaError_t sort_launch_scatter(bool match_any, const sort_buffers &b, int pass, const uint32_t *d_table_scanned,
                                cudaStream_t stream);
// Resident scatter blocks per multiprocessor (sizes the classic grid).
cudaError_t sort_scatter_blocks_per_sm(bool match_any, int *blocks);

// Single-pass variant (radix_sort_onesweep.cu), for n < 2^30: d_hist (4 x 256
// counts) and b.max_key, and the look-back words (sort_onesweep_state_bytes)
// must be zero; d_bases receives 4 x 256 digit bases.
size_t sort_onesweep_state_bytes(size_t n);
cudaError_t sort_launch_onesweep(bool match_any, const sort_buffers &b, uint32_t *d_hist, uint32_t *d_bases,
                                 uint32_t *d_states, cudaStream_t stream);

// The sort's variants (kd_radix_sort_pairs_u32 uses the default):
//   0 single pass per digit (Onesweep-like), ballot match;  1 the same, match.any;
//   2 classic histogram + scan + scatter, ballot match;      3 the same, match.any.
// Variants 0 and 1 fall back to 2 when n >= 2^30 (their look-back words
// hold 30-bit counts).
enum { KD_RADIX_SORT_NUM_CONFIGS = 4, KD_RADIX_SORT_DEFAULT_CONFIG = 0 };
const char *kd_radix_sort_config_name(int config);
cudaError_t kd_radix_sort_run(int config, void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                              uint32_t *d_keys_out, const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                              cudaStream_t stream);

#endif
