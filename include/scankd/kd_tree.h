/* The one kd-tree format every builder produces and every consumer reads.
 * Plain arrays, valid in C and CUDA (after pbrt's 8-byte node):
 *  - nodes in depth-first (preorder) order; an interior node's first ("below")
 *    child is the next node, its second ("above") child is at child_index;
 *  - a leaf lists num_prims triangle indices starting at leaf_indices[offset]. */
#ifndef KD_TREE_H
#define KD_TREE_H

#include <stdint.h>

#include "kd_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KD_NODE_LEAF = 3 };           /* value of the low 2 flag bits for a leaf */

typedef struct kd_node {
    union {
        float split;                 /* interior: split position on axis */
        uint32_t leaf_offset;        /* leaf: first entry in leaf_indices */
    };
    uint32_t flags;                  /* bits 0-1: axis 0..2 or KD_NODE_LEAF;
                                        bits 2-31: above-child index or leaf count */
} kd_node;

typedef struct kd_tree {
    kd_node *nodes;
    uint32_t num_nodes;
    uint32_t *leaf_indices;          /* triangle indices of all leaves */
    uint32_t num_leaf_indices;
    uint32_t num_triangles;          /* of the mesh the tree was built over */
    uint32_t max_depth;              /* the depth cap the builder honoured */
    kd_aabb bounds;                  /* root box */
} kd_tree;

#if defined(__CUDACC__)
#define KD_HD __host__ __device__ __forceinline__
#else
#define KD_HD static inline
#endif

KD_HD int kd_node_is_leaf(kd_node n) { return (n.flags & 3u) == KD_NODE_LEAF; }
KD_HD int kd_node_axis(kd_node n) { return (int)(n.flags & 3u); }
KD_HD uint32_t kd_node_above_child(kd_node n) { return n.flags >> 2; }
KD_HD uint32_t kd_node_num_prims(kd_node n) { return n.flags >> 2; }

KD_HD kd_node kd_make_interior(int axis, float split, uint32_t above_child)
{
    kd_node n;
    n.split = split;
    n.flags = (uint32_t)axis | (above_child << 2);
    return n;
}

KD_HD kd_node kd_make_leaf(uint32_t leaf_offset, uint32_t num_prims)
{
    kd_node n;
    n.leaf_offset = leaf_offset;
    n.flags = (uint32_t)KD_NODE_LEAF | (num_prims << 2);
    return n;
}

/* Largest child index or leaf count a node can hold (30 bits). */
#define KD_NODE_MAX_COUNT ((1u << 30) - 1u)

/* Largest depth cap a tree may carry (files with more are rejected), so a
 * traversal stack of KD_TREE_DEPTH_LIMIT + 1 entries always suffices. */
#define KD_TREE_DEPTH_LIMIT 64u

/* Frees a tree's arrays and zeroes it; safe on a zeroed tree. */
void kd_tree_free(kd_tree *tree);

#ifdef __cplusplus
}
#endif
#endif
