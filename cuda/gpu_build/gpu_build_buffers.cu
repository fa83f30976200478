// The GPU builder's memory beyond growing a buffer (gpu_build_context.cu):
// a buffer given back, a buffer lent a dead one's memory, the reference
// sets, and where the bytes were at the build's peak.
#include <stdlib.h>
#include <string.h>

#include "gpu_build_common.cuh"

void kd_gb_release(kd_gpu_builder *b, int id)
{
    kd_gb_buf *buf = &b->buf[id];
    if (buf->ptr && !buf->lent) {
        if (b->host)
            free(buf->ptr);
#if KD_DEVICE_CODE
        else if (cudaStreamSynchronize(b->stream) == cudaSuccess) // work queued may still use it
            cudaFree(buf->ptr);
#endif
        b->bytes_held -= buf->bytes;
    }
    buf->ptr = NULL;
    buf->bytes = 0;
    buf->lent = 0;
}

kd_status kd_gb_ensure_lent(kd_gpu_builder *b, int id, size_t bytes, kd_gb_lender *lender, kd_error *err)
{
    const size_t piece = (bytes + 255) / 256 * 256;
    for (int k = 0; k < lender->count; k++) {
        const kd_gb_buf *from = &b->buf[lender->ids[k]];
        if (from->lent || from->bytes < lender->used[k] || from->bytes - lender->used[k] < piece)
            continue;
        kd_gb_release(b, id); // its own memory, from before it was lent (a first build only)
        b->buf[id].ptr = (char *)from->ptr + lender->used[k];
        b->buf[id].bytes = piece;
        b->buf[id].lent = 1;
        lender->used[k] += piece;
        return KD_OK;
    }
    if (b->buf[id].lent)
        kd_gb_release(b, id);
    return kd_gb_ensure(b, id, bytes, 0, err);
}

void kd_gb_peak_reset(kd_gpu_builder *b)
{
    b->peak_bytes = b->bytes_held;
    for (int i = 0; i < KD_GB_NUM_BUFFERS; i++)
        b->peak_buf[i] = kd_gb_own_bytes(&b->buf[i]);
}

// The buffers' names in the peak's listing, a reference set's arrays under
// one name.
static const char *buffer_name(int id)
{
    static const char *const refs[] = {"refs_a", "refs_a2", "refs_out", "refs_small"};
    static const char *const others[] = {
        "sides", "lnodes_a", "lnodes_b", "tight", "choice", "chains", "lcount", "rcount", "route",
        "bk_states", "bins", "mready", "mtight", "mbig", "sroots", "stasks", "arena", "owner",
        "clipq", "clipjobs", "splans", "leaf_refs", "pool", "o_sizes", "o_below", "o_arrivals",
        "o_places", "nodes_out", "leaf_out", "scalars", "temp", "refs_a", "refs_a2", "refs_out",
        "refs_spare", "frontier", "frontier_nodes", "batch_roots", "batch_tris"};
    static_assert(sizeof others / sizeof others[0] == KD_GB_NUM_BUFFERS - KD_GB_SIDES, "a name per buffer");
    if (id == KD_GB_MESH_POS)
        return "mesh_pos";
    if (id == KD_GB_MESH_IDX)
        return "mesh_idx";
    if (id == KD_GB_TRI_VERTS)
        return "tri_verts";
    if (id < KD_GB_SIDES)
        return refs[(id - KD_GB_REFS_A) / KD_GB_REF_ARRAYS];
    return others[id - KD_GB_SIDES];
}

extern "C" size_t kd_gb_peak_buffers(const kd_gpu_builder *b, kd_gb_buffer_bytes *out, size_t max)
{
    size_t n = 0;
    for (int id = 0; id < KD_GB_NUM_BUFFERS; id++) {
        const char *name = buffer_name(id);
        if (b->peak_buf[id] == 0)
            continue; // none, or a view of a block
        size_t at = 0;
        while (at < n && strcmp(out[at].name, name) != 0)
            at++;
        if (at < n) {
            out[at].bytes += b->peak_buf[id]; // another array of a reference set, or its block
            continue;
        }
        if (n == max)
            break;
        out[n].name = name;
        out[n++].bytes = b->peak_buf[id];
    }
    for (size_t i = 1; i < n; i++) // largest first (insertion: a few dozen entries)
        for (size_t j = i; j > 0 && out[j].bytes > out[j - 1].bytes; j--) {
            const kd_gb_buffer_bytes t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

kd_gb_refs kd_gb_ref_set(kd_gpu_builder *b, int first_id)
{
    kd_gb_refs r;
    r.tri = kd_gb_ptr<uint32_t>(b, first_id + KD_GB_REF_TRI);
    for (int k = 0; k < 3; k++) {
        r.lo[k] = kd_gb_ptr<float>(b, first_id + KD_GB_REF_LO + k);
        r.hi[k] = kd_gb_ptr<float>(b, first_id + KD_GB_REF_HI + k);
    }
    r.seg = kd_gb_ptr<uint32_t>(b, first_id + KD_GB_REF_SEG);
    return r;
}

// A working set's arrays as views of its block, `stride` bytes each (none
// where the block has no memory).
static void point_views(kd_gpu_builder *b, int first_id, int block, size_t stride)
{
    for (int k = 0; k < KD_GB_REF_SEG; k++) {
        kd_gb_buf *view = &b->buf[first_id + k];
        view->ptr = b->buf[block].ptr ? (char *)b->buf[block].ptr + k * stride : NULL;
        view->bytes = b->buf[block].ptr ? stride : 0;
        view->lent = 1;
    }
}

// Copies a block's arrays into a larger one (the old arrays `have` bytes
// each), on the builder's stream.
static kd_status copy_views(kd_gpu_builder *b, int first_id, char *to, size_t stride, size_t have, kd_error *err)
{
    for (int k = 0; k < KD_GB_REF_SEG; k++) {
        const void *from = b->buf[first_id + k].ptr;
        if (b->host)
            memcpy(to + k * stride, from, have);
#if KD_DEVICE_CODE
        else
            KD_TRY(kd_gb_cuda(err, cudaMemcpyAsync(to + k * stride, from, have, cudaMemcpyDeviceToDevice, b->stream),
                              "growing a reference set"));
#endif
    }
    return KD_OK;
}

// Grows a working set's block to arrays of at least `bytes`, and
// KD_GB_REF_BLOCK_HEADROOM more where the cap allows, its contents copied
// where kept: the new block is had in the spare's place, the old one
// freed, the two swapped.
static kd_status grow_block(kd_gpu_builder *b, int first_id, int block, size_t bytes, int keep, kd_error *err)
{
    const size_t have = b->buf[first_id].bytes, more = have / KD_GB_REF_BLOCK_HEADROOM;
    size_t stride = (bytes > have + more ? bytes : have + more) + 255;
    stride -= stride % 256;
    const size_t others = b->bytes_held - (keep ? 0 : kd_gb_own_bytes(&b->buf[block]));
    if (b->cap_bytes && others + KD_GB_REF_SEG * stride > b->cap_bytes)
        stride = (bytes + 255) / 256 * 256; // no headroom under the cap
    if (!keep) {
        kd_gb_release(b, block);
        point_views(b, first_id, block, 0);
    }
    KD_TRY(kd_gb_ensure(b, KD_GB_REFS_SPARE_MEM, KD_GB_REF_SEG * stride, 0, err));
    if (keep && have)
        KD_TRY(copy_views(b, first_id, (char *)b->buf[KD_GB_REFS_SPARE_MEM].ptr, stride, have, err));
    kd_gb_release(b, block); // after the copies (it waits for the device)
    const kd_gb_buf grown = b->buf[KD_GB_REFS_SPARE_MEM];
    b->buf[KD_GB_REFS_SPARE_MEM] = b->buf[block];
    b->buf[block] = grown;
    point_views(b, first_id, block, stride);
    return KD_OK;
}

kd_status kd_gb_ensure_refs(kd_gpu_builder *b, int first_id, size_t count, int with_seg, int keep,
                            kd_error *err)
{
    if (count == 0)
        count = 1;
    if (first_id == KD_GB_REFS_SMALL) {
        for (int k = 0; k < KD_GB_REF_SEG; k++)
            KD_TRY(kd_gb_ensure(b, first_id + k, count * 4, keep, err));
    } else if (count * 4 > b->buf[first_id].bytes) {
        const int block = KD_GB_REFS_A_MEM + (first_id - KD_GB_REFS_A) / KD_GB_REF_ARRAYS;
        KD_TRY(grow_block(b, first_id, block, count * 4, keep, err));
    }
    return with_seg ? kd_gb_ensure(b, first_id + KD_GB_REF_SEG, count * 4, keep, err) : KD_OK;
}
