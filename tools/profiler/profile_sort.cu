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

kd_status run_sort(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                   kd_error *err)
{
    Rng rng{ctx->options.seed ^ (0x534F5254ull + n)};
    std::vector<uint32_t> keys(n), values(n), want_keys(n), want_values(n), got(n);
    for (size_t i = 0; i < n; i++)
        values[i] = (uint32_t)(rng.next() >> 32);
    DeviceBuffer<uint32_t> d_keys, d_values, d_keys_out, d_values_out;
    DeviceBuffer<unsigned char> d_temp;
    cudaError_t e = d_keys.alloc(n);
    if (e == cudaSuccess)
        e = d_values.alloc(n);
    if (e == cudaSuccess)
        e = d_keys_out.alloc(n);
    if (e == cudaSuccess)
        e = d_values_out.alloc(n);
    if (e == cudaSuccess)
        e = cudaMemcpy(d_values.ptr, values.data(), n * 4, cudaMemcpyHostToDevice);
    if (e != cudaSuccess)
        return cuda_fail(err, "sort inputs", e);
    const double bytes = 16.0 * n;

    // Verify (poisoned outputs, keys and values compared), then time.
    auto measure = [&](kd_profile_row &row,
                       const std::function<cudaError_t(void *, size_t &, cudaStream_t)> &launch) {
        size_t temp_bytes = 0;
        cudaError_t e2 = launch(nullptr, temp_bytes, ctx->stream);
        if (e2 == cudaSuccess)
            e2 = d_temp.reserve(temp_bytes);
        if (e2 != cudaSuccess)
            return cuda_fail(err, row.variant, e2);
        Op op = [&, temp_bytes](cudaStream_t st) {
            size_t tb = temp_bytes;
            return launch(d_temp.ptr, tb, st);
        };
        e2 = cudaMemsetAsync(d_keys_out.ptr, 0xCD, n * 4, ctx->stream);
        if (e2 == cudaSuccess)
            e2 = cudaMemsetAsync(d_values_out.ptr, 0xCD, n * 4, ctx->stream);
        if (e2 == cudaSuccess)
            e2 = op(ctx->stream);
        if (e2 == cudaSuccess)
            e2 = cudaStreamSynchronize(ctx->stream);
        if (e2 == cudaSuccess)
            e2 = cudaMemcpy(got.data(), d_keys_out.ptr, n * 4, cudaMemcpyDeviceToHost);
        if (e2 == cudaSuccess && got != want_keys)
            set_failed(row, "keys differ from the reference sort");
        if (e2 == cudaSuccess)
            e2 = cudaMemcpy(got.data(), d_values_out.ptr, n * 4, cudaMemcpyDeviceToHost);
        if (e2 == cudaSuccess && row.status == KD_PROFILE_OK && got != want_values)
            set_failed(row, "values differ from the reference sort (not stable?)");
        Timing t;
        if (e2 == cudaSuccess && row.status == KD_PROFILE_OK)
            e2 = time_op(ctx, 16 * n + temp_bytes, op, &t);
        if (e2 == cudaSuccess && row.status == KD_PROFILE_OK)
            set_timing(row, t);
        if (e2 != cudaSuccess) {
            set_error(row, "running", e2);
            (void)cudaGetLastError();
            if ((e2 = cudaDeviceSynchronize()) != cudaSuccess)
                return cuda_fail(err, row.variant, e2);
        }
        return KD_OK;
    };

    for (int pass = 0; pass < 2; pass++) {
        const bool narrow = pass == 1;
        const uint32_t mask = narrow ? 0xFFFFu : 0xFFFFFFFFu;
        for (size_t i = 0; i < n; i++)
            keys[i] = (uint32_t)(rng.next() >> 32) & mask;
        if (kd_ref_radix_sort_pairs_u32(keys.data(), want_keys.data(), values.data(),
                                        want_values.data(), n, err) != KD_OK)
            return err ? err->status : KD_ERR_INVALID;
        e = cudaMemcpy(d_keys.ptr, keys.data(), n * 4, cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            return cuda_fail(err, "sort keys", e);

        kd_profile_row ours = make_row(KD_PROFILE_SORT, KD_PROFILE_OURS,
                                       narrow ? "radix-sort, keys < 2^16" : "radix-sort, 32-bit keys",
                                       0, n, bytes);
        kd_status s = measure(ours, [&](void *t, size_t &tb, cudaStream_t st) {
            return kd_radix_sort_pairs_u32(t, &tb, d_keys.ptr, d_keys_out.ptr, d_values.ptr,
                                           d_values_out.ptr, n, st);
        });
        if (s != KD_OK)
            return s;
        rows.push_back(ours);

        const int end_bit = narrow ? 16 : 32;
        kd_profile_row cub = make_row(KD_PROFILE_SORT, KD_PROFILE_CUB,
                                      narrow ? "cub SortPairs, keys < 2^16 (end_bit 16)"
                                             : "cub DeviceRadixSort::SortPairs",
                                      0, n, bytes);
        s = measure(cub, [&, end_bit](void *t, size_t &tb, cudaStream_t st) {
            return cub::DeviceRadixSort::SortPairs(t, tb, d_keys.ptr, d_keys_out.ptr, d_values.ptr,
                                                   d_values_out.ptr, (int64_t)n, 0, end_bit, st);
        });
        if (s != KD_OK)
            return s;
        rows.push_back(cub);
    }

    {
        kd_profile_row copy;
        kd_status s = copy_row(ctx, KD_PROFILE_SORT, d_keys_out.ptr, d_keys.ptr, keys.data(), n, &copy, err);
        if (s != KD_OK)
            return s;
        rows.push_back(copy);
    }
    const kd_profile_row copy = rows[rows.size() - 1];
    const size_t base = rows.size() - 5;
    const kd_profile_row cub_wide = rows[base + 1], cub_narrow = rows[base + 3];
    relate(rows[base + 0], &copy, nullptr, &cub_wide);
    relate(rows[base + 1], &copy, nullptr, nullptr);
    relate(rows[base + 2], &copy, nullptr, &cub_narrow);
    relate(rows[base + 3], &copy, nullptr, nullptr);
    return KD_OK;
}

} // namespace kdp
