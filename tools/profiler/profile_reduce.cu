// `scankd profile reduce`: every rung of the min/max ladder next to CUB's
// DeviceReduce::Min/Max and a device-to-device copy, each checked against the
// CPU reference before (and after) it is timed.
#include <cub/device/device_reduce.cuh>

#include <math.h>
#include <string.h>

#include "profile_internal.cuh"
#include "reduce_internal.h"
#include "ref_reduce.h"

namespace kdp {
namespace {

// Finite values of both signs in [-1000, 1000): random, never all zeros.
void fill_random(std::vector<float> &v, Rng &rng)
{
    for (float &x : v)
        x = (float)((double)(rng.next() >> 40) / 16777216.0 * 2000.0 - 1000.0);
}

struct ReduceBench {
    kd_profile_context *ctx;
    size_t n;
    bool is_max;
    float want;
    DeviceBuffer<float> d_in, d_out;
    DeviceBuffer<unsigned char> d_temp;
    float poison;

    // Poisons the output, runs op once, compares with the reference.
    cudaError_t verify(kd_profile_row &row, const Op &op)
    {
        cudaError_t e = cudaMemcpyAsync(d_out.ptr, &poison, sizeof poison, cudaMemcpyHostToDevice,
                                        ctx->stream);
        if (e == cudaSuccess)
            e = op(ctx->stream);
        float got = 0;
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(&got, d_out.ptr, sizeof got, cudaMemcpyDeviceToHost, ctx->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(ctx->stream);
        if (e == cudaSuccess && !(got == want))
            set_failed(row, "wrong result: got %.9g, want %.9g", got, want);
        return e;
    }

    // Verify, time, verify the last timed run's result again.
    kd_status measure(kd_profile_row &row, const Op &op, size_t temp_bytes, kd_error *err)
    {
        kd_status s = time_row(ctx, row, verify(row, op), op, n * sizeof(float) + temp_bytes, err);
        if (s != KD_OK || row.status != KD_PROFILE_OK)
            return s;
        float got = 0;
        const cudaError_t e = cudaMemcpy(&got, d_out.ptr, sizeof got, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            return time_row(ctx, row, e, op, 0, err);
        if (!(got == want))
            set_failed(row, "wrong result after timing: got %.9g, want %.9g", got, want);
        return KD_OK;
    }

    kd_status setup(kd_profile_context *c, size_t count, const std::vector<float> &host, kd_error *err)
    {
        ctx = c;
        n = count;
        is_max = ctx->options.op == KD_REDUCE_MAX;
        want = kd_ref_reduce_f32(host.data(), n, is_max);
        const uint32_t bits = 0x7FC0DEADu; // a NaN no reduction produces
        memcpy(&poison, &bits, sizeof poison);
        cudaError_t e = d_in.alloc(n);
        if (e == cudaSuccess)
            e = d_out.alloc(8);
        if (e == cudaSuccess)
            e = cudaMemcpy(d_in.ptr, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
        return e == cudaSuccess ? KD_OK : cuda_fail(err, "reduce inputs", e);
    }
};

cudaError_t cub_reduce(bool is_max, void *d_temp, size_t &bytes, const float *d_in, float *d_out,
                       size_t n, cudaStream_t s)
{
    return is_max ? cub::DeviceReduce::Max(d_temp, bytes, d_in, d_out, (int64_t)n, s)
                  : cub::DeviceReduce::Min(d_temp, bytes, d_in, d_out, (int64_t)n, s);
}

} // namespace

size_t reduce_device_bytes(size_t n)
{
    // input, copy destination, Reduce0/1's global scratch (one float per
    // element, tiles rounded up) and partials, and a margin for CUB.
    return 3 * n * sizeof(float) + n / 64 + ((size_t)64 << 20);
}

kd_status run_reduce(kd_profile_context *ctx, size_t n, std::vector<kd_profile_row> &rows,
                     kd_error *err)
{
    Rng rng{ctx->options.seed ^ (0x52454455ull + n)};
    std::vector<float> host(n);
    fill_random(host, rng);
    ReduceBench b;
    kd_status s = b.setup(ctx, n, host, err);
    if (s != KD_OK)
        return s;
    const kd_reduce_op op = b.is_max ? KD_REDUCE_MAX : KD_REDUCE_MIN;
    const double bytes = (double)n * sizeof(float);

    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
        const kd_reduce_variant variant = (kd_reduce_variant)v;
        kd_profile_row row = make_row(KD_PROFILE_REDUCE, KD_PROFILE_OURS,
                                      kd_reduce_variant_name(variant),
                                      kd_reduce_default_block_size(variant), n, bytes);
        size_t temp_bytes = 0;
        cudaError_t e = kd_reduce_f32(variant, op, nullptr, &temp_bytes, b.d_in.ptr, b.d_out.ptr, n,
                                      ctx->stream);
        if (e == cudaSuccess)
            e = b.d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, row.variant, e);
        Op run = [&, variant, temp_bytes](cudaStream_t st) {
            size_t tb = temp_bytes;
            return kd_reduce_f32(variant, op, b.d_temp.ptr, &tb, b.d_in.ptr, b.d_out.ptr, n, st);
        };
        if ((s = b.measure(row, run, temp_bytes, err)) != KD_OK)
            return s;
        rows.push_back(row);
    }

    {
        kd_profile_row row = make_row(KD_PROFILE_REDUCE, KD_PROFILE_CUB,
                                      b.is_max ? "cub DeviceReduce::Max" : "cub DeviceReduce::Min",
                                      0, n, bytes);
        size_t temp_bytes = 0;
        cudaError_t e = cub_reduce(b.is_max, nullptr, temp_bytes, b.d_in.ptr, b.d_out.ptr, n,
                                   ctx->stream);
        if (e == cudaSuccess)
            e = b.d_temp.reserve(temp_bytes);
        if (e != cudaSuccess)
            return cuda_fail(err, row.variant, e);
        Op run = [&, temp_bytes](cudaStream_t st) {
            size_t tb = temp_bytes;
            return cub_reduce(b.is_max, b.d_temp.ptr, tb, b.d_in.ptr, b.d_out.ptr, n, st);
        };
        if ((s = b.measure(row, run, temp_bytes, err)) != KD_OK)
            return s;
        rows.push_back(row);
    }

    {
        // The copy: bytes read + written; checked element for element.
        DeviceBuffer<float> d_copy;
        cudaError_t e = d_copy.alloc(n);
        if (e != cudaSuccess)
            return cuda_fail(err, "copy destination", e);
        kd_profile_row row;
        if ((s = copy_row(ctx, KD_PROFILE_REDUCE, d_copy.ptr, b.d_in.ptr, host.data(), n, &row, err)) != KD_OK)
            return s;
        rows.push_back(row);
    }

    const kd_profile_row copy = rows.back();
    const kd_profile_row first = rows[0];
    const kd_profile_row cub = rows[KD_REDUCE_NUM_VARIANTS];
    for (size_t i = 0; i < rows.size(); i++)
        relate(rows[i], rows[i].kind == KD_PROFILE_COPY ? nullptr : &copy,
               rows[i].kind == KD_PROFILE_OURS ? &first : nullptr,
               rows[i].kind == KD_PROFILE_OURS ? &cub : nullptr);
    return KD_OK;
}

kd_status sweep_reduce(kd_profile_context *ctx, size_t n, const int *block_sizes, int count,
                       std::vector<kd_profile_row> &rows, kd_error *err)
{
    Rng rng{ctx->options.seed ^ (0x53574545ull + n)};
    std::vector<float> host(n);
    fill_random(host, rng);
    ReduceBench b;
    kd_status s = b.setup(ctx, n, host, err);
    if (s != KD_OK)
        return s;
    const kd_reduce_shape shape = b.is_max ? KD_REDUCE_SHAPE_MAX : KD_REDUCE_SHAPE_MIN;
    const double bytes = (double)n * sizeof(float);
    for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
        const kd_reduce_variant variant = (kd_reduce_variant)v;
        const size_t first_row = rows.size();
        for (int i = 0; i < count; i++) {
            const int block = block_sizes[i];
            if (!kd_reduce_block_size_supported(block))
                continue;
            kd_profile_row row = make_row(KD_PROFILE_REDUCE, KD_PROFILE_OURS,
                                          kd_reduce_variant_name(variant), block, n, bytes);
            const float *lanes[1] = {b.d_in.ptr};
            size_t temp_bytes = 0;
            cudaError_t e = kd_reduce_lanes(variant, block, shape, nullptr, &temp_bytes, lanes,
                                            b.d_out.ptr, n, ctx->stream);
            if (e == cudaSuccess)
                e = b.d_temp.reserve(temp_bytes);
            if (e != cudaSuccess)
                return cuda_fail(err, row.variant, e);
            Op run = [&, variant, block, temp_bytes](cudaStream_t st) {
                const float *in[1] = {b.d_in.ptr};
                size_t tb = temp_bytes;
                return kd_reduce_lanes(variant, block, shape, b.d_temp.ptr, &tb, in, b.d_out.ptr, n,
                                       st);
            };
            if ((s = b.measure(row, run, temp_bytes, err)) != KD_OK)
                return s;
            rows.push_back(row);
        }
        // Speedup over the same rung at its default block size.
        const kd_profile_row *base = nullptr;
        for (size_t i = first_row; i < rows.size(); i++)
            if (rows[i].block_size == kd_reduce_default_block_size(variant))
                base = &rows[i];
        if (base) {
            const kd_profile_row reference = *base;
            for (size_t i = first_row; i < rows.size(); i++)
                relate(rows[i], nullptr, &reference, nullptr);
        }
    }
    return KD_OK;
}

} // namespace kdp
