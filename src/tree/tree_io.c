/* Tree files: writing (the layout is tree_format.h's), where a tree came
 * from and whether it belongs to a mesh, and the structure every tree must
 * have. Reading is tree_load.c's. */
#include "tree_io.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_file.h"
#include "kd_hash.h"
#include "tree_format.h"

void kd_tree_origin_init(kd_tree_origin *origin, const kd_mesh *mesh, kd_tree_builder builder,
                         uint64_t rules_hash)
{
    memset(origin, 0, sizeof *origin);
    origin->has_fingerprint = true;
    origin->mesh_fingerprint = kd_mesh_fingerprint(mesh);
    origin->num_vertices = mesh->num_vertices;
    origin->builder = builder;
    origin->rules_hash = rules_hash;
}

uint64_t kd_tree_rules_hash_cpu(const kd_build_params *params)
{
    return kd_build_rules_hash(params, NULL, 0);
}

uint64_t kd_tree_rules_hash_gpu(const kd_build_params *params, bool median_split, int small_threshold,
                                int sah_bins, float empty_space, float max_refs)
{
    uint32_t empty_bits, refs_bits;
    memcpy(&empty_bits, &empty_space, sizeof empty_bits);
    memcpy(&refs_bits, &max_refs, sizeof refs_bits);
    const uint32_t extra[] = {median_split, (uint32_t)small_threshold, (uint32_t)sah_bins, empty_bits, refs_bits};
    return kd_build_rules_hash(params, extra, sizeof extra / sizeof extra[0]);
}

const char *kd_tree_builder_name(kd_tree_builder builder)
{
    switch (builder) {
    case KD_TREE_BUILDER_CPU: return "cpu";
    case KD_TREE_BUILDER_GPU: return "gpu";
    default: return "unknown";
    }
}

/* The version-2 header of tree and origin into buf. */
static void encode_header(const kd_tree *tree, const kd_tree_origin *origin, unsigned char *buf)
{
    memcpy(buf, KD_TREE_MAGIC, KD_TREE_MAGIC_BYTES); /* with its terminating NUL */
    kd_tree_put_u32(buf + KD_TREE_OFF_VERSION, KD_TREE_FORMAT_VERSION);
    kd_tree_put_u32(buf + KD_TREE_OFF_HEADER_SIZE, KD_TREE_V2_HEADER_BYTES);
    kd_tree_put_u32(buf + KD_TREE_OFF_NODES, tree->num_nodes);
    kd_tree_put_u32(buf + KD_TREE_OFF_INDICES, tree->num_leaf_indices);
    kd_tree_put_u32(buf + KD_TREE_OFF_TRIANGLES, tree->num_triangles);
    kd_tree_put_u32(buf + KD_TREE_OFF_DEPTH, tree->max_depth);
    for (int a = 0; a < 3; a++) {
        kd_tree_put_f32(buf + KD_TREE_OFF_BOUNDS + 4 * a, tree->bounds.lo[a]);
        kd_tree_put_f32(buf + KD_TREE_OFF_BOUNDS + 12 + 4 * a, tree->bounds.hi[a]);
    }
    kd_tree_put_u64(buf + KD_TREE_OFF_FINGERPRINT, origin->mesh_fingerprint);
    kd_tree_put_u32(buf + KD_TREE_OFF_VERTICES, origin->num_vertices);
    kd_tree_put_u32(buf + KD_TREE_OFF_BUILDER, (uint32_t)origin->builder);
    kd_tree_put_u64(buf + KD_TREE_OFF_RULES, origin->rules_hash);
    kd_tree_put_u64(buf + KD_TREE_OFF_HEADER_SUM, kd_tree_fnv1a64(buf, KD_TREE_OFF_HEADER_SUM));
}

/* The whole file's bytes into a new buffer of *size bytes. */
static unsigned char *encode_file(const kd_tree *tree, const kd_tree_origin *origin, size_t *size)
{
    *size = (size_t)kd_tree_file_bytes(KD_TREE_V2_HEADER_BYTES, tree->num_nodes, tree->num_leaf_indices);
    unsigned char *buf = calloc(*size, 1);
    if (!buf)
        return NULL;
    encode_header(tree, origin, buf);
    unsigned char *p = buf + KD_TREE_V2_HEADER_BYTES;
    for (uint32_t i = 0; i < tree->num_nodes; i++, p += 8) {
        kd_tree_put_u32(p, tree->nodes[i].leaf_offset); /* the union's raw bits either way */
        kd_tree_put_u32(p + 4, tree->nodes[i].flags);
    }
    for (uint32_t i = 0; i < tree->num_leaf_indices; i++, p += 4)
        kd_tree_put_u32(p, tree->leaf_indices[i]);
    kd_tree_put_u64(p, kd_tree_fnv1a64(buf, *size - KD_TREE_CHECKSUM_BYTES));
    return buf;
}

kd_status kd_tree_save(const kd_tree *tree, const kd_tree_origin *origin, const char *path, kd_error *err)
{
    if (!origin || !origin->has_fingerprint)
        return kd_error_set(err, KD_ERR_INVALID, "%s: a tree is saved with the fingerprint of its mesh", path);
    if ((unsigned)origin->builder >= KD_TREE_NUM_BUILDERS)
        return kd_error_set(err, KD_ERR_INVALID, "%s: unknown builder %d", path, (int)origin->builder);
    KD_TRY(kd_tree_check_structure(tree, err));
    size_t size;
    unsigned char *buf = encode_file(tree, origin, &size);
    if (!buf)
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %zu bytes", path, size);
    kd_outfile out;
    kd_status st = kd_outfile_open(&out, path, err);
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

/* ---- Does a tree belong to a mesh ------------------------------------------- */

static kd_status other_mesh(kd_error *err, const char *tree_name, const char *mesh_name, const char *why)
{
    return kd_error_set(err, KD_ERR_INVALID, "tree %s was built over a different mesh than %s: %s",
                        tree_name ? tree_name : "(in memory)", mesh_name ? mesh_name : "the mesh given", why);
}

kd_status kd_tree_check_fits(const kd_tree *tree, const kd_mesh *mesh, const char *tree_name,
                             const char *mesh_name, kd_error *err)
{
    char why[256];
    if (tree->num_triangles != mesh->num_triangles) {
        snprintf(why, sizeof why, "it was built over %u triangles, the mesh has %u", tree->num_triangles,
                 mesh->num_triangles);
        return other_mesh(err, tree_name, mesh_name, why);
    }
    kd_aabb b = kd_mesh_bounds(mesh);
    for (int a = 0; a < 3; a++)
        if (b.lo[a] < tree->bounds.lo[a] || b.hi[a] > tree->bounds.hi[a]) {
            snprintf(why, sizeof why, "its root box [%g, %g] on axis %d does not hold the mesh's [%g, %g]",
                     tree->bounds.lo[a] + 0.0, tree->bounds.hi[a] + 0.0, a, b.lo[a] + 0.0, b.hi[a] + 0.0);
            return other_mesh(err, tree_name, mesh_name, why);
        }
    return KD_OK;
}

kd_status kd_tree_check_origin(const kd_tree_origin *origin, const kd_mesh *mesh, const char *tree_name,
                               const char *mesh_name, kd_error *err)
{
    if (!origin->has_fingerprint)
        return kd_error_set(err, KD_ERR_INVALID,
                            "tree %s is a version-%u file, which records no fingerprint of its mesh, so it "
                            "cannot be matched to %s",
                            tree_name ? tree_name : "(in memory)", origin->version,
                            mesh_name ? mesh_name : "the mesh given");
    const uint64_t here = kd_mesh_fingerprint(mesh);
    if (here == origin->mesh_fingerprint && origin->num_vertices == mesh->num_vertices)
        return KD_OK;
    char why[256];
    if (origin->num_vertices != mesh->num_vertices)
        snprintf(why, sizeof why, "that mesh had %u vertices, this one has %u", origin->num_vertices,
                 mesh->num_vertices);
    else
        snprintf(why, sizeof why,
                 "the same numbers of vertices and triangles, but other positions or another order "
                 "(mesh fingerprint %016" PRIx64 " recorded, %016" PRIx64 " here)",
                 origin->mesh_fingerprint, here);
    return other_mesh(err, tree_name, mesh_name, why);
}

/* ---- Structure ------------------------------------------------------------------ */

kd_status kd_tree_check_counts(uint64_t num_nodes, uint64_t num_leaf_refs, kd_error *err)
{
    if (num_nodes > KD_TREE_MAX_NODES)
        return kd_error_set(err, KD_ERR_INVALID, "%" PRIu64 " nodes: more than the tree format's 2^30",
                            num_nodes);
    if (num_leaf_refs > KD_TREE_MAX_LEAF_REFS)
        return kd_error_set(err, KD_ERR_INVALID,
                            "%" PRIu64 " leaf references: more than the tree format's 2^32 - 1", num_leaf_refs);
    return KD_OK;
}

typedef struct check_entry {
    uint32_t node, depth;
    kd_aabb box;
} check_entry;

/* The references the leaves list in all (their ranges may overlap), which a
 * ray's 32-bit count of triangle tests must hold. */
static kd_status check_listed(const kd_tree *tree, kd_error *err)
{
    uint64_t listed = 0;
    for (uint32_t i = 0; i < tree->num_nodes; i++)
        if (kd_node_is_leaf(tree->nodes[i]))
            listed += kd_node_num_prims(tree->nodes[i]);
    if (listed > KD_TREE_MAX_LEAF_REFS)
        return kd_error_set(err, KD_ERR_INVALID,
                            "the leaves list %" PRIu64 " references in all: more than the tree format's 2^32 - 1",
                            listed);
    return KD_OK;
}

/* What a tree's header says: nodes, counts within the format, the depth
 * cap, the root box. */
static kd_status check_fields(const kd_tree *tree, kd_error *err)
{
    if (tree->num_nodes == 0 || !tree->nodes)
        return kd_error_set(err, KD_ERR_INVALID, "the tree has no nodes");
    KD_TRY(kd_tree_check_counts(tree->num_nodes, tree->num_leaf_indices, err));
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
    return KD_OK;
}

/* Depth-first, below child first: in a proper preorder array the nodes come
 * up exactly as 0, 1, 2, ... and every node is reached once. The stack
 * holds pending above children, at most one per level. */
static kd_status check_preorder(const kd_tree *tree, kd_error *err)
{
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
                                    n.leaf_offset, (unsigned long long)end, tree->num_leaf_indices);
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

kd_status kd_tree_check_structure(const kd_tree *tree, kd_error *err)
{
    KD_TRY(check_fields(tree, err));
    KD_TRY(check_listed(tree, err));
    for (uint32_t i = 0; i < tree->num_leaf_indices; i++)
        if (tree->leaf_indices[i] >= tree->num_triangles)
            return kd_error_set(err, KD_ERR_INVALID,
                                "leaf index %u names triangle %u of %u", i, tree->leaf_indices[i],
                                tree->num_triangles);
    return check_preorder(tree, err);
}
