/* Ray casting through a kd-tree: the watertight ray-triangle test of Woop,
 * Benthin and Wald (JCGT 2013) and a pbrt-style front-to-back traversal.
 * Plain structs and inline functions valid in both C and CUDA, so the CPU and
 * the GPU ray casters run the same arithmetic and can be compared hit for hit.
 *
 * Closest-hit rule (shared by the traversal and the brute-force reference):
 * the smallest t > 0 wins; equal t goes to the lower triangle index, so ties
 * between coincident triangles resolve the same way whatever the visit order. */
#ifndef KD_TRACE_H
#define KD_TRACE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Products that must never be fused into an FMA: an edge function evaluated
 * for a shared edge from either triangle must come out as exact negatives,
 * which a fused multiply-add would break. nvcc fuses by default, so the device
 * path uses the never-fused intrinsic; host C11 (-std=c11) keeps contraction off. */
#if defined(__CUDA_ARCH__)
#define KD_FMUL(a, b) __fmul_rn((a), (b))
#else
#define KD_FMUL(a, b) ((a) * (b))
#endif

/* Fixed traversal stack: a node at depth d has at most d postponed siblings,
 * and no tree may be deeper than KD_TREE_DEPTH_LIMIT (kd_tree.h);
 * kd_trace_scene_init checks a tree's real depth before it is traced. */
enum { KD_TRACE_STACK_SIZE = KD_TREE_DEPTH_LIMIT + 1 };
#define KD_TRACE_NO_HIT 0xffffffffu

/* Relative slack on the traversal's interval tests: children are skipped
 * only when the ray misses them by more than rounding could explain. */
#define KD_TRACE_SLACK 4e-7f

typedef struct kd_ray {
    float org[3];
    float dir[3];        /* need not be normalised; t is in units of |dir| */
    float t_max;         /* hits beyond it are ignored (INFINITY: none) */
} kd_ray;

typedef struct kd_trace_hit {
    uint32_t tri;        /* KD_TRACE_NO_HIT when nothing was hit */
    float t;
    float b1, b2;        /* barycentrics of vertices 1 and 2 */
} kd_trace_hit;

typedef struct kd_trace_counters {
    uint32_t steps;      /* nodes visited, interior and leaf */
    uint32_t tests;      /* ray-triangle tests */
    uint32_t overflow;   /* 1 if the stack overflowed (tree deeper than allowed) */
} kd_trace_counters;

/* Everything a traversal reads; pointers are host or device memory alike. */
typedef struct kd_trace_scene {
    const kd_node *nodes;
    const uint32_t *leaf_indices;
    const float *tri_verts;   /* 9 floats per triangle: v0 v1 v2, xyz each */
    uint32_t num_nodes;
    uint32_t num_triangles;
    kd_aabb bounds;
} kd_trace_scene;

/* Per-ray constants of the watertight test: the axis permutation and shear. */
typedef struct kd_ray_shear {
    int kx, ky, kz;
    float sx, sy, sz;
} kd_ray_shear;

KD_HD kd_ray_shear kd_ray_shear_make(const float dir[3])
{
    kd_ray_shear s;
    float ax = fabsf(dir[0]), ay = fabsf(dir[1]), az = fabsf(dir[2]);
    /* kz: the dominant axis, so the division below is well conditioned */
    s.kz = (ax >= ay && ax >= az) ? 0 : (ay >= az ? 1 : 2);
    s.kx = s.kz == 2 ? 0 : s.kz + 1;
    s.ky = s.kx == 2 ? 0 : s.kx + 1;
    if (dir[s.kz] < 0.0f) { /* swap to keep the triangles' winding */
        int k = s.kx;
        s.kx = s.ky;
        s.ky = k;
    }
    s.sx = dir[s.kx] / dir[s.kz];
    s.sy = dir[s.ky] / dir[s.kz];
    s.sz = 1.0f / dir[s.kz];
    return s;
}

/* Watertight ray-triangle test. v points at 9 floats (v0 v1 v2). Returns 1
 * and fills *t, *b1, *b2 for a hit with t > 0, else 0. Ignores t_max: the
 * caller compares t, so every path computes t the same way. */
KD_HD int kd_intersect_triangle(const float org[3], const kd_ray_shear *s, const float *v,
                                float *t_out, float *b1_out, float *b2_out)
{
    /* Translate the vertices to the ray origin... */
    float a_kx = v[0 + s->kx] - org[s->kx], a_ky = v[0 + s->ky] - org[s->ky], a_kz = v[0 + s->kz] - org[s->kz];
    float b_kx = v[3 + s->kx] - org[s->kx], b_ky = v[3 + s->ky] - org[s->ky], b_kz = v[3 + s->kz] - org[s->kz];
    float c_kx = v[6 + s->kx] - org[s->kx], c_ky = v[6 + s->ky] - org[s->ky], c_kz = v[6 + s->kz] - org[s->kz];
    /* ...and shear them so the ray runs along +z (each vertex on its own, so
     * a vertex shared by two triangles lands on the same point for both). */
    float ax = a_kx - KD_FMUL(s->sx, a_kz), ay = a_ky - KD_FMUL(s->sy, a_kz);
    float bx = b_kx - KD_FMUL(s->sx, b_kz), by = b_ky - KD_FMUL(s->sy, b_kz);
    float cx = c_kx - KD_FMUL(s->sx, c_kz), cy = c_ky - KD_FMUL(s->sy, c_kz);

    /* Scaled barycentrics: 2D edge functions of the sheared triangle. */
    float u = KD_FMUL(cx, by) - KD_FMUL(cy, bx);
    float w_v = KD_FMUL(ax, cy) - KD_FMUL(ay, cx);
    float w = KD_FMUL(bx, ay) - KD_FMUL(by, ax);

    /* An edge function of exactly 0 may be a rounded tiny value: redo all
     * three in double, where these products are exact (paper, section 4). */
    if (u == 0.0f || w_v == 0.0f || w == 0.0f) {
        double du = (double)cx * (double)by - (double)cy * (double)bx;
        double dv = (double)ax * (double)cy - (double)ay * (double)cx;
        double dw = (double)bx * (double)ay - (double)by * (double)ax;
        if ((du < 0.0 || dv < 0.0 || dw < 0.0) && (du > 0.0 || dv > 0.0 || dw > 0.0))
            return 0;
        u = (float)du;
        w_v = (float)dv;
        w = (float)dw;
    } else if ((u < 0.0f || w_v < 0.0f || w < 0.0f) && (u > 0.0f || w_v > 0.0f || w > 0.0f)) {
        return 0;
    }

    float det = u + w_v + w;
    if (det == 0.0f)
        return 0; /* ray in the triangle's plane, or a degenerate triangle */

    /* Scaled distance; both signs accepted (no back-face culling). */
    float az = KD_FMUL(s->sz, a_kz), bz = KD_FMUL(s->sz, b_kz), cz = KD_FMUL(s->sz, c_kz);
    float t_scaled = KD_FMUL(u, az) + KD_FMUL(w_v, bz) + KD_FMUL(w, cz);
    if (det < 0.0f) {
        det = -det;
        t_scaled = -t_scaled;
        u = -u;
        w_v = -w_v;
        w = -w;
    }
    if (!(t_scaled > 0.0f))
        return 0;
    float inv_det = 1.0f / det;
    float t = KD_FMUL(t_scaled, inv_det);
    if (!(t > 0.0f))
        return 0;
    *t_out = t;
    *b1_out = KD_FMUL(w_v, inv_det);
    *b2_out = KD_FMUL(w, inv_det);
    return 1;
}

/* Records a candidate hit if it beats the current one under the closest-hit rule. */
KD_HD void kd_hit_consider(kd_trace_hit *hit, uint32_t tri, float t, float b1, float b2)
{
    if (t < hit->t || (t == hit->t && tri < hit->tri)) {
        hit->tri = tri;
        hit->t = t;
        hit->b1 = b1;
        hit->b2 = b2;
    }
}

KD_HD void kd_hit_init(kd_trace_hit *hit, float t_max)
{
    hit->tri = KD_TRACE_NO_HIT;
    hit->t = t_max;
    hit->b1 = 0.0f;
    hit->b2 = 0.0f;
}

/* Parametric interval [*t0, *t1] of the ray inside box, clamped to t >= 0.
 * Returns 0 when the ray misses. Axes with a zero direction component are
 * handled explicitly (no 0 * inf). The far end is widened by rounding slack. */
KD_HD int kd_ray_box_interval(const kd_ray *ray, const float inv_dir[3], kd_aabb box, float *t0,
                              float *t1)
{
    float lo = 0.0f, hi = ray->t_max;
    for (int a = 0; a < 3; a++) {
        if (ray->dir[a] == 0.0f) {
            if (ray->org[a] < box.lo[a] || ray->org[a] > box.hi[a])
                return 0;
            continue;
        }
        float near_t = (box.lo[a] - ray->org[a]) * inv_dir[a];
        float far_t = (box.hi[a] - ray->org[a]) * inv_dir[a];
        if (near_t > far_t) {
            float tmp = near_t;
            near_t = far_t;
            far_t = tmp;
        }
        far_t *= 1.0f + 2.0f * KD_TRACE_SLACK;
        if (near_t > lo)
            lo = near_t;
        if (far_t < hi)
            hi = far_t;
        if (lo > hi)
            return 0;
    }
    *t0 = lo;
    *t1 = hi;
    return 1;
}

typedef struct kd_trace_todo {
    uint32_t node;
    float t0, t1;
} kd_trace_todo;

/* Closest hit of ray in the scene: front to back, stopping once the closest
 * hit so far lies before the next postponed node's entry. Counters are added to.
 *
 * A direction component of 0 needs no special case: the split plane's
 * distance (split - o) / d is then +-infinity when o is off the plane (the ray
 * stays on o's side, the first child) and NaN when o lies in the plane, which
 * fails every comparison below and so visits both children with the
 * interval unchanged, as a ray inside the plane must. */
KD_HD void kd_trace_closest(const kd_trace_scene *scene, const kd_ray *ray, kd_trace_hit *hit_out,
                            kd_trace_counters *counters)
{
    kd_trace_hit hit;
    kd_hit_init(&hit, ray->t_max);
    uint32_t steps = 0, tests = 0, overflow = 0;
    float inv_dir[3];
    for (int a = 0; a < 3; a++)
        inv_dir[a] = 1.0f / ray->dir[a];
    float t0, t1;
    if (scene->num_nodes == 0 || !kd_ray_box_interval(ray, inv_dir, scene->bounds, &t0, &t1)) {
        *hit_out = hit;
        return;
    }
    kd_ray_shear shear = kd_ray_shear_make(ray->dir);

    kd_trace_todo stack[KD_TRACE_STACK_SIZE];
    int top = 0;
    uint32_t index = 0;
    for (;;) {
        kd_node node = scene->nodes[index];
        steps++;
        /* Interior nodes down to a leaf, in a loop of their own: a warp's
         * lanes then test their leaves' triangles together, not in turns
         * with lanes still descending. */
        while (!kd_node_is_leaf(node)) {
            /* Order the children along the ray, visit the near one first and
             * postpone the far one if the ray reaches it. */
            int axis = kd_node_axis(node);
            float o = ray->org[axis];
            int below_first = (o < node.split) | ((o == node.split) & (ray->dir[axis] <= 0.0f));
            uint32_t above = kd_node_above_child(node);
            uint32_t first = below_first ? index + 1 : above;
            uint32_t second = below_first ? above : index + 1;
            float t_plane = (node.split - o) * inv_dir[axis];
            if (t_plane > t1 * (1.0f + KD_TRACE_SLACK) || t_plane <= 0.0f) {
                index = first;
            } else if (t_plane < t0 * (1.0f - KD_TRACE_SLACK)) {
                index = second;
            } else {
                if (top < KD_TRACE_STACK_SIZE) {
                    stack[top].node = second;
                    stack[top].t0 = t_plane > t0 ? t_plane : t0;
                    stack[top].t1 = t1;
                    top++;
                } else {
                    overflow = 1;
                }
                index = first;
                if (t_plane < t1)
                    t1 = t_plane;
            }
            node = scene->nodes[index];
            steps++;
        }
        /* Leaf: test its triangles. */
        uint32_t count = kd_node_num_prims(node);
        const uint32_t *tris = scene->leaf_indices + node.leaf_offset;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t tri = tris[i];
            float t, b1, b2;
            tests++;
            if (kd_intersect_triangle(ray->org, &shear, scene->tri_verts + 9 * (size_t)tri, &t, &b1, &b2))
                kd_hit_consider(&hit, tri, t, b1, b2);
        }
        /* Resume with the nearest postponed node, unless the closest hit so
         * far lies before its entry (the others lie further still). */
        if (top == 0)
            break;
        top--;
        if (hit.t * (1.0f + KD_TRACE_SLACK) < stack[top].t0)
            break;
        index = stack[top].node;
        t0 = stack[top].t0;
        t1 = stack[top].t1;
    }
    counters->steps += steps;
    counters->tests += tests;
    counters->overflow |= overflow;
    *hit_out = hit;
}

/* Reference: the closest hit over all triangles, no tree. */
KD_HD void kd_trace_brute_force(const float *tri_verts, uint32_t num_triangles, const kd_ray *ray,
                                kd_trace_hit *hit)
{
    kd_hit_init(hit, ray->t_max);
    kd_ray_shear shear = kd_ray_shear_make(ray->dir);
    for (uint32_t tri = 0; tri < num_triangles; tri++) {
        float t, b1, b2;
        if (kd_intersect_triangle(ray->org, &shear, tri_verts + 9 * (size_t)tri, &t, &b1, &b2))
            kd_hit_consider(hit, tri, t, b1, b2);
    }
}

#ifdef __cplusplus
}
#endif
#endif
