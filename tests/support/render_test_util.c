#include "render_test_util.h"

#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_build.h"
#include "cpu_render.h"
#include "obj_loader.h"
#include "tribox.h"

uint64_t kd_test_rng_next(kd_test_rng *rng)
{
    /* splitmix64 */
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float kd_test_rng_float(kd_test_rng *rng) { return (float)(kd_test_rng_next(rng) >> 40) / 16777216.0f; }

int64_t kd_test_rng_range(kd_test_rng *rng, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(kd_test_rng_next(rng) % (uint64_t)(hi - lo + 1));
}

float *kd_test_random_soup(kd_test_rng *rng, uint32_t n, float size)
{
    float *v = malloc(9 * (size_t)n * sizeof *v);
    for (uint32_t t = 0; t < n; t++) {
        float c[3];
        for (int a = 0; a < 3; a++)
            c[a] = kd_test_rng_float(rng);
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                v[9 * t + 3 * k + a] = c[a] + size * (kd_test_rng_float(rng) - 0.5f);
    }
    return v;
}

float *kd_test_grid_city(kd_test_rng *rng, int cells, uint32_t *n)
{
    size_t cap = 12 * (size_t)cells * cells * 4, count = 0;
    float *v = malloc(9 * cap * sizeof *v);
    for (int x = 0; x < cells; x++)
        for (int z = 0; z < cells; z++) {
            int height = (int)kd_test_rng_range(rng, 0, 3);
            for (int y = 0; y < height; y++) {
                /* six faces of the unit cube at (x, y, z), two triangles each */
                for (int axis = 0; axis < 3; axis++)
                    for (int side = 0; side < 2; side++) {
                        int u = (axis + 1) % 3, w = (axis + 2) % 3;
                        float base[3] = {(float)x, (float)y, (float)z};
                        float corner[4][3];
                        for (int q = 0; q < 4; q++) {
                            memcpy(corner[q], base, sizeof base);
                            corner[q][axis] += (float)side;
                            corner[q][u] += (float)(q == 1 || q == 2);
                            corner[q][w] += (float)(q >= 2);
                        }
                        static const int tris[2][3] = {{0, 1, 2}, {0, 2, 3}};
                        for (int t = 0; t < 2; t++) {
                            for (int k = 0; k < 3; k++)
                                memcpy(v + 9 * count + 3 * k, corner[tris[t][k]], 3 * sizeof(float));
                            count++;
                        }
                    }
            }
        }
    *n = (uint32_t)count;
    return v;
}

void kd_test_mesh_from_soup(const float *tri_verts, uint32_t n, kd_mesh *mesh)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->positions = malloc(9 * (size_t)n * sizeof(float));
    mesh->indices = malloc(3 * (size_t)n * sizeof(uint32_t));
    memcpy(mesh->positions, tri_verts, 9 * (size_t)n * sizeof(float));
    for (uint32_t i = 0; i < 3 * n; i++)
        mesh->indices[i] = i;
    mesh->num_vertices = 3 * n;
    mesh->num_triangles = n;
    mesh->num_triangles_read = n;
}

kd_aabb kd_test_soup_bounds(const float *tri_verts, uint32_t n)
{
    kd_aabb box = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    for (size_t i = 0; i < 3 * (size_t)n; i++)
        for (int a = 0; a < 3; a++) {
            float p = tri_verts[3 * i + a];
            if (p < box.lo[a]) box.lo[a] = p;
            if (p > box.hi[a]) box.hi[a] = p;
        }
    return box;
}

typedef struct median_builder {
    const float *verts;
    kd_node *nodes;
    uint32_t num_nodes, cap_nodes;
    uint32_t *leaf;
    uint32_t num_leaf, cap_leaf;
    int max_depth;
    uint32_t leaf_size;
} median_builder;

static uint32_t emit_node(median_builder *b)
{
    if (b->num_nodes == b->cap_nodes) {
        b->cap_nodes = b->cap_nodes ? 2 * b->cap_nodes : 64;
        b->nodes = realloc(b->nodes, b->cap_nodes * sizeof *b->nodes);
    }
    return b->num_nodes++;
}

static void make_leaf(median_builder *b, uint32_t index, const uint32_t *tris, uint32_t n)
{
    while (b->num_leaf + n > b->cap_leaf) {
        b->cap_leaf = b->cap_leaf ? 2 * b->cap_leaf : 256;
        b->leaf = realloc(b->leaf, b->cap_leaf * sizeof *b->leaf);
    }
    memcpy(b->leaf + b->num_leaf, tris, n * sizeof *tris);
    b->nodes[index] = kd_make_leaf(b->num_leaf, n);
    b->num_leaf += n;
}

static void build_node(median_builder *b, kd_aabb box, uint32_t *tris, uint32_t n, int depth)
{
    uint32_t index = emit_node(b);
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (box.hi[a] - box.lo[a] > box.hi[axis] - box.lo[axis])
            axis = a;
    float split = 0.5f * (box.lo[axis] + box.hi[axis]);
    if (n <= b->leaf_size || depth >= b->max_depth || !(split > box.lo[axis] && split < box.hi[axis])) {
        make_leaf(b, index, tris, n);
        return;
    }
    kd_aabb below = box, above = box;
    below.hi[axis] = split;
    above.lo[axis] = split;
    uint32_t *left = malloc((n ? n : 1) * sizeof *left), *right = malloc((n ? n : 1) * sizeof *right);
    uint32_t nl = 0, nr = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *v = b->verts + 9 * (size_t)tris[i];
        if (kd_tribox_overlap(v, v + 3, v + 6, &below))
            left[nl++] = tris[i];
        if (kd_tribox_overlap(v, v + 3, v + 6, &above))
            right[nr++] = tris[i];
    }
    if (nl == n && nr == n) { /* no progress: every triangle straddles */
        free(left);
        free(right);
        make_leaf(b, index, tris, n);
        return;
    }
    build_node(b, below, left, nl, depth + 1);
    free(left);
    uint32_t above_index = b->num_nodes;
    build_node(b, above, right, nr, depth + 1);
    free(right);
    b->nodes[index] = kd_make_interior(axis, split, above_index);
}

void kd_test_build_median(const float *tri_verts, uint32_t n, int max_depth, uint32_t leaf_size,
                          kd_tree *tree)
{
    median_builder b = {.verts = tri_verts, .max_depth = max_depth, .leaf_size = leaf_size};
    kd_aabb box = kd_test_soup_bounds(tri_verts, n);
    uint32_t *all = malloc((n ? n : 1) * sizeof *all);
    for (uint32_t i = 0; i < n; i++)
        all[i] = i;
    build_node(&b, box, all, n, 0);
    free(all);
    memset(tree, 0, sizeof *tree);
    tree->nodes = b.nodes;
    tree->num_nodes = b.num_nodes;
    tree->leaf_indices = b.leaf ? b.leaf : malloc(sizeof(uint32_t));
    tree->num_leaf_indices = b.num_leaf;
    tree->num_triangles = n;
    tree->max_depth = (uint32_t)max_depth;
    tree->bounds = box;
}

kd_ray kd_test_random_ray(kd_test_rng *rng, kd_aabb box)
{
    kd_ray ray;
    float max_ext = fmaxf(box.hi[0] - box.lo[0], fmaxf(box.hi[1] - box.lo[1], box.hi[2] - box.lo[2]));
    for (int a = 0; a < 3; a++) {
        float ext = fmaxf(box.hi[a] - box.lo[a], 0.5f * max_ext); /* flat boxes too */
        ray.org[a] = box.lo[a] - 0.5f * ext + 2.0f * ext * kd_test_rng_float(rng);
        ray.dir[a] = 2.0f * kd_test_rng_float(rng) - 1.0f;
    }
    uint64_t r = kd_test_rng_next(rng);
    if (r % 4 == 0) {
        ray.dir[(r >> 8) % 3] = 0.0f;
        if ((r >> 16) % 2)
            ray.dir[(r >> 24) % 3] = 0.0f;
    }
    if (ray.dir[0] == 0.0f && ray.dir[1] == 0.0f && ray.dir[2] == 0.0f)
        ray.dir[1] = 1.0f;
    ray.t_max = INFINITY;
    return ray;
}

static bool find_box(const kd_tree *t, uint32_t index, kd_aabb box, uint32_t target, kd_aabb *out)
{
    if (index == target) {
        *out = box;
        return true;
    }
    kd_node node = t->nodes[index];
    if (kd_node_is_leaf(node))
        return false;
    int axis = kd_node_axis(node);
    kd_aabb below = box, above = box;
    below.hi[axis] = node.split;
    above.lo[axis] = node.split;
    return find_box(t, index + 1, below, target, out) ||
           find_box(t, kd_node_above_child(node), above, target, out);
}

bool kd_test_node_box(const kd_tree *tree, uint32_t target, kd_aabb *box)
{
    return tree->num_nodes > 0 && find_box(tree, 0, tree->bounds, target, box);
}

bool kd_test_build_sah(const float *tri_verts, uint32_t n, kd_tree *tree)
{
    kd_mesh mesh;
    kd_test_mesh_from_soup(tri_verts, n, &mesh);
    kd_build_params params;
    kd_build_params_default(&params);
    kd_error err;
    memset(tree, 0, sizeof *tree);
    kd_status st = kd_build_cpu(&mesh, &params, tree, NULL, &err);
    kd_mesh_free(&mesh);
    if (st)
        fprintf(stderr, "kd_build_cpu: %s\n", err.message);
    return st == KD_OK;
}

kd_status kd_test_scene_load(kd_test_scene *scene, const char *path, const kd_build_params *params,
                             kd_error *err)
{
    memset(scene, 0, sizeof *scene);
    kd_status st = kd_obj_load_file(path, &scene->mesh, err);
    if (st == KD_OK)
        st = kd_trace_gather_vertices(&scene->mesh, &scene->tri_verts, err);
    scene->mesh_bounds = kd_mesh_bounds(&scene->mesh);
    double start = kd_render_now();
    if (st == KD_OK)
        st = kd_build_cpu(&scene->mesh, params, &scene->tree, NULL, err);
    scene->tree_seconds = kd_render_now() - start;
    if (st != KD_OK)
        kd_test_scene_free(scene);
    return st;
}

void kd_test_scene_free(kd_test_scene *scene)
{
    kd_mesh_free(&scene->mesh);
    kd_tree_free(&scene->tree);
    free(scene->tri_verts);
    memset(scene, 0, sizeof *scene);
}
