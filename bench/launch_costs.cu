// launch_costs: what a small step of the GPU build costs before any work is
// done, measured on the machine it runs on. Part 1 times the host side of
// the CUDA calls a large level makes (a launch, a dependent launch, an
// event, the counts' read-back) and ten launches against a CUDA graph of ten
// kernels. Part 2 times one segmented bounds reduction call of each rung at
// sizes of the bunny's large levels three ways: CUDA events around one call
// on an idle stream (as the in-build profile times it: the host's launch
// time is inside), the same call queued behind a gate kernel that holds the
// stream until the host has queued it (the GPU's own time), and a hundred
// calls back to back, and (where CUPTI can trace) the device time of its
// kernels, as the in-build profile's kernel clock takes it. Part 3 gives the
// device time of the smallest kernels such a call could be: empty ones, one
// that reads a level's lanes and reduces each block, the same with the
// blocks joined by the last to finish, a grid-wide barrier, a memset.
// Medians of repeated runs after a warm-up (the kernel times: means).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

extern "C" {
#include "kd_kernel_clock.h"
}
#include "kd_primitives.h"
#include "launch.cuh"

namespace {

#define CHECK(call)                                                                             \
    do {                                                                                        \
        cudaError_t check_e_ = (call);                                                          \
        if (check_e_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "launch_costs: %s failed: %s (line %d)\n", #call,              \
                         cudaGetErrorString(check_e_), __LINE__);                               \
            std::exit(1);                                                                       \
        }                                                                                       \
    } while (0)

double now_us()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The mean device time (us) of `count` runs of body's kernels, by the
// kernel clock; -1 where CUPTI cannot trace.
template <class F>
double kernel_us(int count, F body)
{
    kd_error err;
    if (kd_kernel_clock_start(&err) != KD_OK)
        return -1.0;
    kd_kernel_clock_tag_begin();
    for (int r = 0; r < count; r++)
        body();
    kd_kernel_clock_tag_end();
    kd_kernel_clock_sum sum;
    if (kd_kernel_clock_stop(&sum, &err) != KD_OK || sum.num_dropped > 0)
        return -1.0;
    return 1e3 * sum.tagged_ms / count;
}

__global__ void empty_kernel(int *p)
{
    if (p != nullptr && threadIdx.x == 1024) // never: keeps the parameter
        *p = 1;
}

__global__ void dependent_kernel(int *p)
{
    kd_wait_prior();
    if (p != nullptr && threadIdx.x == 1024)
        *p = 1;
}

// Holds the stream until the host sets *flag (or a second has passed, so a
// host that never does cannot hang the program; such a run is reported).
__global__ void gate_kernel(volatile int *flag, int *timed_out)
{
    unsigned long long start, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*flag == 0) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - start > 1000000000ull) {
            *timed_out = 1;
            return;
        }
    }
}

struct Gate {
    int *h_flag = nullptr, *d_flag = nullptr, *d_timed_out = nullptr;
    void close(cudaStream_t s)
    {
        *(volatile int *)h_flag = 0;
        gate_kernel<<<1, 1, 0, s>>>(d_flag, d_timed_out);
        CHECK(cudaGetLastError());
    }
    void open() { *(volatile int *)h_flag = 1; }
};

// Host microseconds per call of `body`, median of 7 rounds of 200 calls
// (the stream drained before each round).
template <class F>
double host_us(cudaStream_t s, F body)
{
    std::vector<double> rounds;
    for (int r = 0; r < 7; r++) {
        CHECK(cudaStreamSynchronize(s));
        const double t0 = now_us();
        for (int i = 0; i < 200; i++)
            body();
        rounds.push_back((now_us() - t0) / 200);
        CHECK(cudaStreamSynchronize(s));
    }
    return median(rounds);
}

void part_host(cudaStream_t s, int *d_word, int *h_pinned)
{
    cudaEvent_t timing, ready;
    CHECK(cudaEventCreate(&timing));
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    for (int w = 0; w < 100; w++)
        empty_kernel<<<1, 32, 0, s>>>(d_word);
    CHECK(cudaStreamSynchronize(s));

    auto plain = [&] { empty_kernel<<<64, 256, 0, s>>>(d_word); };
    auto dependent = [&] { CHECK(kd_launch_dependent(dependent_kernel, 64, 256, 0, s, d_word)); };
    auto read_back = [&] {
        CHECK(cudaMemcpyAsync(h_pinned, d_word, 64, cudaMemcpyDeviceToHost, s));
        CHECK(cudaEventRecord(ready, s));
        CHECK(cudaEventSynchronize(ready));
    };
    std::printf("host time per call (median of 7 rounds of 200 calls)\n");
    std::printf("  %-52s %7.2f us\n", "kernel launch <<<64, 256>>>", host_us(s, plain));
    std::printf("  %-52s %7.2f us\n", "dependent launch (kd_launch_dependent)", host_us(s, dependent));
    std::printf("  %-52s %7.2f us\n", "cudaEventRecord", host_us(s, [&] { CHECK(cudaEventRecord(timing, s)); }));
    std::printf("  %-52s %7.2f us\n", "cudaMemsetAsync (4 KiB)",
                host_us(s, [&] { CHECK(cudaMemsetAsync(d_word, 0, 4096, s)); }));
    std::printf("  %-52s %7.2f us\n", "read-back: 64 B to pinned memory, event, wait", host_us(s, read_back));
    std::printf("  %-52s %7.2f us\n", "10 dependent launches, then the read-back", host_us(s, [&] {
                    for (int k = 0; k < 10; k++)
                        dependent();
                    read_back();
                }));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < 10; k++)
        empty_kernel<<<64, 256, 0, s>>>(d_word);
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::printf("  %-52s %7.2f us\n", "a graph of 10 kernels, then the read-back", host_us(s, [&] {
                    CHECK(cudaGraphLaunch(exec, s));
                    read_back();
                }));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(timing));
    CHECK(cudaEventDestroy(ready));
}

// Microseconds between events around `body` on stream s; with a gate, the
// stream is held until everything is queued (the GPU's own time).
template <class F>
double event_us(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, Gate *gate, F body)
{
    if (gate)
        gate->close(s);
    CHECK(cudaEventRecord(e0, s));
    body();
    CHECK(cudaEventRecord(e1, s));
    if (gate)
        gate->open();
    CHECK(cudaEventSynchronize(e1));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    return 1e3 * ms;
}

struct Level {
    size_t n;
    uint32_t segments;
};

void part_reduce(cudaStream_t s, Gate &gate)
{
    // The bunny's first large level (one node), a middle one and its last.
    const Level levels[] = {{69451, 1}, {74114, 37}, {81420, 232}};
    const size_t max_n = 81420;
    float *d_lanes[6];
    std::vector<float> h(max_n);
    unsigned seed = 1;
    for (int k = 0; k < 6; k++) {
        for (size_t i = 0; i < max_n; i++) {
            seed = seed * 1664525u + 1013904223u;
            h[i] = (float)(seed >> 8) / (float)(1u << 24) + (k >= 3 ? 1.0f : 0.0f);
        }
        CHECK(cudaMalloc(&d_lanes[k], max_n * sizeof(float)));
        CHECK(cudaMemcpy(d_lanes[k], h.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));
    }
    const float *lo[3] = {d_lanes[0], d_lanes[1], d_lanes[2]};
    const float *hi[3] = {d_lanes[3], d_lanes[4], d_lanes[5]};
    uint32_t *d_ids;
    float *d_boxes;
    CHECK(cudaMalloc(&d_ids, max_n * sizeof(uint32_t)));
    CHECK(cudaMalloc(&d_boxes, 6 * sizeof(float) * 1024));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));

    std::printf("\nsegmented bounds reduction, one call (us; medians of 41; kernel time: mean of 41)\n");
    std::printf("  %-9s %-24s %12s %12s %16s %12s\n", "refs/segs", "rung", "idle stream", "gated", "100 back to back",
                "kernel time");
    for (const Level &lv : levels) {
        std::vector<uint32_t> ids(lv.n);
        for (size_t i = 0; i < lv.n; i++)
            ids[i] = (uint32_t)((uint64_t)i * lv.segments / lv.n);
        CHECK(cudaMemcpy(d_ids, ids.data(), lv.n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        for (int v = 0; v < KD_REDUCE_NUM_VARIANTS; v++) {
            const kd_reduce_variant variant = (kd_reduce_variant)v;
            size_t temp_bytes = 0;
            CHECK(kd_segmented_reduce_bounds(variant, nullptr, &temp_bytes, d_ids, lv.segments, lo, hi, d_boxes,
                                             lv.n, s));
            void *d_temp;
            CHECK(cudaMalloc(&d_temp, temp_bytes));
            auto call = [&] {
                size_t bytes = temp_bytes;
                CHECK(kd_segmented_reduce_bounds(variant, d_temp, &bytes, d_ids, lv.segments, lo, hi, d_boxes,
                                                 lv.n, s));
            };
            for (int w = 0; w < 5; w++)
                call();
            CHECK(cudaStreamSynchronize(s));
            std::vector<double> idle, gated;
            for (int r = 0; r < 41; r++) {
                idle.push_back(event_us(s, e0, e1, nullptr, call));
                gated.push_back(event_us(s, e0, e1, &gate, call));
            }
            const double hundred = event_us(s, e0, e1, &gate, [&] {
                for (int r = 0; r < 100; r++)
                    call();
            });
            const double kernel = kernel_us(41, call);
            std::printf("  %6zu/%-4u %-24s %12.2f %12.2f %16.2f %12.2f\n", lv.n, lv.segments,
                        kd_reduce_variant_name(variant), median(idle), median(gated), hundred / 100, kernel);
            CHECK(cudaFree(d_temp));
        }
    }
    std::vector<double> trivial;
    for (int r = 0; r < 41; r++)
        trivial.push_back(event_us(s, e0, e1, nullptr, [&] { empty_kernel<<<1, 32, 0, s>>>(nullptr); }));
    std::printf("  %-34s %12.2f\n", "an empty kernel", median(trivial));
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    for (int k = 0; k < 6; k++)
        CHECK(cudaFree(d_lanes[k]));
    CHECK(cudaFree(d_ids));
    CHECK(cudaFree(d_boxes));
}

// Part 3's kernels: each block reduces its share of the float4s to one
// value; `ticket` (when given) makes the last block to finish join them.
__global__ void read_reduce_kernel(const float4 *in, int n4, float *out, unsigned *ticket)
{
    __shared__ float s_warp[32];
    __shared__ bool s_last;
    float acc = INFINITY;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        const float4 v = __ldg(in + i);
        acc = fminf(acc, fminf(fminf(v.x, v.y), fminf(v.z, v.w)));
    }
    for (int o = 16; o > 0; o >>= 1)
        acc = fminf(acc, __shfl_xor_sync(0xffffffffu, acc, o));
    if ((threadIdx.x & 31) == 0)
        s_warp[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x >> 5); w++)
            acc = fminf(acc, s_warp[w]);
        out[blockIdx.x] = acc;
        if (ticket != nullptr) {
            __threadfence();
            s_last = atomicAdd(ticket, 1u) == gridDim.x - 1u;
        }
    }
    if (ticket == nullptr)
        return;
    __syncthreads();
    if (s_last && threadIdx.x < 32) {
        float all = INFINITY;
        for (int b = threadIdx.x; b < (int)gridDim.x; b += 32)
            all = fminf(all, __ldcg(out + b));
        for (int o = 16; o > 0; o >>= 1)
            all = fminf(all, __shfl_xor_sync(0xffffffffu, all, o));
        if (threadIdx.x == 0) {
            out[gridDim.x] = all;
            *ticket = 0; // ready for the next launch
        }
    }
}

// The same read, then a grid-wide barrier (a cooperative launch) before
// block 0's first warp joins the blocks' values.
__global__ void grid_barrier_kernel(const float4 *in, int n4, float *out)
{
    float acc = INFINITY;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x)
        acc = fminf(acc, __ldg(in + i).x);
    if (threadIdx.x == 0)
        out[blockIdx.x] = acc;
    cooperative_groups::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        float all = INFINITY;
        for (int b = threadIdx.x; b < (int)gridDim.x; b += 32)
            all = fminf(all, __ldcg(out + b));
        for (int o = 16; o > 0; o >>= 1)
            all = fminf(all, __shfl_xor_sync(0xffffffffu, all, o));
        if (threadIdx.x == 0)
            out[gridDim.x] = all;
    }
}

void part_floor(cudaStream_t s)
{
    // A bunny level: 80,000 references, six lanes of bounds and the ids.
    const int n4 = 80000 * 7 / 4;
    float4 *d_in;
    float *d_out;
    unsigned *d_ticket;
    CHECK(cudaMalloc(&d_in, n4 * sizeof(float4)));
    CHECK(cudaMemset(d_in, 0, n4 * sizeof(float4)));
    CHECK(cudaMalloc(&d_out, 4096 * sizeof(float)));
    CHECK(cudaMalloc(&d_ticket, sizeof(unsigned)));
    CHECK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned *no_ticket = nullptr;
    auto barrier = [&] {
        void *args[] = {&d_in, (void *)&n4, &d_out};
        CHECK(cudaLaunchCooperativeKernel((void *)grid_barrier_kernel, sms, 256, args, 0, s));
    };
    struct Case {
        const char *what;
        std::function<void()> body;
    };
    const Case cases[] = {
        {"empty kernel, 1 block of 32", [&] { empty_kernel<<<1, 32, 0, s>>>(nullptr); }},
        {"empty kernel, 80 blocks of 256", [&] { empty_kernel<<<80, 256, 0, s>>>(nullptr); }},
        {"read 2.24 MB, reduce each block (80)", [&] { read_reduce_kernel<<<80, 256, 0, s>>>(d_in, n4, d_out, no_ticket); }},
        {"read 2.24 MB, reduce each block (2/SM)",
         [&] { read_reduce_kernel<<<2 * sms, 256, 0, s>>>(d_in, n4, d_out, no_ticket); }},
        {"  and the last block joins them", [&] { read_reduce_kernel<<<2 * sms, 256, 0, s>>>(d_in, n4, d_out, d_ticket); }},
        {"  or, a block an SM, a grid barrier first", barrier},
        {"memset of 4 bytes", [&] { CHECK(cudaMemsetAsync(d_ticket, 0, sizeof(unsigned), s)); }},
    };
    std::printf("\nthe smallest kernels, device time (us; kernel clock, mean of 200 after 20 untimed)\n");
    for (const Case &c : cases) {
        for (int w = 0; w < 20; w++)
            c.body();
        CHECK(cudaStreamSynchronize(s));
        const double us = kernel_us(200, c.body);
        if (us < 0) {
            std::printf("  (no kernel clock here: CUPTI cannot trace)\n");
            break;
        }
        std::printf("  %-40s %8.2f\n", c.what, us);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_ticket));
}

} // namespace

int main()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        std::fprintf(stderr, "launch_costs: no CUDA device\n");
        return 1;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\n", prop.name);
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Gate gate;
    CHECK(cudaHostAlloc(&gate.h_flag, sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&gate.d_flag, gate.h_flag, 0));
    CHECK(cudaMalloc(&gate.d_timed_out, sizeof(int)));
    CHECK(cudaMemset(gate.d_timed_out, 0, sizeof(int)));
    int *d_word, *h_pinned;
    CHECK(cudaMalloc(&d_word, 4096));
    CHECK(cudaHostAlloc(&h_pinned, 64, cudaHostAllocDefault));

    part_host(s, d_word, h_pinned);
    part_reduce(s, gate);
    part_floor(s);

    int timed_out = 0;
    CHECK(cudaMemcpy(&timed_out, gate.d_timed_out, sizeof(int), cudaMemcpyDeviceToHost));
    if (timed_out)
        std::printf("note: a gate timed out (the host took over a second to queue a call); its gated figure is void\n");
    CHECK(cudaFree(d_word));
    CHECK(cudaFreeHost(h_pinned));
    CHECK(cudaFree(gate.d_timed_out));
    CHECK(cudaFreeHost(gate.h_flag));
    CHECK(cudaStreamDestroy(s));
    return timed_out ? 1 : 0;
}
