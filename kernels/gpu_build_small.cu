// The small-node stage: exact SAH for nodes of at most 64 references, with
// reference sets held as 64-bit masks and counts taken by population count.
//
// One warp takes one small root and builds its whole subtree, depth first,
// in shared memory: the root's clipped bounds, per axis the bounds sorted
// with prefix masks (refs with lower bound <= s form a prefix of the sorted
// lower bounds), and every candidate plane with its two prefix indices. A
// node then evaluates each candidate with two ANDs and two popcounts. The
// candidates are the CPU builder's: each clipped bound q, and its float
// neighbours q- and q+ (so a triangle starting or ending at q can go to one
// side only). Termination as pbrt-v4. No host round trip per level: the
// stage is one launch. Pool slots are taken with an atomic counter; the
// order they are taken in never reaches the output, which the output stage
// orders by tree structure alone.
#include <stdlib.h>

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"

namespace {

enum { MAXR = KD_GPU_SMALL_NODE_MAX, CAND_PER_REF = 18, WARPS_PER_BLOCK = 2 };

// One warp's workspace: the root's references, then the current node's
// clipped bounds, sorted per axis, with prefix masks and candidates.
struct workspace {
    unsigned long long pref_lo[3][MAXR + 1]; // members at sorted lower-bound positions < r
    unsigned long long suf_hi[3][MAXR + 1];  // members at sorted upper-bound positions >= r
    float root_box[MAXR][6];                 // bounds clipped to the root's box
    float lo[3][MAXR], hi[3][MAXR];          // bounds clipped to the node's box
    float sorted_lo[3][MAXR], sorted_hi[3][MAXR];
    float cand_pos[MAXR * CAND_PER_REF];
    uint8_t cand_ilo[MAXR * CAND_PER_REF];   // index into pref_lo
    uint8_t cand_ihi[MAXR * CAND_PER_REF];   // index into suf_hi
    uint8_t idx_lo[3][MAXR], idx_hi[3][MAXR];
    uint32_t tri[MAXR];
    uint32_t n;                              // the root's references
};

struct task {
    unsigned long long mask;
    float cell[6];
    uint32_t pool_id;
    uint32_t parent;
    uint32_t depth;
    uint32_t bad_refines;
};

struct small_args {
    const kd_gb_small_root *roots;
    uint32_t num_roots;
    kd_gb_refs refs;
    const float *tri_verts;
    kd_gb_pool_node *pool;
    uint32_t pool_capacity;
    kd_gb_scalars *scalars;
    kd_gb_sah sah;
    int max_depth;
    uint32_t max_leaf_prims;
    uint32_t max_bad_refines;
    uint32_t cutoff_prims;
    float bad_cost_ratio;
    uint32_t stack_capacity;
};

KD_GB_HD void sync_lanes()
{
#if defined(__CUDA_ARCH__)
    __syncwarp();
#endif
}

// Lowest cost across the warp; equal costs go to the lower candidate.
KD_GB_HD void lanes_min(float *cost, uint32_t *cand)
{
#if defined(__CUDA_ARCH__)
    for (int d = 16; d > 0; d >>= 1) {
        float oc = __shfl_xor_sync(0xffffffffu, *cost, d);
        uint32_t ocand = __shfl_xor_sync(0xffffffffu, *cand, d);
        if (oc < *cost || (oc == *cost && ocand < *cand)) {
            *cost = oc;
            *cand = ocand;
        }
    }
#else
    (void)cost;
    (void)cand;
#endif
}

KD_GB_HD uint32_t take_pool_slots(kd_gb_scalars *scalars, uint32_t count)
{
    return kd_gb_atomic_add(&scalars->pool_count, count);
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

// Loads a root's references (lanes stride the work).
KD_GB_HD void load_root(const small_args &g, workspace *ws, const kd_gb_small_root &root,
                        uint32_t lane, uint32_t lanes)
{
    uint32_t n = root.ref_count;
    for (uint32_t i = lane; i < n; i += lanes) {
        ws->tri[i] = g.refs.tri[root.ref_start + i];
        for (int a = 0; a < 3; a++) {
            ws->root_box[i][a] = g.refs.lo[a][root.ref_start + i];
            ws->root_box[i][3 + a] = g.refs.hi[a][root.ref_start + i];
        }
    }
    if (lane == 0)
        ws->n = n;
    sync_lanes();
}

// Perfect splits all the way down: the node's members are clipped to its box
// (from their bounds in the root), then sorted per axis, and every candidate
// plane gets its prefix indices.
KD_GB_HD void prepare_node(const small_args &g, workspace *ws, const task &t, uint32_t lane,
                           uint32_t lanes)
{
    uint32_t n = ws->n;
    uint32_t m = (uint32_t)kd_gb_popc64(t.mask);
    for (uint32_t i = lane; i < n; i += lanes) {
        if (!((t.mask >> i) & 1ull))
            continue;
        float box[6];
        for (int k = 0; k < 6; k++)
            box[k] = ws->root_box[i][k];
        kd_gb_clip_bounds(g.tri_verts + 9 * (size_t)ws->tri[i], t.cell, box);
        for (int a = 0; a < 3; a++) {
            ws->lo[a][i] = box[a];
            ws->hi[a][i] = box[3 + a];
        }
    }
    sync_lanes();
    // Rank of each member's bound among the members' (ties by index).
    for (uint32_t e = lane; e < 6 * n; e += lanes) {
        uint32_t list = e / n, i = e % n;
        if (!((t.mask >> i) & 1ull))
            continue;
        int a = (int)(list >> 1), upper = (int)(list & 1);
        const float *vals = upper ? ws->hi[a] : ws->lo[a];
        float v = vals[i];
        uint32_t rank = 0;
        for (unsigned long long rest = t.mask; rest; rest &= rest - 1) {
            uint32_t j = (uint32_t)lowest_bit(rest);
            rank += vals[j] < v || (vals[j] == v && j < i);
        }
        if (upper) {
            ws->sorted_hi[a][rank] = v;
            ws->idx_hi[a][rank] = (uint8_t)i;
        } else {
            ws->sorted_lo[a][rank] = v;
            ws->idx_lo[a][rank] = (uint8_t)i;
        }
    }
    sync_lanes();
    for (uint32_t e = lane; e < 6; e += lanes) {
        int a = (int)(e >> 1);
        if ((e & 1) == 0) {
            ws->pref_lo[a][0] = 0;
            for (uint32_t r = 0; r < m; r++)
                ws->pref_lo[a][r + 1] = ws->pref_lo[a][r] | (1ull << ws->idx_lo[a][r]);
        } else {
            ws->suf_hi[a][m] = 0;
            for (uint32_t r = m; r-- > 0;)
                ws->suf_hi[a][r] = ws->suf_hi[a][r + 1] | (1ull << ws->idx_hi[a][r]);
        }
    }
    // Candidate c: reference c / 18; then axis, lower/upper bound, and q-, q, q+.
    for (uint32_t c = lane; c < CAND_PER_REF * n; c += lanes) {
        uint32_t i = c / CAND_PER_REF, rem = c % CAND_PER_REF;
        if (!((t.mask >> i) & 1ull))
            continue;
        int a = (int)(rem / 6), upper = (int)((rem / 3) & 1), variant = (int)(rem % 3);
        float q = upper ? ws->hi[a][i] : ws->lo[a][i];
        float s = variant == 0 ? nextafterf(q, -INFINITY) : variant == 2 ? nextafterf(q, INFINITY) : q;
        s = KD_GB_FADD(s, 0.0f);
        ws->cand_pos[c] = s;
        ws->cand_ilo[c] = (uint8_t)count_below(ws->sorted_lo[a], m, s, 1);
        ws->cand_ihi[c] = (uint8_t)count_below(ws->sorted_hi[a], m, s, 0);
    }
    sync_lanes();
}

struct decision {
    int leaf;
    int axis;
    float pos;
    unsigned long long below, above;
    uint32_t bad_refines;
};

// pbrt-v4's rules on the best of all candidates (every axis).
KD_GB_HD decision decide(const small_args &g, const workspace *ws, const task &t, uint32_t lane,
                         uint32_t lanes)
{
    decision d;
    d.leaf = 1;
    d.axis = 0;
    d.pos = 0.0f;
    d.below = d.above = 0;
    d.bad_refines = t.bad_refines;
    uint32_t n = (uint32_t)kd_gb_popc64(t.mask);
    float area = kd_gb_box_area(t.cell);
    if (n <= g.max_leaf_prims || (int)t.depth >= g.max_depth || !(area > 0.0f))
        return d;
    float inv_area = KD_GB_FDIV(1.0f, area);
    float best = INFINITY;
    uint32_t best_c = KD_GB_NONE;
    for (uint32_t c = lane; c < CAND_PER_REF * ws->n; c += lanes) {
        if (!((t.mask >> (c / CAND_PER_REF)) & 1ull))
            continue;
        int a = (int)((c % CAND_PER_REF) / 6);
        float s = ws->cand_pos[c];
        if (!(t.cell[a] < s && s < t.cell[3 + a]))
            continue;
        uint32_t nb = (uint32_t)kd_gb_popc64(ws->pref_lo[a][ws->cand_ilo[c]] & t.mask);
        uint32_t na = (uint32_t)kd_gb_popc64(ws->suf_hi[a][ws->cand_ihi[c]] & t.mask);
        float cost = kd_gb_split_cost(g.sah, t.cell, a, s, nb, na, inv_area);
        if (cost < best) {
            best = cost;
            best_c = c;
        }
    }
    lanes_min(&best, &best_c);
    if (best_c == KD_GB_NONE)
        return d;
    float old_cost = KD_GB_FMUL(g.sah.intersect, (float)n);
    if (best > old_cost)
        d.bad_refines++;
    if ((best > KD_GB_FMUL(g.bad_cost_ratio, old_cost) && n < g.cutoff_prims) ||
        d.bad_refines >= g.max_bad_refines)
        return d;
    int a = (int)((best_c % CAND_PER_REF) / 6);
    d.leaf = 0;
    d.axis = a;
    d.pos = ws->cand_pos[best_c];
    d.below = ws->pref_lo[a][ws->cand_ilo[best_c]] & t.mask;
    d.above = ws->suf_hi[a][ws->cand_ihi[best_c]] & t.mask;
    return d;
}

KD_GB_HD void put_pool(const small_args &g, uint32_t id, const kd_gb_pool_node &node)
{
    if (id < g.pool_capacity)
        g.pool[id] = node;
    else
        g.scalars->pool_overflow = 1; // counted on; the host grows the pool and reruns
}

// Builds one root's subtree depth first (the stack holds pending right children).
KD_GB_HD void build_root(const small_args &g, workspace *ws, task *stack, uint32_t r,
                         uint32_t lane, uint32_t lanes)
{
    const kd_gb_small_root root = g.roots[r];
    load_root(g, ws, root, lane, lanes);
    uint32_t top = 0;
    if (lane == 0) {
        task t;
        t.mask = root.ref_count == 64 ? ~0ull : (1ull << root.ref_count) - 1ull;
        for (int k = 0; k < 6; k++)
            t.cell[k] = root.cell[k];
        t.pool_id = root.pool_id;
        t.parent = root.parent;
        t.depth = root.depth;
        t.bad_refines = root.bad_refines;
        stack[0] = t;
    }
    top = 1;
    sync_lanes();
    while (top > 0) {
        task t = stack[--top];
        uint32_t n = (uint32_t)kd_gb_popc64(t.mask);
        int may_split = n > g.max_leaf_prims && (int)t.depth < g.max_depth;
        if (may_split)
            prepare_node(g, ws, t, lane, lanes);
        decision d = decide(g, ws, t, lane, lanes);
        sync_lanes(); // every lane has read stack[top] before lane 0 reuses it
        if (lane == 0) {
            kd_gb_pool_node node;
            node.parent = t.parent;
            node.depth = t.depth;
            if (d.leaf) {
                node.kind = KD_GB_POOL_LEAF_MASK;
                node.split = 0.0f;
                node.a = r;
                node.b = 0;
                node.mask = t.mask;
            } else {
                uint32_t first = take_pool_slots(g.scalars, 2);
                node.kind = (uint32_t)d.axis;
                node.split = d.pos;
                node.a = first;
                node.b = first + 1;
                node.mask = 0;
                for (int side = 1; side >= 0; side--) { // the below child is popped first
                    task c;
                    c.mask = side ? d.above : d.below;
                    kd_gb_child_cell(t.cell, d.axis, d.pos, side, c.cell);
                    c.pool_id = first + (uint32_t)side;
                    c.parent = t.pool_id;
                    c.depth = t.depth + 1;
                    c.bad_refines = d.bad_refines;
                    stack[top + (uint32_t)(1 - side)] = c;
                }
            }
            put_pool(g, t.pool_id, node);
        }
        if (!d.leaf)
            top += 2;
        sync_lanes();
    }
}

__global__ void __launch_bounds__(32 * WARPS_PER_BLOCK) small_kernel(small_args g, size_t warp_bytes)
{
    extern __shared__ unsigned long long smem_words[];
    unsigned char *mine = (unsigned char *)smem_words + (threadIdx.x >> 5) * warp_bytes;
    workspace *ws = (workspace *)mine;
    task *stack = (task *)(mine + sizeof(workspace));
    uint32_t lane = threadIdx.x & 31u;
    for (;;) {
        uint32_t r = 0;
        if (lane == 0)
            r = atomicAdd(&g.scalars->small_work, 1u);
        r = __shfl_sync(0xffffffffu, r, 0);
        if (r >= g.num_roots)
            break;
        build_root(g, ws, stack, r, lane, 32);
    }
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
    // A path from a root down holds at most one pending sibling per level.
    g.stack_capacity = (uint32_t)s->max_depth + 2;
    size_t warp_bytes = sizeof(workspace) + g.stack_capacity * sizeof(task);
    warp_bytes = (warp_bytes + 15) / 16 * 16;

    // Most subtrees need a few nodes per reference; more is found and retried.
    size_t capacity = (size_t)s->pool_count + 4 * (size_t)s->num_small_refs + 64;
    for (int attempt = 0;; attempt++) {
        KD_GB_TRY(kd_gb_ensure(b, KD_GB_POOL, capacity * sizeof(kd_gb_pool_node), 1, err));
        g.roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
        g.refs = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
        g.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
        g.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
        g.pool_capacity = (uint32_t)(capacity > 0xffffffffu ? 0xffffffffu : capacity);
        g.scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);

        // Reset the counters on the device, where the kernel reads them.
        kd_gb_scalars *scalars = g.scalars;
        if (b->host) {
            scalars->small_work = 0;
            scalars->pool_count = s->pool_count;
            scalars->pool_overflow = 0;
            workspace *ws = (workspace *)malloc(warp_bytes);
            if (!ws)
                return kd_gb_fail(err, KD_ERR_NOMEM, "GPU build (emulated): out of memory");
            task *stack = (task *)((unsigned char *)ws + sizeof(workspace));
            for (uint32_t r = 0; r < g.num_roots; r++)
                build_root(g, ws, stack, r, 0, 1);
            free(ws);
        } else {
            uint32_t init[3] = {0, s->pool_count, 0};
            KD_GB_TRY(kd_gb_cuda(err,
                                 cudaMemcpyAsync(&scalars->small_work, init, sizeof init,
                                                 cudaMemcpyHostToDevice, b->stream),
                                 "resetting the small stage"));
            int device = 0, num_sms = 0;
            KD_GB_TRY(kd_gb_cuda(err, cudaGetDevice(&device), "cudaGetDevice"));
            KD_GB_TRY(kd_gb_cuda(err, cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device),
                                 "cudaDeviceGetAttribute"));
            size_t smem = warp_bytes * WARPS_PER_BLOCK;
            if (smem > 48 * 1024)
                KD_GB_TRY(kd_gb_cuda(err,
                                     cudaFuncSetAttribute(small_kernel,
                                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                          (int)smem),
                                     "small-stage shared memory"));
            uint32_t blocks = (g.num_roots + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
            uint32_t max_blocks = (uint32_t)num_sms * 8;
            if (blocks > max_blocks)
                blocks = max_blocks;
            small_kernel<<<blocks, 32 * WARPS_PER_BLOCK, smem, b->stream>>>(g, warp_bytes);
            KD_GB_TRY(kd_gb_cuda(err, cudaGetLastError(), "small-node stage"));
        }
        kd_gb_scalars counts;
        KD_GB_TRY(kd_gb_read_scalars(b, &counts, err));
        if (s->profile)
            s->profile->num_host_syncs++;
        if (!counts.pool_overflow && counts.pool_count <= capacity) {
            s->pool_count = counts.pool_count;
            return KD_OK;
        }
        if (s->profile)
            s->profile->num_small_retries++;
        if (attempt >= 3)
            return kd_gb_fail(err, KD_ERR_INVALID, "GPU build: the small-node stage keeps outgrowing its pool");
        // The structure does not depend on the order of the slots, so this
        // count is exact: the rerun fits.
        capacity = (size_t)counts.pool_count + 64;
    }
}
