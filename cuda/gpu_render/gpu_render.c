/* Host-side glue of the GPU ray caster (kernels/gpu_render.h): the checks
 * and the per-pixel buffers, filled as kd_render_cpu fills them (the shading
 * term on the host, with the CPU caster's own function, from the hit). */
#include <math.h>
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
    kd_gpu_render_raw raw;
    memset(&raw, 0, sizeof raw);
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    if (buf) {
        if (buf->width != cam->width || buf->height != cam->height)
            return kd_error_set(err, KD_ERR_INVALID, "GPU render: buffers are %dx%d, camera %dx%d",
                                buf->width, buf->height, cam->width, cam->height);
        raw.tri = buf->tri;
        raw.t = buf->depth;
        raw.steps = malloc(pixels * sizeof *raw.steps);
        raw.tests = malloc(pixels * sizeof *raw.tests);
        if (!raw.steps || !raw.tests) {
            free(raw.steps);
            free(raw.tests);
            return kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
        }
    }
    kd_status st = kd_gpu_render_raw_run(scene, cam, repeats, buf ? &raw : NULL, stats, err);
    if (st == KD_OK && buf) {
        kd_trace_scene view;
        float *tri_verts = NULL;
        kd_gpu_scene_trace(scene, &view, err);
        /* The shading term needs the triangles on the host: fetch them once. */
        tri_verts = malloc(((size_t)view.num_triangles + 1) * 9 * sizeof *tri_verts);
        if (!tri_verts)
            st = kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
        if (st == KD_OK && view.num_triangles &&
            cudaMemcpy(tri_verts, view.tri_verts, (size_t)view.num_triangles * 9 * sizeof(float),
                       cudaMemcpyDeviceToHost) != cudaSuccess) {
            (void)cudaGetLastError();
            st = kd_error_set(err, KD_ERR_CUDA, "GPU render: reading the triangles back failed");
        }
        for (size_t p = 0; st == KD_OK && p < pixels; p++) {
            buf->steps[p] = (float)raw.steps[p];
            buf->tests[p] = (float)raw.tests[p];
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
    }
    free(raw.steps);
    free(raw.tests);
    return st;
}
