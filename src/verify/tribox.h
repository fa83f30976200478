/* Exact triangle-box overlap, for the verifier: a triangle "truly overlaps"
 * a box when the two closed sets share a point. Separating-axis test over the
 * 13 candidate axes (3 box normals, the triangle normal, 9 edge x box-axis
 * crosses), with every comparison decided exactly: a floating-point filter
 * first, exact expansion arithmetic (Shewchuk 1997) when the filter cannot
 * tell. Degenerate triangles (segments, points) and boxes of zero extent are
 * handled; a box with lo > hi on some axis is empty and overlaps nothing. */
#ifndef KD_TRIBOX_H
#define KD_TRIBOX_H

#include <stdbool.h>

#include "kd_mesh.h"

bool kd_tribox_overlap(const float v0[3], const float v1[3], const float v2[3], const kd_aabb *box);

/* Whether the triangle meets the box's open interior (false for a box of
 * zero extent on some axis). Overlap without this means "touches only". */
bool kd_tribox_overlap_interior(const float v0[3], const float v1[3], const float v2[3],
                                const kd_aabb *box);

/* The exact predicates underneath, exposed for tests. Inputs are any finite
 * doubles whose products stay within double range.
 * Sign (-1, 0, 1) of (a1 - a0)(b1 - b0) - (c1 - c0)(d1 - d0). */
int kd_exact_diff_det2(double a1, double a0, double b1, double b0, double c1, double c0, double d1,
                       double d0);
/* Sign of the determinant | a-d ; b-d ; c-d | (rows), i.e. orient3d. */
int kd_exact_orient3d(const double a[3], const double b[3], const double c[3], const double d[3]);
/* The same without the floating-point filter: always the exact path. */
int kd_exact_diff_det2_slow(double a1, double a0, double b1, double b0, double c1, double c0,
                            double d1, double d0);
int kd_exact_orient3d_slow(const double a[3], const double b[3], const double c[3],
                           const double d[3]);

#endif
