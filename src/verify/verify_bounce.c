/* Bounce agreement: the diffuse bounce rays of primary hits against brute force. */
#include <stdlib.h>

#include "cpu_render.h"
#include "verify.h"

kd_status kd_verify_bounces(const kd_trace_scene *scene, const kd_ray *rays, const kd_trace_hit *hits,
                            const uint32_t *pixel, size_t n, uint32_t seed, float tolerance, int num_threads,
                            kd_verify_progress_fn progress, void *progress_ctx, uint8_t *mismatch,
                            kd_ray_report *rep, kd_error *err)
{
    kd_ray *bounces = NULL;
    uint32_t *from = NULL;
    size_t count = 0;
    KD_TRY(kd_bounce_rays_make(scene->tri_verts, rays, hits, pixel, n, seed, &bounces, &from, &count, err));
    uint8_t *bad = calloc(count + 1, 1);
    kd_status st = bad ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu bounce rays", count);
    if (!st)
        st = kd_verify_rays(scene, bounces, count, tolerance, num_threads, progress, progress_ctx, bad, NULL,
                            rep, err);
    /* Name each mismatch by the primary ray it bounced from. */
    for (int e = 0; !st && e < rep->num_examples; e++)
        rep->examples[e].ray = from[rep->examples[e].ray];
    for (size_t i = 0; !st && mismatch && i < count; i++)
        if (bad[i])
            mismatch[from[i]] = 1;
    free(bad);
    free(bounces);
    free(from);
    return st;
}
