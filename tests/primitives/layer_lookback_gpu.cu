// GPU test of the decoupled look-back on its own (lookback.cuh): each block
// is one tile whose aggregate is one input value; kd_lookback_block gives
// it the op-sum of all earlier tiles, which must equal the host's exclusive
// scan. Sums (kd_codec_u32) and a non-commutative pair operator with its
// own codec; from one tile to many thousands (many look-back windows, tiles
// that publish late); inputs random, all equal, or one value off.
// KD_TEST_QUICK=1 keeps 5000 tiles or fewer. Exits 77 without a device.
#include "layer_test.cuh"
#include "lookback.cuh"

namespace {

// The pair operator's codec: the flag in bit 32, the sum below.
struct RestartCodec {
    typedef RestartPair value_type;
    static __device__ uint64_t pack(unsigned status, RestartPair v)
    {
        return ((uint64_t)status << 62) | ((uint64_t)(v.flag & 1u) << 32) | v.sum;
    }
    static __device__ RestartPair unpack(uint64_t word)
    {
        return RestartPair{(uint32_t)(word >> 32) & 1u, (uint32_t)word};
    }
    static __device__ RestartPair identity() { return RestartPair{0, 0}; }
};

// Spins for a while in every `slow`-th tile before it publishes, so that its
// successors find it INVALID and must wait (0: never).
__device__ void maybe_wait(unsigned tile, unsigned slow)
{
    if (slow == 0 || tile % slow != 0)
        return;
    const long long start = clock64();
    while (clock64() - start < 20000) {
    }
}

template <typename Codec, typename Op>
__global__ void lookback_kernel(const typename Codec::value_type *aggregates, uint64_t *states,
                                typename Codec::value_type *prefixes, unsigned slow)
{
    __shared__ typename Codec::value_type s_prefix;
    const unsigned tile = blockIdx.x;
    if (threadIdx.x == 0)
        maybe_wait(tile, slow);
    __syncthreads();
    const typename Codec::value_type prefix =
        kd_lookback_block<Codec>(states, tile, aggregates[tile], Op(), s_prefix);
    if (threadIdx.x == blockDim.x - 1)
        prefixes[tile] = prefix;
}

template <typename Codec, typename Op>
std::vector<typename Codec::value_type> run(const std::vector<typename Codec::value_type> &aggregates,
                                            unsigned threads, unsigned slow)
{
    typedef typename Codec::value_type T;
    const unsigned tiles = (unsigned)aggregates.size();
    DeviceArray<T> d_aggregates(aggregates), d_prefixes(tiles);
    DeviceArray<uint64_t> d_states(tiles);
    kd_lookback_init_kernel<<<(tiles + 255) / 256, 256>>>(d_states.ptr, tiles);
    LAYER_CHECK_LAUNCH();
    lookback_kernel<Codec, Op><<<tiles, threads>>>(d_aggregates.ptr, d_states.ptr, d_prefixes.ptr, slow);
    LAYER_CHECK_LAUNCH();
    return d_prefixes.get();
}

void check_sums(prim_rng *rng, int mix, unsigned tiles, unsigned threads, unsigned slow)
{
    std::vector<uint32_t> aggregates(tiles);
    for (unsigned t = 0; t < tiles; t++)
        aggregates[t] = mix == MIX_RANDOM ? prim_rng_u32(rng) : mix_value(rng, mix, t, tiles);
    const std::vector<uint32_t> got = run<kd_codec_u32, kd_sum_op>(aggregates, threads, slow);
    uint32_t sum = 0;
    int bad = 0;
    for (unsigned t = 0; t < tiles; t++) {
        bad += got[t] != sum;
        sum += aggregates[t];
    }
    CHECK_MSG(bad == 0, "look-back of sums, %u tiles of %u threads, %s, slow %u: %d prefixes wrong", tiles, threads,
              mix_name(mix), slow, bad);
}

void check_pairs(prim_rng *rng, int mix, unsigned tiles, unsigned threads, unsigned slow)
{
    std::vector<RestartPair> aggregates(tiles);
    for (unsigned t = 0; t < tiles; t++)
        aggregates[t] = RestartPair{mix != MIX_EQUAL && prim_rng_below(rng, 50) == 0, mix_value(rng, mix, t, tiles)};
    const std::vector<RestartPair> got = run<RestartCodec, RestartOp>(aggregates, threads, slow);
    RestartPair acc{0, 0};
    int bad = 0;
    for (unsigned t = 0; t < tiles; t++) {
        bad += !same_pair(got[t], acc);
        acc = RestartOp()(acc, aggregates[t]);
    }
    CHECK_MSG(bad == 0, "look-back of pairs, %u tiles of %u threads, %s, slow %u: %d prefixes wrong", tiles,
              threads, mix_name(mix), slow, bad);
}

} // namespace

int main(void)
{
    LAYER_SKIP_WITHOUT_DEVICE("layer_lookback_gpu");
    prim_rng rng;
    prim_rng_seed(&rng, 0x4C4F4F4B42ull);
    const unsigned tile_counts[] = {1, 2, 31, 32, 33, 65, 1000, 4099, 200003};
    for (int mix = 0; mix < MIX_COUNT; mix++)
        for (unsigned tiles : tile_counts)
            for (unsigned slow : {0u, 7u}) {
                if (prim_quick() && tiles > 5000) // sanitizer runs
                    continue;
                check_sums(&rng, mix, tiles, 32, slow);
                check_sums(&rng, mix, tiles, 128, slow);
                check_pairs(&rng, mix, tiles, 64, slow);
            }
    return kd_test_finish("layer_lookback_gpu");
}
