/* scankd bench: per scene and per device, load time, build time (median and
 * min of repeated builds after a warm-up), tree quality (SAH cost and its
 * ratio to the CPU exact-SAH tree, nodes, leaves, depth, references per
 * triangle) and primary rays per second. Table, --json and --csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cli_options.h"
#include "cli_util.h"
#include "commands.h"
#include "cpu_build.h"
#include "cpu_render.h"
#include "gpu_build.h"
#include "gpu_render.h"
#include "kd_median.h"
#include "mesh_load.h"
#include "render_scene.h"
#include "tree_stats.h"

static const char *const k_cmd = "bench";

enum { BENCH_CPU = 1, BENCH_GPU = 2 };

typedef struct bench_args {
    const char **scenes;
    int num_scenes;
    int device;              /* index in k_devices, as asked for */
    int devices;             /* BENCH_CPU | BENCH_GPU, from device */
    int builds;              /* timed builds per scene and device (--repeats) */
    int threads;             /* CPU builder and ray caster workers; 0: all cores */
    int width, height;
    int render_repeats;      /* GPU timed launches */
    const char *json_path, *csv_path;
    int large_split;         /* kd_large_split */
    int small_threshold;
    float empty_space;       /* < 0: the build rules' min empty fraction */
} bench_args;

typedef struct bench_row {
    char scene[128];
    const char *device;
    uint32_t num_triangles;
    double load_ms;
    double build_median_ms, build_min_ms;
    kd_tree_stats stats;
    double sah_ratio;        /* to the CPU exact-SAH tree */
    double rays_per_second;
    int width, height;
} bench_row;

/* ---- Options ------------------------------------------------------------------ */

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd bench SCENE.obj... [options]\n"
               "\n"
               "For each scene and device: OBJ load time, build time (median and min of\n"
               "repeated builds after one warm-up build; GPU: triangles already in device\n"
               "memory to finished tree), SAH cost and its ratio to the CPU exact-SAH tree,\n"
               "nodes, leaves, depth, references per triangle, and primary rays per second\n"
               "(CPU: wall time on all cores; GPU: median kernel time).\n");
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
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json_path),
     .help = "write the results as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_STRING, .name = "--csv", .metavar = "FILE|-", .offset = ARG(csv_path),
     .help = "write the results as CSV ('-': stdout, which then carries only the CSV)"},
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
    if (a->device == BENCH_DEVICE_AUTO && !(a->devices & BENCH_GPU))
        fprintf(stderr, "scankd bench: no CUDA device, benchmarking the CPU path only\n");
    return -1;
}

/* ---- Steps ---------------------------------------------------------------------- */

/* Builds on the CPU builds+1 times; keeps the last tree. */
static kd_status bench_cpu_build(const kd_mesh *mesh, int builds, int threads, kd_tree *tree, bench_row *row,
                                 kd_error *err)
{
    kd_build_params params;
    kd_build_params_default(&params);
    params.num_threads = threads;
    double *ms = malloc(sizeof(double) * (size_t)builds);
    if (!ms)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory");
    kd_status st = KD_OK;
    for (int b = -1; b < builds && !st; b++) {
        kd_tree_free(tree);
        double t0 = kd_build_now_ms();
        st = kd_build_cpu(mesh, &params, tree, NULL, err);
        if (b >= 0)
            ms[b] = kd_build_now_ms() - t0;
    }
    if (!st) {
        row->build_median_ms = kd_median(ms, builds);
        row->build_min_ms = ms[0];
    }
    free(ms);
    return st;
}

static kd_status bench_cpu_render(const kd_tree *tree, const kd_mesh *mesh, const kd_camera *cam, int threads,
                                  bench_row *row, kd_error *err)
{
    float *tri_verts = NULL;
    kd_render_buffers buf = {0};
    kd_trace_scene trace;
    kd_render_stats rs;
    kd_render_options opts = {threads, NULL, NULL};
    kd_status st = kd_trace_gather_vertices(mesh, &tri_verts, err);
    if (!st)
        st = kd_trace_scene_init(&trace, tree, tri_verts, mesh->num_triangles, err);
    if (!st)
        st = kd_render_buffers_alloc(&buf, cam->width, cam->height, err);
    if (!st)
        st = kd_render_cpu(&trace, cam, &opts, &buf, &rs, err);
    if (!st)
        row->rays_per_second = rs.rays_per_second;
    kd_render_buffers_free(&buf);
    free(tri_verts);
    return st;
}

static kd_status bench_gpu(const kd_mesh *mesh, const bench_args *a, const kd_camera *cam,
                           kd_tree *tree, bench_row *row, kd_error *err)
{
    kd_gpu_builder *builder = NULL;
    kd_gpu_scene *scene = NULL;
    kd_gpu_build_options opts;
    kd_gpu_build_options_default(&opts);
    opts.large_split = (kd_large_split)a->large_split;
    opts.small_node_threshold = a->small_threshold;
    opts.empty_space_ratio = a->empty_space;
    double *ms = malloc(sizeof(double) * (size_t)a->builds);
    if (!ms)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory");
    kd_status st = kd_gpu_builder_create(&builder, 0, err);
    if (!st)
        st = kd_gpu_builder_set_mesh(builder, mesh, err);
    for (int b = -1; b < a->builds && !st; b++) {
        kd_gpu_build_profile prof;
        st = kd_gpu_builder_build(builder, &opts, &prof, err);
        if (!st && b >= 0)
            ms[b] = prof.build_ms;
    }
    if (!st) {
        row->build_median_ms = kd_median(ms, a->builds);
        row->build_min_ms = ms[0];
        st = kd_gpu_builder_download(builder, tree, err);
    }
    if (!st)
        st = kd_gpu_scene_from_builder(&scene, builder, err);
    if (!st) {
        kd_gpu_render_stats rs;
        st = kd_gpu_render(scene, cam, a->render_repeats, NULL, &rs, err);
        if (!st)
            row->rays_per_second = rs.rays_per_second;
    }
    kd_gpu_scene_destroy(scene);
    kd_gpu_builder_destroy(builder);
    free(ms);
    return st;
}

static void print_table(FILE *f, const bench_row *rows, int n)
{
    fprintf(f, "%-28s %-4s %9s %8s %10s %10s %8s %6s %9s %9s %5s %8s %10s\n", "scene", "dev",
            "triangles", "load ms", "build ms", "build min", "SAH", "ratio", "nodes", "leaves",
            "depth", "refs/tri", "Mrays/s");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(f, "%-28s %-4s %9u %8.1f %10.2f %10.2f %8.2f %6.3f %9u %9u %5u %8.2f %10.1f\n",
                r->scene, r->device, r->num_triangles, r->load_ms, r->build_median_ms,
                r->build_min_ms, r->stats.sah_cost, r->sah_ratio, r->stats.num_nodes,
                r->stats.num_leaves, r->stats.max_leaf_depth, r->stats.refs_per_triangle,
                r->rays_per_second / 1e6);
    }
}

/* A CSV field, quoted (quotes doubled) when it holds a comma, a quote or a
 * line break: a scene's name is the user's. */
static void write_csv_field(FILE *f, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', f);
        fputc(*text, f);
    }
    fputc('"', f);
}

static kd_status write_outputs(const bench_args *a, const bench_row *rows, int n, kd_error *err)
{
    if (a->csv_path) {
        kd_outfile out;
        kd_status st = kd_outfile_open(&out, a->csv_path, err);
        if (st)
            return st;
        fprintf(out.file, "scene,device,triangles,load_ms,build_median_ms,build_min_ms,sah_cost,"
                          "sah_ratio_to_cpu,nodes,leaves,empty_leaves,max_depth,refs_per_triangle,"
                          "width,height,rays_per_second\n");
        for (int i = 0; i < n; i++) {
            const bench_row *r = &rows[i];
            write_csv_field(out.file, r->scene);
            fprintf(out.file, ",%s,%u,%.3f,%.4f,%.4f,%.4f,%.4f,%u,%u,%u,%u,%.4f,%d,%d,%.0f\n", r->device,
                    r->num_triangles, r->load_ms, r->build_median_ms,
                    r->build_min_ms, r->stats.sah_cost, r->sah_ratio, r->stats.num_nodes,
                    r->stats.num_leaves, r->stats.num_empty_leaves, r->stats.max_leaf_depth,
                    r->stats.refs_per_triangle, r->width, r->height, r->rays_per_second);
        }
        if ((st = kd_outfile_commit(&out, err)))
            return st;
    }
    if (a->json_path) {
        kd_outfile out;
        kd_status st = kd_outfile_open(&out, a->json_path, err);
        if (st)
            return st;
        kd_json json;
        kd_json_init(&json, out.file);
        kd_json_begin_object(&json);
        kd_json_kv_int(&json, "builds", a->builds);
        kd_json_key(&json, "results");
        kd_json_begin_array(&json);
        for (int i = 0; i < n; i++) {
            const bench_row *r = &rows[i];
            kd_json_begin_object(&json);
            kd_json_kv_string(&json, "scene", r->scene);
            kd_json_kv_string(&json, "device", r->device);
            kd_json_kv_number(&json, "load_ms", r->load_ms);
            kd_json_kv_number(&json, "build_median_ms", r->build_median_ms);
            kd_json_kv_number(&json, "build_min_ms", r->build_min_ms);
            kd_json_kv_number(&json, "sah_ratio_to_cpu", r->sah_ratio);
            kd_json_kv_int(&json, "width", r->width);
            kd_json_kv_int(&json, "height", r->height);
            kd_json_kv_number(&json, "rays_per_second", r->rays_per_second);
            kd_json_key(&json, "tree");
            kd_json_begin_object(&json);
            kd_tree_stats_json(&json, &r->stats, NULL);
            kd_json_end_object(&json);
            kd_json_end_object(&json);
        }
        kd_json_end_array(&json);
        kd_json_end_object(&json);
        if ((st = kd_outfile_commit(&out, err)))
            return st;
    }
    return KD_OK;
}

/* The scene's rows: the CPU's when timed, the GPU's when asked for. The CPU
 * exact-SAH tree is built either way: it is the yardstick of every SAH
 * ratio. */
static kd_status bench_scene(const bench_args *a, const char *path, bench_row *rows, int *num_rows,
                             kd_error *err)
{
    kd_sah_constants constants;
    kd_sah_constants_default(&constants);
    kd_mesh mesh = {0};
    kd_tree cpu_tree = {0}, gpu_tree = {0};
    double t0 = kd_build_now_ms();
    kd_status st = kd_mesh_load_file(path, &mesh, NULL, err);
    bench_row base = {0};
    base.load_ms = kd_build_now_ms() - t0;
    kd_camera cam;
    kd_camera_request req = {0};
    if (!st)
        st = kd_camera_setup_mesh(&cam, &req, &mesh, a->width, a->height, err);
    if (!st) {
        kd_scene_name(path, base.scene, sizeof base.scene);
        base.num_triangles = mesh.num_triangles;
        base.width = a->width;
        base.height = a->height;
    }
    fprintf(stderr, "scankd bench: %s (%u triangles)\n", base.scene, mesh.num_triangles);
    bench_row cpu = base;
    cpu.device = "cpu";
    const int timed_cpu = a->devices & BENCH_CPU;
    if (!st)
        st = bench_cpu_build(&mesh, timed_cpu ? a->builds : 0, a->threads, &cpu_tree, &cpu, err);
    if (!st) {
        kd_tree_compute_stats(&cpu_tree, &constants, &cpu.stats);
        cpu.sah_ratio = 1.0;
    }
    if (!st && timed_cpu && !(st = bench_cpu_render(&cpu_tree, &mesh, &cam, a->threads, &cpu, err)))
        rows[(*num_rows)++] = cpu;
    if (!st && (a->devices & BENCH_GPU)) {
        bench_row gpu = base;
        gpu.device = "gpu";
        if (!(st = bench_gpu(&mesh, a, &cam, &gpu_tree, &gpu, err))) {
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
    kd_status st = rows ? KD_OK : kd_error_set(&err, KD_ERR_NOMEM, "out of memory");
    for (int s = 0; s < a.num_scenes && !st; s++)
        st = bench_scene(&a, a.scenes[s], rows, &num_rows, &err);
    /* A '-' output takes stdout for its data alone. */
    if (!st && !kd_cli_is_stdout(a.json_path) && !kd_cli_is_stdout(a.csv_path)) {
        printf("primary rays at %dx%d, default framing; build ms: median of %d after a warm-up\n",
               a.width, a.height, a.builds);
        print_table(stdout, rows, num_rows);
    }
    if (!st)
        st = write_outputs(&a, rows, num_rows, &err);
    if (st)
        kd_cli_error(k_cmd, "%s", err.message);
    free(rows);
    free(a.scenes);
    return st ? KD_EXIT_FAILURE : KD_EXIT_OK;
}
