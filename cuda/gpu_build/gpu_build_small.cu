// The small-node stage: exact SAH for nodes of at most 64 references, with
// reference sets held as 64-bit masks (bit i: the root's i-th reference).
//
// Nodes are processed in waves: wave 0 is every small root, wave w+1 the
// children made by wave w, all roots together, so thousands of nodes are in
// flight at once. A wave is a node pass and a clip pass.
//  - The node pass decides each node (gpu_build_small_node.cuh): every
//    member's candidate planes, one float below its lower bound and one
//    above its upper bound on each axis (they dominate the plane at the
//    bound itself, where the member would go to both sides, and separate
//    planar members cleanly), each costed by the members below and above it;
//    the cheapest wins, then pbrt-v4's rules. On the device a team of lanes
//    takes a node, a lane per member (gpu_build_small_team.cuh); the host
//    emulation takes the members in turn with the same per-member code.
//  - A split appends its two children to the task array and reserves arena
//    entries for the bounds of the members of those that go on (a child
//    that will be a leaf is written as one at once), taking the slots of a
//    warp's splits from two counters in one 64-bit word with one atomic,
//    exactly as many as they fill. The order of slots never reaches the
//    output, which the output stage orders by tree structure.
//  - The node then files its members under the children: copied where they
//    lie on one side of the plane, queued as a clip job where they straddle
//    it (about one member in eight). The clip pass clips each straddler once
//    for both children (perfect splits all the way down, as the CPU
//    builder), a thread per job, or a team of 16 lanes per job where they
//    are few: clipping is the costliest step, and a lane per straddler keeps
//    the GPU busy where the node's lanes would mostly wait. A job holds what
//    its clip needs (the node's box, the plane, the member's entry and
//    reference, its children's entries), so the clip waits on two loads.
// The waves need no host round trip: each pass reads its range from device
// memory, and the host launches as many waves as the depth cap allows.
#include <stdlib.h>
#include <string.h>

#include "gpu_build_small_team.cuh"
#if KD_DEVICE_CODE
#include "gpu_build_clip_team.cuh"
#endif

namespace {

using namespace kd_gb_small;

// The small stage's counters in kd_gb_scalars: task_count up to the wave
// states' end.
enum : size_t {
    COUNTERS_AT = offsetof(kd_gb_scalars, task_count),
    COUNTERS_WORDS = (offsetof(kd_gb_scalars, wave) + sizeof(kd_gb_scalars::wave) - COUNTERS_AT) / 4
};

// Wave 0: the roots as tasks; root 0's thread also sets the stage's
// counters (a copy of its own for them would break the launches' overlap).
struct init_tasks {
    const kd_gb_small_root *roots;
    task *tasks;
    kd_gb_scalars *scalars;
    uint32_t counters[COUNTERS_WORDS];

    __host__ __device__ void operator()(uint32_t r) const
    {
        if (r == 0)
            for (size_t k = 0; k < COUNTERS_WORDS; k++)
                reinterpret_cast<uint32_t *>(reinterpret_cast<char *>(scalars) + COUNTERS_AT)[k] = counters[k];
        const kd_gb_small_root &root = roots[r];
        task t;
        t.mask = root.ref_count >= 64 ? ~0ull : (1ull << root.ref_count) - 1ull;
        for (int k = 0; k < 6; k++)
            t.cell[k] = root.cell[k];
        t.root = r;
        t.ref_start = root.ref_start;
        t.bounds_at = root.ref_start;
        t.pool_id = root.pool_id;
        t.parent = root.parent;
        t.depth = (uint16_t)root.depth;
        t.bad_refines = (uint16_t)root.bad_refines;
        t.allowance = root.allowance;
        tasks[r] = t;
    }
};

// The roots' members: their bounds in the root, in reference order (wave
// 0's, in the arena's first half).
struct init_arena {
    kd_gb_refs refs;
    member_box *arena;

    __host__ __device__ void operator()(uint32_t j) const
    {
        member_box box;
        for (int a = 0; a < 3; a++) {
            box.v[a] = refs.lo[a][j];
            box.v[3 + a] = refs.hi[a][j];
        }
        arena[j] = box;
    }
};

// Wave 0 in one launch: thread j sets reference j's bounds and root j's
// task, each where there is one.
struct init_wave0 {
    init_tasks roots;
    init_arena members;
    uint32_t num_roots, num_refs;

    __host__ __device__ void operator()(uint32_t j) const
    {
        if (j < num_refs)
            members(j);
        if (j < num_roots)
            roots(j);
    }
};

enum { CLIP_THREADS = 128 };

// After wave w: the next wave is every task appended by this one, and its
// members the entries reserved by it; it is set in the other wave state,
// which nothing reads meanwhile. A count past its array's end (or the
// next wave's tasks or members past their halves) voids the run (the host
// grows the arrays); commit_split has then already said so, and this is a
// guard. The most tasks and members a wave asked for size the halves.
KD_GB_HD void next_wave(const small_args &g)
{
    kd_gb_scalars *scalars = g.scalars;
    const uint32_t w = g.wave;
    const kd_gb_wave_state &done = scalars->wave[w & 1u];
    const uint32_t tasks = scalars->task_count - done.end, members = scalars->arena_count - done.member_end;
    if (scalars->task_count > g.task_capacity || tasks > g.task_half || members > g.arena_half)
        scalars->pool_overflow = 1;
    scalars->task_most = tasks > scalars->task_most ? tasks : scalars->task_most;
    scalars->member_most = members > scalars->member_most ? members : scalars->member_most;
    if (w < KD_GB_MAX_WAVES)
        scalars->wave_ends[w] = done.end;
    scalars->wave_count = w + 1; // past the array: the host finds the waves too many
    kd_gb_wave_state &next = scalars->wave[(w + 1u) & 1u];
    next.begin = done.end;
    next.end = scalars->task_count;
    next.next = 0; // runs taken past each warp's first
    next.clips = 0;
    next.member_begin = done.member_end;
    next.member_end = scalars->arena_count;
}

// The waves in the host emulation, one after the other until one is empty:
// each task by one lane in slot order, then the wave's clip jobs.
kd_status waves_on_host(small_args g)
{
    kd_gb_scalars *scalars = g.scalars;
    member_slots slots;
    kd_gb_poly_local poly;
    for (g.wave = 0; !scalars->pool_overflow; g.wave++) {
        kd_gb_wave_state &wave = scalars->wave[g.wave & 1u];
        if (wave.begin == wave.end)
            break;
        set_wave_places(&g, wave);
        for (uint32_t i = 0; i < wave.end - wave.begin; i++)
            process_task_serial(g, task_half_start(g, g.wave) + i, &slots);
        for (uint32_t q = 0; q < wave.clips && !scalars->pool_overflow; q++)
            run_clip_job(g, g.clip_jobs[q], poly);
        next_wave(g);
    }
    return KD_OK;
}

static_assert(KD_GB_RUN_MAX <= KD_GB_RUN_LONG && KD_GB_RUN_LONG <= PASS_TASKS, "a run must fit the lanes that sort it");

#if KD_DEVICE_CODE
// The node pass of a wave: each warp takes a run of tasks and decides them,
// widest first, in passes, packing several small nodes (teams of 2 to 16
// lanes) into a pass, or taking a larger node with the whole warp (see
// gpu_build_small_team.cuh). A run is the wave's tasks shared out over the
// warps (KD_GB_RUN_MIN to KD_GB_RUN_MAX; longer on long waves), so that a
// small wave's few tasks spread over every warp. Blocks of four warps, KD_GB_WAVE_MIN_BLOCKS an SM,
// hide the latency of the global loads a node makes. Each warp's first run
// is its own; the rest go to warps as they come free.
__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK, KD_GB_WAVE_MIN_BLOCKS) wave_kernel(small_args g)
{
    kd_wait_prior();
    const uint32_t lane = threadIdx.x & 31u;
    kd_gb_wave_state &ws = g.scalars->wave[g.wave & 1u];
    const uint32_t begin = ws.begin, end = ws.end;
    if (begin == end)
        return; // the stage is done (the host launches as many waves as the depth cap allows)
    if (g.scalars->pool_overflow)
        return; // this run is void: the host grows the arrays and runs again
    set_wave_places(&g, ws);
    const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
    // Runs of tasks taken as warps come free: 16 (two passes or three), or
    // the wave's share per warp where it is too small to give each that many,
    // or up to 32 where each warp still takes four runs or more.
    // A warp's first run is the one its index names; later ones are
    // counted past all those, and only where the wave has more runs than
    // warps (else thousands of warps would queue on one counter).
    const uint32_t n = end - begin;
    uint32_t run = (n + warps - 1) / warps;
    if (run > KD_GB_RUN_MAX) { // a long wave: longer runs, KD_GB_RUNS_PER_WARP a warp or more
        const uint32_t part = run / KD_GB_RUNS_PER_WARP;
        run = part < KD_GB_RUN_MAX ? KD_GB_RUN_MAX : part > KD_GB_RUN_LONG ? KD_GB_RUN_LONG : part;
    }
    run = run < KD_GB_RUN_MIN ? KD_GB_RUN_MIN : run;
    const uint32_t num_runs = (n + run - 1) / run;
    const uint32_t at = task_half_start(g, g.wave); // the wave's tasks' places
    for (uint32_t r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < num_runs;) {
        const uint32_t first = r * run;
        process_run(g, at + first, at + (first + run < n ? first + run : n), lane);
        if (num_runs <= warps)
            break;
        if (lane == 0)
            r = warps + atomicAdd(&ws.next, 1u);
        r = __shfl_sync(0xffffffffu, r, 0);
    }
}

// A clip job by a team of lanes (gpu_build_clip_team.cuh): the same bounds
// as run_clip_job's, in a shorter chain of steps.
__device__ void run_clip_job_team(const small_args &g, const clip_job &job, const kd_gb_clip_team &team)
{
    const member_box box = g.arena[job.entry];
    const uint32_t tri = g.refs.tri[job.ref];
    float child[2][6];
    kd_gb_clip_split_team(team, g.tri_verts + 9 * (size_t)tri, job.cell, box.v, job.axis, job.pos, child);
    for (int side = 0; side < 2; side++)
        if (team.lane == (uint32_t)side) // a lane per side stores
            store_clipped(g, job, side, child[side]);
}

// The clip pass: a thread per queued straddler, its polygons in shared
// memory (KD_GB_CLIP_SHARED_BYTES, 54 KB a block of 128). Where the
// straddlers are few (at most KD_GB_CLIP_TEAM_ROUNDS for each team of 16
// lanes the grid has) a team takes each instead: such a pass is one clip's
// chain of steps long. Its first thread then sets the next wave up (a
// kernel of its own for that would cost a launch per wave).
__global__ void __launch_bounds__(CLIP_THREADS, KD_GB_CLIP_MIN_BLOCKS) clip_kernel(small_args g)
{
    extern __shared__ double clip_polygons[];
    kd_wait_prior();
    const uint32_t count = g.scalars->pool_overflow ? 0u : g.scalars->wave[g.wave & 1u].clips;
    const uint32_t teams = gridDim.x * (blockDim.x / KD_GB_CLIP_TEAM);
    if (count <= KD_GB_CLIP_TEAM_ROUNDS * teams) {
        const kd_gb_clip_team team = kd_gb_clip_team_of(clip_polygons, CLIP_THREADS);
        for (uint32_t q = (blockIdx.x * blockDim.x + threadIdx.x) / KD_GB_CLIP_TEAM; q < count; q += teams)
            run_clip_job_team(g, g.clip_jobs[q], team);
    } else {
        kd_gb_poly_shared<CLIP_THREADS> poly = {clip_polygons + threadIdx.x};
        for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < count; q += gridDim.x * blockDim.x)
            run_clip_job(g, g.clip_jobs[q], poly);
    }
    // The pass appends no task or entry, so the counts are final here.
    if (blockIdx.x == 0 && threadIdx.x == 0)
        next_wave(g);
}

// The stage's waves on the device: as many as the depth cap allows (a wave
// past the last finds nothing to do), each a node pass and a clip pass.
kd_status waves_on_device(kd_gpu_builder *b, small_args g, const kd_gb_build_state *s, int profile, kd_error *err)
{
    // A wave per level a root can still descend.
    const uint32_t deepest = (uint32_t)s->max_depth;
    const uint32_t waves = deepest + 1 - (s->min_small_depth < deepest ? s->min_small_depth : deepest);
    uint32_t blocks = 0, clip_blocks = 0;
    KD_TRY(kd_gb_resident_blocks(wave_kernel, 32 * WARPS_PER_BLOCK, &blocks, err));
    const size_t clip_smem = KD_GB_CLIP_SHARED_BYTES(CLIP_THREADS);
    KD_TRY(kd_gb_resident_blocks(clip_kernel, CLIP_THREADS, &clip_blocks, err, clip_smem));
    for (g.wave = 0; g.wave < waves; g.wave++) {
        KD_TRY(kd_gb_cuda(err, kd_launch_dependent(wave_kernel, blocks, 32 * WARPS_PER_BLOCK, 0, b->stream, g),
                          "small-node wave"));
        kd_gb_step_mark(b, profile, KD_GPU_STEP_SMALL_NODES);
        KD_TRY(kd_gb_cuda(err, kd_launch_dependent(clip_kernel, clip_blocks, CLIP_THREADS, clip_smem, b->stream, g),
                          "small-node wave clipping"));
        kd_gb_step_mark(b, profile, KD_GPU_STEP_SMALL_CLIP);
    }
    return KD_OK;
}
#endif

// The small stage's arrays, in elements: task slots in all (their pool
// records; roots first), tasks and member bounds a half holds (one wave's),
// clip jobs. Arrays found too small are grown and the stage rerun; they
// keep their size for the builds after.
struct small_sizes {
    size_t tasks, task_half, arena, jobs;
};

// First sizes: subtrees take a few nodes per reference, a wave's tasks fit
// the roots and KD_GB_WAVE_TASKS per reference, its members the roots' and
// KD_GB_WAVE_MEMBERS per reference, and its clip jobs KD_GB_WAVE_CLIPS per
// reference (the test hooks may start them small, to exercise the
// growth; a half holds one wave, so it takes a sixteenth of the room).
small_sizes first_sizes(const kd_gb_build_state *s, const kd_gb_test_hooks *hooks)
{
    const size_t refs = s->num_small_refs, room = hooks->small_room;
    small_sizes z;
    z.tasks = (size_t)s->num_small_roots + (room ? room : 8 * refs + 64);
    z.task_half = (size_t)s->num_small_roots + (room ? room / 16 : (size_t)(KD_GB_WAVE_TASKS * refs) + 4096);
    z.arena = refs + (room ? room / 16 : KD_GB_WAVE_MEMBERS * refs + 4096);
    z.jobs = hooks->small_clip_jobs ? hooks->small_clip_jobs : (size_t)(KD_GB_WAVE_CLIPS * refs) + 4096;
    return z;
}

uint32_t clamp32(size_t n) { return n > 0xffffffffu ? 0xffffffffu : (uint32_t)n; }

// Elements of `size` bytes that make a whole number of 256-byte steps: a
// half of that many keeps the second half's start 256-byte aligned, as the
// first's (the memory transactions of the two halves then fall alike).
size_t aligned_step(size_t size)
{
    size_t step = 1;
    while (step * size % 256 != 0)
        step *= 2;
    return step;
}

size_t round_up(size_t n, size_t step) { return (n + step - 1) / step * step; }

// Grows the arrays to at least *z (with room for the pool's new slots) and
// points g at them; *z becomes what they hold. The tasks, the arena and the
// clip jobs take the working reference sets' memory where it has room
// (dead once the large and medium stages are done).
kd_status ensure_small_arrays(kd_gpu_builder *b, small_sizes *z, small_args *g, kd_error *err)
{
    kd_gb_lender dead = {{KD_GB_REFS_A2_MEM, KD_GB_REFS_A_MEM, KD_GB_REFS_OUT_MEM}, {0}, 3};
    const size_t task_step = aligned_step(sizeof(task)), member_step = aligned_step(sizeof(member_box));
    z->task_half = round_up(z->task_half, task_step);
    z->arena = round_up(z->arena, member_step);
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_STASKS, 2 * z->task_half * sizeof(task), &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_ARENA, 2 * z->arena * sizeof(member_box), &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_CLIPJOBS, z->jobs * sizeof(clip_job), &dead, err));
    const size_t pool_need = (size_t)g->pool_base + (z->tasks - g->num_roots);
    KD_TRY(kd_gb_ensure(b, KD_GB_POOL, pool_need * sizeof(kd_gb_pool_node), 1, err));
    z->tasks = clamp32(b->buf[KD_GB_POOL].bytes / sizeof(kd_gb_pool_node) - g->pool_base + g->num_roots);
    z->task_half = clamp32(b->buf[KD_GB_STASKS].bytes / sizeof(task) / 2 / task_step * task_step);
    z->arena = clamp32(b->buf[KD_GB_ARENA].bytes / sizeof(member_box) / 2 / member_step * member_step);
    z->jobs = clamp32(b->buf[KD_GB_CLIPJOBS].bytes / sizeof(clip_job));
    g->roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    g->refs = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
    g->tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
    g->tasks = kd_gb_ptr<task>(b, KD_GB_STASKS);
    g->task_capacity = (uint32_t)z->tasks;
    g->task_half = (uint32_t)z->task_half;
    g->arena = kd_gb_ptr<member_box>(b, KD_GB_ARENA);
    g->arena_half = (uint32_t)z->arena;
    g->clip_jobs = kd_gb_ptr<clip_job>(b, KD_GB_CLIPJOBS);
    g->clip_capacity = (uint32_t)z->jobs;
    g->pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    g->scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    return KD_OK;
}

// The stage's constants from the build's options.
small_args small_args_of(const kd_gb_build_state *s)
{
    const kd_gpu_build_options *o = s->opts;
    small_args g;
    memset(&g, 0, sizeof g);
    g.num_roots = s->num_small_roots;
    g.sah.traversal = o->params.traversal_cost;
    g.sah.intersect = o->params.intersect_cost;
    g.sah.empty_bonus = o->params.empty_bonus;
    g.sah.min_empty_fraction = o->params.min_empty_fraction;
    g.max_depth = s->max_depth;
    g.max_leaf_prims = o->params.max_leaf_prims < 0 ? 0u : (uint32_t)o->params.max_leaf_prims;
    g.max_bad_refines = (uint32_t)o->params.max_bad_refines;
    g.cutoff_prims = (uint32_t)o->params.max_prims_in_leaf_for_cost_cutoff;
    g.bad_cost_ratio = o->params.bad_cost_ratio;
    g.pool_base = s->pool_count;
    return g;
}

// One run of the stage: the roots and their members as wave 0 (their
// first thread setting the counters), the waves, and the counts read back.
kd_status run_small_once(kd_gpu_builder *b, const kd_gb_build_state *s, small_args g, kd_gb_scalars *counts,
                         kd_error *err)
{
    const int profile = s->opts->profile;
    kd_gb_scalars start;
    memset(&start, 0, sizeof start);
    start.task_count = g.num_roots;
    start.arena_count = s->num_small_refs;
    start.wave[0].end = g.num_roots;
    start.wave[0].member_end = s->num_small_refs;
    init_wave0 init;
    init.roots.roots = g.roots;
    init.roots.tasks = g.tasks;
    init.roots.scalars = g.scalars;
    memcpy(init.roots.counters, (const char *)&start + COUNTERS_AT, sizeof init.roots.counters);
    init.members = {g.refs, g.arena};
    init.num_roots = g.num_roots;
    init.num_refs = s->num_small_refs;
    const uint32_t n = init.num_refs > init.num_roots ? init.num_refs : init.num_roots;
    KD_TRY(kd_gb_map(b, n, init, "small-stage roots and members", err));
    kd_gb_step_mark(b, profile, KD_GPU_STEP_SMALL_SETUP);
    if (b->host)
        KD_TRY(waves_on_host(g));
    else
#if KD_DEVICE_CODE
        KD_TRY(waves_on_device(b, g, s, profile, err));
#else
        return kd_gb_no_device(err);
#endif
    KD_TRY(kd_gb_read_scalars(b, counts, err));
    kd_gb_step_mark(b, profile, KD_GPU_STEP_SMALL_READBACK);
    if (s->profile)
        s->profile->num_host_syncs++;
    return KD_OK;
}

// A run that ran out of room stopped in the wave where an array ran out, so
// its counts are lower bounds, and the waves after it want more: each array
// short of room grows to twice what was counted at least; the clip jobs
// fourfold (the void run's later waves asked for none), never past the
// members (a wave clips at most its members, all in the arena).
void grow_small(const kd_gb_scalars &counts, small_sizes *z)
{
    if (counts.task_count + 2 > z->tasks) {
        const size_t need = 2 * (size_t)counts.task_count + 64;
        z->tasks = 2 * z->tasks > need ? 2 * z->tasks : need;
    }
    if (counts.task_most + 64 > z->task_half) {
        const size_t need = 2 * (size_t)counts.task_most + 64;
        z->task_half = 2 * z->task_half > need ? 2 * z->task_half : need;
    }
    if (counts.member_most + 128 > z->arena) {
        const size_t need = 2 * (size_t)counts.member_most + 128;
        z->arena = 2 * z->arena > need ? 2 * z->arena : need;
    }
    if (counts.clip_short) {
        const size_t need = 2 * (size_t)counts.clip_short;
        z->jobs = 4 * z->jobs > need ? 4 * z->jobs : need;
        z->jobs = z->jobs < z->arena ? z->jobs : z->arena;
    }
}

// After a build, keep a quarter more than it used, so that rebuilding the
// same mesh, or a slightly larger one, does not grow the arrays again. Best
// effort: under a memory cap it may not fit, and need not. Lent arrays are
// sized afresh each build.
void keep_headroom(kd_gpu_builder *b, const small_args *g, const kd_gb_scalars *counts)
{
    kd_error ignored;
    size_t tasks = (size_t)counts->task_count + counts->task_count / 4 + 4096;
    size_t half = (size_t)counts->task_most + counts->task_most / 4 + 4096; // a half: one wave's
    size_t members = (size_t)counts->member_most + counts->member_most / 4 + 4096;
    if (tasks > g->task_capacity)
        (void)kd_gb_ensure(b, KD_GB_POOL, ((size_t)g->pool_base + tasks - g->num_roots) * sizeof(kd_gb_pool_node),
                           1, &ignored);
    if (half > g->task_half && !b->buf[KD_GB_STASKS].lent)
        (void)kd_gb_ensure(b, KD_GB_STASKS, 2 * half * sizeof(task), 0, &ignored);
    if (members > g->arena_half && !b->buf[KD_GB_ARENA].lent)
        (void)kd_gb_ensure(b, KD_GB_ARENA, 2 * members * sizeof(member_box), 0, &ignored);
}

// The stage's results into the build state, after a run that fit.
kd_status finish_small(kd_gpu_builder *b, kd_gb_build_state *s, const small_args &g, const kd_gb_scalars &counts,
                       kd_error *err)
{
    const kd_gb_wave_state &left = counts.wave[counts.wave_count & 1u];
    if (left.begin != left.end)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: small-node tasks left after the last wave");
    if (counts.wave_count > KD_GB_MAX_WAVES)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: %u small-node waves, over %u", counts.wave_count,
                            (unsigned)KD_GB_MAX_WAVES);
    s->pool_count = g.pool_base + (counts.task_count - g.num_roots);
    s->small_pool_base = g.pool_base;
    s->small_members = counts.arena_count;
    s->num_small_waves = counts.wave_count;
    memcpy(s->small_wave_ends, counts.wave_ends, sizeof counts.wave_ends);
    keep_headroom(b, &g, &counts);
    return KD_OK;
}

} // namespace

kd_status kd_gb_stage_small(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    if (s->num_small_roots == 0)
        return KD_OK;
    small_args g = small_args_of(s);
    small_sizes z = first_sizes(s, &s->opts->hooks);
    for (int attempt = 0;; attempt++) {
        KD_TRY(ensure_small_arrays(b, &z, &g, err));
        kd_gb_scalars counts;
        KD_TRY(run_small_once(b, s, g, &counts, err));
        if (!counts.pool_overflow)
            return finish_small(b, s, g, counts, err);
        if (s->profile)
            s->profile->num_small_retries++;
        if (attempt >= 8)
            return kd_error_set(err, KD_ERR_INVALID, "GPU build: the small-node stage keeps outgrowing its arrays");
        grow_small(counts, &z);
    }
}
