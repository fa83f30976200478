// The large-node stage's bookkeeping: plans every node of a level from its
// split's exact counts, and compacts the next level (large nodes, small
// roots, leaf references, pool slots) by a scan of seven quantities at once,
// chained across blocks by decoupled look-back.
// Included by gpu_build_large.cu only.
#ifndef KD_GPU_BUILD_LARGE_BOOKKEEP_CUH
#define KD_GPU_BUILD_LARGE_BOOKKEEP_CUH

#include "gpu_build_large_split.cuh"
#include "lookback.cuh"
#if KD_DEVICE_CODE
#include "block_scan.cuh"
#endif

namespace kd_gb_large {

// Quantities the bookkeeping scans over the level's nodes.
enum {
    Q_OUT = 0,      // split outputs of the node
    Q_POOL,         // pool nodes it creates (its two children)
    Q_LARGE_NODES,  // children that stay large
    Q_LARGE_REFS,
    Q_SMALL_ROOTS,  // children that go to the small stage
    Q_SMALL_REFS,
    Q_LEAF_REFS,    // references of the node itself if it becomes a leaf
    Q_CUTS,         // empty cuts its choice made in a row (kd_gb_chain)
    NUM_Q
};

struct bookkeep {
    const kd_gb_large_node *nodes;
    const kd_gb_split_choice *choice;
    const kd_gb_chain *chains;          // each node's empty cuts in a row (NULL: none, the median split)
    const uint32_t *left_counts;
    const uint32_t *right_counts;
    kd_gb_plan_params pp;
    // Where the level's new things start.
    uint32_t pool_base, small_root_base, small_ref_base, leaf_ref_base;
    // Outputs.
    kd_gb_route *routes;
    kd_gb_large_node *next_nodes;
    kd_gb_small_root *small_roots;
    kd_gb_pool_node *pool;
    kd_gb_scalars *scalars;
    uint32_t *largest;            // the next level's largest node (scalars->next_large_max[depth % 2])

    // Node k's plan, and its share of each quantity.
    __host__ __device__ kd_gb_plan counts(uint32_t k, uint32_t *q) const
    {
        kd_gb_plan p = kd_gb_plan_node(nodes[k], choice[k], left_counts[k], right_counts[k], pp);
        for (int j = 0; j < NUM_Q; j++)
            q[j] = 0;
        q[Q_OUT] = p.num_left + p.num_right;
        q[Q_CUTS] = chains ? chains[k].count : 0u;
        q[Q_POOL] = (p.leaf ? 0 : 2) + 2 * q[Q_CUTS];
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
        return p;
    }

    // Node k's records under plan p, at offsets `off` of each quantity.
    __host__ __device__ void write(uint32_t k, const kd_gb_plan &p, const uint32_t *off) const
    {
        kd_gb_large_node node = nodes[k];
        const kd_gb_split_choice c = choice[k];
        // The chain's cuts first, from the node's own pool slot down (the
        // record holds the chain's end, with the chain's first pool id and
        // parent): each cut's node and its empty leaf, two slots a cut.
        uint32_t pool_at = pool_base + off[Q_POOL];
        const uint32_t cuts = chains ? chains[k].count : 0u;
        if (cuts) {
            const kd_gb_chain &chain = chains[k];
            uint32_t depth = node.depth - cuts;
            for (uint32_t i = 0; i < cuts; i++, depth++, pool_at += 2) {
                const uint32_t axis = chain.axis_side[i] & 3u, side = chain.axis_side[i] >> 2;
                pool[node.pool_id] = kd_gb_pool_record(axis, chain.pos[i], pool_at, pool_at + 1, 0, node.parent, depth);
                pool[pool_at + 1 - side] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, 0, 0, node.pool_id,
                                                             depth + 1);
                node.parent = node.pool_id;
                node.pool_id = pool_at + side;
            }
        }
        kd_gb_route r;
        r.out_start = off[Q_OUT];
        r.num_left = p.num_left;
        r.axis = c.axis;
        r.pos = c.pos;

        if (p.leaf) {
            r.leaf_base = leaf_ref_base + off[Q_LEAF_REFS];
            for (int side = 0; side < 2; side++) {
                r.dest_kind[side] = KD_GB_DEST_DROP;
                r.dest_base[side] = 0;
                r.dest_id[side] = 0;
                for (int j = 0; j < 6; j++)
                    r.child_cell[side][j] = node.cell[j];
            }
            pool[node.pool_id] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, r.leaf_base, p.n, 0,
                                                   node.parent, node.depth);
            routes[k] = r;
            return;
        }
        r.leaf_base = KD_GB_NONE;
        uint32_t child_id[2] = {pool_at, pool_at + 1};
        pool[node.pool_id] = kd_gb_pool_record((uint32_t)c.axis, c.pos, child_id[0], child_id[1], 0,
                                               node.parent, node.depth);

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
                child.allowance = p.child_allowance;
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
                child.allowance = p.child_allowance;
                small_roots[small_root_base + small_at] = child;
                r.dest_base[side] = child.ref_start;
                r.dest_id[side] = small_root_base + small_at;
                small_at++;
                small_ref_at += count;
            } else {
                // An empty child is an empty leaf right away.
                pool[child_id[side]] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, 0, 0,
                                                         node.pool_id, node.depth + 1);
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
        scalars->new_large_cuts = t[Q_CUTS];
        scalars->clip_count = 0; // the scatter's queue of straddlers
    }
};

// References of a plan's larger child that stays large (0: none).
static __host__ __device__ __forceinline__ uint32_t largest_child(const kd_gb_plan &p)
{
    uint32_t most = 0;
    for (int side = 0; side < 2; side++) {
        const uint32_t count = side ? p.num_right : p.num_left;
        if (p.child_kind[side] == KD_GB_DEST_LARGE && count > most)
            most = count;
    }
    return most;
}

enum { BK_THREADS = 256, BK_WARPS = BK_THREADS / 32, BK_TILE = BK_THREADS }; // a node per thread
static_assert((int)BK_WARPS >= (int)NUM_Q, "a warp per quantity looks back");

#if KD_DEVICE_CODE
// A block per tile of BK_TILE nodes scans all NUM_Q quantities at once: one
// launch where separate scans of each quantity would take seven. Tiles chain
// their prefixes by decoupled look-back, warp j looking back over quantity
// j's tile words (states + j * num_tiles), all seven side by side.
__global__ void __launch_bounds__(BK_THREADS) bookkeep_kernel(bookkeep bk, uint32_t num_nodes,
                                                              uint64_t *states)
{
    __shared__ uint32_t warp_sums[BK_WARPS][NUM_Q];
    __shared__ uint32_t tile_total[NUM_Q];
    __shared__ uint32_t tile_prefix[NUM_Q];
    kd_wait_prior();
    const uint32_t t = threadIdx.x, lane = t & 31u, warp = t >> 5, tile = blockIdx.x;
    const uint32_t first = tile * BK_TILE + t;
    uint32_t own[NUM_Q];
    for (int j = 0; j < NUM_Q; j++)
        own[j] = 0;
    kd_gb_plan plan = {};
    if (first < num_nodes)
        plan = bk.counts(first, own);
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
            uint32_t sum = v;
            for (uint32_t d = 1; d < 32; d <<= 1) {
                uint32_t x = __shfl_up_sync(0xffffffffu, sum, d);
                if (lane >= d)
                    sum += x;
            }
            if (lane < BK_WARPS)
                warp_sums[lane][j] = sum - v; // exclusive
            if (lane == BK_WARPS - 1)
                tile_total[j] = sum;
        }
    }
    __syncthreads();
    if (warp < NUM_Q) {
        uint32_t prefix = kd_lookback_tile<kd_codec_u32>(states + (size_t)warp * gridDim.x, tile,
                                                         tile_total[warp], kd_sum_op());
        if (lane == 0)
            tile_prefix[warp] = prefix;
    }
    __syncthreads();
    // The next level's largest node, for the host's choice of stage.
    const uint32_t most = __reduce_max_sync(0xffffffffu, largest_child(plan));
    if (lane == 0 && most > 0)
        atomicMax(bk.largest, most);
    uint32_t off[NUM_Q];
    for (int j = 0; j < NUM_Q; j++)
        off[j] = tile_prefix[j] + warp_sums[warp][j] + incl[j] - own[j];
    if (first < num_nodes)
        bk.write(first, plan, off);
    if (tile + 1 == gridDim.x && t == 0) {
        uint32_t totals[NUM_Q];
        for (int j = 0; j < NUM_Q; j++)
            totals[j] = tile_prefix[j] + tile_total[j];
        bk.totals(totals);
    }
}

static kd_status bookkeep_on_device(kd_gpu_builder *b, const bookkeep &bk, uint32_t num_nodes, kd_error *err)
{
    const uint32_t tiles = (num_nodes + BK_TILE - 1) / BK_TILE;
    uint64_t *states = kd_gb_ptr<uint64_t>(b, KD_GB_BK_STATES);
    return kd_gb_cuda(err, kd_launch_dependent(bookkeep_kernel, tiles, BK_THREADS, 0, b->stream, bk, num_nodes, states),
                      "large-node bookkeeping");
}
#endif

// The look-back words of a level of num_nodes nodes: zeroed (every tile
// INVALID) before run_bookkeep, with the level's bins. room_nodes (at
// least num_nodes): the nodes the array is to have room for.
static kd_status bookkeep_states(kd_gpu_builder *b, uint32_t num_nodes, uint32_t room_nodes, uint32_t **states,
                                 size_t *bytes, kd_error *err)
{
    const uint32_t tiles = (num_nodes + BK_TILE - 1) / BK_TILE, room_tiles = (room_nodes + BK_TILE - 1) / BK_TILE;
    *bytes = (size_t)NUM_Q * kd_lookback_state_bytes(tiles);
    KD_TRY(kd_gb_ensure(b, KD_GB_BK_STATES, (size_t)NUM_Q * kd_lookback_state_bytes(room_tiles), 0, err));
    *states = kd_gb_ptr<uint32_t>(b, KD_GB_BK_STATES);
    return KD_OK;
}

static kd_status run_bookkeep(kd_gpu_builder *b, const bookkeep &bk, uint32_t num_nodes, kd_error *err)
{
    if (b->host) {
        uint32_t off[NUM_Q] = {0}, q[NUM_Q];
        for (uint32_t k = 0; k < num_nodes; k++) {
            const kd_gb_plan p = bk.counts(k, q);
            const uint32_t most = largest_child(p);
            if (most > *bk.largest)
                *bk.largest = most;
            bk.write(k, p, off);
            for (int j = 0; j < NUM_Q; j++)
                off[j] += q[j];
        }
        bk.totals(off);
        return KD_OK;
    }
    KD_GB_ON_DEVICE(bookkeep_on_device(b, bk, num_nodes, err));
}

} // namespace kd_gb_large

#endif
