/* CPU ray caster: square tiles of the image handed out to all cores in chunks. */
#include "cpu_render.h"

#include <math.h>
#include <stdbool.h>
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
    buf->bounce_tri = malloc(n * sizeof *buf->bounce_tri);
    buf->bounce_t = malloc(n * sizeof *buf->bounce_t);
    if (!buf->depth || !buf->shade || !buf->steps || !buf->tests || !buf->tri || !buf->bounce_tri ||
        !buf->bounce_t) {
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
    free(buf->bounce_tri);
    free(buf->bounce_t);
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

kd_status kd_bounce_rays_make(const float *tri_verts, const kd_ray *rays, const kd_trace_hit *hits,
                              const uint32_t *pixel, size_t n, uint32_t seed, kd_ray **bounces,
                              uint32_t **from, size_t *count, kd_error *err)
{
    *count = 0;
    *bounces = malloc((n ? n : 1) * sizeof **bounces);
    *from = malloc((n ? n : 1) * sizeof **from);
    if (!*bounces || !*from) {
        free(*bounces);
        free(*from);
        *bounces = NULL;
        *from = NULL;
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu bounce rays", n);
    }
    for (size_t i = 0; i < n; i++) {
        if (hits[i].tri == KD_TRACE_NO_HIT)
            continue;
        const uint64_t p = pixel ? pixel[i] : i;
        if (kd_bounce_ray(tri_verts + 9 * (size_t)hits[i].tri, rays[i].dir, &hits[i], seed, p,
                          &(*bounces)[*count]))
            (*from)[(*count)++] = (uint32_t)i;
    }
    return KD_OK;
}

/* Work is handed out in square tiles: neighbouring rays visit the same
 * nodes and triangles, so a tile keeps them in cache. */
enum { KD_RENDER_TILE = 16, KD_RENDER_CHUNK_TILES = 2 };

typedef struct render_job {
    const kd_trace_scene *scene;
    const kd_camera *cam;
    kd_render_buffers *buf;
    const kd_render_options *options;
    kd_trace_hit *hits;      /* the primary hits, kept for the bounce pass (diffuse only) */
    int bounce;              /* this pass casts the bounce rays */
    int tiles_x;
    size_t num_tiles;
    size_t progress_base;    /* tiles of the passes before this one */
    atomic_size_t tiles_done;
    atomic_uint_fast64_t rays, hits_count, steps, tests;
    atomic_int overflow;
} render_job;

/* What a tile's rays add up to. */
typedef struct tile_totals {
    uint64_t rays, hits, steps, tests;
    int overflow;
} tile_totals;

static void record_counters(kd_render_buffers *buf, size_t p, const kd_trace_counters *c, tile_totals *sum)
{
    sum->steps += c->steps;
    sum->tests += c->tests;
    sum->overflow |= (int)c->overflow;
    buf->steps[p] = (float)c->steps;
    buf->tests[p] = (float)c->tests;
}

static void primary_pixel(render_job *job, int x, int y, size_t p, tile_totals *sum)
{
    kd_render_buffers *buf = job->buf;
    kd_ray ray = kd_camera_ray(job->cam, x, y);
    kd_trace_hit hit;
    kd_trace_counters counters = {0, 0, 0};
    kd_trace_closest(job->scene, &ray, &hit, &counters);
    record_counters(buf, p, &counters, sum);
    sum->rays++;
    buf->tri[p] = hit.tri;
    buf->bounce_tri[p] = KD_TRACE_NO_HIT;
    buf->bounce_t[p] = INFINITY;
    if (job->hits)
        job->hits[p] = hit;
    if (hit.tri != KD_TRACE_NO_HIT) {
        sum->hits++;
        buf->depth[p] = hit.t;
        buf->shade[p] = kd_trace_shade(job->scene->tri_verts, hit.tri, ray.dir);
    } else {
        buf->depth[p] = INFINITY;
        buf->shade[p] = KD_SHADE_MISS;
    }
}

/* The bounce of pixel p's primary hit, when it has one. */
static void bounce_pixel(render_job *job, int x, int y, size_t p, tile_totals *sum)
{
    kd_render_buffers *buf = job->buf;
    const kd_trace_hit *primary = &job->hits[p];
    kd_ray ray;
    buf->steps[p] = 0.0f;
    buf->tests[p] = 0.0f;
    if (primary->tri == KD_TRACE_NO_HIT)
        return;
    const kd_ray camera_ray = kd_camera_ray(job->cam, x, y);
    if (!kd_bounce_ray(job->scene->tri_verts + 9 * (size_t)primary->tri, camera_ray.dir, primary,
                       job->options->seed, p, &ray))
        return;
    kd_trace_hit hit;
    kd_trace_counters counters = {0, 0, 0};
    kd_trace_closest(job->scene, &ray, &hit, &counters);
    record_counters(buf, p, &counters, sum);
    sum->rays++;
    sum->hits += hit.tri != KD_TRACE_NO_HIT;
    buf->bounce_tri[p] = hit.tri;
    buf->bounce_t[p] = hit.tri != KD_TRACE_NO_HIT ? hit.t : INFINITY;
}

static void render_tiles(void *ctx, size_t begin, size_t end, int worker)
{
    render_job *job = ctx;
    const kd_camera *cam = job->cam;
    tile_totals sum = {0, 0, 0, 0, 0};
    for (size_t tile = begin; tile < end; tile++) {
        int x0 = (int)(tile % (size_t)job->tiles_x) * KD_RENDER_TILE;
        int y0 = (int)(tile / (size_t)job->tiles_x) * KD_RENDER_TILE;
        int x1 = x0 + KD_RENDER_TILE < cam->width ? x0 + KD_RENDER_TILE : cam->width;
        int y1 = y0 + KD_RENDER_TILE < cam->height ? y0 + KD_RENDER_TILE : cam->height;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++) {
                size_t p = (size_t)y * (size_t)cam->width + (size_t)x;
                if (job->bounce)
                    bounce_pixel(job, x, y, p, &sum);
                else
                    primary_pixel(job, x, y, p, &sum);
            }
    }
    atomic_fetch_add(&job->rays, sum.rays);
    atomic_fetch_add(&job->hits_count, sum.hits);
    atomic_fetch_add(&job->steps, sum.steps);
    atomic_fetch_add(&job->tests, sum.tests);
    if (sum.overflow)
        atomic_store(&job->overflow, 1);
    size_t done = atomic_fetch_add(&job->tiles_done, end - begin) + (end - begin);
    const size_t passes = job->hits ? 2 : 1;
    if (worker == 0 && job->options && job->options->progress)
        job->options->progress(job->options->progress_ctx, job->progress_base + done, passes * job->num_tiles);
}

/* What one pass over every tile cast. */
typedef struct pass_totals {
    uint64_t rays, hits, steps, tests;
    double seconds;          /* wall time */
} pass_totals;

static pass_totals render_pass(render_job *job, int bounce)
{
    job->bounce = bounce;
    job->progress_base = bounce ? job->num_tiles : 0;
    atomic_store(&job->tiles_done, 0);
    atomic_store(&job->rays, 0);
    atomic_store(&job->hits_count, 0);
    atomic_store(&job->steps, 0);
    atomic_store(&job->tests, 0);
    double start = kd_render_now();
    kd_parallel_for(job->num_tiles, KD_RENDER_CHUNK_TILES, job->options ? job->options->num_threads : 0,
                    render_tiles, job);
    return (pass_totals){atomic_load(&job->rays), atomic_load(&job->hits_count), atomic_load(&job->steps),
                         atomic_load(&job->tests), kd_render_now() - start};
}

static double per_second(uint64_t n, double seconds) { return seconds > 0.0 ? (double)n / seconds : 0.0; }

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
    const bool diffuse = options && options->rays == KD_RAYS_DIFFUSE;
    if (diffuse && !(job.hits = malloc((size_t)cam->width * (size_t)cam->height * sizeof *job.hits)))
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a %dx%d image's hits", cam->width,
                            cam->height);
    atomic_init(&job.overflow, 0);
    const pass_totals primary = render_pass(&job, 0);
    const pass_totals bounce = diffuse ? render_pass(&job, 1) : (pass_totals){0, 0, 0, 0, 0.0};
    if (stats)
        *stats = (kd_render_stats){primary.rays, primary.hits, primary.steps, primary.tests, primary.seconds,
                                   per_second(primary.rays, primary.seconds), bounce.rays, bounce.hits,
                                   bounce.steps, bounce.tests, bounce.seconds,
                                   per_second(bounce.rays, bounce.seconds)};
    free(job.hits);
    if (atomic_load(&job.overflow))
        return kd_error_set(err, KD_ERR_INVALID, "a traversal overflowed its %d-entry stack",
                            KD_TRACE_STACK_SIZE);
    return KD_OK;
}
