/* Device discovery, and CUDA errors as scankd's status and message (kd_error.h), for every CUDA
 * layer above the primitives. Valid C and CUDA. */
#ifndef KD_CUDA_STATUS_H
#define KD_CUDA_STATUS_H

#include <cuda_runtime_api.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 when none or when the driver is missing). */
int kd_cuda_device_count(void);

/* KD_OK for cudaSuccess; else KD_ERR_CUDA with "<who>: <what>: <CUDA's
 * reason>", after clearing a sticky launch error so that later calls report
 * their own. */
kd_status kd_cuda_fail(kd_error *err, cudaError_t code, const char *who, const char *what);

#ifdef __cplusplus
}
#endif
#endif
