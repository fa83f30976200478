// The small-node stage: exact SAH for nodes of at most 64 references, with
// reference sets held as 64-bit masks (bit i: the root's i-th reference).
//
// Nodes are processed in waves: wave 0 is every small root, wave w+1 the
// children made by wave w, all roots together, so thousands of nodes are in
// flight at once. A wave is a node pass, a member pass and a clip pass. The
// node pass decides each node as `decide` does (gpu_build_small_node.cuh,
// the host emulation's path, through a workspace); the device gets the same
// split in registers, a lane per member: a team of 2 to 16 lanes, several
// packed into a warp, the whole warp for 17 to 32 members, and two members
// per lane for 33 to 64 (gpu_build_small_team.cuh):
//  - its members' bounds, clipped to its box, come from the bounds arena
//    (written by the member pass before), into compact arrays;
//  - per axis, the members' lower and upper bounds are sorted (by rank);
//  - the candidate planes are, per axis, one float below each lower bound
//    (q-: the member goes above only) and one float above each upper bound
//    (q+: below only). These dominate the plane at q itself, where the
//    member would touch the plane and go to both sides, and they separate
//    planar members cleanly. Each plane's counts (members with lower bound
//    <= s go below, with upper bound >= s above) come from two binary
//    searches in the sorted bounds (on the device: each lane counts every
//    member's bounds, read from the warp's shared slots, against its own
//    member's planes); the cheapest wins; pbrt-v4's rules decide;
//  - the children's reference masks are taken from the chosen plane;
//  - a split appends its two children to the task array, reserves arena
//    entries for their members (each entry names its task) and leaves a
//    plan: the masks, the plane and where the children's bounds go. A
//    warp's pass takes the slots and entries of all its splits from two
//    global counters in one 64-bit word with one atomic (one per pass, not
//    per split: thousands of warps would queue on one address), exactly as
//    many as they fill. (Chunks of 16 slots a warp, the unused ones left dead, made
//    the first waves three quarters dead slots, and runs of them fed few
//    warps: exact slots were 2-4% faster on the H100.) The order of slots
//    never reaches the output, which the output stage orders by tree
//    structure.
// The member pass writes each member's bounds into the children that go on,
// clipping a straddler once for both (perfect splits all the way down, as
// the CPU builder). On the device the node pass does it, each lane for the
// member it holds, as soon as its node is decided; the straddlers (about one
// member in eight) are queued for a clip pass of their own, a thread each
// (a team of 16 lanes each where they are few, see clip_kernel): clipping
// is the costliest step, and a lane per straddler keeps the GPU
// busy where the node's lanes would mostly wait (the node pass clipping its
// own straddlers, 32 at a time, made the dragon's builds 23% slower on an
// H100). Each is queued as a clip job that holds what the clip needs (the
// node's box, the plane, the member's entry and reference, its children's
// entries), so the clip pass waits on two loads before clipping, not on the
// six of the entry's task, plan and root. The host emulation runs the
// member pass as a loop of its own over the wave's entries (route_member,
// copy_routed, make_clip_job), then the same clip jobs.
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

// The member pass (see the top of this file). Where entry j goes: its
// node's plan, or NULL where nowhere (a leaf's member, a member of neither
// child that goes on; an entry no task claimed, which exact reservations
// no longer leave, is skipped too).
KD_GB_HD const member_plan *route_member(const small_args &g, uint32_t j, member_route *r)
{
    const uint32_t owner = g.owner[j];
    if (owner == KD_GB_NONE)
        return NULL; // no task claimed it
    const member_plan *plan = &g.plans[owner];
    if (plan->axis < 0)
        return NULL;
    r->owner = &g.tasks[owner];
    const uint32_t c = j - r->owner->bounds_at;
    if (c >= (uint32_t)kd_gb_popc64(r->owner->mask))
        return NULL;
    return route_by_plan(*plan, 1ull << kd_gb_nth_bit64(r->owner->mask, c), r) ? plan : NULL;
}

// The small stage's counters in kd_gb_scalars: task_count up to the wave
// states' end.
enum : size_t {
    COUNTERS_AT = offsetof(kd_gb_scalars, task_count),
    COUNTERS_WORDS = (offsetof(kd_gb_scalars, wave) + sizeof(kd_gb_scalars::wave) - COUNTERS_AT) / 4
};

// Wave 0: the roots as tasks; root 0's thread also sets the stage's
// counters (a copy of its own for them cost a launch's overlap).
struct init_tasks {
    const kd_gb_small_root *roots;
    task *tasks;
    uint32_t *owner; // NULL on the device (only the emulation's member pass reads it)
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
        for (uint32_t c = 0; owner && c < root.ref_count && c < 64u; c++)
            owner[root.ref_start + c] = r;
    }
};

// The roots' members: their bounds in the root, in reference order.
struct init_arena {
    kd_gb_refs refs;
    member_box *arena;
    uint32_t *owner;

    __host__ __device__ void operator()(uint32_t j) const
    {
        member_box box;
        for (int a = 0; a < 3; a++) {
            box.v[a] = refs.lo[a][j];
            box.v[3 + a] = refs.hi[a][j];
        }
        arena[j] = box;
        if (owner)
            owner[j] = KD_GB_NONE; // until its root claims it
    }
};

// The node pass of a wave: each warp takes a run of tasks and decides them,
// widest first, in passes, packing several small nodes (teams of 2 to 16
// lanes) into a pass, or taking a larger node with the whole warp (see
// gpu_build_small_team.cuh). A run is the wave's tasks shared out over the
// warps (at least KD_GB_RUN_MIN, at most KD_GB_RUN_MAX), so that a small
// wave's few tasks spread over every warp (powers of two, as before, left
// up to half the warps idle on a wave of a few thousand large tasks: side
// by side on the H100 the exact share was up to 2.5% faster). Blocks of
// four warps, at least KD_GB_WAVE_MIN_BLOCKS per SM (registers capped to
// fit), hide the latency of the global loads a node makes. Each warp's
// first run is its own; the rest go to warps as they come free (H200: every
// so many'th run to each warp instead, with no shared counter, ran the
// dragon's node passes 8% slower).
#ifndef KD_GB_RUN_MIN
#define KD_GB_RUN_MIN 2u // measured on the H200 against 4 and 8: faster on the small scenes, within noise on the dragon
#endif
#ifndef KD_GB_RUN_MAX
#define KD_GB_RUN_MAX 16u // 32 measured 1-3% slower (H200)
#endif
static_assert(KD_GB_RUN_MAX <= PASS_TASKS, "a run must fit the lanes that sort it");
#ifndef KD_GB_WAVE_MIN_BLOCKS
// Five blocks cap registers at 65536 / (5 x 128) = 102 (ptxas uses 96, with
// 36 bytes of spills): H100 side by side
// against four (118 registers, no spills), three runs each, the dragon
// 11.05-11.17 -> 10.63-10.72 ms, crytek sponza 4.42-4.50 -> 4.32-4.45, the
// others within noise, once the counting loop took two instructions a count
// (le_one); before that, five had lost 2.5-5% on conference. H200: at 3 (133
// registers, 3 blocks per SM) the dragon's node passes took 7.9 ms, at 4 6.6.
#define KD_GB_WAVE_MIN_BLOCKS 5
#endif
#if KD_DEVICE_CODE
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
    const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
    // Runs of tasks taken as warps come free: 16 (two passes or three), or
    // the wave's share per warp where it is too small to give each that many.
    // A warp's first run is the one its index names; later ones are
    // counted past all those, and only where the wave has more runs than
    // warps (a small wave's thousands of warps queueing on one counter cost
    // about a microsecond and a half on an H100).
    const uint32_t n = end - begin;
    uint32_t run = (n + warps - 1) / warps;
    run = run < KD_GB_RUN_MIN ? KD_GB_RUN_MIN : run > KD_GB_RUN_MAX ? KD_GB_RUN_MAX : run;
    const uint32_t num_runs = (n + run - 1) / run;
    for (uint32_t r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < num_runs;) {
        const uint32_t first = begin + r * run;
        process_run(g, first, first + run < end ? first + run : end, lane);
        if (num_runs <= warps)
            break;
        if (lane == 0)
            r = warps + atomicAdd(&ws.next, 1u);
        r = __shfl_sync(0xffffffffu, r, 0);
    }
}

#endif

enum { CLIP_THREADS = 128 };

// After wave w: the next wave is every task appended by this one, and its
// members the entries reserved by it; it is set in the other wave state,
// which nothing reads meanwhile. A count past its array's end voids the run
// (the host grows the arrays); commit_split has then already said so, and
// this is a guard.
KD_GB_HD void next_wave(kd_gb_scalars *scalars, uint32_t w, uint32_t task_capacity, uint32_t arena_capacity)
{
    if (scalars->task_count > task_capacity || scalars->arena_count > arena_capacity)
        scalars->pool_overflow = 1;
    const kd_gb_wave_state &done = scalars->wave[w & 1u];
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

#if KD_DEVICE_CODE
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

#endif

// The clip pass: a thread per queued straddler, its polygons in shared
// memory (KD_GB_CLIP_SHARED_BYTES, 54 KB a block of 128: four to an SM).
// Where the straddlers are few (at most KD_GB_CLIP_TEAM_ROUNDS for each
// team of 16 lanes the grid has, 4,224 on an H100) a team takes each
// instead: such a pass is one clip's chain of steps long. H100, side by
// side (three runs of 10 builds): every scene about 1% faster, the tail's
// clip passes 6-7 us; with up to 2 or 4 clips per team no better, and
// teams in the medium stage's last clips of a node 1-5% slower.
// Its first thread then sets the next wave up (a kernel of its own for that
// cost a launch per wave, an empty wave's in full).
#ifndef KD_GB_CLIP_MIN_BLOCKS
#define KD_GB_CLIP_MIN_BLOCKS 4 // caps registers at 128 (98 used); polygons in local memory, 256 threads: 4 blocks spilled, 20% slower
#endif
#ifndef KD_GB_CLIP_TEAM_ROUNDS
#define KD_GB_CLIP_TEAM_ROUNDS 1
#endif
#if KD_DEVICE_CODE
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
        next_wave(g.scalars, g.wave, g.task_capacity, g.arena_capacity);
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

} // namespace

// After a build, keep a quarter more than it used, so that rebuilding the
// same mesh, or a slightly larger one, does not grow the arrays again. Best
// effort: under a memory cap it may not fit, and need not.
static void keep_headroom(kd_gpu_builder *b, const small_args *g, const kd_gb_scalars *counts)
{
    kd_error ignored;
    size_t tasks = (size_t)counts->task_count + counts->task_count / 4 + 4096;
    size_t members = (size_t)counts->arena_count + counts->arena_count / 4 + 65536;
    if (tasks > g->task_capacity &&
        kd_gb_ensure(b, KD_GB_POOL, ((size_t)g->pool_base + tasks - g->num_roots) * sizeof(kd_gb_pool_node),
                     1, &ignored) == KD_OK &&
        kd_gb_ensure(b, KD_GB_STASKS, tasks * sizeof(task), 0, &ignored) == KD_OK)
        (void)kd_gb_ensure(b, KD_GB_SPLANS, tasks * sizeof(member_plan), 0, &ignored);
    if (members > g->arena_capacity &&
        kd_gb_ensure(b, KD_GB_ARENA, members * sizeof(member_box), 0, &ignored) == KD_OK && b->host)
        (void)kd_gb_ensure(b, KD_GB_OWNER, members * sizeof(uint32_t), 0, &ignored);
}

kd_status kd_gb_stage_small(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    if (s->num_small_roots == 0)
        return KD_OK;
    const kd_gpu_build_options *o = s->opts;
    small_args g;
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

    // Subtrees take a few nodes and members per reference; arrays found too
    // small are grown and the stage rerun (they keep their size for the
    // builds after).
    const size_t refs = s->num_small_refs;
    size_t capacity = (size_t)s->num_small_roots + (o->small_room ? o->small_room : 8 * refs + 64);
    size_t arena = refs + (o->small_room ? o->small_room : 39 * refs + 64);
    // Clip jobs for twice the small references: a wave that wants more voids
    // the run and the array grows (warm builds of the bunny, crytek sponza
    // and the dragon ran the stage once on an H100).
    size_t jobs = o->small_clip_jobs ? o->small_clip_jobs : 2 * (size_t)s->num_small_refs + 4096;
    for (int attempt = 0;; attempt++) {
        KD_TRY(kd_gb_ensure(b, KD_GB_STASKS, capacity * sizeof(task), 0, err));
        KD_TRY(kd_gb_ensure(b, KD_GB_ARENA, arena * sizeof(member_box), 0, err));
        capacity = b->buf[KD_GB_STASKS].bytes / sizeof(task);
        arena = b->buf[KD_GB_ARENA].bytes / sizeof(member_box);
        KD_TRY(kd_gb_ensure(b, KD_GB_SPLANS, capacity * sizeof(member_plan), 0, err));
        if (b->host) // the entries' tasks, for the emulation's member pass
            KD_TRY(kd_gb_ensure(b, KD_GB_OWNER, arena * sizeof(uint32_t), 0, err));
        KD_TRY(kd_gb_ensure(b, KD_GB_CLIPJOBS, jobs * sizeof(clip_job), 0, err));
        jobs = b->buf[KD_GB_CLIPJOBS].bytes / sizeof(clip_job);
        if (jobs > 0xffffffffu)
            jobs = 0xffffffffu;
        if (capacity > 0xffffffffu)
            capacity = 0xffffffffu;
        if (arena > 0xffffffffu)
            arena = 0xffffffffu;
        size_t pool_need = (size_t)g.pool_base + (capacity - g.num_roots);
        KD_TRY(kd_gb_ensure(b, KD_GB_POOL, pool_need * sizeof(kd_gb_pool_node), 1, err));
        g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
        g.refs = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
        g.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
        g.tasks = kd_gb_ptr<task>(b, KD_GB_STASKS);
        g.task_capacity = (uint32_t)capacity;
        g.arena = kd_gb_ptr<member_box>(b, KD_GB_ARENA);
        g.arena_capacity = (uint32_t)arena;
        g.owner = b->host ? kd_gb_ptr<uint32_t>(b, KD_GB_OWNER) : NULL;
        g.clip_jobs = kd_gb_ptr<clip_job>(b, KD_GB_CLIPJOBS);
        g.clip_capacity = (uint32_t)jobs;
        g.plans = kd_gb_ptr<member_plan>(b, KD_GB_SPLANS);
        g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
        g.scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);

        // Members first: the roots then claim theirs.
        init_arena members = {g.refs, g.arena, g.owner};
        KD_TRY(kd_gb_map(b, s->num_small_refs, members, "small-stage members", err));
        // The stage's counters, and wave 0: the roots and their members.
        kd_gb_scalars start;
        memset(&start, 0, sizeof start);
        start.task_count = g.num_roots;
        start.arena_count = s->num_small_refs;
        start.wave[0].end = g.num_roots;
        start.wave[0].member_end = s->num_small_refs;
        init_tasks init;
        init.roots = g.roots;
        init.tasks = g.tasks;
        init.owner = g.owner;
        init.scalars = g.scalars;
        memcpy(init.counters, (const char *)&start + COUNTERS_AT, sizeof init.counters);
        KD_TRY(kd_gb_map(b, g.num_roots, init, "small-stage roots", err));
        kd_gb_step_mark(b, o->profile, KD_GPU_STEP_SMALL_SETUP);
        kd_gb_scalars *scalars = g.scalars;
        if (b->host) {
            kd_gb_poly_local poly;
            workspace *ws = (workspace *)malloc(sizeof(workspace));
            if (!ws)
                return kd_error_set(err, KD_ERR_NOMEM, "GPU build (emulated): out of memory");
            for (g.wave = 0; !scalars->pool_overflow; g.wave++) {
                kd_gb_wave_state &wave = scalars->wave[g.wave & 1u];
                if (wave.begin == wave.end)
                    break;
                for (uint32_t i = wave.begin; i < wave.end; i++)
                    process_task(g, ws, i);
                // The member pass: each member copied to the children that
                // go on, a straddler's clip job queued (and counted past the
                // array, for the rerun's size).
                for (uint32_t j = wave.member_begin; j < wave.member_end && !scalars->pool_overflow; j++) {
                    member_route r;
                    const member_plan *plan = route_member(g, j, &r);
                    if (!plan || !copy_routed(g, *plan, r, j))
                        continue;
                    if (wave.clips < g.clip_capacity)
                        g.clip_jobs[wave.clips] = make_clip_job(*r.owner, *plan, r, j);
                    wave.clips++;
                }
                if (wave.clips > g.clip_capacity) {
                    scalars->clip_short = wave.clips;
                    scalars->pool_overflow = 1;
                }
                for (uint32_t q = 0; q < wave.clips && !scalars->pool_overflow; q++)
                    run_clip_job(g, g.clip_jobs[q], poly);
                next_wave(scalars, g.wave, g.task_capacity, g.arena_capacity);
            }
            free(ws);
        } else {
#if KD_DEVICE_CODE
            KD_TRY(waves_on_device(b, g, s, o->profile, err));
#else
            return kd_gb_no_device(err);
#endif
        }
        kd_gb_scalars counts;
        KD_TRY(kd_gb_read_scalars(b, &counts, err));
        kd_gb_step_mark(b, o->profile, KD_GPU_STEP_SMALL_READBACK);
        if (s->profile)
            s->profile->num_host_syncs++;
        if (!counts.pool_overflow) {
            const kd_gb_wave_state &left = counts.wave[counts.wave_count & 1u];
            if (left.begin != left.end)
                return kd_error_set(err, KD_ERR_INVALID,
                                  "GPU build: small-node tasks left after the last wave");
            if (counts.wave_count > KD_GB_MAX_WAVES)
                return kd_error_set(err, KD_ERR_INVALID, "GPU build: %u small-node waves, over %u",
                                  counts.wave_count, (unsigned)KD_GB_MAX_WAVES);
            s->pool_count = g.pool_base + (counts.task_count - g.num_roots);
            s->small_pool_base = g.pool_base;
            s->small_members = counts.arena_count;
            s->num_small_waves = counts.wave_count;
            memcpy(s->small_wave_ends, counts.wave_ends, sizeof counts.wave_ends);
            keep_headroom(b, &g, &counts);
            return KD_OK;
        }
        if (s->profile)
            s->profile->num_small_retries++;
        if (attempt >= 8)
            return kd_error_set(err, KD_ERR_INVALID, "GPU build: the small-node stage keeps outgrowing its arrays");
        // The run stopped in the wave where an array ran out, so its count
        // is a lower bound, and the waves after it want more: twice that
        // count at least (from room for 4096, the synthetic test scenes of
        // 3000 triangles took up to 8 reruns, the most allowed, when only
        // the array doubled; up to 7 now).
        if (counts.task_count + 2 > capacity) {
            const size_t need = 2 * (size_t)counts.task_count + 64;
            capacity = 2 * capacity > need ? 2 * capacity : need;
        }
        if (counts.arena_count + 128 > arena) {
            const size_t need = 2 * (size_t)counts.arena_count + 128;
            arena = 2 * arena > need ? 2 * arena : need;
        }
        // The void run's later waves asked for no jobs, and may want more:
        // grow fourfold at least. A wave clips at most its members, all in
        // the arena, so jobs as many as its entries always do.
        if (counts.clip_short) {
            size_t need = 2 * (size_t)counts.clip_short;
            jobs = 4 * jobs > need ? 4 * jobs : need;
            jobs = jobs < arena ? jobs : arena;
        }
    }
}
