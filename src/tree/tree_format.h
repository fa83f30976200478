/* The tree file's layout (all integers and floats little-endian), shared by
 * the writer (tree_io.c) and the reader (tree_load.c).
 *
 *   offset  bytes  field
 *        0      8  magic "SCANKDT\0"
 *        8      4  version (2; version 1 is read too)
 *       12      4  header size in bytes (96; version 1: 64)
 *       16      4  num_nodes, 1..2^30
 *       20      4  num_leaf_indices
 *       24      4  num_triangles of the mesh the tree was built over
 *       28      4  max_depth (the depth cap), at most KD_TREE_DEPTH_LIMIT
 *       32     24  bounds: lo x y z, hi x y z (float32)
 *   version 2:
 *       56      8  mesh fingerprint (kd_mesh_fingerprint)
 *       64      4  num_vertices of that mesh
 *       68      4  builder (kd_tree_builder)
 *       72      8  build rules hash (kd_build_rules_hash)
 *       80      8  reserved, zero
 *       88      8  FNV-1a 64-bit hash of bytes 0..87, so that a damaged
 *                  header is told from a short file
 *   version 1:
 *       56      8  reserved, zero
 *   then:
 *   header   8 Nn  nodes: per node the word holding split (float32 bits) or
 *                  leaf offset, then the flags word (kd_tree.h)
 *        .   4 Ni  leaf triangle indices (uint32)
 *        .      8  FNV-1a 64-bit hash of every byte before it */
#ifndef KD_TREE_FORMAT_H
#define KD_TREE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KD_TREE_MAGIC "SCANKDT" /* 8 bytes with its NUL */

enum {
    KD_TREE_MAGIC_BYTES = 8,
    KD_TREE_V1_HEADER_BYTES = 64,
    KD_TREE_V2_HEADER_BYTES = 96,
    KD_TREE_CHECKSUM_BYTES = 8,
    KD_TREE_OFF_VERSION = 8,
    KD_TREE_OFF_HEADER_SIZE = 12,
    KD_TREE_OFF_NODES = 16,
    KD_TREE_OFF_INDICES = 20,
    KD_TREE_OFF_TRIANGLES = 24,
    KD_TREE_OFF_DEPTH = 28,
    KD_TREE_OFF_BOUNDS = 32,
    KD_TREE_OFF_FINGERPRINT = 56,
    KD_TREE_OFF_VERTICES = 64,
    KD_TREE_OFF_BUILDER = 68,
    KD_TREE_OFF_RULES = 72,
    KD_TREE_OFF_RESERVED = 80,
    KD_TREE_OFF_HEADER_SUM = 88
};

/* The most nodes a file may hold: child indices have 30 bits. */
#define KD_TREE_MAX_NODES (1u << 30)
/* The most leaf references: leaf offsets have 32 bits. */
#define KD_TREE_MAX_LEAF_REFS 0xffffffffu

static inline uint64_t kd_tree_fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static inline void kd_tree_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t kd_tree_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void kd_tree_put_u64(unsigned char *p, uint64_t v)
{
    kd_tree_put_u32(p, (uint32_t)v);
    kd_tree_put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t kd_tree_get_u64(const unsigned char *p)
{
    return (uint64_t)kd_tree_get_u32(p) | (uint64_t)kd_tree_get_u32(p + 4) << 32;
}

static inline void kd_tree_put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    kd_tree_put_u32(p, u);
}

static inline float kd_tree_get_f32(const unsigned char *p)
{
    uint32_t u = kd_tree_get_u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Bytes of a whole file with this header size and these counts. */
static inline uint64_t kd_tree_file_bytes(uint32_t header_bytes, uint64_t num_nodes, uint64_t num_indices)
{
    return header_bytes + 8 * num_nodes + 4 * num_indices + KD_TREE_CHECKSUM_BYTES;
}

#endif
