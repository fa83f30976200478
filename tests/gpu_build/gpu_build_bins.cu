// The large and medium stages' binned SAH counts against the split itself:
// for every bin boundary, the references the bins count below (above) must
// be exactly those the classify pass sends below (above) at the boundary's
// plane, touching references both ways, and the planes must rise with j
// inside the tight box. Boxes of every width: ordinary ones, ones only a
// few float steps wide far from the origin (where every plane lies on a
// vertex layer and a rounding apart miscounts), across zero, and tiny.
// Host code only (label cpu): the device runs the same functions.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu_build_large_split.cuh"

namespace {

int g_checks = 0, g_failures = 0;

struct rng {
    uint64_t s;
    uint32_t next()
    {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (uint32_t)(s >> 33);
    }
    float unit() { return (float)(next() >> 8) * 0x1p-24f; } // [0, 1)
};

// A position in [lo, hi]: anywhere, at an end, or a plane of a boundary
// (or a float beside one), where rounding decides.
float pick(rng &r, float lo, float hi, const std::vector<float> &planes)
{
    float x;
    switch (r.next() % 4) {
    case 0: x = lo + r.unit() * (hi - lo); break;
    case 1: x = (r.next() & 1) ? lo : hi; break;
    default: {
        x = planes[r.next() % planes.size()];
        int step = (int)(r.next() % 3) - 1;
        x = step ? kd_gb_step(x, step > 0) : x;
    }
    }
    return std::fmin(std::fmax(x, lo), hi);
}

// One box [lo, hi] on axis 0 with n references and num_bins bins.
void check_case(rng &r, float lo, float hi, int num_bins, int n)
{
    kd_gb_choose_sah f;
    std::memset(&f, 0, sizeof f);
    f.num_bins = num_bins;
    const float t[6] = {lo, 0.0f, 0.0f, hi, 0.0f, 0.0f}; // axes 1 and 2 flat: not binned
    const float ext = hi - lo;
    std::vector<float> planes;
    for (int j = 1; j < num_bins; j++)
        planes.push_back(f.boundary(t, 0, ext, j));
    std::vector<float> ref_lo(n), ref_hi(n);
    std::vector<uint32_t> bins(6 * (size_t)num_bins, 0u);
    for (int i = 0; i < n; i++) {
        float a = pick(r, lo, hi, planes), b = pick(r, lo, hi, planes);
        ref_lo[i] = std::fmin(a, b);
        ref_hi[i] = std::fmax(a, b);
        const float rlo[3] = {ref_lo[i], 0.0f, 0.0f}, rhi[3] = {ref_hi[i], 0.0f, 0.0f};
        kd_gb_bin_one(rlo, rhi, t, num_bins, bins.data());
    }
    uint32_t below = 0, not_above = 0;
    for (int j = 1; j < num_bins; j++) {
        const float pos = planes[j - 1];
        below += bins[j - 1];
        not_above += bins[num_bins + j - 1];
        uint32_t want_below = 0, want_above = 0;
        for (int i = 0; i < n; i++) {
            const uint8_t side = kd_gb_side(ref_lo[i], ref_hi[i], pos);
            want_below += side & 1u;
            want_above += side >> 1;
        }
        g_checks++;
        const bool ordered = pos >= lo && pos < hi && (j == 1 || pos >= planes[j - 2]);
        if (below != want_below || n - not_above != want_above || !ordered) {
            if (g_failures++ < 10)
                std::fprintf(stderr, "box [%a, %a], %d bins, boundary %d at %a: bins count %u below and %u above, "
                                     "the split sends %u and %u%s\n",
                             lo, hi, num_bins, j, pos, below, n - not_above, want_below, want_above,
                             ordered ? "" : " (plane out of order)");
        }
    }
}

} // namespace

int main()
{
    rng r = {12345u};
    const int bin_counts[] = {2, 3, 7, 32, 128};
    for (int iter = 0; iter < 4000; iter++) {
        const int num_bins = bin_counts[r.next() % 5];
        float lo, hi;
        switch (iter % 4) {
        case 0: // ordinary
            lo = -4.0f + 8.0f * r.unit();
            hi = lo + 0.01f + 10.0f * r.unit();
            break;
        case 1: { // far from the origin, 1 to 64 float steps wide
            lo = 100.0f + r.unit();
            hi = lo;
            for (int s = 1 + (int)(r.next() % 64); s > 0; s--)
                hi = kd_gb_step(hi, 1);
            break;
        }
        case 2: // across zero
            lo = -r.unit() - 1e-30f;
            hi = r.unit() + 1e-30f;
            break;
        default: // tiny, near zero
            lo = std::ldexp(r.unit(), -100);
            hi = lo + std::ldexp(1.0f + r.unit(), -110);
            break;
        }
        check_case(r, lo, hi, num_bins, 1 + (int)(r.next() % 200));
    }
    std::printf("gpu_build_bins: %d checks, %d failed\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
