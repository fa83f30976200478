// Subtrees that do not pay become leaves: the CPU builder's rule
// (src/cpu_build/cpu_build_internal.h, kd_subtree_pays) applied to the
// small stage's subtrees once the node pool is complete, before the output
// stage orders it (gpu_build_collapse.cu says how). The small stage leaves
// in each node's record what the rule needs of its box (its area); the
// output stage skips what the rule dropped.
#ifndef KD_GPU_BUILD_COLLAPSE_CUH
#define KD_GPU_BUILD_COLLAPSE_CUH

#include <string.h>

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh" // KD_GB_HD, the steps without contraction

// A mask leaf made of a small-stage subtree that did not pay (a: its small
// root, mask: its references). Its old children, slots b and b + 1, and the
// slots under them are no nodes of the tree: the output stage neither sizes
// nor places them.
enum { KD_GB_POOL_LEAF_COLLAPSED = 5 };

// A box's surface area in doubles, in round-to-nearest steps without
// contraction, so that the device and the host emulation weigh alike.
KD_GB_HD double kd_gb_collapse_area(const float *c)
{
    const double dx = KD_GB_DSUB((double)c[3], (double)c[0]);
    const double dy = KD_GB_DSUB((double)c[4], (double)c[1]);
    const double dz = KD_GB_DSUB((double)c[5], (double)c[2]);
    return KD_GB_DMUL(2.0, KD_GB_DADD(KD_GB_DADD(KD_GB_DMUL(dx, dy), KD_GB_DMUL(dx, dz)), KD_GB_DMUL(dy, dz)));
}

// A small-stage node's box area in its pool record, in fields the record
// has no other use for: an interior node's mask; a mask leaf's split (the
// high half: a float that is never a signalling NaN for any area a float
// box has) and b (the low half).
KD_GB_HD void kd_gb_pool_set_area(kd_gb_pool_node *n, double area)
{
    unsigned long long bits;
    memcpy(&bits, &area, sizeof bits);
    if (n->kind < 3) {
        n->mask = bits;
    } else {
        const uint32_t hi = (uint32_t)(bits >> 32);
        memcpy(&n->split, &hi, sizeof hi);
        n->b = (uint32_t)bits;
    }
}

KD_GB_HD double kd_gb_pool_area(const kd_gb_pool_node &n)
{
    unsigned long long bits = n.mask;
    if (n.kind >= 3) {
        uint32_t hi;
        memcpy(&hi, &n.split, sizeof hi);
        bits = (unsigned long long)hi << 32 | n.b;
    }
    double area;
    memcpy(&area, &bits, sizeof area);
    return area;
}

// Whether slot i lies under a subtree that became a leaf, with `parent`
// its parent's record: a collapsed leaf that names i as an old child.
// (A slot further down has a dropped interior node as its parent, which
// still names it: it is sized like any other, but never placed.)
KD_GB_HD int kd_gb_dropped_child(const kd_gb_pool_node &parent, uint32_t i)
{
    return parent.kind == KD_GB_POOL_LEAF_COLLAPSED && (i == parent.b || i == parent.b + 1u);
}

// Decides and applies the rule over the small stage's slots, from the
// leaves up, a launch per KD_GB_COLLAPSE_WAVES of its waves. The four arrays
// (a word of each per pool slot, `stored` 32-bit; what they hold before
// does not matter) are the output stage's scratch, which it writes anew
// afterwards; on return a subtree that did not pay is a
// KD_GB_POOL_LEAF_COLLAPSED leaf of its leaves' references.
kd_status kd_gb_collapse(kd_gpu_builder *b, const kd_gb_build_state *s, double *cost, unsigned long long *members,
                         double *area, uint32_t *stored, kd_error *err);

#endif
