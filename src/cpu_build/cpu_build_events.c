/* Split events: storage, sorting, and the root node's events (sorted once;
 * every later node keeps them sorted by splitting and merging). */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_build_internal.h"
#include "kd_parallel.h"

double kd_build_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

kd_status kd_event_lists_alloc(kd_event_lists *lists, const uint32_t count[3], kd_error *err)
{
    size_t total = (size_t)count[0] + count[1] + count[2];
    lists->block = malloc((total ? total : 1) * sizeof(kd_event));
    if (!lists->block)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu split events", total);
    size_t offset = 0;
    for (int a = 0; a < 3; a++) {
        lists->ev[a] = lists->block + offset;
        lists->count[a] = count[a];
        offset += count[a];
    }
    return KD_OK;
}

void kd_event_lists_free(kd_event_lists *lists)
{
    free(lists->block);
    lists->block = NULL;
    for (int a = 0; a < 3; a++) {
        lists->ev[a] = NULL;
        lists->count[a] = 0;
    }
}

/* ---- Sorting ---------------------------------------------------------------- */

enum { RADIX_BITS = 11, RADIX_BUCKETS = 1 << RADIX_BITS, RADIX_DIGITS = 6 };

/* LSD radix sort on bits [first_bit, 64), stable. One counting pass builds
 * every digit's histogram; a digit that puts every key in one bucket is skipped. */
static void radix_sort(kd_event *a, kd_event *tmp, size_t n, int first_bit)
{
    int first_digit = first_bit / RADIX_BITS;
    static _Thread_local size_t hist[RADIX_DIGITS][RADIX_BUCKETS];
    for (int d = first_digit; d < RADIX_DIGITS; d++)
        for (int b = 0; b < RADIX_BUCKETS; b++)
            hist[d][b] = 0;
    for (size_t i = 0; i < n; i++)
        for (int d = first_digit; d < RADIX_DIGITS; d++)
            hist[d][(a[i] >> (d * RADIX_BITS)) & (RADIX_BUCKETS - 1)]++;

    kd_event *src = a, *dst = tmp;
    for (int d = first_digit; d < RADIX_DIGITS; d++) {
        size_t *h = hist[d];
        int shift = d * RADIX_BITS;
        if (h[(src[0] >> shift) & (RADIX_BUCKETS - 1)] == n)
            continue;
        size_t sum = 0;
        for (int b = 0; b < RADIX_BUCKETS; b++) {
            size_t c = h[b];
            h[b] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[h[(src[i] >> shift) & (RADIX_BUCKETS - 1)]++] = src[i];
        kd_event *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        for (size_t i = 0; i < n; i++)
            a[i] = src[i];
}

static void insertion_sort(kd_event *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        kd_event x = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > x; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

void kd_events_sort(kd_event *events, kd_event *tmp, size_t n)
{
    if (n < 64)
        insertion_sort(events, n);
    else
        radix_sort(events, tmp, n, 0);
}

/* ---- Root events -------------------------------------------------------------- */

typedef struct root_job {
    const kd_mesh *mesh;
    kd_aabb *tri_bounds;
    kd_event_lists *lists;
    kd_event *tmp[3];
} root_job;

/* Generates one axis's events in (type, triangle) order, so that a stable
 * sort on the position bits alone gives the full (position, type, triangle) order. */
static void root_axis(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    root_job *job = ctx;
    uint32_t n = job->mesh->num_triangles;
    for (size_t axis = begin; axis < end; axis++) {
        kd_event *ev = job->lists->ev[axis];
        size_t k = 0;
        for (uint32_t t = 0; t < n; t++) {
            const kd_aabb *b = &job->tri_bounds[t];
            if (b->lo[axis] != b->hi[axis])
                ev[k++] = kd_event_make(b->hi[axis], KD_EVENT_END, t);
        }
        for (uint32_t t = 0; t < n; t++) {
            const kd_aabb *b = &job->tri_bounds[t];
            if (b->lo[axis] == b->hi[axis])
                ev[k++] = kd_event_make(b->lo[axis], KD_EVENT_PLANAR, t);
        }
        for (uint32_t t = 0; t < n; t++) {
            const kd_aabb *b = &job->tri_bounds[t];
            if (b->lo[axis] != b->hi[axis])
                ev[k++] = kd_event_make(b->lo[axis], KD_EVENT_START, t);
        }
        radix_sort(ev, job->tmp[axis], k, 32);
    }
}

kd_status kd_root_events(const kd_mesh *mesh, kd_aabb *root_box, kd_event_lists *lists,
                         int num_threads, double *ms_events, double *ms_sort, kd_error *err)
{
    double t0 = kd_build_now_ms();
    uint32_t n = mesh->num_triangles;
    if (n > KD_EVENT_TRI_MASK)
        return kd_error_set(err, KD_ERR_INVALID, "%u triangles: the builder handles at most %u", n,
                            KD_EVENT_TRI_MASK);
    kd_aabb *tri_bounds = malloc((n ? n : 1) * sizeof *tri_bounds);
    if (!tri_bounds)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %u triangle bounds", n);

    /* Triangle bounds, the root box, and the event counts per axis. */
    uint32_t count[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        root_box->lo[a] = INFINITY;
        root_box->hi[a] = -INFINITY;
    }
    for (uint32_t t = 0; t < n; t++) {
        float v[3][3];
        for (int i = 0; i < 3; i++) {
            uint32_t vi = mesh->indices[3ull * t + i];
            if (vi >= mesh->num_vertices) {
                free(tri_bounds);
                return kd_error_set(err, KD_ERR_INVALID,
                                    "triangle %u: vertex index %u out of range (%u vertices)", t,
                                    vi, mesh->num_vertices);
            }
        }
        kd_mesh_triangle(mesh, t, v);
        kd_aabb *b = &tri_bounds[t];
        for (int a = 0; a < 3; a++) {
            if (!isfinite(v[0][a]) || !isfinite(v[1][a]) || !isfinite(v[2][a])) {
                free(tri_bounds);
                return kd_error_set(err, KD_ERR_INVALID, "triangle %u: non-finite coordinate", t);
            }
            b->lo[a] = fminf(v[0][a], fminf(v[1][a], v[2][a])) + 0.0f;
            b->hi[a] = fmaxf(v[0][a], fmaxf(v[1][a], v[2][a])) + 0.0f;
            count[a] += b->lo[a] == b->hi[a] ? 1u : 2u;
            root_box->lo[a] = fminf(root_box->lo[a], b->lo[a]);
            root_box->hi[a] = fmaxf(root_box->hi[a], b->hi[a]);
        }
    }
    if (n == 0)
        for (int a = 0; a < 3; a++)
            root_box->lo[a] = root_box->hi[a] = 0.0f;

    kd_status st = kd_event_lists_alloc(lists, count, err);
    kd_event *tmp = st == KD_OK ? malloc(((size_t)count[0] + count[1] + count[2] + 1) *
                                         sizeof(kd_event))
                                : NULL;
    if (st == KD_OK && !tmp) {
        kd_event_lists_free(lists);
        st = kd_error_set(err, KD_ERR_NOMEM, "out of memory for sorting split events");
    }
    if (st != KD_OK) {
        free(tri_bounds);
        return st;
    }
    lists->num_tris = n;
    double t1 = kd_build_now_ms();

    root_job job = {mesh, tri_bounds, lists, {tmp, tmp + count[0], tmp + count[0] + count[1]}};
    kd_parallel_for(3, 1, num_threads, root_axis, &job);
    free(tmp);
    free(tri_bounds);
    double t2 = kd_build_now_ms();
    if (ms_events)
        *ms_events = t1 - t0;
    if (ms_sort)
        *ms_sort = t2 - t1;
    return KD_OK;
}
