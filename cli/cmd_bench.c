/* scankd bench: per scene and per device, load time, build time (median and
 * min of repeated builds after a warm-up), tree quality (SAH cost and its
 * ratio to the CPU exact-SAH tree, nodes, leaves, depth, references per
 * triangle) and primary rays per second; on the GPU also the rays per
 * second of the CPU tree cast by the same GPU caster and camera, so that the
 * two trees are compared by rays as well as by SAH. Table, --json and --csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cli_progress.h"
#include "cmd_bench.h"
#include "cmd_render_common.h"
#include "cli_options.h"
#include "cli_util.h"
#include "commands.h"
#include "cpu_build.h"
#include "cpu_render.h"
#include "gpu_build.h"
#include "gpu_render.h"
#include "kd_median.h"
#include "render_scene.h"
#include "views.h"

static const char *const k_cmd = "bench";

/* ---- Options ------------------------------------------------------------------ */

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd bench SCENE.obj... [options]\n"
               "\n"
               "For each scene and device: OBJ load time, build time (median and min of\n"
               "repeated builds after one warm-up build; GPU: triangles already in device\n"
               "memory to finished tree), SAH cost and its ratio to the CPU exact-SAH tree,\n"
               "nodes, leaves, depth, references per triangle, and rays per second (CPU:\n"
               "wall time on all cores; GPU: median kernel time of kernels that trace and\n"
               "write the hit alone) of two kinds: primary rays, and diffuse rays, one\n"
               "cosine-weighted bounce from each primary hit (counting the bounce rays cast,\n"
               "timed apart). GPU rows also give the primary rays per second of the CPU tree\n"
               "cast on the GPU (same caster, camera and launches), the tree-quality\n"
               "yardstick in rays.\n");
}

/* In BENCH_DEVICE_* order. */
static const char *const k_devices[] = {"cpu", "gpu", "both", "auto", NULL};
enum { BENCH_DEVICE_CPU, BENCH_DEVICE_GPU, BENCH_DEVICE_BOTH, BENCH_DEVICE_AUTO };

/* In kd_large_split's order. */
static const char *const k_large_splits[] = {"median", "sah", NULL};

static void set_defaults(void *args)
{
    bench_args *a = args;
    memset(a, 0, sizeof *a);
    a->device = BENCH_DEVICE_AUTO;
    a->builds = 10;
    a->width = 1920;
    a->height = 1080;
    a->render_repeats = 20;
    kd_gpu_build_options gpu;
    kd_gpu_build_options_default(&gpu);
    a->large_split = (int)gpu.large_split;
    a->small_threshold = gpu.small_node_threshold;
    a->empty_space = gpu.empty_space_ratio;
    a->max_refs = gpu.max_refs_per_triangle;
}

/* A scene: one more to benchmark (dest: the whole bench_args). */
static int parse_scene(const char *command, int argc, char **argv, int *i, void *dest)
{
    (void)command;
    (void)argc;
    bench_args *a = dest;
    a->scenes[a->num_scenes++] = argv[*i];
    return KD_EXIT_OK;
}

/* --size WxH or W H (dest: the whole bench_args). */
static int parse_size(const char *command, int argc, char **argv, int *i, void *dest)
{
    bench_args *a = dest;
    kd_camera_request req = {0};
    kd_error err;
    if (kd_camera_parse_option(argc, argv, i, &req, &err) < 0)
        return kd_cli_usage_error(command, "%s", err.message);
    a->width = req.width;
    a->height = req.height;
    return KD_EXIT_OK;
}

#define ARG(field) offsetof(bench_args, field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .parse = parse_scene},
    {.kind = KD_CLI_ENUM, .name = "--device", .metavar = "KIND", .offset = ARG(device), .names = k_devices,
     .help = "cpu, gpu, both or auto (default %D: both when a GPU is present, else cpu)"},
    {.kind = KD_CLI_INT, .name = "--repeats", .alias = "--builds", .metavar = "N", .offset = ARG(builds),
     .min = 1, .max = 1000, .help = "timed builds per scene and device, %R (default %D)"},
    {.kind = KD_CLI_INT, .name = "--threads", .metavar = "N", .offset = ARG(threads), .min = 1, .max = 256,
     .help = "CPU builder and ray caster worker threads, %R (default: all cores)"},
    {.kind = KD_CLI_CUSTOM, .name = "--size", .metavar = "WxH", .parse = parse_size,
     .help = "image for the ray-casting figure, WxH (or W H), each 1..16384 (default 1920x1080)"},
    KD_CLI_VIEW_OPTION(ARG(view)),
    {.kind = KD_CLI_INT, .name = "--render-repeats", .metavar = "N", .offset = ARG(render_repeats), .min = 1,
     .max = 1000, .help = "timed GPU render launches, %R (default %D)"},
    {.kind = KD_CLI_ENUM, .name = "--large-split", .metavar = "KIND", .offset = ARG(large_split),
     .names = k_large_splits, .help = "GPU large-node split: median or sah (default %D)"},
    {.kind = KD_CLI_INT, .name = "--small-threshold", .metavar = "N", .offset = ARG(small_threshold),
     .min = 1, .max = KD_GPU_SMALL_NODE_MAX, .help = "GPU small-stage node size, %R (default %D)"},
    {.kind = KD_CLI_FLOAT, .name = "--empty-space", .metavar = "F", .offset = ARG(empty_space), .min = 0,
     .max = 1,
     .help = "GPU large and medium stages' empty cuts, %R (default: the build rules' min empty "
             "fraction)"},
    KD_CLI_MAX_REFS_OPTION(ARG(max_refs), 0),
    KD_CLI_MEMORY_LIMIT_OPTION(ARG(device_memory_limit), 0),
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json_path),
     .help = "write the results as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_STRING, .name = "--csv", .metavar = "FILE|-", .offset = ARG(csv_path),
     .help = "write the results as CSV ('-': stdout, which then carries only the CSV)"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet),
     .help = "no progress line and no note of each scene on stderr"},
};

#undef ARG

static const kd_cli_command k_command = {
    .name = "bench",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .style = KD_CLI_SAY_EXPECTED,
    .args_size = sizeof(bench_args),
    .defaults = set_defaults,
};

/* Parses the command line into a (whose scenes the caller frees); returns
 * -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    set_defaults(a);
    a->scenes = calloc((size_t)argc, sizeof *a->scenes);
    if (!a->scenes)
        return kd_cli_usage_error(k_cmd, "out of memory");
    const int code = kd_cli_parse(&k_command, argc, argv, a, NULL);
    if (code >= 0)
        return code;
    if (a->num_scenes == 0)
        return kd_cli_usage_error(k_cmd, "no scene given");
    if (kd_cli_is_stdout(a->csv_path) && kd_cli_is_stdout(a->json_path))
        return kd_cli_usage_error(k_cmd, "--csv and --json cannot both write to stdout");
    const char *outputs[] = {a->json_path, a->csv_path};
    if (!kd_cli_check_outputs(k_cmd, outputs, 2))
        return KD_EXIT_FAILURE;
    static const int devices[] = {BENCH_CPU, BENCH_GPU, BENCH_CPU | BENCH_GPU, BENCH_CPU};
    a->devices = devices[a->device];
    if (a->device == BENCH_DEVICE_AUTO && kd_cli_have_gpu())
        a->devices = BENCH_CPU | BENCH_GPU;
    if ((a->devices & BENCH_GPU) && !kd_cli_have_gpu()) {
        kd_cli_error(k_cmd, "no CUDA device: --device %s needs a GPU", k_devices[a->device]);
        return KD_EXIT_FAILURE;
    }
    if (a->device == BENCH_DEVICE_AUTO && !(a->devices & BENCH_GPU) && !a->quiet)
        fprintf(stderr, "scankd bench: no CUDA device, benchmarking the CPU path only\n");
    /* Every scene must have the view before any work is done. */
    for (int s = 0; a->view && s < a->num_scenes; s++) {
        kd_camera_request req = {0};
        bool computed;
        const int view_code = kd_cli_view_resolve(k_cmd, a->scenes[s], a->view, &req, &computed);
        if (view_code >= 0)
            return view_code;
    }
    return -1;
}

/* ---- Steps ---------------------------------------------------------------------- */

/* A build's own progress as a share of a run of builds: build k of n. */
typedef struct builds_progress {
    kd_cli_progress *line;
    size_t build, builds;
} builds_progress;

static void build_progress(void *ctx, size_t done, size_t total)
{
    const builds_progress *b = ctx;
    kd_cli_progress_update(b->line, b->build * total + done, b->builds * total);
}

/* Builds on the CPU builds+1 times (the first untimed, reported apart);
 * keeps the last tree. */
static kd_status bench_cpu_build(const kd_mesh *mesh, int builds, int threads, kd_tree *tree, bench_row *row,
                                 kd_cli_progress *progress, kd_error *err)
{
    kd_build_params params;
    kd_build_params_default(&params);
    params.num_threads = threads;
    double *ms = malloc(sizeof(double) * (size_t)(builds + 1));
    if (!ms)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory");
    builds_progress line = {progress, 0, (size_t)builds + 1};
    kd_status st = KD_OK;
    for (int b = 0; b <= builds && !st; b++) {
        kd_tree_free(tree);
        line.build = (size_t)b;
        double t0 = kd_build_now_ms();
        st = kd_build_cpu_progress(mesh, &params, build_progress, &line, tree, NULL, err);
        ms[b] = kd_build_now_ms() - t0;
    }
    if (!st) {
        row->first_build_ms = ms[0];
        row->build_median_ms = builds > 0 ? kd_median(ms + 1, builds) : 0.0;
        row->build_min_ms = builds > 0 ? ms[1] : 0.0;
        for (int b = 2; b <= builds; b++)
            row->build_min_ms = ms[b] < row->build_min_ms ? ms[b] : row->build_min_ms;
    }
    free(ms);
    return st;
}

static kd_status bench_cpu_render(const kd_tree *tree, const kd_mesh *mesh, const kd_camera *cam, int threads,
                                  bench_row *row, kd_cli_progress *progress, kd_error *err)
{
    float *tri_verts = NULL;
    kd_render_buffers buf = {0};
    kd_trace_scene trace;
    kd_render_stats rs;
    kd_render_options opts = {threads, kd_cli_progress_update, progress, KD_RAYS_DIFFUSE, KD_BOUNCE_DEFAULT_SEED};
    kd_status st = kd_trace_gather_vertices(mesh, &tri_verts, err);
    if (!st)
        st = kd_trace_scene_init(&trace, tree, tri_verts, mesh->num_triangles, err);
    if (!st)
        st = kd_render_buffers_alloc(&buf, cam->width, cam->height, err);
    if (!st)
        st = kd_render_cpu(&trace, cam, &opts, &buf, &rs, err);
    if (!st) {
        row->rays_per_second = rs.rays_per_second;
        row->diffuse_rays_per_second = rs.bounce_rays_per_second;
    }
    kd_render_buffers_free(&buf);
    free(tri_verts);
    return st;
}

/* The CPU tree cast by the GPU caster, timed as the GPU tree is. */
static kd_status bench_gpu_render_tree(const kd_tree *tree, const kd_mesh *mesh, const bench_args *a,
                                       const kd_camera *cam, double *rays_per_second, kd_error *err)
{
    float *tri_verts = NULL;
    kd_gpu_scene *scene = NULL;
    kd_status st = kd_trace_gather_vertices(mesh, &tri_verts, err);
    if (!st)
        st = kd_gpu_scene_upload(&scene, tree, tri_verts, mesh->num_triangles, err);
    if (!st) {
        kd_gpu_render_stats rs;
        const kd_gpu_render_options options = {a->render_repeats, KD_RAYS_PRIMARY, 0, 0};
        st = kd_gpu_render_with(scene, cam, &options, NULL, &rs, err);
        if (!st)
            *rays_per_second = rs.rays_per_second;
    }
    kd_gpu_scene_destroy(scene);
    free(tri_verts);
    return st;
}

/* builds+1 GPU builds on one builder (the first, which sizes the buffers,
 * untimed and reported apart), with the peak device memory of any of them. */
static kd_status bench_gpu_builds(kd_gpu_builder *builder, const bench_args *a, bench_row *row,
                                  kd_cli_progress *progress, kd_error *err)
{
    kd_gpu_build_options opts;
    kd_gpu_build_options_default(&opts);
    opts.large_split = (kd_large_split)a->large_split;
    opts.small_node_threshold = a->small_threshold;
    opts.empty_space_ratio = a->empty_space;
    opts.max_refs_per_triangle = a->max_refs;
    opts.max_device_bytes = (size_t)a->device_memory_limit;
    double *ms = malloc(sizeof(double) * (size_t)(a->builds + 1));
    if (!ms)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory");
    kd_status st = KD_OK;
    for (int b = 0; b <= a->builds && !st; b++) {
        kd_gpu_build_profile prof;
        st = kd_gpu_builder_build(builder, &opts, &prof, err);
        ms[b] = prof.build_ms;
        if (!st && prof.peak_device_bytes > row->peak_device_bytes)
            row->peak_device_bytes = prof.peak_device_bytes;
        kd_cli_progress_update(progress, (size_t)b + 1, (size_t)a->builds + 1);
    }
    if (!st) {
        row->first_build_ms = ms[0];
        row->build_median_ms = kd_median(ms + 1, a->builds);
        row->build_min_ms = ms[1];
        for (int b = 2; b <= a->builds; b++)
            row->build_min_ms = ms[b] < row->build_min_ms ? ms[b] : row->build_min_ms;
    }
    free(ms);
    return st;
}

static kd_status bench_gpu(const kd_mesh *mesh, const bench_args *a, const kd_camera *cam, kd_tree *tree,
                           bench_row *row, kd_cli_progress *progress, kd_error *err)
{
    kd_gpu_builder *builder = NULL;
    kd_gpu_scene *scene = NULL;
    kd_cli_progress_begin(progress, "building on the GPU", "builds");
    kd_status st = kd_gpu_builder_create(&builder, 0, err);
    if (!st)
        st = kd_gpu_builder_set_mesh(builder, mesh, err);
    if (!st)
        st = bench_gpu_builds(builder, a, row, progress, err);
    kd_cli_progress_begin(progress, "casting rays on the GPU", NULL);
    if (!st)
        st = kd_gpu_builder_download(builder, tree, err);
    if (!st)
        st = kd_gpu_scene_from_builder(&scene, builder, err);
    if (!st) {
        kd_gpu_render_stats rs;
        const kd_gpu_render_options options = {a->render_repeats, KD_RAYS_DIFFUSE, KD_BOUNCE_DEFAULT_SEED, 0};
        st = kd_gpu_render_with(scene, cam, &options, NULL, &rs, err);
        if (!st) {
            row->rays_per_second = rs.rays_per_second;
            row->diffuse_rays_per_second = rs.bounce_rays_per_second;
        }
    }
    kd_cli_progress_end(progress);
    kd_gpu_scene_destroy(scene);
    kd_gpu_builder_destroy(builder);
    return st;
}

/* The mesh and the row every device's row starts from. */
static kd_status load_scene(const bench_args *a, const char *path, kd_mesh *mesh, bench_row *base,
                            kd_cli_progress *progress, kd_error *err)
{
    double t0 = kd_build_now_ms();
    kd_mesh_load_info info;
    kd_status st = kd_scene_load_mesh(path, mesh, &info, progress,
                                      (a->devices & BENCH_GPU) ? KD_SCENE_GPU_BUILD : KD_SCENE_GPU_NONE, err);
    base->load_ms = kd_build_now_ms() - t0;
    if (info.warning[0])
        kd_cli_error(k_cmd, "warning: %s", info.warning);
    kd_scene_name(path, base->scene, sizeof base->scene);
    base->view = a->view ? a->view : "default";
    if (!st) {
        base->num_triangles = mesh->num_triangles;
        base->width = a->width;
        base->height = a->height;
    }
    if (!a->quiet)
        fprintf(stderr, "scankd bench: %s (%u triangles)\n", base->scene, mesh->num_triangles);
    return st;
}

/* The camera of --view (default: the automatic framing), computed views
 * traced through the CPU tree. */
static kd_status bench_camera(const bench_args *a, const char *path, const kd_mesh *mesh, const kd_tree *tree,
                              kd_camera *cam, kd_error *err)
{
    kd_camera_request req = {0};
    bool computed = false;
    if (a->view && kd_cli_view_resolve(k_cmd, path, a->view, &req, &computed) >= 0)
        return kd_error_set(err, KD_ERR_INVALID, "--view %s: no such view of %s", a->view, path);
    if (computed) {
        float *tri_verts = NULL;
        kd_trace_scene trace;
        kd_status st = kd_trace_gather_vertices(mesh, &tri_verts, err);
        if (!st)
            st = kd_trace_scene_init(&trace, tree, tri_verts, mesh->num_triangles, err);
        if (!st)
            st = kd_view_computed(a->view, &trace, &req, err);
        free(tri_verts);
        KD_TRY(st);
    }
    return kd_camera_setup_mesh(cam, &req, mesh, a->width, a->height, err);
}

/* The CPU row: the exact-SAH tree is built whether or not the CPU is timed
 * (it is the yardstick of every SAH ratio), then the camera is set up (a
 * computed view traces through that tree), and the CPU casts only when it
 * is timed. */
static kd_status bench_cpu(const bench_args *a, const char *path, const kd_mesh *mesh, kd_camera *cam,
                           kd_tree *cpu_tree, bench_row *cpu, kd_cli_progress *progress, kd_error *err)
{
    kd_sah_constants constants;
    kd_sah_constants_default(&constants);
    const bool timed = a->devices & BENCH_CPU;
    kd_cli_progress_begin(progress, timed ? "building on the CPU" : "building the CPU tree", NULL);
    kd_status st = bench_cpu_build(mesh, timed ? a->builds : 0, a->threads, cpu_tree, cpu, progress, err);
    if (!st) {
        kd_tree_compute_stats(cpu_tree, &constants, &cpu->stats);
        cpu->sah_ratio = 1.0;
    }
    if (!st)
        st = bench_camera(a, path, mesh, cpu_tree, cam, err);
    kd_cli_progress_begin(progress, "casting rays on the CPU", "tiles");
    if (!st && timed)
        st = bench_cpu_render(cpu_tree, mesh, cam, a->threads, cpu, progress, err);
    kd_cli_progress_end(progress);
    return st;
}

/* The scene's rows: the CPU's when timed, the GPU's when asked for. */
static kd_status bench_scene(const bench_args *a, const char *path, bench_row *rows, int *num_rows,
                             kd_cli_progress *progress, kd_error *err)
{
    kd_mesh mesh = {0};
    kd_tree cpu_tree = {0}, gpu_tree = {0};
    kd_camera cam;
    bench_row base = {0};
    kd_status st = load_scene(a, path, &mesh, &base, progress, err);
    bench_row cpu = base;
    cpu.device = "cpu";
    if (!st)
        st = bench_cpu(a, path, &mesh, &cam, &cpu_tree, &cpu, progress, err);
    if (!st && (a->devices & BENCH_CPU))
        rows[(*num_rows)++] = cpu;
    if (!st && (a->devices & BENCH_GPU)) {
        bench_row gpu = base;
        gpu.device = "gpu";
        if (!(st = bench_gpu(&mesh, a, &cam, &gpu_tree, &gpu, progress, err)))
            st = bench_gpu_render_tree(&cpu_tree, &mesh, a, &cam, &gpu.cpu_tree_rays_per_second, err);
        if (!st) {
            kd_sah_constants constants;
            kd_sah_constants_default(&constants);
            kd_tree_compute_stats(&gpu_tree, &constants, &gpu.stats);
            gpu.sah_ratio = gpu.stats.sah_cost / cpu.stats.sah_cost;
            rows[(*num_rows)++] = gpu;
        }
    }
    kd_tree_free(&cpu_tree);
    kd_tree_free(&gpu_tree);
    kd_mesh_free(&mesh);
    return st;
}

int kd_cmd_bench(int argc, char **argv)
{
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        free(a.scenes);
        return rc;
    }
    bench_row *rows = calloc((size_t)a.num_scenes * 2, sizeof *rows);
    int num_rows = 0;
    kd_error err = {0};
    kd_cli_progress progress;
    kd_cli_progress_init(&progress, k_cmd, a.quiet);
    kd_status st = rows ? KD_OK : kd_error_set(&err, KD_ERR_NOMEM, "out of memory");
    for (int s = 0; s < a.num_scenes && !st; s++)
        st = bench_scene(&a, a.scenes[s], rows, &num_rows, &progress, &err);
    /* A '-' output takes stdout for its data alone. */
    if (!st && !kd_cli_is_stdout(a.json_path) && !kd_cli_is_stdout(a.csv_path)) {
        printf("rays at %dx%d, view %s; Mrays/s: primary rays; diffuse: Mrays/s of one diffuse bounce from "
               "each primary hit, timed apart; build ms: median of %d after a first, untimed build "
               "(given apart: first ms); Mtri/s: millions of triangles built per second; peak MiB: the GPU "
               "builder's device memory\n",
               a.width, a.height, a.view ? a.view : "default (outside framing)", a.builds);
        kd_bench_print_table(stdout, rows, num_rows);
    }
    if (!st)
        st = kd_bench_write_outputs(&a, rows, num_rows, &err);
    if (st)
        kd_cli_error(k_cmd, "%s", err.message);
    free(rows);
    free(a.scenes);
    return st ? KD_EXIT_FAILURE : KD_EXIT_OK;
}
