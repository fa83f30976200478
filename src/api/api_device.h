/* The CUDA side of the public API behind one small interface, so that the
 * API's host half links without the CUDA runtime: libscankd pairs it with
 * api_device_cuda.c (the GPU builder and ray caster), and the CPU tests with
 * api_device_none.c (no device, ever). */
#ifndef KD_API_DEVICE_H
#define KD_API_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "kd_trace.h"
#include "scankd.h"

/* A scene's tree and triangles on the device. */
typedef struct kd_api_gpu kd_api_gpu;

/* Usable CUDA devices (0 without a backend). */
int kd_api_device_count(void);

/* The GPU builder's kernels loaded for builds with opts (scankd_warm_up). */
kd_status kd_api_warm_up(const scankd_build_options *opts, kd_error *err);

/* Builds with the GPU builder from opts (already checked). */
kd_status kd_api_build_gpu(const kd_mesh *mesh, const scankd_build_options *opts, kd_tree *tree,
                           kd_error *err);

/* Uploads a checked tree and its triangles (9 floats each). */
kd_status kd_api_gpu_upload(kd_api_gpu **out, const kd_tree *tree, const float *tri_verts,
                            kd_error *err);
void kd_api_gpu_release(kd_api_gpu *gpu);

/* Closest hits of rays on the device: host arrays (stream unused; returns
 * when the hits are back), or device arrays (enqueued on stream). */
kd_status kd_api_gpu_trace(kd_api_gpu *gpu, const kd_ray *rays, size_t num_rays, kd_trace_hit *hits,
                           int device_arrays, void *stream, kd_error *err);

#endif
