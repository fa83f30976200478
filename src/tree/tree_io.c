/* Tree files, format version 1 (all integers and floats little-endian):
 *
 *   offset  bytes  field
 *        0      8  magic "SCANKDT\0"
 *        8      4  version (1)
 *       12      4  header size in bytes (64)
 *       16      4  num_nodes
 *       20      4  num_leaf_indices
 *       24      4  num_triangles of the mesh the tree was built over
 *       28      4  max_depth (the depth cap)
 *       32     24  bounds: lo x y z, hi x y z (float32)
 *       56      8  reserved, zero
 *       64   8 Nn  nodes: per node the word holding split (float32 bits) or
 *                  leaf offset, then the flags word (kd_tree.h)
 *        .   4 Ni  leaf triangle indices (uint32)
 *        .      8  FNV-1a 64-bit hash of every byte before it
 *
 * Loading checks, in order: magic, version, header size, file size against
 * the counts (truncated or trailing bytes), checksum, then the structure. */
#include "tree_io.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_file.h"

#define KD_TREE_MAGIC "SCANKDT"
enum { KD_TREE_VERSION = 1, KD_TREE_HEADER_BYTES = 64, KD_TREE_CHECKSUM_BYTES = 8 };

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(p, u);
}

static float get_f32(const unsigned char *p)
{
    uint32_t u = get_u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t file_bytes_for(uint64_t num_nodes, uint64_t num_indices)
{
    return KD_TREE_HEADER_BYTES + 8 * num_nodes + 4 * num_indices + KD_TREE_CHECKSUM_BYTES;
}

kd_status kd_tree_save(const kd_tree *tree, const char *path, kd_error *err)
{
    kd_status st = kd_tree_check_structure(tree, err);
    if (st)
        return st;
    size_t size = (size_t)file_bytes_for(tree->num_nodes, tree->num_leaf_indices);
    unsigned char *buf = calloc(size, 1);
    if (!buf)
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %zu bytes", path, size);

    memcpy(buf, KD_TREE_MAGIC, 8); /* with its terminating NUL */
    put_u32(buf + 8, KD_TREE_VERSION);
    put_u32(buf + 12, KD_TREE_HEADER_BYTES);
    put_u32(buf + 16, tree->num_nodes);
    put_u32(buf + 20, tree->num_leaf_indices);
    put_u32(buf + 24, tree->num_triangles);
    put_u32(buf + 28, tree->max_depth);
    for (int a = 0; a < 3; a++) {
        put_f32(buf + 32 + 4 * a, tree->bounds.lo[a]);
        put_f32(buf + 44 + 4 * a, tree->bounds.hi[a]);
    }
    unsigned char *p = buf + KD_TREE_HEADER_BYTES;
    for (uint32_t i = 0; i < tree->num_nodes; i++, p += 8) {
        put_u32(p, tree->nodes[i].leaf_offset); /* the union's raw bits either way */
        put_u32(p + 4, tree->nodes[i].flags);
    }
    for (uint32_t i = 0; i < tree->num_leaf_indices; i++, p += 4)
        put_u32(p, tree->leaf_indices[i]);
    uint64_t h = fnv1a64(buf, size - KD_TREE_CHECKSUM_BYTES);
    put_u32(p, (uint32_t)h);
    put_u32(p + 4, (uint32_t)(h >> 32));

    kd_outfile out;
    st = kd_outfile_open(&out, path, err);
    if (st == KD_OK) {
        if (fwrite(buf, 1, size, out.file) != size) {
            kd_outfile_abort(&out);
            st = kd_error_set(err, KD_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        } else {
            st = kd_outfile_commit(&out, err);
        }
    }
    free(buf);
    return st;
}

static kd_status read_whole_file(const char *path, unsigned char **data, uint64_t *size,
                                 kd_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory reading the file", path);
        }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        unsigned char *grown = realloc(buf, cap);
        if (!grown)
            free(buf);
        buf = grown;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        return kd_error_set(err, KD_ERR_IO, "%s: read failed", path);
    }
    *data = buf;
    *size = n;
    return KD_OK;
}

/* The header's magic, version and size. */
static kd_status check_header(const unsigned char *buf, uint64_t size, const char *path, kd_error *err)
{
    if (size < 8 || memcmp(buf, KD_TREE_MAGIC, 8) != 0)
        return kd_error_set(err, KD_ERR_PARSE, "%s: not a scankd tree file (bad magic)", path);
    if (size < 12)
        return kd_error_set(err, KD_ERR_PARSE, "%s: truncated: %llu bytes, no version", path,
                            (unsigned long long)size);
    if (get_u32(buf + 8) != KD_TREE_VERSION)
        return kd_error_set(err, KD_ERR_PARSE, "%s: tree file version %u; this build reads version %d", path,
                            get_u32(buf + 8), KD_TREE_VERSION);
    if (size < KD_TREE_HEADER_BYTES)
        return kd_error_set(err, KD_ERR_PARSE, "%s: truncated: %llu bytes, header needs %d", path,
                            (unsigned long long)size, KD_TREE_HEADER_BYTES);
    if (get_u32(buf + 12) != KD_TREE_HEADER_BYTES)
        return kd_error_set(err, KD_ERR_PARSE, "%s: header size %u, expected %d", path, get_u32(buf + 12),
                            KD_TREE_HEADER_BYTES);
    return KD_OK;
}

/* The file's length against the counts in its header, its checksum and its
 * reserved bytes. */
static kd_status check_body(const unsigned char *buf, uint64_t size, const char *path, kd_error *err)
{
    uint32_t num_nodes = get_u32(buf + 16), num_indices = get_u32(buf + 20);
    uint64_t expected = file_bytes_for(num_nodes, num_indices);
    if (size < expected)
        return kd_error_set(err, KD_ERR_PARSE,
                            "%s: truncated: %llu bytes, but its %u nodes and %u leaf indices need %llu", path,
                            (unsigned long long)size, num_nodes, num_indices, (unsigned long long)expected);
    if (size > expected)
        return kd_error_set(err, KD_ERR_PARSE, "%s: %llu bytes of trailing data after the tree", path,
                            (unsigned long long)(size - expected));
    const unsigned char *c = buf + size - KD_TREE_CHECKSUM_BYTES;
    uint64_t stored = (uint64_t)get_u32(c) | (uint64_t)get_u32(c + 4) << 32;
    if (stored != fnv1a64(buf, (size_t)size - KD_TREE_CHECKSUM_BYTES))
        return kd_error_set(err, KD_ERR_PARSE, "%s: checksum mismatch: the file is corrupted", path);
    if (get_u32(buf + 56) != 0 || get_u32(buf + 60) != 0)
        return kd_error_set(err, KD_ERR_PARSE, "%s: reserved header bytes are not zero", path);
    return KD_OK;
}

/* The tree from a checked file's bytes. */
static kd_status decode_tree(const unsigned char *buf, kd_tree *tree, const char *path, kd_error *err)
{
    uint32_t num_nodes = get_u32(buf + 16), num_indices = get_u32(buf + 20);
    tree->num_nodes = num_nodes;
    tree->num_leaf_indices = num_indices;
    tree->num_triangles = get_u32(buf + 24);
    tree->max_depth = get_u32(buf + 28);
    for (int a = 0; a < 3; a++) {
        tree->bounds.lo[a] = get_f32(buf + 32 + 4 * a);
        tree->bounds.hi[a] = get_f32(buf + 44 + 4 * a);
    }
    tree->nodes = malloc((num_nodes ? num_nodes : 1) * sizeof *tree->nodes);
    tree->leaf_indices = malloc((num_indices ? num_indices : 1) * sizeof *tree->leaf_indices);
    if (!tree->nodes || !tree->leaf_indices) {
        kd_tree_free(tree);
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %u nodes", path, num_nodes);
    }
    const unsigned char *p = buf + KD_TREE_HEADER_BYTES;
    for (uint32_t i = 0; i < num_nodes; i++, p += 8) {
        tree->nodes[i].leaf_offset = get_u32(p);
        tree->nodes[i].flags = get_u32(p + 4);
    }
    for (uint32_t i = 0; i < num_indices; i++, p += 4)
        tree->leaf_indices[i] = get_u32(p);
    return KD_OK;
}

kd_status kd_tree_load(kd_tree *tree, const char *path, kd_error *err)
{
    memset(tree, 0, sizeof *tree);
    unsigned char *buf = NULL;
    uint64_t size = 0;
    kd_status st = read_whole_file(path, &buf, &size, err);
    if (st)
        return st;
    if (!(st = check_header(buf, size, path, err)) && !(st = check_body(buf, size, path, err)))
        st = decode_tree(buf, tree, path, err);
    free(buf);
    if (st)
        return st;
    kd_error why;
    if (kd_tree_check_structure(tree, &why)) {
        kd_tree_free(tree);
        return kd_error_set(err, KD_ERR_PARSE, "%s: inconsistent tree: %s", path, why.message);
    }
    return KD_OK;
}

typedef struct check_entry {
    uint32_t node, depth;
    kd_aabb box;
} check_entry;

kd_status kd_tree_check_structure(const kd_tree *tree, kd_error *err)
{
    if (tree->num_nodes == 0 || !tree->nodes)
        return kd_error_set(err, KD_ERR_INVALID, "the tree has no nodes");
    if (tree->num_leaf_indices > 0 && !tree->leaf_indices)
        return kd_error_set(err, KD_ERR_INVALID, "leaf indices missing");
    if (tree->max_depth > KD_TREE_DEPTH_LIMIT)
        return kd_error_set(err, KD_ERR_INVALID, "depth cap %u over the limit %u", tree->max_depth,
                            KD_TREE_DEPTH_LIMIT);
    for (int a = 0; a < 3; a++)
        if (!isfinite(tree->bounds.lo[a]) || !isfinite(tree->bounds.hi[a]) ||
            tree->bounds.lo[a] > tree->bounds.hi[a])
            return kd_error_set(err, KD_ERR_INVALID, "root bounds invalid on axis %d: [%g, %g]", a,
                                tree->bounds.lo[a], tree->bounds.hi[a]);
    for (uint32_t i = 0; i < tree->num_leaf_indices; i++)
        if (tree->leaf_indices[i] >= tree->num_triangles)
            return kd_error_set(err, KD_ERR_INVALID,
                                "leaf index %u names triangle %u of %u", i, tree->leaf_indices[i],
                                tree->num_triangles);

    /* Depth-first, below child first: in a proper preorder array the nodes
     * come up exactly as 0, 1, 2, ... and every node is reached once. The
     * stack holds pending above children, at most one per level. */
    check_entry stack[KD_TREE_DEPTH_LIMIT + 2];
    int top = 0;
    uint32_t next = 0;
    check_entry e = {0, 0, tree->bounds};
    for (;;) {
        if (e.node != next)
            return kd_error_set(err, KD_ERR_INVALID,
                                "node %u is out of preorder: node %u should come next", e.node,
                                next);
        if (e.depth > tree->max_depth)
            return kd_error_set(err, KD_ERR_INVALID, "node %u at depth %u, beyond the cap %u",
                                e.node, e.depth, tree->max_depth);
        next++;
        kd_node n = tree->nodes[e.node];
        if (kd_node_is_leaf(n)) {
            uint64_t end = (uint64_t)n.leaf_offset + kd_node_num_prims(n);
            if (end > tree->num_leaf_indices)
                return kd_error_set(err, KD_ERR_INVALID,
                                    "leaf %u lists [%u, %llu), beyond the %u leaf indices", e.node,
                                    n.leaf_offset, (unsigned long long)end,
                                    tree->num_leaf_indices);
            if (top == 0)
                break;
            e = stack[--top];
            continue;
        }
        int axis = kd_node_axis(n);
        uint32_t above = kd_node_above_child(n);
        if (!isfinite(n.split) || n.split < e.box.lo[axis] || n.split > e.box.hi[axis])
            return kd_error_set(err, KD_ERR_INVALID,
                                "node %u splits axis %d at %g, outside its box [%g, %g]", e.node,
                                axis, n.split, e.box.lo[axis], e.box.hi[axis]);
        if (above <= e.node + 1 || above >= tree->num_nodes)
            return kd_error_set(err, KD_ERR_INVALID,
                                "node %u: above child %u out of range (after %u, below %u)",
                                e.node, above, e.node + 1, tree->num_nodes);
        if (top >= (int)(sizeof stack / sizeof stack[0]))
            return kd_error_set(err, KD_ERR_INVALID, "tree deeper than %u", KD_TREE_DEPTH_LIMIT);
        check_entry up = {above, e.depth + 1, e.box};
        up.box.lo[axis] = n.split;
        stack[top++] = up;
        e.node = e.node + 1;
        e.depth++;
        e.box.hi[axis] = n.split;
    }
    if (next != tree->num_nodes)
        return kd_error_set(err, KD_ERR_INVALID, "%u of %u nodes are not reachable from the root",
                            tree->num_nodes - next, tree->num_nodes);
    return KD_OK;
}
