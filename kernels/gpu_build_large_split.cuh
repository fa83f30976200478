// The large-node stage's choice of split (spatial median with empty-space
// cut-off, or binned SAH) and the plan that follows from its exact counts.
// Per-element code shared by the device kernels and the host emulation.
#ifndef KD_GPU_BUILD_LARGE_SPLIT_CUH
#define KD_GPU_BUILD_LARGE_SPLIT_CUH

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"

// Zhou et al.: cut off empty space where one side of the node is mostly
// empty, else split the tight box's longest axis at its middle.
struct kd_gb_choose_median {
    const kd_gb_large_node *nodes;
    const float *tight;           // 6 floats per node: the references' bounds
    kd_gb_split_choice *choice;
    int max_depth;
    int force_leaf;
    float empty_ratio;

    __host__ __device__ void operator()(uint32_t k) const
    {
        kd_gb_split_choice c;
        c.axis = -1;
        c.pos = 0.0f;
        const float *cell = nodes[k].cell;
        const float *t = tight + 6 * (size_t)k;
        if (!force_leaf && (int)nodes[k].depth < max_depth) {
            // Empty space: the widest empty slab over the threshold, its
            // plane one float outside the references so none touches it.
            float best_gap = empty_ratio;
            for (int a = 0; a < 3; a++) {
                float ext = KD_GB_FSUB(cell[3 + a], cell[a]);
                if (!(ext > 0.0f))
                    continue;
                float gap_lo = KD_GB_FDIV(KD_GB_FSUB(t[a], cell[a]), ext);
                float pos_lo = nextafterf(t[a], -INFINITY);
                if (gap_lo > best_gap && pos_lo > cell[a]) {
                    best_gap = gap_lo;
                    c.axis = a;
                    c.pos = pos_lo;
                }
                float gap_hi = KD_GB_FDIV(KD_GB_FSUB(cell[3 + a], t[3 + a]), ext);
                float pos_hi = nextafterf(t[3 + a], INFINITY);
                if (gap_hi > best_gap && pos_hi < cell[3 + a]) {
                    best_gap = gap_hi;
                    c.axis = a;
                    c.pos = pos_hi;
                }
            }
            if (c.axis < 0) {
                int a = 0;
                float ext[3];
                for (int j = 0; j < 3; j++)
                    ext[j] = KD_GB_FSUB(t[3 + j], t[j]);
                if (ext[1] > ext[a])
                    a = 1;
                if (ext[2] > ext[a])
                    a = 2;
                float mid = KD_GB_FMUL(KD_GB_FADD(t[a], t[3 + a]), 0.5f);
                if (ext[a] > 0.0f && cell[a] < mid && mid < cell[3 + a]) {
                    c.axis = a;
                    c.pos = mid;
                }
            }
            c.pos = KD_GB_FADD(c.pos, 0.0f); // no -0 in the tree
        }
        choice[k] = c;
    }
};

// Binned SAH: count each reference's lower and upper bound into bins over
// the node's tight box (integer atomics, so the counts do not depend on order).
struct kd_gb_bin_refs {
    kd_gb_refs refs;
    const float *tight;
    uint32_t *bins;               // per node, axis, {lo, hi}: num_bins counts
    int num_bins;
    uint32_t first_node;          // bins[0] belongs to this node

    __host__ __device__ void operator()(uint32_t i) const
    {
        uint32_t k = refs.seg[i];
        const float *t = tight + 6 * (size_t)k;
        for (int a = 0; a < 3; a++) {
            float ext = KD_GB_FSUB(t[3 + a], t[a]);
            if (!(ext > 0.0f))
                continue;
            float scale = KD_GB_FDIV((float)num_bins, ext);
            int b_lo = (int)KD_GB_FMUL(KD_GB_FSUB(refs.lo[a][i], t[a]), scale);
            int b_hi = (int)KD_GB_FMUL(KD_GB_FSUB(refs.hi[a][i], t[a]), scale);
            b_lo = b_lo < 0 ? 0 : (b_lo >= num_bins ? num_bins - 1 : b_lo);
            b_hi = b_hi < 0 ? 0 : (b_hi >= num_bins ? num_bins - 1 : b_hi);
            uint32_t *axis_bins = bins + ((size_t)(k - first_node) * 3 + a) * 2 * num_bins;
            kd_gb_atomic_add(axis_bins + b_lo, 1u);
            kd_gb_atomic_add(axis_bins + num_bins + b_hi, 1u);
        }
    }
};

struct kd_gb_choose_sah {
    const kd_gb_large_node *nodes;
    const float *tight;
    const uint32_t *bins;
    kd_gb_split_choice *choice;
    kd_gb_sah sah;
    int num_bins;
    int max_depth;
    int force_leaf;
    float empty_ratio;

    // Whether the empty slab below (upper = 0) or above the references on
    // axis a is wide enough to cut off; *pos gets its plane.
    __host__ __device__ bool empty_cut(const float *cell, const float *t, int a, int upper,
                                       float *pos) const
    {
        float min_gap = KD_GB_FMUL(empty_ratio, KD_GB_FSUB(cell[3 + a], cell[a]));
        *pos = upper ? nextafterf(t[3 + a], INFINITY) : nextafterf(t[a], -INFINITY);
        return upper ? KD_GB_FSUB(cell[3 + a], t[3 + a]) >= min_gap
                     : KD_GB_FSUB(t[a], cell[a]) >= min_gap;
    }

    // Bin boundary j (1..num_bins-1) of the tight box's extent ext on axis a.
    __host__ __device__ float boundary(const float *t, int a, float ext, int j) const
    {
        return KD_GB_FADD(t[a], KD_GB_FDIV(KD_GB_FMUL(ext, (float)j), (float)num_bins));
    }

    __host__ __device__ void consider(const float *cell, int a, float pos, uint32_t below,
                                      uint32_t above, float inv_area, float *best,
                                      kd_gb_split_choice *c) const
    {
        if (!(cell[a] < pos && pos < cell[3 + a]))
            return;
        float cost = kd_gb_split_cost(sah, cell, a, pos, below, above, inv_area);
        if (cost < *best) {
            *best = cost;
            c->axis = a;
            c->pos = KD_GB_FADD(pos, 0.0f);
        }
    }

    __host__ __device__ void operator()(uint32_t k) const
    {
        kd_gb_split_choice c;
        c.axis = -1;
        c.pos = 0.0f;
        const kd_gb_large_node &node = nodes[k];
        float area = kd_gb_box_area(node.cell);
        if (!force_leaf && (int)node.depth < max_depth && area > 0.0f) {
            float inv_area = KD_GB_FDIV(1.0f, area);
            const float *t = tight + 6 * (size_t)k;
            uint32_t n = node.ref_count;
            float best = INFINITY;
            for (int a = 0; a < 3; a++) {
                float ext = KD_GB_FSUB(t[3 + a], t[a]);
                if (!(ext > 0.0f))
                    continue;
                const uint32_t *lo_bins = bins + ((size_t)k * 3 + a) * 2 * num_bins;
                const uint32_t *hi_bins = lo_bins + num_bins;
                // The empty slabs outside the references first, then each
                // bin boundary: below counts bounds starting in lower bins,
                // above those not ending in them.
                float pos;
                if (empty_cut(node.cell, t, a, 0, &pos))
                    consider(node.cell, a, pos, 0, n, inv_area, &best, &c);
                if (empty_cut(node.cell, t, a, 1, &pos))
                    consider(node.cell, a, pos, n, 0, inv_area, &best, &c);
                uint32_t below = 0, above = n;
                for (int j = 1; j < num_bins; j++) {
                    below += lo_bins[j - 1];
                    above -= hi_bins[j - 1];
                    consider(node.cell, a, boundary(t, a, ext, j), below, above, inv_area, &best, &c);
                }
            }
        }
        choice[k] = c;
    }
};

// Each reference's side of its node's plane (all left for a leaf).
struct kd_gb_classify {
    kd_gb_refs refs;
    const kd_gb_split_choice *choice;
    uint8_t *sides;

    __host__ __device__ void operator()(uint32_t i) const
    {
        kd_gb_split_choice c = choice[refs.seg[i]];
        if (c.axis < 0) {
            sides[i] = (uint8_t)KD_SIDE_LEFT;
            return;
        }
        // The axis's arrays by selects: indexing refs.lo by a runtime axis
        // would copy the struct to local memory in every thread.
        const float *lo = kd_gb_pick3(c.axis, refs.lo[0], refs.lo[1], refs.lo[2]);
        const float *hi = kd_gb_pick3(c.axis, refs.hi[0], refs.hi[1], refs.hi[2]);
        sides[i] = kd_gb_side(lo[i], hi[i], c.pos);
    }
};

// What becomes of a split large node once the split's exact counts are known.
struct kd_gb_plan {
    int leaf;
    uint32_t n, num_left, num_right;
    uint32_t child_kind[2];
    uint32_t bad_refines;
    float child_allowance;
};


struct kd_gb_plan_params {
    kd_gb_sah sah;
    uint32_t small_threshold;
    uint32_t max_bad_refines;
};

KD_GB_HD kd_gb_plan kd_gb_plan_node(const kd_gb_large_node &node, kd_gb_split_choice c,
                                    uint32_t num_left, uint32_t num_right,
                                    const kd_gb_plan_params &pp)
{
    kd_gb_plan p;
    p.n = node.ref_count;
    p.num_left = num_left;
    p.num_right = num_right;
    p.bad_refines = node.bad_refines;
    p.child_allowance = kd_gb_child_allowance(node.allowance, node.ref_count, num_left, num_right);
    p.leaf = c.axis < 0 || p.child_allowance < 1.0f;
    if (!p.leaf && num_left == p.n && num_right == p.n)
        p.leaf = 1; // the plane cut nothing off: splitting again would only duplicate
    if (!p.leaf) {
        // pbrt's bad-refine rule, on the split's true cost.
        float area = kd_gb_box_area(node.cell);
        float cost = kd_gb_split_cost(pp.sah, node.cell, c.axis, c.pos, num_left, num_right,
                                      KD_GB_FDIV(1.0f, area));
        if (cost > KD_GB_FMUL(pp.sah.intersect, (float)p.n))
            p.bad_refines++;
        if (p.bad_refines >= pp.max_bad_refines)
            p.leaf = 1;
    }
    for (int side = 0; side < 2; side++) {
        uint32_t count = side ? num_right : num_left;
        p.child_kind[side] = p.leaf || count == 0 ? KD_GB_DEST_DROP
                             : count <= pp.small_threshold ? KD_GB_DEST_SMALL
                                                           : KD_GB_DEST_LARGE;
    }
    return p;
}

#endif
