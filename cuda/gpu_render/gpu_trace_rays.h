/* Closest hits of an array of caller rays on the device: a thread per ray
 * through the shared traversal (kd_trace_closest), for callers that bring
 * their own rays rather than a camera (the public API's scankd_trace_gpu*). */
#ifndef KD_GPU_TRACE_RAYS_H
#define KD_GPU_TRACE_RAYS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "gpu_render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues one kernel on stream that writes d_hits[i] for d_rays[i]. Both
 * arrays must be device-accessible (device, managed or mapped memory:
 * KD_ERR_INVALID otherwise); they are not read on the host. The scene's
 * depth was checked when it was made, so the traversal stack cannot
 * overflow. num_rays 0 enqueues nothing. */
kd_status kd_gpu_trace_rays(kd_gpu_scene *scene, const kd_ray *d_rays, size_t num_rays,
                            kd_trace_hit *d_hits, cudaStream_t stream, kd_error *err);

/* The same for host arrays: copies the rays over, traces and copies the
 * hits back; returns when they are in place. */
kd_status kd_gpu_trace_rays_host(kd_gpu_scene *scene, const kd_ray *rays, size_t num_rays,
                                 kd_trace_hit *hits, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
