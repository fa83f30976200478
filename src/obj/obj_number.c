/* The exact slow path of the OBJ number parser, and a test entry to the fast one. */
#include <stdio.h>
#include <stdlib.h>

#include "obj_number.h"

/* Digits kept before the rest collapse into one sticky digit. Deciding the rounding of
 * a float needs fewer than 120 significant decimal digits (the exact midpoints between
 * floats have at most 113), so a nonzero digit beyond 200 only matters as "something
 * nonzero follows", which the sticky '1' preserves. */
enum { SLOW_MAX_DIGITS = 200 };

float kd_obj_slow_float(const char *begin, const char *end)
{
    const char *p = begin;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+'))
        negative = *p++ == '-';

    /* Significant digits as 0.DDDD x 10^point. */
    char digits[SLOW_MAX_DIGITS + 2];
    int num_digits = 0;
    bool sticky = false;
    bool seen_nonzero = false;
    int64_t point = 0;
    for (; p < end && obj_is_digit(*p); p++) {
        if (!seen_nonzero && *p == '0')
            continue;
        seen_nonzero = true;
        point++;
        if (num_digits < SLOW_MAX_DIGITS)
            digits[num_digits++] = *p;
        else
            sticky |= *p != '0';
    }
    if (p < end && *p == '.') {
        for (p++; p < end && obj_is_digit(*p); p++) {
            if (!seen_nonzero && *p == '0') {
                point--;
                continue;
            }
            seen_nonzero = true;
            if (num_digits < SLOW_MAX_DIGITS)
                digits[num_digits++] = *p;
            else
                sticky |= *p != '0';
        }
    }
    int64_t exponent = 0;
    if (p < end && (*p | 0x20) == 'e') {
        p++;
        bool exp_negative = false;
        if (p < end && (*p == '-' || *p == '+'))
            exp_negative = *p++ == '-';
        for (; p < end && obj_is_digit(*p); p++)
            if (exponent < 100000)
                exponent = exponent * 10 + (*p - '0');
        if (exp_negative)
            exponent = -exponent;
    }
    if (!seen_nonzero)
        return negative ? -0.0f : 0.0f;
    if (sticky)
        digits[num_digits++] = '1';
    digits[num_digits] = '\0';

    /* Far outside float range the answer is plain; this also keeps the exponent
     * printed below small. */
    int64_t scale = point + exponent;
    if (scale > 100)
        return negative ? -INFINITY : INFINITY;
    if (scale < -100)
        return negative ? -0.0f : 0.0f;

    /* strtof reads the C locale's '.', which is what scankd runs in (it never calls
     * setlocale). */
    char text[SLOW_MAX_DIGITS + 32];
    snprintf(text, sizeof text, "%s0.%se%d", negative ? "-" : "", digits, (int)scale);
    return strtof(text, NULL);
}

bool kd_obj_parse_float_text(const char *begin, const char *end, float *out)
{
    /* The fast parser relies on a terminator; give it a padded copy. */
    size_t len = (size_t)(end - begin);
    char *copy = malloc(len + 2);
    if (!copy)
        return false;
    memcpy(copy, begin, len);
    copy[len] = '\n';
    copy[len + 1] = '\0';
    const char *stop = obj_parse_float(copy, out);
    bool ok = stop == copy + len;
    free(copy);
    return ok;
}
