/* Internal entry points of the min/max reduction ladder (valid C and CUDA).
 *
 * The public launchers in kd_primitives.h fix each rung's block size; the
 * profiler's block-size sweep and the tests reach every block size through
 * these. One "shape" covers both the scalar reduction and the fused bounds:
 * a reduction runs over 1 or 6 float arrays ("lanes") at once, each lane with
 * its own operator. */
#ifndef KD_REDUCE_INTERNAL_H
#define KD_REDUCE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kd_primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KD_REDUCE_MAX_LANES = 6 };

typedef enum kd_reduce_shape {
    KD_REDUCE_SHAPE_MIN = 0, /* one lane, min */
    KD_REDUCE_SHAPE_MAX,     /* one lane, max */
    KD_REDUCE_SHAPE_BOUNDS   /* six lanes: min of lo.xyz, max of hi.xyz */
} kd_reduce_shape;

/* Lanes a shape reduces (1 or 6). */
int kd_reduce_shape_lanes(kd_reduce_shape shape);

/* Block sizes every rung accepts: 128, 256, 512, 1024. */
enum { KD_REDUCE_NUM_BLOCK_SIZES = 4 };
extern const int kd_reduce_block_sizes[KD_REDUCE_NUM_BLOCK_SIZES];
bool kd_reduce_block_size_supported(int block_size);
/* The block size the public launchers use for a rung. */
int kd_reduce_default_block_size(kd_reduce_variant variant);

/* Full reduction of n elements of each lane (d_in[0..lanes)) into d_out[k]
 * for lane k (d_out holds `lanes` consecutive floats). n == 0 writes each
 * lane's identity. Temporary storage as in kd_primitives.h. */
cudaError_t kd_reduce_lanes(kd_reduce_variant variant, int block_size, kd_reduce_shape shape,
                            void *d_temp, size_t *temp_bytes, const float *const *d_in,
                            float *d_out, size_t n, cudaStream_t stream);

/* Segmented reduction: d_segment_ids non-decreasing, ids >= num_segments are
 * ignored; d_out receives num_segments records of `lanes` floats; a segment
 * no element names gets each lane's identity. */
cudaError_t kd_reduce_segmented_lanes(kd_reduce_variant variant, int block_size,
                                      kd_reduce_shape shape, void *d_temp, size_t *temp_bytes,
                                      const uint32_t *d_segment_ids, uint32_t num_segments,
                                      const float *const *d_in, float *d_out, size_t n,
                                      cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
