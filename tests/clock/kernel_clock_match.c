/* The kernel clock's matching (kd_kernel_clock_match): which kernels' device
 * times count as tagged, on made-up records (CPU; the device test checks the
 * CUPTI side, its life cycle and its refusals, against kernels of known
 * length). */
#include <stdio.h>
#include <string.h>

#include "kd_kernel_clock.h"
#include "test_support.h"

static int near(double a, double b) { return a > b - 1e-12 && a < b + 1e-12; }

int main(void)
{
    /* Five records (start, end in ns); calls 3 and 7 were tagged (7 twice:
     * a call may bring several external records), 9 launched nothing, 4 is
     * untagged. The one at 2.5 ms lies inside the one from 2 ms, so the
     * device was busy 0.5 us less than the sum, over a 4.5 ms span. */
    kd_kernel_clock_record records[] = {{4, 0, 1000000},
                                        {3, 2000000, 4500000},
                                        {7, 2500000, 2500500},
                                        {7, 1000000, 1001500},
                                        {12, 1250000, 1500000}};
    uint32_t tagged[] = {7, 9, 3, 7};
    kd_kernel_clock_sum sum;
    kd_kernel_clock_match(records, 5, tagged, 4, &sum);
    CHECK(sum.num_all == 5 && sum.num_tagged == 3);
    CHECK(near(sum.tagged_ms, 2.502));
    CHECK(near(sum.all_ms, 3.752));
    CHECK(near(sum.busy_ms, 3.7515) && near(sum.span_ms, 4.5));
    CHECK(sum.num_dropped == 0);
    CHECK(tagged[0] == 3 && tagged[1] == 7 && tagged[3] == 9); /* sorted in place */
    CHECK(records[0].start == 0 && records[4].start == 2500000); /* by start */

    /* Overlapping and nested intervals count once; a record whose end
     * comes before its start counts as nothing. */
    kd_kernel_clock_record overlap[] = {{1, 100, 400}, {2, 200, 300}, {3, 350, 600}, {4, 900, 800}};
    kd_kernel_clock_match(overlap, 4, NULL, 0, &sum);
    CHECK(near(sum.all_ms, 0.00065) && near(sum.busy_ms, 0.0005) && near(sum.span_ms, 0.0008));

    /* Nothing tagged, then nothing recorded. */
    kd_kernel_clock_match(records, 5, NULL, 0, &sum);
    CHECK(sum.num_tagged == 0 && sum.tagged_ms == 0.0 && sum.num_all == 5);
    kd_kernel_clock_match(NULL, 0, tagged, 4, &sum);
    CHECK(sum.num_all == 0 && sum.all_ms == 0.0 && sum.num_tagged == 0);

    /* A tag with an id that is not any record's, between two that are. */
    uint32_t one[] = {12, 5, 4};
    kd_kernel_clock_match(records, 5, one, 3, &sum);
    CHECK(sum.num_tagged == 2 && near(sum.tagged_ms, 1.25));

    return kd_test_finish("kernel_clock_match");
}
