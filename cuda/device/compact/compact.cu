// Stream compaction's public launchers: the arguments, the temporary storage
// (one look-back word a tile) and the pass (compact_internal.cuh).
#include "kd_primitives.h"

#include "compact_internal.cuh"
#include "lookback.cuh"
#include "temp_storage.cuh"

namespace {

// What both forms do once their arguments pass: answer a size query, finish
// an empty input (its count is well defined: 0), place the look-back words
// (one a tile) and fill p's common fields. True when the launcher is done,
// with *err its result.
bool compact_begin(void *d_temp, size_t *temp_bytes, size_t n, uint32_t *d_num_selected, cudaStream_t stream,
                   compact_params &p, cudaError_t *err)
{
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_states = kd_temp_add(&layout, kd_lookback_state_bytes(compact_tiles(n)));
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, err))
        return true;
    if (n == 0) {
        *err = d_num_selected ? cudaMemsetAsync(d_num_selected, 0, sizeof(uint32_t), stream) : cudaSuccess;
        return true;
    }
    p.n = n;
    p.states = kd_temp_slot<uint64_t>(&layout, d_temp, slot_states);
    p.num_selected = d_num_selected;
    return false;
}

bool aligned(const void *ptr, uint32_t bytes)
{
    return (uintptr_t)ptr % bytes == 0;
}

cudaError_t set_payloads(compact_params &p, const kd_split_payload *payloads, int num_payloads)
{
    if (num_payloads > 0 && payloads == NULL)
        return cudaErrorInvalidValue;
    for (int q = 0; q < num_payloads; q++) {
        const kd_split_payload &src = payloads[q];
        const uint32_t bytes = src.elem_bytes;
        if ((bytes != 4 && bytes != 8 && bytes != 16) || src.d_in == NULL || src.d_out == NULL ||
            !aligned(src.d_in, bytes) || !aligned(src.d_out, bytes))
            return cudaErrorInvalidValue;
        p.payloads[q].in = src.d_in;
        p.payloads[q].out = src.d_out;
        p.payloads[q].words = bytes / 4;
    }
    p.num_payloads = num_payloads;
    return cudaSuccess;
}

} // namespace

extern "C" cudaError_t kd_compact_flagged(void *d_temp, size_t *temp_bytes, const uint8_t *d_flags, size_t n,
                                          const kd_split_payload *payloads, int num_payloads,
                                          uint32_t *d_num_selected, cudaStream_t stream)
{
    // The count and every output index must fit 32 bits.
    if (temp_bytes == NULL || n > UINT32_MAX || num_payloads < 0 || num_payloads > KD_COMPACT_MAX_PAYLOADS)
        return cudaErrorInvalidValue;
    compact_params p = {};
    cudaError_t err;
    if (compact_begin(d_temp, temp_bytes, n, d_num_selected, stream, p, &err))
        return err;
    if (d_flags == NULL)
        return cudaErrorInvalidValue;
    KD_TRY_CUDA(set_payloads(p, payloads, num_payloads));
    p.flags = d_flags;
    p.vector_loads = aligned(d_flags, 4);
    return compact_launch(p, COMPACT_FLAGGED, stream);
}

extern "C" cudaError_t kd_compact_if_u32(void *d_temp, size_t *temp_bytes, kd_compact_pred pred, uint32_t bound,
                                         const uint32_t *d_in, uint32_t *d_out, size_t n,
                                         uint32_t *d_num_selected, cudaStream_t stream)
{
    if (temp_bytes == NULL || n > UINT32_MAX || pred < KD_COMPACT_NONZERO || pred >= KD_COMPACT_NUM_PREDS)
        return cudaErrorInvalidValue;
    compact_params p = {};
    cudaError_t err;
    if (compact_begin(d_temp, temp_bytes, n, d_num_selected, stream, p, &err))
        return err;
    if (d_in == NULL || d_out == NULL || !aligned(d_in, 4) || !aligned(d_out, 4))
        return cudaErrorInvalidValue;
    p.keys = d_in;
    p.bound = bound;
    p.vector_loads = aligned(d_in, 16);
    p.num_payloads = 1;
    p.payloads[0].in = d_in;
    p.payloads[0].out = d_out;
    p.payloads[0].words = 1;
    const compact_form form = pred == KD_COMPACT_NONZERO ? COMPACT_NONZERO
                              : pred == KD_COMPACT_LESS  ? COMPACT_LESS
                                                         : COMPACT_AT_LEAST;
    return compact_launch(p, form, stream);
}
