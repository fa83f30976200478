/* scankd's public C API: kd-trees for ray tracing, built on the CPU (exact
 * SAH) or on the GPU, and closest-hit ray casting through them.
 *
 *   find_package(scankd REQUIRED)
 *   target_link_libraries(app PRIVATE scankd::scankd)
 *   #include <scankd/scankd.h>
 *
 * A typical program (examples/embed/embed.c is a whole one):
 *
 *   kd_error err;
 *   kd_mesh mesh;
 *   scankd_scene *scene;
 *   scankd_build_options opts;
 *   if (scankd_mesh_from_arrays(xyz, nv, idx, nt, &mesh, &err) != KD_OK) ...
 *   scankd_build_options_default(&opts);          (device: auto)
 *   if (scankd_build(&mesh, &opts, &scene, &err) != KD_OK) ...
 *   scankd_trace_cpu(scene, rays, n, hits, &err);
 *   scankd_scene_destroy(scene);
 *   kd_mesh_free(&mesh);
 *
 * Conventions. Every function that can fail returns a kd_status (KD_OK is 0)
 * and, on failure, fills the kd_error it is given (which may be NULL) with
 * the status and a one-line reason; kd_status_name() names a status. Nothing
 * here prints or exits. Invalid arguments (NULL pointers, counts, indices or
 * options out of range) fail with KD_ERR_INVALID. A mesh or scene asked for
 * is left zeroed or NULL on failure.
 *
 * Plain-data types come from the headers beside this one: kd_error.h (status
 * and message), kd_mesh.h (kd_mesh, kd_mesh_free), kd_tree.h (the tree
 * format: 8-byte nodes in preorder, leaf lists) and kd_build.h (the build
 * rules, kd_build_params).
 *
 * Threads: functions taking a const scankd_scene may run concurrently on
 * one scene; the GPU functions, which upload the scene on first use, may not
 * run concurrently with each other on one scene.
 *
 * The header is C11 and C++ and needs no CUDA header. The library links the
 * CUDA runtime (libcudart) and runs without a GPU or a driver: then the CPU
 * paths work and the GPU paths fail with KD_ERR_NO_DEVICE. */
#ifndef SCANKD_H
#define SCANKD_H

#include <stddef.h>
#include <stdint.h>

#include "kd_build.h"
#include "kd_error.h"
#include "kd_mesh.h"
#include "kd_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Meshes --------------------------------------------------------------
 * A kd_mesh holds vertex positions (3 floats each) and triangles (3 vertex
 * indices each); free it with kd_mesh_free. Triangles with a NaN or infinite
 * coordinate, or with exactly zero area, are dropped and counted
 * (num_dropped_nonfinite, num_dropped_zero_area); num_triangles counts those
 * kept, in their original order, and a hit's triangle index refers to them. */

/* Loads a Wavefront OBJ or a PLY file (ASCII or binary; PLY by its first line
 * or a .ply name), either gzip-compressed where scankd was built with zlib:
 * vertices and faces, fan-triangulated; everything else is skipped. A
 * malformed file fails with KD_ERR_PARSE and the file and place ("path:line:
 * reason"; PLY bodies "path: element 'face' row R (...): reason"). */
kd_status scankd_mesh_load(const char *path, kd_mesh *mesh, kd_error *err);

/* Copies caller arrays into a mesh: positions holds 3 * num_vertices floats,
 * indices 3 * num_triangles vertex indices (each < num_vertices). Fails with
 * KD_ERR_INVALID on a NULL array, zero counts, an index out of range, or
 * when every triangle is dropped. */
kd_status scankd_mesh_from_arrays(const float *positions, uint32_t num_vertices,
                                  const uint32_t *indices, uint32_t num_triangles, kd_mesh *mesh,
                                  kd_error *err);

/* ---- Building --------------------------------------------------------- */

typedef enum scankd_device {
    SCANKD_DEVICE_AUTO = 0, /* the GPU when a CUDA device is present, else the CPU */
    SCANKD_DEVICE_CPU = 1,
    SCANKD_DEVICE_GPU = 2
} scankd_device;

/* How the GPU builder splits its large nodes (the upper levels). */
typedef enum scankd_large_split {
    SCANKD_LARGE_SPLIT_SAH = 0,   /* binned SAH over the node's box */
    SCANKD_LARGE_SPLIT_MEDIAN = 1 /* cut off empty space, else the spatial median: faster, costlier trees */
} scankd_large_split;

enum { SCANKD_SMALL_NODE_MAX = 64, SCANKD_SAH_BINS_MAX = 128 };

typedef struct scankd_build_options {
    scankd_device device;           /* default SCANKD_DEVICE_AUTO */
    kd_build_params params;         /* SAH constants and stopping rules both builders honour
                                       (kd_build.h; default pbrt-v4's plus min_empty_fraction) */
    /* The GPU builder's choices (the CPU builder is exact SAH throughout);
     * checked whatever the device, so options that work on one machine work
     * on every machine. */
    scankd_large_split large_split; /* default SAH */
    int small_node_threshold;       /* nodes of at most this many references are split by exact
                                       SAH, 1..SCANKD_SMALL_NODE_MAX (default 64) */
    int sah_bins;                   /* bins per axis for SAH large splits, 2..SCANKD_SAH_BINS_MAX
                                       (default 64) */
    float max_refs_per_triangle;    /* the most references one path may multiply a triangle
                                       into, >= 2 (default 24): more gives lower-cost trees on
                                       scenes of large slanted triangles, at more memory */
    float empty_space_ratio;        /* an empty slab beside a large node's triangles is a cut
                                       candidate where it spans at least this share of the node,
                                       at most 1; < 0 (default): params.min_empty_fraction */
    uint64_t max_device_bytes;      /* the GPU builder holds at most this much device memory; a
                                       build that needs more runs its medium and small stages in
                                       batches, and one that cannot fails with KD_ERR_DEVICE_OOM,
                                       saying how much it needs; 0 (default): no cap but the
                                       device's */
} scankd_build_options;

void scankd_build_options_default(scankd_build_options *opts);

/* Number of usable CUDA devices; 0 without a device or a driver. */
int scankd_device_count(void);

/* Makes the calling thread's current CUDA device's context and loads the
 * GPU builder's kernels that a GPU build with opts (NULL: the defaults)
 * runs on a small scene, which CUDA otherwise loads in the first build: call
 * it on a thread of your own while your scene loads, and a later GPU build
 * spends that time only sizing its buffers (kernels only a large scene needs
 * still load then). Without a device it does nothing and returns KD_OK. It
 * may run concurrently with any other call. */
kd_status scankd_warm_up(const scankd_build_options *opts, kd_error *err);

/* "auto", "cpu", "gpu" */
const char *scankd_device_name(scankd_device device);

/* A kd-tree together with the triangles it was built over (copied from the
 * mesh, which may be freed afterwards): what the trace functions read. */
typedef struct scankd_scene scankd_scene;

/* Builds a tree over mesh on the chosen device. Fails with
 * KD_ERR_NO_DEVICE when the GPU is asked for and none is present (auto never
 * does), and with the GPU builder's error when a GPU build fails: auto does
 * not fall back to the CPU after choosing the GPU. */
kd_status scankd_build(const kd_mesh *mesh, const scankd_build_options *opts, scankd_scene **out,
                       kd_error *err);

/* Frees a scene and its device copy; NULL is fine. */
void scankd_scene_destroy(scankd_scene *scene);

/* The tree itself (kd_tree.h), owned by the scene, for callers that traverse
 * it themselves. */
const kd_tree *scankd_scene_tree(const scankd_scene *scene);

/* ---- Tree files ---------------------------------------------------------
 * A tree file holds the tree, not the triangles, and a fingerprint of the
 * mesh it was built over (a hash of its positions and indices as given):
 * loading takes that mesh, and refuses any other. */

kd_status scankd_scene_save(const scankd_scene *scene, const char *path, kd_error *err);

/* Loads a tree file and checks it against mesh: a malformed or truncated
 * file fails with KD_ERR_PARSE; a tree built over another mesh (a different
 * triangle count, a root box that does not hold the mesh, or another
 * fingerprint: moved vertices, reordered faces), or a file of format
 * version 1, which records no fingerprint, with KD_ERR_INVALID ("tree PATH
 * was built over a different mesh than the mesh given: why"). */
kd_status scankd_scene_load(const kd_mesh *mesh, const char *path, scankd_scene **out,
                            kd_error *err);

/* ---- Statistics -------------------------------------------------------- */

typedef struct scankd_stats {
    double sah_cost;                 /* expected work per ray relative to the root's area:
                                        traversal_cost * steps + intersect_cost * tests
                                        (the empty bonus is not applied) */
    double traversal_cost, intersect_cost; /* the constants used: pbrt's 1 and 5 */
    double expected_traversal_steps; /* SAH-weighted interior nodes per ray */
    double expected_triangle_tests;  /* SAH-weighted triangle tests per ray */
    uint32_t num_nodes, num_interior, num_leaves, num_empty_leaves;
    uint32_t max_leaf_depth;
    uint32_t depth_cap;              /* the depth the builder was allowed */
    double mean_leaf_depth;
    uint64_t num_leaf_refs;          /* triangle references in all leaves */
    double refs_per_triangle;
    uint32_t max_leaf_prims;
    uint32_t num_triangles;
    scankd_device built_on;          /* CPU or GPU; SCANKD_DEVICE_AUTO for a loaded tree */
    double build_ms;                 /* wall time of the build; 0 for a loaded tree */
} scankd_stats;

kd_status scankd_scene_stats(const scankd_scene *scene, scankd_stats *stats, kd_error *err);

/* ---- Tracing rays ---------------------------------------------------------
 * Closest hit of each ray: the smallest t > 0 with t < t_max, ties to the
 * lower triangle index; watertight (a ray through a shared edge or vertex
 * hits one of its triangles), both faces count. The CPU and the GPU give the
 * same hits bit for bit. */

typedef struct scankd_ray {
    float org[3];
    float dir[3];   /* need not be normalised; t is in units of |dir| */
    float t_max;    /* hits at t_max or beyond are ignored; INFINITY for none */
} scankd_ray;

#define SCANKD_NO_HIT 0xffffffffu

typedef struct scankd_hit {
    uint32_t tri;   /* index of the triangle hit in the scene's mesh; SCANKD_NO_HIT on a miss */
    float t;        /* org + t * dir is the hit point; t_max on a miss */
    float b1, b2;   /* barycentric weights of the triangle's second and third vertices */
} scankd_hit;

/* A ray is valid when org and dir are finite, dir is not zero and t_max is
 * not NaN; the host-array functions check every ray (KD_ERR_INVALID names
 * the first bad one), the device-array function checks none (a bad ray
 * misses, or hits as its numbers say). */

/* Traces host arrays on all CPU cores; hits[i] answers rays[i]. */
kd_status scankd_trace_cpu(const scankd_scene *scene, const scankd_ray *rays, size_t num_rays,
                           scankd_hit *hits, kd_error *err);

/* Traces host arrays on the GPU (copies them over and back; returns when the
 * hits are in place). KD_ERR_NO_DEVICE without a device. */
kd_status scankd_trace_gpu(scankd_scene *scene, const scankd_ray *rays, size_t num_rays,
                           scankd_hit *hits, kd_error *err);

/* A CUDA stream (cudaStream_t) as this header spells it, so that it needs no
 * CUDA header; NULL is the default stream. */
typedef void *scankd_stream;

/* Traces device arrays (d_rays and d_hits in device or managed memory) in
 * one kernel enqueued on stream, for a renderer that keeps its rays on the
 * GPU. Returns once the kernel is enqueued: synchronise the stream before
 * reading d_hits. The first GPU call on a scene uploads it (synchronously). */
kd_status scankd_trace_gpu_device(scankd_scene *scene, const scankd_ray *d_rays, size_t num_rays,
                                  scankd_hit *d_hits, scankd_stream stream, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
