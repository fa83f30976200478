/* The diffuse bounces against brute force (kd_verify_bounces): on a grid
 * city, the bounces of every camera ray's hit agree with brute force, one
 * per hit; checked against a tree that lost references, they mismatch, and
 * each mismatch names the camera ray its bounce came from. */
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cpu_render.h"
#include "kd_tree.h"
#include "render_test_util.h"
#include "test_support.h"
#include "verify.h"

/* Camera rays over the scene and their tree hits. */
static size_t camera_rays(const kd_trace_scene *scene, kd_ray **rays, kd_trace_hit **hits)
{
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    kd_camera cam;
    kd_error err;
    CHECK(kd_camera_setup(&cam, &req, scene->bounds, 48, 32, &err) == KD_OK);
    const size_t n = (size_t)cam.width * (size_t)cam.height;
    *rays = malloc(n * sizeof **rays);
    *hits = malloc(n * sizeof **hits);
    for (size_t p = 0; p < n; p++) {
        (*rays)[p] = kd_camera_ray(&cam, (int)(p % (size_t)cam.width), (int)(p / (size_t)cam.width));
        kd_trace_counters c = {0, 0, 0};
        kd_trace_closest(scene, &(*rays)[p], &(*hits)[p], &c);
    }
    return n;
}

/* Keeps only the first triangle of every leaf. */
static void drop_references(kd_tree *tree)
{
    for (uint32_t i = 0; i < tree->num_nodes; i++) {
        const kd_node node = tree->nodes[i];
        const uint32_t count = kd_node_is_leaf(node) ? kd_node_num_prims(node) : 0;
        for (uint32_t k = 1; k < count; k++)
            tree->leaf_indices[node.leaf_offset + k] = tree->leaf_indices[node.leaf_offset];
    }
}

int main(void)
{
    kd_test_rng rng = {11};
    uint32_t n = 0;
    float *verts = kd_test_grid_city(&rng, 5, &n);
    kd_tree tree;
    CHECK(kd_test_build_sah(verts, n, &tree));
    kd_error err;
    kd_trace_scene scene;
    CHECK(kd_trace_scene_init(&scene, &tree, verts, n, &err) == KD_OK);
    kd_ray *rays = NULL;
    kd_trace_hit *hits = NULL;
    const size_t num = camera_rays(&scene, &rays, &hits);
    size_t num_hits = 0;
    for (size_t i = 0; i < num; i++)
        num_hits += hits[i].tri != KD_TRACE_NO_HIT;
    CHECK_MSG(num_hits > num / 8, "%zu of %zu camera rays hit", num_hits, num);

    uint8_t *mismatch = calloc(num, 1);
    kd_ray_report rep;
    CHECK(kd_verify_bounces(&scene, rays, hits, NULL, num, 9, 1e-5f, 2, NULL, NULL, mismatch, &rep, &err) == KD_OK);
    CHECK_MSG(rep.num_rays == num_hits && rep.num_mismatches == 0 && rep.num_ref_hits > 0,
              "%llu bounces of %zu hits, %llu mismatches", (unsigned long long)rep.num_rays, num_hits,
              (unsigned long long)rep.num_mismatches);
    size_t marked = 0;
    for (size_t i = 0; i < num; i++)
        marked += mismatch[i];
    CHECK(marked == 0);

    drop_references(&tree);
    CHECK(kd_verify_bounces(&scene, rays, hits, NULL, num, 9, 1e-5f, 2, NULL, NULL, mismatch, &rep, &err) == KD_OK);
    CHECK_MSG(rep.num_mismatches > 0 && rep.num_examples > 0, "%llu mismatches",
              (unsigned long long)rep.num_mismatches);
    for (int e = 0; e < rep.num_examples; e++)
        CHECK(rep.examples[e].ray < num && mismatch[rep.examples[e].ray] == 1 &&
              hits[rep.examples[e].ray].tri != KD_TRACE_NO_HIT);
    free(mismatch);
    free(rays);
    free(hits);
    kd_tree_free(&tree);
    free(verts);
    return kd_test_finish("verify_bounce");
}
