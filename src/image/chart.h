/* Line charts as PNG images, for the profiler's bandwidth sweeps.
 *
 * x is drawn on a log2 scale with a tick and grid line at every power of
 * two ("2^10" ... "2^28"; labels thinned when they would collide), y on a
 * linear scale from min(0, smallest y) to a round number at or above the
 * largest y. Each series gets its own colour and marker shape, a line
 * joining its points in the order given, and an entry in the legend to the
 * right of the plot. A point whose x is not a positive finite number or
 * whose y is not finite (use NAN for a size that was not measured) is not
 * drawn and breaks the line there.
 *
 *     kd_chart *chart = NULL;
 *     if (kd_chart_create(&chart, "reduce (min, float)", "elements", "GB/s", &err) == KD_OK &&
 *         kd_chart_add_series(chart, "Reduce0", sizes, gbps0, num_sizes, &err) == KD_OK &&
 *         kd_chart_add_series(chart, "CUB", sizes, gbps_cub, num_sizes, &err) == KD_OK)
 *         kd_chart_write_png(chart, "out/reduce.png", &err);
 *     kd_chart_free(chart);
 *
 * Titles, labels and names are printed with the built-in ASCII font
 * (font.h); other bytes are drawn as '?'. */
#ifndef KD_CHART_H
#define KD_CHART_H

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_chart kd_chart;

enum {
    KD_CHART_DEFAULT_WIDTH = 1024,
    KD_CHART_DEFAULT_HEIGHT = 640,
    KD_CHART_MIN_SIDE = 200,
    KD_CHART_MAX_SERIES = 64,
    KD_CHART_NUM_COLOURS = 10
};

/* A new empty chart of the default size. Strings are copied (each cut to
 * 127 bytes); any may be NULL for none. *chart is NULL on failure. */
kd_status kd_chart_create(kd_chart **chart, const char *title, const char *x_label,
                          const char *y_label, kd_error *err);
/* Frees the chart; safe on NULL. */
void kd_chart_free(kd_chart *chart);

/* Image size in pixels, each side in [KD_CHART_MIN_SIDE, KD_IMAGE_MAX_SIDE]. */
kd_status kd_chart_set_size(kd_chart *chart, int width, int height, kd_error *err);

/* Adds a series of n points (x[i], y[i]); the arrays are copied. n may be 0
 * (a legend entry with no line). At most KD_CHART_MAX_SERIES series. */
kd_status kd_chart_add_series(kd_chart *chart, const char *name, const double *x,
                              const double *y, int n, kd_error *err);

/* Draws the chart into a new image (which must be zeroed or freed; left
 * zeroed on failure). Fails with KD_ERR_INVALID when no series has a
 * plottable point. */
kd_status kd_chart_render(const kd_chart *chart, kd_image *out, kd_error *err);
/* Renders and writes a PNG atomically (see kd_image_write_png). */
kd_status kd_chart_write_png(const kd_chart *chart, const char *path, kd_error *err);

/* Where the data point (x, y) lands in the rendered image, in pixel
 * coordinates (pixel (i, j) covers [i, i+1) x [j, j+1)). Same errors as
 * kd_chart_render; x must be positive. Lets tests and callers annotate. */
kd_status kd_chart_data_to_pixel(const kd_chart *chart, double x, double y, double *px,
                                 double *py, kd_error *err);

/* The line colour of series number index (0-based), cycling through
 * KD_CHART_NUM_COLOURS colours. */
kd_rgb kd_chart_series_colour(int index);

#ifdef __cplusplus
}
#endif
#endif
