/* CPU test of the reduction references: hand-computed cases (signed zeros,
 * infinities, empty input, empty segments), properties on random data
 * (the result is an element, and no element is beyond it), and the
 * segmented reference against per-segment plain reductions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "prim_reduce_data.h"
#include "ref_reduce.h"
#include "test_support.h"

static void test_hand_cases(void)
{
    const float a[] = {3.0f, -2.5f, 7.0f, -0.0f, 1e-30f, -2.5f};
    CHECK(kd_ref_reduce_f32(a, 6, 0) == -2.5f);
    CHECK(kd_ref_reduce_f32(a, 6, 1) == 7.0f);
    CHECK(kd_ref_reduce_f32(a, 1, 0) == 3.0f && kd_ref_reduce_f32(a, 1, 1) == 3.0f);
    CHECK(kd_ref_reduce_f32(a, 0, 0) == INFINITY);
    CHECK(kd_ref_reduce_f32(a, 0, 1) == -INFINITY);

    const float zeros[] = {0.0f, -0.0f, 5.0f};
    CHECK(kd_ref_reduce_f32(zeros, 3, 0) == 0.0f); /* -0 or +0: equal by value */
    const float neg_zeros[] = {-1.0f, -0.0f, 0.0f, -7.0f};
    CHECK(kd_ref_reduce_f32(neg_zeros, 4, 1) == 0.0f);

    const float infs[] = {INFINITY, -INFINITY, 0.0f};
    CHECK(kd_ref_reduce_f32(infs, 3, 0) == -INFINITY);
    CHECK(kd_ref_reduce_f32(infs, 3, 1) == INFINITY);
    const float all_pos_inf[] = {INFINITY, INFINITY};
    CHECK(kd_ref_reduce_f32(all_pos_inf, 2, 0) == INFINITY);
    CHECK(kd_ref_reduce_f32(all_pos_inf, 2, 1) == INFINITY);

    /* Bounds: lo.x lo.y lo.z / hi.x hi.y hi.z of three boxes. */
    const float lx[] = {0, -1, 2}, ly[] = {5, 6, 4}, lz[] = {-0.0f, 0.0f, 1};
    const float hx[] = {1, 0, 3}, hy[] = {7, 6.5f, 5}, hz[] = {2, 1, INFINITY};
    const float *lo[3] = {lx, ly, lz}, *hi[3] = {hx, hy, hz};
    float box[6];
    kd_ref_reduce_bounds(lo, hi, 3, box);
    CHECK(box[0] == -1 && box[1] == 4 && box[2] == 0.0f);
    CHECK(box[3] == 3 && box[4] == 7 && box[5] == INFINITY);
    kd_ref_reduce_bounds(lo, hi, 0, box);
    CHECK(box[0] == INFINITY && box[2] == INFINITY && box[3] == -INFINITY && box[5] == -INFINITY);

    /* Segments 0 and 2 hold boxes, 1 and 3 are empty. */
    const uint32_t ids[] = {0, 0, 2};
    float boxes[4 * 6];
    kd_error err;
    CHECK(kd_ref_segmented_bounds(ids, 4, lo, hi, 3, boxes, &err) == KD_OK);
    CHECK(boxes[0] == -1 && boxes[1] == 5 && boxes[2] == 0.0f);
    CHECK(boxes[3] == 1 && boxes[4] == 7 && boxes[5] == 2);
    CHECK(boxes[6] == INFINITY && boxes[9] == -INFINITY && boxes[11] == -INFINITY);
    CHECK(boxes[12] == 2 && boxes[13] == 4 && boxes[14] == 1);
    CHECK(boxes[15] == 3 && boxes[16] == 5 && boxes[17] == INFINITY);
    CHECK(boxes[18] == INFINITY && boxes[23] == -INFINITY);

    /* Bad ids are reported, not followed. */
    const uint32_t decreasing[] = {0, 2, 1};
    CHECK(kd_ref_segmented_bounds(decreasing, 4, lo, hi, 3, boxes, &err) == KD_ERR_INVALID);
    const uint32_t too_big[] = {0, 1, 4};
    CHECK(kd_ref_segmented_bounds(too_big, 4, lo, hi, 3, boxes, &err) == KD_ERR_INVALID);
}

static void test_properties(rd_rng *rng)
{
    enum { N = 5000 };
    static float v[N];
    for (int mix = 0; mix < RD_NUM_MIXES; mix++)
        for (int sub = 0; sub < 3; sub++) {
            const size_t n = 1 + (size_t)rd_below(rng, N);
            rd_fill(rng, v, n, (rd_mix)mix, sub);
            const float lo = kd_ref_reduce_f32(v, n, 0), hi = kd_ref_reduce_f32(v, n, 1);
            bool lo_found = false, hi_found = false, ordered = true;
            for (size_t i = 0; i < n; i++) {
                lo_found |= v[i] == lo;
                hi_found |= v[i] == hi;
                ordered &= !(v[i] < lo) && !(v[i] > hi);
            }
            CHECK_MSG(lo_found && hi_found && ordered, "mix %s n=%zu", rd_mix_name((rd_mix)mix), n);
            if (mix == RD_PLANTED)
                CHECK(lo == -1e30f && hi == 1e30f);
            if (mix == RD_ZERO_EXTREME)
                CHECK((sub & 1 ? hi : lo) == 0.0f);
        }
}

static void test_segmented_against_plain(rd_rng *rng)
{
    enum { N = 20000 };
    static float lanes[6][N];
    static uint32_t ids[N];
    static float boxes[(N + 64) * 6];
    const float *lo[3] = {lanes[0], lanes[1], lanes[2]}, *hi[3] = {lanes[3], lanes[4], lanes[5]};
    for (int k = 0; k < 6; k++)
        rd_fill(rng, lanes[k], N, (rd_mix)(k % RD_NUM_MIXES), k);
    uint32_t id = 2;
    for (size_t i = 0; i < N;) {
        const size_t len = 1 + (size_t)rd_below(rng, 300);
        for (size_t j = 0; j < len && i < N; j++)
            ids[i++] = id;
        id += 1 + (uint32_t)rd_below(rng, 2);
    }
    const uint32_t num_segments = ids[N - 1] + 3;
    kd_error err;
    CHECK(kd_ref_segmented_bounds(ids, num_segments, lo, hi, N, boxes, &err) == KD_OK);
    int bad = 0;
    for (uint32_t s = 0; s < num_segments; s++) {
        size_t begin = 0;
        while (begin < N && ids[begin] < s)
            begin++;
        size_t end = begin;
        while (end < N && ids[end] == s)
            end++;
        const float *slo[3] = {lo[0] + begin, lo[1] + begin, lo[2] + begin};
        const float *shi[3] = {hi[0] + begin, hi[1] + begin, hi[2] + begin};
        float box[6];
        kd_ref_reduce_bounds(slo, shi, end - begin, box);
        for (int k = 0; k < 6; k++)
            bad += box[k] != boxes[s * 6 + k];
    }
    CHECK_MSG(bad == 0, "%d segment values differ from plain reductions", bad);
}

int main(void)
{
    rd_rng rng = {rd_seed()};
    test_hand_cases();
    test_properties(&rng);
    test_segmented_against_plain(&rng);
    return kd_test_finish("prim_reduce_ref");
}
