#include "gpu_build_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera.h"
#include "cpu_render.h"
#include "obj_loader.h"
#include "test_support.h"
#include "tree_io.h"
#include "tree_stats.h"
#include "verify.h"

const char *gb_scene_name(gb_scene_kind kind)
{
    static const char *const names[GB_SCENE_NUM_KINDS] = {"soup",  "snapped",   "quads",
                                                          "flat",  "identical", "slivers"};
    return (int)kind >= 0 && kind < GB_SCENE_NUM_KINDS ? names[kind] : "?";
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static float rnd(uint64_t *s) { return (float)(rng_next(s) >> 40) / (float)(1ull << 24); }

static float snap8(float x) { return roundf(x * 8.0f) / 8.0f; }

static void one_triangle(gb_scene_kind kind, uint64_t *s, uint32_t i, uint32_t n, float *v)
{
    switch (kind) {
    case GB_SCENE_SOUP:
    case GB_SCENE_NUM_KINDS: {
        float c[3] = {rnd(s), rnd(s), rnd(s)};
        for (int k = 0; k < 9; k++)
            v[k] = c[k % 3] + 0.1f * (rnd(s) - 0.5f);
        break;
    }
    case GB_SCENE_SNAPPED: {
        float c[3] = {rnd(s), rnd(s), rnd(s)};
        for (int k = 0; k < 9; k++)
            v[k] = snap8(c[k % 3] + 0.3f * (rnd(s) - 0.5f));
        break;
    }
    case GB_SCENE_QUADS: {
        /* Triangle i is half of quad i / 2; both halves use the same numbers. */
        uint64_t q = 0x9e3779b97f4a7c15ull * (uint64_t)(i / 2 + 1);
        int axis = (int)(rng_next(&q) % 3);
        int b = (axis + 1) % 3, c = (axis + 2) % 3;
        float pos = snap8(rnd(&q)), b0 = snap8(rnd(&q) * 0.75f), c0 = snap8(rnd(&q) * 0.75f);
        float b1 = b0 + 0.125f * (float)(1 + rng_next(&q) % 3);
        float c1 = c0 + 0.125f * (float)(1 + rng_next(&q) % 3);
        float corner[4][3];
        for (int k = 0; k < 4; k++) {
            corner[k][axis] = pos;
            corner[k][b] = (k == 1 || k == 2) ? b1 : b0;
            corner[k][c] = (k >= 2) ? c1 : c0;
        }
        static const int tri[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                v[3 * j + k] = corner[tri[i & 1][j]][k];
        break;
    }
    case GB_SCENE_FLAT:
        for (int j = 0; j < 3; j++) {
            float cx = rnd(s), cy = rnd(s);
            v[3 * j] = j == 0 ? cx : v[0] + 0.05f * (rnd(s) - 0.5f);
            v[3 * j + 1] = j == 0 ? cy : v[1] + 0.05f * (rnd(s) - 0.5f);
            v[3 * j + 2] = 0.5f;
        }
        break;
    case GB_SCENE_IDENTICAL: {
        static const float t[9] = {0.1f, 0.2f, 0.3f, 0.7f, 0.25f, 0.35f, 0.4f, 0.8f, 0.6f};
        memcpy(v, t, sizeof t);
        break;
    }
    case GB_SCENE_SLIVERS:
        if (i % 100 == 0) {
            for (int k = 0; k < 9; k++)
                v[k] = rnd(s);
        } else {
            float p[3] = {rnd(s), rnd(s), rnd(s)}, d[3], e[3];
            for (int k = 0; k < 3; k++) {
                d[k] = 0.6f * (rnd(s) - 0.5f);
                e[k] = 1e-4f * (rnd(s) - 0.5f);
            }
            d[i % 3] *= 1e-3f; /* nearly parallel to a plane of that axis */
            for (int k = 0; k < 3; k++) {
                v[k] = p[k];
                v[3 + k] = p[k] + d[k];
                v[6 + k] = p[k] + 0.5f * d[k] + e[k];
            }
        }
        break;
    }
    (void)n;
}

void gb_make_scene(kd_mesh *mesh, gb_scene_kind kind, uint32_t n, uint32_t seed)
{
    memset(mesh, 0, sizeof *mesh);
    mesh->positions = (float *)malloc((size_t)n * 9 * sizeof(float) + 4);
    mesh->indices = (uint32_t *)malloc((size_t)n * 3 * sizeof(uint32_t) + 4);
    uint64_t s = 0x2545f4914f6cdd1dull ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull);
    if (s == 0)
        s = 1;
    for (uint32_t i = 0; i < n; i++) {
        one_triangle(kind, &s, i, n, mesh->positions + 9 * (size_t)i);
        for (int j = 0; j < 3; j++)
            mesh->indices[3 * (size_t)i + j] = 3 * i + (uint32_t)j;
    }
    mesh->num_vertices = 3 * n;
    mesh->num_triangles = n;
    mesh->num_triangles_read = n;
}

bool gb_load_shared(const char *base, kd_mesh *mesh)
{
    char path[1024];
    memset(mesh, 0, sizeof *mesh);
    if (!kd_test_shared_scene(base, path, sizeof path)) {
        printf("note: %s not found, skipped\n", path);
        return false;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_status st = kd_obj_load_file(path, mesh, &err);
    CHECK_MSG(st == KD_OK, "loading %s: %s", path, err.message);
    return st == KD_OK;
}

void gb_options(kd_gpu_build_options *opts, kd_large_split split)
{
    kd_gpu_build_options_default(opts);
    opts->large_split = split;
}

bool gb_quick(void)
{
    const char *q = getenv("KD_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/* num_rays rays: half through the pixels of an auto-framed camera, half from
 * random points around the scene towards random points inside it. */
static kd_ray *make_rays(const kd_tree *tree, uint32_t num_rays)
{
    kd_ray *rays = (kd_ray *)calloc(num_rays ? num_rays : 1, sizeof(kd_ray));
    if (!rays)
        return NULL;
    kd_aabb box = tree->bounds;
    uint32_t side = (uint32_t)sqrt((double)num_rays / 2.0);
    uint32_t n = 0;
    kd_camera cam;
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    kd_error err;
    if (side > 0 && kd_camera_setup(&cam, &req, box, (int)side, (int)side, &err) == KD_OK) {
        for (uint32_t y = 0; y < side; y++)
            for (uint32_t x = 0; x < side && n < num_rays; x++)
                rays[n++] = kd_camera_ray(&cam, (int)x, (int)y);
    }
    uint64_t s = 0x853c49e6748fea9bull;
    for (; n < num_rays; n++) {
        kd_ray *r = &rays[n];
        for (int a = 0; a < 3; a++) {
            float ext = box.hi[a] - box.lo[a];
            float lo = box.lo[a] - 0.25f * ext, hi = box.hi[a] + 0.25f * ext;
            r->org[a] = lo + (hi - lo) * rnd(&s);
            float target = box.lo[a] + ext * rnd(&s);
            r->dir[a] = target - r->org[a];
        }
        if (r->dir[0] == 0.0f && r->dir[1] == 0.0f && r->dir[2] == 0.0f)
            r->dir[2] = 1.0f;
        r->t_max = INFINITY;
    }
    return rays;
}

void gb_check_tree(const char *label, const kd_mesh *mesh, const kd_tree *tree, uint32_t num_rays)
{
    kd_error err;
    kd_error_clear(&err);
    CHECK_MSG(tree->num_triangles == mesh->num_triangles, "%s: tree over %u triangles, mesh has %u",
              label, tree->num_triangles, mesh->num_triangles);
    kd_status st = kd_tree_check_structure(tree, &err);
    CHECK_MSG(st == KD_OK, "%s: structure: %s", label, err.message);
    if (st != KD_OK)
        return;

    float *tri_verts = NULL;
    if (kd_trace_gather_vertices(mesh, &tri_verts, &err) != KD_OK) {
        CHECK_MSG(0, "%s: gathering vertices: %s", label, err.message);
        return;
    }
    kd_invariant_report rep;
    st = kd_verify_invariants(tree, tri_verts, mesh->num_triangles, 0, &rep, &err);
    CHECK_MSG(st == KD_OK, "%s: verifier: %s", label, err.message);
    if (st == KD_OK) {
        uint64_t total = kd_invariant_report_total(&rep);
        CHECK_MSG(total == 0, "%s: %llu invariant violations", label, (unsigned long long)total);
        for (int k = 0; k < KD_VIOLATION_NUM_KINDS && total; k++) {
            for (int e = 0; e < rep.num_examples[k] && e < 3; e++) {
                char text[512];
                kd_verify_describe(&rep.examples[k][e], text, sizeof text);
                fprintf(stderr, "  %s: %s\n", label, text);
            }
        }
    }

    kd_trace_scene scene;
    st = kd_trace_scene_init(&scene, tree, tri_verts, mesh->num_triangles, &err);
    CHECK_MSG(st == KD_OK, "%s: trace scene: %s", label, err.message);
    kd_ray *rays = st == KD_OK ? make_rays(tree, num_rays) : NULL;
    if (rays) {
        kd_ray_report rr;
        st = kd_verify_rays(&scene, rays, num_rays, KD_VERIFY_DEFAULT_TOLERANCE, 0, NULL, NULL,
                            NULL, NULL, &rr, &err);
        CHECK_MSG(st == KD_OK, "%s: ray check: %s", label, err.message);
        if (st == KD_OK) {
            CHECK_MSG(rr.num_mismatches == 0, "%s: %llu of %llu rays disagree with brute force",
                      label, (unsigned long long)rr.num_mismatches,
                      (unsigned long long)rr.num_rays);
            for (int e = 0; e < rr.num_examples && e < 3; e++)
                fprintf(stderr, "  %s: ray %u: tree tri %u t %g, brute force tri %u t %g\n", label,
                        rr.examples[e].ray, rr.examples[e].tree_tri, rr.examples[e].tree_t,
                        rr.examples[e].ref_tri, rr.examples[e].ref_t);
        }
        free(rays);
    }
    free(tri_verts);
}

bool gb_trees_equal(const kd_tree *a, const kd_tree *b)
{
    if (a->num_nodes != b->num_nodes || a->num_leaf_indices != b->num_leaf_indices ||
        a->num_triangles != b->num_triangles || a->max_depth != b->max_depth ||
        memcmp(&a->bounds, &b->bounds, sizeof a->bounds) != 0)
        return false;
    if (a->num_nodes && memcmp(a->nodes, b->nodes, a->num_nodes * sizeof(kd_node)) != 0)
        return false;
    return a->num_leaf_indices == 0 ||
           memcmp(a->leaf_indices, b->leaf_indices, a->num_leaf_indices * sizeof(uint32_t)) == 0;
}

double gb_sah_cost(const kd_tree *tree)
{
    kd_sah_constants c;
    kd_sah_constants_default(&c);
    kd_tree_stats stats;
    kd_tree_compute_stats(tree, &c, &stats);
    return stats.sah_cost;
}

void gb_check_non_finite(gb_build_fn build, const char *who)
{
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        for (uint32_t n = 3; n <= 300; n += 297) { /* the small stage from the root, then the large */
            kd_mesh mesh;
            gb_make_scene(&mesh, GB_SCENE_SOUP, n, 7);
            /* Two such vertices: the higher is named, whichever thread
             * finds its fault first. */
            uint32_t victim = mesh.num_vertices / 2, other = mesh.num_vertices / 3;
            mesh.positions[3 * victim + (uint32_t)k] = bad[k];
            mesh.positions[3 * other + 2] = bad[k];
            kd_gpu_build_options o;
            gb_options(&o, KD_LARGE_SPLIT_SAH);
            kd_tree t;
            kd_error err;
            kd_error_clear(&err);
            char want[64];
            snprintf(want, sizeof want, "vertex %u ", victim);
            kd_status st = build(&mesh, &o, &t, NULL, &err);
            CHECK_MSG(st == KD_ERR_INVALID && strstr(err.message, want) && strstr(err.message, "not finite"),
                      "%s, %u triangles, bad coordinate %d: status %d, '%s'", who, n, k, (int)st, err.message);
            if (st == KD_OK)
                kd_tree_free(&t);
            mesh.positions[3 * victim + (uint32_t)k] = 1.0f;
            mesh.positions[3 * other + 2] = 0.5f;
            st = build(&mesh, &o, &t, NULL, &err);
            CHECK_MSG(st == KD_OK, "%s, %u triangles, mended: %s", who, n, err.message);
            if (st == KD_OK)
                kd_tree_free(&t);
            kd_mesh_free(&mesh);
        }
    }
}
