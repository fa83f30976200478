/* Colour maps: shaded, depth and heat map (with its legend strip). */
#include "colormap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "font.h"

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

/* Legend layout, in font pixels (multiplied by the text scale). */
enum {
    LEGEND_PAD = 4,
    LEGEND_GAP_LABEL = 3,
    LEGEND_BAR = 10,
    LEGEND_TICK = 3,
    LEGEND_GAP_NUMBERS = 2,
    LEGEND_MARGIN_X = 6
};

static int legend_scale(int width)
{
    return width < 256 ? 1 : (width < 1600 ? 2 : 3);
}

int kd_heat_legend_height(int width)
{
    return legend_scale(width) *
           (LEGEND_PAD + KD_FONT_CELL_HEIGHT + LEGEND_GAP_LABEL + LEGEND_BAR + LEGEND_TICK +
            LEGEND_GAP_NUMBERS + KD_FONT_CELL_HEIGHT + LEGEND_PAD);
}

static void draw_legend(kd_image *img, int top, float lo, float hi, const char *label)
{
    const kd_rgb panel = {24, 24, 24}, ink = {235, 235, 235};
    int s = legend_scale(img->width);
    kd_image_fill_rect(img, 0, top, img->width, img->height - top, panel);

    int x0 = LEGEND_MARGIN_X * s, x1 = img->width - LEGEND_MARGIN_X * s; /* bar spans [x0, x1) */
    if (x1 - x0 < 2) {
        x0 = 0;
        x1 = img->width;
    }
    int y = top + LEGEND_PAD * s;
    if (label)
        kd_font_draw(img, x0, y, label, s, ink);
    y += (KD_FONT_CELL_HEIGHT + LEGEND_GAP_LABEL) * s;

    int span = x1 - 1 - x0;
    for (int px = x0; px < x1; px++) {
        float t = span > 0 ? (float)(px - x0) / (float)span : 0.0f;
        kd_image_fill_rect(img, px, y, 1, LEGEND_BAR * s, kd_ramp(t));
    }
    y += LEGEND_BAR * s;

    /* Ticks and values at lo, the middle and hi. The middle value is dropped
     * when the image is too narrow for it to stand clear of the ends. */
    double values[3] = {lo, 0.5 * ((double)lo + (double)hi), hi};
    int tick_x[3] = {x0, x0 + span / 2, x1 - 1};
    char text[3][32];
    int text_x[3];
    for (int k = 0; k < 3; k++) {
        kd_format_value(values[k], text[k], sizeof text[k]);
        int w = kd_font_text_width(text[k], s);
        text_x[k] = k == 0 ? x0 : (k == 1 ? tick_x[1] - w / 2 : x1 - w);
    }
    int gap = KD_FONT_ADVANCE * s;
    bool show_mid = text_x[1] >= text_x[0] + kd_font_text_width(text[0], s) + gap &&
                    text_x[1] + kd_font_text_width(text[1], s) + gap <= text_x[2];
    int number_y = y + (LEGEND_TICK + LEGEND_GAP_NUMBERS) * s;
    for (int k = 0; k < 3; k++) {
        if (k == 1 && !show_mid)
            continue;
        kd_image_fill_rect(img, tick_x[k] - (s - 1) / 2, y, s, LEGEND_TICK * s, ink);
        kd_font_draw(img, text_x[k], number_y, text[k], s, ink);
    }
}

kd_status kd_heatmap_with_legend(const float *values, int width, int height, float lo, float hi,
                                 const char *label, kd_image *out, kd_error *err)
{
    memset(out, 0, sizeof *out);
    if (width < 1 || height < 1 || width > KD_IMAGE_MAX_SIDE || height > KD_IMAGE_MAX_SIDE)
        return kd_error_set(err, KD_ERR_INVALID, "heat map size %dx%d out of range", width,
                            height);
    int legend = kd_heat_legend_height(width);
    kd_status st = kd_image_create(out, width, height + legend, err);
    if (st)
        return st;
    /* Paint the render into the top rows through a view of the same pixels. */
    kd_image top = {width, height, out->rgb};
    const kd_rgb background = {0, 0, 0};
    kd_colormap_heat(&top, values, lo, hi, background);
    draw_legend(out, height, lo, hi, label);
    return KD_OK;
}
