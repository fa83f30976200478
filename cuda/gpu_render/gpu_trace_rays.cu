// Caller rays on the device (gpu_trace_rays.h): the traversal of kd_trace.h,
// a thread per ray.
#include <cuda_runtime.h>

#include "cuda_status.h"
#include "gpu_trace_rays.h"

namespace {

enum { TRACE_THREADS = 256 };
// Blocks of one launch at most; a grid-stride loop covers any more rays.
const size_t k_max_blocks = (size_t)1 << 20;

__global__ void __launch_bounds__(TRACE_THREADS)
    trace_rays_kernel(kd_trace_scene scene, const kd_ray *rays, size_t num_rays, kd_trace_hit *hits)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < num_rays; i += stride) {
        kd_ray ray = rays[i];
        kd_trace_hit hit;
        kd_trace_counters counters = {0, 0, 0};
        kd_trace_closest(&scene, &ray, &hit, &counters);
        hits[i] = hit;
    }
}

// Whether the device can reach p: device, managed or mapped host memory.
bool device_accessible(const void *p)
{
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ||
           (attr.type == cudaMemoryTypeHost && attr.devicePointer != NULL);
}

kd_status launch(kd_gpu_scene *scene, const kd_ray *d_rays, size_t num_rays, kd_trace_hit *d_hits,
                 cudaStream_t stream, kd_error *err)
{
    kd_trace_scene view;
    KD_TRY(kd_gpu_scene_trace(scene, &view, err));
    size_t blocks = (num_rays + TRACE_THREADS - 1) / TRACE_THREADS;
    if (blocks > k_max_blocks)
        blocks = k_max_blocks;
    trace_rays_kernel<<<(unsigned)blocks, TRACE_THREADS, 0, stream>>>(view, d_rays, num_rays, d_hits);
    return kd_cuda_fail(err, cudaGetLastError(), "GPU trace", "trace kernel");
}

} // namespace

extern "C" kd_status kd_gpu_trace_rays(kd_gpu_scene *scene, const kd_ray *d_rays, size_t num_rays,
                                       kd_trace_hit *d_hits, cudaStream_t stream, kd_error *err)
{
    if (num_rays == 0)
        return KD_OK;
    if (!device_accessible(d_rays) || !device_accessible(d_hits))
        return kd_error_set(err, KD_ERR_INVALID,
                            "GPU trace: the %s array is not in memory the device can reach",
                            device_accessible(d_rays) ? "hits" : "rays");
    return launch(scene, d_rays, num_rays, d_hits, stream, err);
}

extern "C" kd_status kd_gpu_trace_rays_host(kd_gpu_scene *scene, const kd_ray *rays,
                                            size_t num_rays, kd_trace_hit *hits, kd_error *err)
{
    if (num_rays == 0)
        return KD_OK;
    size_t ray_bytes = num_rays * sizeof(kd_ray), hit_bytes = num_rays * sizeof(kd_trace_hit);
    // One allocation: the hits first, so both arrays keep their alignment.
    char *d_buf = NULL;
    cudaError_t code = cudaMalloc((void **)&d_buf, hit_bytes + ray_bytes);
    if (code == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return kd_error_set(err, KD_ERR_DEVICE_OOM, "GPU trace: no device memory for %zu rays",
                            num_rays);
    }
    KD_TRY(kd_cuda_fail(err, code, "GPU trace", "cudaMalloc"));
    kd_trace_hit *d_hits = (kd_trace_hit *)d_buf;
    kd_ray *d_rays = (kd_ray *)(d_buf + hit_bytes);
    kd_status st = kd_cuda_fail(err, cudaMemcpy(d_rays, rays, ray_bytes, cudaMemcpyHostToDevice),
                                "GPU trace", "copying the rays");
    if (st == KD_OK)
        st = launch(scene, d_rays, num_rays, d_hits, 0, err);
    if (st == KD_OK)
        st = kd_cuda_fail(err, cudaMemcpy(hits, d_hits, hit_bytes, cudaMemcpyDeviceToHost),
                          "GPU trace", "copying the hits back");
    cudaFree(d_buf);
    return st;
}
