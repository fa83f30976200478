/* The public API's GPU paths (scankd.h) through libscankd: GPU builds with
 * each of the builder's options, and rays traced from host and device
 * arrays, against brute force and against the CPU paths. Skips (77) without
 * a device, after checking that the API's option defaults are the GPU
 * builder's and that the warm-up succeeds there, doing nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "api_test_util.h"
#include "gpu_build.h"
#include "test_support.h"

enum { N = 50000 };

static void test_defaults(void)
{
    scankd_build_options api;
    kd_gpu_build_options gpu;
    scankd_build_options_default(&api);
    kd_gpu_build_options_default(&gpu);
    CHECK(api.small_node_threshold == gpu.small_node_threshold && api.sah_bins == gpu.sah_bins);
    CHECK(api.empty_space_ratio == gpu.empty_space_ratio && api.max_refs_per_triangle == gpu.max_refs_per_triangle);
    CHECK(api.large_split == SCANKD_LARGE_SPLIT_SAH && gpu.large_split == KD_LARGE_SPLIT_SAH);
    CHECK(memcmp(&api.params, &gpu.params, sizeof api.params) == 0);
    CHECK(api.max_device_bytes == 0 && gpu.max_device_bytes == 0);
}

static scankd_scene *build(const kd_mesh *mesh, const scankd_build_options *o)
{
    kd_error err;
    scankd_scene *scene = NULL;
    CHECK_MSG(scankd_build(mesh, o, &scene, &err) == KD_OK, "%s: %s", kd_status_name(err.status),
              err.message);
    return scene;
}

/* Host rays on the GPU against brute force, and the CPU's hits on the same
 * scene bit for bit. */
static void check_scene(const char *what, scankd_scene *scene, const kd_mesh *mesh,
                        const scankd_ray *rays, scankd_hit *gpu_hits)
{
    kd_error err;
    scankd_hit *cpu_hits = malloc(N * sizeof *cpu_hits);
    CHECK_MSG(scankd_trace_gpu(scene, rays, N, gpu_hits, &err) == KD_OK, "%s: %s", what, err.message);
    CHECK(scankd_trace_cpu(scene, rays, N, cpu_hits, &err) == KD_OK);
    kd_api_test_check_hits(what, mesh, rays, gpu_hits, N, NULL);
    CHECK_MSG(memcmp(cpu_hits, gpu_hits, N * sizeof *cpu_hits) == 0, "%s: CPU and GPU hits differ", what);
    free(cpu_hits);
}

/* Device arrays on a stream of the caller's give the host path's hits. */
static void test_device_arrays(scankd_scene *scene, const scankd_ray *rays, const scankd_hit *want)
{
    scankd_ray *d_rays = NULL;
    scankd_hit *d_hits = NULL;
    cudaStream_t stream = NULL;
    CHECK(cudaMalloc((void **)&d_rays, N * sizeof *d_rays) == cudaSuccess);
    CHECK(cudaMalloc((void **)&d_hits, N * sizeof *d_hits) == cudaSuccess);
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(cudaMemcpy(d_rays, rays, N * sizeof *rays, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemset(d_hits, 0xff, N * sizeof *d_hits) == cudaSuccess);
    kd_error err;
    CHECK_MSG(scankd_trace_gpu_device(scene, d_rays, N, d_hits, stream, &err) == KD_OK, "%s",
              err.message);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    scankd_hit *hits = malloc(N * sizeof *hits);
    CHECK(cudaMemcpy(hits, d_hits, N * sizeof *hits, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK_MSG(memcmp(hits, want, N * sizeof *hits) == 0, "device arrays' hits differ from host arrays'");
    /* Host memory where device memory belongs. */
    CHECK(scankd_trace_gpu_device(scene, rays, N, d_hits, stream, &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "rays array is not in memory the device can reach") != NULL);
    CHECK(scankd_trace_gpu_device(scene, d_rays, N, hits, stream, &err) == KD_ERR_INVALID);
    CHECK(scankd_trace_gpu_device(scene, d_rays, 0, d_hits, stream, &err) == KD_OK);
    free(hits);
    cudaStreamDestroy(stream);
    cudaFree(d_rays);
    cudaFree(d_hits);
}

static void test_gpu_build(const kd_mesh *mesh, const scankd_ray *rays, scankd_hit *hits)
{
    scankd_build_options o;
    scankd_build_options_default(&o);
    scankd_scene *scene = build(mesh, &o); /* auto: the GPU here */
    if (!scene)
        return;
    scankd_stats s;
    kd_error err;
    CHECK(scankd_scene_stats(scene, &s, &err) == KD_OK && s.built_on == SCANKD_DEVICE_GPU);
    CHECK(s.num_nodes > 1 && s.sah_cost > 0.0);
    check_scene("GPU build", scene, mesh, rays, hits);
    test_device_arrays(scene, rays, hits);
    scankd_ray bad = rays[0];
    bad.dir[0] = bad.dir[1] = bad.dir[2] = 0.0f;
    CHECK(scankd_trace_gpu(scene, &bad, 1, hits, &err) == KD_ERR_INVALID);

    char path[1024];
    kd_test_tmp_path("api_gpu_city.kd", path, sizeof path);
    scankd_scene *loaded = NULL;
    CHECK(scankd_scene_save(scene, path, &err) == KD_OK);
    CHECK(scankd_scene_load(mesh, path, &loaded, &err) == KD_OK);
    if (loaded)
        check_scene("GPU tree loaded", loaded, mesh, rays, hits);
    scankd_scene_destroy(loaded);
    scankd_scene_destroy(scene);
}

/* Each of the GPU builder's options gives a tree that traces right. */
static void test_options(const kd_mesh *mesh, const scankd_ray *rays, scankd_hit *hits)
{
    scankd_build_options base, o;
    scankd_build_options_default(&base);
    base.device = SCANKD_DEVICE_GPU;
    for (int k = 0; k < 5; k++) {
        o = base;
        if (k == 1)
            o.large_split = SCANKD_LARGE_SPLIT_MEDIAN;
        else if (k == 2)
            o.small_node_threshold = 16;
        else if (k == 3)
            o.sah_bins = 8;
        else if (k == 4)
            o.empty_space_ratio = 0.25f;
        char what[64];
        snprintf(what, sizeof what, "GPU options %d", k);
        scankd_scene *scene = build(mesh, &o);
        if (scene)
            check_scene(what, scene, mesh, rays, hits);
        scankd_scene_destroy(scene);
    }
    /* A memory cap the build cannot fit: it fails, saying what it needs. */
    o = base;
    o.max_device_bytes = 1024;
    kd_error err;
    scankd_scene *none = NULL;
    CHECK_MSG(scankd_build(mesh, &o, &none, &err) == KD_ERR_DEVICE_OOM && strstr(err.message, "needs") && !none,
              "%s", err.message);
    o = base;
    o.device = SCANKD_DEVICE_CPU;
    scankd_scene *cpu = build(mesh, &o); /* a CPU tree uploaded for GPU rays */
    if (cpu)
        check_scene("CPU build", cpu, mesh, rays, hits);
    scankd_scene_destroy(cpu);
}

/* The warm-up: with the defaults, with a build's options, and refused for
 * options a build would refuse; without a device (the CUDA library on a
 * machine without a GPU) it succeeds doing nothing. */
static void test_warm_up(void)
{
    kd_error err;
    CHECK_MSG(scankd_warm_up(NULL, &err) == KD_OK, "warm-up: %s", err.message);
    scankd_build_options o;
    scankd_build_options_default(&o);
    o.large_split = SCANKD_LARGE_SPLIT_MEDIAN;
    CHECK_MSG(scankd_warm_up(&o, &err) == KD_OK, "warm-up, median: %s", err.message);
    o.small_node_threshold = 0;
    CHECK(scankd_warm_up(&o, &err) == KD_ERR_INVALID && strstr(err.message, "scankd_warm_up"));
}

int main(void)
{
    test_defaults();
    test_warm_up();
    if (scankd_device_count() == 0) {
        printf("api_gpu: no CUDA device: skipped\n");
        return kd_test_failures ? 1 : KD_TEST_SKIP;
    }
    kd_test_rng rng = {777};
    kd_error err;
    kd_mesh city;
    CHECK_MSG(kd_api_test_city(&rng, 6, &city, &err) == KD_OK, "%s", err.message);
    scankd_ray *rays = kd_api_test_rays(&rng, kd_mesh_bounds(&city), N);
    scankd_hit *hits = malloc(N * sizeof *hits);
    test_gpu_build(&city, rays, hits);
    test_options(&city, rays, hits);
    free(rays);
    free(hits);
    kd_mesh_free(&city);
    return kd_test_finish("api_gpu");
}
