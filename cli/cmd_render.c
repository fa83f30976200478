/* scankd render: builds (or loads) a kd-tree, ray-casts primary rays on the
 * GPU or on all CPU cores and writes PNG images: shaded, depth, and heat maps
 * of traversal steps and triangle tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"
#include "cpu_render.h"
#include "gpu_render.h"
#include "image.h"
#include "kd_parallel.h"
#include "render_images.h"

static const char k_cmd[] = "render";

enum {
    KD_RENDER_DEFAULT_SIZE = 1024,
    KD_RENDER_GPU_LAUNCHES = 5 /* timed kernel launches on the GPU (after a warm-up one) */
};

typedef struct render_args {
    const char *scene, *tree, *output, *json;
    bool images[KD_RENDER_NUM_KINDS];
    kd_camera_request camera;
    int threads;
    bool quiet;
    kd_cli_device device; /* as asked for; resolved to cpu or gpu in kd_cmd_render */
} render_args;

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: scankd render SCENE.obj [options]\n"
            "\n"
            "Builds a kd-tree over the scene (or loads one with --tree), casts one primary ray\n"
            "per pixel through it and writes PNG images. On the GPU the tree is built by the\n"
            "GPU builder and rays are cast one thread per ray; on the CPU, by the exact-SAH\n"
            "builder and on all cores. Prints rays per second: on the CPU, primary rays / wall\n"
            "time of the ray casting alone; on the GPU, primary rays / kernel time (median of\n"
            "%d launches after a warm-up). Loading, building and PNG writing are excluded.\n"
            "\n"
            "options:\n"
            "  --device KIND      gpu, cpu or auto (default auto: the GPU when a CUDA device\n"
            "                     exists, else the CPU with a notice on stderr); gpu without\n"
            "                     a device fails\n"
            "  --tree FILE        use a saved tree ('scankd build --save') instead of building;\n"
            "                     it must have been built over this scene\n"
            "  -o, --output FILE  PNG to write (default out/<scene>_<image>.png); with several\n"
            "                     images, _<image> is added before FILE's .png\n"
            "  --image KIND       shaded (default), depth, steps, tests or all; may be repeated\n"
            "                       shaded  eye light: grey level |cos| between ray and normal\n"
            "                       depth   hit distance, near pale yellow to far indigo\n"
            "                       steps   heat map of kd-tree nodes visited per ray, legend below\n"
            "                       tests   heat map of ray-triangle tests per ray, legend below\n",
            KD_RENDER_GPU_LAUNCHES);
    kd_camera_print_options(f, 21);
    fprintf(f,
            "                     (default size %dx%d; camera framed on the scene bounds)\n"
            "  --threads N        CPU worker threads (default: all %d cores)\n"
            "  --json FILE|-      also write the figures as JSON ('-': stdout, text report left out)\n"
            "  --quiet            no progress line and no text report\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 success, 1 failure (unreadable scene or tree, a tree that does not\n"
            "fit the scene, an image that cannot be written, --device gpu without a CUDA device),\n"
            "2 usage error.\n",
            KD_RENDER_DEFAULT_SIZE, KD_RENDER_DEFAULT_SIZE, kd_parallel_num_cores());
}

static int parse_args(int argc, char **argv, render_args *args)
{
    memset(args, 0, sizeof *args);
    bool any_image = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        kd_error err;
        int camera = kd_camera_parse_option(argc, argv, &i, &args->camera, &err);
        if (camera < 0)
            return kd_cli_usage_error(k_cmd, "%s", err.message);
        if (camera > 0)
            continue;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return -1;
        } else if (strcmp(arg, "--device") == 0) {
            if (kd_cli_device_option(k_cmd, kd_cli_option_value(k_cmd, argc, argv, &i), &args->device))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "--tree") == 0) {
            if (!(args->tree = kd_cli_option_value(k_cmd, argc, argv, &i)))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            if (!(args->output = kd_cli_option_value(k_cmd, argc, argv, &i)))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "--json") == 0) {
            if (!(args->json = kd_cli_option_value(k_cmd, argc, argv, &i)))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "--image") == 0) {
            const char *kind = kd_cli_option_value(k_cmd, argc, argv, &i);
            if (!kind)
                return KD_EXIT_USAGE;
            int k = kd_render_image_parse(kind);
            if (strcmp(kind, "all") == 0)
                for (int j = 0; j < KD_RENDER_NUM_KINDS; j++)
                    args->images[j] = true;
            else if (k >= 0)
                args->images[k] = true;
            else
                return kd_cli_usage_error(k_cmd, "--image '%s': expected shaded, depth, steps, tests or all", kind);
            any_image = true;
        } else if (strcmp(arg, "--threads") == 0) {
            const char *value = kd_cli_option_value(k_cmd, argc, argv, &i);
            long n;
            if (!value)
                return KD_EXIT_USAGE;
            if (!kd_parse_int(value, 1, 256, &n))
                return kd_cli_usage_error(k_cmd, "--threads '%s': expected a whole number in 1..256", value);
            args->threads = (int)n;
        } else if (strcmp(arg, "--quiet") == 0) {
            args->quiet = true;
        } else if (kd_cli_scene_argument(k_cmd, arg, &args->scene) != KD_EXIT_OK) {
            return KD_EXIT_USAGE;
        }
    }
    if (!args->scene)
        return kd_cli_usage_error(k_cmd, "no scene given (usage: scankd render SCENE.obj [options])");
    if (!any_image)
        args->images[KD_RENDER_SHADED] = true;
    return KD_EXIT_OK;
}

/* out/<scene>_<kind>.png, or the -o path (with _<kind> added when several). */
static void output_path(const render_args *args, int num_images, kd_render_image_kind kind,
                        char *path, size_t bytes)
{
    const char *name = kd_render_image_name(kind);
    if (!args->output) {
        char scene[256];
        kd_scene_name(args->scene, scene, sizeof scene);
        snprintf(path, bytes, "out/%s_%s.png", scene, name);
        return;
    }
    if (num_images == 1) {
        snprintf(path, bytes, "%s", args->output);
        return;
    }
    size_t len = strlen(args->output);
    if (len > 4 && strcmp(args->output + len - 4, ".png") == 0)
        snprintf(path, bytes, "%.*s_%s.png", (int)(len - 4), args->output, name);
    else
        snprintf(path, bytes, "%s_%s.png", args->output, name);
}

/* Casts the primary rays on the GPU: the tree and triangles are uploaded,
 * then timed launches; the stats carry kernel time. */
static kd_status cast_rays_gpu(const kd_scene *scene, const kd_camera *cam, kd_render_buffers *buf,
                               kd_render_stats *stats, kd_error *err)
{
    kd_gpu_render_stats gs;
    kd_status st = kd_cli_gpu_cast(scene, cam, KD_RENDER_GPU_LAUNCHES, buf, &gs, err);
    if (st)
        return st;
    stats->num_rays = gs.num_rays;
    stats->num_hits = gs.num_hits;
    stats->total_steps = gs.total_steps;
    stats->total_tests = gs.total_tests;
    stats->seconds = gs.kernel_ms * 1e-3;
    stats->rays_per_second = gs.rays_per_second;
    return KD_OK;
}

/* Casts the primary rays on the chosen device (already resolved). */
static kd_status cast_rays(const render_args *args, const kd_scene *scene, const kd_camera *cam,
                           kd_cli_progress *progress, kd_render_buffers *buf,
                           kd_render_stats *stats, kd_error *err)
{
    switch (args->device) {
    case KD_CLI_DEVICE_GPU:
        return cast_rays_gpu(scene, cam, buf, stats, err);
    case KD_CLI_DEVICE_CPU:
    default: {
        kd_trace_scene trace;
        kd_status st = kd_trace_scene_init(&trace, &scene->tree, scene->tri_verts,
                                           scene->mesh.num_triangles, err);
        if (st)
            return st;
        kd_render_options options = {args->threads, kd_cli_progress_update, progress};
        return kd_render_cpu(&trace, cam, &options, buf, stats, err);
    }
    }
}

static void write_json(FILE *f, const render_args *args, const kd_scene *scene,
                       const kd_camera *cam, const kd_render_stats *stats, int threads,
                       char paths[][1024], const int *kinds, int num_images)
{
    kd_json json;
    kd_json_init(&json, f);
    kd_json_begin_object(&json);
    kd_cli_json_scene(&json, args->scene, args->tree, scene);
    kd_cli_json_camera(&json, cam);
    kd_json_key(&json, "render");
    kd_json_begin_object(&json);
    bool gpu = args->device == KD_CLI_DEVICE_GPU;
    kd_json_kv_string(&json, "device", gpu ? "gpu" : "cpu");
    if (gpu) {
        kd_json_kv_string(&json, "timing", "kernel time, median of the launches");
        kd_json_kv_int(&json, "launches", KD_RENDER_GPU_LAUNCHES);
    } else {
        kd_json_kv_string(&json, "timing", "wall time of the ray casting");
        kd_json_kv_int(&json, "threads", threads);
    }
    kd_json_kv_int(&json, "rays", (int64_t)stats->num_rays);
    kd_json_kv_int(&json, "hits", (int64_t)stats->num_hits);
    kd_json_kv_number(&json, "seconds", stats->seconds);
    kd_json_kv_number(&json, "rays_per_second", stats->rays_per_second);
    kd_json_kv_number(&json, "mean_traversal_steps", (double)stats->total_steps / (double)stats->num_rays);
    kd_json_kv_number(&json, "mean_triangle_tests", (double)stats->total_tests / (double)stats->num_rays);
    kd_json_end_object(&json);
    kd_json_key(&json, "images");
    kd_json_begin_array(&json);
    for (int i = 0; i < num_images; i++) {
        kd_json_begin_object(&json);
        kd_json_kv_string(&json, "kind", kd_render_image_name((kd_render_image_kind)kinds[i]));
        kd_json_kv_string(&json, "path", paths[i]);
        kd_json_end_object(&json);
    }
    kd_json_end_array(&json);
    kd_json_end_object(&json);
}

int kd_cmd_render(int argc, char **argv)
{
    render_args args;
    int code = parse_args(argc, argv, &args);
    if (code < 0)
        return KD_EXIT_OK; /* --help */
    if (code != KD_EXIT_OK)
        return code;
    bool json_on_stdout = args.json && strcmp(args.json, "-") == 0;
    FILE *report = args.quiet || json_on_stdout ? NULL : stdout;
    code = kd_cli_device_resolve(k_cmd, args.device, args.quiet,
                                 "using the CPU builder and ray caster", &args.device);
    if (code >= 0)
        return code;
    bool gpu = args.device == KD_CLI_DEVICE_GPU;

    kd_scene scene;
    kd_camera cam;
    code = kd_cli_scene_and_camera(k_cmd, args.scene, args.tree, args.threads, args.device,
                                   &args.camera, KD_RENDER_DEFAULT_SIZE, report, &scene, &cam);
    if (code >= 0)
        return code;
    kd_error err;

    kd_render_buffers buf;
    kd_render_stats stats;
    kd_cli_progress progress;
    int threads = args.threads > 0 ? args.threads : kd_parallel_num_cores();
    code = KD_EXIT_FAILURE;
    if (kd_render_buffers_alloc(&buf, cam.width, cam.height, &err))
        goto fail_scene;
    kd_cli_progress_start(&progress, k_cmd, "casting rays, tiles", args.quiet);
    kd_status st = cast_rays(&args, &scene, &cam, &progress, &buf, &stats, &err);
    kd_cli_progress_end(&progress);
    if (st)
        goto fail_buffers;
    if (report && gpu)
        fprintf(report,
                "render      %llu primary rays in %.3f ms on the GPU (kernel time, median of %d "
                "launches): %.2f Mrays/s; ",
                (unsigned long long)stats.num_rays, stats.seconds * 1e3, KD_RENDER_GPU_LAUNCHES,
                stats.rays_per_second * 1e-6);
    else if (report)
        fprintf(report, "render      %llu primary rays in %.3f s on %d thread%s (cpu): %.2f Mrays/s; ",
                (unsigned long long)stats.num_rays, stats.seconds, threads, threads == 1 ? "" : "s",
                stats.rays_per_second * 1e-6);
    if (report)
        fprintf(report, "%.1f%% hit; %.1f steps, %.1f triangle tests per ray\n",
                100.0 * (double)stats.num_hits / (double)stats.num_rays,
                (double)stats.total_steps / (double)stats.num_rays,
                (double)stats.total_tests / (double)stats.num_rays);

    int num_images = 0, kinds[KD_RENDER_NUM_KINDS];
    char paths[KD_RENDER_NUM_KINDS][1024];
    for (int k = 0; k < KD_RENDER_NUM_KINDS; k++)
        if (args.images[k])
            kinds[num_images++] = k;
    for (int i = 0; i < num_images; i++) {
        output_path(&args, num_images, (kd_render_image_kind)kinds[i], paths[i], sizeof paths[i]);
        kd_image img;
        st = kd_render_make_image(&buf, (kd_render_image_kind)kinds[i], &img, &err);
        if (!st)
            st = kd_image_write_png(&img, paths[i], &err);
        kd_image_free(&img);
        if (st)
            goto fail_buffers;
        if (report)
            fprintf(report, "wrote       %s\n", paths[i]);
    }
    if (args.json) {
        kd_outfile out;
        if (kd_outfile_open(&out, args.json, &err))
            goto fail_buffers;
        write_json(out.file, &args, &scene, &cam, &stats, threads, paths, kinds, num_images);
        if (kd_outfile_commit(&out, &err))
            goto fail_buffers;
    }
    code = KD_EXIT_OK;
fail_buffers:
    if (code != KD_EXIT_OK)
        kd_cli_error(k_cmd, "%s", err.message);
    kd_render_buffers_free(&buf);
    kd_scene_free(&scene);
    return code;
fail_scene:
    kd_cli_error(k_cmd, "%s", err.message);
    kd_scene_free(&scene);
    return code;
}
