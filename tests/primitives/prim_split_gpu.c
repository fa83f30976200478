/* GPU test: split-by-side against the CPU reference, at the standard sizes,
 * segment shapes (one segment with and without ids, random lengths with
 * empty segments, all of length 1), sides (all left, all right, all both,
 * random) and payload sets (none; one 4-byte; 4 + 8 + 16 bytes). Outputs,
 * counts and total are poisoned first; slots past the total must stay
 * poisoned. Exits 77 without a device. */
#include <stdlib.h>
#include <string.h>

#include "kd_primitives.h"
#include "prim_common.h"
#include "ref_primitives.h"

enum shape { ONE_NO_IDS, ONE_WITH_IDS, RANDOM_WITH_EMPTY, ALL_LENGTH_ONE, NUM_SHAPES };
static const char *const shape_names[NUM_SHAPES] = {"one segment (no ids)", "one segment (ids)",
                                                    "random + empty segments", "all length 1"};
enum sides_kind { ALL_LEFT, ALL_RIGHT, ALL_BOTH, RANDOM_SIDES, NUM_SIDES };
static const char *const side_names[NUM_SIDES] = {"all left", "all right", "all both", "random"};

/* Payload element sizes of each set. */
static const uint32_t payload_sets[3][3] = {{0}, {4}, {4, 8, 16}};
static const int payload_counts[3] = {0, 1, 3};

typedef struct split_case {
    size_t n;
    enum shape shape;
    enum sides_kind sides_kind;
    int payload_set;
    bool misalign; /* sides and ids off their 16-byte alignment */
} split_case;

static uint32_t make_ids(prim_rng *rng, enum shape shape, uint32_t *ids, size_t n)
{
    uint32_t id = shape == RANDOM_WITH_EMPTY ? prim_rng_below(rng, 3) : 0;
    const uint32_t mean_length = 1 + prim_rng_below(rng, 4000);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && shape == ALL_LENGTH_ONE)
            id++;
        if (i > 0 && shape == RANDOM_WITH_EMPTY && prim_rng_below(rng, mean_length) == 0)
            id += 1 + (prim_rng_below(rng, 4) == 0 ? prim_rng_below(rng, 5) : 0);
        ids[i] = id;
    }
    if (shape == ONE_NO_IDS || shape == ONE_WITH_IDS)
        return 1;
    /* A few empty segments after the last element too. */
    return (n ? ids[n - 1] + 1 : 1) + (shape == RANDOM_WITH_EMPTY ? 3 : 0);
}

/* Where each payload's input and output sit in the shared buffers. */
typedef struct payload_layout {
    int count;
    kd_ref_payload ref[3];
    size_t in_offset[3], out_offset[3], in_end, out_end;
} payload_layout;

/* Counts and outputs of one split, the reference's or the device's. */
typedef struct split_result {
    const uint32_t *left, *right;
    uint32_t total;
    const unsigned char *out;
} split_result;

/* Payload q's input and output at fixed offsets, each 16-byte aligned (the
 * launcher wants natural alignment). */
static void plan_payloads(const split_case *c, size_t n, unsigned char *payload_in, unsigned char *expect_out,
                          payload_layout *p)
{
    p->count = payload_counts[c->payload_set];
    p->in_end = p->out_end = 0;
    for (int q = 0; q < p->count; q++) {
        p->ref[q].elem_bytes = payload_sets[c->payload_set][q];
        p->in_offset[q] = (p->in_end + 15) / 16 * 16;
        p->out_offset[q] = (p->out_end + 15) / 16 * 16;
        p->in_end = p->in_offset[q] + p->ref[q].elem_bytes * n;
        p->out_end = p->out_offset[q] + p->ref[q].elem_bytes * 2 * n;
        p->ref[q].in = payload_in + p->in_offset[q];
        p->ref[q].out = expect_out + p->out_offset[q];
    }
}

static void compare_split(const char *what, const payload_layout *p, size_t n, uint32_t num_segments,
                          const split_result *got, const split_result *expect)
{
    CHECK_MSG(got->total == expect->total, "%s: total %u, expected %u", what, got->total, expect->total);
    size_t bad = prim_first_mismatch_u32(got->left, expect->left, num_segments);
    CHECK_MSG(bad == num_segments, "%s: segment %zu left count %u, expected %u", what, bad,
              bad < num_segments ? got->left[bad] : 0, bad < num_segments ? expect->left[bad] : 0);
    bad = prim_first_mismatch_u32(got->right, expect->right, num_segments);
    CHECK_MSG(bad == num_segments, "%s: segment %zu right count %u, expected %u", what, bad,
              bad < num_segments ? got->right[bad] : 0, bad < num_segments ? expect->right[bad] : 0);
    /* Whole output arrays, so slots past the total must still hold poison. */
    for (int q = 0; q < p->count; q++) {
        const size_t words = 2 * n * p->ref[q].elem_bytes / 4;
        const uint32_t *g = (const uint32_t *)(got->out + p->out_offset[q]);
        const uint32_t *e = (const uint32_t *)(expect->out + p->out_offset[q]);
        bad = prim_first_mismatch_u32(g, e, words);
        CHECK_MSG(bad == words, "%s: payload %d (%u bytes) word %zu (element %zu) is %08x, expected %08x", what, q,
                  p->ref[q].elem_bytes, bad, bad / (p->ref[q].elem_bytes / 4), bad < words ? g[bad] : 0,
                  bad < words ? e[bad] : 0);
    }
}

static void run_case(prim_rng *rng, const split_case *c, uint32_t *ids, uint8_t *sides, unsigned char *payload_in,
                     unsigned char *expect_out, unsigned char *got_out)
{
    const size_t n = c->n;
    const uint32_t num_segments = make_ids(rng, c->shape, ids, n);
    for (size_t i = 0; i < n; i++)
        sides[i] = c->sides_kind == RANDOM_SIDES ? (uint8_t)(1 + prim_rng_below(rng, 3))
                                                 : (uint8_t)(c->sides_kind + 1);
    for (size_t i = 0; i < n * 28 + 32; i += 4) {
        uint32_t word = prim_rng_u32(rng);
        memcpy(payload_in + i, &word, 4);
    }

    /* Host reference. */
    payload_layout lay;
    plan_payloads(c, n, payload_in, expect_out, &lay);
    const int num_payloads = lay.count;
    const size_t in_end = lay.in_end, out_end = lay.out_end;
    uint32_t *expect_left = calloc(num_segments, sizeof(uint32_t));
    uint32_t *expect_right = calloc(num_segments, sizeof(uint32_t));
    uint32_t *got_left = malloc(num_segments * sizeof(uint32_t));
    uint32_t *got_right = malloc(num_segments * sizeof(uint32_t));
    uint32_t expect_total = 0, got_total = 0;
    kd_error err;
    memset(expect_out, PRIM_POISON_BYTE, out_end);
    CHECK(kd_ref_split_by_side(c->shape == ONE_NO_IDS ? NULL : ids, num_segments, sides, n, lay.ref, num_payloads,
                               expect_left, expect_right, &expect_total, &err) == KD_OK);

    /* Device buffers: misalignment shifts sides by a byte, ids by a word. */
    const size_t shift = c->misalign ? 1 : 0;
    uint32_t *d_ids_base = prim_device_alloc((n + shift) * sizeof(uint32_t));
    uint8_t *d_sides_base = prim_device_alloc(n + shift);
    unsigned char *d_payload_in = prim_device_alloc(in_end + 1);
    unsigned char *d_payload_out = prim_device_alloc(out_end + 1);
    uint32_t *d_counts = prim_device_alloc((2 * (size_t)num_segments + 1) * sizeof(uint32_t));
    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(kd_split_by_side(NULL, &temp_bytes, NULL, num_segments, NULL, n, NULL, num_payloads, NULL, NULL,
                                     NULL, 0));
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_ids_base && d_sides_base && d_payload_in && d_payload_out && d_counts && d_temp && expect_left &&
        expect_right && got_left && got_right) {
        uint32_t *d_ids = d_ids_base + shift;
        uint8_t *d_sides = d_sides_base + shift;
        prim_upload(d_ids, ids, n * sizeof(uint32_t));
        prim_upload(d_sides, sides, n);
        prim_upload(d_payload_in, payload_in, in_end);
        prim_poison(d_payload_out, out_end);
        prim_poison(d_counts, (2 * (size_t)num_segments + 1) * sizeof(uint32_t));
        prim_poison(d_temp, temp_bytes);
        kd_split_payload payloads[3];
        for (int q = 0; q < num_payloads; q++) {
            payloads[q].d_in = d_payload_in + lay.in_offset[q];
            payloads[q].d_out = d_payload_out + lay.out_offset[q];
            payloads[q].elem_bytes = lay.ref[q].elem_bytes;
        }
        uint32_t *d_left = d_counts, *d_right = d_counts + num_segments, *d_total = d_counts + 2 * num_segments;
        PRIM_CUDA_CHECK(kd_split_by_side(d_temp, &temp_bytes, c->shape == ONE_NO_IDS ? NULL : d_ids, num_segments,
                                         d_sides, n, payloads, num_payloads, d_left, d_right, d_total, 0));
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());
        prim_download(got_left, d_left, num_segments * sizeof(uint32_t));
        prim_download(got_right, d_right, num_segments * sizeof(uint32_t));
        prim_download(&got_total, d_total, sizeof(uint32_t));
        prim_download(got_out, d_payload_out, out_end);

        char what[160];
        snprintf(what, sizeof what, "split n=%zu %s, %s, %d payloads%s", n, shape_names[c->shape],
                 side_names[c->sides_kind], num_payloads, c->misalign ? ", misaligned" : "");
        const split_result got = {got_left, got_right, got_total, got_out};
        const split_result expect = {expect_left, expect_right, expect_total, expect_out};
        compare_split(what, &lay, n, num_segments, &got, &expect);
    }
    prim_device_free(d_temp);
    prim_device_free(d_ids_base);
    prim_device_free(d_sides_base);
    prim_device_free(d_payload_in);
    prim_device_free(d_payload_out);
    prim_device_free(d_counts);
    free(expect_left);
    free(expect_right);
    free(got_left);
    free(got_right);
}

static void check_contract(void)
{
    size_t temp_bytes = 0;
    kd_split_payload bad_payload = {NULL, NULL, 12};
    CHECK(kd_split_by_side(NULL, NULL, NULL, 1, NULL, 10, NULL, 0, NULL, NULL, NULL, 0) == cudaErrorInvalidValue);
    CHECK(kd_split_by_side(NULL, &temp_bytes, NULL, 1, NULL, 10, NULL, KD_SPLIT_MAX_PAYLOADS + 1, NULL, NULL, NULL,
                           0) == cudaErrorInvalidValue);
    PRIM_CUDA_CHECK(kd_split_by_side(NULL, &temp_bytes, NULL, 1, NULL, 10, &bad_payload, 1, NULL, NULL, NULL, 0));
    void *d_temp = prim_device_alloc(temp_bytes);
    uint8_t *d_sides = prim_device_alloc(16);
    if (d_temp && d_sides)
        CHECK(kd_split_by_side(d_temp, &temp_bytes, NULL, 1, d_sides, 10, &bad_payload, 1, NULL, NULL, NULL, 0) ==
              cudaErrorInvalidValue);
    prim_device_free(d_temp);
    prim_device_free(d_sides);
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_split_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    prim_rng rng;
    prim_rng_seed(&rng, 3);
    check_contract();
    size_t sizes[16];
    size_t num_sizes = prim_test_sizes(&rng, sizes);
    size_t max_n = 1;
    for (size_t s = 0; s < num_sizes; s++)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    uint32_t *ids = malloc(max_n * sizeof(uint32_t));
    uint8_t *sides = malloc(max_n);
    unsigned char *payload_in = malloc(max_n * 28 + 64);
    unsigned char *expect_out = malloc(max_n * 56 + 64);
    unsigned char *got_out = malloc(max_n * 56 + 64);
    CHECK(ids && sides && payload_in && expect_out && got_out);
    if (!ids || !sides || !payload_in || !expect_out || !got_out)
        return kd_test_finish("prim_split_gpu");

    for (size_t s = 0; s < num_sizes; s++) {
        const size_t n = sizes[s];
        if (n <= (1u << 20) + 7) {
            /* Every shape x sides combination, payload sets in turn. */
            int set = 0;
            for (int shape = 0; shape < NUM_SHAPES; shape++)
                for (int k = 0; k < NUM_SIDES; k++) {
                    split_case c = {n, (enum shape)shape, (enum sides_kind)k, set, false};
                    run_case(&rng, &c, ids, sides, payload_in, expect_out, got_out);
                    set = (set + 1) % 3;
                }
            split_case c1 = {n, ONE_WITH_IDS, RANDOM_SIDES, 2, true};
            run_case(&rng, &c1, ids, sides, payload_in, expect_out, got_out);
            split_case c2 = {n, RANDOM_WITH_EMPTY, RANDOM_SIDES, 2, true};
            run_case(&rng, &c2, ids, sides, payload_in, expect_out, got_out);
        } else {
            split_case c1 = {n, ONE_NO_IDS, RANDOM_SIDES, 1, false};
            run_case(&rng, &c1, ids, sides, payload_in, expect_out, got_out);
            split_case c2 = {n, RANDOM_WITH_EMPTY, RANDOM_SIDES, 2, false};
            run_case(&rng, &c2, ids, sides, payload_in, expect_out, got_out);
            split_case c3 = {n, ALL_LENGTH_ONE, ALL_BOTH, 1, false};
            run_case(&rng, &c3, ids, sides, payload_in, expect_out, got_out);
        }
    }
    /* Segmented inputs of 2^19 to 2^20 elements take tiles of two vectors
     * per thread (smaller ones one, larger four). */
    if (max_n >= 600000) {
        split_case c = {600000, RANDOM_WITH_EMPTY, RANDOM_SIDES, 2, false};
        run_case(&rng, &c, ids, sides, payload_in, expect_out, got_out);
    }
    free(ids);
    free(sides);
    free(payload_in);
    free(expect_out);
    free(got_out);
    return kd_test_finish("prim_split_gpu");
}
