/* GPU test: segmented bounds (per-node boxes) on every rung against the CPU
 * reference: one segment, all of length 1, random lengths, empty segments
 * (leading, inner, trailing), ids past num_segments (ignored), on the
 * issue's sizes and random ones; every block size on some; single-lane
 * min and max. Records are poisoned before each run. KD_TEST_QUICK=1 keeps
 * sizes <= 2^20. */
#include <stdio.h>
#include <stdlib.h>

#include "kd_primitives.h"
#include "prim_reduce_gpu_util.h"
#include "ref_reduce.h"

static rd_gpu g;

typedef enum seg_shape { SEG_ONE, SEG_SINGLES, SEG_RANDOM, SEG_EMPTIES, SEG_IGNORED, SEG_NUM } seg_shape;
static const char *k_shape_names[SEG_NUM] = {"one segment", "all length 1", "random lengths",
                                             "empty segments", "ids past the end"};

static uint32_t random_length(rd_rng *rng)
{
    const uint64_t r = rd_below(rng, 10);
    return (uint32_t)(r < 6 ? 1 + rd_below(rng, 40) : r < 9 ? 40 + rd_below(rng, 560)
                                                            : 600 + rd_below(rng, 20000));
}

/* Fills ids[0..n) for a shape; returns num_segments. */
static uint32_t make_ids(rd_rng *rng, uint32_t *ids, size_t n, seg_shape shape)
{
    switch (shape) {
    case SEG_ONE:
        for (size_t i = 0; i < n; i++)
            ids[i] = 0;
        return 1;
    case SEG_SINGLES:
        for (size_t i = 0; i < n; i++)
            ids[i] = (uint32_t)i;
        return (uint32_t)(n > 0 ? n : 1);
    default: {
        const bool gaps = shape == SEG_EMPTIES;
        uint32_t id = gaps ? 3 : 0; /* three empty segments in front */
        size_t i = 0;
        while (i < n) {
            uint32_t len = random_length(rng);
            for (uint32_t j = 0; j < len && i < n; j++)
                ids[i++] = id;
            id += gaps && rd_below(rng, 3) == 0 ? 1 + (uint32_t)rd_below(rng, 4) : 1;
        }
        const uint32_t used = n > 0 ? ids[n - 1] + 1 : id;
        if (shape == SEG_EMPTIES)
            return used + 5; /* and five behind */
        if (shape == SEG_IGNORED && used > 1)
            return used - 1; /* the last run's id is out of range */
        return used;
    }
    }
}

static void compare_records(const float *got, const float *want, uint32_t num_segments,
                            const char *who, size_t n, const char *what)
{
    int reported = 0;
    for (size_t s = 0; s < num_segments; s++)
        for (int k = 0; k < 6; k++)
            if (!rd_same(got[s * 6 + k], want[s * 6 + k])) {
                kd_test_failures++;
                if (reported++ < 5)
                    fprintf(stderr, "%s n=%zu (%s): segment %zu box[%d] got %g want %g\n", who, n,
                            what, s, k, got[s * 6 + k], want[s * 6 + k]);
            }
    kd_test_checks++;
}

/* Host and device record buffers, grown to the largest case seen. */
static float *want, *got, *d_records;
static size_t records_capacity;

static bool ensure_records(size_t num_segments)
{
    const size_t count = num_segments * 6;
    if (count <= records_capacity)
        return true;
    free(want);
    free(got);
    cudaFree(d_records);
    d_records = NULL;
    records_capacity = 0;
    want = malloc(count * sizeof(float));
    got = malloc(count * sizeof(float));
    if (!want || !got || !RD_CUDA(cudaMalloc((void **)&d_records, count * sizeof(float))))
        return false;
    records_capacity = count;
    return true;
}

static bool run_segmented(kd_reduce_variant v, int block, kd_reduce_shape shape,
                          const uint32_t *d_ids, uint32_t num_segments, const float *const *lanes,
                          float *d_records, size_t n, float *got)
{
    const int num_lanes = kd_reduce_shape_lanes(shape);
    size_t bytes = 0;
    if (!RD_CUDA(kd_reduce_segmented_lanes(v, block, shape, NULL, &bytes, d_ids, num_segments,
                                           lanes, d_records, n, g.stream)))
        return false;
    if (!rd_gpu_temp(&g, bytes) || !rd_gpu_poison(&g, d_records, (size_t)num_segments * num_lanes))
        return false;
    if (!RD_CUDA(kd_reduce_segmented_lanes(v, block, shape, g.d_temp, &bytes, d_ids, num_segments,
                                           lanes, d_records, n, g.stream)))
        return false;
    return rd_download(&g, got, d_records, (size_t)num_segments * num_lanes);
}

/* One case: ids on the device, six lanes of boxes, the CPU reference in
 * `want` (num_segments records of six floats). */
typedef struct seg_case {
    const uint32_t *d_ids;
    uint32_t num_segments;
    const float *lanes[6];
    size_t n;
    const char *shape_name;
} seg_case;

/* Through the public launcher, every rung at its default block size. */
static bool check_public(const seg_case *c)
{
    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
        size_t bytes = 0;
        const float *lo[3] = {c->lanes[0], c->lanes[1], c->lanes[2]};
        const float *hi[3] = {c->lanes[3], c->lanes[4], c->lanes[5]};
        if (!RD_CUDA(kd_segmented_reduce_bounds((kd_reduce_variant)v, NULL, &bytes, c->d_ids, c->num_segments, lo, hi,
                                                d_records, c->n, g.stream)))
            continue;
        if (!rd_gpu_temp(&g, bytes) || !rd_gpu_poison(&g, d_records, (size_t)c->num_segments * 6))
            return false;
        if (!RD_CUDA(kd_segmented_reduce_bounds((kd_reduce_variant)v, g.d_temp, &bytes, c->d_ids, c->num_segments,
                                                lo, hi, d_records, c->n, g.stream)) ||
            !rd_download(&g, got, d_records, (size_t)c->num_segments * 6))
            continue;
        compare_records(got, want, c->num_segments, kd_reduce_variant_name((kd_reduce_variant)v), c->n,
                        c->shape_name);
    }
    return true;
}

/* Every rung at every block size. */
static void check_block_sizes(const seg_case *c)
{
    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++)
        for (int b = 0; b < KD_REDUCE_NUM_BLOCK_SIZES; b++) {
            char who[96];
            snprintf(who, sizeof who, "%s block %d", kd_reduce_variant_name((kd_reduce_variant)v),
                     kd_reduce_block_sizes[b]);
            if (run_segmented((kd_reduce_variant)v, kd_reduce_block_sizes[b], KD_REDUCE_SHAPE_BOUNDS, c->d_ids,
                              c->num_segments, c->lanes, d_records, c->n, got))
                compare_records(got, want, c->num_segments, who, c->n, c->shape_name);
        }
}

/* Single-lane min and max (lane 0 and lane 3 as inputs). */
static void check_single_lanes(const seg_case *c)
{
    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++)
        for (int op = 0; op < 2; op++) {
            const float *lane[1] = {c->lanes[op ? 3 : 0]};
            if (!run_segmented((kd_reduce_variant)v, 256, op ? KD_REDUCE_SHAPE_MAX : KD_REDUCE_SHAPE_MIN, c->d_ids,
                               c->num_segments, lane, d_records, c->n, got))
                continue;
            int bad = 0;
            for (uint32_t s = 0; s < c->num_segments; s++)
                bad += !rd_same(got[s], want[(size_t)s * 6 + (op ? 3 : 0)]);
            CHECK_MSG(bad == 0, "%s single-lane %s n=%zu (%s): %d segments wrong",
                      kd_reduce_variant_name((kd_reduce_variant)v), op ? "max" : "min", c->n, c->shape_name, bad);
        }
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_reduce_segmented_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    const bool quick = rd_quick();
    rd_rng rng = {rd_seed() ^ 0x5E65ull};
    printf("prim_reduce_segmented_gpu: seed %#llx%s\n", (unsigned long long)rng.state,
           quick ? ", quick" : "");
    if (!rd_gpu_init(&g))
        return kd_test_finish("prim_reduce_segmented_gpu");

    size_t sizes[32];
    const int num_sizes = rd_sizes(sizes, 32, quick, &rng, quick ? 2 : 3, (size_t)1 << 21);
    size_t max_n = 1;
    for (int i = 0; i < num_sizes; i++)
        max_n = sizes[i] > max_n ? sizes[i] : max_n;
    const size_t stride = (max_n + 3) & ~(size_t)3;

    float *host = malloc(6 * stride * sizeof(float));
    uint32_t *ids = malloc((max_n + 1) * sizeof(uint32_t));
    float *d_buf = NULL;
    uint32_t *d_ids = NULL;
    if (!host || !ids || !RD_CUDA(cudaMalloc((void **)&d_buf, 6 * stride * sizeof(float))) ||
        !RD_CUDA(cudaMalloc((void **)&d_ids, (max_n + 1) * sizeof(uint32_t))))
        goto done;

    for (int si = 0; si < num_sizes; si++) {
        const size_t n = sizes[si];
        const bool big = n > ((size_t)1 << 22);
        for (int shape = 0; shape < SEG_NUM; shape++) {
            if (big && shape != SEG_ONE && shape != SEG_RANDOM)
                continue;
            uint32_t num_segments = make_ids(&rng, ids, n, (seg_shape)shape);
            if (n == 0)
                num_segments = 4; /* every segment empty */
            const uint32_t ref_segments =
                shape == SEG_IGNORED && n > 0 && ids[n - 1] >= num_segments ? ids[n - 1] + 1
                                                                            : num_segments;
            if (!ensure_records(ref_segments))
                goto done;
            const float *lanes[6], *host_lo[3], *host_hi[3];
            for (int k = 0; k < 6; k++) {
                float *h = host + k * stride;
                rd_fill(&rng, h, n, (rd_mix)((k + si + shape) % RD_NUM_MIXES), k);
                if (!rd_upload(&g, d_buf + k * stride, h, n))
                    goto done;
                lanes[k] = d_buf + k * stride;
                if (k < 3)
                    host_lo[k] = h;
                else
                    host_hi[k - 3] = h;
            }
            if (!rd_upload_bytes(&g, d_ids, ids, n * sizeof(uint32_t)))
                goto done;
            /* The reference sees the ignored ids as one more segment, dropped after. */
            kd_error err;
            CHECK(kd_ref_segmented_bounds(ids, ref_segments, host_lo, host_hi, n, want, &err) ==
                  KD_OK);
            seg_case c = {d_ids, num_segments, {lanes[0], lanes[1], lanes[2], lanes[3], lanes[4], lanes[5]}, n,
                          k_shape_names[shape]};
            if (!check_public(&c))
                goto done;
            /* Every block size and the single lanes where it stays cheap. */
            if (n > ((size_t)1 << 21) || (shape != SEG_RANDOM && shape != SEG_EMPTIES))
                continue;
            check_block_sizes(&c);
            check_single_lanes(&c);
        }
    }

done:
    cudaFree(d_buf);
    cudaFree(d_ids);
    cudaFree(d_records);
    free(host);
    free(ids);
    free(want);
    free(got);
    rd_gpu_free(&g);
    return kd_test_finish("prim_reduce_segmented_gpu");
}
