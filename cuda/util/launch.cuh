// Launches that may overlap the kernel before them. The GPU build and its
// primitives are chains of small dependent kernels, where the gap between
// two (the second's launch after the first drains) is a large part of each
// step. A kernel launched by kd_launch_dependent is a programmatic dependent
// (sm_90): the device may start it while the kernel before it finishes, and
// it waits for that kernel's results first thing (kd_wait_prior), so only
// the launch overlaps, never the work. Every kernel launched this way must
// call kd_wait_prior before it touches memory. KD_NO_PDL turns it off.
#ifndef KD_LAUNCH_CUH
#define KD_LAUNCH_CUH

#include <cuda_runtime.h>
#include <stdint.h>

static __device__ __forceinline__ void kd_wait_prior(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(KD_NO_PDL)
    cudaGridDependencySynchronize();
#endif
}

// A dependent launch, optionally cooperative as well (every block resident
// at once, so the kernel may use a grid-wide barrier; the grid must then be
// at most kd_resident_blocks).
template <typename... Params, typename... Args>
static cudaError_t kd_launch_dependent_as(bool cooperative, void (*kernel)(Params...), uint32_t blocks,
                                          uint32_t threads, size_t smem, cudaStream_t stream, Args... args)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cudaLaunchAttribute attributes[2] = {};
    unsigned num = 0;
#if !defined(KD_NO_PDL)
    attributes[num].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[num++].val.programmaticStreamSerializationAllowed = 1;
#endif
    if (cooperative) {
        attributes[num].id = cudaLaunchAttributeCooperative;
        attributes[num++].val.cooperative = 1;
    }
    config.attrs = attributes;
    config.numAttrs = num;
    return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

template <typename... Params, typename... Args>
static cudaError_t kd_launch_dependent(void (*kernel)(Params...), uint32_t blocks, uint32_t threads,
                                       size_t smem, cudaStream_t stream, Args... args)
{
    return kd_launch_dependent_as(false, kernel, blocks, threads, smem, stream, args...);
}

// An attribute of the current device.
static inline cudaError_t kd_device_attribute(cudaDeviceAttr attr, int *value)
{
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    return e == cudaSuccess ? cudaDeviceGetAttribute(value, attr, device) : e;
}

// The blocks of `threads` (and smem bytes of dynamic shared memory) that fit on the current
// device at once: a grid-stride kernel launched with exactly these leaves no
// partial second round, and a cooperative one may use a grid barrier.
template <typename Kernel>
static cudaError_t kd_resident_blocks(Kernel kernel, int threads, uint32_t *blocks, size_t smem = 0)
{
    int num_sms = 0, per_sm = 0;
    cudaError_t e = kd_device_attribute(cudaDevAttrMultiProcessorCount, &num_sms);
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
    if (e == cudaSuccess)
        *blocks = (uint32_t)num_sms * (uint32_t)(per_sm > 0 ? per_sm : 1);
    return e;
}

#endif
