/* Helpers shared by the primitive tests (prim_*.c): a seeded random
 * generator, the list of test sizes, device buffers with poisoning, and the
 * KD_TEST_QUICK / KD_TEST_HUGE switches. */
#ifndef KD_PRIM_COMMON_H
#define KD_PRIM_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "test_support.h"

/* Poison written over outputs before each run: unwritten elements show. */
#define PRIM_POISON_BYTE 0xCD
#define PRIM_POISON_WORD 0xCDCDCDCDu

typedef struct prim_rng {
    uint64_t state;
} prim_rng;

void prim_rng_seed(prim_rng *rng, uint64_t seed);
uint32_t prim_rng_u32(prim_rng *rng);
/* Uniform in [0, bound) (bound > 0). */
uint32_t prim_rng_below(prim_rng *rng, uint32_t bound);

/* KD_TEST_QUICK=1: sizes above 2^20 are dropped (sanitizer runs), and the
 * tuning variants besides each primitive's default run only up to this size. */
bool prim_quick(void);
#define PRIM_QUICK_VARIANT_MAX 70000
/* KD_TEST_HUGE=1: also run the 2^30-element checks. */
bool prim_huge(void);

/* The sizes every primitive is tested at: 0, 1, 31, 32, 33, 1023, 1024,
 * 1025, 2^20 + 7, 2^26 and a few random ones (largest dropped when quick).
 * Returns how many were written (at most 16). */
size_t prim_test_sizes(prim_rng *rng, size_t *sizes);

/* cudaMalloc that counts a failed CHECK and returns NULL on failure. */
void *prim_device_alloc(size_t bytes);
/* Frees if not NULL. */
void prim_device_free(void *d_ptr);
/* Fills device memory with the poison byte (synchronously). */
void prim_poison(void *d_ptr, size_t bytes);
/* Copies to / from the device (synchronous), counting failures. */
void prim_upload(void *d_dst, const void *src, size_t bytes);
void prim_download(void *dst, const void *d_src, size_t bytes);

/* Checks a CUDA result, printing its name with the context on failure. */
#define PRIM_CUDA_CHECK(call)                                                               \
    do {                                                                                    \
        cudaError_t prim_err_ = (call);                                                     \
        CHECK_MSG(prim_err_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(prim_err_)); \
    } while (0)

/* Index of the first difference between two arrays of n words, or n. */
size_t prim_first_mismatch_u32(const uint32_t *a, const uint32_t *b, size_t n);

#endif
