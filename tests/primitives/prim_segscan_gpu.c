/* GPU test: segmented exclusive scan and head flags -> segment ids against
 * the CPU references, at the standard sizes and segment shapes (one segment,
 * all of length 1, random lengths, empty segments), out of place and in
 * place, aligned and misaligned; every tile shape of the segmented scan
 * (scan_variants.h; shape 0 through the public launcher). Exits 77 without a
 * device. */
#include <stdlib.h>
#include <string.h>

#include "kd_primitives.h"
#include "prim_common.h"
#include "ref_primitives.h"
#include "scan_variants.h"

/* Shape 0 goes through the public launcher, the others through the variants. */
static cudaError_t segscan_run(int shape, void *d_temp, size_t *temp_bytes, const uint32_t *d_ids,
                               const int32_t *d_in, int32_t *d_out, size_t n)
{
    if (shape == 0)
        return kd_segmented_scan_exclusive_i32(d_temp, temp_bytes, d_ids, d_in, d_out, n, 0);
    return kd_segmented_scan_exclusive_i32_variant(shape, d_temp, temp_bytes, d_ids, d_in, d_out, n, 0);
}

enum shape { ONE_SEGMENT, ALL_LENGTH_ONE, RANDOM_LENGTHS, WITH_EMPTY, NUM_SHAPES };
static const char *const shape_names[NUM_SHAPES] = {"one segment", "all length 1", "random lengths",
                                                    "empty segments"};

/* Non-decreasing ids of the given shape; WITH_EMPTY skips ids, so some
 * segments have no element. */
static void make_ids(prim_rng *rng, enum shape shape, uint32_t *ids, size_t n)
{
    const uint32_t mean_length = 1u + prim_rng_below(rng, 3000);
    uint32_t id = shape == WITH_EMPTY ? prim_rng_below(rng, 3) : 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            if (shape == ALL_LENGTH_ONE)
                id++;
            else if (shape == RANDOM_LENGTHS && prim_rng_below(rng, mean_length) == 0)
                id++;
            else if (shape == WITH_EMPTY && prim_rng_below(rng, 64) == 0)
                id += 1 + prim_rng_below(rng, 4);
        }
        ids[i] = id;
    }
}

static void check_segscan(int tile_shape, const uint32_t *h_ids, const int32_t *h_in, const int32_t *expect,
                          int32_t *h_got, size_t n, const char *what, bool in_place, bool misalign)
{
    const size_t shift = misalign ? 1 : 0;
    uint32_t *d_ids_base = prim_device_alloc((n + shift) * sizeof(uint32_t));
    int32_t *d_in_base = prim_device_alloc((n + shift) * sizeof(int32_t));
    int32_t *d_out_base = in_place ? NULL : prim_device_alloc((n + shift) * sizeof(int32_t));
    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(segscan_run(tile_shape, NULL, &temp_bytes, NULL, NULL, NULL, n));
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_ids_base && d_in_base && (in_place || d_out_base) && d_temp) {
        uint32_t *d_ids = d_ids_base + shift;
        int32_t *d_in = d_in_base + shift;
        int32_t *d_out = in_place ? d_in : d_out_base + shift;
        prim_upload(d_ids, h_ids, n * sizeof(uint32_t));
        prim_upload(d_in, h_in, n * sizeof(int32_t));
        if (!in_place)
            prim_poison(d_out, n * sizeof(int32_t));
        prim_poison(d_temp, temp_bytes);
        PRIM_CUDA_CHECK(segscan_run(tile_shape, d_temp, &temp_bytes, d_ids, d_in, d_out, n));
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());
        prim_download(h_got, d_out, n * sizeof(int32_t));
        size_t bad = prim_first_mismatch_u32((const uint32_t *)h_got, (const uint32_t *)expect, n);
        CHECK_MSG(bad == n, "segmented scan (tile shape %d) n=%zu %s%s%s: element %zu (id %u) is %d, expected %d",
                  tile_shape, n, what,
                  in_place ? " in place" : "", misalign ? " misaligned" : "", bad, bad < n ? h_ids[bad] : 0,
                  bad < n ? h_got[bad] : 0, bad < n ? expect[bad] : 0);
    }
    prim_device_free(d_temp);
    prim_device_free(d_ids_base);
    prim_device_free(d_in_base);
    prim_device_free(d_out_base);
}

static void check_heads(const uint8_t *h_flags, uint32_t *expect, uint32_t *h_got, size_t n, const char *what,
                        bool misalign)
{
    const size_t shift = misalign ? 1 : 0;
    uint8_t *d_flags_base = prim_device_alloc(n + shift);
    uint32_t *d_ids_base = prim_device_alloc((n + shift) * sizeof(uint32_t));
    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(kd_head_flags_to_segment_ids(NULL, &temp_bytes, NULL, NULL, n, 0));
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_flags_base && d_ids_base && d_temp) {
        uint8_t *d_flags = d_flags_base + shift;
        uint32_t *d_ids = d_ids_base + shift;
        prim_upload(d_flags, h_flags, n);
        prim_poison(d_ids, n * sizeof(uint32_t));
        prim_poison(d_temp, temp_bytes);
        kd_ref_head_flags_to_segment_ids(h_flags, expect, n);
        PRIM_CUDA_CHECK(kd_head_flags_to_segment_ids(d_temp, &temp_bytes, d_flags, d_ids, n, 0));
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());
        prim_download(h_got, d_ids, n * sizeof(uint32_t));
        size_t bad = prim_first_mismatch_u32(h_got, expect, n);
        CHECK_MSG(bad == n, "head flags n=%zu %s%s: element %zu is %u, expected %u", n, what,
                  misalign ? " misaligned" : "", bad, bad < n ? h_got[bad] : 0, bad < n ? expect[bad] : 0);
    }
    prim_device_free(d_temp);
    prim_device_free(d_flags_base);
    prim_device_free(d_ids_base);
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_segscan_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    prim_rng rng;
    prim_rng_seed(&rng, 2);
    size_t sizes[16];
    size_t num_sizes = prim_test_sizes(&rng, sizes);
    size_t max_n = 1;
    for (size_t s = 0; s < num_sizes; s++)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    uint32_t *ids = malloc(max_n * sizeof(uint32_t));
    int32_t *h_in = malloc(max_n * sizeof(int32_t));
    int32_t *expect = malloc(max_n * sizeof(int32_t));
    int32_t *h_got = malloc(max_n * sizeof(int32_t));
    uint8_t *flags = malloc(max_n);
    CHECK(ids && h_in && expect && h_got && flags);
    if (!ids || !h_in || !expect || !h_got || !flags)
        return kd_test_finish("prim_segscan_gpu");

    for (size_t s = 0; s < num_sizes; s++) {
        const size_t n = sizes[s];
        const bool large = n > (1u << 20) + 7;
        for (size_t i = 0; i < n; i++)
            h_in[i] = (int32_t)prim_rng_u32(&rng);
        for (int shape = 0; shape < NUM_SHAPES; shape++) {
            make_ids(&rng, (enum shape)shape, ids, n);
            kd_error err;
            CHECK(kd_ref_segmented_scan_exclusive_i32(ids, h_in, expect, n, &err) == KD_OK);
            for (int v = 0; v < kd_segmented_scan_num_variants(); v++) {
                if (v > 0 && prim_quick() && n > PRIM_QUICK_VARIANT_MAX)
                    continue; /* sanitizer runs: extra tile shapes at small sizes only */
                check_segscan(v, ids, h_in, expect, h_got, n, shape_names[shape], false, false);
                if (!large || shape == RANDOM_LENGTHS)
                    check_segscan(v, ids, h_in, expect, h_got, n, shape_names[shape], true, false);
                if (!large)
                    check_segscan(v, ids, h_in, expect, h_got, n, shape_names[shape], false, true);
            }
        }

        /* Head flags: sparse (any nonzero byte is a head), none, all; element
         * 0 counts as a head even when its flag is 0. */
        for (size_t i = 0; i < n; i++)
            flags[i] = prim_rng_below(&rng, 8) == 0 ? (uint8_t)(1 + prim_rng_below(&rng, 255)) : 0;
        if (n > 0)
            flags[0] = 0;
        check_heads(flags, (uint32_t *)expect, (uint32_t *)h_got, n, "sparse", false);
        if (!large)
            check_heads(flags, (uint32_t *)expect, (uint32_t *)h_got, n, "sparse", true);
        memset(flags, 0, n);
        check_heads(flags, (uint32_t *)expect, (uint32_t *)h_got, n, "none", false);
        memset(flags, 1, n);
        check_heads(flags, (uint32_t *)expect, (uint32_t *)h_got, n, "all", false);
    }
    free(ids);
    free(h_in);
    free(expect);
    free(h_got);
    free(flags);

    if (prim_huge()) {
        const size_t n = (1u << 30) + 3;
        uint32_t *big_ids = malloc(n * sizeof(uint32_t));
        int32_t *big_in = malloc(n * sizeof(int32_t));
        int32_t *big_expect = malloc(n * sizeof(int32_t));
        int32_t *big_got = malloc(n * sizeof(int32_t));
        CHECK(big_ids && big_in && big_expect && big_got);
        if (big_ids && big_in && big_expect && big_got) {
            make_ids(&rng, RANDOM_LENGTHS, big_ids, n);
            for (size_t i = 0; i < n; i++)
                big_in[i] = (int32_t)(prim_rng_u32(&rng) & 0xff);
            kd_error err;
            CHECK(kd_ref_segmented_scan_exclusive_i32(big_ids, big_in, big_expect, n, &err) == KD_OK);
            check_segscan(0, big_ids, big_in, big_expect, big_got, n, "random lengths", true, false);
            printf("prim_segscan_gpu: checked n = 2^30 + 3\n");
        }
        free(big_ids);
        free(big_in);
        free(big_expect);
        free(big_got);
    }
    return kd_test_finish("prim_segscan_gpu");
}
