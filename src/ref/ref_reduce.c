/* CPU references of the min/max reductions: plain loops with fminf/fmaxf. */
#include "ref_reduce.h"

#include <math.h>

float kd_ref_reduce_f32(const float *in, size_t n, int is_max)
{
    float acc = is_max ? -INFINITY : INFINITY;
    if (is_max)
        for (size_t i = 0; i < n; i++)
            acc = fmaxf(acc, in[i]);
    else
        for (size_t i = 0; i < n; i++)
            acc = fminf(acc, in[i]);
    return acc;
}

void kd_ref_reduce_bounds(const float *const lo[3], const float *const hi[3], size_t n,
                          float out_box[6])
{
    for (int a = 0; a < 3; a++) {
        out_box[a] = kd_ref_reduce_f32(lo[a], n, 0);
        out_box[3 + a] = kd_ref_reduce_f32(hi[a], n, 1);
    }
}

kd_status kd_ref_segmented_bounds(const uint32_t *segment_ids, uint32_t num_segments,
                                  const float *const lo[3], const float *const hi[3], size_t n,
                                  float *out_boxes, kd_error *err)
{
    for (size_t s = 0; s < num_segments; s++)
        for (int a = 0; a < 3; a++) {
            out_boxes[s * 6 + a] = INFINITY;
            out_boxes[s * 6 + 3 + a] = -INFINITY;
        }
    for (size_t i = 0; i < n; i++) {
        const uint32_t s = segment_ids[i];
        if (s >= num_segments)
            return kd_error_set(err, KD_ERR_INVALID, "segment id %u at %zu is not below %u", s, i,
                                num_segments);
        if (i > 0 && s < segment_ids[i - 1])
            return kd_error_set(err, KD_ERR_INVALID, "segment ids decrease at %zu (%u after %u)", i,
                                s, segment_ids[i - 1]);
        float *box = out_boxes + (size_t)s * 6;
        for (int a = 0; a < 3; a++) {
            box[a] = fminf(box[a], lo[a][i]);
            box[3 + a] = fmaxf(box[3 + a], hi[a][i]);
        }
    }
    return KD_OK;
}
