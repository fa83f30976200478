// `scankd profile sort`: the radix sort of key-value pairs next to CUB's
// DeviceRadixSort::SortPairs, on full 32-bit keys and on keys below 2^16
// (where ours skips the passes above the key range and CUB is told end_bit
// 16), with a device-to-device copy; every result checked against the CPU
// reference sort.
#include <cub/device/device_radix_sort.cuh>

#include <string.h>

#include "profile_internal.cuh"
#include "ref_primitives.h"

namespace kdp {

size_t sort_device_bytes(size_t n)
{
    // keys and values in and out, our temporary storage (keys and values
    // again, plus a table), CUB's (the same), and a margin.
    return 12 * n * sizeof(uint32_t) + ((size_t)64 << 20);
}

namespace {

// Device buffers and the checks of one run of the profile.
struct SortBench {
    kd_profile_context *ctx;
    size_t n;
    Rng rng;
    std::vector<uint32_t> keys, values, want_keys, want_values, got;
    DeviceBuffer<uint32_t> d_keys, d_values, d_keys_out, d_values_out;
    DeviceBuffer<unsigned char> d_temp;

    kd_status setup(kd_profile_context *c, size_t count, kd_error *err)
    {
        ctx = c;
        n = count;
        rng = Rng{ctx->options.seed ^ (0x534F5254ull + n)};
        keys.resize(n), values.resize(n), want_keys.resize(n), want_values.resize(n), got.resize(n);
        for (size_t i = 0; i < n; i++)
            values[i] = (uint32_t)(rng.next() >> 32);
        cudaError_t e = d_keys.alloc(n);
        if (e == cudaSuccess)
            e = d_values.alloc(n);
        if (e == cudaSuccess)
            e = d_keys_out.alloc(n);
        if (e == cudaSuccess)
            e = d_values_out.alloc(n);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_values.ptr, values.data(), n * 4, cudaMemcpyHostToDevice);
        return e == cudaSuccess ? KD_OK : cuda_fail(err, "sort inputs", e);
    }

    // New random keys (below 2^16 when narrow), their reference sort, uploaded.
    kd_status new_keys(bool narrow, kd_error *err)
    {
        const uint32_t mask = narrow ? 0xFFFFu : 0xFFFFFFFFu;
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)(rng.next() >> 32) & mask;
        if (kd_ref_radix_sort_pairs_u32(keys.data(), want_keys.data(), values.data(), want_values.data(), n, err) !=
            KD_OK)
            return err ? err->status : KD_ERR_INVALID;
        const cudaError_t e = cudaMemcpy(d_keys.ptr, keys.data(), n * 4, cudaMemcpyHostToDevice);
        return e == cudaSuccess ? KD_OK : cuda_fail(err, "sort keys", e);
    }

    // Poisoned outputs, one run, keys and values compared with the reference.
    cudaError_t verify(kd_profile_row &row, const Op &op)
    {
        cudaError_t e = cudaMemsetAsync(d_keys_out.ptr, 0xCD, n * 4, ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemsetAsync(d_values_out.ptr, 0xCD, n * 4, ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
        if (e == cudaSuccess)
            e = cudaMemcpy(got.data(), d_keys_out.ptr, n * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && got != want_keys)
            set_failed(row, "keys differ from the reference sort");
        if (e == cudaSuccess)
            e = cudaMemcpy(got.data(), d_values_out.ptr, n * 4, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && row.status == KD_PROFILE_OK && got != want_values)
            set_failed(row, "values differ from the reference sort (not stable?)");
        return e;
    }

    // Sizes launch's temporary storage (d_temp NULL), verifies, then times.
    kd_status measure(kd_profile_row &row, const std::function<cudaError_t(void *, size_t &, cudaStream_t)> &launch,
                      kd_error *err)
    {
        size_t temp_bytes = 0;
        cudaError_t e = launch(nullptr, temp_bytes, ctx->stream);
        if (e == cudaSuccess)
            e = d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, row.variant, e);
        Op op = [&, temp_bytes](cudaStream_t st) {
            size_t tb = temp_bytes;
            return launch(d_temp.ptr, tb, st);
        };
        return time_row(ctx, row, verify(row, op), op, 16 * n + temp_bytes, err);
    }

    // Ours and CUB on one key range (CUB told end_bit 16 for narrow keys).
    kd_status run_pair(bool narrow, kd_profile_row *ours, kd_profile_row *cub, kd_error *err)
    {
        const double bytes = 16.0 * n;
        const char *name = narrow ? "radix-sort, keys < 2^16" : "radix-sort, 32-bit keys";
        *ours = make_row(KD_PROFILE_SORT, KD_PROFILE_OURS, name, 0, n, bytes);
        kd_status s = measure(
            *ours,
            [&](void *t, size_t &tb, cudaStream_t st) {
                return kd_radix_sort_pairs_u32(t, &tb, d_keys.ptr, d_keys_out.ptr, d_values.ptr, d_values_out.ptr,
                                               n, st);
            },
            err);
        if (s != KD_OK)
            return s;
        const int end_bit = narrow ? 16 : 32;
        *cub = make_row(KD_PROFILE_SORT, KD_PROFILE_CUB,
                        narrow ? "cub SortPairs, keys < 2^16 (end_bit 16)" : "cub DeviceRadixSort::SortPairs", 0, n,
                        bytes);
        return measure(
            *cub,
            [&, end_bit](void *t, size_t &tb, cudaStream_t st) {
                return cub::DeviceRadixSort::SortPairs(t, tb, d_keys.ptr, d_keys_out.ptr, d_values.ptr,
                                                       d_values_out.ptr, (int64_t)n, 0, end_bit, st);
            },
            err);
    }
};

} // namespace

kd_status run_sort(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows, kd_error *err)
{
    SortBench b;
    kd_status s = b.setup(ctx, n, err);
    kd_profile_row ours[2], cub[2], copy;
    for (int pass = 0; pass < 2 && s == KD_OK; pass++) {
        s = b.new_keys(pass == 1, err);
        if (s == KD_OK)
            s = b.run_pair(pass == 1, &ours[pass], &cub[pass], err);
    }
    if (s == KD_OK)
        s = copy_row(ctx, KD_PROFILE_SORT, b.d_keys_out.ptr, b.d_keys.ptr, b.keys.data(), n, &copy, err);
    if (s != KD_OK)
        return s;
    for (int pass = 0; pass < 2; pass++) {
        relate(ours[pass], &copy, nullptr, &cub[pass]);
        relate(cub[pass], &copy, nullptr, nullptr);
        rows.push_back(ours[pass]);
        rows.push_back(cub[pass]);
    }
    rows.push_back(copy);
    return KD_OK;
}

} // namespace kdp
