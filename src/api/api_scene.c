/* Scenes for the public API: options, building on either device, tree
 * files and statistics. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "cpu_build.h"
#include "cpu_render.h"
#include "tree_io.h"
#include "tree_stats.h"

void scankd_build_options_default(scankd_build_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->device = SCANKD_DEVICE_AUTO;
    kd_build_params_default(&opts->params);
    opts->large_split = SCANKD_LARGE_SPLIT_SAH;
    opts->small_node_threshold = SCANKD_SMALL_NODE_MAX;
    opts->sah_bins = 64;
    opts->max_refs_per_triangle = 24.0f;
    opts->empty_space_ratio = -1.0f;
}

int scankd_device_count(void)
{
    return kd_api_device_count();
}

const char *scankd_device_name(scankd_device device)
{
    switch (device) {
    case SCANKD_DEVICE_AUTO: return "auto";
    case SCANKD_DEVICE_CPU: return "cpu";
    case SCANKD_DEVICE_GPU: return "gpu";
    }
    return "unknown";
}

/* The GPU builder's options are checked on every device, so that options a
 * CPU machine accepts do not fail on a GPU one. The build rules are checked
 * by the builders themselves. */
static kd_status check_options(const char *who, const scankd_build_options *o, kd_error *err)
{
    if (o->device != SCANKD_DEVICE_AUTO && o->device != SCANKD_DEVICE_CPU &&
        o->device != SCANKD_DEVICE_GPU)
        return kd_error_set(err, KD_ERR_INVALID, "%s: device %d is none of auto, cpu, gpu", who,
                            (int)o->device);
    if (o->large_split != SCANKD_LARGE_SPLIT_SAH && o->large_split != SCANKD_LARGE_SPLIT_MEDIAN)
        return kd_error_set(err, KD_ERR_INVALID, "%s: large split %d is neither SAH nor median",
                            who, (int)o->large_split);
    if (o->small_node_threshold < 1 || o->small_node_threshold > SCANKD_SMALL_NODE_MAX)
        return kd_error_set(err, KD_ERR_INVALID, "%s: small-node threshold %d is outside 1..%d",
                            who, o->small_node_threshold, SCANKD_SMALL_NODE_MAX);
    if (o->sah_bins < 2 || o->sah_bins > SCANKD_SAH_BINS_MAX)
        return kd_error_set(err, KD_ERR_INVALID, "%s: %d SAH bins is outside 2..%d", who,
                            o->sah_bins, SCANKD_SAH_BINS_MAX);
    if (!(o->max_refs_per_triangle >= 2.0f) || o->max_refs_per_triangle == INFINITY)
        return kd_error_set(err, KD_ERR_INVALID, "%s: %g references per triangle is below 2 or not finite", who,
                            (double)o->max_refs_per_triangle);
    if (!(o->empty_space_ratio <= 1.0f))
        return kd_error_set(err, KD_ERR_INVALID, "%s: empty-space ratio %g is above 1 or NaN", who,
                            (double)o->empty_space_ratio);
    if ((uint64_t)(size_t)o->max_device_bytes != o->max_device_bytes)
        return kd_error_set(err, KD_ERR_INVALID, "%s: a device memory cap of %llu bytes is more than this host "
                            "can address", who, (unsigned long long)o->max_device_bytes);
    return KD_OK;
}

kd_status scankd_warm_up(const scankd_build_options *opts, kd_error *err)
{
    if (opts)
        KD_TRY(check_options("scankd_warm_up", opts, err));
    return kd_api_warm_up(opts, err);
}

static kd_status resolve_device(scankd_device asked, scankd_device *device, kd_error *err)
{
    int gpus = kd_api_device_count();
    if (asked == SCANKD_DEVICE_GPU && gpus == 0)
        return kd_error_set(err, KD_ERR_NO_DEVICE,
                            "scankd_build: the GPU was asked for, but no CUDA device is present");
    *device = asked == SCANKD_DEVICE_AUTO ? (gpus > 0 ? SCANKD_DEVICE_GPU : SCANKD_DEVICE_CPU)
                                          : asked;
    return KD_OK;
}

/* A scene over mesh's triangles, without a tree yet. */
static kd_status scene_create(const char *who, const kd_mesh *mesh, scankd_scene **out,
                              kd_error *err)
{
    *out = NULL;
    KD_TRY(kd_api_check_mesh(who, mesh, err));
    scankd_scene *scene = calloc(1, sizeof *scene);
    if (!scene)
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory", who);
    kd_status st = kd_trace_gather_vertices(mesh, &scene->tri_verts, err);
    if (st != KD_OK) {
        free(scene);
        return st;
    }
    *out = scene;
    return KD_OK;
}

/* Checks the scene's tree as every traversal needs it (kd_trace_scene_init)
 * and hands the scene out, or frees it. */
static kd_status scene_finish(scankd_scene *scene, kd_status st, scankd_scene **out, kd_error *err)
{
    if (st == KD_OK)
        st = kd_trace_scene_init(&scene->trace, &scene->tree, scene->tri_verts,
                                 scene->tree.num_triangles, err);
    if (st != KD_OK) {
        scankd_scene_destroy(scene);
        return st;
    }
    *out = scene;
    return KD_OK;
}

/* What a saved tree records of its build: the mesh's fingerprint, the
 * builder and its rules. */
static void set_origin(scankd_scene *scene, const kd_mesh *mesh, scankd_device device,
                       const scankd_build_options *o)
{
    if (device == SCANKD_DEVICE_GPU) {
        const float empty = o->empty_space_ratio < 0.0f ? o->params.min_empty_fraction : o->empty_space_ratio;
        kd_tree_origin_init(&scene->origin, mesh, KD_TREE_BUILDER_GPU,
                            kd_tree_rules_hash_gpu(&o->params, o->large_split == SCANKD_LARGE_SPLIT_MEDIAN,
                                                   o->small_node_threshold, o->sah_bins, empty,
                                                   o->max_refs_per_triangle));
    } else {
        kd_tree_origin_init(&scene->origin, mesh, KD_TREE_BUILDER_CPU, kd_tree_rules_hash_cpu(&o->params));
    }
}

kd_status scankd_build(const kd_mesh *mesh, const scankd_build_options *opts, scankd_scene **out,
                       kd_error *err)
{
    if (!out)
        return kd_error_set(err, KD_ERR_INVALID, "scankd_build: out is NULL");
    *out = NULL;
    if (!opts)
        return kd_error_set(err, KD_ERR_INVALID, "scankd_build: opts is NULL");
    KD_TRY(check_options("scankd_build", opts, err));
    scankd_device device = SCANKD_DEVICE_CPU;
    KD_TRY(resolve_device(opts->device, &device, err));
    scankd_scene *scene;
    KD_TRY(scene_create("scankd_build", mesh, &scene, err));
    scene->built_on = device;
    double start = kd_build_now_ms();
    kd_status st = device == SCANKD_DEVICE_GPU
                       ? kd_api_build_gpu(mesh, opts, &scene->tree, err)
                       : kd_build_cpu(mesh, &opts->params, &scene->tree, NULL, err);
    scene->build_ms = kd_build_now_ms() - start;
    if (st == KD_OK)
        set_origin(scene, mesh, device, opts);
    return scene_finish(scene, st, out, err);
}

void scankd_scene_destroy(scankd_scene *scene)
{
    if (!scene)
        return;
    kd_api_gpu_release(scene->gpu);
    kd_tree_free(&scene->tree);
    free(scene->tri_verts);
    free(scene);
}

const kd_tree *scankd_scene_tree(const scankd_scene *scene)
{
    return scene ? &scene->tree : NULL;
}

kd_status scankd_scene_save(const scankd_scene *scene, const char *path, kd_error *err)
{
    if (!scene || !path)
        return kd_error_set(err, KD_ERR_INVALID, "scankd_scene_save: %s is NULL",
                            scene ? "path" : "scene");
    return kd_tree_save(&scene->tree, &scene->origin, path, err);
}

/* The tree must fit the mesh (triangle count, root box) and carry its
 * fingerprint; the message names the function and the file. */
static kd_status check_tree_mesh(const scankd_scene *scene, const kd_mesh *mesh, const char *path,
                                 kd_error *err)
{
    kd_error why;
    if (kd_tree_check_fits(&scene->tree, mesh, path, NULL, &why) == KD_OK &&
        kd_tree_check_origin(&scene->origin, mesh, path, NULL, &why) == KD_OK)
        return KD_OK;
    return kd_error_set(err, KD_ERR_INVALID, "scankd_scene_load: %s", why.message);
}

kd_status scankd_scene_load(const kd_mesh *mesh, const char *path, scankd_scene **out,
                            kd_error *err)
{
    static const char *const who = "scankd_scene_load";
    if (!out)
        return kd_error_set(err, KD_ERR_INVALID, "%s: out is NULL", who);
    *out = NULL;
    if (!path)
        return kd_error_set(err, KD_ERR_INVALID, "%s: path is NULL", who);
    scankd_scene *scene;
    KD_TRY(scene_create(who, mesh, &scene, err));
    scene->built_on = SCANKD_DEVICE_AUTO;
    kd_status st = kd_tree_load(&scene->tree, &scene->origin, path, err);
    if (st == KD_OK)
        st = check_tree_mesh(scene, mesh, path, err);
    return scene_finish(scene, st, out, err);
}

kd_status scankd_scene_stats(const scankd_scene *scene, scankd_stats *stats, kd_error *err)
{
    if (!scene || !stats)
        return kd_error_set(err, KD_ERR_INVALID, "scankd_scene_stats: %s is NULL",
                            scene ? "stats" : "scene");
    kd_tree_stats s;
    kd_tree_compute_stats(&scene->tree, NULL, &s);
    memset(stats, 0, sizeof *stats);
    stats->sah_cost = s.sah_cost;
    stats->traversal_cost = s.constants.traversal_cost;
    stats->intersect_cost = s.constants.intersect_cost;
    stats->expected_traversal_steps = s.expected_traversal_steps;
    stats->expected_triangle_tests = s.expected_triangle_tests;
    stats->num_nodes = s.num_nodes;
    stats->num_interior = s.num_interior;
    stats->num_leaves = s.num_leaves;
    stats->num_empty_leaves = s.num_empty_leaves;
    stats->max_leaf_depth = s.max_leaf_depth;
    stats->depth_cap = s.depth_cap;
    stats->mean_leaf_depth = s.mean_leaf_depth;
    stats->num_leaf_refs = s.num_leaf_refs;
    stats->refs_per_triangle = s.refs_per_triangle;
    stats->max_leaf_prims = (uint32_t)s.max_leaf_prims;
    stats->num_triangles = s.num_triangles;
    stats->built_on = scene->built_on;
    stats->build_ms = scene->build_ms;
    return KD_OK;
}
