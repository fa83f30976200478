/* A scene ready to ray-cast: the mesh, its kd-tree (built with the CPU
 * exact-SAH builder or loaded from a tree file and checked against the mesh)
 * and the per-triangle vertices the traversal reads. Shared by the render
 * and verify commands. */
#ifndef KD_RENDER_SCENE_H
#define KD_RENDER_SCENE_H

#include <stdbool.h>

#include "kd_build.h"
#include "kd_trace.h"

typedef struct kd_scene {
    kd_mesh mesh;
    kd_tree tree;
    float *tri_verts;           /* 9 floats per triangle */
    kd_aabb mesh_bounds;
    bool tree_from_file;
    double load_seconds;        /* OBJ loading */
    double tree_seconds;        /* building, or loading the tree file */
    kd_build_timing timing;     /* of the build (zeroed for a loaded tree) */
} kd_scene;

/* Loads obj_path, then loads tree_path (when not NULL) or builds with params.
 * A loaded tree must have been built over this mesh: the same triangle count
 * and a root box that contains the mesh. On failure *scene is left freed. */
kd_status kd_scene_prepare(kd_scene *scene, const char *obj_path, const char *tree_path,
                           const kd_build_params *params, kd_error *err);
void kd_scene_free(kd_scene *scene);

/* The scene's short name for default output files: the file name without
 * folders and without .gz and .obj ("stanford_bunny"). */
void kd_scene_name(const char *obj_path, char *name, size_t bytes);

#endif
