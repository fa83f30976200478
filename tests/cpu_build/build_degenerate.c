/* Degenerate scenes: the builder must finish quickly with bounded depth and
 * references, a valid structure and the exact-overlap contract intact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build_support.h"
#include "cpu_build.h"
#include "test_support.h"
#include "tree_io.h"
#include "tree_stats.h"

/* Builds with the given duplication bound and depth cap (the defaults where
 * < 0), checks everything, returns the references per triangle. */
static double build_dup(const char *name, const float *v, uint32_t n, double max_refs,
                        float max_duplication, int max_depth)
{
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, v, n);
    kd_build_params p;
    kd_build_params_default(&p);
    if (max_duplication >= 0.0f)
        p.max_duplication = max_duplication;
    if (max_depth >= 0)
        p.max_depth = max_depth;
    kd_tree tree;
    kd_build_timing t;
    kd_error err;
    kd_status st = kd_build_cpu(&mesh, &p, &tree, &t, &err);
    CHECK_MSG(st == KD_OK, "%s: %s", name, err.message);
    double refs = -1.0;
    if (st == KD_OK) {
        CHECK_MSG(kd_tree_check_structure(&tree, &err) == KD_OK, "%s: %s", name, err.message);
        CHECK_MSG(bt_tree_depth(&tree) <= tree.max_depth, "%s: too deep", name);
        uint64_t bad = bt_check_exact_overlap(&tree, &mesh);
        CHECK_MSG(bad == 0, "%s: %llu exact-overlap violations", name, (unsigned long long)bad);
        kd_tree_stats s;
        kd_tree_compute_stats(&tree, NULL, &s);
        refs = s.refs_per_triangle;
        CHECK_MSG(refs <= max_refs, "%s: %.2f references per triangle (bound %.0f)", name, refs,
                  max_refs);
        printf("%-28s %6u tris  %7.1f ms  %7u nodes  depth %2u/%2u  refs/tri %6.3f  SAH %.3f\n",
               name, n, t.total_ms, tree.num_nodes, s.max_leaf_depth, tree.max_depth, refs,
               s.sah_cost);
        kd_tree_free(&tree);
    }
    kd_mesh_free(&mesh);
    return refs;
}

static double build_and_check(const char *name, const float *v, uint32_t n, double max_refs)
{
    return build_dup(name, v, n, max_refs, -1.0f, -1);
}

static void set_tri(float *t, float a0, float a1, float a2, float b0, float b1, float b2, float c0,
                    float c1, float c2)
{
    float x[9] = {a0, a1, a2, b0, b1, b2, c0, c1, c2};
    memcpy(t, x, sizeof x);
}

int main(void)
{
    bt_rng rng = {0xdeadbeefcafef00dull};
    enum { N = 2000 };
    float *v = malloc(sizeof(float) * 9 * N);

    /* Flat: every triangle in the plane z = 0.5 (the root box has no depth). */
    for (int i = 0; i < N; i++) {
        float x = bt_rand01(&rng), y = bt_rand01(&rng), s = 0.02f + 0.05f * bt_rand01(&rng);
        set_tri(v + 9 * i, x, y, 0.5f, x + s, y, 0.5f, x, y + s, 0.5f);
    }
    build_and_check("flat z=0.5", v, N, 64.0);

    /* Flat and dense: every point covered by ~50 triangles. For rays every
     * split pays (child areas add up to the parent's), so without the
     * duplication bound the copies grow with the depth cap (11477 per
     * triangle at the default cap of 21, about 500 at a cap of 16, checked
     * here to keep the test quick); with it they stay within max_duplication. */
    for (int i = 0; i < N; i++) {
        float x = 0.2f * bt_rand01(&rng), y = 0.2f * bt_rand01(&rng);
        float s = 0.02f + 0.05f * bt_rand01(&rng);
        set_tri(v + 9 * i, x, y, 0.5f, x + s, y, 0.5f, x, y + s, 0.5f);
    }
    build_and_check("flat dense overlap", v, N, 64.0);
    double unbounded = build_dup("flat dense, no bound, cap 16", v, N, 1e9, 0.0f, 16);
    CHECK_MSG(unbounded > 256.0, "without the bound: %.1f references per triangle", unbounded);

    /* A tessellated floor: a 31 x 32 grid of cells, two triangles each,
     * sharing edges and vertices along the grid lines. */
    for (int i = 0; i < 31 * 32 * 2; i++) {
        int cell = i / 2, gx = cell % 31, gy = cell / 31;
        float x = gx / 32.0f, y = gy / 32.0f, s = 1.0f / 32.0f;
        if (i & 1)
            set_tri(v + 9 * i, x, 0.25f, y, x + s, 0.25f, y, x + s, 0.25f, y + s);
        else
            set_tri(v + 9 * i, x, 0.25f, y, x + s, 0.25f, y + s, x, 0.25f, y + s);
    }
    build_and_check("tessellated floor y=0.25", v, 31 * 32 * 2, 64.0);

    /* Thousands of identical triangles: no plane separates them; pbrt's
     * three bad refines allow at most 2^2 copies of each before the leaf. */
    for (int i = 0; i < N; i++)
        set_tri(v + 9 * i, 0.1f, 0.2f, 0.3f, 0.9f, 0.25f, 0.35f, 0.4f, 0.8f, 0.6f);
    build_and_check("2000 identical", v, N, 4.0);

    /* Identical axis-aligned flat triangles: a zero-extent root box axis. */
    for (int i = 0; i < N; i++)
        set_tri(v + 9 * i, 0, 0, 0, 1, 0, 0, 0, 1, 0);
    build_and_check("2000 identical flat", v, N, 4.0);

    /* Collinear (zero-area) triangles on one line: the root box is a segment
     * without area, so it is a leaf. */
    for (int i = 0; i < N; i++) {
        float x = bt_rand01(&rng);
        set_tri(v + 9 * i, x, 0, 0, x + 0.01f, 0, 0, x + 0.02f, 0, 0);
    }
    build_and_check("collinear on the x axis", v, N, 1.0);

    /* Every vertex at one point. */
    for (int i = 0; i < N; i++)
        set_tri(v + 9 * i, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f);
    build_and_check("one point", v, N, 1.0);

    /* Near-degenerate slivers (as in the conference room) among ordinary
     * triangles: one vertex a few ulps off the opposite edge. */
    for (int i = 0; i < N; i++) {
        float x = bt_rand01(&rng), y = bt_rand01(&rng), z = bt_rand01(&rng);
        if (i % 2)
            set_tri(v + 9 * i, x, y, z, x + 0.1f, y + 0.05f, z, x + 0.05f,
                    nextafterf(y + 0.025f, 2.0f), z);
        else
            set_tri(v + 9 * i, x, y, z, x + 0.03f, y, z + 0.02f, x, y + 0.03f, z + 0.01f);
    }
    build_and_check("slivers", v, N, 16.0);

    /* Huge and tiny magnitudes side by side. */
    for (int i = 0; i < N; i++) {
        float scale = (i % 3 == 0) ? 1e30f : (i % 3 == 1 ? 1e-30f : 1.0f);
        float x = bt_rand01(&rng) * scale, y = bt_rand01(&rng) * scale, s = 0.1f * scale;
        set_tri(v + 9 * i, x, y, x, x + s, y, x + s, x, y + s, x - s);
    }
    build_and_check("magnitudes 1e-30..1e30", v, N, 16.0);

    /* Long thin triangles crossing the whole scene (each touches many leaves). */
    for (int i = 0; i < N; i++) {
        float y = bt_rand01(&rng), z = bt_rand01(&rng);
        if (i % 10 == 0)
            set_tri(v + 9 * i, 0, y, z, 1, y + 0.001f, z, 1, y, z + 0.001f);
        else
            set_tri(v + 9 * i, y, z, y, y + 0.01f, z, y, y, z + 0.01f, y + 0.01f);
    }
    build_and_check("needles across the scene", v, N, 32.0);

    free(v);
    return kd_test_finish("build_degenerate");
}
