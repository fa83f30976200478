/* Helpers for the GPU builder's tests: synthetic stress scenes, scene
 * loading, and one checker every test applies to the trees it builds (tree
 * structure, the verifier's exhaustive invariants, ray agreement against
 * brute force). */
#ifndef KD_TEST_GPU_BUILD_CHECK_H
#define KD_TEST_GPU_BUILD_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_build.h"
#include "kd_mesh.h"
#include "kd_tree.h"

typedef enum gb_scene_kind {
    GB_SCENE_SOUP,      /* small random triangles in [0, 1]^3 */
    GB_SCENE_SNAPPED,   /* vertices on a 1/8 grid: repeated positions, axis-flat triangles */
    GB_SCENE_QUADS,     /* axis-aligned rectangles on a grid (walls, floors) */
    GB_SCENE_FLAT,      /* every triangle in the plane z = 0.5 */
    GB_SCENE_IDENTICAL, /* one triangle, n times */
    GB_SCENE_SLIVERS,   /* long thin triangles at grazing angles, with a few big ones */
    GB_SCENE_NUM_KINDS
} gb_scene_kind;

const char *gb_scene_name(gb_scene_kind kind);

/* A triangle-soup mesh of n triangles of the given kind (deterministic in seed). */
void gb_make_scene(kd_mesh *mesh, gb_scene_kind kind, uint32_t n, uint32_t seed);

/* Loads ../shared/scenes/<base>.obj[.gz]; false (and a note) when missing. */
bool gb_load_shared(const char *base, kd_mesh *mesh);

/* Options as the tests use them: defaults, or with the large split chosen. */
void gb_options(kd_gpu_build_options *opts, kd_large_split split);

/* CHECKs that tree is a right tree over mesh: structure, every invariant of
 * the verifier with zero violations, and agreement with brute force for
 * num_rays rays (camera rays through the scene, then random rays). */
void gb_check_tree(const char *label, const kd_mesh *mesh, const kd_tree *tree, uint32_t num_rays);

/* A builder as kd_build_gpu and kd_build_gpu_emulated are called. */
typedef kd_status (*gb_build_fn)(const kd_mesh *mesh, const kd_gpu_build_options *opts, kd_tree *tree,
                                 kd_gpu_build_profile *profile, kd_error *err);

/* CHECKs that build refuses a mesh with a NaN or infinite coordinate, naming
 * the vertex, whether the small or the large stage takes its triangles, and
 * builds it once mended. who names the builder in messages. */
void gb_check_non_finite(gb_build_fn build, const char *who);

/* Byte-for-byte equality of two trees. */
bool gb_trees_equal(const kd_tree *a, const kd_tree *b);

/* SAH cost (kd_tree_compute_stats, default constants) of a tree. */
double gb_sah_cost(const kd_tree *tree);

/* Interior nodes of a tree, and those whose subtree does not pay (its SAH
 * cost, bottom up, is not below a leaf of the union of its leaves'
 * triangles): in all, and with a union of at most max_union triangles (the
 * GPU builder's small subtrees); shallowest: the least depth of one
 * (UINT32_MAX: none). False when out of memory. */
typedef struct gb_unpaid {
    uint32_t interior, unpaid, unpaid_small, shallowest;
} gb_unpaid;
bool gb_count_unpaid(const kd_tree *tree, const kd_build_params *params, uint32_t max_union, gb_unpaid *out);

/* True when the tests should stay small (KD_TEST_QUICK set, e.g. under the sanitizers). */
bool gb_quick(void);

#endif
