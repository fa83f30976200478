/* The GPU ray caster: one thread per primary ray, the CPU ray caster's camera
 * rays (bit for bit) and its traversal and watertight test (kd_trace.h), so
 * GPU and CPU hits agree pixel for pixel on the same tree. Fills the same
 * per-pixel buffers as kd_render_cpu (cpu_render.h), so the same images come
 * out, and reports rays per second of kernel time. */
#ifndef KD_GPU_RENDER_H
#define KD_GPU_RENDER_H

#include <stdint.h>

#include "bounce.h"
#include "camera.h"
#include "cpu_render.h"
#include "gpu_build.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tree and its triangles in device memory. */
typedef struct kd_gpu_scene kd_gpu_scene;

/* Uploads a host tree and its triangles (9 floats each, as
 * kd_trace_gather_vertices gives). Checks the tree as kd_trace_scene_init does. */
kd_status kd_gpu_scene_upload(kd_gpu_scene **out, const kd_tree *tree, const float *tri_verts,
                              uint32_t num_triangles, kd_error *err);

/* Borrows the tree a GPU builder just built (no copy; valid until the
 * builder builds again or is destroyed). */
kd_status kd_gpu_scene_from_builder(kd_gpu_scene **out, const kd_gpu_builder *builder,
                                    kd_error *err);

void kd_gpu_scene_destroy(kd_gpu_scene *scene);

typedef struct kd_gpu_render_stats {
    uint64_t num_rays, num_hits;
    uint64_t total_steps, total_tests;
    double kernel_ms;          /* median over the timed launches (CUDA events) */
    double kernel_ms_min;
    double rays_per_second;    /* num_rays / median kernel time */
    int num_launches;
    /* Diffuse bounces (zero for primary rays), timed by their own kernel. */
    uint64_t num_bounce_rays, num_bounce_hits;
    uint64_t bounce_steps, bounce_tests;
    double bounce_kernel_ms, bounce_kernel_ms_min;
    double bounce_rays_per_second;   /* bounce rays cast / median bounce kernel time */
} kd_gpu_render_stats;

/* What kd_gpu_render_with casts. */
typedef struct kd_gpu_render_options {
    int repeats;        /* timed launches, >= 1 (one warm-up launch first when > 1) */
    kd_ray_kind rays;   /* KD_RAYS_DIFFUSE: then one bounce per primary hit, a second kernel */
    uint32_t seed;      /* of the bounces (bounce.h) */
    int counters;       /* 1: count steps and tests per pixel (the heat maps); 0: kernels that
                           write the hit triangle and distance alone, to time the traversal */
} kd_gpu_render_options;

/* Casts one primary ray per pixel of cam. repeats >= 1 timed launches (one
 * warm-up launch first when repeats > 1). buf (may be NULL: timing only)
 * must be allocated for the camera's size; it receives what kd_render_cpu
 * writes. Fails on a traversal stack overflow (the tree is too deep). */
kd_status kd_gpu_render(kd_gpu_scene *scene, const kd_camera *cam, int repeats,
                        kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err);

/* kd_gpu_render with the ray kind and counters chosen: buf receives what
 * kd_render_cpu writes with the same kind and seed (steps and tests only
 * with options->counters; else 0). */
kd_status kd_gpu_render_with(kd_gpu_scene *scene, const kd_camera *cam, const kd_gpu_render_options *options,
                             kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err);

/* ---- Lower level (kernels/gpu_render.cu; kd_gpu_render wraps it) --------- */
/* Per-pixel raw results on the host: triangle hit, distance, counters (of
 * the bounce rays with diffuse rays, as kd_render_buffers), and the bounce
 * rays' hit triangle and distance (NULL unless diffuse). */
typedef struct kd_gpu_render_raw {
    uint32_t *tri;
    float *t;
    uint32_t *steps;
    uint32_t *tests;
    uint32_t *bounce_tri;
    float *bounce_t;
} kd_gpu_render_raw;

/* A scene over kd_trace_scene arrays: upload = 1 copies host arrays to the
 * device (num_leaf_indices of them), 0 borrows device arrays. No checks:
 * kd_gpu_scene_upload and kd_gpu_scene_from_builder check first. */
kd_status kd_gr_scene_make(kd_gpu_scene **out, const kd_trace_scene *src,
                           uint32_t num_leaf_indices, int upload, kd_error *err);

/* The traced scene as kd_trace_closest sees it, with device pointers. */
kd_status kd_gpu_scene_trace(kd_gpu_scene *scene, kd_trace_scene *view, kd_error *err);

/* raw may be NULL; its arrays hold width * height entries. */
kd_status kd_gpu_render_raw_run(kd_gpu_scene *scene, const kd_camera *cam,
                                const kd_gpu_render_options *options, kd_gpu_render_raw *raw,
                                kd_gpu_render_stats *stats, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
