// Geometry of the GPU builder, shared by the device kernels and the host
// emulation: conservative triangle clipping and the SAH split cost.
//
// Every product and sum here goes through the KD_GB_* operations, which never
// fuse into an FMA: nvcc fuses a * b + c by default on the device, the host
// compiler does not, and the emulation must decide exactly what the device
// decides (same splits, same clipped bounds, same tree).
#ifndef KD_GPU_BUILD_GEOM_CUH
#define KD_GPU_BUILD_GEOM_CUH

#include <math.h>
#include <stdint.h>

#define KD_GB_HD static __host__ __device__ __forceinline__

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

// ---- Conservative clipping ---------------------------------------------------
// A triangle clipped by the six planes of a box has at most 9 vertices; the
// near-parallel rule below can repeat a point, so leave room and fall back to
// the box when even that overflows.
enum { KD_GB_CLIP_MAX = 24 };

// Relative size of the outward widening of clipped bounds: far above the
// error of double-precision clipping, far below a float ulp of slack in a
// tree's boxes (2^-20 of the largest coordinate involved).
#define KD_GB_CLIP_WIDEN 0x1p-20
// An edge crossing a plane at a grazing angle (its extent across the plane
// under this fraction of its length) is not intersected: the point would
// carry the rounding of earlier stages magnified; keeping its outside end
// instead covers the true intersection, which lies between its two ends.
#define KD_GB_CLIP_GRAZING 0x1p-10

// box holds conservative bounds of the triangle's part inside a parent node
// (so within the parent's box); on return, conservative bounds of its part
// inside the closed box cell, within cell. Never smaller than the truth: a
// triangle touching cell stays inside the returned bounds.
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
    double pts[2][KD_GB_CLIP_MAX][3];
    float tlo[3], thi[3];
    double mag = 0.0;
    for (int k = 0; k < 3; k++) {
        tlo[k] = fminf(v[k], fminf(v[3 + k], v[6 + k]));
        thi[k] = fmaxf(v[k], fmaxf(v[3 + k], v[6 + k]));
        for (int i = 0; i < 3; i++) {
            pts[0][i][k] = (double)v[3 * i + k];
            mag = fmax(mag, fabs((double)v[3 * i + k]));
        }
        mag = fmax(mag, fmax(fabs((double)cell[k]), fabs((double)cell[3 + k])));
    }

    // Box, cell and the triangle's own bounds all hold the truth; start from
    // their intersection.
    float safe[6];
    for (int k = 0; k < 3; k++) {
        safe[k] = fmaxf(fmaxf(box[k], cell[k]), tlo[k]);
        safe[3 + k] = fminf(fminf(box[3 + k], cell[3 + k]), thi[k]);
    }

    int n = 3, cur = 0, ok = 1;
    for (int face = 0; face < 6 && n > 0 && ok; face++) {
        int a = face >> 1, upper = face & 1;
        double c = upper ? (double)cell[3 + a] : (double)cell[a];
        if (upper ? !(thi[a] > cell[3 + a]) : !(tlo[a] < cell[a]))
            continue; // the triangle lies on the inner side of this plane
        int m = 0;
        for (int i = 0; i < n && ok; i++) {
            const double *p = pts[cur][i];
            const double *q = pts[cur][i + 1 < n ? i + 1 : 0];
            int p_in = upper ? p[a] <= c : p[a] >= c;
            int q_in = upper ? q[a] <= c : q[a] >= c;
            if (p_in) {
                if (m >= KD_GB_CLIP_MAX) { ok = 0; break; }
                for (int k = 0; k < 3; k++)
                    pts[cur ^ 1][m][k] = p[k];
                m++;
            }
            if (p_in != q_in) {
                if (m >= KD_GB_CLIP_MAX) { ok = 0; break; }
                double across = KD_GB_DSUB(q[a], p[a]);
                double len = 0.0;
                for (int k = 0; k < 3; k++)
                    len = fmax(len, fabs(KD_GB_DSUB(q[k], p[k])));
                double *o = pts[cur ^ 1][m];
                if (fabs(across) < KD_GB_DMUL(len, KD_GB_CLIP_GRAZING)) {
                    const double *outside = p_in ? q : p;
                    for (int k = 0; k < 3; k++)
                        o[k] = outside[k];
                } else {
                    double t = KD_GB_DDIV(KD_GB_DSUB(c, p[a]), across);
                    for (int k = 0; k < 3; k++)
                        o[k] = KD_GB_DADD(p[k], KD_GB_DMUL(t, KD_GB_DSUB(q[k], p[k])));
                    o[a] = c;
                }
                m++;
            }
        }
        n = m;
        cur ^= 1;
    }

    if (!ok || n == 0) {
        // Rounding emptied (or overflowed) the polygon: the box is still safe.
        for (int k = 0; k < 6; k++)
            box[k] = safe[k];
        return;
    }
    float widen = (float)KD_GB_DMUL(mag, KD_GB_CLIP_WIDEN);
    float out[6];
    for (int k = 0; k < 3; k++) {
        double dlo = pts[cur][0][k], dhi = pts[cur][0][k];
        for (int i = 1; i < n; i++) {
            dlo = fmin(dlo, pts[cur][i][k]);
            dhi = fmax(dhi, pts[cur][i][k]);
        }
        out[k] = fmaxf(KD_GB_FSUB((float)dlo, widen), safe[k]);
        out[3 + k] = fminf(KD_GB_FADD((float)dhi, widen), safe[3 + k]);
        if (out[k] > out[3 + k]) {
            for (int j = 0; j < 6; j++)
                box[j] = safe[j];
            return;
        }
    }
    for (int k = 0; k < 6; k++)
        box[k] = out[k];
}

// ---- Surface area heuristic --------------------------------------------------
struct kd_gb_sah {
    float traversal, intersect, empty_bonus;
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
// empty bonus when one side is empty; inv_area = 1 / area of cell.
KD_GB_HD float kd_gb_split_cost(const kd_gb_sah &sah, const float *cell, int axis, float pos,
                                uint32_t num_below, uint32_t num_above, float inv_area)
{
    int o0 = axis == 2 ? 0 : axis + 1;
    int o1 = o0 == 2 ? 0 : o0 + 1;
    float d0 = KD_GB_FSUB(cell[3 + o0], cell[o0]);
    float d1 = KD_GB_FSUB(cell[3 + o1], cell[o1]);
    float cap = KD_GB_FMUL(d0, d1), rim = KD_GB_FADD(d0, d1);
    float below = KD_GB_FMUL(2.0f, KD_GB_FADD(cap, KD_GB_FMUL(KD_GB_FSUB(pos, cell[axis]), rim)));
    float above = KD_GB_FMUL(2.0f, KD_GB_FADD(cap, KD_GB_FMUL(KD_GB_FSUB(cell[3 + axis], pos), rim)));
    float p_below = KD_GB_FMUL(below, inv_area), p_above = KD_GB_FMUL(above, inv_area);
    float eb = (num_below == 0 || num_above == 0) ? sah.empty_bonus : 0.0f;
    float weighted = KD_GB_FADD(KD_GB_FMUL(p_below, (float)num_below),
                                KD_GB_FMUL(p_above, (float)num_above));
    return KD_GB_FADD(sah.traversal,
                      KD_GB_FMUL(KD_GB_FMUL(sah.intersect, KD_GB_FSUB(1.0f, eb)), weighted));
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

// Child boxes of a split of cell at (axis, pos).
KD_GB_HD void kd_gb_child_cell(const float *cell, int axis, float pos, int above, float *out)
{
    for (int k = 0; k < 6; k++)
        out[k] = cell[k];
    if (above)
        out[axis] = pos;
    else
        out[3 + axis] = pos;
}

// The side of a reference with bounds [lo, hi] on the split axis, as the
// verifier's closed boxes demand: touching the plane means both.
KD_GB_HD uint8_t kd_gb_side(float lo, float hi, float pos)
{
    return (uint8_t)((lo <= pos ? 1 : 0) | (hi >= pos ? 2 : 0));
}

#endif
