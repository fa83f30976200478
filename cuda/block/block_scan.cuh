// Block layer: exclusive scans across a thread block, built on the warp scan.
//
// Tiles are held "striped by vector": thread t's j-th vector holds the four
// consecutive elements starting at tile index (j * THREADS + t) * 4. Loading
// a vector per thread keeps every warp's 16-byte loads coalesced, and the
// scan order is (vector j, then thread, then element), which the tile scan
// below follows with one block scan of VECS chains at once.
#ifndef KD_BLOCK_SCAN_CUH
#define KD_BLOCK_SCAN_CUH

#include "sum_op.h"
#include "warp_scan.cuh"

template <int THREADS, int NUM, typename T>
struct kd_block_scan {
    static_assert(THREADS % KD_WARP_THREADS == 0, "whole warps only");
    static constexpr int WARPS = THREADS / KD_WARP_THREADS;

    struct storage {
        T warp_totals[NUM][WARPS];
    };

    // values[c]: this thread's value in chain c. On return values[c] is the
    // exclusive prefix over lower threads and totals[c] the chain's total
    // (the same in every thread). Contains one __syncthreads(); the caller
    // must synchronize before reusing `s`.
    template <typename Op>
    __device__ __forceinline__ static void exclusive_scan(T (&values)[NUM], T (&totals)[NUM],
                                                          T identity, Op op, storage &s)
    {
        const unsigned lane = kd_lane_id();
        const unsigned warp = threadIdx.x / KD_WARP_THREADS;
        T inclusive[NUM];
#pragma unroll
        for (int c = 0; c < NUM; c++)
            inclusive[c] = values[c];
        kd_warp_inclusive_scan<NUM>(inclusive, op);
        if (lane == KD_WARP_THREADS - 1) {
#pragma unroll
            for (int c = 0; c < NUM; c++)
                s.warp_totals[c][warp] = inclusive[c];
        }
        __syncthreads();
        // Every warp scans the (at most 32) warp totals itself, one per lane,
        // so each thread reads one shared word per chain.
        T warp_scan[NUM];
#pragma unroll
        for (int c = 0; c < NUM; c++)
            warp_scan[c] = lane < (unsigned)WARPS ? s.warp_totals[c][lane] : identity;
#pragma unroll
        for (unsigned delta = 1; delta < (unsigned)WARPS; delta *= 2) {
            T from_below[NUM];
#pragma unroll
            for (int c = 0; c < NUM; c++)
                from_below[c] = kd_shfl_up(warp_scan[c], delta);
            if (lane >= delta) {
#pragma unroll
                for (int c = 0; c < NUM; c++)
                    warp_scan[c] = op(from_below[c], warp_scan[c]);
            }
        }
#pragma unroll
        for (int c = 0; c < NUM; c++) {
            const T earlier_warps = kd_shfl_idx(warp_scan[c], warp == 0 ? 0 : (int)warp - 1);
            const T warp_prefix = warp == 0 ? identity : earlier_warps;
            totals[c] = kd_shfl_idx(warp_scan[c], WARPS - 1);
            T below = kd_shfl_up(inclusive[c], 1);
            values[c] = lane == 0 ? warp_prefix : op(warp_prefix, below);
        }
    }
};

// Tile-level step of a striped tile (see the top of this file): given each
// thread's per-vector sums, returns in vector_sums[j] the op-sum of every tile
// element before vector j of this thread, and the tile's aggregate as the
// result (in every thread). Kernels that only need per-vector prefixes (and
// redo the few in-vector steps themselves) keep fewer values in registers.
// One __syncthreads inside.
template <int THREADS, int VECS, typename T, typename Op>
__device__ __forceinline__ T kd_tile_vector_prefix(T (&vector_sums)[VECS], T identity, Op op,
                                                   typename kd_block_scan<THREADS, VECS, T>::storage &s)
{
    T totals[VECS];
    kd_block_scan<THREADS, VECS, T>::exclusive_scan(vector_sums, totals, identity, op, s);
    T before = identity; // everything in vectors j' < j, across all threads
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        vector_sums[j] = op(before, vector_sums[j]);
        before = op(before, totals[j]);
    }
    return before;
}

// Exclusive scan of a striped tile within the block: items[j][k] becomes the
// op-sum of every tile element before it. Returns the tile's aggregate (in
// every thread). One __syncthreads inside.
template <int THREADS, int VECS, typename T, typename Op>
__device__ __forceinline__ T kd_tile_exclusive_scan(T (&items)[VECS][4], T identity, Op op,
                                                    typename kd_block_scan<THREADS, VECS, T>::storage &s)
{
    T prefix[VECS];
#pragma unroll
    for (int j = 0; j < VECS; j++) {
        T running = items[j][0];
        items[j][0] = identity;
#pragma unroll
        for (int k = 1; k < 4; k++) {
            T next = op(running, items[j][k]);
            items[j][k] = running;
            running = next;
        }
        prefix[j] = running;
    }
    const T aggregate = kd_tile_vector_prefix<THREADS, VECS>(prefix, identity, op, s);
#pragma unroll
    for (int j = 0; j < VECS; j++)
#pragma unroll
        for (int k = 0; k < 4; k++)
            items[j][k] = op(prefix[j], items[j][k]);
    return aggregate;
}

#endif
