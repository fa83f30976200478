/* Subtrees that do not pay, counted on a finished tree (gpu_build_check.h):
 * costs bottom up as the builders' collapse rule takes them, each node's
 * triangles the sorted union of its leaves'. Independent of both builders'
 * code, so that it checks their rule rather than repeating it. */
#include <stdlib.h>
#include <string.h>

#include "gpu_build_check.h"

typedef struct unpaid_walk {
    const kd_tree *tree;
    double traversal, intersect;
    uint32_t max_union;
    gb_unpaid *out;
    int failed; /* out of memory */
} unpaid_walk;

typedef struct tri_set {
    uint32_t *v;
    size_t n;
} tri_set;

static double box_area(const kd_aabb *b)
{
    double d[3];
    for (int a = 0; a < 3; a++)
        d[a] = (double)b->hi[a] - (double)b->lo[a];
    return 2.0 * (d[0] * d[1] + d[0] * d[2] + d[1] * d[2]);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The union of two sorted sets, which it frees. */
static tri_set merge(unpaid_walk *w, tri_set a, tri_set b)
{
    tri_set u = {malloc((a.n + b.n + 1) * sizeof *u.v), 0};
    size_t i = 0, j = 0;
    if (!u.v) {
        w->failed = 1;
    } else {
        while (i < a.n || j < b.n) {
            uint32_t x = j == b.n || (i < a.n && a.v[i] <= b.v[j]) ? a.v[i] : b.v[j];
            i += i < a.n && a.v[i] == x;
            j += j < b.n && b.v[j] == x;
            u.v[u.n++] = x;
        }
    }
    free(a.v);
    free(b.v);
    return u;
}

/* The subtree at node i (box *box): its cost, and its triangles in *set. */
static double subtree(unpaid_walk *w, uint32_t i, const kd_aabb *box, uint32_t depth, tri_set *set)
{
    const kd_node node = w->tree->nodes[i];
    if (kd_node_is_leaf(node)) {
        uint32_t n = kd_node_num_prims(node);
        set->v = malloc((n + 1) * sizeof *set->v);
        set->n = 0;
        if (!set->v) {
            w->failed = 1;
            return 0.0;
        }
        memcpy(set->v, w->tree->leaf_indices + node.leaf_offset, n * sizeof *set->v);
        qsort(set->v, n, sizeof *set->v, cmp_u32);
        for (uint32_t k = 0; k < n; k++)
            if (k == 0 || set->v[k] != set->v[set->n - 1])
                set->v[set->n++] = set->v[k];
        return w->intersect * (double)n;
    }
    const int axis = kd_node_axis(node);
    kd_aabb below = *box, above = *box;
    below.hi[axis] = node.split;
    above.lo[axis] = node.split;
    tri_set a = {NULL, 0}, b = {NULL, 0};
    double ca = subtree(w, i + 1, &below, depth + 1, &a);
    double cb = subtree(w, kd_node_above_child(node), &above, depth + 1, &b);
    *set = merge(w, a, b);
    double cost = w->traversal + (box_area(&below) * ca + box_area(&above) * cb) / box_area(box);
    double leaf = w->intersect * (double)set->n;
    w->out->interior++;
    if (!(cost < leaf)) {
        w->out->unpaid++;
        if (set->n <= w->max_union)
            w->out->unpaid_small++;
        if (depth < w->out->shallowest)
            w->out->shallowest = depth;
    }
    return cost;
}

bool gb_count_unpaid(const kd_tree *tree, const kd_build_params *params, uint32_t max_union, gb_unpaid *out)
{
    memset(out, 0, sizeof *out);
    out->shallowest = UINT32_MAX;
    if (tree->num_nodes == 0)
        return true;
    unpaid_walk w = {tree, params->traversal_cost, params->intersect_cost, max_union, out, 0};
    tri_set all = {NULL, 0};
    subtree(&w, 0, &tree->bounds, 0, &all);
    free(all.v);
    return !w.failed;
}
