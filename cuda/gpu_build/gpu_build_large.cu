// The large-node stage: breadth-first over every node with more references
// than the small-node threshold. Per level: node bounds by a segmented
// min/max reduction, a split per node, each reference's side, split-by-side
// addressing of the references, a bookkeeping pass that plans every node and
// compacts the next level by a scan, and a scatter that clips straddlers to
// their child's box and files each reference under its next home. The host
// reads back the level's counts once.
#include "gpu_build_large_bookkeep.cuh"
#include "gpu_build_large_scatter.cuh"

namespace {

using namespace kd_gb_large;

enum { BIN_THREADS = 256, BIN_ITEMS = 2, BIN_TILE = BIN_THREADS * BIN_ITEMS };
enum { BIN_MAX_NODES = 16 };           // nodes a tile's shared counts may cover
enum { BIN_SMEM_BYTES = 24 * 1024 };   // and the shared memory they may take

#if KD_DEVICE_CODE
// Binning with the counts of a tile's nodes kept in shared memory when they
// fit (the top levels, where every reference would otherwise hit the same
// few hundred counters, and the deep ones, a few nodes per tile), flushed
// with one atomic per nonzero count; a tile over more nodes counts in
// global memory directly.
__global__ void __launch_bounds__(BIN_THREADS) bin_kernel(kd_gb_bin_refs f, uint32_t n, uint32_t max_nodes)
{
    kd_wait_prior();
    extern __shared__ uint32_t tile_bins[];
    uint32_t first = blockIdx.x * BIN_TILE;
    uint32_t last = first + BIN_TILE < n ? first + BIN_TILE - 1 : n - 1;
    uint32_t node = f.refs.seg[first], span = f.refs.seg[last] - node + 1; // references go in node order
    if (span > max_nodes) {
        for (uint32_t i = first + threadIdx.x; i <= last; i += BIN_THREADS)
            f(i);
        return;
    }
    uint32_t num = span * 6u * (uint32_t)f.num_bins;
    for (uint32_t j = threadIdx.x; j < num; j += BIN_THREADS)
        tile_bins[j] = 0;
    __syncthreads();
    kd_gb_bin_refs local = f;
    local.bins = tile_bins;
    local.first_node = node;
    for (uint32_t i = first + threadIdx.x; i <= last; i += BIN_THREADS)
        local(i);
    __syncthreads();
    uint32_t *global_bins = f.bins + (size_t)node * 6u * (uint32_t)f.num_bins;
    for (uint32_t j = threadIdx.x; j < num; j += BIN_THREADS)
        if (tile_bins[j])
            atomicAdd(&global_bins[j], tile_bins[j]);
}

// kd_gb_choose_chain's work with a warp per node (every lane runs the
// chain, its values the same in all of them; lane 0 stores).
__global__ void choose_sah_kernel(kd_gb_choose_chain g, uint32_t num_nodes)
{
    kd_wait_prior();
    uint32_t k = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (k >= num_nodes)
        return; // whole warps: the block size is a multiple of 32
    kd_gb_large_node node = g.nodes[k];
    kd_gb_chain chain;
    const float *t = g.f.tight + 6 * (size_t)k;
    const uint32_t *node_bins = g.f.bins + (size_t)k * 6 * g.f.num_bins;
    const kd_gb_choose_sah &sah = g.f;
    const kd_gb_split_choice c = g.chained(
        k, &node, &chain, [&](const kd_gb_large_node &n) { return kd_gb_choose_sah_by(kd_gb_warp_team(), sah, n, t, node_bins); });
    if ((threadIdx.x & 31u) == 0)
        g.store(k, c, chain, node);
}

kd_status choose_sah_on_device(kd_gpu_builder *b, const kd_gb_choose_chain &f, uint32_t num_nodes, kd_error *err)
{
    enum { WARPS = 4 };
    uint32_t blocks = (num_nodes + WARPS - 1) / WARPS;
    return kd_gb_cuda(err, kd_launch_dependent(choose_sah_kernel, blocks, 32 * WARPS, 0, b->stream, f, num_nodes),
                      "choosing SAH splits");
}

kd_status binning_on_device(kd_gpu_builder *b, const kd_gb_bin_refs &f, uint32_t n, kd_error *err)
{
    uint32_t tiles = (n + BIN_TILE - 1) / BIN_TILE;
    size_t node_bytes = 6 * (size_t)f.num_bins * sizeof(uint32_t);
    size_t fit = BIN_SMEM_BYTES / node_bytes;
    uint32_t max_nodes = fit < (size_t)BIN_MAX_NODES ? (uint32_t)fit : (uint32_t)BIN_MAX_NODES;
    return kd_gb_cuda(err, kd_launch_dependent(bin_kernel, tiles, BIN_THREADS, max_nodes * node_bytes, b->stream,
                                               f, n, max_nodes),
                      "binning references");
}
#endif

kd_status run_choose_sah(kd_gpu_builder *b, const kd_gb_choose_chain &f, uint32_t num_nodes,
                         kd_error *err)
{
    if (num_nodes == 0)
        return KD_OK;
    if (b->host)
        return kd_gb_map(b, num_nodes, f, "choosing SAH splits", err);
    KD_GB_ON_DEVICE(choose_sah_on_device(b, f, num_nodes, err));
}

kd_status run_binning(kd_gpu_builder *b, const kd_gb_bin_refs &f, uint32_t n, kd_error *err)
{
    if (n == 0)
        return KD_OK;
    if (b->host)
        return kd_gb_map(b, n, f, "binning references", err);
    KD_GB_ON_DEVICE(binning_on_device(b, f, n, err));
}

// One large level: its size, the buffers it reads and writes this time
// (the references and nodes alternate between two sets), and what its
// scatter zeroed for the next level's binned SAH.
struct level {
    uint32_t depth, num_nodes, num_refs, largest; // largest: references of its largest node
    int refs_cur, refs_next, nodes_cur, nodes_next;
    size_t max_out;                               // the most references the split can write
    size_t room_out;                              // what the split's output is sized for: max_out, or
                                                  // (tight) the level's count
    int tight;                                    // under a memory cap: the reference sets sized to
                                                  // counts read back first (two host waits more)
    int force_leaf;                               // the reference budget is spent: every node a leaf
    const uint32_t *zeroed_bins, *zeroed_states;  // zeroed by the level before, with room for
    uint32_t zeroed_nodes;                        // this many nodes
};

// The stage's constants for the build.
struct large_stage {
    const kd_gpu_build_options *o;
    kd_gb_plan_params pp;
    double budget;         // references in flight never exceed it (a net under each node's allowance)
    int sah;               // binned SAH (the median split chains no cuts)
    size_t node_words;     // a node's bins and its sanity flag, in words
    uint32_t clip_blocks;  // resident blocks of the clip pass
};

// The split's output and its clip queue, for `out` references.
kd_status ensure_split_output(kd_gpu_builder *b, const level &L, size_t out, kd_error *err)
{
    KD_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_OUT, out, 1, 0, err));
    return L.num_refs >= KD_GB_CLIP_QUEUE_MIN ? kd_gb_ensure(b, KD_GB_CLIPQ, 4 * out, 0, err) : KD_OK;
}

// The scatter's homes: the next level's references, the small roots' (kept
// with those of earlier levels) and the leaves' (likewise), for this many
// new ones of each.
kd_status ensure_homes(kd_gpu_builder *b, const kd_gb_build_state *s, const level &L, size_t next, size_t small,
                       size_t leaf, kd_error *err)
{
    KD_TRY(kd_gb_ensure_refs(b, L.refs_next, next, 1, 0, err));
    KD_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_SMALL, s->num_small_refs + small, 0, 1, err));
    return kd_gb_ensure(b, KD_GB_LEAF_REFS, 4 * ((size_t)s->num_leaf_refs + leaf), 1, err);
}

// Every buffer the level needs, sized before its first kernel: a split at
// most doubles the references, and each node makes at most two children
// (the bins and look-back words with room for the next level's too, which
// this level's scatter zeroes on the device). A tight level sizes its
// reference sets later, from counts (size_split_output, size_homes).
kd_status plan_level_buffers(kd_gpu_builder *b, const kd_gb_build_state *s, const large_stage &st, const level &L,
                             kd_error *err)
{
    const size_t n = L.num_nodes, refs = L.num_refs, out = L.max_out;
    if (!L.tight) {
        // A small child holds at most the threshold's references.
        size_t small_out = 2 * n * (size_t)s->opts->small_node_threshold;
        small_out = small_out < out ? small_out : out;
        KD_TRY(ensure_split_output(b, L, out, err));
        KD_TRY(ensure_homes(b, s, L, out, small_out, refs, err));
    }
    KD_TRY(kd_gb_ensure(b, KD_GB_SIDES, refs, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_TIGHT, 24 * n, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_CHOICE, sizeof(kd_gb_split_choice) * n, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_LCOUNT, 4 * n, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_RCOUNT, 4 * n, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_ROUTE, sizeof(kd_gb_route) * n, 0, err));
    KD_TRY(kd_gb_ensure(b, L.nodes_next, sizeof(kd_gb_large_node) * 2 * n, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_SROOTS, sizeof(kd_gb_small_root) * ((size_t)s->num_small_roots + 2 * n), 1, err));
    const size_t pool = (size_t)s->pool_count + 2 * (KD_GB_CHAIN_MAX + 1) * n; // a cut's two slots each
    KD_TRY(kd_gb_ensure(b, KD_GB_POOL, sizeof(kd_gb_pool_node) * pool, 1, err));
    if (st.sah) {
        KD_TRY(kd_gb_ensure(b, KD_GB_BINS, 4 * 2 * n * st.node_words, 0, err));
        KD_TRY(kd_gb_ensure(b, KD_GB_CHAINS, sizeof(kd_gb_chain) * n, 0, err));
    }
    return KD_OK;
}

// The counts read back, a host wait in the profile.
kd_status read_counts(kd_gpu_builder *b, kd_gb_build_state *s, kd_gb_scalars *counts, kd_error *err)
{
    KD_TRY(kd_gb_read_scalars(b, counts, err));
    if (s->profile)
        s->profile->num_host_syncs++;
    return KD_OK;
}

// A tight level's split output (and clip queue), sized to its references
// and those on both sides again, counted and read back before the split.
kd_status size_split_output(kd_gpu_builder *b, kd_gb_build_state *s, level *L, kd_error *err)
{
    kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    KD_TRY(kd_gb_memset(b, &scalars->level_both, 0, sizeof scalars->level_both, err));
    const kd_gb_count_both count = {kd_gb_ptr<uint8_t>(b, KD_GB_SIDES), &scalars->level_both};
    KD_TRY(kd_gb_map(b, L->num_refs, count, "counting straddling references", err));
    kd_gb_scalars counts;
    KD_TRY(read_counts(b, s, &counts, err));
    L->room_out = (size_t)L->num_refs + counts.level_both;
    return ensure_split_output(b, *L, L->room_out, err);
}

// A tight level's homes for the scatter (the next level, the small roots'
// references, the leaves'), sized to the bookkeeping's totals.
kd_status size_homes(kd_gpu_builder *b, kd_gb_build_state *s, const level &L, kd_gb_scalars *counts,
                     kd_error *err)
{
    KD_TRY(read_counts(b, s, counts, err));
    return ensure_homes(b, s, L, counts->next_large_refs, counts->new_small_refs, counts->new_leaf_refs, err);
}

// The level's node bounds, by the segmented reduction.
kd_status level_bounds(kd_gpu_builder *b, kd_gb_build_state *s, const level &L, kd_error *err)
{
    const kd_gpu_build_options *o = s->opts;
    const kd_gb_refs refs = kd_gb_ref_set(b, L.refs_cur);
    kd_gb_reduce_timer_begin(b, o->profile);
    KD_TRY(kd_gb_segmented_bounds(b, o->reduce_variant, &refs, L.num_refs, L.num_nodes,
                                  kd_gb_ptr<float>(b, KD_GB_TIGHT), err));
    kd_gb_reduce_timer_end(b, o->profile);
    if (s->profile)
        s->profile->num_reduce_calls++;
    kd_gb_step_mark(b, o->profile, KD_GPU_STEP_LARGE_BOUNDS);
    return KD_OK;
}

// Each node's split: binned SAH with its empty cuts chained, or the median;
// then each reference's side. The bins and the bookkeeping's look-back
// words are zeroed together, unless the level before's scatter did.
kd_status level_choose(kd_gpu_builder *b, const kd_gb_build_state *s, const large_stage &st, const level &L,
                       uint32_t *bk_states, size_t bk_state_bytes, kd_error *err)
{
    const kd_gpu_build_options *o = st.o;
    const uint32_t n = L.num_nodes;
    kd_gb_large_node *nodes = kd_gb_ptr<kd_gb_large_node>(b, L.nodes_cur); // chain ends written by the choice
    float *tight = kd_gb_ptr<float>(b, KD_GB_TIGHT);
    kd_gb_split_choice *choice = kd_gb_ptr<kd_gb_split_choice>(b, KD_GB_CHOICE);
    if (st.sah) {
        uint32_t *bins = kd_gb_ptr<uint32_t>(b, KD_GB_BINS);
        uint32_t *insane = bins + (size_t)n * 6 * o->sah_bins;
        if (!(L.zeroed_bins == bins && L.zeroed_states == bk_states && L.zeroed_nodes >= n))
            KD_TRY(kd_gb_zero2(b, bins, 4 * (size_t)n * st.node_words, bk_states, bk_state_bytes, err));
        kd_gb_bin_refs bin = {kd_gb_ref_set(b, L.refs_cur), tight, bins, o->sah_bins, 0, insane};
        KD_TRY(run_binning(b, bin, L.num_refs, err));
        kd_gb_choose_chain choose;
        choose.f = {nodes, tight, bins, choice, st.pp.sah, o->sah_bins, s->max_depth, L.force_leaf,
                    o->empty_space_ratio};
        choose.nodes = nodes;
        choose.chains = kd_gb_ptr<kd_gb_chain>(b, KD_GB_CHAINS);
        choose.insane = insane;
        choose.pp = st.pp;
        KD_TRY(run_choose_sah(b, choose, n, err));
    } else {
        KD_TRY(kd_gb_memset(b, bk_states, 0, bk_state_bytes, err));
        kd_gb_choose_median choose = {nodes, tight, choice, s->max_depth, L.force_leaf, o->empty_space_ratio};
        KD_TRY(kd_gb_map(b, n, choose, "choosing median splits", err));
    }
    kd_gb_step_mark(b, o->profile, KD_GPU_STEP_LARGE_CHOOSE);
    kd_gb_classify classify = {kd_gb_ref_set(b, L.refs_cur), choice, kd_gb_ptr<uint8_t>(b, KD_GB_SIDES)};
    KD_TRY(kd_gb_map(b, L.num_refs, classify, "classifying references", err));
    kd_gb_step_mark(b, o->profile, KD_GPU_STEP_LARGE_CLASSIFY);
    return KD_OK;
}

// Split-by-side addressing of the references, then the bookkeeping: every
// node planned from its exact counts, the next level compacted.
kd_status level_split(kd_gpu_builder *b, const kd_gb_build_state *s, const large_stage &st, const level &L,
                      kd_gb_large::bookkeep *bk, kd_error *err)
{
    const kd_gb_refs refs = kd_gb_ref_set(b, L.refs_cur), split_out = kd_gb_ref_set(b, KD_GB_REFS_OUT);
    uint32_t *left_counts = kd_gb_ptr<uint32_t>(b, KD_GB_LCOUNT);
    uint32_t *right_counts = kd_gb_ptr<uint32_t>(b, KD_GB_RCOUNT);
    KD_TRY(kd_gb_split(b, &refs, kd_gb_ptr<uint8_t>(b, KD_GB_SIDES), L.num_refs, L.num_nodes, &split_out,
                       left_counts, right_counts, NULL, err));
    kd_gb_step_mark(b, st.o->profile, KD_GPU_STEP_LARGE_SPLIT);
    kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    bk->nodes = kd_gb_ptr<kd_gb_large_node>(b, L.nodes_cur);
    bk->choice = kd_gb_ptr<kd_gb_split_choice>(b, KD_GB_CHOICE);
    bk->chains = st.sah ? kd_gb_ptr<kd_gb_chain>(b, KD_GB_CHAINS) : NULL; // NULL: a level per empty cut
    bk->left_counts = left_counts;
    bk->right_counts = right_counts;
    bk->pp = st.pp;
    bk->pool_base = s->pool_count;
    bk->small_root_base = s->num_small_roots;
    bk->small_ref_base = s->num_small_refs;
    bk->leaf_ref_base = s->num_leaf_refs;
    bk->routes = kd_gb_ptr<kd_gb_route>(b, KD_GB_ROUTE);
    bk->next_nodes = kd_gb_ptr<kd_gb_large_node>(b, L.nodes_next);
    bk->small_roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    bk->pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    bk->scalars = scalars;
    bk->largest = &scalars->next_large_max[L.depth & 1u];
    KD_TRY(run_bookkeep(b, *bk, L.num_nodes, err));
    kd_gb_step_mark(b, st.o->profile, KD_GPU_STEP_LARGE_BOOKKEEP);
    return KD_OK;
}

// The scatter's arguments. It also zeroes the next level's bins and
// look-back words, for room of twice this level's nodes (the next level's
// count is not known yet); a count past 32 bits (bins for millions of
// nodes) leaves the next level to zero its own. *next says what it zeroed.
scatter scatter_of(kd_gpu_builder *b, const large_stage &st, const level &L, const kd_gb_large::bookkeep &bk,
                   uint32_t *bk_states, level *next)
{
    kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    scatter sc;
    sc.routes = bk.routes;
    sc.split_total = &scalars->split_total;
    sc.max_out = (uint32_t)L.room_out;
    sc.split_out = kd_gb_ref_set(b, KD_GB_REFS_OUT);
    sc.level = kd_gb_ref_set(b, L.refs_cur);
    sc.nodes = bk.nodes;
    sc.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
    sc.next_large = kd_gb_ref_set(b, L.refs_next);
    sc.small = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
    sc.leaf_refs = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_REFS);
    sc.clip_queue = kd_gb_ptr<uint32_t>(b, KD_GB_CLIPQ);
    sc.clip_count = &scalars->clip_count; // zeroed by the bookkeeping
    sc.next_large_max = &scalars->next_large_max[(L.depth + 1) & 1u];
    sc.zero_bins = st.sah ? kd_gb_ptr<uint32_t>(b, KD_GB_BINS) : NULL;
    sc.zero_states = bk_states;
    sc.zero_words = sc.zero_state_words = 0;
    next->zeroed_bins = next->zeroed_states = NULL;
    const uint32_t room = 2 * L.num_nodes, room_tiles = (room + BK_TILE - 1) / BK_TILE;
    const size_t room_words = (size_t)room * st.node_words,
                 room_state_words = (size_t)NUM_Q * kd_lookback_state_bytes(room_tiles) / 4;
    if (st.sah && room_words + room_state_words <= 0xffffffffu) {
        sc.zero_words = (uint32_t)room_words;
        sc.zero_state_words = (uint32_t)room_state_words;
        next->zeroed_bins = sc.zero_bins;
        next->zeroed_states = bk_states;
        next->zeroed_nodes = room;
    }
    return sc;
}

// The level's counts read back (a tight level's were, before its scatter),
// into the build state and the next level.
kd_status level_advance(kd_gpu_builder *b, kd_gb_build_state *s, level *L, const kd_gb_scalars *read,
                        kd_error *err)
{
    kd_gb_scalars counts;
    if (read)
        counts = *read;
    else
        KD_TRY(kd_gb_read_scalars_end(b, &counts, err));
    kd_gb_step_mark(b, s->opts->profile, KD_GPU_STEP_LARGE_READBACK);
    if (s->profile) {
        s->profile->num_host_syncs++;
        s->profile->num_large_levels++;
        s->profile->num_large_cuts += counts.new_large_cuts;
        if (L->num_refs > s->profile->max_large_refs)
            s->profile->max_large_refs = L->num_refs;
    }
    if (counts.split_total > L->room_out)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: the split wrote %u references, more than the %zu it can",
                            counts.split_total, L->room_out);
    s->pool_count += counts.new_pool_nodes;
    if (s->num_small_roots == 0 && counts.new_small_roots > 0)
        s->min_small_depth = L->depth + 1; // a bound: chained empty cuts take roots deeper than the level
    s->num_small_roots += counts.new_small_roots;
    s->num_small_refs += counts.new_small_refs;
    s->num_leaf_refs += counts.new_leaf_refs;
    L->num_nodes = counts.next_large_nodes;
    L->num_refs = counts.next_large_refs;
    L->largest = counts.next_large_max[L->depth & 1u];
    const int refs = L->refs_cur, nodes = L->nodes_cur;
    L->refs_cur = L->refs_next, L->refs_next = refs;
    L->nodes_cur = L->nodes_next, L->nodes_next = nodes;
    L->depth++;
    return KD_OK;
}

// One level, bounds to scatter. The counts go to the host while the
// scatter runs: it takes its size from the device and covers the most the
// split can write, so the host need not wait for it first. The copy is on a
// stream of its own, so that the scatter follows the bookkeeping at once (a
// copy between two kernels breaks their launches' overlap); the scatter
// writes nothing the host reads of it. A tight level (under a memory cap)
// waits for its counts twice instead, to size its reference sets to them
// rather than to twice the level's references.
kd_status run_level(kd_gpu_builder *b, kd_gb_build_state *s, const large_stage &st, level *L, kd_error *err)
{
    KD_TRY(plan_level_buffers(b, s, st, *L, err));
    KD_TRY(level_bounds(b, s, *L, err));
    uint32_t *bk_states = NULL;
    size_t bk_state_bytes = 0;
    KD_TRY(bookkeep_states(b, L->num_nodes, 2 * L->num_nodes, &bk_states, &bk_state_bytes, err));
    KD_TRY(level_choose(b, s, st, *L, bk_states, bk_state_bytes, err));
    if (L->tight)
        KD_TRY(size_split_output(b, s, L, err));
    kd_gb_large::bookkeep bk;
    KD_TRY(level_split(b, s, st, *L, &bk, err));
    kd_gb_scalars counts;
    if (L->tight)
        KD_TRY(size_homes(b, s, *L, &counts, err));
    else
        KD_TRY(kd_gb_read_scalars_aside(b, err));
    const scatter sc = scatter_of(b, st, *L, bk, bk_states, L);
    KD_TRY(run_scatter(b, sc, L->num_refs, st.clip_blocks, err));
    kd_gb_step_mark(b, st.o->profile, KD_GPU_STEP_LARGE_SCATTER);
    return level_advance(b, s, L, L->tight ? &counts : NULL, err);
}

kd_status large_stage_of(kd_gpu_builder *b, const kd_gb_build_state *s, large_stage *st, kd_error *err)
{
    st->o = s->opts;
    st->pp = kd_gb_plan_params_from(st->o);
    st->budget = (double)st->o->max_refs_per_triangle * (double)s->num_tris;
    if (st->budget < KD_GB_MIN_ALLOWANCE)
        st->budget = KD_GB_MIN_ALLOWANCE;
    st->sah = st->o->large_split == KD_LARGE_SPLIT_SAH;
    st->node_words = 6 * (size_t)st->o->sah_bins + 1;
    st->clip_blocks = 0;
#if KD_DEVICE_CODE
    if (!b->host)
        KD_TRY(kd_gb_resident_blocks(large_clip_kernel, LARGE_CLIP_THREADS, &st->clip_blocks, err,
                                     KD_GB_CLIP_SHARED_BYTES(LARGE_CLIP_THREADS)));
#else
    (void)b, (void)err;
#endif
    return KD_OK;
}

} // namespace

// Breadth-first over the large nodes, a level at a time, until none is
// left, or a level of many nodes, none too large for one warp, is left for
// the medium stage (s->handover_*), which carries each one's subtree down
// to small roots without the host.
kd_status kd_gb_stage_large(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    const kd_gpu_build_options *o = s->opts;
    large_stage st;
    KD_TRY(large_stage_of(b, s, &st, err));
    level L;
    memset(&L, 0, sizeof L);
    L.num_nodes = s->num_tris > (uint32_t)o->small_node_threshold ? 1 : 0;
    L.num_refs = L.largest = L.num_nodes ? s->num_tris : 0;
    L.refs_cur = KD_GB_REFS_A, L.refs_next = KD_GB_REFS_A2;
    L.nodes_cur = KD_GB_LNODES_A, L.nodes_next = KD_GB_LNODES_B;
    while (L.num_nodes > 0) {
        L.max_out = L.room_out = 2 * (size_t)L.num_refs;
        L.tight = b->cap_bytes != 0 && !o->hooks.large_bound_sizing;
        if (L.max_out + s->num_small_refs + s->num_leaf_refs > 0xffffffffull || L.max_out + L.num_refs > 0xffffffffull)
            return kd_error_set(err, KD_ERR_NOMEM, "GPU build: more than 2^32 references");
        L.force_leaf = (double)(L.max_out + s->num_small_refs + s->num_leaf_refs) > st.budget;
        if (o->medium_min_nodes > 0 && L.num_nodes >= (uint32_t)o->medium_min_nodes &&
            L.largest <= (uint32_t)o->medium_max_refs && !L.force_leaf) {
            // The driver runs the stages below from this level.
            s->handover_nodes = L.num_nodes, s->handover_refs = L.num_refs;
            s->handover_refs_id = L.refs_cur, s->handover_nodes_id = L.nodes_cur;
            return KD_OK;
        }
        KD_TRY(run_level(b, s, st, &L, err));
    }
    return KD_OK;
}
