// Subtrees that do not pay become leaves: the CPU builder's rule
// (src/cpu_build/cpu_build_internal.h, kd_subtree_pays) applied to the
// small stage's subtrees once the node pool is complete, before the output
// stage orders it (gpu_build_collapse.cu says how).
#ifndef KD_GPU_BUILD_COLLAPSE_CUH
#define KD_GPU_BUILD_COLLAPSE_CUH

#include "gpu_build_common.cuh"

// A pool slot under a node that became a leaf: no node of the tree (the
// output stage neither sizes nor places it).
enum { KD_GB_POOL_DROPPED = 5 };

// Decides and applies the rule over the small stage's slots. The three
// arrays (a word of each per pool slot) are the output stage's scratch,
// which it writes anew afterwards; on return a subtree that did not pay is
// a mask leaf of its leaves' references and the slots below it are
// KD_GB_POOL_DROPPED.
kd_status kd_gb_collapse(kd_gpu_builder *b, const kd_gb_build_state *s, double *cost,
                         unsigned long long *members, uint32_t *verdict, kd_error *err);

#endif
