// The medium-node stage's records and its per-node steps (the arguments, a
// split's route, slot taking, filing the children), written once for the
// device and the host emulation; process_node (gpu_build_medium_process.cuh)
// runs them by a team of either kind (gpu_build_medium_team.cuh).
// Included by gpu_build_medium.cu only.
#ifndef KD_GPU_BUILD_MEDIUM_NODE_CUH
#define KD_GPU_BUILD_MEDIUM_NODE_CUH

#include <stdlib.h>
#include <string.h>

#include "gpu_build_large_split.cuh"

namespace kd_gb_medium {

// A task's state: ready for a warp, never made (an array overflowed), or
// ready and in the block queue (a warp skips it, as a dead one).
enum { MED_READY = 1, MED_DEAD = 2, MED_BIG = 3 };
// A block-queue place that holds no task (a level's node a warp takes).
enum : uint32_t { MED_BIG_SKIP = 0xffffffffu };
// The ring holds fewer than 32 straddlers between drains, and a step adds
// at most 32.
enum { MED_THREADS = KD_GB_MED_THREADS, MED_WARPS = MED_THREADS / 32, MED_MAX_BINS = 128, MED_RING = 64 };

struct medium_args {
    kd_gb_refs refs;              // the arena: the level's references, then the medium nodes'
    kd_gb_large_node *tasks;      // the level's nodes, then the large children made here
    uint32_t *ready;              // per task: MED_READY once its record and references are written,
                                  // MED_DEAD if it never will be (an array overflowed)
    float *tight;                 // per task made here: its references' bounds (6 floats)
    uint32_t *big;                // the block queue: per place, task + 1 once published, 0 before,
                                  // MED_BIG_SKIP for a level's node of a warp's
    uint32_t block_refs;          // tasks of more references go to the block queue (0: none)
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

// A child's record (child `side` of node, pool ids from first_child on):
// its references `count` from ref_start.
KD_GB_HD kd_gb_large_node child_record(const kd_gb_large_node &node, const kd_gb_plan &plan, const float *cell,
                                       int side, uint32_t first_child, uint32_t ref_start, uint32_t count)
{
    kd_gb_large_node child;
    for (int j = 0; j < 6; j++)
        child.cell[j] = cell[j];
    child.ref_start = ref_start;
    child.ref_count = count;
    child.pool_id = first_child + (uint32_t)side;
    child.parent = node.pool_id;
    child.depth = node.depth + 1;
    child.bad_refines = plan.bad_refines;
    child.allowance = plan.child_allowance;
    return child;
}

// The empty cut's records (the node, and its empty child as an empty leaf)
// once it has its two pool slots from first_child; its large child's
// record is child_record's, with the node's references.
KD_GB_HD void write_empty_cut(const medium_args &g, const kd_gb_large_node &node, kd_gb_split_choice c, int side,
                              uint32_t first_child)
{
    g.pool[node.pool_id] = kd_gb_pool_record((uint32_t)c.axis, c.pos, first_child, first_child + 1, 0,
                                             node.parent, node.depth);
    g.pool[first_child + (uint32_t)(1 - side)] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, 0, 0, node.pool_id,
                                                                   node.depth + 1);
}

// The node, once its empty cut has its records, becomes its large child.
KD_GB_HD kd_gb_large_node empty_cut_child(const kd_gb_large_node &node, const kd_gb_plan &plan, kd_gb_split_choice c,
                                          int side, uint32_t first_child)
{
    float cell[6];
    kd_gb_child_cell(node.cell, c.axis, c.pos, side, cell);
    return child_record(node, plan, cell, side, first_child, node.ref_start, node.ref_count);
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
        const kd_gb_large_node child = child_record(node, r.plan, r.child_cell[side], side, first_child,
                                                    r.dest_base[side], side ? num_right : num_left);
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

// Folds a box into running bounds (t: lo xyz, hi xyz), and the empty bounds.
KD_GB_HD void grow_bounds(float *t, const float *box)
{
KD_GB_UNROLL
    for (int a = 0; a < 3; a++) {
        t[a] = fminf(t[a], box[a]);
        t[3 + a] = fmaxf(t[3 + a], box[3 + a]);
    }
}

KD_GB_HD void reset_bounds(float *t)
{
KD_GB_UNROLL
    for (int a = 0; a < 3; a++) {
        t[a] = INFINITY;
        t[3 + a] = -INFINITY;
    }
}

} // namespace kd_gb_medium

#endif
