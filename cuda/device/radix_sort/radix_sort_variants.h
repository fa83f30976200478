/* The radix sort's variants, for tests and tuning (C and CUDA).
 * kd_radix_sort_pairs_u32 (kd_primitives.h) runs the default one; these run
 * any of them under the same launcher contract. Variants 0 and 1 take one
 * kernel per pass (Onesweep-like), 2 and 3 the classic histogram + scan +
 * scatter; see radix_sort_internal.cuh. */
#ifndef KD_RADIX_SORT_VARIANTS_H
#define KD_RADIX_SORT_VARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

int kd_radix_sort_num_variants(void);
const char *kd_radix_sort_variant_name(int variant);
cudaError_t kd_radix_sort_pairs_u32_variant(int variant, void *d_temp, size_t *temp_bytes,
                                            const uint32_t *d_keys_in, uint32_t *d_keys_out,
                                            const uint32_t *d_values_in, uint32_t *d_values_out, size_t n,
                                            cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
