/* A scene ready to ray-cast: the mesh, its kd-tree (built with the CPU
 * exact-SAH builder or the GPU builder, or loaded from a tree file and
 * checked against the mesh: its fingerprint included) and the per-triangle
 * vertices the traversal reads. Shared by the render, verify and stats
 * commands. */
#ifndef KD_RENDER_SCENE_H
#define KD_RENDER_SCENE_H

#include <stdbool.h>

#include "cli_progress.h"
#include "kd_build.h"
#include "gpu_build.h"
#include "kd_trace.h"
#include "mesh_load.h"
#include "tree_io.h"

/* Which builder makes the tree when no tree file is given. */
typedef enum kd_scene_builder { KD_SCENE_BUILD_CPU = 0, KD_SCENE_BUILD_GPU } kd_scene_builder;

typedef struct kd_scene {
    kd_mesh mesh;
    kd_tree tree;
    kd_tree_origin origin;      /* the tree file's record, or the build's */
    float *tri_verts;           /* 9 floats per triangle */
    kd_aabb mesh_bounds;
    bool tree_from_file;
    kd_scene_builder builder;   /* of a built tree */
    double load_seconds;        /* OBJ loading */
    double tree_seconds;        /* building, or loading the tree file */
    kd_build_timing timing;     /* of the build (zeroed for a loaded tree) */
    char warning[KD_ERROR_MESSAGE_BYTES]; /* why --force-tree was needed, or empty */
    kd_mesh_load_info load_info; /* file sizes and the loader's warning */
} kd_scene;

/* What to prepare. */
typedef struct kd_scene_request {
    const char *obj_path;
    const char *tree_path;      /* a tree file to use, or NULL to build */
    bool force_tree;            /* use a tree file whose fingerprint is not the mesh's */
    kd_build_params params;     /* of a build */
    kd_scene_builder builder;   /* KD_SCENE_BUILD_GPU: kd_build_gpu with its default options
                                   and params as the build rules; fails without a CUDA device */
    uint64_t max_device_bytes;  /* the GPU builder's memory cap; 0: none */
    kd_cli_progress *progress;  /* the steps' progress line, or NULL */
    bool gpu;                   /* the command uses the GPU (to build or to trace) */
} kd_scene_request;

/* What a command goes on to do with the GPU once the mesh is loaded. */
typedef enum kd_scene_gpu_use {
    KD_SCENE_GPU_NONE,  /* nothing */
    KD_SCENE_GPU_TRACE, /* trace rays through a tree it reads */
    KD_SCENE_GPU_BUILD  /* build a tree on it (and maybe trace) */
} kd_scene_gpu_use;

/* Loads a scene's mesh, with its file's sizes (info may be NULL) and the
 * step's progress line ("loading NAME"; progress may be NULL): the one place
 * the commands load a mesh. Where the command goes on to use the GPU, the
 * CUDA context is made meanwhile on a thread of its own, and where it builds
 * there, the builder's kernels are loaded (kd_gpu_build_warm_up). */
kd_status kd_scene_load_mesh(const char *path, kd_mesh *mesh, kd_mesh_load_info *info, kd_cli_progress *progress,
                             kd_scene_gpu_use gpu, kd_error *err);

/* Loads the OBJ, then the tree file (kd_scene_load_tree) or builds a tree,
 * each a step of req->progress. On failure *scene is left freed. */
kd_status kd_scene_prepare(kd_scene *scene, const kd_scene_request *req, kd_error *err);
void kd_scene_free(kd_scene *scene);

/* Loads a tree file for mesh (read from mesh_path, which messages name):
 * the file must be sound (kd_tree_load), fit the mesh (triangle count, root
 * box) and carry the mesh's fingerprint. With force a fingerprint that
 * differs, or none (a version-1 file), is let through with its reason in
 * warning; else warning is left empty. A refusal says how to rebuild the
 * tree or to pass --force-tree. On failure tree is left zeroed. */
kd_status kd_scene_load_tree(const char *tree_path, const char *mesh_path, const kd_mesh *mesh, bool force,
                             kd_tree *tree, kd_tree_origin *origin, char *warning, size_t warning_bytes,
                             kd_error *err);

/* The rules hash a GPU build with these options records (tree_io.h). */
uint64_t kd_scene_gpu_rules_hash(const kd_gpu_build_options *opts);

/* The scene's short name for default output files: the file name without
 * folders and without .gz and .obj ("stanford_bunny"). */
void kd_scene_name(const char *obj_path, char *name, size_t bytes);

#endif
