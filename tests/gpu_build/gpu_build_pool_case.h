// A node pool as the builder lays it out, loaded into a host builder, for the
// host tests of the output stage's passes over it (gpu_build_collapse_waves.cu,
// gpu_build_output_sizes.cu): the upper stages' slots, among them the small
// roots, then the small stage's waves, children two adjacent slots of the
// next wave.
#ifndef KD_TEST_GPU_BUILD_POOL_CASE_H
#define KD_TEST_GPU_BUILD_POOL_CASE_H

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu_build_common.cuh"

// A random pool and where its small waves end, as the small stage leaves them.
struct pool_case {
    std::vector<kd_gb_pool_node> pool;
    std::vector<kd_gb_small_root> roots;
    std::vector<uint32_t> wave_ends; // task slots
    uint32_t pool_base;
};

// A host builder holding case c's pool and small roots; null where it could
// not be made.
static kd_gpu_builder *pool_builder(const pool_case &c)
{
    kd_gpu_builder *b = nullptr;
    kd_error err;
    const size_t n = c.pool.size();
    if (kd_gpu_builder_create(&b, 1, &err) != KD_OK ||
        kd_gb_ensure(b, KD_GB_POOL, n * sizeof(kd_gb_pool_node), 0, &err) != KD_OK ||
        kd_gb_ensure(b, KD_GB_SROOTS, (c.roots.size() + 1) * sizeof(kd_gb_small_root), 0, &err) != KD_OK) {
        kd_gpu_builder_destroy(b);
        return nullptr;
    }
    std::memcpy(kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL), c.pool.data(), n * sizeof(kd_gb_pool_node));
    std::memcpy(kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS), c.roots.data(), c.roots.size() * sizeof(kd_gb_small_root));
    return b;
}

// The build state the passes read of case c (options left to the caller).
static kd_gb_build_state pool_state(const pool_case &c)
{
    kd_gb_build_state s = {};
    s.max_depth = KD_TREE_DEPTH_LIMIT;
    s.pool_count = (uint32_t)c.pool.size();
    s.num_small_roots = (uint32_t)c.roots.size();
    s.small_pool_base = c.pool_base;
    s.num_small_waves = (uint32_t)c.wave_ends.size();
    std::copy(c.wave_ends.begin(), c.wave_ends.end(), s.small_wave_ends);
    return s;
}

#endif
