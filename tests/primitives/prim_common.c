#include "prim_common.h"

#include <stdlib.h>
#include <string.h>

void prim_rng_seed(prim_rng *rng, uint64_t seed)
{
    rng->state = seed * 0x9E3779B97F4A7C15ull + 1;
}

uint32_t prim_rng_u32(prim_rng *rng)
{
    /* splitmix64: good enough for test data and fully reproducible */
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

uint32_t prim_rng_below(prim_rng *rng, uint32_t bound)
{
    return (uint32_t)(((uint64_t)prim_rng_u32(rng) * bound) >> 32);
}

static bool env_flag(const char *name)
{
    const char *value = getenv(name);
    return value && value[0] && strcmp(value, "0") != 0;
}

bool prim_quick(void)
{
    return env_flag("KD_TEST_QUICK");
}

bool prim_huge(void)
{
    return env_flag("KD_TEST_HUGE") && !prim_quick();
}

size_t prim_test_sizes(prim_rng *rng, size_t *sizes)
{
    static const size_t fixed[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, (1u << 20) + 7, 1u << 26};
    size_t count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        if (!prim_quick() || fixed[i] <= (1u << 20) + 7)
            sizes[count++] = fixed[i];
    /* Random sizes: small, around a few tiles, and large-ish. */
    sizes[count++] = 2 + prim_rng_below(rng, 5000);
    sizes[count++] = 4096 + prim_rng_below(rng, 60000);
    sizes[count++] = 100000 + prim_rng_below(rng, 900000);
    return count;
}

void *prim_device_alloc(size_t bytes)
{
    void *d_ptr = NULL;
    cudaError_t err = cudaMalloc(&d_ptr, bytes ? bytes : 1);
    CHECK_MSG(err == cudaSuccess, "cudaMalloc(%zu): %s", bytes, cudaGetErrorString(err));
    return err == cudaSuccess ? d_ptr : NULL;
}

void prim_device_free(void *d_ptr)
{
    if (d_ptr)
        PRIM_CUDA_CHECK(cudaFree(d_ptr));
}

void prim_poison(void *d_ptr, size_t bytes)
{
    if (d_ptr && bytes)
        PRIM_CUDA_CHECK(cudaMemset(d_ptr, PRIM_POISON_BYTE, bytes));
}

void prim_upload(void *d_dst, const void *src, size_t bytes)
{
    if (bytes)
        PRIM_CUDA_CHECK(cudaMemcpy(d_dst, src, bytes, cudaMemcpyHostToDevice));
}

void prim_download(void *dst, const void *d_src, size_t bytes)
{
    if (bytes)
        PRIM_CUDA_CHECK(cudaMemcpy(dst, d_src, bytes, cudaMemcpyDeviceToHost));
}

size_t prim_first_mismatch_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return n;
}
