/* GPU test: stream compaction against the CPU reference, at the standard
 * sizes plus tile edges and 2^20 + 3, for flag patterns (none, all, random,
 * sparse, runs, any nonzero byte) and payload sets (none: the count alone;
 * one 4-byte; one 16-byte; 4 + 8 + 16 bytes), flags on and off their
 * alignment; then the select-if form with each predicate. Outputs and the
 * count are poisoned first, and every output slot past the count must still
 * hold the poison; each case runs twice on one temporary storage, the
 * second time on other flags, so look-back words left by a run cannot pass
 * for the next run's. Exits 77 without a device. */
#include <stdlib.h>
#include <string.h>

#include "kd_primitives.h"
#include "prim_common.h"
#include "ref_primitives.h"

_Static_assert(KD_REF_NONZERO == (int)KD_COMPACT_NONZERO && KD_REF_LESS == (int)KD_COMPACT_LESS &&
                   KD_REF_AT_LEAST == (int)KD_COMPACT_AT_LEAST,
               "the reference numbers its predicates as the primitive");

enum flags_kind { NONE, ALL, RANDOM_HALF, SPARSE, RUNS, ANY_BYTE, NUM_FLAGS };
static const char *const flag_names[NUM_FLAGS] = {"none", "all", "random half", "sparse", "runs", "any byte"};

enum { NUM_SETS = 4, MAX_SET = 3 };
static const uint32_t payload_sets[NUM_SETS][MAX_SET] = {{0}, {4}, {16}, {4, 8, 16}};
static const int payload_counts[NUM_SETS] = {0, 1, 1, 3};

/* Host arrays sized for the largest case: flags, payload inputs (28 bytes an
 * element at most), the reference's and the device's outputs. */
typedef struct host_bufs {
    uint8_t *flags;
    unsigned char *in, *want, *got;
} host_bufs;

static void make_flags(prim_rng *rng, enum flags_kind kind, uint8_t *flags, size_t n)
{
    uint8_t run_value = 0;
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case NONE: flags[i] = 0; break;
        case ALL: flags[i] = 1; break;
        case RANDOM_HALF: flags[i] = (uint8_t)(prim_rng_u32(rng) >> 31); break;
        case SPARSE: flags[i] = prim_rng_below(rng, 64) == 0; break;
        case RUNS:
            /* Runs of up to 10000 alike, so whole tiles are selected or not. */
            if (prim_rng_below(rng, 5000) == 0)
                run_value ^= 1;
            flags[i] = run_value;
            break;
        case ANY_BYTE: flags[i] = prim_rng_below(rng, 2) ? (uint8_t)prim_rng_below(rng, 256) : 0; break;
        case NUM_FLAGS: break;
        }
    }
}

/* Payload q's input and output at 16-byte aligned offsets of the buffers. */
static void plan(int set, size_t n, const host_bufs *h, kd_ref_payload *ref, size_t *offset, size_t *end)
{
    *end = 0;
    for (int q = 0; q < payload_counts[set]; q++) {
        ref[q].elem_bytes = payload_sets[set][q];
        offset[q] = (*end + 15) / 16 * 16;
        *end = offset[q] + ref[q].elem_bytes * n;
        ref[q].in = h->in + offset[q];
        ref[q].out = h->want + offset[q];
    }
}

static void compare_outputs(const char *what, const unsigned char *got, const unsigned char *want, size_t bytes)
{
    const size_t words = bytes / 4;
    const size_t bad = prim_first_mismatch_u32((const uint32_t *)got, (const uint32_t *)want, words);
    CHECK_MSG(bad == words, "%s: output word %zu is %08x, expected %08x", what, bad,
              bad < words ? ((const uint32_t *)got)[bad] : 0, bad < words ? ((const uint32_t *)want)[bad] : 0);
}

/* One flagged run on the device: poison, compact, download, compare. */
static void run_flagged_once(const char *what, size_t n, int set, const host_bufs *h, const kd_ref_payload *ref,
                             const size_t *offset, size_t end, uint8_t *d_flags, unsigned char *d_in,
                             unsigned char *d_out, uint32_t *d_count, void *d_temp, size_t temp_bytes)
{
    kd_error err;
    uint32_t want_count = 0, got_count = 0;
    memset(h->want, PRIM_POISON_BYTE, end + 16);
    CHECK(kd_ref_compact_flagged(h->flags, n, ref, payload_counts[set], &want_count, &err) == KD_OK);
    kd_split_payload payloads[MAX_SET];
    for (int q = 0; q < payload_counts[set]; q++) {
        payloads[q].d_in = d_in + offset[q];
        payloads[q].d_out = d_out + offset[q];
        payloads[q].elem_bytes = ref[q].elem_bytes;
    }
    prim_upload(d_flags, h->flags, n);
    prim_poison(d_out, end + 16);
    prim_poison(d_count, sizeof(uint32_t));
    PRIM_CUDA_CHECK(kd_compact_flagged(d_temp, &temp_bytes, d_flags, n, payloads, payload_counts[set], d_count, 0));
    PRIM_CUDA_CHECK(cudaDeviceSynchronize());
    prim_download(&got_count, d_count, sizeof got_count);
    prim_download(h->got, d_out, end + 16);
    CHECK_MSG(got_count == want_count, "%s: %u selected, expected %u", what, got_count, want_count);
    compare_outputs(what, h->got, h->want, end + 16);
}

static void run_flagged(prim_rng *rng, size_t n, enum flags_kind kind, int set, bool misalign, const host_bufs *h)
{
    kd_ref_payload ref[MAX_SET];
    size_t offset[MAX_SET], end = 0;
    plan(set, n, h, ref, offset, &end);
    for (size_t i = 0; i < end; i += 4) {
        const uint32_t word = prim_rng_u32(rng);
        memcpy(h->in + i, &word, 4);
    }
    const size_t shift = misalign ? 1 : 0;
    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(kd_compact_flagged(NULL, &temp_bytes, NULL, n, NULL, 0, NULL, 0));
    uint8_t *d_flags_base = prim_device_alloc(n + shift);
    unsigned char *d_in = prim_device_alloc(end + 16), *d_out = prim_device_alloc(end + 16);
    uint32_t *d_count = prim_device_alloc(sizeof(uint32_t));
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_flags_base && d_in && d_out && d_count && d_temp) {
        prim_upload(d_in, h->in, end);
        prim_poison(d_temp, temp_bytes);
        char what[160];
        for (int pass = 0; pass < 2; pass++) {
            /* The second pass: other flags, the same temporary storage. */
            const enum flags_kind k = pass == 0 ? kind : (enum flags_kind)((kind + 2) % NUM_FLAGS);
            make_flags(rng, k, h->flags, n);
            snprintf(what, sizeof what, "flagged n=%zu %s, %d payloads (set %d)%s%s", n, flag_names[k],
                     payload_counts[set], set, misalign ? ", misaligned flags" : "", pass ? ", rerun" : "");
            run_flagged_once(what, n, set, h, ref, offset, end, d_flags_base + shift, d_in, d_out, d_count, d_temp,
                             temp_bytes);
        }
    }
    prim_device_free(d_flags_base);
    prim_device_free(d_in);
    prim_device_free(d_out);
    prim_device_free(d_count);
    prim_device_free(d_temp);
}

/* The select-if form: inputs with about a quarter zeros, a bound that keeps
 * about a third for LESS; misaligned: the input one word off 16 bytes. */
static void run_if(prim_rng *rng, size_t n, kd_compact_pred pred, bool misalign, const host_bufs *h)
{
    const size_t shift = misalign ? 1 : 0;
    uint32_t *in = (uint32_t *)h->in, *want = (uint32_t *)h->want, *got = (uint32_t *)h->got;
    for (size_t i = 0; i < n; i++)
        in[i] = prim_rng_below(rng, 4) == 0 ? 0 : prim_rng_u32(rng);
    const uint32_t bound = 0x40000000u + prim_rng_below(rng, 0x20000000u);
    for (size_t i = 0; i < n + 4; i++)
        want[i] = PRIM_POISON_WORD;
    const uint32_t want_count = (uint32_t)kd_ref_compact_if_u32((kd_ref_pred)pred, bound, in, want, n);
    size_t temp_bytes = 0;
    PRIM_CUDA_CHECK(kd_compact_if_u32(NULL, &temp_bytes, pred, bound, NULL, NULL, n, NULL, 0));
    uint32_t *d_in_base = prim_device_alloc((n + shift) * 4), *d_out = prim_device_alloc((n + 4) * 4);
    uint32_t *d_count = prim_device_alloc(sizeof(uint32_t));
    void *d_temp = prim_device_alloc(temp_bytes);
    if (d_in_base && d_out && d_count && d_temp) {
        uint32_t got_count = 0;
        prim_upload(d_in_base + shift, in, n * 4);
        prim_poison(d_out, (n + 4) * 4);
        prim_poison(d_count, sizeof(uint32_t));
        prim_poison(d_temp, temp_bytes);
        PRIM_CUDA_CHECK(kd_compact_if_u32(d_temp, &temp_bytes, pred, bound, d_in_base + shift, d_out, n, d_count, 0));
        PRIM_CUDA_CHECK(cudaDeviceSynchronize());
        prim_download(&got_count, d_count, sizeof got_count);
        prim_download(got, d_out, (n + 4) * 4);
        char what[160];
        snprintf(what, sizeof what, "select-if n=%zu pred %d bound %08x%s", n, (int)pred, bound,
                 misalign ? ", misaligned input" : "");
        CHECK_MSG(got_count == want_count, "%s: %u selected, expected %u", what, got_count, want_count);
        compare_outputs(what, h->got, h->want, (n + 4) * 4);
    }
    prim_device_free(d_in_base);
    prim_device_free(d_out);
    prim_device_free(d_count);
    prim_device_free(d_temp);
}

static void check_contract(void)
{
    size_t temp_bytes = 0;
    kd_split_payload bad_payload = {NULL, NULL, 12};
    CHECK(kd_compact_flagged(NULL, NULL, NULL, 10, NULL, 0, NULL, 0) == cudaErrorInvalidValue);
    CHECK(kd_compact_flagged(NULL, &temp_bytes, NULL, 10, NULL, KD_COMPACT_MAX_PAYLOADS + 1, NULL, 0) ==
          cudaErrorInvalidValue);
    CHECK(kd_compact_flagged(NULL, &temp_bytes, NULL, (size_t)1 << 32, NULL, 0, NULL, 0) == cudaErrorInvalidValue);
    CHECK(kd_compact_if_u32(NULL, &temp_bytes, KD_COMPACT_NUM_PREDS, 0, NULL, NULL, 10, NULL, 0) ==
          cudaErrorInvalidValue);
    PRIM_CUDA_CHECK(kd_compact_flagged(NULL, &temp_bytes, NULL, 10, &bad_payload, 1, NULL, 0));
    CHECK(temp_bytes > 0);
    void *d_temp = prim_device_alloc(temp_bytes);
    uint8_t *d_flags = prim_device_alloc(16);
    uint32_t *d_count = prim_device_alloc(sizeof(uint32_t));
    if (d_temp && d_flags && d_count) {
        CHECK(kd_compact_flagged(d_temp, &temp_bytes, d_flags, 10, &bad_payload, 1, NULL, 0) ==
              cudaErrorInvalidValue);
        /* Storage smaller than asked for is refused. */
        size_t short_bytes = temp_bytes - 1;
        CHECK(kd_compact_flagged(d_temp, &short_bytes, d_flags, 10, NULL, 0, NULL, 0) == cudaErrorInvalidValue);
        /* An empty input succeeds, moves nothing and counts 0. */
        uint32_t count = 99;
        prim_poison(d_count, sizeof(uint32_t));
        PRIM_CUDA_CHECK(kd_compact_flagged(d_temp, &temp_bytes, NULL, 0, NULL, 0, d_count, 0));
        prim_download(&count, d_count, sizeof count);
        CHECK(count == 0);
        count = 99;
        prim_poison(d_count, sizeof(uint32_t));
        PRIM_CUDA_CHECK(kd_compact_if_u32(d_temp, &temp_bytes, KD_COMPACT_LESS, 5, NULL, NULL, 0, d_count, 0));
        prim_download(&count, d_count, sizeof count);
        CHECK(count == 0);
    }
    prim_device_free(d_temp);
    prim_device_free(d_flags);
    prim_device_free(d_count);
}

static void run_size(prim_rng *rng, size_t n, const host_bufs *h)
{
    if (n <= (1u << 20) + 7) {
        /* Every flag pattern, payload sets in turn; then the odd ones. */
        for (int k = 0; k < NUM_FLAGS; k++)
            run_flagged(rng, n, (enum flags_kind)k, k % NUM_SETS, false, h);
        run_flagged(rng, n, RANDOM_HALF, 3, true, h);
        run_flagged(rng, n, ANY_BYTE, 2, true, h);
        for (int pred = 0; pred < KD_COMPACT_NUM_PREDS; pred++)
            run_if(rng, n, (kd_compact_pred)pred, pred == KD_COMPACT_LESS, h);
    } else {
        run_flagged(rng, n, RANDOM_HALF, 1, false, h);
        run_flagged(rng, n, ANY_BYTE, 2, false, h);
        run_if(rng, n, KD_COMPACT_NONZERO, false, h);
    }
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("prim_compact_gpu: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    prim_rng rng;
    prim_rng_seed(&rng, 36);
    check_contract();
    size_t sizes[24];
    size_t num_sizes = prim_test_sizes(&rng, sizes);
    /* Tile edges (4096 elements a tile), and the seeds' kind of odd size. */
    static const size_t extra[] = {4095, 4096, 4097, 3 * 4096 + 1, (1u << 20) + 3};
    for (size_t e = 0; e < sizeof extra / sizeof extra[0]; e++)
        sizes[num_sizes++] = extra[e];
    size_t max_n = 1;
    for (size_t s = 0; s < num_sizes; s++)
        max_n = sizes[s] > max_n ? sizes[s] : max_n;
    host_bufs h;
    h.flags = malloc(max_n);
    h.in = malloc(max_n * 28 + 64);
    h.want = malloc(max_n * 28 + 64);
    h.got = malloc(max_n * 28 + 64);
    CHECK(h.flags && h.in && h.want && h.got);
    if (h.flags && h.in && h.want && h.got)
        for (size_t s = 0; s < num_sizes; s++)
            run_size(&rng, sizes[s], &h);
    free(h.flags);
    free(h.in);
    free(h.want);
    free(h.got);
    return kd_test_finish("prim_compact_gpu");
}
