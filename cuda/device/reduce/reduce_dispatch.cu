// The reduction ladder's dispatch: validates, sizes temporary storage, plans
// the passes of the multi-pass rungs (relaunch on the partials until one
// value per lane remains, as the thesis does) or hands the grid-stride rungs
// their run, and exposes kd_reduce_f32.
#include "reduce_common.cuh"

#include "kd_primitives.h"
#include "temp_storage.cuh"

using namespace kdr;

namespace {

const RungEntry *const k_rungs[KD_REDUCE_NUM_VARIANTS] = {
    &reduce0_rung, &reduce1_rung, &reduce2_rung, &reduce3_rung, &reduce4_rung,
    &reduce5_rung, &reduce6_rung, &reduce7_rung, &reduce8_rung,
};

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

bool shape_valid(kd_reduce_shape shape)
{
    return shape == KD_REDUCE_SHAPE_MIN || shape == KD_REDUCE_SHAPE_MAX || shape == KD_REDUCE_SHAPE_BOUNDS;
}

// The lanes of d_in, checked: a run (d_temp given) needs d_out and, for
// n > 0, every lane.
cudaError_t gather_lanes(int lanes, const float *const *d_in, const float *d_out, size_t n, const void *d_temp,
                         InLanes *in)
{
    *in = InLanes{};
    if (d_in != nullptr)
        for (int k = 0; k < lanes; k++)
            in->p[k] = d_in[k];
    if (d_temp != nullptr) {
        if (d_out == nullptr || (n > 0 && d_in == nullptr))
            return cudaErrorInvalidValue;
        for (int k = 0; k < lanes && n > 0; k++)
            if (in->p[k] == nullptr)
                return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

// A grid-stride rung: its own temporary storage and one call.
cudaError_t run_stride(const StrideRung &rung, int block_size, kd_reduce_shape shape, void *d_temp,
                       size_t *temp_bytes, const InLanes &in, float *d_out, size_t n, cudaStream_t stream)
{
    size_t needed = 0;
    KD_TRY_CUDA(rung.temp_bytes(shape, block_size, n, &needed));
    kd_temp_layout layout;
    kd_temp_init(&layout);
    kd_temp_add(&layout, needed);
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;
    return rung.run(shape, block_size, in, d_out, n, d_temp, *temp_bytes, stream);
}

// The multi-pass plan: pass 1 writes num_tiles partials per lane to buffer
// A, pass 2 to B, pass 3 back to A (smaller each time), the last pass to
// d_out. Rungs with global scratch get one float per thread of pass 1.
struct PassPlan {
    size_t tile;
    kd_temp_layout layout;
    int slot_a, slot_b, slot_scratch;
};

cudaError_t plan_passes(const RungTraits &traits, int lanes, int block_size, size_t n, PassPlan *plan)
{
    plan->tile = (size_t)traits.items_per_thread * block_size;
    const size_t tiles1 = n > plan->tile ? ceil_div(n, plan->tile) : 1;
    const size_t tiles2 = tiles1 > plan->tile ? ceil_div(tiles1, plan->tile) : 1;
    if (tiles1 > 0x7fffffffu)
        return cudaErrorInvalidValue; // grid too large (n beyond 2^39 elements)
    kd_temp_init(&plan->layout);
    plan->slot_a = kd_temp_add(&plan->layout, tiles1 > 1 ? lanes * tiles1 * sizeof(float) : 0);
    plan->slot_b = kd_temp_add(&plan->layout, tiles2 > 1 ? lanes * tiles2 * sizeof(float) : 0);
    plan->slot_scratch =
        kd_temp_add(&plan->layout, traits.global_scratch ? lanes * tiles1 * block_size * sizeof(float) : 0);
    return cudaSuccess;
}

cudaError_t run_passes(const RungEntry &rung, const RungTraits &traits, const PassPlan &plan, int block_size,
                       kd_reduce_shape shape, int lanes, void *d_temp, const InLanes &in, float *d_out, size_t n,
                       cudaStream_t stream)
{
    float *buffers[2] = {kd_temp_slot<float>(&plan.layout, d_temp, plan.slot_a),
                         kd_temp_slot<float>(&plan.layout, d_temp, plan.slot_b)};
    float *scratch = traits.global_scratch ? kd_temp_slot<float>(&plan.layout, d_temp, plan.slot_scratch) : nullptr;
    InLanes cur = in;
    size_t cur_n = n;
    for (int pass = 0;; pass++) {
        const size_t tiles = cur_n > plan.tile ? ceil_div(cur_n, plan.tile) : 1;
        PassArgs args{};
        args.shape = shape;
        args.block_size = block_size;
        args.in = cur;
        args.n = cur_n;
        args.num_tiles = (unsigned)tiles;
        args.scratch = scratch;
        args.scratch_stride = tiles * block_size;
        float *dest = tiles == 1 ? d_out : buffers[pass % 2];
        const size_t lane_stride = tiles == 1 ? 1 : tiles;
        for (int k = 0; k < lanes; k++)
            args.out.p[k] = dest + k * lane_stride;
        KD_TRY_CUDA(rung.pass(args, stream));
        if (tiles == 1)
            return cudaSuccess;
        for (int k = 0; k < lanes; k++)
            cur.p[k] = args.out.p[k];
        cur_n = tiles;
    }
}

} // namespace

const int kd_reduce_block_sizes[KD_REDUCE_NUM_BLOCK_SIZES] = {128, 256, 512, 1024};

extern "C" int kd_reduce_shape_lanes(kd_reduce_shape shape)
{
    return shape == KD_REDUCE_SHAPE_BOUNDS ? 6 : 1;
}

extern "C" bool kd_reduce_block_size_supported(int block_size)
{
    for (int i = 0; i < KD_REDUCE_NUM_BLOCK_SIZES; i++)
        if (kd_reduce_block_sizes[i] == block_size)
            return true;
    return false;
}

extern "C" int kd_reduce_default_block_size(kd_reduce_variant variant)
{
    (void)variant;
    return KD_REDUCE_BLOCK;
}

extern "C" const char *kd_reduce_variant_name(kd_reduce_variant variant)
{
    switch (variant) {
    case KD_REDUCE0: return "reduce0-interleaved";
    case KD_REDUCE1: return "reduce1-sequential";
    case KD_REDUCE2: return "reduce2-shared";
    case KD_REDUCE3: return "reduce3-register";
    case KD_REDUCE4: return "reduce4-unrolled";
    case KD_REDUCE5_SHUFFLE: return "reduce5-shuffle";
    case KD_REDUCE6_VEC4: return "reduce6-vec4";
    case KD_REDUCE7_MANY_PER_THREAD: return "reduce7-many-per-thread";
    case KD_REDUCE8_ONEPASS: return "reduce8-onepass";
    case KD_REDUCE_NUM_VARIANTS: break;
    }
    return "unknown";
}

extern "C" cudaError_t kd_reduce_lanes(kd_reduce_variant variant, int block_size, kd_reduce_shape shape,
                                       void *d_temp, size_t *temp_bytes, const float *const *d_in, float *d_out,
                                       size_t n, cudaStream_t stream)
{
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS || !shape_valid(shape) ||
        !kd_reduce_block_size_supported(block_size) || temp_bytes == nullptr)
        return cudaErrorInvalidValue;
    const int lanes = kd_reduce_shape_lanes(shape);
    InLanes in;
    KD_TRY_CUDA(gather_lanes(lanes, d_in, d_out, n, d_temp, &in));
    const RungEntry &rung = *k_rungs[variant];
    if (rung.stride != nullptr)
        return run_stride(*rung.stride, block_size, shape, d_temp, temp_bytes, in, d_out, n, stream);

    const RungTraits traits = rung.traits(lanes, block_size);
    PassPlan plan;
    KD_TRY_CUDA(plan_passes(traits, lanes, block_size, n, &plan));
    cudaError_t err;
    if (kd_temp_is_query(&plan.layout, d_temp, temp_bytes, &err))
        return err;
    return run_passes(rung, traits, plan, block_size, shape, lanes, d_temp, in, d_out, n, stream);
}

namespace kdr {
cudaError_t rung_segmented_plan(kd_reduce_variant variant, int lanes, int block_size, RungTraits *traits,
                                cudaError_t (**launch)(const SegArgs &, cudaStream_t))
{
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS || !kd_reduce_block_size_supported(block_size))
        return cudaErrorInvalidValue;
    *traits = k_rungs[variant]->traits(lanes, block_size);
    *launch = k_rungs[variant]->segmented;
    return cudaSuccess;
}
} // namespace kdr

extern "C" cudaError_t kd_reduce_f32(kd_reduce_variant variant, kd_reduce_op op, void *d_temp, size_t *temp_bytes,
                                     const float *d_in, float *d_out, size_t n, cudaStream_t stream)
{
    if (op != KD_REDUCE_MIN && op != KD_REDUCE_MAX)
        return cudaErrorInvalidValue;
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS)
        return cudaErrorInvalidValue;
    const float *lanes[1] = {d_in};
    return kd_reduce_lanes(variant, kd_reduce_default_block_size(variant),
                           op == KD_REDUCE_MIN ? KD_REDUCE_SHAPE_MIN : KD_REDUCE_SHAPE_MAX, d_temp, temp_bytes,
                           lanes, d_out, n, stream);
}
