/* Build parameters and per-build statistics shared by the CPU and GPU builders. */
#ifndef KD_BUILD_H
#define KD_BUILD_H

#include <stdint.h>

#include "kd_error.h"
#include "kd_mesh.h"
#include "kd_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SAH constants and termination rules; defaults as pbrt-v4. */
typedef struct kd_build_params {
    float traversal_cost;    /* 1 */
    float intersect_cost;    /* 5 */
    float empty_bonus;       /* 0.5 */
    float min_empty_fraction; /* beyond pbrt (0 is pbrt's rule): the empty bonus is granted only
                                when the empty side spans at least this share of the node's
                                extent along the split axis. Under pbrt's rule any empty cut,
                                however thin, beats a leaf of two or more triangles, so nodes
                                that cannot be separated shave slivers to the depth cap. */
    int max_depth;           /* < 0: 8 + 1.3 log2 N, rounded */
    int max_bad_refines;     /* 3 */
    int max_prims_in_leaf_for_cost_cutoff; /* 16: leaf when best cost > 4x leaf cost and fewer prims */
    float bad_cost_ratio;    /* 4 */
    int max_leaf_prims;      /* 1: a node with this many or fewer triangles is a leaf (pbrt maxPrims) */
    int num_threads;         /* <= 0: all cores (CPU builder) */
    float max_duplication;   /* 64: beyond pbrt, a bound on references: along any path the
                                product of the splits' (nL + nR) / n stays within it, so a
                                tree holds at most max_duplication x N references (flat or
                                heavily overlapping geometry would otherwise duplicate up to
                                the depth cap); <= 0: no bound */
} kd_build_params;

/* Chosen by measurement (README, "Tree quality"). */
#define KD_DEFAULT_MIN_EMPTY_FRACTION 0.1f

void kd_build_params_default(kd_build_params *params);

/* Whether the split of [lo, hi] at pos earns the empty bonus, given which side
 * is empty: the empty side must span min_empty_fraction of the extent. One
 * formula in float for both builders, so they apply the same rule. */
KD_HD int kd_empty_bonus_applies(float lo, float hi, float pos, int left_empty,
                                 float min_empty_fraction)
{
    float empty = left_empty ? pos - lo : hi - pos;
    return empty >= min_empty_fraction * (hi - lo); /* a product and a compare: nothing to fuse */
}

/* The depth cap a builder honours for num_triangles triangles. */
int kd_build_max_depth(const kd_build_params *params, uint32_t num_triangles);

/* Per-phase wall times of one build, milliseconds (0 where not applicable). */
enum { KD_BUILD_MAX_PHASES = 8 };
typedef struct kd_build_timing {
    int num_phases;
    const char *phase_names[KD_BUILD_MAX_PHASES];
    double phase_ms[KD_BUILD_MAX_PHASES];
    double total_ms;
} kd_build_timing;

#ifdef __cplusplus
}
#endif
#endif
