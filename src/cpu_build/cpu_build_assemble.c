/* The CPU builder's assembly: the upper levels in preorder with every task's
 * subtree spliced in, once the upper-level subtrees that do not pay have
 * become leaves (cpu_build_internal.h states the rule; the tasks applied it
 * to their own nodes as they built them, and the same rule on the same boxes
 * gives the same tree whatever the number of threads). */
#include <stdlib.h>

#include "cpu_build_tasks.h"

/* Upper-level nodes turned into leaves, with their triangles. */
typedef struct upper_leaves {
    uint8_t *is_leaf;
    uint32_t **tris;
    uint32_t *count;
} upper_leaves;

typedef struct u32_list {
    uint32_t *v;
    size_t n, cap;
} u32_list;

static kd_status list_append(u32_list *l, const uint32_t *src, size_t n, kd_error *err)
{
    KD_TRY(kd_reserve_indices(&l->v, &l->cap, l->n + n, err));
    if (n)
        memcpy(l->v + l->n, src, n * sizeof *src);
    l->n += n;
    return KD_OK;
}

/* The index just past the upper subtree at i (the buffer is in preorder). */
static size_t subtree_end(const node_buffer *up, size_t i)
{
    while (!up->task_of[i] && !kd_node_is_leaf(up->nodes[i]))
        i = kd_node_above_child(up->nodes[i]);
    return i + 1;
}

/* Every leaf reference of the upper subtree at i, its tasks' included. */
static kd_status gather(const build_ctx *ctx, const node_buffer *up, size_t i, u32_list *out,
                        kd_error *err)
{
    size_t end = subtree_end(up, i);
    kd_status st = KD_OK;
    for (size_t k = i; k < end && st == KD_OK; k++) {
        kd_node node = up->nodes[k];
        if (up->task_of[k]) {
            const node_buffer *sub = &ctx->tasks[up->task_of[k] - 1].out;
            st = list_append(out, sub->indices, sub->num_indices, err);
        } else if (kd_node_is_leaf(node)) {
            st = list_append(out, up->indices + node.leaf_offset, kd_node_num_prims(node), err);
        }
    }
    return st;
}

/* The cost of the upper subtree at i, bottom up from the tasks' costs;
 * subtrees that do not pay become leaves in *leaves. */
static kd_status upper_cost(const build_ctx *ctx, const node_buffer *up, size_t i,
                            const kd_aabb *box, upper_leaves *leaves, double *cost, kd_error *err)
{
    kd_node node = up->nodes[i];
    if (up->task_of[i]) {
        *cost = ctx->tasks[up->task_of[i] - 1].cost;
        return KD_OK;
    }
    if (kd_node_is_leaf(node)) {
        *cost = kd_leaf_cost(kd_node_num_prims(node), ctx->params);
        return KD_OK;
    }
    int axis = kd_node_axis(node);
    kd_aabb left, right;
    kd_split_boxes(box, axis, node.split, &left, &right);
    double cost_left, cost_right;
    KD_TRY(upper_cost(ctx, up, i + 1, &left, leaves, &cost_left, err));
    KD_TRY(upper_cost(ctx, up, kd_node_above_child(node), &right, leaves, &cost_right, err));
    *cost = kd_subtree_cost(box, axis, node.split, cost_left, cost_right, ctx->params);
    if (kd_subtree_pays(*cost, up->tris_of[i], ctx->params))
        return KD_OK;
    u32_list all = {NULL, 0, 0};
    kd_status st = gather(ctx, up, i, &all, err);
    if (st) {
        free(all.v);
        return st;
    }
    leaves->is_leaf[i] = 1;
    leaves->tris[i] = all.v;
    leaves->count[i] = kd_sort_unique(all.v, all.n);
    *cost = kd_leaf_cost(leaves->count[i], ctx->params);
    return KD_OK;
}

typedef struct assembly {
    const build_ctx *ctx;
    const node_buffer *upper;
    const upper_leaves *leaves;
    kd_tree *tree; /* NULL: only count */
    size_t num_nodes, num_indices;
} assembly;

static void put_node(assembly *as, kd_node node)
{
    if (as->tree)
        as->tree->nodes[as->num_nodes] = node;
    as->num_nodes++;
}

/* A leaf of n triangles from src. */
static void put_leaf(assembly *as, const uint32_t *src, size_t n)
{
    put_node(as, kd_make_leaf((uint32_t)as->num_indices, (uint32_t)n));
    if (as->tree && n) /* src may be NULL then */
        memcpy(as->tree->leaf_indices + as->num_indices, src, n * sizeof *src);
    as->num_indices += n;
}

/* A task's buffer, its offsets made global. */
static void put_task(assembly *as, const node_buffer *sub)
{
    uint32_t node_base = (uint32_t)as->num_nodes, index_base = (uint32_t)as->num_indices;
    for (size_t k = 0; as->tree && k < sub->num_nodes; k++) {
        kd_node n = sub->nodes[k];
        if (kd_node_is_leaf(n))
            n.leaf_offset += index_base;
        else
            n = kd_make_interior(kd_node_axis(n), n.split, kd_node_above_child(n) + node_base);
        as->tree->nodes[as->num_nodes + k] = n;
    }
    if (as->tree && sub->num_indices)
        memcpy(as->tree->leaf_indices + as->num_indices, sub->indices,
               sub->num_indices * sizeof *sub->indices);
    as->num_nodes += sub->num_nodes;
    as->num_indices += sub->num_indices;
}

/* Emits the upper-level subtree rooted at i; returns the upper index after it. */
static size_t assemble(assembly *as, size_t i)
{
    const node_buffer *up = as->upper;
    kd_node node = up->nodes[i];
    if (as->leaves->is_leaf[i]) {
        put_leaf(as, as->leaves->tris[i], as->leaves->count[i]);
        return subtree_end(up, i);
    }
    if (up->task_of[i]) {
        put_task(as, &as->ctx->tasks[up->task_of[i] - 1].out);
        return i + 1;
    }
    if (kd_node_is_leaf(node)) {
        put_leaf(as, up->indices + node.leaf_offset, kd_node_num_prims(node));
        return i + 1;
    }
    size_t me = as->num_nodes;
    put_node(as, node);
    size_t above = assemble(as, i + 1);
    if (as->tree)
        as->tree->nodes[me] = kd_make_interior(kd_node_axis(node), node.split, (uint32_t)as->num_nodes);
    return assemble(as, above);
}

static void free_leaves(upper_leaves *l, size_t n)
{
    for (size_t i = 0; l->tris && i < n; i++)
        free(l->tris[i]);
    free(l->is_leaf);
    free(l->tris);
    free(l->count);
}

kd_status kd_cpu_assemble(const build_ctx *ctx, const node_buffer *upper, const kd_aabb *root_box,
                          kd_tree *tree, kd_error *err)
{
    size_t n = upper->num_nodes;
    upper_leaves leaves = {calloc(n, 1), calloc(n, sizeof(uint32_t *)), calloc(n, sizeof(uint32_t))};
    kd_status st = KD_OK;
    double cost;
    if (!leaves.is_leaf || !leaves.tris || !leaves.count)
        st = kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu upper-level nodes", n);
    else
        st = upper_cost(ctx, upper, 0, root_box, &leaves, &cost, err);

    /* Count, then fill. */
    assembly as = {ctx, upper, &leaves, NULL, 0, 0};
    if (st == KD_OK)
        assemble(&as, 0);
    if (st == KD_OK && (as.num_nodes > KD_NODE_MAX_COUNT || as.num_indices > UINT32_MAX))
        st = kd_error_set(err, KD_ERR_NOMEM,
                          "tree too large for the format: %zu nodes, %zu leaf references",
                          as.num_nodes, as.num_indices);
    if (st == KD_OK) {
        tree->nodes = malloc(as.num_nodes * sizeof *tree->nodes);
        tree->leaf_indices = malloc((as.num_indices ? as.num_indices : 1) * sizeof *tree->leaf_indices);
        if (!tree->nodes || !tree->leaf_indices)
            st = kd_error_set(err, KD_ERR_NOMEM, "out of memory for a tree of %zu nodes",
                              as.num_nodes);
    }
    if (st == KD_OK) {
        tree->num_nodes = (uint32_t)as.num_nodes;
        tree->num_leaf_indices = (uint32_t)as.num_indices;
        as = (assembly){ctx, upper, &leaves, tree, 0, 0};
        assemble(&as, 0);
    }
    free_leaves(&leaves, n);
    return st;
}
