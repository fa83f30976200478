// LSB radix sort of (key, value) pairs (radix_sort.cu), 8 bits per pass.
// Each pass is a stable 256-way split, built like the classic three-kernel
// radix sort on a scan:
//   histogram (radix_sort_histogram.cu): each block counts the digits of its
//             contiguous chunk of tiles into table[digit * blocks + block];
//   scan:     the look-back scan of that table (digit-major, so its exclusive
//             sum is where each block's run of each digit starts);
//   scatter   (radix_sort_scatter.cu): each block walks its chunk tile by
//             tile, ranks keys stably within the tile (warp match by ballots
//             + per-warp digit counters), reorders them in shared memory and
//             writes each digit's run contiguously.
// A max reduction first finds the largest key; passes above its highest set
// bit return at once. The number of passes is only known on the device, so
// each pass picks its source and destination there, arranging that the last
// pass run writes the caller's output.
#ifndef KD_RADIX_SORT_INTERNAL_CUH
#define KD_RADIX_SORT_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#define SORT_RADIX_BITS 8
#define SORT_DIGITS 256
#define SORT_MAX_PASSES 4
#define SORT_THREADS 256 // one thread per digit in the per-digit steps
#define SORT_WARPS (SORT_THREADS / 32)
#define SORT_ITEMS 16    // keys per thread per tile
#define SORT_TILE (SORT_THREADS * SORT_ITEMS)

struct sort_buffers {
    const uint32_t *keys_in, *values_in;
    uint32_t *keys_out, *values_out;
    uint32_t *keys_alt, *values_alt; // ping-pong partner (NULL if unused)
    const uint32_t *max_key;         // device word written by the max reduction
    size_t n;
    size_t chunk;                    // keys per block (a multiple of SORT_TILE)
    unsigned num_blocks;
    bool keys_vector;                // every key buffer 16-byte aligned
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

__device__ __forceinline__ void sort_pass_buffers(const sort_buffers &b, int pass, int passes,
                                                  const uint32_t **src_keys, const uint32_t **src_values,
                                                  uint32_t **dst_keys, uint32_t **dst_values)
{
    const bool to_out = sort_pass_writes_output(pass, passes);
    *dst_keys = to_out ? b.keys_out : b.keys_alt;
    *dst_values = to_out ? b.values_out : b.values_alt;
    if (pass == 0) {
        *src_keys = b.keys_in;
        *src_values = b.values_in;
    } else {
        const bool prev_to_out = sort_pass_writes_output(pass - 1, passes);
        *src_keys = prev_to_out ? b.keys_out : b.keys_alt;
        *src_values = prev_to_out ? b.values_out : b.values_alt;
    }
}

cudaError_t sort_launch_max(const sort_buffers &b, uint32_t *d_max, cudaStream_t stream);
cudaError_t sort_launch_histogram(const sort_buffers &b, int pass, uint32_t *d_table, cudaStream_t stream);
cudaError_t sort_launch_scatter(const sort_buffers &b, int pass, const uint32_t *d_table_scanned,
                                cudaStream_t stream);
// Resident scatter blocks per multiprocessor (sizes the grid).
cudaError_t sort_scatter_blocks_per_sm(int *blocks);

#endif
