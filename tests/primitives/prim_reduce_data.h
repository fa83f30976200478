/* Inputs for the reduction tests: a seeded generator and value mixes with
 * negatives, signed zeros and infinities (never all zeros), plus helpers
 * shared by the GPU reduction tests. Header-only (static functions). */
#ifndef KD_PRIM_REDUCE_DATA_H
#define KD_PRIM_REDUCE_DATA_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct rd_rng {
    uint64_t state;
} rd_rng;

static inline uint64_t rd_next(rd_rng *rng)
{
    /* splitmix64 */
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, bound). */
static inline uint64_t rd_below(rd_rng *rng, uint64_t bound) { return rd_next(rng) % bound; }

/* A finite float of either sign with a spread of magnitudes (2^-20..2^20). */
static inline float rd_finite(rd_rng *rng)
{
    const uint64_t r = rd_next(rng);
    const float mantissa = 1.0f + (float)(r & 0xFFFFFF) / 16777216.0f;
    const int exponent = (int)((r >> 24) % 41) - 20;
    const float v = ldexpf(mantissa, exponent);
    return (r >> 40) & 1 ? -v : v;
}

typedef enum rd_mix {
    RD_FINITE = 0,    /* finite values of both signs */
    RD_SPECIALS,      /* finite values with +-0 and +-inf sprinkled in */
    RD_ZERO_EXTREME,  /* positives and +-0 (min is a zero) or negatives and +-0 (max is a zero) */
    RD_ALL_INF,       /* every element +inf, or every element -inf */
    RD_PLANTED,       /* values in [-1, 1] plus a unique -1e30 and +1e30 at chosen places */
    RD_NUM_MIXES
} rd_mix;

static inline const char *rd_mix_name(rd_mix mix)
{
    static const char *names[] = {"finite", "specials", "zero-extreme", "all-inf", "planted"};
    return mix < RD_NUM_MIXES ? names[mix] : "?";
}

/* Fills v[0..n) with a mix; `variant` picks the sub-case (sign of the
 * zero-extreme and all-inf mixes, position of the planted extremes: first,
 * last, random). */
static inline void rd_fill(rd_rng *rng, float *v, size_t n, rd_mix mix, int variant)
{
    switch (mix) {
    case RD_FINITE:
        for (size_t i = 0; i < n; i++)
            v[i] = rd_finite(rng);
        break;
    case RD_SPECIALS:
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = rd_below(rng, 100);
            v[i] = r < 10 ? 0.0f : r < 20 ? -0.0f : r < 23 ? INFINITY : r < 26 ? -INFINITY
                                                                     : rd_finite(rng);
        }
        break;
    case RD_ZERO_EXTREME:
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = rd_below(rng, 100);
            const float m = fabsf(rd_finite(rng));
            v[i] = r < 5 ? 0.0f : r < 10 ? -0.0f : (variant & 1) ? -m : m;
        }
        if (n > 0)
            v[rd_below(rng, n)] = (variant & 1) ? 0.0f : -0.0f;
        break;
    case RD_ALL_INF:
        for (size_t i = 0; i < n; i++)
            v[i] = (variant & 1) ? -INFINITY : INFINITY;
        break;
    case RD_PLANTED: {
        for (size_t i = 0; i < n; i++)
            v[i] = (float)((double)rd_next(rng) / 18446744073709551616.0 * 2.0 - 1.0);
        if (n == 0)
            break;
        size_t lo_at, hi_at;
        switch (variant % 3) {
        case 0: lo_at = 0; hi_at = n - 1; break;
        case 1: lo_at = n - 1; hi_at = 0; break;
        default: lo_at = rd_below(rng, n); hi_at = rd_below(rng, n); break;
        }
        v[lo_at] = -1e30f;
        if (hi_at != lo_at)
            v[hi_at] = 1e30f;
        break;
    }
    case RD_NUM_MIXES:
        break;
    }
}

/* A NaN bit pattern the kernels never produce: an unwritten output fails ==. */
static inline float rd_poison(void)
{
    const uint32_t bits = 0x7FC0DEADu;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Value equality (-0 == +0; NaN never equal). */
static inline bool rd_same(float got, float want) { return got == want; }

/* Test sizes: the fixed list of the issue, then `num_random` random sizes up
 * to max_random. Sizes above 2^20 are left out when quick. Returns the count. */
static inline int rd_sizes(size_t *sizes, int capacity, bool quick, rd_rng *rng, int num_random,
                           size_t max_random)
{
    static const size_t fixed[] = {0,    1,    31,   32, 33, 1023, 1024, 1025, (1u << 20) + 7,
                                   (size_t)1 << 26};
    int count = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && count < capacity; i++)
        if (!quick || fixed[i] <= (1u << 20))
            sizes[count++] = fixed[i];
    /* Quick runs (sanitizers) keep the random sizes small too. */
    if (quick && max_random > (1u << 17))
        max_random = 1u << 17;
    for (int i = 0; i < num_random && count < capacity; i++)
        sizes[count++] = 2 + (size_t)rd_below(rng, max_random - 1);
    return count;
}

static inline bool rd_quick(void)
{
    const char *q = getenv("KD_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

static inline uint64_t rd_seed(void)
{
    const char *s = getenv("KD_TEST_SEED");
    return s && *s ? strtoull(s, NULL, 0) : 0x5CA2D0C0FFEEull;
}

#endif
