/* A parallel for over [0, n) on all cores, with dynamic chunking (pthreads). */
#ifndef KD_PARALLEL_H
#define KD_PARALLEL_H

#include <stddef.h>

/* Calls fn(ctx, begin, end, worker) on chunks of at most chunk items until all
 * n items are done; worker is 0..num_workers-1. num_threads <= 0 means all cores. */
typedef void (*kd_range_fn)(void *ctx, size_t begin, size_t end, int worker);

void kd_parallel_for(size_t n, size_t chunk, int num_threads, kd_range_fn fn, void *ctx);

/* Number of worker threads kd_parallel_for uses for num_threads <= 0. */
int kd_parallel_num_cores(void);

#endif
