/* Builds over the memory cap in batches (the emulated builder, whose peak is
 * the device's): below the large stage a node's subtree depends only on the
 * node, so a build whose medium and small stages run in batches of the
 * hand-over level's nodes gives the unbatched tree byte for byte, in any
 * batching (two batches, several, a node each); a build capped below its
 * unbatched peak runs in batches and stays under the cap; under a cap the
 * large levels size their reference sets to counts, not bounds, so a cap
 * the bounds would not fit builds; a cap too small for the large stage
 * fails cleanly. */
#include <string.h>

#include "gpu_build.h"
#include "gpu_build_check.h"
#include "test_support.h"

typedef struct built {
    kd_tree tree;
    kd_gpu_build_profile prof;
} built;

static bool build(const kd_mesh *mesh, const kd_gpu_build_options *o, built *out)
{
    kd_error err;
    memset(out, 0, sizeof *out);
    kd_status st = kd_build_gpu_emulated(mesh, o, &out->tree, &out->prof, &err);
    CHECK_MSG(st == KD_OK, "%s", err.message);
    return st == KD_OK;
}

/* The tree in batches of at most batch_refs references equals whole's;
 * returns the number of batches. */
static uint32_t check_batched(const char *name, const kd_mesh *mesh, const built *whole, uint32_t batch_refs)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.hooks.batch_refs = batch_refs;
    built part;
    if (!build(mesh, &o, &part))
        return 0;
    CHECK_MSG(gb_trees_equal(&whole->tree, &part.tree), "%s: batches of %u references: another tree", name,
              batch_refs);
    CHECK(part.prof.num_handover_refs == whole->prof.num_handover_refs);
    CHECK_MSG(part.prof.num_medium_nodes == whole->prof.num_medium_nodes, "%s: %u medium nodes, whole %u", name,
              part.prof.num_medium_nodes, whole->prof.num_medium_nodes);
    CHECK(part.prof.num_small_roots == whole->prof.num_small_roots);
    kd_tree_free(&part.tree);
    return part.prof.num_batches;
}

/* A cap below the unbatched peak: batches, the peak under the cap, the
 * same tree. Returns the batches. */
static uint32_t check_capped(const char *name, const kd_mesh *mesh, const built *whole, size_t cap)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.max_device_bytes = cap;
    built part;
    if (!build(mesh, &o, &part))
        return 0;
    CHECK_MSG(part.prof.peak_device_bytes <= cap, "%s: peak %llu over the cap %zu", name,
              (unsigned long long)part.prof.peak_device_bytes, cap);
    CHECK_MSG(gb_trees_equal(&whole->tree, &part.tree), "%s: capped at %zu: another tree", name, cap);
    kd_tree_free(&part.tree);
    return part.prof.num_batches;
}

/* Under a cap the large stage's peak falls below its peak sized by bounds
 * (an uncapped build's), the tree the same. A cap between the two gets past
 * the large stage, which the same cap with the levels sized by bounds does
 * not (what stops the build after it, if anything, is the batches' floor). */
static kd_status build_capped(const kd_mesh *mesh, size_t cap, int bound_sizing, kd_error *err)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.max_device_bytes = cap;
    o.hooks.large_bound_sizing = bound_sizing;
    kd_tree tree;
    memset(&tree, 0, sizeof tree);
    kd_error_clear(err);
    const kd_status st = kd_build_gpu_emulated(mesh, &o, &tree, NULL, err);
    kd_tree_free(&tree);
    return st;
}

static void check_large_tight(const char *name, const kd_mesh *mesh, const built *whole)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.max_device_bytes = (size_t)1 << 40; // a cap, but room for everything
    built roomy;
    if (!build(mesh, &o, &roomy))
        return;
    const uint64_t tight = roomy.prof.large_peak_device_bytes, bound = whole->prof.large_peak_device_bytes;
    CHECK_MSG(gb_trees_equal(&whole->tree, &roomy.tree), "%s: levels sized to counts: another tree", name);
    CHECK_MSG(tight > 0 && tight * 10 <= bound * 8, "%s: large stage peak %llu sized to counts, %llu by bounds",
              name, (unsigned long long)tight, (unsigned long long)bound);
    kd_tree_free(&roomy.tree);
    const size_t cap = (size_t)(tight + (bound - tight) / 4);
    kd_error err;
    const kd_status st = build_capped(mesh, cap, 0, &err);
    const char *large = "large stage (over every triangle) runs whole";
    CHECK_MSG(st == KD_OK || strstr(err.message, large) == NULL, "%s: capped at %zu: %s", name, cap, err.message);
    CHECK_MSG(build_capped(mesh, cap, 1, &err) == KD_ERR_DEVICE_OOM && strstr(err.message, large) != NULL,
              "%s: levels sized by bounds under a cap of %zu: %s", name, cap, err.message);
}

/* Builds again on one builder under a cap: an earlier build's buffers,
 * kept for reuse, must not make a build fail that a first build makes.
 * Returns 0 where the first build did not fit the cap. */
static int check_repeated(const char *name, const kd_mesh *mesh, const built *whole, size_t cap)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.max_device_bytes = cap;
    kd_gpu_builder *b = NULL;
    kd_error err;
    kd_error_clear(&err);
    kd_status st = kd_gpu_builder_create(&b, 1, &err);
    if (st == KD_OK)
        st = kd_gpu_builder_set_mesh(b, mesh, &err);
    for (int k = 0; k < 2 && st == KD_OK; k++) {
        kd_gpu_build_profile prof;
        kd_tree tree;
        memset(&tree, 0, sizeof tree);
        st = kd_gpu_builder_build(b, &o, &prof, &err);
        if (k == 0 && st == KD_ERR_DEVICE_OOM)
            break; // the cap is too small for any build
        if (st == KD_OK)
            st = kd_gpu_builder_download(b, &tree, &err);
        CHECK_MSG(st == KD_OK, "%s: build %d capped at %zu: %s", name, k + 1, cap, err.message);
        CHECK_MSG(st != KD_OK || (gb_trees_equal(&whole->tree, &tree) && prof.peak_device_bytes <= cap),
                  "%s: build %d capped at %zu: another tree, or peak %llu", name, k + 1, cap,
                  (unsigned long long)prof.peak_device_bytes);
        kd_tree_free(&tree);
    }
    kd_gpu_builder_destroy(b);
    return st == KD_OK;
}

static void check_scene(const char *name, const kd_mesh *mesh)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    built whole;
    if (!build(mesh, &o, &whole))
        return;
    const uint32_t refs = whole.prof.num_handover_refs;
    CHECK_MSG(refs > 0 && whole.prof.num_batches == 0, "%s: hand-over %u references, %u batches", name, refs,
              whole.prof.num_batches);
    gb_check_tree(name, mesh, &whole.tree, 2000);
    const uint32_t two = check_batched(name, mesh, &whole, refs / 2 + 1);
    CHECK_MSG(two >= 2 && two <= 3, "%s: %u batches of half the level", name, two);
    const uint32_t several = check_batched(name, mesh, &whole, refs / 7 + 1);
    CHECK_MSG(several >= 7 && several <= 9, "%s: %u batches of a seventh", name, several);
    const uint32_t many = check_batched(name, mesh, &whole, 1);
    CHECK_MSG(many >= 8, "%s: %u batches of a node", name, many);
    // Caps from the unbatched peak down to 0.7 of it: each builds, in
    // batches once under it.
    const size_t peak = (size_t)whole.prof.peak_device_bytes;
    uint32_t most = 0;
    for (int tenths = 9; tenths >= 7; tenths -= 2) {
        const uint32_t n = check_capped(name, mesh, &whole, peak / 10 * (size_t)tenths);
        most = n > most ? n : most;
    }
    CHECK_MSG(most >= 2, "%s: no cap down to 0.7 of the peak made batches", name);
    check_large_tight(name, mesh, &whole);
    int fitted = 0;
    for (int tenths = 9; tenths >= 5; tenths--)
        fitted += check_repeated(name, mesh, &whole, peak / 10 * (size_t)tenths);
    CHECK_MSG(fitted >= 3, "%s: %d of 5 caps from 0.9 to 0.5 of the peak fit", name, fitted);
    kd_tree_free(&whole.tree);
}

/* A cap the large stage cannot fit: a clean failure that names the need. */
static void check_too_small(const kd_mesh *mesh)
{
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    o.max_device_bytes = 64 * 1024;
    kd_tree tree;
    memset(&tree, 0, sizeof tree);
    kd_error err;
    kd_error_clear(&err);
    CHECK(kd_build_gpu_emulated(mesh, &o, &tree, NULL, &err) == KD_ERR_DEVICE_OOM);
    CHECK_MSG(strstr(err.message, "MiB") != NULL, "%s", err.message);
}

int main(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, gb_quick() ? 20000 : 60000, 11);
    check_scene("soup", &mesh);
    check_too_small(&mesh);
    kd_mesh_free(&mesh);
    gb_make_scene(&mesh, GB_SCENE_SLIVERS, gb_quick() ? 10000 : 30000, 12);
    check_scene("slivers", &mesh);
    kd_mesh_free(&mesh);
    if (!gb_quick() && gb_load_shared("stanford_bunny", &mesh)) {
        check_scene("bunny", &mesh);
        kd_mesh_free(&mesh);
    }
    return kd_test_finish("gpu_build_batch");
}
