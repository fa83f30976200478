/* scankd verify, check (d) with --device gpu: the verification camera is
 * ray-cast on the GPU and on the CPU through the same tree, and every pixel
 * must hit the same triangle. */
#include <stdbool.h>
#include <stdio.h>

#include "cmd_verify.h"
#include "cpu_render.h"

/* Records pixel p's difference, the first one in detail. */
static void note_difference(kd_gpu_hit_check *check, size_t p, bool bounce, uint32_t gpu_tri, uint32_t cpu_tri)
{
    if (check->differ++ > 0)
        return;
    check->first_differ = p;
    check->first_is_bounce = bounce;
    check->gpu_first_tri = gpu_tri;
    check->cpu_first_tri = cpu_tri;
}

kd_status kd_verify_gpu_hits(const kd_scene *scene, const kd_trace_scene *trace,
                             const kd_camera *cam, int threads, uint32_t seed, kd_gpu_hit_check *check,
                             kd_error *err)
{
    kd_render_buffers gpu_buf, cpu_buf;
    kd_status st = kd_render_buffers_alloc(&gpu_buf, cam->width, cam->height, err);
    if (st)
        return st;
    st = kd_render_buffers_alloc(&cpu_buf, cam->width, cam->height, err);
    if (st) {
        kd_render_buffers_free(&gpu_buf);
        return st;
    }
    kd_gpu_render_stats gpu_stats;
    const kd_gpu_render_options gpu_options = {1, KD_RAYS_DIFFUSE, seed, 1};
    st = kd_cli_gpu_cast(scene, cam, &gpu_options, &gpu_buf, &gpu_stats, err);
    kd_render_stats cpu_stats;
    if (!st) {
        kd_render_options options = {threads, NULL, NULL, KD_RAYS_DIFFUSE, seed};
        st = kd_render_cpu(trace, cam, &options, &cpu_buf, &cpu_stats, err);
    }
    if (!st) {
        check->compared = true;
        check->pixels = (size_t)cam->width * (size_t)cam->height;
        check->bounce_rays = cpu_stats.num_bounce_rays;
        for (size_t p = 0; p < check->pixels; p++) {
            if (gpu_buf.tri[p] != cpu_buf.tri[p])
                note_difference(check, p, false, gpu_buf.tri[p], cpu_buf.tri[p]);
            else if (gpu_buf.bounce_tri[p] != cpu_buf.bounce_tri[p])
                note_difference(check, p, true, gpu_buf.bounce_tri[p], cpu_buf.bounce_tri[p]);
        }
        check->pass = check->differ == 0;
    }
    kd_render_buffers_free(&gpu_buf);
    kd_render_buffers_free(&cpu_buf);
    return st;
}

static void describe_hit(uint32_t tri, char *text, size_t bytes)
{
    if (tri == KD_TRACE_NO_HIT)
        snprintf(text, bytes, "nothing");
    else
        snprintf(text, bytes, "triangle %u", tri);
}

void kd_verify_print_gpu_hits(FILE *f, const kd_camera *cam, const kd_gpu_hit_check *check)
{
    if (!check->compared)
        return;
    fprintf(f, "gpu hits    %s  %zu pixels (%dx%d) and their %zu diffuse bounces cast on the GPU and on the "
               "CPU through the same tree: %zu hit a different triangle\n",
            check->pass ? "PASS" : "FAIL", check->pixels, cam->width, cam->height, check->bounce_rays,
            check->differ);
    if (check->differ) {
        char gpu_hit[32], cpu_hit[32];
        describe_hit(check->gpu_first_tri, gpu_hit, sizeof gpu_hit);
        describe_hit(check->cpu_first_tri, cpu_hit, sizeof cpu_hit);
        fprintf(f, "            - first at pixel (%zu, %zu)%s: GPU hits %s, CPU hits %s\n",
                check->first_differ % (size_t)cam->width, check->first_differ / (size_t)cam->width,
                check->first_is_bounce ? ", its bounce" : "", gpu_hit, cpu_hit);
    }
}

void kd_verify_json_gpu_hits(kd_json *json, const kd_gpu_hit_check *check)
{
    if (!check->compared)
        return;
    kd_json_key(json, "gpu_hits");
    kd_json_begin_object(json);
    kd_json_kv_bool(json, "pass", check->pass);
    kd_json_kv_int(json, "pixels", (int64_t)check->pixels);
    kd_json_kv_int(json, "differing_pixels", (int64_t)check->differ);
    kd_json_kv_int(json, "bounce_rays", (int64_t)check->bounce_rays);
    kd_json_end_object(json);
}
