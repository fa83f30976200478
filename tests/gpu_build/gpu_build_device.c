/* GPU builder on the device: trees equal the host emulation's byte for byte
 * (so every kernel computed what its per-element code says), pass the
 * verifier's invariants and ray agreement, are deterministic, survive
 * degenerate scenes, stay near the CPU exact-SAH tree's cost, and the memory
 * cap, reuse and profile behave. Exit 77 without a device.
 * Argument: "quick" (or KD_TEST_QUICK=1) for sanitizer runs; "scenes" adds
 * every shared scene up to the dragon. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cpu_build.h"
#include "gpu_build.h"
#include "gpu_build_check.h"
#include "gpu_render.h"
#include "kd_primitives.h"
#include "test_support.h"

static bool quick;

/* Device build, emulated build, equal; a second device build, equal. */
static void check_against_emulation(const char *label, const kd_mesh *mesh,
                                    const kd_gpu_build_options *o, uint32_t num_rays, bool emulate)
{
    kd_tree dev, dev2, emu;
    kd_error err;
    kd_status st = kd_build_gpu(mesh, o, &dev, NULL, &err);
    CHECK_MSG(st == KD_OK, "%s: %s", label, err.message);
    if (st != KD_OK)
        return;
    gb_check_tree(label, mesh, &dev, num_rays);
    st = kd_build_gpu(mesh, o, &dev2, NULL, &err);
    CHECK_MSG(st == KD_OK && gb_trees_equal(&dev, &dev2), "%s: two device builds differ", label);
    if (st == KD_OK)
        kd_tree_free(&dev2);
    if (emulate) {
        st = kd_build_gpu_emulated(mesh, o, &emu, NULL, &err);
        CHECK_MSG(st == KD_OK, "%s (emulated): %s", label, err.message);
        if (st == KD_OK) {
            CHECK_MSG(gb_trees_equal(&dev, &emu),
                      "%s: device and emulated trees differ (%u/%u nodes, %u/%u refs)", label,
                      dev.num_nodes, emu.num_nodes, dev.num_leaf_indices, emu.num_leaf_indices);
            kd_tree_free(&emu);
        }
    }
    kd_tree_free(&dev);
}

/* check_against_emulation for options that start the small stage with
 * arrays too small, then a profiled build: the soup must rerun the stage. */
static void check_small_regrowth(const char *label, const kd_mesh *mesh, const kd_gpu_build_options *opts,
                                 bool want_retry)
{
    check_against_emulation(label, mesh, opts, quick ? 200 : 1000, true);
    kd_gpu_build_options o = *opts;
    kd_gpu_build_profile prof;
    kd_tree grown;
    kd_error err;
    o.profile = 1;
    CHECK(kd_build_gpu(mesh, &o, &grown, &prof, &err) == KD_OK);
    CHECK_MSG(!want_retry || prof.num_small_retries > 0, "%s: no small-stage retry", label);
    kd_tree_free(&grown);
}

/* The soup under a low depth cap: leaves past the output's estimate of
 * their references (see gpu_build_output.cu), placed again with room for
 * them all, the same tree as the emulation's. */
static void test_output_regrowth(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 3000, 1);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.params.max_depth = 7;
    check_against_emulation("soup 3000, depth cap 7", &mesh, &o, quick ? 200 : 1000, true);
    kd_gpu_build_profile prof;
    kd_tree t;
    kd_error err;
    CHECK(kd_build_gpu(&mesh, &o, &t, &prof, &err) == KD_OK);
    CHECK_MSG(prof.num_output_retries == 1, "depth cap 7: %u output retries", prof.num_output_retries);
    kd_tree_free(&t);
    kd_mesh_free(&mesh);
}

/* The medium stage's shape by references per SM: with the threshold at one
 * a level, every level runs wide, the same tree as the emulation's; under a
 * memory cap, or at the default threshold on this small scene, narrow. */
static void test_medium_shape(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 3000, 23);
    kd_tree emu;
    kd_error err;
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    kd_status se = kd_build_gpu_emulated(&mesh, &o, &emu, NULL, &err);
    CHECK_MSG(se == KD_OK, "medium shape (emulated): %s", err.message);
    const struct {
        uint32_t per_sm;
        size_t cap;
        uint32_t want_wide;
        const char *label;
    } cases[] = {{1, 0, 1, "threshold 1"}, {1, (size_t)8 << 30, 0, "threshold 1, capped"}, {0, 0, 0, "default"}};
    for (int c = 0; c < 3; c++) {
        o.hooks.medium_wide_refs = cases[c].per_sm;
        o.max_device_bytes = cases[c].cap;
        kd_tree dev;
        kd_gpu_build_profile prof;
        kd_status st = kd_build_gpu(&mesh, &o, &dev, &prof, &err);
        CHECK_MSG(st == KD_OK, "medium shape, %s: %s", cases[c].label, err.message);
        if (st != KD_OK)
            continue;
        CHECK_MSG(prof.medium_wide == cases[c].want_wide && prof.num_medium_nodes > 0,
                  "medium shape, %s: wide %u (want %u), %u medium nodes", cases[c].label, prof.medium_wide,
                  cases[c].want_wide, prof.num_medium_nodes);
        CHECK_MSG(se != KD_OK || gb_trees_equal(&dev, &emu), "medium shape, %s: device and emulated trees differ",
                  cases[c].label);
        kd_tree_free(&dev);
    }
    if (se == KD_OK)
        kd_tree_free(&emu);
    kd_mesh_free(&mesh);
}

/* Warm builds (a warm-up first, on one builder) take the large levels' bins
 * as the level before's scatter zeroed them, where a first build's arrays
 * still grow: the large stage alone (no medium stage), against the
 * emulation's first build. */
static void test_warm_levels(void)
{
    for (int kind = 0; kind < 2; kind++) {
        for (int threshold = 8; threshold <= 64; threshold *= 8) {
            kd_mesh mesh;
            gb_make_scene(&mesh, kind ? GB_SCENE_SNAPPED : GB_SCENE_SOUP, 3000, 17);
            kd_gpu_build_options o;
            gb_options(&o, KD_LARGE_SPLIT_SAH);
            o.medium_min_nodes = 0;
            o.small_node_threshold = threshold;
            char label[96];
            snprintf(label, sizeof label, "%s, small threshold %d, warm", kind ? "snapped" : "soup", threshold);
            kd_tree warm, emu;
            kd_gpu_build_profile prof;
            kd_error err;
            kd_status st = kd_build_gpu_warm(&mesh, &o, 1, 2, &warm, &prof, NULL, &err);
            CHECK_MSG(st == KD_OK, "%s: %s", label, err.message);
            CHECK_MSG(st != KD_OK || prof.num_large_levels >= 3, "%s: %u large levels", label,
                      prof.num_large_levels);
            kd_status se = kd_build_gpu_emulated(&mesh, &o, &emu, NULL, &err);
            CHECK_MSG(se == KD_OK, "%s (emulated): %s", label, err.message);
            if (st == KD_OK && se == KD_OK)
                CHECK_MSG(gb_trees_equal(&warm, &emu), "%s: device and emulated trees differ", label);
            if (st == KD_OK)
                kd_tree_free(&warm);
            if (se == KD_OK)
                kd_tree_free(&emu);
            kd_mesh_free(&mesh);
        }
    }
}

/* Whether blocks took nodes together (want: at least one; else none). */
static void check_block_nodes(const char *label, const kd_mesh *mesh, const kd_gpu_build_options *opts, bool want)
{
    kd_gpu_build_options o = *opts;
    kd_gpu_build_profile prof;
    kd_tree t;
    kd_error err;
    o.profile = 1;
    kd_status st = kd_build_gpu(mesh, &o, &t, &prof, &err);
    CHECK_MSG(st == KD_OK, "%s (profiled): %s", label, err.message);
    if (st != KD_OK)
        return;
    CHECK_MSG(!want || prof.num_medium_block_nodes > 0, "%s: no node taken by a block", label);
    CHECK_MSG(prof.num_medium_block_nodes <= prof.num_medium_nodes, "%s: %u block nodes of %u", label,
              prof.num_medium_block_nodes, prof.num_medium_nodes);
    kd_tree_free(&t);
}

static void test_synthetic(void)
{
    uint32_t sizes[] = {40, 3000, 40000};
    int num_sizes = quick ? 2 : 3;
    for (int kind = 0; kind < GB_SCENE_NUM_KINDS; kind++) {
        for (int si = 0; si < num_sizes; si++) {
            bool emulate = sizes[si] <= 3000; /* the emulation is single-threaded */
            kd_mesh mesh;
            gb_make_scene(&mesh, (gb_scene_kind)kind, sizes[si], 11u + (uint32_t)kind);
            for (int split = 0; split < 2; split++) {
                kd_gpu_build_options o;
                gb_options(&o, (kd_large_split)split);
                char label[128];
                snprintf(label, sizeof label, "device %s %u %s", gb_scene_name((gb_scene_kind)kind),
                         sizes[si], kd_large_split_name(o.large_split));
                check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                /* The medium stage from the root down (a warp per node). */
                o.medium_min_nodes = 1;
                o.medium_max_refs = 1 << 30;
                o.medium_block_refs = 0;
                snprintf(label, sizeof label, "device %s %u %s, medium from the root",
                         gb_scene_name((gb_scene_kind)kind), sizes[si], kd_large_split_name(o.large_split));
                check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                /* Its wide shape (two blocks an SM, the clips' polygons in
                 * local memory, as on GPUs with less shared memory a block
                 * than this one): the same tree. */
                o.hooks.medium_shape = 1;
                snprintf(label, sizeof label, "device %s %u %s, medium from the root, wide",
                         gb_scene_name((gb_scene_kind)kind), sizes[si], kd_large_split_name(o.large_split));
                check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                o.hooks.medium_shape = 0;
                /* Nodes of more than 200 references taken by a block's
                 * warps together, the rest by a warp each: the same tree. */
                o.medium_block_refs = 200;
                snprintf(label, sizeof label, "device %s %u %s, medium from the root, blocks over 200",
                         gb_scene_name((gb_scene_kind)kind), sizes[si], kd_large_split_name(o.large_split));
                check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                check_block_nodes(label, &mesh, &o, sizes[si] >= 3000);
                /* And in a launch of one block (it serves the block queue,
                 * then takes the rest a warp at a time) or two (one each). */
                for (int blocks = 1; blocks <= 2 && sizes[si] == 3000; blocks++) {
                    o.hooks.medium_blocks = blocks;
                    snprintf(label, sizeof label, "device %s %u %s, medium from the root, blocks over 200, %d block%s",
                             gb_scene_name((gb_scene_kind)kind), sizes[si], kd_large_split_name(o.large_split),
                             blocks, blocks > 1 ? "s" : "");
                    check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                }
                o.hooks.medium_blocks = 0;
                o.medium_block_refs = 0;
                if (split == 1 && sizes[si] == 3000) {
                    /* Threshold 2 outgrows the medium stage's first arrays:
                     * slots taken and never filled, and a second run. */
                    o.small_node_threshold = 2;
                    o.medium_block_refs = 0;
                    snprintf(label, sizeof label, "device %s %u, medium from the root, threshold 2",
                             gb_scene_name((gb_scene_kind)kind), sizes[si]);
                    check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                    /* The same with blocks: block-queue tasks among those
                     * an overflow leaves dead. */
                    o.medium_block_refs = 16;
                    snprintf(label, sizeof label, "device %s %u, medium from the root, threshold 2, blocks over 16",
                             gb_scene_name((gb_scene_kind)kind), sizes[si]);
                    check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                    o.medium_block_refs = 0;
                    /* A clip-job array of 16 at first: a wave's straddlers
                     * outgrow it, it grows and the stage runs again (the
                     * soup's waves clip hundreds; identical triangles none). */
                    gb_options(&o, (kd_large_split)split);
                    o.hooks.small_clip_jobs = 16;
                    snprintf(label, sizeof label, "device %s %u, 16 clip jobs at first",
                             gb_scene_name((gb_scene_kind)kind), sizes[si]);
                    check_small_regrowth(label, &mesh, &o, kind == GB_SCENE_SOUP);
                    /* Room for 16384 tasks and bounds beyond the roots' at
                     * first: the task and bounds arrays grow the same way. */
                    gb_options(&o, (kd_large_split)split);
                    o.hooks.small_room = 16384;
                    snprintf(label, sizeof label, "device %s %u, room for 16384 small tasks at first",
                             gb_scene_name((gb_scene_kind)kind), sizes[si]);
                    check_small_regrowth(label, &mesh, &o, kind == GB_SCENE_SOUP);
                    /* Without the collapse: the small stage's leaves keep
                     * their box areas in fields the output stage ignores. */
                    gb_options(&o, (kd_large_split)split);
                    o.hooks.keep_subtrees = 1;
                    snprintf(label, sizeof label, "device %s %u, subtrees kept",
                             gb_scene_name((gb_scene_kind)kind), sizes[si]);
                    check_against_emulation(label, &mesh, &o, quick ? 200 : 1000, emulate);
                }
                gb_options(&o, (kd_large_split)split);
                if (split == 1 && !quick) {
                    o.small_node_threshold = 8;
                    snprintf(label, sizeof label, "device %s %u threshold 8",
                             gb_scene_name((gb_scene_kind)kind), sizes[si]);
                    check_against_emulation(label, &mesh, &o, 400, emulate);
                }
            }
            kd_mesh_free(&mesh);
        }
    }
}

static void test_memory(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, quick ? 5000 : 200000, 9);
    kd_gpu_builder *b = NULL;
    kd_error err;
    CHECK(kd_gpu_builder_create(&b, 0, &err) == KD_OK);
    CHECK(kd_gpu_builder_set_mesh(b, &mesh, &err) == KD_OK);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);

    size_t mesh_bytes = kd_gpu_builder_device_bytes(b);
    o.max_device_bytes = mesh_bytes + 256 * 1024;
    kd_status st = kd_gpu_builder_build(b, &o, NULL, &err);
    CHECK_MSG(st == KD_ERR_DEVICE_OOM, "capped build gave %d: %s", (int)st, err.message);
    CHECK_MSG(strstr(err.message, "needs") && strstr(err.message, "MiB free"), "message: %s",
              err.message);
    printf("capped: %s\n", err.message);

    /* Recover without the cap; then repeated builds stay within the builder's
     * own accounting (nothing leaks outside it) and its arrays stop growing
     * beyond one headroom step (an array may still grow once after the
     * first build).
     * Measured after three warm-up builds; a grown array may also round up to
     * the allocator's 2 MiB pages, which the accounting does not see. */
    o.max_device_bytes = 0;
    kd_tree first, again;
    CHECK(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK);
    CHECK(kd_gpu_builder_download(b, &first, &err) == KD_OK);
    for (int i = 0; i < 3; i++)
        CHECK(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK);
    /* The device's free memory is shared with every process on it (a
     * sanitizer run beside this one moved it by 2 MiB): a leak shows in
     * every round of builds, another process's allocation in one, so a round
     * that stays within the accounting passes. */
    const size_t held_start = kd_gpu_builder_device_bytes(b);
    size_t held = held_start, held_after = held;
    size_t free0 = 0, free1 = 0, total = 0;
    int within = 0;
    for (int round = 0; round < 3 && !within; round++) {
        held = kd_gpu_builder_device_bytes(b);
        CHECK(cudaMemGetInfo(&free0, &total) == cudaSuccess);
        for (int i = 0; i < 5; i++)
            CHECK(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK);
        CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess);
        held_after = kd_gpu_builder_device_bytes(b);
        size_t slack = held_after == held ? (size_t)1 << 20 : (size_t)8 << 20;
        within = held_after >= held && free1 + (held_after - held) + slack >= free0;
        printf("repeated builds, round %d: builder held %zu bytes, then %zu; device free %zu, then %zu\n",
               round + 1, held, held_after, free0, free1);
    }
    CHECK(kd_gpu_builder_download(b, &again, &err) == KD_OK);
    CHECK_MSG(held_after >= held_start && held_after <= held_start + held_start / 4,
              "held %zu, then %zu", held_start, held_after);
    CHECK_MSG(within, "device free memory fell from %zu to %zu, more than the builder's growth %zu, "
              "in each of 3 rounds of builds", free0, free1, held_after - held);
    CHECK(gb_trees_equal(&first, &again));
    kd_tree_free(&first);
    kd_tree_free(&again);
    kd_gpu_builder_destroy(b);

    /* Creating and destroying builders gives everything back. */
    within = 0;
    for (int round = 0; round < 3 && !within; round++) {
        CHECK(cudaMemGetInfo(&free0, &total) == cudaSuccess);
        for (int i = 0; i < 3; i++) {
            kd_tree t;
            CHECK(kd_build_gpu(&mesh, &o, &t, NULL, &err) == KD_OK);
            kd_tree_free(&t);
        }
        CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess);
        within = free1 + (1u << 20) >= free0;
    }
    CHECK_MSG(within, "device free memory fell from %zu to %zu in each of 3 rounds of builders",
              free0, free1);
    kd_mesh_free(&mesh);
}

/* Every reduction rung builds the same tree; the profile counts and times them. */
static void test_profile(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, quick ? 3000 : 70000, 13);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.profile = 1;
    o.kernel_clock = 1;
    kd_tree ref;
    kd_error err;
    CHECK(kd_build_gpu(&mesh, &o, &ref, NULL, &err) == KD_OK);
    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
        o.reduce_variant = (kd_reduce_variant)v;
        kd_gpu_build_profile p;
        kd_tree t;
        kd_status st = kd_build_gpu(&mesh, &o, &t, &p, &err);
        CHECK_MSG(st == KD_OK, "%s: %s", kd_reduce_variant_name(o.reduce_variant), err.message);
        if (st != KD_OK)
            continue;
        CHECK_MSG(gb_trees_equal(&ref, &t), "%s builds another tree",
                  kd_reduce_variant_name(o.reduce_variant));
        CHECK(p.num_reduce_calls == 1 + p.num_large_levels);
        CHECK(p.reduce_ms > 0.0);
        printf("%-22s reduce %8.3f ms in %u calls; stages %.3f %.3f %.3f %.3f ms\n",
               kd_reduce_variant_name(o.reduce_variant), p.reduce_ms, p.num_reduce_calls,
               p.stage_ms[0], p.stage_ms[1], p.stage_ms[2], p.stage_ms[3]);
        /* The kernel clock (kernel_clock_device requires it; here, under a
         * sanitizer, CUPTI may be held): a call's kernels run inside its
         * events, so their device time is less; every call runs some. */
        if (p.kernel.clocked) {
            CHECK(p.kernel.reduce_ms > 0.0 && p.kernel.reduce_ms < p.reduce_ms);
            CHECK(p.kernel.num_reduce >= p.num_reduce_calls);
            CHECK(p.kernel.all_ms > p.kernel.reduce_ms && p.kernel.num_all > p.kernel.num_reduce);
            CHECK(p.kernel.busy_ms > 0.0 && p.kernel.busy_ms <= p.kernel.all_ms + 1e-9);
            printf("%-22s their kernels %8.3f ms (%u); all kernels %.3f ms (%u)\n", "",
                   p.kernel.reduce_ms, p.kernel.num_reduce, p.kernel.all_ms, p.kernel.num_all);
        } else {
            printf("%-22s (no kernel times: CUPTI could not trace)\n", "");
        }
        kd_tree_free(&t);
    }
    kd_tree_free(&ref);
    kd_mesh_free(&mesh);
}

/* Shared scenes: right trees, deterministic, and the cost near the CPU tree's. */
static void test_shared(bool all)
{
    static const char *const small_scenes[] = {"cornell_box_original", "utah_teapot",
                                               "armadillo_30k_bikker"};
    static const char *const big_scenes[] = {"stanford_bunny",  "sponza_dabrovic",
                                             "sibenik_mcguire", "sibenik_blender",
                                             "crytek_sponza",   "conference",
                                             "stanford_dragon_vrip"};
    size_t n_small = sizeof small_scenes / sizeof *small_scenes;
    size_t n = n_small + (all ? sizeof big_scenes / sizeof *big_scenes : 0);
    for (size_t i = 0; i < n; i++) {
        const char *name = i < n_small ? small_scenes[i] : big_scenes[i - n_small];
        kd_mesh mesh;
        if (!gb_load_shared(name, &mesh))
            continue;
        for (int split = 0; split < 2; split++) {
            kd_gpu_build_options o;
            gb_options(&o, (kd_large_split)split);
            char label[128];
            snprintf(label, sizeof label, "%s %s", name, kd_large_split_name(o.large_split));
            check_against_emulation(label, &mesh, &o, mesh.num_triangles > 100000 ? 2000 : 4000,
                                    mesh.num_triangles <= 31000);
            kd_tree gpu, cpu;
            kd_error err;
            if (kd_build_gpu(&mesh, &o, &gpu, NULL, &err) != KD_OK)
                continue;
            if (kd_build_cpu(&mesh, &o.params, &cpu, NULL, &err) == KD_OK) {
                double g = gb_sah_cost(&gpu), c = gb_sah_cost(&cpu);
                printf("%s: SAH cost GPU %.3f, CPU %.3f, ratio %.3f\n", label, g, c, g / c);
                /* The promise is made for the default large split (SAH). */
                if (o.large_split == KD_LARGE_SPLIT_SAH)
                    CHECK_MSG(g <= 1.10 * c, "%s: SAH %.3f over 1.1x the CPU tree's %.3f", label,
                              g, c);
                kd_tree_free(&cpu);
            }
            kd_tree_free(&gpu);
        }
        kd_mesh_free(&mesh);
    }
}

/* The GPU ray caster against the CPU one on the same tree: every pixel's
 * triangle, distance and counters equal. Trees from the GPU builder (borrowed
 * on the device) and from the CPU builder (uploaded). */
static void compare_render(const char *label, const kd_mesh *mesh, const kd_tree *tree,
                           kd_gpu_scene *scene, int w, int h)
{
    kd_error err;
    kd_camera cam;
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    CHECK(kd_camera_setup(&cam, &req, tree->bounds, w, h, &err) == KD_OK);
    float *tri_verts = NULL;
    CHECK(kd_trace_gather_vertices(mesh, &tri_verts, &err) == KD_OK);
    kd_trace_scene trace;
    CHECK(kd_trace_scene_init(&trace, tree, tri_verts, mesh->num_triangles, &err) == KD_OK);
    kd_render_buffers cpu, gpu;
    CHECK(kd_render_buffers_alloc(&cpu, w, h, &err) == KD_OK);
    CHECK(kd_render_buffers_alloc(&gpu, w, h, &err) == KD_OK);
    kd_render_options ro;
    memset(&ro, 0, sizeof ro);
    kd_render_stats cs;
    CHECK(kd_render_cpu(&trace, &cam, &ro, &cpu, &cs, &err) == KD_OK);
    kd_gpu_render_stats gs;
    kd_status st = kd_gpu_render(scene, &cam, 1, &gpu, &gs, &err);
    CHECK_MSG(st == KD_OK, "%s: GPU render: %s", label, err.message);
    if (st == KD_OK) {
        size_t n = (size_t)w * (size_t)h, diff = 0;
        for (size_t p = 0; p < n; p++)
            diff += cpu.tri[p] != gpu.tri[p] || memcmp(&cpu.depth[p], &gpu.depth[p], 4) != 0 ||
                    cpu.steps[p] != gpu.steps[p] || cpu.tests[p] != gpu.tests[p] ||
                    memcmp(&cpu.shade[p], &gpu.shade[p], 4) != 0;
        CHECK_MSG(diff == 0, "%s: %zu of %zu pixels differ between GPU and CPU", label, diff, n);
        CHECK(gs.num_hits == cs.num_hits && gs.total_steps == cs.total_steps &&
              gs.total_tests == cs.total_tests);
        printf("%s: %dx%d, %llu hits, GPU and CPU agree on %zu pixels\n", label, w, h,
               (unsigned long long)gs.num_hits, n - diff);
    }
    kd_render_buffers_free(&cpu);
    kd_render_buffers_free(&gpu);
    free(tri_verts);
}

static void test_render(void)
{
    kd_mesh mesh;
    bool shared = gb_load_shared("utah_teapot", &mesh);
    if (!shared)
        gb_make_scene(&mesh, GB_SCENE_SOUP, 5000, 17);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    kd_error err;
    kd_gpu_builder *b = NULL;
    kd_tree tree;
    CHECK(kd_gpu_builder_create(&b, 0, &err) == KD_OK);
    CHECK(kd_gpu_builder_set_mesh(b, &mesh, &err) == KD_OK);
    CHECK(kd_gpu_builder_build(b, &o, NULL, &err) == KD_OK);
    CHECK(kd_gpu_builder_download(b, &tree, &err) == KD_OK);
    kd_gpu_scene *scene = NULL;
    kd_status st = kd_gpu_scene_from_builder(&scene, b, &err);
    CHECK_MSG(st == KD_OK, "scene from builder: %s", err.message);
    int w = quick ? 96 : 320, h = quick ? 64 : 240;
    if (st == KD_OK)
        compare_render("render (GPU tree)", &mesh, &tree, scene, w, h);
    kd_gpu_scene_destroy(scene);
    kd_tree_free(&tree);
    kd_gpu_builder_destroy(b);

    kd_tree cpu_tree;
    if (kd_build_cpu(&mesh, &o.params, &cpu_tree, NULL, &err) == KD_OK) {
        float *tri_verts = NULL;
        CHECK(kd_trace_gather_vertices(&mesh, &tri_verts, &err) == KD_OK);
        st = kd_gpu_scene_upload(&scene, &cpu_tree, tri_verts, mesh.num_triangles, &err);
        CHECK_MSG(st == KD_OK, "upload: %s", err.message);
        if (st == KD_OK)
            compare_render("render (CPU tree)", &mesh, &cpu_tree, scene, w, h);
        kd_gpu_scene_destroy(scene);
        free(tri_verts);
        kd_tree_free(&cpu_tree);
    }
    kd_mesh_free(&mesh);
}

/* Each step of the race run as it ends (sanitizers make it slow). */
static void race_progress(int kind, int split, const char *what)
{
    printf("race: %s, %s split, %s: done\n", kind ? "snapped" : "soup",
           kd_large_split_name((kd_large_split)split), what);
    fflush(stdout);
}

/* A short run for compute-sanitizer's racecheck: every kernel, small sizes. */
static void test_race(void)
{
    for (int kind = 0; kind < 2; kind++) {
        kd_mesh mesh;
        gb_make_scene(&mesh, kind ? GB_SCENE_SNAPPED : GB_SCENE_SOUP, 600, 21);
        for (int split = 0; split < 2; split++) {
            kd_gpu_build_options o;
            gb_options(&o, (kd_large_split)split);
            /* The medium stage in a launch of four blocks (racecheck's work
             * grows with the blocks; two serve the block queue). */
            o.hooks.medium_blocks = 4;
            check_against_emulation(kind ? "race snapped" : "race soup", &mesh, &o, 100, true);
            race_progress(kind, split, "defaults");
            o.medium_min_nodes = 1; /* and the medium stage from the root, a warp per node */
            o.medium_max_refs = 1 << 30;
            o.medium_block_refs = 0;
            check_against_emulation(kind ? "race snapped, medium" : "race soup, medium", &mesh, &o, 100, true);
            race_progress(kind, split, "medium");
            if (split == KD_LARGE_SPLIT_SAH) {
                o.medium_block_refs = 128; /* with blocks taking the larger nodes together */
                check_against_emulation(kind ? "race snapped, medium blocks" : "race soup, medium blocks", &mesh,
                                        &o, 100, true);
                race_progress(kind, split, "medium blocks");
                o.hooks.medium_shape = 1; /* wide: more blocks an SM, polygons in local memory */
                check_against_emulation(kind ? "race snapped, medium blocks, wide" : "race soup, medium blocks, wide",
                                        &mesh, &o, 100, true);
                race_progress(kind, split, "medium blocks, wide");
                o.hooks.medium_shape = 0;
            }
        }
        kd_mesh_free(&mesh);
    }
}

int main(int argc, char **argv)
{
    if (kd_cuda_device_count() == 0) {
        printf("gpu_build_device: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    quick = gb_quick();
    bool all = false;
    for (int i = 1; i < argc; i++) {
        quick |= strcmp(argv[i], "quick") == 0;
        all |= strcmp(argv[i], "scenes") == 0;
        if (strcmp(argv[i], "race") == 0) {
            test_race();
            return kd_test_finish("gpu_build_device race");
        }
    }
    kd_error err;
    CHECK_MSG(kd_gpu_build_warm_up(NULL, &err) == KD_OK, "warm-up: %s", err.message);
    test_synthetic();
    gb_check_non_finite(kd_build_gpu, "device");
    test_output_regrowth();
    test_warm_levels();
    test_medium_shape();
    test_memory();
    test_profile();
    test_render();
    if (!quick)
        test_shared(all);
    return kd_test_finish("gpu_build_device");
}
