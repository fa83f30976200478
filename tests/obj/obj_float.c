/* The OBJ loader's number parser against strtof: the same float, bit for bit, on
 * hand-picked hard cases and on hundreds of thousands of random decimal strings. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj_internal.h"
#include "test_support.h"

static int g_mismatches = 0;

/* xorshift64*: reproducible random numbers independent of the C library. */
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rng_next(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}
static int rng_int(int lo, int hi) { return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1)); }

static bool same_float(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Parses text with the loader and with strtof and checks they agree. */
static void check_text(const char *text)
{
    float ours = 0, want = strtof(text, NULL);
    bool ok = kd_obj_parse_float_text(text, text + strlen(text), &ours);
    kd_test_checks++;
    if (!ok || !same_float(ours, want)) {
        kd_test_failures++;
        if (++g_mismatches <= 20)
            fprintf(stderr, "mismatch on \"%s\": ours %s%.9g, strtof %.9g\n", text, ok ? "" : "(rejected) ",
                    (double)ours, (double)want);
    }
}

static void check_rejected(const char *text)
{
    float out;
    CHECK_MSG(!kd_obj_parse_float_text(text, text + strlen(text), &out), "accepted \"%s\"", text);
}

static void test_hard_cases(void)
{
    static const char *const cases[] = {
        "0", "-0", "+0", "0.0", "-0.0", "00000", "1", "-1", "10", "0.1", "0.2", "0.3", "1.5", "3.14159265358979",
        "16777216", "16777217", "16777218", "16777219", "33554431", "33554433", /* float ties to even */
        "16777217.0000000001", "16777216.9999999999", "9007199254740993", "9007199254740992",
        "1.00000005960464477539062499", "1.000000059604644775390625", "1.00000005960464477539062501",
        "3.4028234663852886e38", "3.4028235e38", "3.40282356779733661637539395458142568448e38",
        "3.4028236e38", "1e38", "1e39", "-1e39", "1e308", "1e400", "1e100000000",
        "1.17549435e-38", "1.1754942e-38", "1.4e-45", "1.401298464324817e-45", "7.006492321624085e-46",
        "7.006492321624086e-46", "7e-46", "1e-45", "1e-46", "1e-50", "1e-400", "2.5e-45", "1e-100000000",
        "123456789012345678901234567890", "0.000000000000000000000000000001234567890123456789",
        "1234567890123456789", "12345678901234567890", "18446744073709551615", "18446744073709551616",
        "0.1e1", "1e-1", "1E+1", ".5", "5.", "-.5e-5", "1e22", "1e23", "1e-22", "1e-23", "4.7019774e-38",
        "2.2250738585072014e-308", "0.0000001", "1000000000", "1e10", "1e11", "8388608.5", "8388609.5",
        "0.000000000000000000000000000000000000000000000000000000000000000000000000001e70",
        "nan", "NaN", "NAN", "-nan", "inf", "-inf", "Inf", "infinity", "-INFINITY", "+inf",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_text(cases[i]);

    /* A 300-digit number and a long run of zeros: the slow path keeps it exact. */
    char big[400];
    memset(big, '0', sizeof big);
    big[0] = '1';
    big[1] = '.';
    big[350] = '1';
    big[351] = '\0';
    check_text(big);
    memset(big, '9', 320);
    big[320] = '\0';
    check_text(big);

    static const char *const bad[] = {"", ".", "-", "+", "e5", "1e", "1e+", "1e-", "0x1p3", "1.2.3", "--1",
                                      "+-1", "nanx", "in", "infin", "1 ", " 1", "1,5", "1f", "..1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        check_rejected(bad[i]);
}

/* Random floats printed with few to many digits, in %g, %e and %f styles. */
static void test_printed_floats(int count)
{
    char text[128];
    for (int i = 0; i < count; i++) {
        uint32_t bits = (uint32_t)rng_next();
        float f;
        memcpy(&f, &bits, sizeof f);
        if (!isfinite(f))
            continue;
        int digits = rng_int(1, 12);
        switch (i % 3) {
        case 0: snprintf(text, sizeof text, "%.*g", digits, (double)f); break;
        case 1: snprintf(text, sizeof text, "%.*e", digits, (double)f); break;
        default:
            /* %f only where it stays short: OBJ-like magnitudes */
            f = ldexpf((float)(rng_next() >> 40) / (float)(1 << 24), rng_int(-20, 20));
            snprintf(text, sizeof text, "%.*f", rng_int(0, 12), (double)f);
            break;
        }
        check_text(text);
    }
}

/* Decimals right at and around the midpoints between neighbouring floats: the cases
 * double rounding gets wrong. */
static void test_midpoints(int count)
{
    char text[128];
    for (int i = 0; i < count; i++) {
        uint32_t bits = (uint32_t)rng_next() & 0x7f7fffffu; /* finite, below the top binade */
        float f;
        memcpy(&f, &bits, sizeof f);
        double mid = ((double)f + (double)nextafterf(f, INFINITY)) / 2; /* exact in double */
        snprintf(text, sizeof text, "%.*g", rng_int(9, 19), mid);
        check_text(text);
    }
}

/* Random digit strings: up to 25 digits, the point anywhere, exponents either way. */
static void test_random_decimals(int count)
{
    char text[128];
    for (int i = 0; i < count; i++) {
        size_t n = 0;
        if (rng_next() % 4 == 0)
            text[n++] = rng_next() % 2 ? '-' : '+';
        int num_digits = rng_int(1, 25);
        int point = rng_int(-1, num_digits);
        int zeros = rng_next() % 3 == 0 ? rng_int(1, 8) : 0;
        for (int d = 0; d < zeros; d++)
            text[n++] = '0';
        for (int d = 0; d < num_digits; d++) {
            if (d == point)
                text[n++] = '.';
            text[n++] = (char)('0' + rng_int(0, 9));
        }
        if (point == num_digits)
            text[n++] = '.';
        if (rng_next() % 2)
            n += (size_t)snprintf(text + n, sizeof text - n, "e%d", rng_int(-50, 45));
        text[n] = '\0';
        if (text[n - 1] == '.' && (n == 1 || !(text[n - 2] >= '0' && text[n - 2] <= '9')))
            continue; /* a lone "." is not a number */
        check_text(text);
    }
}

int main(void)
{
    test_hard_cases();
    test_printed_floats(300000);
    test_midpoints(100000);
    test_random_decimals(300000);
    if (g_mismatches > 20)
        fprintf(stderr, "... %d mismatches in all\n", g_mismatches);
    return kd_test_finish("obj_float");
}
