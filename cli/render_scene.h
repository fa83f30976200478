/* A scene ready to ray-cast: the mesh, its kd-tree (built with the CPU
 * exact-SAH builder or the GPU builder, or loaded from a tree file and
 * checked against the mesh)
 * and the per-triangle vertices the traversal reads. Shared by the render
 * and verify commands. */
#ifndef KD_RENDER_SCENE_H
#define KD_RENDER_SCENE_H

#include <stdbool.h>

#include "kd_build.h"
#include "kd_trace.h"

/* Which builder makes the tree when no tree file is given. */
typedef enum kd_scene_builder { KD_SCENE_BUILD_CPU = 0, KD_SCENE_BUILD_GPU } kd_scene_builder;

typedef struct kd_scene {
    kd_mesh mesh;
    kd_tree tree;
    float *tri_verts;           /* 9 floats per triangle */
    kd_aabb mesh_bounds;
    bool tree_from_file;
    kd_scene_builder builder;   /* of a built tree */
    double load_seconds;        /* OBJ loading */
    double tree_seconds;        /* building, or loading the tree file */
    kd_build_timing timing;     /* of the build (zeroed for a loaded tree) */
} kd_scene;

/* Loads obj_path, then loads tree_path (when not NULL) or builds with params.
 * A loaded tree must have been built over this mesh: the same triangle count
 * and a root box that contains the mesh. On failure *scene is left freed. */
kd_status kd_scene_prepare(kd_scene *scene, const char *obj_path, const char *tree_path,
                           const kd_build_params *params, kd_error *err);
/* The same with a choice of builder: KD_SCENE_BUILD_GPU builds with
 * kd_build_gpu (its default options, with params as the build rules) and
 * fails when there is no CUDA device. */
kd_status kd_scene_prepare_on(kd_scene *scene, const char *obj_path, const char *tree_path,
                              const kd_build_params *params, kd_scene_builder builder,
                              kd_error *err);
void kd_scene_free(kd_scene *scene);

/* The scene's short name for default output files: the file name without
 * folders and without .gz and .obj ("stanford_bunny"). */
void kd_scene_name(const char *obj_path, char *name, size_t bytes);

#endif
