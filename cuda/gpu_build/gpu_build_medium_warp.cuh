// The medium-node stage on the device: a warp per node, or a block's warps
// per larger node (bounds by warp reductions, bins in shared memory, sides
// by ballots, straddlers clipped a warp at a time from a ring). Included by
// gpu_build_medium.cu only.
#ifndef KD_GPU_BUILD_MEDIUM_WARP_CUH
#define KD_GPU_BUILD_MEDIUM_WARP_CUH

#include "gpu_build_medium_node.cuh"

#if KD_DEVICE_CODE
namespace {

// ---- Device: a warp (or a block's warps) per node ------------------------------
// Reads of what other warps wrote during the launch go through L2 (__ldcg):
// an SM's L1 may hold a line of the arena from before another SM filled it.
__device__ __forceinline__ void load_box(const kd_gb_refs &refs, uint32_t i, float *box)
{
    for (int a = 0; a < 3; a++) {
        box[a] = __ldcg(refs.lo[a] + i);
        box[3 + a] = __ldcg(refs.hi[a] + i);
    }
}

struct warp_shared {
    uint32_t bins[6 * MED_MAX_BINS];
    medium_route route;
    uint4 ring[MED_RING];         // straddlers to clip: arena index, then per side keep << 31 | rank
};

// Folds a box into running bounds (t: lo xyz, hi xyz).
__device__ __forceinline__ void grow_bounds(float *t, const float *box)
{
#pragma unroll
    for (int a = 0; a < 3; a++) {
        t[a] = fminf(t[a], box[a]);
        t[3 + a] = fmaxf(t[3 + a], box[3 + a]);
    }
}

__device__ __forceinline__ void reset_bounds(float *t)
{
#pragma unroll
    for (int a = 0; a < 3; a++) {
        t[a] = INFINITY;
        t[3 + a] = -INFINITY;
    }
}

__device__ __forceinline__ void warp_bounds(float *t)
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

// A lane's references UNROLL at a time, their loads issued together.
enum { UNROLL = KD_GB_MED_UNROLL, STEP = 32 * UNROLL };

// f(box) for each of this lane's references of [first, first + n), their
// loads issued UNROLL at a time.
template <class F>
__device__ __forceinline__ void for_each_box(const medium_args &g, uint32_t first, uint32_t n, uint32_t lane,
                                             const F &f)
{
    for (uint32_t base = 0; base < n; base += STEP) {
        float box[UNROLL][6];
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (base + u * 32 + lane < n)
                load_box(g.refs, first + base + u * 32 + lane, box[u]);
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            if (base + u * 32 + lane < n)
                f(box[u]);
    }
}

// Clips and files the ring's jobs [head, head + count), a lane each (one
// clip for both copies of a straddler), and folds the clipped boxes into
// the lane's bounds of the large children.
template <bool SHARED_POLYGONS>
__device__ __forceinline__ void drain(const medium_args &g, const medium_route &route, const warp_shared &ws,
                                      uint32_t head, uint32_t count, uint32_t lane, float (*child_t)[6])
{
    if (lane < count) {
        const uint4 job = ws.ring[(head + lane) & (MED_RING - 1)];
        const uint32_t tri = __ldcg(g.refs.tri + job.x);
        float box[6], child[2][6];
        load_box(g.refs, job.x, box);
        // The polygons in the kernel's dynamic shared memory
        // (KD_GB_CLIP_SHARED_BYTES), or in the lane's own.
        if constexpr (SHARED_POLYGONS) {
            extern __shared__ double medium_polygons[];
            kd_gb_poly_shared<MED_THREADS> poly = {medium_polygons + threadIdx.x};
            clip_both(g, route, tri, box, child, poly);
        } else {
            kd_gb_poly_call own;
            clip_both(g, route, tri, box, child, own);
        }
#pragma unroll
        for (int s = 0; s < 2; s++) {
            const uint32_t word = s ? job.z : job.y;
            if (word >> 31) {
                put(g, route, s, word & 0x7fffffffu, tri, child[s]);
                grow_bounds(child_t[s], child[s]);
            }
        }
    }
}

// The block's scratch while its warps take one node together (W > 1):
// each warp's part of the bounds, counts and children's bounds, joined by
// every warp (or the first) after a barrier.
struct team_shared {
    float bounds[MED_WARPS][6];
    float child[MED_WARPS][2][6];
    uint32_t counts[MED_WARPS][2];
    uint32_t first_child;
    int ok;
    uint32_t index; // the block's claim (medium_kernel)
};

// A barrier for the node's warps, and their vote.
template <int W>
__device__ __forceinline__ void team_sync()
{
    if constexpr (W == 1)
        __syncwarp();
    else
        __syncthreads();
}

template <int W>
__device__ __forceinline__ int team_all(int p)
{
    if constexpr (W == 1) {
        __syncwarp();
        return __all_sync(0xffffffffu, p);
    } else {
        return __syncthreads_and(p);
    }
}

// Node `index` by W warps (1: this warp; MED_WARPS: the whole block, warp
// wi of them), each taking its own contiguous share of the references, in
// order, so that ranks on each side (the counts of the warps before, then
// ballots) keep the references in order as one warp would. The choice,
// bins and route are the team's: every warp chooses the same split from
// the same bins, and warp 0 commits it. big: a block-queue task (it counts
// itself out of med_big_live when done).
template <bool SHARED_POLYGONS, int W>
__device__ void process_node(const medium_args &g, warp_shared *shared, team_shared &team, uint32_t index,
                             uint32_t lane, uint32_t wi, int big)
{
    const unsigned all = 0xffffffffu;
    const unsigned lower = (1u << lane) - 1u;
    warp_shared &ws = shared[threadIdx.x >> 5];   // this warp's ring
    uint32_t *bins = W == 1 ? ws.bins : shared[0].bins;
    medium_route &route = W == 1 ? ws.route : shared[0].route;
    const int lead = lane == 0 && wi == 0;
    kd_gb_large_node node;
    {
        const uint4 *src = reinterpret_cast<const uint4 *>(g.tasks + index);
        uint4 *dst = reinterpret_cast<uint4 *>(&node);
        for (int k = 0; k < (int)(sizeof node / sizeof(uint4)); k++)
            dst[k] = __ldcg(src + k);
    }
    const uint32_t first = node.ref_start, n = node.ref_count;
    // This warp's share of the references: [mine, mine + my_n).
    const uint32_t share = W == 1 ? n : (n + 32u * W - 1u) / (32u * W) * 32u;
    const uint32_t my_at = wi * share < n ? wi * share : n;
    const uint32_t my_n = n - my_at < share ? n - my_at : share;
    const uint32_t mine = first + my_at;

    // Bounds (min and max are exact: any order gives the large stage's). A
    // node made here got them from its parent, which wrote its references.
    float t[6];
    if (index < g.num_initial) {
        reset_bounds(t);
        for_each_box(g, mine, my_n, lane, [&](const float *box) { grow_bounds(t, box); });
        warp_bounds(t);
        if constexpr (W > 1) {
            if (lane == 0)
                for (int k = 0; k < 6; k++)
                    team.bounds[wi][k] = t[k];
            __syncthreads();
            reset_bounds(t);
            for (int w = 0; w < W; w++)
                grow_bounds(t, team.bounds[w]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < 6; k++)
            t[k] = __ldcg(g.tight + 6 * (size_t)index + k);
    }

    // The split.
    kd_gb_split_choice c;
    if (g.use_sah) {
        const int num_bins = g.sah.num_bins;
        for (int j = (int)(wi * 32u + lane); j < 6 * num_bins; j += 32 * W)
            bins[j] = 0;
        team_sync<W>();
        int sane = 1;
        for_each_box(g, mine, my_n, lane, [&](const float *box) {
            kd_gb_bin_one(box, box + 3, t, num_bins, bins);
            sane &= box[0] <= box[3] && box[1] <= box[4] && box[2] <= box[5];
        });
        sane = team_all<W>(sane);
        c = kd_gb_choose_sah_by(kd_gb_warp_team(), g.sah, node, t, bins);
        // Empty cuts in a row, the references staying where they are (see
        // kd_gb_plan_empty_cut): the lead lane takes each cut's pool slots and
        // writes its records; every lane follows the node down to its large
        // child.
        uint32_t cuts = 0;
        for (int side; (side = kd_gb_empty_cut_side(c, t, sane)) >= 0; cuts++) {
            kd_gb_plan plan;
            if (!kd_gb_plan_empty_cut(g.pp, node, c, side, &plan))
                break;
            int ok = 1;
            uint32_t first_child = 0;
            if (lead) {
                first_child = take(g, &g.scalars->med_pool, 2, g.pool_capacity, &ok);
                if (ok)
                    write_empty_cut(g, node, c, side, first_child);
            }
            if constexpr (W == 1) {
                ok = __shfl_sync(all, ok, 0);
                first_child = __shfl_sync(all, first_child, 0);
            } else {
                if (lead) {
                    team.ok = ok;
                    team.first_child = first_child;
                }
                __syncthreads();
                ok = team.ok;
                first_child = team.first_child;
                __syncthreads();
            }
            if (!ok)
                break; // the normal path finds the pool full too, and stops
            node = empty_cut_child(node, plan, c, side, first_child);
            c = kd_gb_choose_sah_by(kd_gb_warp_team(), g.sah, node, t, bins);
        }
        if (lead && cuts)
            atomicAdd(&g.scalars->med_cuts, cuts);
    } else {
        c = g.median.choose(node, t);
    }

    // Sides: the split's counts (this warp's, then the team's, and the
    // warps' before this one, where its ranks start).
    uint32_t num_left = 0, num_right = 0;
    const int axis = c.axis < 0 ? 0 : c.axis;
    // The axis's arrays and bounds by selects (a runtime index would put
    // the struct, or the box, in local memory).
    const float *lo_axis = kd_gb_pick3(axis, g.refs.lo[0], g.refs.lo[1], g.refs.lo[2]);
    const float *hi_axis = kd_gb_pick3(axis, g.refs.hi[0], g.refs.hi[1], g.refs.hi[2]);
    if (c.axis < 0) {
        num_left = my_n;
    } else {
        for (uint32_t base = 0; base < my_n; base += STEP) {
            float lo[UNROLL], hi[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const uint32_t i = mine + base + u * 32 + lane;
                lo[u] = base + u * 32 + lane < my_n ? __ldcg(lo_axis + i) : INFINITY;
                hi[u] = base + u * 32 + lane < my_n ? __ldcg(hi_axis + i) : -INFINITY;
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const uint32_t side = kd_gb_side(lo[u], hi[u], c.pos); // 0 past the end
                num_left += (uint32_t)__popc(__ballot_sync(all, side & 1u));
                num_right += (uint32_t)__popc(__ballot_sync(all, side >> 1));
            }
        }
    }
    uint32_t rank[2] = {0, 0};
    if constexpr (W > 1) {
        if (lane == 0) {
            team.counts[wi][0] = num_left;
            team.counts[wi][1] = num_right;
        }
        __syncthreads();
        num_left = num_right = 0;
        for (uint32_t w = 0; w < (uint32_t)W; w++) {
            if (w == wi) {
                rank[0] = num_left;
                rank[1] = num_right;
            }
            num_left += team.counts[w][0];
            num_right += team.counts[w][1];
        }
    }

    if (lead)
        route = commit(g, node, c, num_left, num_right);
    team_sync<W>();
    const int ok = route.ok, leaf = route.plan.leaf;
    const uint32_t leaf_base = route.leaf_base;
    const uint32_t kind[2] = {route.dest_kind[0], route.dest_kind[1]};
    const uint32_t slot[2] = {route.slot[0], route.slot[1]};

    // Outputs, in reference order on each side; straddlers queue on the
    // warp's ring (both copies in one job, one clip) and are clipped 32 at a
    // time, so clipping lanes do not hold up the rest. Each lane keeps
    // bounds of what it files to the large children, which become theirs.
    uint32_t head = 0, tail = 0;
    float child_t[2][6];
    reset_bounds(child_t[0]);
    reset_bounds(child_t[1]);
    for (uint32_t base = 0; ok && base < my_n; base += STEP) {
        uint32_t tri[UNROLL];
        float box[UNROLL][6];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t i = mine + base + u * 32 + lane;
            if (base + u * 32 + lane < my_n) {
                tri[u] = __ldcg(g.refs.tri + i);
                if (!leaf)
                    load_box(g.refs, i, box[u]);
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t at = base + u * 32 + lane, i = mine + at;
            const int in = at < my_n;
            if (leaf) {
                if (in)
                    g.leaf_refs[leaf_base + my_at + at] = tri[u];
                continue;
            }
            const uint32_t side = in ? kd_gb_side(kd_gb_pick3(axis, box[u][0], box[u][1], box[u][2]),
                                                  kd_gb_pick3(axis, box[u][3], box[u][4], box[u][5]), c.pos)
                                     : 0u;
            const int straddles = side == KD_SIDE_BOTH;
            uint32_t keep_rank[2] = {0, 0}; // per side: keep << 31 | rank
#pragma unroll
            for (int s = 0; s < 2; s++) {
                const int want = (side >> s) & 1u;
                const unsigned goes = __ballot_sync(all, want);
                const uint32_t my_rank = rank[s] + (uint32_t)__popc(goes & lower);
                rank[s] += (uint32_t)__popc(goes);
                if (kind[s] == KD_GB_DEST_DROP)
                    continue;
                if (want && !straddles) {
                    put(g, route, s, my_rank, tri[u], box[u]);
                    grow_bounds(child_t[s], box[u]);
                }
                keep_rank[s] = (uint32_t)want << 31 | my_rank;
            }
            // A straddler is clipped once for both its copies.
            const int clip = straddles && ((keep_rank[0] | keep_rank[1]) >> 31);
            const unsigned clips = __ballot_sync(all, clip);
            if (clip)
                ws.ring[(tail + (uint32_t)__popc(clips & lower)) & (MED_RING - 1)] =
                    make_uint4(i, keep_rank[0], keep_rank[1], 0u);
            tail += (uint32_t)__popc(clips);
            __syncwarp();
            for (; tail - head >= 32; head += 32)
                drain<SHARED_POLYGONS>(g, route, ws, head, 32, lane, child_t);
            __syncwarp();
        }
    }
    if (ok && tail != head)
        drain<SHARED_POLYGONS>(g, route, ws, head, tail - head, lane, child_t);

    // The large children's bounds (the warps' joined by warp 0), then
    // publish them (their references and records are written: fence), then
    // count this node done.
#pragma unroll
    for (int s = 0; s < 2; s++) {
        if (!(ok && kind[s] == KD_GB_DEST_LARGE))
            continue;
        warp_bounds(child_t[s]);
        if constexpr (W > 1) {
            if (lane == 0)
                for (int k = 0; k < 6; k++)
                    team.child[wi][s][k] = child_t[s][k];
        }
    }
    if constexpr (W > 1) {
        __syncthreads();
        if (wi == 0) {
#pragma unroll
            for (int s = 0; s < 2; s++) {
                reset_bounds(child_t[s]);
                for (int w = 0; w < W; w++)
                    grow_bounds(child_t[s], team.child[w][s]);
            }
        }
    }
    if (lead) {
#pragma unroll
        for (int s = 0; s < 2; s++) {
            if (!(ok && kind[s] == KD_GB_DEST_LARGE))
                continue;
#pragma unroll
            for (int k = 0; k < 6; k++)
                g.tight[6 * (size_t)slot[s] + k] = child_t[s][k];
        }
    }
    // The team's writes are ordered before the lead's by the barrier, and
    // before the flags by the lead's fence.
    team_sync<W>();
    if (lead) {
        __threadfence();
        uint32_t made = 0, made_big = 0;
#pragma unroll
        for (int s = 0; s < 2; s++) {
            if (!(ok && kind[s] == KD_GB_DEST_LARGE))
                continue;
            if (!(g.block_refs && (s ? num_right : num_left) > g.block_refs)) {
                *(volatile uint32_t *)(g.ready + slot[s]) = MED_READY;
                made++;
                continue;
            }
            // Into the block queue (its place after the task is ready);
            // warps skip it. A place past the queue cannot be (a place per
            // task slot), but would leave the task unmade: dead, and the
            // run void.
            const uint32_t at = atomicAdd(&g.scalars->med_big_tail, 1u);
            if (at < g.task_capacity) {
                *(volatile uint32_t *)(g.ready + slot[s]) = MED_BIG;
                *(volatile uint32_t *)(g.big + at) = slot[s] + 1u;
                made++;
                made_big++;
            } else {
                g.scalars->med_overflow = 1;
                *(volatile uint32_t *)(g.ready + slot[s]) = MED_DEAD;
            }
        }
        // The block queue's count first: its tasks are among the live ones.
        if (big)
            atomicAdd(&g.scalars->med_big_done, 1u);
        if (made_big != (uint32_t)big)
            atomicAdd(&g.scalars->med_big_live, made_big - (uint32_t)big);
        const uint32_t delta = made - 1u; // wraps to -1 for none
        if (atomicAdd(&g.scalars->med_live, delta) + delta == 0u) {
            __threadfence();
            *(volatile uint32_t *)&g.scalars->med_done = 1u;
        }
    }
    team_sync<W>();
}

} // namespace
#endif

#endif
