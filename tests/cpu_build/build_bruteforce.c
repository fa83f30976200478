/* The O(N log N) event sweep against a brute-force exact-SAH builder.
 *
 * The reference builder here keeps, per node, a plain list of (triangle,
 * clipped bounds); for every candidate plane (each clipped bound and its two
 * float neighbours, strictly inside the node) it counts the two sides by
 * looping over all triangles: O(N^2) per node, no events, no sorting, no
 * merging. It shares with the real builder only the pieces that define the
 * answer (the cost function, the clipping routine, pbrt's stopping rules and
 * the rule that undoes subtrees that do not pay),
 * so equal trees show that the sweep, the event bookkeeping through splits
 * and the parallel assembly compute exactly the brute-force optimum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "build_support.h"
#include "cpu_build.h"
#include "cpu_build_internal.h"
#include "test_support.h"
#include "tree_stats.h"

typedef struct ref {
    uint32_t tri;
    kd_aabb b;
} ref;

typedef struct bf_out {
    kd_node *nodes;
    uint32_t num_nodes, cap_nodes;
    uint32_t *indices;
    uint32_t num_indices, cap_indices;
} bf_out;

static uint32_t bf_push(bf_out *o, kd_node n)
{
    if (o->num_nodes == o->cap_nodes) {
        o->cap_nodes = o->cap_nodes ? 2 * o->cap_nodes : 64;
        o->nodes = realloc(o->nodes, o->cap_nodes * sizeof *o->nodes);
    }
    o->nodes[o->num_nodes] = n;
    return o->num_nodes++;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Returns the leaf's cost. */
static double bf_leaf(bf_out *o, const ref *refs, uint32_t n, const kd_build_params *p)
{
    if (o->num_indices + n + 1 > o->cap_indices) {
        o->cap_indices = 2 * (o->num_indices + n) + 64;
        o->indices = realloc(o->indices, o->cap_indices * sizeof *o->indices);
    }
    uint32_t *dst = o->indices + o->num_indices;
    for (uint32_t i = 0; i < n; i++)
        dst[i] = refs[i].tri;
    qsort(dst, n, sizeof *dst, cmp_u32);
    bf_push(o, kd_make_leaf(o->num_indices, n));
    o->num_indices += n;
    return kd_leaf_cost(n, p);
}

static void consider(kd_split *best, const kd_sah_axis *sah, int axis, float s, const ref *refs,
                     uint32_t n, const kd_aabb *box)
{
    s += 0.0f;
    if (!(s > box->lo[axis] && s < box->hi[axis]))
        return;
    uint32_t nl = 0, nr = 0;
    for (uint32_t i = 0; i < n; i++) {
        nl += refs[i].b.lo[axis] <= s;
        nr += refs[i].b.hi[axis] >= s;
    }
    double cost = kd_sah_axis_cost(sah, s, nl, nr);
    if (cost < best->cost ||
        (cost == best->cost && (axis < best->axis || (axis == best->axis && s < best->pos)))) {
        *best = (kd_split){true, axis, s, cost, nl, nr};
    }
}

/* Builds the subtree of a node; returns its cost. */
static double bf_build(bf_out *o, const kd_mesh *mesh, ref *refs, uint32_t n, kd_aabb box,
                       kd_path_state path, const kd_build_params *p)
{
    kd_split best = {false, 0, 0.0f, INFINITY, 0, 0};
    bool leaf = kd_leaf_before_sweep(n, &path, &box, p);
    if (!leaf) {
        for (int axis = 0; axis < 3; axis++) {
            if (!(box.lo[axis] < box.hi[axis]))
                continue;
            kd_sah_axis sah;
            kd_sah_axis_init(&sah, &box, axis, p);
            for (uint32_t i = 0; i < n; i++) {
                float q[2] = {refs[i].b.lo[axis] + 0.0f, refs[i].b.hi[axis] + 0.0f};
                for (int k = 0; k < 2; k++) {
                    consider(&best, &sah, axis, nextafterf(q[k], -INFINITY), refs, n, &box);
                    consider(&best, &sah, axis, q[k], refs, n, &box);
                    consider(&best, &sah, axis, nextafterf(q[k], INFINITY), refs, n, &box);
                }
            }
        }
        leaf = kd_leaf_after_sweep(n, &best, p, &path);
    }
    if (leaf)
        return bf_leaf(o, refs, n, p);
    kd_aabb child_box[2];
    kd_split_boxes(&box, best.axis, best.pos, &child_box[0], &child_box[1]);
    ref *child[2];
    uint32_t count[2] = {0, 0};
    for (int c = 0; c < 2; c++) {
        child[c] = malloc((n ? n : 1) * sizeof(ref));
        for (uint32_t i = 0; i < n; i++) {
            bool l = refs[i].b.lo[best.axis] <= best.pos, r = refs[i].b.hi[best.axis] >= best.pos;
            if (!(c == 0 ? l : r))
                continue;
            ref x = refs[i];
            if (l && r) { /* straddler: clip anew to the child box */
                float v[3][3];
                kd_mesh_triangle(mesh, x.tri, v);
                if (!kd_clip_triangle_bounds(v, &child_box[c], &x.b))
                    continue;
            }
            child[c][count[c]++] = x;
        }
    }
    uint32_t me = bf_push(o, kd_make_interior(best.axis, best.pos, 0)), first = o->num_indices;
    double cost_left = bf_build(o, mesh, child[0], count[0], child_box[0], path, p);
    o->nodes[me] = kd_make_interior(best.axis, best.pos, o->num_nodes);
    double cost_right = bf_build(o, mesh, child[1], count[1], child_box[1], path, p);
    free(child[0]);
    free(child[1]);
    /* A subtree that does not cost less than the node's leaf becomes one leaf
     * of the triangles its leaves list. */
    double cost = kd_subtree_cost(&box, best.axis, best.pos, cost_left, cost_right, p);
    if (kd_subtree_pays(cost, n, p))
        return cost;
    uint32_t *all = o->indices + first;
    uint32_t k = o->num_indices - first;
    qsort(all, k, sizeof *all, cmp_u32);
    uint32_t unique = 0;
    for (uint32_t i = 0; i < k; i++)
        if (unique == 0 || all[i] != all[unique - 1])
            all[unique++] = all[i];
    o->nodes[me] = kd_make_leaf(first, unique);
    o->num_nodes = me + 1;
    o->num_indices = first + unique;
    return kd_leaf_cost(unique, p);
}

static void bf_tree(const kd_mesh *mesh, const kd_build_params *p, bf_out *o, kd_aabb *root)
{
    uint32_t n = mesh->num_triangles;
    ref *refs = malloc((n ? n : 1) * sizeof *refs);
    for (int a = 0; a < 3; a++) {
        root->lo[a] = INFINITY;
        root->hi[a] = -INFINITY;
    }
    for (uint32_t t = 0; t < n; t++) {
        float v[3][3];
        kd_mesh_triangle(mesh, t, v);
        refs[t].tri = t;
        for (int a = 0; a < 3; a++) {
            refs[t].b.lo[a] = fminf(v[0][a], fminf(v[1][a], v[2][a])) + 0.0f;
            refs[t].b.hi[a] = fmaxf(v[0][a], fmaxf(v[1][a], v[2][a])) + 0.0f;
            root->lo[a] = fminf(root->lo[a], refs[t].b.lo[a]);
            root->hi[a] = fmaxf(root->hi[a], refs[t].b.hi[a]);
        }
    }
    memset(o, 0, sizeof *o);
    bf_build(o, mesh, refs, n, *root, (kd_path_state){kd_build_max_depth(p, n), 0, 1.0}, p);
    free(refs);
}

/* The collapse rule seen from the finished tree, computed here on its own:
 * every interior node's subtree costs less than one leaf of the triangles its
 * leaves list. Returns the subtree's cost; *tris gets that list (sorted, once
 * each, malloc'ed), *num its length. */
static double check_subtrees_pay(const char *name, const kd_tree *t, uint32_t i, kd_aabb box,
                                 const kd_build_params *p, uint32_t **tris, uint32_t *num)
{
    kd_node node = t->nodes[i];
    if (kd_node_is_leaf(node)) {
        *num = kd_node_num_prims(node);
        *tris = malloc((*num + 1) * sizeof **tris);
        memcpy(*tris, t->leaf_indices + node.leaf_offset, *num * sizeof **tris);
        return (double)p->intersect_cost * *num;
    }
    int axis = kd_node_axis(node);
    kd_aabb b[2] = {box, box};
    b[0].hi[axis] = b[1].lo[axis] = node.split;
    uint32_t *sub[2], n[2];
    double c0 = check_subtrees_pay(name, t, i + 1, b[0], p, &sub[0], &n[0]);
    double c1 = check_subtrees_pay(name, t, kd_node_above_child(node), b[1], p, &sub[1], &n[1]);
    double area = kd_box_area(&box);
    double cost = p->traversal_cost + (kd_box_area(&b[0]) * c0 + kd_box_area(&b[1]) * c1) / area;
    /* Merge the children's sorted lists. */
    *tris = malloc((n[0] + n[1] + 1) * sizeof **tris);
    uint32_t a = 0, c = 0, k = 0;
    while (a < n[0] || c < n[1]) {
        uint32_t x = c >= n[1] || (a < n[0] && sub[0][a] <= sub[1][c]) ? sub[0][a++] : sub[1][c++];
        if (k == 0 || (*tris)[k - 1] != x)
            (*tris)[k++] = x;
    }
    *num = k;
    free(sub[0]);
    free(sub[1]);
    CHECK_MSG(cost < (double)p->intersect_cost * k * (1.0 + 1e-12),
              "%s: node %u: subtree cost %.9g not below its leaf's %.9g", name, i, cost,
              (double)p->intersect_cost * k);
    return cost;
}

static bool same_node(kd_node a, kd_node b) { return a.leaf_offset == b.leaf_offset && a.flags == b.flags; }

static void compare_case(const char *name, const kd_mesh *mesh, const kd_build_params *p)
{
    bf_out ref_tree;
    kd_aabb root;
    bf_tree(mesh, p, &ref_tree, &root);

    kd_tree tree;
    kd_error err;
    kd_status st = kd_build_cpu(mesh, p, &tree, NULL, &err);
    CHECK_MSG(st == KD_OK, "%s: %s", name, err.message);
    if (st)
        return;
    kd_tree view = {ref_tree.nodes, ref_tree.num_nodes, ref_tree.indices, ref_tree.num_indices,
                    mesh->num_triangles, tree.max_depth, root};
    double cost_sweep = bt_sah_cost(&tree, p->traversal_cost, p->intersect_cost);
    double cost_brute = bt_sah_cost(&view, p->traversal_cost, p->intersect_cost);
    CHECK_MSG(fabs(cost_sweep - cost_brute) <= 1e-9 * fmax(1.0, cost_brute),
              "%s: SAH cost %.12g (sweep) vs %.12g (brute force)", name, cost_sweep, cost_brute);

    bool same = tree.num_nodes == ref_tree.num_nodes &&
                tree.num_leaf_indices == ref_tree.num_indices;
    for (uint32_t i = 0; same && i < tree.num_nodes; i++)
        same = same_node(tree.nodes[i], ref_tree.nodes[i]);
    for (uint32_t i = 0; same && i < tree.num_leaf_indices; i++)
        same = tree.leaf_indices[i] == ref_tree.indices[i];
    CHECK_MSG(same, "%s: tree differs from brute force (%u vs %u nodes, %u vs %u refs)", name,
              tree.num_nodes, ref_tree.num_nodes, tree.num_leaf_indices, ref_tree.num_indices);
    CHECK_MSG(bt_check_exact_overlap(&tree, mesh) == 0, "%s: exact overlap violated", name);
    uint32_t *all, num_all;
    check_subtrees_pay(name, &tree, 0, tree.bounds, p, &all, &num_all);
    free(all);

    /* The stats module computes the same plain cost. */
    kd_tree_stats stats;
    kd_sah_constants c = {p->traversal_cost, p->intersect_cost, p->empty_bonus};
    kd_tree_compute_stats(&tree, &c, &stats);
    CHECK_MSG(fabs(stats.sah_cost - cost_sweep) <= 1e-9 * fmax(1.0, cost_sweep),
              "%s: stats cost %.12g vs %.12g", name, stats.sah_cost, cost_sweep);

    kd_tree_free(&tree);
    free(ref_tree.nodes);
    free(ref_tree.indices);
}

/* 2500 copies of one triangle beside 1000 random triangles: no plane
 * separates the copies, so the splits that pbrt's bad refines make among them
 * do not pay and are undone. With two or three threads the copies' node is
 * built in the upper levels and undone at assembly, with one thread while it
 * is built: the same tree, the brute force's, with the copies in one leaf. */
static int test_stack_undone_in_upper_levels(bt_rng *rng)
{
    enum { RANDOM = 1000, COPIES = 2500 };
    float *verts = malloc(9 * sizeof(float) * (RANDOM + COPIES));
    bt_random_scene(rng, BT_SCENE_MIXED, verts, RANDOM);
    static const float copy[9] = {2.0f, 0.0f, 0.0f, 3.0f, 0.25f, 0.0f, 2.5f, 1.0f, 1.0f};
    for (uint32_t i = 0; i < COPIES; i++)
        memcpy(verts + 9 * (RANDOM + i), copy, sizeof copy);
    kd_mesh mesh;
    bt_mesh_from_soup(&mesh, verts, RANDOM + COPIES);
    kd_build_params p;
    kd_build_params_default(&p);
    for (int threads = 1; threads <= 3; threads++) {
        p.num_threads = threads;
        char name[64];
        snprintf(name, sizeof name, "2500 copies + 1000 random, %d threads", threads);
        compare_case(name, &mesh, &p);
        kd_tree tree;
        kd_error err;
        if (kd_build_cpu(&mesh, &p, &tree, NULL, &err) != KD_OK)
            continue;
        uint32_t copy_refs = 0;
        for (uint32_t i = 0; i < tree.num_leaf_indices; i++)
            copy_refs += tree.leaf_indices[i] >= RANDOM;
        CHECK_MSG(copy_refs == COPIES, "%s: %u references to the copies", name, copy_refs);
        kd_tree_free(&tree);
    }
    kd_mesh_free(&mesh);
    free(verts);
    return 3;
}

int main(void)
{
    static const struct {
        bt_scene_kind kind;
        const char *name;
    } kinds[] = {{BT_SCENE_SOUP, "soup"},
                 {BT_SCENE_GRID, "grid"},
                 {BT_SCENE_QUADS, "quads"},
                 {BT_SCENE_MIXED, "mixed"}};
    bt_rng rng = {0x9e3779b97f4a7c15ull};
    int cases = 0;
    for (int k = 0; k < 4; k++) {
        for (int rep = 0; rep < 20; rep++) {
            uint32_t n = 2 + bt_rand_u32(&rng) % 400;
            float *verts = malloc(9 * sizeof(float) * n);
            bt_random_scene(&rng, kinds[k].kind, verts, n);
            kd_mesh mesh;
            bt_mesh_from_soup(&mesh, verts, n);

            kd_build_params p;
            kd_build_params_default(&p);
            /* Vary the rules so every branch of them is exercised. */
            switch (rep % 3) {
            case 1:
                p.empty_bonus = 0.0f;
                p.max_leaf_prims = 2;
                break;
            case 2:
                p.empty_bonus = 0.8f;
                p.intersect_cost = 2.0f;
                p.max_depth = 6;
                p.max_duplication = 3.0f;
                break;
            default:
                break;
            }
            p.num_threads = rep % 2 ? 2 : 1;
            char name[96];
            snprintf(name, sizeof name, "%s n=%u rules=%d", kinds[k].name, n, rep % 3);
            compare_case(name, &mesh, &p);
            cases++;
            kd_mesh_free(&mesh);
            free(verts);
        }
    }
    /* One scene large enough that two threads build its upper levels first
     * and the rest as parallel tasks, spliced together by the assembly. */
    {
        uint32_t n = 5000;
        float *verts = malloc(9 * sizeof(float) * n);
        bt_random_scene(&rng, BT_SCENE_MIXED, verts, n);
        kd_mesh mesh;
        bt_mesh_from_soup(&mesh, verts, n);
        kd_build_params p;
        kd_build_params_default(&p);
        p.num_threads = 2;
        compare_case("mixed n=5000, upper levels + tasks", &mesh, &p);
        cases++;
        kd_mesh_free(&mesh);
        free(verts);
    }
    cases += test_stack_undone_in_upper_levels(&rng);
    printf("compared %d scenes with the brute-force builder\n", cases);
    return kd_test_finish("build_bruteforce");
}
