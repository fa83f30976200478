#include "build_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_mesh.h"

void bt_mesh_from_soup(kd_mesh *mesh, const float *verts, uint32_t n)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->positions = malloc((size_t)9 * (n ? n : 1) * sizeof(float));
    mesh->indices = malloc((size_t)3 * (n ? n : 1) * sizeof(uint32_t));
    if (!mesh->positions || !mesh->indices) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (n)
        memcpy(mesh->positions, verts, (size_t)9 * n * sizeof(float));
    for (uint32_t i = 0; i < 3 * n; i++)
        mesh->indices[i] = i;
    mesh->num_vertices = 3 * n;
    mesh->num_triangles = n;
    mesh->num_triangles_read = n;
}

uint32_t bt_rand_u32(bt_rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return (uint32_t)(r->s >> 16);
}

float bt_rand01(bt_rng *r) { return (float)(bt_rand_u32(r) >> 8) * (1.0f / 16777216.0f); }

static float snap8(float x) { return floorf(x * 8.0f) / 8.0f; }

static void random_triangle(bt_rng *r, bt_scene_kind kind, float *t)
{
    float c[3], size = 0.05f + 0.25f * bt_rand01(r);
    for (int a = 0; a < 3; a++)
        c[a] = bt_rand01(r);
    if (kind == BT_SCENE_QUADS) {
        /* half of an axis-aligned rectangle at a grid plane */
        int axis = (int)(bt_rand_u32(r) % 3), u = (axis + 1) % 3, w = (axis + 2) % 3;
        float plane = snap8(c[axis]), u0 = snap8(c[u]), w0 = snap8(c[w]);
        float u1 = u0 + 0.125f * (float)(1 + bt_rand_u32(r) % 3);
        float w1 = w0 + 0.125f * (float)(1 + bt_rand_u32(r) % 3);
        int upper = (int)(bt_rand_u32(r) & 1);
        float p[3][2] = {{u0, w0}, {u1, upper ? w1 : w0}, {upper ? u0 : u1, w1}};
        for (int i = 0; i < 3; i++) {
            t[3 * i + axis] = plane;
            t[3 * i + u] = p[i][0];
            t[3 * i + w] = p[i][1];
        }
        return;
    }
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++) {
            float x = c[a] + size * (bt_rand01(r) - 0.5f);
            t[3 * i + a] = kind == BT_SCENE_GRID ? snap8(x) : x;
        }
    if (kind == BT_SCENE_GRID) {
        /* keep it a real triangle: nudge a vertex if snapping collapsed it */
        float e1[3], e2[3];
        for (int a = 0; a < 3; a++) {
            e1[a] = t[3 + a] - t[a];
            e2[a] = t[6 + a] - t[a];
        }
        if (e1[1] * e2[2] - e1[2] * e2[1] == 0.0f && e1[2] * e2[0] - e1[0] * e2[2] == 0.0f &&
            e1[0] * e2[1] - e1[1] * e2[0] == 0.0f) {
            t[3] += 0.125f;
            t[7] += 0.125f;
        }
    }
}

void bt_random_scene(bt_rng *r, bt_scene_kind kind, float *verts, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        bt_scene_kind k = kind;
        if (kind == BT_SCENE_MIXED) {
            uint32_t pick = bt_rand_u32(r) % 8;
            if (pick == 0 && i > 0) { /* an exact duplicate of an earlier triangle */
                memcpy(verts + 9 * (size_t)i, verts + 9 * (size_t)(bt_rand_u32(r) % i),
                       9 * sizeof(float));
                continue;
            }
            k = pick < 3 ? BT_SCENE_SOUP : (pick < 5 ? BT_SCENE_GRID : BT_SCENE_QUADS);
        }
        random_triangle(r, k, verts + 9 * (size_t)i);
    }
}

/* ---- Exact arithmetic: fixed-point big integers ----------------------------
 * Every float is an integer multiple of 2^-149 and below 2^128, so x * 2^160
 * is an integer of at most 288 bits; products of three such numbers and a few
 * sums fit in BIG_LIMBS 32-bit limbs. Signed magnitude, little-endian limbs. */
enum { BIG_LIMBS = 30 };

typedef struct big {
    int neg;
    uint32_t d[BIG_LIMBS];
} big;

static big big_from_float(float f)
{
    big b;
    memset(&b, 0, sizeof b);
    if (f == 0.0f)
        return b;
    int e;
    float fr = frexpf(fabsf(f), &e);        /* |f| = fr 2^e, fr in [0.5, 1) */
    uint32_t m = (uint32_t)ldexpf(fr, 24);  /* exact: 24 significant bits */
    int shift = e - 24 + 160;               /* |f| 2^160 = m 2^shift */
    if (shift < 0) {
        m >>= -shift;                       /* exact: f is a multiple of 2^-149 */
        shift = 0;
    }
    uint64_t v = (uint64_t)m << (shift % 32);
    int limb = shift / 32;
    b.d[limb] = (uint32_t)v;
    b.d[limb + 1] = (uint32_t)(v >> 32);
    b.neg = f < 0.0f;
    return b;
}

static int big_cmp_mag(const big *a, const big *b)
{
    for (int i = BIG_LIMBS - 1; i >= 0; i--)
        if (a->d[i] != b->d[i])
            return a->d[i] < b->d[i] ? -1 : 1;
    return 0;
}

static int big_is_zero(const big *a)
{
    for (int i = 0; i < BIG_LIMBS; i++)
        if (a->d[i])
            return 0;
    return 1;
}

static big big_add(big a, big b)
{
    big r;
    memset(&r, 0, sizeof r);
    if (a.neg == b.neg) {
        uint64_t carry = 0;
        for (int i = 0; i < BIG_LIMBS; i++) {
            uint64_t s = (uint64_t)a.d[i] + b.d[i] + carry;
            r.d[i] = (uint32_t)s;
            carry = s >> 32;
        }
        r.neg = a.neg;
        return r;
    }
    if (big_cmp_mag(&a, &b) < 0) {
        big t = a;
        a = b;
        b = t;
    }
    int64_t borrow = 0;
    for (int i = 0; i < BIG_LIMBS; i++) {
        int64_t s = (int64_t)a.d[i] - b.d[i] - borrow;
        borrow = s < 0;
        r.d[i] = (uint32_t)(s + (borrow << 32));
    }
    r.neg = big_is_zero(&r) ? 0 : a.neg;
    return r;
}

static big big_sub(big a, big b)
{
    b.neg = big_is_zero(&b) ? 0 : !b.neg;
    return big_add(a, b);
}

static big big_mul(const big *a, const big *b)
{
    big r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < BIG_LIMBS; i++) {
        if (!a->d[i])
            continue;
        uint64_t carry = 0;
        for (int j = 0; i + j < BIG_LIMBS; j++) {
            uint64_t t = (uint64_t)a->d[i] * b->d[j] + r.d[i + j] + carry;
            r.d[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    r.neg = big_is_zero(&r) ? 0 : a->neg != b->neg;
    return r;
}

static int big_cmp(const big *a, const big *b)
{
    big d = big_sub(*a, *b);
    return big_is_zero(&d) ? 0 : (d.neg ? -1 : 1);
}

/* Projections onto an axis: is the triangle's interval [tmin, tmax] apart
 * from the box's [bmin, bmax]? Axis components and points are exact. */
static bool separated_on(const big axis[3], const big tri[3][3], const big box[2][3])
{
    big tmin, tmax, bmin, bmax;
    for (int i = 0; i < 3; i++) {
        big p;
        memset(&p, 0, sizeof p);
        for (int a = 0; a < 3; a++) {
            big t = big_mul(&axis[a], &tri[i][a]);
            p = big_add(p, t);
        }
        if (i == 0 || big_cmp(&p, &tmin) < 0)
            tmin = p;
        if (i == 0 || big_cmp(&p, &tmax) > 0)
            tmax = p;
    }
    memset(&bmin, 0, sizeof bmin);
    memset(&bmax, 0, sizeof bmax);
    for (int a = 0; a < 3; a++) {
        big lo = big_mul(&axis[a], &box[0][a]), hi = big_mul(&axis[a], &box[1][a]);
        int lo_smaller = big_cmp(&lo, &hi) <= 0;
        bmin = big_add(bmin, lo_smaller ? lo : hi);
        bmax = big_add(bmax, lo_smaller ? hi : lo);
    }
    return big_cmp(&tmax, &bmin) < 0 || big_cmp(&bmax, &tmin) < 0;
}

/* Double-precision filter for one axis: 1 separated, 0 overlapping, -1 too
 * close to call. margin bounds the rounding error of the projections. */
static int filter_axis(const double axis[3], const double tri[3][3], const kd_aabb *box,
                       double margin)
{
    double tmin = INFINITY, tmax = -INFINITY, bmin = 0.0, bmax = 0.0;
    for (int i = 0; i < 3; i++) {
        double p = axis[0] * tri[i][0] + axis[1] * tri[i][1] + axis[2] * tri[i][2];
        tmin = fmin(tmin, p);
        tmax = fmax(tmax, p);
    }
    for (int a = 0; a < 3; a++) {
        double lo = axis[a] * box->lo[a], hi = axis[a] * box->hi[a];
        bmin += fmin(lo, hi);
        bmax += fmax(lo, hi);
    }
    if (tmax < bmin - margin || bmax < tmin - margin)
        return 1;
    if (tmax > bmin + margin && bmax > tmin + margin)
        return 0;
    return -1;
}

/* 1 overlap, 0 none, -1 undecided: the 13 axes in double with error margins. */
static int filter_overlap(const float *v[3], const kd_aabb *box)
{
    double tri[3][3], edge[3][3], mag = 0.0;
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++) {
            tri[i][a] = v[i][a];
            mag = fmax(mag, fabs(tri[i][a]));
            mag = fmax(mag, fmax(fabs((double)box->lo[a]), fabs((double)box->hi[a])));
        }
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++)
            edge[i][a] = tri[(i + 1) % 3][a] - tri[i][a];
    int undecided = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double axis[3] = {0.0, 0.0, 0.0};
            axis[(j + 1) % 3] = edge[i][(j + 2) % 3];
            axis[(j + 2) % 3] = -edge[i][(j + 1) % 3];
            int r = filter_axis(axis, tri, box, 64.0 * 0x1p-52 * mag * mag);
            if (r == 1)
                return 0;
            undecided |= r < 0;
        }
    double n[3];
    for (int a = 0; a < 3; a++)
        n[a] = edge[0][(a + 1) % 3] * edge[2][(a + 2) % 3] - edge[0][(a + 2) % 3] * edge[2][(a + 1) % 3];
    int r = filter_axis(n, tri, box, 256.0 * 0x1p-52 * mag * mag * mag);
    if (r == 1)
        return 0;
    return undecided || r < 0 ? -1 : 1;
}

bool bt_tribox_overlap_exact(const float v0[3], const float v1[3], const float v2[3],
                             const kd_aabb *box)
{
    const float *v[3] = {v0, v1, v2};
    /* The box's own axes: plain float comparisons are exact. */
    bool inside = true;
    for (int a = 0; a < 3; a++) {
        float lo = fminf(v0[a], fminf(v1[a], v2[a])), hi = fmaxf(v0[a], fmaxf(v1[a], v2[a]));
        if (hi < box->lo[a] || lo > box->hi[a])
            return false;
        inside = inside && lo >= box->lo[a] && hi <= box->hi[a];
    }
    if (inside)
        return true;
    int quick = filter_overlap(v, box);
    if (quick >= 0)
        return quick == 1;
    return bt_tribox_overlap_slow(v0, v1, v2, box);
}

bool bt_tribox_overlap_slow(const float v0[3], const float v1[3], const float v2[3],
                            const kd_aabb *box)
{
    const float *v[3] = {v0, v1, v2};
    for (int a = 0; a < 3; a++) {
        float lo = fminf(v0[a], fminf(v1[a], v2[a])), hi = fmaxf(v0[a], fmaxf(v1[a], v2[a]));
        if (hi < box->lo[a] || lo > box->hi[a])
            return false;
    }
    big tri[3][3], bx[2][3], edge[3][3];
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++)
            tri[i][a] = big_from_float(v[i][a]);
    for (int a = 0; a < 3; a++) {
        bx[0][a] = big_from_float(box->lo[a]);
        bx[1][a] = big_from_float(box->hi[a]);
    }
    for (int i = 0; i < 3; i++)
        for (int a = 0; a < 3; a++)
            edge[i][a] = big_sub(tri[(i + 1) % 3][a], tri[i][a]);

    /* Edge x box-axis crosses (a zero axis separates nothing). */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            big axis[3];
            memset(axis, 0, sizeof axis);
            int k = (j + 1) % 3, l = (j + 2) % 3;
            /* e x unit_j = (component k: e_l, component l: -e_k) */
            axis[k] = edge[i][l];
            axis[l] = edge[i][k];
            axis[l].neg = big_is_zero(&axis[l]) ? 0 : !axis[l].neg;
            if (big_is_zero(&axis[k]) && big_is_zero(&axis[l]))
                continue;
            if (separated_on(axis, tri, bx))
                return false;
        }

    /* The triangle's normal. */
    big n[3];
    for (int a = 0; a < 3; a++) {
        int b = (a + 1) % 3, c = (a + 2) % 3;
        big p = big_mul(&edge[0][b], &edge[2][c]), q = big_mul(&edge[0][c], &edge[2][b]);
        n[a] = big_sub(p, q);
    }
    if (big_is_zero(&n[0]) && big_is_zero(&n[1]) && big_is_zero(&n[2]))
        return true;
    return !separated_on(n, tri, bx);
}

/* ---- Tree checkers ------------------------------------------------------------ */

typedef struct overlap_walk {
    const kd_tree *tree;
    const float *v[3];
    uint32_t tri;
    uint64_t violations;
} overlap_walk;

/* Visits the leaves the triangle may overlap. Only a leaf that does not list
 * the triangle needs the exact test; above the leaves, the exact bounding-box
 * test and the filter's certain "apart" prune (both never wrong). */
static void overlap_descend(overlap_walk *w, uint32_t node, kd_aabb box)
{
    for (int a = 0; a < 3; a++) {
        float lo = fminf(w->v[0][a], fminf(w->v[1][a], w->v[2][a]));
        float hi = fmaxf(w->v[0][a], fmaxf(w->v[1][a], w->v[2][a]));
        if (hi < box.lo[a] || lo > box.hi[a])
            return;
    }
    if (filter_overlap(w->v, &box) == 0)
        return;
    kd_node n = w->tree->nodes[node];
    if (kd_node_is_leaf(n)) {
        const uint32_t *list = w->tree->leaf_indices + n.leaf_offset;
        for (uint32_t i = 0; i < kd_node_num_prims(n); i++)
            if (list[i] == w->tri)
                return;
        if (!bt_tribox_overlap_exact(w->v[0], w->v[1], w->v[2], &box))
            return;
        if (w->violations++ < 5)
            fprintf(stderr,
                    "triangle %u overlaps leaf %u [%.9g %.9g %.9g]-[%.9g %.9g %.9g] but is not in it\n",
                    w->tri, node, box.lo[0], box.lo[1], box.lo[2], box.hi[0], box.hi[1],
                    box.hi[2]);
        return;
    }
    int axis = kd_node_axis(n);
    kd_aabb below = box, above = box;
    below.hi[axis] = n.split;
    above.lo[axis] = n.split;
    overlap_descend(w, node + 1, below);
    overlap_descend(w, kd_node_above_child(n), above);
}

uint64_t bt_check_exact_overlap(const kd_tree *tree, const kd_mesh *mesh)
{
    overlap_walk w = {tree, {NULL, NULL, NULL}, 0, 0};
    for (uint32_t t = 0; t < mesh->num_triangles; t++) {
        for (int i = 0; i < 3; i++)
            w.v[i] = mesh->positions + 3 * (size_t)mesh->indices[3 * (size_t)t + i];
        w.tri = t;
        overlap_descend(&w, 0, tree->bounds);
    }
    return w.violations;
}

static void depth_walk(const kd_tree *tree, uint32_t node, uint32_t depth, uint32_t *max_depth)
{
    kd_node n = tree->nodes[node];
    if (kd_node_is_leaf(n)) {
        if (depth > *max_depth)
            *max_depth = depth;
        return;
    }
    depth_walk(tree, node + 1, depth + 1, max_depth);
    depth_walk(tree, kd_node_above_child(n), depth + 1, max_depth);
}

uint32_t bt_tree_depth(const kd_tree *tree)
{
    uint32_t d = 0;
    depth_walk(tree, 0, 0, &d);
    return d;
}

static double area(const kd_aabb *b)
{
    double dx = (double)b->hi[0] - b->lo[0], dy = (double)b->hi[1] - b->lo[1],
           dz = (double)b->hi[2] - b->lo[2];
    return 2.0 * (dx * dy + dx * dz + dy * dz);
}

static double cost_walk(const kd_tree *tree, uint32_t node, kd_aabb box, double t, double i)
{
    kd_node n = tree->nodes[node];
    if (kd_node_is_leaf(n))
        return i * kd_node_num_prims(n) * area(&box);
    int axis = kd_node_axis(n);
    kd_aabb below = box, above = box;
    below.hi[axis] = n.split;
    above.lo[axis] = n.split;
    return t * area(&box) + cost_walk(tree, node + 1, below, t, i) +
           cost_walk(tree, kd_node_above_child(n), above, t, i);
}

double bt_sah_cost(const kd_tree *tree, double traversal, double intersect)
{
    return cost_walk(tree, 0, tree->bounds, traversal, intersect) / area(&tree->bounds);
}

void bt_random_mesh(kd_mesh *mesh, uint32_t seed, bt_scene_kind kind, uint32_t n)
{
    bt_rng rng = {seed};
    float *verts = malloc(9 * sizeof(float) * n);
    bt_random_scene(&rng, kind, verts, n);
    bt_mesh_from_soup(mesh, verts, n);
    free(verts);
}
