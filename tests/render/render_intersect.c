/* The watertight ray-triangle test against a double-precision reference on
 * random triangles and rays: clear hits must hit with t and barycentrics
 * close to the reference, clear misses (outside the triangle, or behind the
 * origin) must miss. "Clear" leaves a margin of 1e-4 in barycentric terms;
 * rays within 3 degrees of the triangle's plane are left out (t is then
 * ill-conditioned in any precision). Tolerances: t within 1e-5 relative,
 * barycentrics within 2e-4. Also: the closest-hit rule's tie-break. */
#include <math.h>
#include <string.h>

#include "kd_trace.h"
#include "render_test_util.h"
#include "test_support.h"

/* Solves org + t dir = v0 + b1 (v1 - v0) + b2 (v2 - v0) in double (Cramer). */
static bool reference(const float *v, const kd_ray *ray, double *t, double *b1, double *b2,
                      double *abs_cos)
{
    double e1[3], e2[3], s[3], d[3];
    for (int a = 0; a < 3; a++) {
        e1[a] = (double)v[3 + a] - v[a];
        e2[a] = (double)v[6 + a] - v[a];
        s[a] = (double)ray->org[a] - v[a];
        d[a] = ray->dir[a];
    }
    double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double dl = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    *abs_cos = fabs(n[0] * d[0] + n[1] * d[1] + n[2] * d[2]) / (nl * dl);
    if (det == 0.0)
        return false;
    double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    *b1 = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
    *b2 = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
    *t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    return true;
}

int main(void)
{
    kd_test_rng rng = {99};
    long clear_hits = 0, clear_misses = 0, behind = 0, near_edge = 0, grazing = 0;
    long bad_hit = 0, bad_miss = 0, bad_t = 0, bad_bary = 0;
    double worst_t = 0.0, worst_b = 0.0;
    for (long n = 0; n < 400000; n++) {
        float v[9];
        float scale = (n % 4 == 0) ? 1000.0f : 1.0f; /* magnitudes other than 1 too */
        for (int i = 0; i < 9; i++)
            v[i] = scale * (2.0f * kd_test_rng_float(&rng) - 1.0f);
        /* target: a barycentric point, inside or out, some near the edges */
        float b1 = 1.4f * kd_test_rng_float(&rng) - 0.2f, b2 = 1.4f * kd_test_rng_float(&rng) - 0.2f;
        if (n % 5 == 0)
            b2 = 1.0f - b1 + (kd_test_rng_float(&rng) - 0.5f) * 1e-3f;
        kd_ray ray;
        float target[3];
        for (int a = 0; a < 3; a++) {
            target[a] = v[a] + b1 * (v[3 + a] - v[a]) + b2 * (v[6 + a] - v[a]);
            ray.org[a] = scale * 4.0f * (2.0f * kd_test_rng_float(&rng) - 1.0f);
            ray.dir[a] = target[a] - ray.org[a];
        }
        if (n % 3 == 0) /* pointing away: the triangle lies behind the origin */
            for (int a = 0; a < 3; a++)
                ray.dir[a] = -ray.dir[a];
        ray.t_max = INFINITY;
        double rt = 0, rb1 = 0, rb2 = 0, abs_cos = 0;
        bool solvable = reference(v, &ray, &rt, &rb1, &rb2, &abs_cos);
        kd_ray_shear s = kd_ray_shear_make(ray.dir);
        float t = 0, g1 = 0, g2 = 0;
        int hit = kd_intersect_triangle(ray.org, &s, v, &t, &g1, &g2);
        if (!solvable || abs_cos < 0.0523) { /* 3 degrees */
            grazing++;
            continue;
        }
        double margin = fmin(fmin(rb1, rb2), 1.0 - rb1 - rb2);
        if (fabs(margin) < 1e-4) {
            near_edge++;
            continue;
        }
        if (rt < -1e-4 * fabs(rt) - 1e-6 && margin > 0) {
            behind++;
            bad_miss += hit != 0;
            continue;
        }
        if (margin < 0) {
            clear_misses++;
            bad_miss += hit != 0;
            continue;
        }
        if (rt <= 1e-6)
            continue;
        clear_hits++;
        if (!hit) {
            bad_hit++;
            continue;
        }
        double et = fabs(t - rt) / rt;
        double eb = fmax(fabs(g1 - rb1), fabs(g2 - rb2));
        worst_t = fmax(worst_t, et);
        worst_b = fmax(worst_b, eb);
        bad_t += et > 1e-5;
        bad_bary += eb > 2e-4;
    }
    printf("render_intersect: %ld clear hits, %ld clear misses, %ld behind the origin, "
           "%ld within 1e-4 of an edge and %ld grazing left out\n",
           clear_hits, clear_misses, behind, near_edge, grazing);
    printf("  wrong: %ld missed hits, %ld false hits; worst relative t error %.2g, worst "
           "barycentric error %.2g\n", bad_hit, bad_miss, worst_t, worst_b);
    CHECK(bad_hit == 0);
    CHECK(bad_miss == 0);
    CHECK(bad_t == 0);
    CHECK(bad_bary == 0);
    CHECK(clear_hits > 50000 && clear_misses > 50000 && behind > 10000);

    /* Degenerate input: a ray in the triangle's plane, a zero-area triangle. */
    float flat[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    kd_ray in_plane = {{-1, 0.25f, 0}, {1, 0, 0}, INFINITY};
    kd_ray_shear s = kd_ray_shear_make(in_plane.dir);
    float t, g1, g2;
    CHECK(!kd_intersect_triangle(in_plane.org, &s, flat, &t, &g1, &g2));
    float line[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    kd_ray through = {{0.5f, 0.5f, -3}, {0, 0, 1}, INFINITY};
    s = kd_ray_shear_make(through.dir);
    CHECK(!kd_intersect_triangle(through.org, &s, line, &t, &g1, &g2));

    /* Ties: two coincident triangles give the lower index, in either order. */
    float pair[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    kd_ray down = {{0.2f, 0.2f, 1}, {0, 0, -1}, INFINITY};
    kd_trace_hit hit;
    kd_trace_brute_force(pair, 2, &down, &hit);
    CHECK(hit.tri == 0 && hit.t == 1.0f);
    kd_hit_init(&hit, INFINITY);
    kd_hit_consider(&hit, 1, 1.0f, 0.2f, 0.2f);
    kd_hit_consider(&hit, 0, 1.0f, 0.2f, 0.2f);
    CHECK(hit.tri == 0);
    kd_hit_consider(&hit, 5, 0.5f, 0.1f, 0.1f);
    CHECK(hit.tri == 5 && hit.t == 0.5f);
    /* t_max cuts hits off in the traversal's rule */
    kd_hit_init(&hit, 0.75f);
    kd_hit_consider(&hit, 0, 1.0f, 0.2f, 0.2f);
    CHECK(hit.tri == KD_TRACE_NO_HIT);
    return kd_test_finish("render_intersect");
}
