/* Character classes and the inline number parsers of the OBJ loader.
 *
 * The parsers read from text that ends with '\n'; every loop stops at the first
 * character that cannot continue its token, so none needs a bounds check. */
#ifndef KD_OBJ_NUMBER_H
#define KD_OBJ_NUMBER_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "obj_internal.h"

/* Character classes. A token ends at a blank, a line end, a comment or a backslash
 * (which may start a line continuation). */
enum {
    OBJ_CC_BLANK = 1, /* space, tab, \r, \v, \f */
    OBJ_CC_END = 2    /* blank, '\n', '#', '\\' */
};

static const unsigned char k_obj_cclass[256] = {
    ['\t'] = OBJ_CC_BLANK | OBJ_CC_END, ['\v'] = OBJ_CC_BLANK | OBJ_CC_END,
    ['\f'] = OBJ_CC_BLANK | OBJ_CC_END, ['\r'] = OBJ_CC_BLANK | OBJ_CC_END,
    [' '] = OBJ_CC_BLANK | OBJ_CC_END,  ['\n'] = OBJ_CC_END,
    ['#'] = OBJ_CC_END,                 ['\\'] = OBJ_CC_END,
};

static inline bool obj_is_blank(char c) { return k_obj_cclass[(unsigned char)c] & OBJ_CC_BLANK; }
static inline bool obj_is_end(char c) { return k_obj_cclass[(unsigned char)c] & OBJ_CC_END; }
static inline bool obj_is_digit(char c) { return (unsigned)(c - '0') < 10u; }

/* An optional sign at p: whether it is '-', and the character after it. */
static inline const char *obj_scan_sign(const char *p, bool *negative)
{
    *negative = *p == '-';
    return *p == '-' || *p == '+' ? p + 1 : p;
}

/* Appends the digit run at p to *m (m = m * 10^k + digits; wraps past 19 digits,
 * which callers detect by length) and returns the first non-digit. A plain loop:
 * OBJ numbers are short. */
static inline const char *obj_scan_digits(const char *p, uint64_t *m)
{
    uint64_t value = *m;
    for (; obj_is_digit(*p); p++)
        value = value * 10 + (unsigned)(*p - '0');
    *m = value;
    return p;
}

/* The fast conversions below rely on float and double operations rounding once, to
 * their own type (FLT_EVAL_METHOD 0, as with SSE on x86-64 and on ARM); where
 * intermediate results are wider (x87), every number takes the exact slow path. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define OBJ_FAST_CONVERSION 1
#else
#define OBJ_FAST_CONVERSION 0
#endif

/* Powers of ten exactly representable in float (up to 1e10) and double (up to 1e22). */
static const float k_obj_pow10f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                       1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
static const double k_obj_pow10d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Case-insensitive match of a lowercase word. */
static inline bool obj_match_word(const char *p, const char *word)
{
    for (; *word; p++, word++)
        if ((*p | 0x20) != *word)
            return false;
    return true;
}

/* nan, inf or infinity (any case) at p, where no digit was found; NULL when
 * there is none. */
static inline const char *obj_parse_special(const char *p, bool negative, float *out)
{
    if (obj_match_word(p, "nan")) {
        *out = NAN;
        return p + 3;
    }
    if (obj_match_word(p, "inf")) {
        *out = negative ? -INFINITY : INFINITY;
        return obj_match_word(p + 3, "inity") ? p + 8 : p + 3;
    }
    return NULL;
}

/* An exponent at p ("e", "E", then [+-]digits), if any, added to *exp10;
 * returns the character after it, or NULL when the 'e' has no digits. */
static inline const char *obj_parse_exponent(const char *p, int64_t *exp10)
{
    if ((*p | 0x20) != 'e')
        return p;
    p++;
    bool exp_negative;
    p = obj_scan_sign(p, &exp_negative);
    if (!obj_is_digit(*p))
        return NULL;
    int e = 0;
    for (; obj_is_digit(*p); p++)
        if (e < 100000) /* far beyond float range either way; avoids int overflow */
            e = e * 10 + (*p - '0');
    *exp10 += exp_negative ? -e : e;
    return p;
}

/* m * 10^exp10 rounded once to float, when one float or one double operation
 * does it exactly (see obj_parse_float); false when the slow path must. */
static inline bool obj_fast_float(uint64_t m, int64_t exp10, float *value)
{
    if (m == 0) {
        *value = 0.0f;
        return true;
    }
    if (m <= (1u << 24) && exp10 >= -10 && exp10 <= 10) {
        float f = (float)m;
        *value = exp10 < 0 ? f / k_obj_pow10f[-exp10] : f * k_obj_pow10f[exp10];
        return true;
    }
    if (m <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
        double d = (double)m;
        d = exp10 < 0 ? d / k_obj_pow10d[-exp10] : d * k_obj_pow10d[exp10];
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        /* A double halfway between two floats has its 29 low mantissa bits = 100..0. */
        bool halfway = (bits & ((1ull << 29) - 1)) == (1ull << 28);
        if (d >= FLT_MIN && d <= FLT_MAX && !halfway) {
            *value = (float)d;
            return true;
        }
    }
    return false;
}

/* Parses a number at p into *out and returns the character after it, or NULL when
 * no number starts at p. The caller checks that a delimiter follows.
 *
 * Exactly rounded: the digits are gathered into an integer m and a decimal exponent
 * e (value = m * 10^e). When m and 10^|e| are both exact in float, one float
 * multiply or divide rounds correctly (the common case for OBJ text). When both are
 * exact in double, the double result is correctly rounded and converting it to float
 * is exact unless it lies exactly halfway between two floats (double rounding could
 * then go the wrong way) or outside the normal float range: those cases, and more
 * than 19 digits, go to kd_obj_slow_float. */
static inline const char *obj_parse_float(const char *p, float *out)
{
    const char *start = p;
    bool negative;
    p = obj_scan_sign(p, &negative);

    /* All digits go into m; more than 19 of them (leading zeros included, which is
     * rare in OBJ text) could overflow it and take the exact slow path instead. */
    uint64_t m = 0;
    const char *digits = p;
    p = obj_scan_digits(p, &m);
    int64_t num_digits = p - digits;
    int64_t exp10 = 0;
    if (*p == '.') {
        p++;
        const char *frac = p;
        p = obj_scan_digits(p, &m);
        exp10 = -(int64_t)(p - frac);
        num_digits += p - frac;
    }
    if (num_digits == 0)
        return p != digits ? NULL /* a lone '.' */ : obj_parse_special(p, negative, out);
    if (!(p = obj_parse_exponent(p, &exp10)))
        return NULL;
    float value;
    if (num_digits > 19 || !OBJ_FAST_CONVERSION || !obj_fast_float(m, exp10, &value)) {
        *out = kd_obj_slow_float(start, p);
        return p;
    }
    *out = negative ? -value : value;
    return p;
}

/* Parses an integer index ([+-]digits) at p into *out; NULL when there are no digits.
 * More than 12 significant digits become 2^40 (out of range anyway; messages quote
 * the text). */
static inline const char *obj_parse_index(const char *p, int64_t *out)
{
    bool negative;
    p = obj_scan_sign(p, &negative);
    if (!obj_is_digit(*p))
        return NULL;
    while (*p == '0' && obj_is_digit(p[1]))
        p++; /* leading zeros do not count toward the 12 */
    uint64_t v = 0;
    const char *digits = p;
    p = obj_scan_digits(p, &v);
    if (p - digits > 12)
        v = 1ull << 40; /* out of range whatever it is, and no wrap-around */
    *out = negative ? -(int64_t)v : (int64_t)v;
    return p;
}

#endif
