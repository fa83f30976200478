// The small stage's one-float step (kd_gb_step) against the C library's
// nextafterf, bit for bit: the GPU builder's candidate planes depend on it,
// and the host emulation and the device must agree with each other and with
// the plane the CPU builder would take. Host code only (label cpu).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "gpu_build_geom.cuh"

static int g_checks = 0, g_failures = 0;

static uint32_t bits_of(float x)
{
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

static void check_one(float x)
{
    for (int up = 0; up < 2; up++) {
        float got = kd_gb_step(x, up), want = nextafterf(x, up ? INFINITY : -INFINITY);
        g_checks++;
        if (bits_of(got) != bits_of(want) && !(std::isnan(got) && std::isnan(want))) {
            if (g_failures++ < 10)
                std::fprintf(stderr, "kd_gb_step(%a [%08x], %s) = %08x, nextafterf gives %08x\n", x,
                             bits_of(x), up ? "up" : "down", bits_of(got), bits_of(want));
        }
    }
}

int main()
{
    const float special[] = {0.0f,     -0.0f,  FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN,   -FLT_MIN,
                             FLT_MAX,  -FLT_MAX, INFINITY,   -INFINITY,     1.0f,      -1.0f,
                             0x1p-126f, 0x1.fffffcp-127f, -0x1.fffffcp-127f, NAN};
    for (float x : special)
        check_one(x);
    // Every exponent and sign, with a prime stride through the mantissas.
    for (uint64_t u = 0; u < 0x100000000ull; u += 4093) {
        uint32_t b = (uint32_t)u;
        float x;
        std::memcpy(&x, &b, sizeof x);
        check_one(x);
    }
    std::printf("gpu_build_step: %d checks, %d failed\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
