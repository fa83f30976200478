/* Versioned binary tree files (build --save x.kd, render --tree x.kd). A
 * file records, beside the tree, where it came from: a fingerprint of the
 * mesh it was built over (kd_hash.h) and which builder under which rules,
 * so that a tree is never used with another mesh unawares. */
#ifndef KD_TREE_IO_H
#define KD_TREE_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "kd_build.h"
#include "kd_mesh.h"
#include "kd_tree.h"

/* The format written; version 1 (no fingerprint) is still read. */
enum { KD_TREE_FORMAT_VERSION = 2 };

typedef enum kd_tree_builder {
    KD_TREE_BUILDER_UNKNOWN = 0,
    KD_TREE_BUILDER_CPU = 1, /* the exact-SAH CPU builder */
    KD_TREE_BUILDER_GPU = 2, /* the GPU builder */
    KD_TREE_NUM_BUILDERS
} kd_tree_builder;

/* Where a tree came from. */
typedef struct kd_tree_origin {
    bool has_fingerprint;      /* false for a version-1 file, which records none */
    uint64_t mesh_fingerprint; /* kd_mesh_fingerprint of the mesh as loaded */
    uint32_t num_vertices;     /* of that mesh */
    kd_tree_builder builder;
    uint64_t rules_hash;       /* kd_build_rules_hash of its rules and options */
    uint32_t version;          /* of the file it was read from (0: not read) */
} kd_tree_origin;

/* The origin of a tree built over mesh. */
void kd_tree_origin_init(kd_tree_origin *origin, const kd_mesh *mesh, kd_tree_builder builder,
                         uint64_t rules_hash);
/* The rules hash of a CPU build, and of a GPU build with the options that
 * shape its tree (large splits by the median, the small-stage threshold, the
 * SAH bins, the empty-space ratio in use, the reference budget). */
uint64_t kd_tree_rules_hash_cpu(const kd_build_params *params);
uint64_t kd_tree_rules_hash_gpu(const kd_build_params *params, bool median_split, int small_threshold,
                                int sah_bins, float empty_space, float max_refs);
/* "cpu", "gpu" or "unknown". */
const char *kd_tree_builder_name(kd_tree_builder builder);

/* Writes tree and its origin (which must hold a fingerprint) atomically. */
kd_status kd_tree_save(const kd_tree *tree, const kd_tree_origin *origin, const char *path, kd_error *err);

/* Reads a tree file of version 1 or 2; origin (may be NULL) receives what
 * the file records. The 8-byte magic and the header are checked before the
 * body is read, and each fault has its own message: not a tree file (bad
 * magic), an unknown version, a corrupted header (version 2 checks its own
 * checksum), a header field out of range, truncated (only when the file is
 * shorter than its header says), trailing bytes, a corrupted body, an
 * inconsistent structure; a folder is named as one. */
kd_status kd_tree_load(kd_tree *tree, kd_tree_origin *origin, const char *path, kd_error *err);

/* Checks a tree file's header (and a regular file's length) without reading
 * its body, with kd_tree_load's messages: so that a command refuses a bad
 * tree file before it spends time on the mesh. */
kd_status kd_tree_check_file(const char *path, kd_error *err);

/* What every tree used with a mesh must pass, fingerprint or not: the same
 * triangle count (so leaf indices stay in range) and a root box holding the
 * mesh. KD_ERR_INVALID: "tree T was built over a different mesh than M:
 * why". Names may be NULL ("the tree", "the mesh given"). */
kd_status kd_tree_check_fits(const kd_tree *tree, const kd_mesh *mesh, const char *tree_name,
                             const char *mesh_name, kd_error *err);
/* Whether origin's fingerprint is mesh's: KD_OK, else KD_ERR_INVALID with
 * the same wording as kd_tree_check_fits, or, for a file without a
 * fingerprint (version 1), one saying it cannot be matched. */
kd_status kd_tree_check_origin(const kd_tree_origin *origin, const kd_mesh *mesh, const char *tree_name,
                               const char *mesh_name, kd_error *err);

/* Whether a tree of these counts fits the format: at most 2^30 nodes (child
 * indices have 30 bits) and 2^32 - 1 leaf references (leaf offsets have 32),
 * listed by its leaves in all (each leaf's count has 30 bits). Counts are
 * 64-bit so that a caller can ask before its own 32-bit fields could wrap:
 * KD_ERR_INVALID, "N nodes: more than the tree format's 2^30". */
kd_status kd_tree_check_counts(uint64_t num_nodes, uint64_t num_leaf_refs, kd_error *err);

/* Structural checks any loaded or built tree must pass (counts within the
 * format, indices in range, children after parents, every node reached
 * once, the leaves listing at most 2^32 - 1 references in all, so that a
 * ray's 32-bit counts of steps and tests cannot wrap). */
kd_status kd_tree_check_structure(const kd_tree *tree, kd_error *err);

#endif
