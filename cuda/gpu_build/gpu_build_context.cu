// The GPU builder's context: its growable buffers (with the memory cap and
// the out-of-memory message), the mesh, and the finished tree's way out.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_build_common.cuh"

#if KD_DEVICE_CODE
kd_status kd_gb_cuda(kd_error *err, cudaError_t code, const char *what)
{
    if (code == cudaSuccess)
        return KD_OK;
    return kd_cuda_fail(err, code, "GPU build", what);
}
#endif

static double mib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

// The out-of-memory report: what the builder would hold in all, and what it
// could have (what it holds plus what the device has free, or the cap).
static kd_status oom(kd_gpu_builder *b, size_t need_total, kd_error *err)
{
    size_t avail = 0;
    int device_known = 0;
#if KD_DEVICE_CODE
    if (!b->host) {
        size_t free_bytes = 0, total_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
            avail = free_bytes + b->bytes_held;
            device_known = 1;
        } else {
            (void)cudaGetLastError();
        }
    }
#endif
    if (b->cap_bytes && (!device_known || b->cap_bytes < avail))
        return kd_error_set(err, KD_ERR_DEVICE_OOM,
                          "GPU build needs %.1f MiB of device memory, the device has %.1f MiB free "
                          "(limited by the builder's memory cap)",
                          mib(need_total), mib(b->cap_bytes));
    if (!device_known)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build (emulated) needs %.1f MiB of memory",
                          mib(need_total));
    return kd_error_set(err, KD_ERR_DEVICE_OOM,
                      "GPU build needs %.1f MiB of device memory, the device has %.1f MiB free",
                      mib(need_total), mib(avail));
}

// A buffer's new memory on the host (the emulation). What was not kept is
// filled with a pattern, not left as it comes, so that the emulation's
// tests find a word read before the builder set it (as cudaMalloc's memory
// may hold anything).
static kd_status host_grow(kd_gpu_builder *b, kd_gb_buf *buf, size_t want, int keep, size_t others, void **fresh,
                           kd_error *err)
{
    *fresh = malloc(want);
    if (!*fresh)
        return oom(b, others + want, err);
    const size_t kept = keep ? (buf->bytes < want ? buf->bytes : want) : 0;
    if (kept)
        memcpy(*fresh, buf->ptr, kept);
    memset((char *)*fresh + kept, 0xa5, want - kept);
    if (!buf->lent)
        free(buf->ptr);
    return KD_OK;
}

// A buffer's new memory on the device, the old contents copied where kept.
static kd_status device_grow(kd_gpu_builder *b, kd_gb_buf *buf, size_t want, int keep, size_t others,
                             void **fresh, kd_error *err)
{
#if KD_DEVICE_CODE
    cudaError_t code = cudaMalloc(fresh, want);
    if (code == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return oom(b, others + want, err);
    }
    KD_TRY(kd_gb_cuda(err, code, "cudaMalloc"));
    if (keep && buf->bytes) {
        const size_t kept = buf->bytes < want ? buf->bytes : want;
        code = cudaMemcpyAsync(*fresh, buf->ptr, kept, cudaMemcpyDeviceToDevice, b->stream);
        if (code == cudaSuccess)
            code = cudaStreamSynchronize(b->stream);
        if (code != cudaSuccess) {
            cudaFree(*fresh);
            return kd_gb_cuda(err, code, "growing a buffer");
        }
    }
    if (buf->ptr && !buf->lent) {
        // Work still queued may use the old buffer (a scratch array).
        KD_TRY(kd_gb_cuda(err, cudaStreamSynchronize(b->stream), "growing a buffer"));
        KD_TRY(kd_gb_cuda(err, cudaFree(buf->ptr), "cudaFree"));
    }
    return KD_OK;
#else
    return kd_gb_no_device(err);
#endif
}

// Buffer id's memory had anew, `want` bytes (its first bytes kept where
// keep), the old given back after; the peak counts both.
static kd_status reallocate(kd_gpu_builder *b, int id, size_t want, int keep, kd_error *err)
{
    kd_gb_buf *buf = &b->buf[id];
    const size_t own = kd_gb_own_bytes(buf), others = b->bytes_held - own;
    void *fresh = NULL;
    if (b->host)
        KD_TRY(host_grow(b, buf, want, keep, others, &fresh, err));
    else
        KD_TRY(device_grow(b, buf, want, keep, others, &fresh, err));
    if (others + want + own > b->peak_bytes) {
        b->peak_bytes = others + want + own; // the old memory was freed after the new was had
        for (int i = 0; i < KD_GB_NUM_BUFFERS; i++)
            b->peak_buf[i] = kd_gb_own_bytes(&b->buf[i]);
        b->peak_buf[id] += want;
    }
    buf->ptr = fresh;
    b->bytes_held = others + want;
    buf->bytes = want;
    buf->lent = 0;
    return KD_OK;
}

kd_status kd_gb_ensure(kd_gpu_builder *b, int id, size_t bytes, int keep, kd_error *err)
{
    kd_gb_buf *buf = &b->buf[id];
    if (bytes <= buf->bytes)
        return KD_OK;
    size_t want = buf->bytes + buf->bytes / 2;
    if (want < bytes)
        want = bytes;
    want = (want + 255) / 256 * 256;
    // The old memory is held beside the new a moment (the copy; and a
    // buffer must not come back at its old address, which a level's
    // zeroed bins are known by), so the cap counts both.
    const size_t own = kd_gb_own_bytes(buf);
    size_t others = b->bytes_held - own;
    if (b->cap_bytes && others + own + want > b->cap_bytes)
        want = (bytes + 255) / 256 * 256; // no headroom under the cap
    if (b->cap_bytes && others + own + want > b->cap_bytes)
        return oom(b, others + own + want, err);
    return reallocate(b, id, want, keep, err);
}

kd_status kd_gb_shrink(kd_gpu_builder *b, int id, size_t bytes, kd_error *err)
{
    const kd_gb_buf *buf = &b->buf[id];
    bytes = (bytes + 255) / 256 * 256;
    if (buf->lent || bytes >= buf->bytes || (b->cap_bytes && b->bytes_held + bytes > b->cap_bytes))
        return KD_OK;
    return reallocate(b, id, bytes, 1, err);
}

#if KD_DEVICE_CODE
// The scalars' copy to the host on `stream`, its end recorded.
static kd_status copy_scalars(kd_gpu_builder *b, cudaStream_t stream, kd_error *err)
{
    KD_TRY(kd_gb_cuda(err,
                      cudaMemcpyAsync(b->h_scalars, kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS),
                                      sizeof(kd_gb_scalars), cudaMemcpyDeviceToHost, stream),
                      "reading back counts"));
    return kd_gb_cuda(err, cudaEventRecord(b->counts_ready, stream), "cudaEventRecord");
}

// The same on the copy stream, once the work queued so far is done.
static kd_status copy_scalars_aside(kd_gpu_builder *b, kd_error *err)
{
    KD_TRY(kd_gb_cuda(err, cudaEventRecord(b->level_done, b->stream), "cudaEventRecord"));
    KD_TRY(kd_gb_cuda(err, cudaStreamWaitEvent(b->copy_stream, b->level_done, 0), "cudaStreamWaitEvent"));
    return copy_scalars(b, b->copy_stream, err);
}

static kd_status wait_scalars(kd_gpu_builder *b, kd_gb_scalars *out, kd_error *err)
{
    // The copy's event, not the stream: kernels queued after the copy run on.
    KD_TRY(kd_gb_cuda(err, cudaEventSynchronize(b->counts_ready), "GPU build kernels"));
    *out = *b->h_scalars;
    return KD_OK;
}
#endif

kd_status kd_gb_read_scalars_begin(kd_gpu_builder *b, kd_error *err)
{
    if (b->host)
        return KD_OK;
    KD_GB_ON_DEVICE(copy_scalars(b, b->stream, err));
}

kd_status kd_gb_read_scalars_aside(kd_gpu_builder *b, kd_error *err)
{
    if (b->host)
        return KD_OK;
    KD_GB_ON_DEVICE(copy_scalars_aside(b, err));
}

// The mesh's faults the preprocess found, reported at the first read-back
// after it, before anything they may have upset (a triangle stretched to a
// replacement vertex could make a stage outgrow its memory cap).
static kd_status check_mesh_faults(const kd_gpu_builder *b, const kd_gb_scalars *counts, kd_error *err)
{
    if (counts->bad_index)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: a triangle names a vertex index past "
                          "the mesh's %u vertices", b->num_vertices);
    if (counts->bad_vertex)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: vertex %u (counting from 0) has a coordinate that "
                          "is not finite (NaN or infinity)", counts->bad_vertex - 1u);
    return KD_OK;
}

kd_status kd_gb_read_scalars_end(kd_gpu_builder *b, kd_gb_scalars *out, kd_error *err)
{
    if (b->host)
        *out = *kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
#if KD_DEVICE_CODE
    else
        KD_TRY(wait_scalars(b, out, err));
#endif
    return check_mesh_faults(b, out, err);
}

kd_status kd_gb_read_scalars(kd_gpu_builder *b, kd_gb_scalars *out, kd_error *err)
{
    KD_TRY(kd_gb_read_scalars_begin(b, err));
    return kd_gb_read_scalars_end(b, out, err);
}

namespace {
// Word i of the first range, or of the second past the first's n0.
struct kd_gb_zero_two {
    uint32_t *p0, *p1;
    uint32_t n0;
    __host__ __device__ void operator()(uint32_t i) const
    {
        if (i < n0)
            p0[i] = 0;
        else
            p1[i - n0] = 0;
    }
};
} // namespace

kd_status kd_gb_memset(kd_gpu_builder *b, void *ptr, int value, size_t bytes, kd_error *err)
{
    if (bytes == 0)
        return KD_OK;
    if (b->host) {
        memset(ptr, value, bytes);
        return KD_OK;
    }
    if (value == 0 && bytes % 4 == 0 && (uintptr_t)ptr % 4 == 0 && bytes / 4 <= 0xffffffffu) {
        // A kernel rather than cudaMemsetAsync: it can be a dependent launch,
        // so the kernels on either side keep overlapping their launches.
        return kd_gb_zero2(b, (uint32_t *)ptr, bytes, NULL, 0, err);
    }
    KD_GB_ON_DEVICE(kd_gb_cuda(err, cudaMemsetAsync(ptr, value, bytes, b->stream), "cudaMemsetAsync"));
}

kd_status kd_gb_zero2(kd_gpu_builder *b, uint32_t *p0, size_t bytes0, uint32_t *p1, size_t bytes1,
                      kd_error *err)
{
    const size_t n0 = bytes0 / 4, n1 = bytes1 / 4;
    if (bytes0 % 4 != 0 || bytes1 % 4 != 0 || n0 + n1 > 0xffffffffu)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: internal error: zeroing %zu and %zu bytes",
                          bytes0, bytes1);
    if (n0 + n1 == 0)
        return KD_OK;
    kd_gb_zero_two zero = {p0, p1, (uint32_t)n0};
    return kd_gb_map(b, (uint32_t)(n0 + n1), zero, "zeroing", err);
}

#if KD_DEVICE_CODE
// The device builder's streams, events and pinned scalars.
static kd_status device_create(kd_gpu_builder *b, kd_error *err)
{
    KD_TRY(kd_gb_cuda(err, cudaStreamCreateWithFlags(&b->stream, cudaStreamNonBlocking), "cudaStreamCreate"));
    KD_TRY(kd_gb_cuda(err, cudaMallocHost((void **)&b->h_scalars, sizeof(kd_gb_scalars)), "cudaMallocHost"));
    KD_TRY(kd_gb_cuda(err, cudaEventCreateWithFlags(&b->counts_ready, cudaEventDisableTiming), "cudaEventCreate"));
    KD_TRY(kd_gb_cuda(err, cudaStreamCreateWithFlags(&b->copy_stream, cudaStreamNonBlocking), "cudaStreamCreate"));
    return kd_gb_cuda(err, cudaEventCreateWithFlags(&b->level_done, cudaEventDisableTiming), "cudaEventCreate");
}

static void device_destroy(kd_gpu_builder *b)
{
    for (int i = 0; i < KD_GB_NUM_BUFFERS; i++)
        if (b->buf[i].ptr && !b->buf[i].lent)
            cudaFree(b->buf[i].ptr);
    if (b->events_made) {
        for (int i = 0; i <= KD_GPU_NUM_STAGES; i++)
            cudaEventDestroy(b->stage_ev[i]);
        for (int i = 0; i < 2 * KD_GB_MAX_TIMED; i++)
            cudaEventDestroy(b->reduce_ev[i]);
        for (int i = 0; i < KD_GB_MAX_STEP_MARKS; i++)
            cudaEventDestroy(b->step_ev[i]);
    }
    if (b->h_scalars)
        cudaFreeHost(b->h_scalars);
    if (b->counts_ready)
        cudaEventDestroy(b->counts_ready);
    if (b->level_done)
        cudaEventDestroy(b->level_done);
    if (b->copy_stream)
        cudaStreamDestroy(b->copy_stream);
    if (b->stream)
        cudaStreamDestroy(b->stream);
}

// A copy between host and device memory on the builder's stream, waited for.
static kd_status device_copy(kd_gpu_builder *b, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                             const char *what, kd_error *err)
{
    if (bytes)
        KD_TRY(kd_gb_cuda(err, cudaMemcpyAsync(dst, src, bytes, kind, b->stream), what));
    return kd_gb_cuda(err, cudaStreamSynchronize(b->stream), what);
}
#endif

// ---- Public: lifetime, mesh, tree -------------------------------------------
extern "C" kd_status kd_gpu_builder_create(kd_gpu_builder **out, int host_emulation, kd_error *err)
{
    *out = NULL;
#if KD_DEVICE_CODE
    if (!host_emulation && kd_cuda_device_count() == 0)
        return kd_error_set(err, KD_ERR_NO_DEVICE, "GPU build: no CUDA device");
#else
    if (!host_emulation)
        return kd_gb_no_device(err);
#endif
    kd_gpu_builder *b = (kd_gpu_builder *)calloc(1, sizeof *b);
    if (!b)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build: out of host memory");
    b->host = host_emulation != 0;
#if KD_DEVICE_CODE
    if (!b->host) {
        const kd_status st = device_create(b, err);
        if (st != KD_OK) {
            kd_gpu_builder_destroy(b);
            return st;
        }
    }
#endif
    *out = b;
    return KD_OK;
}

extern "C" void kd_gpu_builder_destroy(kd_gpu_builder *b)
{
    if (!b)
        return;
    if (b->host) {
        for (int i = 0; i < KD_GB_NUM_BUFFERS; i++)
            if (!b->buf[i].lent)
                free(b->buf[i].ptr);
    } else {
#if KD_DEVICE_CODE
        device_destroy(b);
#endif
    }
    free(b);
}

extern "C" kd_status kd_gpu_builder_set_mesh(kd_gpu_builder *b, const kd_mesh *mesh, kd_error *err)
{
    b->have_mesh = 0;
    b->have_tree = 0;
    size_t pos_bytes = (size_t)mesh->num_vertices * 3 * sizeof(float);
    size_t idx_bytes = (size_t)mesh->num_triangles * 3 * sizeof(uint32_t);
    KD_TRY(kd_gb_ensure(b, KD_GB_MESH_POS, pos_bytes ? pos_bytes : 4, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_MESH_IDX, idx_bytes ? idx_bytes : 4, 0, err));
    if (b->host) {
        if (pos_bytes)
            memcpy(b->buf[KD_GB_MESH_POS].ptr, mesh->positions, pos_bytes);
        if (idx_bytes)
            memcpy(b->buf[KD_GB_MESH_IDX].ptr, mesh->indices, idx_bytes);
    } else {
#if KD_DEVICE_CODE
        KD_TRY(device_copy(b, b->buf[KD_GB_MESH_POS].ptr, mesh->positions, pos_bytes, cudaMemcpyHostToDevice,
                           "uploading vertices", err));
        KD_TRY(device_copy(b, b->buf[KD_GB_MESH_IDX].ptr, mesh->indices, idx_bytes, cudaMemcpyHostToDevice,
                           "uploading triangles", err));
#endif
    }
    return kd_gpu_builder_set_device_mesh(b, kd_gb_ptr<float>(b, KD_GB_MESH_POS),
                                          kd_gb_ptr<uint32_t>(b, KD_GB_MESH_IDX),
                                          mesh->num_vertices, mesh->num_triangles, err);
}

extern "C" kd_status kd_gpu_builder_set_device_mesh(kd_gpu_builder *b, const float *d_positions,
                                                    const uint32_t *d_indices,
                                                    uint32_t num_vertices, uint32_t num_triangles,
                                                    kd_error *err)
{
    b->have_mesh = 0;
    b->have_tree = 0;
    if (num_triangles > (KD_NODE_MAX_COUNT >> 2))
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: %u triangles is more than it can index",
                          num_triangles);
    if (num_triangles > 0 && (!d_positions || !d_indices || num_vertices == 0))
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: a mesh with triangles but no vertices");
    b->d_positions = d_positions;
    b->d_indices = d_indices;
    b->num_vertices = num_vertices;
    b->num_triangles = num_triangles;
    b->have_mesh = 1;
    return KD_OK;
}

extern "C" uint32_t kd_gb_num_triangles(const kd_gpu_builder *b)
{
    return b->have_mesh ? b->num_triangles : 0;
}

extern "C" size_t kd_gpu_builder_device_bytes(const kd_gpu_builder *b) { return b->bytes_held; }

extern "C" kd_status kd_gpu_builder_tree_view(const kd_gpu_builder *b, kd_gpu_tree_view *view,
                                              kd_error *err)
{
    if (!b->have_tree)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: no tree has been built");
    view->nodes = (const kd_node *)b->buf[KD_GB_NODES_OUT].ptr;
    view->leaf_indices = (const uint32_t *)b->buf[KD_GB_LEAF_OUT].ptr;
    view->tri_verts = (const float *)b->buf[KD_GB_TRI_VERTS].ptr;
    view->num_nodes = b->tree_nodes;
    view->num_leaf_indices = b->tree_leaf_refs;
    view->num_triangles = b->num_triangles;
    view->max_depth = b->tree_max_depth;
    for (int k = 0; k < 3; k++) {
        view->bounds.lo[k] = b->tree_box[k];
        view->bounds.hi[k] = b->tree_box[3 + k];
    }
    return KD_OK;
}

extern "C" kd_status kd_gpu_builder_download(kd_gpu_builder *b, kd_tree *tree, kd_error *err)
{
    memset(tree, 0, sizeof *tree);
    kd_gpu_tree_view view;
    memset(&view, 0, sizeof view);
    KD_TRY(kd_gpu_builder_tree_view(b, &view, err));
    size_t node_bytes = (size_t)view.num_nodes * sizeof(kd_node);
    size_t leaf_bytes = (size_t)view.num_leaf_indices * sizeof(uint32_t);
    kd_node *nodes = (kd_node *)malloc(node_bytes ? node_bytes : 1);
    uint32_t *leaves = (uint32_t *)malloc(leaf_bytes ? leaf_bytes : 1);
    if (!nodes || !leaves) {
        free(nodes);
        free(leaves);
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build: out of host memory for the tree");
    }
    kd_status st = KD_OK;
    if (b->host) {
        memcpy(nodes, view.nodes, node_bytes);
        memcpy(leaves, view.leaf_indices, leaf_bytes);
    } else {
#if KD_DEVICE_CODE
        st = device_copy(b, nodes, view.nodes, node_bytes, cudaMemcpyDeviceToHost, "downloading the tree", err);
        if (st == KD_OK)
            st = device_copy(b, leaves, view.leaf_indices, leaf_bytes, cudaMemcpyDeviceToHost,
                             "downloading the tree", err);
#endif
    }
    if (st != KD_OK) {
        free(nodes);
        free(leaves);
        return st;
    }
    tree->nodes = nodes;
    tree->num_nodes = view.num_nodes;
    tree->leaf_indices = leaves;
    tree->num_leaf_indices = view.num_leaf_indices;
    tree->num_triangles = view.num_triangles;
    tree->max_depth = view.max_depth;
    tree->bounds = view.bounds;
    return KD_OK;
}
