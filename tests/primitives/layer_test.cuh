// What the layer tests (layer_*_gpu.cu) share: the C helpers of the
// primitive tests, a device array that frees itself, a kernel-launch check,
// and the operators the layers are tested with. Each test defines its
// kernels next to the host reference they are checked against.
#ifndef KD_LAYER_TEST_CUH
#define KD_LAYER_TEST_CUH

#include <math.h>
#include <stdio.h>
#include <vector>

extern "C" {
#include "prim_common.h"
}
#include "cuda_status.h"

// Exits 77 (skipped) from main when no CUDA device is present.
#define LAYER_SKIP_WITHOUT_DEVICE(name)                                \
    do {                                                               \
        if (kd_cuda_device_count() == 0) {                             \
            printf("%s: no CUDA device, skipping\n", name);            \
            return KD_TEST_SKIP;                                       \
        }                                                              \
    } while (0)

// Checks the launch just made and waits for it.
#define LAYER_CHECK_LAUNCH()                                           \
    do {                                                               \
        PRIM_CUDA_CHECK(cudaGetLastError());                           \
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());                      \
    } while (0)

// A device copy of a host vector (or n poisoned elements), read back on demand.
template <typename T>
struct DeviceArray {
    T *ptr = nullptr;
    size_t n = 0;
    explicit DeviceArray(size_t count) : n(count)
    {
        ptr = static_cast<T *>(prim_device_alloc((count > 0 ? count : 1) * sizeof(T)));
        if (ptr)
            prim_poison(ptr, (count > 0 ? count : 1) * sizeof(T));
    }
    explicit DeviceArray(const std::vector<T> &host) : DeviceArray(host.size())
    {
        if (ptr && n > 0)
            prim_upload(ptr, host.data(), n * sizeof(T));
    }
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    ~DeviceArray() { prim_device_free(ptr); }
    std::vector<T> get() const
    {
        std::vector<T> host(n);
        if (ptr && n > 0)
            prim_download(host.data(), ptr, n * sizeof(T));
        return host;
    }
};

// A non-commutative associative operator: (flag, sum) pairs whose sum
// restarts where a later operand's flag is set, as in a segmented scan.
struct RestartPair {
    uint32_t flag, sum;
};

struct RestartOp {
    __host__ __device__ RestartPair operator()(RestartPair a, RestartPair b) const
    {
        return RestartPair{a.flag | b.flag, b.flag ? b.sum : a.sum + b.sum};
    }
};

static inline bool same_pair(RestartPair a, RestartPair b)
{
    return a.flag == b.flag && a.sum == b.sum;
}

// Three chains at once, as the reduction ladder uses them: min, max, sum.
struct MinMaxSum {
    __host__ __device__ float operator()(int chain, float a, float b) const
    {
        return chain == 0 ? fminf(a, b) : chain == 1 ? fmaxf(a, b) : a + b;
    }
    __host__ __device__ float identity(int chain) const
    {
        return chain == 0 ? INFINITY : chain == 1 ? -INFINITY : 0.0f;
    }
};

// The input mixes every layer test runs: random values, all equal, and
// one element that differs from the rest.
enum LayerMix { MIX_RANDOM = 0, MIX_EQUAL, MIX_ONE_OFF, MIX_COUNT };

static inline const char *mix_name(int mix)
{
    return mix == MIX_RANDOM ? "random" : mix == MIX_EQUAL ? "all equal" : "one off";
}

// A value for element i of n under a mix (small integers, so float sums of
// up to 2^20 of them are exact).
static inline uint32_t mix_value(prim_rng *rng, int mix, size_t i, size_t n)
{
    if (mix == MIX_EQUAL)
        return 7;
    if (mix == MIX_ONE_OFF)
        return i == n / 2 ? 1000 : 3;
    return prim_rng_below(rng, 1000);
}

#endif
