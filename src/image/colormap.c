/* Colour maps: shaded, depth and heat map (with its legend, legend.c). */
#include "colormap.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "legend.h"

/* Chosen for steadily rising lightness (relative luminance roughly 12, 31,
 * 49, 67, 87, 114, 149, 193, 240 on a 0..255 scale) and a hue sweep from
 * indigo through magenta and orange to pale yellow. */
static const kd_rgb ramp_points[KD_RAMP_NUM_POINTS] = {
    {13, 8, 45},    {50, 18, 100},  {95, 28, 125},   {140, 40, 125}, {185, 55, 110},
    {223, 85, 85},  {245, 130, 55}, {250, 190, 60},  {250, 245, 160},
};

kd_rgb kd_ramp_point(int i)
{
    if (i < 0)
        i = 0;
    if (i >= KD_RAMP_NUM_POINTS)
        i = KD_RAMP_NUM_POINTS - 1;
    return ramp_points[i];
}

static uint8_t lerp_channel(uint8_t a, uint8_t b, float f)
{
    return (uint8_t)((float)a + ((float)b - (float)a) * f + 0.5f);
}

kd_rgb kd_ramp(float t)
{
    if (!(t > 0.0f))  /* also catches NaN */
        return ramp_points[0];
    if (t >= 1.0f)
        return ramp_points[KD_RAMP_NUM_POINTS - 1];
    float pos = t * (float)(KD_RAMP_NUM_POINTS - 1);
    int i = (int)pos;
    if (i >= KD_RAMP_NUM_POINTS - 1)
        i = KD_RAMP_NUM_POINTS - 2;
    float f = pos - (float)i;
    kd_rgb a = ramp_points[i], b = ramp_points[i + 1];
    kd_rgb c = {lerp_channel(a.r, b.r, f), lerp_channel(a.g, b.g, f), lerp_channel(a.b, b.b, f)};
    return c;
}

static size_t pixel_count(const kd_image *img)
{
    return (size_t)img->width * (size_t)img->height;
}

static void put(kd_image *img, size_t i, kd_rgb c)
{
    img->rgb[3 * i + 0] = c.r;
    img->rgb[3 * i + 1] = c.g;
    img->rgb[3 * i + 2] = c.b;
}

/* ---- Shaded ------------------------------------------------------------------ */

void kd_colormap_shaded(kd_image *img, const float *shade, kd_rgb tint, kd_rgb background)
{
    size_t n = pixel_count(img);
    for (size_t i = 0; i < n; i++) {
        float s = shade[i];
        if (!(s >= 0.0f)) {  /* negative or NaN: the ray missed */
            put(img, i, background);
            continue;
        }
        if (s > 1.0f)
            s = 1.0f;
        kd_rgb c = {(uint8_t)(tint.r * s + 0.5f), (uint8_t)(tint.g * s + 0.5f),
                    (uint8_t)(tint.b * s + 0.5f)};
        put(img, i, c);
    }
}

/* ---- Depth -------------------------------------------------------------------- */

bool kd_value_range(const float *values, size_t n, float *lo, float *hi)
{
    bool any = false;
    float min = 0.0f, max = 0.0f;
    for (size_t i = 0; i < n; i++) {
        float v = values[i];
        if (!isfinite(v))
            continue;
        if (!any || v < min)
            min = v;
        if (!any || v > max)
            max = v;
        any = true;
    }
    if (any) {
        *lo = min;
        *hi = max;
    }
    return any;
}

bool kd_depth_range(const float *depth, size_t n, float *near_depth, float *far_depth)
{
    float lo, hi;
    if (!kd_value_range(depth, n, &lo, &hi))
        return false;
    if (!(hi > lo)) {
        /* One depth everywhere: widen relative to its size so the step is
         * representable even far from the origin. */
        float step = fabsf(lo) * 1e-3f;
        hi = lo + (step > 1e-6f ? step : 1e-6f);
    }
    *near_depth = lo;
    *far_depth = hi;
    return true;
}

kd_status kd_colormap_depth(kd_image *img, const float *depth, float near_depth, float far_depth,
                            kd_depth_style style, kd_rgb background, kd_error *err)
{
    if (!isfinite(near_depth) || !isfinite(far_depth) || !(far_depth > near_depth))
        return kd_error_set(err, KD_ERR_INVALID, "depth range [%g, %g] is empty or not finite",
                            (double)near_depth, (double)far_depth);
    if (style != KD_DEPTH_GREY && style != KD_DEPTH_RAMP)
        return kd_error_set(err, KD_ERR_INVALID, "unknown depth style %d", (int)style);
    size_t n = pixel_count(img);
    float scale = 1.0f / (far_depth - near_depth);
    for (size_t i = 0; i < n; i++) {
        float d = depth[i];
        if (!isfinite(d)) {
            put(img, i, background);
            continue;
        }
        float t = (d - near_depth) * scale;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        /* Near is bright in both styles, as the eye expects. */
        if (style == KD_DEPTH_GREY) {
            uint8_t v = (uint8_t)(255.0f * (1.0f - t) + 0.5f);
            kd_rgb c = {v, v, v};
            put(img, i, c);
        } else {
            put(img, i, kd_ramp(1.0f - t));
        }
    }
    return KD_OK;
}

/* ---- Heat map ----------------------------------------------------------------- */

static float heat_t(float v, float lo, float hi)
{
    if (!(hi > lo))
        return v > lo ? 1.0f : 0.0f;
    return (v - lo) / (hi - lo);
}

void kd_colormap_heat(kd_image *img, const float *values, float lo, float hi, kd_rgb background)
{
    size_t n = pixel_count(img);
    for (size_t i = 0; i < n; i++) {
        float v = values[i];
        put(img, i, isnan(v) ? background : kd_ramp(heat_t(v, lo, hi)));
    }
}

void kd_format_value(double value, char *text, size_t bytes)
{
    double mag = fabs(value);
    if (!isfinite(value))
        snprintf(text, bytes, "%s", isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf"));
    else if (mag >= 1e9)
        snprintf(text, bytes, "%.3gG", value / 1e9);
    else if (mag >= 1e6)
        snprintf(text, bytes, "%.3gM", value / 1e6);
    else if (mag >= 1e5)
        snprintf(text, bytes, "%.3gk", value / 1e3);
    else if (value == floor(value))
        snprintf(text, bytes, "%.0f", value);
    else
        snprintf(text, bytes, "%.3g", value);
}

/* ---- Robust range -------------------------------------------------------------- */

static void swap_floats(float *a, float *b)
{
    float t = *a;
    *a = *b;
    *b = t;
}

/* The k-th smallest of v[0..n) (k < n), reordering v: Wirth's selection,
 * linear on average and at ease with many equal values (counts). */
static float select_kth(float *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, r = (ptrdiff_t)n - 1;
    const ptrdiff_t kk = (ptrdiff_t)k;
    while (l < r) {
        const float x = v[kk];
        ptrdiff_t i = l, j = r;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j)
                swap_floats(&v[i++], &v[j--]);
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            r = j;
    }
    return v[kk];
}

kd_status kd_heat_scale_of(const float *values, size_t n, int percentile, kd_heat_scale *scale,
                           kd_error *err)
{
    memset(scale, 0, sizeof *scale);
    scale->percentile = percentile < 1 ? 1 : (percentile > 100 ? 100 : percentile);
    scale->hi = 1.0f;
    float *finite = malloc((n ? n : 1) * sizeof *finite);
    if (!finite)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for the heat map's range");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(values[i]))
            finite[m++] = values[i];
    if (m > 0) {
        /* Nearest rank: the smallest value at least percentile% of them reach. */
        size_t rank = (size_t)ceil((double)scale->percentile / 100.0 * (double)m);
        float top = select_kth(finite, m, rank > 0 ? rank - 1 : 0);
        float max = finite[0];
        for (size_t i = 1; i < m; i++)
            max = fmaxf(max, finite[i]);
        scale->max = max;
        scale->hi = top > 0.0f ? top : (max > 0.0f ? max : 1.0f);
        scale->clipped = scale->hi < max;
    }
    free(finite);
    return KD_OK;
}

kd_status kd_heatmap_with_legend(const float *values, int width, int height, const kd_heat_scale *scale,
                                 const char *title, const char *short_title, kd_image *out, kd_error *err)
{
    memset(out, 0, sizeof *out);
    if (width < 1 || height < 1 || width > KD_IMAGE_MAX_SIDE || height > KD_IMAGE_MAX_SIDE)
        return kd_error_set(err, KD_ERR_INVALID, "heat map size %dx%d out of range", width,
                            height);
    KD_TRY(kd_image_create(out, width, height, err));
    const kd_rgb background = {0, 0, 0};
    kd_colormap_heat(out, values, scale->lo, scale->hi, background);
    if (title || short_title) {
        const kd_legend legend = {.title = title ? title : short_title, .short_title = short_title,
                                  .lo = scale->lo, .hi = scale->hi, .clipped = scale->clipped,
                                  .percentile = scale->percentile, .max = scale->max};
        kd_legend_draw(out, &legend);
    }
    return KD_OK;
}
