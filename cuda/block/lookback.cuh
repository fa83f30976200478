// Block layer: the tile status words of a single-pass chained scan with
// decoupled look-back (Merrill & Garland), shared by the scan, the segmented
// scan, split-by-side, the radix sort and the GPU builder's bookkeeping.
// Each tile publishes its aggregate as soon as it is known, then walks back
// over its predecessors' published words, 32 at a time, until it meets one
// that already holds an inclusive prefix.
//
// A tile's status and its value share one 64-bit word (lookback_word.h, with
// the codecs that pack each value type).
#ifndef KD_LOOKBACK_CUH
#define KD_LOOKBACK_CUH

#include <stddef.h>
#include <stdint.h>

#include "host_device.h"
#include "lookback_word.h"
#include "sum_op.h"

// Temporary bytes for the tile words of `num_tiles` tiles (host code too:
// callers size the words before any kernel runs).
static inline size_t kd_lookback_state_bytes(unsigned num_tiles)
{
    return (size_t)num_tiles * sizeof(uint64_t);
}

#if KD_DEVICE_CODE
#include "warp_reduce.cuh"

__device__ __forceinline__ uint64_t kd_load_relaxed_u64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void kd_store_relaxed_u64(uint64_t *p, uint64_t v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ uint32_t kd_load_relaxed_u32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void kd_store_relaxed_u32(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <typename Codec>
__device__ __forceinline__ void kd_lookback_publish(uint64_t *states, unsigned tile, unsigned status,
                                                    typename Codec::value_type value)
{
    kd_store_relaxed_u64(states + tile, Codec::pack(status, value));
}

// Called by all 32 lanes of one warp of tile `tile` (> 0) after it published
// its aggregate. Returns (in every lane) the op-sum of all earlier tiles.
template <typename Codec, typename Op>
__device__ typename Codec::value_type kd_lookback_exclusive(const uint64_t *states, unsigned tile, Op op)
{
    typedef typename Codec::value_type T;
    const int lane = (int)kd_lane_id();
    T exclusive = Codec::identity();
    long long window = (long long)tile - 1; // lane 0 reads the nearest predecessor
    for (;;) {
        const long long pred = window - lane;
        // Before tile 0 there is nothing: a virtual inclusive identity.
        uint64_t word = pred >= 0 ? kd_load_relaxed_u64(states + pred)
                                  : Codec::pack(KD_TILE_INCLUSIVE, Codec::identity());
        while (__any_sync(KD_FULL_MASK, kd_tile_status(word) == KD_TILE_INVALID)) {
            if (kd_tile_status(word) == KD_TILE_INVALID)
                word = kd_load_relaxed_u64(states + pred);
        }
        const unsigned inclusive_lanes = __ballot_sync(KD_FULL_MASK, kd_tile_status(word) == KD_TILE_INCLUSIVE);
        // Stop at the nearest inclusive predecessor; farther lanes add nothing.
        const int stop = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : KD_WARP_THREADS - 1;
        const T value = lane <= stop ? Codec::unpack(word) : Codec::identity();
        exclusive = op(kd_warp_reduce_reversed(value, op), exclusive);
        if (inclusive_lanes)
            return exclusive;
        window -= KD_WARP_THREADS;
    }
}

// The whole look-back step of a tile, run by warp 0 of the block: publish the
// aggregate, look back, publish the inclusive prefix. Returns the exclusive
// prefix in every lane of warp 0.
template <typename Codec, typename Op>
__device__ __forceinline__ typename Codec::value_type
kd_lookback_tile(uint64_t *states, unsigned tile, typename Codec::value_type aggregate, Op op)
{
    typedef typename Codec::value_type T;
    const unsigned lane = kd_lane_id();
    if (tile == 0) {
        if (lane == 0)
            kd_lookback_publish<Codec>(states, 0, KD_TILE_INCLUSIVE, aggregate);
        return Codec::identity();
    }
    if (lane == 0)
        kd_lookback_publish<Codec>(states, tile, KD_TILE_AGGREGATE, aggregate);
    T exclusive = kd_lookback_exclusive<Codec>(states, tile, op);
    if (lane == 0)
        kd_lookback_publish<Codec>(states, tile, KD_TILE_INCLUSIVE, op(exclusive, aggregate));
    return exclusive;
}

// The look-back step for a whole block: warp 0 looks back, and the exclusive
// prefix reaches every thread through s_prefix (a __shared__ variable of the
// block). It holds a barrier: every thread of the block calls it.
template <typename Codec, typename Op>
__device__ __forceinline__ typename Codec::value_type
kd_lookback_block(uint64_t *states, unsigned tile, typename Codec::value_type aggregate, Op op,
                  typename Codec::value_type &s_prefix)
{
    if (threadIdx.x < KD_WARP_THREADS) {
        const typename Codec::value_type prefix = kd_lookback_tile<Codec>(states, tile, aggregate, op);
        if (threadIdx.x == 0)
            s_prefix = prefix;
    }
    __syncthreads();
    return s_prefix;
}

// Resets the tile words (all INVALID) before a pass.
//
// Tiles are taken in blockIdx order, as CUB does: blocks are dispatched in
// index order, so every predecessor a block waits on is already resident or
// finished, and the look-back always ends.
static __global__ void kd_lookback_init_kernel(uint64_t *states, unsigned num_tiles)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < num_tiles)
        states[i] = 0;
}
#endif // KD_DEVICE_CODE

#endif
