/* scankd verify: proves a tree right. (a) exhaustive invariants, (b) ray
 * agreement with brute force, optionally (c) an image regression check; with
 * --device gpu the tree is GPU-built and (d) GPU-cast hits must equal
 * CPU-cast hits pixel for pixel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "cmd_render_common.h"
#include "cmd_verify.h"
#include "commands.h"
#include "cpu_render.h"
#include "image.h"
#include "render_images.h"
#include "verify.h"

static const char k_cmd[] = "verify";

/* ---- Rays ----------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float uniform(uint64_t *state) { return (float)(splitmix(state) >> 40) / 16777216.0f; }

/* Camera rays through every pixel or a sample of distinct pixels (partial
 * Fisher-Yates shuffle), then interior rays: origins uniform in the scene
 * box, directions uniform on the sphere. */
static kd_status make_rays(const kd_camera *cam, kd_aabb bounds, size_t sample, size_t interior,
                           uint64_t seed, ray_set *set, kd_error *err)
{
    memset(set, 0, sizeof *set);
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    set->every_pixel = sample == 0 || sample >= pixels;
    set->num_camera = set->every_pixel ? pixels : sample;
    set->num_interior = interior;
    set->rays = malloc((set->num_camera + interior + 1) * sizeof *set->rays);
    set->pixel = malloc((set->every_pixel ? 1 : pixels) * sizeof *set->pixel);
    if (!set->rays || !set->pixel) {
        free(set->rays);
        free(set->pixel);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu rays", set->num_camera + interior);
    }
    uint64_t state = seed;
    if (!set->every_pixel) {
        for (size_t i = 0; i < pixels; i++)
            set->pixel[i] = (uint32_t)i;
        for (size_t i = 0; i < sample; i++) {
            size_t j = i + (size_t)(splitmix(&state) % (pixels - i));
            uint32_t tmp = set->pixel[i];
            set->pixel[i] = set->pixel[j];
            set->pixel[j] = tmp;
        }
    }
    for (size_t i = 0; i < set->num_camera; i++) {
        size_t p = set->every_pixel ? i : set->pixel[i];
        set->rays[i] = kd_camera_ray(cam, (int)(p % (size_t)cam->width), (int)(p / (size_t)cam->width));
    }
    for (size_t i = 0; i < interior; i++) {
        kd_ray *r = &set->rays[set->num_camera + i];
        for (int a = 0; a < 3; a++)
            r->org[a] = bounds.lo[a] + (bounds.hi[a] - bounds.lo[a]) * uniform(&state);
        float z = 2.0f * uniform(&state) - 1.0f, phi = 6.28318530718f * uniform(&state);
        float s = sqrtf(fmaxf(0.0f, 1.0f - z * z));
        r->dir[0] = s * cosf(phi);
        r->dir[1] = s * sinf(phi);
        r->dir[2] = z;
        r->t_max = INFINITY;
    }
    return KD_OK;
}

/* ---- The command ------------------------------------------------------------ */

/* Shaded render of the tree at the camera, with mismatched pixels in red. */
static kd_status verification_image(const kd_trace_scene *trace, const kd_camera *cam,
                                    const ray_set *set, const uint8_t *mismatch, int threads,
                                    kd_image *shaded, kd_image *marked, kd_error *err)
{
    kd_render_buffers buf;
    kd_status st = kd_render_buffers_alloc(&buf, cam->width, cam->height, err);
    if (st)
        return st;
    kd_render_options options = {threads, NULL, NULL, KD_RAYS_PRIMARY, 0};
    kd_render_stats stats;
    st = kd_render_cpu(trace, cam, &options, &buf, &stats, err);
    if (!st)
        st = kd_render_make_image(&buf, KD_RENDER_SHADED, shaded, err);
    if (!st)
        st = kd_render_make_image(&buf, KD_RENDER_SHADED, marked, err);
    kd_render_buffers_free(&buf);
    if (st)
        return st;
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    uint8_t *mask = calloc(pixels, 1);
    if (!mask)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for the mismatch mask");
    for (size_t i = 0; mismatch && i < set->num_camera; i++)
        if (mismatch[i])
            mask[kd_verify_ray_pixel(set, i)] = 1;
    kd_image_overlay_mask(marked, mask);
    free(mask);
    return KD_OK;
}

/* Everything one run of the command holds; verify_free releases it. */
typedef struct verify_run {
    verify_args a;
    FILE *report;          /* the text report, or NULL */
    bool gpu;              /* the tree is GPU-built and (d) runs */
    kd_image reference;    /* --compare's image */
    kd_scene scene;
    kd_camera cam;
    ray_set set;
    uint8_t *mismatch;     /* per ray */
    kd_trace_hit *hits;    /* the tree's hit of each ray */
    kd_image shaded, marked;
    verify_result r;
    kd_cli_progress progress; /* the line of the long steps */
} verify_run;

static void verify_free(verify_run *v)
{
    free(v->mismatch);
    free(v->hits);
    free(v->set.rays);
    free(v->set.pixel);
    kd_image_free(&v->shaded);
    kd_image_free(&v->marked);
    kd_image_free(&v->reference);
    kd_scene_free(&v->scene);
}

/* Resolves the device, reads --compare's image and prepares the scene, its
 * tree and the camera; returns -1 to go on, else the exit code with the
 * message printed and nothing left to free. */
static int prepare(verify_run *v)
{
    verify_args *a = &v->a;
    const char *outputs[] = {a->output, a->json};
    if (!kd_cli_check_outputs(a->label, outputs, 2))
        return KD_EXIT_FAILURE;
    const bool stdout_taken = kd_cli_is_stdout(a->json) || kd_cli_is_stdout(a->output);
    v->report = a->quiet || stdout_taken ? NULL : stdout;
    kd_cli_device device;
    int code = kd_cli_device_resolve(a->label, (kd_cli_device)a->device, a->quiet,
                                     a->tree ? "checking on the CPU only" : "building the tree on the CPU",
                                     &device);
    if (code >= 0)
        return code;
    a->device = (int)device;
    v->gpu = device == KD_CLI_DEVICE_GPU;
    kd_error err;
    if (a->compare) {
        if (kd_image_read_png(&v->reference, a->compare, &err)) {
            kd_cli_error(a->label, "%s", err.message);
            return KD_EXIT_FAILURE;
        }
        if (a->camera.width == 0) {
            a->camera.width = v->reference.width;
            a->camera.height = v->reference.height;
        }
    }
    kd_cli_progress_init(&v->progress, a->label, a->quiet);
    const kd_cli_scene_args scene_args = {a->scene, a->tree, a->force_tree, a->threads, device, &a->camera,
                                          KD_VERIFY_DEFAULT_SIZE, a->device_memory_limit, &v->progress, a->view};
    code = kd_cli_scene_and_camera(a->label, &scene_args, v->report, &v->scene, &v->cam);
    if (code >= 0) {
        kd_image_free(&v->reference);
        return code;
    }
    if (v->report)
        fflush(v->report); /* the scene lines show while the checks run */
    return -1;
}

/* (b): the rays, then the camera rays' diffuse bounces, against brute force. */
static kd_status check_ray_agreement(verify_run *v, const kd_trace_scene *trace, kd_error *err)
{
    const verify_args *a = &v->a;
    verify_result *r = &v->r;
    const size_t num_rays = v->set.num_camera + v->set.num_interior;
    v->mismatch = calloc(num_rays + 1, 1);
    v->hits = malloc((num_rays + 1) * sizeof *v->hits);
    if (!v->mismatch || !v->hits)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu rays", num_rays);
    kd_cli_progress_begin(&v->progress, "checking rays", "rays");
    kd_status st = kd_verify_rays(trace, v->set.rays, num_rays, a->tolerance, a->threads,
                                  kd_cli_progress_update, &v->progress, v->mismatch, v->hits, &r->rays, err);
    kd_cli_progress_begin(&v->progress, "checking diffuse bounces", "rays");
    if (!st)
        st = kd_verify_bounces(trace, v->set.rays, v->hits, v->set.every_pixel ? NULL : v->set.pixel,
                               v->set.num_camera, (uint32_t)a->seed, a->tolerance, a->threads,
                               kd_cli_progress_update, &v->progress, v->mismatch, &r->bounces, err);
    kd_cli_progress_end(&v->progress);
    if (st)
        return st;
    r->rays_run = true;
    /* A run in which no ray hit anything compared nothing: it does not pass. */
    r->nothing_hit = r->rays.num_ref_hits == 0;
    r->rays_pass = r->rays.num_mismatches == 0 && !r->nothing_hit;
    r->bounces_pass = r->bounces.num_mismatches == 0;
    return KD_OK;
}

/* (b), and what needs traced rays: (d) and the verification image. Rays are
 * not traced, with the reason kept, through a tree whose structure is
 * broken. */
static kd_status check_rays(verify_run *v, kd_error *err)
{
    const verify_args *a = &v->a;
    verify_result *r = &v->r;
    kd_trace_scene trace;
    kd_error why;
    if (!r->inv.structure_ok) {
        snprintf(r->rays_skipped, sizeof r->rays_skipped, "the tree's structure is broken (see above)");
        return KD_OK;
    }
    if (kd_trace_scene_init(&trace, &v->scene.tree, v->scene.tri_verts, v->scene.mesh.num_triangles, &why)) {
        snprintf(r->rays_skipped, sizeof r->rays_skipped, "%s", why.message);
        return KD_OK;
    }
    kd_status st = check_ray_agreement(v, &trace, err);
    if (st)
        return st;
    if (v->gpu) {
        kd_cli_progress_begin(&v->progress, "casting the camera on the GPU and the CPU", NULL);
        st = kd_verify_gpu_hits(&v->scene, &trace, &v->cam, a->threads, (uint32_t)a->seed, &r->gpu, err);
    }
    if (!st && (a->output || a->compare)) {
        kd_cli_progress_begin(&v->progress, "drawing the verification image", NULL);
        st = verification_image(&trace, &v->cam, &v->set, v->mismatch, a->threads, &v->shaded, &v->marked, err);
    }
    kd_cli_progress_end(&v->progress);
    return st;
}

/* (c): the shaded render against --compare's image. */
static kd_status compare_reference(verify_run *v, kd_error *err)
{
    verify_result *r = &v->r;
    r->compare_pass = true;
    if (!v->a.compare)
        return KD_OK;
    if (!r->rays_run) {
        r->compare_pass = false; /* nothing was rendered to compare */
        return KD_OK;
    }
    kd_status st = kd_image_compare(&v->shaded, &v->reference, KD_COMPARE_PIXEL_K, &r->mean_abs_diff,
                                    &r->max_diff, &r->fraction_over, err);
    if (st)
        return st;
    r->compared = true;
    r->compare_pass = r->mean_abs_diff <= v->a.threshold;
    return KD_OK;
}

/* (a) to (d) in turn. */
static kd_status run_checks(verify_run *v, kd_error *err)
{
    const verify_args *a = &v->a;
    verify_result *r = &v->r;
    const uint32_t n = v->scene.mesh.num_triangles;
    kd_cli_progress_begin(&v->progress, "checking the invariants", NULL);
    kd_status st = kd_verify_invariants_progress(&v->scene.tree, v->scene.tri_verts, n, a->threads,
                                                 kd_cli_progress_update, &v->progress, &r->inv, err);
    kd_cli_progress_end(&v->progress);
    if (st)
        return st;
    r->invariants_pass = kd_invariant_report_total(&r->inv) == 0;
    size_t sample = a->all_pixels ? 0 : (size_t)a->rays;
    if (!a->all_pixels && !a->rays && n > KD_VERIFY_SAMPLE_ABOVE)
        sample = KD_VERIFY_DEFAULT_SAMPLE;
    if ((st = make_rays(&v->cam, v->scene.mesh_bounds, sample, (size_t)a->interior_rays, (uint64_t)a->seed,
                        &v->set, err)))
        return st;
    if ((st = check_rays(v, err)))
        return st;
    r->rays.tolerance = a->tolerance;
    r->bounces.tolerance = a->tolerance;
    return compare_reference(v, err);
}

/* The text report, the verification image and the JSON, as asked; *pass
 * says whether every check passed. */
static kd_status report_results(const verify_run *v, bool *pass, kd_error *err)
{
    const verify_args *a = &v->a;
    const verify_result *r = &v->r;
    FILE *report = v->report;
    /* On the GPU, (d) must have run and found no difference. */
    *pass = r->invariants_pass && r->rays_pass && r->bounces_pass && r->compare_pass && (!v->gpu || r->gpu.pass);
    if (report) {
        kd_verify_print_report(report, a, &v->set, &v->cam, r);
        if (a->compare && !r->compared)
            fprintf(report, "compare     FAIL  nothing rendered to compare\n");
    }
    if (a->output && !r->rays_run && report)
        fprintf(report, "wrote       nothing: no image without traced rays\n");
    kd_status st;
    if (a->output && r->rays_run) {
        if ((st = kd_image_write(&v->marked, a->output, err)))
            return st;
        size_t marked_pixels = 0;
        for (size_t i = 0; i < v->set.num_camera; i++)
            marked_pixels += v->mismatch[i] != 0;
        if (report)
            fprintf(report, "wrote       %s (%zu mismatched pixels in red)\n", a->output, marked_pixels);
    }
    if (a->json) {
        kd_outfile out;
        if ((st = kd_outfile_open(&out, a->json, err)))
            return st;
        kd_verify_write_json(out.file, a, &v->scene, &v->cam, &v->set, r, *pass);
        if ((st = kd_outfile_commit(&out, err)))
            return st;
    }
    if (report)
        fprintf(report, "verify      %s\n", *pass ? "PASS" : "FAIL");
    return KD_OK;
}

int kd_cmd_verify_as(const char *label, int argc, char **argv)
{
    verify_run v;
    memset(&v, 0, sizeof v);
    int code = kd_verify_parse_args(argc, argv, &v.a);
    if (code >= 0)
        return code;
    v.a.label = label;
    code = prepare(&v);
    if (code >= 0)
        return code;
    kd_error err;
    bool pass = false;
    code = KD_EXIT_FAILURE;
    if (run_checks(&v, &err) == KD_OK && report_results(&v, &pass, &err) == KD_OK)
        code = pass ? KD_EXIT_OK : KD_EXIT_FAILURE;
    else
        kd_cli_error(label, "%s", err.message);
    verify_free(&v);
    return code;
}

int kd_cmd_verify(int argc, char **argv)
{
    return kd_cmd_verify_as(k_cmd, argc, argv);
}
