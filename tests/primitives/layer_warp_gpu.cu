// GPU test of the warp layer on its own (warp_scan.cuh, warp_reduce.cuh):
// inclusive scans of two sum chains and of a non-commutative pair operator,
// the look-back's reversed reduction, the chained shuffle-down reduction at
// every width from 1 to 32 lanes, and the hardware integer reductions. Each
// warp holds `count` values (1, odd counts, 32) and identities after them;
// inputs random, all equal, or one value off. Exits 77 without a device.
#include "layer_test.cuh"
#include "sum_op.h"
#include "warp_reduce.cuh"
#include "warp_scan.cuh"

namespace {

constexpr int kWarps = 64; // warps per launch, 4 per block

// ---- Kernels: one warp per 32 consecutive inputs -----------------------------
__global__ void scan_sums_kernel(const uint32_t *in, uint32_t *out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t v[2] = {in[i], in[i] * 3u + 1u};
    kd_warp_inclusive_scan<2>(v, kd_sum_op());
    out[2 * i] = v[0];
    out[2 * i + 1] = v[1];
}

__global__ void scan_pairs_kernel(const RestartPair *in, RestartPair *out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    RestartPair v[1] = {in[i]};
    kd_warp_inclusive_scan<1>(v, RestartOp());
    out[i] = v[0];
}

__global__ void reduce_reversed_kernel(const RestartPair *in, RestartPair *out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = kd_warp_reduce_reversed(in[i], RestartOp());
}

template <int LANES>
__global__ void reduce_down_kernel(const float *in, float *out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v[3] = {in[i], in[i], in[i]};
    kd_warp_reduce_down<LANES>(v, MinMaxSum());
    if (kd_lane_id() == 0) {
        const unsigned warp = i / 32;
        for (int c = 0; c < 3; c++)
            out[3 * warp + c] = v[c];
    }
}

__global__ void hardware_reduce_kernel(const uint32_t *in, uint32_t *out)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    out[2 * i] = kd_warp_sum_u32(in[i]);
    out[2 * i + 1] = kd_warp_max_u32(in[i]);
}

// ---- Inputs -----------------------------------------------------------------
// Lane l of each warp holds a value when l < count, else the identity (0).
std::vector<uint32_t> make_values(prim_rng *rng, int mix, unsigned count)
{
    std::vector<uint32_t> v(32 * kWarps, 0);
    for (int w = 0; w < kWarps; w++)
        for (unsigned l = 0; l < count; l++)
            v[32 * w + l] = mix_value(rng, mix, l, count);
    return v;
}

std::vector<RestartPair> make_pairs(prim_rng *rng, int mix, unsigned count)
{
    std::vector<RestartPair> v(32 * kWarps, RestartPair{0, 0});
    for (int w = 0; w < kWarps; w++)
        for (unsigned l = 0; l < count; l++)
            v[32 * w + l] = RestartPair{mix == MIX_EQUAL ? 0u : prim_rng_below(rng, 5) == 0,
                                        mix_value(rng, mix, l, count)};
    return v;
}

// ---- Checks -----------------------------------------------------------------
void check_scans(prim_rng *rng, int mix, unsigned count)
{
    const std::vector<uint32_t> values = make_values(rng, mix, count);
    DeviceArray<uint32_t> d_in(values), d_out(2 * values.size());
    scan_sums_kernel<<<kWarps / 4, 128>>>(d_in.ptr, d_out.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<uint32_t> got = d_out.get();
    int bad = 0;
    for (int w = 0; w < kWarps; w++) {
        uint32_t s0 = 0, s1 = 0;
        for (int l = 0; l < 32; l++) {
            const size_t i = 32 * w + l;
            s0 += values[i], s1 += values[i] * 3u + 1u;
            bad += got[2 * i] != s0 || got[2 * i + 1] != s1;
        }
    }
    CHECK_MSG(bad == 0, "warp scan of sums, %s, %u values: %d lanes wrong", mix_name(mix), count, bad);

    const std::vector<RestartPair> pairs = make_pairs(rng, mix, count);
    DeviceArray<RestartPair> d_pairs(pairs), d_scanned(pairs.size()), d_reversed(pairs.size());
    scan_pairs_kernel<<<kWarps / 4, 128>>>(d_pairs.ptr, d_scanned.ptr);
    LAYER_CHECK_LAUNCH();
    reduce_reversed_kernel<<<kWarps / 4, 128>>>(d_pairs.ptr, d_reversed.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<RestartPair> scanned = d_scanned.get(), reversed = d_reversed.get();
    int bad_scan = 0, bad_reversed = 0;
    for (int w = 0; w < kWarps; w++) {
        // Scan in lane order; the reversed reduction reads lane 31 first, lane 0 last.
        RestartPair acc = pairs[32 * w], back = pairs[32 * w + 31];
        for (int l = 0; l < 32; l++) {
            if (l > 0)
                acc = RestartOp()(acc, pairs[32 * w + l]);
            bad_scan += !same_pair(scanned[32 * w + l], acc);
        }
        for (int l = 30; l >= 0; l--)
            back = RestartOp()(back, pairs[32 * w + l]);
        for (int l = 0; l < 32; l++)
            bad_reversed += !same_pair(reversed[32 * w + l], back);
    }
    CHECK_MSG(bad_scan == 0, "warp scan of pairs, %s, %u values: %d lanes wrong", mix_name(mix), count, bad_scan);
    CHECK_MSG(bad_reversed == 0, "reversed reduction, %s, %u values: %d lanes wrong", mix_name(mix), count,
              bad_reversed);
}

// Lanes from LANES on hold NaN: a sum that read one would be NaN.
template <int LANES>
void check_reduce_down(prim_rng *rng, int mix)
{
    std::vector<float> values(32 * kWarps);
    for (int w = 0; w < kWarps; w++)
        for (int l = 0; l < 32; l++)
            values[32 * w + l] = l < LANES ? (float)mix_value(rng, mix, l, LANES) - 500.0f : NAN;
    DeviceArray<float> d_in(values), d_out(3 * kWarps);
    reduce_down_kernel<LANES><<<kWarps / 4, 128>>>(d_in.ptr, d_out.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<float> got = d_out.get();
    int bad = 0;
    for (int w = 0; w < kWarps; w++)
        for (int c = 0; c < 3; c++) {
            float want = MinMaxSum().identity(c);
            for (int l = 0; l < LANES; l++)
                want = MinMaxSum()(c, want, values[32 * w + l]);
            bad += !(got[3 * w + c] == want);
        }
    CHECK_MSG(bad == 0, "warp reduce down over %d lanes, %s: %d results wrong", LANES, mix_name(mix), bad);
}

void check_hardware_reductions(prim_rng *rng, int mix, unsigned count)
{
    const std::vector<uint32_t> values = make_values(rng, mix, count);
    DeviceArray<uint32_t> d_in(values), d_out(2 * values.size());
    hardware_reduce_kernel<<<kWarps / 4, 128>>>(d_in.ptr, d_out.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<uint32_t> got = d_out.get();
    int bad = 0;
    for (int w = 0; w < kWarps; w++) {
        uint32_t sum = 0, max = 0;
        for (int l = 0; l < 32; l++)
            sum += values[32 * w + l], max = values[32 * w + l] > max ? values[32 * w + l] : max;
        for (int l = 0; l < 32; l++)
            bad += got[2 * (32 * w + l)] != sum || got[2 * (32 * w + l) + 1] != max;
    }
    CHECK_MSG(bad == 0, "warp sum/max, %s, %u values: %d lanes wrong", mix_name(mix), count, bad);
}

} // namespace

int main(void)
{
    LAYER_SKIP_WITHOUT_DEVICE("layer_warp_gpu");
    prim_rng rng;
    prim_rng_seed(&rng, 0x5741525053ull);
    const unsigned counts[] = {1, 2, 7, 31, 32};
    for (int mix = 0; mix < MIX_COUNT; mix++)
        for (unsigned count : counts) {
            check_scans(&rng, mix, count);
            check_hardware_reductions(&rng, mix, count);
        }
    for (int mix = 0; mix < MIX_COUNT; mix++) {
        check_reduce_down<1>(&rng, mix);
        check_reduce_down<2>(&rng, mix);
        check_reduce_down<4>(&rng, mix);
        check_reduce_down<8>(&rng, mix);
        check_reduce_down<16>(&rng, mix);
        check_reduce_down<32>(&rng, mix);
    }
    return kd_test_finish("layer_warp_gpu");
}
