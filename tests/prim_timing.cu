// Timing program (not a test): scankd's primitives next to CUB's, at the
// sizes given on the command line (default 2^24 and 2^28). For each: median of
// 20 runs after warm-up, CUDA events, GB/s by counted bytes, and the share of
// CUB's figure. Every result is checked against CUB's before it is timed.
//   prim_timing [--once] [log2_n ...]    (--once: 2 runs each, for profilers)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <cub/cub.cuh>

#include "kd_primitives.h"
#include "radix_sort_internal.cuh"
#include "scan_internal.cuh"

#define TRY(call)                                                                                     \
    do {                                                                                              \
        cudaError_t e_ = (call);                                                                      \
        if (e_ != cudaSuccess) {                                                                      \
            std::fprintf(stderr, "prim_timing: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
                         cudaGetErrorString(e_));                                                     \
            std::exit(1);                                                                             \
        }                                                                                             \
    } while (0)

static int WARMUP = 3, REPEATS = 20;
static int g_failures = 0;

static float median_ms(const std::function<void()> &run)
{
    cudaEvent_t start, stop;
    TRY(cudaEventCreate(&start));
    TRY(cudaEventCreate(&stop));
    for (int i = 0; i < WARMUP; i++)
        run();
    TRY(cudaDeviceSynchronize());
    std::vector<float> ms(REPEATS);
    for (int i = 0; i < REPEATS; i++) {
        TRY(cudaEventRecord(start));
        run();
        TRY(cudaEventRecord(stop));
        TRY(cudaEventSynchronize(stop));
        TRY(cudaEventElapsedTime(&ms[i], start, stop));
    }
    TRY(cudaEventDestroy(start));
    TRY(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return 0.5f * (ms[(REPEATS - 1) / 2] + ms[REPEATS / 2]);
}

static void report(const char *group, const char *name, size_t n, double bytes, float ms, float cub_ms)
{
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    std::printf("%-8s %-26s 2^%-3d %10.3f ms %9.1f GB/s", group, name, (int)std::log2((double)n), ms, gbs);
    if (cub_ms > 0)
        std::printf("   %6.1f%% of CUB", 100.0 * cub_ms / ms);
    std::printf("\n");
    std::fflush(stdout);
}

static void verify(const char *what, const void *d_a, const void *d_b, size_t bytes)
{
    std::vector<unsigned char> a(bytes), b(bytes);
    TRY(cudaMemcpy(a.data(), d_a, bytes, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(b.data(), d_b, bytes, cudaMemcpyDeviceToHost));
    if (std::memcmp(a.data(), b.data(), bytes) != 0) {
        std::printf("MISMATCH %s\n", what);
        g_failures++;
    }
}

static void *dalloc(size_t bytes)
{
    void *p = nullptr;
    TRY(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

static void fill_random_u32(uint32_t *d, size_t n, uint32_t seed, uint32_t mask)
{
    std::vector<uint32_t> h(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h[i] = (uint32_t)(s >> 11) & mask;
    }
    TRY(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
}

// Sorted segment ids with random lengths (mean ~1000, some empty segments).
static void fill_segment_ids(uint32_t *d, size_t n, uint32_t *num_segments)
{
    std::vector<uint32_t> h(n);
    uint64_t s = 99;
    uint32_t id = 0;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (i > 0 && (s >> 20) % 1000 == 0)
            id += 1 + (uint32_t)((s >> 40) % 2);
        h[i] = id;
    }
    *num_segments = id + 1;
    TRY(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
}

static float time_copy(size_t n)
{
    void *a = dalloc(n * 4), *b = dalloc(n * 4);
    float ms = median_ms([&] { TRY(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice)); });
    report("copy", "device-to-device", n, 8.0 * n, ms, 0);
    TRY(cudaFree(a));
    TRY(cudaFree(b));
    return ms;
}

static void time_scan(size_t n)
{
    int32_t *d_in = (int32_t *)dalloc(n * 4), *d_out = (int32_t *)dalloc(n * 4), *d_ref = (int32_t *)dalloc(n * 4);
    fill_random_u32((uint32_t *)d_in, n, 1, 0xffffffffu);
    size_t cub_bytes = 0;
    TRY(cub::DeviceScan::ExclusiveSum(nullptr, cub_bytes, d_in, d_ref, (int)n));
    void *cub_temp = dalloc(cub_bytes);
    auto cub_run = [&] { TRY(cub::DeviceScan::ExclusiveSum(cub_temp, cub_bytes, d_in, d_ref, (int)n)); };
    cub_run();
    const float cub_ms = median_ms(cub_run);
    report("scan", "CUB ExclusiveSum", n, 8.0 * n, cub_ms, cub_ms);
    for (int v = 0; v < KD_SCAN_NUM_VARIANTS; v++) {
        size_t bytes = 0;
        TRY(kd_scan_exclusive_i32((kd_scan_variant)v, nullptr, &bytes, d_in, d_out, n, 0));
        void *temp = dalloc(bytes);
        auto run = [&] { TRY(kd_scan_exclusive_i32((kd_scan_variant)v, temp, &bytes, d_in, d_out, n, 0)); };
        TRY(cudaMemset(d_out, 0xcd, n * 4));
        run();
        verify(kd_scan_variant_name((kd_scan_variant)v), d_out, d_ref, n * 4);
        report("scan", kd_scan_variant_name((kd_scan_variant)v), n, 8.0 * n, median_ms(run), cub_ms);
        TRY(cudaFree(temp));
    }
    for (int c = 0; c < KD_SCAN_LOOKBACK_NUM_CONFIGS; c++) {
        size_t bytes = 0;
        const uint32_t *in = (const uint32_t *)d_in;
        uint32_t *out = (uint32_t *)d_out;
        TRY(kd_scan_lookback_run(c, nullptr, &bytes, in, out, n, 0));
        void *temp = dalloc(bytes);
        auto run = [&] { TRY(kd_scan_lookback_run(c, temp, &bytes, in, out, n, 0)); };
        TRY(cudaMemset(d_out, 0xcd, n * 4));
        run();
        char name[64];
        std::snprintf(name, sizeof name, "lookback %s", kd_scan_lookback_config_name(c));
        verify(name, d_out, d_ref, n * 4);
        report("scan", name, n, 8.0 * n, median_ms(run), cub_ms);
        TRY(cudaFree(temp));
    }
    TRY(cudaFree(cub_temp));
    TRY(cudaFree(d_in));
    TRY(cudaFree(d_out));
    TRY(cudaFree(d_ref));
}

static void time_segscan(size_t n)
{
    uint32_t *d_ids = (uint32_t *)dalloc(n * 4);
    int32_t *d_in = (int32_t *)dalloc(n * 4), *d_out = (int32_t *)dalloc(n * 4), *d_ref = (int32_t *)dalloc(n * 4);
    uint32_t num_segments = 0;
    fill_segment_ids(d_ids, n, &num_segments);
    fill_random_u32((uint32_t *)d_in, n, 2, 0xffffffffu);
    size_t cub_bytes = 0;
    TRY(cub::DeviceScan::ExclusiveSumByKey(nullptr, cub_bytes, d_ids, d_in, d_ref, (int)n));
    void *cub_temp = dalloc(cub_bytes);
    auto cub_run = [&] { TRY(cub::DeviceScan::ExclusiveSumByKey(cub_temp, cub_bytes, d_ids, d_in, d_ref, (int)n)); };
    cub_run();
    const float cub_ms = median_ms(cub_run);
    report("segscan", "CUB ExclusiveSumByKey", n, 12.0 * n, cub_ms, cub_ms);
    size_t bytes = 0;
    TRY(kd_segmented_scan_exclusive_i32(nullptr, &bytes, d_ids, d_in, d_out, n, 0));
    void *temp = dalloc(bytes);
    auto run = [&] { TRY(kd_segmented_scan_exclusive_i32(temp, &bytes, d_ids, d_in, d_out, n, 0)); };
    TRY(cudaMemset(d_out, 0xcd, n * 4));
    run();
    verify("segmented scan", d_out, d_ref, n * 4);
    report("segscan", "segmented lookback", n, 12.0 * n, median_ms(run), cub_ms);
    TRY(cudaFree(temp));
    for (int c = 0; c < KD_SEGSCAN_NUM_CONFIGS; c++) {
        const uint32_t *in = (const uint32_t *)d_in;
        uint32_t *out = (uint32_t *)d_out;
        TRY(kd_segscan_run(c, nullptr, &bytes, d_ids, in, out, n, 0));
        temp = dalloc(bytes);
        auto config_run = [&] { TRY(kd_segscan_run(c, temp, &bytes, d_ids, in, out, n, 0)); };
        TRY(cudaMemset(d_out, 0xcd, n * 4));
        config_run();
        char name[64];
        std::snprintf(name, sizeof name, "segmented %s", kd_segscan_config_name(c));
        verify(name, d_out, d_ref, n * 4);
        report("segscan", name, n, 12.0 * n, median_ms(config_run), cub_ms);
        TRY(cudaFree(temp));
    }

    // Head flags -> ids (no CUB counterpart here): 1 byte read, 4 written.
    uint8_t *d_flags = (uint8_t *)dalloc(n);
    TRY(cudaMemset(d_flags, 0, n));
    TRY(cudaMemset(d_flags, 1, n / 1000));
    TRY(kd_head_flags_to_segment_ids(nullptr, &bytes, d_flags, d_ids, n, 0));
    temp = dalloc(bytes);
    auto heads = [&] { TRY(kd_head_flags_to_segment_ids(temp, &bytes, d_flags, d_ids, n, 0)); };
    report("segscan", "head flags -> ids", n, 5.0 * n, median_ms(heads), 0);
    TRY(cudaFree(temp));
    TRY(cudaFree(d_flags));
    TRY(cudaFree(cub_temp));
    TRY(cudaFree(d_ids));
    TRY(cudaFree(d_in));
    TRY(cudaFree(d_out));
    TRY(cudaFree(d_ref));
}

static void time_split(size_t n)
{
    // One segment, sides left/right only, one 4-byte payload: read + flags + write.
    std::vector<uint8_t> h_sides(n);
    uint64_t s = 7;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h_sides[i] = (uint8_t)(1 + ((s >> 30) & 1));
    }
    uint8_t *d_sides = (uint8_t *)dalloc(n), *d_flags = (uint8_t *)dalloc(n);
    TRY(cudaMemcpy(d_sides, h_sides.data(), n, cudaMemcpyHostToDevice));
    for (size_t i = 0; i < n; i++)
        h_sides[i] = h_sides[i] == 1;
    TRY(cudaMemcpy(d_flags, h_sides.data(), n, cudaMemcpyHostToDevice));
    uint32_t *d_in = (uint32_t *)dalloc(n * 4), *d_out = (uint32_t *)dalloc(2 * n * 4), *d_ref = (uint32_t *)dalloc(n * 4);
    uint32_t *d_counts = (uint32_t *)dalloc(64);
    int *d_selected = (int *)dalloc(sizeof(int));
    fill_random_u32(d_in, n, 3, 0xffffffffu);
    size_t cub_bytes = 0;
    TRY(cub::DevicePartition::Flagged(nullptr, cub_bytes, d_in, d_flags, d_ref, d_selected, (int)n));
    void *cub_temp = dalloc(cub_bytes);
    auto cub_run = [&] {
        TRY(cub::DevicePartition::Flagged(cub_temp, cub_bytes, d_in, d_flags, d_ref, d_selected, (int)n));
    };
    cub_run();
    const float cub_ms = median_ms(cub_run);
    report("split", "CUB Partition::Flagged", n, 9.0 * n, cub_ms, cub_ms);

    kd_split_payload payload = {d_in, d_out, 4};
    size_t bytes = 0;
    TRY(kd_split_by_side(nullptr, &bytes, nullptr, 1, d_sides, n, &payload, 1, d_counts, d_counts + 1,
                         d_counts + 2, 0));
    void *temp = dalloc(bytes);
    auto run = [&] {
        TRY(kd_split_by_side(temp, &bytes, nullptr, 1, d_sides, n, &payload, 1, d_counts, d_counts + 1,
                             d_counts + 2, 0));
    };
    run();
    // CUB puts the rejected (right) items in reverse order: compare the lefts
    // directly and the rights reversed.
    int selected = 0;
    TRY(cudaMemcpy(&selected, d_selected, sizeof selected, cudaMemcpyDeviceToHost));
    std::vector<uint32_t> ours(n), cubs(n);
    TRY(cudaMemcpy(ours.data(), d_out, n * 4, cudaMemcpyDeviceToHost));
    TRY(cudaMemcpy(cubs.data(), d_ref, n * 4, cudaMemcpyDeviceToHost));
    std::reverse(cubs.begin() + selected, cubs.end());
    uint32_t counts[3];
    TRY(cudaMemcpy(counts, d_counts, sizeof counts, cudaMemcpyDeviceToHost));
    if (ours != cubs || counts[0] != (uint32_t)selected || counts[2] != n) {
        std::printf("MISMATCH split\n");
        g_failures++;
    }
    report("split", "split one segment", n, 9.0 * n, median_ms(run), cub_ms);
    TRY(cudaFree(temp));

    // Segmented, with straddlers (1/8 both): counted as ids + sides + payload
    // read and the (longer) payload output written.
    uint32_t *d_ids = (uint32_t *)dalloc(n * 4);
    uint32_t num_segments = 0;
    fill_segment_ids(d_ids, n, &num_segments);
    s = 11;
    size_t both = 0;
    std::vector<uint8_t> h_seg_sides(n);
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        h_seg_sides[i] = (s >> 40) % 8 == 0 ? 3 : (uint8_t)(1 + ((s >> 30) & 1));
        both += h_seg_sides[i] == 3;
    }
    TRY(cudaMemcpy(d_sides, h_seg_sides.data(), n, cudaMemcpyHostToDevice));
    uint32_t *d_seg_counts = (uint32_t *)dalloc((2 * (size_t)num_segments + 1) * 4);
    TRY(kd_split_by_side(nullptr, &bytes, d_ids, num_segments, d_sides, n, &payload, 1, d_seg_counts,
                         d_seg_counts + num_segments, d_seg_counts + 2 * num_segments, 0));
    temp = dalloc(bytes);
    auto seg_run = [&] {
        TRY(kd_split_by_side(temp, &bytes, d_ids, num_segments, d_sides, n, &payload, 1, d_seg_counts,
                             d_seg_counts + num_segments, d_seg_counts + 2 * num_segments, 0));
    };
    report("split", "split segmented +both", n, 9.0 * n + 4.0 * n + 4.0 * both, median_ms(seg_run), 0);
    TRY(cudaFree(temp));
    TRY(cudaFree(d_seg_counts));
    TRY(cudaFree(d_ids));
    TRY(cudaFree(cub_temp));
    TRY(cudaFree(d_sides));
    TRY(cudaFree(d_flags));
    TRY(cudaFree(d_in));
    TRY(cudaFree(d_out));
    TRY(cudaFree(d_ref));
    TRY(cudaFree(d_counts));
    TRY(cudaFree(d_selected));
}

static void time_sort(size_t n)
{
    uint32_t *d_keys = (uint32_t *)dalloc(n * 4), *d_values = (uint32_t *)dalloc(n * 4);
    uint32_t *d_keys_out = (uint32_t *)dalloc(n * 4), *d_values_out = (uint32_t *)dalloc(n * 4);
    uint32_t *d_keys_ref = (uint32_t *)dalloc(n * 4), *d_values_ref = (uint32_t *)dalloc(n * 4);
    fill_random_u32(d_keys, n, 4, 0xffffffffu);
    fill_random_u32(d_values, n, 5, 0xffffffffu);
    size_t cub_bytes = 0;
    TRY(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, d_keys, d_keys_ref, d_values, d_values_ref, (int)n));
    void *cub_temp = dalloc(cub_bytes);
    auto cub_run = [&] {
        TRY(cub::DeviceRadixSort::SortPairs(cub_temp, cub_bytes, d_keys, d_keys_ref, d_values, d_values_ref, (int)n));
    };
    cub_run();
    const float cub_ms = median_ms(cub_run);
    // Bytes: keys and values read and written once (the minimum for a sort).
    report("sort", "CUB SortPairs 32-bit", n, 16.0 * n, cub_ms, cub_ms);
    size_t bytes = 0;
    TRY(kd_radix_sort_pairs_u32(nullptr, &bytes, d_keys, d_keys_out, d_values, d_values_out, n, 0));
    void *temp = dalloc(bytes);
    auto run = [&] {
        TRY(kd_radix_sort_pairs_u32(temp, &bytes, d_keys, d_keys_out, d_values, d_values_out, n, 0));
    };
    run();
    verify("sort keys", d_keys_out, d_keys_ref, n * 4);
    verify("sort values", d_values_out, d_values_ref, n * 4);
    report("sort", "radix sort 32-bit", n, 16.0 * n, median_ms(run), cub_ms);
    TRY(cudaFree(temp));
    for (int c = 0; c < KD_RADIX_SORT_NUM_CONFIGS; c++) {
        TRY(kd_radix_sort_run(c, nullptr, &bytes, d_keys, d_keys_out, d_values, d_values_out, n, 0));
        temp = dalloc(bytes);
        auto config_run = [&] {
            TRY(kd_radix_sort_run(c, temp, &bytes, d_keys, d_keys_out, d_values, d_values_out, n, 0));
        };
        TRY(cudaMemset(d_keys_out, 0xcd, n * 4));
        config_run();
        char name[64];
        std::snprintf(name, sizeof name, "sort %s", kd_radix_sort_config_name(c));
        verify(name, d_keys_out, d_keys_ref, n * 4);
        verify(name, d_values_out, d_values_ref, n * 4);
        report("sort", name, n, 16.0 * n, median_ms(config_run), cub_ms);
        TRY(cudaFree(temp));
    }
    // Keys below 2^16: two passes run, two are skipped.
    TRY(kd_radix_sort_pairs_u32(nullptr, &bytes, d_keys, d_keys_out, d_values, d_values_out, n, 0));
    temp = dalloc(bytes);
    fill_random_u32(d_keys, n, 6, 0xffffu);
    report("sort", "radix sort keys < 2^16", n, 16.0 * n, median_ms(run), 0);
    TRY(cudaFree(temp));
    TRY(cudaFree(cub_temp));
    for (uint32_t *p : {d_keys, d_values, d_keys_out, d_values_out, d_keys_ref, d_values_ref})
        TRY(cudaFree(p));
}

int main(int argc, char **argv)
{
    std::vector<int> logs;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--once") == 0) {
            // For profilers: every primitive runs a handful of times only.
            WARMUP = 0;
            REPEATS = 2;
            continue;
        }
        logs.push_back(std::atoi(argv[i]));
    }
    if (logs.empty())
        logs = {24, 28};
    cudaDeviceProp prop;
    TRY(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs; median of %d runs after %d warm-up runs\n", prop.name,
                prop.multiProcessorCount, REPEATS, WARMUP);
    for (int lg : logs) {
        const size_t n = (size_t)1 << lg;
        time_copy(n);
        time_scan(n);
        time_segscan(n);
        time_split(n);
        time_sort(n);
    }
    if (g_failures)
        std::printf("prim_timing: %d results differed from CUB\n", g_failures);
    return g_failures ? 1 : 0;
}
