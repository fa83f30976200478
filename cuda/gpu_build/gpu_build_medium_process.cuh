// A medium node, step by step, by a team (gpu_build_medium_team.cuh): a
// warp or a block's warps on the device, one lane in the host emulation.
// Each warp takes its own contiguous share of the node's references, in
// order, so that ranks on each side (the counts of the warps before, then
// votes) keep the references in order as one lane would: the outputs are
// the same however many lanes take the node. Per node the arithmetic is the
// large stage's own (the same choice functions and plan, exact min/max and
// integer bins), so the tree is the one the large stage would have built.
// Included by gpu_build_medium.cu only.
#ifndef KD_GPU_BUILD_MEDIUM_PROCESS_CUH
#define KD_GPU_BUILD_MEDIUM_PROCESS_CUH

#include "gpu_build_medium_team.cuh"

namespace kd_gb_medium {

enum { UNROLL = KD_GB_MED_UNROLL }; // a lane's references loaded this many at a time

// This warp's share of a node's n references: [*my_at, *my_at + *my_n).
template <typename Team>
KD_GB_HD void warp_share(const Team &team, uint32_t n, uint32_t *my_at, uint32_t *my_n)
{
    const uint32_t lanes = Team::LANES * Team::WARPS;
    const uint32_t share = Team::WARPS == 1 ? n : (n + lanes - 1u) / lanes * Team::LANES;
    *my_at = team.warp() * share < n ? team.warp() * share : n;
    *my_n = n - *my_at < share ? n - *my_at : share;
}

template <typename Team>
KD_GB_HD void load_box(const Team &team, const kd_gb_refs &refs, uint32_t i, float *box)
{
    for (int a = 0; a < 3; a++) {
        box[a] = team.load(refs.lo[a] + i);
        box[3 + a] = team.load(refs.hi[a] + i);
    }
}

// f(box) for each of this lane's references of [first, first + n).
template <typename Team, class F>
KD_GB_HD void for_each_box(const Team &team, const medium_args &g, uint32_t first, uint32_t n, const F &f)
{
    const uint32_t lane = team.lane();
    for (uint32_t base = 0; base < n; base += Team::LANES * UNROLL) {
        float box[UNROLL][6];
KD_GB_UNROLL
        for (int u = 0; u < UNROLL; u++)
            if (base + u * Team::LANES + lane < n)
                load_box(team, g.refs, first + base + u * Team::LANES + lane, box[u]);
KD_GB_UNROLL
        for (int u = 0; u < UNROLL; u++)
            if (base + u * Team::LANES + lane < n)
                f(box[u]);
    }
}

// The node's bounds t (min and max are exact: any order gives the large
// stage's). A node made here got them from its parent, which wrote its
// references.
template <typename Team>
KD_GB_HD void node_bounds(const Team &team, const medium_args &g, uint32_t index, uint32_t mine, uint32_t my_n,
                          float *t)
{
    if (index < g.num_initial) {
        reset_bounds(t);
        for_each_box(team, g, mine, my_n, [&](const float *box) { grow_bounds(t, box); });
        team.reduce_bounds(t);
    } else {
KD_GB_UNROLL
        for (int k = 0; k < 6; k++)
            t[k] = team.load(g.tight + 6 * (size_t)index + k);
    }
}

// Empty cuts in a row, the references staying where they are (see
// kd_gb_plan_empty_cut): the lead lane takes each cut's pool slots and
// writes its records; every lane follows the node down to its large child.
template <typename Team>
KD_GB_HD kd_gb_split_choice chain_empty_cuts(const Team &team, const medium_args &g, kd_gb_large_node *node,
                                             kd_gb_split_choice c, const float *t, int sane, const uint32_t *bins)
{
    uint32_t cuts = 0;
    for (int side; (side = kd_gb_empty_cut_side(c, t, sane)) >= 0; cuts++) {
        kd_gb_plan plan;
        if (!kd_gb_plan_empty_cut(g.pp, *node, c, side, &plan))
            break;
        int ok = 1;
        uint32_t first_child = 0;
        if (team.lead()) {
            first_child = take(g, &g.scalars->med_pool, 2, g.pool_capacity, &ok);
            if (ok)
                write_empty_cut(g, *node, c, side, first_child);
        }
        team.share_cut(&ok, &first_child);
        if (!ok)
            break; // the normal path finds the pool full too, and stops
        *node = empty_cut_child(*node, plan, c, side, first_child);
        c = team.choose_sah(g.sah, *node, t, bins);
    }
    if (team.lead() && cuts)
        kd_gb_atomic_add(&g.scalars->med_cuts, cuts);
    return c;
}

// The node's split: binned SAH over the team's bins, its empty cuts made in
// a row (*node becomes the last cut's large child), or the median split.
template <typename Team>
KD_GB_HD kd_gb_split_choice choose_split(const Team &team, const medium_args &g, kd_gb_large_node *node,
                                         const float *t, uint32_t mine, uint32_t my_n)
{
    if (!g.use_sah)
        return g.median.choose(*node, t);
    const int num_bins = g.sah.num_bins;
    uint32_t *bins = team.bins();
    for (int j = (int)(team.warp() * Team::LANES + team.lane()); j < 6 * num_bins; j += Team::LANES * Team::WARPS)
        bins[j] = 0;
    team.sync();
    int sane = 1;
    for_each_box(team, g, mine, my_n, [&](const float *box) {
        kd_gb_bin_one(box, box + 3, t, num_bins, bins);
        sane &= box[0] <= box[3] && box[1] <= box[4] && box[2] <= box[5];
    });
    sane = team.all(sane);
    const kd_gb_split_choice c = team.choose_sah(g.sah, *node, t, bins);
    return chain_empty_cuts(team, g, node, c, t, sane, bins);
}

// This warp's counts on each side of the split (all left for a leaf).
template <typename Team>
KD_GB_HD void count_sides(const Team &team, const medium_args &g, kd_gb_split_choice c, uint32_t mine, uint32_t my_n,
                          uint32_t *num_left, uint32_t *num_right)
{
    *num_left = *num_right = 0;
    if (c.axis < 0) {
        *num_left = my_n;
        return;
    }
    // The axis's arrays by selects (a runtime index would put the struct in
    // local memory).
    const float *lo_axis = kd_gb_pick3(c.axis, g.refs.lo[0], g.refs.lo[1], g.refs.lo[2]);
    const float *hi_axis = kd_gb_pick3(c.axis, g.refs.hi[0], g.refs.hi[1], g.refs.hi[2]);
    const uint32_t lane = team.lane();
    for (uint32_t base = 0; base < my_n; base += Team::LANES * UNROLL) {
        float lo[UNROLL], hi[UNROLL];
KD_GB_UNROLL
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t i = mine + base + u * Team::LANES + lane;
            lo[u] = base + u * Team::LANES + lane < my_n ? team.load(lo_axis + i) : INFINITY;
            hi[u] = base + u * Team::LANES + lane < my_n ? team.load(hi_axis + i) : -INFINITY;
        }
KD_GB_UNROLL
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t side = kd_gb_side(lo[u], hi[u], c.pos); // 0 past the end
            *num_left += team.count(side & 1u);
            *num_right += team.count(side >> 1);
        }
    }
}

// Clips and files the ring's jobs [head, head + count), a lane each (one
// clip for both copies of a straddler), and folds the clipped boxes into
// the lane's bounds of the large children.
template <typename Team>
KD_GB_HD void drain(const Team &team, const medium_args &g, const medium_route &route, const uint4 *ring,
                    uint32_t head, uint32_t count, float (*child_t)[6])
{
    const uint32_t lane = team.lane();
    if (lane >= count)
        return;
    const uint4 job = ring[(head + lane) & (MED_RING - 1)];
    const uint32_t tri = team.load(g.refs.tri + job.x);
    float box[6], child[2][6];
    load_box(team, g.refs, job.x, box);
    team.clip(g, route, tri, box, child);
KD_GB_UNROLL
    for (int s = 0; s < 2; s++) {
        const uint32_t word = s ? job.z : job.y;
        if (word >> 31) {
            put(g, route, s, word & 0x7fffffffu, tri, child[s]);
            grow_bounds(child_t[s], child[s]);
        }
    }
}

// One reference (arena index i, triangle tri, bounds box; in: a lane that
// has one) filed under the route: each side's rank by a vote, a copy where
// it lies on one side, a ring job (both copies, one clip) where it
// straddles. rank: this warp's next rank on each side; tail: the ring's.
template <typename Team>
KD_GB_HD void file_one(const Team &team, const medium_args &g, const medium_route &route, int in, uint32_t i,
                       uint32_t tri, const float *box, uint32_t *rank, uint4 *ring, uint32_t *tail,
                       float (*child_t)[6])
{
    const int axis = route.c.axis < 0 ? 0 : route.c.axis;
    const uint32_t side = in ? kd_gb_side(kd_gb_pick3(axis, box[0], box[1], box[2]),
                                          kd_gb_pick3(axis, box[3], box[4], box[5]), route.c.pos)
                             : 0u;
    const int straddles = side == KD_SIDE_BOTH;
    uint32_t keep_rank[2] = {0, 0}; // per side: keep << 31 | rank
KD_GB_UNROLL
    for (int s = 0; s < 2; s++) {
        const int want = (side >> s) & 1u;
        uint32_t before;
        const uint32_t goes = team.vote(want, &before);
        const uint32_t my_rank = rank[s] + before;
        rank[s] += goes;
        if (route.dest_kind[s] == KD_GB_DEST_DROP)
            continue;
        if (want && !straddles) {
            put(g, route, s, my_rank, tri, box);
            grow_bounds(child_t[s], box);
        }
        keep_rank[s] = (uint32_t)want << 31 | my_rank;
    }
    const int clip = straddles && ((keep_rank[0] | keep_rank[1]) >> 31);
    uint32_t before;
    const uint32_t clips = team.vote(clip, &before);
    if (clip) {
        uint4 job;
        job.x = i, job.y = keep_rank[0], job.z = keep_rank[1], job.w = 0u;
        ring[(*tail + before) & (MED_RING - 1)] = job;
    }
    *tail += clips;
}

// Files this warp's share of the node's references under its route, in
// order on each side; straddlers wait in the warp's ring and are clipped
// LANES at a time, so clipping lanes do not hold up the rest. Each lane
// keeps the bounds of what it files to the large children (child_t).
template <typename Team>
KD_GB_HD void file_references(const Team &team, const medium_args &g, const medium_route &route, uint32_t mine,
                              uint32_t my_at, uint32_t my_n, uint32_t *rank, float (*child_t)[6])
{
    const int leaf = route.plan.leaf;
    const uint32_t leaf_base = route.leaf_base, lane = team.lane();
    uint4 *ring = team.ring();
    uint32_t head = 0, tail = 0;
    for (uint32_t base = 0; base < my_n; base += Team::LANES * UNROLL) {
        uint32_t tri[UNROLL];
        float box[UNROLL][6];
KD_GB_UNROLL
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t i = mine + base + u * Team::LANES + lane;
            if (base + u * Team::LANES + lane < my_n) {
                tri[u] = team.load(g.refs.tri + i);
                if (!leaf)
                    load_box(team, g.refs, i, box[u]);
            }
        }
KD_GB_UNROLL
        for (int u = 0; u < UNROLL; u++) {
            const uint32_t at = base + u * Team::LANES + lane;
            if (leaf) {
                if (at < my_n)
                    g.leaf_refs[leaf_base + my_at + at] = tri[u];
                continue;
            }
            file_one(team, g, route, at < my_n, mine + at, tri[u], box[u], rank, ring, &tail, child_t);
            team.sync_warp();
            for (; tail - head >= Team::LANES; head += Team::LANES)
                drain(team, g, route, ring, head, Team::LANES, child_t);
            team.sync_warp();
        }
    }
    if (tail != head)
        drain(team, g, route, ring, head, tail - head, child_t);
}

// Node `index` by a team: bounds, split (its empty cuts in a row), side
// counts, the plan and its records (by the lead), the references filed,
// and the large children's bounds (which become theirs). The device then
// publishes the children (medium_kernel); the emulation takes them in
// queue order.
template <typename Team>
KD_GB_HD void process_node(const Team &team, const medium_args &g, uint32_t index)
{
    kd_gb_large_node node = team.load_node(g.tasks + index);
    uint32_t my_at, my_n;
    warp_share(team, node.ref_count, &my_at, &my_n);
    const uint32_t mine = node.ref_start + my_at;
    float t[6];
    node_bounds(team, g, index, mine, my_n, t);
    const kd_gb_split_choice c = choose_split(team, g, &node, t, mine, my_n);
    uint32_t num_left, num_right, rank[2] = {0, 0};
    count_sides(team, g, c, mine, my_n, &num_left, &num_right);
    team.join_counts(&num_left, &num_right, rank);
    medium_route &route = team.route();
    if (team.lead())
        route = commit(g, node, c, num_left, num_right);
    team.sync();
    const int ok = route.ok;
    float child_t[2][6];
    reset_bounds(child_t[0]);
    reset_bounds(child_t[1]);
    if (ok)
        file_references(team, g, route, mine, my_at, my_n, rank, child_t);
    const int large[2] = {ok && route.dest_kind[0] == KD_GB_DEST_LARGE, ok && route.dest_kind[1] == KD_GB_DEST_LARGE};
    team.join_child_bounds(child_t, large);
    if (team.lead()) {
KD_GB_UNROLL
        for (int s = 0; s < 2; s++)
            if (large[s])
                for (int k = 0; k < 6; k++)
                    g.tight[6 * (size_t)route.slot[s] + k] = child_t[s][k];
    }
    // The team's writes are done before anyone publishes the children.
    team.sync();
}

} // namespace kd_gb_medium

#endif
