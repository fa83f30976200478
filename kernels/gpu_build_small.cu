// The small-node stage: exact SAH for nodes of at most 64 references, with
// reference sets held as 64-bit masks (bit i: the root's i-th reference).
//
// Nodes are processed in waves: wave 0 is every small root, wave w+1 the
// children made by wave w, all roots together, so thousands of nodes are in
// flight at once. One warp takes one node:
//  - its members are clipped to its box (perfect splits all the way down,
//    from their bounds in the root), into compact arrays;
//  - per axis, the members' lower and upper bounds are ranked and turned
//    into prefix masks (members with lower bound <= s form a prefix of the
//    sorted lower bounds; with upper bound >= s a suffix of the upper ones);
//  - every candidate plane (each clipped bound q and its float neighbours q-
//    and q+, as the CPU builder) is counted by two binary searches, costed,
//    and the warp keeps the cheapest; pbrt-v4's rules decide leaf or split;
//  - a split appends its two children to the task array (an atomic counter;
//    the order of the tasks never reaches the output, which the output stage
//    orders by tree structure alone).
// The waves need no host round trip: each wave's kernel reads its range from
// device memory, and the host launches as many waves as the depth cap allows.
#include <stdlib.h>

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"

namespace {

enum { MAXR = KD_GPU_SMALL_NODE_MAX, CAND_PER_REF = 18, WARPS_PER_BLOCK = 4 };

struct task {
    unsigned long long mask;
    float cell[6];
    uint32_t root;
    uint32_t pool_id;
    uint32_t parent;
    uint16_t depth;
    uint16_t bad_refines;
};

// One warp's workspace for one node (compact: member c is the root's
// reference member[c]).
struct workspace {
    unsigned long long pref_lo[3][MAXR + 1]; // members at sorted lower-bound positions < r
    unsigned long long suf_hi[3][MAXR + 1];  // members at sorted upper-bound positions >= r
    float lo[3][MAXR], hi[3][MAXR];          // clipped to the node's box
    float sorted_lo[3][MAXR], sorted_hi[3][MAXR];
    uint8_t order_lo[3][MAXR], order_hi[3][MAXR]; // member at each sorted position
    uint8_t member[MAXR];
};

struct small_args {
    const kd_gb_small_root *roots;
    uint32_t num_roots;
    kd_gb_refs refs;
    const float *tri_verts;
    task *tasks;
    uint32_t task_capacity;
    kd_gb_pool_node *pool;
    uint32_t pool_base;           // pool id of task num_roots (roots have their own)
    kd_gb_scalars *scalars;
    kd_gb_sah sah;
    int max_depth;
    uint32_t max_leaf_prims;
    uint32_t max_bad_refines;
    uint32_t cutoff_prims;
    float bad_cost_ratio;
};

KD_GB_HD void sync_lanes()
{
#if defined(__CUDA_ARCH__)
    __syncwarp();
#endif
}

KD_GB_HD int lowest_bit(unsigned long long m)
{
#if defined(__CUDA_ARCH__)
    return __ffsll((long long)m) - 1;
#else
    return __builtin_ctzll(m);
#endif
}

// Number of sorted values <= s (le) or < s (lt).
KD_GB_HD uint32_t count_below(const float *sorted, uint32_t n, float s, int le)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (le ? sorted[mid] <= s : sorted[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Prefix masks of the six sorted lists: pref_lo[a][r] = members at sorted
// lower-bound positions < r, suf_hi[a][r] = members at positions >= r.
KD_GB_HD void prefix_masks(workspace *ws, uint32_t m, uint32_t lane, uint32_t lanes)
{
#if defined(__CUDA_ARCH__)
    (void)lanes;
    for (int a = 0; a < 3; a++) {
        unsigned long long x0 = lane < m ? 1ull << ws->member[ws->order_lo[a][lane]] : 0;
        unsigned long long x1 = lane + 32 < m ? 1ull << ws->member[ws->order_lo[a][lane + 32]] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long y0 = __shfl_up_sync(0xffffffffu, x0, d);
            unsigned long long y1 = __shfl_up_sync(0xffffffffu, x1, d);
            if ((int)lane >= d) {
                x0 |= y0;
                x1 |= y1;
            }
        }
        x1 |= __shfl_sync(0xffffffffu, x0, 31);
        if (lane == 0)
            ws->pref_lo[a][0] = 0;
        ws->pref_lo[a][lane + 1] = x0;
        ws->pref_lo[a][lane + 33] = x1;

        x0 = lane < m ? 1ull << ws->member[ws->order_hi[a][lane]] : 0;
        x1 = lane + 32 < m ? 1ull << ws->member[ws->order_hi[a][lane + 32]] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long y0 = __shfl_down_sync(0xffffffffu, x0, d);
            unsigned long long y1 = __shfl_down_sync(0xffffffffu, x1, d);
            if (lane + d < 32) {
                x0 |= y0;
                x1 |= y1;
            }
        }
        x0 |= __shfl_sync(0xffffffffu, x1, 0);
        ws->suf_hi[a][lane] = x0;
        ws->suf_hi[a][lane + 32] = x1;
        if (lane == 0)
            ws->suf_hi[a][64] = 0;
    }
#else
    for (uint32_t e = lane; e < 6; e += lanes) {
        int a = (int)(e >> 1);
        if ((e & 1) == 0) {
            ws->pref_lo[a][0] = 0;
            for (uint32_t r = 0; r < MAXR; r++)
                ws->pref_lo[a][r + 1] =
                    ws->pref_lo[a][r] | (r < m ? 1ull << ws->member[ws->order_lo[a][r]] : 0);
        } else {
            ws->suf_hi[a][MAXR] = 0;
            for (uint32_t r = MAXR; r-- > 0;)
                ws->suf_hi[a][r] =
                    ws->suf_hi[a][r + 1] | (r < m ? 1ull << ws->member[ws->order_hi[a][r]] : 0);
        }
    }
#endif
}

// Clips the node's members to its box and sorts their bounds per axis.
KD_GB_HD void prepare_node(const small_args &g, workspace *ws, const task &t,
                           const kd_gb_small_root &root, uint32_t m, uint32_t lane, uint32_t lanes)
{
    for (uint32_t i = lane; i < MAXR; i += lanes) {
        if (!((t.mask >> i) & 1ull))
            continue;
        uint32_t c = (uint32_t)kd_gb_popc64(t.mask & ((1ull << i) - 1ull));
        uint32_t ref = root.ref_start + i;
        float box[6];
        for (int a = 0; a < 3; a++) {
            box[a] = g.refs.lo[a][ref];
            box[3 + a] = g.refs.hi[a][ref];
        }
        kd_gb_clip_bounds(g.tri_verts + 9 * (size_t)g.refs.tri[ref], t.cell, box);
        ws->member[c] = (uint8_t)i;
        for (int a = 0; a < 3; a++) {
            ws->lo[a][c] = box[a];
            ws->hi[a][c] = box[3 + a];
        }
    }
    sync_lanes();
    // Rank of each bound among the members' (ties by member order).
    for (uint32_t e = lane; e < 6 * m; e += lanes) {
        uint32_t list = e / m, c = e % m;
        int a = (int)(list >> 1), upper = (int)(list & 1);
        const float *vals = upper ? ws->hi[a] : ws->lo[a];
        float v = vals[c];
        uint32_t rank = 0;
        for (uint32_t d = 0; d < m; d++)
            rank += vals[d] < v || (vals[d] == v && d < c);
        if (upper) {
            ws->sorted_hi[a][rank] = v;
            ws->order_hi[a][rank] = (uint8_t)c;
        } else {
            ws->sorted_lo[a][rank] = v;
            ws->order_lo[a][rank] = (uint8_t)c;
        }
    }
    sync_lanes();
    prefix_masks(ws, m, lane, lanes);
    sync_lanes();
}

struct decision {
    int leaf;
    int axis;
    float pos;
    unsigned long long below, above;
    uint32_t bad_refines;
};

// The best candidate of every axis, then pbrt-v4's rules. Candidate k of the
// node is member k / 18; its id (for ties) counts in the root's references,
// so it does not depend on which members the node has.
KD_GB_HD decision decide(const small_args &g, const workspace *ws, const task &t, uint32_t m,
                         uint32_t lane, uint32_t lanes)
{
    decision d;
    d.leaf = 1;
    d.axis = 0;
    d.pos = 0.0f;
    d.below = d.above = 0;
    d.bad_refines = t.bad_refines;
    float inv_area = KD_GB_FDIV(1.0f, kd_gb_box_area(t.cell));
    float best = INFINITY;
    uint32_t best_id = KD_GB_NONE, best_ilo = 0, best_ihi = 0;
    int best_axis = 0;
    float best_pos = 0.0f;
    for (uint32_t k = lane; k < CAND_PER_REF * m; k += lanes) {
        uint32_t c = k / CAND_PER_REF, rem = k % CAND_PER_REF;
        int a = (int)(rem / 6), upper = (int)((rem / 3) & 1), variant = (int)(rem % 3);
        float q = upper ? ws->hi[a][c] : ws->lo[a][c];
        float s = variant == 0 ? nextafterf(q, -INFINITY) : variant == 2 ? nextafterf(q, INFINITY) : q;
        s = KD_GB_FADD(s, 0.0f);
        if (!(t.cell[a] < s && s < t.cell[3 + a]))
            continue;
        uint32_t ilo = count_below(ws->sorted_lo[a], m, s, 1);
        uint32_t ihi = count_below(ws->sorted_hi[a], m, s, 0);
        float cost = kd_gb_split_cost(g.sah, t.cell, a, s, ilo, m - ihi, inv_area);
        uint32_t id = (uint32_t)ws->member[c] * CAND_PER_REF + rem;
        if (cost < best || (cost == best && id < best_id)) {
            best = cost;
            best_id = id;
            best_ilo = ilo;
            best_ihi = ihi;
            best_axis = a;
            best_pos = s;
        }
    }
#if defined(__CUDA_ARCH__)
    float wbest = best;
    uint32_t wid = best_id;
    for (int dd = 16; dd > 0; dd >>= 1) {
        float oc = __shfl_xor_sync(0xffffffffu, wbest, dd);
        uint32_t oid = __shfl_xor_sync(0xffffffffu, wid, dd);
        if (oc < wbest || (oc == wbest && oid < wid)) {
            wbest = oc;
            wid = oid;
        }
    }
    // The lane that found the winner hands over its details.
    unsigned owner = __ballot_sync(0xffffffffu, best_id == wid && wid != KD_GB_NONE);
    int src = owner ? __ffs(owner) - 1 : 0;
    best = wbest;
    best_id = wid;
    best_ilo = __shfl_sync(0xffffffffu, best_ilo, src);
    best_ihi = __shfl_sync(0xffffffffu, best_ihi, src);
    best_axis = __shfl_sync(0xffffffffu, best_axis, src);
    best_pos = __shfl_sync(0xffffffffu, best_pos, src);
#endif
    if (best_id == KD_GB_NONE)
        return d;
    float old_cost = KD_GB_FMUL(g.sah.intersect, (float)m);
    if (best > old_cost)
        d.bad_refines++;
    if ((best > KD_GB_FMUL(g.bad_cost_ratio, old_cost) && m < g.cutoff_prims) ||
        d.bad_refines >= g.max_bad_refines)
        return d;
    d.leaf = 0;
    d.axis = best_axis;
    d.pos = best_pos;
    d.below = ws->pref_lo[best_axis][best_ilo];
    d.above = ws->suf_hi[best_axis][best_ihi];
    return d;
}

// One node: leaf or split, its pool record, and its children as new tasks.
KD_GB_HD void process_task(const small_args &g, workspace *ws, uint32_t index, uint32_t lane,
                           uint32_t lanes)
{
    const task t = g.tasks[index];
    const kd_gb_small_root root = g.roots[t.root];
    uint32_t m = (uint32_t)kd_gb_popc64(t.mask);
    decision d;
    d.leaf = 1;
    if (m > g.max_leaf_prims && (int)t.depth < g.max_depth && kd_gb_box_area(t.cell) > 0.0f) {
        prepare_node(g, ws, t, root, m, lane, lanes);
        d = decide(g, ws, t, m, lane, lanes);
    }
    if (lane != 0)
        return;
    kd_gb_pool_node node;
    node.parent = t.parent;
    node.depth = t.depth;
    if (d.leaf) {
        node.kind = KD_GB_POOL_LEAF_MASK;
        node.split = 0.0f;
        node.a = t.root;
        node.b = 0;
        node.mask = t.mask;
    } else {
        uint32_t slot = kd_gb_atomic_add(&g.scalars->task_count, 2u);
        node.kind = (uint32_t)d.axis;
        node.split = d.pos;
        node.a = g.pool_base + (slot - g.num_roots);
        node.b = node.a + 1;
        node.mask = 0;
        if (slot + 2 > g.task_capacity) {
            g.scalars->pool_overflow = 1; // counted on: the host grows the arrays and reruns
        } else {
            for (int side = 0; side < 2; side++) {
                task c;
                c.mask = side ? d.above : d.below;
                kd_gb_child_cell(t.cell, d.axis, d.pos, side, c.cell);
                c.root = t.root;
                c.pool_id = node.a + (uint32_t)side;
                c.parent = t.pool_id;
                c.depth = (uint16_t)(t.depth + 1);
                c.bad_refines = (uint16_t)d.bad_refines;
                g.tasks[slot + (uint32_t)side] = c;
            }
        }
    }
    g.pool[t.pool_id] = node;
}

// Wave 0: the roots as tasks.
struct init_tasks {
    const kd_gb_small_root *roots;
    task *tasks;

    __host__ __device__ void operator()(uint32_t r) const
    {
        const kd_gb_small_root &root = roots[r];
        task t;
        t.mask = root.ref_count >= 64 ? ~0ull : (1ull << root.ref_count) - 1ull;
        for (int k = 0; k < 6; k++)
            t.cell[k] = root.cell[k];
        t.root = r;
        t.pool_id = root.pool_id;
        t.parent = root.parent;
        t.depth = (uint16_t)root.depth;
        t.bad_refines = (uint16_t)root.bad_refines;
        tasks[r] = t;
    }
};

__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK) wave_kernel(small_args g)
{
    __shared__ workspace spaces[WARPS_PER_BLOCK];
    workspace *ws = &spaces[threadIdx.x >> 5];
    uint32_t lane = threadIdx.x & 31u;
    uint32_t begin = g.scalars->wave_begin, end = g.scalars->wave_end;
    if (end > g.task_capacity)
        end = g.task_capacity;
    uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t warps = (gridDim.x * blockDim.x) >> 5;
    for (uint32_t i = begin + warp; i < end; i += warps) {
        process_task(g, ws, i, lane, 32);
        __syncwarp();
    }
}

// Between waves: the next wave is every task appended by this one.
__global__ void next_wave_kernel(kd_gb_scalars *scalars)
{
    scalars->wave_begin = scalars->wave_end;
    scalars->wave_end = scalars->task_count;
}

} // namespace

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
    g.max_depth = s->max_depth;
    g.max_leaf_prims = o->params.max_leaf_prims < 0 ? 0u : (uint32_t)o->params.max_leaf_prims;
    g.max_bad_refines = (uint32_t)o->params.max_bad_refines;
    g.cutoff_prims = (uint32_t)o->params.max_prims_in_leaf_for_cost_cutoff;
    g.bad_cost_ratio = o->params.bad_cost_ratio;
    g.pool_base = s->pool_count;
    // A wave per level a root can still descend.
    uint32_t waves = (uint32_t)s->max_depth + 1 - (s->min_small_depth < (uint32_t)s->max_depth
                                                        ? s->min_small_depth : (uint32_t)s->max_depth);

    // Subtrees take a few nodes per reference; arrays found too small are
    // grown to the exact need and the stage rerun (they keep their size for
    // the builds after).
    size_t capacity = (size_t)s->num_small_roots + 8 * (size_t)s->num_small_refs + 64;
    for (int attempt = 0;; attempt++) {
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_STASKS, capacity * sizeof(task), 0, err));
        capacity = b->buf[KD_GB_STASKS].bytes / sizeof(task);
        if (capacity > 0xffffffffu)
            capacity = 0xffffffffu;
        size_t pool_need = (size_t)g.pool_base + (capacity - g.num_roots);
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_POOL, pool_need * sizeof(kd_gb_pool_node), 1, err));
        g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
        g.refs = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
        g.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
        g.tasks = kd_gb_ptr<task>(b, KD_GB_STASKS);
        g.task_capacity = (uint32_t)capacity;
        g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
        g.scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);

        init_tasks init = {g.roots, g.tasks};
        KD_GB_TRY(kd_gb_map(b, g.num_roots, init, "small-stage roots", err));
        kd_gb_scalars *scalars = g.scalars;
        if (b->host) {
            scalars->task_count = g.num_roots;
            scalars->wave_begin = 0;
            scalars->wave_end = g.num_roots;
            scalars->pool_overflow = 0;
            workspace *ws = (workspace *)malloc(sizeof(workspace));
            if (!ws)
                return kd_gb_fail(err, KD_ERR_NOMEM, "GPU build (emulated): out of memory");
            while (scalars->wave_begin < scalars->wave_end) {
                uint32_t end = scalars->wave_end < capacity ? scalars->wave_end : (uint32_t)capacity;
                for (uint32_t i = scalars->wave_begin; i < end; i++)
                    process_task(g, ws, i, 0, 1);
                scalars->wave_begin = scalars->wave_end;
                scalars->wave_end = scalars->task_count;
            }
            free(ws);
        } else {
            uint32_t init_counts[4] = {g.num_roots, 0, g.num_roots, 0};
            KD_GB_TRY(kd_gb_cuda(err,
                                 cudaMemcpyAsync(&scalars->task_count, init_counts, sizeof init_counts,
                                                 cudaMemcpyHostToDevice, b->stream),
                                 "resetting the small stage"));
            int device = 0, num_sms = 0;
            KD_GB_TRY(kd_gb_cuda(err, cudaGetDevice(&device), "cudaGetDevice"));
            KD_GB_TRY(kd_gb_cuda(err, cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device),
                                 "cudaDeviceGetAttribute"));
            uint32_t blocks = (uint32_t)num_sms * 4;
            for (uint32_t w = 0; w < waves; w++) {
                wave_kernel<<<blocks, 32 * WARPS_PER_BLOCK, 0, b->stream>>>(g);
                KD_GB_TRY(kd_gb_cuda(err, cudaGetLastError(), "small-node wave"));
                next_wave_kernel<<<1, 1, 0, b->stream>>>(scalars);
                KD_GB_TRY(kd_gb_cuda(err, cudaGetLastError(), "small-node wave"));
            }
        }
        kd_gb_scalars counts;
        KD_GB_TRY(kd_gb_read_scalars(b, &counts, err));
        if (s->profile)
            s->profile->num_host_syncs++;
        if (!counts.pool_overflow && counts.task_count <= capacity) {
            if (counts.wave_begin != counts.wave_end)
                return kd_gb_fail(err, KD_ERR_INVALID,
                                  "GPU build: small-node tasks left after the last wave");
            s->pool_count = g.pool_base + (counts.task_count - g.num_roots);
            return KD_OK;
        }
        if (s->profile)
            s->profile->num_small_retries++;
        if (attempt >= 3)
            return kd_gb_fail(err, KD_ERR_INVALID, "GPU build: the small-node stage keeps outgrowing its arrays");
        // The tree's shape does not depend on the order of the slots, so this
        // count is exact: the rerun fits.
        capacity = (size_t)counts.task_count + 64;
    }
}
