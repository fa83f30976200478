// Geometry of the GPU builder, shared by the device kernels and the host
// emulation: conservative triangle clipping and the SAH split cost.
//
// Every product and sum here goes through the KD_GB_* operations, which never
// fuse into an FMA: nvcc fuses a * b + c by default on the device, the host
// compiler does not, and the emulation must decide exactly what the device
// decides (same splits, same clipped bounds, same tree).
#ifndef KD_GPU_BUILD_GEOM_CUH
#define KD_GPU_BUILD_GEOM_CUH

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu_build_tuning.h"
#include "host_device.h"
#include "kd_build.h"

#define KD_GB_HD static __host__ __device__ __forceinline__
// Unrolls a loop in device code (host compilers do not know the pragma).
#if defined(__CUDA_ARCH__)
#define KD_GB_UNROLL _Pragma("unroll")
#else
#define KD_GB_UNROLL
#endif

#if defined(__CUDA_ARCH__)
#define KD_GB_FADD(a, b) __fadd_rn((a), (b))
#define KD_GB_FSUB(a, b) __fsub_rn((a), (b))
#define KD_GB_FMUL(a, b) __fmul_rn((a), (b))
#define KD_GB_FDIV(a, b) __fdiv_rn((a), (b))
#define KD_GB_DADD(a, b) __dadd_rn((a), (b))
#define KD_GB_DSUB(a, b) __dsub_rn((a), (b))
#define KD_GB_DMUL(a, b) __dmul_rn((a), (b))
#define KD_GB_DDIV(a, b) __ddiv_rn((a), (b))
#else
#define KD_GB_FADD(a, b) ((a) + (b))
#define KD_GB_FSUB(a, b) ((a) - (b))
#define KD_GB_FMUL(a, b) ((a) * (b))
#define KD_GB_FDIV(a, b) ((a) / (b))
#define KD_GB_DADD(a, b) ((a) + (b))
#define KD_GB_DSUB(a, b) ((a) - (b))
#define KD_GB_DMUL(a, b) ((a) * (b))
#define KD_GB_DDIV(a, b) ((a) / (b))
#endif

// Child boxes of a split of cell at (axis, pos).
// (Selects, not out[axis]: a runtime index would put out in local memory.)
KD_GB_HD void kd_gb_child_cell(const float *cell, int axis, float pos, int above, float *out)
{
KD_GB_UNROLL
    for (int k = 0; k < 3; k++) {
        out[k] = above && k == axis ? pos : cell[k];
        out[3 + k] = !above && k == axis ? pos : cell[3 + k];
    }
}

// ---- Conservative clipping ---------------------------------------------------
// A polygon holds KD_GB_CLIP_MAX_POINTS points (the tuning header); where
// rounding would make more, the clip falls back to the box (still
// conservative). Room costs: the device keeps two polygons a thread in
// shared memory (the team clip of gpu_build_clip_team.cuh, a lane per
// point, allows at most 16).
enum { KD_GB_CLIP_MAX = KD_GB_CLIP_MAX_POINTS };

// Relative size (to the largest coordinate involved) of the widening of
// clipped bounds before they are rounded outward to floats: far above the
// error of double-precision clipping (a few ulps of double, magnified by
// the steepest crossing KD_GB_CLIP_GRAZING lets through), far below a
// float's step (2^-23), so that a bound ends at most one float step past
// the truth wherever the scene lies. (Widening by float steps of the
// magnitude would cost a scene far from the origin, whose triangles span
// few steps, a large share of every clip.)
#define KD_GB_CLIP_WIDEN 0x1p-40
// Points of the clipped polygon this close to a split plane (relative to
// the magnitude) count as on it: far above the rounding of the clip, far
// below a float step. A triangle touching the plane along an edge of the
// cell must reach both children.
#define KD_GB_CLIP_NEAR 0x1p-40
// An edge crossing a plane at a grazing angle (its extent across the plane
// under this fraction of its length) is not intersected: the point would
// carry the rounding of earlier stages magnified; keeping its outside end
// instead covers the true intersection, which lies between its two ends.
#define KD_GB_CLIP_GRAZING 0x1p-10

// Set bits of x.
KD_GB_HD int kd_gb_clip_popc(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}

// The index of the lowest set bit of x (x != 0).
KD_GB_HD int kd_gb_clip_ctz(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return __ffs((int)x) - 1;
#else
    return __builtin_ctz(x);
#endif
}

// Where a clip keeps its polygons (two, for Sutherland-Hodgman's input and
// output): at(b, i, k) is coordinate k of point i of polygon b. Storage only;
// the arithmetic is the same wherever they are kept.
// In the thread's own memory: the host, and device callers with spare room.
struct kd_gb_poly_local {
    double pts[2][KD_GB_CLIP_MAX][3];
    __host__ __device__ __forceinline__ double &at(int b, int i, int k) { return pts[b][i][k]; }
};
#if KD_DEVICE_CODE
// In shared memory, a column per thread of a block of THREADS: a thread's
// coordinates lie THREADS doubles apart, so the lanes of a warp reach their
// own points (different ones: lanes keep and cross differently) without
// bank conflicts. In local memory the same stores scatter a sector per lane
// and go through to L2.
template <int THREADS>
struct kd_gb_poly_shared {
    double *column; // the thread's first coordinate
    __device__ __forceinline__ double &at(int b, int i, int k)
    {
        return column[((b * KD_GB_CLIP_MAX + i) * 3 + k) * THREADS];
    }
};
#endif
// Shared memory for a block's polygons.
#define KD_GB_CLIP_SHARED_BYTES(threads) ((size_t)(threads) * 2u * KD_GB_CLIP_MAX * 3u * sizeof(double))

// The triangle clipped by the faces of cell that it crosses (Sutherland-
// Hodgman in double precision): polygon cur of poly, points [0, n). ok = 0
// when the polygon outgrew its arrays.
struct kd_gb_polygon_size {
    int n, cur, ok;
};

// The triangle's bounds (tlo, thi) and the magnitude its clipping works at.
KD_GB_HD double kd_gb_clip_prepare(const float *v, const float *cell, float *tlo, float *thi)
{
    double mag = 0.0;
    for (int k = 0; k < 3; k++) {
        tlo[k] = fminf(v[k], fminf(v[3 + k], v[6 + k]));
        thi[k] = fmaxf(v[k], fmaxf(v[3 + k], v[6 + k]));
        for (int i = 0; i < 3; i++)
            mag = fmax(mag, fabs((double)v[3 * i + k]));
        mag = fmax(mag, fmax(fabs((double)cell[k]), fabs((double)cell[3 + k])));
    }
    return mag;
}

// Of three values, the one of `axis`: selects keep a point in registers,
// where indexing it by a runtime axis would put it in local memory.
template <typename T>
KD_GB_HD T kd_gb_pick3(int axis, T x, T y, T z)
{
    return axis == 0 ? x : axis == 1 ? y : z;
}

// The crossing of edge p-q (whose ends lie on either side) with the plane
// x_a = c into o; 0, and o untouched, where the edge crosses at a grazing
// angle (the caller keeps ends instead).
KD_GB_HD int kd_gb_clip_cross(int a, double c, const double *p, const double *q, double *o)
{
    const double pa = kd_gb_pick3(a, p[0], p[1], p[2]), qa = kd_gb_pick3(a, q[0], q[1], q[2]);
    double across = KD_GB_DSUB(qa, pa);
    double len = 0.0;
KD_GB_UNROLL
    for (int k = 0; k < 3; k++)
        len = fmax(len, fabs(KD_GB_DSUB(q[k], p[k])));
    if (fabs(across) < KD_GB_DMUL(len, KD_GB_CLIP_GRAZING))
        return 0;
    double t = KD_GB_DDIV(KD_GB_DSUB(c, pa), across);
KD_GB_UNROLL
    for (int k = 0; k < 3; k++)
        o[k] = k == a ? c : KD_GB_DADD(p[k], KD_GB_DMUL(t, KD_GB_DSUB(q[k], p[k])));
    return 1;
}

// The faces of cell the triangle's bounds (tlo, thi) cross, a bit each
// (bit 2a: the lower face of axis a, 2a + 1 the upper); the triangle lies
// on the inner side of the others.
KD_GB_HD uint32_t kd_gb_clip_faces(const float *tlo, const float *thi, const float *cell)
{
    uint32_t faces = 0;
    for (int face = 0; face < 6; face++) {
        const int a = face >> 1, upper = face & 1;
        faces |= (uint32_t)(upper ? thi[a] > cell[3 + a] : tlo[a] < cell[a]) << face;
    }
    return faces;
}

template <typename Poly>
KD_GB_HD kd_gb_polygon_size kd_gb_clip_to_cell(const float *v, const float *tlo, const float *thi,
                                               const float *cell, Poly &poly)
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            poly.at(0, i, k) = (double)v[3 * i + k];
    int n = 3, cur = 0, ok = 1;
    // The faces the triangle crosses, taken in order. Looping over a lane's
    // own faces, not all six with a skip, keeps a warp's lanes together:
    // each runs as many passes as the lane with the most crossed faces, not
    // one per face any crosses.
    uint32_t faces = kd_gb_clip_faces(tlo, thi, cell);
    for (; faces != 0 && n > 0 && ok; faces &= faces - 1u) {
        const int face = kd_gb_clip_ctz(faces);
        int a = face >> 1, upper = face & 1;
        double c = upper ? (double)cell[3 + a] : (double)cell[a];
        // One walk round the polygon keeps the vertices on the inner side
        // and reserves a place for each crossing; the crossings (two but
        // for rounding), each costing a division, follow in a loop of their
        // own, so that a warp's lanes compute them together.
        double p[3] = {poly.at(cur, 0, 0), poly.at(cur, 0, 1), poly.at(cur, 0, 2)};
        double pa = kd_gb_pick3(a, p[0], p[1], p[2]);
        int p_in = upper ? pa <= c : pa >= c;
        int m = 0;
        uint32_t kept = 0, crosses = 0; // vertices kept; edges whose crossing has a place
        for (int i = 0; i < n; i++) {
            const int j = i + 1 < n ? i + 1 : 0;
            double q[3] = {poly.at(cur, j, 0), poly.at(cur, j, 1), poly.at(cur, j, 2)};
            double qa = kd_gb_pick3(a, q[0], q[1], q[2]);
            int q_in = upper ? qa <= c : qa >= c;
            if (p_in) {
                if (m >= KD_GB_CLIP_MAX) { ok = 0; break; }
KD_GB_UNROLL
                for (int k = 0; k < 3; k++)
                    poly.at(cur ^ 1, m, k) = p[k];
                kept |= 1u << i;
                m++;
            }
            if (p_in != q_in) {
                if (m >= KD_GB_CLIP_MAX) { ok = 0; break; }
                crosses |= 1u << i;
                m++;
            }
KD_GB_UNROLL
            for (int k = 0; k < 3; k++)
                p[k] = q[k];
            pa = qa;
            p_in = q_in;
        }
        if (!ok)
            break;
        for (uint32_t rest = crosses; rest != 0; rest &= rest - 1u) {
            const int i = kd_gb_clip_ctz(rest), j = i + 1 < n ? i + 1 : 0;
            const double pp[3] = {poly.at(cur, i, 0), poly.at(cur, i, 1), poly.at(cur, i, 2)};
            const double qq[3] = {poly.at(cur, j, 0), poly.at(cur, j, 1), poly.at(cur, j, 2)};
            double o[3];
            if (!kd_gb_clip_cross(a, c, pp, qq, o)) {
                const int pp_in = (int)((kept >> i) & 1u);
KD_GB_UNROLL
                for (int k = 0; k < 3; k++)
                    o[k] = pp_in ? qq[k] : pp[k]; // the outside end covers the crossing
            }
            // Its place: after the kept vertices up to i and the crossings before.
            const int at = kd_gb_clip_popc(kept & ((2u << i) - 1u)) +
                           kd_gb_clip_popc(crosses & ((1u << i) - 1u));
KD_GB_UNROLL
            for (int k = 0; k < 3; k++)
                poly.at(cur ^ 1, at, k) = o[k];
        }
        n = m;
        cur ^= 1;
    }
    kd_gb_polygon_size size = {n, cur, ok};
    return size;
}

// x rounded to a float toward -infinity (down) or +infinity (up): a computed
// bound becomes a float that still holds it.
KD_GB_HD float kd_gb_round_down(double x)
{
    const float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

KD_GB_HD float kd_gb_round_up(double x)
{
    const float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

// Grows the bounds lo, hi (empty until *found) by point x.
KD_GB_HD void kd_gb_clip_grow(double *lo, double *hi, int *found, const double *x)
{
KD_GB_UNROLL
    for (int k = 0; k < 3; k++) {
        lo[k] = *found ? fmin(lo[k], x[k]) : x[k];
        hi[k] = *found ? fmax(hi[k], x[k]) : x[k];
    }
    *found = 1;
}

// Bounds [dlo, dhi] of clipped points, widened and rounded outward, kept
// within safe (which holds the truth), into box; safe itself where they
// say nothing.
KD_GB_HD void kd_gb_clip_finish(int found, const double *dlo, const double *dhi, double mag,
                                const float *safe, float *box)
{
    const double widen = KD_GB_DMUL(mag, KD_GB_CLIP_WIDEN);
    float out[6];
    for (int k = 0; k < 3 && found; k++) {
        out[k] = fmaxf(kd_gb_round_down(KD_GB_DSUB(dlo[k], widen)), safe[k]);
        out[3 + k] = fminf(kd_gb_round_up(KD_GB_DADD(dhi[k], widen)), safe[3 + k]);
        if (out[k] > out[3 + k])
            found = 0;
    }
    for (int k = 0; k < 6; k++)
        box[k] = found ? out[k] : safe[k];
}

// Box, cell and the triangle's own bounds all hold the truth: their
// intersection is a safe answer when clipping cannot do better.
KD_GB_HD void kd_gb_clip_safe(const float *box, const float *cell, const float *tlo,
                              const float *thi, float *safe)
{
    for (int k = 0; k < 3; k++) {
        safe[k] = fmaxf(fmaxf(box[k], cell[k]), tlo[k]);
        safe[3 + k] = fminf(fminf(box[3 + k], cell[3 + k]), thi[k]);
    }
}

// box holds conservative bounds of the triangle's part inside a parent node
// (so within the parent's box); on return, conservative bounds of its part
// inside the closed box cell, within cell. Never smaller than the truth: a
// triangle touching cell stays inside the returned bounds.
// The builder clips straddlers with kd_gb_clip_split (below) in all three
// stages (or its team twin, kd_gb_clip_split_team, which repeats its
// arithmetic: change both), so that a straddler gets the same bounds
// whichever stage files it; this one-cell form is the clip
// tests/gpu_build_clip checks first and builds the split's inputs with.
// Not inlined: only straddling lanes call it, and its double-precision
// polygon would otherwise weigh on every caller's registers.
__attribute__((unused)) static __host__ __device__ __noinline__ void
kd_gb_clip_bounds(const float *v, const float *cell, float *box)
{
    // Bounds already inside cell: the triangle's part in the parent lies in
    // cell, so clipping to cell cannot change it.
    if (box[0] >= cell[0] && box[1] >= cell[1] && box[2] >= cell[2] && box[3] <= cell[3] &&
        box[4] <= cell[4] && box[5] <= cell[5])
        return;
    float tlo[3], thi[3], safe[6];
    double mag = kd_gb_clip_prepare(v, cell, tlo, thi);
    kd_gb_clip_safe(box, cell, tlo, thi, safe);
    kd_gb_poly_local poly;
    const kd_gb_polygon_size size = kd_gb_clip_to_cell(v, tlo, thi, cell, poly);
    double dlo[3], dhi[3];
    int found = size.ok && size.n > 0; // rounding can empty (or overflow) the polygon
    for (int k = 0; k < 3 && found; k++) {
        dlo[k] = dhi[k] = poly.pts[size.cur][0][k];
        for (int i = 1; i < size.n; i++) {
            dlo[k] = fmin(dlo[k], poly.pts[size.cur][i][k]);
            dhi[k] = fmax(dhi[k], poly.pts[size.cur][i][k]);
        }
    }
    kd_gb_clip_finish(found, dlo, dhi, mag, safe, box);
}

// One clip for both children of a split: box holds conservative bounds of
// the triangle's part in cell, which splits at pos on axis; child[0] gets
// bounds of its part in the below child, child[1] in the above one. The
// polygon is clipped to cell once, then cut by the plane; a grazing edge
// keeps both its ends on both sides (they enclose the true crossing).
// The polygons go in poly (kd_gb_clip_split below: the thread's own memory).
// What a split's clip needs besides the polygon (kd_gb_clip_split_in and
// its team twin): the triangle's bounds and magnitude, and each side's safe
// answer.
struct kd_gb_split_setup {
    float tlo[3], thi[3], safe[2][6];
    double mag;
};

KD_GB_HD kd_gb_split_setup kd_gb_clip_split_setup(const float *v, const float *cell, const float *box, int axis,
                                                  float pos)
{
    kd_gb_split_setup s;
    s.mag = kd_gb_clip_prepare(v, cell, s.tlo, s.thi);
    for (int side = 0; side < 2; side++) {
        float child_cell[6];
        kd_gb_child_cell(cell, axis, pos, side, child_cell);
        kd_gb_clip_safe(box, child_cell, s.tlo, s.thi, s.safe[side]);
    }
    return s;
}

// The split plane c and the band of rounding around it: a point at or
// below c_below goes below, at or above c_above above (computed after the
// polygon, so that they do not stay in registers through it).
KD_GB_HD void kd_gb_split_band(double mag, float pos, double *c, double *c_below, double *c_above)
{
    const double near = KD_GB_DMUL(mag, KD_GB_CLIP_NEAR);
    *c = (double)pos;
    *c_below = KD_GB_DADD(*c, near);
    *c_above = KD_GB_DSUB(*c, near);
}

template <typename Poly>
static __host__ __device__ __forceinline__ void kd_gb_clip_split_in(Poly &poly, const float *v, const float *cell,
                                                                    const float *box, int axis, float pos,
                                                                    float (*child)[6])
{
    const kd_gb_split_setup s = kd_gb_clip_split_setup(v, cell, box, axis, pos);
    const kd_gb_polygon_size size = kd_gb_clip_to_cell(v, s.tlo, s.thi, cell, poly);
    // The bounds of each side's points, in registers (no side index).
    double lo0[3], hi0[3], lo1[3], hi1[3];
    int found0 = 0, found1 = 0;
    double c, c_below, c_above;
    kd_gb_split_band(s.mag, pos, &c, &c_below, &c_above);
    if (size.ok && size.n > 0) {
        const int n = size.n, cur = size.cur;
        // Each point goes to the sides it lies on, both where it lies within
        // rounding of the plane (the polygon's computed points may have
        // strayed from it); the crossings of edges whose ends lie strictly
        // on opposite sides go to both, after the points (in a loop of their
        // own, as in the cell clip).
        double p[3] = {poly.at(cur, 0, 0), poly.at(cur, 0, 1), poly.at(cur, 0, 2)};
        double pa = kd_gb_pick3(axis, p[0], p[1], p[2]);
        uint32_t crosses = 0;
        for (int i = 0; i < n; i++) {
            const int j = i + 1 < n ? i + 1 : 0;
            double q[3] = {poly.at(cur, j, 0), poly.at(cur, j, 1), poly.at(cur, j, 2)};
            double qa = kd_gb_pick3(axis, q[0], q[1], q[2]);
            if (pa <= c_below)
                kd_gb_clip_grow(lo0, hi0, &found0, p);
            if (pa >= c_above)
                kd_gb_clip_grow(lo1, hi1, &found1, p);
            crosses |= (uint32_t)((pa < c && qa > c) || (pa > c && qa < c)) << i;
KD_GB_UNROLL
            for (int k = 0; k < 3; k++)
                p[k] = q[k];
            pa = qa;
        }
        for (uint32_t rest = crosses; rest != 0; rest &= rest - 1u) {
            const int i = kd_gb_clip_ctz(rest), j = i + 1 < n ? i + 1 : 0;
            const double pp[3] = {poly.at(cur, i, 0), poly.at(cur, i, 1), poly.at(cur, i, 2)};
            const double qq[3] = {poly.at(cur, j, 0), poly.at(cur, j, 1), poly.at(cur, j, 2)};
            double cross[3];
            if (kd_gb_clip_cross(axis, c, pp, qq, cross)) {
                kd_gb_clip_grow(lo0, hi0, &found0, cross);
                kd_gb_clip_grow(lo1, hi1, &found1, cross);
            } else { // both ends enclose the crossing
                kd_gb_clip_grow(lo0, hi0, &found0, pp);
                kd_gb_clip_grow(lo1, hi1, &found1, pp);
                kd_gb_clip_grow(lo0, hi0, &found0, qq);
                kd_gb_clip_grow(lo1, hi1, &found1, qq);
            }
        }
    }
    kd_gb_clip_finish(found0, lo0, hi0, s.mag, s.safe[0], child[0]);
    kd_gb_clip_finish(found1, lo1, hi1, s.mag, s.safe[1], child[1]);
}

// kd_gb_clip_split_in with the polygons in the thread's own memory. Not
// inlined: only straddling lanes call it, and its polygons would otherwise
// weigh on every caller's registers.
__attribute__((unused)) static __host__ __device__ __noinline__ void
kd_gb_clip_split(const float *v, const float *cell, const float *box, int axis, float pos,
                 float (*child)[6])
{
    kd_gb_poly_local poly;
    kd_gb_clip_split_in(poly, v, cell, box, axis, pos, child);
}

// Polygons in the thread's own memory by a call to kd_gb_clip_split (for
// callers that clip now and then: their registers are spared the clip's).
struct kd_gb_poly_call {};
static __host__ __device__ __forceinline__ void kd_gb_clip_split_in(kd_gb_poly_call &, const float *v,
                                                                    const float *cell, const float *box,
                                                                    int axis, float pos, float (*child)[6])
{
    kd_gb_clip_split(v, cell, box, axis, pos, child);
}

// The cell a split at `axis` cut into child_cell[0] (below) and [1] (above).
KD_GB_HD void kd_gb_parent_cell(const float (*child_cell)[6], int axis, float *cell)
{
KD_GB_UNROLL
    for (int k = 0; k < 3; k++) {
        cell[k] = child_cell[0][k];
        cell[3 + k] = k == axis ? child_cell[1][3 + k] : child_cell[0][3 + k];
    }
}

// One float up or down from x: nextafterf(x, +-INFINITY), bit for bit, with
// selects instead of the library's branches for the finite values that
// bounds hold (the small stage takes six per member per node).
KD_GB_HD float kd_gb_step(float x, int up)
{
    if (!(fabsf(x) <= FLT_MAX))
        return nextafterf(x, up ? INFINITY : -INFINITY);
    int32_t bits;
    memcpy(&bits, &x, sizeof bits);
    // Zero steps to the smallest denormal of the step's sign; otherwise the
    // magnitude grows where the step leads away from zero.
    int32_t away = (bits >= 0) == (up != 0) ? 1 : -1;
    bits = x == 0.0f ? (up ? 1 : (int32_t)0x80000001u) : bits + away;
    float out;
    memcpy(&out, &bits, sizeof out);
    return out;
}

// ---- Surface area heuristic --------------------------------------------------
struct kd_gb_sah {
    float traversal, intersect, empty_bonus, min_empty_fraction;
};

// pbrt's Bounds3::SurfaceArea.
KD_GB_HD float kd_gb_box_area(const float *cell)
{
    float dx = KD_GB_FSUB(cell[3], cell[0]);
    float dy = KD_GB_FSUB(cell[4], cell[1]);
    float dz = KD_GB_FSUB(cell[5], cell[2]);
    float s = KD_GB_FADD(KD_GB_FADD(KD_GB_FMUL(dx, dy), KD_GB_FMUL(dx, dz)), KD_GB_FMUL(dy, dz));
    return KD_GB_FMUL(2.0f, s);
}

// pbrt-v4's split cost: traversal + intersect (1 - eb) (pB nB + pA nA), eb the
// empty bonus when one side is empty and spans min_empty_fraction of the cell
// (as the CPU builder); inv_area = 1 / area of cell. The counts as floats
// (whole numbers, exact below 2^24), as the small stage's node pass counts
// them; kd_gb_split_cost below takes them as integers.
KD_GB_HD float kd_gb_split_cost_f(const kd_gb_sah &sah, const float *cell, int axis, float pos,
                                  float num_below, float num_above, float inv_area)
{
    int o0 = axis == 2 ? 0 : axis + 1;
    int o1 = o0 == 2 ? 0 : o0 + 1;
    float d0 = KD_GB_FSUB(cell[3 + o0], cell[o0]);
    float d1 = KD_GB_FSUB(cell[3 + o1], cell[o1]);
    float cap = KD_GB_FMUL(d0, d1), rim = KD_GB_FADD(d0, d1);
    float below = KD_GB_FMUL(2.0f, KD_GB_FADD(cap, KD_GB_FMUL(KD_GB_FSUB(pos, cell[axis]), rim)));
    float above = KD_GB_FMUL(2.0f, KD_GB_FADD(cap, KD_GB_FMUL(KD_GB_FSUB(cell[3 + axis], pos), rim)));
    float p_below = KD_GB_FMUL(below, inv_area), p_above = KD_GB_FMUL(above, inv_area);
    float eb = (num_below == 0.0f || num_above == 0.0f) &&
                       kd_empty_bonus_applies(cell[axis], cell[3 + axis], pos, num_below == 0.0f,
                                              sah.min_empty_fraction)
                   ? sah.empty_bonus
                   : 0.0f;
    float weighted = KD_GB_FADD(KD_GB_FMUL(p_below, num_below), KD_GB_FMUL(p_above, num_above));
    return KD_GB_FADD(sah.traversal,
                      KD_GB_FMUL(KD_GB_FMUL(sah.intersect, KD_GB_FSUB(1.0f, eb)), weighted));
}

KD_GB_HD float kd_gb_split_cost(const kd_gb_sah &sah, const float *cell, int axis, float pos,
                                uint32_t num_below, uint32_t num_above, float inv_area)
{
    return kd_gb_split_cost_f(sah, cell, axis, pos, (float)num_below, (float)num_above, inv_area);
}

// References per triangle are bounded by an allowance handed down the tree:
// the root may hold budget x N references in its leaves; a split passes each
// child the parent's allowance in proportion to its references, so the
// allowance per reference shrinks by the split's duplication. A split whose
// children could not hold one reference each is refused (the node becomes a
// leaf), so all leaves together hold at most budget x N references.
KD_GB_HD float kd_gb_child_allowance(float allowance, uint32_t n, uint32_t num_below,
                                     uint32_t num_above)
{
    uint32_t total = num_below + num_above;
    return total == 0 ? allowance : KD_GB_FDIV(KD_GB_FMUL(allowance, (float)n), (float)total);
}

// The side of a reference with bounds [lo, hi] on the split axis, as the
// verifier's closed boxes demand: touching the plane means both.
KD_GB_HD uint8_t kd_gb_side(float lo, float hi, float pos)
{
    return (uint8_t)((lo <= pos ? 1 : 0) | (hi >= pos ? 2 : 0));
}

#endif
