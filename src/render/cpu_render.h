/* The CPU ray caster: primary rays from a pinhole camera through a kd-tree on
 * all cores, into per-pixel buffers that colormap.h turns into images. */
#ifndef KD_CPU_RENDER_H
#define KD_CPU_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "bounce.h"
#include "camera.h"
#include "kd_mesh.h"
#include "kd_trace.h"
#include "kd_tree.h"

/* Per-triangle vertex positions for the watertight test (9 floats each,
 * gathered from the mesh once so the inner loop needs no index lookups).
 * *tri_verts is malloc'ed; free() it. */
kd_status kd_trace_gather_vertices(const kd_mesh *mesh, float **tri_verts, kd_error *err);

/* Checks everything a traversal relies on to stay in bounds (the triangle
 * count, then kd_tree_check_structure: child and leaf ranges, triangle
 * indices, a depth within the cap, which fits the fixed stack).
 * O(nodes + references). Fills *scene on success. */
kd_status kd_trace_scene_init(kd_trace_scene *scene, const kd_tree *tree, const float *tri_verts,
                              uint32_t num_triangles, kd_error *err);

/* Per-pixel results, row-major, row 0 at the top (w * h entries each). */
typedef struct kd_render_buffers {
    int width, height;
    float *depth;   /* hit distance along the unit ray; INFINITY on a miss */
    float *shade;   /* |cos| between ray and geometric normal; KD_SHADE_MISS (-1) on a miss */
    float *steps;   /* traversal steps (nodes visited) */
    float *tests;   /* ray-triangle tests */
    uint32_t *tri;  /* triangle hit, KD_TRACE_NO_HIT on a miss */
    /* Diffuse rays (KD_RAYS_DIFFUSE): the bounce ray's hit triangle and
     * distance, KD_TRACE_NO_HIT and INFINITY where it missed or none was cast
     * (the primary ray missed); steps and tests then count the bounce rays'
     * work, 0 where none was cast, while depth and shade stay the primary's. */
    uint32_t *bounce_tri;
    float *bounce_t;
} kd_render_buffers;

kd_status kd_render_buffers_alloc(kd_render_buffers *buf, int width, int height, kd_error *err);
void kd_render_buffers_free(kd_render_buffers *buf);

/* Called on the calling thread only, after each finished chunk of work;
 * done and total count square tiles of the image. */
typedef void (*kd_render_progress_fn)(void *ctx, size_t done, size_t total);

typedef struct kd_render_options {
    int num_threads;                 /* <= 0: all cores */
    kd_render_progress_fn progress;  /* may be NULL */
    void *progress_ctx;
    kd_ray_kind rays;                /* 0: primary rays only */
    uint32_t seed;                   /* of the diffuse bounces (bounce.h) */
} kd_render_options;

typedef struct kd_render_stats {
    uint64_t num_rays, num_hits;
    uint64_t total_steps, total_tests;
    double seconds;                  /* wall time of the ray casting alone */
    double rays_per_second;
    /* Diffuse bounces (zero for primary rays): cast from every primary hit
     * on a triangle that is not degenerate, timed apart from the primaries. */
    uint64_t num_bounce_rays, num_bounce_hits;
    uint64_t bounce_steps, bounce_tests;
    double bounce_seconds;
    double bounce_rays_per_second;   /* bounce rays cast / bounce_seconds */
} kd_render_stats;

/* Casts one primary ray per pixel of cam through scene into buf (sized as
 * the camera), on all cores in 16x16-pixel tiles; with options->rays
 * KD_RAYS_DIFFUSE, then one bounce ray per primary hit (kd_bounce_ray with
 * options->seed and the pixel's row-major index), in a second timed pass.
 * Fails only on a traversal stack overflow, which kd_trace_scene_init rules
 * out, or for lack of memory. */
kd_status kd_render_cpu(const kd_trace_scene *scene, const kd_camera *cam,
                        const kd_render_options *options, kd_render_buffers *buf,
                        kd_render_stats *stats, kd_error *err);

/* The bounce rays (kd_bounce_ray) of n primary rays whose closest hits are
 * hits, ray i standing for pixel pixel[i] (pixel NULL: pixel i): one for
 * each hit on a triangle that is not degenerate, in ray order. *bounces and
 * *from (the primary ray index of each) are malloc'ed; free() them. */
kd_status kd_bounce_rays_make(const float *tri_verts, const kd_ray *rays, const kd_trace_hit *hits,
                              const uint32_t *pixel, size_t n, uint32_t seed, kd_ray **bounces,
                              uint32_t **from, size_t *count, kd_error *err);

/* |cos| between the unit direction dir and the normal of triangle tri. */
float kd_trace_shade(const float *tri_verts, uint32_t tri, const float dir[3]);

/* Wall-clock seconds from a monotonic clock. */
double kd_render_now(void);

#endif
