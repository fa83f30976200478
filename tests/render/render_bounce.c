/* The diffuse bounce generator (bounce.h): the same inputs give the same
 * ray bit for bit, the seed and the pixel change it; directions are
 * cosine-distributed about the normal on the eye's side; the origin is
 * lifted off the surface far enough that the bounce never meets its own
 * triangle, at any scale and distance from the origin. */
#include <math.h>
#include <string.h>

#include "bounce.h"
#include "render_test_util.h"
#include "test_support.h"

/* The floor triangle, y = 0, normal +-y. */
static const float k_floor[9] = {-10, 0, -10, 10, 0, -10, 0, 0, 10};

static kd_trace_hit hit_at(float b1, float b2)
{
    kd_trace_hit h = {0, 1.0f, b1, b2};
    return h;
}

static void test_repeatable(void)
{
    const float down[3] = {0, -1, 0};
    const kd_trace_hit h = hit_at(0.25f, 0.25f);
    kd_ray a, b, c, d;
    CHECK(kd_bounce_ray(k_floor, down, &h, 1, 12345, &a) && kd_bounce_ray(k_floor, down, &h, 1, 12345, &b));
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(kd_bounce_ray(k_floor, down, &h, 2, 12345, &c) && memcmp(a.dir, c.dir, sizeof a.dir) != 0);
    CHECK(kd_bounce_ray(k_floor, down, &h, 1, 12346, &d) && memcmp(a.dir, d.dir, sizeof a.dir) != 0);
    CHECK(memcmp(a.org, c.org, sizeof a.org) == 0); /* the origin depends on the hit alone */
    const float degenerate[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    CHECK(!kd_bounce_ray(degenerate, down, &h, 1, 0, &a));
}

/* Cosine-weighted about +y: P(cos < c) = c^2, E[cos] = 2/3, no drift sideways. */
static void test_distribution(void)
{
    const float down[3] = {0, -1, 0}, up[3] = {0, 1, 0};
    const kd_trace_hit h = hit_at(0.25f, 0.25f);
    enum { N = 100000 };
    double sum_cos = 0.0, sum_x = 0.0, sum_z = 0.0;
    int below_half = 0, wrong_side = 0, not_unit = 0;
    for (uint64_t p = 0; p < N; p++) {
        kd_ray r;
        kd_bounce_ray(k_floor, down, &h, 3, p, &r);
        const float len = sqrtf(r.dir[0] * r.dir[0] + r.dir[1] * r.dir[1] + r.dir[2] * r.dir[2]);
        not_unit += fabsf(len - 1.0f) > 1e-5f;
        wrong_side += !(r.dir[1] > 0.0f) || !(r.org[1] > 0.0f);
        sum_cos += r.dir[1];
        sum_x += r.dir[0];
        sum_z += r.dir[2];
        below_half += r.dir[1] < 0.5f;
    }
    CHECK(not_unit == 0 && wrong_side == 0);
    CHECK_MSG(fabs(sum_cos / N - 2.0 / 3.0) < 0.005, "mean cos %g", sum_cos / N);
    CHECK_MSG(fabs(sum_x / N) < 0.01 && fabs(sum_z / N) < 0.01, "mean x %g z %g", sum_x / N, sum_z / N);
    CHECK_MSG(fabs((double)below_half / N - 0.25) < 0.01, "P(cos < 0.5) %g", (double)below_half / N);
    /* From below, the bounce leaves downward. */
    kd_ray r;
    kd_bounce_ray(k_floor, up, &h, 3, 99, &r);
    CHECK(r.dir[1] < 0.0f && r.org[1] < 0.0f);
}

/* Random triangles scaled and moved far: no bounce re-hits its triangle. */
static void test_lift(void)
{
    const float scales[] = {1.0f, 1e-3f, 1e3f, 1.0f};
    const float moves[] = {0.0f, 100.0f, 0.0f, 1e4f};
    kd_test_rng rng = {42};
    for (int s = 0; s < 4; s++) {
        int self_hits = 0;
        for (int i = 0; i < 2000; i++) {
            float v[9];
            for (int k = 0; k < 9; k++)
                v[k] = (kd_test_rng_float(&rng) * scales[s]) + moves[s];
            float b1 = kd_test_rng_float(&rng), b2 = kd_test_rng_float(&rng) * (1.0f - b1);
            const kd_trace_hit h = hit_at(b1, b2);
            float in[3] = {kd_test_rng_float(&rng) - 0.5f, kd_test_rng_float(&rng) - 0.5f, -1.0f};
            kd_ray r;
            if (!kd_bounce_ray(v, in, &h, 5, (uint64_t)i, &r))
                continue;
            kd_ray_shear shear = kd_ray_shear_make(r.dir);
            float t, u, w;
            self_hits += kd_intersect_triangle(r.org, &shear, v, &t, &u, &w);
        }
        CHECK_MSG(self_hits == 0, "scale %g moved %g: %d bounces hit their own triangle", (double)scales[s],
                  (double)moves[s], self_hits);
    }
}

int main(void)
{
    test_repeatable();
    test_distribution();
    test_lift();
    return kd_test_finish("render_bounce");
}
