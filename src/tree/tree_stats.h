/* One function computes the statistics of any tree, CPU- or GPU-built. */
#ifndef KD_TREE_STATS_H
#define KD_TREE_STATS_H

#include <stdbool.h>
#include <stdio.h>

#include "kd_json.h"
#include "kd_build.h"

typedef struct kd_sah_constants {
    float traversal_cost; /* default 1 */
    float intersect_cost; /* default 5 */
    float empty_bonus;    /* default 0.5 */
} kd_sah_constants;

void kd_sah_constants_default(kd_sah_constants *c);

/* Definitions. p(n) = SA(box of n) / SA(root box): under the SAH's model
 * (rays uniformly distributed over the directions and lines that meet the
 * root box, never stopping at a hit), the probability that a ray meeting the
 * root also meets node n. (p(n) = 1 for every node when the root box has no
 * area, i.e. all geometry lies on a line or a point.)
 *   expected_traversal_steps = sum over interior nodes of p(n)
 *   expected_triangle_tests  = sum over leaves of count(n) p(n)
 *   sah_cost = traversal * expected_traversal_steps + intersect * expected_triangle_tests
 * The EMPTY BONUS IS NOT APPLIED to sah_cost: it is a build-time heuristic
 * (pbrt uses it only while choosing splits), and leaving it out keeps the cost
 * a plain expected-work figure comparable across builders and settings.
 * (Applied recursively, pbrt's factor (1 - eb) would compound over every
 * empty-space cut on a path and say little about the work a ray does.) The
 * constants' empty_bonus is only recorded with the figures. */
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
    /* added with the CPU reference builder */
    uint64_t num_leaf_refs;       /* sum of leaf counts */
    uint32_t depth_cap;           /* the tree's max_depth */
} kd_tree_stats;

/* For a tree that passed kd_tree_check_structure (depth within the cap).
 * constants may be NULL (defaults). */
void kd_tree_compute_stats(const kd_tree *tree, const kd_sah_constants *constants,
                           kd_tree_stats *stats);

/* Aligned text block; timing may be NULL. */
void kd_tree_stats_print(FILE *f, const kd_tree_stats *stats, const kd_build_timing *timing);
/* Adds the statistics' fields to an open JSON object. */
void kd_tree_stats_json(kd_json *json, const kd_tree_stats *stats, const kd_build_timing *timing);

#endif
