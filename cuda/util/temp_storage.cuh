// Packing several sub-buffers into one temporary allocation (CUB's contract:
// a first call with d_temp == NULL only reports the size), plus the launch
// check every launcher uses. Host-side, header-only, CUDA C++.
#ifndef KD_TEMP_STORAGE_CUH
#define KD_TEMP_STORAGE_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

// Each sub-buffer starts on this boundary, enough for 16-byte vector access
// and for keeping unrelated buffers off each other's cache lines.
#define KD_TEMP_ALIGN 256
#define KD_TEMP_MAX_SLOTS 16

// Evaluate a CUDA call; return its error from the enclosing function.
#define KD_TRY_CUDA(call)                        \
    do {                                         \
        cudaError_t kd_try_err_ = (call);        \
        if (kd_try_err_ != cudaSuccess)          \
            return kd_try_err_;                  \
    } while (0)

// Check the launch just issued (bad configuration, missing kernel image...).
#define KD_TRY_LAUNCH() KD_TRY_CUDA(cudaGetLastError())

struct kd_temp_layout {
    size_t offset[KD_TEMP_MAX_SLOTS];
    int num_slots;
    size_t total_bytes;
};

static inline void kd_temp_init(kd_temp_layout *layout)
{
    layout->num_slots = 0;
    layout->total_bytes = 0;
}

// Reserves `bytes` (may be 0) and returns the slot's index, or -1 when the
// layout is full (a programming error the caller turns into an error code).
static inline int kd_temp_add(kd_temp_layout *layout, size_t bytes)
{
    if (layout->num_slots >= KD_TEMP_MAX_SLOTS)
        return -1;
    size_t start = (layout->total_bytes + KD_TEMP_ALIGN - 1) / KD_TEMP_ALIGN * KD_TEMP_ALIGN;
    layout->offset[layout->num_slots] = start;
    layout->total_bytes = start + bytes;
    return layout->num_slots++;
}

// Bytes to request: never 0, so an allocation of that size is never NULL,
// which the second call would mistake for a size query.
static inline size_t kd_temp_bytes(const kd_temp_layout *layout)
{
    size_t rounded = (layout->total_bytes + KD_TEMP_ALIGN - 1) / KD_TEMP_ALIGN * KD_TEMP_ALIGN;
    return rounded == 0 ? KD_TEMP_ALIGN : rounded;
}

// The query half of the contract: true when the caller only asked for the size
// (which is then stored). Otherwise checks that the given block is big enough.
static inline bool kd_temp_is_query(const kd_temp_layout *layout, void *d_temp, size_t *temp_bytes,
                                    cudaError_t *err)
{
    *err = cudaSuccess;
    if (temp_bytes == NULL) {
        *err = cudaErrorInvalidValue;
        return true;
    }
    if (d_temp == NULL) {
        *temp_bytes = kd_temp_bytes(layout);
        return true;
    }
    if (*temp_bytes < kd_temp_bytes(layout)) {
        *err = cudaErrorInvalidValue;
        return true;
    }
    return false;
}

template <typename T>
static inline T *kd_temp_slot(const kd_temp_layout *layout, void *d_temp, int slot)
{
    return reinterpret_cast<T *>(static_cast<char *>(d_temp) + layout->offset[slot]);
}

static inline unsigned kd_div_ceil_u32(size_t a, size_t b)
{
    return (unsigned)((a + b - 1) / b);
}

#endif
