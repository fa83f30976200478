/* Scenes, rays and a brute-force check shared by the public API's tests. */
#ifndef KD_API_TEST_UTIL_H
#define KD_API_TEST_UTIL_H

#include <stddef.h>

#include "render_test_util.h"
#include "scankd.h"

/* The test's "city" (render_test_util.h: cubes on a grid, many triangles on
 * split planes, shared edges) as a mesh made by scankd_mesh_from_arrays. */
kd_status kd_api_test_city(kd_test_rng *rng, int cells, kd_mesh *mesh, kd_error *err);

/* n random rays around box (malloc'ed); every eighth one has a finite t_max
 * that cuts some hits off. */
scankd_ray *kd_api_test_rays(kd_test_rng *rng, kd_aabb box, size_t n);

/* Compares hits with a brute-force loop over the mesh's triangles (tri, t
 * and barycentrics bit for bit); counts failed checks. Returns the number
 * of mismatches, and of hits in *num_hit (may be NULL). */
size_t kd_api_test_check_hits(const char *what, const kd_mesh *mesh, const scankd_ray *rays,
                              const scankd_hit *hits, size_t n, size_t *num_hit);

#endif
