// GPU test of the block scan on its own (block_scan.cuh): the exclusive scan
// of two sum chains and of a non-commutative pair operator across blocks of
// 32 to 1024 threads, and the striped tile scan (kd_tile_exclusive_scan), on
// `count` values per block (1, odd counts, full) with identities after them;
// inputs random, all equal, or one value off. Exits 77 without a device.
#include "block_scan.cuh"
#include "layer_test.cuh"

namespace {

constexpr int kBlocks = 24;

template <int THREADS>
__global__ void __launch_bounds__(THREADS) scan_kernel(const uint32_t *in, const RestartPair *pairs,
                                                      uint32_t *out, RestartPair *out_pairs)
{
    __shared__ typename kd_block_scan<THREADS, 2, uint32_t>::storage s_sums;
    __shared__ typename kd_block_scan<THREADS, 1, RestartPair>::storage s_pairs;
    const unsigned i = blockIdx.x * THREADS + threadIdx.x;
    uint32_t v[2] = {in[i], in[i] * 5u + 2u}, totals[2];
    kd_block_scan<THREADS, 2, uint32_t>::exclusive_scan(v, totals, 0u, kd_sum_op(), s_sums);
    out[4 * i] = v[0], out[4 * i + 1] = v[1], out[4 * i + 2] = totals[0], out[4 * i + 3] = totals[1];
    RestartPair p[1] = {pairs[i]}, total[1];
    kd_block_scan<THREADS, 1, RestartPair>::exclusive_scan(p, total, RestartPair{0, 0}, RestartOp(), s_pairs);
    out_pairs[2 * i] = p[0], out_pairs[2 * i + 1] = total[0];
}

// Each block scans one striped tile of THREADS x VECS x 4 values.
template <int THREADS, int VECS>
__global__ void __launch_bounds__(THREADS) tile_kernel(const uint32_t *in, uint32_t *out, uint32_t *aggregates)
{
    __shared__ typename kd_block_scan<THREADS, VECS, uint32_t>::storage s;
    const size_t base = (size_t)blockIdx.x * THREADS * VECS * 4;
    uint32_t items[VECS][4];
    for (int j = 0; j < VECS; j++)
        for (int k = 0; k < 4; k++)
            items[j][k] = in[base + (size_t)(j * THREADS + threadIdx.x) * 4 + k];
    const uint32_t aggregate = kd_tile_exclusive_scan<THREADS, VECS>(items, 0u, kd_sum_op(), s);
    for (int j = 0; j < VECS; j++)
        for (int k = 0; k < 4; k++)
            out[base + (size_t)(j * THREADS + threadIdx.x) * 4 + k] = items[j][k];
    if (threadIdx.x == THREADS - 1)
        aggregates[blockIdx.x] = aggregate;
}

// `count` values at the front of each group of `size`, identities after.
void fill_groups(prim_rng *rng, int mix, size_t size, size_t count, std::vector<uint32_t> &v,
                 std::vector<RestartPair> *pairs)
{
    v.assign(size * kBlocks, 0);
    if (pairs)
        pairs->assign(size * kBlocks, RestartPair{0, 0});
    for (int b = 0; b < kBlocks; b++)
        for (size_t i = 0; i < count; i++) {
            v[b * size + i] = mix_value(rng, mix, i, count);
            if (pairs)
                (*pairs)[b * size + i] = RestartPair{mix != MIX_EQUAL && prim_rng_below(rng, 9) == 0, v[b * size + i]};
        }
}

template <int THREADS>
void check_scan(prim_rng *rng, int mix, unsigned count)
{
    std::vector<uint32_t> v;
    std::vector<RestartPair> pairs;
    fill_groups(rng, mix, THREADS, count, v, &pairs);
    DeviceArray<uint32_t> d_in(v), d_out(4 * v.size());
    DeviceArray<RestartPair> d_pairs(pairs), d_out_pairs(2 * v.size());
    scan_kernel<THREADS><<<kBlocks, THREADS>>>(d_in.ptr, d_pairs.ptr, d_out.ptr, d_out_pairs.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<uint32_t> got = d_out.get();
    const std::vector<RestartPair> got_pairs = d_out_pairs.get();
    int bad = 0, bad_pairs = 0;
    for (int b = 0; b < kBlocks; b++) {
        uint32_t s0 = 0, s1 = 0, t0 = 0, t1 = 0;
        RestartPair acc{0, 0}, total{0, 0};
        for (int t = 0; t < THREADS; t++) {
            const size_t i = (size_t)b * THREADS + t;
            t0 += v[i], t1 += v[i] * 5u + 2u;
            total = t == 0 ? pairs[i] : RestartOp()(total, pairs[i]);
        }
        for (int t = 0; t < THREADS; t++) {
            const size_t i = (size_t)b * THREADS + t;
            bad += got[4 * i] != s0 || got[4 * i + 1] != s1 || got[4 * i + 2] != t0 || got[4 * i + 3] != t1;
            bad_pairs += !same_pair(got_pairs[2 * i], acc) || !same_pair(got_pairs[2 * i + 1], total);
            s0 += v[i], s1 += v[i] * 5u + 2u;
            acc = t == 0 ? pairs[i] : RestartOp()(acc, pairs[i]);
        }
    }
    CHECK_MSG(bad == 0, "block scan of sums, %d threads, %s, %u values: %d threads wrong", THREADS, mix_name(mix),
              count, bad);
    CHECK_MSG(bad_pairs == 0, "block scan of pairs, %d threads, %s, %u values: %d threads wrong", THREADS,
              mix_name(mix), count, bad_pairs);
}

template <int THREADS, int VECS>
void check_tile(prim_rng *rng, int mix, size_t count)
{
    constexpr size_t kTile = (size_t)THREADS * VECS * 4;
    std::vector<uint32_t> v;
    fill_groups(rng, mix, kTile, count < kTile ? count : kTile, v, nullptr);
    DeviceArray<uint32_t> d_in(v), d_out(v.size()), d_aggregates(kBlocks);
    tile_kernel<THREADS, VECS><<<kBlocks, THREADS>>>(d_in.ptr, d_out.ptr, d_aggregates.ptr);
    LAYER_CHECK_LAUNCH();
    const std::vector<uint32_t> got = d_out.get(), aggregates = d_aggregates.get();
    int bad = 0;
    for (int b = 0; b < kBlocks; b++) {
        uint32_t sum = 0;
        for (size_t i = 0; i < kTile; i++) {
            bad += got[b * kTile + i] != sum;
            sum += v[b * kTile + i];
        }
        bad += aggregates[b] != sum;
    }
    CHECK_MSG(bad == 0, "tile scan %dx%d, %s, %zu values: %d wrong", THREADS, VECS, mix_name(mix), count, bad);
}

} // namespace

int main(void)
{
    LAYER_SKIP_WITHOUT_DEVICE("layer_block_scan_gpu");
    prim_rng rng;
    prim_rng_seed(&rng, 0x424C4B5343ull);
    for (int mix = 0; mix < MIX_COUNT; mix++) {
        const unsigned counts[] = {1, 33, 127, 1024};
        for (unsigned count : counts) {
            check_scan<32>(&rng, mix, count < 32 ? count : 32);
            check_scan<128>(&rng, mix, count < 128 ? count : 128);
            check_scan<256>(&rng, mix, count < 256 ? count : 256);
            check_scan<1024>(&rng, mix, count);
        }
        const size_t tile_counts[] = {1, 5, 1000, 4097, 1u << 20};
        for (size_t count : tile_counts) {
            check_tile<32, 1>(&rng, mix, count);
            check_tile<128, 8>(&rng, mix, count);
            check_tile<256, 3>(&rng, mix, count);
        }
    }
    return kd_test_finish("layer_block_scan_gpu");
}
