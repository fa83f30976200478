// kd_gb_nth_bit64 (the small stage's member bits: member c of a node is the
// c-th set bit of its mask) against a plain loop, for every set bit of
// masks of every density, and the edges (one bit, all 64, the top bit).
// Host code only (label cpu); the device runs the same code.
#include <cstdint>
#include <cstdio>

#include "gpu_build_common.cuh"

static uint32_t nth_bit_loop(unsigned long long x, uint32_t n)
{
    for (uint32_t i = 0; i < 64; i++) {
        if ((x >> i) & 1ull) {
            if (n == 0)
                return i;
            n--;
        }
    }
    return 64;
}

int main()
{
    long checks = 0, failures = 0;
    unsigned long long state = 0x9e3779b97f4a7c15ull;
    auto next = [&state]() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    auto check = [&](unsigned long long mask) {
        const uint32_t count = (uint32_t)__builtin_popcountll(mask);
        for (uint32_t n = 0; n < count; n++) {
            const uint32_t got = kd_gb_nth_bit64(mask, n), want = nth_bit_loop(mask, n);
            checks++;
            if (got != want && failures++ < 10)
                std::fprintf(stderr, "kd_gb_nth_bit64(%016llx, %u) = %u, want %u\n", mask, n, got, want);
        }
    };
    check(~0ull);
    for (int i = 0; i < 64; i++) {
        check(1ull << i);
        check(~(1ull << i));
        check((1ull << i) | (1ull << 63));
    }
    for (int i = 0; i < 200000; i++) {
        // Densities from one bit in eight to seven in eight.
        unsigned long long mask = next();
        if (i % 4 == 1)
            mask &= next();
        else if (i % 4 == 2)
            mask &= next() & next();
        else if (i % 4 == 3)
            mask |= next();
        check(mask);
    }
    std::printf("gpu_build_bits: %ld checks, %ld failed\n", checks, failures);
    return failures ? 1 : 0;
}
