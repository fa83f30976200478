// `scankd profile scan`: the scan ladder (Hillis-Steele, Blelloch in global
// and shared memory, decoupled look-back) next to CUB's ExclusiveSum, and the
// segmented scan next to CUB's ExclusiveSumByKey, with a device-to-device
// copy; every result compared element for element with the CPU reference
// (ref_primitives.h) before it is timed.
#include <cub/device/device_scan.cuh>

#include <stdlib.h>
#include <string.h>

#include "profile_internal.cuh"
#include "ref_primitives.h"
#include "scan_internal.cuh"

namespace kdp {
namespace {

// Segment ids of a builder-like level: random lengths (1..2000), one id in
// eight skipped (an empty segment).
uint32_t fill_segment_ids(std::vector<uint32_t> &ids, Rng &rng)
{
    uint32_t id = 0;
    size_t i = 0;
    while (i < ids.size()) {
        const size_t len = 1 + rng.next() % 2000;
        for (size_t j = 0; j < len && i < ids.size(); j++)
            ids[i++] = id;
        id += rng.next() % 8 == 0 ? 2 : 1;
    }
    return id;
}

struct ScanBench {
    kd_profile_context *ctx;
    size_t n;
    std::vector<int32_t> host_in, want, want_seg, back;
    std::vector<uint32_t> host_ids;
    DeviceBuffer<int32_t> d_in, d_out;
    DeviceBuffer<uint32_t> d_ids;
    DeviceBuffer<unsigned char> d_temp;

    kd_status setup(kd_profile_context *c, size_t count, bool segmented, kd_error *err)
    {
        ctx = c;
        n = count;
        Rng rng{ctx->options.seed ^ (0x5343414Eull + n)};
        host_in.resize(n);
        for (int32_t &x : host_in)
            x = (int32_t)(uint32_t)(rng.next() >> 32);
        want.resize(n);
        kd_ref_scan_exclusive_i32(host_in.data(), want.data(), n);
        if (segmented) {
            host_ids.resize(n);
            fill_segment_ids(host_ids, rng);
            want_seg.resize(n);
            if (kd_ref_segmented_scan_exclusive_i32(host_ids.data(), host_in.data(), want_seg.data(),
                                                    n, err) != KD_OK)
                return err ? err->status : KD_ERR_INVALID;
        }
        cudaError_t e = d_in.alloc(n);
        if (e == cudaSuccess)
            e = d_out.alloc(n);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_in.ptr, host_in.data(), n * 4, cudaMemcpyHostToDevice);
        if (e == cudaSuccess && segmented)
            e = d_ids.alloc(n);
        if (e == cudaSuccess && segmented)
            e = cudaMemcpy(d_ids.ptr, host_ids.data(), n * 4, cudaMemcpyHostToDevice);
        return e == cudaSuccess ? KD_OK : cuda_fail(err, "scan inputs", e);
    }

    // Poison, run once, compare all of d_out with expected.
    cudaError_t verify(kd_profile_row &row, const Op &op, const std::vector<int32_t> &expected)
    {
        cudaError_t e = cudaMemsetAsync(d_out.ptr, 0xCD, n * 4, ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
        back.resize(n);
        if (e == cudaSuccess)
            e = cudaMemcpy(back.data(), d_out.ptr, n * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && n > 0 && memcmp(back.data(), expected.data(), n * 4) != 0) {
            size_t i = 0;
            while (back[i] == expected[i])
                i++;
            set_failed(row, "wrong result at %zu: got %d, want %d", i, back[i], expected[i]);
        }
        return e;
    }

    kd_status measure(kd_profile_row &row, const Op &op, const std::vector<int32_t> &expected,
                      size_t working_set, kd_error *err)
    {
        return time_row(ctx, row, verify(row, op, expected), op, working_set, err);
    }

    // Sizes the temporary storage of op (called with d_temp NULL) and runs measure.
    kd_status measure_with_temp(
        kd_profile_row &row,
        const std::function<cudaError_t(void *, size_t *, cudaStream_t)> &launch,
        const std::vector<int32_t> &expected, size_t io_bytes, kd_error *err)
    {
        size_t temp_bytes = 0;
        cudaError_t e = launch(nullptr, &temp_bytes, ctx->stream);
        if (e == cudaSuccess)
            e = d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, row.variant, e);
        Op op = [&, temp_bytes](cudaStream_t s) {
            size_t tb = temp_bytes;
            return launch(d_temp.ptr, &tb, s);
        };
        return measure(row, op, expected, io_bytes + temp_bytes, err);
    }
};

} // namespace

size_t scan_device_bytes(size_t n)
{
    // input, output, ids, the copy's destination, up to 3n of temporary
    // storage (the naive scan's ping-pong), and a margin for CUB.
    return 8 * n * sizeof(int32_t) + ((size_t)64 << 20);
}

namespace {

// The ladder's rungs through the public launcher, then CUB's ExclusiveSum.
kd_status scan_rows(ScanBench &b, std::vector<kd_profile_row> &rows, kd_error *err)
{
    const size_t n = b.n;
    for (int v = 0; v < KD_SCAN_NUM_VARIANTS; v++) {
        const kd_scan_variant variant = (kd_scan_variant)v;
        kd_profile_row row = make_row(KD_PROFILE_SCAN, KD_PROFILE_OURS, kd_scan_variant_name(variant), 0, n, 8.0 * n);
        const kd_status s = b.measure_with_temp(
            row,
            [&, variant](void *t, size_t *tb, cudaStream_t st) {
                return kd_scan_exclusive_i32(variant, t, tb, b.d_in.ptr, b.d_out.ptr, n, st);
            },
            b.want, 8 * n, err);
        if (s != KD_OK)
            return s;
        rows.push_back(row);
    }
    kd_profile_row row = make_row(KD_PROFILE_SCAN, KD_PROFILE_CUB, "cub DeviceScan::ExclusiveSum", 0, n, 8.0 * n);
    const kd_status s = b.measure_with_temp(
        row,
        [&](void *t, size_t *tb, cudaStream_t st) {
            return cub::DeviceScan::ExclusiveSum(t, *tb, b.d_in.ptr, b.d_out.ptr, (int64_t)n, st);
        },
        b.want, 8 * n, err);
    if (s == KD_OK)
        rows.push_back(row);
    return s;
}

// The segmented scan, then CUB's ExclusiveSumByKey.
kd_status segmented_rows(ScanBench &b, std::vector<kd_profile_row> &rows, kd_error *err)
{
    const size_t n = b.n;
    kd_profile_row row = make_row(KD_PROFILE_SCAN, KD_PROFILE_OURS, "segmented-scan (ids)", 0, n, 12.0 * n);
    kd_status s = b.measure_with_temp(
        row,
        [&](void *t, size_t *tb, cudaStream_t st) {
            return kd_segmented_scan_exclusive_i32(t, tb, b.d_ids.ptr, b.d_in.ptr, b.d_out.ptr, n, st);
        },
        b.want_seg, 12 * n, err);
    if (s != KD_OK)
        return s;
    rows.push_back(row);
    row = make_row(KD_PROFILE_SCAN, KD_PROFILE_CUB, "cub DeviceScan::ExclusiveSumByKey", 0, n, 12.0 * n);
    s = b.measure_with_temp(
        row,
        [&](void *t, size_t *tb, cudaStream_t st) {
            return cub::DeviceScan::ExclusiveSumByKey(t, *tb, b.d_ids.ptr, b.d_in.ptr, b.d_out.ptr, (int64_t)n,
                                                      cuda::std::equal_to<>(), st);
        },
        b.want_seg, 12 * n, err);
    if (s == KD_OK)
        rows.push_back(row);
    return s;
}

} // namespace

kd_status run_scan(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows, kd_error *err)
{
    ScanBench b;
    kd_status s = b.setup(ctx, n, true, err);
    if (s != KD_OK)
        return s;
    if ((s = scan_rows(b, rows, err)) != KD_OK)
        return s;
    const size_t cub_scan_at = rows.size() - 1, seg_at = rows.size();
    if ((s = segmented_rows(b, rows, err)) != KD_OK)
        return s;
    kd_profile_row copy = make_row(KD_PROFILE_SCAN, KD_PROFILE_COPY, "copy (device to device)", 0, n, 8.0 * n);
    Op op = [&](cudaStream_t st) {
        return cudaMemcpyAsync(b.d_out.ptr, b.d_in.ptr, n * 4, cudaMemcpyDeviceToDevice, st);
    };
    if ((s = b.measure(copy, op, b.host_in, 8 * n, err)) != KD_OK)
        return s;
    rows.push_back(copy);
    // Rungs against the first rung and CUB's scan; the segmented scan against CUB's by key.
    const kd_profile_row first = rows[0], cub_scan = rows[cub_scan_at], cub_seg = rows[seg_at + 1];
    for (size_t i = 0; i < rows.size(); i++) {
        kd_profile_row &r = rows[i];
        const bool ours = r.kind == KD_PROFILE_OURS;
        relate(r, r.kind == KD_PROFILE_COPY ? nullptr : &copy, ours && i < cub_scan_at ? &first : nullptr,
               ours ? (i < cub_scan_at ? &cub_scan : &cub_seg) : nullptr);
    }
    return KD_OK;
}

kd_status sweep_scan(kd_profile_context *ctx, size_t n, const int *block_sizes, int count,
                     std::vector<kd_profile_row> &rows, kd_error *err)
{
    // The look-back scan's and the segmented scan's tile shapes ("threads x
    // items"): each is a block size and a number of items per thread; shape 0
    // of each family is the one its public launcher uses.
    ScanBench b;
    kd_status s = b.setup(ctx, n, true, err);
    if (s != KD_OK)
        return s;
    struct Family {
        const char *label;
        int num_configs;
        const char *(*config_name)(int);
        bool segmented;
    };
    const Family families[2] = {
        {"scan3-lookback", KD_SCAN_LOOKBACK_NUM_CONFIGS, kd_scan_lookback_config_name, false},
        {"segmented-scan", KD_SEGSCAN_NUM_CONFIGS, kd_segscan_config_name, true},
    };
    const size_t all_first = rows.size();
    for (const Family &family : families) {
        const size_t first_row = rows.size();
        int default_row = -1;
        for (int config = 0; config < family.num_configs; config++) {
            const char *shape = family.config_name(config);
            const char *x = strchr(shape, 'x');
            const int threads = atoi(shape);
            bool wanted = false;
            for (int i = 0; i < count; i++)
                wanted |= block_sizes[i] == threads;
            if (!x || !wanted)
                continue;
            char name[KD_PROFILE_NAME_BYTES];
            snprintf(name, sizeof name, "%s, %s items/thread", family.label, x + 1);
            kd_profile_row row = make_row(KD_PROFILE_SCAN, KD_PROFILE_OURS, name, threads, n,
                                          family.segmented ? 12.0 * n : 8.0 * n);
            const bool seg = family.segmented;
            s = b.measure_with_temp(
                row,
                [&, config, seg](void *t, size_t *tb, cudaStream_t st) {
                    const uint32_t *in = reinterpret_cast<const uint32_t *>(b.d_in.ptr);
                    uint32_t *out = reinterpret_cast<uint32_t *>(b.d_out.ptr);
                    return seg ? kd_segscan_run(config, t, tb, b.d_ids.ptr, in, out, n, st)
                               : kd_scan_lookback_run(config, t, tb, in, out, n, st);
                },
                seg ? b.want_seg : b.want, seg ? 12 * n : 8 * n, err);
            if (s != KD_OK)
                return s;
            if (config == 0)
                default_row = (int)rows.size();
            rows.push_back(row);
        }
        if (default_row >= 0) {
            const kd_profile_row reference = rows[default_row];
            for (size_t i = first_row; i < rows.size(); i++)
                relate(rows[i], nullptr, &reference, nullptr);
        }
    }
    if (rows.size() == all_first)
        return kd_error_set(err, KD_ERR_UNSUPPORTED,
                            "the scans' tile shapes use 128, 256 or 512 threads; none was asked for");
    return KD_OK;
}

} // namespace kdp
