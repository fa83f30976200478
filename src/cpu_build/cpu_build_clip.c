/* Conservative clipping of a triangle to a closed box ("perfect splits").
 *
 * Sutherland-Hodgman in double precision against the box's six planes. The
 * result must never be smaller than the true clipped polygon, or a triangle
 * touching a child box could be left out of it. So:
 *  - coordinates that are exact (the triangle's own vertices, and a computed
 *    point's coordinate on the plane that produced it) are compared and kept
 *    exactly, which keeps vertex positions as split candidates bit for bit;
 *  - computed coordinates carry rounding error (a few ulps of double per
 *    stage), so a computed point within a slack far above that error of a
 *    plane counts as inside, and computed coordinates widen the bounds by the
 *    slack before rounding outward to float;
 *  - the bounds are then clamped to the box and to the triangle's own bounds,
 *    both of which contain the true clipped polygon. */
#include <float.h>
#include <math.h>

#include "cpu_build_internal.h"

/* A convex polygon gains at most one vertex per plane (9 in all), but rounding
 * can make a sliver look non-convex; each stage at most doubles the count. */
enum { KD_CLIP_MAX_VERTS = 3 << 6 };

typedef struct clip_vertex {
    double p[3];
    unsigned exact; /* bit a set: p[a] is exact */
} clip_vertex;

/* Plain comparisons (every value here is finite): inlined, unlike libm's fmin. */
static inline double dmin(double a, double b) { return a < b ? a : b; }
static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline float fmin2(float a, float b) { return a < b ? a : b; }
static inline float fmax2(float a, float b) { return a > b ? a : b; }

static float round_down(double x)
{
    float f = (float)x;
    if ((double)f > x)
        f = nextafterf(f, -INFINITY);
    return f;
}

static float round_up(double x)
{
    float f = (float)x;
    if ((double)f < x)
        f = nextafterf(f, INFINITY);
    return f;
}

/* Inside the half space x[axis] >= b (keep_above) or <= b; computed coordinates
 * get the benefit of the doubt within slack. */
static int clip_inside(const clip_vertex *v, int axis, double b, int keep_above, double slack)
{
    double x = v->p[axis];
    double tol = (v->exact >> axis) & 1u ? 0.0 : slack;
    return keep_above ? x >= b - tol : x <= b + tol;
}

/* One Sutherland-Hodgman stage; returns the new vertex count. */
static int clip_plane(const clip_vertex *in, int n, clip_vertex *out, int axis, double b,
                      int keep_above, double slack)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const clip_vertex *p = &in[i], *q = &in[(i + 1) % n];
        int in_p = clip_inside(p, axis, b, keep_above, slack);
        int in_q = clip_inside(q, axis, b, keep_above, slack);
        if (in_p)
            out[m++] = *p;
        if (in_p != in_q) {
            double den = q->p[axis] - p->p[axis];
            double t = den != 0.0 ? (b - p->p[axis]) / den : 0.0;
            t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
            clip_vertex c;
            for (int a = 0; a < 3; a++)
                c.p[a] = p->p[a] + t * (q->p[a] - p->p[a]);
            c.p[axis] = b;
            c.exact = 1u << axis;
            out[m++] = c;
        }
    }
    return m;
}

bool kd_clip_triangle_bounds(const float v[3][3], const kd_aabb *box, kd_aabb *out)
{
    kd_aabb tb;
    for (int a = 0; a < 3; a++) {
        tb.lo[a] = fmin2(v[0][a], fmin2(v[1][a], v[2][a]));
        tb.hi[a] = fmax2(v[0][a], fmax2(v[1][a], v[2][a]));
        if (tb.hi[a] < box->lo[a] || tb.lo[a] > box->hi[a])
            return false; /* exact comparisons: provably apart */
    }
    int crosses = 0;
    for (int a = 0; a < 3; a++)
        crosses |= tb.lo[a] < box->lo[a] || tb.hi[a] > box->hi[a];
    if (!crosses) {
        *out = tb;
        return true;
    }

    /* Every computed point interpolates the triangle's vertices (a plane it
     * crosses lies between them), so the rounding error scales with their
     * largest magnitude: a few ulps of double per stage, far below the slack. */
    double mag = 0.0;
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++)
            mag = dmax(mag, fabs((double)v[i][a]));
    double slack = mag * 0x1p-40;

    clip_vertex buf[2][KD_CLIP_MAX_VERTS];
    int n = 3;
    for (int i = 0; i < 3; i++) {
        for (int a = 0; a < 3; a++)
            buf[0][i].p[a] = v[i][a];
        buf[0][i].exact = 7u;
    }
    int cur = 0;
    for (int a = 0; a < 3 && n > 0; a++) {
        if (tb.lo[a] < box->lo[a]) {
            n = clip_plane(buf[cur], n, buf[cur ^ 1], a, box->lo[a], 1, slack);
            cur ^= 1;
        }
        if (n > 0 && tb.hi[a] > box->hi[a]) {
            n = clip_plane(buf[cur], n, buf[cur ^ 1], a, box->hi[a], 0, slack);
            cur ^= 1;
        }
    }

    /* Every computed point within the slack of a plane was kept, so a polygon
     * clipped away entirely lies farther than the slack from the box. */
    if (n == 0)
        return false;

    for (int a = 0; a < 3; a++) {
        double dlo = INFINITY, dhi = -INFINITY;
        for (int i = 0; i < n; i++) {
            const clip_vertex *c = &buf[cur][i];
            double tol = (c->exact >> a) & 1u ? 0.0 : slack;
            dlo = dmin(dlo, c->p[a] - tol);
            dhi = dmax(dhi, c->p[a] + tol);
        }
        /* Only ever tighten the box-and-triangle bounds, both safe answers. */
        float lo = fmax2(round_down(dlo), fmax2(tb.lo[a], box->lo[a]));
        float hi = fmin2(round_up(dhi), fmin2(tb.hi[a], box->hi[a]));
        if (lo > hi) { /* rounding pushed the polygon off a face: stay safe */
            lo = fmax2(tb.lo[a], box->lo[a]);
            hi = fmin2(tb.hi[a], box->hi[a]);
        }
        out->lo[a] = lo;
        out->hi[a] = hi;
    }
    return true;
}
