/* The CPU reference builder: recursion, parallel subtrees and tree assembly.
 *
 * The upper levels are built on one thread until nodes hold few enough
 * triangles; each such node becomes a task, and the tasks (largest first) are
 * built in parallel, each into its own preorder node buffer. Assembly then
 * walks the upper levels in preorder and splices every task's buffer in,
 * shifting child and leaf offsets, so the result is the same tree whatever
 * the number of threads. */
#include <stdlib.h>

#include "cpu_build.h"
#include "cpu_build_internal.h"
#include "kd_parallel.h"

/* A node array in preorder with the leaves' triangle indices. */
typedef struct node_buffer {
    kd_node *nodes;
    uint32_t *task_of; /* upper levels only: task index + 1 for a placeholder, else 0 */
    size_t num_nodes, cap_nodes;
    uint32_t *indices;
    size_t num_indices, cap_indices;
} node_buffer;

typedef struct build_task {
    kd_aabb box;
    kd_event_lists lists;
    kd_path_state path;
    node_buffer out;
    kd_status status;
    kd_error err;
} build_task;

typedef struct build_ctx {
    const kd_mesh *mesh;
    const kd_build_params *params;
    kd_split_scratch *scratch; /* one per worker */
    build_task *tasks;
    size_t num_tasks, cap_tasks;
    uint32_t *task_order;
    uint32_t task_threshold; /* upper-level nodes with at most this many triangles become tasks */
    int num_workers;
} build_ctx;

static void buffer_free(node_buffer *b)
{
    free(b->nodes);
    free(b->task_of);
    free(b->indices);
    memset(b, 0, sizeof *b);
}

static kd_status push_node(node_buffer *b, kd_node node, uint32_t task_of, bool track_tasks,
                           size_t *index, kd_error *err)
{
    if (b->num_nodes == b->cap_nodes) {
        size_t cap = b->cap_nodes ? 2 * b->cap_nodes : 256;
        kd_node *nodes = realloc(b->nodes, cap * sizeof *nodes);
        if (!nodes)
            return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu tree nodes", cap);
        b->nodes = nodes;
        if (track_tasks) {
            uint32_t *task_of_new = realloc(b->task_of, cap * sizeof *task_of_new);
            if (!task_of_new)
                return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu tree nodes", cap);
            b->task_of = task_of_new;
        }
        b->cap_nodes = cap;
    }
    if (track_tasks)
        b->task_of[b->num_nodes] = task_of;
    b->nodes[b->num_nodes] = node;
    *index = b->num_nodes++;
    return KD_OK;
}

static void sort_u32(uint32_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint32_t x = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* A leaf listing the node's triangles (each has exactly one START or PLANAR
 * event on axis 0), in ascending order. */
static kd_status emit_leaf(node_buffer *b, const kd_event_lists *lists, bool track_tasks,
                           kd_error *err)
{
    uint32_t n = lists->num_tris;
    if (b->num_indices + n > b->cap_indices) {
        size_t cap = b->cap_indices ? 2 * b->cap_indices : 1024;
        while (cap < b->num_indices + n)
            cap *= 2;
        uint32_t *indices = realloc(b->indices, cap * sizeof *indices);
        if (!indices)
            return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu leaf indices", cap);
        b->indices = indices;
        b->cap_indices = cap;
    }
    uint32_t *out = b->indices + b->num_indices, k = 0;
    for (uint32_t i = 0; i < lists->count[0]; i++)
        if (kd_event_type(lists->ev[0][i]) != KD_EVENT_END)
            out[k++] = kd_event_tri(lists->ev[0][i]);
    if (k < 32)
        sort_u32(out, k);
    else
        qsort(out, k, sizeof *out, cmp_u32);
    size_t index;
    /* Offsets are local to the buffer; assembly makes them global. */
    kd_status st = push_node(b, kd_make_leaf((uint32_t)b->num_indices, k), 0, track_tasks, &index,
                             err);
    if (st == KD_OK)
        b->num_indices += k;
    return st;
}

static kd_status add_task(build_ctx *ctx, const kd_aabb *box, kd_event_lists *lists,
                          const kd_path_state *path, kd_error *err)
{
    if (ctx->num_tasks == ctx->cap_tasks) {
        size_t cap = ctx->cap_tasks ? 2 * ctx->cap_tasks : 64;
        build_task *tasks = realloc(ctx->tasks, cap * sizeof *tasks);
        if (!tasks)
            return kd_error_set(err, KD_ERR_NOMEM, "out of memory for build tasks");
        ctx->tasks = tasks;
        ctx->cap_tasks = cap;
    }
    build_task *t = &ctx->tasks[ctx->num_tasks++];
    memset(t, 0, sizeof *t);
    t->box = *box;
    t->lists = *lists;
    t->path = *path;
    memset(lists, 0, sizeof *lists);
    return KD_OK;
}

/* Builds the subtree of one node, taking ownership of its event lists.
 * upper: the upper levels, where small nodes become tasks. */
static kd_status build_node(build_ctx *ctx, kd_split_scratch *scratch, node_buffer *out,
                            const kd_aabb *box, kd_event_lists *lists, kd_path_state path,
                            bool upper, kd_error *err)
{
    kd_status st;
    size_t index;
    if (upper && lists->num_tris <= ctx->task_threshold) {
        st = push_node(out, kd_make_leaf(0, 0), (uint32_t)ctx->num_tasks + 1, true, &index, err);
        if (st == KD_OK)
            st = add_task(ctx, box, lists, &path, err);
        kd_event_lists_free(lists);
        return st;
    }

    /* Leaf or split, by pbrt's rules over the exact SAH optimum. */
    kd_split split = {false, 0, 0.0f, 0.0, 0, 0};
    bool leaf = kd_leaf_before_sweep(lists->num_tris, &path, box, ctx->params);
    if (!leaf) {
        /* Only the upper levels run alone; tasks already use every core. */
        split = kd_find_best_split(lists, box, ctx->params, upper ? ctx->num_workers : 1);
        leaf = kd_leaf_after_sweep(lists->num_tris, &split, ctx->params, &path);
    }
    if (leaf) {
        st = emit_leaf(out, lists, upper, err);
        kd_event_lists_free(lists);
        return st;
    }

    kd_event_lists left, right;
    st = kd_split_events(ctx->mesh, lists, box, split.axis, split.pos, scratch,
                         upper ? ctx->num_workers : 1, &left, &right, err);
    kd_event_lists_free(lists);
    if (st)
        return st;
    kd_aabb left_box, right_box;
    kd_split_boxes(box, split.axis, split.pos, &left_box, &right_box);

    st = push_node(out, kd_make_interior(split.axis, split.pos, 0), 0, upper, &index, err);
    if (st == KD_OK)
        st = build_node(ctx, scratch, out, &left_box, &left, path, upper, err);
    else
        kd_event_lists_free(&left);
    if (st) {
        kd_event_lists_free(&right);
        return st;
    }
    /* Child indices are local to the buffer too. */
    out->nodes[index] = kd_make_interior(split.axis, split.pos, (uint32_t)out->num_nodes);
    return build_node(ctx, scratch, out, &right_box, &right, path, upper, err);
}

static void run_tasks(void *p, size_t begin, size_t end, int worker)
{
    build_ctx *ctx = p;
    for (size_t i = begin; i < end; i++) {
        build_task *t = &ctx->tasks[ctx->task_order[i]];
        t->status = build_node(ctx, &ctx->scratch[worker], &t->out, &t->box, &t->lists, t->path,
                               false, &t->err);
    }
}

typedef struct task_rank {
    uint32_t num_tris, task;
} task_rank;

/* Largest first, then by creation order (deterministic). */
static int cmp_task_rank(const void *a, const void *b)
{
    const task_rank *x = a, *y = b;
    if (x->num_tris != y->num_tris)
        return x->num_tris > y->num_tris ? -1 : 1;
    return (x->task > y->task) - (x->task < y->task);
}

/* ---- Assembly ------------------------------------------------------------------ */

typedef struct assembly {
    const build_ctx *ctx;
    const node_buffer *upper;
    kd_tree *tree;
    size_t num_nodes, num_indices;
} assembly;

static void copy_indices(assembly *as, const uint32_t *src, size_t n)
{
    if (n == 0)
        return; /* src may be NULL then */
    memcpy(as->tree->leaf_indices + as->num_indices, src, n * sizeof *src);
    as->num_indices += n;
}

/* Emits the upper-level subtree rooted at i; returns the upper index after it. */
static size_t assemble(assembly *as, size_t i)
{
    const node_buffer *up = as->upper;
    kd_node node = up->nodes[i];
    if (up->task_of[i]) {
        const node_buffer *sub = &as->ctx->tasks[up->task_of[i] - 1].out;
        uint32_t node_base = (uint32_t)as->num_nodes, index_base = (uint32_t)as->num_indices;
        for (size_t k = 0; k < sub->num_nodes; k++) {
            kd_node n = sub->nodes[k];
            if (kd_node_is_leaf(n))
                n.leaf_offset += index_base;
            else
                n = kd_make_interior(kd_node_axis(n), n.split, kd_node_above_child(n) + node_base);
            as->tree->nodes[as->num_nodes++] = n;
        }
        copy_indices(as, sub->indices, sub->num_indices);
        return i + 1;
    }
    if (kd_node_is_leaf(node)) {
        uint32_t count = kd_node_num_prims(node);
        as->tree->nodes[as->num_nodes++] = kd_make_leaf((uint32_t)as->num_indices, count);
        copy_indices(as, up->indices + node.leaf_offset, count);
        return i + 1;
    }
    size_t me = as->num_nodes++;
    size_t above = assemble(as, i + 1);
    as->tree->nodes[me] = kd_make_interior(kd_node_axis(node), node.split, (uint32_t)as->num_nodes);
    return assemble(as, above);
}

static kd_status assemble_tree(build_ctx *ctx, const node_buffer *upper, kd_tree *tree,
                               kd_error *err)
{
    size_t num_nodes = 0, num_indices = upper->num_indices;
    for (size_t i = 0; i < upper->num_nodes; i++)
        num_nodes += upper->task_of[i] ? 0 : 1;
    for (size_t t = 0; t < ctx->num_tasks; t++) {
        num_nodes += ctx->tasks[t].out.num_nodes;
        num_indices += ctx->tasks[t].out.num_indices;
    }
    if (num_nodes > KD_NODE_MAX_COUNT || num_indices > UINT32_MAX)
        return kd_error_set(err, KD_ERR_NOMEM,
                            "tree too large for the format: %zu nodes, %zu leaf references",
                            num_nodes, num_indices);
    tree->nodes = malloc(num_nodes * sizeof *tree->nodes);
    tree->leaf_indices = malloc((num_indices ? num_indices : 1) * sizeof *tree->leaf_indices);
    if (!tree->nodes || !tree->leaf_indices)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a tree of %zu nodes", num_nodes);
    assembly as = {ctx, upper, tree, 0, 0};
    assemble(&as, 0);
    tree->num_nodes = (uint32_t)num_nodes;
    tree->num_leaf_indices = (uint32_t)num_indices;
    return KD_OK;
}

/* ---- Entry point ------------------------------------------------------------------- */

static void set_phase(kd_build_timing *timing, const char *name, double ms)
{
    if (timing && timing->num_phases < KD_BUILD_MAX_PHASES) {
        timing->phase_names[timing->num_phases] = name;
        timing->phase_ms[timing->num_phases++] = ms;
    }
}

static kd_status check_params(const kd_build_params *params, kd_error *err)
{
    if (!(params->traversal_cost >= 0.0f) || !(params->intersect_cost > 0.0f) ||
        !(params->empty_bonus >= 0.0f && params->empty_bonus <= 1.0f) ||
        !(params->min_empty_fraction >= 0.0f && params->min_empty_fraction <= 1.0f) ||
        params->max_bad_refines < 1 || !(params->bad_cost_ratio > 0.0f) ||
        !(params->max_duplication <= 0.0f || params->max_duplication >= 1.0f))
        return kd_error_set(err, KD_ERR_INVALID,
                            "build parameters out of range (traversal >= 0, intersect > 0, "
                            "0 <= empty bonus <= 1, 0 <= min empty fraction <= 1, bad refines >= 1, cost ratio > 0, "
                            "duplication bound 0 or >= 1)");
    return KD_OK;
}

/* One split scratch per worker, and the size at which an upper-level node
 * becomes a task: enough tasks per worker that the largest-first order
 * balances the load; one thread builds everything as the upper levels. */
static kd_status prepare_workers(build_ctx *ctx, uint32_t num_triangles, kd_error *err)
{
    const int workers = ctx->num_workers;
    ctx->scratch = calloc((size_t)workers, sizeof *ctx->scratch);
    if (!ctx->scratch)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for build scratch");
    kd_status st = KD_OK;
    for (int w = 0; w < workers && st == KD_OK; w++)
        st = kd_split_scratch_init(&ctx->scratch[w], num_triangles, err);
    uint32_t tasks_wanted = workers > 1 ? 16u * (uint32_t)workers : 1u;
    ctx->task_threshold = num_triangles / tasks_wanted;
    if (workers > 1 && ctx->task_threshold < 2048)
        ctx->task_threshold = 2048;
    if (workers == 1)
        ctx->task_threshold = UINT32_MAX;
    return st;
}

/* Builds the tasks' subtrees in parallel, largest first; the first failure
 * in task order is returned. */
static kd_status run_subtree_tasks(build_ctx *ctx, kd_error *err)
{
    if (ctx->num_tasks == 0)
        return KD_OK;
    kd_status st = KD_OK;
    ctx->task_order = malloc(ctx->num_tasks * sizeof *ctx->task_order);
    task_rank *rank = malloc(ctx->num_tasks * sizeof *rank);
    if (!ctx->task_order || !rank) {
        st = kd_error_set(err, KD_ERR_NOMEM, "out of memory for build tasks");
    } else {
        for (size_t i = 0; i < ctx->num_tasks; i++)
            rank[i] = (task_rank){ctx->tasks[i].lists.num_tris, (uint32_t)i};
        qsort(rank, ctx->num_tasks, sizeof *rank, cmp_task_rank);
        for (size_t i = 0; i < ctx->num_tasks; i++)
            ctx->task_order[i] = rank[i].task;
        kd_parallel_for(ctx->num_tasks, 1, ctx->num_workers, run_tasks, ctx);
        for (size_t i = 0; i < ctx->num_tasks && st == KD_OK; i++)
            if (ctx->tasks[i].status) {
                st = ctx->tasks[i].status;
                if (err)
                    *err = ctx->tasks[i].err;
            }
    }
    free(rank);
    return st;
}

static void free_ctx(build_ctx *ctx)
{
    for (size_t i = 0; i < ctx->num_tasks; i++) {
        kd_event_lists_free(&ctx->tasks[i].lists);
        buffer_free(&ctx->tasks[i].out);
    }
    free(ctx->tasks);
    free(ctx->task_order);
    for (int w = 0; ctx->scratch && w < ctx->num_workers; w++)
        kd_split_scratch_free(&ctx->scratch[w]);
    free(ctx->scratch);
}

kd_status kd_build_cpu(const kd_mesh *mesh, const kd_build_params *params, kd_tree *tree,
                       kd_build_timing *timing, kd_error *err)
{
    double t_start = kd_build_now_ms();
    memset(tree, 0, sizeof *tree);
    if (timing)
        memset(timing, 0, sizeof *timing);
    kd_status st = check_params(params, err);
    if (st)
        return st;
    int max_depth = kd_build_max_depth(params, mesh->num_triangles);
    build_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.mesh = mesh;
    ctx.params = params;
    ctx.num_workers = params->num_threads > 0 ? params->num_threads : kd_parallel_num_cores();

    /* Events of the root, sorted once. */
    kd_event_lists root;
    memset(&root, 0, sizeof root);
    kd_aabb root_box;
    double ms_events = 0, ms_sort = 0;
    if ((st = kd_root_events(mesh, &root_box, &root, ctx.num_workers, &ms_events, &ms_sort, err)))
        return st;
    set_phase(timing, "events", ms_events);
    set_phase(timing, "sort", ms_sort);
    if ((st = prepare_workers(&ctx, mesh->num_triangles, err)) && !ctx.scratch) {
        kd_event_lists_free(&root);
        return st;
    }

    /* The upper levels on one thread, down to the tasks; then the tasks. */
    node_buffer upper;
    memset(&upper, 0, sizeof upper);
    double t_upper = kd_build_now_ms();
    if (st == KD_OK)
        st = build_node(&ctx, &ctx.scratch[0], &upper, &root_box, &root, (kd_path_state){max_depth, 0, 1.0},
                        true, err);
    else
        kd_event_lists_free(&root);
    double t_tasks = kd_build_now_ms();
    set_phase(timing, "upper levels", t_tasks - t_upper);
    if (st == KD_OK)
        st = run_subtree_tasks(&ctx, err);
    double t_assemble = kd_build_now_ms();
    set_phase(timing, "subtrees", t_assemble - t_tasks);

    /* The upper levels with every task's subtree spliced in. */
    if (st == KD_OK)
        st = assemble_tree(&ctx, &upper, tree, err);
    if (st == KD_OK) {
        tree->num_triangles = mesh->num_triangles;
        tree->max_depth = (uint32_t)max_depth;
        tree->bounds = root_box;
    } else {
        kd_tree_free(tree);
    }
    set_phase(timing, "assembly", kd_build_now_ms() - t_assemble);
    free_ctx(&ctx);
    buffer_free(&upper);
    if (timing)
        timing->total_ms = kd_build_now_ms() - t_start;
    return st;
}
