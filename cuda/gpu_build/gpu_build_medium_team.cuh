// The teams that take a medium node (gpu_build_medium_node.cuh's steps are
// written once against them): on the device a warp, or the W warps of a
// block for a large node, each warp taking its own contiguous share of the
// node's references; in the host emulation one lane taking them all in
// order. A team gives its lanes and warps, votes and counts over them, the
// joins of its warps' parts, the node's scratch (bins, route, the ring of
// straddlers to clip) and where a clip keeps its polygons.
// Included by gpu_build_medium.cu only.
#ifndef KD_GPU_BUILD_MEDIUM_TEAM_CUH
#define KD_GPU_BUILD_MEDIUM_TEAM_CUH

#include "gpu_build_medium_node.cuh"

namespace kd_gb_medium {

// A node's scratch: its bins, the route its split takes, and the ring of
// straddlers waiting to be clipped (arena index, then per side keep << 31 |
// rank), which holds fewer than LANES between drains.
struct medium_scratch {
    uint32_t bins[6 * MED_MAX_BINS];
    medium_route route;
    uint4 ring[MED_RING];
};

// The host emulation's team: one lane, one warp; every vote and join is
// the lane's own value.
struct medium_serial_team {
    enum { LANES = 1, WARPS = 1 };
    medium_scratch *scratch;

    __host__ __device__ __forceinline__ uint32_t lane() const { return 0; }
    __host__ __device__ __forceinline__ uint32_t warp() const { return 0; }
    __host__ __device__ __forceinline__ int lead() const { return 1; }
    __host__ __device__ __forceinline__ void sync() const {}
    __host__ __device__ __forceinline__ int all(int p) const { return p; }
    __host__ __device__ __forceinline__ void sync_warp() const {}
    __host__ __device__ __forceinline__ uint32_t count(int p) const { return p ? 1u : 0u; }
    __host__ __device__ __forceinline__ uint32_t vote(int p, uint32_t *before) const
    {
        *before = 0;
        return p ? 1u : 0u;
    }
    template <typename T>
    __host__ __device__ __forceinline__ T load(const T *p) const
    {
        return *p;
    }
    __host__ __device__ __forceinline__ kd_gb_large_node load_node(const kd_gb_large_node *p) const { return *p; }
    __host__ __device__ __forceinline__ uint32_t *bins() const { return scratch->bins; }
    __host__ __device__ __forceinline__ medium_route &route() const { return scratch->route; }
    __host__ __device__ __forceinline__ uint4 *ring() const { return scratch->ring; }
    __host__ __device__ __forceinline__ void reduce_bounds(float *) const {}
    __host__ __device__ __forceinline__ void share_cut(int *, uint32_t *) const {}
    __host__ __device__ __forceinline__ void join_counts(uint32_t *, uint32_t *, uint32_t *) const {}
    __host__ __device__ __forceinline__ void join_child_bounds(float (*)[6], const int *) const {}
    __host__ __device__ __forceinline__ kd_gb_split_choice choose_sah(const kd_gb_choose_sah &f,
                                                                      const kd_gb_large_node &node,
                                                                      const float *t, const uint32_t *bins) const
    {
        return kd_gb_choose_sah_by(kd_gb_serial_team(), f, node, t, bins);
    }
    __host__ __device__ __forceinline__ void clip(const medium_args &g, const medium_route &r, uint32_t tri,
                                                  const float *box, float (*child)[6]) const
    {
        kd_gb_poly_call own;
        clip_both(g, r, tri, box, child, own);
    }
};

#if KD_DEVICE_CODE
// The block's scratch while its warps take one node together (W > 1):
// each warp's part of the bounds, counts and children's bounds, joined
// after a barrier.
struct team_shared {
    float bounds[MED_WARPS][6];
    float child[MED_WARPS][2][6];
    uint32_t counts[MED_WARPS][2];
    uint32_t first_child;
    int ok;
    uint32_t index; // the block's claim (medium_kernel)
};

// W warps of a block (1: this warp alone). SHARED_POLYGONS: a clip's
// polygons in the launch's dynamic shared memory, else the lane's own.
template <bool SHARED_POLYGONS, int W>
struct medium_device_team {
    enum { LANES = 32, WARPS = W };
    medium_scratch *warps; // a scratch per warp of the block
    team_shared *block;

    __device__ __forceinline__ uint32_t lane() const { return threadIdx.x & 31u; }
    __device__ __forceinline__ uint32_t warp() const { return W == 1 ? 0u : threadIdx.x >> 5; }
    __device__ __forceinline__ int lead() const { return lane() == 0 && warp() == 0; }
    // The node's bins and route are the team's (its first warp's scratch for
    // a block), the ring each warp's own.
    __device__ __forceinline__ medium_scratch &team_scratch() const
    {
        return W == 1 ? warps[threadIdx.x >> 5] : warps[0];
    }
    __device__ __forceinline__ uint32_t *bins() const { return team_scratch().bins; }
    __device__ __forceinline__ medium_route &route() const { return team_scratch().route; }
    __device__ __forceinline__ uint4 *ring() const { return warps[threadIdx.x >> 5].ring; }
    __device__ __forceinline__ void sync() const
    {
        if constexpr (W == 1)
            __syncwarp();
        else
            __syncthreads();
    }
    __device__ __forceinline__ int all(int p) const
    {
        if constexpr (W == 1) {
            __syncwarp();
            return __all_sync(0xffffffffu, p);
        } else {
            return __syncthreads_and(p);
        }
    }
    __device__ __forceinline__ void sync_warp() const { __syncwarp(); }
    // Over this warp's lanes: how many have p (vote: and, in *before, how
    // many of the lanes before this one).
    __device__ __forceinline__ uint32_t count(int p) const
    {
        return (uint32_t)__popc(__ballot_sync(0xffffffffu, p));
    }
    __device__ __forceinline__ uint32_t vote(int p, uint32_t *before) const
    {
        const unsigned votes = __ballot_sync(0xffffffffu, p);
        *before = (uint32_t)__popc(votes & ((1u << lane()) - 1u));
        return (uint32_t)__popc(votes);
    }
    // What other warps wrote during the launch goes through L2: an SM's L1
    // may hold a line of the arena from before another SM filled it.
    template <typename T>
    __device__ __forceinline__ T load(const T *p) const
    {
        return __ldcg(p);
    }
    __device__ __forceinline__ kd_gb_large_node load_node(const kd_gb_large_node *p) const
    {
        kd_gb_large_node node;
        const uint4 *src = reinterpret_cast<const uint4 *>(p);
        uint4 *dst = reinterpret_cast<uint4 *>(&node);
        for (int k = 0; k < (int)(sizeof node / sizeof(uint4)); k++)
            dst[k] = __ldcg(src + k);
        return node;
    }
    __device__ __forceinline__ void reduce_warp(float *t) const
    {
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) {
#pragma unroll
            for (int a = 0; a < 3; a++) {
                t[a] = fminf(t[a], __shfl_xor_sync(0xffffffffu, t[a], d));
                t[3 + a] = fmaxf(t[3 + a], __shfl_xor_sync(0xffffffffu, t[3 + a], d));
            }
        }
    }
    // The team's bounds from each lane's: across the warp, then its warps.
    __device__ __forceinline__ void reduce_bounds(float *t) const
    {
        reduce_warp(t);
        if constexpr (W > 1) {
            if (lane() == 0)
                for (int k = 0; k < 6; k++)
                    block->bounds[warp()][k] = t[k];
            __syncthreads();
            reset_bounds(t);
            for (int w = 0; w < W; w++)
                grow_bounds(t, block->bounds[w]);
        }
    }
    // The lead's empty-cut slot (and whether it got one) to every lane.
    __device__ __forceinline__ void share_cut(int *ok, uint32_t *first_child) const
    {
        if constexpr (W == 1) {
            *ok = __shfl_sync(0xffffffffu, *ok, 0);
            *first_child = __shfl_sync(0xffffffffu, *first_child, 0);
        } else {
            if (lead()) {
                block->ok = *ok;
                block->first_child = *first_child;
            }
            __syncthreads();
            *ok = block->ok;
            *first_child = block->first_child;
            __syncthreads();
        }
    }
    // The node's side counts from each warp's, and where this warp's ranks
    // on each side start (the counts of the warps before it).
    __device__ __forceinline__ void join_counts(uint32_t *num_left, uint32_t *num_right, uint32_t *rank) const
    {
        if constexpr (W > 1) {
            if (lane() == 0) {
                block->counts[warp()][0] = *num_left;
                block->counts[warp()][1] = *num_right;
            }
            __syncthreads();
            *num_left = *num_right = 0;
            for (uint32_t w = 0; w < (uint32_t)W; w++) {
                if (w == warp()) {
                    rank[0] = *num_left;
                    rank[1] = *num_right;
                }
                *num_left += block->counts[w][0];
                *num_right += block->counts[w][1];
            }
        }
    }
    // The large children's bounds (want[s]) from each lane's: across the
    // warp, then its warps, into the first warp's.
    __device__ __forceinline__ void join_child_bounds(float (*child_t)[6], const int *want) const
    {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            if (!want[s])
                continue;
            reduce_warp(child_t[s]);
            if constexpr (W > 1) {
                if (lane() == 0)
                    for (int k = 0; k < 6; k++)
                        block->child[warp()][s][k] = child_t[s][k];
            }
        }
        if constexpr (W > 1) {
            __syncthreads();
            if (warp() == 0) {
#pragma unroll
                for (int s = 0; s < 2; s++) {
                    reset_bounds(child_t[s]);
                    for (int w = 0; w < W; w++)
                        grow_bounds(child_t[s], block->child[w][s]);
                }
            }
        }
    }
    // Every warp chooses the same split from the team's bins.
    __device__ __forceinline__ kd_gb_split_choice choose_sah(const kd_gb_choose_sah &f,
                                                             const kd_gb_large_node &node, const float *t,
                                                             const uint32_t *bins) const
    {
        return kd_gb_choose_sah_by(kd_gb_warp_team(), f, node, t, bins);
    }
    __device__ __forceinline__ void clip(const medium_args &g, const medium_route &r, uint32_t tri,
                                         const float *box, float (*child)[6]) const
    {
        if constexpr (SHARED_POLYGONS) {
            extern __shared__ double medium_polygons[];
            kd_gb_poly_shared<MED_THREADS> poly = {medium_polygons + threadIdx.x};
            clip_both(g, r, tri, box, child, poly);
        } else {
            kd_gb_poly_call own;
            clip_both(g, r, tri, box, child, own);
        }
    }
};
#endif

} // namespace kd_gb_medium

#endif
