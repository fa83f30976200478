// The profiler's harness: device context, L2 flush, the event-timed loop,
// row bookkeeping, and the dispatch to each primitive's profile.
#include "profile_internal.cuh"

#include <algorithm>
#include <new>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

namespace kdp {
namespace {

// Reads the whole flush buffer so that L2 holds it (clean lines) and not the
// next run's inputs; the sink write keeps the reads from being optimised out.
__global__ void flush_l2_kernel(const uint4 *buf, size_t count, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcg(buf + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9E3779B9u)
        *sink = acc;
}

double median_of(std::vector<double> &v)
{
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

} // namespace

cudaError_t time_op(kd_profile_context *ctx, size_t working_set_bytes, const Op &op, Timing *out)
{
    const bool flush = working_set_bytes < 2 * ctx->device.l2_bytes && ctx->d_flush != nullptr;
    const int reps = ctx->options.reps;
    auto run_flush = [&]() -> cudaError_t {
        if (!flush)
            return cudaSuccess;
        const size_t count = ctx->flush_bytes / sizeof(uint4);
        flush_l2_kernel<<<ctx->device.sm_count * 4, 256, 0, ctx->stream>>>(
            static_cast<const uint4 *>(ctx->d_flush), count, ctx->d_flush_sink);
        return cudaGetLastError();
    };
    cudaError_t e = cudaSuccess;
    for (int w = 0; w < ctx->options.warmup && e == cudaSuccess; w++) {
        e = run_flush();
        if (e == cudaSuccess)
            e = op(ctx->stream);
    }
    for (int r = 0; r < reps && e == cudaSuccess; r++) {
        e = run_flush();
        if (e == cudaSuccess)
            e = cudaEventRecord(ctx->starts[r], ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(ctx->stops[r], ctx->stream);
    }
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess)
        return e;
    std::vector<double> us(reps);
    for (int r = 0; r < reps; r++) {
        float ms = 0;
        e = cudaEventElapsedTime(&ms, ctx->starts[r], ctx->stops[r]);
        if (e != cudaSuccess)
            return e;
        us[r] = 1000.0 * ms;
    }
    out->min_us = *std::min_element(us.begin(), us.end());
    out->median_us = median_of(us);
    out->flushed = flush;
    return cudaSuccess;
}

kd_profile_row make_row(kd_profile_what what, kd_profile_kind kind, const char *variant,
                        int block_size, size_t n, double bytes)
{
    kd_profile_row row;
    memset(&row, 0, sizeof row);
    row.what = what;
    row.kind = kind;
    snprintf(row.variant, sizeof row.variant, "%s", variant);
    row.block_size = block_size;
    row.n = n;
    row.bytes = bytes;
    row.median_us = row.min_us = row.gbps = NAN;
    row.copy_share = row.speedup = row.vs_cub = NAN;
    row.status = KD_PROFILE_OK;
    return row;
}

void set_timing(kd_profile_row &row, const Timing &t)
{
    row.median_us = t.median_us;
    row.min_us = t.min_us;
    row.flushed = t.flushed;
    row.gbps = t.median_us > 0 ? row.bytes / (t.median_us * 1e3) : NAN;
}

void set_failed(kd_profile_row &row, const char *fmt, ...)
{
    row.status = KD_PROFILE_FAILED;
    va_list args;
    va_start(args, fmt);
    vsnprintf(row.note, sizeof row.note, fmt, args);
    va_end(args);
}

void set_error(kd_profile_row &row, const char *what, cudaError_t e)
{
    row.status = KD_PROFILE_ERROR;
    snprintf(row.note, sizeof row.note, "%s: %s", what, cudaGetErrorString(e));
}

void relate(kd_profile_row &row, const kd_profile_row *copy, const kd_profile_row *first_rung,
            const kd_profile_row *cub)
{
    if (row.status != KD_PROFILE_OK)
        return;
    if (copy && copy->status == KD_PROFILE_OK)
        row.copy_share = row.gbps / copy->gbps;
    if (first_rung && first_rung->status == KD_PROFILE_OK)
        row.speedup = first_rung->median_us / row.median_us;
    if (cub && cub->status == KD_PROFILE_OK)
        row.vs_cub = row.gbps / cub->gbps;
}

kd_status cuda_fail(kd_error *err, const char *what, cudaError_t e)
{
    return kd_error_set(err, e == cudaErrorMemoryAllocation ? KD_ERR_DEVICE_OOM : KD_ERR_CUDA,
                        "%s: %s", what, cudaGetErrorString(e));
}

kd_status time_row(kd_profile_context *ctx, kd_profile_row &row, cudaError_t e, const Op &op,
                   size_t working_set_bytes, kd_error *err)
{
    Timing t;
    if (e == cudaSuccess && row.status == KD_PROFILE_OK)
        e = time_op(ctx, working_set_bytes, op, &t);
    if (e == cudaSuccess && row.status == KD_PROFILE_OK)
        set_timing(row, t);
    if (e != cudaSuccess) {
        set_error(row, "running", e);
        (void)cudaGetLastError();
        const cudaError_t sticky = cudaDeviceSynchronize();
        if (sticky != cudaSuccess)
            return cuda_fail(err, row.variant, sticky);
    }
    return KD_OK;
}

kd_status copy_row(kd_profile_context *ctx, kd_profile_what what, void *d_dst, const void *d_src,
                   const void *expect, size_t n, kd_profile_row *row, kd_error *err)
{
    const size_t bytes = 4 * n;
    *row = make_row(what, KD_PROFILE_COPY, "copy (device to device)", 0, n, 2.0 * bytes);
    Op op = [&](cudaStream_t st) {
        return cudaMemcpyAsync(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice, st);
    };
    Timing t;
    cudaError_t e = cudaMemsetAsync(d_dst, 0xFF, bytes, ctx->stream);
    if (e == cudaSuccess)
        e = time_op(ctx, 2 * bytes, op, &t);
    std::vector<unsigned char> back(bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(back.data(), d_dst, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return cuda_fail(err, "timing the copy", e);
    set_timing(*row, t);
    if (n > 0 && memcmp(back.data(), expect, bytes) != 0)
        set_failed(*row, "the copy differs from its source");
    return KD_OK;
}

} // namespace kdp

using namespace kdp;

extern "C" const char *kd_profile_what_name(kd_profile_what what)
{
    switch (what) {
    case KD_PROFILE_REDUCE: return "reduce";
    case KD_PROFILE_SCAN: return "scan";
    case KD_PROFILE_SPLIT: return "split";
    case KD_PROFILE_SORT: return "sort";
    case KD_PROFILE_COMPACT: return "compact";
    case KD_PROFILE_NUM_WHAT: break;
    }
    return "unknown";
}

extern "C" const char *kd_profile_bytes_rule(kd_profile_what what)
{
    switch (what) {
    case KD_PROFILE_REDUCE: return "bytes read (4 per element)";
    case KD_PROFILE_SCAN:
        return "scan: read + write (8 per element); segmented scan: 2 reads + write (12 per element)";
    case KD_PROFILE_SPLIT:
        return "payload read + side flag + payload written (9 per element, as for CUB's "
               "Flagged; segment ids read but not counted)";
    case KD_PROFILE_SORT:
        return "keys + values read and written once (16 per element, CUB's convention)";
    case KD_PROFILE_COMPACT:
        return "input read + flags read (1 per element; select-if reads none) + selected "
               "elements written";
    case KD_PROFILE_NUM_WHAT: break;
    }
    return "";
}

extern "C" kd_status kd_profile_context_create(kd_profile_context **out,
                                               const kd_profile_options *options, kd_error *err)
{
    *out = nullptr;
    if (options->reps < 1 || options->warmup < 0)
        return kd_error_set(err, KD_ERR_INVALID, "reps must be at least 1");
    if (kd_cuda_device_count() == 0)
        return kd_error_set(err, KD_ERR_NO_DEVICE, "no CUDA device");
    kd_profile_context *ctx = new (std::nothrow) kd_profile_context();
    if (!ctx)
        return kd_error_set(err, KD_ERR_NOMEM, "out of host memory");
    ctx->options = *options;
    cudaError_t e = cudaSetDevice(0);
    cudaDeviceProp prop;
    if (e == cudaSuccess)
        e = cudaGetDeviceProperties(&prop, 0);
    if (e == cudaSuccess) {
        snprintf(ctx->device.name, sizeof ctx->device.name, "%s", prop.name);
        ctx->device.sm_count = prop.multiProcessorCount;
        ctx->device.cc_major = prop.major;
        ctx->device.cc_minor = prop.minor;
        ctx->device.l2_bytes = (size_t)prop.l2CacheSize;
        // A blocking stream: the plain cudaMemcpy/cudaMemset calls that set up
        // inputs and read results (legacy default stream) stay ordered with it.
        e = cudaStreamCreateWithFlags(&ctx->stream, cudaStreamDefault);
    }
    ctx->flush_bytes = 2 * ctx->device.l2_bytes;
    if (e == cudaSuccess && ctx->flush_bytes > 0)
        e = cudaMalloc(&ctx->d_flush, ctx->flush_bytes);
    if (e == cudaSuccess && ctx->d_flush)
        e = cudaMemset(ctx->d_flush, 0x5A, ctx->flush_bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(reinterpret_cast<void **>(&ctx->d_flush_sink), sizeof(unsigned));
    ctx->starts.assign(options->reps, nullptr);
    ctx->stops.assign(options->reps, nullptr);
    for (int r = 0; r < options->reps && e == cudaSuccess; r++) {
        e = cudaEventCreate(&ctx->starts[r]);
        if (e == cudaSuccess)
            e = cudaEventCreate(&ctx->stops[r]);
    }
    if (e == cudaSuccess)
        e = cudaMemGetInfo(&ctx->device.free_bytes, &ctx->device.total_bytes);
    if (e != cudaSuccess) {
        kd_profile_context_free(ctx);
        return cuda_fail(err, "setting up the profiler", e);
    }
    *out = ctx;
    return KD_OK;
}

extern "C" void kd_profile_context_free(kd_profile_context *ctx)
{
    if (!ctx)
        return;
    for (cudaEvent_t ev : ctx->starts)
        if (ev)
            cudaEventDestroy(ev);
    for (cudaEvent_t ev : ctx->stops)
        if (ev)
            cudaEventDestroy(ev);
    cudaFree(ctx->d_flush);
    cudaFree(ctx->d_flush_sink);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    delete ctx;
}

extern "C" const kd_profile_device *kd_profile_context_device(const kd_profile_context *ctx)
{
    return &ctx->device;
}

extern "C" size_t kd_profile_free_bytes(kd_profile_context *ctx)
{
    (void)ctx;
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess)
        return 0;
    return free_bytes;
}

extern "C" size_t kd_profile_device_bytes(kd_profile_what what, size_t n)
{
    switch (what) {
    case KD_PROFILE_REDUCE: return reduce_device_bytes(n);
    case KD_PROFILE_SCAN: return scan_device_bytes(n);
    case KD_PROFILE_SPLIT: return split_device_bytes(n);
    case KD_PROFILE_SORT: return sort_device_bytes(n);
    case KD_PROFILE_COMPACT: return compact_device_bytes(n);
    case KD_PROFILE_NUM_WHAT: break;
    }
    return (size_t)-1;
}

static kd_status copy_rows(const std::vector<kd_profile_row> &got, kd_profile_row *rows,
                           int capacity, int *num_rows, kd_error *err)
{
    if ((int)got.size() > capacity)
        return kd_error_set(err, KD_ERR_INVALID, "%zu profile rows do not fit in %d", got.size(),
                            capacity);
    std::copy(got.begin(), got.end(), rows);
    *num_rows = (int)got.size();
    return KD_OK;
}

extern "C" kd_status kd_profile_run(kd_profile_context *ctx, kd_profile_what what, size_t n,
                                    kd_profile_row *rows, int capacity, int *num_rows,
                                    kd_error *err)
{
    *num_rows = 0;
    std::vector<kd_profile_row> got;
    kd_status s;
    switch (what) {
    case KD_PROFILE_REDUCE: s = run_reduce(ctx, n, got, err); break;
    case KD_PROFILE_SCAN: s = run_scan(ctx, n, got, err); break;
    case KD_PROFILE_SPLIT: s = run_split(ctx, n, got, err); break;
    case KD_PROFILE_SORT: s = run_sort(ctx, n, got, err); break;
    case KD_PROFILE_COMPACT: s = run_compact(ctx, n, got, err); break;
    default: return kd_error_set(err, KD_ERR_INVALID, "unknown primitive %d", (int)what);
    }
    if (s != KD_OK)
        return s;
    return copy_rows(got, rows, capacity, num_rows, err);
}

extern "C" kd_status kd_profile_sweep(kd_profile_context *ctx, kd_profile_what what, size_t n,
                                      const int *block_sizes, int num_block_sizes,
                                      kd_profile_row *rows, int capacity, int *num_rows,
                                      kd_error *err)
{
    *num_rows = 0;
    std::vector<kd_profile_row> got;
    kd_status s;
    switch (what) {
    case KD_PROFILE_REDUCE: s = sweep_reduce(ctx, n, block_sizes, num_block_sizes, got, err); break;
    case KD_PROFILE_SCAN: s = sweep_scan(ctx, n, block_sizes, num_block_sizes, got, err); break;
    default:
        return kd_error_set(err, KD_ERR_UNSUPPORTED,
                            "'%s' exposes no block size to choose (its launcher fixes it)",
                            kd_profile_what_name(what));
    }
    if (s != KD_OK)
        return s;
    return copy_rows(got, rows, capacity, num_rows, err);
}
