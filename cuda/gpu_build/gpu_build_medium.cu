// The medium-node stage. Below the first few levels a large level has
// tens to hundreds of nodes of a few hundred to a few thousand references,
// and each level still costs a chain of a dozen launches and a host round
// trip whose time is latency, not work. Once a level has medium_min_nodes
// nodes of at most medium_max_refs, this stage takes all of them and carries
// each one's subtree down to small roots without the host, in one launch: a
// node of more than medium_block_refs references is taken by a block's eight
// warps together (from a block queue, which half the blocks serve while it
// has tasks), a smaller one by a warp (from the warps' queue). Either does
// what a large level does to the node (bounds, binned SAH or median split,
// sides, plan, straddlers clipped to each child) with warp reductions,
// ballots and shared-memory bins; then it files the children: large ones
// back into a queue, small ones as small roots, empty ones as empty leaves.
// Per node the arithmetic is the large stage's own (the same choice
// functions and plan, exact min/max and integer bins, references kept in
// order on each side), so the tree is the one the large stage would have
// built; only the order of slots differs, and the output stage orders nodes
// by tree structure.
//
// References and nodes are appended to growable arrays (the level's own
// first). An array found too small sets a flag; the host grows it and runs
// the stage again from the level, which it leaves untouched.
// A node's steps are in gpu_build_medium_process.cuh, written once for a
// team: a warp or a block's warps on the device, one lane in the emulation.
#include "gpu_build_medium_process.cuh"

namespace {

using namespace kd_gb_medium;

// The stage's counters (kd_gb_scalars, med_head on), as the host sets them
// but for the block queue's live tasks, which init_ready_kernel counts.
enum { MED_COUNTERS = 17, MED_BIG_LIVE_AT = 14 };
static_assert(offsetof(kd_gb_scalars, med_big_live) ==
                  offsetof(kd_gb_scalars, med_head) + 4 * MED_BIG_LIVE_AT &&
              offsetof(kd_gb_scalars, med_blocks_started) == offsetof(kd_gb_scalars, med_head) + 4 * (MED_COUNTERS - 1),
              "the medium stage's counters in order");
struct medium_counters {
    uint32_t words[MED_COUNTERS];
};

#if KD_DEVICE_CODE
// The children of a node just processed, published by its team's lead
// (their references and records are written: fence first): each large
// child marked ready for the warps, or placed in the block queue; the
// node counted done, and the stage once no task is live. big: a
// block-queue task (it counts itself out of med_big_live).
__device__ void publish(const medium_args &g, const medium_route &route, int big)
{
    __threadfence();
    uint32_t made = 0, made_big = 0;
    for (int s = 0; s < 2; s++) {
        if (!(route.ok && route.dest_kind[s] == KD_GB_DEST_LARGE))
            continue;
        const uint32_t slot = route.slot[s];
        if (!(g.block_refs && (s ? route.plan.num_right : route.plan.num_left) > g.block_refs)) {
            *(volatile uint32_t *)(g.ready + slot) = MED_READY;
            made++;
            continue;
        }
        // Into the block queue (its place after the task is ready); warps
        // skip it. A place past the queue cannot be (a place per task
        // slot), but would leave the task unmade: dead, and the run void.
        const uint32_t at = atomicAdd(&g.scalars->med_big_tail, 1u);
        if (at < g.task_capacity) {
            *(volatile uint32_t *)(g.ready + slot) = MED_BIG;
            *(volatile uint32_t *)(g.big + at) = slot + 1u;
            made++;
            made_big++;
        } else {
            g.scalars->med_overflow = 1;
            *(volatile uint32_t *)(g.ready + slot) = MED_DEAD;
        }
    }
    // The block queue's count first: its tasks are among the live ones.
    if (big)
        atomicAdd(&g.scalars->med_big_done, 1u);
    if (made_big != (uint32_t)big)
        atomicAdd(&g.scalars->med_big_live, made_big - (uint32_t)big);
    const uint32_t delta = made - 1u; // wraps to -1 for none
    if (atomicAdd(&g.scalars->med_live, delta) + delta == 0u) {
        __threadfence();
        *(volatile uint32_t *)&g.scalars->med_done = 1u;
    }
}

// Node `index` by W warps (1: this warp; MED_WARPS: the whole block), then
// its children published.
template <bool SHARED_POLYGONS, int W>
__device__ void take_node(const medium_args &g, medium_scratch *scratch, team_shared &block, uint32_t index, int big)
{
    const medium_device_team<SHARED_POLYGONS, W> team = {scratch, &block};
    process_node(team, g, index);
    if (team.lead())
        publish(g, team.route(), big);
    team.sync();
}

// Thread 0 of a block: the block's next task from the block queue, its
// place claimed in queue order, waiting until the task is there (then its
// index) or no block-queue task is live (KD_GB_NONE: none can be made then,
// a child having no more references than its parent).
__device__ uint32_t claim_block_task(const medium_args &g)
{
    uint32_t place = atomicAdd(&g.scalars->med_big_head, 1u);
    for (unsigned sleep = 32;;) {
        const uint32_t entry = place < g.task_capacity ? *(volatile uint32_t *)(g.big + place) : 0u;
        if (entry == MED_BIG_SKIP) {
            place = atomicAdd(&g.scalars->med_big_head, 1u); // a warp's: take the next
            continue;
        }
        if (entry != 0u) {
            __threadfence();
            return entry - 1u;
        }
        if (*(volatile uint32_t *)&g.scalars->med_big_live == 0u)
            return KD_GB_NONE;
        __nanosleep(sleep);
        sleep = sleep < 1024 ? 2 * sleep : sleep;
    }
}

// Persistent blocks. The first half to start take the block queue's tasks,
// each with all its warps, as long as any is live (they depend on no warp's
// task, so they go on while warps wait); then, and in the other blocks from
// the start, each warp claims the next task of the warps' queue in order
// and waits until it is ready or no task is live (then the stage is done).
// Every claimed task is made by a running warp or block or marked dead, so
// the waits end.
// SHARED_POLYGONS: the narrow shape, the clips' polygons in the launch's
// dynamic shared memory (where a block may have that much beside the
// kernel's own: sm_80, sm_90); else the wide shape, more blocks an SM.
template <bool SHARED_POLYGONS>
__global__ void __launch_bounds__(MED_THREADS, SHARED_POLYGONS ? KD_GB_MED_MIN_BLOCKS : KD_GB_MED_WIDE_BLOCKS)
    medium_kernel(medium_args g)
{
    __shared__ medium_scratch shared[MED_WARPS];
    __shared__ team_shared team;
    kd_wait_prior();
    const uint32_t lane = threadIdx.x & 31u;
    // The role by the order blocks start in (not by index: blocks need not
    // start in index order), so that the blocks serving the block queue
    // are running ones.
    if (threadIdx.x == 0)
        team.index = g.block_refs ? atomicAdd(&g.scalars->med_blocks_started, 1u) : gridDim.x;
    __syncthreads();
    const int serves_blocks = 2 * team.index < gridDim.x;
    __syncthreads();
    if (serves_blocks) {
        for (;;) {
            if (threadIdx.x == 0)
                team.index = claim_block_task(g);
            __syncthreads();
            const uint32_t index = team.index;
            __syncthreads();
            if (index == KD_GB_NONE)
                break;
            take_node<SHARED_POLYGONS, MED_WARPS>(g, shared, team, index, 1);
        }
    }
    for (;;) {
        uint32_t index = 0;
        if (lane == 0) {
            index = atomicAdd(&g.scalars->med_head, 1u);
            for (unsigned sleep = 32;;) {
                const uint32_t state = index < g.task_capacity ? *(volatile uint32_t *)(g.ready + index) : 0u;
                if (state == MED_READY)
                    break;
                if (state == MED_DEAD || state == MED_BIG) {
                    index = atomicAdd(&g.scalars->med_head, 1u); // never made, or a block's: take the next
                    continue;
                }
                if (*(volatile uint32_t *)&g.scalars->med_done) {
                    index = KD_GB_NONE;
                    break;
                }
                __nanosleep(sleep);
                sleep = sleep < 1024 ? 2 * sleep : sleep;
            }
            __threadfence();
        }
        index = __shfl_sync(0xffffffffu, index, 0);
        __syncwarp(); // lane 0's fence orders the task's loads for every lane
        if (index == KD_GB_NONE)
            return;
        take_node<SHARED_POLYGONS, 1>(g, shared, team, index, 0);
    }
}

// Tasks [0, num_ready) are the level's nodes, ready at once: those of more
// than block_refs references in the block queue at their own places (the
// others' places skipped), the rest for the warps. Later places are empty.
// Block 0 also sets the stage's counters, the block queue's live tasks
// counted (a copy of their own for them cost a launch's overlap).
__global__ void __launch_bounds__(KD_GB_MAP_BLOCK) init_ready_kernel(medium_args g, uint32_t num_ready,
                                                                     medium_counters counters)
{
    __shared__ uint32_t num_big;
    kd_wait_prior();
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0)
            num_big = 0;
        __syncthreads();
        uint32_t mine = 0;
        for (uint32_t i = threadIdx.x; i < num_ready && g.block_refs; i += blockDim.x)
            mine += g.tasks[i].ref_count > g.block_refs;
        if (mine)
            atomicAdd(&num_big, mine);
        __syncthreads();
        if (threadIdx.x < MED_COUNTERS)
            (&g.scalars->med_head)[threadIdx.x] = threadIdx.x == MED_BIG_LIVE_AT ? num_big : counters.words[threadIdx.x];
    }
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < g.task_capacity; i += gridDim.x * blockDim.x) {
        const int big = i < num_ready && g.block_refs && g.tasks[i].ref_count > g.block_refs;
        g.ready[i] = i < num_ready ? (big ? (uint32_t)MED_BIG : (uint32_t)MED_READY) : 0u;
        g.big[i] = i < num_ready ? (big ? i + 1u : MED_BIG_SKIP) : 0u;
    }
}
#endif

#if KD_DEVICE_CODE
// The stage's shape for a level of num_refs references: wide where each SM
// has KD_GB_MED_WIDE_REFS of them or more, narrow below, where its few long
// chains of nodes are what the stage waits on. A build under a memory cap
// stays narrow: the wide shape's local memory is the driver's, for every
// thread the GPU holds, outside the cap's count.
kd_status medium_wide(const kd_gpu_build_options *o, uint32_t num_refs, bool *wide, kd_error *err)
{
    int sms = 0;
    KD_TRY(kd_gb_cuda(err, kd_device_attribute(cudaDevAttrMultiProcessorCount, &sms), "multiprocessors"));
    const uint64_t per_sm = o->hooks.medium_wide_refs ? o->hooks.medium_wide_refs : KD_GB_MED_WIDE_REFS;
    const int shape = o->hooks.medium_shape;
    *wide = shape > 0 || (shape == 0 && num_refs >= per_sm * (uint64_t)sms && o->max_device_bytes == 0);
    return KD_OK;
}

// Dynamic shared memory for the narrow shape's polygons, where a block may
// have them beside the kernel's own and as many blocks an SM as that shape
// is built for still fit; else 0 (the lanes keep them in their own memory,
// and the wide instance runs: GPUs with less shared memory run it always).
kd_status polygon_smem(bool wide, size_t *smem, kd_error *err)
{
    *smem = 0;
    if (wide)
        return KD_OK;
    cudaFuncAttributes attr;
    int optin = 0, per_sm = 0, reserved = 0;
    KD_TRY(kd_gb_cuda(err, cudaFuncGetAttributes(&attr, medium_kernel<true>), "medium-stage kernel attributes"));
    KD_TRY(kd_gb_cuda(err, kd_device_attribute(cudaDevAttrReservedSharedMemoryPerBlock, &reserved),
                      "shared memory the driver keeps a block"));
    KD_TRY(kd_gb_cuda(err, kd_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin),
                      "shared memory per block"));
    KD_TRY(kd_gb_cuda(err, kd_device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, &per_sm),
                      "shared memory per SM"));
    *smem = KD_GB_CLIP_SHARED_BYTES(MED_THREADS);
    const size_t block_smem = attr.sharedSizeBytes + *smem + (size_t)reserved;
    if (attr.sharedSizeBytes + *smem > (size_t)optin || KD_GB_MED_MIN_BLOCKS * block_smem > (size_t)per_sm)
        *smem = 0;
    return KD_OK;
}

// The stage's launches: the queues set up, then the persistent blocks.
// *wide: whether the wide instance ran.
kd_status medium_on_device(kd_gpu_builder *b, const medium_args &g, uint32_t num_nodes, uint32_t num_refs,
                           const medium_counters &init, const kd_gpu_build_options *o, bool *wide, kd_error *err)
{
    size_t smem = 0;
    KD_TRY(medium_wide(o, num_refs, wide, err));
    KD_TRY(polygon_smem(*wide, &smem, err));
    *wide = smem == 0;
    void (*kernel)(medium_args) = smem > 0 ? medium_kernel<true> : medium_kernel<false>;
    uint32_t blocks = 0;
    KD_TRY(kd_gb_resident_blocks(kernel, MED_THREADS, &blocks, err, smem));
    if (o->hooks.medium_blocks > 0 && blocks > (uint32_t)o->hooks.medium_blocks)
        blocks = (uint32_t)o->hooks.medium_blocks;
    KD_TRY(kd_gb_cuda(err, kd_launch_dependent(init_ready_kernel, blocks, KD_GB_MAP_BLOCK, 0, b->stream, g,
                                               num_nodes, init),
                      "medium-stage queue"));
    return kd_gb_cuda(err, kd_launch_dependent(kernel, blocks, MED_THREADS, smem, b->stream, g), "medium-node stage");
}
#endif

// Element counts of the arrays the stage appends to.
struct medium_sizes {
    size_t tasks, refs, roots, small_refs, leaf_refs;
};

kd_status ensure_arrays(kd_gpu_builder *b, const kd_gb_build_state *s, int refs_id, int nodes_id,
                        const medium_sizes &z, kd_error *err)
{
    KD_TRY(kd_gb_ensure_refs(b, refs_id, z.refs, 0, 1, err));
    KD_TRY(kd_gb_ensure(b, nodes_id, z.tasks * sizeof(kd_gb_large_node), 1, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_MREADY, z.tasks * sizeof(uint32_t), 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_MTIGHT, z.tasks * 6 * sizeof(float), 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_MBIG, z.tasks * sizeof(uint32_t), 0, err));
    KD_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_SMALL, s->num_small_refs + z.small_refs, 0, 1, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_SROOTS, sizeof(kd_gb_small_root) * (s->num_small_roots + z.roots), 1, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_LEAF_REFS, 4 * ((size_t)s->num_leaf_refs + z.leaf_refs), 1, err));
    // Every split takes two pool slots: a task's, and an empty cut's made
    // without a task (a pool that overflows for them grows the task count
    // the pool is sized from, below).
    return kd_gb_ensure(b, KD_GB_POOL, sizeof(kd_gb_pool_node) * (s->pool_count + 2 * z.tasks), 1, err);
}

uint32_t capacity_of(const kd_gpu_builder *b, int id, size_t each)
{
    const size_t n = b->buf[id].bytes / each;
    return n > 0xffffffffu ? 0xffffffffu : (uint32_t)n;
}

// A size the run found too small (its counter went past the capacity, and
// kept counting, a lower bound of the need): doubled, and at least twice
// what was counted.
void grow(size_t *size, size_t used, size_t capacity)
{
    if (used <= capacity)
        return;
    *size = 2 * *size > 2 * used ? 2 * *size : 2 * used;
}

// The stage's arguments over the arrays as they are now.
medium_args medium_args_of(kd_gpu_builder *b, const kd_gb_build_state *s, int refs_id, int nodes_id,
                           uint32_t num_nodes)
{
    const kd_gpu_build_options *o = s->opts;
    medium_args g;
    memset(&g, 0, sizeof g);
    g.refs = kd_gb_ref_set(b, refs_id);
    g.tasks = kd_gb_ptr<kd_gb_large_node>(b, nodes_id);
    g.ready = kd_gb_ptr<uint32_t>(b, KD_GB_MREADY);
    g.small = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
    g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    g.leaf_refs = kd_gb_ptr<uint32_t>(b, KD_GB_LEAF_REFS);
    g.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
    // A task needs its record, ready word, bounds and block-queue place.
    g.task_capacity = capacity_of(b, nodes_id, sizeof(kd_gb_large_node));
    const uint32_t per_task[3] = {capacity_of(b, KD_GB_MREADY, sizeof(uint32_t)),
                                  capacity_of(b, KD_GB_MTIGHT, 6 * sizeof(float)),
                                  capacity_of(b, KD_GB_MBIG, sizeof(uint32_t))};
    for (int k = 0; k < 3; k++)
        g.task_capacity = per_task[k] < g.task_capacity ? per_task[k] : g.task_capacity;
    g.tight = kd_gb_ptr<float>(b, KD_GB_MTIGHT);
    g.big = kd_gb_ptr<uint32_t>(b, KD_GB_MBIG);
    g.block_refs = (uint32_t)o->medium_block_refs;
    g.num_initial = num_nodes;
    g.ref_capacity = capacity_of(b, refs_id + KD_GB_REF_TRI, sizeof(uint32_t));
    g.small_ref_capacity = capacity_of(b, KD_GB_REFS_SMALL + KD_GB_REF_TRI, sizeof(uint32_t));
    g.root_capacity = capacity_of(b, KD_GB_SROOTS, sizeof(kd_gb_small_root));
    g.pool_capacity = capacity_of(b, KD_GB_POOL, sizeof(kd_gb_pool_node));
    g.leaf_ref_capacity = capacity_of(b, KD_GB_LEAF_REFS, sizeof(uint32_t));
    g.pp = kd_gb_plan_params_from(o);
    g.sah.sah = g.pp.sah;
    g.sah.num_bins = o->sah_bins;
    g.sah.max_depth = g.median.max_depth = s->max_depth;
    g.sah.empty_ratio = g.median.empty_ratio = o->empty_space_ratio;
    g.use_sah = o->large_split == KD_LARGE_SPLIT_SAH;
    g.scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    return g;
}

// The host emulation's run: the tasks in queue order, a lane each. On
// overflow it goes on, as the device does, so that the counts size the next
// run better (a node that could not be placed makes nothing).
void medium_on_host(const medium_args &g, const medium_counters &init)
{
    memcpy(&g.scalars->med_head, init.words, sizeof init.words);
    memset(g.ready, 0, (size_t)g.task_capacity * sizeof(uint32_t));
    medium_scratch scratch;
    const medium_serial_team team = {&scratch};
    for (uint32_t k = 0; k < g.scalars->med_tail && k < g.task_capacity; k++)
        if (g.ready[k] != MED_DEAD)
            process_node(team, g, k);
}

// One run of the stage from the level, and its counts read back.
kd_status run_medium_once(kd_gpu_builder *b, kd_gb_build_state *s, const medium_args &g, uint32_t num_nodes,
                          uint32_t num_refs, kd_gb_scalars *counts, kd_error *err)
{
    // head, tail, live, done, refs, pool, roots, small refs, leaf refs,
    // min depth, overflow, cuts, block queue's head, tail, live, done,
    // blocks started
    const medium_counters init = {{0, num_nodes, num_nodes, 0, num_refs, s->pool_count, s->num_small_roots,
                                   s->num_small_refs, s->num_leaf_refs, KD_GB_NONE, 0, 0, 0, num_nodes, 0, 0, 0}};
    bool wide = false;
    if (b->host)
        medium_on_host(g, init);
    else
#if KD_DEVICE_CODE
        KD_TRY(medium_on_device(b, g, num_nodes, num_refs, init, s->opts, &wide, err));
#else
        return kd_gb_no_device(err);
#endif
    if (s->profile)
        s->profile->medium_wide = wide;
    KD_TRY(kd_gb_read_scalars(b, counts, err));
    kd_gb_step_mark(b, s->opts->profile, KD_GPU_STEP_MEDIUM);
    if (s->profile)
        s->profile->num_host_syncs++;
    return KD_OK;
}

// A run that fit: its counts into the build state.
void finish_medium(kd_gb_build_state *s, const kd_gb_scalars &counts)
{
    if (s->num_small_roots == 0 && counts.med_roots > 0)
        s->min_small_depth = counts.med_min_depth;
    s->pool_count = counts.med_pool;
    s->num_small_roots = counts.med_roots;
    s->num_small_refs = counts.med_small_refs;
    s->num_leaf_refs = counts.med_leaf_refs;
    if (s->profile) {
        s->profile->num_medium_nodes = counts.med_tail + counts.med_cuts;
        s->profile->num_medium_cuts = counts.med_cuts;
        s->profile->num_medium_block_nodes = counts.med_big_done;
    }
}

// After a run that overflowed: each array it outgrew, grown.
void grow_medium(const kd_gb_build_state *s, const medium_args &g, const kd_gb_scalars &counts, medium_sizes *z)
{
    grow(&z->tasks, counts.med_tail, g.task_capacity);
    grow(&z->refs, counts.med_refs, g.ref_capacity);
    grow(&z->roots, counts.med_roots - s->num_small_roots, g.root_capacity - s->num_small_roots);
    grow(&z->small_refs, counts.med_small_refs - s->num_small_refs, g.small_ref_capacity - s->num_small_refs);
    grow(&z->leaf_refs, counts.med_leaf_refs - s->num_leaf_refs, g.leaf_ref_capacity - s->num_leaf_refs);
    if (counts.med_pool > g.pool_capacity) // two pool slots per split (a task's or an empty cut's)
        grow(&z->tasks, (counts.med_pool - s->pool_count) / 2 + 1, z->tasks);
}

} // namespace

kd_status kd_gb_stage_medium(kd_gpu_builder *b, kd_gb_build_state *s, int refs_id, int nodes_id,
                             uint32_t num_nodes, uint32_t num_refs, kd_error *err)
{
    // First sizes: the subtrees below such a level hold a few times its
    // references in their large nodes (KD_GB_MEDIUM_REFS), and more per
    // reference where the level is small (`extra`); arrays keep their size
    // for the builds after.
    const uint32_t threshold = (uint32_t)s->opts->small_node_threshold;
    const size_t extra = 4 * (size_t)num_refs < 65536 ? 4 * (size_t)num_refs : 65536;
    medium_sizes z;
    z.tasks = num_nodes + 8 * (size_t)num_refs / threshold + 1024;
    z.refs = KD_GB_MEDIUM_REFS * (size_t)num_refs + extra;
    z.roots = num_refs / 8 + 1024;
    z.small_refs = KD_GB_MEDIUM_SMALL_REFS * (size_t)num_refs + extra;
    z.leaf_refs = (size_t)num_refs + 1024;
    for (int attempt = 0;; attempt++) {
        KD_TRY(ensure_arrays(b, s, refs_id, nodes_id, z, err));
        const medium_args g = medium_args_of(b, s, refs_id, nodes_id, num_nodes);
        kd_gb_scalars counts;
        KD_TRY(run_medium_once(b, s, g, num_nodes, num_refs, &counts, err));
        if (!counts.med_overflow) {
            finish_medium(s, counts);
            return KD_OK;
        }
        if (s->profile)
            s->profile->num_medium_retries++;
        if (attempt >= 8)
            return kd_error_set(err, KD_ERR_INVALID, "GPU build: the medium-node stage keeps outgrowing its arrays");
        grow_medium(s, g, counts, &z);
    }
}
