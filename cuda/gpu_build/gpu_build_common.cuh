// Internals shared by the GPU builder's stages (gpu_build_*.cu): the builder
// context with its growable buffers, the records that flow between stages,
// and the "map" launcher that runs a functor's per-element code either as a
// CUDA kernel or, under host emulation, as a plain loop on the CPU.
//
// The stages' files are compiled twice: by nvcc into scankd_gpu_build (both
// paths), and by the host compiler into scankd_gpu_build_host (the emulation
// alone, no CUDA runtime: emulation/CMakeLists.txt). Device code stands
// behind `#if KD_DEVICE_CODE`; a device path a stage takes goes through
// KD_GB_ON_DEVICE, which the host compiler's build turns into an error.
#ifndef KD_GPU_BUILD_COMMON_CUH
#define KD_GPU_BUILD_COMMON_CUH

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "host_device.h"

#include "cuda_status.h"
#include "gpu_build_internal.h"
#include "gpu_build_tuning.h"
#include "kd_primitives.h"
#include "kd_tree.h"
#if KD_DEVICE_CODE
#include "launch.cuh"
#endif

// ---- Errors ------------------------------------------------------------------
// KD_OK for cudaSuccess, else a KD_ERR_CUDA naming what failed.
kd_status kd_gb_cuda(kd_error *err, cudaError_t code, const char *what);

// What a device path returns in the emulation library (never reached there:
// its builders are all emulations).
static inline kd_status kd_gb_no_device(kd_error *err)
{
    return kd_error_set(err, KD_ERR_NO_DEVICE, "GPU build: this library holds the host emulation only");
}

// `return call;` where the device path exists, the error above elsewhere.
#if KD_DEVICE_CODE
#define KD_GB_ON_DEVICE(call) return (call)
#else
#define KD_GB_ON_DEVICE(call) return kd_gb_no_device(err)
#endif


// ---- Records -----------------------------------------------------------------
// Below this many references in all, the reference budget does not bind.
#define KD_GB_MIN_ALLOWANCE 65536

enum { KD_GB_NONE = 0xffffffffu };

// The per-node records below are 16-byte aligned, so that a warp copies them
// in 128-bit loads and stores (the bookkeeping writes a level's records from
// a block or two, and scalar stores of 13 to 21 words queued up there).
// A node of the large-node stage (one per active node of a level).
struct __align__(16) kd_gb_large_node {
    float cell[6];         // the node's closed box: lo xyz, hi xyz
    uint32_t ref_start;    // its references in the level's arrays
    uint32_t ref_count;
    uint32_t pool_id;      // where the node's record goes in the node pool
    uint32_t parent;       // pool id of its parent (KD_GB_NONE for the root)
    uint32_t depth;
    uint32_t bad_refines;
    float allowance;       // references its leaves may hold, per reference it has
};

// The split a large node chose: axis < 0 makes it a leaf.
struct kd_gb_split_choice {
    int axis;
    float pos;
};

// Where the references of one split large node go (written by the level's
// bookkeeping, read by the scatter). Child 0 is below the plane, 1 above.
enum { KD_GB_DEST_DROP = 0, KD_GB_DEST_LARGE = 1, KD_GB_DEST_SMALL = 2 };
struct __align__(16) kd_gb_route {
    uint32_t out_start;    // first split-output element of the node
    uint32_t num_left;     // the node's left outputs; the right ones follow
    uint32_t leaf_base;    // KD_GB_NONE, or the node became a leaf: its refs go here
    uint32_t dest_kind[2];
    uint32_t dest_base[2]; // first destination element of each child
    uint32_t dest_id[2];   // next-level large node or small root of each child
    int axis;
    float pos;
    float child_cell[2][6];
};

// A node of the small-node stage's roots: at most 64 references.
struct __align__(16) kd_gb_small_root {
    float cell[6];
    uint32_t ref_start;    // into the small reference arrays
    uint32_t ref_count;
    uint32_t pool_id;
    uint32_t parent;
    uint32_t depth;
    uint32_t bad_refines;
    float allowance;
};

// The node pool: every node of the tree once, in any order (the output
// stage orders them). kind: an axis 0..2 for interior nodes, or a leaf kind.
// Every stage fills exactly the slots it takes, so no slot is left empty.
enum { KD_GB_POOL_LEAF_LIST = 3, KD_GB_POOL_LEAF_MASK = 4 };
struct __align__(16) kd_gb_pool_node {
    uint32_t kind;
    float split;           // interior
    uint32_t a;            // interior: below child; list leaf: first leaf ref; mask leaf: small root
    uint32_t b;            // interior: above child; list leaf: count
    unsigned long long mask; // mask leaf: which of the small root's references
    uint32_t parent;       // KD_GB_NONE for the root
    uint32_t depth;
};

// One pool record: interior (kind = axis; a, b: the children), list leaf (a:
// first leaf reference, b: count), or mask leaf (a: small root; mask).
static __host__ __device__ __forceinline__ kd_gb_pool_node kd_gb_pool_record(
    uint32_t kind, float split, uint32_t a, uint32_t b, unsigned long long mask, uint32_t parent,
    uint32_t depth)
{
    kd_gb_pool_node n;
    n.kind = kind;
    n.split = split;
    n.a = a;
    n.b = b;
    n.mask = mask;
    n.parent = parent;
    n.depth = depth;
    return n;
}

// The small stage runs a wave per level a root can descend: at most the
// depth cap's 64 levels and the root's.
enum { KD_GB_MAX_WAVES = KD_TREE_DEPTH_LIMIT + 1 };

// A small-stage wave: its task slots, the node pass's runs taken past each
// warp's first, the straddlers it queued for its clip pass, and its member
// entries. Wave w's clip pass sets wave w + 1's, in the other of two, which
// nothing reads meanwhile: no block need wait for the others (a ticket of
// every block's would cost each wave).
struct kd_gb_wave_state {
    uint32_t begin, end;
    uint32_t next;
    uint32_t clips;
    uint32_t member_begin, member_end;
};

// Scalars the device writes and the host reads back (one copy per level).
struct kd_gb_scalars {
    float scene_box[6];
    uint32_t split_total;      // elements the split wrote
    uint32_t next_large_nodes; // level bookkeeping totals
    uint32_t next_large_refs;
    uint32_t new_small_roots;
    uint32_t new_small_refs;
    uint32_t new_leaf_refs;
    uint32_t new_pool_nodes;
    uint32_t next_large_max[2]; // references of the next level's largest node: level d's in [d % 2] (reset by level d - 1's scatter)
    uint32_t new_large_cuts;   // large level: empty cuts chained in its choice (bookkeeping total)
    // The word every small-stage reservation hits with an atomic, on a
    // 128-byte line of its own, so that loads of the fields around it do
    // not queue behind those atomics.
    uint32_t pad_before_counter[(128 - 64) / 4];
    uint32_t task_count;       // small stage: tasks so far (roots first); with arena_count one
    uint32_t arena_count;      // 64-bit word, 8-byte aligned: member bounds allocated
    uint32_t pad_after_counter[(128 - 8) / 4];
    uint32_t pool_overflow;    // small stage: the task array or the bounds arena was too small
    uint32_t wave_count;       // small stage: waves done (their ends in wave_ends)
    uint32_t clip_short;       // small stage: 0, or the most clip jobs a wave asked for past their array (with pool_overflow)
    uint32_t member_most;      // small stage: the most member entries one wave asked for (its arena half's need)
    uint32_t task_most;        // small stage: the most task slots one wave asked for (its task half's need)
    kd_gb_wave_state wave[2];  // small stage: wave w's in wave[w % 2], the next one's set by w's clip pass
    uint32_t clip_count;       // large level: straddlers queued for clipping
    uint32_t total_leaf_refs;  // output: references in all leaves
    uint32_t total_nodes;      // output: nodes of the tree
    uint32_t bad_index;        // preprocess: a vertex index was out of range
    uint32_t bad_vertex;       // preprocess: 0, or 1 + the highest vertex a triangle names with a coordinate not finite
    uint32_t broken_pool;      // output: the pool is corrupt (see subtree sizes)
    // The medium stage's counters (gpu_build_medium.cu), set by its queue kernel first.
    uint32_t med_head;         // the next task a warp claims
    uint32_t med_tail;         // tasks made (the level's nodes first)
    uint32_t med_live;         // tasks made and not yet finished
    uint32_t med_done;         // 1 once none is live
    uint32_t med_refs;         // references in the arena
    uint32_t med_pool;         // pool slots
    uint32_t med_roots;        // small roots
    uint32_t med_small_refs;   // small references
    uint32_t med_leaf_refs;    // leaf references
    uint32_t med_min_depth;    // the shallowest small root it made (KD_GB_NONE: none)
    uint32_t med_overflow;     // an array was too small: grown, and the stage run again
    uint32_t med_cuts;         // empty cuts made in a row by one warp, without a task each
    uint32_t med_big_head;     // the next place in the block queue a block claims
    uint32_t med_big_tail;     // places in the block queue taken (the level's nodes' first)
    uint32_t med_big_live;     // block-queue tasks made and not yet finished
    uint32_t med_big_done;     // block-queue tasks a block took
    uint32_t med_blocks_started; // blocks of the launch started (the first half serve the block queue)
    uint32_t place_fault;      // output: a place past the output arrays (the pool is corrupt)
    uint32_t level_both;       // large level under a cap: references on both sides of their node's plane
    uint32_t wave_ends[KD_GB_MAX_WAVES]; // small stage: the task slot after each wave's last
};

// ---- Buffers ---------------------------------------------------------------
struct kd_gb_buf {
    void *ptr;
    size_t bytes;
    int lent;             // ptr is a piece of a dead buffer's memory (kd_gb_ensure_lent): not its own
};

// The memory a buffer holds of its own (none where lent).
static inline size_t kd_gb_own_bytes(const kd_gb_buf *buf) { return buf->lent ? 0 : buf->bytes; }

// Buffers that nothing reads or writes for the rest of the build, whose
// memory buffers needed only from now on may use (kd_gb_ensure_lent).
enum { KD_GB_MAX_LENDERS = 8 };
struct kd_gb_lender {
    int ids[KD_GB_MAX_LENDERS];
    size_t used[KD_GB_MAX_LENDERS]; // bytes of each handed out so far
    int count;
};

// Structure-of-arrays references: triangle, clipped bounds, and (for the
// level arrays) the node each belongs to.
enum { KD_GB_REF_TRI = 0, KD_GB_REF_LO = 1, KD_GB_REF_HI = 4, KD_GB_REF_SEG = 7, KD_GB_REF_ARRAYS = 8 };

struct kd_gb_refs {
    uint32_t *tri;
    float *lo[3];
    float *hi[3];
    uint32_t *seg;        // NULL where not kept
};

enum kd_gb_buffer_id {
    KD_GB_MESH_POS = 0,
    KD_GB_MESH_IDX,
    KD_GB_TRI_VERTS,
    KD_GB_REFS_A,                                   // 8 arrays each
    KD_GB_REFS_A2 = KD_GB_REFS_A + KD_GB_REF_ARRAYS,
    KD_GB_REFS_OUT = KD_GB_REFS_A2 + KD_GB_REF_ARRAYS,
    KD_GB_REFS_SMALL = KD_GB_REFS_OUT + KD_GB_REF_ARRAYS,
    KD_GB_SIDES = KD_GB_REFS_SMALL + KD_GB_REF_ARRAYS,
    KD_GB_LNODES_A,
    KD_GB_LNODES_B,
    KD_GB_TIGHT,
    KD_GB_CHOICE,
    KD_GB_CHAINS,
    KD_GB_LCOUNT,
    KD_GB_RCOUNT,
    KD_GB_ROUTE,
    KD_GB_BK_STATES,
    KD_GB_BINS,
    KD_GB_MREADY,
    KD_GB_MTIGHT,
    KD_GB_MBIG,
    KD_GB_SROOTS,
    KD_GB_STASKS,
    KD_GB_ARENA,
    KD_GB_OWNER,
    KD_GB_CLIPQ,
    KD_GB_CLIPJOBS,
    KD_GB_SPLANS,
    KD_GB_LEAF_REFS,
    KD_GB_POOL,
    KD_GB_O_SIZES,
    KD_GB_O_BELOW,
    KD_GB_O_ARRIVALS,
    KD_GB_O_PLACES,
    KD_GB_NODES_OUT,
    KD_GB_LEAF_OUT,
    KD_GB_SCALARS,
    KD_GB_TEMP,
    KD_GB_REFS_A_MEM,     // the blocks that hold the working reference sets' bounds and triangles
    KD_GB_REFS_A2_MEM,
    KD_GB_REFS_OUT_MEM,
    KD_GB_REFS_SPARE_MEM, // a block being grown, while the old one is copied
    KD_GB_FRONTIER,       // batched build: the hand-over level's references (seven arrays) and nodes
    KD_GB_FRONTIER_NODES,
    KD_GB_BATCH_ROOTS,    // batched build: every batch's small roots and their references' triangles,
    KD_GB_BATCH_TRIS,     // which the output reads of mask leaves (the rest of a batch's are gone)
    KD_GB_NUM_BUFFERS
};

enum { KD_GB_MAX_TIMED = 512 }; // reduction calls timed per build
enum { KD_GB_MAX_STEP_MARKS = 2048 }; // step marks per build (a deep build drops the rest)
enum { KD_GB_STEP_START = -1 };       // a mark that begins the next step

struct kd_gpu_builder {
    int host;                   // host emulation
    cudaStream_t stream;
    kd_gb_buf buf[KD_GB_NUM_BUFFERS];
    size_t bytes_held;
    size_t peak_bytes;          // the most held at once since the build began
    size_t peak_buf[KD_GB_NUM_BUFFERS]; // each buffer's bytes at that moment (old and new where growing)
    size_t cap_bytes;           // 0: none
    kd_gb_scalars *h_scalars;   // pinned copy (device path)
    cudaEvent_t counts_ready;   // recorded after each copy of the scalars
    cudaStream_t copy_stream;   // a large level's copy of the scalars, beside its scatter
    cudaEvent_t level_done;     // a large level's bookkeeping done: the copy may start

    // The mesh.
    const float *d_positions;
    const uint32_t *d_indices;
    uint32_t num_vertices;
    uint32_t num_triangles;
    int have_mesh;

    // The last tree.
    int have_tree;
    uint32_t tree_nodes;
    uint32_t tree_leaf_refs;
    uint32_t tree_max_depth;
    float tree_box[6];

    // Profiling.
    cudaEvent_t stage_ev[KD_GPU_NUM_STAGES + 1];
    cudaEvent_t reduce_ev[2 * KD_GB_MAX_TIMED];
    int events_made;
    int num_timed;
    cudaEvent_t step_ev[KD_GB_MAX_STEP_MARKS];
    int step_of[KD_GB_MAX_STEP_MARKS]; // the step that mark i ends (KD_GB_STEP_START: none)
    int num_step_marks;
    int kernel_clock_on; // the kernel clock runs for this build: the reduction calls are tagged
    int kernel_clock_tags; // tags begun and not ended (a failed call leaves one open)
};

// Makes buf hold at least bytes (growing by half again, so a slowly rising
// need does not reallocate every time); keep copies the old contents.
// Fails with KD_ERR_DEVICE_OOM and "needs X MiB, the device has Y MiB free".
kd_status kd_gb_ensure(kd_gpu_builder *b, int id, size_t bytes, int keep, kd_error *err);
// Makes buf hold exactly bytes (rounded up to 256), its first bytes kept,
// where it holds more and the cap leaves room for the copy; else nothing.
kd_status kd_gb_shrink(kd_gpu_builder *b, int id, size_t bytes, kd_error *err);
// Sets the peak to what the builder holds now (a build's start).
void kd_gb_peak_reset(kd_gpu_builder *b);
// Makes buf hold at least bytes, its contents not kept, in a piece of the
// first of the lender's buffers with room, else as kd_gb_ensure does: a
// buffer whose use ends before a lender's next use costs no memory of its
// own. Its pointer is good until the lender's buffers are next used, so it
// is taken again wherever it is used.
kd_status kd_gb_ensure_lent(kd_gpu_builder *b, int id, size_t bytes, kd_gb_lender *lender, kd_error *err);
// Frees a buffer's own memory (a lent one's piece is forgotten).
void kd_gb_release(kd_gpu_builder *b, int id);

template <class T>
static inline T *kd_gb_ptr(kd_gpu_builder *b, int id)
{
    return static_cast<T *>(b->buf[id].ptr);
}

kd_gb_refs kd_gb_ref_set(kd_gpu_builder *b, int first_id);
// Makes a reference set hold count references (the node array too where
// with_seg). The working sets' seven other arrays lie in one block of
// their own (KD_GB_REFS_A_MEM...), so that a set dead for the rest of a
// build can lend its memory whole; the small references, live to the
// end, keep an allocation per array.
kd_status kd_gb_ensure_refs(kd_gpu_builder *b, int first_id, size_t count, int with_seg, int keep,
                            kd_error *err);

// Device-to-host copy of the scalars and a wait: the builder's only reads.
// Split in two, the wait can come after more kernels are queued behind the
// copy, which then run while the host reads.
kd_status kd_gb_read_scalars(kd_gpu_builder *b, kd_gb_scalars *out, kd_error *err);
kd_status kd_gb_read_scalars_begin(kd_gpu_builder *b, kd_error *err);
// kd_gb_read_scalars_begin on the side stream, after the work queued so far:
// the kernels queued next run beside the copy (they must not write what the
// host reads of it).
kd_status kd_gb_read_scalars_aside(kd_gpu_builder *b, kd_error *err);
kd_status kd_gb_read_scalars_end(kd_gpu_builder *b, kd_gb_scalars *out, kd_error *err);
kd_status kd_gb_memset(kd_gpu_builder *b, void *ptr, int value, size_t bytes, kd_error *err);
// Zeroes two ranges of whole 4-byte words in one launch (a level's chain of
// kernels is latency: one launch fewer is a few microseconds a level).
kd_status kd_gb_zero2(kd_gpu_builder *b, uint32_t *p0, size_t bytes0, uint32_t *p1, size_t bytes1,
                      kd_error *err);

// ---- Map: one functor call per element ---------------------------------------
enum { KD_GB_MAP_BLOCK = 256 };

#if KD_DEVICE_CODE
template <class F>
__global__ void __launch_bounds__(KD_GB_MAP_BLOCK) kd_gb_map_kernel(F f, uint32_t n)
{
    kd_wait_prior();
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        f(i);
}

template <class F>
static kd_status kd_gb_map_device(kd_gpu_builder *b, uint32_t n, const F &f, const char *what, kd_error *err)
{
    uint32_t blocks = (n + KD_GB_MAP_BLOCK - 1) / KD_GB_MAP_BLOCK;
    return kd_gb_cuda(err, kd_launch_dependent(kd_gb_map_kernel<F>, blocks, KD_GB_MAP_BLOCK, 0, b->stream, f, n), what);
}
#endif

template <class F>
static kd_status kd_gb_map(kd_gpu_builder *b, uint32_t n, const F &f, const char *what,
                           kd_error *err)
{
    if (n == 0)
        return KD_OK;
    if (b->host) {
        for (uint32_t i = 0; i < n; i++)
            f(i);
        return KD_OK;
    }
    (void)what;
    KD_GB_ON_DEVICE(kd_gb_map_device(b, n, f, what, err));
}

#if KD_DEVICE_CODE
// kd_resident_blocks with the builder's error report. A kernel launched
// with smem bytes of dynamic shared memory is allowed that much first (CUDA
// refuses launches past 48 KB without it).
template <typename Kernel>
static kd_status kd_gb_resident_blocks(Kernel kernel, int threads, uint32_t *blocks, kd_error *err,
                                       size_t smem = 0)
{
    if (smem > 0)
        KD_TRY(kd_gb_cuda(err, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
                             "dynamic shared memory (kernel attribute)"));
    return kd_gb_cuda(err, kd_resident_blocks(kernel, threads, blocks, smem), "resident blocks (occupancy query)");
}
#endif

// Atomic add on the device; under emulation elements run one at a time.
static __host__ __device__ __forceinline__ uint32_t kd_gb_atomic_add(uint32_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    return atomicAdd(p, v);
#else
    uint32_t old = *p;
    *p = old + v;
    return old;
#endif
}

// Atomic maximum on the device; under emulation elements run one at a time.
static __host__ __device__ __forceinline__ void kd_gb_atomic_max(uint32_t *p, uint32_t v)
{
#if defined(__CUDA_ARCH__)
    atomicMax(p, v);
#else
    *p = v > *p ? v : *p;
#endif
}

static __host__ __device__ __forceinline__ int kd_gb_popc64(unsigned long long x)
{
#if defined(__CUDA_ARCH__)
    return __popcll(x);
#else
    return __builtin_popcountll(x);
#endif
}

// The position of the lowest set bit of x (x != 0).
static __host__ __device__ __forceinline__ uint32_t kd_gb_ctz64(unsigned long long x)
{
#if defined(__CUDA_ARCH__)
    return (uint32_t)(__ffsll((long long)x) - 1);
#else
    return (uint32_t)__builtin_ctzll(x);
#endif
}

// The position of the set bit of x that has n set bits below it (n < popc(x)).
// By halves: where the lower half holds fewer set bits than n, the bit is in
// the upper one. sm_90 has no instruction for __fns, which the compiler
// emulates with a branch and twice the instructions of this search. The
// same code on the host and the device.
static __host__ __device__ __forceinline__ uint32_t kd_gb_nth_bit64(unsigned long long x, uint32_t n)
{
    uint32_t low = (uint32_t)x, low_count = (uint32_t)kd_gb_popc64(low);
    uint32_t word = n < low_count ? low : (uint32_t)(x >> 32), pos = n < low_count ? 0u : 32u;
    n = n < low_count ? n : n - low_count;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (uint32_t half = 16; half > 0; half >>= 1) {
        const uint32_t lower = word & ((1u << half) - 1u);
#if defined(__CUDA_ARCH__)
        const uint32_t count = (uint32_t)__popc(lower);
#else
        const uint32_t count = (uint32_t)__builtin_popcount(lower);
#endif
        const int up = n >= count;
        n = up ? n - count : n;
        word = up ? word >> half : lower;
        pos += up ? half : 0u;
    }
    return pos;
}

#if KD_DEVICE_CODE
// The queue slot of each lane whose `wants` is set (at *count, which it
// advances), in lane order, with one atomic per warp; KD_GB_NONE for the
// others. The whole warp calls this.
static __device__ __forceinline__ uint32_t kd_gb_warp_slot(uint32_t *count, int wants)
{
    const uint32_t lane = threadIdx.x & 31u;
    const unsigned want = __ballot_sync(0xffffffffu, wants);
    uint32_t first = 0;
    if (lane == 0 && want != 0)
        first = atomicAdd(count, (uint32_t)__popc(want));
    first = __shfl_sync(0xffffffffu, first, 0);
    return wants ? first + (uint32_t)__popc(want & ((1u << lane) - 1u)) : KD_GB_NONE;
}

// Appends `value` to queue for each lane whose `wants` is set (see
// kd_gb_warp_slot). The whole warp calls this.
static __device__ __forceinline__ void kd_gb_warp_append(uint32_t *count, uint32_t *queue, int wants,
                                                         uint32_t value)
{
    const uint32_t slot = kd_gb_warp_slot(count, wants);
    if (wants)
        queue[slot] = value;
}

// The warp's cheapest candidate: each lane brings its best (cost, id), ids
// KD_GB_NONE for none; every lane leaves with the winner's, ties to the lower
// id. Returns the lane that holds the winner, or -1 when no lane had one.
static __device__ __forceinline__ int kd_gb_warp_argmin(float *cost, uint32_t *id)
{
    uint32_t mine = *id;
    for (int d = 16; d > 0; d >>= 1) {
        float other_cost = __shfl_xor_sync(0xffffffffu, *cost, d);
        uint32_t other_id = __shfl_xor_sync(0xffffffffu, *id, d);
        if (other_cost < *cost || (other_cost == *cost && other_id < *id)) {
            *cost = other_cost;
            *id = other_id;
        }
    }
    unsigned owner = __ballot_sync(0xffffffffu, mine == *id && *id != KD_GB_NONE);
    return owner ? __ffs(owner) - 1 : -1;
}
#endif

// ---- Primitives (gpu_build_prims.cu): device launchers or CPU loops ---------
kd_status kd_gb_reduce_bounds(kd_gpu_builder *b, kd_reduce_variant variant, const kd_gb_refs *refs,
                              uint32_t n, float *d_out_box, kd_error *err);
kd_status kd_gb_segmented_bounds(kd_gpu_builder *b, kd_reduce_variant variant,
                                 const kd_gb_refs *refs, uint32_t n, uint32_t num_segments,
                                 float *d_out_boxes, kd_error *err);
kd_status kd_gb_split(kd_gpu_builder *b, const kd_gb_refs *in, const uint8_t *d_sides, uint32_t n,
                      uint32_t num_segments, const kd_gb_refs *out, uint32_t *d_left_counts,
                      uint32_t *d_right_counts, uint32_t *d_out_total, kd_error *err);

// Profiling of the reductions: brackets a reduction call with events.
void kd_gb_reduce_timer_begin(kd_gpu_builder *b, int profile);
void kd_gb_reduce_timer_end(kd_gpu_builder *b, int profile);
// Ends step `step` (a kd_gpu_step, or KD_GB_STEP_START) with a CUDA event
// when profiling on the device; nothing otherwise.
void kd_gb_step_mark(kd_gpu_builder *b, int profile, int step);

// ---- Stages ------------------------------------------------------------------
// Shared state of one build, passed between the stage files.
struct kd_gb_build_state {
    const kd_gpu_build_options *opts;
    int max_depth;
    uint32_t num_tris;
    uint32_t pool_count;          // pool nodes so far
    uint32_t num_small_roots;
    uint32_t num_small_refs;
    uint32_t num_leaf_refs;       // large-stage leaf references
    uint32_t min_small_depth;     // at most the depth of the shallowest small root (the waves' bound)
    uint32_t small_pool_base;     // pool id of the small stage's first task after its roots
    uint32_t small_members;       // the small stage's member entries (the output's estimate of its leaves' references)
    uint32_t num_small_waves;     // the small stage's waves, and where each ended (task slots)
    uint32_t small_wave_ends[KD_GB_MAX_WAVES];
    // The large stage's last level, where it hands over to the medium stage
    // (handover_nodes 0: it did not): its references and nodes' buffers.
    uint32_t handover_nodes, handover_refs;
    int handover_refs_id, handover_nodes_id;
    uint32_t num_batches;         // 0: the stages below the large one ran whole
    int small_done;               // the small stage ran already (with the medium stage, under a cap)
    int batches_only;             // under a cap: batches from the start, no whole run first
    int redo_in_batches;          // the whole run found no room after lending the level's memory:
                                  // the build starts again, batches only
    uint32_t batch_small_roots;   // small roots and references of the batches done (in KD_GB_BATCH_ROOTS,
    uint32_t batch_small_refs;    // KD_GB_BATCH_TRIS)
    uint32_t batch_small_members; // their small stages' member entries
    kd_gpu_build_profile *profile;
};

kd_status kd_gb_stage_preprocess(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err);
kd_status kd_gb_stage_large(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err);
// The medium stage takes over the large stage's current level (its
// references and nodes in the given buffers) and finishes it.
kd_status kd_gb_stage_medium(kd_gpu_builder *b, kd_gb_build_state *s, int refs_id, int nodes_id,
                             uint32_t num_nodes, uint32_t num_refs, kd_error *err);
kd_status kd_gb_stage_small(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err);
// The medium and small stages over the hand-over level, whole where it fits
// the memory cap, else in batches of its nodes (gpu_build_batch.cu).
kd_status kd_gb_stage_below_large(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err);
kd_status kd_gb_stage_output(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err);

#endif
