/* Entry between the builder's C glue (src/gpu_build.c) and its CUDA stages.
 * The glue resolves the options against the mesh (the depth cap comes from
 * kd_build_max_depth in the host library), so the CUDA side never calls back
 * into the host library: scankd_gpu links after scankd_core. */
#ifndef KD_GPU_BUILD_INTERNAL_H
#define KD_GPU_BUILD_INTERNAL_H

#include "gpu_build.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of triangles of the builder's current mesh (0 when none is set). */
uint32_t kd_gb_num_triangles(const kd_gpu_builder *builder);

/* kd_gpu_builder_build with opts->params.max_depth already resolved (>= 0)
 * and every option checked. */
kd_status kd_gb_build_resolved(kd_gpu_builder *builder, const kd_gpu_build_options *opts,
                               kd_gpu_build_profile *profile, kd_error *err);

/* One of the builder's buffers (a reference set's arrays together) and the
 * bytes it held at the last build's peak. */
typedef struct kd_gb_buffer_bytes {
    const char *name;
    size_t bytes;
} kd_gb_buffer_bytes;

/* The buffers at the last build's peak, largest first, at most max of them
 * (where the bytes go, for the memory tests and tools); returns how many. */
size_t kd_gb_peak_buffers(const kd_gpu_builder *builder, kd_gb_buffer_bytes *out, size_t max);

#ifdef __cplusplus
}
#endif
#endif
