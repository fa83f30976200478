/* CPU references of the GPU primitives: sequential and obvious, on purpose. */
#include "ref_primitives.h"

#include <stdlib.h>
#include <string.h>

void kd_ref_scan_exclusive_i32(const int32_t *in, int32_t *out, size_t n)
{
    uint32_t sum = 0; /* unsigned: wrapping is defined */
    for (size_t i = 0; i < n; i++) {
        uint32_t value = (uint32_t)in[i];
        out[i] = (int32_t)sum;
        sum += value;
    }
}

static kd_status check_ids_sorted(const uint32_t *segment_ids, size_t n, kd_error *err)
{
    for (size_t i = 1; i < n; i++)
        if (segment_ids[i] < segment_ids[i - 1])
            return kd_error_set(err, KD_ERR_INVALID, "segment ids decrease at element %zu (%u after %u)", i,
                                segment_ids[i], segment_ids[i - 1]);
    return KD_OK;
}

kd_status kd_ref_segmented_scan_exclusive_i32(const uint32_t *segment_ids, const int32_t *in, int32_t *out,
                                              size_t n, kd_error *err)
{
    kd_status status = check_ids_sorted(segment_ids, n, err);
    if (status != KD_OK)
        return status;
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || segment_ids[i] != segment_ids[i - 1])
            sum = 0;
        uint32_t value = (uint32_t)in[i];
        out[i] = (int32_t)sum;
        sum += value;
    }
    return KD_OK;
}

void kd_ref_head_flags_to_segment_ids(const uint8_t *head_flags, uint32_t *segment_ids, size_t n)
{
    uint32_t id = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && head_flags[i] != 0)
            id++;
        segment_ids[i] = id;
    }
}

/* Segment id of element i; no id array means one segment. */
static uint32_t segment_of(const uint32_t *segment_ids, size_t i)
{
    return segment_ids ? segment_ids[i] : 0u;
}

kd_status kd_ref_split_by_side(const uint32_t *segment_ids, uint32_t num_segments, const uint8_t *sides, size_t n,
                               const kd_ref_payload *payloads, int num_payloads, uint32_t *left_counts,
                               uint32_t *right_counts, uint32_t *out_total, kd_error *err)
{
    if (n > 0 && num_segments == 0)
        return kd_error_set(err, KD_ERR_INVALID, "%zu elements but no segment", n);
    if (!segment_ids && num_segments > 1)
        return kd_error_set(err, KD_ERR_INVALID, "%u segments need segment ids", num_segments);
    kd_status status = segment_ids ? check_ids_sorted(segment_ids, n, err) : KD_OK;
    if (status != KD_OK)
        return status;
    if (n > 0 && segment_of(segment_ids, n - 1) >= num_segments)
        return kd_error_set(err, KD_ERR_INVALID, "segment id %u out of range (%u segments)", segment_of(segment_ids, n - 1),
                            num_segments);
    for (int q = 0; q < num_payloads; q++)
        if (payloads[q].elem_bytes != 4 && payloads[q].elem_bytes != 8 && payloads[q].elem_bytes != 16)
            return kd_error_set(err, KD_ERR_INVALID, "payload %d: element size %u is not 4, 8 or 16", q,
                                payloads[q].elem_bytes);
    if (left_counts)
        memset(left_counts, 0, (size_t)num_segments * sizeof *left_counts);
    if (right_counts)
        memset(right_counts, 0, (size_t)num_segments * sizeof *right_counts);

    /* Segment by segment: its lefts in input order, then its rights. */
    size_t written = 0;
    size_t start = 0;
    while (start < n) {
        size_t end = start;
        while (end < n && segment_of(segment_ids, end) == segment_of(segment_ids, start))
            end++;
        for (int side_bit = 1; side_bit <= 2; side_bit *= 2) {
            uint32_t count = 0;
            for (size_t i = start; i < end; i++) {
                if (!(sides[i] & side_bit))
                    continue;
                for (int q = 0; q < num_payloads; q++) {
                    size_t bytes = payloads[q].elem_bytes;
                    memcpy((char *)payloads[q].out + written * bytes, (const char *)payloads[q].in + i * bytes,
                           bytes);
                }
                written++;
                count++;
            }
            uint32_t *counts = side_bit == 1 ? left_counts : right_counts;
            if (counts)
                counts[segment_of(segment_ids, start)] = count;
        }
        start = end;
    }
    if (out_total)
        *out_total = (uint32_t)written;
    return KD_OK;
}

kd_status kd_ref_compact_flagged(const uint8_t *flags, size_t n, const kd_ref_payload *payloads, int num_payloads,
                                 uint32_t *num_selected, kd_error *err)
{
    if (n > UINT32_MAX)
        return kd_error_set(err, KD_ERR_INVALID, "%zu elements: a count must fit 32 bits", n);
    for (int q = 0; q < num_payloads; q++)
        if (payloads[q].elem_bytes != 4 && payloads[q].elem_bytes != 8 && payloads[q].elem_bytes != 16)
            return kd_error_set(err, KD_ERR_INVALID, "payload %d: element size %u is not 4, 8 or 16", q,
                                payloads[q].elem_bytes);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!flags[i])
            continue;
        for (int q = 0; q < num_payloads; q++) {
            const size_t bytes = payloads[q].elem_bytes;
            memcpy((char *)payloads[q].out + kept * bytes, (const char *)payloads[q].in + i * bytes, bytes);
        }
        kept++;
    }
    if (num_selected)
        *num_selected = (uint32_t)kept;
    return KD_OK;
}

bool kd_ref_pred_keeps(kd_ref_pred pred, uint32_t bound, uint32_t x)
{
    switch (pred) {
    case KD_REF_NONZERO: return x != 0;
    case KD_REF_LESS: return x < bound;
    case KD_REF_AT_LEAST: return x >= bound;
    }
    return false;
}

size_t kd_ref_compact_if_u32(kd_ref_pred pred, uint32_t bound, const uint32_t *in, uint32_t *out, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kd_ref_pred_keeps(pred, bound, in[i]))
            out[kept++] = in[i];
    return kept;
}

kd_status kd_ref_radix_sort_pairs_u32(const uint32_t *keys_in, uint32_t *keys_out, const uint32_t *values_in,
                                      uint32_t *values_out, size_t n, kd_error *err)
{
    if (n == 0)
        return KD_OK;
    uint32_t *keys_tmp = malloc(n * sizeof *keys_tmp);
    uint32_t *values_tmp = malloc(n * sizeof *values_tmp);
    if (!keys_tmp || !values_tmp) {
        free(keys_tmp);
        free(values_tmp);
        return kd_error_set(err, KD_ERR_NOMEM, "radix sort reference: no memory for %zu pairs", n);
    }
    memcpy(keys_out, keys_in, n * sizeof *keys_out);
    memcpy(values_out, values_in, n * sizeof *values_out);
    /* Four stable counting sorts by byte, least significant first; after an
     * even number of passes the result is back in the output arrays. */
    uint32_t *src_k = keys_out, *src_v = values_out, *dst_k = keys_tmp, *dst_v = values_tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t offsets[256] = {0};
        for (size_t i = 0; i < n; i++)
            offsets[(src_k[i] >> shift) & 0xffu]++;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t count = offsets[d];
            offsets[d] = sum;
            sum += count;
        }
        for (size_t i = 0; i < n; i++) {
            size_t at = offsets[(src_k[i] >> shift) & 0xffu]++;
            dst_k[at] = src_k[i];
            dst_v[at] = src_v[i];
        }
        uint32_t *swap = src_k;
        src_k = dst_k;
        dst_k = swap;
        swap = src_v;
        src_v = dst_v;
        dst_v = swap;
    }
    free(keys_tmp);
    free(values_tmp);
    return KD_OK;
}
