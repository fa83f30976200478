/* The CPU reference builder: exact SAH with perfect splits, O(N log N)
 * (Wald & Havran 2006: split events sorted once and kept sorted).
 *
 * What it guarantees (the contract `scankd verify` checks):
 *  - every triangle that truly overlaps a leaf's CLOSED box is listed in that
 *    leaf: a triangle touching or lying in a split plane goes to every child
 *    whose closed box it touches. Straddlers are clipped to each child box
 *    (Sutherland-Hodgman, rounded outward), so their bounds are exact where
 *    they can be and never too small;
 *  - the split is the exact SAH optimum over every float plane strictly inside
 *    the node (cpu_build_internal.h says why the clipped-bound positions and
 *    their float neighbours are enough), ties to the lowest axis and position;
 *  - the same tree for any number of threads;
 *  - depth <= tree->max_depth (the cap: 8 + 1.3 floor(log2 N), rounded, or
 *    params->max_depth), and at most params->max_duplication x N references;
 *  - every subtree costs less (plain SAH) than the leaf its node would have
 *    been: one that does not, after pbrt's rules let its splits through,
 *    becomes that leaf (cpu_build_internal.h).
 * Stopping rules are pbrt-v4's (kd_build.h) plus the duplication bound. */
#ifndef KD_CPU_BUILD_H
#define KD_CPU_BUILD_H

#include <stddef.h>

#include "kd_build.h"

/* Builds a tree over mesh into *tree (freed with kd_tree_free). timing may be
 * NULL; it gets the phases events, sort, upper levels (built alone until the
 * nodes are small enough), subtrees (built in parallel) and assembly.
 * Fails with KD_ERR_INVALID on a non-finite coordinate, a vertex index out of
 * range or parameters out of range. */
kd_status kd_build_cpu(const kd_mesh *mesh, const kd_build_params *params, kd_tree *tree,
                       kd_build_timing *timing, kd_error *err);

/* The progress of a long build, called on the calling thread as leaves are
 * made: done of total (KD_BUILD_PROGRESS_TOTAL) counts the share of the mesh
 * under the leaves made so far, each split giving its children the parent's
 * share in proportion to their triangles. */
typedef void (*kd_build_progress_fn)(void *ctx, size_t done, size_t total);
#define KD_BUILD_PROGRESS_TOTAL ((size_t)1 << 30)

/* kd_build_cpu that reports its progress (progress may be NULL). */
kd_status kd_build_cpu_progress(const kd_mesh *mesh, const kd_build_params *params,
                                kd_build_progress_fn progress, void *progress_ctx, kd_tree *tree,
                                kd_build_timing *timing, kd_error *err);

/* Monotonic clock in milliseconds, for timing loads and builds. */
double kd_build_now_ms(void);

#endif
