// `scankd profile compact`: stream compaction next to CUB's DeviceSelect:
// flagged with 4-byte and 16-byte elements against DeviceSelect::Flagged,
// remove-the-zeros (select-if) against DeviceSelect::If, split-by-side used
// as a compaction (flags as sides, side 0 dropped: the composition the single
// pass replaces), and a device-to-device copy; every result checked against
// the CPU reference. Half the words are zero and the flags mark the others,
// so every row keeps the same elements.
#include <cub/device/device_select.cuh>

#include <string.h>

#include "profile_internal.cuh"
#include "ref_primitives.h"

namespace kdp {

size_t compact_device_bytes(size_t n)
{
    // 4-byte words in and out, 16-byte elements in and out, flags, the
    // temporary storage (CUB's and the split's, a few bytes an element) and
    // a margin.
    return 48 * n + ((size_t)64 << 20);
}

namespace {

// CUB's select-if predicate: remove the zeros.
struct nonzero_op {
    __host__ __device__ bool operator()(const uint32_t &x) const { return x != 0u; }
};

// An operation that follows the temporary-storage contract (a null d_temp:
// only the size).
using TempOp = std::function<cudaError_t(void *d_temp, size_t &temp_bytes, cudaStream_t stream)>;

// Device buffers, the expected outputs and the checks of one size.
struct CompactBench {
    kd_profile_context *ctx;
    size_t n;
    std::vector<uint32_t> words, want_words;
    std::vector<uint4> quads, want_quads;
    std::vector<uint8_t> flags;
    uint32_t want_count = 0;
    DeviceBuffer<uint32_t> d_words, d_words_out, d_count;
    DeviceBuffer<uint4> d_quads, d_quads_out;
    DeviceBuffer<uint8_t> d_flags;
    DeviceBuffer<unsigned char> d_temp;

    // Words zero or random (never zero) at even odds, the flags marking the
    // nonzero ones, 16-byte elements at random; the reference's outputs.
    kd_status make_inputs(kd_error *err)
    {
        Rng rng{ctx->options.seed ^ (0x434F4D50ull + n)};
        words.resize(n), flags.resize(n), quads.resize(n), want_words.resize(n), want_quads.resize(n);
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = rng.next();
            words[i] = r >> 63 ? (uint32_t)r | 1u : 0u;
            flags[i] = words[i] != 0;
            const uint64_t s = rng.next();
            quads[i] = make_uint4((uint32_t)s, (uint32_t)(s >> 32), (uint32_t)r, (uint32_t)i);
        }
        const kd_ref_payload payloads[2] = {{words.data(), want_words.data(), 4},
                                            {quads.data(), want_quads.data(), 16}};
        return kd_ref_compact_flagged(flags.data(), n, payloads, 2, &want_count, err);
    }

    kd_status setup(kd_profile_context *c, size_t count, kd_error *err)
    {
        ctx = c;
        n = count;
        kd_status s = make_inputs(err);
        if (s != KD_OK)
            return s;
        cudaError_t e = d_words.alloc(n);
        if (e == cudaSuccess)
            e = d_words_out.alloc(n);
        if (e == cudaSuccess)
            e = d_count.alloc(1);
        if (e == cudaSuccess)
            e = d_quads.alloc(n);
        if (e == cudaSuccess)
            e = d_quads_out.alloc(n);
        if (e == cudaSuccess)
            e = d_flags.alloc(n);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_words.ptr, words.data(), n * 4, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_quads.ptr, quads.data(), n * 16, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_flags.ptr, flags.data(), n, cudaMemcpyHostToDevice);
        return e == cudaSuccess ? KD_OK : cuda_fail(err, "compact inputs", e);
    }

    // Poisoned output and count, one run, both compared with the reference.
    cudaError_t verify(kd_profile_row &row, const Op &op, bool wide)
    {
        void *d_out = wide ? (void *)d_quads_out.ptr : (void *)d_words_out.ptr;
        const void *want = wide ? (const void *)want_quads.data() : (const void *)want_words.data();
        const size_t elem = wide ? 16 : 4;
        std::vector<unsigned char> got((size_t)want_count * elem);
        uint32_t got_count = 0;
        cudaError_t e = cudaMemsetAsync(d_out, 0xCD, n * elem, ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(d_count.ptr, 0xCD, sizeof(uint32_t), ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemcpy(&got_count, d_count.ptr, sizeof got_count, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(got.data(), d_out, got.size(), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            return e;
        if (got_count != want_count)
            set_failed(row, "%u selected, want %u", got_count, want_count);
        else if (!got.empty() && memcmp(got.data(), want, got.size()) != 0)
            set_failed(row, "the selected elements differ from the reference");
        return cudaSuccess;
    }

    // One row: size the temporary storage, verify, then time. GB/s count the
    // input read, the flags read (reads_flags) and the selected written.
    kd_status measure(kd_profile_row *row, kd_profile_kind kind, const char *name, bool wide, bool reads_flags,
                      const TempOp &op, kd_error *err)
    {
        const double elem = wide ? 16.0 : 4.0;
        const double bytes = elem * n + (reads_flags ? 1.0 * n : 0.0) + elem * want_count;
        *row = make_row(KD_PROFILE_COMPACT, kind, name, 0, n, bytes);
        size_t temp_bytes = 0;
        cudaError_t e = op(nullptr, temp_bytes, ctx->stream);
        if (e == cudaSuccess)
            e = d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, name, e);
        Op timed = [&, temp_bytes](cudaStream_t st) {
            size_t tb = temp_bytes;
            return op(d_temp.ptr, tb, st);
        };
        e = verify(*row, timed, wide);
        return time_row(ctx, *row, e, timed, (size_t)bytes + temp_bytes, err);
    }

    kd_status ours_flagged(kd_profile_row *row, bool wide, kd_error *err)
    {
        kd_split_payload p = {d_words.ptr, d_words_out.ptr, 4};
        if (wide)
            p = kd_split_payload{d_quads.ptr, d_quads_out.ptr, 16};
        const TempOp op = [this, p](void *d_t, size_t &tb, cudaStream_t st) {
            return kd_compact_flagged(d_t, &tb, d_flags.ptr, n, &p, 1, d_count.ptr, st);
        };
        return measure(row, KD_PROFILE_OURS, wide ? "compact flagged, 16-byte" : "compact flagged, 4-byte", wide,
                       true, op, err);
    }

    kd_status cub_flagged(kd_profile_row *row, bool wide, kd_error *err)
    {
        TempOp op;
        if (wide)
            op = [this](void *d_t, size_t &tb, cudaStream_t st) {
                return cub::DeviceSelect::Flagged(d_t, tb, d_quads.ptr, d_flags.ptr, d_quads_out.ptr, d_count.ptr,
                                                  (int64_t)n, st);
            };
        else
            op = [this](void *d_t, size_t &tb, cudaStream_t st) {
                return cub::DeviceSelect::Flagged(d_t, tb, d_words.ptr, d_flags.ptr, d_words_out.ptr, d_count.ptr,
                                                  (int64_t)n, st);
            };
        return measure(row, KD_PROFILE_CUB,
                       wide ? "cub DeviceSelect::Flagged, 16-byte" : "cub DeviceSelect::Flagged, 4-byte", wide,
                       true, op, err);
    }

    // Split-by-side with the 0/1 flags as sides: the selected go left, the
    // rest (side 0) nowhere; it reads the flags twice, in two passes.
    kd_status split_as_compact(kd_profile_row *row, kd_error *err)
    {
        const kd_split_payload p = {d_words.ptr, d_words_out.ptr, 4};
        const TempOp op = [this, p](void *d_t, size_t &tb, cudaStream_t st) {
            return kd_split_by_side(d_t, &tb, nullptr, 1, d_flags.ptr, n, &p, 1, nullptr, nullptr, d_count.ptr, st);
        };
        return measure(row, KD_PROFILE_OURS, "split-by-side as compaction, 4-byte", false, true, op, err);
    }

    kd_status ours_if(kd_profile_row *row, kd_error *err)
    {
        const TempOp op = [this](void *d_t, size_t &tb, cudaStream_t st) {
            return kd_compact_if_u32(d_t, &tb, KD_COMPACT_NONZERO, 0, d_words.ptr, d_words_out.ptr, n, d_count.ptr,
                                     st);
        };
        return measure(row, KD_PROFILE_OURS, "compact if nonzero, 4-byte", false, false, op, err);
    }

    kd_status cub_if(kd_profile_row *row, kd_error *err)
    {
        const TempOp op = [this](void *d_t, size_t &tb, cudaStream_t st) {
            return cub::DeviceSelect::If(d_t, tb, d_words.ptr, d_words_out.ptr, d_count.ptr, (int64_t)n, nonzero_op(),
                                         st);
        };
        return measure(row, KD_PROFILE_CUB, "cub DeviceSelect::If nonzero, 4-byte", false, false, op, err);
    }
};

} // namespace

kd_status run_compact(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows, kd_error *err)
{
    CompactBench b;
    enum { OURS4, CUB4, SPLIT, OURS16, CUB16, OURS_IF, CUB_IF, COPY, NUM };
    kd_profile_row r[NUM];
    kd_status s = b.setup(ctx, n, err);
    if (s == KD_OK)
        s = b.ours_flagged(&r[OURS4], false, err);
    if (s == KD_OK)
        s = b.cub_flagged(&r[CUB4], false, err);
    if (s == KD_OK)
        s = b.split_as_compact(&r[SPLIT], err);
    if (s == KD_OK)
        s = b.ours_flagged(&r[OURS16], true, err);
    if (s == KD_OK)
        s = b.cub_flagged(&r[CUB16], true, err);
    if (s == KD_OK)
        s = b.ours_if(&r[OURS_IF], err);
    if (s == KD_OK)
        s = b.cub_if(&r[CUB_IF], err);
    if (s == KD_OK)
        s = copy_row(ctx, KD_PROFILE_COMPACT, b.d_words_out.ptr, b.d_words.ptr, b.words.data(), n, &r[COPY], err);
    if (s != KD_OK)
        return s;
    const kd_profile_row *copy = &r[COPY];
    relate(r[OURS4], copy, nullptr, &r[CUB4]);
    relate(r[SPLIT], copy, nullptr, &r[CUB4]);
    relate(r[OURS16], copy, nullptr, &r[CUB16]);
    relate(r[OURS_IF], copy, nullptr, &r[CUB_IF]);
    for (int k : {CUB4, CUB16, CUB_IF})
        relate(r[k], copy, nullptr, nullptr);
    rows.insert(rows.end(), r, r + NUM);
    return KD_OK;
}

} // namespace kdp
