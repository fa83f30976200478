// Warp layer: the lane's id, and shuffles of any type made of 32-bit words
// (the compiler keeps the words in registers).
#ifndef KD_WARP_SHUFFLE_CUH
#define KD_WARP_SHUFFLE_CUH

#include <stdint.h>
#include <string.h>

#define KD_WARP_THREADS 32
#define KD_FULL_MASK 0xffffffffu

// Shuffle a value word by word; the compiler keeps it in registers.
template <typename T>
__device__ __forceinline__ T kd_shfl_up(T value, unsigned delta)
{
    static_assert(sizeof(T) % 4 == 0, "shuffled types are made of 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++)
        words[i] = __shfl_up_sync(KD_FULL_MASK, words[i], delta);
    memcpy(&value, words, sizeof(T));
    return value;
}

template <typename T>
__device__ __forceinline__ T kd_shfl_down(T value, unsigned delta)
{
    static_assert(sizeof(T) % 4 == 0, "shuffled types are made of 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++)
        words[i] = __shfl_down_sync(KD_FULL_MASK, words[i], delta);
    memcpy(&value, words, sizeof(T));
    return value;
}

template <typename T>
__device__ __forceinline__ T kd_shfl_idx(T value, int lane)
{
    static_assert(sizeof(T) % 4 == 0, "shuffled types are made of 32-bit words");
    uint32_t words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < (int)(sizeof(T) / 4); i++)
        words[i] = __shfl_sync(KD_FULL_MASK, words[i], lane);
    memcpy(&value, words, sizeof(T));
    return value;
}

__device__ __forceinline__ unsigned kd_lane_id()
{
    return threadIdx.x & (KD_WARP_THREADS - 1);
}

#endif
