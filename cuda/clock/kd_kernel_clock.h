/* The device time of chosen kernels, as a profiler reports it: CUPTI's
 * activity records give each kernel's (and memset's) start and end on the GPU,
 * so a sum of them leaves out what CUDA events around a call also measure (the
 * launch, the event records, the gaps between kernels).
 *
 * Calls made between kd_kernel_clock_tag_begin and _tag_end, on the calling
 * thread, are "tagged"; kd_kernel_clock_stop adds up the durations of their
 * kernels and memsets, and of everything in the window. CUPTI's activity API
 * is process-wide, so one clock runs at a time; a second start, a build
 * without CUPTI, or CUPTI refusing (another tool, such as ncu, holding it)
 * fail with KD_ERR_UNSUPPORTED and a reason, and the caller goes on without
 * the figure. Plain C, callable from C and CUDA. */
#ifndef KD_KERNEL_CLOCK_H
#define KD_KERNEL_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_kernel_clock_sum {
    double tagged_ms;      /* summed device durations of the tagged kernels and memsets */
    uint32_t num_tagged;   /* how many there were */
    double all_ms;         /* the same over every kernel and memset in the window */
    uint32_t num_all;
    double busy_ms;        /* time with at least one of them running (overlaps counted once) */
    double span_ms;        /* from the first one's start to the last one's end (with the
                              gaps tracing itself makes: CUPTI slows the host's launches) */
    uint32_t num_dropped;  /* records CUPTI dropped or could not give (full buffers, no
                              timestamps, unreadable records); the sums then fall short */
} kd_kernel_clock_sum;

/* 1 when this build has CUPTI (else every start fails). */
int kd_kernel_clock_compiled(void);

/* Starts recording. Call with no device work of interest in flight. */
kd_status kd_kernel_clock_start(kd_error *err);

/* Tags the CUDA calls the calling thread makes until the matching end. */
void kd_kernel_clock_tag_begin(void);
void kd_kernel_clock_tag_end(void);

/* Waits for the whole device (every stream, every thread's work: the sums
 * of all kernels cover them too), stops recording and fills sum. Fails
 * (KD_ERR_INVALID) without a start. */
kd_status kd_kernel_clock_stop(kd_kernel_clock_sum *sum, kd_error *err);

/* The matching behind kd_kernel_clock_stop, on its own for the CPU tests:
 * a record is one kernel or memset, its start and end on the device (ns) and
 * the correlation id of the call that launched it; tagged holds the ids of
 * calls made inside tags (repeats allowed). Both arrays are sorted in place
 * (records by start). Fills sum (num_dropped 0). */
typedef struct kd_kernel_clock_record {
    uint32_t correlation;
    uint64_t start, end;
} kd_kernel_clock_record;

void kd_kernel_clock_match(kd_kernel_clock_record *records, size_t num_records, uint32_t *tagged,
                           size_t num_tagged, kd_kernel_clock_sum *sum);

#ifdef __cplusplus
}
#endif
#endif
