/* kd traversal equals brute force on random scenes: triangle soups and an
 * axis-aligned grid city whose faces lie on split planes, with random rays,
 * axis-parallel rays (zero direction components), rays starting exactly on
 * split planes and rays aimed at shared vertices and edge midpoints. Trees
 * come from the test's own median builder and from the CPU SAH builder.
 * Also: the fast brute force equals the plain one hit for hit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_render.h"
#include "render_test_util.h"
#include "test_support.h"
#include "verify.h"

typedef struct agreement {
    long rays, hits, same, coincident, mismatches;
} agreement;

static void compare_ray(const kd_trace_scene *scene, const kd_brute_force *bf, const kd_ray *ray,
                        agreement *a)
{
    kd_trace_hit tree_hit, ref_hit, plain_hit;
    kd_trace_counters counters = {0, 0, 0};
    kd_trace_closest(scene, ray, &tree_hit, &counters);
    kd_brute_force_closest(bf, ray, &ref_hit);
    kd_trace_brute_force(scene->tri_verts, scene->num_triangles, ray, &plain_hit);
    /* the fast reference must be the plain one, bit for bit */
    CHECK(ref_hit.tri == plain_hit.tri && (ref_hit.tri == KD_TRACE_NO_HIT || ref_hit.t == plain_hit.t));
    CHECK(counters.overflow == 0);
    a->rays++;
    a->hits += ref_hit.tri != KD_TRACE_NO_HIT;
    if (tree_hit.tri == ref_hit.tri) {
        a->same++;
        if (ref_hit.tri != KD_TRACE_NO_HIT)
            CHECK(tree_hit.t == ref_hit.t && tree_hit.b1 == ref_hit.b1 && tree_hit.b2 == ref_hit.b2);
    } else if (tree_hit.tri != KD_TRACE_NO_HIT && ref_hit.tri != KD_TRACE_NO_HIT &&
               fabsf(tree_hit.t - ref_hit.t) <= 1e-5f * fmaxf(tree_hit.t, ref_hit.t)) {
        a->coincident++;
    } else {
        if (a->mismatches < 5)
            fprintf(stderr,
                    "mismatch: org (%.9g %.9g %.9g) dir (%.9g %.9g %.9g): tree %u t=%.9g, brute %u t=%.9g\n",
                    (double)ray->org[0], (double)ray->org[1], (double)ray->org[2], (double)ray->dir[0],
                    (double)ray->dir[1], (double)ray->dir[2], tree_hit.tri, (double)tree_hit.t,
                    ref_hit.tri, (double)ref_hit.t);
        a->mismatches++;
    }
}

/* Rays of every kind against one tree. */
static void check_tree(const char *label, const float *verts, uint32_t n, const kd_tree *tree,
                       kd_test_rng *rng, long num_random, bool grid)
{
    kd_trace_scene scene;
    kd_error err;
    CHECK_MSG(kd_trace_scene_init(&scene, tree, verts, n, &err) == KD_OK, "%s", err.message);
    kd_brute_force bf;
    CHECK(kd_brute_force_init(&bf, verts, n, &err) == KD_OK);
    agreement a = {0};
    kd_aabb box = tree->bounds;
    for (long i = 0; i < num_random; i++) {
        kd_ray ray = kd_test_random_ray(rng, box);
        compare_ray(&scene, &bf, &ray, &a);
    }
    /* Aimed at vertices and edge midpoints (shared by neighbours). */
    for (long i = 0; i < num_random / 2; i++) {
        uint32_t t = (uint32_t)kd_test_rng_range(rng, 0, n - 1);
        const float *v = verts + 9 * (size_t)t;
        int k = (int)kd_test_rng_range(rng, 0, 2);
        float target[3];
        for (int c = 0; c < 3; c++)
            target[c] = (i % 2) ? v[3 * k + c] : 0.5f * (v[3 * k + c] + v[3 * ((k + 1) % 3) + c]);
        kd_ray ray = kd_test_random_ray(rng, box);
        for (int c = 0; c < 3; c++)
            ray.dir[c] = target[c] - ray.org[c];
        if (ray.dir[0] == 0 && ray.dir[1] == 0 && ray.dir[2] == 0)
            continue;
        compare_ray(&scene, &bf, &ray, &a);
    }
    /* On the grid: axis-parallel rays along integer and half-integer lines,
     * whose origins lie on split planes (the median splits are dyadic). */
    if (grid) {
        for (long i = 0; i < num_random / 2; i++) {
            kd_ray ray;
            int axis = (int)kd_test_rng_range(rng, 0, 2);
            for (int c = 0; c < 3; c++) {
                float lo = box.lo[c], hi = box.hi[c];
                ray.org[c] = lo + 0.5f * (float)kd_test_rng_range(rng, 0, (int64_t)(2 * (hi - lo)));
                ray.dir[c] = 0.0f;
            }
            ray.dir[axis] = (i % 2) ? 1.0f : -1.0f;
            ray.org[axis] = (i % 2) ? box.lo[axis] - 1.0f : box.hi[axis] + 1.0f;
            if (i % 4 >= 2) /* start inside, on a plane */
                ray.org[axis] = box.lo[axis] + (float)kd_test_rng_range(rng, 0, (int64_t)(box.hi[axis] - box.lo[axis]));
            ray.t_max = INFINITY;
            compare_ray(&scene, &bf, &ray, &a);
        }
    }
    printf("%-34s %6u tris, %5u nodes: %ld rays, %ld hit, %ld same, %ld coincident, %ld mismatches\n",
           label, n, tree->num_nodes, a.rays, a.hits, a.same, a.coincident, a.mismatches);
    CHECK_MSG(a.mismatches == 0, "%s: %ld mismatches", label, a.mismatches);
    CHECK(a.hits > a.rays / 10);
    kd_brute_force_free(&bf);
}

static void check_with_builders(const char *name, float *verts, uint32_t n, kd_test_rng *rng,
                                long rays, bool grid)
{
    char label[96];
    kd_tree tree;
    kd_test_build_median(verts, n, 24, 4, &tree);
    snprintf(label, sizeof label, "%s, median tree", name);
    check_tree(label, verts, n, &tree, rng, rays, grid);
    kd_tree_free(&tree);

    bool built = kd_test_build_sah(verts, n, &tree);
    CHECK(built);
    if (built) {
        snprintf(label, sizeof label, "%s, SAH tree", name);
        check_tree(label, verts, n, &tree, rng, rays, grid);
    }
    kd_tree_free(&tree);
}

int main(void)
{
    kd_test_rng rng = {12345};
    for (int round = 0; round < 3; round++) {
        uint32_t n = 200u + 900u * (uint32_t)round;
        float *soup = kd_test_random_soup(&rng, n, round == 2 ? 0.5f : 0.1f);
        check_with_builders("random soup", soup, n, &rng, 4000, false);
        free(soup);
    }
    uint32_t n;
    float *city = kd_test_grid_city(&rng, 6, &n);
    check_with_builders("grid city", city, n, &rng, 6000, true);
    free(city);

    /* A single triangle and a single leaf: the smallest trees. */
    float one[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    check_with_builders("one triangle", one, 1, &rng, 2000, false);
    return kd_test_finish("render_traverse");
}
