/* Incoherent rays: one cosine-weighted diffuse bounce from a primary hit.
 * Plain data and inline functions valid in C and CUDA, like kd_trace.h, so
 * the CPU and GPU casters make the very same bounce rays bit for bit: the
 * random numbers are a fixed hash of (seed, pixel), every product goes
 * through KD_FMUL (never fused into an FMA), and only correctly rounded
 * operations are used (+, -, *, /, sqrt; no sin or cos, whose device and
 * host versions round differently). */
#ifndef KD_BOUNCE_H
#define KD_BOUNCE_H

#include <math.h>
#include <stdint.h>

#include "kd_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which rays a caster shoots. */
typedef enum kd_ray_kind {
    KD_RAYS_PRIMARY = 0, /* one camera ray per pixel */
    KD_RAYS_DIFFUSE      /* the camera rays, then one diffuse bounce per primary hit */
} kd_ray_kind;

#define KD_BOUNCE_DEFAULT_SEED 1u

/* The bounce origin is lifted off the surface by this fraction of the
 * triangle's largest coordinate magnitude: 2^-17 is 64 float steps at that
 * magnitude, well above the few steps of rounding in the hit point and in
 * the intersection test, so a bounce never re-hits its own triangle, at any
 * scale or distance from the origin. */
#define KD_BOUNCE_OFFSET 7.62939453125e-6f

/* Disk samples tried before falling back to the normal itself; each one
 * lands in the disk with probability pi/4, so the fallback is a 1e-11 event. */
enum { KD_BOUNCE_MAX_TRIES = 16 };

/* 64-bit finaliser (splitmix64's): every input bit moves every output bit. */
KD_HD uint64_t kd_bounce_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The k-th uniform number of a pixel, in [-1, 1): 24 random bits scaled by
 * powers of two, so the float is exact on every device. */
KD_HD float kd_bounce_uniform(uint32_t seed, uint64_t pixel, uint32_t k)
{
    uint64_t key = ((uint64_t)seed << 40) ^ pixel;
    uint64_t h = kd_bounce_mix(key + (uint64_t)(k + 1) * 0x9e3779b97f4a7c15ull);
    float u = (float)(uint32_t)(h >> 40) * (1.0f / 16777216.0f);
    return KD_FMUL(2.0f, u) - 1.0f;
}

/* A point uniform in the unit disk, by rejection from the square (no
 * trigonometry); projected up onto the hemisphere it is cosine-distributed. */
KD_HD void kd_bounce_disk(uint32_t seed, uint64_t pixel, float *x, float *y)
{
    for (uint32_t k = 0; k < KD_BOUNCE_MAX_TRIES; k++) {
        float a = kd_bounce_uniform(seed, pixel, 2 * k), b = kd_bounce_uniform(seed, pixel, 2 * k + 1);
        if (KD_FMUL(a, a) + KD_FMUL(b, b) < 1.0f) {
            *x = a;
            *y = b;
            return;
        }
    }
    *x = 0.0f;
    *y = 0.0f;
}

/* Unit geometric normal of triangle v (9 floats), turned to face against
 * dir, the incoming ray. The cross product is scaled by its largest
 * component before the length is taken, so tiny and huge triangles neither
 * underflow nor overflow. Returns 0 for a degenerate triangle. */
KD_HD int kd_bounce_normal(const float *v, const float dir[3], float n[3])
{
    float e1[3], e2[3];
    for (int a = 0; a < 3; a++) {
        e1[a] = v[3 + a] - v[a];
        e2[a] = v[6 + a] - v[a];
    }
    n[0] = KD_FMUL(e1[1], e2[2]) - KD_FMUL(e1[2], e2[1]);
    n[1] = KD_FMUL(e1[2], e2[0]) - KD_FMUL(e1[0], e2[2]);
    n[2] = KD_FMUL(e1[0], e2[1]) - KD_FMUL(e1[1], e2[0]);
    float m = fmaxf(fabsf(n[0]), fmaxf(fabsf(n[1]), fabsf(n[2])));
    if (!(m > 0.0f) || !(m < INFINITY))
        return 0;
    for (int a = 0; a < 3; a++)
        n[a] = n[a] / m;
    float len = sqrtf(KD_FMUL(n[0], n[0]) + KD_FMUL(n[1], n[1]) + KD_FMUL(n[2], n[2]));
    float facing = KD_FMUL(n[0], dir[0]) + KD_FMUL(n[1], dir[1]) + KD_FMUL(n[2], dir[2]);
    float inv = (facing > 0.0f ? -1.0f : 1.0f) / len;
    for (int a = 0; a < 3; a++)
        n[a] = KD_FMUL(n[a], inv);
    return 1;
}

/* Tangent t and bitangent b completing the unit normal n to an orthonormal
 * frame, without a branch on the normal's direction (Duff et al. 2017). */
KD_HD void kd_bounce_frame(const float n[3], float t[3], float b[3])
{
    float s = copysignf(1.0f, n[2]);
    float a = -1.0f / (s + n[2]);
    float c = KD_FMUL(KD_FMUL(n[0], n[1]), a);
    t[0] = 1.0f + KD_FMUL(KD_FMUL(s, KD_FMUL(n[0], n[0])), a);
    t[1] = KD_FMUL(s, c);
    t[2] = -KD_FMUL(s, n[0]);
    b[0] = c;
    b[1] = s + KD_FMUL(KD_FMUL(n[1], n[1]), a);
    b[2] = -n[1];
}

/* The bounce ray of a primary ray (direction dir) that hit triangle hit->tri
 * (vertices v, 9 floats) at barycentrics hit->b1, hit->b2: from the hit
 * point, computed from the vertices (so its error scales with the triangle,
 * not with the eye's distance) and lifted along the normal toward the eye's
 * side, in a cosine-weighted direction about that normal drawn from (seed,
 * pixel). Returns 0, making no ray, for a degenerate triangle. */
KD_HD int kd_bounce_ray(const float *v, const float dir[3], const kd_trace_hit *hit, uint32_t seed,
                        uint64_t pixel, kd_ray *out)
{
    float n[3], t[3], b[3];
    if (!kd_bounce_normal(v, dir, n))
        return 0;
    kd_bounce_frame(n, t, b);
    float scale = 0.0f;
    for (int i = 0; i < 9; i++)
        scale = fmaxf(scale, fabsf(v[i]));
    const float lift = KD_FMUL(scale, KD_BOUNCE_OFFSET);
    float x, y;
    kd_bounce_disk(seed, pixel, &x, &y);
    const float z = sqrtf(1.0f - (KD_FMUL(x, x) + KD_FMUL(y, y)));
    for (int a = 0; a < 3; a++) {
        float p = v[a] + KD_FMUL(hit->b1, v[3 + a] - v[a]) + KD_FMUL(hit->b2, v[6 + a] - v[a]);
        out->org[a] = p + KD_FMUL(lift, n[a]);
        out->dir[a] = KD_FMUL(x, t[a]) + KD_FMUL(y, b[a]) + KD_FMUL(z, n[a]);
    }
    out->t_max = INFINITY;
    return 1;
}

#ifdef __cplusplus
}
#endif
#endif
