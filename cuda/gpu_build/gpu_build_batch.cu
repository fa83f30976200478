// The stages below the large one: the medium stage over the large stage's
// last level (the hand-over), whole where the build fits its memory cap,
// else in batches (docs/performance.md, section 8).
//
// Below the large stage a node's subtree depends only on the node (its box,
// references, depth, bad refines and allowance: no stage there reads a
// running count of the build), so the level's nodes can go through the
// medium and small stages in runs, one after the other, into the one node
// pool, and the tree is the same byte for byte in any batching. A batch:
//  1. its nodes and their references (contiguous: a level's references lie
//     in node order) copied from the frontier, a copy of the level kept
//     while the batches run, into the medium stage's first arrays;
//  2. the medium stage, then the small stage (the first batch's small roots
//     also the large stage's own), into the pool;
//  3. the collapse rule over the batch's small slots, as the output stage
//     would apply it (it depends only on the subtree);
//  4. its small roots and their references' triangles, all the output reads
//     of a mask leaf, appended to arrays of every batch's, and its mask
//     leaves renamed to match, so that the small stage's arrays are free
//     for the next batch: only these, the pool and the leaf lists outlive
//     a batch.
// The output then orders the whole pool as it orders the upper stages'
// nodes. A batch's references fit what the cap leaves beside what outlives
// the batches (the pool sized ahead for all of them), at KD_GB_BATCH_BYTES
// a reference; a batch that runs out of room anyway is run again as its
// first half (its state restored: the stages only append past the counts
// it saved).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_build_collapse.cuh"
#include "gpu_build_common.cuh"

namespace {

// A reference set of count references laid out as seven arrays in one
// buffer (triangle, then the bounds), as the frontier keeps them.
kd_gb_refs packed_refs(kd_gpu_builder *b, int id, size_t count)
{
    kd_gb_refs r;
    uint32_t *words = kd_gb_ptr<uint32_t>(b, id);
    r.tri = words;
    for (int k = 0; k < 3; k++) {
        r.lo[k] = reinterpret_cast<float *>(words + (1 + k) * count);
        r.hi[k] = reinterpret_cast<float *>(words + (4 + k) * count);
    }
    r.seg = NULL;
    return r;
}

// References [first, first + n) of one set to [0, n) of another.
struct copy_refs {
    kd_gb_refs from, to;
    uint32_t first;

    __host__ __device__ void operator()(uint32_t i) const
    {
        const uint32_t j = first + i;
        to.tri[i] = from.tri[j];
        for (int k = 0; k < 3; k++) {
            to.lo[k][i] = from.lo[k][j];
            to.hi[k][i] = from.hi[k][j];
        }
    }
};

// Nodes [first, first + n) to [0, n), their references' start moved down by
// ref_base (where copy_refs put them).
struct copy_nodes {
    const kd_gb_large_node *from;
    kd_gb_large_node *to;
    uint32_t first, ref_base;

    __host__ __device__ void operator()(uint32_t i) const
    {
        kd_gb_large_node n = from[first + i];
        n.ref_start -= ref_base;
        to[i] = n;
    }
};

// The small stage's k-th slot of a batch: its roots first, then the slots
// it appended from pool id pool_base.
struct small_slots {
    const kd_gb_small_root *roots;
    uint32_t num_roots, pool_base;

    __host__ __device__ uint32_t node(uint32_t k) const
    {
        return k < num_roots ? roots[k].pool_id : pool_base + (k - num_roots);
    }
};

// A batch's mask leaves (collapsed or not) renamed: their small root is
// root_base on in the arrays of every batch's.
struct rename_leaves {
    small_slots slots;
    kd_gb_pool_node *pool;
    uint32_t root_base;

    __host__ __device__ void operator()(uint32_t k) const
    {
        kd_gb_pool_node &n = pool[slots.node(k)];
        if (n.kind == KD_GB_POOL_LEAF_MASK || n.kind == KD_GB_POOL_LEAF_COLLAPSED)
            n.a += root_base;
    }
};

// A batch's small roots after those of the batches before, their
// references' first moved past those batches' references.
struct keep_roots {
    const kd_gb_small_root *from;
    kd_gb_small_root *to;
    uint32_t ref_base;

    __host__ __device__ void operator()(uint32_t k) const
    {
        kd_gb_small_root r = from[k];
        r.ref_start += ref_base;
        to[k] = r;
    }
};

struct keep_tris {
    const uint32_t *from;
    uint32_t *to;

    __host__ __device__ void operator()(uint32_t j) const { to[j] = from[j]; }
};

int out_of_room(kd_status st)
{
    return st == KD_ERR_DEVICE_OOM || st == KD_ERR_NOMEM;
}

// After the batches: every batch's small roots and triangles where the
// output reads a mask leaf's, as one small stage's that is done (it finds
// no waves, so it neither collapses again nor sizes by waves).
void hand_small_to_output(kd_gpu_builder *b, kd_gb_build_state *s)
{
    kd_gb_release(b, KD_GB_SROOTS);
    kd_gb_release(b, KD_GB_REFS_SMALL + KD_GB_REF_TRI);
    b->buf[KD_GB_SROOTS] = b->buf[KD_GB_BATCH_ROOTS];
    b->buf[KD_GB_REFS_SMALL + KD_GB_REF_TRI] = b->buf[KD_GB_BATCH_TRIS];
    memset(&b->buf[KD_GB_BATCH_ROOTS], 0, sizeof b->buf[KD_GB_BATCH_ROOTS]);
    memset(&b->buf[KD_GB_BATCH_TRIS], 0, sizeof b->buf[KD_GB_BATCH_TRIS]);
    s->num_small_roots = s->batch_small_roots;
    s->num_small_refs = s->batch_small_refs;
    s->small_members = s->batch_small_members;
    s->num_small_waves = 0;
    s->small_done = 1;
}

// A refusal by the cap, the message followed by what was refused.
kd_status short_of(kd_status st, const char *what, kd_error *err)
{
    if (!out_of_room(st))
        return st;
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err->message);
    return kd_error_set(err, st, "%s; %s", why, what);
}

// The frontier: the hand-over level's references and nodes, kept while the
// batches run, and each node's first reference on the host (its references
// run to the next node's first).
struct frontier {
    uint32_t num_nodes, num_refs;
    uint32_t *ref_start; // num_nodes + 1 entries (host)
};

kd_status read_to_host(kd_gpu_builder *b, void *dst, const void *src, size_t bytes, kd_error *err)
{
    if (b->host) {
        memcpy(dst, src, bytes);
        return KD_OK;
    }
#if KD_DEVICE_CODE
    // On the build's stream (a non-blocking one: a plain copy would not
    // wait for the kernel that wrote src).
    KD_TRY(kd_gb_cuda(err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, b->stream),
                      "reading the level's nodes"));
    return kd_gb_cuda(err, cudaStreamSynchronize(b->stream), "reading the level's nodes");
#else
    return kd_gb_no_device(err);
#endif
}

// Each node's first reference, checked to run in node order.
kd_status frontier_starts(kd_gpu_builder *b, frontier *f, kd_error *err)
{
    const size_t n = f->num_nodes;
    kd_gb_large_node *nodes = (kd_gb_large_node *)malloc(n * sizeof *nodes);
    f->ref_start = (uint32_t *)malloc((n + 1) * sizeof *f->ref_start);
    if (!nodes || !f->ref_start) {
        free(nodes);
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build: out of host memory for the level's nodes");
    }
    kd_status st = read_to_host(b, nodes, b->buf[KD_GB_FRONTIER_NODES].ptr, n * sizeof *nodes, err);
    uint32_t end = 0;
    for (size_t i = 0; st == KD_OK && i < n; i++) {
        if (nodes[i].ref_start != end)
            st = kd_error_set(err, KD_ERR_INVALID, "GPU build: the level's references are not in node order");
        f->ref_start[i] = end;
        end += nodes[i].ref_count;
    }
    f->ref_start[n] = end;
    if (st == KD_OK && end != f->num_refs)
        st = kd_error_set(err, KD_ERR_INVALID, "GPU build: the level's nodes hold %u references, not %u", end,
                          f->num_refs);
    free(nodes);
    return st;
}

// What outlives a batch: the mesh, the pool, the leaf lists, the frontier,
// every batch's small roots and triangles, the first batch's small roots
// from the large stage; every other buffer is a batch's, or dead.
int outlives_batches(int id)
{
    return id == KD_GB_MESH_POS || id == KD_GB_MESH_IDX || id == KD_GB_TRI_VERTS || id == KD_GB_POOL ||
           id == KD_GB_LEAF_REFS || id == KD_GB_SROOTS || id == KD_GB_SCALARS || id == KD_GB_FRONTIER ||
           id == KD_GB_FRONTIER_NODES || id == KD_GB_BATCH_ROOTS || id == KD_GB_BATCH_TRIS ||
           (id >= KD_GB_REFS_SMALL && id < KD_GB_REFS_SMALL + KD_GB_REF_ARRAYS);
}

// What outlives the batches but the pool.
size_t lasting_bytes(const kd_gpu_builder *b)
{
    size_t sum = 0;
    for (int id = 0; id < KD_GB_NUM_BUFFERS; id++)
        if (outlives_batches(id) && id != KD_GB_POOL)
            sum += kd_gb_own_bytes(&b->buf[id]);
    return sum;
}

double mib(size_t bytes) { return (double)bytes / 1048576.0; }

// References a batch may take under the cap, the pool grown to hold
// `slots` slots a reference for `refs` more references of the level (none:
// for the batch alone) and one batch's first headroom, so that it need not
// grow (holding its old and new memory) as the batches go; at most `most`.
// A cap that leaves no room fails, naming about what would do.
kd_status size_batches(kd_gpu_builder *b, const kd_gb_build_state *s, const frontier &f, double slots,
                       size_t refs, size_t most, size_t *batch_refs, kd_error *err)
{
    *batch_refs = s->opts->hooks.batch_refs;
    if (!b->cap_bytes)
        return KD_OK;
    const size_t slot = sizeof(kd_gb_pool_node), per_slot_ref = (size_t)(slots * (double)slot);
    const size_t per_ref = KD_GB_BATCH_BYTES + slot * KD_GB_BATCH_POOL_HEAD + (refs ? 0 : per_slot_ref);
    const size_t pool = (size_t)s->pool_count + (size_t)(slots * (double)refs);
    const size_t fixed = lasting_bytes(b) + slot * pool + KD_GB_BATCH_FIXED;
    size_t largest = 0; // a batch takes one node at least
    for (uint32_t i = 0; i < f.num_nodes; i++)
        largest = f.ref_start[i + 1] - f.ref_start[i] > largest ? f.ref_start[i + 1] - f.ref_start[i] : largest;
    if (b->cap_bytes < fixed + per_ref * largest)
        return kd_error_set(err, KD_ERR_DEVICE_OOM,
                            "GPU build: the device memory limit of %.1f MiB leaves the batches no room (the mesh, "
                            "the large stage's last level and the node pool take about %.1f MiB); it needs a "
                            "limit of %.1f MiB at least", mib(b->cap_bytes), mib(fixed),
                            mib(fixed + per_ref * largest));
    size_t room = (b->cap_bytes - fixed) / per_ref;
    room = room < most ? room : most;
    *batch_refs = *batch_refs ? *batch_refs : room;
    const size_t want = pool + (size_t)KD_GB_BATCH_POOL_HEAD * room + (refs ? 0 : (size_t)(slots * (double)room));
    return short_of(kd_gb_ensure(b, KD_GB_POOL, slot * want, 1, err),
                    "the node pool, had ahead for the batches, needs that much", err);
}

// Pool slots a reference the batches after the first will add: what the
// first added, with a margin, and no more than the first sizing assumed.
double slots_after(const kd_gb_build_state *s, uint32_t pool_before, uint32_t refs)
{
    const double used = (double)(s->pool_count - pool_before) / (refs ? refs : 1);
    const double margin = 1.25 * used + 0.5;
    return margin < KD_GB_BATCH_POOL_SLOTS ? margin : KD_GB_BATCH_POOL_SLOTS;
}

// A batch's arrays given back; the small roots and references too once
// the large stage's are done with (the first batch takes them).
void release_batch_arrays(kd_gpu_builder *b, const kd_gb_build_state *s)
{
    for (int id = 0; id < KD_GB_NUM_BUFFERS; id++)
        if (!outlives_batches(id) || (s->num_small_roots == 0 && (id == KD_GB_SROOTS || (id >= KD_GB_REFS_SMALL &&
                                                                   id < KD_GB_REFS_SMALL + KD_GB_REF_ARRAYS))))
            kd_gb_release(b, id);
}

// The hand-over level's references (a working set's arrays and its block)
// and nodes.
int holds_level(const kd_gb_build_state *s, int id)
{
    const int block = KD_GB_REFS_A_MEM + (s->handover_refs_id - KD_GB_REFS_A) / KD_GB_REF_ARRAYS;
    return (id >= s->handover_refs_id && id < s->handover_refs_id + KD_GB_REF_ARRAYS) || id == block ||
           id == s->handover_nodes_id;
}

// Whether a buffer lies, lent, in the memory of the level's reference block.
int level_lent(const kd_gpu_builder *b, const kd_gb_build_state *s)
{
    const kd_gb_buf &block = b->buf[KD_GB_REFS_A_MEM + (s->handover_refs_id - KD_GB_REFS_A) / KD_GB_REF_ARRAYS];
    const char *lo = (const char *)block.ptr;
    for (int id = 0; id < KD_GB_NUM_BUFFERS; id++) {
        const char *p = (const char *)b->buf[id].ptr;
        if (b->buf[id].lent && lo && p >= lo && p < lo + block.bytes)
            return 1;
    }
    return 0;
}

// The level copied into the frontier, then every buffer a batch does not
// keep given back (the large stage's, an earlier build's): the dead ones
// first, so that the copy fits beside the level.
kd_status keep_frontier(kd_gpu_builder *b, const kd_gb_build_state *s, frontier *f, kd_error *err)
{
    f->num_nodes = s->handover_nodes;
    f->num_refs = s->handover_refs;
    for (int id = 0; id < KD_GB_NUM_BUFFERS; id++)
        if (!outlives_batches(id) && !holds_level(s, id))
            kd_gb_release(b, id);
    KD_TRY(kd_gb_ensure(b, KD_GB_FRONTIER, 7 * 4 * (size_t)f->num_refs, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_FRONTIER_NODES, sizeof(kd_gb_large_node) * (size_t)f->num_nodes, 0, err));
    copy_refs refs = {kd_gb_ref_set(b, s->handover_refs_id), packed_refs(b, KD_GB_FRONTIER, f->num_refs), 0};
    KD_TRY(kd_gb_map(b, f->num_refs, refs, "keeping the level's references", err));
    copy_nodes nodes = {kd_gb_ptr<kd_gb_large_node>(b, s->handover_nodes_id),
                        kd_gb_ptr<kd_gb_large_node>(b, KD_GB_FRONTIER_NODES), 0, 0};
    KD_TRY(kd_gb_map(b, f->num_nodes, nodes, "keeping the level's nodes", err));
    KD_TRY(frontier_starts(b, f, err));
    release_batch_arrays(b, s);
    return KD_OK;
}

// Step 3: the collapse over the batch's small slots, in scratch (a word of
// each per pool slot) that the batch's dead arrays lend where they can.
kd_status collapse_batch(kd_gpu_builder *b, const kd_gb_build_state *s, kd_error *err)
{
    const size_t n = s->pool_count;
    kd_gb_lender dead = {{KD_GB_REFS_A_MEM, KD_GB_ARENA, KD_GB_STASKS, KD_GB_CLIPJOBS, KD_GB_MTIGHT,
                          KD_GB_REFS_A2_MEM, KD_GB_REFS_OUT_MEM}, {0}, 7};
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_ARRIVALS, 8 * n, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_PLACES, 8 * n, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_BELOW, 8 * n, &dead, err));
    KD_TRY(kd_gb_ensure_lent(b, KD_GB_O_SIZES, 4 * n, &dead, err));
    return kd_gb_collapse(b, s, kd_gb_ptr<double>(b, KD_GB_O_ARRIVALS),
                          kd_gb_ptr<unsigned long long>(b, KD_GB_O_PLACES), kd_gb_ptr<double>(b, KD_GB_O_BELOW),
                          kd_gb_ptr<uint32_t>(b, KD_GB_O_SIZES), err);
}

// Step 4: the batch's small roots and triangles kept after the batches'
// before, and its mask leaves renamed to match.
kd_status keep_small(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    const size_t roots = (size_t)s->batch_small_roots + s->num_small_roots;
    const size_t refs = (size_t)s->batch_small_refs + s->num_small_refs;
    if (roots > 0xffffffffu || refs > 0xffffffffu)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build: more than 2^32 small references");
    KD_TRY(kd_gb_ensure(b, KD_GB_BATCH_ROOTS, sizeof(kd_gb_small_root) * roots, 1, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_BATCH_TRIS, 4 * refs, 1, err));
    const kd_gb_small_root *batch_roots = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    const keep_roots kr = {batch_roots, kd_gb_ptr<kd_gb_small_root>(b, KD_GB_BATCH_ROOTS) + s->batch_small_roots,
                           s->batch_small_refs};
    KD_TRY(kd_gb_map(b, s->num_small_roots, kr, "batch: small roots", err));
    const keep_tris kt = {kd_gb_ptr<uint32_t>(b, KD_GB_REFS_SMALL + KD_GB_REF_TRI),
                          kd_gb_ptr<uint32_t>(b, KD_GB_BATCH_TRIS) + s->batch_small_refs};
    KD_TRY(kd_gb_map(b, s->num_small_refs, kt, "batch: small references' triangles", err));
    const small_slots slots = {batch_roots, s->num_small_roots, s->small_pool_base};
    const rename_leaves rn = {slots, kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL), s->batch_small_roots};
    KD_TRY(kd_gb_map(b, s->num_small_roots + (s->pool_count - s->small_pool_base), rn, "batch: mask leaves", err));
    s->batch_small_roots = (uint32_t)roots;
    s->batch_small_refs = (uint32_t)refs;
    s->batch_small_members += s->small_members;
    return KD_OK;
}

// The medium stage's counts, which each run sets for itself, added up.
struct medium_tally {
    uint32_t nodes, cuts, block_nodes;
};

void tally_medium(kd_gb_build_state *s, medium_tally *t)
{
    if (!s->profile)
        return;
    t->nodes += s->profile->num_medium_nodes;
    t->cuts += s->profile->num_medium_cuts;
    t->block_nodes += s->profile->num_medium_block_nodes;
}

// Steps 1 to 4 for frontier nodes [first, last).
kd_status run_batch(kd_gpu_builder *b, kd_gb_build_state *s, const frontier &f, uint32_t first, uint32_t last,
                    kd_error *err)
{
    const uint32_t ref0 = f.ref_start[first], num_refs = f.ref_start[last] - ref0, num_nodes = last - first;
    KD_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_A, num_refs, 0, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_LNODES_A, sizeof(kd_gb_large_node) * (size_t)num_nodes, 0, err));
    copy_refs refs = {packed_refs(b, KD_GB_FRONTIER, f.num_refs), kd_gb_ref_set(b, KD_GB_REFS_A), ref0};
    KD_TRY(kd_gb_map(b, num_refs, refs, "batch: references", err));
    copy_nodes nodes = {kd_gb_ptr<kd_gb_large_node>(b, KD_GB_FRONTIER_NODES),
                        kd_gb_ptr<kd_gb_large_node>(b, KD_GB_LNODES_A), first, ref0};
    KD_TRY(kd_gb_map(b, num_nodes, nodes, "batch: nodes", err));
    KD_TRY(kd_gb_stage_medium(b, s, KD_GB_REFS_A, KD_GB_LNODES_A, num_nodes, num_refs, err));
    KD_TRY(kd_gb_stage_small(b, s, err));
    if (s->num_small_roots > 0) {
        KD_TRY(collapse_batch(b, s, err));
        KD_TRY(keep_small(b, s, err));
    }
    s->num_small_roots = s->num_small_refs = 0;
    return KD_OK;
}

// The last node of a batch from `first`: as many nodes as fit `refs`
// references, one at least, and at most max_nodes.
uint32_t batch_end(const frontier &f, uint32_t first, size_t refs, uint32_t max_nodes)
{
    uint32_t last = first + 1;
    while (last < f.num_nodes && last - first < max_nodes && f.ref_start[last + 1] - f.ref_start[first] <= refs)
        last++;
    return last;
}

// The frontier's nodes in batches, each as large as the cap allows beside
// what outlives them; one that runs out of room anyway goes again as its
// first half (a lone node that does not fit fails the build).
kd_status run_batches(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    frontier f;
    memset(&f, 0, sizeof f);
    kd_status st = short_of(keep_frontier(b, s, &f, err), "the copy of the large stage's last level needs that "
                            "much beside the level", err);
    // A first batch of a part of the level at most: the pool's use in it
    // sizes the pool for the rest.
    const size_t first_refs = f.num_refs / KD_GB_BATCH_FIRST_PART + 1;
    size_t batch_refs = 0;
    if (st == KD_OK)
        st = size_batches(b, s, f, KD_GB_BATCH_POOL_SLOTS, 0, first_refs, &batch_refs, err);
    medium_tally tally = {0, 0, 0};
    uint32_t max_nodes = f.num_nodes;
    for (uint32_t first = 0; st == KD_OK && first < f.num_nodes;) {
        const uint32_t last = batch_end(f, first, batch_refs, max_nodes);
        // Each batch's arrays afresh: grown from the last one's, they would
        // hold old and new memory at once.
        release_batch_arrays(b, s);
        const kd_gb_build_state saved = *s;
        st = run_batch(b, s, f, first, last, err);
        if (out_of_room(st) && last - first > 1) {
            *s = saved;
            max_nodes = (last - first) / 2;
            st = KD_OK;
            kd_error_clear(err);
            continue;
        }
        if (st != KD_OK) {
            char what[160];
            snprintf(what, sizeof what, "a batch of one node (%u references) needs that much beside the %.1f MiB "
                     "that outlive the batches", f.ref_start[last] - f.ref_start[first],
                     mib(lasting_bytes(b) + b->buf[KD_GB_POOL].bytes));
            st = short_of(st, what, err);
            break;
        }
        tally_medium(s, &tally);
        if (s->num_batches++ == 0 && last < f.num_nodes) { // the pool sized again from the first batch's use
            release_batch_arrays(b, s);
            st = size_batches(b, s, f, slots_after(s, saved.pool_count, f.ref_start[last] - f.ref_start[first]),
                              f.num_refs - f.ref_start[last], SIZE_MAX, &batch_refs, err);
        }
        first = last; // at most max_nodes on: a run as large failed
    }
    free(f.ref_start);
    if (st == KD_OK && s->profile) {
        s->profile->num_medium_nodes = tally.nodes;
        s->profile->num_medium_cuts = tally.cuts;
        s->profile->num_medium_block_nodes = tally.block_nodes;
    }
    // The output needs none of these (the small stage's are a batch's), nor
    // the pool's room beyond its use: the output's arrays are as large.
    kd_gb_release(b, KD_GB_FRONTIER);
    kd_gb_release(b, KD_GB_FRONTIER_NODES);
    release_batch_arrays(b, s);
    if (st == KD_OK)
        hand_small_to_output(b, s);
    if (st == KD_OK && b->cap_bytes)
        st = kd_gb_shrink(b, KD_GB_POOL, sizeof(kd_gb_pool_node) * (size_t)s->pool_count, err);
    return st;
}

} // namespace

kd_status kd_gb_stage_below_large(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    if (s->handover_nodes == 0)
        return KD_OK; // no medium stage: the small stage takes the large stage's roots
    if (!b->cap_bytes && !s->opts->hooks.batch_refs)
        return kd_gb_stage_medium(b, s, s->handover_refs_id, s->handover_nodes_id, s->handover_nodes,
                                  s->handover_refs, err);
    // Under a cap: whole first, the small stage too, and in batches where
    // that finds no room (a whole run leaves the level as it was).
    if (!s->opts->hooks.batch_refs && !s->batches_only) {
        const kd_gb_build_state saved = *s;
        kd_status st = kd_gb_stage_medium(b, s, s->handover_refs_id, s->handover_nodes_id, s->handover_nodes,
                                          s->handover_refs, err);
        if (st == KD_OK)
            st = kd_gb_stage_small(b, s, err);
        s->small_done = st == KD_OK;
        if (!out_of_room(st))
            return st;
        // The small stage may have lent the level's own memory out: then
        // the level is gone, and the build starts again in batches.
        const int lost = level_lent(b, s);
        *s = saved;
        kd_error_clear(err);
        if (lost) {
            s->redo_in_batches = 1;
            return KD_OK;
        }
    }
    return run_batches(b, s, err);
}
