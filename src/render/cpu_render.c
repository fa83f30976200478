/* CPU ray caster: square tiles of the image handed out to all cores in chunks. */
#include "cpu_render.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "colormap.h"
#include "kd_parallel.h"
#include "tree_io.h"

double kd_render_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

kd_status kd_trace_gather_vertices(const kd_mesh *mesh, float **tri_verts, kd_error *err)
{
    *tri_verts = NULL;
    size_t n = mesh->num_triangles;
    float *v = malloc((n ? n : 1) * 9 * sizeof *v);
    if (!v)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu triangles' vertices", n);
    for (size_t t = 0; t < n; t++)
        for (int c = 0; c < 3; c++) {
            uint32_t vi = mesh->indices[3 * t + c];
            if (vi >= mesh->num_vertices) {
                free(v);
                return kd_error_set(err, KD_ERR_INVALID, "triangle %zu names vertex %u of %u", t,
                                    vi, mesh->num_vertices);
            }
            memcpy(v + 9 * t + 3 * c, mesh->positions + 3 * (size_t)vi, 3 * sizeof *v);
        }
    *tri_verts = v;
    return KD_OK;
}

kd_status kd_trace_scene_init(kd_trace_scene *scene, const kd_tree *tree, const float *tri_verts,
                              uint32_t num_triangles, kd_error *err)
{
    memset(scene, 0, sizeof *scene);
    if (tree->num_triangles != num_triangles)
        return kd_error_set(err, KD_ERR_INVALID,
                            "the tree was built over %u triangles but the scene has %u",
                            tree->num_triangles, num_triangles);
    /* Preorder, ranges, indices and a depth within the cap (at most
     * KD_TREE_DEPTH_LIMIT, which the traversal stack is sized for). */
    kd_status st = kd_tree_check_structure(tree, err);
    if (st)
        return st;
    scene->nodes = tree->nodes;
    scene->leaf_indices = tree->leaf_indices;
    scene->tri_verts = tri_verts;
    scene->num_nodes = tree->num_nodes;
    scene->num_triangles = num_triangles;
    scene->bounds = tree->bounds;
    return KD_OK;
}

kd_status kd_render_buffers_alloc(kd_render_buffers *buf, int width, int height, kd_error *err)
{
    memset(buf, 0, sizeof *buf);
    size_t n = (size_t)width * (size_t)height;
    buf->width = width;
    buf->height = height;
    buf->depth = malloc(n * sizeof *buf->depth);
    buf->shade = malloc(n * sizeof *buf->shade);
    buf->steps = malloc(n * sizeof *buf->steps);
    buf->tests = malloc(n * sizeof *buf->tests);
    buf->tri = malloc(n * sizeof *buf->tri);
    if (!buf->depth || !buf->shade || !buf->steps || !buf->tests || !buf->tri) {
        kd_render_buffers_free(buf);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a %dx%d image", width, height);
    }
    return KD_OK;
}

void kd_render_buffers_free(kd_render_buffers *buf)
{
    free(buf->depth);
    free(buf->shade);
    free(buf->steps);
    free(buf->tests);
    free(buf->tri);
    memset(buf, 0, sizeof *buf);
}

float kd_trace_shade(const float *tri_verts, uint32_t tri, const float dir[3])
{
    const float *v = tri_verts + 9 * (size_t)tri;
    float e1[3], e2[3];
    for (int a = 0; a < 3; a++) {
        e1[a] = v[3 + a] - v[a];
        e2[a] = v[6 + a] - v[a];
    }
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 0.0f))
        return 0.0f;
    float c = fabsf(n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]) / len;
    return c > 1.0f ? 1.0f : c;
}

/* Work is handed out in square tiles: neighbouring rays visit the same
 * nodes and triangles, so a tile keeps them in cache. */
enum { KD_RENDER_TILE = 16, KD_RENDER_CHUNK_TILES = 2 };

typedef struct render_job {
    const kd_trace_scene *scene;
    const kd_camera *cam;
    kd_render_buffers *buf;
    const kd_render_options *options;
    int tiles_x;
    size_t num_tiles;
    atomic_size_t tiles_done;
    atomic_uint_fast64_t hits, steps, tests;
    atomic_int overflow;
} render_job;

static void render_tiles(void *ctx, size_t begin, size_t end, int worker)
{
    render_job *job = ctx;
    const kd_camera *cam = job->cam;
    kd_render_buffers *buf = job->buf;
    uint64_t hits = 0, steps = 0, tests = 0;
    int overflow = 0;
    for (size_t tile = begin; tile < end; tile++) {
        int x0 = (int)(tile % (size_t)job->tiles_x) * KD_RENDER_TILE;
        int y0 = (int)(tile / (size_t)job->tiles_x) * KD_RENDER_TILE;
        int x1 = x0 + KD_RENDER_TILE < cam->width ? x0 + KD_RENDER_TILE : cam->width;
        int y1 = y0 + KD_RENDER_TILE < cam->height ? y0 + KD_RENDER_TILE : cam->height;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++) {
                size_t p = (size_t)y * (size_t)cam->width + (size_t)x;
                kd_ray ray = kd_camera_ray(cam, x, y);
                kd_trace_hit hit;
                kd_trace_counters counters = {0, 0, 0};
                kd_trace_closest(job->scene, &ray, &hit, &counters);
                steps += counters.steps;
                tests += counters.tests;
                overflow |= (int)counters.overflow;
                buf->steps[p] = (float)counters.steps;
                buf->tests[p] = (float)counters.tests;
                buf->tri[p] = hit.tri;
                if (hit.tri != KD_TRACE_NO_HIT) {
                    hits++;
                    buf->depth[p] = hit.t;
                    buf->shade[p] = kd_trace_shade(job->scene->tri_verts, hit.tri, ray.dir);
                } else {
                    buf->depth[p] = INFINITY;
                    buf->shade[p] = KD_SHADE_MISS;
                }
            }
    }
    atomic_fetch_add(&job->hits, hits);
    atomic_fetch_add(&job->steps, steps);
    atomic_fetch_add(&job->tests, tests);
    if (overflow)
        atomic_store(&job->overflow, 1);
    size_t done = atomic_fetch_add(&job->tiles_done, end - begin) + (end - begin);
    if (worker == 0 && job->options && job->options->progress)
        job->options->progress(job->options->progress_ctx, done, job->num_tiles);
}

kd_status kd_render_cpu(const kd_trace_scene *scene, const kd_camera *cam,
                        const kd_render_options *options, kd_render_buffers *buf,
                        kd_render_stats *stats, kd_error *err)
{
    if (buf->width != cam->width || buf->height != cam->height)
        return kd_error_set(err, KD_ERR_INVALID, "buffers of %dx%d for a %dx%d camera", buf->width,
                            buf->height, cam->width, cam->height);
    render_job job = {.scene = scene, .cam = cam, .buf = buf, .options = options};
    job.tiles_x = (cam->width + KD_RENDER_TILE - 1) / KD_RENDER_TILE;
    job.num_tiles = (size_t)job.tiles_x * (size_t)((cam->height + KD_RENDER_TILE - 1) / KD_RENDER_TILE);
    atomic_init(&job.tiles_done, 0);
    atomic_init(&job.hits, 0);
    atomic_init(&job.steps, 0);
    atomic_init(&job.tests, 0);
    atomic_init(&job.overflow, 0);
    double start = kd_render_now();
    kd_parallel_for(job.num_tiles, KD_RENDER_CHUNK_TILES, options ? options->num_threads : 0,
                    render_tiles, &job);
    double seconds = kd_render_now() - start;
    if (stats) {
        stats->num_rays = (uint64_t)cam->width * (uint64_t)cam->height;
        stats->num_hits = atomic_load(&job.hits);
        stats->total_steps = atomic_load(&job.steps);
        stats->total_tests = atomic_load(&job.tests);
        stats->seconds = seconds;
        stats->rays_per_second = seconds > 0.0 ? (double)stats->num_rays / seconds : 0.0;
    }
    if (atomic_load(&job.overflow))
        return kd_error_set(err, KD_ERR_INVALID, "a traversal overflowed its %d-entry stack",
                            KD_TRACE_STACK_SIZE);
    return KD_OK;
}
