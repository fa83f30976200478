// The GPU ray caster's device side: a thread per primary ray, through the
// shared traversal (kd_trace_closest) and watertight test of kd_trace.h.
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "cuda_status.h"
#include "gpu_render.h"

struct kd_gpu_scene {
    kd_trace_scene view;   // device pointers
    int owns;              // 1: the arrays below were uploaded and are freed here
    void *d_nodes, *d_leaves, *d_tris;
    // Per-pixel device outputs, grown as needed; the bounce arrays and the
    // primary hits' barycentrics only for diffuse rays.
    uint32_t *d_tri, *d_steps, *d_tests, *d_bounce_tri;
    float *d_t, *d_bounce_t;
    float2 *d_bary;
    unsigned long long *d_totals;
    size_t pixels, bounce_pixels;
    cudaStream_t stream;
    cudaEvent_t ev[3];
};

namespace {

// kd_camera_ray with every operation rounded on its own: nvcc would fuse its
// multiply-adds, the host compiler does not, and the rays must be the CPU's.
__device__ __forceinline__ kd_ray camera_ray(const kd_camera &cam, int x, int y)
{
    float sx = __fsub_rn(__fdiv_rn(__fmul_rn(2.0f, __fadd_rn((float)x, 0.5f)), (float)cam.width), 1.0f);
    float sy = __fsub_rn(1.0f, __fdiv_rn(__fmul_rn(2.0f, __fadd_rn((float)y, 0.5f)), (float)cam.height));
    kd_ray ray;
    float len2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        ray.org[a] = cam.eye[a];
        ray.dir[a] = __fadd_rn(__fadd_rn(cam.forward[a], __fmul_rn(sx, cam.right[a])),
                               __fmul_rn(sy, cam.upward[a]));
        len2 = __fadd_rn(len2, __fmul_rn(ray.dir[a], ray.dir[a]));
    }
    float inv_len = __fdiv_rn(1.0f, __fsqrt_rn(len2));
    for (int a = 0; a < 3; a++)
        ray.dir[a] = __fmul_rn(ray.dir[a], inv_len);
    ray.t_max = INFINITY;
    return ray;
}

enum { TILE = 16, THREADS = TILE * TILE };

// The device totals: for the primary rays, then for the bounces, the rays
// cast, their hits, steps and tests; last, the rays that overflowed.
enum { T_RAYS, T_HITS, T_STEPS, T_TESTS, T_KIND_SLOTS, T_PRIMARY = 0, T_BOUNCE = T_KIND_SLOTS,
       T_OVERFLOW = 2 * T_KIND_SLOTS, T_COUNT };

// A block covers a 16x16 tile; each warp an 8x4 piece of it, so the rays of
// a warp stay close together and walk the same nodes.
__device__ __forceinline__ void tile_pixel(int *x, int *y)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    *x = blockIdx.x * TILE + (warp & 1) * 8 + (lane & 7);
    *y = blockIdx.y * TILE + (warp >> 1) * 4 + (lane >> 3);
}

// Adds a warp's values of v to *slot: one atomic, from lane 0, when the sum
// is not 0 (the overflow slot thus counts the warps that overflowed).
__device__ __forceinline__ void add_warp(unsigned long long *slot, unsigned long long v)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0 && v)
        atomicAdd(slot, v);
}

// What one thread's ray adds to the totals (all zero for no ray).
struct ray_counts {
    unsigned long long rays, hits, steps, tests, overflow;
};

// Writes pixel p's hit (and, with kCounters, its steps and tests) and
// counts the ray.
template <bool kCounters>
__device__ __forceinline__ void write_pixel(size_t p, const kd_trace_hit &hit, const kd_trace_counters &c,
                                            uint32_t *out_tri, float *out_t, uint32_t *out_steps,
                                            uint32_t *out_tests, ray_counts *n)
{
    out_tri[p] = hit.tri;
    out_t[p] = hit.t;
    if (kCounters) {
        out_steps[p] = c.steps;
        out_tests[p] = c.tests;
        n->steps = c.steps;
        n->tests = c.tests;
    }
    n->hits = hit.tri != KD_TRACE_NO_HIT;
    n->overflow = c.overflow;
}

// Adds the warp's counts to the totals of one kind (T_PRIMARY or T_BOUNCE);
// every lane of the warp must take part.
template <bool kCounters>
__device__ __forceinline__ void add_counts(unsigned long long *totals, int kind, const ray_counts &n)
{
    add_warp(&totals[kind + T_RAYS], n.rays);
    add_warp(&totals[kind + T_HITS], n.hits);
    add_warp(&totals[T_OVERFLOW], n.overflow);
    if (kCounters) {
        add_warp(&totals[kind + T_STEPS], n.steps);
        add_warp(&totals[kind + T_TESTS], n.tests);
    }
}

// One primary ray per pixel. kCounters: also write the steps and tests per
// pixel; without, the kernel does the traversal and writes the hit alone
// (plus its barycentrics when out_bary is given, for the bounces).
template <bool kCounters>
__global__ void __launch_bounds__(THREADS)
    primary_kernel(kd_trace_scene scene, kd_camera cam, uint32_t *out_tri, float *out_t, float2 *out_bary,
                   uint32_t *out_steps, uint32_t *out_tests, unsigned long long *totals)
{
    int x, y;
    tile_pixel(&x, &y);
    ray_counts n = {0, 0, 0, 0, 0};
    if (x < cam.width && y < cam.height) {
        kd_ray ray = camera_ray(cam, x, y);
        kd_trace_hit hit;
        kd_trace_counters c = {0, 0, 0};
        kd_trace_closest(&scene, &ray, &hit, &c);
        size_t p = (size_t)y * (size_t)cam.width + (size_t)x;
        write_pixel<kCounters>(p, hit, c, out_tri, out_t, out_steps, out_tests, &n);
        if (out_bary)
            out_bary[p] = make_float2(hit.b1, hit.b2);
        n.rays = 1;
    }
    add_counts<kCounters>(totals, T_PRIMARY, n);
}

// One diffuse bounce per primary hit, the CPU caster's (kd_bounce_ray from
// the same hit, seed and pixel index). A pixel without a bounce ray writes
// no hit and, with kCounters, 0 steps and tests.
template <bool kCounters>
__global__ void __launch_bounds__(THREADS)
    bounce_kernel(kd_trace_scene scene, kd_camera cam, uint32_t seed, const uint32_t *in_tri,
                  const float2 *in_bary, uint32_t *out_tri, float *out_t, uint32_t *out_steps,
                  uint32_t *out_tests, unsigned long long *totals)
{
    int x, y;
    tile_pixel(&x, &y);
    ray_counts n = {0, 0, 0, 0, 0};
    if (x < cam.width && y < cam.height) {
        size_t p = (size_t)y * (size_t)cam.width + (size_t)x;
        kd_trace_hit primary, hit;
        primary.tri = in_tri[p];
        kd_hit_init(&hit, INFINITY);
        kd_trace_counters c = {0, 0, 0};
        kd_ray ray;
        if (primary.tri != KD_TRACE_NO_HIT) {
            float2 bary = in_bary[p];
            primary.b1 = bary.x;
            primary.b2 = bary.y;
            kd_ray cam_ray = camera_ray(cam, x, y);
            if (kd_bounce_ray(scene.tri_verts + 9 * (size_t)primary.tri, cam_ray.dir, &primary, seed, p, &ray)) {
                kd_trace_closest(&scene, &ray, &hit, &c);
                n.rays = 1;
            }
        }
        write_pixel<kCounters>(p, hit, c, out_tri, out_t, out_steps, out_tests, &n);
    }
    add_counts<kCounters>(totals, T_BOUNCE, n);
}

int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

} // namespace

// Builds a scene over device arrays: borrowed, or uploaded from host ones.
extern "C" kd_status kd_gr_scene_make(kd_gpu_scene **out, const kd_trace_scene *src,
                                      uint32_t num_leaf_indices, int upload, kd_error *err)
{
    *out = NULL;
    if (kd_cuda_device_count() == 0)
        return kd_error_set(err, KD_ERR_NO_DEVICE, "GPU render: no CUDA device");
    kd_gpu_scene *s = (kd_gpu_scene *)calloc(1, sizeof *s);
    if (!s)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
    s->view = *src;
    kd_status st = kd_cuda_fail(err, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "GPU render", "cudaStreamCreate");
    for (int i = 0; i < 3 && st == KD_OK; i++)
        st = kd_cuda_fail(err, cudaEventCreate(&s->ev[i]), "GPU render", "cudaEventCreate");
    if (st == KD_OK && upload) {
        s->owns = 1;
        size_t node_bytes = (size_t)src->num_nodes * sizeof(kd_node);
        size_t leaf_bytes = ((size_t)num_leaf_indices + 1) * sizeof(uint32_t);
        size_t tri_bytes = ((size_t)src->num_triangles + 1) * 9 * sizeof(float);
        cudaError_t code = cudaMalloc(&s->d_nodes, node_bytes ? node_bytes : 8);
        if (code == cudaSuccess)
            code = cudaMalloc(&s->d_leaves, leaf_bytes);
        if (code == cudaSuccess)
            code = cudaMalloc(&s->d_tris, tri_bytes);
        if (code == cudaSuccess && node_bytes)
            code = cudaMemcpy(s->d_nodes, src->nodes, node_bytes, cudaMemcpyHostToDevice);
        if (code == cudaSuccess && num_leaf_indices)
            code = cudaMemcpy(s->d_leaves, src->leaf_indices, num_leaf_indices * sizeof(uint32_t),
                              cudaMemcpyHostToDevice);
        if (code == cudaSuccess && src->num_triangles)
            code = cudaMemcpy(s->d_tris, src->tri_verts, (size_t)src->num_triangles * 9 * sizeof(float),
                              cudaMemcpyHostToDevice);
        st = kd_cuda_fail(err, code, "GPU render", "uploading the tree");
        s->view.nodes = (const kd_node *)s->d_nodes;
        s->view.leaf_indices = (const uint32_t *)s->d_leaves;
        s->view.tri_verts = (const float *)s->d_tris;
    }
    if (st != KD_OK) {
        kd_gpu_scene_destroy(s);
        return st;
    }
    *out = s;
    return KD_OK;
}

extern "C" void kd_gpu_scene_destroy(kd_gpu_scene *s)
{
    if (!s)
        return;
    if (s->owns) {
        cudaFree(s->d_nodes);
        cudaFree(s->d_leaves);
        cudaFree(s->d_tris);
    }
    cudaFree(s->d_tri);
    cudaFree(s->d_t);
    cudaFree(s->d_steps);
    cudaFree(s->d_tests);
    cudaFree(s->d_bary);
    cudaFree(s->d_bounce_tri);
    cudaFree(s->d_bounce_t);
    cudaFree(s->d_totals);
    for (int i = 0; i < 3; i++)
        if (s->ev[i])
            cudaEventDestroy(s->ev[i]);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

extern "C" kd_status kd_gpu_scene_trace(kd_gpu_scene *s, kd_trace_scene *view, kd_error *err)
{
    (void)err;
    *view = s->view;
    return KD_OK;
}

static kd_status alloc_fail(cudaError_t code, size_t pixels, kd_error *err)
{
    if (code == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return kd_error_set(err, KD_ERR_DEVICE_OOM, "GPU render: no device memory for %zu pixels", pixels);
    }
    return kd_cuda_fail(err, code, "GPU render", "cudaMalloc");
}

// The per-pixel outputs for pixels (and the bounce arrays with diffuse),
// grown as needed.
static kd_status ensure_pixels(kd_gpu_scene *s, size_t pixels, bool diffuse, kd_error *err)
{
    cudaError_t code = cudaSuccess;
    if (pixels > s->pixels || !s->d_totals) {
        cudaFree(s->d_tri);
        cudaFree(s->d_t);
        cudaFree(s->d_steps);
        cudaFree(s->d_tests);
        s->d_tri = s->d_steps = s->d_tests = NULL;
        s->d_t = NULL;
        s->pixels = 0;
        code = cudaMalloc((void **)&s->d_tri, pixels * 4);
        if (code == cudaSuccess)
            code = cudaMalloc((void **)&s->d_t, pixels * 4);
        if (code == cudaSuccess)
            code = cudaMalloc((void **)&s->d_steps, pixels * 4);
        if (code == cudaSuccess)
            code = cudaMalloc((void **)&s->d_tests, pixels * 4);
        if (code == cudaSuccess && !s->d_totals)
            code = cudaMalloc((void **)&s->d_totals, T_COUNT * sizeof(unsigned long long));
        KD_TRY(alloc_fail(code, pixels, err));
        s->pixels = pixels;
    }
    if (!diffuse || pixels <= s->bounce_pixels)
        return KD_OK;
    cudaFree(s->d_bary);
    cudaFree(s->d_bounce_tri);
    cudaFree(s->d_bounce_t);
    s->d_bary = NULL;
    s->d_bounce_tri = NULL;
    s->d_bounce_t = NULL;
    s->bounce_pixels = 0;
    code = cudaMalloc((void **)&s->d_bary, pixels * sizeof(float2));
    if (code == cudaSuccess)
        code = cudaMalloc((void **)&s->d_bounce_tri, pixels * 4);
    if (code == cudaSuccess)
        code = cudaMalloc((void **)&s->d_bounce_t, pixels * 4);
    KD_TRY(alloc_fail(code, pixels, err));
    s->bounce_pixels = pixels;
    return KD_OK;
}

// Enqueues the kernels of one launch: the primary rays, then the bounces;
// events 0, 1 and 2 around them.
static kd_status enqueue_kernels(kd_gpu_scene *s, const kd_camera *cam, const kd_gpu_render_options *o,
                                 kd_error *err)
{
    dim3 grid((unsigned)((cam->width + TILE - 1) / TILE), (unsigned)((cam->height + TILE - 1) / TILE));
    const bool diffuse = o->rays == KD_RAYS_DIFFUSE;
    float2 *bary = diffuse ? s->d_bary : NULL;
    KD_TRY(kd_cuda_fail(err, cudaEventRecord(s->ev[0], s->stream), "GPU render", "cudaEventRecord"));
    if (o->counters)
        primary_kernel<true><<<grid, THREADS, 0, s->stream>>>(s->view, *cam, s->d_tri, s->d_t, bary, s->d_steps,
                                                              s->d_tests, s->d_totals);
    else
        primary_kernel<false><<<grid, THREADS, 0, s->stream>>>(s->view, *cam, s->d_tri, s->d_t, bary, NULL, NULL,
                                                               s->d_totals);
    KD_TRY(kd_cuda_fail(err, cudaGetLastError(), "GPU render", "primary ray kernel"));
    KD_TRY(kd_cuda_fail(err, cudaEventRecord(s->ev[1], s->stream), "GPU render", "cudaEventRecord"));
    if (diffuse && o->counters)
        bounce_kernel<true><<<grid, THREADS, 0, s->stream>>>(s->view, *cam, o->seed, s->d_tri, s->d_bary,
                                                             s->d_bounce_tri, s->d_bounce_t, s->d_steps,
                                                             s->d_tests, s->d_totals);
    else if (diffuse)
        bounce_kernel<false><<<grid, THREADS, 0, s->stream>>>(s->view, *cam, o->seed, s->d_tri, s->d_bary,
                                                              s->d_bounce_tri, s->d_bounce_t, NULL, NULL,
                                                              s->d_totals);
    KD_TRY(kd_cuda_fail(err, cudaGetLastError(), "GPU render", "bounce ray kernel"));
    return kd_cuda_fail(err, cudaEventRecord(s->ev[2], s->stream), "GPU render", "cudaEventRecord");
}

// Runs the launches, timing each kernel; ms and bounce_ms receive the
// times of the timed ones (repeats each).
static kd_status run_launches(kd_gpu_scene *s, const kd_camera *cam, const kd_gpu_render_options *o,
                              float *ms, float *bounce_ms, kd_error *err)
{
    const int launches = o->repeats + (o->repeats > 1 ? 1 : 0);
    kd_status st = KD_OK;
    for (int i = 0; i < launches && st == KD_OK; i++) {
        st = kd_cuda_fail(err, cudaMemsetAsync(s->d_totals, 0, T_COUNT * sizeof(unsigned long long), s->stream),
                          "GPU render", "cudaMemsetAsync");
        if (st != KD_OK)
            break;
        st = enqueue_kernels(s, cam, o, err);
        if (st == KD_OK)
            st = kd_cuda_fail(err, cudaEventSynchronize(s->ev[2]), "GPU render", "render kernels");
        int timed = i - (launches - o->repeats);
        if (st == KD_OK && timed >= 0)
            st = kd_cuda_fail(err, cudaEventElapsedTime(&ms[timed], s->ev[0], s->ev[1]), "GPU render",
                              "cudaEventElapsedTime");
        if (st == KD_OK && timed >= 0)
            st = kd_cuda_fail(err, cudaEventElapsedTime(&bounce_ms[timed], s->ev[1], s->ev[2]), "GPU render",
                              "cudaEventElapsedTime");
    }
    return st;
}

// Copies the per-pixel results asked for back to the host.
static kd_status read_back(kd_gpu_scene *s, size_t pixels, const kd_gpu_render_options *o,
                           kd_gpu_render_raw *raw, kd_error *err)
{
    cudaError_t code = cudaMemcpy(raw->tri, s->d_tri, pixels * 4, cudaMemcpyDeviceToHost);
    if (code == cudaSuccess)
        code = cudaMemcpy(raw->t, s->d_t, pixels * 4, cudaMemcpyDeviceToHost);
    if (code == cudaSuccess && o->counters)
        code = cudaMemcpy(raw->steps, s->d_steps, pixels * 4, cudaMemcpyDeviceToHost);
    if (code == cudaSuccess && o->counters)
        code = cudaMemcpy(raw->tests, s->d_tests, pixels * 4, cudaMemcpyDeviceToHost);
    if (code == cudaSuccess && !o->counters) {
        memset(raw->steps, 0, pixels * 4);
        memset(raw->tests, 0, pixels * 4);
    }
    if (code == cudaSuccess && o->rays == KD_RAYS_DIFFUSE && raw->bounce_tri)
        code = cudaMemcpy(raw->bounce_tri, s->d_bounce_tri, pixels * 4, cudaMemcpyDeviceToHost);
    if (code == cudaSuccess && o->rays == KD_RAYS_DIFFUSE && raw->bounce_t)
        code = cudaMemcpy(raw->bounce_t, s->d_bounce_t, pixels * 4, cudaMemcpyDeviceToHost);
    return kd_cuda_fail(err, code, "GPU render", "reading the image back");
}

static void fill_stats(kd_gpu_render_stats *stats, const unsigned long long *totals, size_t pixels, float *ms,
                       float *bounce_ms, int repeats)
{
    qsort(ms, (size_t)repeats, sizeof(float), cmp_float);
    qsort(bounce_ms, (size_t)repeats, sizeof(float), cmp_float);
    stats->num_rays = pixels;
    stats->num_hits = totals[T_PRIMARY + T_HITS];
    stats->total_steps = totals[T_PRIMARY + T_STEPS];
    stats->total_tests = totals[T_PRIMARY + T_TESTS];
    stats->kernel_ms = ms[repeats / 2];
    stats->kernel_ms_min = ms[0];
    stats->rays_per_second = stats->kernel_ms > 0 ? (double)pixels / (stats->kernel_ms * 1e-3) : 0;
    stats->num_launches = repeats + (repeats > 1 ? 1 : 0);
    stats->num_bounce_rays = totals[T_BOUNCE + T_RAYS];
    stats->num_bounce_hits = totals[T_BOUNCE + T_HITS];
    stats->bounce_steps = totals[T_BOUNCE + T_STEPS];
    stats->bounce_tests = totals[T_BOUNCE + T_TESTS];
    if (stats->num_bounce_rays == 0)
        return;
    stats->bounce_kernel_ms = bounce_ms[repeats / 2];
    stats->bounce_kernel_ms_min = bounce_ms[0];
    stats->bounce_rays_per_second =
        stats->bounce_kernel_ms > 0 ? (double)stats->num_bounce_rays / (stats->bounce_kernel_ms * 1e-3) : 0;
}

extern "C" kd_status kd_gpu_render_raw_run(kd_gpu_scene *s, const kd_camera *cam,
                                           const kd_gpu_render_options *o, kd_gpu_render_raw *raw,
                                           kd_gpu_render_stats *stats, kd_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (cam->width <= 0 || cam->height <= 0 || o->repeats < 1)
        return kd_error_set(err, KD_ERR_INVALID, "GPU render: bad image size or repeat count");
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    KD_TRY(ensure_pixels(s, pixels, o->rays == KD_RAYS_DIFFUSE, err));
    float *ms = (float *)calloc(2 * (size_t)o->repeats, sizeof(float));
    if (!ms)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
    unsigned long long totals[T_COUNT] = {0};
    kd_status st = run_launches(s, cam, o, ms, ms + o->repeats, err);
    if (st == KD_OK)
        st = kd_cuda_fail(err, cudaMemcpy(totals, s->d_totals, sizeof totals, cudaMemcpyDeviceToHost),
                          "GPU render", "reading the render totals");
    if (st == KD_OK && raw)
        st = read_back(s, pixels, o, raw, err);
    if (st == KD_OK && totals[T_OVERFLOW])
        st = kd_error_set(err, KD_ERR_INVALID, "GPU render: the traversal stack overflowed (tree deeper "
                        "than %d levels)", (int)KD_TRACE_STACK_SIZE);
    if (st == KD_OK)
        fill_stats(stats, totals, pixels, ms, ms + o->repeats, o->repeats);
    free(ms);
    return st;
}
