// The builder's calls into scankd's primitives (kd_primitives.h), with the
// temporary-storage dance done once here, and the plain CPU loops that stand
// in for them under host emulation (they compute the same results: min/max
// and stable splits are exact).
#include <math.h>
#include <string.h>

#include "gpu_build_common.cuh"
#include "kd_kernel_clock.h"

// The profile's events (none under emulation, nor in the emulation library).
void kd_gb_reduce_timer_begin(kd_gpu_builder *b, int profile)
{
    if (!profile || b->host || b->num_timed >= KD_GB_MAX_TIMED)
        return;
#if KD_DEVICE_CODE
    cudaEventRecord(b->reduce_ev[2 * b->num_timed], b->stream);
    if (b->kernel_clock_on) {
        kd_kernel_clock_tag_begin();
        b->kernel_clock_tags++;
    }
#endif
}

void kd_gb_reduce_timer_end(kd_gpu_builder *b, int profile)
{
    if (!profile || b->host || b->num_timed >= KD_GB_MAX_TIMED)
        return;
#if KD_DEVICE_CODE
    if (b->kernel_clock_on && b->kernel_clock_tags > 0) {
        kd_kernel_clock_tag_end();
        b->kernel_clock_tags--;
    }
    cudaEventRecord(b->reduce_ev[2 * b->num_timed + 1], b->stream);
    b->num_timed++;
#endif
}

void kd_gb_step_mark(kd_gpu_builder *b, int profile, int step)
{
    if (!profile || b->host || b->num_step_marks >= KD_GB_MAX_STEP_MARKS)
        return;
#if KD_DEVICE_CODE
    cudaEventRecord(b->step_ev[b->num_step_marks], b->stream);
    b->step_of[b->num_step_marks++] = step;
#else
    (void)step;
#endif
}

#if KD_DEVICE_CODE
// A primitive's call under CUB's temporary-storage contract: size, then the
// builder's scratch buffer grown to fit, then the call. `call` takes the
// temporary pointer and its size.
template <typename Call>
static kd_status with_temp(kd_gpu_builder *b, const Call &call, const char *what, kd_error *err)
{
    size_t bytes = 0;
    KD_TRY(kd_gb_cuda(err, call(NULL, &bytes), what));
    KD_TRY(kd_gb_ensure(b, KD_GB_TEMP, bytes, 0, err));
    bytes = b->buf[KD_GB_TEMP].bytes;
    return kd_gb_cuda(err, call(b->buf[KD_GB_TEMP].ptr, &bytes), what);
}
#endif

kd_status kd_gb_reduce_bounds(kd_gpu_builder *b, kd_reduce_variant variant, const kd_gb_refs *refs,
                              uint32_t n, float *d_out_box, kd_error *err)
{
    if (b->host) {
        float box[6] = {INFINITY, INFINITY, INFINITY, -INFINITY, -INFINITY, -INFINITY};
        for (uint32_t i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                box[k] = fminf(box[k], refs->lo[k][i]);
                box[3 + k] = fmaxf(box[3 + k], refs->hi[k][i]);
            }
        }
        memcpy(d_out_box, box, sizeof box);
        return KD_OK;
    }
    const float *lo[3] = {refs->lo[0], refs->lo[1], refs->lo[2]};
    const float *hi[3] = {refs->hi[0], refs->hi[1], refs->hi[2]};
    (void)variant, (void)lo, (void)hi;
    KD_GB_ON_DEVICE(with_temp(
        b, [&](void *temp, size_t *bytes) { return kd_reduce_bounds(variant, temp, bytes, lo, hi, d_out_box, n, b->stream); },
        "kd_reduce_bounds", err));
}

kd_status kd_gb_segmented_bounds(kd_gpu_builder *b, kd_reduce_variant variant,
                                 const kd_gb_refs *refs, uint32_t n, uint32_t num_segments,
                                 float *d_out_boxes, kd_error *err)
{
    if (b->host) {
        for (uint32_t s = 0; s < num_segments; s++) {
            for (int k = 0; k < 3; k++) {
                d_out_boxes[6 * s + k] = INFINITY;
                d_out_boxes[6 * s + 3 + k] = -INFINITY;
            }
        }
        for (uint32_t i = 0; i < n; i++) {
            float *box = d_out_boxes + 6 * (size_t)refs->seg[i];
            for (int k = 0; k < 3; k++) {
                box[k] = fminf(box[k], refs->lo[k][i]);
                box[3 + k] = fmaxf(box[3 + k], refs->hi[k][i]);
            }
        }
        return KD_OK;
    }
    const float *lo[3] = {refs->lo[0], refs->lo[1], refs->lo[2]};
    const float *hi[3] = {refs->hi[0], refs->hi[1], refs->hi[2]};
    (void)variant, (void)lo, (void)hi;
    KD_GB_ON_DEVICE(with_temp(
        b,
        [&](void *temp, size_t *bytes) {
            return kd_segmented_reduce_bounds(variant, temp, bytes, refs->seg, num_segments, lo, hi, d_out_boxes, n,
                                              b->stream);
        },
        "kd_segmented_reduce_bounds", err));
}

// The payload list of a reference set: triangle and the six bound arrays,
// and the segment ids where the output keeps them.
static int ref_payloads(const kd_gb_refs *in, const kd_gb_refs *out, kd_split_payload *p)
{
    int n = 0;
    if (out->seg) {
        p[n].d_in = in->seg;
        p[n].d_out = out->seg;
        p[n++].elem_bytes = 4;
    }
    p[n].d_in = in->tri;
    p[n].d_out = out->tri;
    p[n++].elem_bytes = 4;
    for (int k = 0; k < 3; k++) {
        p[n].d_in = in->lo[k];
        p[n].d_out = out->lo[k];
        p[n++].elem_bytes = 4;
        p[n].d_in = in->hi[k];
        p[n].d_out = out->hi[k];
        p[n++].elem_bytes = 4;
    }
    return n;
}

kd_status kd_gb_split(kd_gpu_builder *b, const kd_gb_refs *in, const uint8_t *d_sides, uint32_t n,
                      uint32_t num_segments, const kd_gb_refs *out, uint32_t *d_left_counts,
                      uint32_t *d_right_counts, uint32_t *d_out_total, kd_error *err)
{
    if (b->host) {
        // Counts per segment, then each segment's lefts and rights in input order.
        memset(d_left_counts, 0, num_segments * sizeof(uint32_t));
        memset(d_right_counts, 0, num_segments * sizeof(uint32_t));
        for (uint32_t i = 0; i < n; i++) {
            d_left_counts[in->seg[i]] += (d_sides[i] & 1u) != 0;
            d_right_counts[in->seg[i]] += (d_sides[i] & 2u) != 0;
        }
        uint32_t total = 0, seg = KD_GB_NONE, left_at = 0, right_at = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (in->seg[i] != seg) {
                // Segments no element names hold nothing: the next one starts here.
                uint32_t start = total;
                seg = in->seg[i];
                left_at = start;
                right_at = start + d_left_counts[seg];
                total = start + d_left_counts[seg] + d_right_counts[seg];
            }
            for (int side = 0; side < 2; side++) {
                if (!(d_sides[i] & (1u << side)))
                    continue;
                uint32_t dst = side == 0 ? left_at++ : right_at++;
                out->tri[dst] = in->tri[i];
                if (out->seg)
                    out->seg[dst] = seg;
                for (int k = 0; k < 3; k++) {
                    out->lo[k][dst] = in->lo[k][i];
                    out->hi[k][dst] = in->hi[k][i];
                }
            }
        }
        if (d_out_total)
            *d_out_total = total;
        return KD_OK;
    }
    kd_split_payload payloads[KD_SPLIT_MAX_PAYLOADS];
    const int num_payloads = ref_payloads(in, out, payloads);
    (void)num_payloads;
    KD_GB_ON_DEVICE(with_temp(
        b,
        [&](void *temp, size_t *bytes) {
            return kd_split_by_side(temp, bytes, in->seg, num_segments, d_sides, n, payloads, num_payloads,
                                    d_left_counts, d_right_counts, d_out_total, b->stream);
        },
        "kd_split_by_side", err));
}
