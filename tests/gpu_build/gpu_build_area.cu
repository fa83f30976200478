// The box area a small-stage pool record keeps for the collapse
// (gpu_build_collapse.cuh): written and read back bit for bit, in an
// interior record and in a mask leaf, for areas of random boxes from tiny
// to the float range's ends, zero, negative (an inverted box), infinite and
// not a number, without touching the fields the output stage reads; and
// the dropped-child test of a collapsed leaf. Host code only (label cpu);
// the device runs the same code.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <random>

#include "gpu_build_collapse.cuh"

static long checks = 0, failures = 0;

static void expect(bool ok, const char *what, double area, uint32_t kind)
{
    checks++;
    if (!ok && failures++ < 10)
        std::fprintf(stderr, "%s: area %.17g, kind %u\n", what, area, kind);
}

static bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// Area a into a record of `kind`, read back; the fields the output stage
// reads of that kind unchanged.
static void round_trip(double area, uint32_t kind)
{
    const kd_gb_pool_node before = kd_gb_pool_record(kind, kind < 3 ? 1.5f : 0.0f, 7u, kind < 3 ? 8u : 0u,
                                                     kind < 3 ? 0ull : 0x8000000000000401ull, 3u, 9u);
    kd_gb_pool_node n = before;
    kd_gb_pool_set_area(&n, area);
    expect(same_bits(kd_gb_pool_area(n), area), "area not read back bit for bit", area, kind);
    bool kept = n.kind == before.kind && n.a == before.a && n.parent == before.parent && n.depth == before.depth;
    if (kind < 3)
        kept = kept && n.split == before.split && n.b == before.b;
    else
        kept = kept && n.mask == before.mask;
    expect(kept, "a field the output stage reads changed", area, kind);
}

static float random_coord(unsigned long long r)
{
    // Magnitudes 2^-120 .. 2^127, either sign.
    const float mag = std::ldexp(1.0f + (float)(r & 0xffff) / 65536.0f, (int)((r >> 16) % 248) - 120);
    return (r >> 40) & 1 ? -mag : mag;
}

int main()
{
    std::mt19937_64 rng(0x2545f4914f6cdd1dull);
    const double edges[] = {0.0, -0.0, 1.0, -1.0, 1e-300, 4.9e-324, 1.7e308, INFINITY, -INFINITY, NAN,
                            6.0 * 3.4028234663852886e38 * 3.4028234663852886e38};
    for (double a : edges)
        for (uint32_t kind : {0u, 2u, (uint32_t)KD_GB_POOL_LEAF_MASK})
            round_trip(a, kind);
    for (int i = 0; i < 200000; i++) {
        float cell[6];
        for (int k = 0; k < 6; k++)
            cell[k] = random_coord(rng());
        const double area = kd_gb_collapse_area(cell);
        round_trip(area, i % 2 ? (uint32_t)KD_GB_POOL_LEAF_MASK : (uint32_t)(i % 3));
    }
    // A collapsed leaf drops its old children, b and b + 1, and no other
    // slot; a plain mask leaf drops none.
    const kd_gb_pool_node collapsed = kd_gb_pool_record(KD_GB_POOL_LEAF_COLLAPSED, 0.0f, 4u, 100u, 1ull, 2u, 5u);
    kd_gb_pool_node plain = collapsed;
    plain.kind = KD_GB_POOL_LEAF_MASK;
    for (uint32_t i = 98; i < 104; i++) {
        expect(kd_gb_dropped_child(collapsed, i) == (i == 100 || i == 101), "collapsed leaf's dropped child", i,
               collapsed.kind);
        expect(!kd_gb_dropped_child(plain, i), "mask leaf drops a child", i, plain.kind);
    }
    std::printf("gpu_build_area: %ld checks, %ld failed\n", checks, failures);
    return failures ? 1 : 0;
}
