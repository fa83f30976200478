// The GPU builder's memory beyond growing a buffer (gpu_build_context.cu):
// a buffer given back, a buffer lent a dead one's memory, and where the
// bytes were at the build's peak.
#include <stdlib.h>

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
        "o_places", "nodes_out", "leaf_out", "scalars", "temp"};
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
        if (n > 0 && out[n - 1].name == name) {
            out[n - 1].bytes += b->peak_buf[id]; // the next array of a reference set
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
