/* The GPU kd-tree builder (after Zhou, Hou, Wang and Guo 2008), C-callable.
 *
 * Stages, all on the device: preprocess (triangle bounds, scene bounds by a
 * min/max reduction); large-node stage, breadth-first over every node with
 * more than small_node_threshold references (node bounds by a segmented
 * reduction, spatial-median or binned-SAH split, straddlers clipped to each
 * child, references distributed by split-by-side addressing, next level
 * compacted by a scan); small-node stage (exact SAH over the clipped bound
 * planes, reference sets as 64-bit masks, pbrt-v4's termination rules); and
 * output (preorder addresses from subtree sizes, the leaf index array).
 * The host reads back only counts: once per large level, once after the
 * small stage (a single run of device-driven waves) and once for the output
 * sizes. References per triangle are bounded (max_refs_per_triangle).
 *
 * The tree is the shared format (kd_tree.h) and obeys the verifier's
 * contract: a node's box is closed, and a triangle goes to every child whose
 * closed box it touches. Two builds of one mesh give byte-identical trees.
 *
 * Two ways in: kd_build_gpu() (a mesh in host memory to a host tree), and a
 * reusable builder whose buffers persist between builds, so that repeated
 * builds allocate nothing and "triangles in GPU memory -> finished tree" can
 * be timed alone (kd_gpu_builder_build). */
#ifndef KD_GPU_BUILD_H
#define KD_GPU_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "kd_build.h"
#include "kd_primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_large_split {
    KD_LARGE_SPLIT_MEDIAN = 0, /* Zhou: cut off empty space, else the spatial median */
    KD_LARGE_SPLIT_SAH = 1     /* binned SAH over the node's tight box */
} kd_large_split;

/* "median" / "sah"; kd_large_split_parse returns -1 for anything else. */
const char *kd_large_split_name(kd_large_split split);
int kd_large_split_parse(const char *name);

enum { KD_GPU_SMALL_NODE_MAX = 64 }; /* reference masks are 64 bits */

/* Knobs for tests only, never set by the CLI or the public API (scankd.h):
 * they make rare paths run on small inputs. Zero: off. */
typedef struct kd_gb_test_hooks {
    uint32_t small_clip_jobs;       /* the first size of the small stage's clip-job array (grown on demand) */
    uint32_t small_room;            /* the small stage's task array first holds this many beyond the roots,
                                       and each half of its bounds arena (one wave's) a sixteenth of it
                                       beyond the roots' members */
    int medium_blocks;              /* the medium stage runs at most this many blocks (few blocks:
                                       the queues' hand-offs; sanitizers) */
    int medium_shape;               /* the medium stage's shape whatever the level: 1 wide (its clips'
                                       polygons in local memory, as on GPUs without room in shared
                                       memory), -1 narrow (0: by the level's references per SM, and
                                       narrow under a memory cap) */
    uint32_t medium_wide_refs;      /* the references per SM from which a level runs wide
                                       (0: KD_GB_MED_WIDE_REFS) */
    int keep_subtrees;              /* 1: subtrees that do not pay are kept (the trees before that rule) */
    uint32_t batch_refs;            /* the medium and small stages run in batches of at most this many of
                                       the hand-over level's references (one node at least), as a memory
                                       cap would make them */
    int large_bound_sizing;         /* 1: the large levels' reference sets sized by the most a level can
                                       write even under a memory cap (without a cap they always are) */
} kd_gb_test_hooks;

typedef struct kd_gpu_build_options {
    kd_build_params params;         /* SAH constants, termination rules, depth cap (as the CPU builder) */
    kd_large_split large_split;     /* default SAH (median: faster, trees far from exact SAH on some scenes) */
    int small_node_threshold;       /* nodes with at most this many references go to the small stage, 1..64 */
    int sah_bins;                   /* bins per axis for KD_LARGE_SPLIT_SAH, 2..128 */
    float empty_space_ratio;        /* large and medium stages: the empty slab beside a node's references
                                       is a candidate cut where it spans at least this fraction of the
                                       node, 0..1; < 0: params.min_empty_fraction, the empty-bonus rule
                                       both builders share (Zhou et al. 2008 cut off 0.25) */
    float max_refs_per_triangle;    /* leaves hold at most max(this x N, 65536) references, >= 2 */
    kd_reduce_variant reduce_variant; /* rung of the min/max reduction ladder the builder calls */
    int medium_min_nodes;           /* a large level of at least this many nodes, none of more than */
    int medium_max_refs;            /* this many references, goes to the medium stage (a warp per
                                       node, no host round trip); min nodes 0: never */
    int medium_block_refs;          /* the medium stage's nodes of more than this many references
                                       take a block's warps together; 0: a warp each */
    size_t max_device_bytes;        /* 0: no cap; else the builder holds at most this much device memory */
    kd_gb_test_hooks hooks;         /* tests only; zero */
    int profile;                    /* 1: time stages and reductions with CUDA events */
    int kernel_clock;               /* 1 (with profile): also the reductions' and the build's kernels'
                                       device time by CUPTI (kd_kernel_clock.h), where it can run */
} kd_gpu_build_options;

/* Defaults: kd_build_params_default, threshold 64, binned SAH with 64 bins,
 * the medium stage from a level of 8 nodes of at most 16384 references
 * (nodes of more than 1024 references taken by a block's warps together),
 * empty cuts by the build rules' min_empty_fraction, budget 24 references per
 * triangle (not binding below 65536 references in all), the reduction rung
 * Reduce8 (one launch), no cap. */
void kd_gpu_build_options_default(kd_gpu_build_options *opts);

/* The empty-space ratio a build with these options uses (empty_space_ratio,
 * or params.min_empty_fraction where that is < 0). */
float kd_gpu_build_empty_space(const kd_gpu_build_options *opts);

typedef enum kd_gpu_stage {
    KD_GPU_STAGE_PREPROCESS = 0,
    KD_GPU_STAGE_LARGE,
    KD_GPU_STAGE_SMALL,
    KD_GPU_STAGE_OUTPUT,
    KD_GPU_NUM_STAGES
} kd_gpu_stage;

const char *kd_gpu_stage_name(kd_gpu_stage stage);

/* Steps within the stages, timed with --profile: each step's time runs from
 * the end of the step before it, so launch gaps and host waits count too
 * (a read-back step is the device idling while the host reads counts). */
typedef enum kd_gpu_step {
    KD_GPU_STEP_LARGE_BOUNDS = 0, /* node bounds (segmented reduction) */
    KD_GPU_STEP_LARGE_CHOOSE,     /* bins and split choice */
    KD_GPU_STEP_LARGE_CLASSIFY,   /* each reference's side */
    KD_GPU_STEP_LARGE_SPLIT,      /* split-by-side addressing */
    KD_GPU_STEP_LARGE_BOOKKEEP,   /* plans and next-level compaction */
    KD_GPU_STEP_LARGE_READBACK,   /* the level's counts to the host */
    KD_GPU_STEP_LARGE_SCATTER,    /* clipping and filing references */
    KD_GPU_STEP_MEDIUM,           /* the medium stage, read-back included */
    KD_GPU_STEP_SMALL_SETUP,      /* roots and members as wave 0 */
    KD_GPU_STEP_SMALL_NODES,      /* node passes */
    KD_GPU_STEP_SMALL_CLIP,       /* clip passes */
    KD_GPU_STEP_SMALL_READBACK,   /* the stage's counts to the host */
    KD_GPU_STEP_OUTPUT_COLLAPSE,  /* subtrees that do not pay made leaves */
    KD_GPU_STEP_OUTPUT_SIZES,     /* subtree sizes */
    KD_GPU_STEP_OUTPUT_READBACK,  /* totals to the host */
    KD_GPU_STEP_OUTPUT_PLACE,     /* placing nodes and leaf lists */
    KD_GPU_NUM_STEPS
} kd_gpu_step;

const char *kd_gpu_step_name(kd_gpu_step step);

/* A build's kernels' device times by the kernel clock (kd_kernel_clock.h). */
typedef struct kd_gpu_kernel_times {
    int clocked;                        /* 1: the figures below were measured */
    double reduce_ms;                   /* device time of the reduction calls' kernels and memsets */
    uint32_t num_reduce;                /* how many kernels and memsets those calls ran */
    double all_ms;                      /* device time of all the build's kernels and memsets */
    uint32_t num_all;
    double busy_ms;                     /* time with one of them running (overlaps once) */
    char error[160];                    /* why not, where the clock was asked for and clocked is 0 */
} kd_gpu_kernel_times;

typedef struct kd_gpu_build_profile {
    double build_ms;                    /* host wall time: device triangles to finished device tree */
    double stage_ms[KD_GPU_NUM_STAGES]; /* CUDA-event time per stage (profile on; else 0) */
    double step_ms[KD_GPU_NUM_STEPS];   /* CUDA-event time per step, all its repeats (profile on) */
    uint32_t step_count[KD_GPU_NUM_STEPS]; /* how often each step ran */
    double reduce_ms;                   /* time inside the reduction primitives (profile on) */
    uint32_t num_reduce_calls;          /* reduction primitive calls (scene bounds + one per large level) */
    kd_gpu_kernel_times kernel;         /* the kernel clock's figures (profile and kernel_clock on) */
    uint32_t num_large_levels;
    uint32_t num_large_cuts;            /* empty cuts the large levels made in a row, without a level each */
    uint32_t num_medium_nodes;          /* nodes the medium stage split or made leaves */
    uint32_t num_medium_cuts;           /* of them, empty cuts made without a pass over their references */
    uint32_t num_medium_block_nodes;    /* of them, nodes a block's warps took together */
    uint32_t medium_wide;               /* 1: the medium stage's last run took its wide shape (two blocks
                                           an SM, polygons in local memory); 0: narrow, or emulated */
    uint32_t num_medium_retries;        /* medium stage re-runs after growing its arrays */
    uint32_t num_batches;               /* runs of the medium and small stages over parts of the large
                                           stage's last level, to fit max_device_bytes; 0: one, whole */
    uint32_t num_handover_refs;         /* references of the large stage's last level, which the medium
                                           stage took (0: it took none) */
    uint32_t num_small_roots;
    uint32_t num_host_syncs;            /* host waits on the device during the build */
    uint32_t num_small_retries;         /* small stage re-runs after growing the node pool */
    uint32_t num_output_retries;        /* placements again after growing the leaf references' array */
    uint32_t num_nodes;
    uint32_t num_leaf_refs;
    uint64_t max_large_refs;            /* most references in one large level */
    uint64_t device_bytes;              /* device memory the builder holds after the build */
    uint64_t peak_device_bytes;         /* the most it held at once during the build: a buffer that
                                           grows holds its old and its new memory a moment;
                                           kd_build_gpu_warm: the most over all its builds */
    uint64_t large_peak_device_bytes;   /* the most it held until the large stage ended (that stage runs
                                           over every triangle, never in batches) */
} kd_gpu_build_profile;

/* Fills a kd_build_timing (phase names and times) from a profile, so the
 * statistics printer shows the GPU stages. */
void kd_gpu_build_profile_timing(const kd_gpu_build_profile *profile, kd_build_timing *timing);

/* ---- A reusable builder ------------------------------------------------- */
typedef struct kd_gpu_builder kd_gpu_builder;

/* host_emulation = 1 runs the same pipeline on the CPU: every kernel's
 * per-element code, with the primitives replaced by plain CPU loops. It needs
 * no device, produces the same tree as the device path, and is how the
 * builder's logic is tested on machines without a GPU. */
kd_status kd_gpu_builder_create(kd_gpu_builder **out, int host_emulation, kd_error *err);
void kd_gpu_builder_destroy(kd_gpu_builder *builder);

/* Copies a host mesh to the device (the builder owns the copy). */
kd_status kd_gpu_builder_set_mesh(kd_gpu_builder *builder, const kd_mesh *mesh, kd_error *err);

/* Uses a mesh already in device memory (borrowed: it must outlive the builds):
 * positions are 3 floats per vertex, indices 3 per triangle. A build fails
 * with KD_ERR_INVALID, naming the fault, where a triangle names a vertex past
 * num_vertices or one with a NaN or infinite coordinate (the mesh is not
 * read here, so it is the build that finds them). */
kd_status kd_gpu_builder_set_device_mesh(kd_gpu_builder *builder, const float *d_positions,
                                         const uint32_t *d_indices, uint32_t num_vertices,
                                         uint32_t num_triangles, kd_error *err);

/* Builds the tree on the device from the current mesh; the tree stays on the
 * device until kd_gpu_builder_download. profile may be NULL. */
kd_status kd_gpu_builder_build(kd_gpu_builder *builder, const kd_gpu_build_options *opts,
                               kd_gpu_build_profile *profile, kd_error *err);

/* Copies the last built tree to host arrays (freed with kd_tree_free). */
kd_status kd_gpu_builder_download(kd_gpu_builder *builder, kd_tree *tree, kd_error *err);

/* The last built tree where it lies (device memory, or host memory under
 * emulation), with the triangles as 9 floats each, for the GPU ray caster. */
typedef struct kd_gpu_tree_view {
    const kd_node *nodes;
    const uint32_t *leaf_indices;
    const float *tri_verts;
    uint32_t num_nodes;
    uint32_t num_leaf_indices;
    uint32_t num_triangles;
    uint32_t max_depth;
    kd_aabb bounds;
} kd_gpu_tree_view;

kd_status kd_gpu_builder_tree_view(const kd_gpu_builder *builder, kd_gpu_tree_view *view,
                                   kd_error *err);

/* Device (or emulated) bytes the builder holds now. */
size_t kd_gpu_builder_device_bytes(const kd_gpu_builder *builder);

/* ---- One call: host mesh to host tree ----------------------------------- */
kd_status kd_build_gpu(const kd_mesh *mesh, const kd_gpu_build_options *opts, kd_tree *tree,
                       kd_gpu_build_profile *profile, kd_error *err);

/* kd_build_gpu after `warmup` untimed builds of the same mesh on the same
 * builder (its buffers then sized, as for repeated builds), then `repeats`
 * reported builds (at least 1): the profile's times are their medians, field
 * by field (so they need not add up), its counts the last build's, and the
 * tree is the last build's. first_build_ms (may be NULL): the host wall time
 * of the builder's first build, warm-up or not, which also sizes the buffers
 * and loads the kernels (CUDA loads them lazily) that kd_gpu_build_warm_up
 * did not. With profile and
 * kernel_clock, `repeats` more builds with the kernel clock on give the
 * profile's kernel times (their medians), so its tracing upsets none of the
 * event times. */
kd_status kd_build_gpu_warm(const kd_mesh *mesh, const kd_gpu_build_options *opts, int warmup,
                            int repeats, kd_tree *tree, kd_gpu_build_profile *profile,
                            double *first_build_ms, kd_error *err);

/* ---- Kernels loaded ahead of a first build -------------------------------- */
/* CUDA loads a kernel the first time it is launched. kd_gpu_build_warm_up
 * builds a small made-up mesh once with opts (NULL: the defaults; never
 * under a memory cap) and drops its tree, so that the kernels such a build
 * runs are loaded: a program calls it on a thread of its own while it loads
 * its scene. The first build after it still sizes its buffers, and loads
 * what only larger scenes run (the medium stage's wide shape, the large
 * levels' clip queue). */
kd_status kd_gpu_build_warm_up(const kd_gpu_build_options *opts, kd_error *err);

/* The warm-up's mesh (kd_mesh_free frees it): KD_GPU_WARM_TRIANGLES small
 * triangles a fixed generator scatters through the unit cube. */
enum { KD_GPU_WARM_TRIANGLES = 6000 };
kd_status kd_gpu_build_warm_mesh(kd_mesh *mesh, kd_error *err);

#define KD_GPU_PROFILE_MAX_REPEATS 100

/* Per-field medians of n profiles' times (build, stages, steps, reductions)
 * into *out, with the counts of the last; n >= 1. */
void kd_gpu_build_profile_median(const kd_gpu_build_profile *profiles, int n, kd_gpu_build_profile *out);

/* The same pipeline on the CPU (see kd_gpu_builder_create). */
kd_status kd_build_gpu_emulated(const kd_mesh *mesh, const kd_gpu_build_options *opts,
                                kd_tree *tree, kd_gpu_build_profile *profile, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
