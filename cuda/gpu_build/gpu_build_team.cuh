// Teams: the lanes that take one node's step together. On the device a team
// is a warp (kd_gb_warp_team); in the host emulation it is one lane that
// takes every lane's share in turn (kd_gb_serial_team). A step written once
// against a team runs the same per-element arithmetic in both, so the
// emulation, which CPU-only CI tests, checks the device's logic.
//
// A team gives: its lanes (LANES) and this lane's place; prefix sums, a
// broadcast and the cheapest (cost, id) across its lanes; votes; and loads of
// what other teams wrote during a launch (through L2 on the device).
#ifndef KD_GPU_BUILD_TEAM_CUH
#define KD_GPU_BUILD_TEAM_CUH

#include <stdint.h>

#include "gpu_build_common.cuh"

// One lane doing a team's work: every reduction over its lanes is the lane's
// own value.
struct kd_gb_serial_team {
    enum { LANES = 1 };
    __host__ __device__ __forceinline__ uint32_t lane() const { return 0; }
    // Inclusive prefix sums of two values over the lanes.
    __host__ __device__ __forceinline__ void inclusive_sum2(uint32_t *, uint32_t *) const {}
    template <typename T>
    __host__ __device__ __forceinline__ T from_lane(T v, int) const
    {
        return v;
    }
    // The lane holding the cheapest (cost, id), ties to the lower id, every
    // lane leaving with it; -1 where no lane has one (id KD_GB_NONE).
    __host__ __device__ __forceinline__ int argmin(float *, uint32_t *id) const { return *id != KD_GB_NONE ? 0 : -1; }
    __host__ __device__ __forceinline__ void sync() const {}
    __host__ __device__ __forceinline__ int all(int p) const { return p; }
    // How many lanes have p, and (rank) how many of the lanes before this one.
    __host__ __device__ __forceinline__ uint32_t count(int p) const { return p ? 1u : 0u; }
    __host__ __device__ __forceinline__ uint32_t rank(int) const { return 0; }
    template <typename T>
    __host__ __device__ __forceinline__ T load(const T *p) const
    {
        return *p;
    }
};

#if KD_DEVICE_CODE
// A warp: its 32 lanes, every call made by all of them together.
struct kd_gb_warp_team {
    enum { LANES = 32 };
    __device__ __forceinline__ uint32_t lane() const { return threadIdx.x & 31u; }
    __device__ __forceinline__ void inclusive_sum2(uint32_t *a, uint32_t *b) const
    {
        const uint32_t me = lane();
        for (int d = 1; d < 32; d <<= 1) {
            const uint32_t up_a = __shfl_up_sync(0xffffffffu, *a, d);
            const uint32_t up_b = __shfl_up_sync(0xffffffffu, *b, d);
            if ((int)me >= d) {
                *a += up_a;
                *b += up_b;
            }
        }
    }
    template <typename T>
    __device__ __forceinline__ T from_lane(T v, int src) const
    {
        return __shfl_sync(0xffffffffu, v, src);
    }
    __device__ __forceinline__ int argmin(float *cost, uint32_t *id) const { return kd_gb_warp_argmin(cost, id); }
    __device__ __forceinline__ void sync() const { __syncwarp(); }
    __device__ __forceinline__ int all(int p) const
    {
        __syncwarp();
        return __all_sync(0xffffffffu, p);
    }
    __device__ __forceinline__ uint32_t count(int p) const { return (uint32_t)__popc(__ballot_sync(0xffffffffu, p)); }
    __device__ __forceinline__ uint32_t rank(int p) const
    {
        return (uint32_t)__popc(__ballot_sync(0xffffffffu, p) & ((1u << lane()) - 1u));
    }
    // What other warps wrote during the launch: an SM's L1 may hold a line
    // from before another SM filled it.
    template <typename T>
    __device__ __forceinline__ T load(const T *p) const
    {
        return __ldcg(p);
    }
};
#endif

#endif
