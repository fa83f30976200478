// Reduce8: this version reduces in one launch: the last block to finish reduces the blocks' values.
//
// Reduce7's second launch is replaced by a ticket: each block publishes its
// value, fences, and takes a ticket from an atomic counter; the block that
// draws the last ticket sees every other block's value and reduces them
// (reduce_stride.cuh). The builder's default rung.
//
// Segmented, Reduce8 is a different algorithm, in reduce_8_segmented.cu.
#include "reduce_stride.cuh"

namespace kdr {

RungTraits reduce8_segmented_traits(int lanes, int block_size);
cudaError_t reduce8_segmented(const SegArgs &a, cudaStream_t stream);

namespace {
const StrideRung stride = {stride_temp_bytes<true>, stride_run_any<true>};
} // namespace

const RungEntry reduce8_rung = {reduce8_segmented_traits, nullptr, &stride, reduce8_segmented};

} // namespace kdr
