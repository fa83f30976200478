// The sum operator of the scans and the look-back, on host and device:
// wrapping on unsigned words, so that int32 sums are well defined.
#ifndef KD_SUM_OP_H
#define KD_SUM_OP_H

#include "host_device.h"

struct kd_sum_op {
    template <typename T>
    __host__ __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

#endif
