/* Internals of the CPU reference builder, shared by its files (cpu_build*.c)
 * and by tests that check the sweep against a brute-force builder.
 *
 * Semantics (the contract the verifier checks): a node's box is CLOSED, and a
 * triangle belongs to every node whose closed box it touches. For a split at
 * plane s on axis k, a triangle whose clipped bounds in the node are
 * [cmin, cmax] goes left when cmin <= s and right when cmax >= s, so a
 * triangle touching or lying in the plane goes to both children.
 *
 * Candidate planes: the exact SAH optimum over every float plane strictly
 * inside the node. Counts change only at clipped-bound positions q, and
 * between two such positions the cost is linear in s, so the optimum lies at
 * some q or at a float neighbour of it: q- (= nextafter(q, -inf): triangles
 * starting or lying at q go right only) or q+ (ending or lying at q go left
 * only). These neighbours play the part of Wald and Havran's choice of side
 * for planar triangles, without any triangle lying in the chosen plane. */
#ifndef KD_CPU_BUILD_INTERNAL_H
#define KD_CPU_BUILD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cpu_build.h"
#include "kd_build.h"

/* ---- Split events ----------------------------------------------------------
 * One 64-bit key per event: bits 32-63 hold the position as an order-preserving
 * integer, bits 30-31 the type, bits 0-29 the triangle. Sorting the keys sorts
 * by (position, type, triangle): a total order, so every build is deterministic. */
typedef uint64_t kd_event;

enum { KD_EVENT_END = 0, KD_EVENT_PLANAR = 1, KD_EVENT_START = 2 };
#define KD_EVENT_TRI_MASK ((1u << 30) - 1u)

/* -0.0f maps to +0.0f first, so equal positions always have equal keys. */
static inline uint32_t kd_float_key(float f)
{
    f += 0.0f;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static inline float kd_key_float(uint32_t key)
{
    uint32_t u = (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Keys of the float neighbours; key 0x7fffffff (-0.0f) is skipped, as -0 == +0. */
static inline uint32_t kd_key_next_up(uint32_t key)
{
    return key + 1u == 0x7fffffffu ? 0x80000000u : key + 1u;
}
static inline uint32_t kd_key_next_down(uint32_t key)
{
    return key - 1u == 0x7fffffffu ? 0x7ffffffeu : key - 1u;
}

static inline kd_event kd_event_make(float pos, int type, uint32_t tri)
{
    return ((uint64_t)kd_float_key(pos) << 32) | ((uint64_t)type << 30) | tri;
}
static inline uint32_t kd_event_key(kd_event e) { return (uint32_t)(e >> 32); }
static inline int kd_event_type(kd_event e) { return (int)((e >> 30) & 3u); }
static inline uint32_t kd_event_tri(kd_event e) { return (uint32_t)e & KD_EVENT_TRI_MASK; }

/* Sorts n events ascending; tmp holds n events of scratch. */
void kd_events_sort(kd_event *events, kd_event *tmp, size_t n);

/* The events of one node: three position-sorted lists, one per axis, in one
 * allocation. Every triangle of the node has a START and an END event on each
 * axis, or one PLANAR event where its clipped bounds are flat on that axis. */
typedef struct kd_event_lists {
    kd_event *ev[3];
    uint32_t count[3];
    uint32_t num_tris;
    kd_event *block;
} kd_event_lists;

/* Allocates room for the given counts (lists->count set, num_tris untouched). */
kd_status kd_event_lists_alloc(kd_event_lists *lists, const uint32_t count[3], kd_error *err);
void kd_event_lists_free(kd_event_lists *lists);

/* Appends the events of one triangle with clipped bounds b to out[axis], advancing n[axis]. */
static inline void kd_events_emit(uint32_t tri, const kd_aabb *b, kd_event *out[3], uint32_t n[3])
{
    for (int a = 0; a < 3; a++) {
        if (b->lo[a] == b->hi[a]) {
            out[a][n[a]++] = kd_event_make(b->lo[a], KD_EVENT_PLANAR, tri);
        } else {
            out[a][n[a]++] = kd_event_make(b->lo[a], KD_EVENT_START, tri);
            out[a][n[a]++] = kd_event_make(b->hi[a], KD_EVENT_END, tri);
        }
    }
}

/* ---- Triangle clipping --------------------------------------------------- */

/* The triangle's three vertices (9 floats). */
static inline void kd_mesh_triangle(const kd_mesh *mesh, uint32_t tri, float v[3][3])
{
    for (int i = 0; i < 3; i++) {
        const float *p = mesh->positions + 3ull * mesh->indices[3ull * tri + i];
        v[i][0] = p[0];
        v[i][1] = p[1];
        v[i][2] = p[2];
    }
}

/* Conservative bounds, inside box, of the part of the triangle inside the closed
 * box: the true clipped polygon always lies within *out. Coordinates of the
 * triangle's own vertices and of the box's faces come out exact. Returns false
 * (and leaves *out undefined) only when the triangle provably misses the box. */
bool kd_clip_triangle_bounds(const float v[3][3], const kd_aabb *box, kd_aabb *out);

/* ---- Surface area heuristic ------------------------------------------------ */

/* Per-axis constants of the split cost in one node, so that every caller (the
 * sweep and the brute-force test builder) evaluates bit-identical costs. */
typedef struct kd_sah_axis {
    double lo, hi;
    double cap;     /* area of the two faces normal to the axis: 2 db dc */
    double side;    /* perimeter factor of the other faces: 2 (db + dc) */
    double inv_area;
    double traversal, intersect, empty_bonus;
    float box_lo, box_hi;  /* the node's extent along the axis, as floats */
    float min_empty_fraction;
} kd_sah_axis;

/* Surface area of a box (0 for an empty or degenerate one). */
static inline double kd_box_area(const kd_aabb *b)
{
    double d[3];
    for (int a = 0; a < 3; a++)
        d[a] = (double)b->hi[a] - (double)b->lo[a];
    return 2.0 * (d[0] * d[1] + d[0] * d[2] + d[1] * d[2]);
}

static inline void kd_sah_axis_init(kd_sah_axis *s, const kd_aabb *box, int axis,
                                    const kd_build_params *params)
{
    int b = (axis + 1) % 3, c = (axis + 2) % 3;
    double db = (double)box->hi[b] - (double)box->lo[b];
    double dc = (double)box->hi[c] - (double)box->lo[c];
    s->lo = box->lo[axis];
    s->hi = box->hi[axis];
    s->cap = 2.0 * db * dc;
    s->side = 2.0 * (db + dc);
    s->inv_area = 1.0 / kd_box_area(box);
    s->traversal = params->traversal_cost;
    s->intersect = params->intersect_cost;
    s->empty_bonus = params->empty_bonus;
    s->box_lo = box->lo[axis];
    s->box_hi = box->hi[axis];
    s->min_empty_fraction = params->min_empty_fraction;
}

/* pbrt's split cost: traversal + intersect (1 - eb) (pL nL + pR nR), with the
 * empty bonus eb only when one side holds no triangle and spans at least
 * min_empty_fraction of the node (kd_empty_bonus_applies). */
static inline double kd_sah_axis_cost(const kd_sah_axis *s, float pos, uint32_t nl, uint32_t nr)
{
    double area_l = s->cap + s->side * ((double)pos - s->lo);
    double area_r = s->cap + s->side * (s->hi - (double)pos);
    double eb = (nl == 0 || nr == 0) &&
                        kd_empty_bonus_applies(s->box_lo, s->box_hi, pos, nl == 0,
                                               s->min_empty_fraction)
                    ? s->empty_bonus
                    : 0.0;
    return s->traversal +
           s->intersect * (1.0 - eb) * (area_l * (double)nl + area_r * (double)nr) * s->inv_area;
}

/* The best split of a node. Ties go to the lowest axis, then the lowest position. */
typedef struct kd_split {
    bool found;
    int axis;
    float pos;
    double cost;
    uint32_t num_left, num_right; /* triangles each side gets */
} kd_split;

/* Exact SAH sweep over the node's sorted events: O(number of events). Large
 * nodes sweep the three axes on up to num_threads threads (same result). */
kd_split kd_find_best_split(const kd_event_lists *lists, const kd_aabb *box,
                            const kd_build_params *params, int num_threads);

/* What the stopping rules carry from the root down one path. */
typedef struct kd_path_state {
    int depth_left;
    int bad_refines;        /* splits on the path costlier than their leaf (pbrt) */
    double duplication;     /* product of (nL + nR) / n over the path's splits */
} kd_path_state;

/* The termination rules. Before the sweep (pbrt): few enough triangles, depth
 * cap reached, or a box without area. After it, given the best split (or
 * none): no split; the split costs over bad_cost_ratio x the leaf with few
 * triangles, or the bad refines reach their limit (pbrt); or the split would
 * take the path's duplication over max_duplication. *path is updated for the
 * children. True: make a leaf. */
bool kd_leaf_before_sweep(uint32_t num_tris, const kd_path_state *path, const kd_aabb *box,
                          const kd_build_params *params);
bool kd_leaf_after_sweep(uint32_t num_tris, const kd_split *split, const kd_build_params *params,
                         kd_path_state *path);

/* ---- Splitting a node's event lists (Wald & Havran 2006, section 5) -------- */

/* Scratch owned by one worker thread; reused from node to node. */
typedef struct kd_split_scratch {
    uint8_t *side;             /* per triangle of the mesh; all zero between calls */
    uint32_t *straddlers;
    size_t cap_straddlers;
    kd_event *fresh[2];        /* new events of clipped straddlers: left, right */
    kd_event *sort_tmp;
    size_t cap_fresh;
} kd_split_scratch;

kd_status kd_split_scratch_init(kd_split_scratch *s, uint32_t num_triangles, kd_error *err);
void kd_split_scratch_free(kd_split_scratch *s);

/* Splits a node's events at (axis, pos) into the children's lists, which keep
 * their sort order without sorting again: events of one-sided triangles are
 * copied in order, straddlers are clipped to each child box anew and their
 * events merged in. parent is left untouched. Large nodes merge the three
 * axes on up to num_threads threads. */
kd_status kd_split_events(const kd_mesh *mesh, const kd_event_lists *parent, const kd_aabb *box,
                          int axis, float pos, kd_split_scratch *scratch, int num_threads,
                          kd_event_lists *left, kd_event_lists *right, kd_error *err);

/* Child boxes of a split. */
static inline void kd_split_boxes(const kd_aabb *box, int axis, float pos, kd_aabb *left,
                                  kd_aabb *right)
{
    *left = *box;
    *right = *box;
    left->hi[axis] = pos;
    right->lo[axis] = pos;
}

/* ---- Subtrees that do not pay ------------------------------------------------
 * pbrt lets a path take splits that cost more than a leaf (up to
 * max_bad_refines - 1 of them), in case the children split well, and never
 * undoes them when they do not. The builder does: once a node's subtree is
 * built, its SAH cost is compared with the leaf the node would have been, and
 * a subtree that does not cost less becomes one leaf listing every triangle
 * its leaves list. Costs are the plain SAH the tree is judged by (no empty
 * bonus), relative to the node's surface area, so every such collapse lowers
 * the tree's cost. */

/* The cost of a split node from its children's: traversal + their costs
 * weighted by their share of the node's area. Both builders call this one
 * function on the same boxes, so their decisions agree bit for bit. */
static inline double kd_subtree_cost(const kd_aabb *box, int axis, float pos, double cost_left,
                                     double cost_right, const kd_build_params *params)
{
    kd_aabb left, right;
    kd_split_boxes(box, axis, pos, &left, &right);
    return (double)params->traversal_cost +
           (kd_box_area(&left) * cost_left + kd_box_area(&right) * cost_right) / kd_box_area(box);
}

/* A leaf's cost. */
static inline double kd_leaf_cost(uint32_t num_tris, const kd_build_params *params)
{
    return (double)params->intersect_cost * (double)num_tris;
}

/* Whether a subtree of the given cost is kept over a leaf of num_tris triangles. */
static inline bool kd_subtree_pays(double cost, uint32_t num_tris, const kd_build_params *params)
{
    return cost < kd_leaf_cost(num_tris, params);
}

/* Sorts n triangle indices and drops repeats; returns how many remain. */
uint32_t kd_sort_unique(uint32_t *tris, size_t n);

/* Grows an array of leaf indices (*cap of them) to hold at least need. */
kd_status kd_reserve_indices(uint32_t **indices, size_t *cap, size_t need, kd_error *err);

/* ---- Root events ------------------------------------------------------------ */

/* Events of every triangle against the root box (the mesh bounds), sorted;
 * sorting uses up to num_threads threads. Fails on a non-finite coordinate. */
kd_status kd_root_events(const kd_mesh *mesh, kd_aabb *root_box, kd_event_lists *lists,
                         int num_threads, double *ms_events, double *ms_sort, kd_error *err);

#endif
