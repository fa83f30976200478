/* Helpers shared by the ray-casting and verification tests: random scenes,
 * random rays, and a simple reference builder that needs no other module
 * (spatial-median splits, triangles assigned by the exact overlap test, so
 * its trees satisfy every invariant by construction). */
#ifndef KD_RENDER_TEST_UTIL_H
#define KD_RENDER_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "kd_build.h"
#include "kd_mesh.h"
#include "kd_trace.h"
#include "kd_tree.h"

typedef struct kd_test_rng {
    uint64_t state;
} kd_test_rng;

uint64_t kd_test_rng_next(kd_test_rng *rng);
/* Uniform in [0, 1). */
float kd_test_rng_float(kd_test_rng *rng);
/* Uniform integer in [lo, hi]. */
int64_t kd_test_rng_range(kd_test_rng *rng, int64_t lo, int64_t hi);

/* n random triangles (9 floats each, malloc'ed) in the unit cube, each
 * spanning up to `size`. */
float *kd_test_random_soup(kd_test_rng *rng, uint32_t n, float size);

/* An axis-aligned "city": unit cubes on an integer grid, two triangles per
 * face, so many triangles lie exactly on likely split planes and share
 * edges and vertices. *n receives the triangle count. */
float *kd_test_grid_city(kd_test_rng *rng, int cells, uint32_t *n);

/* Builds a mesh (positions and indices) from 9-floats-per-triangle data. */
void kd_test_mesh_from_soup(const float *tri_verts, uint32_t n, kd_mesh *mesh);

/* Median-split tree over the triangles: at most leaf_size triangles per leaf
 * unless max_depth is reached or a split makes no progress. */
void kd_test_build_median(const float *tri_verts, uint32_t n, int max_depth, uint32_t leaf_size,
                          kd_tree *tree);

/* The CPU exact-SAH builder (kd_build_cpu, default parameters) over the
 * triangles; false (with the reason on stderr) when it fails. */
bool kd_test_build_sah(const float *tri_verts, uint32_t n, kd_tree *tree);

/* A random ray: origin in the box grown by half its size (a flat box first
 * thickened), direction random;
 * with probability 1/4 one or two direction components are exactly zero. */
kd_ray kd_test_random_ray(kd_test_rng *rng, kd_aabb box);

/* The box of node `target` (walking down from the root); false if unreached. */
bool kd_test_node_box(const kd_tree *tree, uint32_t target, kd_aabb *box);

/* Bounds of 9-float triangles. */
kd_aabb kd_test_soup_bounds(const float *tri_verts, uint32_t n);

/* A scene for the verifier's tests: the OBJ at path, its exact-SAH CPU
 * tree under params and the per-triangle vertices the traversal reads. */
typedef struct kd_test_scene {
    kd_mesh mesh;
    kd_tree tree;
    float *tri_verts;
    kd_aabb mesh_bounds;
    double tree_seconds;
} kd_test_scene;

kd_status kd_test_scene_load(kd_test_scene *scene, const char *path, const kd_build_params *params,
                             kd_error *err);
void kd_test_scene_free(kd_test_scene *scene);

#endif
