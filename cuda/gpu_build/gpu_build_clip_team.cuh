// A straddler's clip by a team of KD_GB_CLIP_TEAM lanes (half a warp), for
// passes with few clips, where a clip's latency is the pass's time.
//
// kd_gb_clip_split_in walks the polygon a point at a time on one lane, a
// long chain of dependent steps. Here lane i of the team holds point i of
// the polygon (at most KD_GB_CLIP_MAX = 9, so 16 lanes do): per face, each
// lane decides its point and the crossing of its edge at once, ballots give
// every kept point and crossing its place (the same places as the one-lane
// walk's), and the new polygon goes through the team's scratch in shared
// memory to the lane of each point. The split's bounds are each lane's
// points and crossings, joined by min and max over the team. Every point is
// computed by the same operations as on one lane, and min and max do not
// depend on order, so for finite vertices (the OBJ loader drops others) the
// bounds are the same, bit for bit (tests/gpu_build_clip_device compares
// them on the awkward triangles of tests/gpu_build_clip, and
// gpu_build_clip_overflow with polygons of at most 5 points, which
// overflow). A change to either clip must be made to both.
#ifndef KD_GPU_BUILD_CLIP_TEAM_CUH
#define KD_GPU_BUILD_CLIP_TEAM_CUH

#include "gpu_build_geom.cuh"

#if KD_DEVICE_CODE

enum { KD_GB_CLIP_TEAM = 16 };
static_assert((int)KD_GB_CLIP_MAX <= (int)KD_GB_CLIP_TEAM, "a lane per point");
// Rows of the team's scratch: a polygon's coordinates, 16 to a row.
enum { KD_GB_CLIP_TEAM_ROWS = (3 * KD_GB_CLIP_MAX + KD_GB_CLIP_TEAM - 1) / KD_GB_CLIP_TEAM };
static_assert((int)KD_GB_CLIP_TEAM_ROWS <= 6 * (int)KD_GB_CLIP_MAX, "within a thread's polygon column");

// The team of the calling lane: its lanes (for the *_sync calls), its index
// in the team, its first lane in the warp, and its scratch: the polygon
// being made, coordinate e of it at scratch[e % 16 + e / 16 * stride]. The
// scratch is the team's threads' own columns of a block's polygons
// (kd_gb_poly_shared: a thread's column is every stride'th double from its
// index), so a team borrows no other thread's memory; the whole block must
// take the teams' path, as the threads' clips use the same columns.
struct kd_gb_clip_team {
    unsigned mask;
    uint32_t lane;  // in the team
    uint32_t first; // the team's first lane in the warp
    double *scratch;
    uint32_t stride;
    __device__ __forceinline__ double &at(uint32_t e) const
    {
        return scratch[e % KD_GB_CLIP_TEAM + e / KD_GB_CLIP_TEAM * stride];
    }
};

// columns: a block's polygon columns, stride doubles apart (at least
// KD_GB_CLIP_TEAM_ROWS doubles for each of its threads).
static __device__ __forceinline__ kd_gb_clip_team kd_gb_clip_team_of(double *columns, uint32_t stride)
{
    kd_gb_clip_team t;
    const uint32_t warp_lane = threadIdx.x & 31u;
    t.first = warp_lane & ~(uint32_t)(KD_GB_CLIP_TEAM - 1);
    t.lane = warp_lane - t.first;
    t.mask = ((1u << KD_GB_CLIP_TEAM) - 1u) << t.first;
    t.scratch = columns + (threadIdx.x - t.lane);
    t.stride = stride;
    return t;
}

static __device__ __forceinline__ double kd_gb_team_get(const kd_gb_clip_team &t, double x, uint32_t from)
{
    return __shfl_sync(t.mask, x, (int)from, KD_GB_CLIP_TEAM);
}

// The team's bits of a ballot, lane 0 of the team first.
static __device__ __forceinline__ uint32_t kd_gb_team_ballot(const kd_gb_clip_team &t, int pred)
{
    return (__ballot_sync(t.mask, pred) >> t.first) & ((1u << KD_GB_CLIP_TEAM) - 1u);
}

// Grows one lane's part of a side's bounds (lo +inf and hi -inf when empty).
static __device__ __forceinline__ void kd_gb_team_grow(double *lo, double *hi, const double *x)
{
#pragma unroll
    for (int k = 0; k < 3; k++) {
        lo[k] = fmin(lo[k], x[k]);
        hi[k] = fmax(hi[k], x[k]);
    }
}

// A side's bounds joined over the team; found where any lane has a point.
static __device__ __forceinline__ int kd_gb_team_join(const kd_gb_clip_team &t, double *lo, double *hi)
{
#pragma unroll
    for (int offset = KD_GB_CLIP_TEAM / 2; offset > 0; offset >>= 1) {
#pragma unroll
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], __shfl_xor_sync(t.mask, lo[k], offset, KD_GB_CLIP_TEAM));
            hi[k] = fmax(hi[k], __shfl_xor_sync(t.mask, hi[k], offset, KD_GB_CLIP_TEAM));
        }
    }
    return lo[0] <= hi[0];
}

// The cell clip (kd_gb_clip_to_cell) by the team, a face at a time: lane i
// holds point i of the polygon in p, *n points in all. 0 where the polygon
// outgrew its room (the walk would have run out of it).
static __device__ __forceinline__ int kd_gb_team_clip_to_cell(const kd_gb_clip_team &t, const kd_gb_split_setup &s,
                                                              const float *v, const float *cell, double *p,
                                                              uint32_t *n)
{
    const uint32_t i = t.lane, below_me = (1u << i) - 1u;
    if (i < 3) {
#pragma unroll
        for (int k = 0; k < 3; k++)
            p[k] = (double)v[3 * i + k];
    }
    uint32_t faces = kd_gb_clip_faces(s.tlo, s.thi, cell);
    for (*n = 3; faces != 0 && *n > 0; faces &= faces - 1u) {
        const int face = __ffs(faces) - 1;
        const int a = face >> 1, upper = face & 1;
        const double c = upper ? (double)cell[3 + a] : (double)cell[a];
        const uint32_t j = i + 1 < *n ? i + 1 : 0;
        double q[3];
#pragma unroll
        for (int k = 0; k < 3; k++)
            q[k] = kd_gb_team_get(t, p[k], j);
        const double pa = kd_gb_pick3(a, p[0], p[1], p[2]), qa = kd_gb_pick3(a, q[0], q[1], q[2]);
        const int p_in = upper ? pa <= c : pa >= c, q_in = upper ? qa <= c : qa >= c;
        const int kept = i < *n && p_in, crosses = i < *n && p_in != q_in;
        const uint32_t kept_bits = kd_gb_team_ballot(t, kept), cross_bits = kd_gb_team_ballot(t, crosses);
        const uint32_t m = (uint32_t)(__popc(kept_bits) + __popc(cross_bits));
        if (m > KD_GB_CLIP_MAX)
            return 0;
        const uint32_t at = (uint32_t)(__popc(kept_bits & below_me) + __popc(cross_bits & below_me));
        if (kept) {
#pragma unroll
            for (int k = 0; k < 3; k++)
                t.at(3 * at + k) = p[k];
        }
        if (crosses) {
            double o[3];
            if (!kd_gb_clip_cross(a, c, p, q, o)) {
#pragma unroll
                for (int k = 0; k < 3; k++)
                    o[k] = p_in ? q[k] : p[k]; // the outside end covers the crossing
            }
#pragma unroll
            for (int k = 0; k < 3; k++)
                t.at(3 * (at + (uint32_t)kept) + k) = o[k];
        }
        __syncwarp(t.mask);
        *n = m;
        if (i < *n) {
#pragma unroll
            for (int k = 0; k < 3; k++)
                p[k] = t.at(3 * i + k);
        }
        __syncwarp(t.mask); // read before the next face writes
    }
    return 1;
}

// The split (kd_gb_clip_split_in's second half) by the team: each lane its
// point p and its edge's crossing into the bounds of the sides it lies on.
static __device__ __forceinline__ void kd_gb_team_split_points(const kd_gb_clip_team &t, const kd_gb_split_setup &s,
                                                               int axis, float pos, const double *p, uint32_t n,
                                                               double (*lo)[3], double (*hi)[3])
{
    const uint32_t i = t.lane;
    double c, c_below, c_above;
    kd_gb_split_band(s.mag, pos, &c, &c_below, &c_above);
    const uint32_t j = i + 1 < n ? i + 1 : 0;
    double q[3];
#pragma unroll
    for (int k = 0; k < 3; k++)
        q[k] = kd_gb_team_get(t, p[k], j);
    if (i >= n)
        return;
    const double pa = kd_gb_pick3(axis, p[0], p[1], p[2]), qa = kd_gb_pick3(axis, q[0], q[1], q[2]);
    if (pa <= c_below)
        kd_gb_team_grow(lo[0], hi[0], p);
    if (pa >= c_above)
        kd_gb_team_grow(lo[1], hi[1], p);
    if ((pa < c && qa > c) || (pa > c && qa < c)) {
        double cross[3];
        if (kd_gb_clip_cross(axis, c, p, q, cross)) {
            kd_gb_team_grow(lo[0], hi[0], cross);
            kd_gb_team_grow(lo[1], hi[1], cross);
        } else { // both ends enclose the crossing
            kd_gb_team_grow(lo[0], hi[0], p);
            kd_gb_team_grow(lo[1], hi[1], p);
            kd_gb_team_grow(lo[0], hi[0], q);
            kd_gb_team_grow(lo[1], hi[1], q);
        }
    }
}

// kd_gb_clip_split_in's result, by the whole team (every lane gets child).
// The team's lanes call it together with the same arguments.
static __device__ __forceinline__ void kd_gb_clip_split_team(const kd_gb_clip_team &t, const float *v,
                                                          const float *cell, const float *box, int axis,
                                                          float pos, float (*child)[6])
{
    const kd_gb_split_setup s = kd_gb_clip_split_setup(v, cell, box, axis, pos);
    double p[3] = {0.0, 0.0, 0.0};
    uint32_t n = 0;
    const int ok = kd_gb_team_clip_to_cell(t, s, v, cell, p, &n);
    double lo[2][3], hi[2][3];
#pragma unroll
    for (int k = 0; k < 3; k++) {
        lo[0][k] = lo[1][k] = INFINITY;
        hi[0][k] = hi[1][k] = -INFINITY;
    }
    if (ok && n > 0)
        kd_gb_team_split_points(t, s, axis, pos, p, n, lo, hi);
    const int found0 = kd_gb_team_join(t, lo[0], hi[0]);
    const int found1 = kd_gb_team_join(t, lo[1], hi[1]);
    kd_gb_clip_finish(found0, lo[0], hi[0], s.mag, s.safe[0], child[0]);
    kd_gb_clip_finish(found1, lo[1], hi[1], s.mag, s.safe[1], child[1]);
}

#endif // KD_DEVICE_CODE
#endif
