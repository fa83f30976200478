/* Device-side helpers shared by the GPU reduction tests: a stream, a
 * grow-only temporary buffer that is poisoned before every call, checked
 * CUDA calls. Header-only (static functions). */
#ifndef KD_PRIM_REDUCE_GPU_UTIL_H
#define KD_PRIM_REDUCE_GPU_UTIL_H

#include <stdio.h>

#include <cuda_runtime_api.h>

#include "prim_reduce_data.h"
#include "reduce_internal.h"
#include "test_support.h"

typedef struct rd_gpu {
    cudaStream_t stream;
    void *d_temp;
    size_t temp_capacity;
} rd_gpu;

#define RD_CUDA(call)                                                                    \
    rd_cuda_ok((call), #call, __FILE__, __LINE__)

static inline bool rd_cuda_ok(cudaError_t e, const char *what, const char *file, int line)
{
    kd_test_checks++;
    if (e == cudaSuccess)
        return true;
    kd_test_failures++;
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(e));
    return false;
}

static inline bool rd_gpu_init(rd_gpu *g)
{
    memset(g, 0, sizeof *g);
    return RD_CUDA(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
}

static inline void rd_gpu_free(rd_gpu *g)
{
    cudaFree(g->d_temp);
    cudaStreamDestroy(g->stream);
}

/* Makes room for `bytes` of temporary storage and fills it with 0xFF so that
 * nothing can count on it being zeroed. */
static inline bool rd_gpu_temp(rd_gpu *g, size_t bytes)
{
    if (bytes > g->temp_capacity) {
        cudaFree(g->d_temp);
        g->d_temp = NULL;
        g->temp_capacity = 0;
        if (!RD_CUDA(cudaMalloc(&g->d_temp, bytes)))
            return false;
        g->temp_capacity = bytes;
    }
    return RD_CUDA(cudaMemsetAsync(g->d_temp, 0xFF, bytes, g->stream));
}

/* Writes the poison NaN over count floats of device memory. */
static inline bool rd_gpu_poison(rd_gpu *g, float *d_out, size_t count)
{
    /* cudaMemsetAsync sets bytes, and no repeated byte makes this NaN: copy it. */
    const float p = rd_poison();
    enum { CHUNK = 4096 };
    static float host[CHUNK];
    for (int i = 0; i < CHUNK; i++)
        host[i] = p;
    for (size_t at = 0; at < count; at += CHUNK) {
        const size_t m = count - at < CHUNK ? count - at : CHUNK;
        if (!RD_CUDA(cudaMemcpyAsync(d_out + at, host, m * sizeof(float), cudaMemcpyHostToDevice,
                                     g->stream)))
            return false;
        if (!RD_CUDA(cudaStreamSynchronize(g->stream)))
            return false;
    }
    return true;
}

/* Copies on the test's stream and waits: a plain cudaMemcpy from pageable
 * memory runs on the legacy stream, which a non-blocking stream does not
 * wait for. */
static inline bool rd_upload_bytes(rd_gpu *g, void *d_dst, const void *src, size_t bytes)
{
    if (bytes == 0)
        return true;
    return RD_CUDA(cudaMemcpyAsync(d_dst, src, bytes, cudaMemcpyHostToDevice, g->stream)) &&
           RD_CUDA(cudaStreamSynchronize(g->stream));
}

static inline bool rd_upload(rd_gpu *g, float *d_dst, const float *src, size_t n)
{
    return rd_upload_bytes(g, d_dst, src, n * sizeof(float));
}

static inline bool rd_download(rd_gpu *g, float *dst, const float *d_src, size_t n)
{
    return RD_CUDA(cudaMemcpyAsync(dst, d_src, n * sizeof(float), cudaMemcpyDeviceToHost,
                                   g->stream)) &&
           RD_CUDA(cudaStreamSynchronize(g->stream));
}

/* One full reduction through kd_reduce_lanes with poisoned output and temp;
 * out receives the shape's lanes. */
static inline bool rd_run_lanes(rd_gpu *g, kd_reduce_variant variant, int block_size,
                                kd_reduce_shape shape, const float *const *d_in, size_t n,
                                float *d_out, float *out)
{
    size_t bytes = 0;
    if (!RD_CUDA(kd_reduce_lanes(variant, block_size, shape, NULL, &bytes, d_in, d_out, n,
                                 g->stream)))
        return false;
    CHECK(bytes > 0);
    const int lanes = kd_reduce_shape_lanes(shape);
    if (!rd_gpu_temp(g, bytes) || !rd_gpu_poison(g, d_out, (size_t)lanes))
        return false;
    if (!RD_CUDA(kd_reduce_lanes(variant, block_size, shape, g->d_temp, &bytes, d_in, d_out, n,
                                 g->stream)))
        return false;
    return rd_download(g, out, d_out, (size_t)lanes);
}

#endif
