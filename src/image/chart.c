/* Line charts: series data, layout (log2 x, linear y) and drawing. */
#include "chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "font.h"

enum { CHART_TEXT_BYTES = 128, CHART_MAX_Y_TICKS = 24 };

typedef struct chart_series {
    char name[CHART_TEXT_BYTES];
    double *x, *y;
    int n;
} chart_series;

struct kd_chart {
    char title[CHART_TEXT_BYTES], x_label[CHART_TEXT_BYTES], y_label[CHART_TEXT_BYTES];
    int width, height;
    chart_series series[KD_CHART_MAX_SERIES];
    int num_series;
};

/* Everything about where things go, computed from the data and the size
 * alone so that rendering and kd_chart_data_to_pixel always agree. */
typedef struct chart_layout {
    int s;                        /* text scale */
    int left, top, right, bottom; /* plot frame, inclusive pixel coordinates */
    int pad;                      /* gap between the frame and the first/last power of two */
    int e_lo, e_hi;               /* x axis spans 2^e_lo .. 2^e_hi */
    int label_stride;             /* x ticks labelled at exponents divisible by this */
    double y_lo, y_step;          /* y axis: y_lo + k * y_step for k = 0..num_y_ticks-1 */
    int num_y_ticks;
    int legend_x, legend_y, legend_w, legend_row_h;
} chart_layout;

static const kd_rgb palette[KD_CHART_NUM_COLOURS] = {
    {31, 100, 180}, {230, 120, 20}, {40, 150, 60},   {200, 40, 40},  {130, 80, 180},
    {140, 90, 60},  {220, 90, 170}, {100, 100, 100}, {170, 170, 30}, {20, 170, 190},
};
static const kd_rgb white = {255, 255, 255}, ink = {30, 30, 30}, frame_ink = {90, 90, 90},
                    grid_ink = {228, 228, 228}, legend_border = {200, 200, 200};

kd_rgb kd_chart_series_colour(int index)
{
    return palette[(index % KD_CHART_NUM_COLOURS + KD_CHART_NUM_COLOURS) % KD_CHART_NUM_COLOURS];
}

typedef enum marker_shape {
    MARK_CIRCLE,
    MARK_SQUARE,
    MARK_TRIANGLE,
    MARK_DIAMOND,
    MARK_DOWN,
    NUM_MARKS
} marker_shape;

/* The shape changes on a different cycle from the colour, so series beyond
 * the palette still differ from the ones that share their colour. */
static marker_shape series_marker(int index)
{
    return (marker_shape)((index + index / KD_CHART_NUM_COLOURS) % NUM_MARKS);
}

static void copy_text(char *dst, const char *src)
{
    snprintf(dst, CHART_TEXT_BYTES, "%s", src ? src : "");
}

kd_status kd_chart_create(kd_chart **chart, const char *title, const char *x_label,
                          const char *y_label, kd_error *err)
{
    *chart = calloc(1, sizeof **chart);
    if (!*chart)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a chart");
    copy_text((*chart)->title, title);
    copy_text((*chart)->x_label, x_label);
    copy_text((*chart)->y_label, y_label);
    (*chart)->width = KD_CHART_DEFAULT_WIDTH;
    (*chart)->height = KD_CHART_DEFAULT_HEIGHT;
    return KD_OK;
}

void kd_chart_free(kd_chart *chart)
{
    if (!chart)
        return;
    for (int i = 0; i < chart->num_series; i++) {
        free(chart->series[i].x);
        free(chart->series[i].y);
    }
    free(chart);
}

kd_status kd_chart_set_size(kd_chart *chart, int width, int height, kd_error *err)
{
    if (width < KD_CHART_MIN_SIDE || height < KD_CHART_MIN_SIDE || width > KD_IMAGE_MAX_SIDE ||
        height > KD_IMAGE_MAX_SIDE)
        return kd_error_set(err, KD_ERR_INVALID, "chart size %dx%d out of range (%d..%d per side)",
                            width, height, (int)KD_CHART_MIN_SIDE, (int)KD_IMAGE_MAX_SIDE);
    chart->width = width;
    chart->height = height;
    return KD_OK;
}

kd_status kd_chart_add_series(kd_chart *chart, const char *name, const double *x,
                              const double *y, int n, kd_error *err)
{
    if (chart->num_series >= KD_CHART_MAX_SERIES)
        return kd_error_set(err, KD_ERR_INVALID, "chart holds at most %d series",
                            (int)KD_CHART_MAX_SERIES);
    if (n < 0 || (n > 0 && (!x || !y)))
        return kd_error_set(err, KD_ERR_INVALID, "series '%s': bad point count %d",
                            name ? name : "", n);
    chart_series *s = &chart->series[chart->num_series];
    memset(s, 0, sizeof *s);
    if (n > 0) {
        s->x = malloc((size_t)n * sizeof *s->x);
        s->y = malloc((size_t)n * sizeof *s->y);
        if (!s->x || !s->y) {
            free(s->x);
            free(s->y);
            s->x = s->y = NULL;
            return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a chart series");
        }
        memcpy(s->x, x, (size_t)n * sizeof *x);
        memcpy(s->y, y, (size_t)n * sizeof *y);
    }
    s->n = n;
    copy_text(s->name, name);
    chart->num_series++;
    return KD_OK;
}

/* ---- Layout ------------------------------------------------------------------- */

static bool plottable(double x, double y)
{
    return isfinite(x) && x > 0.0 && isfinite(y);
}

/* A round step (1, 2, 2.5 or 5 times a power of ten) at or above raw. */
static double nice_step(double raw)
{
    double p = pow(10.0, floor(log10(raw)));
    double m = raw / p;
    double nice = m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 2.5 ? 2.5 : m <= 5.0 ? 5.0 : 10.0;
    return nice * p;
}

static void y_tick_text(const chart_layout *L, int k, char *text, size_t bytes)
{
    double v = L->y_lo + (double)k * L->y_step;
    if (fabs(v) < 1e-9 * L->y_step)
        v = 0.0; /* print 0, never -0 or 1e-17 */
    kd_format_value(v, text, bytes);
}

static void x_tick_text(int e, char *text, size_t bytes)
{
    snprintf(text, bytes, "2^%d", e);
}

/* The data's ranges over every plottable point; false when there is none. */
static bool data_ranges(const kd_chart *chart, double *x_min, double *x_max, double *y_min, double *y_max)
{
    bool any = false;
    for (int i = 0; i < chart->num_series; i++) {
        const chart_series *s = &chart->series[i];
        for (int j = 0; j < s->n; j++) {
            if (!plottable(s->x[j], s->y[j]))
                continue;
            double x = s->x[j], y = s->y[j];
            *x_min = (!any || x < *x_min) ? x : *x_min;
            *x_max = (!any || x > *x_max) ? x : *x_max;
            *y_min = (!any || y < *y_min) ? y : *y_min;
            *y_max = (!any || y > *y_max) ? y : *y_max;
            any = true;
        }
    }
    return any;
}

/* The axes' spans: x over whole powers of two around the data (a little
 * slack so that exact powers of two do not round outward), y from 0 (or
 * below, for negative data) to a round number. */
static void set_axes(chart_layout *L, double x_min, double x_max, double y_min, double y_max)
{
    L->e_lo = (int)floor(log2(x_min) + 1e-9);
    L->e_hi = (int)ceil(log2(x_max) - 1e-9);
    if (L->e_hi <= L->e_lo) {
        L->e_lo--;
        L->e_hi++;
    }
    double lo = y_min < 0.0 ? y_min : 0.0, hi = y_max > 0.0 ? y_max : 0.0;
    if (!(hi > lo))
        hi = lo + 1.0;
    L->y_step = nice_step((hi - lo) / 5.0);
    L->y_lo = floor(lo / L->y_step + 1e-9) * L->y_step;
    int num_steps = (int)ceil((hi - L->y_lo) / L->y_step - 1e-9);
    L->num_y_ticks = (num_steps < 1 ? 1 : num_steps) + 1;
}

/* The plot's margins and the legend's place, from the sizes of the texts
 * around the plot. */
static kd_status set_margins(const kd_chart *chart, chart_layout *L, kd_error *err)
{
    int W = chart->width, H = chart->height;
    int s = (W >= 800 && H >= 480) ? 2 : 1;
    L->s = s;
    int margin = 8 * s, tick = 4 * s, text_h = kd_font_text_height(s);
    int y_text_w = 0;
    char text[64];
    for (int k = 0; k < L->num_y_ticks; k++) {
        y_tick_text(L, k, text, sizeof text);
        int w = kd_font_text_width(text, s);
        y_text_w = w > y_text_w ? w : y_text_w;
    }
    int name_w = 0;
    for (int i = 0; i < chart->num_series; i++) {
        int w = kd_font_text_width(chart->series[i].name, s);
        name_w = w > name_w ? w : name_w;
    }
    L->legend_row_h = 13 * s;
    L->legend_w = 6 * s + 24 * s + 5 * s + name_w + 6 * s;
    L->legend_x = W - margin - L->legend_w;

    L->left = margin + (chart->y_label[0] ? text_h + 6 * s : 0) + y_text_w + 3 * s + tick;
    L->right = L->legend_x - 12 * s;
    L->top = margin + (chart->title[0] ? kd_font_text_height(s + 1) + 6 * s : 0) + text_h / 2;
    L->bottom = H - 1 - margin - (chart->x_label[0] ? text_h + 5 * s : 0) - text_h - 3 * s - tick;
    L->legend_y = L->top;
    L->pad = 10 * s;
    if (L->right - L->left < 2 * L->pad + 40 || L->bottom - L->top < 40)
        return kd_error_set(err, KD_ERR_INVALID, "chart '%s': %dx%d is too small for its labels and legend",
                            chart->title, W, H);
    return KD_OK;
}

/* Thins the x labels (keeping powers aligned) until they stand apart. */
static void thin_x_labels(chart_layout *L)
{
    char text[64];
    x_tick_text(L->e_hi, text, sizeof text);
    int x_text_w = kd_font_text_width(text, L->s);
    x_tick_text(L->e_lo, text, sizeof text);
    if (kd_font_text_width(text, L->s) > x_text_w)
        x_text_w = kd_font_text_width(text, L->s);
    double per_exponent = (double)(L->right - L->left - 2 * L->pad) / (L->e_hi - L->e_lo);
    L->label_stride = 1;
    while (L->label_stride * per_exponent < x_text_w + KD_FONT_ADVANCE * L->s * 2 && L->label_stride < 64)
        L->label_stride *= 2;
}

static kd_status compute_layout(const kd_chart *chart, chart_layout *L, kd_error *err)
{
    memset(L, 0, sizeof *L);
    double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
    if (!data_ranges(chart, &x_min, &x_max, &y_min, &y_max))
        return kd_error_set(err, KD_ERR_INVALID, "chart '%s' has no point to plot", chart->title);
    set_axes(L, x_min, x_max, y_min, y_max);
    kd_status st = set_margins(chart, L, err);
    if (st)
        return st;
    thin_x_labels(L);
    return KD_OK;
}

static double map_x(const chart_layout *L, double x)
{
    double f = (log2(x) - L->e_lo) / (double)(L->e_hi - L->e_lo);
    return L->left + 0.5 + L->pad + f * (double)(L->right - L->left - 2 * L->pad);
}

static double map_y(const chart_layout *L, double y)
{
    double y_hi = L->y_lo + (L->num_y_ticks - 1) * L->y_step;
    double f = (y - L->y_lo) / (y_hi - L->y_lo);
    return L->bottom + 0.5 - f * (double)(L->bottom - L->top);
}

kd_status kd_chart_data_to_pixel(const kd_chart *chart, double x, double y, double *px,
                                 double *py, kd_error *err)
{
    if (!(x > 0.0) || !isfinite(x) || !isfinite(y))
        return kd_error_set(err, KD_ERR_INVALID, "point (%g, %g) cannot be plotted", x, y);
    chart_layout L;
    kd_status st = compute_layout(chart, &L, err);
    if (st)
        return st;
    *px = map_x(&L, x);
    *py = map_y(&L, y);
    return KD_OK;
}

/* ---- Anti-aliased drawing ---------------------------------------------------- */

/* A thick segment as a capsule; each pixel's coverage comes from the
 * distance of its centre to the segment. */
static void draw_segment(kd_image *img, double ax, double ay, double bx, double by,
                         double half_width, kd_rgb c)
{
    double reach = half_width + 1.0;
    int x0 = (int)floor(fmin(ax, bx) - reach), x1 = (int)ceil(fmax(ax, bx) + reach);
    int y0 = (int)floor(fmin(ay, by) - reach), y1 = (int)ceil(fmax(ay, by) + reach);
    double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    for (int py = y0; py <= y1; py++) {
        for (int px = x0; px <= x1; px++) {
            double cx = px + 0.5 - ax, cy = py + 0.5 - ay;
            double t = len2 > 0.0 ? (cx * dx + cy * dy) / len2 : 0.0;
            t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
            double ex = cx - t * dx, ey = cy - t * dy;
            double coverage = half_width + 0.5 - sqrt(ex * ex + ey * ey);
            if (coverage > 0.0)
                kd_image_blend(img, px, py, c, (float)(coverage > 1.0 ? 1.0 : coverage));
        }
    }
}

static bool inside_marker(marker_shape shape, double dx, double dy, double r)
{
    switch (shape) {
    case MARK_CIRCLE:
        return dx * dx + dy * dy <= r * r;
    case MARK_SQUARE:
        return fabs(dx) <= 0.85 * r && fabs(dy) <= 0.85 * r;
    case MARK_DIAMOND:
        return fabs(dx) + fabs(dy) <= 1.2 * r;
    case MARK_TRIANGLE:
        /* Apex at (0, -1.2r), base at y = +0.75r. */
        return dy <= 0.75 * r && fabs(dx) <= (dy + 1.2 * r) * 0.65;
    case MARK_DOWN: /* the same triangle, mirrored */
        return -dy <= 0.75 * r && fabs(dx) <= (-dy + 1.2 * r) * 0.65;
    default:
        return false;
    }
}

/* Filled marker; coverage from 4x4 samples per pixel. */
static void draw_marker(kd_image *img, double cx, double cy, double r, marker_shape shape,
                        kd_rgb c)
{
    int x0 = (int)floor(cx - 1.5 * r), x1 = (int)ceil(cx + 1.5 * r);
    int y0 = (int)floor(cy - 1.5 * r), y1 = (int)ceil(cy + 1.5 * r);
    for (int py = y0; py <= y1; py++) {
        for (int px = x0; px <= x1; px++) {
            int hits = 0;
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++)
                    hits += inside_marker(shape, px + (sx + 0.5) / 4.0 - cx,
                                          py + (sy + 0.5) / 4.0 - cy, r);
            if (hits)
                kd_image_blend(img, px, py, c, (float)hits / 16.0f);
        }
    }
}

/* A marker with a white rim, so it stands out where lines cross. */
static void draw_point(kd_image *img, const chart_layout *L, double px, double py, int index)
{
    double r = 3.0 * L->s + 0.5;
    draw_marker(img, px, py, r + L->s, series_marker(index), white);
    draw_marker(img, px, py, r, series_marker(index), kd_chart_series_colour(index));
}

/* ---- Rendering ------------------------------------------------------------------ */

static void draw_axes(kd_image *img, const kd_chart *chart, const chart_layout *L)
{
    int s = L->s, tick = 4 * s, text_h = kd_font_text_height(s);
    char text[64];
    /* Grid: a vertical line at every power of two, a horizontal one per y tick. */
    for (int e = L->e_lo; e <= L->e_hi; e++)
        kd_image_fill_rect(img, (int)map_x(L, exp2(e)), L->top, 1, L->bottom - L->top, grid_ink);
    for (int k = 0; k < L->num_y_ticks; k++) {
        int y = (int)map_y(L, L->y_lo + k * L->y_step);
        kd_image_fill_rect(img, L->left, y, L->right - L->left, 1, grid_ink);
        kd_image_fill_rect(img, L->left - tick, y, tick, 1, frame_ink);
        y_tick_text(L, k, text, sizeof text);
        kd_font_draw(img, L->left - tick - 3 * s - kd_font_text_width(text, s),
                     y - kd_font_text_height(s) / 2 + s, text, s, ink);
    }
    for (int e = L->e_lo; e <= L->e_hi; e++) {
        int x = (int)map_x(L, exp2(e));
        bool labelled = ((e % L->label_stride) + L->label_stride) % L->label_stride == 0;
        kd_image_fill_rect(img, x, L->bottom + 1, 1, labelled ? tick : tick / 2, frame_ink);
        if (!labelled)
            continue;
        x_tick_text(e, text, sizeof text);
        kd_font_draw(img, x - kd_font_text_width(text, s) / 2, L->bottom + 1 + tick + 3 * s, text,
                     s, ink);
    }
    /* Frame. */
    kd_image_fill_rect(img, L->left, L->top, L->right - L->left + 1, 1, frame_ink);
    kd_image_fill_rect(img, L->left, L->bottom, L->right - L->left + 1, 1, frame_ink);
    kd_image_fill_rect(img, L->left, L->top, 1, L->bottom - L->top + 1, frame_ink);
    kd_image_fill_rect(img, L->right, L->top, 1, L->bottom - L->top + 1, frame_ink);

    /* Title centred over the plot, axis labels centred on their axes. */
    int plot_mid_x = (L->left + L->right) / 2, plot_mid_y = (L->top + L->bottom) / 2;
    if (chart->title[0]) {
        int w = kd_font_text_width(chart->title, s + 1);
        int x = plot_mid_x - w / 2;
        kd_font_draw(img, x < 8 * s ? 8 * s : x, 8 * s, chart->title, s + 1, ink);
    }
    if (chart->x_label[0])
        kd_font_draw(img, plot_mid_x - kd_font_text_width(chart->x_label, s) / 2,
                     L->bottom + 1 + tick + 3 * s + text_h + 5 * s, chart->x_label, s, ink);
    if (chart->y_label[0]) {
        int h = kd_font_text_width(chart->y_label, s);
        int y = plot_mid_y - h / 2;
        kd_font_draw_vertical(img, 8 * s, y < 0 ? 0 : y, chart->y_label, s, ink);
    }
}

static void draw_series(kd_image *img, const kd_chart *chart, const chart_layout *L)
{
    double half_width = 0.6 * L->s + 0.2;
    /* All lines first, then all markers, so no line crosses a marker. */
    for (int i = 0; i < chart->num_series; i++) {
        const chart_series *s = &chart->series[i];
        for (int j = 1; j < s->n; j++) {
            if (!plottable(s->x[j - 1], s->y[j - 1]) || !plottable(s->x[j], s->y[j]))
                continue; /* a missing point breaks the line */
            draw_segment(img, map_x(L, s->x[j - 1]), map_y(L, s->y[j - 1]), map_x(L, s->x[j]),
                         map_y(L, s->y[j]), half_width, kd_chart_series_colour(i));
        }
    }
    for (int i = 0; i < chart->num_series; i++) {
        const chart_series *s = &chart->series[i];
        for (int j = 0; j < s->n; j++)
            if (plottable(s->x[j], s->y[j]))
                draw_point(img, L, map_x(L, s->x[j]), map_y(L, s->y[j]), i);
    }
}

static void draw_legend(kd_image *img, const kd_chart *chart, const chart_layout *L)
{
    int s = L->s;
    int h = chart->num_series * L->legend_row_h + 6 * s;
    kd_image_fill_rect(img, L->legend_x, L->legend_y, L->legend_w, h, legend_border);
    kd_image_fill_rect(img, L->legend_x + 1, L->legend_y + 1, L->legend_w - 2, h - 2, white);
    for (int i = 0; i < chart->num_series; i++) {
        int row_y = L->legend_y + 3 * s + i * L->legend_row_h;
        double mid_y = row_y + L->legend_row_h / 2.0;
        double x0 = L->legend_x + 6 * s, x1 = x0 + 24 * s;
        draw_segment(img, x0, mid_y, x1, mid_y, 0.6 * s + 0.2, kd_chart_series_colour(i));
        draw_point(img, L, (x0 + x1) / 2.0, mid_y, i);
        kd_font_draw(img, (int)x1 + 5 * s, (int)mid_y - KD_FONT_CAP_HEIGHT * s / 2,
                     chart->series[i].name, s, ink);
    }
}

kd_status kd_chart_render(const kd_chart *chart, kd_image *out, kd_error *err)
{
    memset(out, 0, sizeof *out);
    chart_layout L;
    kd_status st = compute_layout(chart, &L, err);
    if (st)
        return st;
    st = kd_image_create(out, chart->width, chart->height, err);
    if (st)
        return st;
    kd_image_fill(out, white);
    draw_axes(out, chart, &L);
    draw_series(out, chart, &L);
    draw_legend(out, chart, &L);
    return KD_OK;
}

kd_status kd_chart_write_png(const kd_chart *chart, const char *path, kd_error *err)
{
    kd_image img;
    kd_status st = kd_chart_render(chart, &img, err);
    if (st)
        return st;
    st = kd_image_write_png(&img, path, err);
    kd_image_free(&img);
    return st;
}
