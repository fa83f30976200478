/* CPU test of the primitives' CPU references (src/ref_primitives.c): small
 * hand-computed cases (the thesis' split example among them) and properties
 * on random inputs, so CI without a GPU still checks what the GPU tests trust. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref_primitives.h"
#include "test_support.h"

static uint64_t rng_state = 12345;
static uint32_t next_u32(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static void test_scan(void)
{
    /* The thesis' example (its printed fifth sum, 14, is a typo for 15). */
    const int32_t in[8] = {3, 1, 7, 0, 4, 1, 6, 3};
    const int32_t want[8] = {0, 3, 4, 11, 11, 15, 16, 22};
    int32_t out[8];
    kd_ref_scan_exclusive_i32(in, out, 8);
    CHECK(memcmp(out, want, sizeof want) == 0);

    /* Wrapping, and in place. */
    int32_t wrap[3] = {INT32_MAX, 1, 5};
    kd_ref_scan_exclusive_i32(wrap, wrap, 3);
    CHECK(wrap[0] == 0 && wrap[1] == INT32_MAX && wrap[2] == INT32_MIN);
    kd_ref_scan_exclusive_i32(NULL, NULL, 0); /* n == 0 touches nothing */

    /* Property: consecutive differences give back the input. */
    enum { N = 10007 };
    static int32_t big_in[N], big_out[N];
    for (int i = 0; i < N; i++)
        big_in[i] = (int32_t)next_u32();
    kd_ref_scan_exclusive_i32(big_in, big_out, N);
    int bad = 0;
    for (int i = 0; i + 1 < N; i++)
        bad += (uint32_t)big_out[i + 1] - (uint32_t)big_out[i] != (uint32_t)big_in[i];
    CHECK(big_out[0] == 0 && bad == 0);
}

static void test_segmented_scan(void)
{
    const uint32_t ids[6] = {0, 0, 0, 2, 2, 5}; /* ids 1, 3, 4: empty segments */
    const int32_t in[6] = {1, 2, 3, 4, 5, 6};
    const int32_t want[6] = {0, 1, 3, 0, 4, 0};
    int32_t out[6];
    kd_error err;
    CHECK(kd_ref_segmented_scan_exclusive_i32(ids, in, out, 6, &err) == KD_OK);
    CHECK(memcmp(out, want, sizeof want) == 0);

    const uint32_t ones[4] = {0, 1, 2, 3}; /* all of length 1: all zero */
    int32_t out4[4] = {9, 9, 9, 9};
    CHECK(kd_ref_segmented_scan_exclusive_i32(ones, in, out4, 4, &err) == KD_OK);
    CHECK(out4[0] == 0 && out4[1] == 0 && out4[2] == 0 && out4[3] == 0);

    const uint32_t bad_ids[3] = {0, 2, 1};
    CHECK(kd_ref_segmented_scan_exclusive_i32(bad_ids, in, out, 3, &err) == KD_ERR_INVALID);
    CHECK(err.status == KD_ERR_INVALID && strstr(err.message, "decrease") != NULL);

    /* Property: one segment equals the plain scan. */
    enum { N = 5000 };
    static uint32_t zero_ids[N];
    static int32_t big_in[N], seg_out[N], plain_out[N];
    for (int i = 0; i < N; i++)
        big_in[i] = (int32_t)next_u32();
    CHECK(kd_ref_segmented_scan_exclusive_i32(zero_ids, big_in, seg_out, N, &err) == KD_OK);
    kd_ref_scan_exclusive_i32(big_in, plain_out, N);
    CHECK(memcmp(seg_out, plain_out, sizeof seg_out) == 0);
}

static void test_head_flags(void)
{
    const uint8_t flags[6] = {0, 0, 1, 0, 7, 1}; /* element 0 starts one anyway */
    const uint32_t want[6] = {0, 0, 1, 1, 2, 3};
    uint32_t ids[6];
    kd_ref_head_flags_to_segment_ids(flags, ids, 6);
    CHECK(memcmp(ids, want, sizeof want) == 0);
    const uint8_t all[3] = {1, 1, 1};
    kd_ref_head_flags_to_segment_ids(all, ids, 3);
    CHECK(ids[0] == 0 && ids[1] == 1 && ids[2] == 2);
}

static void test_split(void)
{
    kd_error err;
    /* The thesis' example: sides r l r l l r move t1 t3 t4 | t0 t2 t5. */
    const uint8_t sides[6] = {2, 1, 2, 1, 1, 2};
    const uint32_t tri[6] = {0, 1, 2, 3, 4, 5};
    const uint32_t want[6] = {1, 3, 4, 0, 2, 5};
    uint32_t out[6], left = 0, right = 0, total = 0;
    kd_ref_payload payload = {tri, out, 4};
    CHECK(kd_ref_split_by_side(NULL, 1, sides, 6, &payload, 1, &left, &right, &total, &err) == KD_OK);
    CHECK(memcmp(out, want, sizeof want) == 0 && left == 3 && right == 3 && total == 6);

    /* Segments with empty ones and straddlers, three payload sizes. */
    const uint32_t ids[5] = {0, 0, 2, 2, 2};
    const uint8_t seg_sides[5] = {2, 3, 1, 2, 3};
    const uint32_t want_order[7] = {1, 0, 1, 2, 4, 3, 4};
    const uint32_t want_left[4] = {1, 0, 2, 0}, want_right[4] = {2, 0, 2, 0};
    uint32_t in4[5];
    uint64_t in8[5];
    uint32_t in16[5][4];
    for (int i = 0; i < 5; i++) {
        in4[i] = 100 + (uint32_t)i;
        in8[i] = 0x100000000ull * (uint64_t)i + 7;
        for (int c = 0; c < 4; c++)
            in16[i][c] = (uint32_t)(i * 10 + c);
    }
    uint32_t out4[7];
    uint64_t out8[7];
    uint32_t out16[7][4];
    kd_ref_payload payloads[3] = {{in4, out4, 4}, {in8, out8, 8}, {in16, out16, 16}};
    uint32_t lefts[4], rights[4];
    CHECK(kd_ref_split_by_side(ids, 4, seg_sides, 5, payloads, 3, lefts, rights, &total, &err) == KD_OK);
    CHECK(total == 7);
    CHECK(memcmp(lefts, want_left, sizeof want_left) == 0 && memcmp(rights, want_right, sizeof want_right) == 0);
    int bad = 0;
    for (int k = 0; k < 7; k++) {
        const uint32_t i = want_order[k];
        bad += out4[k] != in4[i] || out8[k] != in8[i] || memcmp(out16[k], in16[i], 16) != 0;
    }
    CHECK(bad == 0);

    /* Invalid input is refused with a reason. */
    CHECK(kd_ref_split_by_side(ids, 2, seg_sides, 5, NULL, 0, NULL, NULL, NULL, &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "out of range") != NULL);
    kd_ref_payload odd = {in4, out4, 12};
    CHECK(kd_ref_split_by_side(ids, 4, seg_sides, 5, &odd, 1, NULL, NULL, NULL, &err) == KD_ERR_INVALID);
    const uint32_t down[2] = {1, 0};
    CHECK(kd_ref_split_by_side(down, 2, seg_sides, 2, NULL, 0, NULL, NULL, NULL, &err) == KD_ERR_INVALID);

    /* Property: with one segment and no straddlers, the thesis' addressing
     * (left: prefix of left flags; right: i - prefix + number of lefts). */
    enum { N = 4099 };
    static uint8_t rand_sides[N];
    static uint32_t index[N], split_out[N], prefix[N + 1];
    for (int i = 0; i < N; i++) {
        rand_sides[i] = (uint8_t)(1 + next_u32() % 2);
        index[i] = (uint32_t)i;
        prefix[i + 1] = prefix[i] + (rand_sides[i] == 1);
    }
    kd_ref_payload idx_payload = {index, split_out, 4};
    CHECK(kd_ref_split_by_side(NULL, 1, rand_sides, N, &idx_payload, 1, &left, &right, &total, &err) == KD_OK);
    CHECK(left == prefix[N] && left + right == N && total == N);
    bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t address = rand_sides[i] == 1 ? prefix[i] : (uint32_t)i - prefix[i] + prefix[N];
        bad += split_out[address] != (uint32_t)i;
    }
    CHECK(bad == 0);
}

static void test_sort(void)
{
    kd_error err;
    const uint32_t keys[6] = {5, 1, 5, 0, 0xffffffffu, 1};
    const uint32_t values[6] = {0, 1, 2, 3, 4, 5};
    const uint32_t want_keys[6] = {0, 1, 1, 5, 5, 0xffffffffu};
    const uint32_t want_values[6] = {3, 1, 5, 0, 2, 4}; /* equal keys keep input order */
    uint32_t out_keys[6], out_values[6];
    CHECK(kd_ref_radix_sort_pairs_u32(keys, out_keys, values, out_values, 6, &err) == KD_OK);
    CHECK(memcmp(out_keys, want_keys, sizeof want_keys) == 0);
    CHECK(memcmp(out_values, want_values, sizeof want_values) == 0);
    CHECK(kd_ref_radix_sort_pairs_u32(NULL, NULL, NULL, NULL, 0, &err) == KD_OK);

    /* Properties: sorted, stable, a permutation of the input. */
    enum { N = 100003 };
    static uint32_t k_in[N], v_in[N], k_out[N], v_out[N];
    static unsigned char seen[N];
    for (int i = 0; i < N; i++) {
        k_in[i] = next_u32() % 3 == 0 ? next_u32() % 16 : next_u32();
        v_in[i] = (uint32_t)i;
    }
    CHECK(kd_ref_radix_sort_pairs_u32(k_in, k_out, v_in, v_out, N, &err) == KD_OK);
    int unsorted = 0, unstable = 0, wrong = 0;
    for (int i = 0; i < N; i++) {
        if (i > 0 && k_out[i] < k_out[i - 1])
            unsorted++;
        if (i > 0 && k_out[i] == k_out[i - 1] && v_out[i] < v_out[i - 1])
            unstable++;
        if (v_out[i] >= N || seen[v_out[i]] || k_in[v_out[i]] != k_out[i])
            wrong++;
        else
            seen[v_out[i]] = 1;
    }
    CHECK(unsorted == 0 && unstable == 0 && wrong == 0);
}

static void test_compact_flagged(void)
{
    /* Any nonzero flag selects; every payload moves alike, in input order. */
    kd_error err;
    const uint8_t flags[7] = {0, 1, 0, 2, 255, 0, 1};
    const uint32_t words[7] = {10, 11, 12, 13, 14, 15, 16};
    const uint32_t want_words[4] = {11, 13, 14, 16};
    uint32_t quads[7][4], out_words[7], out_quads[7][4];
    for (int i = 0; i < 7; i++)
        for (int c = 0; c < 4; c++)
            quads[i][c] = (uint32_t)(100 * i + c);
    kd_ref_payload payloads[2] = {{words, out_words, 4}, {quads, out_quads, 16}};
    uint32_t count = 99;
    CHECK(kd_ref_compact_flagged(flags, 7, payloads, 2, &count, &err) == KD_OK);
    CHECK(count == 4 && memcmp(out_words, want_words, sizeof want_words) == 0);
    CHECK(out_quads[0][0] == 100 && out_quads[1][3] == 303 && out_quads[2][1] == 401 && out_quads[3][2] == 602);

    /* Empty input, none selected, no payload (the count alone). */
    CHECK(kd_ref_compact_flagged(NULL, 0, NULL, 0, &count, &err) == KD_OK && count == 0);
    const uint8_t none[3] = {0, 0, 0};
    count = 99;
    CHECK(kd_ref_compact_flagged(none, 3, payloads, 1, &count, &err) == KD_OK && count == 0);
    CHECK(kd_ref_compact_flagged(flags, 7, NULL, 0, &count, &err) == KD_OK && count == 4);

    const kd_ref_payload bad = {words, out_words, 12};
    CHECK(kd_ref_compact_flagged(flags, 7, &bad, 1, &count, &err) == KD_ERR_INVALID);
}

static void test_compact_if(void)
{
    const uint32_t in[6] = {0, 5, 0, 0xffffffffu, 7, 1};
    const uint32_t want_nonzero[4] = {5, 0xffffffffu, 7, 1}, want_less[4] = {0, 5, 0, 1},
                   want_at_least[2] = {0xffffffffu, 7};
    uint32_t out[6];
    CHECK(kd_ref_compact_if_u32(KD_REF_NONZERO, 12345, in, out, 6) == 4);
    CHECK(memcmp(out, want_nonzero, sizeof want_nonzero) == 0);
    CHECK(kd_ref_compact_if_u32(KD_REF_LESS, 6, in, out, 6) == 4);
    CHECK(memcmp(out, want_less, sizeof want_less) == 0);
    CHECK(kd_ref_compact_if_u32(KD_REF_AT_LEAST, 6, in, out, 6) == 2);
    CHECK(memcmp(out, want_at_least, sizeof want_at_least) == 0);
    CHECK(kd_ref_compact_if_u32(KD_REF_NONZERO, 0, NULL, NULL, 0) == 0);

    /* Properties: LESS and AT_LEAST split the input; each output is the
     * flagged compaction of the predicate's flags (same order). */
    enum { N = 50021 };
    static uint32_t big[N], less[N], at_least[N], flagged[N];
    static uint8_t flags[N];
    for (int i = 0; i < N; i++)
        big[i] = next_u32() % 4 == 0 ? 0 : next_u32();
    const uint32_t bound = 0x30000000u; /* next_u32 gives 31 bits: keeps about half */
    const size_t kept_less = kd_ref_compact_if_u32(KD_REF_LESS, bound, big, less, N);
    const size_t kept_at_least = kd_ref_compact_if_u32(KD_REF_AT_LEAST, bound, big, at_least, N);
    CHECK(kept_less + kept_at_least == N && kept_less > N / 4 && kept_at_least > N / 4);
    for (int i = 0; i < N; i++)
        flags[i] = (uint8_t)kd_ref_pred_keeps(KD_REF_LESS, bound, big[i]);
    kd_error err;
    kd_ref_payload p = {big, flagged, 4};
    uint32_t count = 0;
    CHECK(kd_ref_compact_flagged(flags, N, &p, 1, &count, &err) == KD_OK);
    CHECK(count == kept_less && memcmp(flagged, less, kept_less * 4) == 0);
}

int main(void)
{
    test_scan();
    test_segmented_scan();
    test_head_flags();
    test_split();
    test_sort();
    test_compact_flagged();
    test_compact_if();
    return kd_test_finish("prim_ref_cpu");
}
