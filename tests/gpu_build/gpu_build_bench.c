/* Benchmark of the GPU builder (a program, not a test): for each scene, the
 * build time from triangles in GPU memory to the finished tree on the device
 * (median and min of --builds builds after --warmup), the tree's statistics,
 * the CPU exact-SAH builder's time and cost next to it, and optionally the
 * in-build reduction profile over every rung of the ladder.
 *
 *   gpu_build_bench [--builds N] [--warmup N] [--split median|sah]
 *                   [--min-empty-fraction F] [--empty-space F] [--max-refs R] [--bins B] [--medium-nodes N] [--medium-refs R] [--medium-block-refs R] [--small-threshold N] [--keep-subtrees] [--depth-offset K] [--reduce-profile] [--profile-builds N] [--no-cpu] SCENE.obj...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cpu_build.h"
#include "gpu_build.h"
#include "gpu_render.h"
#include "obj_loader.h"
#include "tree_stats.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct bench_opts {
    int builds, warmup, profile_builds;
    int reduce_profile, cpu, render;
    int depth_offset; /* added to the depth cap pbrt's rule gives each scene */
    kd_gpu_build_options build;
} bench_opts;

static int usage(void)
{
    fprintf(stderr, "usage: gpu_build_bench [--builds N] [--warmup N] [--split median|sah] "
                    "[--min-empty-fraction F] [--empty-space F] [--max-refs R] [--bins B] [--medium-nodes N] [--medium-refs R] [--medium-block-refs R] [--small-threshold N] [--keep-subtrees] [--depth-offset K] [--reduce-profile] [--profile-builds N] [--no-cpu] [--no-render] SCENE.obj...\n");
    return 2;
}

static void print_stats(const char *who, double ms_median, double ms_min, const kd_tree_stats *s,
                        double ref_sah)
{
    printf("  %-4s build %9.3f ms median %9.3f ms min | SAH %8.3f", who, ms_median, ms_min,
           s->sah_cost);
    if (ref_sah > 0)
        printf(" (%.3fx CPU)", s->sah_cost / ref_sah);
    printf(" | nodes %u leaves %u (empty %u) depth %u refs/tri %.2f | steps %.2f tests %.2f\n",
           s->num_nodes, s->num_leaves, s->num_empty_leaves, s->max_leaf_depth,
           s->refs_per_triangle, s->expected_traversal_steps, s->expected_triangle_tests);
}

static int bench_scene(const char *path, const bench_opts *bo)
{
    kd_error err;
    kd_mesh mesh;
    double t0 = now_ms();
    if (kd_obj_load_file(path, &mesh, &err) != KD_OK) {
        fprintf(stderr, "gpu_build_bench: %s\n", err.message);
        return 1;
    }
    double load_ms = now_ms() - t0;
    printf("%s: %u triangles, loaded in %.1f ms\n", path, mesh.num_triangles, load_ms);

    kd_gpu_build_options build = bo->build;
    if (bo->depth_offset != 0) { /* the CPU tree below keeps pbrt's depth */
        const int depth = kd_build_max_depth(&build.params, mesh.num_triangles) + bo->depth_offset;
        build.params.max_depth = depth < 0 ? 0 : depth;
    }
    kd_gpu_builder *b = NULL;
    kd_status st = kd_gpu_builder_create(&b, 0, &err);
    if (st == KD_OK)
        st = kd_gpu_builder_set_mesh(b, &mesh, &err);
    double *ms = (double *)calloc((size_t)bo->builds + 1, sizeof(double));
    kd_gpu_build_profile prof;
    for (int i = 0; st == KD_OK && i < bo->warmup + bo->builds; i++) {
        st = kd_gpu_builder_build(b, &build, &prof, &err);
        if (i >= bo->warmup)
            ms[i - bo->warmup] = prof.build_ms;
    }
    kd_tree gpu_tree;
    memset(&gpu_tree, 0, sizeof gpu_tree);
    if (st == KD_OK)
        st = kd_gpu_builder_download(b, &gpu_tree, &err);
    if (st != KD_OK) {
        fprintf(stderr, "gpu_build_bench: %s: %s\n", path, err.message);
        free(ms);
        kd_gpu_builder_destroy(b);
        kd_mesh_free(&mesh);
        return 1;
    }
    qsort(ms, (size_t)bo->builds, sizeof(double), cmp_double);
    double gpu_median = ms[bo->builds / 2], gpu_min = ms[0];
    kd_sah_constants c;
    kd_sah_constants_default(&c);
    kd_tree_stats gs, cs;
    kd_tree_compute_stats(&gpu_tree, &c, &gs);

    double ref_sah = 0;
    if (bo->cpu) {
        kd_tree cpu_tree;
        double c0 = now_ms();
        if (kd_build_cpu(&mesh, &bo->build.params, &cpu_tree, NULL, &err) == KD_OK) {
            double cpu_ms = now_ms() - c0;
            kd_tree_compute_stats(&cpu_tree, &c, &cs);
            ref_sah = cs.sah_cost;
            print_stats("CPU", cpu_ms, cpu_ms, &cs, 0);
            kd_tree_free(&cpu_tree);
        } else {
            fprintf(stderr, "gpu_build_bench: CPU build: %s\n", err.message);
        }
    }
    print_stats("GPU", gpu_median, gpu_min, &gs, ref_sah);
    printf("       large split %s, %u large levels (%u empty cuts in a row), %u medium nodes (%u empty cuts in a row, %u by blocks, "
           "%u retries), %u small roots, %u host syncs, %.1f MiB on the device\n",
           kd_large_split_name(bo->build.large_split), prof.num_large_levels, prof.num_large_cuts,
           prof.num_medium_nodes,
           prof.num_medium_cuts, prof.num_medium_block_nodes, prof.num_medium_retries, prof.num_small_roots,
           prof.num_host_syncs, (double)prof.device_bytes / (1024.0 * 1024.0));

    /* One profiled build for the stage times (events add a little). */
    {
        kd_gpu_build_options po = build;
        po.profile = 1;
        if (kd_gpu_builder_build(b, &po, &prof, &err) == KD_OK)
            printf("       stages (one profiled build): preprocess %.3f ms, large %.3f ms, small %.3f ms, "
                   "output %.3f ms; reductions %.3f ms in %u calls\n",
                   prof.stage_ms[0], prof.stage_ms[1], prof.stage_ms[2], prof.stage_ms[3],
                   prof.reduce_ms, prof.num_reduce_calls);
        for (int i = 0; i < KD_GPU_NUM_STEPS; i++)
            if (prof.step_count[i])
                printf("         step %-24s %8.3f ms (%u)\n", kd_gpu_step_name((kd_gpu_step)i), prof.step_ms[i],
                       prof.step_count[i]);
    }

    /* Primary rays at 1920x1080 through the GPU-built tree, kernel time. */
    if (bo->render) {
        kd_gpu_scene *scene = NULL;
        kd_camera cam;
        kd_camera_request req;
        memset(&req, 0, sizeof req);
        kd_gpu_render_stats rs;
        if (kd_gpu_scene_from_builder(&scene, b, &err) == KD_OK &&
            kd_camera_setup(&cam, &req, gpu_tree.bounds, 1920, 1080, &err) == KD_OK &&
            kd_gpu_render(scene, &cam, 10, NULL, &rs, &err) == KD_OK)
            printf("       render 1920x1080: %.3f ms median (%.3f min) kernel time, %.2f Grays/s, "
                   "%.1f%% hits, %.1f steps %.1f tests per ray\n",
                   rs.kernel_ms, rs.kernel_ms_min, rs.rays_per_second * 1e-9,
                   100.0 * (double)rs.num_hits / (double)rs.num_rays,
                   (double)rs.total_steps / (double)rs.num_rays,
                   (double)rs.total_tests / (double)rs.num_rays);
        else
            fprintf(stderr, "gpu_build_bench: render: %s\n", err.message);
        kd_gpu_scene_destroy(scene);
    }

    if (bo->reduce_profile) {
        kd_gpu_build_options po = build;
        po.profile = 1;
        printf("  in-build reduction profile, %d builds per rung (totals over the builds): the calls\n"
               "  between CUDA events, then (as many builds again, traced by CUPTI) their kernels'\n"
               "  device time\n", bo->profile_builds);
        printf("  %-24s %10s %10s %6s %10s %10s %8s %9s %9s %9s %9s\n", "rung", "events ms", "vs rung 0",
               "calls", "kernel ms", "vs rung 0", "kernels", "prep ms", "large ms", "small ms", "out ms");
        /* Every rung's event-timed builds first, then every rung's traced
         * ones, so that no rung's event times follow CUPTI's start and
         * others' not. */
        double reduce[KD_REDUCE_NUM_VARIANTS] = {0}, kernel[KD_REDUCE_NUM_VARIANTS] = {0};
        double stage[KD_REDUCE_NUM_VARIANTS][KD_GPU_NUM_STAGES] = {{0}};
        uint32_t calls[KD_REDUCE_NUM_VARIANTS] = {0}, kernels[KD_REDUCE_NUM_VARIANTS] = {0};
        int clocked[KD_REDUCE_NUM_VARIANTS];
        char why[sizeof prof.kernel.error] = "";
        for (int pass = 0; pass < 2 && st == KD_OK; pass++) {
            for (int v = 0; v < KD_REDUCE_NUM_VARIANTS && st == KD_OK; v++) {
                po.reduce_variant = (kd_reduce_variant)v;
                po.kernel_clock = pass;
                clocked[v] = 1;
                for (int i = 0; i < bo->warmup + bo->profile_builds && st == KD_OK; i++) {
                    st = kd_gpu_builder_build(b, &po, &prof, &err);
                    if (st != KD_OK || i < bo->warmup)
                        continue;
                    if (pass == 1) {
                        if (!prof.kernel.clocked && clocked[v])
                            snprintf(why, sizeof why, "%s", prof.kernel.error);
                        clocked[v] = clocked[v] && prof.kernel.clocked;
                        kernel[v] += prof.kernel.reduce_ms;
                        kernels[v] += prof.kernel.num_reduce;
                        continue;
                    }
                    reduce[v] += prof.reduce_ms;
                    calls[v] += prof.num_reduce_calls;
                    for (int k = 0; k < KD_GPU_NUM_STAGES; k++)
                        stage[v][k] += prof.stage_ms[k];
                }
            }
        }
        if (st != KD_OK)
            fprintf(stderr, "gpu_build_bench: profile: %s\n", err.message);
        for (int v = 0; v < KD_REDUCE_NUM_VARIANTS && st == KD_OK; v++) {
            char kernel_text[32] = "-", kernel_ratio[32] = "-";
            if (clocked[v] && clocked[0] && kernel[0] > 0) {
                snprintf(kernel_text, sizeof kernel_text, "%.3f", kernel[v]);
                snprintf(kernel_ratio, sizeof kernel_ratio, "%.3fx", kernel[v] / kernel[0]);
            }
            printf("  %-24s %10.3f %9.3fx %6u %10s %10s %8u %9.3f %9.3f %9.3f %9.3f\n",
                   kd_reduce_variant_name((kd_reduce_variant)v), reduce[v],
                   reduce[0] > 0 ? reduce[v] / reduce[0] : 0, calls[v], kernel_text, kernel_ratio, kernels[v],
                   stage[v][0], stage[v][1], stage[v][2], stage[v][3]);
        }
        if (why[0])
            printf("  (kernel ms: %s)\n", why);
    }
    kd_tree_free(&gpu_tree);
    free(ms);
    kd_gpu_builder_destroy(b);
    kd_mesh_free(&mesh);
    return st == KD_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    bench_opts bo;
    memset(&bo, 0, sizeof bo);
    bo.builds = 20;
    bo.warmup = 3;
    bo.profile_builds = 20;
    bo.cpu = 1;
    bo.render = 1;
    kd_gpu_build_options_default(&bo.build);
    int first_scene = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--builds") == 0 && i + 1 < argc)
            bo.builds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc)
            bo.warmup = atoi(argv[++i]);
        else if (strcmp(argv[i], "--profile-builds") == 0 && i + 1 < argc)
            bo.profile_builds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--split") == 0 && i + 1 < argc) {
            int s = kd_large_split_parse(argv[++i]);
            if (s < 0)
                return usage();
            bo.build.large_split = (kd_large_split)s;
        } else if (strcmp(argv[i], "--min-empty-fraction") == 0 && i + 1 < argc)
            bo.build.params.min_empty_fraction = (float)atof(argv[++i]);
        else if (strcmp(argv[i], "--empty-space") == 0 && i + 1 < argc)
            bo.build.empty_space_ratio = (float)atof(argv[++i]);
        else if (strcmp(argv[i], "--max-refs") == 0 && i + 1 < argc)
            bo.build.max_refs_per_triangle = (float)atof(argv[++i]);
        else if (strcmp(argv[i], "--medium-nodes") == 0 && i + 1 < argc)
            bo.build.medium_min_nodes = atoi(argv[++i]);
        else if (strcmp(argv[i], "--medium-refs") == 0 && i + 1 < argc)
            bo.build.medium_max_refs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--medium-block-refs") == 0 && i + 1 < argc)
            bo.build.medium_block_refs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--small-threshold") == 0 && i + 1 < argc)
            bo.build.small_node_threshold = atoi(argv[++i]);
        else if (strcmp(argv[i], "--bins") == 0 && i + 1 < argc)
            bo.build.sah_bins = atoi(argv[++i]);
        else if (strcmp(argv[i], "--keep-subtrees") == 0)
            bo.build.hooks.keep_subtrees = 1;
        else if (strcmp(argv[i], "--depth-offset") == 0 && i + 1 < argc)
            bo.depth_offset = atoi(argv[++i]);
        else if (strcmp(argv[i], "--reduce-profile") == 0)
            bo.reduce_profile = 1;
        else if (strcmp(argv[i], "--no-cpu") == 0)
            bo.cpu = 0;
        else if (strcmp(argv[i], "--no-render") == 0)
            bo.render = 0;
        else if (argv[i][0] == '-')
            return usage();
        else {
            first_scene = i;
            break;
        }
    }
    if (first_scene >= argc || bo.builds < 1 || bo.warmup < 0 || bo.profile_builds < 1)
        return usage();
    if (kd_cuda_device_count() == 0) {
        fprintf(stderr, "gpu_build_bench: no CUDA device\n");
        return 1;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("device: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor,
               prop.multiProcessorCount);
    int failed = 0;
    for (int i = first_scene; i < argc; i++)
        failed |= bench_scene(argv[i], &bo);
    return failed;
}
