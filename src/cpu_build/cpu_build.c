/* The CPU reference builder: recursion, parallel subtrees, and subtrees
 * that do not pay undone (cpu_build_tasks.h tells how the work is shared
 * out, cpu_build_internal.h the collapse rule). */
#include <stdlib.h>

#include "cpu_build.h"
#include "cpu_build_internal.h"
#include "cpu_build_tasks.h"
#include "kd_parallel.h"

static void buffer_free(node_buffer *b)
{
    free(b->nodes);
    free(b->task_of);
    free(b->tris_of);
    free(b->indices);
    memset(b, 0, sizeof *b);
}

/* Appends a node; the upper levels (track_tasks) also record its task
 * placeholder (0: none) and its triangle count. */
static kd_status push_node(node_buffer *b, kd_node node, uint32_t task_of, uint32_t num_tris,
                           bool track_tasks, size_t *index, kd_error *err)
{
    if (b->num_nodes == b->cap_nodes) {
        size_t cap = b->cap_nodes ? 2 * b->cap_nodes : 256;
        kd_node *nodes = realloc(b->nodes, cap * sizeof *nodes);
        if (!nodes)
            return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu tree nodes", cap);
        b->nodes = nodes;
        if (track_tasks) {
            uint32_t *task_of_new = realloc(b->task_of, cap * sizeof *task_of_new);
            if (task_of_new)
                b->task_of = task_of_new;
            uint32_t *tris_of_new = task_of_new ? realloc(b->tris_of, cap * sizeof *tris_of_new) : NULL;
            if (!tris_of_new)
                return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu tree nodes", cap);
            b->tris_of = tris_of_new;
        }
        b->cap_nodes = cap;
    }
    if (track_tasks) {
        b->task_of[b->num_nodes] = task_of;
        b->tris_of[b->num_nodes] = num_tris;
    }
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

uint32_t kd_sort_unique(uint32_t *tris, size_t n)
{
    if (n < 32)
        sort_u32(tris, n);
    else
        qsort(tris, n, sizeof *tris, cmp_u32);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || tris[i] != tris[k - 1])
            tris[k++] = tris[i];
    return (uint32_t)k;
}

kd_status kd_reserve_indices(uint32_t **indices, size_t *cap, size_t need, kd_error *err)
{
    if (need <= *cap)
        return KD_OK;
    size_t grown = *cap ? 2 * *cap : 1024;
    while (grown < need)
        grown *= 2;
    uint32_t *v = realloc(*indices, grown * sizeof *v);
    if (!v)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu leaf indices", grown);
    *indices = v;
    *cap = grown;
    return KD_OK;
}

/* A leaf listing the node's triangles (each has exactly one START or PLANAR
 * event on axis 0), in ascending order; *count: how many. */
static kd_status emit_leaf(node_buffer *b, const kd_event_lists *lists, bool track_tasks,
                           uint32_t *count, kd_error *err)
{
    kd_status st = kd_reserve_indices(&b->indices, &b->cap_indices, b->num_indices + lists->num_tris, err);
    if (st)
        return st;
    uint32_t *out = b->indices + b->num_indices, k = 0;
    for (uint32_t i = 0; i < lists->count[0]; i++)
        if (kd_event_type(lists->ev[0][i]) != KD_EVENT_END)
            out[k++] = kd_event_tri(lists->ev[0][i]);
    k = kd_sort_unique(out, k);
    size_t index;
    /* Offsets are local to the buffer; assembly makes them global. */
    st = push_node(b, kd_make_leaf((uint32_t)b->num_indices, k), 0, k, track_tasks, &index, err);
    if (st == KD_OK)
        b->num_indices += k;
    *count = k;
    return st;
}

/* A node's share of the mesh in progress units: its triangles over the
 * mesh's, divided by the duplication its path made (each split hands its
 * children the parent's share in proportion to their triangles). */
static size_t node_share(const build_ctx *ctx, uint32_t num_tris, const kd_path_state *path)
{
    if (!ctx->progress)
        return 0;
    const double n = (double)ctx->mesh->num_triangles * path->duplication;
    return n > 0.0 ? (size_t)((double)KD_BUILD_PROGRESS_TOTAL * (double)num_tris / n) : 0;
}

/* Counts a finished leaf of the given share; the calling thread (the one
 * that owns the first scratch) tells the caller, every thousandth of the
 * mesh. */
static void progress_leaf(build_ctx *ctx, const kd_split_scratch *scratch, size_t share)
{
    if (!ctx->progress)
        return;
    size_t done = atomic_fetch_add(&ctx->progress_done, share) + share;
    if (scratch != &ctx->scratch[0] || done - ctx->progress_told < KD_BUILD_PROGRESS_TOTAL / 1000)
        return;
    ctx->progress_told = done < KD_BUILD_PROGRESS_TOTAL ? done : KD_BUILD_PROGRESS_TOTAL;
    ctx->progress(ctx->progress_ctx, ctx->progress_told, KD_BUILD_PROGRESS_TOTAL);
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

/* Undoes the split at nodes[index]: its subtree, whose leaf indices start at
 * first_index, becomes one leaf listing them once each. Returns its count. */
static uint32_t collapse_subtree(node_buffer *out, size_t index, size_t first_index)
{
    uint32_t k = kd_sort_unique(out->indices + first_index, out->num_indices - first_index);
    out->nodes[index] = kd_make_leaf((uint32_t)first_index, k);
    out->num_nodes = index + 1;
    out->num_indices = first_index + k;
    return k;
}

/* Builds the subtree of one node, taking ownership of its event lists, and
 * gives its cost (tasks only: the upper levels' costs wait for the tasks).
 * upper: the upper levels, where small nodes become tasks. */
static kd_status build_node(build_ctx *ctx, kd_split_scratch *scratch, node_buffer *out,
                            const kd_aabb *box, kd_event_lists *lists, kd_path_state path,
                            bool upper, double *cost, kd_error *err)
{
    kd_status st;
    size_t index;
    const uint32_t num_tris = lists->num_tris;
    if (upper && num_tris <= ctx->task_threshold) {
        st = push_node(out, kd_make_leaf(0, 0), (uint32_t)ctx->num_tasks + 1, num_tris, true,
                       &index, err);
        if (st == KD_OK)
            st = add_task(ctx, box, lists, &path, err);
        kd_event_lists_free(lists);
        return st;
    }

    /* Leaf or split, by pbrt's rules over the exact SAH optimum. */
    const size_t share = node_share(ctx, num_tris, &path);
    kd_split split = {false, 0, 0.0f, 0.0, 0, 0};
    bool leaf = kd_leaf_before_sweep(num_tris, &path, box, ctx->params);
    if (!leaf) {
        /* Only the upper levels run alone; tasks already use every core. */
        split = kd_find_best_split(lists, box, ctx->params, upper ? ctx->num_workers : 1);
        leaf = kd_leaf_after_sweep(num_tris, &split, ctx->params, &path);
    }
    if (leaf) {
        uint32_t count = 0;
        st = emit_leaf(out, lists, upper, &count, err);
        kd_event_lists_free(lists);
        *cost = kd_leaf_cost(count, ctx->params);
        progress_leaf(ctx, scratch, share);
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

    const size_t first_index = out->num_indices;
    double cost_left = 0.0, cost_right = 0.0;
    st = push_node(out, kd_make_interior(split.axis, split.pos, 0), 0, num_tris, upper, &index, err);
    if (st == KD_OK)
        st = build_node(ctx, scratch, out, &left_box, &left, path, upper, &cost_left, err);
    else
        kd_event_lists_free(&left);
    if (st) {
        kd_event_lists_free(&right);
        return st;
    }
    /* Child indices are local to the buffer too. */
    out->nodes[index] = kd_make_interior(split.axis, split.pos, (uint32_t)out->num_nodes);
    st = build_node(ctx, scratch, out, &right_box, &right, path, upper, &cost_right, err);
    if (st || upper)
        return st;

    /* Keep the subtree only if it costs less than the leaf it replaced. */
    *cost = kd_subtree_cost(box, split.axis, split.pos, cost_left, cost_right, ctx->params);
    if (!kd_subtree_pays(*cost, num_tris, ctx->params))
        *cost = kd_leaf_cost(collapse_subtree(out, index, first_index), ctx->params);
    return KD_OK;
}

static void run_tasks(void *p, size_t begin, size_t end, int worker)
{
    build_ctx *ctx = p;
    for (size_t i = begin; i < end; i++) {
        build_task *t = &ctx->tasks[ctx->task_order[i]];
        t->status = build_node(ctx, &ctx->scratch[worker], &t->out, &t->box, &t->lists, t->path,
                               false, &t->cost, &t->err);
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
    return kd_build_cpu_progress(mesh, params, NULL, NULL, tree, timing, err);
}

kd_status kd_build_cpu_progress(const kd_mesh *mesh, const kd_build_params *params,
                                kd_build_progress_fn progress, void *progress_ctx, kd_tree *tree,
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
    ctx.progress = progress;
    ctx.progress_ctx = progress_ctx;
    atomic_init(&ctx.progress_done, 0);

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
    double upper_cost; /* known only at assembly */
    double t_upper = kd_build_now_ms();
    if (st == KD_OK)
        st = build_node(&ctx, &ctx.scratch[0], &upper, &root_box, &root,
                        (kd_path_state){max_depth, 0, 1.0}, true, &upper_cost, err);
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
        st = kd_cpu_assemble(&ctx, &upper, &root_box, tree, err);
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
