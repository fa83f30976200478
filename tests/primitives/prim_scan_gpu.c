/* GPU test: every rung of the scan ladder, and every tile shape of the
 * look-back rung (scan_variants.h), against the CPU reference, at the
 * standard sizes, out of place and in place, with 16-byte aligned and
 * misaligned buffers; the temporary-storage contract; KD_TEST_HUGE=1 adds
 * 2^30 + 3 elements. Exits 77 without a device. */
#include <stdlib.h>
#include <string.h>

#include "kd_primitives.h"
#include "prim_common.h"
#include "ref_primitives.h"
#include "scan_variants.h"

/* Runs 0 .. KD_SCAN_NUM_VARIANTS-1 are the ladder's rungs (public launcher);
 * later runs are the look-back rung's other tile shapes. */
static int num_runs(void)
{
    return KD_SCAN_NUM_VARIANTS + kd_scan_lookback_num_variants() - 1;
}

static cudaError_t scan_run(int run, void *d_temp, size_t *temp_bytes, const int32_t *d_in, int32_t *d_out, size_t n)
{
    if (run < KD_SCAN_NUM_VARIANTS)
        return kd_scan_exclusive_i32((kd_scan_variant)run, d_temp, temp_bytes, d_in, d_out, n, 0);
    return kd_scan_lookback_i32_variant(run - KD_SCAN_NUM_VARIANTS + 1, d_temp, temp_bytes, d_in, d_out, n, 0);
}

static const char *run_name(int run)
{
    static char name[48];
    if (run < KD_SCAN_NUM_VARIANTS)
        return kd_scan_variant_name((kd_scan_variant)run);
    snprintf(name, sizeof name, "lookback shape %d", run - KD_SCAN_NUM_VARIANTS + 1);
    return name;
}

/* Runs one scan on the device and compares with `expect`. `misalign` shifts
 * the device pointers by one word, off the 16-byte vector path. */
static void check_scan(int variant, const int32_t *h_in, const int32_t *expect, int32_t *h_got, size_t n,
                       bool in_place, bool misalign)
{
    const size_t shift = misalign ? 1 : 0;
    int32_t *d_in_base = prim_device_alloc((n + shift) * sizeof(int32_t));
    int32_t *d_out_base = in_place ? NULL : prim_device_alloc((n + shift) * sizeof(int32_t));
    if (!d_in_base || (!in_place && !d_out_base)) {
        prim_device_free(d_in_base);
        return;
    }
    int32_t *d_in = d_in_base + shift;
    int32_t *d_out = in_place ? d_in : d_out_base + shift;
    prim_upload(d_in, h_in, n * sizeof(int32_t));
    if (!in_place)
        prim_poison(d_out, n * sizeof(int32_t));

    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(scan_run(variant, NULL, &temp_bytes, d_in, d_out, n));
    CHECK(temp_bytes > 0);
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_temp) {
        prim_poison(d_temp, temp_bytes); /* the launcher must initialize what it uses */
        PRIM_CUDA_CHECK(scan_run(variant, d_temp, &temp_bytes, d_in, d_out, n));
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());
        prim_download(h_got, d_out, n * sizeof(int32_t));
        size_t bad = prim_first_mismatch_u32((const uint32_t *)h_got, (const uint32_t *)expect, n);
        CHECK_MSG(bad == n, "%s n=%zu %s%s: element %zu is %d, expected %d", run_name(variant), n,
                  in_place ? "in place" : "out of place", misalign ? " misaligned" : "", bad,
                  bad < n ? h_got[bad] : 0, bad < n ? expect[bad] : 0);
    }
    prim_device_free(d_temp);
    prim_device_free(d_in_base);
    prim_device_free(d_out_base);
}

static void check_contract(void)
{
    /* n == 0: a size is still reported, and the real call touches nothing. */
    for (int v = 0; v < KD_SCAN_NUM_VARIANTS; v++) {
        size_t temp_bytes = 0;
        PRIM_CUDA_CHECK(kd_scan_exclusive_i32((kd_scan_variant)v, NULL, &temp_bytes, NULL, NULL, 0, 0));
        CHECK(temp_bytes > 0);
        uint32_t *d_out = prim_device_alloc(16);
        void *d_temp = prim_device_alloc(temp_bytes);
        if (d_out && d_temp) {
            prim_poison(d_out, 16);
            PRIM_CUDA_CHECK(kd_scan_exclusive_i32((kd_scan_variant)v, d_temp, &temp_bytes, (const int32_t *)d_out,
                                                  (int32_t *)d_out, 0, 0));
            uint32_t back[4];
            prim_download(back, d_out, sizeof back);
            CHECK(back[0] == PRIM_POISON_WORD && back[3] == PRIM_POISON_WORD);
        }
        prim_device_free(d_out);
        prim_device_free(d_temp);
        CHECK(strcmp(kd_scan_variant_name((kd_scan_variant)v), "unknown") != 0);
    }
    /* Bad variant, missing size pointer, too little temporary storage. */
    size_t temp_bytes = 0;
    CHECK(kd_scan_exclusive_i32(KD_SCAN_NUM_VARIANTS, NULL, &temp_bytes, NULL, NULL, 10, 0) ==
          cudaErrorInvalidValue);
    CHECK(kd_scan_exclusive_i32(KD_SCAN_LOOKBACK, NULL, NULL, NULL, NULL, 10, 0) == cudaErrorInvalidValue);
    int32_t *d_buf = prim_device_alloc(1 << 20);
    PRIM_CUDA_CHECK(kd_scan_exclusive_i32(KD_SCAN_LOOKBACK, NULL, &temp_bytes, d_buf, d_buf, 1 << 18, 0));
    size_t too_small = temp_bytes - 1;
    CHECK(kd_scan_exclusive_i32(KD_SCAN_LOOKBACK, d_buf, &too_small, d_buf, d_buf, 1 << 18, 0) ==
          cudaErrorInvalidValue);
    prim_device_free(d_buf);
    (void)cudaGetLastError();
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_scan_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    prim_rng rng;
    prim_rng_seed(&rng, 4);
    check_contract();

    size_t sizes[16];
    size_t num_sizes = prim_test_sizes(&rng, sizes);
    size_t max_n = 0;
    for (size_t s = 0; s < num_sizes; s++)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    int32_t *h_in = malloc((max_n + 1) * sizeof(int32_t));
    int32_t *expect = malloc((max_n + 1) * sizeof(int32_t));
    int32_t *h_got = malloc((max_n + 1) * sizeof(int32_t));
    CHECK(h_in && expect && h_got);
    if (!h_in || !expect || !h_got)
        return kd_test_finish("prim_scan_gpu");

    for (size_t s = 0; s < num_sizes; s++) {
        const size_t n = sizes[s];
        /* Full-range values: the sums wrap, which every rung must do alike. */
        for (size_t i = 0; i < n; i++)
            h_in[i] = (int32_t)prim_rng_u32(&rng);
        kd_ref_scan_exclusive_i32(h_in, expect, n);
        for (int v = 0; v < num_runs(); v++) {
            if (v >= KD_SCAN_NUM_VARIANTS && prim_quick() && n > PRIM_QUICK_VARIANT_MAX)
                continue; /* sanitizer runs: extra tile shapes at small sizes only */
            check_scan(v, h_in, expect, h_got, n, false, false);
            check_scan(v, h_in, expect, h_got, n, true, false);
            if (n <= (1u << 20) + 7)
                check_scan(v, h_in, expect, h_got, n, false, true);
        }
    }
    free(h_in);
    free(expect);
    free(h_got);

    if (prim_huge()) {
        /* Beyond 2^30: 64-bit indexing and many-tile look-back. */
        const size_t n = (1u << 30) + 3;
        int32_t *big_in = malloc(n * sizeof(int32_t));
        int32_t *big_expect = malloc(n * sizeof(int32_t));
        int32_t *big_got = malloc(n * sizeof(int32_t));
        CHECK(big_in && big_expect && big_got);
        if (big_in && big_expect && big_got) {
            for (size_t i = 0; i < n; i++)
                big_in[i] = (int32_t)(prim_rng_u32(&rng) & 0xff);
            kd_ref_scan_exclusive_i32(big_in, big_expect, n);
            for (int v = 0; v < KD_SCAN_NUM_VARIANTS; v++)
                check_scan(v, big_in, big_expect, big_got, n, v == KD_SCAN_LOOKBACK, false);
            printf("prim_scan_gpu: checked every rung at n = 2^30 + 3\n");
        }
        free(big_in);
        free(big_expect);
        free(big_got);
    }
    return kd_test_finish("prim_scan_gpu");
}
