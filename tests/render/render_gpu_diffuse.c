/* The GPU caster against the CPU caster, bit for bit, with diffuse rays:
 * primary and bounce hits, distances, shading and the per-pixel counters,
 * with the counting kernels and with the traversal-only ones (hits alone,
 * counters 0), and the totals; on a grid city, the same city scaled down
 * and moved far from the origin (the bounce lift at another scale), and a
 * triangle soup seen from its inside view. Needs a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_render.h"
#include "cuda_status.h"
#include "gpu_render.h"
#include "render_test_util.h"
#include "test_support.h"
#include "views.h"

enum { SEED = 5 };

static size_t count_differences(const kd_render_buffers *a, const kd_render_buffers *b, bool counters)
{
    size_t n = (size_t)a->width * (size_t)a->height, diff = 0;
    for (size_t p = 0; p < n; p++) {
        diff += a->tri[p] != b->tri[p] || memcmp(&a->depth[p], &b->depth[p], 4) != 0 ||
                memcmp(&a->shade[p], &b->shade[p], 4) != 0 || a->bounce_tri[p] != b->bounce_tri[p] ||
                memcmp(&a->bounce_t[p], &b->bounce_t[p], 4) != 0;
        if (counters)
            diff += a->steps[p] != b->steps[p] || a->tests[p] != b->tests[p];
        else
            diff += b->steps[p] != 0.0f || b->tests[p] != 0.0f;
    }
    return diff;
}

static void compare(const char *label, const float *verts, uint32_t n, bool inside)
{
    kd_tree tree;
    kd_error err;
    kd_trace_scene trace;
    CHECK(kd_test_build_sah(verts, n, &tree));
    CHECK(kd_trace_scene_init(&trace, &tree, verts, n, &err) == KD_OK);
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    if (inside)
        CHECK(kd_view_computed("inside", &trace, &req, &err) == KD_OK);
    kd_camera cam;
    CHECK(kd_camera_setup(&cam, &req, trace.bounds, 97, 61, &err) == KD_OK);
    kd_render_buffers cpu, gpu;
    CHECK(kd_render_buffers_alloc(&cpu, cam.width, cam.height, &err) == KD_OK);
    CHECK(kd_render_buffers_alloc(&gpu, cam.width, cam.height, &err) == KD_OK);
    kd_render_options ro = {1, NULL, NULL, KD_RAYS_DIFFUSE, SEED};
    kd_render_stats cs;
    CHECK(kd_render_cpu(&trace, &cam, &ro, &cpu, &cs, &err) == KD_OK);
    CHECK(cs.num_bounce_rays > 0 && cs.num_bounce_hits > 0);
    kd_gpu_scene *scene = NULL;
    CHECK(kd_gpu_scene_upload(&scene, &tree, verts, n, &err) == KD_OK);
    for (int counters = 1; scene && counters >= 0; counters--) {
        const kd_gpu_render_options go = {2, KD_RAYS_DIFFUSE, SEED, counters};
        kd_gpu_render_stats gs;
        kd_status st = kd_gpu_render_with(scene, &cam, &go, &gpu, &gs, &err);
        CHECK_MSG(st == KD_OK, "%s: %s", label, err.message);
        const size_t diff = st == KD_OK ? count_differences(&cpu, &gpu, counters) : 1;
        CHECK_MSG(diff == 0, "%s, counters %d: %zu pixels differ", label, counters, diff);
        CHECK(gs.num_hits == cs.num_hits && gs.num_bounce_rays == cs.num_bounce_rays &&
              gs.num_bounce_hits == cs.num_bounce_hits && gs.bounce_rays_per_second > 0);
        if (counters)
            CHECK(gs.total_steps == cs.total_steps && gs.bounce_steps == cs.bounce_steps &&
                  gs.bounce_tests == cs.bounce_tests);
        /* Timing alone: the same totals. */
        CHECK(kd_gpu_render_with(scene, &cam, &go, NULL, &gs, &err) == KD_OK &&
              gs.num_bounce_rays == cs.num_bounce_rays);
    }
    printf("%s: %llu primary hits, %llu bounce rays, GPU and CPU agree\n", label,
           (unsigned long long)cs.num_hits, (unsigned long long)cs.num_bounce_rays);
    kd_gpu_scene_destroy(scene);
    kd_render_buffers_free(&cpu);
    kd_render_buffers_free(&gpu);
    kd_tree_free(&tree);
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("render_gpu_diffuse: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    kd_test_rng rng = {3};
    uint32_t n = 0;
    float *city = kd_test_grid_city(&rng, 6, &n);
    compare("grid city", city, n, false);
    for (size_t i = 0; i < 9 * (size_t)n; i++)
        city[i] = city[i] * 1e-3f + 100.0f;
    compare("grid city x 0.001, moved 100", city, n, false);
    free(city);
    /* Triangles strewn through a 10 x 4 x 6 box. */
    const float room[] = {0, 0, 0, 10, 4, 6};
    float *soup = kd_test_random_soup(&rng, 200, 0.2f);
    for (size_t i = 0; i < 9 * 200; i++)
        soup[i] = room[i % 3] + soup[i] * (room[3 + i % 3] - room[i % 3]);
    compare("random soup, inside", soup, 200, true);
    free(soup);
    return kd_test_finish("render_gpu_diffuse");
}
