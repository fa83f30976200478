// Output step 1, the subtree sizes: the per-element code of gpu_build_output.cu
// (whose head describes the steps), apart so that each file reads at once.
#ifndef KD_GPU_BUILD_OUTPUT_SIZES_CUH
#define KD_GPU_BUILD_OUTPUT_SIZES_CUH

#include "gpu_build_collapse.cuh"
#include "gpu_build_common.cuh"

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

// The walk up from node i, whose sizes are known (see the top of this
// file), adding them to its ancestors' until a parent is waiting for its
// other child. A path longer than the depth cap, a parent after its child
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

    // Stops below pool id `stop` (a parent there is summed otherwise). Each
    // step loads the next parent's record before its atomic on this one,
    // so that a level costs one wait, not two (the upper nodes' walk is a
    // chain as long as the upper tree is deep).
    __host__ __device__ void up(uint32_t x, unsigned long long nodes, unsigned long long refs,
                                uint32_t stop = 0) const
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
            if (p < stop)
                return;
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

    // A node's sizes from its own record (a leaf) or its children's (which
    // must lie in [lo, hi), where their sizes are known); 0 where the pool
    // is corrupt.
    __host__ __device__ int own(uint32_t i, const kd_gb_pool_node &node, uint32_t lo, uint32_t hi,
                                unsigned long long *nodes, unsigned long long *refs) const
    {
        if (node.kind >= 3) {
            *nodes = 1;
            *refs = saturate_size(leaf_count(node));
        } else {
            if (node.a < lo || node.a >= hi || node.b < lo || node.b >= hi) {
                *broken = 1;
                return 0;
            }
            const subtree_size a = sizes[node.a], b = sizes[node.b];
            *nodes = saturate_size(1ull + a.nodes + b.nodes);
            *refs = saturate_size((unsigned long long)a.refs + b.refs);
            below[i] = a;
        }
        sizes[i] = {(uint32_t)*nodes, (uint32_t)*refs};
        return 1;
    }

    // Starts a walk at node i where its sizes are known: a leaf, or an
    // interior node whose children lie in [lo, hi). Others (summed on the
    // way up) start none.
    __host__ __device__ void start(uint32_t i, uint32_t lo, uint32_t hi, uint32_t stop = 0) const
    {
        const kd_gb_pool_node node = pool[i];
        if (node.kind < 3 && (node.a < lo || node.a >= hi))
            return;
        unsigned long long nodes, refs;
        if (own(i, node, lo, hi, &nodes, &refs))
            up(i, nodes, refs, stop);
    }
};

// The large and medium stages' nodes: every leaf walks up (interior nodes
// are summed by the last child to arrive).
struct upper_sizes {
    size_walk walk;

    __host__ __device__ void operator()(uint32_t i) const
    {
        walk.places[i] = 0;
        walk.start(i, 0, 0);
    }
};

// The small stage's nodes after its roots, a wave at a time from the last,
// without atomics: a node's children lie in the next wave (pool ids [lo,
// hi)), whose sizes are known. Each node checks that its parent names it,
// so that the placement reaches it.
struct wave_sizes {
    size_walk walk;
    uint32_t first; // pool id of the wave's first slot
    uint32_t lo, hi;

    __host__ __device__ void operator()(uint32_t k) const
    {
        const uint32_t i = first + k;
        walk.places[i] = 0;
        const kd_gb_pool_node node = walk.pool[i];
        const uint32_t p = node.parent;
        if (p != KD_GB_NONE && p < i && kd_gb_dropped_child(walk.pool[p], i))
            return; // under a subtree that became a leaf: no node
        if (p == KD_GB_NONE || p >= i || walk.pool[p].kind >= 3 ||
            (walk.pool[p].a != i && walk.pool[p].b != i)) {
            *walk.broken = 1;
            return;
        }
        unsigned long long nodes, refs;
        walk.own(i, node, lo, hi, &nodes, &refs);
    }
};

// Small-stage waves too small to be worth a pass each (pool ids from
// `first`), walked up like the upper nodes: every leaf walks; an interior
// node whose children lie in [lo, hi), the first wave with a pass of its
// own, starts a walk with its sizes from theirs; the rest are summed on the
// way. The waves after the last pass (tail) stop below their first node
// (`stop`: what lies above is summed by the passes); those before the first
// pass (head) walk on through the roots into the upper nodes.
struct wave_walk {
    size_walk walk;
    uint32_t first;
    uint32_t lo, hi, stop;

    __host__ __device__ void operator()(uint32_t k) const
    {
        walk.places[first + k] = 0;
        walk.start(first + k, lo, hi, stop);
    }
};

// The small roots that split, when wave 1 has a pass (or is walked up to
// them): sizes from their children (pool ids [lo, hi)), then a walk up into
// the upper nodes; a root that stayed a leaf is one of the upper pass's
// leaves.
struct root_sizes {
    size_walk walk;
    const kd_gb_small_root *roots;
    uint32_t lo, hi;

    __host__ __device__ void operator()(uint32_t r) const
    {
        const uint32_t i = roots[r].pool_id;
        const kd_gb_pool_node node = walk.pool[i];
        if (node.kind >= 3)
            return;
        unsigned long long nodes, refs; // children outside [lo, hi): the pool is corrupt
        if (walk.own(i, node, lo, hi, &nodes, &refs))
            walk.up(i, nodes, refs);
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
#endif
