// Output: the node pool (every node once, in no particular order) becomes
// the shared tree format, depth-first with the below child next.
//  1. Subtree sizes (nodes and leaf references), bottom up. The small
//     stage's nodes (most of the tree) a wave at a time from the last, each
//     summing its children's, which lie in the next wave: plain loads, no
//     atomics. Above them (and in the small waves before and after the
//     large ones, where a launch per wave would cost more), every leaf and
//     every small root walks towards the root; at each parent the first
//     child to arrive stops and the second sums both. Each child adds its
//     sizes and an arrival to one 64-bit word of the parent with one
//     atomic, so the second learns its sibling's sizes from the atomic's
//     old value: no other memory passes between them, and no fence is
//     needed. (Walking up from every leaf of the whole tree would cost many
//     64-bit atomics.) Whoever sums an interior node
//     also keeps its below child's sizes at the node's own index, which is
//     all the placement needs of them; and each slot's place word is zeroed
//     by the thread that passes it here, so no launch of its own does.
//  2. Each node's preorder address and first leaf reference, top-down: a
//     below child sits right after its parent, an above child after the
//     whole below subtree, and likewise for leaf references (the scan over
//     subtree sizes, taken along the path). A parent publishes both of each
//     child in one 64-bit word of the child's, which the child waits for
//     (again no fence): it reads no record of its parent's. (A pass per
//     small-stage wave instead, without waiting, was slower.)
//  3. Each node writes itself (and a leaf its triangle indices) there.
// The host waits once, after the placement (the placement does nothing
// where the sizes pass found the pool corrupt): the node array is sized
// from a bound (a node per pool slot), the leaf references from an estimate
// that nearly always holds (a large-stage leaf reference or small-stage
// member entry each: a small node that goes on has its own entries, but the
// children a split makes leaves at once take none, and with straddlers can
// hold more than their parent's). Where the leaves want more, the placement
// has written nothing past the array and says so; the host grows the array
// to the total, which the sizes pass has left, and places the tree again.
// The tree's two arrays lie in the earlier stages' dead memory where it has
// room, else in memory of their own.
// Before step 1 the collapse rule (gpu_build_collapse.cu) turns the small
// subtrees that do not pay into leaves, in the scratch these steps use. The
// slots under such a leaf are dropped on the way: step 1 ends a walk or a
// sum where it meets the leaf, and step 2 publishes a dropped place to its
// old children, which pass it on to theirs and write nothing.
#include "gpu_build_collapse.cuh"
#include "gpu_build_common.cuh"
#include "gpu_build_output_sizes.cuh"
#include "lookback.cuh"

namespace {

// The place word of a node under a subtree that became a leaf (no place
// word of a node's is all ones: the node array ends far below).
enum : unsigned long long { PLACE_DROPPED = ~0ull };

// Steps 2 and 3: a thread per pool slot, top-down. A parent's pool id is
// always below its children's (slots are only ever appended, and a child's
// after its parent's), so thread i waits for the place its parent gives it
// and gives its own children theirs: one step per node where a walk to the
// root would take one per level. A place is one word, (address + 1) << 32 |
// first leaf reference, zero until published, read and written whole. The
// child reads only its own word (its parent's record and its sibling's
// sizes stay with the parent, which has them at hand). Blocks start in index
// order, so the parent a thread waits on is running or done, and the wait
// ends (the sizes pass has checked that every leaf's ancestors, and the
// parent of every node in a wave with a pass of its own, come before and
// name their children; where it found otherwise, nothing is placed); on the
// host the slots simply go in order. A place past the output arrays (which
// sound sizes never give) is not written and marks the pool corrupt (in a
// flag of its own: the one read first must not change while threads wait),
// and the children are still published, so that no wait is left.
struct place_nodes {
    const kd_gb_pool_node *pool;
    const subtree_size *below;
    unsigned long long *placed;    // per node: its place, zero until published
    const uint32_t *leaf_refs;     // large-stage leaves
    const kd_gb_small_root *roots; // small-stage leaves name their root...
    const uint32_t *small_tris;    // ...whose references' triangles are here
    kd_node *nodes;
    uint32_t *leaf_out;
    uint32_t node_capacity, leaf_capacity;
    const uint32_t *broken; // by the sizes pass
    uint32_t *fault;        // by this one

    __host__ __device__ void publish(uint32_t i, uint32_t at, uint32_t ref) const
    {
        // A place past the array (a corrupt pool) goes on as the array's
        // end, where the child faults: never as a zero word it would wait
        // on for ever.
        at = at < node_capacity ? at : node_capacity;
        publish_word(i, (unsigned long long)(at + 1u) << 32 | ref);
    }

    __host__ __device__ void publish_word(uint32_t i, unsigned long long word) const
    {
#if defined(__CUDA_ARCH__)
        kd_store_relaxed_u64(reinterpret_cast<uint64_t *>(&placed[i]), word);
#else
        placed[i] = word;
#endif
    }

    // A dropped node's children (or a collapsed leaf's old ones) are
    // dropped too: told so, so that their waits end.
    __host__ __device__ void drop_children(const kd_gb_pool_node &node) const
    {
        if (node.kind < 3 || node.kind == KD_GB_POOL_LEAF_COLLAPSED) {
            const uint32_t first = node.kind < 3 ? node.a : node.b;
            const uint32_t second = node.kind < 3 ? node.b : node.b + 1u;
            publish_word(first, PLACE_DROPPED);
            publish_word(second, PLACE_DROPPED);
        }
    }

    __host__ __device__ void operator()(uint32_t i) const
    {
        const kd_gb_pool_node node = pool[i];
        if (*broken)
            return; // the sizes are not to be trusted: a wait might not end
        // What the node needs besides its place, loaded before it waits for
        // that, so that the loads overlap the wait.
        subtree_size under = {0, 0};
        uint32_t first = 0;
        if (node.kind < 3)
            under = below[i];
        else if (node.kind != KD_GB_POOL_LEAF_LIST)
            first = roots[node.a].ref_start;
        uint32_t at = 0, ref = 0;
        if (node.parent != KD_GB_NONE) {
            unsigned long long word = 0;
#if defined(__CUDA_ARCH__)
            while ((word = kd_load_relaxed_u64(reinterpret_cast<const uint64_t *>(&placed[i]))) == 0ull) {
            }
#else
            word = placed[i];
#endif
            if (word == PLACE_DROPPED) {
                drop_children(node);
                return;
            }
            at = (uint32_t)(word >> 32) - 1u;
            ref = (uint32_t)word;
        }
        if (node.kind == KD_GB_POOL_LEAF_COLLAPSED)
            drop_children(node);
        if (node.kind < 3) {
            // The below child right after this node, the above one after
            // the whole below subtree.
            publish(node.a, at + 1u, ref);
            publish(node.b, at + 1u + under.nodes, ref + under.refs);
            if (at < node_capacity)
                nodes[at] = kd_make_interior((int)node.kind, node.split, at + 1u + under.nodes);
            else
                *fault = 1;
            return;
        }
        uint32_t count = leaf_count(node);
        if (at >= node_capacity || ref > leaf_capacity || count > leaf_capacity - ref) {
            *fault = 1;
            return;
        }
        nodes[at] = kd_make_leaf(ref, count);
        if (node.kind == KD_GB_POOL_LEAF_LIST) {
            for (uint32_t j = 0; j < count; j++)
                leaf_out[ref + j] = leaf_refs[node.a + j];
            return;
        }
        // The members' triangles four loads at a time, then their stores
        // (a load and its store one after the other waited out each load).
        unsigned long long m = node.mask;
        for (uint32_t j = 0; m; j += 4u) {
            uint32_t tri[4], got = 0;
            for (int k = 0; k < 4; k++) {
                if (m) {
                    tri[k] = small_tris[first + kd_gb_ctz64(m)];
                    m &= m - 1ull;
                    got++;
                }
            }
            for (uint32_t k = 0; k < 4u; k++)
                if (k < got)
                    leaf_out[ref + j + k] = tri[k];
        }
    }
};


// Every output buffer, sized before the first kernel: a node per pool slot;
// leaf references as estimated (see the top of this file), or as many as
// an earlier build's array holds.
kd_status ensure_output_buffers(kd_gpu_builder *b, const kd_gb_build_state *s, kd_error *err)
{
    const size_t num_nodes = s->pool_count; // a node per pool slot
    size_t est_leaf_refs = (size_t)s->num_leaf_refs + (s->num_small_roots ? s->small_members : 0);
    if (est_leaf_refs > KD_NODE_MAX_COUNT)
        est_leaf_refs = KD_NODE_MAX_COUNT;
    // The walks' arrays live in the earlier stages' memory, dead by now; so
    // does the tree itself where it fits, as those stages' memory is next
    // used by the next build, which the tree need not outlive.
    kd_gb_lender dead = {{KD_GB_STASKS, KD_GB_ARENA, KD_GB_CLIPJOBS, KD_GB_MTIGHT, KD_GB_REFS_A2_MEM,
                          KD_GB_REFS_A_MEM, KD_GB_REFS_OUT_MEM}, {0}, 7};
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_SIZES, sizeof(subtree_size) * num_nodes, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_BELOW, sizeof(subtree_size) * num_nodes, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_ARRIVALS, 8 * num_nodes, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_PLACES, 8 * num_nodes, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_NODES_OUT, sizeof(kd_node) * (num_nodes + 1), &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_LEAF_OUT, 4 * (est_leaf_refs + 1), &dead, err));
    // The large stage may have made no leaf list, the small stage no root.
    KD_TRY(kd_gb_ensure(b, KD_GB_LEAF_REFS, 4, 1, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_SROOTS, sizeof(kd_gb_small_root), 1, err));
    return kd_gb_ensure_refs(b, KD_GB_REFS_SMALL, 1, 0, 1, err);
}

// The small stage's waves as pool ranges: wave w holds task slots
// [ends[w - 1], ends[w]) (wave 0 the roots, whose pool ids are the upper
// stages'); task slot t past the roots is pool id small_pool_base + t -
// num_small_roots. Waves [head, tail) (from 1) have at least
// KD_GB_WAVE_PASS_MIN slots and get a pass each; the small ones around them
// are walked up, a launch for each side (a pass costs a launch, a walk its
// atomics); tail == head == 1: no wave is large, one walk for them all.
struct wave_plan {
    const kd_gb_build_state *s;
    uint32_t num_waves, num_roots, head, tail;

    uint32_t pool_id(uint32_t slot) const { return s->small_pool_base + (slot - num_roots); }
    uint32_t first(uint32_t w) const { return pool_id(w ? s->small_wave_ends[w - 1] : num_roots); }
    uint32_t end(uint32_t w) const { return pool_id(s->small_wave_ends[w < num_waves ? w : num_waves - 1]); }
};

wave_plan wave_plan_of(const kd_gb_build_state *s)
{
    wave_plan p = {s, s->num_small_waves, s->num_small_roots, 1, 1};
    for (uint32_t w = 1; w < p.num_waves; w++) {
        if (s->small_wave_ends[w] - s->small_wave_ends[w - 1] >= KD_GB_WAVE_PASS_MIN) {
            p.head = p.tail == 1 ? w : p.head;
            p.tail = w + 1;
        }
    }
    return p;
}

// Subtree sizes bottom up: the waves after the passes walked, the large
// waves a pass each, the waves before them walked (or the roots summed),
// then every node above the small stage, and the total.
kd_status subtree_sizes(kd_gpu_builder *b, const kd_gb_build_state *s, const size_walk &walk, kd_error *err)
{
    const wave_plan p = wave_plan_of(s);
    const uint32_t num_nodes = walk.num_nodes;
    // Only a walk's parents take arrivals: those before the first wave with
    // a pass and from the first walked after them (the passes' own slots,
    // most of a large tree, are left as they are).
    const uint32_t passes_begin = p.tail > p.head ? p.first(p.head) : num_nodes;
    const uint32_t passes_end = p.tail > p.head ? p.first(p.tail) : num_nodes;
    KD_TRY(kd_gb_zero2(b, reinterpret_cast<uint32_t *>(walk.arrivals), 8 * (size_t)passes_begin,
                       reinterpret_cast<uint32_t *>(walk.arrivals + passes_end), 8 * (size_t)(num_nodes - passes_end),
                       err));
    if (p.num_waves > p.tail) {
        wave_walk tw = {walk, p.first(p.tail), 0, 0, p.first(p.tail)};
        KD_TRY(kd_gb_map(b, p.end(p.num_waves - 1) - tw.first, tw, "subtree sizes (small waves, last)", err));
    }
    for (uint32_t w = p.tail; w-- > p.head;) {
        wave_sizes ws = {walk, p.first(w), p.end(w), p.end(w + 1)};
        KD_TRY(kd_gb_map(b, p.end(w) - ws.first, ws, "subtree sizes (small-stage wave)", err));
    }
    if (p.head > 1) {
        wave_walk hw = {walk, p.first(1), p.end(p.head - 1), p.end(p.head), 0};
        KD_TRY(kd_gb_map(b, p.end(p.head - 1) - hw.first, hw, "subtree sizes (small waves, first)", err));
    } else if (p.num_waves) {
        root_sizes rs = {walk, kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS), p.first(1), p.end(1)};
        KD_TRY(kd_gb_map(b, p.num_roots, rs, "subtree sizes (small roots)", err));
    }
    upper_sizes us = {walk};
    KD_TRY(kd_gb_map(b, p.num_waves ? s->small_pool_base : num_nodes, us, "subtree sizes", err));
    total_refs total = {walk.sizes, kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS)};
    return kd_gb_map(b, 1, total, "total leaf references", err);
}

size_walk size_walk_of(kd_gpu_builder *b, const kd_gb_build_state *s)
{
    size_walk walk;
    walk.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    walk.sizes = kd_gb_ptr<subtree_size>(b, KD_GB_O_SIZES);
    walk.below = kd_gb_ptr<subtree_size>(b, KD_GB_O_BELOW);
    walk.arrivals = kd_gb_ptr<unsigned long long>(b, KD_GB_O_ARRIVALS);
    walk.places = kd_gb_ptr<unsigned long long>(b, KD_GB_O_PLACES);
    walk.num_nodes = s->pool_count;
    walk.max_depth = (uint32_t)s->max_depth;
    walk.broken = &kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS)->broken_pool;
    return walk;
}

place_nodes placement_of(kd_gpu_builder *b, const size_walk &walk)
{
    kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    place_nodes w;
    w.pool = walk.pool;
    w.below = walk.below;
    w.placed = walk.places;
    w.leaf_refs = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_REFS);
    w.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    w.small_tris = kd_gb_ptr<uint32_t>(b, KD_GB_REFS_SMALL + KD_GB_REF_TRI);
    w.nodes = kd_gb_ptr<kd_node>(b, KD_GB_NODES_OUT);
    w.leaf_out = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_OUT);
    w.node_capacity = walk.num_nodes;
    const size_t leaf_room = b->buf[KD_GB_LEAF_OUT].bytes / 4 - 1;
    w.leaf_capacity = leaf_room < KD_NODE_MAX_COUNT ? (uint32_t)leaf_room : (uint32_t)KD_NODE_MAX_COUNT;
    w.broken = &scalars->broken_pool;
    w.fault = &scalars->place_fault;
    return w;
}

// Where the leaves wanted more references than the estimate's array holds
// (the placement wrote nothing past it and said so): the array grown to
// the total, and the tree placed again.
kd_status place_again(kd_gpu_builder *b, const kd_gb_build_state *s, place_nodes w, kd_gb_scalars *counts,
                      kd_error *err)
{
    kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    KD_TRY(kd_gb_ensure(b, KD_GB_LEAF_OUT, 4 * ((size_t)counts->total_leaf_refs + 1), 0, err));
    w.leaf_out = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_OUT);
    w.leaf_capacity = counts->total_leaf_refs;
    KD_TRY(kd_gb_memset(b, w.placed, 0, 8 * (size_t)w.node_capacity, err));
    KD_TRY(kd_gb_memset(b, &scalars->place_fault, 0, sizeof scalars->place_fault, err));
    KD_TRY(kd_gb_map(b, w.node_capacity, w, "writing the tree again", err));
    KD_TRY(kd_gb_read_scalars(b, counts, err));
    if (s->profile) {
        s->profile->num_host_syncs++;
        s->profile->num_output_retries++;
    }
    return KD_OK;
}

// The placed tree's counts, checked, into the builder and the profile.
kd_status finish_output(kd_gpu_builder *b, const kd_gb_build_state *s, const kd_gb_scalars &counts, kd_error *err)
{
    if (counts.place_fault)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: internal error: the node pool is corrupt");
    b->tree_nodes = counts.total_nodes;
    b->tree_leaf_refs = counts.total_leaf_refs;
    b->tree_max_depth = (uint32_t)s->max_depth;
    for (int k = 0; k < 6; k++)
        b->tree_box[k] = counts.scene_box[k] + 0.0f; // as the root's box: no -0
    if (s->profile) {
        s->profile->num_nodes = counts.total_nodes;
        s->profile->num_leaf_refs = counts.total_leaf_refs;
    }
    return KD_OK;
}

} // namespace

kd_status kd_gb_stage_output(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    KD_TRY(ensure_output_buffers(b, s, err));
    const size_walk walk = size_walk_of(b, s);
    KD_TRY(kd_gb_collapse(b, s, reinterpret_cast<double *>(walk.arrivals), walk.places,
                          reinterpret_cast<double *>(walk.sizes), reinterpret_cast<uint32_t *>(walk.below), err));
    kd_gb_step_mark(b, s->opts->profile, KD_GPU_STEP_OUTPUT_COLLAPSE);
    KD_TRY(subtree_sizes(b, s, walk, err));
    kd_gb_step_mark(b, s->opts->profile, KD_GPU_STEP_OUTPUT_SIZES);
    const place_nodes w = placement_of(b, walk);
    KD_TRY(kd_gb_map(b, walk.num_nodes, w, "writing the tree", err));
    kd_gb_step_mark(b, s->opts->profile, KD_GPU_STEP_OUTPUT_PLACE);
    // The build's last wait (the driver's own then finds the stream idle,
    // and counts it).
    kd_gb_scalars counts;
    KD_TRY(kd_gb_read_scalars(b, &counts, err));
    kd_gb_step_mark(b, s->opts->profile, KD_GPU_STEP_OUTPUT_READBACK);
    if (counts.broken_pool)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: internal error: the node pool is corrupt");
    if (counts.total_leaf_refs > KD_NODE_MAX_COUNT || counts.total_nodes > KD_NODE_MAX_COUNT)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: %u nodes and %u leaf references: over the tree "
                            "format's %u", counts.total_nodes, counts.total_leaf_refs, (unsigned)KD_NODE_MAX_COUNT);
    if (counts.place_fault && counts.total_leaf_refs > w.leaf_capacity)
        KD_TRY(place_again(b, s, w, &counts, err));
    return finish_output(b, s, counts, err);
}
