/* Helpers for the CPU builder's tests: in-memory meshes, random scenes, an
 * exact triangle-box overlap test (big-integer arithmetic, independent of the
 * verifier's) and checkers every test applies to the trees it builds. */
#ifndef KD_TEST_BUILD_SUPPORT_H
#define KD_TEST_BUILD_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "kd_build.h"
#include "kd_tree.h"

/* A mesh of n triangles from 9n floats (v0 v1 v2 per triangle), one vertex
 * per corner (triangle soup). Free with kd_mesh_free. */
void bt_mesh_from_soup(kd_mesh *mesh, const float *verts, uint32_t n);

/* Small deterministic generator (xorshift); bt_rand01 in [0, 1). */
typedef struct bt_rng {
    uint64_t s;
} bt_rng;
uint32_t bt_rand_u32(bt_rng *r);
float bt_rand01(bt_rng *r);

/* Random scenes into verts (9n floats):
 *  BT_SCENE_SOUP:  small triangles at random in [0, 1]^3;
 *  BT_SCENE_GRID:  vertices snapped to multiples of 1/8, so positions repeat,
 *                  vertices touch planes and many triangles are axis-flat;
 *  BT_SCENE_QUADS: axis-aligned rectangles (two triangles each) on a grid;
 *  BT_SCENE_MIXED: a mix of the above with some exact duplicates. */
typedef enum bt_scene_kind { BT_SCENE_SOUP, BT_SCENE_GRID, BT_SCENE_QUADS, BT_SCENE_MIXED } bt_scene_kind;
void bt_random_scene(bt_rng *r, bt_scene_kind kind, float *verts, uint32_t n);

/* A random scene of n triangles as a soup mesh (seeded; free with kd_mesh_free). */
void bt_random_mesh(kd_mesh *mesh, uint32_t seed, bt_scene_kind kind, uint32_t n);

/* Exact overlap of a triangle and a closed box (touching counts): a
 * double-precision filter with error margins, big integers when it cannot tell. */
bool bt_tribox_overlap_exact(const float v0[3], const float v1[3], const float v2[3],
                             const kd_aabb *box);
/* The same, always in big integers (to test the filter against). */
bool bt_tribox_overlap_slow(const float v0[3], const float v1[3], const float v2[3],
                            const kd_aabb *box);

/* Every triangle that exactly overlaps a leaf's box is listed in it. Returns
 * the number of violations (printing the first few). */
uint64_t bt_check_exact_overlap(const kd_tree *tree, const kd_mesh *mesh);

/* Depth of the deepest leaf. */
uint32_t bt_tree_depth(const kd_tree *tree);

/* The SAH cost under the build's own constants (no empty bonus), computed
 * directly (an independent check of kd_tree_compute_stats). */
double bt_sah_cost(const kd_tree *tree, double traversal, double intersect);

#endif
