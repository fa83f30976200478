// The small-node stage's task bookkeeping, shared by the node pass's warp
// and packed-team paths and by the host emulation: slots reserved, a node's
// outcome written (its pool record, and for a split the children's tasks
// and arena entries), and its members filed under the children (copied, or
// queued for the clip pass where they straddle the plane).
// Included by gpu_build_small.cu only.
#ifndef KD_GPU_BUILD_SMALL_TASKS_CUH
#define KD_GPU_BUILD_SMALL_TASKS_CUH

#include "gpu_build_collapse.cuh" // the box areas the records keep for it
#include "gpu_build_small_node.cuh"

namespace kd_gb_small {

// `slots` task slots and `members` arena entries from the two global
// counters, which sit side by side in one 64-bit word (the task count in
// its low half), taken with one atomic: every warp's passes queue on these
// counters. The task count stays far below 2^32 (its array would hold more
// than 200 GB), so it never carries.
static_assert(offsetof(kd_gb_scalars, arena_count) == offsetof(kd_gb_scalars, task_count) + 4 &&
                  offsetof(kd_gb_scalars, task_count) % 128 == 0 &&
                  offsetof(kd_gb_scalars, pool_overflow) == offsetof(kd_gb_scalars, task_count) + 128,
              "the small stage's two counters form one 64-bit word alone on its 128-byte line");
// The arena holds two waves' members, the wave's own in one half and the
// next wave's in the other, which the wave before has done with: so the
// arena is as large as two waves, not all of them. The count stays the
// stage's running total; an entry's place is its count less the next
// wave's first, in that half. Only the places change, never a tree.
KD_GB_HD uint32_t next_half_start(const small_args &g) { return (g.wave & 1u) ? 0u : g.arena_half; }

// The tasks the same way: wave w's in half w % 2, a task's place its slot
// less its wave's first slot. The slot itself, the stage's running count,
// still names the task's pool record.
KD_GB_HD uint32_t task_half_start(const small_args &g, uint32_t wave) { return (wave & 1u) ? g.task_half : 0u; }

// The wave's places from its state, which is fixed while the wave runs:
// set once per warp (or per wave on the host), so that no task loads them
// from the line that every reservation's atomic hits. The next wave's
// first slot and first member count map to the starts of their halves
// (32-bit sums that wrap, as the differences they stand for).
KD_GB_HD void set_wave_places(small_args *g, const kd_gb_wave_state &ws)
{
    g->task_shift = task_half_start(*g, g->wave + 1u) - ws.end;
    g->member_shift = next_half_start(*g) - ws.member_end;
}

KD_GB_HD void reserve_slots(const small_args &g, uint32_t slots, uint32_t members, uint32_t *slot, uint32_t *at)
{
#if defined(__CUDA_ARCH__)
    const unsigned long long old = atomicAdd(reinterpret_cast<unsigned long long *>(&g.scalars->task_count),
                                             (unsigned long long)members << 32 | slots);
    *slot = (uint32_t)old;
    *at = (uint32_t)(old >> 32) + g.member_shift;
#else
    *slot = g.scalars->task_count;
    *at = g.scalars->arena_count + g.member_shift;
    g.scalars->task_count += slots;
    g.scalars->arena_count += members;
#endif
}

// Two task slots and `members` arena entries for one split (the whole
// warp's path and the emulation's; a pass of packed teams takes all its
// splits' at once, process_pass).
KD_GB_HD void reserve(const small_args &g, uint32_t members, uint32_t *slot, uint32_t *at)
{
    reserve_slots(g, 2u, members, slot, at);
}

// A task the node pass may split: more members than a leaf may hold, above
// the depth cap, a box with area. Others become leaves as they are.
KD_GB_HD int splittable(const small_args &g, const task &t, uint32_t m)
{
    return m > g.max_leaf_prims && (int)t.depth < g.max_depth && kd_gb_box_area(t.cell) > 0.0f;
}

// Task t's pool record, of kind `kind`, with its box's area for the
// collapse (gpu_build_collapse.cuh).
KD_GB_HD void write_record(const small_args &g, const task &t, kd_gb_pool_node n)
{
    kd_gb_pool_set_area(&n, kd_gb_collapse_area(t.cell));
    g.pool[t.pool_id] = n;
}

KD_GB_HD void write_leaf(const small_args &g, const task &t)
{
    write_record(g, t, kd_gb_pool_record(KD_GB_POOL_LEAF_MASK, 0.0f, t.root, 0, t.mask, t.parent, t.depth));
}

// A split's children: their boxes and counts, and which go on as tasks. A
// child that will be a leaf (the rules of splittable, known here) is written
// as one at once: its task slot stays dead and its members need neither
// bounds nor clipping.
struct children {
    float cells[2][6];
    uint32_t counts[2];
    int goes_on[2];
    uint32_t num_members;   // arena entries the children that go on need
};

KD_GB_HD void plan_children(const small_args &g, const task &t, const decision &d, children *ch)
{
    ch->counts[0] = (uint32_t)kd_gb_popc64(d.below);
    ch->counts[1] = (uint32_t)kd_gb_popc64(d.above);
    ch->num_members = 0;
KD_GB_UNROLL
    for (int side = 0; side < 2; side++) {
        kd_gb_child_cell(t.cell, d.axis, d.pos, side, ch->cells[side]);
        ch->goes_on[side] = ch->counts[side] > g.max_leaf_prims && (int)t.depth + 1 < g.max_depth &&
                            kd_gb_box_area(ch->cells[side]) > 0.0f;
        ch->num_members += ch->goes_on[side] ? ch->counts[side] : 0;
    }
}

// What split `d` means for its members, the children's entries from `base`:
// KD_GB_DEAD_TASK where a child is a leaf.
KD_GB_HD member_plan make_plan(const decision &d, const children &ch, uint32_t base)
{
    member_plan plan;
    plan.below = d.below;
    plan.above = d.above;
    plan.at[0] = ch.goes_on[0] ? base : KD_GB_DEAD_TASK;
    plan.at[1] = ch.goes_on[1] ? base + (ch.goes_on[0] ? ch.counts[0] : 0u) : KD_GB_DEAD_TASK;
    plan.pos = d.pos;
    plan.axis = d.axis;
    return plan;
}

// The routing of one member (bit `bit` of its node's mask) under its node's
// plan: to the children that go on, its bounds at their arena entries.
struct member_route {
    unsigned long long bit;
    int below, above;
};

// The route of the member with bit `bit` under `plan`; 0 where it goes
// nowhere (a member of neither child that goes on).
KD_GB_HD int route_by_plan(const member_plan &plan, unsigned long long bit, member_route *r)
{
    r->bit = bit;
    r->below = plan.at[0] != KD_GB_DEAD_TASK && (plan.below & bit);
    r->above = plan.at[1] != KD_GB_DEAD_TASK && (plan.above & bit);
    return r->below || r->above;
}

// The member's arena entry in child `side`.
KD_GB_HD uint32_t side_entry(const member_plan &plan, const member_route &r, int side)
{
    unsigned long long mask = side ? plan.above : plan.below;
    return plan.at[side] + (uint32_t)kd_gb_popc64(mask & (r.bit - 1ull));
}

// The member's bounds in child `side`, at that child's arena entry for it.
KD_GB_HD void put_side(const small_args &g, const member_plan &plan, const member_route &r, int side,
                       const member_box &box)
{
    g.arena[side_entry(plan, r, side)] = box;
}

// Copies the member whose bounds are arena entry j along r, unless it
// straddles the plane: 1 where it does (it is left to clip).
KD_GB_HD int copy_routed(const small_args &g, const member_plan &plan, const member_route &r, uint32_t j)
{
    if ((plan.below & plan.above & r.bit) != 0)
        return 1;
    const member_box box = g.arena[j];
    if (r.below)
        put_side(g, plan, r, 0, box);
    if (r.above)
        put_side(g, plan, r, 1, box);
    return 0;
}

// The clip job of a straddling member (arena entry `entry` of task t, routed
// by r under plan): what the clip pass needs, without looking it up again.
KD_GB_HD clip_job make_clip_job(const task &t, const member_plan &plan, const member_route &r, uint32_t entry)
{
    clip_job job;
    for (int k = 0; k < 6; k++)
        job.cell[k] = t.cell[k];
    job.pos = plan.pos;
    job.axis = plan.axis;
    job.entry = entry;
    job.ref = t.ref_start + (uint32_t)kd_gb_popc64(r.bit - 1ull);
    job.at[0] = r.below ? side_entry(plan, r, 0) : KD_GB_DEAD_TASK;
    job.at[1] = r.above ? side_entry(plan, r, 1) : KD_GB_DEAD_TASK;
    return job;
}

// A clipped straddler's bounds into its entry in child `side` (none where
// that child is a leaf).
KD_GB_HD void store_clipped(const small_args &g, const clip_job &job, int side, const float *bounds)
{
    if (job.at[side] == KD_GB_DEAD_TASK)
        return;
    member_box out;
    for (int k = 0; k < 6; k++)
        out.v[k] = bounds[k];
    g.arena[job.at[side]] = out;
}

// Clips a straddler once for both children, into their entries for it
// (the clip's polygons in poly: shared memory on the device).
template <typename Poly>
KD_GB_HD void run_clip_job(const small_args &g, const clip_job &job, Poly &poly)
{
    const member_box box = g.arena[job.entry];
    const uint32_t tri = g.refs.tri[job.ref];
    float child[2][6];
    kd_gb_clip_split_in(poly, g.tri_verts + 9 * (size_t)tri, job.cell, box.v, job.axis, job.pos, child);
    for (int side = 0; side < 2; side++)
        store_clipped(g, job, side, child[side]);
}

// Writes split `d` of a task into the slots reserved for it (two tasks
// from `slot`, the members from `base`). The team's lanes share the stores:
// lane 0 the plan and the node, lanes 1 and 2 % lanes a child each. Returns 0 where
// the slots passed the arrays' ends (the run is void; nothing is written).
KD_GB_HD int commit_split(const small_args &g, const task &t, const decision &d,
                           const children &ch, uint32_t slot, uint32_t base, uint32_t lane,
                           uint32_t lanes)
{
    const uint32_t next_tasks = task_half_start(g, g.wave + 1u);
    const uint32_t place = slot + g.task_shift;
    if ((size_t)slot + 2 > g.task_capacity || (size_t)place + 2 > (size_t)next_tasks + g.task_half ||
        (size_t)base + ch.num_members > (size_t)next_half_start(g) + g.arena_half) {
        if (lane == 0)
            g.scalars->pool_overflow = 1; // the host grows the arrays and reruns
        return 0;
    }
    const member_plan plan = make_plan(d, ch, base);
    uint32_t first_child = g.pool_base + (slot - g.num_roots);
    if (lane == 0)
        write_record(g, t, kd_gb_pool_record((uint32_t)d.axis, d.pos, first_child, first_child + 1, 0,
                                             t.parent, t.depth));
KD_GB_UNROLL
    for (int side = 0; side < 2; side++) {
        if (lane != (1u + (uint32_t)side) % lanes)
            continue;
        task c;
        c.mask = side ? d.above : d.below;
        for (int k = 0; k < 6; k++)
            c.cell[k] = ch.cells[side][k];
        c.root = t.root;
        c.ref_start = t.ref_start;
        c.pool_id = first_child + (uint32_t)side;
        c.parent = t.pool_id;
        c.bounds_at = plan.at[side];
        c.depth = (uint16_t)(t.depth + 1);
        c.bad_refines = (uint16_t)d.bad_refines;
        c.allowance = d.allowance;
        g.tasks[place + (uint32_t)side] = c;
        if (!ch.goes_on[side])
            write_leaf(g, c);
    }
    return 1;
}

// A node decided by a whole warp (or the emulation's one lane): its leaf, or
// its split with slots reserved by lane 0. Returns 1 where it committed a
// split, whose children are *ch and members go from *base.
KD_GB_HD int finish_task(const small_args &g, const task &t, const decision &d, uint32_t lane, uint32_t lanes,
                         children *ch, uint32_t *base)
{
    if (d.leaf) {
        if (lane == 0)
            write_leaf(g, t);
        return 0;
    }
    plan_children(g, t, d, ch);
    uint32_t slot = 0;
    *base = 0;
    if (lane == 0)
        reserve(g, ch->num_members, &slot, base);
#if defined(__CUDA_ARCH__)
    slot = __shfl_sync(0xffffffffu, slot, 0);
    *base = __shfl_sync(0xffffffffu, *base, 0);
#endif
    return commit_split(g, t, d, *ch, slot, *base, lane, lanes);
}

// Member c of task t filed under its split's plan: copied to the children
// that go on unless it straddles the plane; 1 where it straddles (its clip
// job then goes in the wave's queue, queue_clip).
KD_GB_HD int file_member(const small_args &g, const task &t, const member_plan &plan, uint32_t c, member_route *r)
{
    return route_by_plan(plan, 1ull << kd_gb_nth_bit64(t.mask, c), r) && copy_routed(g, plan, *r, t.bounds_at + c);
}

// Member c's clip job at queue place `slot`; a place past the array voids
// the run (the host grows the array to at least the count it was short of).
KD_GB_HD void queue_clip(const small_args &g, const task &t, const member_plan &plan, const member_route &r,
                         uint32_t c, uint32_t slot)
{
    if (slot >= g.clip_capacity) {
        kd_gb_atomic_max(&g.scalars->clip_short, slot + 1u);
        g.scalars->pool_overflow = 1;
        return;
    }
    g.clip_jobs[slot] = make_clip_job(t, plan, r, t.bounds_at + c);
}

// One node by one lane (the host emulation): its decision member by member,
// its outcome written, its members filed, its straddlers queued in order.
KD_GB_HD void process_task_serial(const small_args &g, uint32_t index, member_slots *slots)
{
    const task t = g.tasks[index];
    if (t.bounds_at == KD_GB_DEAD_TASK)
        return; // a leaf its parent wrote
    const uint32_t m = (uint32_t)kd_gb_popc64(t.mask);
    const decision d = splittable(g, t, m) ? decide_serial(g, t, m, slots) : leaf_decision(t);
    children ch;
    uint32_t base;
    if (!finish_task(g, t, d, 0, 1, &ch, &base))
        return;
    const member_plan plan = make_plan(d, ch, base);
    kd_gb_wave_state &wave = g.scalars->wave[g.wave & 1u];
    for (uint32_t c = 0; c < m; c++) {
        member_route r;
        if (file_member(g, t, plan, c, &r))
            queue_clip(g, t, plan, r, c, wave.clips++);
    }
}

} // namespace kd_gb_small

#endif
