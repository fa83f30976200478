// Output step 1, the subtree sizes: the per-element code of gpu_build_output.cu
// (whose head describes the steps), apart so that each file reads at once.
// The small stage's nodes, most of the tree, are summed a group of waves per
// launch without atomics (as the collapse decides them); only the walks from
// the small roots and the upper stages' leaves up meet at parents through
// atomics, over the upper stages' nodes, a small part of the pool.
#ifndef KD_GPU_BUILD_OUTPUT_SIZES_CUH
#define KD_GPU_BUILD_OUTPUT_SIZES_CUH

#include "gpu_build_collapse.cuh"
#include "gpu_build_common.cuh"
#include "gpu_build_waves.cuh"

namespace {

__host__ __device__ __forceinline__ uint32_t leaf_count(const kd_gb_pool_node &n)
{
    return n.kind == KD_GB_POOL_LEAF_LIST ? n.b : (uint32_t)kd_gb_popc64(n.mask);
}

// A subtree's sizes as one child adds them to its parent's word: an arrival
// (bits 62-63), nodes (31 bits), leaf references (31 bits). Sizes saturate
// at 2^31 - 1, far above the tree format's limit, which the host checks; two
// children's sums may carry across fields, but the word is only ever read
// with one child's sizes in it.
enum : unsigned long long { SIZE_ARRIVAL = 1ull << 62, SIZE_FIELD = (1ull << 31) - 1ull };

// A subtree's sizes: nodes and leaf references, loaded and stored together.
struct subtree_size {
    uint32_t nodes, refs;
};

__host__ __device__ __forceinline__ unsigned long long saturate_size(unsigned long long x)
{
    return x < SIZE_FIELD ? x : SIZE_FIELD;
}

// The walk up from node i (an upper stages' leaf, or a small root), whose
// sizes are known, adding them to its ancestors' until a parent is waiting
// for its other child. A path longer than the depth cap, a parent after its child
// or one that does not name the node as a child: the pool is corrupt (the
// placement would wait for a place no parent publishes, or for one
// published after it).
struct size_walk {
    const kd_gb_pool_node *pool;
    uint32_t num_nodes;
    uint32_t max_depth;
    uint32_t *broken;
    subtree_size *sizes;
    subtree_size *below;          // per interior node: its below child's sizes
    unsigned long long *arrivals; // per node: what its first child added
    unsigned long long *places;   // per node: zeroed here for the placement

    // Each step loads the next parent's record before its atomic on this
    // one, so that a level costs one wait, not two (the walk is a chain as
    // long as the upper tree is deep).
    __host__ __device__ void up(uint32_t x, unsigned long long nodes, unsigned long long refs) const
    {
        uint32_t p = pool[x].parent;
        kd_gb_pool_node rp = {};
        if (p < num_nodes)
            rp = pool[p];
        for (uint32_t steps = 0; p != KD_GB_NONE; steps++) {
            if (p < num_nodes && p < x && kd_gb_dropped_child(rp, x))
                return; // under a subtree that became a leaf: no node
            if (steps > max_depth || p >= num_nodes || p >= x || rp.kind >= 3 || (rp.a != x && rp.b != x)) {
                *broken = 1;
                return;
            }
            const uint32_t g = rp.parent;
            kd_gb_pool_node rg = {};
            if (g < num_nodes)
                rg = pool[g];
            const unsigned long long mine = SIZE_ARRIVAL | nodes << 31 | refs;
#if defined(__CUDA_ARCH__)
            const unsigned long long old = atomicAdd(&arrivals[p], mine);
#else
            const unsigned long long old = arrivals[p];
            arrivals[p] += mine;
#endif
            if (old == 0)
                return; // the sibling is not done; it will sum the parent
            const subtree_size sibling = {(uint32_t)((old >> 31) & SIZE_FIELD), (uint32_t)(old & SIZE_FIELD)};
            below[p] = rp.a == x ? subtree_size{(uint32_t)nodes, (uint32_t)refs} : sibling;
            nodes = saturate_size(1 + nodes + sibling.nodes);
            refs = saturate_size(refs + sibling.refs);
            sizes[p] = {(uint32_t)nodes, (uint32_t)refs};
            x = p;
            p = g;
            rp = rg;
        }
    }
};

// A leaf's sizes, from its record.
__host__ __device__ __forceinline__ subtree_size leaf_size(const kd_gb_pool_node &n)
{
    return {1u, (uint32_t)saturate_size(leaf_count(n))};
}

// The small stage's nodes, a launch per group of its waves
// (gpu_build_waves.cuh): a thread per node of the group's upper wave u sums
// the node's subtree down through the group, each interior node from its
// children in the next wave, and keeps its below child's sizes at the
// node's index for the placement; below the group, the sizes the launch
// before stored for its upper wave. It stores its node's sizes, and a small
// root that split walks on up into the upper stages' nodes. No atomics: only
// the walks from the roots up meet at parents. Children outside the next
// wave: the pool is corrupt.
struct size_args {
    size_walk walk;
    kd_gb_small_slots slots;
};

template <int LEVELS>
struct size_pass {
    size_args g;
    kd_gb_wave_group<LEVELS> at;

    // The sizes of node c of wave u + D; no nodes where the pool is corrupt
    // (a subtree has one at least).
    template <int D>
    __host__ __device__ subtree_size settle(uint32_t c) const
    {
        const size_walk &w = g.walk;
        if constexpr (D == LEVELS) {
            if (at.fresh)
                return w.sizes[c];
        }
        const kd_gb_pool_node rc = w.pool[c];
        if (rc.kind >= 3)
            return leaf_size(rc);
        if constexpr (D < LEVELS) {
            if (rc.a >= at.lo[D + 1] && rc.a < at.hi[D + 1] && rc.b >= at.lo[D + 1] && rc.b < at.hi[D + 1]) {
                const subtree_size below = settle<D + 1>(rc.a), above = settle<D + 1>(rc.b);
                if (below.nodes == 0 || above.nodes == 0)
                    return {0, 0};
                w.below[c] = below;
                return {(uint32_t)saturate_size(1ull + below.nodes + above.nodes),
                        (uint32_t)saturate_size((unsigned long long)below.refs + above.refs)};
            }
        }
        *w.broken = 1;
        return {0, 0};
    }

    __host__ __device__ void operator()(uint32_t k) const
    {
        const uint32_t i = g.slots.node(at.first + k);
        const subtree_size r = settle<0>(i);
        if (r.nodes == 0)
            return;
        g.walk.sizes[i] = r;
        // A small root that split walks on up (one that stayed a leaf walks
        // with the upper stages' leaves).
        if (at.first == 0 && g.walk.pool[i].kind < 3)
            g.walk.up(i, r.nodes, r.refs);
    }
};

// Every pool slot's place word zeroed for the placement. The upper stages'
// leaves walk up (their interior nodes are summed by the last child to
// arrive); every small-stage slot checks that its parent names it, so that
// the placement reaches it (the groups' threads only follow children down).
struct upper_sizes {
    size_walk walk;
    uint32_t upper_end; // the upper stages' slots: [0, upper_end)

    __host__ __device__ void operator()(uint32_t i) const
    {
        walk.places[i] = 0;
        const kd_gb_pool_node node = walk.pool[i];
        if (i < upper_end) {
            if (node.kind >= 3) {
                const subtree_size own = leaf_size(node);
                walk.sizes[i] = own;
                walk.up(i, own.nodes, own.refs);
            }
            return;
        }
        const uint32_t p = node.parent;
        if (p != KD_GB_NONE && p < i && kd_gb_dropped_child(walk.pool[p], i))
            return; // under a subtree that became a leaf: no node
        if (p == KD_GB_NONE || p >= i || walk.pool[p].kind >= 3 ||
            (walk.pool[p].a != i && walk.pool[p].b != i))
            *walk.broken = 1;
    }
};

struct total_refs {
    const subtree_size *sizes;
    kd_gb_scalars *scalars;

    __host__ __device__ void operator()(uint32_t) const
    {
        scalars->total_leaf_refs = sizes[0].refs;
        scalars->total_nodes = sizes[0].nodes;
    }
};

} // namespace

// Step 1 alone, over the pool and the output stage's arrays as they stand
// (KD_GB_O_SIZES, _BELOW, _ARRIVALS, _PLACES, whatever they hold): sizes,
// below children's sizes, zeroed place words, the totals and the broken
// flag in the scalars. For tests; the output stage runs it in its steps.
kd_status kd_gb_output_sizes(kd_gpu_builder *b, const kd_gb_build_state *s, kd_error *err);
#endif
