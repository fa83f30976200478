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
    // Per-pixel device outputs, grown as needed.
    uint32_t *d_tri, *d_steps, *d_tests;
    float *d_t;
    unsigned long long *d_totals;
    size_t pixels;
    cudaStream_t stream;
    cudaEvent_t ev[2];
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

// A block shades a 16x16 tile; each warp an 8x4 piece of it, so the rays of
// a warp stay close together and walk the same nodes.
__global__ void __launch_bounds__(THREADS)
    render_kernel(kd_trace_scene scene, kd_camera cam, uint32_t *out_tri, float *out_t,
                  uint32_t *out_steps, uint32_t *out_tests, unsigned long long *totals)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int x = blockIdx.x * TILE + (warp & 1) * 8 + (lane & 7);
    int y = blockIdx.y * TILE + (warp >> 1) * 4 + (lane >> 3);
    unsigned long long hits = 0, steps = 0, tests = 0;
    unsigned overflow = 0;
    if (x < cam.width && y < cam.height) {
        kd_ray ray = camera_ray(cam, x, y);
        kd_trace_hit hit;
        kd_trace_counters c = {0, 0, 0};
        kd_trace_closest(&scene, &ray, &hit, &c);
        size_t p = (size_t)y * (size_t)cam.width + (size_t)x;
        out_tri[p] = hit.tri;
        out_t[p] = hit.t;
        out_steps[p] = c.steps;
        out_tests[p] = c.tests;
        hits = hit.tri != KD_TRACE_NO_HIT;
        steps = c.steps;
        tests = c.tests;
        overflow = c.overflow;
    }
    for (int d = 16; d > 0; d >>= 1) {
        hits += __shfl_down_sync(0xffffffffu, hits, d);
        steps += __shfl_down_sync(0xffffffffu, steps, d);
        tests += __shfl_down_sync(0xffffffffu, tests, d);
        overflow |= __shfl_down_sync(0xffffffffu, overflow, d);
    }
    if (lane == 0) {
        atomicAdd(&totals[0], hits);
        atomicAdd(&totals[1], steps);
        atomicAdd(&totals[2], tests);
        if (overflow)
            atomicOr(&totals[3], 1ull);
    }
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
    for (int i = 0; i < 2 && st == KD_OK; i++)
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
    cudaFree(s->d_totals);
    for (int i = 0; i < 2; i++)
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

static kd_status ensure_pixels(kd_gpu_scene *s, size_t pixels, kd_error *err)
{
    if (pixels <= s->pixels && s->d_totals)
        return KD_OK;
    cudaFree(s->d_tri);
    cudaFree(s->d_t);
    cudaFree(s->d_steps);
    cudaFree(s->d_tests);
    s->d_tri = s->d_steps = s->d_tests = NULL;
    s->d_t = NULL;
    s->pixels = 0;
    cudaError_t code = cudaMalloc((void **)&s->d_tri, pixels * 4);
    if (code == cudaSuccess)
        code = cudaMalloc((void **)&s->d_t, pixels * 4);
    if (code == cudaSuccess)
        code = cudaMalloc((void **)&s->d_steps, pixels * 4);
    if (code == cudaSuccess)
        code = cudaMalloc((void **)&s->d_tests, pixels * 4);
    if (code == cudaSuccess && !s->d_totals)
        code = cudaMalloc((void **)&s->d_totals, 4 * sizeof(unsigned long long));
    if (code == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return kd_error_set(err, KD_ERR_DEVICE_OOM, "GPU render: no device memory for %zu pixels", pixels);
    }
    KD_TRY(kd_cuda_fail(err, code, "GPU render", "cudaMalloc"));
    s->pixels = pixels;
    return KD_OK;
}

extern "C" kd_status kd_gpu_render_raw_run(kd_gpu_scene *s, const kd_camera *cam, int repeats,
                                           kd_gpu_render_raw *raw, kd_gpu_render_stats *stats,
                                           kd_error *err)
{
    memset(stats, 0, sizeof *stats);
    if (cam->width <= 0 || cam->height <= 0 || repeats < 1)
        return kd_error_set(err, KD_ERR_INVALID, "GPU render: bad image size or repeat count");
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    KD_TRY(ensure_pixels(s, pixels, err));
    dim3 grid((unsigned)((cam->width + TILE - 1) / TILE), (unsigned)((cam->height + TILE - 1) / TILE));
    int launches = repeats + (repeats > 1 ? 1 : 0);
    float *ms = (float *)calloc((size_t)repeats, sizeof(float));
    if (!ms)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU render: out of host memory");
    unsigned long long totals[4] = {0, 0, 0, 0};
    kd_status st = KD_OK;
    for (int i = 0; i < launches && st == KD_OK; i++) {
        st = kd_cuda_fail(err, cudaMemsetAsync(s->d_totals, 0, 4 * sizeof(unsigned long long), s->stream), "GPU render", "cudaMemsetAsync");
        if (st == KD_OK)
            st = kd_cuda_fail(err, cudaEventRecord(s->ev[0], s->stream), "GPU render", "cudaEventRecord");
        if (st != KD_OK)
            break;
        render_kernel<<<grid, THREADS, 0, s->stream>>>(s->view, *cam, s->d_tri, s->d_t, s->d_steps,
                                                       s->d_tests, s->d_totals);
        st = kd_cuda_fail(err, cudaGetLastError(), "GPU render", "render kernel");
        if (st == KD_OK)
            st = kd_cuda_fail(err, cudaEventRecord(s->ev[1], s->stream), "GPU render", "cudaEventRecord");
        if (st == KD_OK)
            st = kd_cuda_fail(err, cudaEventSynchronize(s->ev[1]), "GPU render", "render kernel");
        int timed = i - (launches - repeats);
        if (st == KD_OK && timed >= 0)
            st = kd_cuda_fail(err, cudaEventElapsedTime(&ms[timed], s->ev[0], s->ev[1]), "GPU render", "cudaEventElapsedTime");
    }
    if (st == KD_OK)
        st = kd_cuda_fail(err, cudaMemcpy(totals, s->d_totals, sizeof totals, cudaMemcpyDeviceToHost), "GPU render", "reading the render totals");
    if (st == KD_OK && raw) {
        cudaError_t code = cudaMemcpy(raw->tri, s->d_tri, pixels * 4, cudaMemcpyDeviceToHost);
        if (code == cudaSuccess)
            code = cudaMemcpy(raw->t, s->d_t, pixels * 4, cudaMemcpyDeviceToHost);
        if (code == cudaSuccess)
            code = cudaMemcpy(raw->steps, s->d_steps, pixels * 4, cudaMemcpyDeviceToHost);
        if (code == cudaSuccess)
            code = cudaMemcpy(raw->tests, s->d_tests, pixels * 4, cudaMemcpyDeviceToHost);
        st = kd_cuda_fail(err, code, "GPU render", "reading the image back");
    }
    if (st == KD_OK && totals[3])
        st = kd_error_set(err, KD_ERR_INVALID, "GPU render: the traversal stack overflowed (tree deeper "
                        "than %d levels)", (int)KD_TRACE_STACK_SIZE);
    if (st == KD_OK) {
        qsort(ms, (size_t)repeats, sizeof(float), cmp_float);
        stats->num_rays = pixels;
        stats->num_hits = totals[0];
        stats->total_steps = totals[1];
        stats->total_tests = totals[2];
        stats->kernel_ms = ms[repeats / 2];
        stats->kernel_ms_min = ms[0];
        stats->rays_per_second = stats->kernel_ms > 0 ? (double)pixels / (stats->kernel_ms * 1e-3) : 0;
        stats->num_launches = launches;
    }
    free(ms);
    return st;
}
