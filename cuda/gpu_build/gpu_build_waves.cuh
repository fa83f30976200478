// The small stage's waves in groups, bottom up: the launches that the collapse
// (gpu_build_collapse.cu) and the output stage's subtree sizes
// (gpu_build_output_sizes.cuh) make over them. A node's children lie in the
// next wave, so a thread per node of a group's upper wave can settle the
// node's subtree down through the group, each node from its children's
// results, and store its node's for the launch above: no thread waits for
// another. The two passes differ only in what a result is.
#ifndef KD_GPU_BUILD_WAVES_CUH
#define KD_GPU_BUILD_WAVES_CUH

#include "gpu_build_common.cuh"

static_assert(KD_GB_COLLAPSE_WAVES >= 1, "a wave group holds one wave at least");

namespace {

// The small stage's task slots as pool ids: the roots first (pool ids of
// the upper stages'), then the slots the stage appended.
struct kd_gb_small_slots {
    const kd_gb_small_root *roots;
    uint32_t pool_base, num_roots;

    __host__ __device__ uint32_t node(uint32_t k) const
    {
        return k < num_roots ? roots[k].pool_id : pool_base + (k - num_roots);
    }
};

// Where a launch lies: its threads are wave u's slots, from task slot
// `first`; lo/hi[d] are wave u + d's pool ids; fresh: the launch before
// stored wave u + LEVELS. A pass over the groups holds one, as `at`.
template <int LEVELS>
struct kd_gb_wave_group {
    uint32_t first;
    uint32_t lo[LEVELS + 1], hi[LEVELS + 1];
    int fresh;
};

// Pool ids [*lo, *hi) of wave w's slots; none for the roots' wave or past
// the last.
inline void kd_gb_wave_ids(const kd_gb_build_state *s, uint32_t w, uint32_t *lo, uint32_t *hi)
{
    *lo = *hi = 0;
    if (w > 0 && w < s->num_small_waves) {
        *lo = s->small_pool_base + (s->small_wave_ends[w - 1] - s->num_small_roots);
        *hi = s->small_pool_base + (s->small_wave_ends[w] - s->num_small_roots);
    }
}

// The launch of PASS<LEVELS> whose upper wave is u, a thread per slot.
template <template <int> class PASS, int LEVELS, class ARGS>
kd_status kd_gb_wave_launch(kd_gpu_builder *b, const kd_gb_build_state *s, const ARGS &g, uint32_t u, int fresh,
                            const char *what, kd_error *err)
{
    PASS<LEVELS> p;
    p.g = g;
    p.at.first = u ? s->small_wave_ends[u - 1] : 0;
    for (uint32_t d = 0; d <= LEVELS; d++)
        kd_gb_wave_ids(s, u + d, &p.at.lo[d], &p.at.hi[d]);
    p.at.fresh = fresh;
    return kd_gb_map(b, s->small_wave_ends[u] - p.at.first, p, what, err);
}

// Every group, from the deepest to the roots'. The launches' upper waves are
// multiples of KD_GB_COLLAPSE_WAVES, so that the last is the roots'; the
// first is the one that reaches the last wave with splits (W - 2). The
// small stage ends in waves of few nodes: where that first group is few,
// the launch before takes it too, its threads a little more work each
// rather than a launch more. (At least one wave, the roots'.)
template <template <int> class PASS, class ARGS>
kd_status kd_gb_wave_groups(kd_gpu_builder *b, const kd_gb_build_state *s, const ARGS &g, const char *what,
                            kd_error *err)
{
    const uint32_t levels = KD_GB_COLLAPSE_WAVES;
    uint32_t u = s->num_small_waves >= 2 ? (s->num_small_waves - 2u) / levels * levels : 0;
    const uint32_t upper_slots = s->small_wave_ends[u] - (u ? s->small_wave_ends[u - 1] : 0);
    if (u >= levels && upper_slots < KD_GB_COLLAPSE_TAIL_MAX) {
        u -= levels;
        KD_TRY((kd_gb_wave_launch<PASS, 2 * KD_GB_COLLAPSE_WAVES>(b, s, g, u, 0, what, err)));
    } else {
        KD_TRY((kd_gb_wave_launch<PASS, KD_GB_COLLAPSE_WAVES>(b, s, g, u, 0, what, err)));
    }
    while (u > 0) {
        u -= levels;
        KD_TRY((kd_gb_wave_launch<PASS, KD_GB_COLLAPSE_WAVES>(b, s, g, u, 1, what, err)));
    }
    return KD_OK;
}

} // namespace
#endif
