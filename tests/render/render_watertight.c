/* Watertightness of the ray-triangle test: rays through the shared edges and
 * the shared vertex of a triangle fan, and rays from inside a closed,
 * randomly perturbed mesh aimed at its vertices and edges, never slip
 * between triangles. For contrast the same rays are shot with a plain
 * single-precision Moller-Trumbore test, and its leaks are printed (not
 * checked: they show what the test guards against). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kd_trace.h"
#include "render_test_util.h"
#include "test_support.h"

/* Any hit at all with the watertight test? */
static bool hits_any(const float *verts, uint32_t n, const kd_ray *ray)
{
    kd_trace_hit hit;
    kd_trace_brute_force(verts, n, ray, &hit);
    return hit.tri != KD_TRACE_NO_HIT;
}

/* Single-precision Moller-Trumbore, edges not shared exactly: for contrast. */
static bool naive_hits_any(const float *verts, uint32_t n, const kd_ray *ray)
{
    for (uint32_t t = 0; t < n; t++) {
        const float *v = verts + 9 * (size_t)t;
        float e1[3], e2[3], p[3], s[3], q[3];
        for (int a = 0; a < 3; a++) {
            e1[a] = v[3 + a] - v[a];
            e2[a] = v[6 + a] - v[a];
            s[a] = ray->org[a] - v[a];
        }
        p[0] = ray->dir[1] * e2[2] - ray->dir[2] * e2[1];
        p[1] = ray->dir[2] * e2[0] - ray->dir[0] * e2[2];
        p[2] = ray->dir[0] * e2[1] - ray->dir[1] * e2[0];
        float det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        if (det == 0.0f)
            continue;
        float inv = 1.0f / det;
        float u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
        if (u < 0.0f || u > 1.0f)
            continue;
        q[0] = s[1] * e1[2] - s[2] * e1[1];
        q[1] = s[2] * e1[0] - s[0] * e1[2];
        q[2] = s[0] * e1[1] - s[1] * e1[0];
        float w = (ray->dir[0] * q[0] + ray->dir[1] * q[1] + ray->dir[2] * q[2]) * inv;
        if (w < 0.0f || u + w > 1.0f)
            continue;
        if ((e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv > 0.0f)
            return true;
    }
    return false;
}

static kd_ray ray_towards(const float org[3], const float target[3])
{
    kd_ray r;
    for (int a = 0; a < 3; a++) {
        r.org[a] = org[a];
        r.dir[a] = target[a] - org[a];
    }
    r.t_max = INFINITY;
    return r;
}

/* A fan of k triangles around a centre, tilted off every axis; the ring is
 * closed, so every ray through the fan's inside must hit. */
static void fan_test(kd_test_rng *rng)
{
    enum { K = 12 };
    float verts[9 * K];
    float centre[3] = {0.3f, -0.2f, 0.7f};
    float ring[K][3];
    for (int i = 0; i < K; i++) {
        float ang = 6.2831853f * (float)i / K + 0.1f * kd_test_rng_float(rng);
        float r = 1.0f + 0.3f * kd_test_rng_float(rng);
        float x = r * cosf(ang), y = r * sinf(ang);
        /* tilt: the plane z = 0.3 x + 0.2 y, then offset */
        ring[i][0] = centre[0] + x;
        ring[i][1] = centre[1] + y;
        ring[i][2] = centre[2] + 0.3f * x + 0.2f * y;
    }
    for (int i = 0; i < K; i++) {
        memcpy(verts + 9 * i, centre, sizeof centre);
        memcpy(verts + 9 * i + 3, ring[i], sizeof centre);
        memcpy(verts + 9 * i + 6, ring[(i + 1) % K], sizeof centre);
    }
    long rays = 0, leaks = 0, naive_leaks = 0;
    for (int n = 0; n < 200000; n++) {
        /* Origin on either side, far or near; target on a shared edge or the centre. */
        float org[3];
        for (int a = 0; a < 3; a++)
            org[a] = centre[a] + (2.0f * kd_test_rng_float(rng) - 1.0f) * (n % 3 == 0 ? 100.0f : 3.0f);
        org[2] += (n % 2) ? 5.0f : -5.0f;
        float target[3];
        if (n % 7 == 0) {
            memcpy(target, centre, sizeof target);
        } else {
            int i = (int)kd_test_rng_range(rng, 0, K - 1);
            float s = 0.02f + 0.96f * kd_test_rng_float(rng);
            for (int a = 0; a < 3; a++)
                target[a] = centre[a] + s * (ring[i][a] - centre[a]);
        }
        kd_ray ray = ray_towards(org, target);
        rays++;
        leaks += !hits_any(verts, K, &ray);
        naive_leaks += !naive_hits_any(verts, K, &ray);
    }
    printf("fan of %d triangles: %ld rays through shared edges and the shared vertex: "
           "%ld leaks (plain Moller-Trumbore: %ld)\n", K, rays, leaks, naive_leaks);
    CHECK(leaks == 0);
}

/* A closed mesh: an octahedron subdivided into a sphere-like surface with
 * randomly perturbed vertices. Every ray from a point inside must hit it. */
static void closed_mesh_test(kd_test_rng *rng)
{
    const int levels = 4;
    float oct[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    int faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    /* Subdivide by splitting each face into a grid of (2^levels)^2 triangles
     * with vertices computed from barycentric lattice points, each lattice
     * point's position a function of the point only, so shared edges match. */
    int m = 1 << levels;
    size_t n = 8 * (size_t)m * (size_t)m;
    float *verts = malloc(9 * n * sizeof *verts);
    size_t count = 0;
    for (int f = 0; f < 8; f++) {
        const float *A = oct[faces[f][0]], *B = oct[faces[f][1]], *C = oct[faces[f][2]];
        for (int i = 0; i < m; i++)
            for (int j = 0; j + i < m; j++) {
                int tri_pts[2][3][2] = {{{i, j}, {i + 1, j}, {i, j + 1}}, {{i + 1, j}, {i + 1, j + 1}, {i, j + 1}}};
                int num = (i + j + 1 < m) ? 2 : 1;
                for (int t = 0; t < num; t++) {
                    for (int k = 0; k < 3; k++) {
                        int a = tri_pts[t][k][0], b = tri_pts[t][k][1];
                        double p[3], len = 0;
                        for (int c = 0; c < 3; c++) {
                            p[c] = (A[c] * (m - a - b) + B[c] * a + C[c] * b) / (double)m;
                            len += p[c] * p[c];
                        }
                        /* deterministic bump from the normalised position, so
                         * a point shared by faces gets the same coordinates */
                        len = sqrt(len);
                        double q[3];
                        for (int c = 0; c < 3; c++)
                            q[c] = p[c] / len;
                        double bump = 1.0 + 0.15 * sin(12.9898 * q[0] + 78.233 * q[1] + 37.719 * q[2]);
                        for (int c = 0; c < 3; c++)
                            verts[9 * count + 3 * k + c] = (float)(q[c] * bump);
                    }
                    count++;
                }
            }
    }
    long rays = 0, leaks = 0, naive_leaks = 0;
    for (int r = 0; r < 60000; r++) {
        float org[3];
        for (int a = 0; a < 3; a++)
            org[a] = 0.5f * (2.0f * kd_test_rng_float(rng) - 1.0f);
        /* aim at a vertex or an edge midpoint of a random triangle */
        size_t t = (size_t)kd_test_rng_range(rng, 0, (int64_t)count - 1);
        const float *v = verts + 9 * t;
        int k = (int)kd_test_rng_range(rng, 0, 2);
        float target[3];
        for (int a = 0; a < 3; a++)
            target[a] = (r % 2) ? v[3 * k + a] : 0.5f * (v[3 * k + a] + v[3 * ((k + 1) % 3) + a]);
        kd_ray ray = ray_towards(org, target);
        rays++;
        leaks += !hits_any(verts, (uint32_t)count, &ray);
        naive_leaks += !naive_hits_any(verts, (uint32_t)count, &ray);
    }
    printf("closed mesh of %zu triangles: %ld rays from inside at vertices and edges: "
           "%ld leaks (plain Moller-Trumbore: %ld)\n", count, rays, leaks, naive_leaks);
    CHECK(leaks == 0);
    free(verts);
}

int main(void)
{
    kd_test_rng rng = {2024};
    fan_test(&rng);
    closed_mesh_test(&rng);
    return kd_test_finish("render_watertight");
}
