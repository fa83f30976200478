/* The kernel clock's matching (kd_kernel_clock_match in kd_kernel_clock.h):
 * plain C with no CUPTI, so that the CPU tests check it anywhere. */
#include "kd_kernel_clock.h"

#include <stdlib.h>
#include <string.h>

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int compare_start(const void *a, const void *b)
{
    uint64_t x = ((const kd_kernel_clock_record *)a)->start, y = ((const kd_kernel_clock_record *)b)->start;
    return (x > y) - (x < y);
}

void kd_kernel_clock_match(kd_kernel_clock_record *records, size_t num_records, uint32_t *tagged,
                           size_t num_tagged, kd_kernel_clock_sum *sum)
{
    memset(sum, 0, sizeof *sum);
    if (num_tagged > 0)
        qsort(tagged, num_tagged, sizeof(uint32_t), compare_u32);
    if (num_records > 0)
        qsort(records, num_records, sizeof *records, compare_start);
    uint64_t tagged_ns = 0, all_ns = 0, busy_ns = 0, reach = 0;
    for (size_t i = 0; i < num_records; i++) {
        const kd_kernel_clock_record *r = &records[i];
        const uint64_t end = r->end > r->start ? r->end : r->start;
        const uint64_t ns = end - r->start;
        all_ns += ns;
        sum->num_all++;
        if (num_tagged && bsearch(&r->correlation, tagged, num_tagged, sizeof(uint32_t), compare_u32)) {
            tagged_ns += ns;
            sum->num_tagged++;
        }
        // The union of the intervals, in order of start: what reaches past
        // the furthest end so far is new busy time.
        const uint64_t from = i == 0 || r->start > reach ? r->start : reach;
        if (end > from)
            busy_ns += end - from;
        if (i == 0 || end > reach)
            reach = end;
    }
    sum->tagged_ms = (double)tagged_ns * 1e-6;
    sum->all_ms = (double)all_ns * 1e-6;
    sum->busy_ms = (double)busy_ns * 1e-6;
    sum->span_ms = num_records ? (double)(reach - records[0].start) * 1e-6 : 0.0;
}
