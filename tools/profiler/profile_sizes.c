/* The sizes of `scankd profile` (profile_sizes.h). */
#include "profile_sizes.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Digits at *p into *value (at most 12 of them: far above any size), moving
 * *p past them; false when there is none or too many. */
static bool read_number(const char **p, uint64_t *value)
{
    int digits = 0;
    *value = 0;
    while (**p >= '0' && **p <= '9') {
        if (++digits > 12)
            return false;
        *value = *value * 10 + (uint64_t)(**p - '0');
        (*p)++;
    }
    return digits > 0;
}

/* An optional "+C" or "-C" at *p into *offset (0 when absent). */
static bool read_offset(const char **p, int64_t *offset)
{
    *offset = 0;
    if (**p != '+' && **p != '-')
        return true;
    const bool minus = **p == '-';
    (*p)++;
    uint64_t c;
    if (!read_number(p, &c))
        return false;
    *offset = minus ? -(int64_t)c : (int64_t)c;
    return true;
}

/* Appends 2^k + offset, checked against [1, 2^31]. */
static kd_status add_size(int k, int64_t offset, size_t *sizes, int capacity, int *count, kd_error *err)
{
    const int64_t n = ((int64_t)1 << k) + offset;
    if (n < 1 || n > (int64_t)KD_PROFILE_MAX_N)
        return kd_error_set(err, KD_ERR_INVALID, "2^%d%+lld = %lld is outside 1..2^%d", k, (long long)offset,
                            (long long)n, KD_PROFILE_MAX_LOG2);
    if (*count >= capacity)
        return kd_error_set(err, KD_ERR_INVALID, "more than %d sizes", capacity);
    sizes[(*count)++] = (size_t)n;
    return KD_OK;
}

static bool valid_log2(uint64_t k)
{
    return k <= KD_PROFILE_MAX_LOG2;
}

/* One item of the list, at *p (see profile_sizes.h). */
static kd_status read_item(const char **p, size_t *sizes, int capacity, int *count, kd_error *err)
{
    const char *start = *p;
    uint64_t a, b;
    int64_t offset;
    if ((*p)[0] == '2' && (*p)[1] == '^') { /* 2^K, 2^K+C, 2^K-C */
        *p += 2;
        if (!read_number(p, &a) || !valid_log2(a) || !read_offset(p, &offset))
            return kd_error_set(err, KD_ERR_INVALID, "'%s': want 2^K, 2^K+C or 2^K-C with K <= %d", start,
                                KD_PROFILE_MAX_LOG2);
        return add_size((int)a, offset, sizes, capacity, count, err);
    }
    if (!read_number(p, &a))
        return kd_error_set(err, KD_ERR_INVALID, "'%s': want a size, 2^K or a range A:B", start);
    if (**p != ':') { /* N */
        if (a < 1 || a > KD_PROFILE_MAX_N)
            return kd_error_set(err, KD_ERR_INVALID, "%llu is outside 1..2^%d", (unsigned long long)a,
                                KD_PROFILE_MAX_LOG2);
        if (*count >= capacity)
            return kd_error_set(err, KD_ERR_INVALID, "more than %d sizes", capacity);
        sizes[(*count)++] = (size_t)a;
        return KD_OK;
    }
    (*p)++; /* A:B, A:B+C, A:B-C */
    if (!read_number(p, &b) || !read_offset(p, &offset))
        return kd_error_set(err, KD_ERR_INVALID, "'%s': want A:B, A:B+C or A:B-C", start);
    if (!valid_log2(a) || !valid_log2(b) || a > b)
        return kd_error_set(err, KD_ERR_INVALID, "%llu:%llu: want exponents 0 <= A <= B <= %d",
                            (unsigned long long)a, (unsigned long long)b, KD_PROFILE_MAX_LOG2);
    for (uint64_t k = a; k <= b; k++) {
        kd_status s = add_size((int)k, offset, sizes, capacity, count, err);
        if (s != KD_OK)
            return s;
    }
    return KD_OK;
}

static int compare_sizes(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

kd_status kd_profile_parse_sizes(const char *text, size_t *sizes, int capacity, int *count, kd_error *err)
{
    *count = 0;
    const char *p = text;
    for (;;) {
        kd_status s = read_item(&p, sizes, capacity, count, err);
        if (s != KD_OK)
            return s;
        if (*p == '\0')
            break;
        if (*p != ',')
            return kd_error_set(err, KD_ERR_INVALID, "unexpected '%c' in '%s'", *p, text);
        p++;
    }
    /* Ascending, each once. */
    qsort(sizes, (size_t)*count, sizeof *sizes, compare_sizes);
    int kept = 0;
    for (int i = 0; i < *count; i++)
        if (kept == 0 || sizes[i] != sizes[kept - 1])
            sizes[kept++] = sizes[i];
    *count = kept;
    return KD_OK;
}

int kd_profile_power_sizes(int lo, int hi, size_t *sizes, int capacity)
{
    int count = 0;
    for (int k = lo; k <= hi && count < capacity; k++)
        sizes[count++] = (size_t)1 << k;
    return count;
}

int kd_profile_exact_log2(size_t n)
{
    if (n == 0 || (n & (n - 1)) != 0)
        return -1;
    int l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

void kd_profile_size_label(size_t n, char *out, size_t bytes)
{
    const int l = kd_profile_exact_log2(n);
    if (l >= 0)
        snprintf(out, bytes, "2^%d", l);
    else
        snprintf(out, bytes, "%zu", n);
}
