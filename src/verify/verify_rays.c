/* Ray agreement: the tree's closest hit against the brute-force closest hit. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_render.h"
#include "kd_parallel.h"
#include "verify.h"

/* ---- Brute force ---------------------------------------------------------- */

/* Triangles per block: the edge functions of a block are computed in one
 * vectorisable loop, and only triangles whose edge functions do not rule a
 * hit out go through kd_intersect_triangle itself. The first loop repeats
 * that function's arithmetic exactly (same operations in the same order), so
 * it never rejects a triangle the full test would accept. */
enum { KD_BRUTE_BLOCK = 256 };

kd_status kd_brute_force_init(kd_brute_force *bf, const float *tri_verts, uint32_t num_triangles,
                              kd_error *err)
{
    memset(bf, 0, sizeof *bf);
    size_t n = num_triangles;
    bf->soa = malloc((n ? n : 1) * 9 * sizeof *bf->soa);
    if (!bf->soa)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for the brute-force reference");
    for (size_t t = 0; t < n; t++)
        for (int c = 0; c < 9; c++)
            bf->soa[c * n + t] = tri_verts[9 * t + c];
    bf->num_triangles = num_triangles;
    bf->tri_verts = tri_verts;
    return KD_OK;
}

void kd_brute_force_free(kd_brute_force *bf)
{
    free(bf->soa);
    memset(bf, 0, sizeof *bf);
}

void kd_brute_force_closest(const kd_brute_force *bf, const kd_ray *ray, kd_trace_hit *hit)
{
    kd_hit_init(hit, ray->t_max);
    kd_ray_shear s = kd_ray_shear_make(ray->dir);
    size_t n = bf->num_triangles;
    /* Vertex c's coordinate k is soa[(3 c + k) n + t]. */
    const float *ax_p = bf->soa + (0 + s.kx) * n, *ay_p = bf->soa + (0 + s.ky) * n, *az_p = bf->soa + (0 + s.kz) * n;
    const float *bx_p = bf->soa + (3 + s.kx) * n, *by_p = bf->soa + (3 + s.ky) * n, *bz_p = bf->soa + (3 + s.kz) * n;
    const float *cx_p = bf->soa + (6 + s.kx) * n, *cy_p = bf->soa + (6 + s.ky) * n, *cz_p = bf->soa + (6 + s.kz) * n;
    const float ox = ray->org[s.kx], oy = ray->org[s.ky], oz = ray->org[s.kz];
    const float sx = s.sx, sy = s.sy;
    unsigned char candidate[KD_BRUTE_BLOCK];
    for (size_t base = 0; base < n; base += KD_BRUTE_BLOCK) {
        size_t m = n - base < KD_BRUTE_BLOCK ? n - base : KD_BRUTE_BLOCK;
        int any = 0;
        for (size_t i = 0; i < m; i++) {
            size_t t = base + i;
            float a_kx = ax_p[t] - ox, a_ky = ay_p[t] - oy, a_kz = az_p[t] - oz;
            float b_kx = bx_p[t] - ox, b_ky = by_p[t] - oy, b_kz = bz_p[t] - oz;
            float c_kx = cx_p[t] - ox, c_ky = cy_p[t] - oy, c_kz = cz_p[t] - oz;
            float ax = a_kx - sx * a_kz, ay = a_ky - sy * a_kz;
            float bx = b_kx - sx * b_kz, by = b_ky - sy * b_kz;
            float cx = c_kx - sx * c_kz, cy = c_ky - sy * c_kz;
            float u = cx * by - cy * bx;
            float v = ax * cy - ay * cx;
            float w = bx * ay - by * ax;
            /* Mixed strict signs reject for sure; zeros go to the full test.
             * Bitwise operators keep the loop free of branches (vectorisable). */
            int negative = (u < 0.0f) | (v < 0.0f) | (w < 0.0f);
            int positive = (u > 0.0f) | (v > 0.0f) | (w > 0.0f);
            int keep = (negative & positive) ^ 1;
            candidate[i] = (unsigned char)keep;
            any |= keep;
        }
        if (!any)
            continue;
        for (size_t i = 0; i < m; i++) {
            if (!candidate[i])
                continue;
            uint32_t tri = (uint32_t)(base + i);
            float t, b1, b2;
            if (kd_intersect_triangle(ray->org, &s, bf->tri_verts + 9 * (size_t)tri, &t, &b1, &b2))
                kd_hit_consider(hit, tri, t, b1, b2);
        }
    }
}

/* ---- Agreement ------------------------------------------------------------ */

enum { KD_VERIFY_RAY_CHUNK = 16 };

typedef struct rays_job {
    const kd_trace_scene *scene;
    const kd_brute_force *bf;
    const kd_ray *rays;
    size_t n;
    float tolerance;
    uint8_t *mismatch;
    kd_trace_hit *tree_hits;
    kd_verify_progress_fn progress;
    void *progress_ctx;
    atomic_size_t done;
    atomic_uint_fast64_t ref_hits, same, coincident, mismatches;
    /* Mismatch examples: a slot of KD_VERIFY_MAX_EXAMPLES per chunk of rays,
     * merged in chunk order afterwards, so the first mismatches by ray index win. */
    kd_ray_mismatch *all_examples;
    uint8_t *chunk_example_count;
} rays_job;

static void rays_chunk(void *ctx, size_t begin, size_t end, int worker)
{
    rays_job *job = ctx;
    uint64_t ref_hits = 0, same = 0, coincident = 0, mismatches = 0;
    size_t chunk = begin / KD_VERIFY_RAY_CHUNK;
    kd_ray_mismatch *examples = job->all_examples + chunk * KD_VERIFY_MAX_EXAMPLES;
    int num_examples = 0;
    for (size_t r = begin; r < end; r++) {
        const kd_ray *ray = &job->rays[r];
        kd_trace_hit tree_hit, ref_hit;
        kd_trace_counters counters = {0, 0, 0};
        kd_trace_closest(job->scene, ray, &tree_hit, &counters);
        kd_brute_force_closest(job->bf, ray, &ref_hit);
        if (job->tree_hits)
            job->tree_hits[r] = tree_hit;
        ref_hits += ref_hit.tri != KD_TRACE_NO_HIT;
        bool bad = false;
        if (tree_hit.tri == ref_hit.tri && !counters.overflow) {
            same++;
        } else if (tree_hit.tri != KD_TRACE_NO_HIT && ref_hit.tri != KD_TRACE_NO_HIT &&
                   fabsf(tree_hit.t - ref_hit.t) <=
                       job->tolerance * fmaxf(fabsf(tree_hit.t), fabsf(ref_hit.t)) &&
                   !counters.overflow) {
            coincident++;
        } else {
            mismatches++;
            bad = true;
            if (num_examples < KD_VERIFY_MAX_EXAMPLES)
                examples[num_examples++] = (kd_ray_mismatch){(uint32_t)r, tree_hit.tri, ref_hit.tri,
                                                             tree_hit.t, ref_hit.t};
        }
        if (job->mismatch)
            job->mismatch[r] = bad;
    }
    job->chunk_example_count[chunk] = (uint8_t)num_examples;
    atomic_fetch_add(&job->ref_hits, ref_hits);
    atomic_fetch_add(&job->same, same);
    atomic_fetch_add(&job->coincident, coincident);
    atomic_fetch_add(&job->mismatches, mismatches);
    size_t done = atomic_fetch_add(&job->done, end - begin) + (end - begin);
    if (worker == 0 && job->progress)
        job->progress(job->progress_ctx, done, job->n);
}

kd_status kd_verify_rays(const kd_trace_scene *scene, const kd_ray *rays, size_t n, float tolerance,
                         int num_threads, kd_verify_progress_fn progress, void *progress_ctx,
                         uint8_t *mismatch, kd_trace_hit *tree_hits, kd_ray_report *rep,
                         kd_error *err)
{
    memset(rep, 0, sizeof *rep);
    rep->tolerance = tolerance;
    if ((uint64_t)n > UINT32_MAX) /* a mismatch names its ray in 32 bits */
        return kd_error_set(err, KD_ERR_INVALID, "%zu rays: more than the 2^32 - 1 a ray check can number",
                            n);
    kd_brute_force bf;
    kd_status st = kd_brute_force_init(&bf, scene->tri_verts, scene->num_triangles, err);
    if (st)
        return st;
    size_t num_chunks = (n + KD_VERIFY_RAY_CHUNK - 1) / KD_VERIFY_RAY_CHUNK;
    rays_job job = {.scene = scene, .bf = &bf, .rays = rays, .n = n, .tolerance = tolerance,
                    .mismatch = mismatch, .tree_hits = tree_hits, .progress = progress,
                    .progress_ctx = progress_ctx};
    job.all_examples = malloc((num_chunks ? num_chunks : 1) * KD_VERIFY_MAX_EXAMPLES *
                              sizeof *job.all_examples);
    job.chunk_example_count = calloc(num_chunks ? num_chunks : 1, 1);
    if (!job.all_examples || !job.chunk_example_count) {
        free(job.all_examples);
        free(job.chunk_example_count);
        kd_brute_force_free(&bf);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu rays", n);
    }
    atomic_init(&job.done, 0);
    atomic_init(&job.ref_hits, 0);
    atomic_init(&job.same, 0);
    atomic_init(&job.coincident, 0);
    atomic_init(&job.mismatches, 0);
    double start = kd_render_now();
    kd_parallel_for(n, KD_VERIFY_RAY_CHUNK, num_threads, rays_chunk, &job);
    if (progress) /* the calling thread may have had no chunk: the end is told here */
        progress(progress_ctx, n, n);
    rep->seconds = kd_render_now() - start;
    rep->num_rays = n;
    rep->num_ref_hits = atomic_load(&job.ref_hits);
    rep->num_same = atomic_load(&job.same);
    rep->num_coincident = atomic_load(&job.coincident);
    rep->num_mismatches = atomic_load(&job.mismatches);
    rep->num_triangle_tests = (uint64_t)n * scene->num_triangles;
    /* Chunks are in ray order, so the first examples are the first mismatches. */
    for (size_t c = 0; c < num_chunks && rep->num_examples < KD_VERIFY_MAX_EXAMPLES; c++)
        for (int e = 0; e < job.chunk_example_count[c] && rep->num_examples < KD_VERIFY_MAX_EXAMPLES; e++)
            rep->examples[rep->num_examples++] = job.all_examples[c * KD_VERIFY_MAX_EXAMPLES + e];
    free(job.all_examples);
    free(job.chunk_example_count);
    kd_brute_force_free(&bf);
    return KD_OK;
}
