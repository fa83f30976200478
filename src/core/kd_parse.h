/* Strict number parsing for options and small text formats. */
#ifndef KD_PARSE_H
#define KD_PARSE_H

#include <stdbool.h>

/* Strict number parsing: the whole string must be a number in range. */
bool kd_parse_int(const char *text, long min, long max, long *out);
bool kd_parse_float(const char *text, float *out);
/* An image size "WxH" (or "WXH"), each side in 1..max. */
bool kd_parse_size(const char *text, long max, int *width, int *height);
/* "a,b,c" into n floats. */
bool kd_parse_float_list(const char *text, float *out, int n);

#endif
