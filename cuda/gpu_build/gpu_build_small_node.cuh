// The small-node stage's records, and the choice of a node's split member by
// member: each member's six candidate planes costed against the other
// members' bounds (cost_member), pbrt-v4's rules on the cheapest. The
// device shares a node's members out over a team of lanes
// (gpu_build_small_team.cuh); the host emulation takes them in turn
// (decide_serial). Included by the small stage only.
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

struct small_args {
    const kd_gb_small_root *roots;
    uint32_t num_roots;
    kd_gb_refs refs;
    const float *tri_verts;
    task *tasks;                  // two halves, wave w's tasks in half w % 2 (task_half_start)
    uint32_t task_capacity;       // task slots in all (pool records), roots first
    uint32_t task_half;           // tasks each half holds
    member_box *arena;
    clip_job *clip_jobs;          // the wave's straddlers' clips
    uint32_t clip_capacity;       // jobs that fit
    uint32_t arena_half;          // entries in each half of the arena (wave w's members in half w % 2)
    kd_gb_pool_node *pool;
    uint32_t pool_base;           // pool id of task num_roots (roots have their own)
    kd_gb_scalars *scalars;
    uint32_t wave;                // the wave this pass is of (its state in scalars->wave[wave % 2])
    uint32_t task_shift;          // the next wave's task place of a slot: slot + task_shift (set_wave_places)
    uint32_t member_shift;        // its arena place of a member count: count + member_shift
    kd_gb_sah sah;
    int max_depth;
    uint32_t max_leaf_prims;
    uint32_t max_bad_refines;
    uint32_t cutoff_prims;
    float bad_cost_ratio;
};

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

// The members' bounds of the nodes a team decides, slot c for the member on
// lane c (and c + 32 for a lane's second): the counting loop reads them.
struct member_slots {
    float4 lo_hx[MAXR]; // lo xyz, hi x
    float2 hyz[MAXR];   // hi y z
};

KD_GB_HD void put_slot(member_slots *slots, uint32_t at, const member_box &box)
{
    float4 first;
    float2 rest;
    first.x = box.v[0], first.y = box.v[1], first.z = box.v[2], first.w = box.v[3];
    rest.x = box.v[4], rest.y = box.v[5];
    slots->lo_hx[at] = first;
    slots->hyz[at] = rest;
}

KD_GB_HD void slot_bounds(const member_slots *slots, uint32_t at, float (&lo)[3], float (&hi)[3])
{
    const float4 first = slots->lo_hx[at];
    const float2 rest = slots->hyz[at];
    lo[0] = first.x, lo[1] = first.y, lo[2] = first.z;
    hi[0] = first.w, hi[1] = rest.x, hi[2] = rest.y;
}

// 1.0f where a <= b (le_one) or a >= b (ge_one), else 0.0f (also for a NaN,
// as the comparison). On the device one instruction (FSET.BF), which the
// counting loop adds to its float counts: two instructions a count where
// integer counts took three.
KD_GB_HD float le_one(float a, float b)
{
#if defined(__CUDA_ARCH__)
    float one;
    asm("set.le.f32.f32 %0, %1, %2;" : "=f"(one) : "f"(a), "f"(b));
    return one;
#else
    return a <= b ? 1.0f : 0.0f;
#endif
}

KD_GB_HD float ge_one(float a, float b)
{
#if defined(__CUDA_ARCH__)
    float one;
    asm("set.ge.f32.f32 %0, %1, %2;" : "=f"(one) : "f"(a), "f"(b));
    return one;
#else
    return a >= b ? 1.0f : 0.0f;
#endif
}

// The cheapest candidate so far (cost, id), and its plane.
struct candidate {
    float cost, pos;
    uint32_t id;
    int axis;
};

KD_GB_HD candidate no_candidate()
{
    candidate b;
    b.cost = INFINITY;
    b.pos = 0.0f;
    b.id = KD_GB_NONE;
    b.axis = 0;
    return b;
}

// The counting loop over the node's members, unrolled so that one member's
// loads are in flight while the last one's bounds are compared.
constexpr int kFromUnroll = KD_GB_FROM_UNROLL;

// Member c's six candidate planes (r = 2 * axis + upper: one float below
// its lower bound, one float above its upper bound), each costed by the
// counts of the node's m members (slots base..base + m - 1) with lower
// bound <= the plane (below) and upper bound >= it (above), folded into
// *best: a lower cost wins, ties to the lower id (c * 6 + r). `have` 0:
// the lane has no member c (it runs the loop empty, keeping in step).
KD_GB_HD void cost_member(const small_args &g, const task &t, uint32_t m, const member_slots *slots,
                          uint32_t base, uint32_t c, int have, float inv_area, candidate *best)
{
    float own_lo[3], own_hi[3];
    slot_bounds(slots, base + c, own_lo, own_hi);
    float s[CAND_PER_REF];
    // The counts as floats (whole numbers, exact), as le_one and ge_one
    // give them and kd_gb_split_cost_f takes them.
    float below[CAND_PER_REF], above[CAND_PER_REF];
KD_GB_UNROLL
    for (int r = 0; r < CAND_PER_REF; r++) {
        s[r] = KD_GB_FADD(kd_gb_step((r & 1) ? own_hi[r >> 1] : own_lo[r >> 1], r & 1), 0.0f);
        below[r] = above[r] = 0.0f;
    }
    const uint32_t count_to = have ? m : 0u;
#if defined(__CUDA_ARCH__)
#pragma unroll (kFromUnroll)
#endif
    for (uint32_t from = 0; from < count_to; from++) {
        float other_lo[3], other_hi[3];
        slot_bounds(slots, base + from, other_lo, other_hi);
KD_GB_UNROLL
        for (int r = 0; r < CAND_PER_REF; r++) {
            below[r] += le_one(other_lo[r >> 1], s[r]);
            above[r] += ge_one(other_hi[r >> 1], s[r]);
        }
    }
KD_GB_UNROLL
    for (int r = 0; r < CAND_PER_REF; r++) {
        int a = r >> 1;
        if (!have || !(t.cell[a] < s[r] && s[r] < t.cell[3 + a]))
            continue;
        float cost = kd_gb_split_cost_f(g.sah, t.cell, a, s[r], below[r], above[r], inv_area);
        uint32_t id = c * CAND_PER_REF + (uint32_t)r;
        if (cost < best->cost || (cost == best->cost && id < best->id)) {
            best->cost = cost;
            best->id = id;
            best->axis = a;
            best->pos = s[r];
        }
    }
}

// Which children member bit goes to under the chosen plane: below where
// its lower bound is at or under it, above where its upper bound is at or
// over it.
KD_GB_HD void member_sides(const candidate &best, const float (&lo)[3], const float (&hi)[3],
                           unsigned long long bit, unsigned long long *below, unsigned long long *above)
{
    if (kd_gb_pick3(best.axis, lo[0], lo[1], lo[2]) <= best.pos)
        *below |= bit;
    if (kd_gb_pick3(best.axis, hi[0], hi[1], hi[2]) >= best.pos)
        *above |= bit;
}

// A splittable node's decision by one lane (the host emulation): every
// member's candidates in turn, then pbrt-v4's rules on the cheapest. The
// device shares the members out over a team (decide_team) and takes the
// same winner.
KD_GB_HD decision decide_serial(const small_args &g, const task &t, uint32_t m, member_slots *slots)
{
    decision d = leaf_decision(t);
    for (uint32_t c = 0; c < m; c++)
        put_slot(slots, c, g.arena[t.bounds_at + c]);
    const float inv_area = KD_GB_FDIV(1.0f, kd_gb_box_area(t.cell));
    candidate best = no_candidate();
    for (uint32_t c = 0; c < m; c++)
        cost_member(g, t, m, slots, 0, c, 1, inv_area, &best);
    if (best.id == KD_GB_NONE)
        return d;
    unsigned long long below = 0ull, above = 0ull;
    for (uint32_t c = 0; c < m; c++) {
        float lo[3], hi[3];
        slot_bounds(slots, c, lo, hi);
        member_sides(best, lo, hi, 1ull << kd_gb_nth_bit64(t.mask, c), &below, &above);
    }
    if (accept_split(g, m, best.cost, &d))
        take_split(t, m, best.axis, best.pos, below, above, &d);
    return d;
}

} // namespace kd_gb_small

#endif
