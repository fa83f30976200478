/* One function computes the statistics of any tree, CPU- or GPU-built. */
#ifndef KD_TREE_STATS_H
#define KD_TREE_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli_util.h"
#include "kd_build.h"

typedef struct kd_sah_constants {
    float traversal_cost; /* default 1 */
    float intersect_cost; /* default 5 */
    float empty_bonus;    /* default 0.5 */
} kd_sah_constants;

void kd_sah_constants_default(kd_sah_constants *c);

typedef struct kd_tree_stats {
    kd_sah_constants constants;
    double sah_cost;              /* relative to the root's surface area */
    uint32_t num_nodes, num_interior, num_leaves, num_empty_leaves;
    uint32_t max_leaf_depth;
    double mean_leaf_depth;       /* over leaves, unweighted */
    double refs_per_triangle;     /* leaf references / triangles */
    double max_leaf_prims;
    double expected_traversal_steps;  /* SAH-weighted, per ray */
    double expected_triangle_tests;   /* SAH-weighted, per ray */
    uint32_t num_triangles;
} kd_tree_stats;

void kd_tree_compute_stats(const kd_tree *tree, const kd_sah_constants *constants,
                           kd_tree_stats *stats);

/* Aligned text block; timing may be NULL. */
void kd_tree_stats_print(FILE *f, const kd_tree_stats *stats, const kd_build_timing *timing);
/* Adds the statistics' fields to an open JSON object. */
void kd_tree_stats_json(kd_json *json, const kd_tree_stats *stats, const kd_build_timing *timing);

#endif
