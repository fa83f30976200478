/* Tracing caller rays for the public API: host arrays on the CPU's cores or
 * on the GPU, device arrays on a caller's stream. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "api_internal.h"
#include "kd_parallel.h"

/* The public ray and hit are the traversal's own, field for field, so that
 * arrays pass to the device as they are. */
_Static_assert(sizeof(scankd_ray) == sizeof(kd_ray) &&
                   offsetof(scankd_ray, dir) == offsetof(kd_ray, dir) &&
                   offsetof(scankd_ray, t_max) == offsetof(kd_ray, t_max),
               "scankd_ray must match kd_ray");
_Static_assert(sizeof(scankd_hit) == sizeof(kd_trace_hit) &&
                   offsetof(scankd_hit, t) == offsetof(kd_trace_hit, t) &&
                   offsetof(scankd_hit, b1) == offsetof(kd_trace_hit, b1) &&
                   offsetof(scankd_hit, b2) == offsetof(kd_trace_hit, b2),
               "scankd_hit must match kd_trace_hit");
_Static_assert(SCANKD_NO_HIT == KD_TRACE_NO_HIT, "the miss marks must agree");

/* Rays per chunk of the CPU's parallel loop. */
enum { TRACE_CHUNK = 1024 };

/* The arguments every trace function checks. */
static kd_status check_args(const char *who, const scankd_scene *scene, const void *rays,
                            size_t num_rays, const void *hits, kd_error *err)
{
    if (!scene)
        return kd_error_set(err, KD_ERR_INVALID, "%s: scene is NULL", who);
    if (num_rays > SIZE_MAX / 64)
        return kd_error_set(err, KD_ERR_INVALID, "%s: %zu rays are too many to address", who,
                            num_rays);
    if (num_rays > 0 && (!rays || !hits))
        return kd_error_set(err, KD_ERR_INVALID, "%s: the %s array is NULL", who,
                            rays ? "hits" : "rays");
    return KD_OK;
}

static bool finite3(const float *v)
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

/* Every host ray must be valid (scankd.h, "A ray is valid when"). */
static kd_status check_rays(const char *who, const scankd_ray *rays, size_t num_rays,
                            kd_error *err)
{
    for (size_t i = 0; i < num_rays; i++) {
        const scankd_ray *r = &rays[i];
        const char *why = NULL;
        if (!finite3(r->org))
            why = "its origin is not finite";
        else if (!finite3(r->dir))
            why = "its direction is not finite";
        else if (r->dir[0] == 0.0f && r->dir[1] == 0.0f && r->dir[2] == 0.0f)
            why = "its direction is zero";
        else if (isnan(r->t_max))
            why = "its t_max is NaN";
        if (why)
            return kd_error_set(err, KD_ERR_INVALID, "%s: ray %zu is invalid: %s", who, i, why);
    }
    return KD_OK;
}

typedef struct trace_job {
    const kd_trace_scene *scene;
    const scankd_ray *rays;
    scankd_hit *hits;
} trace_job;

static void trace_range(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const trace_job *job = ctx;
    for (size_t i = begin; i < end; i++) {
        kd_ray ray;
        kd_trace_hit hit;
        kd_trace_counters counters = {0, 0, 0};
        memcpy(&ray, &job->rays[i], sizeof ray);
        kd_trace_closest(job->scene, &ray, &hit, &counters);
        memcpy(&job->hits[i], &hit, sizeof hit);
    }
}

kd_status scankd_trace_cpu(const scankd_scene *scene, const scankd_ray *rays, size_t num_rays,
                           scankd_hit *hits, kd_error *err)
{
    static const char *const who = "scankd_trace_cpu";
    KD_TRY(check_args(who, scene, rays, num_rays, hits, err));
    KD_TRY(check_rays(who, rays, num_rays, err));
    trace_job job = {&scene->trace, rays, hits};
    kd_parallel_for(num_rays, TRACE_CHUNK, 0, trace_range, &job);
    return KD_OK;
}

/* The scene's device copy, uploaded on first use. */
static kd_status ensure_gpu(const char *who, scankd_scene *scene, kd_error *err)
{
    if (scene->gpu)
        return KD_OK;
    if (kd_api_device_count() == 0)
        return kd_error_set(err, KD_ERR_NO_DEVICE, "%s: no CUDA device is present", who);
    return kd_api_gpu_upload(&scene->gpu, &scene->tree, scene->tri_verts, err);
}

kd_status scankd_trace_gpu(scankd_scene *scene, const scankd_ray *rays, size_t num_rays,
                           scankd_hit *hits, kd_error *err)
{
    static const char *const who = "scankd_trace_gpu";
    KD_TRY(check_args(who, scene, rays, num_rays, hits, err));
    KD_TRY(check_rays(who, rays, num_rays, err));
    KD_TRY(ensure_gpu(who, scene, err));
    return kd_api_gpu_trace(scene->gpu, (const kd_ray *)rays, num_rays, (kd_trace_hit *)hits, 0,
                            NULL, err);
}

kd_status scankd_trace_gpu_device(scankd_scene *scene, const scankd_ray *d_rays, size_t num_rays,
                                  scankd_hit *d_hits, scankd_stream stream, kd_error *err)
{
    static const char *const who = "scankd_trace_gpu_device";
    KD_TRY(check_args(who, scene, d_rays, num_rays, d_hits, err));
    KD_TRY(ensure_gpu(who, scene, err));
    return kd_api_gpu_trace(scene->gpu, (const kd_ray *)d_rays, num_rays, (kd_trace_hit *)d_hits, 1,
                            stream, err);
}
