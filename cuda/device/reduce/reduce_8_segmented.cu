// Reduce8, segmented: not Reduce7's segmented form plus one change, but a different algorithm
// with the same aim as the full Reduce8 (one launch, no second pass). Rungs 0-7 set every record
// to the identities with an init kernel and add each tile's runs into them by atomics
// (reduce_segmented.cuh); here every record is written once, by one cooperative launch:
//   a thread loads four consecutive elements (16-byte loads where the lanes allow);
//   a block-wide segmented scan (block_scan.cuh over (key, value) pairs) reduces the tile's runs;
//   runs that start and end inside a tile are stored at once, and each tile's first and last
//   run (which may go on in the tiles around it) become boundary entries;
//   after a grid-wide barrier block 0 joins the entries in order and stores those runs.
#include <cooperative_groups.h>

#include "block_scan.cuh"
#include "reduce_common.cuh"
#include "temp_storage.cuh"

namespace kdr {

namespace {

constexpr int kItems = 4;                // consecutive elements per thread: one 16-byte vector
constexpr uint32_t kNoKey = 0xffffffffu; // past the array's end: a run that is never written

// A run's key (segment id) and its value so far.
template <int K>
struct KeyRun {
    uint32_t key;
    float v[K];
};

// later = earlier (+) later: the values join where the keys are equal. Keys
// are sorted, so this is associative, and a value of identities joins as
// nothing (the "no prefix" of a block's first thread).
template <int K, unsigned OPS>
__device__ __forceinline__ void join_earlier(KeyRun<K> &later, const KeyRun<K> &earlier)
{
    if (earlier.key == later.key) {
#pragma unroll
        for (int k = 0; k < K; k++)
            later.v[k] = lane_op<OPS>(k, earlier.v[k], later.v[k]);
    }
}

template <int K, unsigned OPS>
__device__ __forceinline__ KeyRun<K> identity_run()
{
    KeyRun<K> r;
    r.key = kNoKey;
#pragma unroll
    for (int k = 0; k < K; k++)
        r.v[k] = lane_identity<OPS>(k);
    return r;
}

// The join as the block scan's operator: op(earlier, later).
template <int K, unsigned OPS>
struct JoinRuns {
    __device__ __forceinline__ KeyRun<K> operator()(const KeyRun<K> &earlier, KeyRun<K> later) const
    {
        join_earlier<K, OPS>(later, earlier);
        return later;
    }
};

template <int K, int BLOCK>
using RunScan = kd_block_scan<BLOCK, 1, KeyRun<K>>;

// What comes before this thread's run in the block (identities where
// nothing does). One barrier inside; a caller that calls it again puts a
// barrier between the calls.
template <int K, unsigned OPS, int BLOCK>
__device__ __forceinline__ KeyRun<K> block_prefix(const KeyRun<K> &mine, typename RunScan<K, BLOCK>::storage &s)
{
    KeyRun<K> run[1] = {mine}, total[1];
    RunScan<K, BLOCK>::exclusive_scan(run, total, identity_run<K, OPS>(), JoinRuns<K, OPS>{}, s);
    return run[0];
}

template <int K>
__device__ __forceinline__ void store_record(float *records, uint32_t key, const float (&v)[K])
{
#pragma unroll
    for (int k = 0; k < K; k++)
        records[(size_t)key * K + k] = v[k];
}

// Segments [begin, end) (those below num_segments) have no element: they
// get the identities. begin is 64-bit: it is a key + 1, and a key may be
// 0xffffffff.
template <int K, unsigned OPS>
__device__ void fill_empty(float *records, uint64_t begin, uint32_t end, uint32_t num_segments)
{
    const uint64_t stop = min(end, num_segments);
    for (uint64_t s = begin; s < stop; s++) {
#pragma unroll
        for (int k = 0; k < K; k++)
            records[s * K + k] = lane_identity<OPS>(k);
    }
}

// Boundary entries: tile t's first run at 2t, its last at 2t + 1; keys then
// values, lane k at vals + k * num_entries.
struct Entries {
    uint32_t *keys;
    float *vals;
    size_t num;
};

// The entries in the scratch: the keys, then the lanes (temp_storage.cuh).
void entries_layout(int lanes, size_t num_tiles, kd_temp_layout *layout)
{
    kd_temp_init(layout);
    kd_temp_add(layout, 2 * num_tiles * sizeof(uint32_t));
    kd_temp_add(layout, (size_t)lanes * 2 * num_tiles * sizeof(float));
}

Entries entries_in(float *scratch, int lanes, size_t num_tiles)
{
    kd_temp_layout layout;
    entries_layout(lanes, num_tiles, &layout);
    Entries e;
    e.num = 2 * num_tiles;
    e.keys = kd_temp_slot<uint32_t>(&layout, scratch, 0);
    e.vals = kd_temp_slot<float>(&layout, scratch, 1);
    return e;
}

template <int K, unsigned OPS>
__device__ __forceinline__ void put_entry(const Entries &e, size_t at, uint32_t key, const float (&v)[K])
{
    e.keys[at] = key;
#pragma unroll
    for (int k = 0; k < K; k++)
        e.vals[(size_t)k * e.num + at] = v[k];
}

template <int K>
__device__ __forceinline__ KeyRun<K> get_entry(const Entries &e, size_t at)
{
    KeyRun<K> r;
    r.key = __ldcg(e.keys + at);
#pragma unroll
    for (int k = 0; k < K; k++)
        r.v[k] = __ldcg(e.vals + (size_t)k * e.num + at);
    return r;
}

// One tile: its runs reduced, the inner ones stored, its first and last run
// made entries.
template <int K, unsigned OPS, int BLOCK, bool VEC>
__device__ void reduce_tile_runs(const InLanes &in, const uint32_t *ids, uint32_t num_segments,
                                 float *records, size_t n, size_t tile, const Entries &entries,
                                 typename RunScan<K, BLOCK>::storage &scan, uint32_t *s_first)
{
    const size_t base = tile * (size_t)(BLOCK * kItems) + (size_t)threadIdx.x * kItems;
    uint32_t key[kItems];
    float v[kItems][K];
    if (VEC && base + kItems <= n) {
        const uint4 k4 = __ldg(reinterpret_cast<const uint4 *>(ids + base));
        key[0] = k4.x, key[1] = k4.y, key[2] = k4.z, key[3] = k4.w;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const float4 x = __ldg(reinterpret_cast<const float4 *>(in.p[k] + base));
            v[0][k] = x.x, v[1][k] = x.y, v[2][k] = x.z, v[3][k] = x.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const bool real = base + j < n;
            key[j] = real ? __ldg(ids + base + j) : kNoKey;
#pragma unroll
            for (int k = 0; k < K; k++)
                v[j][k] = real ? __ldg(in.p[k] + base + j) : lane_identity<OPS>(k);
        }
    }
    // Inclusive within the thread, then what the threads before add.
#pragma unroll
    for (int j = 1; j < kItems; j++) {
        if (key[j] == key[j - 1]) {
#pragma unroll
            for (int k = 0; k < K; k++)
                v[j][k] = lane_op<OPS>(k, v[j - 1][k], v[j][k]);
        }
    }
    s_first[threadIdx.x] = key[0];
    KeyRun<K> mine;
    mine.key = key[kItems - 1];
#pragma unroll
    for (int k = 0; k < K; k++)
        mine.v[k] = v[kItems - 1][k];
    const KeyRun<K> prefix = block_prefix<K, OPS, BLOCK>(mine, scan); // has a barrier
#pragma unroll
    for (int j = 0; j < kItems; j++) {
        if (key[j] == prefix.key) {
#pragma unroll
            for (int k = 0; k < K; k++)
                v[j][k] = lane_op<OPS>(k, prefix.v[k], v[j][k]);
        }
    }
    const uint32_t tile_first = s_first[0];
    const uint32_t next_first = threadIdx.x + 1 < BLOCK ? s_first[threadIdx.x + 1] : kNoKey;
    const size_t at = 2 * tile;
#pragma unroll
    for (int j = 0; j < kItems; j++) {
        const bool tile_last = threadIdx.x + 1 == BLOCK && j + 1 == kItems;
        const uint32_t next = j + 1 < kItems ? key[j + 1] : next_first;
        if (tile_last) {
            put_entry<K, OPS>(entries, at + 1, key[j], v[j]);
            if (key[j] == tile_first) // one run fills the tile: the last entry holds it
                put_entry<K, OPS>(entries, at, tile_first, identity_run<K, OPS>().v);
        } else if (next != key[j]) { // a run ends inside the tile
            if (key[j] == tile_first)
                put_entry<K, OPS>(entries, at, key[j], v[j]);
            else if (key[j] < num_segments)
                store_record<K>(records, key[j], v[j]);
            fill_empty<K, OPS>(records, (uint64_t)key[j] + 1, next, num_segments);
        }
    }
    __syncthreads(); // s_first and the scan's storage are reused by the next tile
}

// Block 0, after every tile: the entries reduced by key in order (a thread
// takes a contiguous share, folds it, and, once the block scan gives it what
// comes before, walks it again storing each run that ends there). Gaps are
// filled only from a tile's last entry to the next tile's first (those
// inside a tile were filled with it), and before the first entry.
template <int K, unsigned OPS, int BLOCK>
__device__ void join_entries(const Entries &entries, uint32_t num_segments, float *records,
                             typename RunScan<K, BLOCK>::storage &scan)
{
    const size_t share = (entries.num + BLOCK - 1) / BLOCK;
    const size_t begin = min(entries.num, threadIdx.x * share), end = min(entries.num, begin + share);
    KeyRun<K> acc = identity_run<K, OPS>();
#pragma unroll 4
    for (size_t e = begin; e < end; e++) {
        KeyRun<K> x = get_entry<K>(entries, e);
        join_earlier<K, OPS>(x, acc);
        acc = x;
    }
    acc = block_prefix<K, OPS, BLOCK>(acc, scan);
    if (threadIdx.x == 0) // the segments before the first key
        fill_empty<K, OPS>(records, 0, __ldcg(entries.keys), num_segments);
    for (size_t e = begin; e < end; e++) {
        KeyRun<K> x = get_entry<K>(entries, e);
        join_earlier<K, OPS>(x, acc);
        acc = x;
        const uint32_t next = e + 1 < entries.num ? __ldcg(entries.keys + e + 1) : kNoKey;
        if (next != x.key) {
            if (x.key < num_segments)
                store_record<K>(records, x.key, x.v);
            if ((e & 1) != 0) // a tile's last entry: the segments up to the next tile's first are empty
                fill_empty<K, OPS>(records, (uint64_t)x.key + 1, next, num_segments);
        }
    }
}

template <int K, unsigned OPS, int BLOCK, bool VEC>
__global__ void __launch_bounds__(BLOCK)
    onepass_segmented_kernel(InLanes in, const uint32_t *ids, uint32_t num_segments, float *records, size_t n,
                      unsigned num_tiles, Entries entries)
{
    __shared__ typename RunScan<K, BLOCK>::storage scan;
    __shared__ uint32_t s_first[BLOCK];
    kd_wait_prior();
    for (size_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x)
        reduce_tile_runs<K, OPS, BLOCK, VEC>(in, ids, num_segments, records, n, tile, entries, scan, s_first);
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 0)
        join_entries<K, OPS, BLOCK>(entries, num_segments, records, scan);
}

template <int K, unsigned OPS, int BLOCK, bool VEC>
cudaError_t launch_vec(const SegArgs &a, cudaStream_t stream)
{
    auto kernel = onepass_segmented_kernel<K, OPS, BLOCK, VEC>;
    // Every block must be resident at once (the barrier): at most as many
    // as the GPU holds, each striding over the tiles.
    uint32_t resident = 0;
    cudaError_t e = kd_resident_blocks(kernel, BLOCK, &resident);
    if (e != cudaSuccess)
        return e;
    const unsigned grid = a.num_tiles < resident ? a.num_tiles : resident;
    return kd_launch_dependent_as(true, kernel, grid, BLOCK, 0, stream, a.in, a.ids, a.num_segments,
                                  a.records, a.n, a.num_tiles, entries_in(a.scratch, K, a.num_tiles));
}

template <int K, unsigned OPS, int BLOCK>
cudaError_t launch_k(const SegArgs &a, cudaStream_t stream)
{
    bool vec = (reinterpret_cast<uintptr_t>(a.ids) & 15) == 0;
    for (int k = 0; k < K; k++)
        vec = vec && (reinterpret_cast<uintptr_t>(a.in.p[k]) & 15) == 0;
    return vec ? launch_vec<K, OPS, BLOCK, true>(a, stream) : launch_vec<K, OPS, BLOCK, false>(a, stream);
}

template <int BLOCK>
cudaError_t launch_block(const SegArgs &a, cudaStream_t stream)
{
    switch (a.shape) {
    case KD_REDUCE_SHAPE_MIN: return launch_k<1, kOpsMin, BLOCK>(a, stream);
    case KD_REDUCE_SHAPE_MAX: return launch_k<1, kOpsMax, BLOCK>(a, stream);
    case KD_REDUCE_SHAPE_BOUNDS: return launch_k<6, kOpsBounds, BLOCK>(a, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace

RungTraits reduce8_segmented_traits(int, int) { return {kItems, false, true}; }

size_t reduce8_segmented_scratch_bytes(int lanes, size_t num_tiles)
{
    kd_temp_layout layout;
    entries_layout(lanes, num_tiles, &layout);
    return layout.total_bytes;
}

cudaError_t reduce8_segmented(const SegArgs &a, cudaStream_t stream)
{
    switch (a.block_size) {
    case 128: return launch_block<128>(a, stream);
    case 256: return launch_block<256>(a, stream);
    case 512: return launch_block<512>(a, stream);
    case 1024: return launch_block<1024>(a, stream);
    }
    return cudaErrorInvalidValue;
}

} // namespace kdr
