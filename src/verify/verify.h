/* Proof that a kd-tree is right, for any builder's tree.
 *
 * (a) Invariants, checked exhaustively (kd_verify_invariants):
 *     - structure: every child index in range and after its parent, every
 *       node reached exactly once from the root, leaf ranges inside the
 *       index array, every listed triangle index below the triangle count;
 *     - splits: finite and inside the node's box (lo <= split <= hi), so the
 *       children's boxes partition the parent's box at the split;
 *     - depth: no leaf deeper than the tree's depth cap;
 *     - the root box contains every triangle;
 *     - coverage: every triangle that truly overlaps a leaf's closed box
 *       (exact triangle-box test, tribox.h) is listed in that leaf.
 *     Listed triangles that do not overlap their leaf are counted but are
 *     not errors (they cost time, never correctness).
 * (b) Ray agreement (kd_verify_rays): the tree's closest hit equals the
 *     brute-force closest hit over all triangles: the same triangle, or, where
 *     triangles coincide, a different one at the same distance within a
 *     relative tolerance.
 * Library code: fills reports, never prints (kd_verify_describe formats). */
#ifndef KD_VERIFY_H
#define KD_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"
#include "kd_trace.h"
#include "kd_tree.h"

typedef enum kd_violation_kind {
    KD_VIOLATION_STRUCTURE, /* bad child index, node shared or unreachable, leaf range */
    KD_VIOLATION_INDEX,     /* a leaf lists a triangle index out of range */
    KD_VIOLATION_SPLIT,     /* split not finite or outside its node's box */
    KD_VIOLATION_DEPTH,     /* a leaf deeper than the depth cap */
    KD_VIOLATION_ROOT,      /* a triangle not inside the root box */
    KD_VIOLATION_MISSING,   /* a triangle overlaps a leaf's box but is not listed */
    KD_VIOLATION_NUM_KINDS
} kd_violation_kind;

/* What exactly is wrong, for STRUCTURE and DEPTH violations. */
typedef enum kd_violation_reason {
    KD_REASON_NONE,
    KD_REASON_CHILD_RANGE,    /* interior node's child index out of range or not after it */
    KD_REASON_LEAF_RANGE,     /* leaf's entries run past the index array */
    KD_REASON_SHARED,         /* node reached a second time */
    KD_REASON_UNREACHED,      /* node not reached from the root */
    KD_REASON_TRIANGLE_COUNT, /* tree built over another number of triangles */
    KD_REASON_NO_NODES,       /* empty node array */
    KD_REASON_CAP_LIMIT       /* depth cap above KD_TREE_DEPTH_LIMIT */
} kd_violation_reason;

/* One violation in detail. Fields not meaningful for a kind are 0. */
typedef struct kd_violation {
    kd_violation_kind kind;
    kd_violation_reason reason;
    uint32_t node;          /* node (leaf) concerned */
    uint32_t tri;           /* triangle concerned (MISSING, ROOT, INDEX: the bad value) */
    uint32_t depth;         /* of the node */
    uint32_t value;         /* STRUCTURE: offending index or count; INDEX: entry
                               position; SPLIT: axis; DEPTH: the cap */
    float split;            /* SPLIT: the split */
    kd_aabb box;            /* the node's box (MISSING, SPLIT, DEPTH) */
    bool touches_only;      /* MISSING: overlap lies on the box's boundary only */
} kd_violation;

enum { KD_VERIFY_MAX_EXAMPLES = 8 }; /* kept per kind: the smallest (node, triangle) */

typedef struct kd_invariant_report {
    /* What was checked. */
    uint32_t num_nodes, num_leaves, num_triangles;
    uint64_t num_references;       /* leaf entries */
    uint32_t depth_cap;            /* tree->max_depth */
    uint32_t max_leaf_depth;       /* deepest leaf reached */
    uint64_t num_pairs_listed;     /* (triangle, leaf) pairs listed and checked */
    uint64_t num_pairs_tested;     /* unlisted pairs whose bounds touch: exact test run */
    /* Violations (all zero when the tree is right). */
    uint64_t count[KD_VIOLATION_NUM_KINDS];
    uint64_t missing_touch_only;   /* MISSING pairs touching the leaf box's boundary only */
    /* Not errors. */
    uint64_t extra_references;     /* listed in a leaf they do not overlap */
    uint64_t duplicate_references; /* listed twice in one leaf */
    bool structure_ok;             /* safe to traverse (else rays are not traced) */
    double seconds;
    int num_examples[KD_VIOLATION_NUM_KINDS];
    kd_violation examples[KD_VIOLATION_NUM_KINDS][KD_VERIFY_MAX_EXAMPLES];
} kd_invariant_report;

uint64_t kd_invariant_report_total(const kd_invariant_report *rep);

/* Checks (a) on tree over num_triangles triangles (9 floats each in tri_verts)
 * on num_threads threads (<= 0: all cores). Fails only on lack of memory. */
kd_status kd_verify_invariants(const kd_tree *tree, const float *tri_verts, uint32_t num_triangles,
                               int num_threads, kd_invariant_report *rep, kd_error *err);

/* Called on the calling thread only, after each finished chunk of work:
 * done and total count triangles, then leaves (invariants) or rays. */
typedef void (*kd_verify_progress_fn)(void *ctx, size_t done, size_t total);

/* kd_verify_invariants that reports its progress (progress may be NULL). */
kd_status kd_verify_invariants_progress(const kd_tree *tree, const float *tri_verts, uint32_t num_triangles,
                                        int num_threads, kd_verify_progress_fn progress, void *progress_ctx,
                                        kd_invariant_report *rep, kd_error *err);

/* A violation as one line of text ("leaf 412 (depth 17, box ...): triangle
 * 9031 overlaps the box but is not listed"). */
void kd_verify_describe(const kd_violation *v, char *text, size_t bytes);
const char *kd_violation_kind_name(kd_violation_kind kind);

/* ---- (b) ray agreement -------------------------------------------------- */

/* Relative distance tolerance for accepting a different triangle. */
#define KD_VERIFY_DEFAULT_TOLERANCE 1e-5f

typedef struct kd_ray_mismatch {
    uint32_t ray;                  /* index into the rays given */
    uint32_t tree_tri, ref_tri;    /* KD_TRACE_NO_HIT for a miss */
    float tree_t, ref_t;
} kd_ray_mismatch;

typedef struct kd_ray_report {
    uint64_t num_rays;
    uint64_t num_ref_hits;         /* rays the brute force says hit something */
    uint64_t num_same;             /* same triangle (or both miss) */
    uint64_t num_coincident;       /* different triangle, same distance within tolerance */
    uint64_t num_mismatches;
    float tolerance;
    uint64_t num_triangle_tests;   /* brute-force tests done: rays x triangles */
    double seconds;
    int num_examples;              /* the first mismatches by ray index */
    kd_ray_mismatch examples[KD_VERIFY_MAX_EXAMPLES];
} kd_ray_report;

/* Checks (b) for rays[0..n), n < 2^32 (mismatches name their ray in 32
 * bits; more fail with KD_ERR_INVALID before any work): mismatch (may be
 * NULL) receives one byte per ray, 1 where the ray mismatched. tree_hits
 * (may be NULL) receives the tree's hits. */
kd_status kd_verify_rays(const kd_trace_scene *scene, const kd_ray *rays, size_t n, float tolerance,
                         int num_threads, kd_verify_progress_fn progress, void *progress_ctx,
                         uint8_t *mismatch, kd_trace_hit *tree_hits, kd_ray_report *rep,
                         kd_error *err);

/* Checks (b) for the diffuse bounce rays (bounce.h, with seed) of n primary
 * rays whose tree hits are hits, ray i standing for pixel pixel[i] (NULL:
 * pixel i): one bounce per hit, as the casters make them. rep counts the
 * bounce rays; its examples name the primary ray each bounced from.
 * mismatch (may be NULL; n bytes) gets a 1 at each primary ray whose bounce
 * mismatched, and is left alone elsewhere. */
kd_status kd_verify_bounces(const kd_trace_scene *scene, const kd_ray *rays, const kd_trace_hit *hits,
                            const uint32_t *pixel, size_t n, uint32_t seed, float tolerance, int num_threads,
                            kd_verify_progress_fn progress, void *progress_ctx, uint8_t *mismatch,
                            kd_ray_report *rep, kd_error *err);

/* The closest hit over all triangles, written for speed (blocks of
 * triangles in structure-of-arrays form) but with the arithmetic of
 * kd_intersect_triangle, so hits compare bit for bit. */
typedef struct kd_brute_force {
    uint32_t num_triangles;
    const float *tri_verts;
    float *soa;                    /* 9 arrays of num_triangles floats */
} kd_brute_force;

kd_status kd_brute_force_init(kd_brute_force *bf, const float *tri_verts, uint32_t num_triangles,
                              kd_error *err);
void kd_brute_force_free(kd_brute_force *bf);
void kd_brute_force_closest(const kd_brute_force *bf, const kd_ray *ray, kd_trace_hit *hit);

#endif
