#include "render_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_build.h"
#include "cpu_render.h"
#include "cuda_warmup.h"
#include "gpu_build.h"
#include "tree_io.h"

void kd_scene_free(kd_scene *scene)
{
    kd_mesh_free(&scene->mesh);
    kd_tree_free(&scene->tree);
    free(scene->tri_verts);
    memset(scene, 0, sizeof *scene);
}

uint64_t kd_scene_gpu_rules_hash(const kd_gpu_build_options *opts)
{
    return kd_tree_rules_hash_gpu(&opts->params, opts->large_split == KD_LARGE_SPLIT_MEDIAN,
                                  opts->small_node_threshold, opts->sah_bins, kd_gpu_build_empty_space(opts),
                                  opts->max_refs_per_triangle);
}

/* The builder's kernels loaded on the warm-up's thread while the scene
 * loads, for builds with the default options, once a process: they stay
 * loaded. Only warm-up threads read and write `loaded`, and each is joined
 * (kd_cuda_warmup_finish) before the next starts. A failure is left for the
 * build itself to report. */
static void load_builder_kernels(void *unused)
{
    (void)unused;
    static bool loaded = false;
    kd_error err;
    if (!loaded)
        loaded = kd_gpu_build_warm_up(NULL, &err) == KD_OK;
}

kd_status kd_scene_load_mesh(const char *path, kd_mesh *mesh, kd_mesh_load_info *info, kd_cli_progress *progress,
                             kd_scene_gpu_use gpu, kd_error *err)
{
    char what[96], name[64];
    kd_scene_name(path, name, sizeof name);
    snprintf(what, sizeof what, "loading %s", name);
    kd_cuda_warmup *warmup =
        gpu != KD_SCENE_GPU_NONE ? kd_cuda_warmup_start(gpu == KD_SCENE_GPU_BUILD ? load_builder_kernels : NULL, NULL)
                                  : NULL;
    kd_cli_progress_begin(progress, what, NULL);
    kd_status st = kd_mesh_load_file_progress(path, mesh, info, kd_cli_progress_update, progress, err);
    kd_cli_progress_end(progress);
    kd_cuda_warmup_finish(warmup);
    return st;
}

/* Builds scene->tree over scene->mesh with the builder asked for and records
 * its origin. */
static kd_status build_tree(kd_scene *scene, const kd_scene_request *req, kd_error *err)
{
    const kd_build_params *params = &req->params;
    if (req->builder == KD_SCENE_BUILD_CPU) {
        kd_tree_origin_init(&scene->origin, &scene->mesh, KD_TREE_BUILDER_CPU, kd_tree_rules_hash_cpu(params));
        return kd_build_cpu_progress(&scene->mesh, params, kd_cli_progress_update, req->progress, &scene->tree,
                                     &scene->timing, err);
    }
    kd_gpu_build_options opts;
    kd_gpu_build_options_default(&opts);
    opts.params = *params;
    opts.max_device_bytes = (size_t)req->max_device_bytes;
    kd_tree_origin_init(&scene->origin, &scene->mesh, KD_TREE_BUILDER_GPU, kd_scene_gpu_rules_hash(&opts));
    kd_gpu_build_profile profile;
    kd_status st = kd_build_gpu(&scene->mesh, &opts, &scene->tree, &profile, err);
    if (!st)
        kd_gpu_build_profile_timing(&profile, &scene->timing);
    return st;
}

kd_status kd_scene_load_tree(const char *tree_path, const char *mesh_path, const kd_mesh *mesh, bool force,
                             kd_tree *tree, kd_tree_origin *origin, char *warning, size_t warning_bytes,
                             kd_error *err)
{
    warning[0] = '\0';
    KD_TRY(kd_tree_load(tree, origin, tree_path, err));
    kd_status st = kd_tree_check_fits(tree, mesh, tree_path, mesh_path, err);
    kd_error why;
    if (st == KD_OK && kd_tree_check_origin(origin, mesh, tree_path, mesh_path, &why) != KD_OK) {
        if (force)
            snprintf(warning, warning_bytes, "%s", why.message);
        else
            st = kd_error_set(err, KD_ERR_INVALID,
                              "%s; build one over it (scankd build %s --save FILE), or pass --force-tree "
                              "to use this one anyway",
                              why.message, mesh_path);
    }
    if (st)
        kd_tree_free(tree);
    return st;
}

kd_status kd_scene_prepare(kd_scene *scene, const kd_scene_request *req, kd_error *err)
{
    memset(scene, 0, sizeof *scene);
    scene->builder = req->builder;
    double start = kd_render_now();
    const kd_scene_gpu_use use = !req->gpu ? KD_SCENE_GPU_NONE
                                : req->builder == KD_SCENE_BUILD_GPU && !req->tree_path ? KD_SCENE_GPU_BUILD
                                                                                        : KD_SCENE_GPU_TRACE;
    kd_status st = kd_scene_load_mesh(req->obj_path, &scene->mesh, &scene->load_info, req->progress, use, err);
    if (st)
        return st;
    scene->load_seconds = kd_render_now() - start;
    scene->mesh_bounds = kd_mesh_bounds(&scene->mesh);
    st = kd_trace_gather_vertices(&scene->mesh, &scene->tri_verts, err);
    start = kd_render_now();
    if (!st && req->tree_path) {
        scene->tree_from_file = true;
        kd_cli_progress_begin(req->progress, "reading the tree", NULL);
        st = kd_scene_load_tree(req->tree_path, req->obj_path, &scene->mesh, req->force_tree, &scene->tree,
                                &scene->origin, scene->warning, sizeof scene->warning, err);
    } else if (!st) {
        kd_cli_progress_begin(req->progress,
                              req->builder == KD_SCENE_BUILD_GPU ? "building the tree on the GPU"
                                                                 : "building the tree",
                              NULL);
        st = build_tree(scene, req, err);
    }
    kd_cli_progress_end(req->progress);
    if (st) {
        kd_scene_free(scene);
        return st;
    }
    scene->tree_seconds = kd_render_now() - start;
    return KD_OK;
}

void kd_scene_name(const char *obj_path, char *name, size_t bytes)
{
    const char *base = strrchr(obj_path, '/');
    base = base ? base + 1 : obj_path;
    snprintf(name, bytes, "%s", base);
    size_t len = strlen(name);
    if (len > 3 && strcmp(name + len - 3, ".gz") == 0)
        name[len -= 3] = '\0';
    if (len > 4 && strcmp(name + len - 4, ".obj") == 0)
        name[len -= 4] = '\0';
    if (len == 0)
        snprintf(name, bytes, "scene");
}
