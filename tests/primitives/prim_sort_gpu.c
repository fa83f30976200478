/* GPU test: radix sort of (key, value) pairs against the CPU reference, at
 * the standard sizes and key ranges that need 1, 2, 3 and 4 passes (and all
 * zero keys); values are the input positions, so any instability shows.
 * Every variant of the sort is checked (radix_sort_variants.h), the default
 * one through kd_radix_sort_pairs_u32. Outputs are poisoned; inputs must come
 * back unchanged. Exits 77 without a device. */
#include <stdlib.h>
#include <string.h>

#include "kd_primitives.h"
#include "prim_common.h"
#include "radix_sort_variants.h"
#include "ref_primitives.h"

enum keys_kind { FULL_RANGE, BELOW_2_8, BELOW_2_16, BELOW_2_24, FEW_DISTINCT, ALL_ZERO, NUM_KEYS };
static const char *const key_names[NUM_KEYS] = {"full range", "< 2^8", "< 2^16", "< 2^24", "few distinct",
                                                "all zero"};

static uint32_t make_key(prim_rng *rng, enum keys_kind kind)
{
    switch (kind) {
    case FULL_RANGE: return prim_rng_u32(rng);
    case BELOW_2_8: return prim_rng_u32(rng) & 0xffu;
    case BELOW_2_16: return prim_rng_u32(rng) & 0xffffu;
    case BELOW_2_24: return prim_rng_u32(rng) & 0xffffffu;
    case FEW_DISTINCT: return prim_rng_below(rng, 5) * 0x01010101u;
    case ALL_ZERO:
    case NUM_KEYS: break;
    }
    return 0;
}

/* variant -1: the public launcher; otherwise kd_radix_sort_pairs_u32_variant. */
static cudaError_t sort_with(int variant, void *d_temp, size_t *temp_bytes, const uint32_t *d_keys_in,
                             uint32_t *d_keys_out, const uint32_t *d_values_in, uint32_t *d_values_out, size_t n)
{
    if (variant < 0)
        return kd_radix_sort_pairs_u32(d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, 0);
    return kd_radix_sort_pairs_u32_variant(variant, d_temp, temp_bytes, d_keys_in, d_keys_out, d_values_in,
                                           d_values_out, n, 0);
}

static void check_sort(prim_rng *rng, int variant, size_t n, enum keys_kind kind, bool misalign, uint32_t *keys,
                       uint32_t *values, uint32_t *expect_keys, uint32_t *expect_values, uint32_t *got_keys,
                       uint32_t *got_values)
{
    for (size_t i = 0; i < n; i++) {
        keys[i] = make_key(rng, kind);
        values[i] = (uint32_t)i;
    }
    kd_error err;
    CHECK(kd_ref_radix_sort_pairs_u32(keys, expect_keys, values, expect_values, n, &err) == KD_OK);

    const size_t shift = misalign ? 1 : 0;
    uint32_t *d_buf = prim_device_alloc((4 * n + 4 * shift) * sizeof(uint32_t));
    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(sort_with(variant, NULL, &temp_bytes, NULL, NULL, NULL, NULL, n));
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_buf && d_temp) {
        uint32_t *d_keys_in = d_buf + shift;
        uint32_t *d_values_in = d_keys_in + n + shift;
        uint32_t *d_keys_out = d_values_in + n + shift;
        uint32_t *d_values_out = d_keys_out + n + shift;
        prim_upload(d_keys_in, keys, n * sizeof(uint32_t));
        prim_upload(d_values_in, values, n * sizeof(uint32_t));
        prim_poison(d_keys_out, n * sizeof(uint32_t));
        prim_poison(d_values_out, n * sizeof(uint32_t));
        prim_poison(d_temp, temp_bytes);
        PRIM_CUDA_CHECK(sort_with(variant, d_temp, &temp_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n));
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());
        char what[128];
        snprintf(what, sizeof what, "sort (%s) n=%zu keys %s%s",
                 variant < 0 ? "default" : kd_radix_sort_variant_name(variant), n, key_names[kind],
                 misalign ? " misaligned" : "");
        prim_download(got_keys, d_keys_out, n * sizeof(uint32_t));
        prim_download(got_values, d_values_out, n * sizeof(uint32_t));
        size_t bad = prim_first_mismatch_u32(got_keys, expect_keys, n);
        CHECK_MSG(bad == n, "%s: key %zu is %08x, expected %08x", what, bad, bad < n ? got_keys[bad] : 0,
                  bad < n ? expect_keys[bad] : 0);
        bad = prim_first_mismatch_u32(got_values, expect_values, n);
        CHECK_MSG(bad == n, "%s: value %zu is %u, expected %u (unstable?)", what, bad, bad < n ? got_values[bad] : 0,
                  bad < n ? expect_values[bad] : 0);
        /* The inputs are left as they were. */
        prim_download(got_keys, d_keys_in, n * sizeof(uint32_t));
        prim_download(got_values, d_values_in, n * sizeof(uint32_t));
        CHECK_MSG(prim_first_mismatch_u32(got_keys, keys, n) == n, "%s: input keys changed", what);
        CHECK_MSG(prim_first_mismatch_u32(got_values, values, n) == n, "%s: input values changed", what);
    }
    prim_device_free(d_temp);
    prim_device_free(d_buf);
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_sort_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    prim_rng rng;
    prim_rng_seed(&rng, 5);
    size_t sizes[16];
    size_t num_sizes = prim_test_sizes(&rng, sizes);
    size_t max_n = 1;
    for (size_t s = 0; s < num_sizes; s++)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    size_t temp_bytes = 0;
    uint32_t *bufs[6];
    bool ok = true;
    for (int b = 0; b < 6; b++)
        ok &= (bufs[b] = malloc(max_n * sizeof(uint32_t))) != NULL;
    CHECK(ok);
    if (!ok)
        return kd_test_finish("prim_sort_gpu");

    for (size_t s = 0; s < num_sizes; s++) {
        const size_t n = sizes[s];
        for (int variant = -1; variant < kd_radix_sort_num_variants(); variant++) {
            if (variant >= 0 && prim_quick() && n > PRIM_QUICK_VARIANT_MAX)
                continue; /* sanitizer runs: the other variants at small sizes only */
            for (int kind = 0; kind < NUM_KEYS; kind++) {
                if (n > (1u << 20) + 7 && kind != FULL_RANGE && kind != BELOW_2_24)
                    continue;
                check_sort(&rng, variant, n, (enum keys_kind)kind, false, bufs[0], bufs[1], bufs[2], bufs[3],
                           bufs[4], bufs[5]);
            }
            if (n <= (1u << 20) + 7)
                check_sort(&rng, variant, n, FULL_RANGE, true, bufs[0], bufs[1], bufs[2], bufs[3], bufs[4], bufs[5]);
        }
    }
    CHECK(kd_radix_sort_pairs_u32_variant(kd_radix_sort_num_variants(), NULL, &temp_bytes, NULL, NULL, NULL, NULL,
                                          10, 0) == cudaErrorInvalidValue);
    CHECK(kd_radix_sort_pairs_u32(NULL, NULL, NULL, NULL, NULL, NULL, 10, 0) == cudaErrorInvalidValue);
    PRIM_CUDA_CHECK(kd_radix_sort_pairs_u32(NULL, &temp_bytes, NULL, NULL, NULL, NULL, 0, 0));
    CHECK(temp_bytes > 0);
    for (int b = 0; b < 6; b++)
        free(bufs[b]);
    return kd_test_finish("prim_sort_gpu");
}
