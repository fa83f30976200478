/* Hand-made scenes whose best splits and costs are known in advance, the
 * build parameters' defaults and the depth cap. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build_support.h"
#include "cpu_build.h"
#include "cpu_build_internal.h"
#include "test_support.h"
#include "tree_io.h"
#include "tree_stats.h"

static void test_defaults(void)
{
    kd_build_params p;
    kd_build_params_default(&p);
    CHECK(p.traversal_cost == 1.0f && p.intersect_cost == 5.0f && p.empty_bonus == 0.5f);
    CHECK(p.max_bad_refines == 3 && p.bad_cost_ratio == 4.0f);
    CHECK(p.max_prims_in_leaf_for_cost_cutoff == 16 && p.max_leaf_prims == 1);
    /* pbrt: round(8 + 1.3 floor(log2 N)) */
    CHECK(kd_build_max_depth(&p, 1) == 8);
    CHECK(kd_build_max_depth(&p, 36) == 15);      /* 8 + 1.3 * 5 = 14.5 */
    CHECK(kd_build_max_depth(&p, 69451) == 29);   /* 8 + 1.3 * 16 = 28.8 */
    CHECK(kd_build_max_depth(&p, 871414) == 33);  /* 8 + 1.3 * 19 = 32.7 */
    p.max_depth = 5;
    CHECK(kd_build_max_depth(&p, 871414) == 5);
}

/* One triangle: pbrt's maxPrims = 1 makes the root a leaf of cost 5. */
static void test_single_triangle(void)
{
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0.5f};
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, v, 1);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    CHECK(tree.num_nodes == 1 && kd_node_is_leaf(tree.nodes[0]));
    CHECK(kd_node_num_prims(tree.nodes[0]) == 1 && tree.leaf_indices[0] == 0);
    CHECK(tree.bounds.lo[0] == 0.0f && tree.bounds.hi[0] == 1.0f && tree.bounds.hi[2] == 0.5f);
    kd_tree_stats s;
    kd_tree_compute_stats(&tree, NULL, &s);
    CHECK(s.sah_cost == 5.0 && s.num_leaves == 1 && s.max_leaf_depth == 0);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

/* No triangles: one empty leaf, still a valid tree. */
static void test_empty_mesh(void)
{
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, NULL, 0);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    CHECK(tree.num_nodes == 1 && kd_node_num_prims(tree.nodes[0]) == 0);
    CHECK(kd_tree_check_structure(&tree, &err) == KD_OK);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

/* Two clusters far apart: 4 triangles spanning [0,1] in x, 2 spanning [9,10],
 * all spanning [0,1] in y and z. Every plane in y or z cuts all six; in x the
 * cheapest plane leaves the big empty gap to the smaller cluster, so it lies
 * just past the first cluster: x = 1+ (the float after 1), where the first
 * cluster goes left only. */
static void test_two_clusters(void)
{
    float v[6 * 9];
    for (int t = 0; t < 6; t++) {
        float x0 = t < 4 ? 0.0f : 9.0f;
        float tri[9] = {x0, 0, 0, x0 + 1, 0, 1, x0, 1, 1};
        memcpy(v + 9 * t, tri, sizeof tri);
    }
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, v, 6);
    kd_build_params p;
    kd_build_params_default(&p);

    kd_event_lists root;
    kd_aabb box;
    kd_error err;
    CHECK(kd_root_events(&mesh, &box, &root, 1, NULL, NULL, &err) == KD_OK);
    kd_split split = kd_find_best_split(&root, &box, &p, 1);
    float one_up = nextafterf(1.0f, 2.0f);
    CHECK(split.found && split.axis == 0 && split.pos == one_up);
    /* By hand: the root box is 10 x 1 x 1 (area 42); the left child
     * [0, 1+] x [0,1]^2 holds 4, the right [1+, 10] x [0,1]^2 holds 2. */
    double wl = (double)one_up, wr = 10.0 - (double)one_up;
    double al = 2.0 * (wl + wl + 1.0), ar = 2.0 * (wr + wr + 1.0);
    double hand = 1.0 + 5.0 * (al / 42.0 * 4.0 + ar / 42.0 * 2.0);
    CHECK_MSG(fabs(split.cost - hand) < 1e-12, "cost %.15g, by hand %.15g", split.cost, hand);
    kd_event_lists_free(&root);

    kd_tree tree;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    CHECK(!kd_node_is_leaf(tree.nodes[0]) && kd_node_axis(tree.nodes[0]) == 0 &&
          tree.nodes[0].split == one_up);
    /* Each cluster lives only on its side. */
    uint32_t above = kd_node_above_child(tree.nodes[0]);
    for (uint32_t i = 1; i < tree.num_nodes; i++) {
        kd_node n = tree.nodes[i];
        if (!kd_node_is_leaf(n))
            continue;
        for (uint32_t k = 0; k < kd_node_num_prims(n); k++) {
            uint32_t t = tree.leaf_indices[n.leaf_offset + k];
            CHECK_MSG((t < 4) == (i < above), "triangle %u in leaf %u on the wrong side", t, i);
        }
    }
    CHECK(bt_check_exact_overlap(&tree, &mesh) == 0);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

/* Eight copies of one triangle: no plane separates them, so every split
 * sends all eight to both sides and costs more than the leaf of 40. pbrt's
 * rules take two such splits before the third bad refine stops them (four
 * leaves of eight); they do not pay, so the tree is the one leaf. */
static void test_unseparable_stack(void)
{
    float v[8 * 9];
    for (int t = 0; t < 8; t++) {
        float tri[9] = {0, 0, 0, 1, 0.25f, 0, 0.5f, 1, 1};
        memcpy(v + 9 * t, tri, sizeof tri);
    }
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, v, 8);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    CHECK_MSG(tree.num_nodes == 1 && kd_node_num_prims(tree.nodes[0]) == 8, "%u nodes",
              tree.num_nodes);
    kd_tree_stats s;
    kd_tree_compute_stats(&tree, NULL, &s);
    CHECK(s.sah_cost == 40.0 && s.refs_per_triangle == 1.0);
    for (uint32_t k = 0; k < 8 && tree.num_leaf_indices == 8; k++)
        CHECK(tree.leaf_indices[k] == k);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

/* A wall lying exactly in a candidate plane: with a triangle on either side
 * touching the wall's plane, the exact SAH cuts next to it, and triangles that
 * touch a split plane appear in every child whose closed box they touch. */
static void test_touching_planes(void)
{
    float v[] = {
        /* wall in x = 1 */
        1, 0, 0, 1, 1, 0, 1, 0, 1,
        /* left triangle touching x = 1 with an edge */
        0, 0, 0, 1, 0.5f, 0.5f, 1, 0.5f, 0.25f,
        /* right triangle touching x = 1 at one vertex */
        1, 0.25f, 0.25f, 2, 1, 1, 2, 0, 1,
        /* filler so that splitting pays */
        0, 0.9f, 0.9f, 0.1f, 1, 1, 0, 1, 0.9f,
        1.9f, 0, 0, 2, 0.1f, 0, 2, 0, 0.1f,
    };
    uint32_t n = (uint32_t)(sizeof v / sizeof v[0] / 9);
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, v, n);
    kd_build_params p;
    kd_build_params_default(&p);
    p.empty_bonus = 0.0f;
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    CHECK(kd_tree_check_structure(&tree, &err) == KD_OK);
    CHECK(bt_check_exact_overlap(&tree, &mesh) == 0);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

/* The depth cap is honoured and recorded. */
static void test_depth_cap(void)
{
    kd_mesh mesh;
    bt_random_mesh(&mesh, 12345, BT_SCENE_SOUP, 400);
    kd_build_params p;
    kd_build_params_default(&p);
    for (int cap = 0; cap <= 4; cap += 2) {
        p.max_depth = cap;
        kd_tree tree;
        kd_error err;
        CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
        CHECK(tree.max_depth == (uint32_t)cap);
        CHECK_MSG(bt_tree_depth(&tree) <= (uint32_t)cap, "depth %u over cap %d",
                  bt_tree_depth(&tree), cap);
        CHECK(kd_tree_check_structure(&tree, &err) == KD_OK);
        CHECK(bt_check_exact_overlap(&tree, &mesh) == 0);
        if (cap == 0)
            CHECK(tree.num_nodes == 1 && kd_node_num_prims(tree.nodes[0]) == mesh.num_triangles);
        kd_tree_free(&tree);
    }
    kd_mesh_free(&mesh);
}

/* Bad input is refused with a reason, not built over. */
static void test_invalid_input(void)
{
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, v, 1);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;

    mesh.positions[4] = NAN;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "non-finite") != NULL);
    CHECK(tree.nodes == NULL);
    mesh.positions[4] = 0.0f;

    mesh.indices[2] = 7;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "out of range") != NULL);
    mesh.indices[2] = 2;

    p.intersect_cost = 0.0f;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_ERR_INVALID);
    kd_build_params_default(&p);
    p.empty_bonus = 1.5f;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_ERR_INVALID);
    kd_build_params_default(&p);
    p.max_bad_refines = 0;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_ERR_INVALID);
    kd_mesh_free(&mesh);
}

/* Timing phases are reported and add up to no more than the total. */
static void test_timing(void)
{
    kd_mesh mesh;
    bt_random_mesh(&mesh, 777, BT_SCENE_MIXED, 3000);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_build_timing t;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, &t, &err) == KD_OK);
    CHECK(t.num_phases >= 4 && t.num_phases <= KD_BUILD_MAX_PHASES);
    double sum = 0.0;
    for (int i = 0; i < t.num_phases; i++) {
        CHECK(t.phase_names[i] != NULL && t.phase_ms[i] >= 0.0);
        sum += t.phase_ms[i];
    }
    CHECK(t.total_ms > 0.0 && sum <= t.total_ms + 1e-6);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
}

int main(void)
{
    test_defaults();
    test_single_triangle();
    test_empty_mesh();
    test_two_clusters();
    test_unseparable_stack();
    test_touching_planes();
    test_depth_cap();
    test_invalid_input();
    test_timing();
    return kd_test_finish("build_handmade");
}
