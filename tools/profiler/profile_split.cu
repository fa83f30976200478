// `scankd profile split`: split-by-side next to CUB's DevicePartition::Flagged
// (one segment, sides left or right, one 4-byte payload: the same bytes
// moved), then a builder-like segmented split with straddlers, and a
// device-to-device copy; every result checked against the CPU reference.
#include <cub/device/device_partition.cuh>

#include <algorithm>
#include <string.h>

#include "profile_internal.cuh"
#include "ref_primitives.h"

namespace kdp {
namespace {

struct SplitCase {
    uint32_t num_segments = 1;
    std::vector<uint32_t> ids;
    std::vector<uint8_t> sides;
    std::vector<uint32_t> want_out, want_left, want_right;
    uint32_t want_total = 0;
};

// Sides: left/right at random, plus "both" one time in eight when straddle.
// Segments: one, or random lengths 1..2000 with an empty one now and then.
kd_status make_case(SplitCase &c, const std::vector<uint32_t> &payload, bool segmented,
                    bool straddle, Rng &rng, kd_error *err)
{
    const size_t n = payload.size();
    c.ids.assign(n, 0);
    c.sides.resize(n);
    size_t both = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng.next();
        c.sides[i] = straddle && r % 8 == 0 ? KD_SIDE_BOTH : (r >> 32) & 1 ? KD_SIDE_LEFT : KD_SIDE_RIGHT;
        both += c.sides[i] == KD_SIDE_BOTH;
    }
    if (segmented) {
        uint32_t id = 0;
        for (size_t i = 0; i < n;) {
            const size_t len = 1 + rng.next() % 2000;
            for (size_t j = 0; j < len && i < n; j++)
                c.ids[i++] = id;
            id += rng.next() % 8 == 0 ? 2 : 1;
        }
        c.num_segments = id;
    }
    c.want_out.resize(n + both);
    c.want_left.resize(c.num_segments);
    c.want_right.resize(c.num_segments);
    kd_ref_payload p = {payload.data(), c.want_out.data(), 4};
    return kd_ref_split_by_side(c.ids.data(), c.num_segments, c.sides.data(), n, &p, 1,
                                c.want_left.data(), c.want_right.data(), &c.want_total, err);
}

// Device buffers and the checks of one run of the profile.
struct SplitBench {
    kd_profile_context *ctx;
    size_t n;
    Rng rng;
    std::vector<uint32_t> payload;
    DeviceBuffer<uint32_t> d_in, d_out, d_ids, d_counts;
    DeviceBuffer<uint8_t> d_sides, d_flags;
    DeviceBuffer<int> d_selected;
    DeviceBuffer<unsigned char> d_temp;

    kd_status setup(kd_profile_context *c, size_t count, kd_error *err)
    {
        ctx = c;
        n = count;
        rng = Rng{ctx->options.seed ^ (0x53504C49ull + n)};
        payload.resize(n);
        for (uint32_t &x : payload)
            x = (uint32_t)(rng.next() >> 32);
        cudaError_t e = d_in.alloc(n);
        if (e == cudaSuccess)
            e = d_out.alloc(2 * n);
        if (e == cudaSuccess)
            e = d_ids.alloc(n);
        if (e == cudaSuccess)
            e = d_sides.alloc(n);
        if (e == cudaSuccess)
            e = d_selected.alloc(1);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_in.ptr, payload.data(), n * 4, cudaMemcpyHostToDevice);
        return e == cudaSuccess ? KD_OK : cuda_fail(err, "split inputs", e);
    }

    // Says which output differs first, and where: the payload, the total, or
    // a segment's left or right count.
    void check_split(kd_profile_row &row, const SplitCase &c, const std::vector<uint32_t> &got,
                     const std::vector<uint32_t> &counts)
    {
        if (got != c.want_out) {
            size_t bad = 0;
            while (got[bad] == c.want_out[bad])
                bad++;
            set_failed(row, "payload differs at %zu of %zu", bad, got.size());
            return;
        }
        if (counts.back() != c.want_total) {
            set_failed(row, "total %u, want %u", counts.back(), c.want_total);
            return;
        }
        for (int side = 0; side < 2; side++) {
            const std::vector<uint32_t> &want = side ? c.want_right : c.want_left;
            const uint32_t *have = counts.data() + (side ? c.num_segments : 0);
            uint32_t wrong = 0, first = 0;
            for (uint32_t sgm = 0; sgm < c.num_segments; sgm++)
                if (have[sgm] != want[sgm] && wrong++ == 0)
                    first = sgm;
            if (wrong) {
                set_failed(row, "%u of %u %s counts differ; first: segment %u got %u want %u", wrong,
                           c.num_segments, side ? "right" : "left", first, have[first], want[first]);
                return;
            }
        }
    }

    // Poisons the outputs, runs op once and checks the split against the case.
    cudaError_t verify_split(kd_profile_row &row, const SplitCase &c, const Op &op)
    {
        const size_t total = c.want_out.size();
        std::vector<uint32_t> got(total), counts(2 * (size_t)c.num_segments + 1);
        cudaError_t e = cudaMemsetAsync(d_out.ptr, 0xCD, total * 4, ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(d_counts.ptr, 0xCD, counts.size() * 4, ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemcpy(got.data(), d_out.ptr, total * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(counts.data(), d_counts.ptr, counts.size() * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            check_split(row, c, got, counts);
        return e;
    }

    // Ours on a new case: upload it, size the temporary storage, verify, time.
    kd_status run_ours(const char *name, bool segmented, bool straddle, kd_profile_row *row, kd_error *err)
    {
        SplitCase c;
        kd_status s = make_case(c, payload, segmented, straddle, rng, err);
        if (s != KD_OK)
            return s;
        const double bytes = 4.0 * n + 1.0 * n + 4.0 * c.want_out.size();
        *row = make_row(KD_PROFILE_SPLIT, KD_PROFILE_OURS, name, 0, n, bytes);
        cudaError_t e = d_counts.alloc(2 * (size_t)c.num_segments + 1);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_ids.ptr, c.ids.data(), n * 4, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_sides.ptr, c.sides.data(), n, cudaMemcpyHostToDevice);
        const kd_split_payload p = {d_in.ptr, d_out.ptr, 4};
        uint32_t *left = d_counts.ptr, *right = left + c.num_segments, *total = right + c.num_segments;
        const uint32_t segments = c.num_segments;
        size_t temp_bytes = 0;
        if (e == cudaSuccess)
            e = kd_split_by_side(nullptr, &temp_bytes, d_ids.ptr, segments, d_sides.ptr, n, &p, 1, left, right,
                                 total, ctx->stream);
        if (e == cudaSuccess)
            e = d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, name, e);
        Op op = [&, temp_bytes, p, left, right, total, segments](cudaStream_t st) {
            size_t tb = temp_bytes;
            return kd_split_by_side(d_temp.ptr, &tb, d_ids.ptr, segments, d_sides.ptr, n, &p, 1, left, right,
                                    total, st);
        };
        e = verify_split(*row, c, op);
        return time_row(ctx, *row, e, op, 2 * (size_t)bytes + temp_bytes, err);
    }

    // CUB on the last case's sides as flags (left = selected): the lefts in
    // order, then the rights in reverse order (CUB's convention).
    kd_status run_cub(kd_profile_row *row, kd_error *err)
    {
        *row = make_row(KD_PROFILE_SPLIT, KD_PROFILE_CUB, "cub DevicePartition::Flagged", 0, n, 9.0 * n);
        std::vector<uint8_t> sides(n), flags(n);
        std::vector<uint32_t> want(n);
        cudaError_t e = cudaMemcpy(sides.data(), d_sides.ptr, n, cudaMemcpyDeviceToHost);
        size_t selected = 0;
        for (size_t i = 0; i < n; i++) {
            flags[i] = sides[i] == KD_SIDE_LEFT;
            if (flags[i])
                want[selected++] = payload[i];
        }
        for (size_t i = 0, back = n; i < n; i++)
            if (!flags[i])
                want[--back] = payload[i];
        if (e == cudaSuccess)
            e = d_flags.alloc(n);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_flags.ptr, flags.data(), n, cudaMemcpyHostToDevice);
        size_t temp_bytes = 0;
        if (e == cudaSuccess)
            e = cub::DevicePartition::Flagged(nullptr, temp_bytes, d_in.ptr, d_flags.ptr, d_out.ptr, d_selected.ptr,
                                              (int64_t)n, ctx->stream);
        if (e == cudaSuccess)
            e = d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, row->variant, e);
        Op op = [&, temp_bytes](cudaStream_t st) {
            size_t tb = temp_bytes;
            return cub::DevicePartition::Flagged(d_temp.ptr, tb, d_in.ptr, d_flags.ptr, d_out.ptr, d_selected.ptr,
                                                 (int64_t)n, st);
        };
        e = verify_partition(*row, op, want, selected);
        return time_row(ctx, *row, e, op, 18 * n, err);
    }

    cudaError_t verify_partition(kd_profile_row &row, const Op &op, const std::vector<uint32_t> &want,
                                 size_t selected)
    {
        std::vector<uint32_t> got(n);
        int got_selected = -1;
        cudaError_t e = cudaMemsetAsync(d_out.ptr, 0xCD, n * 4, ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemcpy(got.data(), d_out.ptr, n * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(&got_selected, d_selected.ptr, sizeof got_selected, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && (got != want || (size_t)got_selected != selected))
            set_failed(row, "differs from the reference partition");
        return e;
    }
};

} // namespace

size_t split_device_bytes(size_t n)
{
    // payload in, out (up to 2n), ids, sides, flags, CUB's output, the split's
    // temporary storage (about 2n words) and the copy's destination.
    return 12 * n * sizeof(uint32_t) + 2 * n + ((size_t)64 << 20);
}

kd_status run_split(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows, kd_error *err)
{
    SplitBench b;
    kd_status s = b.setup(ctx, n, err);
    kd_profile_row ours1, cub, ours_seg, copy;
    if (s == KD_OK)
        s = b.run_ours("split-by-side, 1 segment, left/right", false, false, &ours1, err);
    if (s == KD_OK)
        s = b.run_cub(&cub, err);
    if (s == KD_OK)
        s = b.run_ours("split-by-side, segments, 1/8 both", true, true, &ours_seg, err);
    if (s == KD_OK)
        s = copy_row(ctx, KD_PROFILE_SPLIT, b.d_out.ptr, b.d_in.ptr, b.payload.data(), n, &copy, err);
    if (s != KD_OK)
        return s;
    relate(ours1, &copy, nullptr, &cub);
    relate(cub, &copy, nullptr, nullptr);
    relate(ours_seg, &copy, nullptr, nullptr);
    rows.push_back(ours1);
    rows.push_back(cub);
    rows.push_back(ours_seg);
    rows.push_back(copy);
    return KD_OK;
}

} // namespace kdp
