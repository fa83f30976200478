// GPU test of the block reduction on its own (block_reduce.cuh): three
// chains at once (min, max, sum) over blocks of 32 to 1024 threads, with
// `count` values per block (1, odd counts, full) and identities after them,
// called twice in a row on the same storage (the barrier the header asks
// of a caller between calls); inputs random, all equal, or one value off.
// Exits 77 without a device.
#include "block_reduce.cuh"
#include "layer_test.cuh"

namespace {

constexpr int kBlocks = 40;

// Chain c reads in[c]. out[6b .. 6b+2]: the block's reduction; out[6b+3 ..]:
// a second call on the same storage, of (x - 1, x + 1, 2x): stale storage
// from the first call would show.
template <int THREADS>
__global__ void __launch_bounds__(THREADS) reduce_kernel(const float *in0, const float *in1, const float *in2,
                                                         float *out)
{
    typedef kd_block_reduce<THREADS, 3, float> block_reduce;
    __shared__ typename block_reduce::storage s;
    const unsigned i = blockIdx.x * THREADS + threadIdx.x;
    float v[3] = {in0[i], in1[i], in2[i]};
    float w[3] = {in0[i] - 1.0f, in1[i] + 1.0f, 2.0f * in2[i]};
    block_reduce::reduce(v, MinMaxSum(), s);
    if (threadIdx.x == 0)
        for (int c = 0; c < 3; c++)
            out[6 * blockIdx.x + c] = v[c];
    __syncthreads();
    block_reduce::reduce(w, MinMaxSum(), s);
    if (threadIdx.x == 0)
        for (int c = 0; c < 3; c++)
            out[6 * blockIdx.x + 3 + c] = w[c];
}

// The first `count` threads of a block hold values, the rest each chain's
// identity.
template <int THREADS>
void check_reduce(prim_rng *rng, int mix, unsigned count)
{
    std::vector<float> v[3];
    for (int c = 0; c < 3; c++)
        v[c].resize(THREADS * kBlocks);
    for (int b = 0; b < kBlocks; b++)
        for (int t = 0; t < THREADS; t++) {
            const float x = (float)mix_value(rng, mix, t, count) - 400.0f;
            for (int c = 0; c < 3; c++)
                v[c][b * THREADS + t] = t < (int)count ? x : MinMaxSum().identity(c);
        }
    DeviceArray<float> d0(v[0]), d1(v[1]), d2(v[2]), d_out(6 * kBlocks);
    reduce_kernel<THREADS><<<kBlocks, THREADS>>>(d0.ptr, d1.ptr, d2.ptr, d_out.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<float> got = d_out.get();
    int bad = 0;
    for (int b = 0; b < kBlocks; b++)
        for (int c = 0; c < 3; c++) {
            float want = MinMaxSum().identity(c);
            for (int t = 0; t < THREADS; t++)
                want = MinMaxSum()(c, want, v[c][b * THREADS + t]);
            const float want_again = c == 0 ? want - 1.0f : c == 1 ? want + 1.0f : 2.0f * want;
            bad += !(got[6 * b + c] == want) + !(got[6 * b + 3 + c] == want_again);
        }
    CHECK_MSG(bad == 0, "block reduce %d threads, %s, %u values: %d results wrong", THREADS, mix_name(mix), count,
              bad);
}

template <int THREADS>
void check_all(prim_rng *rng, int mix)
{
    const unsigned counts[] = {1, 31, 33, THREADS - 1, THREADS};
    for (unsigned count : counts)
        if (count >= 1 && count <= THREADS)
            check_reduce<THREADS>(rng, mix, count);
}

} // namespace

int main(void)
{
    LAYER_SKIP_WITHOUT_DEVICE("layer_block_reduce_gpu");
    prim_rng rng;
    prim_rng_seed(&rng, 0x424C4B5245ull);
    for (int mix = 0; mix < MIX_COUNT; mix++) {
        check_all<32>(&rng, mix);
        check_all<64>(&rng, mix);
        check_all<128>(&rng, mix);
        check_all<256>(&rng, mix);
        check_all<512>(&rng, mix);
        check_all<1024>(&rng, mix);
    }
    return kd_test_finish("layer_block_reduce_gpu");
}
