#include "api_test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_trace.h"
#include "test_support.h"

kd_status kd_api_test_city(kd_test_rng *rng, int cells, kd_mesh *mesh, kd_error *err)
{
    uint32_t n = 0;
    float *soup = kd_test_grid_city(rng, cells, &n);
    uint32_t *indices = malloc(3 * (size_t)n * sizeof *indices);
    for (uint32_t i = 0; i < 3 * n; i++)
        indices[i] = i;
    kd_status st = scankd_mesh_from_arrays(soup, 3 * n, indices, n, mesh, err);
    free(soup);
    free(indices);
    return st;
}

scankd_ray *kd_api_test_rays(kd_test_rng *rng, kd_aabb box, size_t n)
{
    scankd_ray *rays = malloc(n * sizeof *rays);
    for (size_t i = 0; i < n; i++) {
        kd_ray r = kd_test_random_ray(rng, box);
        if (i % 8 == 7)
            r.t_max = kd_test_rng_float(rng) * 2.0f;
        memcpy(rays[i].org, r.org, sizeof r.org);
        memcpy(rays[i].dir, r.dir, sizeof r.dir);
        rays[i].t_max = r.t_max;
    }
    return rays;
}

static float *gather(const kd_mesh *mesh)
{
    float *v = malloc(9 * (size_t)mesh->num_triangles * sizeof *v);
    for (size_t t = 0; t < mesh->num_triangles; t++)
        for (int c = 0; c < 3; c++)
            memcpy(v + 9 * t + 3 * c, mesh->positions + 3 * (size_t)mesh->indices[3 * t + c],
                   3 * sizeof *v);
    return v;
}

static bool same_hit(const scankd_hit *a, const kd_trace_hit *b)
{
    if (a->tri != b->tri)
        return false;
    return a->tri == SCANKD_NO_HIT ||
           (memcmp(&a->t, &b->t, sizeof a->t) == 0 && memcmp(&a->b1, &b->b1, sizeof a->b1) == 0 &&
            memcmp(&a->b2, &b->b2, sizeof a->b2) == 0);
}

size_t kd_api_test_check_hits(const char *what, const kd_mesh *mesh, const scankd_ray *rays,
                              const scankd_hit *hits, size_t n, size_t *num_hit)
{
    float *verts = gather(mesh);
    size_t mismatches = 0, hit_count = 0;
    for (size_t i = 0; i < n; i++) {
        kd_ray ray;
        memcpy(&ray, &rays[i], sizeof ray);
        kd_trace_hit want;
        kd_trace_brute_force(verts, mesh->num_triangles, &ray, &want);
        hit_count += want.tri != KD_TRACE_NO_HIT;
        if (!same_hit(&hits[i], &want) && mismatches++ < 5)
            fprintf(stderr, "%s: ray %zu: hit triangle %u at t %.9g, brute force %u at %.9g\n",
                    what, i, hits[i].tri, (double)hits[i].t, want.tri, (double)want.t);
    }
    free(verts);
    CHECK_MSG(mismatches == 0, "%s: %zu of %zu rays disagree with brute force", what, mismatches, n);
    if (num_hit)
        *num_hit = hit_count;
    return mismatches;
}
