/* Real scenes from ../shared/scenes: the CPU SAH tree must pass every
 * invariant and agree with brute force on a random sample of camera rays
 * (pixels of a 256x256 view framed on the scene) and of rays from inside.
 * Usage: verify_scenes SCENE_BASE_NAME [CAMERA_RAYS [INTERIOR_RAYS]].
 * Exits 77 (skipped) when the scene is not there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cpu_render.h"
#include "render_test_util.h"
#include "test_support.h"
#include "verify.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: verify_scenes SCENE [CAMERA_RAYS [INTERIOR_RAYS]]\n");
        return 2;
    }
    long camera_rays = argc > 2 ? atol(argv[2]) : 2000;
    long interior_rays = argc > 3 ? atol(argv[3]) : 500;
    char path[1024];
    if (!kd_test_shared_scene(argv[1], path, sizeof path)) {
        printf("verify_scenes: %s not found, skipping\n", path);
        return KD_TEST_SKIP;
    }
    kd_test_scene scene;
    kd_error err;
    kd_build_params params;
    kd_build_params_default(&params);
    kd_status st = kd_test_scene_load(&scene, path, &params, &err);
    CHECK_MSG(st == KD_OK, "%s", err.message);
    if (st)
        return kd_test_finish("verify_scenes");
    uint32_t n = scene.mesh.num_triangles;

    kd_invariant_report inv;
    CHECK(kd_verify_invariants(&scene.tree, scene.tri_verts, n, 0, &inv, &err) == KD_OK);
    uint64_t violations = kd_invariant_report_total(&inv);
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        for (int e = 0; e < inv.num_examples[k]; e++) {
            char text[512];
            kd_verify_describe(&inv.examples[k][e], text, sizeof text);
            fprintf(stderr, "  %s\n", text);
        }
    CHECK_MSG(violations == 0, "%s: %llu invariant violations", argv[1], (unsigned long long)violations);
    CHECK(inv.structure_ok);

    /* Random pixels of the default verification view, then interior rays. */
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    kd_camera cam;
    CHECK(kd_camera_setup(&cam, &req, scene.mesh_bounds, 256, 256, &err) == KD_OK);
    size_t total = (size_t)(camera_rays + interior_rays);
    kd_ray *rays = malloc((total + 1) * sizeof *rays);
    kd_test_rng rng = {31337};
    for (long i = 0; i < camera_rays; i++)
        rays[i] = kd_camera_ray(&cam, (int)kd_test_rng_range(&rng, 0, 255), (int)kd_test_rng_range(&rng, 0, 255));
    for (long i = 0; i < interior_rays; i++) {
        kd_ray *r = &rays[camera_rays + i];
        kd_aabb b = scene.mesh_bounds;
        for (int a = 0; a < 3; a++) {
            r->org[a] = b.lo[a] + (b.hi[a] - b.lo[a]) * kd_test_rng_float(&rng);
            r->dir[a] = 2.0f * kd_test_rng_float(&rng) - 1.0f;
        }
        r->t_max = INFINITY;
    }
    kd_trace_scene trace;
    st = kd_trace_scene_init(&trace, &scene.tree, scene.tri_verts, n, &err);
    CHECK_MSG(st == KD_OK, "%s", err.message);
    kd_ray_report rep;
    memset(&rep, 0, sizeof rep);
    if (st == KD_OK)
        CHECK(kd_verify_rays(&trace, rays, total, KD_VERIFY_DEFAULT_TOLERANCE, 0, NULL, NULL, NULL,
                             NULL, &rep, &err) == KD_OK);
    for (int e = 0; e < rep.num_examples; e++)
        fprintf(stderr, "  ray %u: tree %u t=%.9g, brute force %u t=%.9g\n", rep.examples[e].ray,
                rep.examples[e].tree_tri, (double)rep.examples[e].tree_t, rep.examples[e].ref_tri,
                (double)rep.examples[e].ref_t);
    CHECK_MSG(rep.num_mismatches == 0, "%s: %llu ray mismatches", argv[1], (unsigned long long)rep.num_mismatches);
    CHECK(rep.num_rays == total && rep.num_ref_hits > 0);

    printf("%s: %u triangles, tree built in %.2f s (%u nodes); invariants: %llu violations over "
           "%u leaves, %llu pairs tested exactly (%.2f s); rays: %zu (%ld camera, %ld interior), "
           "%llu hit, %llu same, %llu coincident, %llu mismatches (%.2f s)\n",
           argv[1], n, scene.tree_seconds, scene.tree.num_nodes, (unsigned long long)violations,
           inv.num_leaves, (unsigned long long)inv.num_pairs_tested, inv.seconds, total, camera_rays,
           interior_rays, (unsigned long long)rep.num_ref_hits, (unsigned long long)rep.num_same,
           (unsigned long long)rep.num_coincident, (unsigned long long)rep.num_mismatches, rep.seconds);
    free(rays);
    kd_test_scene_free(&scene);
    return kd_test_finish("verify_scenes");
}
