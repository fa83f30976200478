// The large level's last step: each split output filed under its child's
// home (the next level, the small stage or a leaf's list), straddlers
// clipped to their child's box. Per-element code shared by the device
// kernels and the host emulation. Included by gpu_build_large.cu only.
#ifndef KD_GPU_BUILD_LARGE_SCATTER_CUH
#define KD_GPU_BUILD_LARGE_SCATTER_CUH

#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"

namespace kd_gb_large {

// Files each split output under its child, and copies the references of
// nodes that became leaves. Straddlers (their node's plane through their
// bounds) are clipped to their child's box. About one lane in eight
// straddles: on a large level, where the clipping bounds the time, they are
// queued and clipped a thread each by a pass of their own (as the small
// stage's members); on a smaller one, where the time is latency, each lane
// clips its own and the level saves a launch.
struct scatter {
    const kd_gb_route *routes;
    const uint32_t *split_total;  // split outputs (on the device); the level's inputs follow
    uint32_t max_out;             // the most the split can write (more: an error the host reports)
    kd_gb_refs split_out;
    kd_gb_refs level;
    const kd_gb_large_node *nodes;
    const float *tri_verts;
    kd_gb_refs next_large;
    kd_gb_refs small;
    uint32_t *leaf_refs;
    uint32_t *clip_queue;         // straddlers left to clip (large levels)
    uint32_t *clip_count;
    uint32_t *next_large_max;     // the next level's largest node (its bookkeeping takes the maximum)
    // The next level's bins and look-back words, zeroed here (the device's
    // binned SAH): [0, zero_words) of zero_bins, then [0, zero_state_words)
    // of zero_states. Nothing reads this level's once the scatter runs.
    uint32_t *zero_bins, *zero_states;
    uint32_t zero_words, zero_state_words;

    // Word i of the next level's bins, then of its look-back words (i <
    // zero_words + zero_state_words), zeroed.
    __host__ __device__ void zero_next(uint32_t i) const
    {
        if (i < zero_words)
            zero_bins[i] = 0;
        else
            zero_states[i - zero_words] = 0;
    }

    // Input i of the level, to its leaf's list if its node became a leaf.
    __host__ __device__ void copy_leaf(uint32_t i) const
    {
        uint32_t k = level.seg[i];
        uint32_t leaf_base = routes[k].leaf_base;
        if (leaf_base != KD_GB_NONE)
            leaf_refs[leaf_base + (i - nodes[k].ref_start)] = level.tri[i];
    }

    // Split output j's node route and side; 0 where it goes nowhere.
    __host__ __device__ int route(uint32_t j, const kd_gb_route **r, int *side) const
    {
        *r = &routes[split_out.seg[j]]; // the split keeps each output's node
        if ((*r)->leaf_base != KD_GB_NONE)
            return 0;
        *side = j - (*r)->out_start < (*r)->num_left ? 0 : 1;
        return (*r)->dest_kind[*side] != KD_GB_DEST_DROP;
    }

    __host__ __device__ void load(uint32_t j, float *box) const
    {
        for (int k = 0; k < 3; k++) {
            box[k] = split_out.lo[k][j];
            box[3 + k] = split_out.hi[k][j];
        }
    }

    __host__ __device__ void put(uint32_t j, const kd_gb_route &r, int side, const float *box) const
    {
        uint32_t local = j - r.out_start;
        uint32_t rank = side ? local - r.num_left : local;
        const kd_gb_refs &to = r.dest_kind[side] == KD_GB_DEST_LARGE ? next_large : small;
        uint32_t dst = r.dest_base[side] + rank;
        to.tri[dst] = split_out.tri[j];
        for (int k = 0; k < 3; k++) {
            to.lo[k][dst] = box[k];
            to.hi[k][dst] = box[3 + k];
        }
        if (r.dest_kind[side] == KD_GB_DEST_LARGE)
            to.seg[dst] = r.dest_id[side];
    }

    // Files split output j unless it straddles its node's plane: 1 where it
    // does, left to clip.
    __host__ __device__ int file(uint32_t j) const
    {
        const kd_gb_route *r;
        int side;
        if (!route(j, &r, &side))
            return 0;
        float box[6];
        load(j, box);
        if (box[r->axis] <= r->pos && box[3 + r->axis] >= r->pos)
            return 1;
        put(j, *r, side, box);
        return 0;
    }

    // Clips straddling split output j to its child's box and files it (its
    // other copy, elsewhere in the split's output, clips on its own); the
    // clip's polygons in poly.
    template <typename Poly>
    __host__ __device__ void clip(uint32_t j, Poly &poly) const
    {
        const kd_gb_route *r;
        int side;
        if (!route(j, &r, &side))
            return;
        float box[6], cell[6], child[2][6];
        load(j, box);
        // One side of the small stage's clip for both (the same bounds, bit
        // for bit, as the medium stage's, which clips once for both copies).
        kd_gb_parent_cell(r->child_cell, r->axis, cell);
        kd_gb_clip_split_in(poly, tri_verts + 9 * (size_t)split_out.tri[j], cell, box, r->axis, r->pos, child);
        put(j, *r, side, side ? child[1] : child[0]);
    }
};

#if KD_DEVICE_CODE
// A thread per split output (launched for the most the split can write,
// the true count read here) and per level input. QUEUE: straddlers go to
// the clip queue (one atomic per warp), else they are clipped here.
template <bool QUEUE>
__global__ void __launch_bounds__(KD_GB_MAP_BLOCK) scatter_kernel(scatter f, uint32_t num_in)
{
    kd_wait_prior();
    const uint32_t num_out = *f.split_total;
    // This level's largest node is read back by a copy beside this kernel;
    // the next level's bookkeeping takes its maximum in the other word.
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *f.next_large_max = 0;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < f.zero_words + f.zero_state_words;
         i += gridDim.x * blockDim.x)
        f.zero_next(i);
    if (num_out > f.max_out)
        return; // the host reports it
    const uint32_t n = num_out + num_in;
    for (uint32_t first = blockIdx.x * blockDim.x; first < n; first += gridDim.x * blockDim.x) {
        const uint32_t j = first + threadIdx.x;
        int straddles = 0;
        if (j < num_out)
            straddles = f.file(j);
        else if (j < n)
            f.copy_leaf(j - num_out);
        if (QUEUE) {
            kd_gb_warp_append(f.clip_count, f.clip_queue, straddles, j);
        } else if (straddles) {
            kd_gb_poly_call own;
            f.clip(j, own);
        }
    }
}

// The queued clips, a thread each, the polygons in shared memory
// (KD_GB_CLIP_SHARED_BYTES, 54 KB a block of 128: every GPU since sm_75
// allows that a block; four blocks fit an H100 SM).
enum { LARGE_CLIP_THREADS = 128 };
__global__ void __launch_bounds__(LARGE_CLIP_THREADS) large_clip_kernel(scatter f)
{
    extern __shared__ double large_polygons[];
    kd_gb_poly_shared<LARGE_CLIP_THREADS> poly = {large_polygons + threadIdx.x};
    kd_wait_prior();
    const uint32_t count = *f.clip_count;
    for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < count; q += gridDim.x * blockDim.x)
        f.clip(f.clip_queue[q], poly);
}

#endif

#if KD_DEVICE_CODE
static kd_status scatter_on_device(kd_gpu_builder *b, const scatter &f, uint32_t num_in, uint32_t clip_blocks,
                                   kd_error *err)
{
    const uint32_t threads = f.max_out + num_in, blocks = (threads + KD_GB_MAP_BLOCK - 1) / KD_GB_MAP_BLOCK;
    if (num_in < KD_GB_CLIP_QUEUE_MIN)
        return kd_gb_cuda(err, kd_launch_dependent(scatter_kernel<false>, blocks, KD_GB_MAP_BLOCK, 0, b->stream, f, num_in),
                          "scattering references");
    KD_TRY(kd_gb_cuda(err, kd_launch_dependent(scatter_kernel<true>, blocks, KD_GB_MAP_BLOCK, 0, b->stream, f, num_in),
                      "scattering references"));
    return kd_gb_cuda(err,
                      kd_launch_dependent(large_clip_kernel, clip_blocks, LARGE_CLIP_THREADS,
                                          KD_GB_CLIP_SHARED_BYTES(LARGE_CLIP_THREADS), b->stream, f),
                      "clipping straddling references");
}
#endif

static kd_status run_scatter(kd_gpu_builder *b, const scatter &f, uint32_t num_in, uint32_t clip_blocks,
                             kd_error *err)
{
    if (b->host) {
        const uint32_t num_out = *f.split_total;
        *f.next_large_max = 0;
        for (uint32_t i = 0; i < f.zero_words + f.zero_state_words; i++)
            f.zero_next(i);
        kd_gb_poly_local poly;
        for (uint32_t j = 0; j < num_out && num_out <= f.max_out; j++)
            if (f.file(j))
                f.clip(j, poly);
        for (uint32_t i = 0; i < num_in; i++)
            f.copy_leaf(i);
        return KD_OK;
    }
    KD_GB_ON_DEVICE(scatter_on_device(b, f, num_in, clip_blocks, err));
}

} // namespace kd_gb_large

#endif
