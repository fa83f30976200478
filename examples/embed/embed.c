/* embed: scankd inside another program, through its public API only.
 *
 * Hands an array of triangles (a small terrain with a box on it) to the
 * library, builds a kd-tree (on the GPU when one is present, else on the
 * CPU), casts a few rays on the CPU and, with a GPU, on the GPU too, and
 * checks every hit against a brute-force loop written here. Exits 0 when
 * all agree, 1 on a mismatch or an error.
 *
 *   embed [auto|cpu|gpu]      the device that builds the tree (default auto)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scankd/scankd.h>

enum { GRID = 8 };                                         /* terrain cells per side */
enum { TERRAIN_VERTS = (GRID + 1) * (GRID + 1), TERRAIN_TRIS = 2 * GRID * GRID };
enum { NUM_VERTS = TERRAIN_VERTS + 8, NUM_TRIS = TERRAIN_TRIS + 12 + 1 };
enum { NUM_RAYS = 96 };

/* A rolling height field over [0, GRID]^2 (y up), a box standing on it, and
 * one triangle of zero area, which the library drops. */
static void make_scene(float *pos, uint32_t *idx)
{
    uint32_t *t = idx;
    for (int z = 0; z <= GRID; z++)
        for (int x = 0; x <= GRID; x++) {
            float *p = pos + 3 * (z * (GRID + 1) + x);
            p[0] = (float)x, p[1] = 0.5f * sinf(0.9f * x) * cosf(0.7f * z), p[2] = (float)z;
        }
    for (int z = 0; z < GRID; z++)
        for (int x = 0; x < GRID; x++) {
            uint32_t a = z * (GRID + 1) + x, b = a + 1, c = a + GRID + 1, d = c + 1;
            uint32_t quad[6] = {a, b, d, a, d, c};
            memcpy(t, quad, sizeof quad), t += 6;
        }
    /* The box: [3, 5] x [1, 3] x [3, 5], its corners numbered by bits x, y, z. */
    for (int k = 0; k < 8; k++) {
        float *p = pos + 3 * (TERRAIN_VERTS + k);
        p[0] = k & 1 ? 5.0f : 3.0f, p[1] = k & 2 ? 3.0f : 1.0f, p[2] = k & 4 ? 5.0f : 3.0f;
    }
    static const uint32_t faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1},
                                         {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int f = 0; f < 6; f++) {
        const uint32_t *q = faces[f];
        uint32_t two[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        for (int i = 0; i < 6; i++)
            *t++ = TERRAIN_VERTS + two[i];
    }
    t[0] = 0, t[1] = 1, t[2] = 1; /* a vertex twice: zero area */
}

/* Rays from a camera above the scene looking down at it, and a few that look
 * up at the sky and miss. */
static void make_rays(scankd_ray *rays)
{
    for (int i = 0; i < NUM_RAYS; i++) {
        scankd_ray *r = &rays[i];
        float u = (float)(i % 12) / 11.0f, v = (float)(i / 12) / 7.0f;
        r->org[0] = 4.0f, r->org[1] = 10.0f, r->org[2] = -3.0f;
        r->dir[0] = -3.6f + 7.2f * u;
        r->dir[1] = i % 16 == 15 ? 1.0f : -10.0f;
        r->dir[2] = 4.0f + 9.0f * v;
        r->t_max = INFINITY;
    }
}

/* Closest hit by brute force (Moller-Trumbore in double): the triangle's t,
 * or INFINITY for a miss. */
static double brute_force(const float *pos, const uint32_t *idx, uint32_t num_tris,
                          const scankd_ray *r)
{
    double best = INFINITY;
    for (uint32_t t = 0; t < num_tris; t++) {
        const float *a = pos + 3 * idx[3 * t], *b = pos + 3 * idx[3 * t + 1], *c = pos + 3 * idx[3 * t + 2];
        double e1[3], e2[3], s[3], p[3], q[3];
        for (int k = 0; k < 3; k++)
            e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = r->org[k] - a[k];
        p[0] = r->dir[1] * e2[2] - r->dir[2] * e2[1];
        p[1] = r->dir[2] * e2[0] - r->dir[0] * e2[2];
        p[2] = r->dir[0] * e2[1] - r->dir[1] * e2[0];
        double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        if (det == 0.0)
            continue;
        double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
        q[0] = s[1] * e1[2] - s[2] * e1[1], q[1] = s[2] * e1[0] - s[0] * e1[2],
        q[2] = s[0] * e1[1] - s[1] * e1[0];
        double v = (r->dir[0] * q[0] + r->dir[1] * q[1] + r->dir[2] * q[2]) / det;
        double dist = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && dist > 0.0 && dist < best && dist < r->t_max)
            best = dist;
    }
    return best;
}

/* Hits agree with brute force: the same rays hit, at the same distance up
 * to float rounding (where two triangles meet, either may be reported). */
static int check_hits(const char *where, const float *pos, const uint32_t *idx,
                      const scankd_ray *rays, const scankd_hit *hits)
{
    int bad = 0, hit = 0;
    for (int i = 0; i < NUM_RAYS; i++) {
        double want = brute_force(pos, idx, NUM_TRIS, &rays[i]);
        int missed = hits[i].tri == SCANKD_NO_HIT;
        hit += !missed;
        if (missed != isinf(want) || (!missed && fabs(hits[i].t - want) > 1e-5 * want)) {
            fprintf(stderr, "embed: %s: ray %d: triangle %u at t %.7g, brute force t %.7g\n",
                    where, i, hits[i].tri, (double)hits[i].t, want);
            bad++;
        }
    }
    printf("%s: %d rays, %d hits, %d disagree with brute force\n", where, NUM_RAYS, hit, bad);
    return bad;
}

static int fail(const char *what, const kd_error *err)
{
    fprintf(stderr, "embed: %s: %s: %s\n", what, kd_status_name(err->status), err->message);
    return 1;
}

/* Traces the rays on the GPU and checks them against brute force and
 * against the CPU's hits, which must be the same bit for bit. */
static int trace_gpu(scankd_scene *scene, const float *pos, const uint32_t *idx,
                     const scankd_ray *rays, const scankd_hit *cpu_hits)
{
    scankd_hit hits[NUM_RAYS];
    kd_error err;
    if (scankd_trace_gpu(scene, rays, NUM_RAYS, hits, &err) != KD_OK)
        return fail("tracing on the GPU", &err);
    int bad = check_hits("GPU rays", pos, idx, rays, hits);
    if (memcmp(hits, cpu_hits, sizeof hits) != 0) {
        fprintf(stderr, "embed: the GPU's hits differ from the CPU's\n");
        bad++;
    }
    return bad != 0;
}

static int parse_device(int argc, char **argv, scankd_device *device)
{
    *device = SCANKD_DEVICE_AUTO;
    if (argc < 2 || strcmp(argv[1], "auto") == 0)
        return 0;
    if (strcmp(argv[1], "cpu") == 0 || strcmp(argv[1], "gpu") == 0) {
        *device = argv[1][0] == 'c' ? SCANKD_DEVICE_CPU : SCANKD_DEVICE_GPU;
        return 0;
    }
    fprintf(stderr, "usage: embed [auto|cpu|gpu]\n");
    return 1;
}

int main(int argc, char **argv)
{
    static float pos[3 * NUM_VERTS];
    static uint32_t idx[3 * NUM_TRIS];
    scankd_ray rays[NUM_RAYS];
    scankd_hit hits[NUM_RAYS];
    scankd_build_options opts;
    scankd_build_options_default(&opts);
    if (parse_device(argc, argv, &opts.device))
        return 2;
    make_scene(pos, idx);
    make_rays(rays);

    kd_error err;
    kd_mesh mesh;
    if (scankd_mesh_from_arrays(pos, NUM_VERTS, idx, NUM_TRIS, &mesh, &err) != KD_OK)
        return fail("making the mesh", &err);
    printf("mesh: %u triangles kept, %llu dropped\n", mesh.num_triangles,
           (unsigned long long)(mesh.num_dropped_zero_area + mesh.num_dropped_nonfinite));
    scankd_scene *scene;
    kd_status st = scankd_build(&mesh, &opts, &scene, &err);
    kd_mesh_free(&mesh); /* the scene keeps its own copy of the triangles */
    if (st != KD_OK)
        return fail("building the tree", &err);

    scankd_stats stats;
    if (scankd_scene_stats(scene, &stats, &err) != KD_OK)
        return fail("reading the statistics", &err);
    printf("tree: built on the %s in %.2f ms, %u nodes, %u leaves, SAH cost %.2f\n",
           scankd_device_name(stats.built_on), stats.build_ms, stats.num_nodes, stats.num_leaves,
           stats.sah_cost);

    int rc = 0;
    if (scankd_trace_cpu(scene, rays, NUM_RAYS, hits, &err) != KD_OK)
        rc = fail("tracing on the CPU", &err);
    else
        rc = check_hits("CPU rays", pos, idx, rays, hits) != 0;
    if (rc == 0 && scankd_device_count() > 0)
        rc = trace_gpu(scene, pos, idx, rays, hits);
    else if (rc == 0)
        printf("GPU rays: no CUDA device, skipped\n");
    scankd_scene_destroy(scene);
    printf("embed: %s\n", rc == 0 ? "all hits agree" : "FAILED");
    return rc;
}
