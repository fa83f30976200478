// The reduction ladder's dispatch: sizes temporary storage, plans the passes
// of the multi-pass rungs (relaunch on the partials until one value per lane
// remains, as the thesis does) and exposes kd_reduce_f32.
#include "reduce_common.cuh"

#include "kd_primitives.h"

using namespace kdr;

namespace {

struct RungEntry {
    RungTraits (*traits)(int lanes, int block_size);
    cudaError_t (*pass)(const PassArgs &, cudaStream_t); // NULL for the one-pass rung
    cudaError_t (*segmented)(const SegArgs &, cudaStream_t);
};

const RungEntry k_rungs[KD_REDUCE_NUM_VARIANTS] = {
    {reduce0_traits, reduce0_pass, reduce0_segmented},
    {reduce1_traits, reduce1_pass, reduce1_segmented},
    {reduce2_traits, reduce2_pass, reduce2_segmented},
    {reduce3_traits, reduce3_pass, reduce3_segmented},
    {reduce4_traits, reduce4_pass, reduce4_segmented},
    {reduce5_traits, reduce5_pass, reduce5_segmented},
    {reduce6_segmented_traits, nullptr, reduce6_segmented},
};

// Sub-buffers of the temporary storage start on 256-byte boundaries.
size_t align_up(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

// Never report 0 bytes: a caller that allocates 0 bytes may get NULL back
// and would then be asking for the size again.
constexpr size_t kMinTempBytes = 256;

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
    // 256 for every rung: the thesis' kernels assume one modest block size, and
    // the profiler's sweep (--block-sizes) shows what the others would give.
    (void)variant;
    return 256;
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
    case KD_REDUCE6_VEC4_ONEPASS: return "reduce6-vec4-onepass";
    case KD_REDUCE_NUM_VARIANTS: break;
    }
    return "unknown";
}

static bool shape_valid(kd_reduce_shape shape)
{
    return shape == KD_REDUCE_SHAPE_MIN || shape == KD_REDUCE_SHAPE_MAX ||
           shape == KD_REDUCE_SHAPE_BOUNDS;
}

extern "C" cudaError_t kd_reduce_lanes(kd_reduce_variant variant, int block_size,
                                       kd_reduce_shape shape, void *d_temp, size_t *temp_bytes,
                                       const float *const *d_in, float *d_out, size_t n,
                                       cudaStream_t stream)
{
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS || !shape_valid(shape) ||
        !kd_reduce_block_size_supported(block_size) || temp_bytes == nullptr)
        return cudaErrorInvalidValue;
    const int lanes = kd_reduce_shape_lanes(shape);
    InLanes in{};
    if (d_in != nullptr)
        for (int k = 0; k < lanes; k++)
            in.p[k] = d_in[k];
    if (d_temp != nullptr) {
        if (d_out == nullptr || (n > 0 && d_in == nullptr))
            return cudaErrorInvalidValue;
        for (int k = 0; k < lanes && n > 0; k++)
            if (in.p[k] == nullptr)
                return cudaErrorInvalidValue;
    }

    if (variant == KD_REDUCE6_VEC4_ONEPASS) {
        size_t needed = 0;
        cudaError_t e = reduce6_temp_bytes(shape, block_size, n, &needed);
        if (e != cudaSuccess)
            return e;
        needed = needed > kMinTempBytes ? needed : kMinTempBytes;
        if (d_temp == nullptr) {
            *temp_bytes = needed;
            return cudaSuccess;
        }
        if (*temp_bytes < needed)
            return cudaErrorInvalidValue;
        return reduce6_run(shape, block_size, in, d_out, n, d_temp, *temp_bytes, stream);
    }

    // Multi-pass: pass 1 writes num_tiles partials per lane to buffer A, pass 2
    // to B, pass 3 back to A (smaller each time), the last pass to d_out.
    const RungEntry &rung = k_rungs[variant];
    const RungTraits traits = rung.traits(lanes, block_size);
    const size_t tile = (size_t)traits.items_per_thread * block_size;
    const size_t tiles1 = n > tile ? ceil_div(n, tile) : 1;
    const size_t tiles2 = tiles1 > tile ? ceil_div(tiles1, tile) : 1;
    if (tiles1 > 0x7fffffffu)
        return cudaErrorInvalidValue; // grid too large (n beyond 2^39 elements)
    const size_t bytes_a = tiles1 > 1 ? align_up(lanes * tiles1 * sizeof(float)) : 0;
    const size_t bytes_b = tiles2 > 1 ? align_up(lanes * tiles2 * sizeof(float)) : 0;
    const size_t bytes_scratch =
        traits.global_scratch ? align_up(lanes * tiles1 * block_size * sizeof(float)) : 0;
    size_t needed = bytes_a + bytes_b + bytes_scratch;
    needed = needed > kMinTempBytes ? needed : kMinTempBytes;
    if (d_temp == nullptr) {
        *temp_bytes = needed;
        return cudaSuccess;
    }
    if (*temp_bytes < needed)
        return cudaErrorInvalidValue;

    char *base = static_cast<char *>(d_temp);
    float *buffers[2] = {reinterpret_cast<float *>(base),
                         reinterpret_cast<float *>(base + bytes_a)};
    float *scratch = traits.global_scratch
                         ? reinterpret_cast<float *>(base + bytes_a + bytes_b)
                         : nullptr;
    InLanes cur = in;
    size_t cur_n = n;
    for (int pass = 0;; pass++) {
        const size_t tiles = cur_n > tile ? ceil_div(cur_n, tile) : 1;
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
        cudaError_t e = rung.pass(args, stream);
        if (e != cudaSuccess)
            return e;
        if (tiles == 1)
            return cudaSuccess;
        for (int k = 0; k < lanes; k++)
            cur.p[k] = args.out.p[k];
        cur_n = tiles;
    }
}

namespace kdr {
cudaError_t rung_segmented_plan(kd_reduce_variant variant, int lanes, int block_size,
                                RungTraits *traits, cudaError_t (**launch)(const SegArgs &, cudaStream_t))
{
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS ||
        !kd_reduce_block_size_supported(block_size))
        return cudaErrorInvalidValue;
    *traits = k_rungs[variant].traits(lanes, block_size);
    *launch = k_rungs[variant].segmented;
    return cudaSuccess;
}
} // namespace kdr

extern "C" cudaError_t kd_reduce_f32(kd_reduce_variant variant, kd_reduce_op op, void *d_temp,
                                     size_t *temp_bytes, const float *d_in, float *d_out, size_t n,
                                     cudaStream_t stream)
{
    if (op != KD_REDUCE_MIN && op != KD_REDUCE_MAX)
        return cudaErrorInvalidValue;
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS)
        return cudaErrorInvalidValue;
    const float *lanes[1] = {d_in};
    return kd_reduce_lanes(variant, kd_reduce_default_block_size(variant),
                           op == KD_REDUCE_MIN ? KD_REDUCE_SHAPE_MIN : KD_REDUCE_SHAPE_MAX, d_temp,
                           temp_bytes, lanes, d_out, n, stream);
}
