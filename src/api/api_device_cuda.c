/* The API's CUDA side (api_device.h): the GPU builder and the GPU ray caster. */
#include <stdlib.h>

#include "api_device.h"
#include "cuda_status.h"
#include "gpu_build.h"
#include "gpu_render.h"
#include "gpu_trace_rays.h"

_Static_assert((int)SCANKD_SMALL_NODE_MAX == (int)KD_GPU_SMALL_NODE_MAX,
               "the public small-node limit is the GPU builder's");

struct kd_api_gpu {
    kd_gpu_scene *scene;
};

int kd_api_device_count(void)
{
    return kd_cuda_device_count();
}

/* The GPU builder's options from the API's. */
static void gpu_options(const scankd_build_options *opts, kd_gpu_build_options *o)
{
    kd_gpu_build_options_default(o);
    o->params = opts->params;
    o->large_split = opts->large_split == SCANKD_LARGE_SPLIT_MEDIAN ? KD_LARGE_SPLIT_MEDIAN : KD_LARGE_SPLIT_SAH;
    o->small_node_threshold = opts->small_node_threshold;
    o->sah_bins = opts->sah_bins;
    o->max_refs_per_triangle = opts->max_refs_per_triangle;
    o->empty_space_ratio = opts->empty_space_ratio;
    o->max_device_bytes = (size_t)opts->max_device_bytes;
}

kd_status kd_api_warm_up(const scankd_build_options *opts, kd_error *err)
{
    if (kd_api_device_count() == 0)
        return KD_OK;
    if (!opts)
        return kd_gpu_build_warm_up(NULL, err);
    kd_gpu_build_options o;
    gpu_options(opts, &o);
    return kd_gpu_build_warm_up(&o, err);
}

kd_status kd_api_build_gpu(const kd_mesh *mesh, const scankd_build_options *opts, kd_tree *tree,
                           kd_error *err)
{
    kd_gpu_build_options o;
    gpu_options(opts, &o);
    return kd_build_gpu(mesh, &o, tree, NULL, err);
}

kd_status kd_api_gpu_upload(kd_api_gpu **out, const kd_tree *tree, const float *tri_verts,
                            kd_error *err)
{
    *out = NULL;
    kd_api_gpu *gpu = calloc(1, sizeof *gpu);
    if (!gpu)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU trace: out of host memory");
    kd_status st = kd_gpu_scene_upload(&gpu->scene, tree, tri_verts, tree->num_triangles, err);
    if (st != KD_OK) {
        free(gpu);
        return st;
    }
    *out = gpu;
    return KD_OK;
}

void kd_api_gpu_release(kd_api_gpu *gpu)
{
    if (!gpu)
        return;
    kd_gpu_scene_destroy(gpu->scene);
    free(gpu);
}

kd_status kd_api_gpu_trace(kd_api_gpu *gpu, const kd_ray *rays, size_t num_rays, kd_trace_hit *hits,
                           int device_arrays, void *stream, kd_error *err)
{
    if (device_arrays)
        return kd_gpu_trace_rays(gpu->scene, rays, num_rays, hits, (cudaStream_t)stream, err);
    return kd_gpu_trace_rays_host(gpu->scene, rays, num_rays, hits, err);
}
