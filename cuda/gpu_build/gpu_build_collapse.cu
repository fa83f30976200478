// Subtrees that do not pay become leaves (gpu_build_collapse.cuh), over the
// small stage's slots, where every leaf is a mask over its small root's
// references: a subtree's triangles are the OR of its leaves' masks, so the
// union needs no sort and no list, and its count is a popcount.
//  1. Bottom up, a launch per two small-stage waves from the last: a
//     node's children lie in the next wave, so a thread per node of the
//     upper wave decides its children (their own children's results are
//     in from the launch before), then the node. Each node sums its
//     children's costs as the CPU builder does (kd_subtree_cost) and
//     compares the result with the leaf of its union (kd_subtree_pays); a
//     subtree that does not pay goes on as that leaf's cost, so the nodes
//     above decide on the collapsed tree, as the CPU's do. The upper
//     node's box is its small root's with the nearest split above it on
//     each of its six sides (a walk up the pool: the small stage's task
//     records hold the boxes, but the stage may regrow that array, unkept,
//     as it ends); its children's follow from it. A node's small root
//     comes up from its leaves, which name it.
//  2. One launch over the same slots: a node under one that collapsed (a
//     walk up to its small root) is dropped; one that collapsed and is not
//     under another becomes a mask leaf of its union.
// The upper stages' nodes hold more references than a small root, whose
// subtrees nearly always pay (docs/performance.md); they are left as built.
// Costs are doubles in round-to-nearest steps without contraction, so the
// device and the host emulation decide alike.
#include "gpu_build_collapse.cuh"
#include "gpu_build_geom.cuh" // the steps without contraction, kd_gb_child_cell

namespace {

// A slot's verdict, in the low bits of a word whose others name its small
// root. OPAQUE: the subtree holds what the rule cannot merge (a leaf that
// is not a mask, a child outside the next wave, a walk that does not reach
// the root: a corrupt pool, which the output stage reports); it is kept,
// and so is every node above it.
enum : uint32_t { KEEP = 0, COLLAPSE = 1, OPAQUE = 2, VERDICT_BITS = 2, VERDICT_MASK = 3 };

struct collapse_args {
    kd_gb_pool_node *pool;
    const kd_gb_small_root *roots;
    double *cost;                // per pool slot: its subtree's cost, relative to its box's area
    unsigned long long *members; // per pool slot: the small root's references its leaves hold
    uint32_t *verdict;           // per pool slot: small root << VERDICT_BITS | verdict
    uint32_t pool_base, num_roots, max_steps;
    double traversal, intersect;

    // Pool id of the small stage's k-th slot: the roots first, then the
    // slots the stage appended.
    __host__ __device__ uint32_t slot_node(uint32_t k) const
    {
        return k < num_roots ? roots[k].pool_id : pool_base + (k - num_roots);
    }

    // Node i's box: small root r's, each side set by the nearest split
    // above i (a child's box is its parent's with one side moved to the
    // split). 0 where the walk does not end at r.
    __host__ __device__ int cell_of(uint32_t i, uint32_t r, float cell[6]) const
    {
        const kd_gb_small_root &root = roots[r];
KD_GB_UNROLL
        for (int k = 0; k < 6; k++)
            cell[k] = root.cell[k];
        uint32_t done = 0, x = i; // done: the sides set
        for (uint32_t steps = 0; x >= pool_base && done != 63u; steps++) {
            const uint32_t p = pool[x].parent;
            if (p >= x || steps > max_steps)
                return 0;
            const kd_gb_pool_node up = pool[p];
            if (up.kind >= 3)
                return 0;
            const uint32_t side = up.kind + (up.a == x ? 3u : 0u); // below the plane: its hi side
KD_GB_UNROLL
            for (uint32_t k = 0; k < 6; k++) {
                if (k == side && !(done >> k & 1u))
                    cell[k] = up.split;
            }
            done |= 1u << side;
            x = p;
        }
        return done == 63u || x == root.pool_id;
    }
};

KD_GB_HD double box_area(const float *c)
{
    const double dx = KD_GB_DSUB((double)c[3], (double)c[0]);
    const double dy = KD_GB_DSUB((double)c[4], (double)c[1]);
    const double dz = KD_GB_DSUB((double)c[5], (double)c[2]);
    return KD_GB_DMUL(2.0, KD_GB_DADD(KD_GB_DADD(KD_GB_DMUL(dx, dy), KD_GB_DMUL(dx, dz)), KD_GB_DMUL(dy, dz)));
}

// kd_subtree_cost: traversal plus the children's costs weighted by their
// share of the node's area.
KD_GB_HD double subtree_cost(const collapse_args &g, const float *cell, int axis, float pos, double below,
                             double above)
{
    float child[2][6];
    kd_gb_child_cell(cell, axis, pos, 0, child[0]);
    kd_gb_child_cell(cell, axis, pos, 1, child[1]);
    const double weighted = KD_GB_DADD(KD_GB_DMUL(box_area(child[0]), below), KD_GB_DMUL(box_area(child[1]), above));
    return KD_GB_DADD(g.traversal, KD_GB_DDIV(weighted, box_area(cell)));
}

// What step 1 leaves for a slot: its subtree's cost, its union, and its
// small root << VERDICT_BITS | verdict.
struct result {
    double cost;
    unsigned long long members;
    uint32_t verdict;
};

// Step 1 for two waves in one launch: a thread per slot of the upper wave
// (slots [first, first + n)) decides its node's children in the lower
// wave (pool ids [lo, hi)) from their own children's results (pool ids
// [lo2, hi2), the launch before), then the node from theirs. Each lower
// slot has one parent in the upper wave, so each is decided once, and a
// child's box follows from its parent's without a walk of its own.
struct decide_waves {
    collapse_args g;
    uint32_t first, lo, hi, lo2, hi2;

    __host__ __device__ result stored(uint32_t i) const { return {g.cost[i], g.members[i], g.verdict[i]}; }

    __host__ __device__ void store(uint32_t i, const result &r) const
    {
        g.cost[i] = r.cost;
        g.members[i] = r.members;
        g.verdict[i] = r.verdict;
    }

    // A leaf's result: a mask leaf costs its triangles; any other kind of
    // leaf is opaque.
    __host__ __device__ result leaf(const kd_gb_pool_node &node) const
    {
        if (node.kind != KD_GB_POOL_LEAF_MASK)
            return {0.0, 0ull, OPAQUE};
        return {KD_GB_DMUL(g.intersect, (double)kd_gb_popc64(node.mask)), node.mask, node.a << VERDICT_BITS | KEEP};
    }

    // A split node of box cell from its children's results: kept where its
    // subtree pays (kd_subtree_pays; a cost that is no number does not),
    // else the leaf of its union.
    __host__ __device__ result split(const kd_gb_pool_node &node, const float *cell, const result &a,
                                     const result &b) const
    {
        const uint32_t root = a.verdict >> VERDICT_BITS << VERDICT_BITS;
        const unsigned long long members = a.members | b.members;
        if ((a.verdict & VERDICT_MASK) == OPAQUE || (b.verdict & VERDICT_MASK) == OPAQUE)
            return {0.0, members, root | OPAQUE};
        const double as_leaf = KD_GB_DMUL(g.intersect, (double)kd_gb_popc64(members));
        const double cost = subtree_cost(g, cell, (int)node.kind, node.split, a.cost, b.cost);
        if (cost < as_leaf)
            return {cost, members, root | KEEP};
        return {as_leaf, members, root | COLLAPSE};
    }

    // A node of the lower wave, of box cell: a leaf, or a split whose
    // children's results are stored.
    __host__ __device__ result child(const kd_gb_pool_node &node, const float *cell) const
    {
        if (node.kind >= 3)
            return leaf(node);
        if (node.a < lo2 || node.a >= hi2 || node.b < lo2 || node.b >= hi2)
            return {0.0, 0ull, OPAQUE};
        return split(node, cell, stored(node.a), stored(node.b));
    }

    // A node's small root: a mask leaf names it, a split's below child's
    // result carries it.
    __host__ __device__ uint32_t root_of(const kd_gb_pool_node &node) const
    {
        if (node.kind >= 3)
            return node.a;
        return node.a >= lo2 && node.a < hi2 ? g.verdict[node.a] >> VERDICT_BITS : g.num_roots;
    }

    __host__ __device__ void operator()(uint32_t k) const
    {
        const uint32_t i = g.slot_node(first + k);
        const kd_gb_pool_node node = g.pool[i];
        if (node.kind >= 3 || node.a < lo || node.a >= hi || node.b < lo || node.b >= hi) {
            store(i, node.kind >= 3 ? leaf(node) : result{0.0, 0ull, OPAQUE});
            return;
        }
        const kd_gb_pool_node below = g.pool[node.a], above = g.pool[node.b];
        const uint32_t root = root_of(below);
        float cell[6], cells[2][6];
        if (root >= g.num_roots || !g.cell_of(i, root, cell)) {
            store(node.a, {0.0, 0ull, OPAQUE}); // a corrupt pool, which the output stage reports
            store(node.b, {0.0, 0ull, OPAQUE});
            store(i, {0.0, 0ull, OPAQUE});
            return;
        }
        kd_gb_child_cell(cell, (int)node.kind, node.split, 0, cells[0]);
        kd_gb_child_cell(cell, (int)node.kind, node.split, 1, cells[1]);
        const result a = child(below, cells[0]), b = child(above, cells[1]);
        store(node.a, a);
        store(node.b, b);
        store(i, split(node, cell, a, b));
    }
};

// Step 2 for the small stage's k-th slot. Only the node's own kind and
// leaf fields are written: the walks of other threads read parents alone.
// A walk longer than the depth cap, or a parent after its child, is a
// corrupt pool: the node is left for the output stage to report.
struct apply_verdicts {
    collapse_args g;

    __host__ __device__ void operator()(uint32_t k) const
    {
        const uint32_t i = g.slot_node(k);
        for (uint32_t x = i, steps = 0; x >= g.pool_base; steps++) {
            const uint32_t p = g.pool[x].parent;
            if (p >= x || steps > g.max_steps)
                return;
            if ((g.verdict[p] & VERDICT_MASK) == COLLAPSE) {
                g.pool[i].kind = KD_GB_POOL_DROPPED;
                return;
            }
            x = p;
        }
        const uint32_t verdict = g.verdict[i];
        if ((verdict & VERDICT_MASK) != COLLAPSE)
            return;
        kd_gb_pool_node &node = g.pool[i];
        node.kind = KD_GB_POOL_LEAF_MASK;
        node.a = verdict >> VERDICT_BITS;
        node.b = 0;
        node.mask = g.members[i];
    }
};

collapse_args collapse_args_of(kd_gpu_builder *b, const kd_gb_build_state *s, double *cost,
                               unsigned long long *members, uint32_t *verdict)
{
    collapse_args g;
    g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    g.cost = cost;
    g.members = members;
    g.verdict = verdict;
    g.pool_base = s->small_pool_base;
    g.num_roots = s->num_small_roots;
    g.max_steps = (uint32_t)s->max_depth;
    g.traversal = (double)s->opts->params.traversal_cost;
    g.intersect = (double)s->opts->params.intersect_cost;
    return g;
}

// The pool ids of wave w's slots, [ends[w - 1], ends[w]); none past the
// last wave (wave 0, the roots, is no one's children).
void wave_nodes(const collapse_args &g, const kd_gb_build_state *s, uint32_t w, uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
    if (w > 0 && w < s->num_small_waves) {
        *lo = g.slot_node(s->small_wave_ends[w - 1]);
        *hi = g.slot_node(s->small_wave_ends[w]);
    }
}

} // namespace

kd_status kd_gb_collapse(kd_gpu_builder *b, const kd_gb_build_state *s, double *cost,
                         unsigned long long *members, uint32_t *verdict, kd_error *err)
{
    // (Roots past 2^30 would not fit beside a verdict; the tree format ends
    // far below that many nodes.)
    if (s->num_small_roots == 0 || s->num_small_roots >= (1u << 30) || s->num_small_waves == 0 ||
        s->opts->hooks.keep_subtrees)
        return KD_OK;
    const collapse_args g = collapse_args_of(b, s, cost, members, verdict);
    const uint32_t *ends = s->small_wave_ends;
    const uint32_t num_waves = s->num_small_waves;
    // Waves (top, top + 1) a launch, from the last pair up; with an odd
    // count, the last wave first alone (its nodes are leaves).
    for (uint32_t top = num_waves - 2u + (num_waves & 1u);; top -= 2) {
        decide_waves d = {g, top ? ends[top - 1] : 0u, 0, 0, 0, 0};
        wave_nodes(g, s, top + 1, &d.lo, &d.hi);
        wave_nodes(g, s, top + 2, &d.lo2, &d.hi2);
        KD_TRY(kd_gb_map(b, ends[top] - d.first, d, "collapse: subtree costs (two waves)", err));
        if (top == 0)
            break;
    }
    const apply_verdicts a = {g};
    return kd_gb_map(b, ends[num_waves - 1], a, "collapse: leaves and dropped slots", err);
}
