// Subtrees that do not pay become leaves (gpu_build_collapse.cuh), over the
// small stage's slots, where every leaf is a mask over its small root's
// references: a subtree's triangles are the OR of its leaves' masks, so the
// union needs no sort and no list, and its count is a popcount.
// Bottom up, from the last of the small stage's waves, a launch per
// KD_GB_COLLAPSE_WAVES of them: a node's children lie in the next wave, so
// a thread per node of a launch's upper wave decides the node's subtree
// down through those waves, each node from its children's results (a mask
// leaf's from its record; below the launch's waves, what the launch before
// stored for the next launch's upper wave), and stores its node's result
// for the launch after (where the deepest group of waves is few nodes, the
// launch before takes it too, rather than a launch more).
// No thread waits for another and none walks the
// pool, where one launch with a walk up from every leaf would meet its
// sibling at each parent through atomics and long dependent chains; each
// node's box area is in its record, where the small stage left it (each
// node's own, from the box it had as a task). A parent sums its children's
// costs as the CPU builder does (kd_subtree_cost) and compares the result
// with the leaf of its union (kd_subtree_pays); a subtree that does not pay
// goes on as that leaf's cost, so the nodes above decide on the collapsed
// tree, as the CPU's do, and its record becomes that leaf at once. A
// collapsed node keeps its old children's slots, through which the output
// stage drops what lies under it (gpu_build_output.cu), so nothing here
// walks down either; a collapsed node under another is dropped with the
// rest.
// A node of another shape (a child outside the next wave, children not
// adjacent, a leaf that is no mask) is kept, and so is every node above
// it: a corrupt pool, which the output stage reports.
// The upper stages' nodes hold more references than a small root, whose
// subtrees nearly always pay (docs/performance.md); they are left as built.
// Costs are doubles in round-to-nearest steps without contraction, so the
// device and the host emulation decide alike.
#include "gpu_build_collapse.cuh"

namespace {

// What a subtree leaves the node above: its cost, relative to its box's
// area, its union, that area, and its small root (which a collapsed
// record names).
struct result {
    double cost;
    unsigned long long members;
    double area;
    uint32_t root;
};

// Per slot of a launch's upper wave: its small root << 1 | 1 where its
// result is stored, else NOT_STORED (a node of another shape).
enum : uint32_t { NOT_STORED = 0 };
static_assert(KD_GB_COLLAPSE_WAVES >= 1, "a collapse launch decides one wave at least");

// What every launch shares: the pool, the scratch and the rule's constants.
struct collapse_args {
    kd_gb_pool_node *pool;
    const kd_gb_small_root *roots;
    double *cost;                // per pool slot: a stored result...
    unsigned long long *members;
    double *area;
    uint32_t *stored;            // ...and whether there is one
    uint32_t pool_base, num_roots;
    double traversal, intersect;

    // Pool id of the small stage's k-th slot: the roots first, then the
    // slots the stage appended.
    __host__ __device__ uint32_t slot_node(uint32_t k) const
    {
        return k < num_roots ? roots[k].pool_id : pool_base + (k - num_roots);
    }

    __host__ __device__ result leaf(const kd_gb_pool_node &n) const
    {
        return {KD_GB_DMUL(intersect, (double)kd_gb_popc64(n.mask)), n.mask, kd_gb_pool_area(n), n.a};
    }

    // Interior node p (record rp, box area in it) from its children's
    // results: kept where its subtree pays (kd_subtree_pays; a cost that is
    // no number does not), else its record becomes the leaf of its union.
    __host__ __device__ result decide(uint32_t p, const kd_gb_pool_node &rp, const result &below,
                                      const result &above) const
    {
        const double node_area = kd_gb_pool_area(rp);
        const unsigned long long uni = below.members | above.members;
        const double weighted =
            KD_GB_DADD(KD_GB_DMUL(below.area, below.cost), KD_GB_DMUL(above.area, above.cost));
        const double as_tree = KD_GB_DADD(traversal, KD_GB_DDIV(weighted, node_area));
        const double as_leaf = KD_GB_DMUL(intersect, (double)kd_gb_popc64(uni));
        if (as_tree < as_leaf)
            return {as_tree, uni, node_area, below.root};
        pool[p] = kd_gb_pool_record(KD_GB_POOL_LEAF_COLLAPSED, 0.0f, below.root, rp.a, uni, rp.parent, rp.depth);
        return {as_leaf, uni, node_area, below.root};
    }
};

// One launch: a thread per slot of upper wave u (task slots from `first`),
// which decides the node's subtree down to wave u + LEVELS - 1 and stores
// the node's result for the launch after.
template <int LEVELS>
struct collapse_pass {
    collapse_args g;
    uint32_t first;
    uint32_t lo[LEVELS + 1], hi[LEVELS + 1]; // [d]: wave u + d's pool ids
    int fresh;                               // whether the launch before stored wave u + LEVELS

    // A result stored by the launch before, or a mask leaf's; 0 where
    // node x has neither.
    __host__ __device__ int known(uint32_t x, result *r) const
    {
        const uint32_t tag = fresh ? g.stored[x] : NOT_STORED;
        if (tag & 1u) {
            *r = {g.cost[x], g.members[x], g.area[x], tag >> 1};
            return 1;
        }
        const kd_gb_pool_node rx = g.pool[x];
        if (rx.kind != KD_GB_POOL_LEAF_MASK)
            return 0;
        *r = g.leaf(rx);
        return 1;
    }

    // Whether interior record n's children are adjacent and in wave
    // u + d's pool ids.
    __host__ __device__ int children_in(const kd_gb_pool_node &n, int d) const
    {
        return n.kind < 3 && n.b == n.a + 1u && n.a >= lo[d] && n.b < hi[d];
    }

    // The result of node c of wave u + d: a mask leaf's, or decided from
    // its children's (the wave this launch does not decide: stored or
    // leaves); 0 where it has none.
    template <int D>
    __host__ __device__ int settle(uint32_t c, result *r) const
    {
        if constexpr (D == LEVELS) {
            return known(c, r);
        } else {
            const kd_gb_pool_node rc = g.pool[c];
            if (rc.kind == KD_GB_POOL_LEAF_MASK) {
                *r = g.leaf(rc);
                return 1;
            }
            result below, above;
            if (!children_in(rc, D + 1) || !settle<D + 1>(rc.a, &below) || !settle<D + 1>(rc.b, &above))
                return 0;
            *r = g.decide(c, rc, below, above);
            return 1;
        }
    }

    __host__ __device__ void operator()(uint32_t k) const
    {
        const uint32_t i = g.slot_node(first + k);
        result r;
        if (!settle<0>(i, &r)) {
            g.stored[i] = NOT_STORED;
            return;
        }
        g.cost[i] = r.cost;
        g.members[i] = r.members;
        g.area[i] = r.area;
        g.stored[i] = r.root << 1 | 1u;
    }
};

// Pool ids [*lo, *hi) of wave w's slots; none for the roots' wave or past
// the last.
void wave_ids(const kd_gb_build_state *s, uint32_t w, uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
    if (w > 0 && w < s->num_small_waves) {
        *lo = s->small_pool_base + (s->small_wave_ends[w - 1] - s->num_small_roots);
        *hi = s->small_pool_base + (s->small_wave_ends[w] - s->num_small_roots);
    }
}

// Task slots in wave w.
uint32_t wave_slots(const kd_gb_build_state *s, uint32_t w)
{
    return s->small_wave_ends[w] - (w ? s->small_wave_ends[w - 1] : 0);
}

// The launch whose upper wave is u; fresh: the launch before stored wave
// u + LEVELS.
template <int LEVELS>
kd_status launch(kd_gpu_builder *b, const kd_gb_build_state *s, const collapse_args &g, uint32_t u, int fresh,
                 kd_error *err)
{
    collapse_pass<LEVELS> p;
    p.g = g;
    p.first = u ? s->small_wave_ends[u - 1] : 0;
    for (uint32_t d = 0; d <= LEVELS; d++)
        wave_ids(s, u + d, &p.lo[d], &p.hi[d]);
    p.fresh = fresh;
    return kd_gb_map(b, s->small_wave_ends[u] - p.first, p, "collapse: subtrees that do not pay", err);
}

} // namespace

kd_status kd_gb_collapse(kd_gpu_builder *b, const kd_gb_build_state *s, double *cost, unsigned long long *members,
                         double *area, uint32_t *stored, kd_error *err)
{
    // (A root past 2^31 would not fit beside the stored bit; the tree
    // format ends far below that many nodes.)
    if (s->num_small_roots == 0 || s->num_small_roots >= (1u << 31) || s->num_small_waves < 2 ||
        s->opts->hooks.keep_subtrees)
        return KD_OK;
    collapse_args g;
    g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    g.cost = cost;
    g.members = members;
    g.area = area;
    g.stored = stored;
    g.pool_base = s->small_pool_base;
    g.num_roots = s->num_small_roots;
    g.traversal = (double)s->opts->params.traversal_cost;
    g.intersect = (double)s->opts->params.intersect_cost;
    // The launches' upper waves are multiples of `levels`, so that the last
    // is the roots'; the first is the one that reaches the last wave with
    // splits (W - 2). The small stage ends in waves of few nodes: where
    // that first group is few, the launch before takes it too, its threads
    // a little more work each rather than a launch more.
    const uint32_t levels = KD_GB_COLLAPSE_WAVES;
    uint32_t u = (s->num_small_waves - 2u) / levels * levels;
    if (u >= levels && wave_slots(s, u) < KD_GB_COLLAPSE_TAIL_MAX) {
        u -= levels;
        KD_TRY(launch<2 * KD_GB_COLLAPSE_WAVES>(b, s, g, u, 0, err));
    } else {
        KD_TRY(launch<KD_GB_COLLAPSE_WAVES>(b, s, g, u, 0, err));
    }
    while (u > 0) {
        u -= levels;
        KD_TRY(launch<KD_GB_COLLAPSE_WAVES>(b, s, g, u, 1, err));
    }
    return KD_OK;
}
