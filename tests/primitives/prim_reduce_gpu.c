/* GPU test: every rung of the min/max ladder against the CPU reference, on
 * the sizes and random ones, value mixes with negatives, +-0 and
 * +-inf, misaligned inputs and every block size. Outputs and temporary
 * storage are poisoned before each run. KD_TEST_QUICK=1 keeps sizes <= 2^20. */
#include <stdio.h>
#include <stdlib.h>

#include "kd_primitives.h"
#include "prim_reduce_gpu_util.h"
#include "ref_reduce.h"

static rd_gpu g;

/* Through the public launcher (default block size). */
static void check_public(kd_reduce_variant v, kd_reduce_op op, const float *d_in, size_t n,
                         float *d_out, float want, const char *what)
{
    size_t bytes = 0;
    if (!RD_CUDA(kd_reduce_f32(v, op, NULL, &bytes, d_in, d_out, n, g.stream)))
        return;
    CHECK(bytes > 0);
    if (!rd_gpu_temp(&g, bytes) || !rd_gpu_poison(&g, d_out, 1))
        return;
    if (!RD_CUDA(kd_reduce_f32(v, op, g.d_temp, &bytes, d_in, d_out, n, g.stream)))
        return;
    float got;
    if (!rd_download(&g, &got, d_out, 1))
        return;
    CHECK_MSG(rd_same(got, want), "%s %s n=%zu (%s): got %g want %g", kd_reduce_variant_name(v),
              op == KD_REDUCE_MIN ? "min" : "max", n, what, got, want);
}

static void check_lanes(kd_reduce_variant v, int block, kd_reduce_shape shape, const float *d_in,
                        size_t n, float *d_out, float want, const char *what)
{
    const float *lanes[1] = {d_in};
    float got;
    if (!rd_run_lanes(&g, v, block, shape, lanes, n, d_out, &got))
        return;
    CHECK_MSG(rd_same(got, want), "%s block %d %s n=%zu (%s): got %g want %g",
              kd_reduce_variant_name(v), block, shape == KD_REDUCE_SHAPE_MIN ? "min" : "max", n,
              what, got, want);
}

static void test_errors(float *d_buf, float *d_out)
{
    size_t bytes = 0;
    CHECK(kd_reduce_f32(KD_REDUCE_NUM_VARIANTS, KD_REDUCE_MIN, NULL, &bytes, d_buf, d_out, 10,
                        g.stream) == cudaErrorInvalidValue);
    CHECK(kd_reduce_f32(KD_REDUCE0, (kd_reduce_op)7, NULL, &bytes, d_buf, d_out, 10, g.stream) ==
          cudaErrorInvalidValue);
    CHECK(kd_reduce_f32(KD_REDUCE0, KD_REDUCE_MIN, NULL, NULL, d_buf, d_out, 10, g.stream) ==
          cudaErrorInvalidValue);
    const float *lanes[1] = {d_buf};
    CHECK(kd_reduce_lanes(KD_REDUCE4, 96, KD_REDUCE_SHAPE_MIN, NULL, &bytes, lanes, d_out, 10,
                          g.stream) == cudaErrorInvalidValue);
    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
        /* Too little temporary storage is refused, not overrun. */
        bytes = 0;
        CHECK(kd_reduce_f32((kd_reduce_variant)v, KD_REDUCE_MIN, NULL, &bytes, d_buf, d_out,
                            1u << 20, g.stream) == cudaSuccess);
        size_t small = bytes - 1;
        if (rd_gpu_temp(&g, bytes))
            CHECK(kd_reduce_f32((kd_reduce_variant)v, KD_REDUCE_MIN, g.d_temp, &small, d_buf,
                                d_out, 1u << 20, g.stream) == cudaErrorInvalidValue);
        /* n == 0: identity, input never read (NULL is fine). */
        check_public((kd_reduce_variant)v, KD_REDUCE_MIN, NULL, 0, d_out, INFINITY, "empty");
        check_public((kd_reduce_variant)v, KD_REDUCE_MAX, NULL, 0, d_out, -INFINITY, "empty");
    }
    CHECK(kd_reduce_variant_name(KD_REDUCE0)[0] != '\0');
    CHECK(strcmp(kd_reduce_variant_name(KD_REDUCE_NUM_VARIANTS), "unknown") == 0);
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_reduce_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    const bool quick = rd_quick();
    rd_rng rng = {rd_seed()};
    printf("prim_reduce_gpu: seed %#llx%s\n", (unsigned long long)rng.state, quick ? ", quick" : "");
    if (!rd_gpu_init(&g))
        return kd_test_finish("prim_reduce_gpu");

    size_t sizes[32];
    const int num_sizes = rd_sizes(sizes, 32, quick, &rng, quick ? 3 : 5, (size_t)1 << 22);
    size_t max_n = 1;
    for (int i = 0; i < num_sizes; i++)
        max_n = sizes[i] > max_n ? sizes[i] : max_n;

    /* Room for an offset of up to 3 floats in front (misaligned starts). */
    float *host = malloc((max_n + 4) * sizeof(float));
    float *d_buf = NULL, *d_out = NULL;
    if (!host || !RD_CUDA(cudaMalloc((void **)&d_buf, (max_n + 4) * sizeof(float))) ||
        !RD_CUDA(cudaMalloc((void **)&d_out, 16 * sizeof(float)))) {
        free(host);
        return kd_test_finish("prim_reduce_gpu");
    }
    test_errors(d_buf, d_out);

    for (int si = 0; si < num_sizes; si++) {
        const size_t n = sizes[si];
        const bool big = n > ((size_t)1 << 22);
        for (int mix = 0; mix < RD_NUM_MIXES; mix++) {
            /* The largest sizes take two mixes; quick runs take two per size. */
            if ((big || quick) && mix != (si % RD_NUM_MIXES) && mix != RD_PLANTED)
                continue;
            for (int variant_of_mix = 0; variant_of_mix < (mix == RD_PLANTED ? 3 : 2);
                 variant_of_mix++) {
                if (big && variant_of_mix > 0)
                    continue;
                rd_fill(&rng, host, n, (rd_mix)mix, variant_of_mix);
                if (!rd_upload(&g, d_buf, host, n))
                    goto done;
                const float want_min = kd_ref_reduce_f32(host, n, 0);
                const float want_max = kd_ref_reduce_f32(host, n, 1);
                for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
                    check_public((kd_reduce_variant)v, KD_REDUCE_MIN, d_buf, n, d_out, want_min,
                                 rd_mix_name((rd_mix)mix));
                    check_public((kd_reduce_variant)v, KD_REDUCE_MAX, d_buf, n, d_out, want_max,
                                 rd_mix_name((rd_mix)mix));
                }
            }
        }
    }

    /* Misaligned starts (the element-wise loads of Reduce6-8) and every block size. */
    for (int si = 0; si < num_sizes; si++) {
        const size_t n = sizes[si];
        if (n > ((size_t)1 << 22) || (si % 2 == 1 && n > 2048))
            continue;
        rd_fill(&rng, host, n + 3, RD_PLANTED, 2);
        if (!rd_upload(&g, d_buf, host, n + 3))
            goto done;
        for (int offset = 0; offset < 4; offset++) {
            const float want_min = kd_ref_reduce_f32(host + offset, n, 0);
            const float want_max = kd_ref_reduce_f32(host + offset, n, 1);
            for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++)
                for (int b = 0; b < KD_REDUCE_NUM_BLOCK_SIZES; b++) {
                    /* Every block size at offset 0; the default one elsewhere. */
                    const int block = kd_reduce_block_sizes[b];
                    if (offset > 0 && block != kd_reduce_default_block_size((kd_reduce_variant)v))
                        continue;
                    check_lanes((kd_reduce_variant)v, block, KD_REDUCE_SHAPE_MIN, d_buf + offset, n,
                                d_out, want_min, offset ? "misaligned" : "block sizes");
                    check_lanes((kd_reduce_variant)v, block, KD_REDUCE_SHAPE_MAX, d_buf + offset, n,
                                d_out, want_max, offset ? "misaligned" : "block sizes");
                }
        }
    }

done:
    cudaFree(d_buf);
    cudaFree(d_out);
    free(host);
    rd_gpu_free(&g);
    return kd_test_finish("prim_reduce_gpu");
}
