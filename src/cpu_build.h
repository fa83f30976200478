/* The CPU reference builder: exact SAH with perfect splits, O(N log N)
 * (Wald & Havran 2006: split events sorted once and kept sorted). */
#ifndef KD_CPU_BUILD_H
#define KD_CPU_BUILD_H

#include "kd_build.h"

/* Builds a tree over mesh into *tree (freed with kd_tree_free). timing may be NULL. */
kd_status kd_build_cpu(const kd_mesh *mesh, const kd_build_params *params, kd_tree *tree,
                       kd_build_timing *timing, kd_error *err);

/* Monotonic clock in milliseconds, for timing loads and builds. */
double kd_build_now_ms(void);

#endif
