/* The exact triangle-box overlap test against an independent exact
 * reference, on many random cases: integer grids small enough that touching,
 * degenerate (segment, point) triangles and flat or point boxes are common,
 * and large coordinates where the floating-point filter must hand over to
 * exact arithmetic. Also the exact predicates against 128-bit integers.
 *
 * Reference: the triangle meets the closed box iff some barycentric point
 * p = v0 + s (v1 - v0) + t (v2 - v0), s, t >= 0, s + t <= 1, satisfies
 * lo <= p <= hi. That is a system of 9 linear inequalities in (s, t) with
 * integer coefficients; Fourier-Motzkin elimination decides it exactly. */
#include <stdint.h>
#include <stdlib.h>

#include "test_support.h"
#include "tribox.h"

typedef __int128 i128;

typedef struct ineq {
    i128 a, b, c; /* a s + b t + c >= 0, or > 0 when strict */
    bool strict;
} ineq;

/* Whether two rows' combination c is allowed: > 0 if either was strict. */
static bool holds(i128 c, bool strict) { return strict ? c > 0 : c >= 0; }

/* Closed box, or (open_box) the box's open interior. */
static bool reference_meets(const int64_t v[3][3], const int64_t lo[3], const int64_t hi[3],
                            bool open_box)
{
    ineq sys[9];
    int n = 0;
    sys[n++] = (ineq){1, 0, 0, false};
    sys[n++] = (ineq){0, 1, 0, false};
    sys[n++] = (ineq){-1, -1, 1, false};
    for (int k = 0; k < 3; k++) {
        i128 e1 = v[1][k] - v[0][k], e2 = v[2][k] - v[0][k];
        sys[n++] = (ineq){e1, e2, (i128)v[0][k] - lo[k], open_box};
        sys[n++] = (ineq){-e1, -e2, (i128)hi[k] - v[0][k], open_box};
    }
    /* Eliminate s: keep a == 0 rows, combine each a > 0 row with each a < 0 row. */
    ineq rows[9 + 81];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (sys[i].a == 0)
            rows[m++] = sys[i];
    for (int i = 0; i < n; i++) {
        if (sys[i].a <= 0)
            continue;
        for (int j = 0; j < n; j++) {
            if (sys[j].a >= 0)
                continue;
            i128 wi = -sys[j].a, wj = sys[i].a;
            rows[m++] = (ineq){0, wi * sys[i].b + wj * sys[j].b, wi * sys[i].c + wj * sys[j].c,
                               sys[i].strict || sys[j].strict};
        }
    }
    /* Eliminate t the same way: the system is feasible iff no contradiction. */
    for (int i = 0; i < m; i++)
        if (rows[i].b == 0 && !holds(rows[i].c, rows[i].strict))
            return false;
    for (int i = 0; i < m; i++) {
        if (rows[i].b <= 0)
            continue;
        for (int j = 0; j < m; j++) {
            if (rows[j].b >= 0)
                continue;
            if (!holds(-rows[j].b * rows[i].c + rows[i].b * rows[j].c, rows[i].strict || rows[j].strict))
                return false;
        }
    }
    return true;
}

static bool reference_overlap(const int64_t v[3][3], const int64_t lo[3], const int64_t hi[3])
{
    return reference_meets(v, lo, hi, false);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rand_range(int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1));
}

typedef struct case_stats {
    long cases, overlaps, touching, degenerate_tris, flat_boxes, mismatches, interior_mismatches;
} case_stats;

/* Runs one case on the integer grid scaled by 2^-shift (exact floats). */
static void run_case(const int64_t v[3][3], const int64_t lo[3], const int64_t hi[3], int shift,
                     case_stats *st)
{
    float scale = 1.0f;
    for (int i = 0; i < shift; i++)
        scale *= 0.5f;
    float fv[3][3];
    kd_aabb box;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++)
            fv[i][k] = (float)v[i][k] * scale;
        box.lo[k] = (float)lo[k] * scale;
        box.hi[k] = (float)hi[k] * scale;
    }
    bool expect = reference_overlap(v, lo, hi);
    bool got = kd_tribox_overlap(fv[0], fv[1], fv[2], &box);
    /* Every vertex order and orientation must give the same answer. */
    bool got_perm = kd_tribox_overlap(fv[2], fv[1], fv[0], &box);
    bool got_rot = kd_tribox_overlap(fv[1], fv[2], fv[0], &box);
    bool expect_interior = reference_meets(v, lo, hi, true);
    bool got_interior = kd_tribox_overlap_interior(fv[0], fv[1], fv[2], &box);
    bool got_interior_perm = kd_tribox_overlap_interior(fv[2], fv[0], fv[1], &box);
    if (got_interior != expect_interior || got_interior_perm != expect_interior) {
        if (st->interior_mismatches < 5)
            fprintf(stderr, "interior mismatch (shift %d): expected %d got %d/%d\n", shift,
                    expect_interior, got_interior, got_interior_perm);
        st->interior_mismatches++;
    }
    st->cases++;
    st->overlaps += expect;
    if (expect) {
        /* touching: overlap disappears once the box shrinks by one grid step */
        int64_t lo2[3], hi2[3];
        bool shrinkable = true;
        for (int k = 0; k < 3; k++) {
            lo2[k] = 2 * lo[k] + 1;
            hi2[k] = 2 * hi[k] - 1;
            shrinkable = shrinkable && lo2[k] <= hi2[k];
        }
        if (shrinkable) {
            int64_t v2[3][3];
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++)
                    v2[i][k] = 2 * v[i][k];
            st->touching += !reference_overlap(v2, lo2, hi2);
        }
    }
    int64_t cr[3];
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        cr[k] = (v[1][k1] - v[0][k1]) * (v[2][k2] - v[0][k2]) - (v[1][k2] - v[0][k2]) * (v[2][k1] - v[0][k1]);
    }
    st->degenerate_tris += cr[0] == 0 && cr[1] == 0 && cr[2] == 0;
    st->flat_boxes += lo[0] == hi[0] || lo[1] == hi[1] || lo[2] == hi[2];
    if (got != expect || got_perm != expect || got_rot != expect) {
        if (st->mismatches < 10)
            fprintf(stderr,
                    "mismatch (shift %d): tri (%lld %lld %lld) (%lld %lld %lld) (%lld %lld %lld) "
                    "box (%lld %lld %lld)-(%lld %lld %lld): expected %d got %d/%d/%d\n",
                    shift, (long long)v[0][0], (long long)v[0][1], (long long)v[0][2],
                    (long long)v[1][0], (long long)v[1][1], (long long)v[1][2], (long long)v[2][0],
                    (long long)v[2][1], (long long)v[2][2], (long long)lo[0], (long long)lo[1],
                    (long long)lo[2], (long long)hi[0], (long long)hi[1], (long long)hi[2], expect,
                    got, got_perm, got_rot);
        st->mismatches++;
    }
}

/* Random triangle and box on the grid [-range, range]; boxes may be flat or points. */
static void random_grid_cases(long count, int64_t range, int shift, bool expect_touching,
                              const char *label)
{
    case_stats st = {0};
    for (long n = 0; n < count; n++) {
        int64_t v[3][3], lo[3], hi[3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                v[i][k] = rand_range(-range, range);
        for (int k = 0; k < 3; k++) {
            int64_t a = rand_range(-range, range), b = rand_range(-range, range);
            if (rng() % 8 == 0)
                b = a; /* flat box */
            lo[k] = a < b ? a : b;
            hi[k] = a < b ? b : a;
        }
        if (rng() % 6 == 0) /* a degenerate (collinear) triangle */
            for (int k = 0; k < 3; k++)
                v[2][k] = v[0][k] + 2 * (v[1][k] - v[0][k]);
        run_case(v, lo, hi, shift, &st);
    }
    printf("%-28s %ld cases: %ld overlap (%ld only touching), %ld degenerate triangles, "
           "%ld flat boxes, %ld mismatches\n",
           label, st.cases, st.overlaps, st.touching, st.degenerate_tris, st.flat_boxes,
           st.mismatches);
    CHECK_MSG(st.mismatches == 0, "%s: %ld mismatches", label, st.mismatches);
    CHECK_MSG(st.interior_mismatches == 0, "%s: %ld interior mismatches", label, st.interior_mismatches);
    /* the sample must exercise both answers and the touching boundary */
    CHECK(st.overlaps > count / 20 && st.overlaps < count - count / 20);
    if (expect_touching)
        CHECK(st.touching > count / 1000);
}

/* Cases built to touch: a triangle through a box corner or along a box edge,
 * then nudged by one unit at large scale, where only exact arithmetic decides. */
static void constructed_touch_cases(long count)
{
    case_stats st = {0};
    const int64_t range = 1 << 20;
    for (long n = 0; n < count; n++) {
        int64_t lo[3], hi[3], v[3][3];
        for (int k = 0; k < 3; k++) {
            int64_t a = rand_range(-range / 2, range / 2), b = rand_range(-range / 2, range / 2);
            lo[k] = a < b ? a : b;
            hi[k] = a < b ? b : a;
        }
        int64_t corner[3], d1[3], d2[3];
        for (int k = 0; k < 3; k++) {
            corner[k] = (rng() & 1) ? hi[k] : lo[k];
            d1[k] = rand_range(-range / 4, range / 4);
            d2[k] = rand_range(-range / 4, range / 4);
        }
        int kind = (int)(rng() % 3);
        for (int k = 0; k < 3; k++) {
            if (kind == 0) { /* corner is the triangle's centroid */
                v[0][k] = corner[k] + d1[k];
                v[1][k] = corner[k] + d2[k];
                v[2][k] = corner[k] - d1[k] - d2[k];
            } else if (kind == 1) { /* corner is an edge midpoint */
                v[0][k] = corner[k] + d1[k];
                v[1][k] = corner[k] - d1[k];
                v[2][k] = corner[k] + d2[k];
            } else { /* corner is a vertex */
                v[0][k] = corner[k];
                v[1][k] = corner[k] + d1[k];
                v[2][k] = corner[k] + d2[k];
            }
        }
        int nudge = (int)(rng() % 3) - 1;
        v[rng() % 3][rng() % 3] += nudge;
        run_case(v, lo, hi, 10, &st);
    }
    printf("%-28s %ld cases: %ld overlap (%ld only touching), %ld mismatches\n", "constructed touching",
           st.cases, st.overlaps, st.touching, st.mismatches);
    CHECK_MSG(st.mismatches == 0, "constructed: %ld mismatches", st.mismatches);
    CHECK_MSG(st.interior_mismatches == 0, "constructed: %ld interior mismatches", st.interior_mismatches);
    CHECK(st.touching > count / 20);
}

static int sign128(i128 x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

/* The exact predicates against 128-bit integer arithmetic, on integers large
 * enough that double products round, and near-degenerate on purpose. */
static void exact_predicates(long count)
{
    long bad2 = 0, bad3 = 0, zeros3 = 0;
    for (long n = 0; n < count; n++) {
        int64_t r = (int64_t)1 << 30;
        int64_t x[8];
        for (int i = 0; i < 8; i++)
            x[i] = rand_range(-r, r);
        if (n % 2) {
            /* Cassini: F(k+1) F(k-1) - F(k)^2 = +-1 with products near 2^60,
             * where the double evaluation alone gets the sign wrong. */
            int64_t f[46] = {0, 1};
            for (int i = 2; i < 46; i++)
                f[i] = f[i - 1] + f[i - 2];
            int k = 30 + (int)(rng() % 14);
            int64_t off[4];
            for (int i = 0; i < 4; i++)
                off[i] = rand_range(-r / 4, r / 4);
            x[0] = off[0];
            x[1] = off[0] + f[k + 1];
            x[2] = off[1];
            x[3] = off[1] + f[k - 1];
            x[4] = off[2];
            x[5] = off[2] + f[k];
            x[6] = off[3];
            x[7] = off[3] + f[k] + (n % 4 == 1 ? 0 : 1) * ((int64_t)(rng() % 3) - 1);
        }
        i128 ref = (i128)(x[1] - x[0]) * (x[3] - x[2]) - (i128)(x[5] - x[4]) * (x[7] - x[6]);
        int got = kd_exact_diff_det2((double)x[1], (double)x[0], (double)x[3], (double)x[2],
                                     (double)x[5], (double)x[4], (double)x[7], (double)x[6]);
        int slow = kd_exact_diff_det2_slow((double)x[1], (double)x[0], (double)x[3], (double)x[2],
                                           (double)x[5], (double)x[4], (double)x[7], (double)x[6]);
        bad2 += got != sign128(ref) || slow != sign128(ref);

        int64_t q = (int64_t)1 << 24;
        int64_t p[4][3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                p[i][k] = rand_range(-q, q);
        int64_t s = rand_range(-3, 3), t = rand_range(-3, 3);
        for (int k = 0; k < 3; k++) /* on the plane, then nudged by at most one unit */
            p[3][k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]) +
                      (int64_t)(rng() % 3) - 1;
        i128 ad[3], bd[3], cd[3];
        for (int k = 0; k < 3; k++) {
            ad[k] = p[0][k] - p[3][k];
            bd[k] = p[1][k] - p[3][k];
            cd[k] = p[2][k] - p[3][k];
        }
        i128 det = ad[0] * (bd[1] * cd[2] - bd[2] * cd[1]) + ad[1] * (bd[2] * cd[0] - bd[0] * cd[2]) +
                   ad[2] * (bd[0] * cd[1] - bd[1] * cd[0]);
        double dp[4][3];
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++)
                dp[i][k] = (double)p[i][k];
        int g3 = kd_exact_orient3d(dp[0], dp[1], dp[2], dp[3]);
        int s3 = kd_exact_orient3d_slow(dp[0], dp[1], dp[2], dp[3]);
        zeros3 += det == 0;
        bad3 += g3 != sign128(det) || s3 != sign128(det);
    }
    printf("%-28s %ld cases each: det2 %ld wrong, orient3d %ld wrong (%ld exactly coplanar)\n",
           "exact predicates", count, bad2, bad3, zeros3);
    CHECK(bad2 == 0);
    CHECK(bad3 == 0);
    CHECK(zeros3 > 0);
}

/* Non-integer floats: the filtered predicates must agree with the slow exact ones. */
static void filter_agreement(long count)
{
    long bad = 0;
    for (long n = 0; n < count; n++) {
        double p[4][3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++)
                p[i][k] = (float)((double)(rng() % 2000001) / 1000000.0 - 1.0) * (float)(1 + rng() % 1000);
        float s = (float)(rng() % 1000) / 1000.0f, t = (float)(rng() % 1000) / 1000.0f;
        for (int k = 0; k < 3; k++) /* a float rounding of a point on the plane */
            p[3][k] = (float)(p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]));
        bad += kd_exact_orient3d(p[0], p[1], p[2], p[3]) != kd_exact_orient3d_slow(p[0], p[1], p[2], p[3]);
        bad += kd_exact_diff_det2(p[0][0], p[1][0], p[2][1], p[3][1], p[0][1], p[1][1], p[2][0], p[3][0]) !=
               kd_exact_diff_det2_slow(p[0][0], p[1][0], p[2][1], p[3][1], p[0][1], p[1][1], p[2][0], p[3][0]);
    }
    printf("%-28s %ld cases: %ld disagreements\n", "filter vs exact (floats)", count, bad);
    CHECK(bad == 0);
}

int main(void)
{
    random_grid_cases(300000, 2, 0, true, "grid [-2,2]");
    random_grid_cases(300000, 6, 0, true, "grid [-6,6]");
    random_grid_cases(200000, 100, 3, true, "grid [-100,100] / 8");
    random_grid_cases(200000, 1 << 20, 10, false, "grid [-2^20,2^20] / 2^10");
    constructed_touch_cases(200000);
    exact_predicates(200000);
    filter_agreement(200000);

    /* A few named cases. */
    float a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
    kd_aabb unit = {{0, 0, 0}, {1, 1, 1}};
    kd_aabb above = {{0, 0, 0.5f}, {1, 1, 1}};
    kd_aabb beyond = {{0.6f, 0.6f, -1}, {1, 1, 1}};
    kd_aabb touch_edge = {{0.5f, 0.5f, -1}, {1, 1, 1}};
    kd_aabb empty = {{1, 0, 0}, {0, 1, 1}};
    kd_aabb point_in = {{0.25f, 0.25f, 0}, {0.25f, 0.25f, 0}};
    kd_aabb point_out = {{0.25f, 0.25f, 0.125f}, {0.25f, 0.25f, 0.125f}};
    CHECK(kd_tribox_overlap(a, b, c, &unit));           /* lies on the box's face */
    CHECK(!kd_tribox_overlap(a, b, c, &above));
    CHECK(!kd_tribox_overlap(a, b, c, &beyond));        /* past the hypotenuse */
    CHECK(kd_tribox_overlap(a, b, c, &touch_edge));     /* box corner on the hypotenuse */
    CHECK(!kd_tribox_overlap(a, b, c, &empty));
    CHECK(kd_tribox_overlap(a, b, c, &point_in));
    CHECK(!kd_tribox_overlap(a, b, c, &point_out));
    CHECK(kd_tribox_overlap(a, a, a, &unit));           /* a point triangle at a corner */
    CHECK(!kd_tribox_overlap_interior(a, b, c, &unit)); /* on the face: touching only */
    CHECK(!kd_tribox_overlap_interior(a, b, c, &touch_edge));
    kd_aabb around = {{-1, -1, -1}, {1, 1, 1}};
    CHECK(kd_tribox_overlap_interior(a, b, c, &around));
    return kd_test_finish("verify_tribox");
}
