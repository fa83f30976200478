/* GPU test: fused bounds (six arrays -> one box) on every rung against the
 * CPU reference: the sizes and random ones, mixed values per lane,
 * lanes sharing or not sharing a 16-byte phase, every block size.
 * KD_TEST_QUICK=1 keeps sizes <= 2^20. */
#include <stdio.h>
#include <stdlib.h>

#include "kd_primitives.h"
#include "prim_reduce_gpu_util.h"
#include "ref_reduce.h"

static rd_gpu g;

static void compare_box(const float got[6], const float want[6], const char *who, size_t n,
                        const char *what)
{
    for (int k = 0; k < 6; k++)
        CHECK_MSG(rd_same(got[k], want[k]), "%s n=%zu (%s): box[%d] got %g want %g", who, n, what,
                  k, got[k], want[k]);
}

static void check_public(kd_reduce_variant v, const float *const lo[3], const float *const hi[3],
                         size_t n, float *d_out, const float want[6], const char *what)
{
    size_t bytes = 0;
    if (!RD_CUDA(kd_reduce_bounds(v, NULL, &bytes, lo, hi, d_out, n, g.stream)))
        return;
    if (!rd_gpu_temp(&g, bytes) || !rd_gpu_poison(&g, d_out, 6))
        return;
    if (!RD_CUDA(kd_reduce_bounds(v, g.d_temp, &bytes, lo, hi, d_out, n, g.stream)))
        return;
    float got[6];
    if (rd_download(&g, got, d_out, 6))
        compare_box(got, want, kd_reduce_variant_name(v), n, what);
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_reduce_bounds_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    const bool quick = rd_quick();
    rd_rng rng = {rd_seed() ^ 0xB0B0ull};
    printf("prim_reduce_bounds_gpu: seed %#llx%s\n", (unsigned long long)rng.state,
           quick ? ", quick" : "");
    if (!rd_gpu_init(&g))
        return kd_test_finish("prim_reduce_bounds_gpu");

    size_t sizes[32];
    const int num_sizes = rd_sizes(sizes, 32, quick, &rng, quick ? 2 : 4, (size_t)1 << 21);
    size_t max_n = 1;
    for (int i = 0; i < num_sizes; i++)
        max_n = sizes[i] > max_n ? sizes[i] : max_n;
    const size_t stride = (max_n + 4 + 3) & ~(size_t)3; /* lanes start 16-byte aligned */

    float *host = malloc(6 * stride * sizeof(float));
    float *d_buf = NULL, *d_out = NULL;
    if (!host || !RD_CUDA(cudaMalloc((void **)&d_buf, 6 * stride * sizeof(float))) ||
        !RD_CUDA(cudaMalloc((void **)&d_out, 6 * sizeof(float)))) {
        free(host);
        return kd_test_finish("prim_reduce_bounds_gpu");
    }

    /* Bad arguments are refused. */
    {
        size_t bytes = 0;
        CHECK(kd_reduce_bounds(KD_REDUCE_NUM_VARIANTS, NULL, &bytes, NULL, NULL, d_out, 0,
                               g.stream) == cudaErrorInvalidValue);
        CHECK(kd_reduce_bounds(KD_REDUCE2, NULL, NULL, NULL, NULL, d_out, 0, g.stream) ==
              cudaErrorInvalidValue);
    }

    for (int si = 0; si < num_sizes; si++) {
        const size_t n = sizes[si];
        const bool big = n > ((size_t)1 << 22);
        /* Phases: all lanes aligned; all shifted alike; each lane its own shift. */
        static const int phases[3][6] = {{0, 0, 0, 0, 0, 0}, {3, 3, 3, 3, 3, 3}, {0, 1, 2, 3, 1, 2}};
        for (int ph = 0; ph < 3; ph++) {
            if (big && ph == 1)
                continue;
            const float *lo[3], *hi[3];
            const float *host_lo[3], *host_hi[3];
            for (int k = 0; k < 6; k++) {
                float *h = host + k * stride + phases[ph][k];
                const rd_mix mix = (rd_mix)((k + si + ph) % RD_NUM_MIXES);
                rd_fill(&rng, h, n, mix, k + ph);
                if (!rd_upload(&g, d_buf + k * stride + phases[ph][k], h, n))
                    goto done;
                const float *d = d_buf + k * stride + phases[ph][k];
                if (k < 3) {
                    lo[k] = d;
                    host_lo[k] = h;
                } else {
                    hi[k - 3] = d;
                    host_hi[k - 3] = h;
                }
            }
            float want[6];
            kd_ref_reduce_bounds(host_lo, host_hi, n, want);
            char what[64];
            snprintf(what, sizeof what, "phase set %d", ph);
            for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++)
                check_public((kd_reduce_variant)v, lo, hi, n, d_out, want, what);

            /* Every block size on the small and random sizes. */
            if (big || n > ((size_t)1 << 21))
                continue;
            const float *lanes[6] = {lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]};
            for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++)
                for (int b = 0; b < KD_REDUCE_NUM_BLOCK_SIZES; b++) {
                    float got[6];
                    char who[96];
                    snprintf(who, sizeof who, "%s block %d", kd_reduce_variant_name((kd_reduce_variant)v),
                             kd_reduce_block_sizes[b]);
                    if (rd_run_lanes(&g, (kd_reduce_variant)v, kd_reduce_block_sizes[b],
                                     KD_REDUCE_SHAPE_BOUNDS, lanes, n, d_out, got))
                        compare_box(got, want, who, n, what);
                }
        }
    }

done:
    cudaFree(d_buf);
    cudaFree(d_out);
    free(host);
    rd_gpu_free(&g);
    return kd_test_finish("prim_reduce_bounds_gpu");
}
