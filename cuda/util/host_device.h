/* Lets code that the device and the host emulation share compile with the
 * host compiler too (the GPU builder's emulation library is built by it, so
 * that CPU tests link no CUDA runtime): the toolkit's headers make __host__
 * and __device__ empty there and define __forceinline__ and __align__;
 * __noinline__ is defined here. Device-only code stays behind
 * `#if KD_DEVICE_CODE`. Headers only: nothing here needs the CUDA runtime. */
#ifndef KD_HOST_DEVICE_H
#define KD_HOST_DEVICE_H

#include <cuda_runtime_api.h>

#if defined(__CUDACC__)
#define KD_DEVICE_CODE 1
#else
#define KD_DEVICE_CODE 0
#ifndef __noinline__
#define __noinline__ __attribute__((noinline))
#endif
#endif

#endif
