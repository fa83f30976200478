/* The GPU builder's pipeline run on the CPU (host emulation: every kernel's
 * per-element code, plain loops for the primitives), so its logic is tested
 * where there is no GPU. Trees must pass the verifier, be deterministic,
 * survive degenerate scenes, respect the memory cap and stay within 10% of
 * the CPU exact-SAH builder's cost. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_build.h"
#include "gpu_build.h"
#include "gpu_build_check.h"
#include "test_support.h"

static kd_status build(const kd_mesh *mesh, const kd_gpu_build_options *opts, kd_tree *tree,
                       kd_error *err)
{
    return kd_build_gpu_emulated(mesh, opts, tree, NULL, err);
}

/* Builds twice, checks the tree and that both builds are the same bytes. */
static void check_scene(const char *label, const kd_mesh *mesh, const kd_gpu_build_options *opts,
                        uint32_t num_rays)
{
    kd_tree a, b;
    kd_error err;
    kd_status st = build(mesh, opts, &a, &err);
    CHECK_MSG(st == KD_OK, "%s: %s", label, err.message);
    if (st != KD_OK)
        return;
    gb_check_tree(label, mesh, &a, num_rays);
    st = build(mesh, opts, &b, &err);
    CHECK_MSG(st == KD_OK, "%s (again): %s", label, err.message);
    if (st == KD_OK)
        CHECK_MSG(gb_trees_equal(&a, &b), "%s: two builds differ", label);
    kd_tree_free(&a);
    kd_tree_free(&b);
}

static void test_synthetic(void)
{
    static const uint32_t sizes[] = {40, 3000};
    for (int kind = 0; kind < GB_SCENE_NUM_KINDS; kind++) {
        for (int si = 0; si < 2; si++) {
            kd_mesh mesh;
            gb_make_scene(&mesh, (gb_scene_kind)kind, sizes[si], 7u + (uint32_t)kind);
            for (int split = 0; split < 2; split++) {
                for (int small = 0; small < 2; small++) {
                    kd_gpu_build_options o;
                    gb_options(&o, (kd_large_split)split);
                    o.small_node_threshold = small ? 8 : 64;
                    char label[128];
                    snprintf(label, sizeof label, "%s %u, %s, threshold %d",
                             gb_scene_name((gb_scene_kind)kind), sizes[si],
                             kd_large_split_name(o.large_split), o.small_node_threshold);
                    check_scene(label, &mesh, &o, 800);
                }
            }
            kd_mesh_free(&mesh);
        }
    }
}

/* Thousands of identical triangles must end in one leaf, not in a blow-up. */
static void test_identical_bounded(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_IDENTICAL, 5000, 1);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_MEDIAN);
    kd_tree t;
    kd_error err;
    CHECK(build(&mesh, &o, &t, &err) == KD_OK);
    CHECK_MSG(t.num_leaf_indices <= 2 * mesh.num_triangles, "%u references for %u triangles",
              t.num_leaf_indices, mesh.num_triangles);
    kd_tree_free(&t);
    kd_mesh_free(&mesh);
}

static void test_limits(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 4000, 3);
    kd_gpu_build_options o;
    kd_tree t;
    kd_error err;

    /* A tiny depth cap: large nodes turn into leaves at the cap. */
    gb_options(&o, KD_LARGE_SPLIT_MEDIAN);
    o.params.max_depth = 3;
    CHECK(build(&mesh, &o, &t, &err) == KD_OK);
    CHECK(t.max_depth == 3);
    gb_check_tree("depth cap 3", &mesh, &t, 400);
    kd_tree_free(&t);

    /* A tight reference budget: the large stage stops early, still right. */
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.max_refs_per_triangle = 2.0f;
    o.small_node_threshold = 4;
    CHECK(build(&mesh, &o, &t, &err) == KD_OK);
    gb_check_tree("budget 2", &mesh, &t, 400);
    kd_tree_free(&t);

    /* A low depth cap on the soup: the children a small-stage split makes
     * leaves at once (at the cap) take no member entries and, with
     * straddlers, hold more references than their parent's entries, so the
     * output's estimate falls short and it places the tree again. */
    {
        kd_mesh soup;
        gb_make_scene(&soup, GB_SCENE_SOUP, 3000, 1);
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        o.params.max_depth = 7;
        kd_gpu_build_profile prof;
        CHECK(kd_build_gpu_emulated(&soup, &o, &t, &prof, &err) == KD_OK);
        CHECK_MSG(prof.num_output_retries == 1, "depth cap 7: %u output retries", prof.num_output_retries);
        gb_check_tree("depth cap 7, leaves past the estimate", &soup, &t, 400);
        kd_tree_free(&t);
        check_scene("depth cap 7 (twice)", &soup, &o, 200);
        kd_mesh_free(&soup);
    }

    /* Bad options are refused. */
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.small_node_threshold = 65;
    CHECK(build(&mesh, &o, &t, &err) == KD_ERR_INVALID);
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.sah_bins = 1;
    CHECK(build(&mesh, &o, &t, &err) == KD_ERR_INVALID);
    kd_mesh_free(&mesh);
}

/* The medium stage (a warp or a block per node on the device) builds the
 * tree the large stage would: the same splits, the same references in the
 * same order. Trees with it from the root down, from a middle level and
 * without it must be the same bytes. */
static void test_medium(void)
{
    static const int settings[][2] = {{1, 1 << 30}, {4, 512}, {2, 100}};
    uint32_t cuts = 0, large_cuts = 0; /* empty cuts made in a row without a pass: the comparisons cover them */
    for (int kind = 0; kind < GB_SCENE_NUM_KINDS; kind++) {
        kd_mesh mesh;
        gb_make_scene(&mesh, (gb_scene_kind)kind, 3000, 31u + (uint32_t)kind);
        for (int split = 0; split < 2; split++) {
            kd_gpu_build_options o;
            gb_options(&o, (kd_large_split)split);
            o.medium_min_nodes = 0;
            kd_tree ref;
            kd_error err;
            kd_gpu_build_profile ref_prof;
            kd_status st = kd_build_gpu_emulated(&mesh, &o, &ref, &ref_prof, &err);
            CHECK_MSG(st == KD_OK, "%s without the medium stage: %s", gb_scene_name((gb_scene_kind)kind),
                      err.message);
            if (st != KD_OK)
                continue;
            large_cuts += ref_prof.num_large_cuts;
            CHECK_MSG(split == KD_LARGE_SPLIT_SAH || ref_prof.num_large_cuts == 0, "%s: median chained cuts",
                      gb_scene_name((gb_scene_kind)kind));
            for (size_t m = 0; m < sizeof settings / sizeof settings[0]; m++) {
                o.medium_min_nodes = settings[m][0];
                o.medium_max_refs = settings[m][1];
                kd_gpu_build_profile prof;
                kd_tree t;
                char label[128];
                snprintf(label, sizeof label, "%s, %s, medium at %d nodes of <= %d refs",
                         gb_scene_name((gb_scene_kind)kind), kd_large_split_name(o.large_split),
                         settings[m][0], settings[m][1]);
                st = kd_build_gpu_emulated(&mesh, &o, &t, &prof, &err);
                CHECK_MSG(st == KD_OK, "%s: %s", label, err.message);
                if (st != KD_OK)
                    continue;
                CHECK_MSG(m != 0 || prof.num_large_levels == 0, "%s: %u large levels", label,
                          prof.num_large_levels);
                CHECK_MSG(m != 0 || prof.num_medium_nodes > 0, "%s: the medium stage did not run", label);
                /* Both children of a 3000-reference root cannot hold at most
                 * 100 each: the first level of two nodes stays large (the
                 * emulation once read the level's largest node as 0). */
                CHECK_MSG(m != 2 || prof.num_medium_nodes == 0 || prof.num_large_levels >= 2,
                          "%s: handed over after %u large level(s)", label, prof.num_large_levels);
                CHECK_MSG(gb_trees_equal(&ref, &t), "%s: the tree differs from the large stage's", label);
                cuts += prof.num_medium_cuts;
                kd_tree_free(&t);
            }
            kd_tree_free(&ref);
        }
        kd_mesh_free(&mesh);
    }
    CHECK_MSG(cuts > 0, "the medium stage made no empty cut in a row on any scene");
    CHECK_MSG(large_cuts > 0, "the large stage made no empty cut in a row on any scene");
    /* A small-node threshold of 2 from the root down outgrows the medium
     * stage's first array sizes: the stage runs again, to the same tree. */
    {
        kd_mesh mesh;
        gb_make_scene(&mesh, GB_SCENE_SOUP, 3000, 41);
        kd_gpu_build_options o;
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        o.small_node_threshold = 2;
        o.medium_min_nodes = 0;
        kd_tree ref, t;
        kd_error err;
        kd_gpu_build_profile prof;
        CHECK(build(&mesh, &o, &ref, &err) == KD_OK);
        o.medium_min_nodes = 1;
        o.medium_max_refs = 1 << 30;
        CHECK(kd_build_gpu_emulated(&mesh, &o, &t, &prof, &err) == KD_OK);
        CHECK_MSG(prof.num_medium_retries > 0, "threshold 2: no medium retry (%u nodes)", prof.num_medium_nodes);
        CHECK(gb_trees_equal(&ref, &t));
        kd_tree_free(&ref);
        kd_tree_free(&t);
        kd_mesh_free(&mesh);
    }
    /* A clip-job array of 16 at first: the small stage's waves queue more
     * straddlers than that, void the run, grow it and run again, to the
     * same tree. */
    {
        kd_mesh mesh;
        gb_make_scene(&mesh, GB_SCENE_SOUP, 3000, 43);
        kd_gpu_build_options o;
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        kd_tree ref, t;
        kd_error err;
        kd_gpu_build_profile prof;
        CHECK(kd_build_gpu_emulated(&mesh, &o, &ref, &prof, &err) == KD_OK);
        const uint32_t default_retries = prof.num_small_retries; /* its other arrays may grow too */
        /* Then room for 16384 tasks beyond the roots and 16384 bounds beyond
         * their members at first: a wave's splits pass the arrays' ends
         * (some of a pass's splits committed, the others not), void the
         * run, the arrays grow and the stage runs again, to the same tree. */
        for (int small = 0; small < 2; small++) {
            o.hooks.small_clip_jobs = small == 0 ? 16u : 0u;
            o.hooks.small_room = small == 1 ? 16384u : 0u;
            const char *what = small == 0 ? "16 clip jobs" : "room 16384";
            CHECK(kd_build_gpu_emulated(&mesh, &o, &t, &prof, &err) == KD_OK);
            CHECK_MSG(prof.num_small_retries > default_retries, "%s: %u small retries, default %u", what,
                      prof.num_small_retries, default_retries);
            CHECK(gb_trees_equal(&ref, &t));
            kd_tree_free(&t);
        }
        kd_tree_free(&ref);
        kd_mesh_free(&mesh);
    }
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.medium_min_nodes = -1;
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 100, 1);
    kd_tree t;
    kd_error err;
    CHECK(build(&mesh, &o, &t, &err) == KD_ERR_INVALID);
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.medium_block_refs = -1;
    CHECK(build(&mesh, &o, &t, &err) == KD_ERR_INVALID);
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.hooks.medium_blocks = -1;
    CHECK(build(&mesh, &o, &t, &err) == KD_ERR_INVALID);
    kd_mesh_free(&mesh);
}

static void test_memory(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 3000, 5);
    kd_gpu_builder *b = NULL;
    kd_error err;
    CHECK(kd_gpu_builder_create(&b, 1, &err) == KD_OK);
    CHECK(kd_gpu_builder_set_mesh(b, &mesh, &err) == KD_OK);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);

    /* Under a cap far too small: the out-of-memory error and its message.
     * The cap covers all the builder holds, its copy of the mesh included. */
    size_t mesh_bytes = kd_gpu_builder_device_bytes(b);
    o.max_device_bytes = mesh_bytes + 64 * 1024;
    kd_status st = kd_gpu_builder_build(b, &o, NULL, &err);
    CHECK_MSG(st == KD_ERR_DEVICE_OOM, "capped build gave %d: %s", (int)st, err.message);
    CHECK_MSG(strstr(err.message, "needs") && strstr(err.message, "MiB free"), "message: %s",
              err.message);
    CHECK(kd_gpu_builder_device_bytes(b) <= o.max_device_bytes);

    /* The same builder recovers without the cap, and repeated builds reuse
     * their buffers: nothing grows, the trees are the same. */
    o.max_device_bytes = 0;
    kd_tree first, again;
    CHECK(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK);
    CHECK(kd_gpu_builder_download(b, &first, &err) == KD_OK);
    size_t held = kd_gpu_builder_device_bytes(b);
    for (int i = 0; i < 3; i++)
        CHECK(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK);
    CHECK(kd_gpu_builder_download(b, &again, &err) == KD_OK);
    CHECK_MSG(kd_gpu_builder_device_bytes(b) == held, "held %zu, then %zu", held,
              kd_gpu_builder_device_bytes(b));
    CHECK(gb_trees_equal(&first, &again));

    /* A cap that fits lets the build through (releasing what it held above it). */
    o.max_device_bytes = held + held / 2;
    CHECK_MSG(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK, "%s", err.message);
    kd_tree capped;
    CHECK(kd_gpu_builder_download(b, &capped, &err) == KD_OK);
    CHECK(gb_trees_equal(&first, &capped));
    kd_tree_free(&first);
    kd_tree_free(&again);
    kd_tree_free(&capped);
    kd_gpu_builder_destroy(b);
    kd_mesh_free(&mesh);
}

static void test_empty_mesh(void)
{
    kd_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    kd_tree t;
    kd_error err;
    kd_status st = build(&mesh, &o, &t, &err);
    CHECK_MSG(st == KD_OK, "empty mesh: %s", err.message);
    if (st == KD_OK) {
        CHECK(t.num_nodes == 1 && kd_node_is_leaf(t.nodes[0]) && kd_node_num_prims(t.nodes[0]) == 0);
        kd_tree_free(&t);
    }
}

/* The large and medium stages' empty cuts: by default at the build rules'
 * min_empty_fraction (the same tree as that value given outright, for the
 * default rules and pbrt's), another fraction another tree (slivers: the
 * scene where 0.25 makes more cuts below), both right; out of range refused. */
static void test_empty_space(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SLIVERS, 3000, 12);
    kd_gpu_build_options o;
    kd_tree dflt, t;
    kd_error err;
    for (int rule = 0; rule < 2; rule++) {
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        if (rule)
            o.params.min_empty_fraction = 0.0f; /* pbrt's rule */
        CHECK(o.empty_space_ratio < 0.0f && kd_gpu_build_empty_space(&o) == o.params.min_empty_fraction);
        CHECK_MSG(build(&mesh, &o, &dflt, &err) == KD_OK, "%s", err.message);
        o.empty_space_ratio = o.params.min_empty_fraction;
        CHECK_MSG(build(&mesh, &o, &t, &err) == KD_OK, "%s", err.message);
        CHECK_MSG(gb_trees_equal(&dflt, &t), "empty space %g given outright: another tree",
                  (double)o.empty_space_ratio);
        kd_tree_free(&t);
        if (!rule) {
            o.empty_space_ratio = 0.25f;
            CHECK_MSG(build(&mesh, &o, &t, &err) == KD_OK, "%s", err.message);
            CHECK_MSG(!gb_trees_equal(&dflt, &t), "empty space 0.25 made the default's tree");
            gb_check_tree("slivers, empty space 0.25", &mesh, &t, 400);
            kd_tree_free(&t);
        }
        kd_tree_free(&dflt);
    }
    const float bad[] = {1.5f, NAN};
    for (int k = 0; k < 2; k++) {
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        o.empty_space_ratio = bad[k];
        CHECK(build(&mesh, &o, &t, &err) == KD_ERR_INVALID && strstr(err.message, "empty-space"));
    }
    kd_mesh_free(&mesh);
}

/* Real scenes: right trees, and the SAH cost near the CPU exact-SAH tree's. */
static void test_shared(void)
{
    static const char *const scenes[] = {"cornell_box_original", "utah_teapot", "armadillo_30k_bikker"};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        kd_mesh mesh;
        if (!gb_load_shared(scenes[i], &mesh))
            continue;
        kd_gpu_build_options o;
        gb_options(&o, KD_LARGE_SPLIT_SAH);
        kd_tree gpu, cpu;
        kd_error err;
        kd_status st = build(&mesh, &o, &gpu, &err);
        CHECK_MSG(st == KD_OK, "%s: %s", scenes[i], err.message);
        if (st == KD_OK) {
            gb_check_tree(scenes[i], &mesh, &gpu, 1200);
            st = kd_build_cpu(&mesh, &o.params, &cpu, NULL, &err);
            CHECK_MSG(st == KD_OK, "%s (CPU): %s", scenes[i], err.message);
            if (st == KD_OK) {
                double g = gb_sah_cost(&gpu), c = gb_sah_cost(&cpu);
                printf("%s: SAH cost emulated GPU %.3f, CPU %.3f, ratio %.3f\n", scenes[i], g, c, g / c);
                CHECK_MSG(g <= 1.10 * c, "%s: SAH %.3f is over 1.1x the CPU tree's %.3f", scenes[i], g, c);
                kd_tree_free(&cpu);
            }
            kd_tree_free(&gpu);
        }
        kd_mesh_free(&mesh);
    }
}

/* A profile over repeated builds (scankd build --repeats): each time the
 * median of its field (even counts: the mean of the middle two), so one
 * build upset by the host moves nothing; the counts are the last build's. */
static void test_profile_median(void)
{
    kd_gpu_build_profile p[4], m;
    memset(p, 0, sizeof p);
    const double build[4] = {5.0, 1.0, 3.0, 100.0};
    for (int k = 0; k < 4; k++) {
        p[k].build_ms = build[k];
        p[k].stage_ms[1] = 10.0 - k;
        p[k].step_ms[KD_GPU_STEP_OUTPUT_SIZES] = k == 2 ? 50.0 : 0.1 * k;
        p[k].reduce_ms = k;
        p[k].kernel.reduce_ms = 0.5 * build[k];
        p[k].kernel.all_ms = 2.0 * build[k];
        p[k].kernel.busy_ms = 1.5 * build[k];
        p[k].num_nodes = 7u + (uint32_t)k;
        p[k].step_count[KD_GPU_STEP_OUTPUT_SIZES] = 1u + (uint32_t)k;
    }
    kd_gpu_build_profile_median(p, 3, &m);
    CHECK(m.build_ms == 3.0 && m.stage_ms[1] == 9.0 && m.reduce_ms == 1.0);
    CHECK(m.kernel.reduce_ms == 1.5 && m.kernel.all_ms == 6.0 && m.kernel.busy_ms == 4.5);
    CHECK(m.step_ms[KD_GPU_STEP_OUTPUT_SIZES] == 0.1 && m.step_ms[0] == 0.0);
    CHECK(m.num_nodes == 9u && m.step_count[KD_GPU_STEP_OUTPUT_SIZES] == 3u);
    kd_gpu_build_profile_median(p, 4, &m);
    CHECK(m.build_ms == 4.0 && m.stage_ms[1] == 8.5 && m.reduce_ms == 1.5 && m.num_nodes == 10u);
    kd_gpu_build_profile_median(p, 1, &m);
    CHECK(m.build_ms == 5.0 && m.step_ms[KD_GPU_STEP_OUTPUT_SIZES] == 0.0 && m.num_nodes == 7u);
}

/* An emulated build has no kernels to clock: the profile says so, with no
 * kernel times, and the event-free profile is still filled. */
static void test_emulated_kernel_clock(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 300, 5);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.profile = 1;
    o.kernel_clock = 1;
    kd_gpu_build_profile p;
    kd_tree t;
    kd_error err;
    CHECK_MSG(kd_build_gpu_emulated(&mesh, &o, &t, &p, &err) == KD_OK, "%s", err.message);
    CHECK(!p.kernel.clocked && p.kernel.reduce_ms == 0.0 && p.kernel.all_ms == 0.0);
    CHECK(strstr(p.kernel.error, "emulated") != NULL);
    CHECK(p.num_reduce_calls == 1 + p.num_large_levels);
    kd_tree_free(&t);
    kd_mesh_free(&mesh);
}

/* The warm-up's mesh runs every stage a build of the default options has,
 * so the warm-up loads their kernels; its tree is a good one. */
static void test_warm_mesh(void)
{
    kd_mesh mesh;
    kd_error err;
    CHECK_MSG(kd_gpu_build_warm_mesh(&mesh, &err) == KD_OK, "warm mesh: %s", err.message);
    CHECK(mesh.num_triangles == KD_GPU_WARM_TRIANGLES);
    kd_gpu_build_options o;
    kd_gpu_build_options_default(&o);
    kd_tree tree;
    kd_gpu_build_profile p;
    kd_status st = kd_build_gpu_emulated(&mesh, &o, &tree, &p, &err);
    CHECK_MSG(st == KD_OK, "warm mesh build: %s", err.message);
    if (st == KD_OK) {
        CHECK_MSG(p.num_large_levels > 0 && p.num_medium_nodes > 0 && p.num_small_roots > 0,
                  "warm mesh: %u large levels, %u medium nodes, %u small roots", p.num_large_levels,
                  p.num_medium_nodes, p.num_small_roots);
        gb_check_tree("warm mesh", &mesh, &tree, 200);
        kd_tree_free(&tree);
    }
    kd_mesh_free(&mesh);
}

int main(void)
{
    test_warm_mesh();
    test_profile_median();
    test_emulated_kernel_clock();
    test_empty_mesh();
    gb_check_non_finite(kd_build_gpu_emulated, "emulated");
    test_synthetic();
    test_identical_bounded();
    test_limits();
    test_medium();
    test_empty_space();
    test_memory();
    test_shared();
    return kd_test_finish("gpu_build_emulated");
}
