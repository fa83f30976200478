/* Statistics of any tree (definitions in tree_stats.h). */
#include "tree_stats.h"

#include <string.h>

void kd_sah_constants_default(kd_sah_constants *c)
{
    c->traversal_cost = 1.0f;
    c->intersect_cost = 5.0f;
    c->empty_bonus = 0.5f;
}

static double box_area(const kd_aabb *b)
{
    double d[3];
    for (int a = 0; a < 3; a++)
        d[a] = (double)b->hi[a] - (double)b->lo[a];
    return 2.0 * (d[0] * d[1] + d[0] * d[2] + d[1] * d[2]);
}

typedef struct walk_entry {
    uint32_t node, depth;
    kd_aabb box;
} walk_entry;

void kd_tree_compute_stats(const kd_tree *tree, const kd_sah_constants *constants,
                           kd_tree_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (constants)
        stats->constants = *constants;
    else
        kd_sah_constants_default(&stats->constants);
    stats->num_triangles = tree->num_triangles;
    stats->depth_cap = tree->max_depth;
    stats->num_nodes = tree->num_nodes;
    if (tree->num_nodes == 0)
        return;

    double root_area = box_area(&tree->bounds);
    double depth_sum = 0.0;

    /* Preorder walk carrying each node's box; the stack holds pending above
     * children, at most one per level. */
    walk_entry stack[KD_TREE_DEPTH_LIMIT + 2];
    int top = 0;
    stack[top++] = (walk_entry){0, 0, tree->bounds};
    while (top > 0) {
        walk_entry e = stack[--top];
        kd_node n = tree->nodes[e.node];
        double p = root_area > 0.0 ? box_area(&e.box) / root_area : 1.0;
        if (kd_node_is_leaf(n)) {
            uint32_t count = kd_node_num_prims(n);
            stats->num_leaves++;
            stats->num_empty_leaves += count == 0;
            stats->num_leaf_refs += count;
            if (count > stats->max_leaf_prims)
                stats->max_leaf_prims = count;
            if (e.depth > stats->max_leaf_depth)
                stats->max_leaf_depth = e.depth;
            depth_sum += e.depth;
            stats->expected_triangle_tests += (double)count * p;
            continue;
        }
        stats->num_interior++;
        stats->expected_traversal_steps += p;
        if (top + 2 > (int)(sizeof stack / sizeof stack[0]))
            continue; /* deeper than any checked tree: precondition broken, stop here */
        int axis = kd_node_axis(n);
        walk_entry above = {kd_node_above_child(n), e.depth + 1, e.box};
        walk_entry below = {e.node + 1, e.depth + 1, e.box};
        above.box.lo[axis] = n.split;
        below.box.hi[axis] = n.split;
        stack[top++] = above;
        stack[top++] = below;
    }
    const kd_sah_constants *c = &stats->constants;
    stats->sah_cost = c->traversal_cost * stats->expected_traversal_steps +
                      c->intersect_cost * stats->expected_triangle_tests;
    stats->mean_leaf_depth = stats->num_leaves ? depth_sum / stats->num_leaves : 0.0;
    stats->refs_per_triangle =
        tree->num_triangles ? (double)stats->num_leaf_refs / tree->num_triangles : 0.0;
}

void kd_tree_stats_print(FILE *f, const kd_tree_stats *s, const kd_build_timing *timing)
{
    const kd_sah_constants *c = &s->constants;
    fprintf(f, "tree (SAH constants: traversal %g, intersect %g; empty bonus %g not applied)\n",
            c->traversal_cost, c->intersect_cost, c->empty_bonus);
    fprintf(f, "  %-26s %12.4f  (relative to the root's surface area)\n", "SAH cost", s->sah_cost);
    fprintf(f, "  %-26s %12u\n", "triangles", s->num_triangles);
    fprintf(f, "  %-26s %12u  (interior %u, leaves %u)\n", "nodes", s->num_nodes, s->num_interior,
            s->num_leaves);
    fprintf(f, "  %-26s %12u  (%.1f%% of leaves)\n", "empty leaves", s->num_empty_leaves,
            s->num_leaves ? 100.0 * s->num_empty_leaves / s->num_leaves : 0.0);
    fprintf(f, "  %-26s %12u  (cap %u)\n", "max leaf depth", s->max_leaf_depth, s->depth_cap);
    fprintf(f, "  %-26s %12.2f\n", "mean leaf depth", s->mean_leaf_depth);
    fprintf(f, "  %-26s %12.3f  (%llu references)\n", "references per triangle",
            s->refs_per_triangle, (unsigned long long)s->num_leaf_refs);
    fprintf(f, "  %-26s %12.0f\n", "max leaf triangles", s->max_leaf_prims);
    fprintf(f, "  %-26s %12.3f  (SAH-weighted, per ray)\n", "expected traversal steps",
            s->expected_traversal_steps);
    fprintf(f, "  %-26s %12.3f  (SAH-weighted, per ray)\n", "expected triangle tests",
            s->expected_triangle_tests);
    if (timing && timing->num_phases > 0) {
        fprintf(f, "build time (ms)\n");
        for (int i = 0; i < timing->num_phases; i++)
            fprintf(f, "  %-26s %12.1f\n", timing->phase_names[i], timing->phase_ms[i]);
        fprintf(f, "  %-26s %12.1f\n", "total", timing->total_ms);
    }
}

void kd_tree_stats_json(kd_json *json, const kd_tree_stats *s, const kd_build_timing *timing)
{
    kd_json_key(json, "sah_constants");
    kd_json_begin_object(json);
    kd_json_kv_number(json, "traversal", s->constants.traversal_cost);
    kd_json_kv_number(json, "intersect", s->constants.intersect_cost);
    kd_json_kv_number(json, "empty_bonus", s->constants.empty_bonus);
    kd_json_end_object(json);
    kd_json_kv_number(json, "sah_cost", s->sah_cost);
    kd_json_kv_int(json, "triangles", s->num_triangles);
    kd_json_kv_int(json, "nodes", s->num_nodes);
    kd_json_kv_int(json, "interior_nodes", s->num_interior);
    kd_json_kv_int(json, "leaves", s->num_leaves);
    kd_json_kv_int(json, "empty_leaves", s->num_empty_leaves);
    kd_json_kv_int(json, "max_leaf_depth", s->max_leaf_depth);
    kd_json_kv_number(json, "mean_leaf_depth", s->mean_leaf_depth);
    kd_json_kv_int(json, "depth_cap", s->depth_cap);
    kd_json_kv_int(json, "leaf_references", (int64_t)s->num_leaf_refs);
    kd_json_kv_number(json, "refs_per_triangle", s->refs_per_triangle);
    kd_json_kv_int(json, "max_leaf_triangles", (int64_t)s->max_leaf_prims);
    kd_json_kv_number(json, "expected_traversal_steps", s->expected_traversal_steps);
    kd_json_kv_number(json, "expected_triangle_tests", s->expected_triangle_tests);
    if (timing && timing->num_phases > 0) {
        kd_json_key(json, "build_ms");
        kd_json_begin_object(json);
        for (int i = 0; i < timing->num_phases; i++)
            kd_json_kv_number(json, timing->phase_names[i], timing->phase_ms[i]);
        kd_json_kv_number(json, "total", timing->total_ms);
        kd_json_end_object(json);
    }
}
