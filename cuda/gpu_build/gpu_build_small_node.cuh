// The small-node stage's records and its reference evaluation of a node
// through a workspace (the host emulation's path, a node at a time):
// members into compact arrays, their bounds sorted per axis, every candidate
// plane costed, pbrt-v4's rules. The device makes the same choice in
// registers (gpu_build_small_team.cuh). Included by the small stage only.
#ifndef KD_GPU_BUILD_SMALL_NODE_CUH
#define KD_GPU_BUILD_SMALL_NODE_CUH

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"

namespace kd_gb_small {

enum {
    MAXR = KD_GPU_SMALL_NODE_MAX,
    CAND_PER_REF = 6,
    WARPS_PER_BLOCK = 4
};

#define KD_GB_DEAD_TASK 0xffffffffu // bounds_at of a child its parent wrote as a leaf (nothing to bound)

struct task {
    unsigned long long mask;
    float cell[6];
    uint32_t root;
    uint32_t ref_start;     // the root's first reference (member i's triangle: refs.tri[ref_start + i])
    uint32_t pool_id;
    uint32_t parent;
    uint32_t bounds_at;     // the members' clipped bounds: arena[bounds_at + c]
    float allowance;        // see kd_gb_child_allowance
    uint16_t depth;
    uint16_t bad_refines;
};

// One member's bounds in a node: lo xyz, hi xyz.
struct member_box {
    float v[6];
};

// What a task's split means for its members (written by the node pass, read
// by the member pass): the children's masks and where their bounds go.
struct member_plan {
    unsigned long long below, above;
    uint32_t at[2];         // the children's arena bases; KD_GB_DEAD_TASK: no bounds
    float pos;
    int32_t axis;           // -1: a leaf, its members go nowhere
};

// A straddler's clip as the device's clip pass takes it, written by the node
// pass, which has all of it at hand: the clip pass then loads the job, the
// member's bounds and triangle, and the vertices (where reaching them through
// the entry's task and plan took six loads, each waiting on the one before).
struct __align__(16) clip_job {
    float cell[6];          // the node's box
    float pos;              // the split
    int32_t axis;
    uint32_t entry;         // the member's bounds in the node (arena)
    uint32_t ref;           // its reference among the small stage's (refs.tri[ref])
    uint32_t at[2];         // the entries of its bounds in the children (KD_GB_DEAD_TASK: none)
};

// The workspace of one node (compact: member c is the root's
// reference member[c]).
struct workspace {
    float lo[3][MAXR], hi[3][MAXR];          // clipped to the node's box
    float sorted_lo[3][MAXR], sorted_hi[3][MAXR];
    uint8_t member[MAXR];
};

struct small_args {
    const kd_gb_small_root *roots;
    uint32_t num_roots;
    kd_gb_refs refs;
    const float *tri_verts;
    task *tasks;
    uint32_t task_capacity;
    member_box *arena;
    uint32_t *owner;              // per arena entry: its task, or KD_GB_NONE (emulation only; NULL on the device)
    clip_job *clip_jobs;          // the wave's straddlers' clips
    uint32_t clip_capacity;       // jobs that fit
    uint32_t arena_capacity;
    member_plan *plans;           // per task
    kd_gb_pool_node *pool;
    uint32_t pool_base;           // pool id of task num_roots (roots have their own)
    kd_gb_scalars *scalars;
    uint32_t wave;                // the wave this pass is of (its state in scalars->wave[wave % 2])
    kd_gb_sah sah;
    int max_depth;
    uint32_t max_leaf_prims;
    uint32_t max_bad_refines;
    uint32_t cutoff_prims;
    float bad_cost_ratio;
};

// Number of sorted values <= s (le) or < s (lt).
KD_GB_HD uint32_t count_below(const float *sorted, uint32_t n, float s, int le)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (le ? sorted[mid] <= s : sorted[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Loads the node's members (bounds already clipped to its box) and sorts
// their bounds per axis.
KD_GB_HD void prepare_node(const small_args &g, workspace *ws, const task &t, uint32_t m)
{
    for (uint32_t i = 0; i < MAXR; i++) {
        if (!((t.mask >> i) & 1ull))
            continue;
        uint32_t c = (uint32_t)kd_gb_popc64(t.mask & ((1ull << i) - 1ull));
        member_box box = g.arena[t.bounds_at + c];
        ws->member[c] = (uint8_t)i;
        for (int a = 0; a < 3; a++) {
            ws->lo[a][c] = box.v[a];
            ws->hi[a][c] = box.v[3 + a];
        }
    }
    // Rank of each bound among the members' (ties by member order).
    for (uint32_t e = 0; e < 6 * m; e++) {
        uint32_t list = e / m, c = e % m;
        int a = (int)(list >> 1), upper = (int)(list & 1);
        const float *vals = upper ? ws->hi[a] : ws->lo[a];
        float v = vals[c];
        uint32_t rank = 0;
        for (uint32_t d = 0; d < m; d++)
            rank += vals[d] < v || (vals[d] == v && d < c);
        if (upper)
            ws->sorted_hi[a][rank] = v;
        else
            ws->sorted_lo[a][rank] = v;
    }
}

struct decision {
    int leaf;
    int axis;
    float pos;
    unsigned long long below, above;
    uint32_t bad_refines;
    float allowance;      // of each child
};

// A node's outcome before any plane is chosen: a leaf.
KD_GB_HD decision leaf_decision(const task &t)
{
    decision d;
    d.leaf = 1;
    d.axis = 0;
    d.pos = 0.0f;
    d.below = d.above = 0;
    d.bad_refines = t.bad_refines;
    d.allowance = 0.0f;
    return d;
}

// pbrt-v4's rules on the cheapest plane (cost best): a plane dearer than the
// leaf counts a bad refine; 0 where the node stays a leaf.
KD_GB_HD int accept_split(const small_args &g, uint32_t m, float best, decision *d)
{
    float old_cost = KD_GB_FMUL(g.sah.intersect, (float)m);
    if (best > old_cost)
        d->bad_refines++;
    return !((best > KD_GB_FMUL(g.bad_cost_ratio, old_cost) && m < g.cutoff_prims) ||
             d->bad_refines >= g.max_bad_refines);
}

// The split at pos with the children's masks, if they can hold their
// references within the allowance (else the node stays a leaf).
KD_GB_HD void take_split(const task &t, uint32_t m, int axis, float pos, unsigned long long below,
                         unsigned long long above, decision *d)
{
    d->below = below;
    d->above = above;
    d->allowance = kd_gb_child_allowance(t.allowance, m, (uint32_t)kd_gb_popc64(below),
                                         (uint32_t)kd_gb_popc64(above));
    if (d->allowance < 1.0f)
        return;
    d->leaf = 0;
    d->axis = axis;
    d->pos = pos;
}

// The best candidate of every axis, then pbrt-v4's rules. Candidate k of the
// node is member k / 6's; its id (for ties) counts in the root's references,
// so it does not depend on which members the node has.
KD_GB_HD decision decide(const small_args &g, const workspace *ws, const task &t, uint32_t m)
{
    decision d = leaf_decision(t);
    float inv_area = KD_GB_FDIV(1.0f, kd_gb_box_area(t.cell));
    float best = INFINITY;
    uint32_t best_id = KD_GB_NONE;
    int best_axis = 0;
    float best_pos = 0.0f;
    for (uint32_t k = 0; k < CAND_PER_REF * m; k++) {
        uint32_t c = k / CAND_PER_REF, rem = k % CAND_PER_REF;
        int a = (int)(rem >> 1), upper = (int)(rem & 1);
        float s = KD_GB_FADD(kd_gb_step(upper ? ws->hi[a][c] : ws->lo[a][c], upper), 0.0f);
        if (!(t.cell[a] < s && s < t.cell[3 + a]))
            continue;
        uint32_t ilo = count_below(ws->sorted_lo[a], m, s, 1);
        uint32_t ihi = count_below(ws->sorted_hi[a], m, s, 0);
        float cost = kd_gb_split_cost(g.sah, t.cell, a, s, ilo, m - ihi, inv_area);
        uint32_t id = (uint32_t)ws->member[c] * CAND_PER_REF + rem;
        if (cost < best || (cost == best && id < best_id)) {
            best = cost;
            best_id = id;
            best_axis = a;
            best_pos = s;
        }
    }
    if (best_id == KD_GB_NONE)
        return d;
    if (!accept_split(g, m, best, &d))
        return d;
    // The children: members with lower bound <= s below, upper bound >= s above.
    for (uint32_t c = 0; c < m; c++) {
        unsigned long long bit = 1ull << ws->member[c];
        if (ws->lo[best_axis][c] <= best_pos)
            d.below |= bit;
        if (ws->hi[best_axis][c] >= best_pos)
            d.above |= bit;
    }
    take_split(t, m, best_axis, best_pos, d.below, d.above, &d);
    return d;
}

} // namespace kd_gb_small

#endif
