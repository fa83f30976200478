// The medium-node stage. Deep in the large stage a level has hundreds of
// nodes of a few hundred to a few thousand references, and each level still
// costs a chain of a dozen launches and a host round trip whose time is
// latency, not work. Once a level has medium_min_nodes nodes, this stage
// takes all of them and carries each one's subtree down to small roots
// without the host: a warp per node, in one launch. A warp takes a node from
// a queue, and does what a large level does to it (bounds, binned SAH or
// median split, sides, plan, straddlers clipped to each child) with warp
// reductions, ballots and shared-memory bins; then it files the children:
// large ones back into the queue, small ones as small roots, empty ones as
// empty leaves. Per node the arithmetic is the large stage's own (the same
// choice functions and plan, exact min/max and integer bins, references
// kept in order on each side), so the tree is the one the large stage would
// have built; only the order of slots differs, and the output stage orders
// nodes by tree structure.
//
// References and nodes are appended to growable arrays (the level's own
// first). An array found too small sets a flag; the host grows it and runs
// the stage again from the level, which it leaves untouched.
#include <stdlib.h>
#include <string.h>

#include "gpu_build_large_split.cuh"

namespace {

// Blocks of the medium kernel per SM it is built for (1: the registers it
// wants, about 216; 2: 128, with spills).
#ifndef KD_GB_MED_MIN_BLOCKS
#define KD_GB_MED_MIN_BLOCKS 1
#endif

// Sizes the device kernel is built for.
enum { MED_READY = 1, MED_DEAD = 2 };
// The ring holds fewer than 32 straddlers between drains, and a step adds
// at most 32.
enum { MED_THREADS = 256, MED_WARPS = MED_THREADS / 32, MED_MAX_BINS = 128, MED_RING = 64 };

struct medium_args {
    kd_gb_refs refs;              // the arena: the level's references, then the medium nodes'
    kd_gb_large_node *tasks;      // the level's nodes, then the large children made here
    uint32_t *ready;              // per task: MED_READY once its record and references are written,
                                  // MED_DEAD if it never will be (an array overflowed)
    float *tight;                 // per task made here: its references' bounds (6 floats)
    uint32_t num_initial;         // tasks [0, num_initial) are the level's nodes
    kd_gb_refs small;             // small roots' references
    kd_gb_small_root *roots;
    kd_gb_pool_node *pool;
    uint32_t *leaf_refs;
    const float *tri_verts;
    uint32_t task_capacity, ref_capacity, small_ref_capacity, root_capacity, pool_capacity,
        leaf_ref_capacity;
    kd_gb_plan_params pp;
    kd_gb_choose_sah sah;         // only the per-node choice is used
    kd_gb_choose_median median;
    int use_sah;
    kd_gb_scalars *scalars;
};

// What a node's split makes: its plan, and where each side's outputs go
// (the arena for a large child, the small references for a small root).
struct medium_route {
    kd_gb_plan plan;
    kd_gb_split_choice c;
    int ok;                       // 0: an array was too small; nothing more is written
    uint32_t leaf_base;           // a leaf's references
    uint32_t dest_kind[2];
    uint32_t dest_base[2];
    uint32_t slot[2];             // a large child's task
    float child_cell[2][6];
};

// n slots from *counter, within capacity; else the overflow flag.
KD_GB_HD uint32_t take(const medium_args &g, uint32_t *counter, uint32_t n, uint32_t capacity, int *ok)
{
    const uint32_t at = kd_gb_atomic_add(counter, n);
    if (at > capacity || capacity - at < n) {
        g.scalars->med_overflow = 1;
        *ok = 0;
    }
    return at;
}

// A small root with the fields of a node (the two records match, but for
// where ref_start points: the small references here).
KD_GB_HD kd_gb_small_root kd_gb_small_root_of(const kd_gb_large_node &n)
{
    kd_gb_small_root r;
    for (int j = 0; j < 6; j++)
        r.cell[j] = n.cell[j];
    r.ref_start = n.ref_start;
    r.ref_count = n.ref_count;
    r.pool_id = n.pool_id;
    r.parent = n.parent;
    r.depth = n.depth;
    r.bad_refines = n.bad_refines;
    r.allowance = n.allowance;
    return r;
}

// Plans the node from its split's counts, takes the slots its outcome needs
// and writes its records (and its children's, but for their references).
KD_GB_HD medium_route commit(const medium_args &g, const kd_gb_large_node &node, kd_gb_split_choice c,
                             uint32_t num_left, uint32_t num_right)
{
    kd_gb_scalars *sc = g.scalars;
    medium_route r;
    r.c = c;
    r.plan = kd_gb_plan_node(node, c, num_left, num_right, g.pp);
    r.ok = 1;
    r.leaf_base = KD_GB_NONE;
    for (int side = 0; side < 2; side++) {
        r.dest_kind[side] = KD_GB_DEST_DROP;
        r.dest_base[side] = 0;
        r.slot[side] = KD_GB_NONE;
        kd_gb_child_cell(node.cell, c.axis < 0 ? 0 : c.axis, c.pos, side, r.child_cell[side]);
    }
    if (r.plan.leaf) {
        r.leaf_base = take(g, &sc->med_leaf_refs, node.ref_count, g.leaf_ref_capacity, &r.ok);
        if (r.ok)
            g.pool[node.pool_id] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, r.leaf_base,
                                                     node.ref_count, 0, node.parent, node.depth);
        return r;
    }
    const uint32_t first_child = take(g, &sc->med_pool, 2, g.pool_capacity, &r.ok);
    uint32_t root[2] = {KD_GB_NONE, KD_GB_NONE};
    for (int side = 0; side < 2; side++) {
        const uint32_t count = side ? num_right : num_left;
        const uint32_t kind = r.plan.child_kind[side];
        if (kind == KD_GB_DEST_LARGE) {
            r.dest_base[side] = take(g, &sc->med_refs, count, g.ref_capacity, &r.ok);
            r.slot[side] = take(g, &sc->med_tail, 1, g.task_capacity, &r.ok);
        } else if (kind == KD_GB_DEST_SMALL) {
            root[side] = take(g, &sc->med_roots, 1, g.root_capacity, &r.ok);
            r.dest_base[side] = take(g, &sc->med_small_refs, count, g.small_ref_capacity, &r.ok);
        }
    }
    if (!r.ok) {
        // The host runs the stage again: write nothing, but mark the task
        // slots taken as dead, so that warps waiting on them move on (warps
        // waiting on slots that never fill could otherwise hold every warp).
        for (int side = 0; side < 2; side++)
            if (r.slot[side] < g.task_capacity)
                *(volatile uint32_t *)(g.ready + r.slot[side]) = MED_DEAD;
        return r;
    }
    g.pool[node.pool_id] = kd_gb_pool_record((uint32_t)c.axis, c.pos, first_child, first_child + 1, 0,
                                             node.parent, node.depth);
    for (int side = 0; side < 2; side++) {
        const uint32_t kind = r.plan.child_kind[side];
        r.dest_kind[side] = kind;
        kd_gb_large_node child;
        for (int j = 0; j < 6; j++)
            child.cell[j] = r.child_cell[side][j];
        child.ref_start = r.dest_base[side];
        child.ref_count = side ? num_right : num_left;
        child.pool_id = first_child + (uint32_t)side;
        child.parent = node.pool_id;
        child.depth = node.depth + 1;
        child.bad_refines = r.plan.bad_refines;
        child.allowance = r.plan.child_allowance;
        if (kind == KD_GB_DEST_LARGE) {
            g.tasks[r.slot[side]] = child;
        } else if (kind == KD_GB_DEST_SMALL) {
            g.roots[root[side]] = kd_gb_small_root_of(child);
#if defined(__CUDA_ARCH__)
            atomicMin(&sc->med_min_depth, child.depth);
#else
            sc->med_min_depth = child.depth < sc->med_min_depth ? child.depth : sc->med_min_depth;
#endif
        } else {
            // An empty child is an empty leaf right away.
            g.pool[child.pool_id] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, 0, 0, node.pool_id,
                                                      child.depth);
        }
    }
    return r;
}

// Both children's bounds of straddler tri (bounds box in the node), by one
// clip (kd_gb_clip_split_in, as the large and small stages), its polygons
// in poly.
template <typename Poly>
KD_GB_HD void clip_both(const medium_args &g, const medium_route &r, uint32_t tri, const float *box,
                        float (*child)[6], Poly &poly)
{
    float cell[6];
    kd_gb_parent_cell(r.child_cell, r.c.axis, cell);
    kd_gb_clip_split_in(poly, g.tri_verts + 9 * (size_t)tri, cell, box, r.c.axis, r.c.pos, child);
}

// Files one output of the node: the reference (tri, box) goes to `side` at
// `rank` (a straddler's box already clipped to the child's).
KD_GB_HD void put(const medium_args &g, const medium_route &r, int side, uint32_t rank, uint32_t tri,
                  const float *box)
{
    const kd_gb_refs &to = r.dest_kind[side] == KD_GB_DEST_LARGE ? g.refs : g.small;
    const uint32_t dst = r.dest_base[side] + rank;
    to.tri[dst] = tri;
    for (int k = 0; k < 3; k++) {
        to.lo[k][dst] = box[k];
        to.hi[k][dst] = box[3 + k];
    }
}

// ---- Host emulation: one node at a time, in queue order ---------------------
void process_host(const medium_args &g, uint32_t index, uint32_t *bins)
{
    const kd_gb_large_node node = g.tasks[index];
    const uint32_t first = node.ref_start, n = node.ref_count;
    float t[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = first; i < first + n; i++) {
        for (int a = 0; a < 3; a++) {
            t[a] = fminf(t[a], g.refs.lo[a][i]);
            t[3 + a] = fmaxf(t[3 + a], g.refs.hi[a][i]);
        }
    }
    kd_gb_split_choice c;
    if (g.use_sah) {
        for (int j = 0; j < 6 * g.sah.num_bins; j++)
            bins[j] = 0;
        for (uint32_t i = first; i < first + n; i++) {
            float lo[3], hi[3];
            for (int a = 0; a < 3; a++) {
                lo[a] = g.refs.lo[a][i];
                hi[a] = g.refs.hi[a][i];
            }
            kd_gb_bin_one(lo, hi, t, g.sah.num_bins, bins);
        }
        c = g.sah.choose(node, t, bins);
    } else {
        c = g.median.choose(node, t);
    }
    uint32_t num_left = 0, num_right = 0;
    for (uint32_t i = first; i < first + n; i++) {
        const uint8_t side = c.axis < 0 ? (uint8_t)KD_SIDE_LEFT
                                        : kd_gb_side(g.refs.lo[c.axis][i], g.refs.hi[c.axis][i], c.pos);
        num_left += side & 1u;
        num_right += side >> 1;
    }
    const medium_route r = commit(g, node, c, num_left, num_right);
    if (!r.ok)
        return;
    if (r.plan.leaf) {
        for (uint32_t k = 0; k < n; k++)
            g.leaf_refs[r.leaf_base + k] = g.refs.tri[first + k];
        return;
    }
    uint32_t rank[2] = {0, 0};
    for (uint32_t i = first; i < first + n; i++) {
        float box[6];
        for (int a = 0; a < 3; a++) {
            box[a] = g.refs.lo[a][i];
            box[3 + a] = g.refs.hi[a][i];
        }
        const uint8_t side = kd_gb_side(box[c.axis], box[3 + c.axis], c.pos);
        float child[2][6]; // each copy's box: a straddler's clipped once for both
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 6; k++)
                child[s][k] = box[k];
        if (side == KD_SIDE_BOTH) {
            kd_gb_poly_call own;
            clip_both(g, r, g.refs.tri[i], box, child, own);
        }
        for (int s = 0; s < 2; s++) {
            if (!((side >> s) & 1u))
                continue;
            if (r.dest_kind[s] != KD_GB_DEST_DROP)
                put(g, r, s, rank[s], g.refs.tri[i], child[s]);
            rank[s]++;
        }
    }
}

#if defined(__CUDACC__)
// ---- Device: a warp per node ---------------------------------------------------
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

// Loads are issued UNROLL references a lane at a time (a pass over a node
// is a chain of L2 round trips otherwise).
enum { UNROLL = 4, STEP = 32 * UNROLL };

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
__device__ __forceinline__ void drain(const medium_args &g, const warp_shared &ws, uint32_t head,
                                      uint32_t count, uint32_t lane, float (*child_t)[6])
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
            clip_both(g, ws.route, tri, box, child, poly);
        } else {
            kd_gb_poly_call own;
            clip_both(g, ws.route, tri, box, child, own);
        }
#pragma unroll
        for (int s = 0; s < 2; s++) {
            const uint32_t word = s ? job.z : job.y;
            if (word >> 31) {
                put(g, ws.route, s, word & 0x7fffffffu, tri, child[s]);
                grow_bounds(child_t[s], child[s]);
            }
        }
    }
}

template <bool SHARED_POLYGONS>
__device__ void process_warp(const medium_args &g, warp_shared &ws, uint32_t index, uint32_t lane)
{
    const unsigned all = 0xffffffffu;
    const unsigned lower = (1u << lane) - 1u;
    kd_gb_large_node node;
    {
        const uint4 *src = reinterpret_cast<const uint4 *>(g.tasks + index);
        uint4 *dst = reinterpret_cast<uint4 *>(&node);
        for (int k = 0; k < (int)(sizeof node / sizeof(uint4)); k++)
            dst[k] = __ldcg(src + k);
    }
    const uint32_t first = node.ref_start, n = node.ref_count;

    // Bounds (min and max are exact: any order gives the large stage's). A
    // node made here got them from its parent, which wrote its references.
    float t[6];
    if (index < g.num_initial) {
        reset_bounds(t);
        for_each_box(g, first, n, lane, [&](const float *box) { grow_bounds(t, box); });
        warp_bounds(t);
    } else {
#pragma unroll
        for (int k = 0; k < 6; k++)
            t[k] = __ldcg(g.tight + 6 * (size_t)index + k);
    }

    // The split.
    kd_gb_split_choice c;
    if (g.use_sah) {
        const int num_bins = g.sah.num_bins;
        for (int j = (int)lane; j < 6 * num_bins; j += 32)
            ws.bins[j] = 0;
        __syncwarp();
        for_each_box(g, first, n, lane,
                     [&](const float *box) { kd_gb_bin_one(box, box + 3, t, num_bins, ws.bins); });
        __syncwarp();
        c = kd_gb_choose_sah_warp(g.sah, node, t, ws.bins);
    } else {
        c = g.median.choose(node, t);
    }

    // Sides: the split's counts.
    uint32_t num_left = 0, num_right = 0;
    const int axis = c.axis < 0 ? 0 : c.axis;
    // The axis's arrays and bounds by selects (a runtime index would put
    // the struct, or the box, in local memory).
    const float *lo_axis = kd_gb_pick3(axis, g.refs.lo[0], g.refs.lo[1], g.refs.lo[2]);
    const float *hi_axis = kd_gb_pick3(axis, g.refs.hi[0], g.refs.hi[1], g.refs.hi[2]);
    if (c.axis < 0) {
        num_left = n;
    } else {
        for (uint32_t base = 0; base < n; base += STEP) {
            float lo[UNROLL], hi[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const uint32_t i = first + base + u * 32 + lane;
                lo[u] = base + u * 32 + lane < n ? __ldcg(lo_axis + i) : INFINITY;
                hi[u] = base + u * 32 + lane < n ? __ldcg(hi_axis + i) : -INFINITY;
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                const uint32_t side = kd_gb_side(lo[u], hi[u], c.pos); // 0 past the end
                num_left += (uint32_t)__popc(__ballot_sync(all, side & 1u));
                num_right += (uint32_t)__popc(__ballot_sync(all, side >> 1));
            }
        }
    }

    if (lane == 0)
        ws.route = commit(g, node, c, num_left, num_right);
    __syncwarp();
    const int ok = ws.route.ok, leaf = ws.route.plan.leaf;
    const uint32_t leaf_base = ws.route.leaf_base;
    const uint32_t kind[2] = {ws.route.dest_kind[0], ws.route.dest_kind[1]};
    const uint32_t slot[2] = {ws.route.slot[0], ws.route.slot[1]};

    // Outputs, in reference order on each side; straddlers queue on the
    // ring (both copies in one job, one clip) and are clipped 32 at a time,
    // so clipping lanes do not hold up the rest. Each lane keeps bounds of
    // what it files to the large children, which become theirs.
    uint32_t rank[2] = {0, 0}, head = 0, tail = 0;
    float child_t[2][6];
    reset_bounds(child_t[0]);
    reset_bounds(child_t[1]);
    for (uint32_t base = 0; ok && base < n; base += STEP) {
        uint32_t tri[UNROLL];
        float box[UNROLL][6];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t i = first + base + u * 32 + lane;
            if (base + u * 32 + lane < n) {
                tri[u] = __ldcg(g.refs.tri + i);
                if (!leaf)
                    load_box(g.refs, i, box[u]);
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t at = base + u * 32 + lane, i = first + at;
            const int in = at < n;
            if (leaf) {
                if (in)
                    g.leaf_refs[leaf_base + at] = tri[u];
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
                    put(g, ws.route, s, my_rank, tri[u], box[u]);
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
                drain<SHARED_POLYGONS>(g, ws, head, 32, lane, child_t);
            __syncwarp();
        }
    }
    if (ok && tail != head)
        drain<SHARED_POLYGONS>(g, ws, head, tail - head, lane, child_t);

    // The large children's bounds, then publish them (their references and
    // records are written: fence), then count this node done.
#pragma unroll
    for (int s = 0; s < 2; s++) {
        if (!(ok && kind[s] == KD_GB_DEST_LARGE))
            continue;
        warp_bounds(child_t[s]);
        if (lane == 0) {
#pragma unroll
            for (int k = 0; k < 6; k++)
                g.tight[6 * (size_t)slot[s] + k] = child_t[s][k];
        }
    }
    __threadfence();
    __syncwarp();
    if (lane == 0) {
        uint32_t made = 0;
#pragma unroll
        for (int s = 0; s < 2; s++) {
            if (ok && kind[s] == KD_GB_DEST_LARGE) {
                *(volatile uint32_t *)(g.ready + slot[s]) = MED_READY;
                made++;
            }
        }
        const uint32_t delta = made - 1u; // wraps to -1 for none
        if (atomicAdd(&g.scalars->med_live, delta) + delta == 0u) {
            __threadfence();
            *(volatile uint32_t *)&g.scalars->med_done = 1u;
        }
    }
    __syncwarp();
}

// Persistent warps: each claims the next task in queue order and waits until
// it is ready or no task is live (then the stage is done). Every claimed
// task is made by a running warp or marked dead, so the waits end.
// SHARED_POLYGONS: the clips' polygons in the launch's dynamic shared memory
// (where a block may have that much beside the kernel's own: sm_80, sm_90).
template <bool SHARED_POLYGONS>
__global__ void __launch_bounds__(MED_THREADS, KD_GB_MED_MIN_BLOCKS) medium_kernel(medium_args g)
{
    __shared__ warp_shared shared[MED_WARPS];
    kd_wait_prior();
    const uint32_t lane = threadIdx.x & 31u;
    warp_shared &ws = shared[threadIdx.x >> 5];
    for (;;) {
        uint32_t index = 0;
        if (lane == 0) {
            index = atomicAdd(&g.scalars->med_head, 1u);
            for (unsigned sleep = 32;;) {
                const uint32_t state = index < g.task_capacity ? *(volatile uint32_t *)(g.ready + index) : 0u;
                if (state == MED_READY)
                    break;
                if (state == MED_DEAD) {
                    index = atomicAdd(&g.scalars->med_head, 1u); // never made: take the next
                    continue;
                }
                if (*(volatile uint32_t *)&g.scalars->med_done) {
                    index = KD_GB_NONE;
                    break;
                }
                __nanosleep(sleep);
                sleep = sleep < 1024 ? 2 * sleep : sleep;
            }
            __threadfence();
        }
        index = __shfl_sync(0xffffffffu, index, 0);
        if (index == KD_GB_NONE)
            return;
        process_warp<SHARED_POLYGONS>(g, ws, index, lane);
    }
}

// Tasks [0, num_ready) are the level's nodes, ready at once.
__global__ void __launch_bounds__(KD_GB_MAP_BLOCK) init_ready_kernel(uint32_t *ready, uint32_t n,
                                                                     uint32_t num_ready)
{
    kd_wait_prior();
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        ready[i] = i < num_ready ? (uint32_t)MED_READY : 0u;
}
#endif

// Element counts of the arrays the stage appends to.
struct medium_sizes {
    size_t tasks, refs, roots, small_refs, leaf_refs;
};

kd_status ensure_arrays(kd_gpu_builder *b, const kd_gb_build_state *s, int refs_id, int nodes_id,
                        const medium_sizes &z, kd_error *err)
{
    KD_GB_TRY(kd_gb_ensure_refs(b, refs_id, z.refs, 0, 1, err));
    KD_GB_TRY(kd_gb_ensure(b, nodes_id, z.tasks * sizeof(kd_gb_large_node), 1, err));
    KD_GB_TRY(kd_gb_ensure(b, KD_GB_MREADY, z.tasks * sizeof(uint32_t), 0, err));
    KD_GB_TRY(kd_gb_ensure(b, KD_GB_MTIGHT, z.tasks * 6 * sizeof(float), 0, err));
    KD_GB_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_SMALL, s->num_small_refs + z.small_refs, 0, 1, err));
    KD_GB_TRY(kd_gb_ensure(b, KD_GB_SROOTS, sizeof(kd_gb_small_root) * (s->num_small_roots + z.roots), 1, err));
    KD_GB_TRY(kd_gb_ensure(b, KD_GB_LEAF_REFS, 4 * ((size_t)s->num_leaf_refs + z.leaf_refs), 1, err));
    // Every split takes two pool slots, and only tasks split.
    return kd_gb_ensure(b, KD_GB_POOL, sizeof(kd_gb_pool_node) * (s->pool_count + 2 * z.tasks), 1, err);
}

uint32_t capacity_of(const kd_gpu_builder *b, int id, size_t each)
{
    const size_t n = b->buf[id].bytes / each;
    return n > 0xffffffffu ? 0xffffffffu : (uint32_t)n;
}

// A size the run found too small (its counter went past the capacity, and
// kept counting, a lower bound of the need): doubled, and at least twice
// what was counted.
void grow(size_t *size, size_t used, size_t capacity)
{
    if (used <= capacity)
        return;
    *size = 2 * *size > 2 * used ? 2 * *size : 2 * used;
}

} // namespace

kd_status kd_gb_stage_medium(kd_gpu_builder *b, kd_gb_build_state *s, int refs_id, int nodes_id,
                             uint32_t num_nodes, uint32_t num_refs, kd_error *err)
{
    const kd_gpu_build_options *o = s->opts;
    const uint32_t threshold = (uint32_t)o->small_node_threshold;
    // First sizes (measured on the shared scenes: the subtrees below a level
    // of 64+ nodes hold 2-12 times its references in their large nodes);
    // arrays keep their size for the builds after.
    medium_sizes z;
    z.tasks = num_nodes + 8 * (size_t)num_refs / threshold + 1024;
    z.refs = 8 * (size_t)num_refs + 65536;
    z.roots = num_refs / 4 + 1024;
    z.small_refs = 3 * (size_t)num_refs + 65536;
    z.leaf_refs = (size_t)num_refs + 1024;
    uint32_t *bins = NULL;
    if (b->host) {
        bins = (uint32_t *)malloc(6 * sizeof(uint32_t) * (size_t)o->sah_bins);
        if (!bins)
            return kd_gb_fail(err, KD_ERR_NOMEM, "GPU build (emulated): out of memory");
    }
    kd_status st = KD_OK;
    for (int attempt = 0;; attempt++) {
        st = ensure_arrays(b, s, refs_id, nodes_id, z, err);
        if (st != KD_OK)
            break;
        medium_args g;
        g.refs = kd_gb_ref_set(b, refs_id);
        g.tasks = kd_gb_ptr<kd_gb_large_node>(b, nodes_id);
        g.ready = kd_gb_ptr<uint32_t>(b, KD_GB_MREADY);
        g.small = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
        g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
        g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
        g.leaf_refs = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_REFS);
        g.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
        g.task_capacity = capacity_of(b, nodes_id, sizeof(kd_gb_large_node));
        if (g.task_capacity > capacity_of(b, KD_GB_MREADY, sizeof(uint32_t)))
            g.task_capacity = capacity_of(b, KD_GB_MREADY, sizeof(uint32_t));
        if (g.task_capacity > capacity_of(b, KD_GB_MTIGHT, 6 * sizeof(float)))
            g.task_capacity = capacity_of(b, KD_GB_MTIGHT, 6 * sizeof(float));
        g.tight = kd_gb_ptr<float>(b, KD_GB_MTIGHT);
        g.num_initial = num_nodes;
        g.ref_capacity = capacity_of(b, refs_id + KD_GB_REF_TRI, sizeof(uint32_t));
        g.small_ref_capacity = capacity_of(b, KD_GB_REFS_SMALL + KD_GB_REF_TRI, sizeof(uint32_t));
        g.root_capacity = capacity_of(b, KD_GB_SROOTS, sizeof(kd_gb_small_root));
        g.pool_capacity = capacity_of(b, KD_GB_POOL, sizeof(kd_gb_pool_node));
        g.leaf_ref_capacity = capacity_of(b, KD_GB_LEAF_REFS, sizeof(uint32_t));
        g.pp = kd_gb_plan_params_from(o);
        memset(&g.sah, 0, sizeof g.sah);
        g.sah.sah = g.pp.sah;
        g.sah.num_bins = o->sah_bins;
        g.sah.max_depth = s->max_depth;
        g.sah.force_leaf = 0;
        g.sah.empty_ratio = o->empty_space_ratio;
        memset(&g.median, 0, sizeof g.median);
        g.median.max_depth = s->max_depth;
        g.median.force_leaf = 0;
        g.median.empty_ratio = o->empty_space_ratio;
        g.use_sah = o->large_split == KD_LARGE_SPLIT_SAH;
        g.scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);

        // head, tail, live, done, refs, pool, roots, small refs, leaf refs,
        // min depth, overflow
        const uint32_t init[11] = {0, num_nodes, num_nodes, 0, num_refs, s->pool_count, s->num_small_roots,
                                   s->num_small_refs, s->num_leaf_refs, KD_GB_NONE, 0};
        if (b->host) {
            memcpy(&g.scalars->med_head, init, sizeof init);
            // On overflow it goes on, as the device does, so that the counts
            // size the next run better (a node that could not be placed
            // makes nothing).
            memset(g.ready, 0, (size_t)g.task_capacity * sizeof(uint32_t));
            for (uint32_t k = 0; k < g.scalars->med_tail && k < g.task_capacity; k++)
                if (g.ready[k] != MED_DEAD)
                    process_host(g, k, bins);
        } else {
#if defined(__CUDACC__)
            st = kd_gb_cuda(err, cudaMemcpyAsync(&g.scalars->med_head, init, sizeof init, cudaMemcpyHostToDevice,
                                                 b->stream),
                            "resetting the medium stage");
            uint32_t blocks = 0;
            // The clips' polygons in shared memory where a block may have
            // them beside the kernel's own, else in the lanes' own memory.
            size_t smem = KD_GB_CLIP_SHARED_BYTES(MED_THREADS);
            int optin = 0;
            cudaFuncAttributes attr;
            if (st == KD_OK)
                st = kd_gb_cuda(err, cudaFuncGetAttributes(&attr, medium_kernel<true>), "medium-stage kernel attributes");
            if (st == KD_OK)
                st = kd_gb_cuda(err, kd_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin),
                                "shared memory per block");
            if (st == KD_OK && (attr.sharedSizeBytes + smem > (size_t)optin || o->medium_local_polygons))
                smem = 0;
            void (*kernel)(medium_args) = smem > 0 ? medium_kernel<true> : medium_kernel<false>;
            if (st == KD_OK)
                st = kd_gb_resident_blocks(kernel, MED_THREADS, &blocks, err, smem);
            if (st == KD_OK)
                st = kd_gb_cuda(err, kd_launch_dependent(init_ready_kernel, blocks, KD_GB_MAP_BLOCK, 0, b->stream,
                                                         g.ready, g.task_capacity, num_nodes),
                                "medium-stage queue");
            if (st == KD_OK)
                st = kd_gb_cuda(err, kd_launch_dependent(kernel, blocks, MED_THREADS, smem, b->stream, g),
                                "medium-node stage");
#endif
        }
        kd_gb_scalars counts;
        if (st == KD_OK)
            st = kd_gb_read_scalars(b, &counts, err);
        if (st != KD_OK)
            break;
        kd_gb_step_mark(b, o->profile, KD_GPU_STEP_MEDIUM);
        if (s->profile)
            s->profile->num_host_syncs++;
        if (!counts.med_overflow) {
            if (s->num_small_roots == 0 && counts.med_roots > 0)
                s->min_small_depth = counts.med_min_depth;
            s->pool_count = counts.med_pool;
            s->num_small_roots = counts.med_roots;
            s->num_small_refs = counts.med_small_refs;
            s->num_leaf_refs = counts.med_leaf_refs;
            if (s->profile)
                s->profile->num_medium_nodes = counts.med_tail;
            break;
        }
        if (s->profile)
            s->profile->num_medium_retries++;
        if (attempt >= 8) {
            st = kd_gb_fail(err, KD_ERR_INVALID, "GPU build: the medium-node stage keeps outgrowing its arrays");
            break;
        }
        grow(&z.tasks, counts.med_tail, g.task_capacity);
        grow(&z.refs, counts.med_refs, g.ref_capacity);
        grow(&z.roots, counts.med_roots - s->num_small_roots, g.root_capacity - s->num_small_roots);
        grow(&z.small_refs, counts.med_small_refs - s->num_small_refs,
             g.small_ref_capacity - s->num_small_refs);
        grow(&z.leaf_refs, counts.med_leaf_refs - s->num_leaf_refs, g.leaf_ref_capacity - s->num_leaf_refs);
        if (counts.med_pool > g.pool_capacity) // pool slots come two per task split
            grow(&z.tasks, (counts.med_pool - s->pool_count) / 2 + 1, z.tasks);
    }
    free(bins);
    return st;
}
