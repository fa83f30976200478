/* Exhaustive tree invariants (verify.h, part a).
 *
 * 1. A serial walk from the root checks structure, splits and depth and
 *    gives every leaf its box.
 * 2. In parallel over triangles, each triangle descends the tree with its
 *    bounding box to every leaf whose box the bounds touch (closed); a leaf
 *    that does not list it gets the exact overlap test, and an overlap there
 *    is a violation. Leaves the bounds do not touch cannot overlap it.
 * 3. In parallel over leaves, listed triangles that do not overlap their
 *    leaf are counted (a cost, not an error). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_render.h"
#include "kd_parallel.h"
#include "tribox.h"
#include "verify.h"

enum {
    NODE_UNREACHED = 0,
    NODE_INTERIOR,     /* children in range: descend */
    NODE_INTERIOR_BAD, /* children out of range: stop here */
    NODE_LEAF,         /* entries in range */
    NODE_LEAF_BAD      /* entry range outside the index array */
};

typedef struct leaf_info {
    uint32_t node, depth, count;
    uint64_t sorted_offset; /* into the sorted copy of the leaf lists */
    kd_aabb box;
} leaf_info;

/* Counts and examples gathered by one worker (or the serial walk). */
typedef struct tally {
    uint64_t count[KD_VIOLATION_NUM_KINDS];
    uint64_t touch_only, pairs_listed, pairs_tested, extra, duplicates;
    int num_examples[KD_VIOLATION_NUM_KINDS];
    kd_violation examples[KD_VIOLATION_NUM_KINDS][KD_VERIFY_MAX_EXAMPLES];
    uint32_t *stack;
} tally;

static bool example_less(const kd_violation *a, const kd_violation *b)
{
    if (a->node != b->node)
        return a->node < b->node;
    if (a->tri != b->tri)
        return a->tri < b->tri;
    return a->value < b->value;
}

/* Counts v and keeps it if it is among the smallest few of its kind, so the
 * examples reported do not depend on how work was split between threads. */
static void record(tally *t, const kd_violation *v)
{
    int kind = v->kind;
    t->count[kind]++;
    int *num = &t->num_examples[kind];
    kd_violation *list = t->examples[kind];
    if (*num == KD_VERIFY_MAX_EXAMPLES && !example_less(v, &list[KD_VERIFY_MAX_EXAMPLES - 1]))
        return;
    int i = *num < KD_VERIFY_MAX_EXAMPLES ? (*num)++ : KD_VERIFY_MAX_EXAMPLES - 1;
    while (i > 0 && example_less(v, &list[i - 1])) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = *v;
}

static void merge_tally(tally *into, const tally *from)
{
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++) {
        uint64_t before = into->count[k];
        for (int e = 0; e < from->num_examples[k]; e++)
            record(into, &from->examples[k][e]);
        into->count[k] = before + from->count[k]; /* record() counted the examples again */
    }
    into->touch_only += from->touch_only;
    into->pairs_listed += from->pairs_listed;
    into->pairs_tested += from->pairs_tested;
    into->extra += from->extra;
    into->duplicates += from->duplicates;
}

typedef struct check_ctx {
    const kd_tree *tree;
    const float *verts;
    uint32_t num_triangles;
    uint8_t *node_state;
    uint32_t *leaf_of_node;
    leaf_info *leaves;
    uint32_t num_leaves;
    uint32_t *sorted;        /* each leaf's list, sorted */
    size_t stack_capacity;
    tally *tallies;          /* one per worker */
    kd_verify_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    atomic_size_t done;      /* triangles, then leaves, checked */
} check_ctx;

/* Counts n more items checked; the calling thread (worker 0) tells. */
static void progress_add(check_ctx *c, size_t n, int worker)
{
    const size_t done = atomic_fetch_add(&c->done, n) + n;
    if (worker == 0 && c->progress)
        c->progress(c->progress_ctx, done, (size_t)c->num_triangles + c->num_leaves);
}

static kd_violation make_violation(kd_violation_kind kind, kd_violation_reason reason,
                                   uint32_t node, uint32_t tri)
{
    kd_violation v;
    memset(&v, 0, sizeof v);
    v.kind = kind;
    v.reason = reason;
    v.node = node;
    v.tri = tri;
    return v;
}

/* ---- 1. The serial walk ------------------------------------------------ */

typedef struct walk_item {
    uint32_t node, depth;
    kd_aabb box;
} walk_item;

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The walk's pending nodes. It holds one pending sibling per level in a
 * proper tree and grows if a broken one needs more. */
typedef struct walk_stack {
    walk_item *items;
    size_t top, capacity;
} walk_stack;

/* Pushes above, then below (so below is walked first); false when out of
 * memory. */
static bool walk_push(walk_stack *s, walk_item above, walk_item below)
{
    if (s->top + 2 > s->capacity) {
        walk_item *grown = realloc(s->items, 2 * s->capacity * sizeof *grown);
        if (!grown)
            return false;
        s->items = grown;
        s->capacity *= 2;
    }
    s->items[s->top++] = above;
    s->items[s->top++] = below;
    return true;
}

/* A leaf reached by the walk: its depth, entry range and triangle indices
 * checked, and its box kept in c->leaves (sorted_total: the entries of the
 * leaves kept so far). v: the structure violation to record, filled in. */
static void visit_leaf(check_ctx *c, tally *t, kd_invariant_report *rep, const walk_item *it, kd_violation v,
                       uint64_t *sorted_total)
{
    const kd_tree *tree = c->tree;
    const kd_node node = tree->nodes[it->node];
    if (it->depth > rep->max_leaf_depth)
        rep->max_leaf_depth = it->depth;
    uint64_t end = (uint64_t)node.leaf_offset + kd_node_num_prims(node);
    if (it->depth > tree->max_depth) {
        kd_violation d = v;
        d.kind = KD_VIOLATION_DEPTH;
        d.value = tree->max_depth;
        record(t, &d);
    }
    if (end > tree->num_leaf_indices) {
        c->node_state[it->node] = NODE_LEAF_BAD;
        v.reason = KD_REASON_LEAF_RANGE;
        v.value = node.leaf_offset;
        record(t, &v);
        return;
    }
    c->node_state[it->node] = NODE_LEAF;
    uint32_t count = kd_node_num_prims(node);
    for (uint32_t j = 0; j < count; j++) {
        uint32_t tri = tree->leaf_indices[node.leaf_offset + j];
        if (tri >= c->num_triangles) {
            kd_violation bad = make_violation(KD_VIOLATION_INDEX, KD_REASON_NONE, it->node, tri);
            bad.depth = it->depth;
            bad.value = node.leaf_offset + j;
            record(t, &bad);
        }
    }
    c->leaf_of_node[it->node] = c->num_leaves;
    c->leaves[c->num_leaves++] = (leaf_info){it->node, it->depth, count, *sorted_total, it->box};
    *sorted_total += count;
}

/* An interior node reached by the walk: the split must be finite and inside
 * the node's box, the children in range. Returns whether they are, with
 * their items in *below and *above. v: as for visit_leaf. */
static bool visit_interior(check_ctx *c, tally *t, const walk_item *it, kd_violation v, walk_item *below,
                           walk_item *above)
{
    const uint32_t n = c->tree->num_nodes;
    const kd_node node = c->tree->nodes[it->node];
    int axis = kd_node_axis(node);
    float split = node.split;
    if (!isfinite(split) || split < it->box.lo[axis] || split > it->box.hi[axis]) {
        kd_violation s = v;
        s.kind = KD_VIOLATION_SPLIT;
        s.split = split;
        s.value = (uint32_t)axis;
        record(t, &s);
    }
    uint32_t above_node = kd_node_above_child(node);
    if (it->node + 1 >= n || above_node <= it->node + 1 || above_node >= n) {
        c->node_state[it->node] = NODE_INTERIOR_BAD;
        v.reason = KD_REASON_CHILD_RANGE;
        v.value = above_node;
        record(t, &v);
        return false;
    }
    c->node_state[it->node] = NODE_INTERIOR;
    *below = (walk_item){it->node + 1, it->depth + 1, it->box};
    *above = (walk_item){above_node, it->depth + 1, it->box};
    below->box.hi[axis] = split;
    above->box.lo[axis] = split;
    return true;
}

/* After the walk: nodes it never reached, and a depth cap past the limit. */
static void record_unreached(const check_ctx *c, tally *t)
{
    const kd_tree *tree = c->tree;
    for (uint32_t i = 0; i < tree->num_nodes; i++)
        if (c->node_state[i] == NODE_UNREACHED) {
            kd_violation v = make_violation(KD_VIOLATION_STRUCTURE, KD_REASON_UNREACHED, i, 0);
            record(t, &v);
        }
    if (tree->max_depth > KD_TREE_DEPTH_LIMIT) {
        kd_violation v = make_violation(KD_VIOLATION_DEPTH, KD_REASON_CAP_LIMIT, 0, 0);
        v.value = tree->max_depth;
        record(t, &v);
    }
}

/* Sorted copies of the leaf lists, for membership tests by binary search. */
static kd_status sort_leaf_lists(check_ctx *c, uint64_t sorted_total, kd_error *err)
{
    const kd_tree *tree = c->tree;
    if (sorted_total > ((uint64_t)1 << 32))
        return kd_error_set(err, KD_ERR_NOMEM, "leaf lists of %llu entries in all",
                            (unsigned long long)sorted_total);
    c->sorted = malloc((sorted_total ? sorted_total : 1) * sizeof *c->sorted);
    if (!c->sorted)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %llu leaf entries",
                            (unsigned long long)sorted_total);
    for (uint32_t l = 0; l < c->num_leaves; l++) {
        leaf_info *leaf = &c->leaves[l];
        uint32_t *dst = c->sorted + leaf->sorted_offset;
        memcpy(dst, tree->leaf_indices + tree->nodes[leaf->node].leaf_offset, leaf->count * sizeof *dst);
        qsort(dst, leaf->count, sizeof *dst, compare_u32);
    }
    return KD_OK;
}

static kd_status walk_tree(check_ctx *c, tally *t, kd_invariant_report *rep, bool *shared,
                           uint32_t *max_node_depth, kd_error *err)
{
    const kd_tree *tree = c->tree;
    uint32_t n = tree->num_nodes;
    size_t leaf_nodes = 0;
    for (uint32_t i = 0; i < n; i++)
        leaf_nodes += kd_node_is_leaf(tree->nodes[i]);
    walk_stack s = {NULL, 0, 2 * (size_t)KD_TREE_DEPTH_LIMIT + 2};
    s.items = malloc(s.capacity * sizeof *s.items);
    c->leaves = malloc((leaf_nodes + 1) * sizeof *c->leaves);
    if (!s.items || !c->leaves) {
        free(s.items);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory walking %u nodes", n);
    }
    uint64_t sorted_total = 0;
    if (n > 0)
        s.items[s.top++] = (walk_item){0, 0, tree->bounds};
    while (s.top > 0) {
        walk_item it = s.items[--s.top];
        kd_violation v = make_violation(KD_VIOLATION_STRUCTURE, KD_REASON_NONE, it.node, 0);
        v.depth = it.depth;
        v.box = it.box;
        if (c->node_state[it.node] != NODE_UNREACHED) {
            v.reason = KD_REASON_SHARED;
            record(t, &v);
            *shared = true;
            continue;
        }
        if (it.depth > *max_node_depth)
            *max_node_depth = it.depth;
        walk_item below, above;
        if (kd_node_is_leaf(tree->nodes[it.node]))
            visit_leaf(c, t, rep, &it, v, &sorted_total);
        else if (visit_interior(c, t, &it, v, &below, &above) && !walk_push(&s, above, below)) {
            free(s.items);
            return kd_error_set(err, KD_ERR_NOMEM, "out of memory walking %u nodes", n);
        }
    }
    free(s.items);
    record_unreached(c, t);
    return sort_leaf_lists(c, sorted_total, err);
}

/* ---- 2. Coverage: every overlapping triangle is listed ---------------- */

static bool leaf_lists(const check_ctx *c, const leaf_info *leaf, uint32_t tri)
{
    const uint32_t *list = c->sorted + leaf->sorted_offset;
    uint32_t lo = 0, hi = leaf->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (list[mid] < tri)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < leaf->count && list[lo] == tri;
}

static void check_triangles(void *ctx, size_t begin, size_t end, int worker)
{
    check_ctx *c = ctx;
    tally *t = &c->tallies[worker];
    const kd_tree *tree = c->tree;
    for (size_t tri = begin; tri < end; tri++) {
        const float *v = c->verts + 9 * tri;
        kd_aabb b;
        for (int a = 0; a < 3; a++) {
            b.lo[a] = fminf(v[a], fminf(v[3 + a], v[6 + a]));
            b.hi[a] = fmaxf(v[a], fmaxf(v[3 + a], v[6 + a]));
        }
        bool inside = true;
        for (int a = 0; a < 3; a++)
            inside = inside && b.lo[a] >= tree->bounds.lo[a] && b.hi[a] <= tree->bounds.hi[a];
        if (!inside) {
            kd_violation r = make_violation(KD_VIOLATION_ROOT, KD_REASON_NONE, 0, (uint32_t)tri);
            r.box = tree->bounds;
            record(t, &r);
        }
        size_t top = 0;
        if (tree->num_nodes > 0 && c->node_state[0] != NODE_UNREACHED)
            t->stack[top++] = 0;
        while (top > 0) {
            uint32_t i = t->stack[--top];
            kd_node node = tree->nodes[i];
            if (c->node_state[i] == NODE_INTERIOR) {
                int axis = kd_node_axis(node);
                bool both = !isfinite(node.split);
                /* closed boxes: touching the plane reaches both sides */
                if ((both || b.hi[axis] >= node.split) && top < c->stack_capacity)
                    t->stack[top++] = kd_node_above_child(node);
                if ((both || b.lo[axis] <= node.split) && top < c->stack_capacity)
                    t->stack[top++] = i + 1;
                continue;
            }
            if (c->node_state[i] != NODE_LEAF)
                continue;
            const leaf_info *leaf = &c->leaves[c->leaf_of_node[i]];
            if (leaf_lists(c, leaf, (uint32_t)tri)) {
                t->pairs_listed++;
                continue;
            }
            t->pairs_tested++;
            if (kd_tribox_overlap(v, v + 3, v + 6, &leaf->box)) {
                kd_violation m = make_violation(KD_VIOLATION_MISSING, KD_REASON_NONE, i, (uint32_t)tri);
                m.depth = leaf->depth;
                m.box = leaf->box;
                m.touches_only = !kd_tribox_overlap_interior(v, v + 3, v + 6, &leaf->box);
                t->touch_only += m.touches_only;
                record(t, &m);
            }
        }
    }
    progress_add(c, end - begin, worker);
}

/* ---- 3. Listed triangles that do not overlap (cost, not error) -------- */

static void check_references(void *ctx, size_t begin, size_t end, int worker)
{
    check_ctx *c = ctx;
    tally *t = &c->tallies[worker];
    for (size_t l = begin; l < end; l++) {
        const leaf_info *leaf = &c->leaves[l];
        const uint32_t *list = c->sorted + leaf->sorted_offset;
        for (uint32_t j = 0; j < leaf->count; j++) {
            uint32_t tri = list[j];
            if (tri >= c->num_triangles)
                continue; /* an index violation, counted in the walk */
            if (j > 0 && list[j - 1] == tri) {
                t->duplicates++;
                continue;
            }
            const float *v = c->verts + 9 * (size_t)tri;
            if (!kd_tribox_overlap(v, v + 3, v + 6, &leaf->box))
                t->extra++;
        }
    }
    progress_add(c, end - begin, worker);
}

uint64_t kd_invariant_report_total(const kd_invariant_report *rep)
{
    uint64_t total = 0;
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        total += rep->count[k];
    return total;
}

kd_status kd_verify_invariants(const kd_tree *tree, const float *tri_verts, uint32_t num_triangles,
                               int num_threads, kd_invariant_report *rep, kd_error *err)
{
    return kd_verify_invariants_progress(tree, tri_verts, num_triangles, num_threads, NULL, NULL, rep, err);
}

kd_status kd_verify_invariants_progress(const kd_tree *tree, const float *tri_verts, uint32_t num_triangles,
                                        int num_threads, kd_verify_progress_fn progress, void *progress_ctx,
                                        kd_invariant_report *rep, kd_error *err)
{
    memset(rep, 0, sizeof *rep);
    double start = kd_render_now();
    rep->num_nodes = tree->num_nodes;
    rep->num_triangles = num_triangles;
    rep->num_references = tree->num_leaf_indices;
    rep->depth_cap = tree->max_depth;
    int workers = num_threads > 0 ? num_threads : kd_parallel_num_cores();
    check_ctx c = {.tree = tree, .verts = tri_verts, .num_triangles = num_triangles, .progress = progress,
                   .progress_ctx = progress_ctx};
    atomic_init(&c.done, 0);
    c.node_state = calloc((size_t)tree->num_nodes + 1, 1);
    c.leaf_of_node = malloc(((size_t)tree->num_nodes + 1) * sizeof *c.leaf_of_node);
    c.tallies = calloc((size_t)workers + 1, sizeof *c.tallies);
    tally *serial = &c.tallies[workers];
    kd_status st = KD_OK;
    if (!c.node_state || !c.leaf_of_node || !c.tallies) {
        st = kd_error_set(err, KD_ERR_NOMEM, "out of memory verifying %u nodes", tree->num_nodes);
        goto done;
    }
    if (tree->num_triangles != num_triangles) {
        kd_violation v = make_violation(KD_VIOLATION_STRUCTURE, KD_REASON_TRIANGLE_COUNT, 0, 0);
        v.value = tree->num_triangles;
        record(serial, &v);
    }
    if (tree->num_nodes == 0) {
        kd_violation v = make_violation(KD_VIOLATION_STRUCTURE, KD_REASON_NO_NODES, 0, 0);
        record(serial, &v);
    }
    bool shared = false;
    uint32_t max_node_depth = 0;
    st = walk_tree(&c, serial, rep, &shared, &max_node_depth, err);
    if (st)
        goto done;
    /* The descent's stack grows by at most one per level; shared nodes can
     * make paths longer than the walk measured. */
    c.stack_capacity = (shared ? (size_t)tree->num_nodes : (size_t)max_node_depth) + 2;
    for (int w = 0; w < workers; w++) {
        c.tallies[w].stack = malloc(c.stack_capacity * sizeof *c.tallies[w].stack);
        if (!c.tallies[w].stack) {
            st = kd_error_set(err, KD_ERR_NOMEM, "out of memory for traversal stacks");
            goto done;
        }
    }
    kd_parallel_for(num_triangles, 256, workers, check_triangles, &c);
    kd_parallel_for(c.num_leaves, 64, workers, check_references, &c);
    /* The calling thread may have had no chunk of either loop: the end is told here. */
    if (progress)
        progress(progress_ctx, atomic_load(&c.done), (size_t)num_triangles + c.num_leaves);

    for (int w = 0; w < workers; w++)
        merge_tally(serial, &c.tallies[w]);
    rep->num_leaves = c.num_leaves;
    memcpy(rep->count, serial->count, sizeof rep->count);
    memcpy(rep->num_examples, serial->num_examples, sizeof rep->num_examples);
    memcpy(rep->examples, serial->examples, sizeof rep->examples);
    rep->missing_touch_only = serial->touch_only;
    rep->num_pairs_listed = serial->pairs_listed;
    rep->num_pairs_tested = serial->pairs_tested;
    rep->extra_references = serial->extra;
    rep->duplicate_references = serial->duplicates;
    rep->structure_ok = rep->count[KD_VIOLATION_STRUCTURE] == 0 &&
                        rep->count[KD_VIOLATION_INDEX] == 0 &&
                        max_node_depth <= KD_TREE_DEPTH_LIMIT && tree->num_nodes > 0;
done:
    if (c.tallies)
        for (int w = 0; w <= workers; w++)
            free(c.tallies[w].stack);
    free(c.tallies);
    free(c.node_state);
    free(c.leaf_of_node);
    free(c.leaves);
    free(c.sorted);
    rep->seconds = kd_render_now() - start;
    return st;
}
