/* Exact signs of the small polynomials the triangle-box test needs, by
 * floating-point expansion arithmetic (Shewchuk, "Adaptive Precision
 * Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997):
 * a value is held as a sum of non-overlapping doubles, every sum and product
 * is exact, and the sign is the sign of the largest term. A cheap filter with
 * a rounding-error bound decides almost every case before that. */
#include <float.h>
#include <math.h>

#include "tribox.h"

/* Unit roundoff of double, 2^-53. */
#define KD_EPS (DBL_EPSILON * 0.5)

/* Largest expansion built below: orient3d's 3 terms of 2 x 16 x 2 = 64. */
enum { KD_EXP_MAX = 200 };

/* a + b = x + y exactly, x = fl(a + b). */
static inline void two_sum(double a, double b, double *x, double *y)
{
    double s = a + b;
    double b_virtual = s - a;
    double a_virtual = s - b_virtual;
    *x = s;
    *y = (a - a_virtual) + (b - b_virtual);
}

/* Veltkamp split into two 26-bit halves, for the exact product below. */
static inline void split(double a, double *hi, double *lo)
{
    double c = 134217729.0 * a; /* 2^27 + 1 */
    double big = c - a;
    *hi = c - big;
    *lo = a - *hi;
}

/* a * b = x + y exactly (Dekker), x = fl(a * b). */
static inline void two_product(double a, double b, double *x, double *y)
{
    double p = a * b;
#if defined(FP_FAST_FMA)
    *y = fma(a, b, -p);
#else
    double ahi, alo, bhi, blo;
    split(a, &ahi, &alo);
    split(b, &bhi, &blo);
    double err = p - ahi * bhi;
    err -= alo * bhi;
    err -= ahi * blo;
    *y = alo * blo - err;
#endif
    *x = p;
}

/* h = e + b; h may alias e (writes never overtake reads). Returns the length. */
static int grow(int n, const double *e, double b, double *h)
{
    double q = b;
    int k = 0;
    for (int i = 0; i < n; i++) {
        double sum, err;
        two_sum(q, e[i], &sum, &err);
        q = sum;
        if (err != 0.0)
            h[k++] = err;
    }
    if (q != 0.0 || k == 0)
        h[k++] = q;
    return k;
}

/* h = e + f, h may alias e and must hold n + m + 1 terms. */
static int add(int n, double *e, int m, const double *f)
{
    for (int j = 0; j < m; j++)
        n = grow(n, e, f[j], e);
    return n;
}

/* h = e * b (h must not alias e). */
static int scale(int n, const double *e, double b, double *h)
{
    double q, low;
    int k = 0;
    two_product(e[0], b, &q, &low);
    if (low != 0.0)
        h[k++] = low;
    for (int i = 1; i < n; i++) {
        double hi_p, lo_p, sum, err;
        two_product(e[i], b, &hi_p, &lo_p);
        two_sum(q, lo_p, &sum, &err);
        if (err != 0.0)
            h[k++] = err;
        two_sum(hi_p, sum, &q, &err);
        if (err != 0.0)
            h[k++] = err;
    }
    if (q != 0.0 || k == 0)
        h[k++] = q;
    return k;
}

/* h = e * f. */
static int mul(int n, const double *e, int m, const double *f, double *h)
{
    double part[KD_EXP_MAX];
    int k = 1;
    h[0] = 0.0;
    for (int j = 0; j < m; j++) {
        int p = scale(n, e, f[j], part);
        k = add(k, h, p, part);
    }
    return k;
}

static int negate(int n, double *e)
{
    for (int i = 0; i < n; i++)
        e[i] = -e[i];
    return n;
}

static int sign_of(int n, const double *e)
{
    double top = e[n - 1]; /* the largest term decides */
    return top > 0.0 ? 1 : (top < 0.0 ? -1 : 0);
}

/* a - b as a 2-term expansion (smaller term first). */
static int diff(double a, double b, double *h)
{
    double x, y;
    two_sum(a, -b, &x, &y);
    h[0] = y;
    h[1] = x;
    return 2;
}

/* p = (a1 - a0)(b1 - b0) - (c1 - c0)(d1 - d0), exactly; returns its length
 * (at most 16: each product of two 2-term differences has at most 8). */
static int det2_expansion(double a1, double a0, double b1, double b0, double c1, double c0,
                          double d1, double d0, double *p)
{
    double da[2], db[2], dc[2], dd[2], q[40];
    diff(a1, a0, da);
    diff(b1, b0, db);
    diff(c1, c0, dc);
    diff(d1, d0, dd);
    int n = mul(2, da, 2, db, p);
    int m = mul(2, dc, 2, dd, q);
    return add(n, p, negate(m, q), q);
}

int kd_exact_diff_det2_slow(double a1, double a0, double b1, double b0, double c1, double c0,
                            double d1, double d0)
{
    double p[40];
    int n = det2_expansion(a1, a0, b1, b0, c1, c0, d1, d0, p);
    return sign_of(n, p);
}

int kd_exact_diff_det2(double a1, double a0, double b1, double b0, double c1, double c0, double d1,
                       double d0)
{
    double left = (a1 - a0) * (b1 - b0);
    double right = (c1 - c0) * (d1 - d0);
    double det = left - right;
    double magnitude = fabs(left) + fabs(right);
    /* Both products exactly zero means a factor is exactly zero: det is 0. */
    if (magnitude == 0.0)
        return 0;
    /* Shewchuk's bound for this form is (3 + 16 eps) eps; 4 eps is above it. */
    double bound = 4.0 * KD_EPS * magnitude;
    if (det > bound)
        return 1;
    if (-det > bound)
        return -1;
    return kd_exact_diff_det2_slow(a1, a0, b1, b0, c1, c0, d1, d0);
}

int kd_exact_orient3d_slow(const double a[3], const double b[3], const double c[3],
                           const double d[3])
{
    double ad[3][2], bd[3][2], cd[3][2];
    for (int k = 0; k < 3; k++) {
        diff(a[k], d[k], ad[k]);
        diff(b[k], d[k], bd[k]);
        diff(c[k], d[k], cd[k]);
    }
    /* det = ad . (bd x cd), one cofactor per component of ad */
    double total[KD_EXP_MAX];
    int n = 1;
    total[0] = 0.0;
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        double p[40], q[40], minor[40], term[KD_EXP_MAX];
        int np = mul(2, bd[k1], 2, cd[k2], p);
        int nq = mul(2, bd[k2], 2, cd[k1], q);
        int nm = add(np, p, negate(nq, q), q);
        /* p was extended in place by add(); copy the minor out */
        for (int i = 0; i < nm; i++)
            minor[i] = p[i];
        int nt = mul(nm, minor, 2, ad[k], term);
        n = add(n, total, nt, term);
    }
    return sign_of(n, total);
}

int kd_exact_orient3d(const double a[3], const double b[3], const double c[3], const double d[3])
{
    double adx = a[0] - d[0], ady = a[1] - d[1], adz = a[2] - d[2];
    double bdx = b[0] - d[0], bdy = b[1] - d[1], bdz = b[2] - d[2];
    double cdx = c[0] - d[0], cdy = c[1] - d[1], cdz = c[2] - d[2];
    double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy;
    double cdxady = cdx * ady, adxcdy = adx * cdy;
    double adxbdy = adx * bdy, bdxady = bdx * ady;
    double det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
    double permanent = (fabs(bdxcdy) + fabs(cdxbdy)) * fabs(adz) +
                       (fabs(cdxady) + fabs(adxcdy)) * fabs(bdz) +
                       (fabs(adxbdy) + fabs(bdxady)) * fabs(cdz);
    if (permanent == 0.0)
        return 0; /* every term has an exactly-zero factor */
    /* Shewchuk's bound is (7 + 56 eps) eps; 8 eps is above it. */
    double bound = 8.0 * KD_EPS * permanent;
    if (det > bound)
        return 1;
    if (-det > bound)
        return -1;
    return kd_exact_orient3d_slow(a, b, c, d);
}
