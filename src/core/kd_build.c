#include "kd_build.h"

#include <math.h>

void kd_build_params_default(kd_build_params *params)
{
    /* pbrt-v4's KdTreeAggregate defaults. */
    params->traversal_cost = 1.0f;
    params->intersect_cost = 5.0f;
    params->empty_bonus = 0.5f;
    params->min_empty_fraction = KD_DEFAULT_MIN_EMPTY_FRACTION;
    params->max_depth = -1;
    params->max_bad_refines = 3;
    params->max_prims_in_leaf_for_cost_cutoff = 16;
    params->bad_cost_ratio = 4.0f;
    params->max_leaf_prims = 1;
    params->num_threads = 0;
    params->max_duplication = 64.0f;
}

int kd_build_max_depth(const kd_build_params *params, uint32_t num_triangles)
{
    if (params && params->max_depth >= 0)
        return params->max_depth > (int)KD_TREE_DEPTH_LIMIT ? (int)KD_TREE_DEPTH_LIMIT
                                                            : params->max_depth;
    /* pbrt: round(8 + 1.3 * floor(log2 N)). */
    int log2n = 0;
    for (uint32_t n = num_triangles; n > 1; n >>= 1)
        log2n++;
    return (int)lroundf(8.0f + 1.3f * (float)log2n);
}
