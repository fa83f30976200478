/* The element counts `scankd profile` measures: read from the text of
 * --sizes, and written back for its reports. Plain C (the CLI's CPU tests
 * compile it on its own). */
#ifndef KD_PROFILE_SIZES_H
#define KD_PROFILE_SIZES_H

#include <stddef.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes of one profile at most, and the largest exponent and size. */
enum { KD_PROFILE_MAX_SIZES = 64, KD_PROFILE_MAX_LOG2 = 31 };
#define KD_PROFILE_MAX_N ((size_t)1 << KD_PROFILE_MAX_LOG2)

/* Reads a comma-separated list of items, each one of
 *   A:B                  the powers of two 2^A, 2^(A+1) .. 2^B (0 <= A <= B <= 31)
 *   A:B+C, A:B-C         each of those plus (minus) C
 *   2^K, 2^K+C, 2^K-C    one size near a power of two
 *   N                    one size, a plain count of elements
 * e.g. "16:28", "1000,1000000,3000000", "2^20+3", "10:20,10:20-3". The sizes
 * come out ascending, each once, each in [1, 2^31]. KD_ERR_INVALID with the
 * reason for any other text, or for more than `capacity` sizes. */
kd_status kd_profile_parse_sizes(const char *text, size_t *sizes, int capacity, int *count, kd_error *err);

/* The powers of two 2^lo .. 2^hi (at most capacity of them); returns how
 * many were written. */
int kd_profile_power_sizes(int lo, int hi, size_t *sizes, int capacity);

/* A size as the report shows it: "2^20" for a power of two, else the count
 * itself ("1048579"). */
void kd_profile_size_label(size_t n, char *out, size_t bytes);

/* log2(n) when n is a power of two, else -1. */
int kd_profile_exact_log2(size_t n);

#ifdef __cplusplus
}
#endif
#endif
