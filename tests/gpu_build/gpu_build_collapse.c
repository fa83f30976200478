/* The GPU builder's collapse rule (cuda/gpu_build/gpu_build_collapse.cu),
 * emulated: no small subtree of its trees costs as much as the leaf of its
 * triangles, the rule never raises the tree's SAH cost nor adds a node or a
 * reference, and the trees stay right. Each scene is built with the rule
 * and without it (the keep_subtrees hook), and the counts come from the
 * finished trees (gb_count_unpaid), not from the builder. */
#include <stdio.h>
#include <string.h>

#include "gpu_build.h"
#include "gpu_build_check.h"
#include "test_support.h"
#include "tree_stats.h"

typedef struct figures {
    double sah;
    uint32_t nodes, refs;
    gb_unpaid unpaid;
} figures;

static bool build(const char *label, const kd_mesh *mesh, const kd_gpu_build_options *opts, int keep,
                  figures *f)
{
    kd_gpu_build_options o = *opts;
    o.hooks.keep_subtrees = keep;
    kd_tree t;
    kd_error err;
    kd_status st = kd_build_gpu_emulated(mesh, &o, &t, NULL, &err);
    CHECK_MSG(st == KD_OK, "%s: %s", label, err.message);
    if (st != KD_OK)
        return false;
    /* Both ways: without the rule the small stage's leaves still carry the
     * box areas it keeps for it, which the tree must not show. */
    gb_check_tree(label, mesh, &t, 400);
    f->sah = gb_sah_cost(&t);
    f->nodes = t.num_nodes;
    f->refs = t.num_leaf_indices;
    CHECK_MSG(gb_count_unpaid(&t, &o.params, (uint32_t)o.small_node_threshold, &f->unpaid), "%s: out of memory",
              label);
    kd_tree_free(&t);
    return true;
}

/* One scene with and without the rule; returns the small subtrees that did
 * not pay without it. */
static uint32_t check_rule(const char *label, const kd_mesh *mesh, const kd_gpu_build_options *opts)
{
    figures before, after;
    if (!build(label, mesh, opts, 1, &before) || !build(label, mesh, opts, 0, &after))
        return 0;
    CHECK_MSG(after.unpaid.unpaid_small == 0, "%s: %u small subtrees do not pay (shallowest at depth %u)", label,
              after.unpaid.unpaid_small, after.unpaid.shallowest);
    CHECK_MSG(after.sah <= before.sah * (1.0 + 1e-12), "%s: SAH %.6f with the rule, %.6f without", label,
              after.sah, before.sah);
    CHECK_MSG(after.nodes <= before.nodes && after.refs <= before.refs,
              "%s: %u nodes and %u references with the rule, %u and %u without", label, after.nodes, after.refs,
              before.nodes, before.refs);
    CHECK_MSG((before.unpaid.unpaid_small == 0) == (after.nodes == before.nodes),
              "%s: %u small subtrees did not pay, nodes %u -> %u", label, before.unpaid.unpaid_small,
              before.nodes, after.nodes);
    return before.unpaid.unpaid_small;
}

static void test_synthetic(void)
{
    static const uint32_t sizes[] = {40, 3000};
    uint32_t unpaid = 0;
    for (int kind = 0; kind < GB_SCENE_NUM_KINDS; kind++) {
        for (int si = 0; si < 2; si++) {
            kd_mesh mesh;
            gb_make_scene(&mesh, (gb_scene_kind)kind, sizes[si], 7u + (uint32_t)kind);
            for (int small = 0; small < 2; small++) {
                kd_gpu_build_options o;
                gb_options(&o, KD_LARGE_SPLIT_SAH);
                o.small_node_threshold = small ? 8 : 64;
                char label[128];
                snprintf(label, sizeof label, "%s %u, threshold %d", gb_scene_name((gb_scene_kind)kind),
                         sizes[si], o.small_node_threshold);
                unpaid += check_rule(label, &mesh, &o);
            }
            kd_mesh_free(&mesh);
        }
    }
    /* Without the rule these scenes have such subtrees: the test can fail. */
    CHECK_MSG(unpaid > 0, "no synthetic scene has a small subtree that does not pay");
}

/* Forty axis-aligned quads: the whole scene under one small root, where
 * pbrt's bad refines leave subtrees that do not pay. */
static void test_one_small_root(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_QUADS, 40, 3);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    CHECK_MSG(check_rule("quads 40, one small root", &mesh, &o) > 0,
              "quads 40: no subtree that does not pay without the rule");
    kd_mesh_free(&mesh);
}

/* Real scenes, where they are (../shared/scenes). */
static void test_shared(void)
{
    static const char *const scenes[] = {"cornell_box_original", "utah_teapot"};
    for (size_t k = 0; k < sizeof scenes / sizeof *scenes; k++) {
        kd_mesh mesh;
        if (!gb_load_shared(scenes[k], &mesh))
            continue;
        kd_gpu_build_options o;
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        CHECK_MSG(check_rule(scenes[k], &mesh, &o) > 0, "%s: no subtree that does not pay without the rule",
                  scenes[k]);
        kd_mesh_free(&mesh);
    }
}

int main(void)
{
    test_one_small_root();
    test_synthetic();
    test_shared();
    return kd_test_finish("gpu_build_collapse");
}
