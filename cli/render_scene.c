#include "render_scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_build.h"
#include "cpu_render.h"
#include "gpu_build.h"
#include "obj_loader.h"
#include "tree_io.h"

void kd_scene_free(kd_scene *scene)
{
    kd_mesh_free(&scene->mesh);
    kd_tree_free(&scene->tree);
    free(scene->tri_verts);
    memset(scene, 0, sizeof *scene);
}

static bool box_contains(kd_aabb outer, kd_aabb inner)
{
    for (int a = 0; a < 3; a++)
        if (inner.lo[a] < outer.lo[a] || inner.hi[a] > outer.hi[a])
            return false;
    return true;
}

/* Builds scene->tree over scene->mesh with the chosen builder. */
static kd_status build_tree(kd_scene *scene, const kd_build_params *params,
                            kd_scene_builder builder, kd_error *err)
{
    if (builder == KD_SCENE_BUILD_CPU)
        return kd_build_cpu(&scene->mesh, params, &scene->tree, &scene->timing, err);
    kd_gpu_build_options opts;
    kd_gpu_build_options_default(&opts);
    opts.params = *params;
    kd_gpu_build_profile profile;
    kd_status st = kd_build_gpu(&scene->mesh, &opts, &scene->tree, &profile, err);
    if (!st)
        kd_gpu_build_profile_timing(&profile, &scene->timing);
    return st;
}

kd_status kd_scene_prepare(kd_scene *scene, const char *obj_path, const char *tree_path,
                           const kd_build_params *params, kd_error *err)
{
    return kd_scene_prepare_on(scene, obj_path, tree_path, params, KD_SCENE_BUILD_CPU, err);
}

kd_status kd_scene_prepare_on(kd_scene *scene, const char *obj_path, const char *tree_path,
                              const kd_build_params *params, kd_scene_builder builder,
                              kd_error *err)
{
    memset(scene, 0, sizeof *scene);
    scene->builder = builder;
    double start = kd_render_now();
    kd_status st = kd_obj_load_file(obj_path, &scene->mesh, err);
    if (st)
        return st;
    scene->load_seconds = kd_render_now() - start;
    scene->mesh_bounds = kd_mesh_bounds(&scene->mesh);
    st = kd_trace_gather_vertices(&scene->mesh, &scene->tri_verts, err);
    if (st)
        goto fail;
    start = kd_render_now();
    if (tree_path) {
        scene->tree_from_file = true;
        st = kd_tree_load(&scene->tree, tree_path, err);
        if (st)
            goto fail;
        if (scene->tree.num_triangles != scene->mesh.num_triangles) {
            st = kd_error_set(err, KD_ERR_INVALID,
                              "%s was built over %u triangles, but %s has %u", tree_path,
                              scene->tree.num_triangles, obj_path, scene->mesh.num_triangles);
            goto fail;
        }
        if (!box_contains(scene->tree.bounds, scene->mesh_bounds)) {
            st = kd_error_set(err, KD_ERR_INVALID,
                              "%s does not fit %s: its root box does not contain the scene",
                              tree_path, obj_path);
            goto fail;
        }
    } else {
        st = build_tree(scene, params, builder, err);
        if (st)
            goto fail;
    }
    scene->tree_seconds = kd_render_now() - start;
    return KD_OK;
fail:
    kd_scene_free(scene);
    return st;
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
