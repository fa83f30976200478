// The large-node stage's choice of split (spatial median with empty-space
// cut-off, or binned SAH) and the plan that follows from its exact counts.
// Per-element code shared by the device kernels and the host emulation.
#ifndef KD_GPU_BUILD_LARGE_SPLIT_CUH
#define KD_GPU_BUILD_LARGE_SPLIT_CUH

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"
#include "gpu_build_team.cuh"

// Zhou et al.: cut off empty space where one side of the node is mostly
// empty, else split the tight box's longest axis at its middle.
struct kd_gb_choose_median {
    const kd_gb_large_node *nodes;
    const float *tight;           // 6 floats per node: the references' bounds
    kd_gb_split_choice *choice;
    int max_depth;
    int force_leaf;
    float empty_ratio;

    // Node `node`'s choice from its references' bounds t.
    __host__ __device__ kd_gb_split_choice choose(const kd_gb_large_node &node, const float *t) const
    {
        kd_gb_split_choice c;
        c.axis = -1;
        c.pos = 0.0f;
        const float *cell = node.cell;
        if (!force_leaf && (int)node.depth < max_depth) {
            // Empty space: the widest empty slab over the threshold, its
            // plane one float outside the references so none touches it.
            float best_gap = empty_ratio;
            for (int a = 0; a < 3; a++) {
                float ext = KD_GB_FSUB(cell[3 + a], cell[a]);
                if (!(ext > 0.0f))
                    continue;
                float gap_lo = KD_GB_FDIV(KD_GB_FSUB(t[a], cell[a]), ext);
                float pos_lo = nextafterf(t[a], -INFINITY);
                if (gap_lo > best_gap && pos_lo > cell[a]) {
                    best_gap = gap_lo;
                    c.axis = a;
                    c.pos = pos_lo;
                }
                float gap_hi = KD_GB_FDIV(KD_GB_FSUB(cell[3 + a], t[3 + a]), ext);
                float pos_hi = nextafterf(t[3 + a], INFINITY);
                if (gap_hi > best_gap && pos_hi < cell[3 + a]) {
                    best_gap = gap_hi;
                    c.axis = a;
                    c.pos = pos_hi;
                }
            }
            if (c.axis < 0) {
                int a = 0;
                float ext[3];
                for (int j = 0; j < 3; j++)
                    ext[j] = KD_GB_FSUB(t[3 + j], t[j]);
                if (ext[1] > ext[a])
                    a = 1;
                if (ext[2] > ext[a])
                    a = 2;
                float mid = KD_GB_FMUL(KD_GB_FADD(t[a], t[3 + a]), 0.5f);
                if (ext[a] > 0.0f && cell[a] < mid && mid < cell[3 + a]) {
                    c.axis = a;
                    c.pos = mid;
                }
            }
            c.pos = KD_GB_FADD(c.pos, 0.0f); // no -0 in the tree
        }
        return c;
    }

    __host__ __device__ void operator()(uint32_t k) const
    {
        choice[k] = choose(nodes[k], tight + 6 * (size_t)k);
    }
};

// One reference's bounds (lo, hi) into its node's bins (node_bins: per
// axis, num_bins lower-bound counts then num_bins upper-bound counts) over
// the node's tight box t.
KD_GB_HD void kd_gb_bin_one(const float *lo, const float *hi, const float *t, int num_bins,
                            uint32_t *node_bins)
{
    for (int a = 0; a < 3; a++) {
        float ext = KD_GB_FSUB(t[3 + a], t[a]);
        if (!(ext > 0.0f))
            continue;
        float scale = KD_GB_FDIV((float)num_bins, ext);
        int b_lo = (int)KD_GB_FMUL(KD_GB_FSUB(lo[a], t[a]), scale);
        int b_hi = (int)KD_GB_FMUL(KD_GB_FSUB(hi[a], t[a]), scale);
        b_lo = b_lo < 0 ? 0 : (b_lo >= num_bins ? num_bins - 1 : b_lo);
        b_hi = b_hi < 0 ? 0 : (b_hi >= num_bins ? num_bins - 1 : b_hi);
        uint32_t *axis_bins = node_bins + (size_t)a * 2 * num_bins;
        kd_gb_atomic_add(axis_bins + b_lo, 1u);
        kd_gb_atomic_add(axis_bins + num_bins + b_hi, 1u);
    }
}

// Binned SAH: count each reference's lower and upper bound into bins over
// the node's tight box (integer atomics, so the counts do not depend on order).
struct kd_gb_bin_refs {
    kd_gb_refs refs;
    const float *tight;
    uint32_t *bins;               // per node, axis, {lo, hi}: num_bins counts
    int num_bins;
    uint32_t first_node;          // bins[0] belongs to this node
    uint32_t *insane;             // per node (every node, from 0): 1 where a reference has lo > hi (or a NaN)

    __host__ __device__ void operator()(uint32_t i) const
    {
        uint32_t k = refs.seg[i];
        float lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            lo[a] = refs.lo[a][i];
            hi[a] = refs.hi[a][i];
            if (!(lo[a] <= hi[a]))
                insane[k] = 1u; // the same value from every writer
        }
        kd_gb_bin_one(lo, hi, tight + 6 * (size_t)k, num_bins,
                      bins + (size_t)(k - first_node) * 6 * num_bins);
    }
};

struct kd_gb_choose_sah {
    const kd_gb_large_node *nodes;
    const float *tight;
    const uint32_t *bins;
    kd_gb_split_choice *choice;
    kd_gb_sah sah;
    int num_bins;
    int max_depth;
    int force_leaf;
    float empty_ratio;

    // Whether the empty slab below (upper = 0) or above the references on
    // axis a is wide enough to cut off; *pos gets its plane.
    __host__ __device__ bool empty_cut(const float *cell, const float *t, int a, int upper,
                                       float *pos) const
    {
        float min_gap = KD_GB_FMUL(empty_ratio, KD_GB_FSUB(cell[3 + a], cell[a]));
        *pos = upper ? nextafterf(t[3 + a], INFINITY) : nextafterf(t[a], -INFINITY);
        return upper ? KD_GB_FSUB(cell[3 + a], t[3 + a]) >= min_gap
                     : KD_GB_FSUB(t[a], cell[a]) >= min_gap;
    }

    // Bin boundary j (1..num_bins-1) of the tight box's extent ext on axis a.
    __host__ __device__ float boundary(const float *t, int a, float ext, int j) const
    {
        return KD_GB_FADD(t[a], KD_GB_FDIV(KD_GB_FMUL(ext, (float)j), (float)num_bins));
    }
};

// Candidate id's (cost, plane) where it beats the best so far: a lower cost,
// or the same with a lower id (ids in kd_gb_choose_sah_by's order, so that
// however the candidates are shared out, the first of the cheapest wins).
KD_GB_HD void kd_gb_consider_id(const kd_gb_choose_sah &f, const float *cell, int a, float pos, uint32_t below,
                                uint32_t above, float inv_area, uint32_t id, float *best, uint32_t *best_id,
                                int *best_axis, float *best_pos)
{
    if (!(cell[a] < pos && pos < cell[3 + a]))
        return;
    float cost = kd_gb_split_cost(f.sah, cell, a, pos, below, above, inv_area);
    if (!(cost < INFINITY))
        return;
    if (cost < *best || (cost == *best && id < *best_id)) {
        *best = cost;
        *best_id = id;
        *best_axis = a;
        *best_pos = pos;
    }
}

// Node `node`'s binned SAH choice from its references' bounds t and bins, by
// a team (a warp per node on the device, one lane on the host): the lanes
// cost the bin boundaries side by side (each boundary's counts by prefix
// sums over the bins), and the cheapest candidate wins, ties to the first in
// the order empty cuts, then boundaries, axis by axis. Every lane returns it.
template <typename Team>
KD_GB_HD kd_gb_split_choice kd_gb_choose_sah_by(const Team &team, const kd_gb_choose_sah &f,
                                                const kd_gb_large_node &node, const float *t,
                                                const uint32_t *node_bins)
{
    const uint32_t lane = team.lane();
    float area = kd_gb_box_area(node.cell);
    float best = INFINITY, best_pos = 0.0f;
    uint32_t best_id = KD_GB_NONE;
    int best_axis = -1;
    if (!f.force_leaf && (int)node.depth < f.max_depth && area > 0.0f) {
        float inv_area = KD_GB_FDIV(1.0f, area);
        uint32_t n = node.ref_count, per_axis = (uint32_t)f.num_bins + 1u;
        for (int a = 0; a < 3; a++) {
            float ext = KD_GB_FSUB(t[3 + a], t[a]);
            if (!(ext > 0.0f))
                continue;
            const uint32_t *lo_bins = node_bins + (size_t)a * 2 * f.num_bins;
            const uint32_t *hi_bins = lo_bins + f.num_bins;
            uint32_t id0 = (uint32_t)a * per_axis;
            for (int upper = 0; lane == 0 && upper < 2; upper++) {
                float pos;
                if (f.empty_cut(node.cell, t, a, upper, &pos))
                    kd_gb_consider_id(f, node.cell, a, pos, upper ? n : 0, upper ? 0 : n, inv_area,
                                      id0 + (uint32_t)upper, &best, &best_id, &best_axis, &best_pos);
            }
            // Boundary j (1..num_bins-1): below counts lower bounds in bins
            // < j, above the upper bounds not in them.
            uint32_t carry_lo = 0, carry_hi = 0;
            for (int first = 1; first < f.num_bins; first += Team::LANES) {
                int j = first + (int)lane;
                uint32_t in_lo = j < f.num_bins ? lo_bins[j - 1] : 0u;
                uint32_t in_hi = j < f.num_bins ? hi_bins[j - 1] : 0u;
                team.inclusive_sum2(&in_lo, &in_hi);
                if (j < f.num_bins) {
                    kd_gb_consider_id(f, node.cell, a, f.boundary(t, a, ext, j), carry_lo + in_lo,
                                      n - (carry_hi + in_hi), inv_area, id0 + 1u + (uint32_t)j, &best,
                                      &best_id, &best_axis, &best_pos);
                }
                carry_lo += team.from_lane(in_lo, Team::LANES - 1);
                carry_hi += team.from_lane(in_hi, Team::LANES - 1);
            }
        }
    }
    // The lane that found the winner hands over its plane.
    int src = team.argmin(&best, &best_id);
    best_axis = team.from_lane(best_axis, src < 0 ? 0 : src);
    best_pos = team.from_lane(best_pos, src < 0 ? 0 : src);
    kd_gb_split_choice c;
    c.axis = src >= 0 ? best_axis : -1;
    c.pos = src >= 0 ? KD_GB_FADD(best_pos, 0.0f) : 0.0f;
    return c;
}

// Each reference's side of its node's plane (all left for a leaf).
struct kd_gb_classify {
    kd_gb_refs refs;
    const kd_gb_split_choice *choice;
    uint8_t *sides;

    __host__ __device__ void operator()(uint32_t i) const
    {
        kd_gb_split_choice c = choice[refs.seg[i]];
        if (c.axis < 0) {
            sides[i] = (uint8_t)KD_SIDE_LEFT;
            return;
        }
        // The axis's arrays by selects: indexing refs.lo by a runtime axis
        // would copy the struct to local memory in every thread.
        const float *lo = kd_gb_pick3(c.axis, refs.lo[0], refs.lo[1], refs.lo[2]);
        const float *hi = kd_gb_pick3(c.axis, refs.hi[0], refs.hi[1], refs.hi[2]);
        sides[i] = kd_gb_side(lo[i], hi[i], c.pos);
    }
};

// The level's references on both sides (the split writes the level's
// references and these again), counted into *both (zeroed first): under a
// memory cap the split's output is sized to that count.
struct kd_gb_count_both {
    const uint8_t *sides;
    uint32_t *both;

    __host__ __device__ void operator()(uint32_t i) const
    {
        const int straddles = sides[i] == (uint8_t)KD_SIDE_BOTH;
#if defined(__CUDA_ARCH__)
        // One atomic per warp (the map's last warp may be partial).
        const unsigned active = __activemask(), set = __ballot_sync(active, straddles);
        if (set && (threadIdx.x & 31u) == (unsigned)(__ffs(active) - 1))
            atomicAdd(both, (uint32_t)__popc(set));
#else
        *both += (uint32_t)straddles;
#endif
    }
};

// What becomes of a split large node once the split's exact counts are known.
struct kd_gb_plan {
    int leaf;
    uint32_t n, num_left, num_right;
    uint32_t child_kind[2];
    uint32_t bad_refines;
    float child_allowance;
};


struct kd_gb_plan_params {
    kd_gb_sah sah;
    uint32_t small_threshold;
    uint32_t max_bad_refines;
};

static inline kd_gb_plan_params kd_gb_plan_params_from(const kd_gpu_build_options *o)
{
    kd_gb_plan_params pp;
    pp.sah.traversal = o->params.traversal_cost;
    pp.sah.intersect = o->params.intersect_cost;
    pp.sah.empty_bonus = o->params.empty_bonus;
    pp.sah.min_empty_fraction = o->params.min_empty_fraction;
    pp.small_threshold = (uint32_t)o->small_node_threshold;
    pp.max_bad_refines = (uint32_t)o->params.max_bad_refines;
    return pp;
}

KD_GB_HD kd_gb_plan kd_gb_plan_node(const kd_gb_large_node &node, kd_gb_split_choice c,
                                    uint32_t num_left, uint32_t num_right,
                                    const kd_gb_plan_params &pp)
{
    kd_gb_plan p;
    p.n = node.ref_count;
    p.num_left = num_left;
    p.num_right = num_right;
    p.bad_refines = node.bad_refines;
    p.child_allowance = kd_gb_child_allowance(node.allowance, node.ref_count, num_left, num_right);
    p.leaf = c.axis < 0 || p.child_allowance < 1.0f;
    if (!p.leaf && num_left == p.n && num_right == p.n)
        p.leaf = 1; // the plane cut nothing off: splitting again would only duplicate
    if (!p.leaf) {
        // pbrt's bad-refine rule, on the split's true cost.
        float area = kd_gb_box_area(node.cell);
        float cost = kd_gb_split_cost(pp.sah, node.cell, c.axis, c.pos, num_left, num_right,
                                      KD_GB_FDIV(1.0f, area));
        if (cost > KD_GB_FMUL(pp.sah.intersect, (float)p.n))
            p.bad_refines++;
        if (p.bad_refines >= pp.max_bad_refines)
            p.leaf = 1;
    }
    for (int side = 0; side < 2; side++) {
        uint32_t count = side ? num_right : num_left;
        p.child_kind[side] = p.leaf || count == 0 ? KD_GB_DEST_DROP
                             : count <= pp.small_threshold ? KD_GB_DEST_SMALL
                                                           : KD_GB_DEST_LARGE;
    }
    return p;
}

// The side that holds every reference of a split at c.pos, where that
// follows from the references' bounds t alone: a plane past them (the
// choice's empty cuts are one float beyond t) puts every reference on one
// side, provided each reference's box has lo <= hi (`sane`, checked when
// the references were binned: with a NaN or an inverted box, a reference
// could fall on neither side). -1: the sides pass must count them.
KD_GB_HD int kd_gb_empty_cut_side(kd_gb_split_choice c, const float *t, int sane)
{
    if (!sane || c.axis < 0)
        return -1;
    const int a = c.axis;
    return c.pos > t[3 + a] ? 0 : c.pos < t[a] ? 1 : -1;
}

// Plans the empty cut (every reference on `side`) into *plan: 1 where the
// node splits and that child is large again, so the cut needs no pass over
// the references; 0 otherwise (a leaf, or a small child), and the node takes
// the normal path. The child keeps the node's references, so their bounds
// and bins stay as they are and its split can be chosen at once (a pass
// would copy the references and bin them again, to the same bins).
KD_GB_HD int kd_gb_plan_empty_cut(const kd_gb_plan_params &pp, const kd_gb_large_node &node,
                                  kd_gb_split_choice c, int side, kd_gb_plan *plan)
{
    const uint32_t n = node.ref_count;
    *plan = kd_gb_plan_node(node, c, side ? 0u : n, side ? n : 0u, pp);
    return !plan->leaf && plan->child_kind[side] == KD_GB_DEST_LARGE;
}

// A large level's empty cuts in a row (as the medium stage makes them): a
// node whose choice is an empty cut becomes its large child there and then,
// with the cut kept here for the bookkeeping's pool records, and chooses
// again; at most KD_GB_CHAIN_MAX a level (the rest take a pass each). The
// decisions are those of a level per cut, so the tree is the same.
enum { KD_GB_CHAIN_SLOTS = KD_GB_CHAIN_MAX > 0 ? KD_GB_CHAIN_MAX : 1 };
struct kd_gb_chain {
    uint32_t count;
    uint8_t axis_side[KD_GB_CHAIN_SLOTS]; // axis | side << 2 (side: the child that goes on)
    float pos[KD_GB_CHAIN_SLOTS];
};

// One cut of the chain where c is an empty cut the rules take: *node
// becomes the child (its cell, depth, bad refines and allowance; its pool
// id and parent stay the chain's first node's, for the bookkeeping), the
// cut goes in *chain, and 1 is returned; else 0, nothing changed.
KD_GB_HD int kd_gb_chain_step(const kd_gb_plan_params &pp, kd_gb_large_node *node, kd_gb_split_choice c,
                              const float *t, int sane, kd_gb_chain *chain)
{
    const int side = kd_gb_empty_cut_side(c, t, sane);
    kd_gb_plan plan;
    if (chain->count >= KD_GB_CHAIN_MAX || side < 0 || !kd_gb_plan_empty_cut(pp, *node, c, side, &plan))
        return 0;
    chain->axis_side[chain->count] = (uint8_t)(c.axis | side << 2);
    chain->pos[chain->count] = c.pos;
    chain->count++;
    float cell[6];
    kd_gb_child_cell(node->cell, c.axis, c.pos, side, cell);
    for (int j = 0; j < 6; j++)
        node->cell[j] = cell[j];
    node->depth += 1;
    node->bad_refines = plan.bad_refines;
    node->allowance = plan.child_allowance;
    return 1;
}

// The large level's SAH choice with its empty cuts chained: the node
// records (chain ends) and chains are written where a node cut.
struct kd_gb_choose_chain {
    kd_gb_choose_sah f;
    kd_gb_large_node *nodes;
    kd_gb_chain *chains;
    const uint32_t *insane;
    kd_gb_plan_params pp;

    // Node k's choice after its chain, `choose` giving a node's choice
    // from k's references (serially on the host, by a warp on the device);
    // *node becomes the chain's end.
    template <typename Choose>
    __host__ __device__ kd_gb_split_choice chained(uint32_t k, kd_gb_large_node *node, kd_gb_chain *chain,
                                                   Choose choose) const
    {
        const float *t = f.tight + 6 * (size_t)k;
        kd_gb_split_choice c = choose(*node);
        chain->count = 0;
        while (kd_gb_chain_step(pp, node, c, t, !insane[k], chain))
            c = choose(*node);
        return c;
    }

    __host__ __device__ void store(uint32_t k, kd_gb_split_choice c, const kd_gb_chain &chain,
                                   const kd_gb_large_node &node) const
    {
        f.choice[k] = c;
        chains[k] = chain;
        if (chain.count)
            nodes[k] = node;
    }

    __host__ __device__ void operator()(uint32_t k) const
    {
        kd_gb_large_node node = nodes[k];
        kd_gb_chain chain;
        const float *t = f.tight + 6 * (size_t)k;
        const uint32_t *node_bins = f.bins + (size_t)k * 6 * f.num_bins;
        const kd_gb_choose_sah &sah = f;
        const kd_gb_split_choice c =
            chained(k, &node, &chain, [&](const kd_gb_large_node &n) {
                return kd_gb_choose_sah_by(kd_gb_serial_team(), sah, n, t, node_bins);
            });
        store(k, c, chain, node);
    }
};

#endif
