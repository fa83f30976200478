// The large-node stage: breadth-first over every node with more references
// than the small-node threshold. Per level: node bounds by a segmented
// min/max reduction, a split per node, each reference's side, split-by-side
// addressing of the references, a bookkeeping pass that plans every node and
// compacts the next level by a scan, and a scatter that clips straddlers to
// their child's box and files each reference under its next home. The host
// reads back the level's counts once.
#include "gpu_build_large_split.cuh"

namespace {

// Quantities the bookkeeping scans over the level's nodes.
enum {
    Q_OUT = 0,      // split outputs of the node
    Q_POOL,         // pool nodes it creates (its two children)
    Q_LARGE_NODES,  // children that stay large
    Q_LARGE_REFS,
    Q_SMALL_ROOTS,  // children that go to the small stage
    Q_SMALL_REFS,
    Q_LEAF_REFS,    // references of the node itself if it becomes a leaf
    NUM_Q
};

struct bookkeep {
    const kd_gb_large_node *nodes;
    const kd_gb_split_choice *choice;
    const uint32_t *left_counts;
    const uint32_t *right_counts;
    kd_gb_plan_params pp;
    // Where the level's new things start.
    uint32_t pool_base, small_root_base, small_ref_base, leaf_ref_base;
    // Outputs.
    kd_gb_route *routes;
    uint32_t *out_start;
    kd_gb_large_node *next_nodes;
    kd_gb_small_root *small_roots;
    kd_gb_pool_node *pool;
    kd_gb_scalars *scalars;

    __host__ __device__ void counts(uint32_t k, uint32_t *q) const
    {
        kd_gb_plan p = kd_gb_plan_node(nodes[k], choice[k], left_counts[k], right_counts[k], pp);
        for (int j = 0; j < NUM_Q; j++)
            q[j] = 0;
        q[Q_OUT] = p.num_left + p.num_right;
        q[Q_POOL] = p.leaf ? 0 : 2;
        q[Q_LEAF_REFS] = p.leaf ? p.n : 0;
        for (int side = 0; side < 2; side++) {
            uint32_t count = side ? p.num_right : p.num_left;
            if (p.child_kind[side] == KD_GB_DEST_LARGE) {
                q[Q_LARGE_NODES]++;
                q[Q_LARGE_REFS] += count;
            } else if (p.child_kind[side] == KD_GB_DEST_SMALL) {
                q[Q_SMALL_ROOTS]++;
                q[Q_SMALL_REFS] += count;
            }
        }
    }

    __host__ __device__ void write(uint32_t k, const uint32_t *off) const
    {
        const kd_gb_large_node &node = nodes[k];
        kd_gb_split_choice c = choice[k];
        kd_gb_plan p = kd_gb_plan_node(node, c, left_counts[k], right_counts[k], pp);
        kd_gb_route r;
        r.out_start = off[Q_OUT];
        r.num_left = p.num_left;
        r.axis = c.axis;
        r.pos = c.pos;
        out_start[k] = off[Q_OUT];

        kd_gb_pool_node self;
        self.parent = node.parent;
        self.depth = node.depth;
        self.mask = 0;
        if (p.leaf) {
            r.leaf_base = leaf_ref_base + off[Q_LEAF_REFS];
            self.kind = KD_GB_POOL_LEAF_LIST;
            self.split = 0.0f;
            self.a = r.leaf_base;
            self.b = p.n;
            for (int side = 0; side < 2; side++) {
                r.dest_kind[side] = KD_GB_DEST_DROP;
                r.dest_base[side] = 0;
                r.dest_id[side] = 0;
                for (int j = 0; j < 6; j++)
                    r.child_cell[side][j] = node.cell[j];
            }
            pool[node.pool_id] = self;
            routes[k] = r;
            return;
        }
        r.leaf_base = KD_GB_NONE;
        uint32_t child_id[2] = {pool_base + off[Q_POOL], pool_base + off[Q_POOL] + 1};
        self.kind = (uint32_t)c.axis;
        self.split = c.pos;
        self.a = child_id[0];
        self.b = child_id[1];
        pool[node.pool_id] = self;

        uint32_t large_at = off[Q_LARGE_NODES], large_ref_at = off[Q_LARGE_REFS];
        uint32_t small_at = off[Q_SMALL_ROOTS], small_ref_at = off[Q_SMALL_REFS];
        for (int side = 0; side < 2; side++) {
            uint32_t count = side ? p.num_right : p.num_left;
            float *cell = r.child_cell[side];
            kd_gb_child_cell(node.cell, c.axis, c.pos, side, cell);
            r.dest_kind[side] = p.child_kind[side];
            r.dest_base[side] = 0;
            r.dest_id[side] = 0;
            if (p.child_kind[side] == KD_GB_DEST_LARGE) {
                kd_gb_large_node child;
                for (int j = 0; j < 6; j++)
                    child.cell[j] = cell[j];
                child.ref_start = large_ref_at;
                child.ref_count = count;
                child.pool_id = child_id[side];
                child.parent = node.pool_id;
                child.depth = node.depth + 1;
                child.bad_refines = p.bad_refines;
                next_nodes[large_at] = child;
                r.dest_base[side] = large_ref_at;
                r.dest_id[side] = large_at;
                large_at++;
                large_ref_at += count;
            } else if (p.child_kind[side] == KD_GB_DEST_SMALL) {
                kd_gb_small_root child;
                for (int j = 0; j < 6; j++)
                    child.cell[j] = cell[j];
                child.ref_start = small_ref_base + small_ref_at;
                child.ref_count = count;
                child.pool_id = child_id[side];
                child.parent = node.pool_id;
                child.depth = node.depth + 1;
                child.bad_refines = p.bad_refines;
                small_roots[small_root_base + small_at] = child;
                r.dest_base[side] = child.ref_start;
                r.dest_id[side] = small_root_base + small_at;
                small_at++;
                small_ref_at += count;
            } else {
                // An empty child is an empty leaf right away.
                kd_gb_pool_node empty;
                empty.kind = KD_GB_POOL_LEAF_LIST;
                empty.split = 0.0f;
                empty.a = 0;
                empty.b = 0;
                empty.mask = 0;
                empty.parent = node.pool_id;
                empty.depth = node.depth + 1;
                pool[child_id[side]] = empty;
            }
        }
        routes[k] = r;
    }

    __host__ __device__ void totals(const uint32_t *t) const
    {
        scalars->split_total = t[Q_OUT];
        scalars->new_pool_nodes = t[Q_POOL];
        scalars->next_large_nodes = t[Q_LARGE_NODES];
        scalars->next_large_refs = t[Q_LARGE_REFS];
        scalars->new_small_roots = t[Q_SMALL_ROOTS];
        scalars->new_small_refs = t[Q_SMALL_REFS];
        scalars->new_leaf_refs = t[Q_LEAF_REFS];
    }
};

enum { BK_THREADS = 512, BK_ITEMS = 8, BK_WARPS = BK_THREADS / 32 };

// One block scans all NUM_Q quantities over the level's nodes at once, in
// chunks of BK_THREADS * BK_ITEMS nodes: one launch where separate scans of
// each quantity would take seven.
__global__ void __launch_bounds__(BK_THREADS) bookkeep_kernel(bookkeep bk, uint32_t num_nodes)
{
    __shared__ uint32_t warp_sums[BK_WARPS][NUM_Q];
    __shared__ uint32_t carry[NUM_Q];
    __shared__ uint32_t chunk_total[NUM_Q];
    uint32_t t = threadIdx.x, lane = t & 31u, warp = t >> 5;
    if (t < NUM_Q)
        carry[t] = 0;
    __syncthreads();
    for (uint32_t base = 0; base < num_nodes; base += BK_THREADS * BK_ITEMS) {
        uint32_t first = base + t * BK_ITEMS;
        uint32_t own[NUM_Q], q[NUM_Q];
        for (int j = 0; j < NUM_Q; j++)
            own[j] = 0;
        for (int it = 0; it < BK_ITEMS; it++) {
            if (first + it < num_nodes) {
                bk.counts(first + it, q);
                for (int j = 0; j < NUM_Q; j++)
                    own[j] += q[j];
            }
        }
        // Inclusive scan across the warp, then across the warps' sums.
        uint32_t incl[NUM_Q];
        for (int j = 0; j < NUM_Q; j++) {
            incl[j] = own[j];
            for (uint32_t d = 1; d < 32; d <<= 1) {
                uint32_t x = __shfl_up_sync(0xffffffffu, incl[j], d);
                if (lane >= d)
                    incl[j] += x;
            }
            if (lane == 31)
                warp_sums[warp][j] = incl[j];
        }
        __syncthreads();
        if (warp == 0) {
            for (int j = 0; j < NUM_Q; j++) {
                uint32_t v = lane < BK_WARPS ? warp_sums[lane][j] : 0;
                uint32_t s = v;
                for (uint32_t d = 1; d < 32; d <<= 1) {
                    uint32_t x = __shfl_up_sync(0xffffffffu, s, d);
                    if (lane >= d)
                        s += x;
                }
                if (lane < BK_WARPS)
                    warp_sums[lane][j] = s - v; // exclusive
                if (lane == BK_WARPS - 1)
                    chunk_total[j] = s;
            }
        }
        __syncthreads();
        uint32_t off[NUM_Q];
        for (int j = 0; j < NUM_Q; j++)
            off[j] = carry[j] + warp_sums[warp][j] + incl[j] - own[j];
        for (int it = 0; it < BK_ITEMS; it++) {
            if (first + it < num_nodes) {
                bk.counts(first + it, q);
                bk.write(first + it, off);
                for (int j = 0; j < NUM_Q; j++)
                    off[j] += q[j];
            }
        }
        __syncthreads();
        if (t < NUM_Q)
            carry[t] += chunk_total[t];
        __syncthreads();
    }
    if (t == 0)
        bk.totals(carry);
}

kd_status run_bookkeep(kd_gpu_builder *b, const bookkeep &bk, uint32_t num_nodes, kd_error *err)
{
    if (b->host) {
        uint32_t off[NUM_Q] = {0}, q[NUM_Q];
        for (uint32_t k = 0; k < num_nodes; k++) {
            bk.counts(k, q);
            bk.write(k, off);
            for (int j = 0; j < NUM_Q; j++)
                off[j] += q[j];
        }
        bk.totals(off);
        return KD_OK;
    }
    bookkeep_kernel<<<1, BK_THREADS, 0, b->stream>>>(bk, num_nodes);
    return kd_gb_cuda(err, cudaGetLastError(), "large-node bookkeeping");
}

// Files each split output under its child (clipping straddlers to the
// child's box), and copies the references of nodes that became leaves.
struct scatter {
    const kd_gb_route *routes;
    const uint32_t *out_start;
    uint32_t num_nodes;
    uint32_t num_out;             // split outputs; the level's inputs follow
    kd_gb_refs split_out;
    kd_gb_refs level;
    const kd_gb_large_node *nodes;
    const float *tri_verts;
    kd_gb_refs next_large;
    kd_gb_refs small;
    uint32_t *leaf_refs;

    __host__ __device__ void operator()(uint32_t j) const
    {
        if (j >= num_out) {
            uint32_t i = j - num_out;
            uint32_t k = level.seg[i];
            uint32_t leaf_base = routes[k].leaf_base;
            if (leaf_base != KD_GB_NONE)
                leaf_refs[leaf_base + (i - nodes[k].ref_start)] = level.tri[i];
            return;
        }
        // The node: the last whose outputs start at or before j.
        uint32_t lo = 0, hi = num_nodes;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) >> 1;
            if (out_start[mid] <= j)
                lo = mid;
            else
                hi = mid;
        }
        const kd_gb_route &r = routes[lo];
        if (r.leaf_base != KD_GB_NONE)
            return;
        uint32_t local = j - r.out_start;
        int side = local < r.num_left ? 0 : 1;
        uint32_t kind = r.dest_kind[side];
        if (kind == KD_GB_DEST_DROP)
            return;
        uint32_t rank = side ? local - r.num_left : local;
        uint32_t tri = split_out.tri[j];
        float box[6];
        for (int k = 0; k < 3; k++) {
            box[k] = split_out.lo[k][j];
            box[3 + k] = split_out.hi[k][j];
        }
        if (box[r.axis] <= r.pos && box[3 + r.axis] >= r.pos)
            kd_gb_clip_bounds(tri_verts + 9 * (size_t)tri, r.child_cell[side], box);
        const kd_gb_refs &to = kind == KD_GB_DEST_LARGE ? next_large : small;
        uint32_t dst = r.dest_base[side] + rank;
        to.tri[dst] = tri;
        for (int k = 0; k < 3; k++) {
            to.lo[k][dst] = box[k];
            to.hi[k][dst] = box[3 + k];
        }
        if (kind == KD_GB_DEST_LARGE)
            to.seg[dst] = r.dest_id[side];
    }
};

} // namespace

kd_status kd_gb_stage_large(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    const kd_gpu_build_options *o = s->opts;
    uint32_t threshold = (uint32_t)o->small_node_threshold;
    uint32_t num_nodes = s->num_tris > threshold ? 1 : 0;
    uint32_t num_refs = num_nodes ? s->num_tris : 0;
    int refs_cur = KD_GB_REFS_A, refs_next = KD_GB_REFS_A2;
    int nodes_cur = KD_GB_LNODES_A, nodes_next = KD_GB_LNODES_B;
    double budget = (double)o->max_refs_per_triangle * (double)s->num_tris;
    int num_bins = o->sah_bins;

    kd_gb_plan_params pp;
    pp.sah.traversal = o->params.traversal_cost;
    pp.sah.intersect = o->params.intersect_cost;
    pp.sah.empty_bonus = o->params.empty_bonus;
    pp.small_threshold = threshold;
    pp.max_bad_refines = (uint32_t)o->params.max_bad_refines;

    for (uint32_t depth = 0; num_nodes > 0; depth++) {
        // Room for the level: a split at most doubles the references.
        size_t max_out = 2 * (size_t)num_refs;
        if (max_out + s->num_small_refs + s->num_leaf_refs > 0xffffffffull)
            return kd_gb_fail(err, KD_ERR_NOMEM, "GPU build: more than 2^32 references");
        int force_leaf = (double)(max_out + s->num_small_refs + s->num_leaf_refs) > budget;
        KD_GB_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_OUT, max_out, 0, 0, err));
        KD_GB_TRY(kd_gb_ensure_refs(b, refs_next, max_out, 1, 0, err));
        KD_GB_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_SMALL, s->num_small_refs + max_out, 0, 1, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_SIDES, num_refs, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_LEAF_REFS, 4 * ((size_t)s->num_leaf_refs + num_refs), 1, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_TIGHT, 24 * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_CHOICE, sizeof(kd_gb_split_choice) * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_LCOUNT, 4 * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_RCOUNT, 4 * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_ROUTE, sizeof(kd_gb_route) * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_OUT_START, 4 * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, nodes_next, sizeof(kd_gb_large_node) * 2 * (size_t)num_nodes, 0, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_SROOTS,
                               sizeof(kd_gb_small_root) * ((size_t)s->num_small_roots + 2 * num_nodes), 1, err));
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_POOL,
                               sizeof(kd_gb_pool_node) * ((size_t)s->pool_count + 2 * num_nodes), 1, err));
        if (o->large_split == KD_LARGE_SPLIT_SAH)
            KD_GB_TRY(kd_gb_ensure(b, KD_GB_BINS, 4 * (size_t)num_nodes * 6 * num_bins, 0, err));

        kd_gb_refs level = kd_gb_ref_set(b, refs_cur);
        kd_gb_refs split_out = kd_gb_ref_set(b, KD_GB_REFS_OUT);
        const kd_gb_large_node *nodes = kd_gb_ptr<kd_gb_large_node>(b, nodes_cur);
        float *tight = kd_gb_ptr<float>(b, KD_GB_TIGHT);
        kd_gb_split_choice *choice = kd_gb_ptr<kd_gb_split_choice>(b, KD_GB_CHOICE);
        uint8_t *sides = kd_gb_ptr<uint8_t>(b, KD_GB_SIDES);
        kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);

        // Node bounds.
        kd_gb_reduce_timer_begin(b, o->profile);
        KD_GB_TRY(kd_gb_segmented_bounds(b, o->reduce_variant, &level, num_refs, num_nodes, tight, err));
        kd_gb_reduce_timer_end(b, o->profile);
        if (s->profile)
            s->profile->num_reduce_calls++;

        // Splits.
        if (o->large_split == KD_LARGE_SPLIT_SAH) {
            uint32_t *bins = kd_gb_ptr<uint32_t>(b, KD_GB_BINS);
            KD_GB_TRY(kd_gb_memset(b, bins, 0, 4 * (size_t)num_nodes * 6 * num_bins, err));
            kd_gb_bin_refs bin = {level, tight, bins, num_bins};
            KD_GB_TRY(kd_gb_map(b, num_refs, bin, "binning references", err));
            kd_gb_choose_sah choose = {nodes, tight, bins, choice, pp.sah, num_bins, s->max_depth, force_leaf,
                                        o->empty_space_ratio};
            KD_GB_TRY(kd_gb_map(b, num_nodes, choose, "choosing SAH splits", err));
        } else {
            kd_gb_choose_median choose = {nodes, tight, choice, s->max_depth, force_leaf,
                                          o->empty_space_ratio};
            KD_GB_TRY(kd_gb_map(b, num_nodes, choose, "choosing median splits", err));
        }
        kd_gb_classify classify = {level, choice, sides};
        KD_GB_TRY(kd_gb_map(b, num_refs, classify, "classifying references", err));

        // Split-by-side addressing of the references.
        uint32_t *left_counts = kd_gb_ptr<uint32_t>(b, KD_GB_LCOUNT);
        uint32_t *right_counts = kd_gb_ptr<uint32_t>(b, KD_GB_RCOUNT);
        KD_GB_TRY(kd_gb_split(b, &level, sides, num_refs, num_nodes, &split_out, left_counts,
                              right_counts, NULL, err));

        // Plan every node and compact the next level.
        bookkeep bk;
        bk.nodes = nodes;
        bk.choice = choice;
        bk.left_counts = left_counts;
        bk.right_counts = right_counts;
        bk.pp = pp;
        bk.pool_base = s->pool_count;
        bk.small_root_base = s->num_small_roots;
        bk.small_ref_base = s->num_small_refs;
        bk.leaf_ref_base = s->num_leaf_refs;
        bk.routes = kd_gb_ptr<kd_gb_route>(b, KD_GB_ROUTE);
        bk.out_start = kd_gb_ptr<uint32_t>(b, KD_GB_OUT_START);
        bk.next_nodes = kd_gb_ptr<kd_gb_large_node>(b, nodes_next);
        bk.small_roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
        bk.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
        bk.scalars = scalars;
        KD_GB_TRY(run_bookkeep(b, bk, num_nodes, err));

        kd_gb_scalars counts;
        KD_GB_TRY(kd_gb_read_scalars(b, &counts, err));
        if (s->profile) {
            s->profile->num_host_syncs++;
            s->profile->num_large_levels++;
            if (num_refs > s->profile->max_large_refs)
                s->profile->max_large_refs = num_refs;
        }
        if (counts.split_total > max_out)
            return kd_gb_fail(err, KD_ERR_INVALID, "GPU build: the split wrote %u references, "
                              "more than the %zu it can", counts.split_total, max_out);

        scatter sc;
        sc.routes = bk.routes;
        sc.out_start = bk.out_start;
        sc.num_nodes = num_nodes;
        sc.num_out = counts.split_total;
        sc.split_out = split_out;
        sc.level = level;
        sc.nodes = nodes;
        sc.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
        sc.next_large = kd_gb_ref_set(b, refs_next);
        sc.small = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
        sc.leaf_refs = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_REFS);
        KD_GB_TRY(kd_gb_map(b, counts.split_total + num_refs, sc, "scattering references", err));

        s->pool_count += counts.new_pool_nodes;
        if (s->num_small_roots == 0 && counts.new_small_roots > 0)
            s->min_small_depth = depth + 1;
        s->num_small_roots += counts.new_small_roots;
        s->num_small_refs += counts.new_small_refs;
        s->num_leaf_refs += counts.new_leaf_refs;
        num_nodes = counts.next_large_nodes;
        num_refs = counts.next_large_refs;
        int t = refs_cur;
        refs_cur = refs_next;
        refs_next = t;
        t = nodes_cur;
        nodes_cur = nodes_next;
        nodes_next = t;
    }
    return KD_OK;
}
