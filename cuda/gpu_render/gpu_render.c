/* Host-side glue of the GPU ray caster (kernels/gpu_render.h): the checks
 * and the per-pixel buffers, filled as kd_render_cpu fills them (the shading
 * term on the host, with the CPU caster's own function, from the hit). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "gpu_render.h"

kd_status kd_gpu_scene_upload(kd_gpu_scene **out, const kd_tree *tree, const float *tri_verts,
                              uint32_t num_triangles, kd_error *err)
{
    *out = NULL;
    kd_trace_scene view;
    kd_status st = kd_trace_scene_init(&view, tree, tri_verts, num_triangles, err);
    if (st != KD_OK)
        return st;
    return kd_gr_scene_make(out, &view, tree->num_leaf_indices, 1, err);
}

kd_status kd_gpu_scene_from_builder(kd_gpu_scene **out, const kd_gpu_builder *builder,
                                    kd_error *err)
{
    *out = NULL;
    kd_gpu_tree_view tv;
    kd_status st = kd_gpu_builder_tree_view(builder, &tv, err);
    if (st != KD_OK)
        return st;
    if (tv.max_depth + 1 > KD_TRACE_STACK_SIZE)
        return kd_error_set(err, KD_ERR_INVALID,
                            "GPU render: a depth cap of %u is more than the traversal stack's %d",
                            tv.max_depth, KD_TRACE_STACK_SIZE);
    kd_trace_scene view;
    memset(&view, 0, sizeof view);
    view.nodes = tv.nodes;
    view.leaf_indices = tv.leaf_indices;
    view.tri_verts = tv.tri_verts;
    view.num_nodes = tv.num_nodes;
    view.num_triangles = tv.num_triangles;
    view.bounds = tv.bounds;
    return kd_gr_scene_make(out, &view, tv.num_leaf_indices, 0, err);
}

kd_status kd_gpu_render(kd_gpu_scene *scene, const kd_camera *cam, int repeats,
                        kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err)
{
    const kd_gpu_render_options options = {repeats, KD_RAYS_PRIMARY, 0, 1};
    return kd_gpu_render_with(scene, cam, &options, buf, stats, err);
}

/* The shading term of each hit pixel, with the CPU caster's own function;
 * the triangles are fetched from the device once for it. */
static kd_status shade_pixels(kd_gpu_scene *scene, const kd_camera *cam, kd_render_buffers *buf, kd_error *err)
{
    kd_trace_scene view;
    kd_gpu_scene_trace(scene, &view, err);
    float *tri_verts = malloc(((size_t)view.num_triangles + 1) * 9 * sizeof *tri_verts);
    if (!tri_verts)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
    if (view.num_triangles &&
        cudaMemcpy(tri_verts, view.tri_verts, (size_t)view.num_triangles * 9 * sizeof(float),
                   cudaMemcpyDeviceToHost) != cudaSuccess) {
        (void)cudaGetLastError();
        free(tri_verts);
        return kd_error_set(err, KD_ERR_CUDA, "GPU render: reading the triangles back failed");
    }
    const size_t pixels = (size_t)cam->width * (size_t)cam->height;
    for (size_t p = 0; p < pixels; p++) {
        if (buf->tri[p] != KD_TRACE_NO_HIT) {
            int x = (int)(p % (size_t)cam->width), y = (int)(p / (size_t)cam->width);
            kd_ray ray = kd_camera_ray(cam, x, y);
            buf->shade[p] = kd_trace_shade(tri_verts, buf->tri[p], ray.dir);
        } else {
            buf->depth[p] = INFINITY;
            buf->shade[p] = KD_SHADE_MISS;
        }
    }
    free(tri_verts);
    return KD_OK;
}

kd_status kd_gpu_render_with(kd_gpu_scene *scene, const kd_camera *cam, const kd_gpu_render_options *options,
                             kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err)
{
    if (!buf)
        return kd_gpu_render_raw_run(scene, cam, options, NULL, stats, err);
    if (buf->width != cam->width || buf->height != cam->height)
        return kd_error_set(err, KD_ERR_INVALID, "GPU render: buffers are %dx%d, camera %dx%d", buf->width,
                            buf->height, cam->width, cam->height);
    const size_t pixels = (size_t)cam->width * (size_t)cam->height;
    const bool diffuse = options->rays == KD_RAYS_DIFFUSE;
    kd_gpu_render_raw raw = {buf->tri, buf->depth, malloc(pixels * sizeof *raw.steps),
                             malloc(pixels * sizeof *raw.tests), diffuse ? buf->bounce_tri : NULL,
                             diffuse ? buf->bounce_t : NULL};
    kd_status st = raw.steps && raw.tests ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
    if (!st)
        st = kd_gpu_render_raw_run(scene, cam, options, &raw, stats, err);
    for (size_t p = 0; !st && p < pixels; p++) {
        buf->steps[p] = (float)raw.steps[p];
        buf->tests[p] = (float)raw.tests[p];
        if (!diffuse) {
            buf->bounce_tri[p] = KD_TRACE_NO_HIT;
            buf->bounce_t[p] = INFINITY;
        }
    }
    if (!st)
        st = shade_pixels(scene, cam, buf, err);
    free(raw.steps);
    free(raw.tests);
    return st;
}
