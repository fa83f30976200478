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

template <typename... Params, typename... Args>
static cudaError_t kd_launch_dependent(void (*kernel)(Params...), uint32_t blocks, uint32_t threads,
                                       size_t smem, cudaStream_t stream, Args... args)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
#if !defined(KD_NO_PDL)
    config.attrs = &attribute;
    config.numAttrs = 1;
#endif
    return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

#endif
