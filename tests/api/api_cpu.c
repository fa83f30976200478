/* The public API's CPU paths (scankd.h), linked without the CUDA runtime
 * (scankd_nocuda: the API with no device backend): meshes from arrays and
 * files, options, CPU builds, rays against brute force, tree files,
 * statistics and error reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_test_util.h"
#include "cpu_build.h"
#include "test_support.h"

/* A failed call: the status it returned, the same status in err, a message
 * naming what went wrong. */
static void check_failure(kd_status st, kd_status want, const kd_error *err, const char *needle)
{
    CHECK_MSG(st == want, "status %s, expected %s (%s)", kd_status_name(st), kd_status_name(want),
              err->message);
    CHECK(err->status == st);
    CHECK_MSG(strstr(err->message, needle) != NULL, "message '%s' lacks '%s'", err->message, needle);
}

static const float k_pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, NAN, 0, 0, 2, 0, 0};
/* kept, zero area (collinear), NaN vertex, kept, repeated vertex */
static const uint32_t k_idx[] = {0, 1, 2, 0, 1, 4, 0, 3, 2, 2, 1, 0, 1, 1, 2};

static void test_mesh_from_arrays(void)
{
    kd_error err;
    kd_mesh mesh;
    float pos[15];
    memcpy(pos, k_pos, sizeof pos);
    CHECK(scankd_mesh_from_arrays(pos, 5, k_idx, 5, &mesh, &err) == KD_OK);
    pos[0] = 7.0f; /* the mesh holds a copy */
    CHECK(mesh.num_vertices == 5 && mesh.num_triangles == 2 && mesh.num_triangles_read == 5);
    CHECK(mesh.num_dropped_nonfinite == 1 && mesh.num_dropped_zero_area == 2);
    static const uint32_t kept[] = {0, 1, 2, 2, 1, 0};
    CHECK(memcmp(mesh.indices, kept, sizeof kept) == 0);
    CHECK(mesh.positions[0] == 0.0f && mesh.positions[4] == 0.0f && isnan(mesh.positions[9]));
    kd_mesh_free(&mesh);

    uint32_t bad_idx[15];
    memcpy(bad_idx, k_idx, sizeof bad_idx);
    bad_idx[4] = 5;
    kd_status st = scankd_mesh_from_arrays(k_pos, 5, bad_idx, 5, &mesh, &err);
    check_failure(st, KD_ERR_INVALID, &err, "triangle 1 names vertex 5");
    CHECK(mesh.positions == NULL && mesh.indices == NULL && mesh.num_triangles == 0);
    check_failure(scankd_mesh_from_arrays(NULL, 5, k_idx, 5, &mesh, &err), KD_ERR_INVALID, &err,
                  "positions");
    check_failure(scankd_mesh_from_arrays(k_pos, 5, NULL, 5, &mesh, &err), KD_ERR_INVALID, &err,
                  "indices");
    check_failure(scankd_mesh_from_arrays(k_pos, 0, k_idx, 5, &mesh, &err), KD_ERR_INVALID, &err,
                  "no vertices");
    check_failure(scankd_mesh_from_arrays(k_pos, 5, k_idx, 0, &mesh, &err), KD_ERR_INVALID, &err,
                  "no triangles");
    check_failure(scankd_mesh_from_arrays(k_pos, 5, k_idx, 5, NULL, &err), KD_ERR_INVALID, &err,
                  "mesh is NULL");
    /* Only the two degenerate triangles (1 and 2 of k_idx). */
    check_failure(scankd_mesh_from_arrays(k_pos, 5, k_idx + 3, 2, &mesh, &err), KD_ERR_INVALID,
                  &err, "all 2 were dropped (1 with a NaN or infinite coordinate, 1 with zero area)");
    CHECK(scankd_mesh_from_arrays(k_pos, 5, bad_idx, 5, &mesh, NULL) == KD_ERR_INVALID);
}

static void test_mesh_load(void)
{
    kd_error err;
    kd_mesh mesh;
    char path[1024];
    kd_test_project_scene("cornell_box.obj", path, sizeof path);
    CHECK_MSG(scankd_mesh_load(path, &mesh, &err) == KD_OK, "%s", err.message);
    CHECK(mesh.num_triangles > 0);
    kd_mesh_free(&mesh);
    kd_test_project_scene("no_such_scene.obj", path, sizeof path);
    check_failure(scankd_mesh_load(path, &mesh, &err), KD_ERR_IO, &err, "no_such_scene.obj");
    check_failure(scankd_mesh_load(NULL, &mesh, &err), KD_ERR_INVALID, &err, "path is NULL");
}

static void check_bad_options(const kd_mesh *mesh, scankd_build_options o, const char *needle)
{
    kd_error err;
    scankd_scene *scene = (scankd_scene *)&err; /* must come back NULL */
    check_failure(scankd_build(mesh, &o, &scene, &err), KD_ERR_INVALID, &err, needle);
    CHECK(scene == NULL);
}

static void test_options(const kd_mesh *mesh)
{
    scankd_build_options o, d;
    scankd_build_options_default(&d);
    kd_build_params params;
    kd_build_params_default(&params);
    CHECK(d.device == SCANKD_DEVICE_AUTO && d.large_split == SCANKD_LARGE_SPLIT_SAH);
    CHECK(d.small_node_threshold == 64 && d.sah_bins == 64 && d.empty_space_ratio < 0.0f);
    CHECK(d.max_refs_per_triangle == 24.0f);
    CHECK(memcmp(&d.params, &params, sizeof params) == 0);
#define BAD_OPTION(field, value, needle)                                                  \
    do {                                                                                  \
        scankd_build_options bad_ = d;                                                    \
        bad_.field = value;                                                               \
        check_bad_options(mesh, bad_, needle);                                            \
    } while (0)
    BAD_OPTION(small_node_threshold, 0, "small-node threshold 0");
    BAD_OPTION(small_node_threshold, 65, "small-node threshold 65");
    BAD_OPTION(sah_bins, 1, "1 SAH bins");
    BAD_OPTION(sah_bins, 129, "129 SAH bins");
    BAD_OPTION(max_refs_per_triangle, 1.5f, "1.5 references per triangle");
    BAD_OPTION(max_refs_per_triangle, NAN, "references per triangle");
    BAD_OPTION(empty_space_ratio, 1.5f, "empty-space ratio 1.5");
    BAD_OPTION(empty_space_ratio, NAN, "empty-space ratio");
    BAD_OPTION(device, (scankd_device)7, "device 7");
    BAD_OPTION(large_split, (scankd_large_split)5, "large split 5");
    BAD_OPTION(params.intersect_cost, -1.0f, ""); /* the builder's own check */
#undef BAD_OPTION
    check_bad_options(NULL, d, "mesh is NULL");

    kd_error err;
    scankd_scene *scene;
    check_failure(scankd_build(mesh, NULL, &scene, &err), KD_ERR_INVALID, &err, "opts is NULL");
    check_failure(scankd_build(mesh, &d, NULL, &err), KD_ERR_INVALID, &err, "out is NULL");
    /* This library has no device backend: the GPU is absent, auto is the CPU. */
    CHECK(scankd_device_count() == 0);
    CHECK_MSG(scankd_warm_up(NULL, &err) == KD_OK, "warm-up without a device: %s", err.message);
    o = d;
    o.sah_bins = 1;
    check_failure(scankd_warm_up(&o, &err), KD_ERR_INVALID, &err, "scankd_warm_up");
    o = d;
    o.device = SCANKD_DEVICE_GPU;
    check_failure(scankd_build(mesh, &o, &scene, &err), KD_ERR_NO_DEVICE, &err, "no CUDA device");
    CHECK(strcmp(scankd_device_name(SCANKD_DEVICE_GPU), "gpu") == 0);
    /* The GPU builder's memory cap: none by default; a CPU build ignores it. */
    CHECK(d.max_device_bytes == 0);
    o = d;
    o.device = SCANKD_DEVICE_CPU;
    o.max_device_bytes = 1;
    CHECK_MSG(scankd_build(mesh, &o, &scene, &err) == KD_OK, "%s", err.message);
    scankd_scene_destroy(scene);
}

/* The API's CPU build is kd_build_cpu's tree, node for node. */
static void check_same_tree(const kd_tree *a, const kd_tree *b)
{
    CHECK(a->num_nodes == b->num_nodes && a->num_leaf_indices == b->num_leaf_indices);
    CHECK(a->num_triangles == b->num_triangles && a->max_depth == b->max_depth);
    if (a->num_nodes == b->num_nodes)
        CHECK(memcmp(a->nodes, b->nodes, a->num_nodes * sizeof *a->nodes) == 0);
    if (a->num_leaf_indices == b->num_leaf_indices)
        CHECK(memcmp(a->leaf_indices, b->leaf_indices, a->num_leaf_indices * sizeof(uint32_t)) == 0);
    CHECK(memcmp(&a->bounds, &b->bounds, sizeof a->bounds) == 0);
}

static scankd_scene *build_cpu(const kd_mesh *mesh, scankd_device device)
{
    scankd_build_options o;
    scankd_build_options_default(&o);
    o.device = device;
    kd_error err;
    scankd_scene *scene = NULL;
    CHECK_MSG(scankd_build(mesh, &o, &scene, &err) == KD_OK, "%s", err.message);
    return scene;
}

static void test_build(const kd_mesh *mesh)
{
    scankd_scene *scene = build_cpu(mesh, SCANKD_DEVICE_AUTO);
    if (!scene)
        return;
    kd_build_params params;
    kd_build_params_default(&params);
    kd_tree direct;
    kd_error err;
    CHECK(kd_build_cpu(mesh, &params, &direct, NULL, &err) == KD_OK);
    check_same_tree(scankd_scene_tree(scene), &direct);
    kd_tree_free(&direct);
    scankd_stats stats;
    CHECK(scankd_scene_stats(scene, &stats, &err) == KD_OK);
    CHECK(stats.built_on == SCANKD_DEVICE_CPU && stats.build_ms > 0.0);
    scankd_scene_destroy(scene);
}

static void check_bad_ray(scankd_scene *scene, scankd_ray *rays, size_t n, size_t bad,
                          const char *why)
{
    scankd_ray keep = rays[bad];
    if (strstr(why, "origin"))
        rays[bad].org[1] = INFINITY;
    else if (strstr(why, "direction is zero"))
        rays[bad].dir[0] = rays[bad].dir[1] = rays[bad].dir[2] = 0.0f;
    else if (strstr(why, "direction"))
        rays[bad].dir[2] = NAN;
    else
        rays[bad].t_max = NAN;
    scankd_hit *hits = malloc(n * sizeof *hits);
    kd_error err;
    char needle[128];
    snprintf(needle, sizeof needle, "ray %zu is invalid: %s", bad, why);
    check_failure(scankd_trace_cpu(scene, rays, n, hits, &err), KD_ERR_INVALID, &err, needle);
    free(hits);
    rays[bad] = keep;
}

static void test_trace(const kd_mesh *mesh, kd_test_rng *rng)
{
    scankd_scene *scene = build_cpu(mesh, SCANKD_DEVICE_CPU);
    if (!scene)
        return;
    enum { N = 20000 };
    scankd_ray *rays = kd_api_test_rays(rng, kd_mesh_bounds(mesh), N);
    scankd_hit *hits = malloc(N * sizeof *hits);
    kd_error err;
    CHECK_MSG(scankd_trace_cpu(scene, rays, N, hits, &err) == KD_OK, "%s", err.message);
    size_t num_hit = 0;
    kd_api_test_check_hits("CPU trace", mesh, rays, hits, N, &num_hit);
    CHECK_MSG(num_hit > N / 10 && num_hit < N, "%zu of %d rays hit", num_hit, N);

    check_bad_ray(scene, rays, N, 17, "its origin is not finite");
    check_bad_ray(scene, rays, N, 0, "its direction is not finite");
    check_bad_ray(scene, rays, N, N - 1, "its direction is zero");
    check_bad_ray(scene, rays, N, 5, "its t_max is NaN");
    check_failure(scankd_trace_cpu(scene, rays, N, NULL, &err), KD_ERR_INVALID, &err, "hits array");
    check_failure(scankd_trace_cpu(NULL, rays, N, hits, &err), KD_ERR_INVALID, &err, "scene is NULL");
    CHECK(scankd_trace_cpu(scene, NULL, 0, NULL, &err) == KD_OK);
    /* No device backend: the GPU paths say so. */
    check_failure(scankd_trace_gpu(scene, rays, N, hits, &err), KD_ERR_NO_DEVICE, &err,
                  "scankd_trace_gpu: no CUDA device");
    check_failure(scankd_trace_gpu_device(scene, rays, N, hits, NULL, &err), KD_ERR_NO_DEVICE, &err,
                  "scankd_trace_gpu_device: no CUDA device");
    free(rays);
    free(hits);
    scankd_scene_destroy(scene);
}

static bool same_stats(scankd_stats a, scankd_stats b)
{
    a.built_on = b.built_on;
    a.build_ms = b.build_ms;
    return memcmp(&a, &b, sizeof a) == 0;
}

/* A tree saved and loaded traces as the built one. */
static void check_loaded(const kd_mesh *mesh, scankd_scene *built, scankd_scene *loaded,
                         kd_test_rng *rng)
{
    check_same_tree(scankd_scene_tree(built), scankd_scene_tree(loaded));
    scankd_stats a, b;
    kd_error err;
    CHECK(scankd_scene_stats(built, &a, &err) == KD_OK && scankd_scene_stats(loaded, &b, &err) == KD_OK);
    CHECK(same_stats(a, b));
    CHECK(b.built_on == SCANKD_DEVICE_AUTO && b.build_ms == 0.0);
    enum { N = 2000 };
    scankd_ray *rays = kd_api_test_rays(rng, kd_mesh_bounds(mesh), N);
    scankd_hit *hits = malloc(N * sizeof *hits);
    CHECK(scankd_trace_cpu(loaded, rays, N, hits, &err) == KD_OK);
    kd_api_test_check_hits("loaded tree", mesh, rays, hits, N, NULL);
    free(rays);
    free(hits);
}

/* The same triangles in another order, and the mesh scaled by 0.9 (inside
 * the tree's box): the counts and the box fit, the fingerprint does not. */
static void check_fingerprint_loads(const kd_mesh *mesh, const char *path)
{
    kd_error err;
    scankd_scene *scene = NULL;
    uint32_t n = mesh->num_triangles;
    uint32_t *order = malloc(3ull * n * sizeof *order);
    for (uint32_t t = 0; t < n; t++)
        for (int k = 0; k < 3; k++)
            order[3 * t + k] = mesh->indices[3 * ((t + 1) % n) + k]; /* rotated by one face */
    kd_mesh shuffled, scaled;
    CHECK(scankd_mesh_from_arrays(mesh->positions, mesh->num_vertices, order, n, &shuffled, &err) == KD_OK);
    check_failure(scankd_scene_load(&shuffled, path, &scene, &err), KD_ERR_INVALID, &err,
                  "was built over a different mesh than the mesh given: the same numbers");
    CHECK(scene == NULL);
    CHECK(scankd_mesh_from_arrays(mesh->positions, mesh->num_vertices, mesh->indices, n, &scaled, &err) == KD_OK);
    kd_aabb box = kd_mesh_bounds(mesh);
    for (uint32_t i = 0; i < 3 * scaled.num_vertices; i++) {
        const int a = (int)(i % 3);
        const float centre = 0.5f * (box.lo[a] + box.hi[a]);
        scaled.positions[i] = centre + 0.9f * (scaled.positions[i] - centre);
    }
    check_failure(scankd_scene_load(&scaled, path, &scene, &err), KD_ERR_INVALID, &err, "fingerprint");
    kd_mesh_free(&shuffled);
    kd_mesh_free(&scaled);
    free(order);
}

static void check_bad_loads(const kd_mesh *mesh, const char *path, kd_test_rng *rng)
{
    kd_error err;
    scankd_scene *scene;
    kd_mesh other;
    CHECK(kd_api_test_city(rng, 2, &other, &err) == KD_OK);
    check_failure(scankd_scene_load(&other, path, &scene, &err), KD_ERR_INVALID, &err, "triangles");
    kd_mesh_free(&other);
    kd_mesh moved;
    CHECK(scankd_mesh_from_arrays(mesh->positions, mesh->num_vertices, mesh->indices,
                                  mesh->num_triangles, &moved, &err) == KD_OK);
    for (uint32_t i = 0; i < 3 * moved.num_vertices; i++)
        moved.positions[i] += 100.0f;
    check_failure(scankd_scene_load(&moved, path, &scene, &err), KD_ERR_INVALID, &err, "root box");
    kd_mesh_free(&moved);
    check_fingerprint_loads(mesh, path);
    char bad[1024];
    kd_test_tmp_path("api_cpu_not_a_tree.kd", bad, sizeof bad);
    FILE *f = fopen(bad, "wb");
    fputs("this is not a tree file, though it is long enough to hold a header", f);
    fclose(f);
    CHECK(scankd_scene_load(mesh, bad, &scene, &err) == KD_ERR_PARSE && scene == NULL);
    kd_test_tmp_path("api_cpu_missing.kd", bad, sizeof bad);
    remove(bad);
    check_failure(scankd_scene_load(mesh, bad, &scene, &err), KD_ERR_IO, &err, "api_cpu_missing.kd");
    check_failure(scankd_scene_load(mesh, NULL, &scene, &err), KD_ERR_INVALID, &err, "path is NULL");
}

static void test_files(const kd_mesh *mesh, kd_test_rng *rng)
{
    scankd_scene *built = build_cpu(mesh, SCANKD_DEVICE_CPU), *loaded = NULL;
    if (!built)
        return;
    char path[1024];
    kd_test_tmp_path("api_cpu_city.kd", path, sizeof path);
    kd_error err;
    CHECK_MSG(scankd_scene_save(built, path, &err) == KD_OK, "%s", err.message);
    CHECK_MSG(scankd_scene_load(mesh, path, &loaded, &err) == KD_OK, "%s", err.message);
    if (loaded)
        check_loaded(mesh, built, loaded, rng);
    check_bad_loads(mesh, path, rng);
    check_failure(scankd_scene_save(built, NULL, &err), KD_ERR_INVALID, &err, "path is NULL");
    scankd_scene_destroy(loaded);
    scankd_scene_destroy(built);
}

static void test_stats(const kd_mesh *city)
{
    kd_error err;
    kd_mesh one;
    CHECK(scankd_mesh_from_arrays(k_pos, 3, k_idx, 1, &one, &err) == KD_OK);
    scankd_scene *scene = build_cpu(&one, SCANKD_DEVICE_CPU);
    scankd_stats s;
    /* One triangle: a root leaf, tested by every ray: 5 (pbrt's intersection cost). */
    CHECK(scene && scankd_scene_stats(scene, &s, &err) == KD_OK);
    CHECK(s.num_nodes == 1 && s.num_leaves == 1 && s.num_interior == 0 && s.num_leaf_refs == 1);
    CHECK(s.sah_cost == 5.0 && s.expected_triangle_tests == 1.0 && s.max_leaf_prims == 1);
    scankd_scene_destroy(scene);
    kd_mesh_free(&one);

    scene = build_cpu(city, SCANKD_DEVICE_CPU);
    CHECK(scene && scankd_scene_stats(scene, &s, &err) == KD_OK);
    const kd_tree *tree = scankd_scene_tree(scene);
    CHECK(s.num_nodes == tree->num_nodes && s.num_interior + s.num_leaves == s.num_nodes);
    CHECK(s.num_leaf_refs == tree->num_leaf_indices && s.num_triangles == city->num_triangles);
    CHECK(s.depth_cap == tree->max_depth && s.max_leaf_depth <= s.depth_cap);
    CHECK(s.refs_per_triangle == (double)s.num_leaf_refs / s.num_triangles);
    CHECK(s.traversal_cost == 1.0 && s.intersect_cost == 5.0);
    CHECK(fabs(s.sah_cost - (s.expected_traversal_steps + 5.0 * s.expected_triangle_tests)) < 1e-9);
    CHECK(s.sah_cost > 0.0 && s.sah_cost < 5.0 * s.num_triangles);
    check_failure(scankd_scene_stats(NULL, &s, &err), KD_ERR_INVALID, &err, "scene is NULL");
    check_failure(scankd_scene_stats(scene, NULL, &err), KD_ERR_INVALID, &err, "stats is NULL");
    scankd_scene_destroy(scene);
}

static void test_status_names(void)
{
    const kd_status all[] = {KD_OK, KD_ERR_IO, KD_ERR_PARSE, KD_ERR_INVALID, KD_ERR_NOMEM,
                             KD_ERR_CUDA, KD_ERR_NO_DEVICE, KD_ERR_DEVICE_OOM, KD_ERR_UNSUPPORTED};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(kd_status_name(all[i]), kd_status_name(all[j])) != 0);
    CHECK(strcmp(kd_status_name(KD_ERR_NO_DEVICE), "no CUDA device") == 0);
}

int main(void)
{
    kd_test_rng rng = {12345};
    kd_error err;
    kd_mesh city;
    test_mesh_from_arrays();
    test_mesh_load();
    test_status_names();
    CHECK_MSG(kd_api_test_city(&rng, 4, &city, &err) == KD_OK, "%s", err.message);
    if (city.num_triangles) {
        test_options(&city);
        test_build(&city);
        test_trace(&city, &rng);
        test_files(&city, &rng);
        test_stats(&city);
    }
    kd_mesh_free(&city);
    scankd_scene_destroy(NULL);
    return kd_test_finish("api_cpu");
}
