/* The API without its CUDA side (api_device.h): no device, ever. The CPU
 * tests link this, so that they run without the CUDA runtime. */
#include "api_device.h"

int kd_api_device_count(void)
{
    return 0;
}

kd_status kd_api_warm_up(const scankd_build_options *opts, kd_error *err)
{
    (void)opts, (void)err;
    return KD_OK; /* no device, nothing to load */
}

static kd_status no_backend(kd_error *err)
{
    return kd_error_set(err, KD_ERR_UNSUPPORTED, "this scankd library has no CUDA backend");
}

kd_status kd_api_build_gpu(const kd_mesh *mesh, const scankd_build_options *opts, kd_tree *tree,
                           kd_error *err)
{
    (void)mesh, (void)opts, (void)tree;
    return no_backend(err);
}

kd_status kd_api_gpu_upload(kd_api_gpu **out, const kd_tree *tree, const float *tri_verts,
                            kd_error *err)
{
    (void)tree, (void)tri_verts;
    *out = NULL;
    return no_backend(err);
}

void kd_api_gpu_release(kd_api_gpu *gpu)
{
    (void)gpu;
}

kd_status kd_api_gpu_trace(kd_api_gpu *gpu, const kd_ray *rays, size_t num_rays, kd_trace_hit *hits,
                           int device_arrays, void *stream, kd_error *err)
{
    (void)gpu, (void)rays, (void)num_rays, (void)hits, (void)device_arrays, (void)stream;
    return no_backend(err);
}
