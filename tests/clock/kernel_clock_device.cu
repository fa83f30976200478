// The kernel clock against kernels of known length: each spins on the global
// timer for a set time, so CUPTI's device times must add up to those times,
// the tagged ones apart from the rest. Skips with 77 without a device,
// without CUPTI in the build, or under a CUDA tool that holds CUPTI (the
// matching is tested on the CPU as well).
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "kd_kernel_clock.h"
extern "C" {
#include "test_support.h"
}

__global__ void spin(unsigned long long ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

static void run_window(void *d_bytes)
{
    kd_error err;
    kd_kernel_clock_sum sum;
    CHECK_MSG(kd_kernel_clock_start(&err) == KD_OK, "%s", err.message);
    CHECK(kd_kernel_clock_start(&err) == KD_ERR_UNSUPPORTED); // one clock at a time
    spin<<<1, 32>>>(1000000);                                  // 1 ms, not tagged
    kd_kernel_clock_tag_begin();
    spin<<<2, 32>>>(500000);                                   // 0.5 ms
    spin<<<1, 32>>>(1500000);                                  // 1.5 ms
    CHECK(cudaMemsetAsync(d_bytes, 0, 1 << 20, 0) == cudaSuccess);
    kd_kernel_clock_tag_end();
    spin<<<1, 32>>>(250000);                                   // 0.25 ms, not tagged
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK_MSG(kd_kernel_clock_stop(&sum, &err) == KD_OK, "%s", err.message);
    printf("tagged %.4f ms in %u; all %.4f ms in %u; busy %.4f ms of %.4f; dropped %u\n", sum.tagged_ms,
           sum.num_tagged, sum.all_ms, sum.num_all, sum.busy_ms, sum.span_ms, sum.num_dropped);
    CHECK(sum.num_tagged == 3 && sum.num_all == 5 && sum.num_dropped == 0);
    // One stream: the kernels run one after another, so the busy time is
    // their sum, and the span that and the gaps between them (here over a
    // millisecond: CUPTI's first launches after it starts wait on the host).
    CHECK(sum.busy_ms > 0.999 * sum.all_ms && sum.busy_ms <= sum.all_ms + 1e-9);
    CHECK(sum.span_ms >= sum.busy_ms);
    // At least the spins' lengths; a spin overruns by its launch into the SM
    // and its last timer read, microseconds, and the memset takes microseconds.
    CHECK(sum.tagged_ms >= 2.0 && sum.tagged_ms < 2.2);
    CHECK(sum.all_ms >= 3.25 && sum.all_ms < 3.5);
}

// Without a device, or without CUPTI in the build, a start fails, again
// the same way (never "already running": a failed start leaves nothing
// behind); a stop without a start fails either way and leaves no figure.
static void check_refusals(void)
{
    kd_error err, again;
    CHECK(kd_kernel_clock_start(&err) == KD_ERR_UNSUPPORTED);
    CHECK(kd_kernel_clock_start(&again) == KD_ERR_UNSUPPORTED);
    CHECK(strcmp(err.message, again.message) == 0 && strstr(again.message, "already") == NULL);
    if (!kd_kernel_clock_compiled())
        CHECK(strstr(err.message, "no CUPTI") != NULL);
}

static void check_stop_without_start(void)
{
    kd_error err;
    kd_kernel_clock_sum sum;
    sum.num_all = 7;
    CHECK(kd_kernel_clock_stop(&sum, &err) != KD_OK && sum.num_all == 0);
}

int main(void)
{
    int n = 0;
    check_stop_without_start();
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0 || !kd_kernel_clock_compiled()) {
        (void)cudaGetLastError();
        check_refusals();
        printf("kernel_clock_device: %s, skipped\n", n == 0 ? "no CUDA device" : "built without CUPTI");
        return kd_test_failures ? kd_test_finish("kernel_clock_device") : KD_TEST_SKIP;
    }
    // A tool attached to the process (compute-sanitizer, ncu) may hold
    // CUPTI, which then refuses a second subscriber: there is nothing to
    // test here. On a plain run the clock must start.
    kd_error err;
    if (kd_kernel_clock_start(&err) != KD_OK) {
        if (strstr(err.message, "MULTIPLE_SUBSCRIBERS")) {
            printf("kernel_clock_device: a CUDA tool is attached and the clock cannot start (%s), skipped\n",
                   err.message);
            return KD_TEST_SKIP;
        }
        CHECK_MSG(0, "the clock did not start: %s", err.message);
        return kd_test_finish("kernel_clock_device");
    }
    kd_kernel_clock_sum empty;
    CHECK_MSG(kd_kernel_clock_stop(&empty, &err) == KD_OK, "%s", err.message);
    void *d_bytes = NULL;
    CHECK(cudaMalloc(&d_bytes, 1 << 20) == cudaSuccess);
    spin<<<1, 32>>>(1000); // loads the kernel outside the window
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    run_window(d_bytes); // twice: the clock starts again after a stop
    run_window(d_bytes);
    cudaFree(d_bytes);
    check_stop_without_start();
    return kd_test_finish("kernel_clock_device");
}
