/* Statistics of hand-made trees against figures worked out by hand, and the
 * text and JSON forms. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build_support.h"
#include "cpu_build.h"
#include "test_support.h"
#include "tree_stats.h"

static bool near(double a, double b) { return fabs(a - b) <= 1e-12 * fmax(1.0, fabs(b)); }

/* Root box [0,2] x [0,1] x [0,1] (area 10), split at x = 1 into two unit
 * cubes (area 6 each, p = 0.6): the below leaf holds triangles 0 and 1, the
 * above leaf nothing.
 *   steps = 1 (the root), tests = 2 x 0.6 = 1.2
 *   cost  = 1 x 1 + 5 x 1.2 = 7 (the empty bonus is not applied) */
static void test_two_leaves(void)
{
    kd_node nodes[3] = {kd_make_interior(0, 1.0f, 2), kd_make_leaf(0, 2), kd_make_leaf(2, 0)};
    uint32_t indices[2] = {0, 1};
    kd_tree tree = {nodes, 3, indices, 2, 2, 4, {{0, 0, 0}, {2, 1, 1}}};
    kd_tree_stats s;
    kd_tree_compute_stats(&tree, NULL, &s);
    CHECK(s.num_nodes == 3 && s.num_interior == 1 && s.num_leaves == 2);
    CHECK(s.num_empty_leaves == 1 && s.max_leaf_depth == 1 && s.mean_leaf_depth == 1.0);
    CHECK(s.num_leaf_refs == 2 && s.refs_per_triangle == 1.0 && s.max_leaf_prims == 2.0);
    CHECK(s.depth_cap == 4 && s.num_triangles == 2);
    CHECK_MSG(near(s.expected_traversal_steps, 1.0), "steps %.17g", s.expected_traversal_steps);
    CHECK_MSG(near(s.expected_triangle_tests, 1.2), "tests %.17g", s.expected_triangle_tests);
    CHECK_MSG(near(s.sah_cost, 7.0), "cost %.17g", s.sah_cost);
    CHECK(near(bt_sah_cost(&tree, 1.0, 5.0), 7.0));

    /* Other constants: 2 x 1 + 3 x 1.2 = 5.6, whatever the empty bonus. */
    kd_sah_constants c = {2.0f, 3.0f, 0.25f};
    kd_tree_compute_stats(&tree, &c, &s);
    CHECK_MSG(near(s.sah_cost, 5.6), "cost %.17g", s.sah_cost);
    c.empty_bonus = 0.9f;
    kd_tree_compute_stats(&tree, &c, &s);
    CHECK_MSG(near(s.sah_cost, 5.6), "cost %.17g", s.sah_cost);

    /* Text block and JSON carry the figures. */
    FILE *f = tmpfile();
    kd_build_timing timing = {2, {"sweep", "assembly"}, {1.5, 0.25}, 2.0};
    kd_tree_stats_print(f, &s, &timing);
    kd_json json;
    kd_json_init(&json, f);
    kd_json_begin_object(&json);
    kd_tree_stats_json(&json, &s, &timing);
    kd_json_end_object(&json);
    long size = ftell(f);
    char *text = calloc((size_t)size + 1, 1);
    rewind(f);
    CHECK(fread(text, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    const char *expect[] = {"SAH cost", "5.6000", "empty leaves", "references per triangle",
                            "expected traversal steps", "sweep", "total",
                            "\"sah_cost\": 5.6", "\"empty_leaves\": 1", "\"max_leaf_depth\": 1",
                            "\"refs_per_triangle\": 1", "\"expected_triangle_tests\": 1.2",
                            "\"sweep\": 1.5", "\"traversal\": 2", "not applied"};
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++)
        CHECK_MSG(strstr(text, expect[i]) != NULL, "output lacks '%s':\n%s", expect[i], text);
    free(text);
}

/* A single leaf: the SAH cost is intersect x count; a degenerate root box
 * (a segment) counts every node with probability 1. */
static void test_single_leaf(void)
{
    kd_node node = kd_make_leaf(0, 3);
    uint32_t indices[3] = {0, 1, 2};
    kd_tree tree = {&node, 1, indices, 3, 3, 8, {{0, 0, 0}, {1, 0, 0}}};
    kd_tree_stats s;
    kd_tree_compute_stats(&tree, NULL, &s);
    CHECK(near(s.sah_cost, 15.0) && s.num_interior == 0 && s.max_leaf_depth == 0);
    CHECK(near(s.expected_triangle_tests, 3.0) && s.expected_traversal_steps == 0.0);
}

/* On built trees the stats agree with a direct recursive computation, and
 * the refs count matches the index array. */
static void test_built_tree(void)
{
    kd_mesh mesh;
    bt_random_mesh(&mesh, 99, BT_SCENE_MIXED, 2000);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    kd_tree_stats s;
    kd_tree_compute_stats(&tree, NULL, &s);
    CHECK(near(s.sah_cost, bt_sah_cost(&tree, 1.0, 5.0)));
    CHECK(s.num_leaf_refs == tree.num_leaf_indices);
    CHECK(s.num_nodes == tree.num_nodes && s.num_interior + s.num_leaves == s.num_nodes);
    CHECK(s.num_leaves == s.num_interior + 1);
    CHECK(s.max_leaf_depth == bt_tree_depth(&tree) && s.max_leaf_depth <= tree.max_depth);
    CHECK(near(s.sah_cost, 1.0 * s.expected_traversal_steps + 5.0 * s.expected_triangle_tests));
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

int main(void)
{
    test_two_leaves();
    test_single_leaf();
    test_built_tree();
    return kd_test_finish("tree_stats_check");
}
