#include "kd_parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool kd_parse_int(const char *text, long min, long max, long *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool kd_parse_float(const char *text, float *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    float v = strtof(text, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool kd_parse_size(const char *text, long max, int *width, int *height)
{
    char buf[64];
    if (!text || strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    char *x = strpbrk(buf, "xX");
    if (!x)
        return false;
    *x = '\0';
    long w, h;
    if (!kd_parse_int(buf, 1, max, &w) || !kd_parse_int(x + 1, 1, max, &h))
        return false;
    *width = (int)w;
    *height = (int)h;
    return true;
}

bool kd_parse_float_list(const char *text, float *out, int n)
{
    char buf[256];
    if (!text || strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    char *p = buf;
    for (int i = 0; i < n; i++) {
        char *comma = strchr(p, ',');
        if ((comma != NULL) != (i < n - 1))
            return false;
        if (comma)
            *comma = '\0';
        if (!kd_parse_float(p, &out[i]))
            return false;
        p = comma + 1;
    }
    return true;
}
