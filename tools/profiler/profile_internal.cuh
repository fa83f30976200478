// What the profiler's per-primitive files share (C++ only): the context, a
// device buffer that frees itself, the timing loop and row bookkeeping.
#ifndef KD_PROFILE_INTERNAL_CUH
#define KD_PROFILE_INTERNAL_CUH

#include <cuda_runtime.h>

#include <functional>
#include <vector>

#include "kd_profile.h"

struct kd_profile_context {
    kd_profile_options options;
    kd_profile_device device;
    cudaStream_t stream = nullptr;
    void *d_flush = nullptr;       // read (untimed) before timed runs to evict L2
    size_t flush_bytes = 0;
    unsigned *d_flush_sink = nullptr;
    std::vector<cudaEvent_t> starts, stops;
};

namespace kdp {

// A device allocation released when it goes out of scope.
template <class T>
struct DeviceBuffer {
    T *ptr = nullptr;
    size_t count = 0;
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer() { cudaFree(ptr); }
    cudaError_t alloc(size_t n)
    {
        cudaFree(ptr);
        ptr = nullptr;
        count = 0;
        cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&ptr), (n > 0 ? n : 1) * sizeof(T));
        if (e == cudaSuccess)
            count = n;
        return e;
    }
    // Grow-only, for temporary storage shared by variants.
    cudaError_t reserve(size_t n) { return n <= count && ptr ? cudaSuccess : alloc(n); }
};

struct Timing {
    double median_us = 0, min_us = 0;
    bool flushed = false;
};

using Op = std::function<cudaError_t(cudaStream_t)>;

// Warm-up runs, then timed runs (each after an L2 flush when the working set
// is under twice the L2 size). Fails on the first CUDA error.
cudaError_t time_op(kd_profile_context *ctx, size_t working_set_bytes, const Op &op, Timing *out);

// Seeded generator for inputs (splitmix64).
struct Rng {
    uint64_t state;
    uint64_t next()
    {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
};

kd_profile_row make_row(kd_profile_what what, kd_profile_kind kind, const char *variant,
                        int block_size, size_t n, double bytes);
void set_timing(kd_profile_row &row, const Timing &t);
void set_failed(kd_profile_row &row, const char *fmt, ...);
void set_error(kd_profile_row &row, const char *what, cudaError_t e);
// Fills copy_share, speedup and vs_cub of row from the rows it is measured
// against (pass nullptr for none).
void relate(kd_profile_row &row, const kd_profile_row *copy, const kd_profile_row *first_rung,
            const kd_profile_row *cub);

// Turns a CUDA error into a kd_status.
kd_status cuda_fail(kd_error *err, const char *what, cudaError_t e);

// After a row's verification (e: how its CUDA calls went): times op while
// the row is still OK. A CUDA error marks the row and the profile goes on,
// unless the error is sticky (the context is lost): then it fails.
kd_status time_row(kd_profile_context *ctx, kd_profile_row &row, cudaError_t e, const Op &op,
                   size_t working_set_bytes, kd_error *err);

// The row every table is set against: a device-to-device copy of n 4-byte
// elements from d_src into d_dst (cleared first), timed, then checked on the
// host against expect.
kd_status copy_row(kd_profile_context *ctx, kd_profile_what what, void *d_dst, const void *d_src,
                   const void *expect, size_t n, kd_profile_row *row, kd_error *err);

// Per-primitive entries (profile_<what>.cu).
kd_status run_reduce(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                     kd_error *err);
kd_status sweep_reduce(kd_profile_context *ctx, size_t n, const int *block_sizes, int count,
                       std::vector<kd_profile_row> &rows, kd_error *err);
size_t reduce_device_bytes(size_t n);
kd_status run_scan(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                   kd_error *err);
kd_status sweep_scan(kd_profile_context *ctx, size_t n, const int *block_sizes, int count,
                     std::vector<kd_profile_row> &rows, kd_error *err);
size_t scan_device_bytes(size_t n);
kd_status run_split(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                    kd_error *err);
size_t split_device_bytes(size_t n);
kd_status run_sort(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                   kd_error *err);
size_t sort_device_bytes(size_t n);
kd_status run_compact(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                      kd_error *err);
size_t compact_device_bytes(size_t n);

} // namespace kdp

#endif
