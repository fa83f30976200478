/* The CPU builder's node buffers, subtree tasks and build context, shared by
 * the recursion (cpu_build.c) and the assembly (cpu_build_assemble.c).
 *
 * The upper levels are built on one thread until nodes hold few enough
 * triangles; each such node becomes a task, and the tasks (largest first) are
 * built in parallel, each into its own preorder node buffer. Assembly then
 * walks the upper levels in preorder and splices every task's buffer in,
 * shifting child and leaf offsets, so the result is the same tree whatever
 * the number of threads. */
#ifndef KD_CPU_BUILD_TASKS_H
#define KD_CPU_BUILD_TASKS_H

#include <stdatomic.h>

#include "cpu_build_internal.h"

/* A node array in preorder with the leaves' triangle indices. */
typedef struct node_buffer {
    kd_node *nodes;
    uint32_t *task_of;  /* upper levels only: task index + 1 for a placeholder, else 0 */
    uint32_t *tris_of;  /* upper levels only: the node's triangle count */
    size_t num_nodes, cap_nodes;
    uint32_t *indices;
    size_t num_indices, cap_indices;
} node_buffer;

typedef struct build_task {
    kd_aabb box;
    kd_event_lists lists;
    kd_path_state path;
    node_buffer out;
    double cost;        /* the built subtree's SAH cost (cpu_build_internal.h) */
    kd_status status;
    kd_error err;
} build_task;

typedef struct build_ctx {
    const kd_mesh *mesh;
    const kd_build_params *params;
    kd_split_scratch *scratch; /* one per worker */
    build_task *tasks;
    size_t num_tasks, cap_tasks;
    uint32_t *task_order;
    uint32_t task_threshold; /* upper-level nodes with at most this many triangles become tasks */
    int num_workers;
    kd_build_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    atomic_size_t progress_done;   /* shares of the leaves made, in progress units */
    size_t progress_told;          /* the last done told (the calling thread's) */
} build_ctx;

/* The tree from the upper levels and the built tasks. Upper-level subtrees
 * that do not pay (their cost known only once the tasks are built) become
 * leaves here, as the tasks' own did while they were built. */
kd_status kd_cpu_assemble(const build_ctx *ctx, const node_buffer *upper, const kd_aabb *root_box,
                          kd_tree *tree, kd_error *err);

#endif
