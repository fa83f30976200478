// Subtrees that do not pay become leaves (gpu_build_collapse.cuh), over the
// small stage's slots, where every leaf is a mask over its small root's
// references: a subtree's triangles are the OR of its leaves' masks, so the
// union needs no sort and no list, and its count is a popcount.
// One launch, from the leaves up, as the output stage's sizes walk: each
// mask leaf walks towards its small root; at each parent the first child
// to arrive leaves its result (its subtree's cost relative to its box's
// area, its union, its area) and stops, and the second decides the parent
// from both and walks on. A parent sums its children's costs as the CPU
// builder does (kd_subtree_cost) and compares the result with the leaf of
// its union (kd_subtree_pays); a subtree that does not pay goes on as that
// leaf's cost, so the nodes above decide on the collapsed tree, as the
// CPU's do, and its record becomes that leaf at once. The boxes' areas
// come from the records, where the small stage left them (each node's own,
// from the box it had as a task), so no walk rebuilds a box. A collapsed
// node keeps its old children's slots, through which the output stage
// drops what lies under it (gpu_build_output.cu), so nothing here walks
// down either; a collapsed node under another is dropped with the rest.
// The upper stages' nodes hold more references than a small root, whose
// subtrees nearly always pay (docs/performance.md); they are left as built.
// Costs are doubles in round-to-nearest steps without contraction, so the
// device and the host emulation decide alike, whichever child comes last.
#include "gpu_build_collapse.cuh"

namespace {

#if defined(__CUDA_ARCH__)
// atomicAdd(counter, 1) with acquire-release order at the device's scope.
__device__ __forceinline__ uint32_t arrive_acq_rel(uint32_t *counter)
{
    uint32_t old;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
    return old;
}
#endif

// What a child leaves its parent: its subtree's cost, relative to its
// box's area, its union, and that area.
struct result {
    double cost;
    unsigned long long members;
    double area;
};

struct collapse_walk {
    kd_gb_pool_node *pool;
    const kd_gb_small_root *roots;
    double *cost;                // per pool slot: a first child's result...
    unsigned long long *members;
    double *area;
    uint32_t *arrivals;          // ...and per parent: children arrived (zeroed)
    uint32_t pool_base, num_roots, max_steps;
    double traversal, intersect;

    // Pool id of the small stage's k-th slot: the roots first, then the
    // slots the stage appended.
    __host__ __device__ uint32_t slot_node(uint32_t k) const
    {
        return k < num_roots ? roots[k].pool_id : pool_base + (k - num_roots);
    }

    // Child x's arrival at parent p with result r: 0 where it is the first
    // (its result left at x for the second), else its sibling's result. The
    // arrival is an acquire-release atomic: it orders the result's stores
    // before it and the sibling's loads after it (past the SM's own cache,
    // which is not kept coherent), at less cost than a fence either side.
    __host__ __device__ int arrive(uint32_t x, uint32_t p, uint32_t sibling, const result &r, result *other) const
    {
        cost[x] = r.cost;
        members[x] = r.members;
        area[x] = r.area;
#if defined(__CUDA_ARCH__)
        if (arrive_acq_rel(&arrivals[p]) == 0u)
            return 0;
        *other = {__ldcg(&cost[sibling]), __ldcg(&members[sibling]), __ldcg(&area[sibling])};
#else
        if (arrivals[p]++ == 0u)
            return 0;
        *other = {cost[sibling], members[sibling], area[sibling]};
#endif
        return 1;
    }

    // Interior node p (record rp, box area in it) from its children's
    // results: kept where its subtree pays (kd_subtree_pays; a cost that is
    // no number does not), else its record becomes the leaf of its union.
    __host__ __device__ result decide(uint32_t p, const kd_gb_pool_node &rp, const result &below,
                                      const result &above, uint32_t root) const
    {
        const double node_area = kd_gb_pool_area(rp);
        const unsigned long long uni = below.members | above.members;
        const double weighted =
            KD_GB_DADD(KD_GB_DMUL(below.area, below.cost), KD_GB_DMUL(above.area, above.cost));
        const double as_tree = KD_GB_DADD(traversal, KD_GB_DDIV(weighted, node_area));
        const double as_leaf = KD_GB_DMUL(intersect, (double)kd_gb_popc64(uni));
        if (as_tree < as_leaf)
            return {as_tree, uni, node_area};
        pool[p] = kd_gb_pool_record(KD_GB_POOL_LEAF_COLLAPSED, 0.0f, root, rp.a, uni, rp.parent, rp.depth);
        return {as_leaf, uni, node_area};
    }

    // The walk from the small stage's k-th slot, where it is a mask leaf. A
    // step that does not go to a parent before it naming it among two
    // adjacent children (as the small stage makes them), or more steps than
    // the depth cap: a corrupt pool, left for the output stage to report.
    __host__ __device__ void operator()(uint32_t k) const
    {
        uint32_t x = slot_node(k);
        kd_gb_pool_node rx = pool[x];
        if (rx.kind != KD_GB_POOL_LEAF_MASK)
            return;
        const uint32_t root = rx.a;
        result r = {KD_GB_DMUL(intersect, (double)kd_gb_popc64(rx.mask)), rx.mask, kd_gb_pool_area(rx)};
        for (uint32_t steps = 0; x >= pool_base && steps <= max_steps; steps++) {
            const uint32_t p = rx.parent;
            if (p >= x)
                return;
            const kd_gb_pool_node rp = pool[p];
            if (rp.kind >= 3 || rp.b != rp.a + 1u || (rp.a != x && rp.b != x))
                return;
            result other;
            if (!arrive(x, p, rp.a == x ? rp.b : rp.a, r, &other))
                return;
            r = rp.a == x ? decide(p, rp, r, other, root) : decide(p, rp, other, r, root);
            x = p;
            rx = rp;
        }
    }
};

} // namespace

kd_status kd_gb_collapse(kd_gpu_builder *b, const kd_gb_build_state *s, double *cost, unsigned long long *members,
                         double *area, uint32_t *arrivals, kd_error *err)
{
    if (s->num_small_roots == 0 || s->num_small_waves == 0 || s->opts->hooks.keep_subtrees)
        return KD_OK;
    collapse_walk w;
    w.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    w.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    w.cost = cost;
    w.members = members;
    w.area = area;
    w.arrivals = arrivals;
    w.pool_base = s->small_pool_base;
    w.num_roots = s->num_small_roots;
    w.max_steps = (uint32_t)s->max_depth;
    w.traversal = (double)s->opts->params.traversal_cost;
    w.intersect = (double)s->opts->params.intersect_cost;
    // Parents are small roots (ids from the upper stages) or appended slots.
    KD_TRY(kd_gb_memset(b, arrivals, 0, sizeof(uint32_t) * (size_t)s->pool_count, err));
    const uint32_t slots = s->num_small_roots + (s->pool_count - s->small_pool_base);
    return kd_gb_map(b, slots, w, "collapse: subtrees that do not pay", err);
}
