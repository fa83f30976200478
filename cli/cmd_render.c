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

#define KD_RENDER_DEFAULT_SIZE 1024
enum { KD_RENDER_GPU_LAUNCHES = 5 /* timed kernel launches on the GPU (after a warm-up one) */ };

typedef struct render_args {
    const char *label; /* messages read "scankd <label>:": render, or demo when the demo runs it */
    const char *scene, *tree, *output, *json;
    bool force_tree;
    bool images[KD_RENDER_NUM_KINDS];
    kd_camera_request camera;
    int threads;
    bool quiet;
    int device; /* kd_cli_device as asked for; resolved to cpu or gpu in kd_cmd_render */
    uint64_t device_memory_limit; /* the GPU builder's memory cap; 0: none */
    const char *view;  /* --view NAME, or NULL */
    int rays;          /* kd_ray_kind */
    int seed;          /* of the diffuse bounces */
} render_args;

/* ---- Options ------------------------------------------------------------------ */

static void print_about(FILE *f)
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
            "With --ray-kind diffuse, one bounce ray per primary hit follows, timed apart; its\n"
            "rays per second count the bounce rays cast. The steps and tests images then show\n"
            "the bounce rays' work; the shaded and depth images stay the primary rays'.\n",
            KD_RENDER_GPU_LAUNCHES);
}

static void set_defaults(void *args)
{
    render_args *a = args;
    memset(a, 0, sizeof *a);
    a->seed = KD_BOUNCE_DEFAULT_SEED;
}

/* --image KIND, repeatable: one kind, or all, into the images wanted. */
static int parse_image(const char *command, int argc, char **argv, int *i, void *dest)
{
    bool *images = dest;
    const char *kind = kd_cli_option_value(command, argc, argv, i);
    if (!kind)
        return KD_EXIT_USAGE;
    const int k = kd_render_image_parse(kind);
    if (strcmp(kind, "all") == 0)
        for (int j = 0; j < KD_RENDER_NUM_KINDS; j++)
            images[j] = true;
    else if (k >= 0)
        images[k] = true;
    else
        return kd_cli_usage_error(command, "--image '%s': expected shaded, depth, steps, tests or all", kind);
    return KD_EXIT_OK;
}

#define ARG(field) offsetof(render_args, field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = ARG(scene)},
    KD_CLI_DEVICE_OPTION(ARG(device), "; gpu without a device fails"),
    KD_CLI_MEMORY_LIMIT_OPTION(ARG(device_memory_limit), 0),
    {.kind = KD_CLI_STRING, .name = "--tree", .metavar = "FILE", .offset = ARG(tree),
     .help = "use a saved tree ('scankd build --save') instead of building; it must have been "
             "built over this very scene (the file records the mesh's fingerprint)"},
    KD_CLI_FORCE_TREE_OPTION(ARG(force_tree)),
    {.kind = KD_CLI_STRING, .name = "--output", .alias = "-o", .metavar = "FILE", .offset = ARG(output),
     .help = "image to write (default out/<scene>_<image>.png): .png, or .jpg for JPEG, by its name; "
             "'-': one PNG on stdout; with several images, _<image> is added before FILE's extension"},
    {.kind = KD_CLI_CUSTOM, .name = "--image", .metavar = "KIND", .offset = ARG(images),
     .parse = parse_image,
     .help = "shaded (default), depth, steps, tests or all; may be repeated; the depth image and "
             "the heat maps carry a legend over their bottom rows (where the image is at least 64 "
             "pixels wide and twice the legend's height), so every image is exactly --size\n"
             "  shaded  eye light, grey |cos(ray, normal)|\n"
             "  depth   distance: near pale yellow to far indigo\n"
             "  steps   heat map: kd-tree nodes visited per ray, colours up to the 99th percentile "
             "(higher counts share the top colour; the legend names the largest)\n"
             "  tests   heat map: ray-triangle tests per ray, the same way"},
    KD_CLI_CAMERA_OPTIONS(ARG(camera), "image size in pixels, WxH (or W H), each 1..16384 (default "
                                       KD_CLI_STR(KD_RENDER_DEFAULT_SIZE) "x"
                                       KD_CLI_STR(KD_RENDER_DEFAULT_SIZE) ")"),
    KD_CLI_VIEW_OPTION(ARG(view)),
    KD_CLI_RAYS_OPTION(ARG(rays), ""),
    {.kind = KD_CLI_INT, .name = "--seed", .metavar = "S", .offset = ARG(seed), .min = 0,
     .max = 2147483647.0, .expects = "a whole number in 0..2^31-1",
     .help = "seed of the diffuse bounces (default %D; verify --seed S checks the same rays)"},
    {.kind = KD_CLI_INT, .name = "--threads", .metavar = "N", .offset = ARG(threads), .min = 1, .max = 256,
     .help = "CPU worker threads, %R (default: all cores)"},
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json),
     .help = "also write the figures as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet), .help = "no progress line and no text report"},
};

#undef ARG

static const kd_cli_command k_command = {
    .name = "render",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 success, 1 failure (unreadable scene or tree, a tree that does not\n"
              "fit the scene, an image that cannot be written, --device gpu without a CUDA device),\n"
              "2 usage error.\n",
    .style = KD_CLI_SAY_EXPECTED,
    .args_size = sizeof(render_args),
    .defaults = set_defaults,
};

/* -o: a name whose extension says PNG or JPEG; '-' for one image, while
 * --json is not '-' too. Returns -1 to go on, else an exit code. */
static int check_output_args(const render_args *args, int num_images)
{
    const char *o = args->output;
    if (!o)
        return -1;
    if (kd_image_format_of(o) == KD_IMAGE_FORMAT_UNKNOWN)
        return kd_cli_usage_error(k_cmd, "-o %s: render writes .png or .jpg images, not %s", o,
                                  kd_image_extension(o));
    if (kd_cli_is_stdout(o) && num_images > 1)
        return kd_cli_usage_error(k_cmd, "-o - writes one image to stdout, not %d", num_images);
    if (kd_cli_is_stdout(o) && kd_cli_is_stdout(args->json))
        return kd_cli_usage_error(k_cmd, "-o - and --json - cannot both write to stdout");
    return -1;
}

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, render_args *args)
{
    set_defaults(args);
    const int code = kd_cli_parse(&k_command, argc, argv, args, NULL);
    if (code >= 0)
        return code;
    if (!args->scene)
        return kd_cli_usage_error(k_cmd, "no scene given (usage: scankd render SCENE.obj [options])");
    int num_images = 0;
    for (int k = 0; k < KD_RENDER_NUM_KINDS; k++)
        num_images += args->images[k];
    if (num_images == 0)
        args->images[KD_RENDER_SHADED] = true;
    return check_output_args(args, num_images > 0 ? num_images : 1);
}

/* ---- Steps ---------------------------------------------------------------------- */

/* out/<scene>_<kind>.png, or the -o path (with _<kind> added before its
 * extension when several). */
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
    const char *ext = kd_image_extension(args->output);
    if (ext[0])
        snprintf(path, bytes, "%.*s_%s%s", (int)(ext - args->output), args->output, name, ext);
    else
        snprintf(path, bytes, "%s_%s.png", args->output, name);
}

/* Casts the primary rays on the GPU: the tree and triangles are uploaded,
 * then timed launches; the stats carry kernel time. */
static kd_status cast_rays_gpu(const kd_scene *scene, const kd_camera *cam, const render_args *args,
                               kd_render_buffers *buf, kd_render_stats *stats, kd_error *err)
{
    kd_gpu_render_stats gs;
    const kd_gpu_render_options options = {KD_RENDER_GPU_LAUNCHES, (kd_ray_kind)args->rays, (uint32_t)args->seed,
                                           1};
    kd_status st = kd_cli_gpu_cast(scene, cam, &options, buf, &gs, err);
    if (st)
        return st;
    memset(stats, 0, sizeof *stats);
    stats->num_rays = gs.num_rays;
    stats->num_hits = gs.num_hits;
    stats->total_steps = gs.total_steps;
    stats->total_tests = gs.total_tests;
    stats->seconds = gs.kernel_ms * 1e-3;
    stats->rays_per_second = gs.rays_per_second;
    stats->num_bounce_rays = gs.num_bounce_rays;
    stats->num_bounce_hits = gs.num_bounce_hits;
    stats->bounce_steps = gs.bounce_steps;
    stats->bounce_tests = gs.bounce_tests;
    stats->bounce_seconds = gs.bounce_kernel_ms * 1e-3;
    stats->bounce_rays_per_second = gs.bounce_rays_per_second;
    return KD_OK;
}

/* Casts the primary rays on the chosen device (already resolved). */
static kd_status cast_rays(const render_args *args, const kd_scene *scene, const kd_camera *cam,
                           kd_cli_progress *progress, kd_render_buffers *buf,
                           kd_render_stats *stats, kd_error *err)
{
    switch (args->device) {
    case KD_CLI_DEVICE_GPU:
        return cast_rays_gpu(scene, cam, args, buf, stats, err);
    case KD_CLI_DEVICE_CPU:
    default: {
        kd_trace_scene trace;
        kd_status st = kd_trace_scene_init(&trace, &scene->tree, scene->tri_verts,
                                           scene->mesh.num_triangles, err);
        if (st)
            return st;
        kd_render_options options = {args->threads, kd_cli_progress_update, progress, (kd_ray_kind)args->rays,
                                     (uint32_t)args->seed};
        return kd_render_cpu(&trace, cam, &options, buf, stats, err);
    }
    }
}

/* The images written: their kinds and paths. */
typedef struct written_images {
    int num, kinds[KD_RENDER_NUM_KINDS];
    char paths[KD_RENDER_NUM_KINDS][1024];
} written_images;

/* Mean of total over n, 0 for none. */
static double mean(uint64_t total, uint64_t n) { return n ? (double)total / (double)n : 0.0; }

/* The diffuse bounces, as a member of the render object. */
static void json_bounces(kd_json *json, const kd_render_stats *stats, int seed)
{
    kd_json_key(json, "diffuse");
    kd_json_begin_object(json);
    kd_json_kv_int(json, "seed", seed);
    kd_json_kv_int(json, "rays", (int64_t)stats->num_bounce_rays);
    kd_json_kv_int(json, "hits", (int64_t)stats->num_bounce_hits);
    kd_json_kv_number(json, "seconds", stats->bounce_seconds);
    kd_json_kv_number(json, "rays_per_second", stats->bounce_rays_per_second);
    kd_json_kv_number(json, "mean_traversal_steps", mean(stats->bounce_steps, stats->num_bounce_rays));
    kd_json_kv_number(json, "mean_triangle_tests", mean(stats->bounce_tests, stats->num_bounce_rays));
    kd_json_end_object(json);
}

static void write_json(FILE *f, const render_args *args, const kd_scene *scene, const kd_camera *cam,
                       const kd_render_stats *stats, int threads, const written_images *images)
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
    kd_json_kv_string(&json, "rays_kind", kd_cli_ray_kind_names[args->rays]);
    if (args->view)
        kd_json_kv_string(&json, "view", args->view);
    if (args->rays == KD_RAYS_DIFFUSE)
        json_bounces(&json, stats, args->seed);
    kd_json_end_object(&json);
    kd_json_key(&json, "images");
    kd_json_begin_array(&json);
    for (int i = 0; i < images->num; i++) {
        kd_json_begin_object(&json);
        kd_json_kv_string(&json, "kind", kd_render_image_name((kd_render_image_kind)images->kinds[i]));
        kd_json_kv_string(&json, "path", images->paths[i]);
        kd_json_end_object(&json);
    }
    kd_json_end_array(&json);
    kd_json_end_object(&json);
}

/* The "render" line of the text report. */
static void print_render_line(FILE *report, bool gpu, const kd_render_stats *stats, int threads)
{
    if (gpu)
        fprintf(report,
                "render      %llu primary rays in %.3f ms on the GPU (kernel time, median of %d "
                "launches): %.2f Mrays/s; ",
                (unsigned long long)stats->num_rays, stats->seconds * 1e3, KD_RENDER_GPU_LAUNCHES,
                stats->rays_per_second * 1e-6);
    else
        fprintf(report, "render      %llu primary rays in %.3f s on %d thread%s (cpu): %.2f Mrays/s; ",
                (unsigned long long)stats->num_rays, stats->seconds, threads, threads == 1 ? "" : "s",
                stats->rays_per_second * 1e-6);
    fprintf(report, "%.1f%% hit; %.1f steps, %.1f triangle tests per ray\n",
            100.0 * (double)stats->num_hits / (double)stats->num_rays,
            (double)stats->total_steps / (double)stats->num_rays,
            (double)stats->total_tests / (double)stats->num_rays);
}

/* The "diffuse" line: the bounce rays, timed apart from the primaries. */
static void print_bounce_line(FILE *report, bool gpu, const kd_render_stats *stats)
{
    fprintf(report, "diffuse     %llu bounce rays (one per primary hit) in %.3f %s: %.2f Mrays/s; %.1f%% hit; "
                    "%.1f steps, %.1f triangle tests per ray\n",
            (unsigned long long)stats->num_bounce_rays, gpu ? stats->bounce_seconds * 1e3 : stats->bounce_seconds,
            gpu ? "ms (kernel time)" : "s", stats->bounce_rays_per_second * 1e-6,
            100.0 * mean(stats->num_bounce_hits, stats->num_bounce_rays),
            mean(stats->bounce_steps, stats->num_bounce_rays), mean(stats->bounce_tests, stats->num_bounce_rays));
}

/* The images asked for and their paths, known before any work. */
static void plan_images(const render_args *args, written_images *images)
{
    images->num = 0;
    for (int k = 0; k < KD_RENDER_NUM_KINDS; k++)
        if (args->images[k])
            images->kinds[images->num++] = k;
    for (int i = 0; i < images->num; i++)
        output_path(args, images->num, (kd_render_image_kind)images->kinds[i], images->paths[i],
                    sizeof images->paths[i]);
}

/* Writes every image planned, each in the format its name asks for. */
static kd_status write_images(const kd_render_buffers *buf, FILE *report, const written_images *images,
                              kd_error *err)
{
    for (int i = 0; i < images->num; i++) {
        kd_image img;
        kd_status st = kd_render_make_image(buf, (kd_render_image_kind)images->kinds[i], &img, err);
        if (!st)
            st = kd_image_write(&img, images->paths[i], err);
        kd_image_free(&img);
        if (st)
            return st;
        if (report)
            fprintf(report, "wrote       %s\n", images->paths[i]);
    }
    return KD_OK;
}

/* Casts the rays into buf and reports: the text line, the images, the JSON. */
static kd_status cast_and_report(const render_args *args, const kd_scene *scene, const kd_camera *cam,
                                 const written_images *images, kd_render_buffers *buf, FILE *report,
                                 kd_cli_progress *progress, kd_error *err)
{
    const int threads = args->threads > 0 ? args->threads : kd_parallel_num_cores();
    kd_render_stats stats;
    kd_cli_progress_begin(progress, "casting rays", "tiles");
    kd_status st = cast_rays(args, scene, cam, progress, buf, &stats, err);
    kd_cli_progress_end(progress);
    if (st)
        return st;
    if (report)
        print_render_line(report, args->device == KD_CLI_DEVICE_GPU, &stats, threads);
    if (report && args->rays == KD_RAYS_DIFFUSE)
        print_bounce_line(report, args->device == KD_CLI_DEVICE_GPU, &stats);
    if ((st = write_images(buf, report, images, err)))
        return st;
    if (!args->json)
        return KD_OK;
    kd_outfile out;
    if ((st = kd_outfile_open(&out, args->json, err)))
        return st;
    write_json(out.file, args, scene, cam, &stats, threads, images);
    return kd_outfile_commit(&out, err);
}

/* Resolves --device: without a CUDA device auto falls back to the CPU,
 * which builds the tree unless a tree file is given. */
static int choose_device(render_args *args)
{
    kd_cli_device device;
    const int code = kd_cli_device_resolve(args->label, (kd_cli_device)args->device, args->quiet,
                                           args->tree ? "using the CPU ray caster"
                                                      : "using the CPU builder and ray caster",
                                           &device);
    args->device = (int)device;
    return code;
}

int kd_cmd_render_as(const char *label, int argc, char **argv)
{
    render_args args;
    int code = parse_args(argc, argv, &args);
    if (code >= 0)
        return code;
    args.label = label;
    written_images images;
    plan_images(&args, &images);
    const char *outputs[KD_RENDER_NUM_KINDS + 1] = {args.json};
    for (int i = 0; i < images.num; i++)
        outputs[i + 1] = images.paths[i];
    if (!kd_cli_check_outputs(label, outputs, images.num + 1))
        return KD_EXIT_FAILURE;
    const bool stdout_taken = kd_cli_is_stdout(args.json) || kd_cli_is_stdout(args.output);
    FILE *report = args.quiet || stdout_taken ? NULL : stdout;
    if ((code = choose_device(&args)) >= 0)
        return code;

    kd_scene scene;
    kd_camera cam;
    kd_cli_progress progress;
    kd_cli_progress_init(&progress, label, args.quiet);
    const kd_cli_scene_args scene_args = {args.scene, args.tree, args.force_tree, args.threads,
                                          (kd_cli_device)args.device, &args.camera, KD_RENDER_DEFAULT_SIZE,
                                          args.device_memory_limit, &progress, args.view};
    if ((code = kd_cli_scene_and_camera(label, &scene_args, report, &scene, &cam)) >= 0)
        return code;
    kd_error err;
    kd_render_buffers buf;
    code = KD_EXIT_FAILURE;
    if (kd_render_buffers_alloc(&buf, cam.width, cam.height, &err) == KD_OK) {
        if (cast_and_report(&args, &scene, &cam, &images, &buf, report, &progress, &err) == KD_OK)
            code = KD_EXIT_OK;
        kd_render_buffers_free(&buf);
    }
    if (code != KD_EXIT_OK)
        kd_cli_error(label, "%s", err.message);
    kd_scene_free(&scene);
    return code;
}

int kd_cmd_render(int argc, char **argv)
{
    return kd_cmd_render_as(k_cmd, argc, argv);
}
