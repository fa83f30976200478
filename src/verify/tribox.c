/* Exact triangle-box overlap by the separating-axis test (closed sets).
 * Two closed convex polytopes are disjoint exactly when one of these axes
 * strictly separates their projections: the box normals, the triangle normal
 * and the crosses of triangle edges with box axes. This stays complete for a
 * flat or point-like box and for a triangle that degenerates to a segment or
 * a point (the missing normal's role is taken by the edge crosses). Every
 * comparison is an exact sign (tribox_exact.c), so touching counts as overlap.
 * The open-box variant asks the same with touching not counted: a convex
 * set misses an open box exactly when some candidate axis puts them apart
 * with at most a common end point. */
#include "tribox.h"

/* Sign of the projection of p - q on the axis e x u_k, where e = b - a:
 * e[k2] (p[k1] - q[k1]) - e[k1] (p[k2] - q[k2]). */
static int edge_axis_sign(const float *a, const float *b, int k1, int k2, const double *p,
                          const float *q)
{
    return kd_exact_diff_det2(b[k2], a[k2], p[k1], q[k1], b[k1], a[k1], p[k2], q[k2]);
}

/* Whether projections on an axis are apart: strictly for the closed box,
 * or merely not overlapping in more than a point for the open one. */
static bool apart(int sign_beyond, bool open) { return open ? sign_beyond >= 0 : sign_beyond > 0; }

/* True when the axis e x u_k (e = b - a, c the third vertex) separates. */
static bool edge_axis_separates(const float *a, const float *b, const float *c, int k,
                                const kd_aabb *box, bool open)
{
    int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    /* Axis components: n[k1] = e[k2], n[k2] = -e[k1]; float differences
     * have exact signs, so the extreme box corners are chosen exactly. */
    float e1 = b[k1] - a[k1], e2 = b[k2] - a[k2];
    if (e1 == 0.0f && e2 == 0.0f)
        return false; /* edge parallel to u_k (or of zero length): no axis */
    double p_max[3] = {0, 0, 0}, p_min[3] = {0, 0, 0};
    p_max[k1] = e2 > 0.0f ? box->hi[k1] : box->lo[k1];
    p_min[k1] = e2 > 0.0f ? box->lo[k1] : box->hi[k1];
    p_max[k2] = e1 < 0.0f ? box->hi[k2] : box->lo[k2];
    p_min[k2] = e1 < 0.0f ? box->lo[k2] : box->hi[k2];
    /* The triangle projects to the span of a (= b) and c: is the box past it? */
    if (apart(edge_axis_sign(a, b, k1, k2, p_min, a), open) &&
        apart(edge_axis_sign(a, b, k1, k2, p_min, c), open))
        return true;
    if (apart(-edge_axis_sign(a, b, k1, k2, p_max, a), open) &&
        apart(-edge_axis_sign(a, b, k1, k2, p_max, c), open))
        return true;
    return false;
}

/* True when the triangle's plane separates: both extreme box corners on one side. */
static bool normal_axis_separates(const float *v0, const float *v1, const float *v2,
                                  const kd_aabb *box, bool open)
{
    int n_sign[3];
    bool any = false;
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        /* n = (v1 - v0) x (v2 - v0), component k, exact sign */
        n_sign[k] = kd_exact_diff_det2(v1[k1], v0[k1], v2[k2], v0[k2], v1[k2], v0[k2], v2[k1], v0[k1]);
        any = any || n_sign[k] != 0;
    }
    if (!any)
        return false; /* degenerate triangle: the edge crosses cover it */
    double p_max[3], p_min[3];
    for (int k = 0; k < 3; k++) {
        p_max[k] = n_sign[k] > 0 ? box->hi[k] : box->lo[k];
        p_min[k] = n_sign[k] > 0 ? box->lo[k] : box->hi[k];
    }
    double a[3] = {v0[0], v0[1], v0[2]}, b[3] = {v1[0], v1[1], v1[2]}, c[3] = {v2[0], v2[1], v2[2]};
    /* orient3d(v0, v1, v2, p) = -n . (p - v0) */
    int below_min = kd_exact_orient3d(a, b, c, p_min);  /* sign of -n.(p_min - v0) */
    int below_max = kd_exact_orient3d(a, b, c, p_max);
    return apart(-below_min, open) || apart(below_max, open);
}

static bool sat_overlap(const float v0[3], const float v1[3], const float v2[3], const kd_aabb *box,
                        bool open)
{
    /* Box axes: compare bounds (exact in float). */
    for (int k = 0; k < 3; k++) {
        if (!(box->lo[k] <= box->hi[k]) || (open && !(box->lo[k] < box->hi[k])))
            return false; /* empty box, or a flat one has no interior */
        float lo = v0[k], hi = v0[k];
        if (v1[k] < lo) lo = v1[k];
        if (v1[k] > hi) hi = v1[k];
        if (v2[k] < lo) lo = v2[k];
        if (v2[k] > hi) hi = v2[k];
        if (open ? (lo >= box->hi[k] || hi <= box->lo[k]) : (lo > box->hi[k] || hi < box->lo[k]))
            return false;
    }
    if (normal_axis_separates(v0, v1, v2, box, open))
        return false;
    const float *v[3] = {v0, v1, v2};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            if (edge_axis_separates(v[i], v[(i + 1) % 3], v[(i + 2) % 3], k, box, open))
                return false;
    return true;
}

bool kd_tribox_overlap(const float v0[3], const float v1[3], const float v2[3], const kd_aabb *box)
{
    return sat_overlap(v0, v1, v2, box, false);
}

bool kd_tribox_overlap_interior(const float v0[3], const float v1[3], const float v2[3],
                                const kd_aabb *box)
{
    return sat_overlap(v0, v1, v2, box, true);
}
