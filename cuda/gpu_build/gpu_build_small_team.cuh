// The node pass on the device: a team of 2, 4, 8 or 16 lanes per node of at
// most 16 members (most of the small stage's nodes), the whole warp per node
// of up to 32, a lane per member, and two members per lane up to 64. Each
// lane costs its members' candidate planes with cost_member, against the
// other members' bounds in the warp's shared-memory slots; the team takes
// the cheapest (cost, id) by shuffles, which is the winner decide_serial
// takes member by member in the host emulation. Device only; included by
// gpu_build_small.cu.
#ifndef KD_GPU_BUILD_SMALL_TEAM_CUH
#define KD_GPU_BUILD_SMALL_TEAM_CUH

#include "gpu_build_small_tasks.cuh"
#if KD_DEVICE_CODE
#include "block_scan.cuh" // kd_warp_inclusive_scan, kd_sum_op
#endif

namespace kd_gb_small {

// Teams are 2, 4, 8 or 16 lanes wide (the member count rounded up to a power
// of two), packed into a warp widest first, each on lanes aligned to its
// width (so shuffles by xor stay inside it): with nodes of two members a
// third of all, a warp decides several nodes at a time. Nodes of more
// members take the whole warp.
static_assert(KD_GB_TEAM_MAX == 8 || KD_GB_TEAM_MAX == 16, "team_width makes teams of up to 8 or 16 lanes");
enum { TEAM_MAX = KD_GB_TEAM_MAX, PASS_TASKS = 32 }; // a run sorts on one lane per task

#if KD_DEVICE_CODE
// The bit of member c (< MAX) in the root's mask: for a team of at most
// eight lanes the lowest once the c lower ones are cleared, else the general
// search.
template <int MAX>
__device__ __forceinline__ unsigned long long member_bit(unsigned long long mask, uint32_t c)
{
    if constexpr (MAX > 8) {
        return 1ull << kd_gb_nth_bit64(mask, c);
    } else {
#pragma unroll
        for (uint32_t k = 0; k < MAX - 1; k++)
            mask = k < c ? mask & (mask - 1ull) : mask;
        return mask & (~mask + 1ull);
    }
}

// The warp's member slots (gpu_build_small_node.cuh) in shared memory.
__device__ __forceinline__ member_slots *warp_slots()
{
    __shared__ member_slots slots[WARPS_PER_BLOCK];
    return &slots[threadIdx.x >> 5];
}

// A team of w lanes (a power of two up to MAX, on lanes aligned to w)
// decides a node of at most PER * w members, PER per lane: lane tl of the
// team holds members tl, tl + w, ... (PER is 2 only for the whole warp and
// nodes of 33 to 64 members). The whole warp runs this together (every
// shuffle has all 32 lanes); a team whose node is not `active` computes
// nothing that is used. span: the widest team in the warp (every lane).
template <int MAX, int PER = 1>
__device__ decision decide_team(const small_args &g, const task &t, uint32_t m, int active,
                                uint32_t tl, uint32_t w, uint32_t span)
{
    static_assert(PER == 1 || MAX == 32, "two members per lane take the whole warp");
    const unsigned all = 0xffffffffu;
    const uint32_t base = (threadIdx.x & 31u) - tl;
    decision d = leaf_decision(t);
    int have[PER];
    unsigned long long my_bit[PER];
    // Each member's bounds into its slot, where the counting loop and the
    // children's masks read them (not held in registers through the loop:
    // they spilled there). Every lane writes, so no slot is read unset; the
    // barriers keep the last node's reads before these writes and these
    // before the reads.
    member_slots *slots = warp_slots();
    __syncwarp();
#pragma unroll
    for (int h = 0; h < PER; h++) {
        const uint32_t c = tl + (uint32_t)h * w;
        have[h] = active && c < m;
        my_bit[h] = have[h] ? member_bit<MAX * PER>(t.mask, c) : 0ull;
        member_box box;
        if (have[h])
            box = g.arena[t.bounds_at + c];
        else
            for (int k = 0; k < 6; k++)
                box.v[k] = 0.0f;
        put_slot(slots, base + c, box);
    }
    __syncwarp();
    float inv_area = KD_GB_FDIV(1.0f, kd_gb_box_area(t.cell));
    candidate best = no_candidate();
    // This lane's members one after the other (the counters of one at a
    // time keep the registers of the packed teams' path). Each lane loops
    // over its own node's members only (no shuffle in the loop, so the
    // lanes need not keep together).
#pragma unroll 1
    for (int h = 0; h < PER; h++)
        cost_member(g, t, m, slots, base, tl + (uint32_t)h * w, have[h], inv_area, &best);
    // The team's cheapest (xor by less than w stays in the team).
    // Rounds as wide as the widest team of the warp (`span`, the same in
    // every lane) or wider would join nothing: they are skipped.
#pragma unroll
    for (int dd = MAX / 2; dd > 0; dd >>= 1) {
        if ((uint32_t)dd >= span)
            continue;
        float other = __shfl_xor_sync(all, best.cost, dd);
        uint32_t other_id = __shfl_xor_sync(all, best.id, dd);
        int other_axis = __shfl_xor_sync(all, best.axis, dd);
        float other_pos = __shfl_xor_sync(all, best.pos, dd);
        if ((uint32_t)dd < w && (other < best.cost || (other == best.cost && other_id < best.id))) {
            best.cost = other;
            best.id = other_id;
            best.axis = other_axis;
            best.pos = other_pos;
        }
    }
    // The children's masks (computed by every lane; shuffles need them all).
    const int found = best.id != KD_GB_NONE;
    unsigned long long below_mask = 0ull, above_mask = 0ull;
#pragma unroll
    for (int h = 0; h < PER; h++) {
        float lo[3], hi[3];
        slot_bounds(slots, base + tl + (uint32_t)h * w, lo, hi);
        if (found)
            member_sides(best, lo, hi, my_bit[h], &below_mask, &above_mask);
    }
#pragma unroll
    for (int dd = MAX / 2; dd > 0; dd >>= 1) {
        if ((uint32_t)dd >= span)
            continue;
        unsigned long long other_below = __shfl_xor_sync(all, below_mask, dd);
        unsigned long long other_above = __shfl_xor_sync(all, above_mask, dd);
        if ((uint32_t)dd < w) {
            below_mask |= other_below;
            above_mask |= other_above;
        }
    }
    if (active && found && accept_split(g, m, best.cost, &d))
        take_split(t, m, best.axis, best.pos, below_mask, above_mask, &d);
    return d;
}

// A split just committed: its members filed where the node was decided
// (a pass of its own would read the node's plan, task and members again),
// each lane for the members it holds: copied where they lie on one side of
// the plane, queued for the clip pass where they straddle it (one atomic
// per warp). Member c is on the team's lane c % w, in its c / w-th place.
// The whole warp calls this.
__device__ void file_members(const small_args &g, const task &t, const decision &d, const children &ch,
                             uint32_t base, int committed, uint32_t tl, uint32_t w)
{
    const uint32_t m = committed ? (uint32_t)kd_gb_popc64(t.mask) : 0u;
    const member_plan plan = committed ? make_plan(d, ch, base) : member_plan{};
#pragma unroll
    for (uint32_t h = 0; h < 2; h++) {
        const uint32_t c = tl + h * w;
        member_route r;
        const int straddles = c < m && file_member(g, t, plan, c, &r);
        const uint32_t slot = kd_gb_warp_slot(&g.scalars->wave[g.wave & 1u].clips, straddles);
        if (straddles)
            queue_clip(g, t, plan, r, c, slot);
    }
}

// A node of more than TEAM_MAX members with the whole warp, in registers:
// a lane per member up to 32 members, two per lane up to 64.
__device__ void process_task_warp(const small_args &g, uint32_t index, uint32_t lane)
{
    const task t = g.tasks[index];
    const uint32_t m = (uint32_t)kd_gb_popc64(t.mask);
    const int active = splittable(g, t, m);
    const decision d = m > 32 ? decide_team<32, 2>(g, t, m, active, lane, 32, 32)
                              : decide_team<32>(g, t, m, active, lane, 32, 32);
    children ch;
    uint32_t base = 0;
    const int committed = finish_task(g, t, d, lane, 32, &ch, &base);
    file_members(g, t, d, ch, base, committed, lane, 32);
}

// A team's width for a task: its member count rounded up to a power of two
// (at least 2); 0 for a dead task (nothing to do), 32 for a node of more
// than TEAM_MAX (8 or 16) members (the whole warp).
__device__ __forceinline__ uint32_t team_width(const small_args &g, uint32_t index, uint32_t end)
{
    if (index >= end)
        return 0;
    const task &t = g.tasks[index];
    if (t.bounds_at == KD_GB_DEAD_TASK)
        return 0;
    const uint32_t m = (uint32_t)kd_gb_popc64(t.mask);
    return m <= 2 ? 2u : m <= 4 ? 4u : m <= 8 ? 8u : m <= TEAM_MAX ? 16u : 32u;
}

// One pass over a run's tasks, from sorted position `pos` (lane s holds the
// run's task at sorted position s and its width): as many as fit are
// packed into teams, each on the next lanes aligned to its width, and
// decided together, or one larger node takes the whole warp. Lane 0
// reserves the splits' slots and entries with one atomic. Returns
// the position after the tasks taken. The whole warp calls this.
__device__ uint32_t process_pass(const small_args &g, uint32_t first,
                                 uint32_t n, uint32_t sorted_task, uint32_t sorted_width, uint32_t pos,
                                 uint32_t lane)
{
    const unsigned all = 0xffffffffu;
    const uint32_t lead_width = __shfl_sync(all, sorted_width, (int)pos);
    if (lead_width == 0u)
        return n; // only dead tasks are left: nothing to do
    if (lead_width == 32u) {
        process_task_warp(g, first + __shfl_sync(all, sorted_task, (int)pos), lane);
        __syncwarp();
        return pos + 1;
    }
    uint32_t taken = pos, at = 0, index = 0, tl = 0, w = 0;
    int in_team = 0;
#pragma unroll 1
    for (uint32_t j = pos; j < n; j++) {
        const uint32_t wj = __shfl_sync(all, sorted_width, (int)j);
        const uint32_t task_j = __shfl_sync(all, sorted_task, (int)j);
        if (wj == 0u)
            break;
        const uint32_t place = (at + wj - 1u) & ~(wj - 1u);
        if (place + wj > 32u)
            break;
        if (lane >= place && lane < place + wj) {
            in_team = 1;
            index = first + task_j;
            tl = lane - place;
            w = wj;
        }
        at = place + wj;
        taken = j + 1;
    }
    task t;
    t.mask = 0;
    t.bounds_at = KD_GB_DEAD_TASK;
    if (in_team)
        t = g.tasks[index];
    const uint32_t m = in_team ? (uint32_t)kd_gb_popc64(t.mask) : 0u;
    const int active = in_team && splittable(g, t, m);
    decision d = decide_team<TEAM_MAX>(g, t, m, active, tl, in_team ? w : 1u, lead_width);
    if (in_team && d.leaf && tl == 0)
        write_leaf(g, t);
    const int splits = in_team && !d.leaf;
    children ch;
    ch.num_members = 0;
    if (splits)
        plan_children(g, t, d, &ch);
    // The pass's splits take their slots and entries together with one
    // atomic (reserve_slots), in lane order (a team leads at its first lane):
    // two slots per split, entries by a scan of the leads' member counts.
    const int leads_split = splits && tl == 0;
    const unsigned leads = __ballot_sync(all, leads_split);
    uint32_t slot = 0, base = 0;
    if (leads) {
        const uint32_t my_members = leads_split ? ch.num_members : 0u;
        uint32_t through[1] = {my_members}; // inclusive scan over the lanes
        kd_warp_inclusive_scan<1>(through, kd_sum_op());
        const uint32_t members_through = through[0];
        const uint32_t total_members = __shfl_sync(all, members_through, 31);
        uint32_t first_slot = 0, first_base = 0;
        if (lane == 0)
            reserve_slots(g, 2u * (uint32_t)__popc(leads), total_members, &first_slot, &first_base);
        first_slot = __shfl_sync(all, first_slot, 0);
        first_base = __shfl_sync(all, first_base, 0);
        const uint32_t lead_slot = first_slot + 2u * (uint32_t)__popc(leads & ((1u << lane) - 1u));
        const uint32_t lead_base = first_base + members_through - my_members;
        // Each lane its team's (lanes outside teams read their own, unused).
        slot = __shfl_sync(all, lead_slot, (int)(lane - tl));
        base = __shfl_sync(all, lead_base, (int)(lane - tl));
    }
    int committed = 0;
    if (splits)
        committed = commit_split(g, t, d, ch, slot, base, tl, w);
    file_members(g, t, d, ch, base, committed, tl, w);
    __syncwarp();
    return taken;
}

// A run of tasks [first, last) (at most PASS_TASKS), widest first: passes
// then hold teams of like widths, so the member loop, which keeps the warp
// as long as the largest node of the pass, wastes less, and the aligned placement leaves
// no gaps. The whole warp calls this.
__device__ void process_run(const small_args &g, uint32_t first,
                            uint32_t last, uint32_t lane)
{
    const unsigned all = 0xffffffffu;
    const uint32_t n = last - first;
    const uint32_t my_width = lane < n ? team_width(g, first + lane, last) : 0u;
    // This task's place in the order (stable), then each place's task.
    uint32_t rank = 0;
#pragma unroll 1
    for (uint32_t j = 0; j < n; j++) {
        const uint32_t wj = __shfl_sync(all, my_width, (int)j);
        rank += wj > my_width || (wj == my_width && j < lane);
    }
    uint32_t sorted_task = 0;
#pragma unroll 1
    for (uint32_t j = 0; j < n; j++)
        sorted_task = __shfl_sync(all, rank, (int)j) == lane ? j : sorted_task;
    const uint32_t sorted_width = __shfl_sync(all, my_width, (int)sorted_task);
#pragma unroll 1
    for (uint32_t pos = 0; pos < n;)
        pos = process_pass(g, first, n, sorted_task, sorted_width, pos, lane);
}
#endif

} // namespace kd_gb_small

#endif
