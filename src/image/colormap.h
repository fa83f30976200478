/* Colour maps from the ray casters' per-pixel float buffers to images.
 *
 * Every buffer holds img->width * img->height floats, row-major with row 0
 * at the top, like the image. A pixel whose ray hit nothing is marked by a
 * non-finite value (inf or NaN) in the depth buffer and by a negative or
 * NaN value (KD_SHADE_MISS) in the shading buffer; misses are painted in
 * the background colour. */
#ifndef KD_COLORMAP_H
#define KD_COLORMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Shading value for a ray that hit nothing. */
#define KD_SHADE_MISS (-1.0f)

/* ---- The perceptual ramp ---------------------------------------------------- */
/* scankd's own ramp from dark indigo (t = 0) through magenta and orange to
 * pale yellow (t = 1), with lightness rising steadily so order reads at a
 * glance and in greyscale. t is clamped to [0,1]; NaN gives t = 0.
 * Nine evenly spaced control points, linearly interpolated. */
kd_rgb kd_ramp(float t);
enum { KD_RAMP_NUM_POINTS = 9 };
/* Control point i (0..KD_RAMP_NUM_POINTS-1), i.e. kd_ramp(i / 8.0). */
kd_rgb kd_ramp_point(int i);

/* ---- Shaded ----------------------------------------------------------------- */
/* Each channel = round(tint * clamp(shade, 0, 1)): shade 0 is black, 1 is
 * the tint (white for a grey eye-light image). Misses: background. */
void kd_colormap_shaded(kd_image *img, const float *shade, kd_rgb tint, kd_rgb background);

/* ---- Depth ------------------------------------------------------------------ */
typedef enum kd_depth_style {
    KD_DEPTH_GREY, /* near white (255) to far black (0) */
    KD_DEPTH_RAMP  /* near = ramp top (pale yellow) to far = ramp bottom (indigo) */
} kd_depth_style;

/* Smallest and largest finite depth in depth[0..n). Returns false (and
 * leaves near/far untouched) when no value is finite, i.e. every ray missed.
 * When all hits are at one depth, far is widened so that far > near. */
bool kd_depth_range(const float *depth, size_t n, float *near_depth, float *far_depth);

/* Normalises t = (depth - near) / (far - near), clamped to [0,1], and paints
 * it in style; non-finite depths (misses) get background. near must be
 * finite and less than far (KD_ERR_INVALID otherwise). */
kd_status kd_colormap_depth(kd_image *img, const float *depth, float near_depth, float far_depth,
                            kd_depth_style style, kd_rgb background, kd_error *err);

/* ---- Heat map --------------------------------------------------------------- */
/* Smallest and largest finite value in values[0..n) (counts of traversal
 * steps or triangle tests). Returns false when none is finite. */
bool kd_value_range(const float *values, size_t n, float *lo, float *hi);

/* Paints kd_ramp((v - lo) / (hi - lo)) per pixel; values at or below lo get
 * the ramp's bottom, at or above hi its top. When hi <= lo every value
 * above lo gets the top. NaN values get background. */
void kd_colormap_heat(kd_image *img, const float *values, float lo, float hi, kd_rgb background);

/* The range a heat map of counts spans: lo 0 and hi the percentile-th
 * percentile of the finite values (nearest rank), so that a few extreme
 * pixels do not squeeze every other one into the ramp's bottom; values above
 * hi share its colour. hi is the largest value where the percentile is 0,
 * and 1 where every value is. */
typedef struct kd_heat_scale {
    float lo, hi;
    float max;          /* the largest finite value (0 when none) */
    bool clipped;       /* hi < max */
    int percentile;
} kd_heat_scale;

/* The heat maps' percentile: the worst 1% of pixels saturate. */
enum { KD_HEAT_PERCENTILE = 99 };

/* Computes the scale of values[0..n) (percentile in 1..100; 100 is the
 * largest value). Needs a copy of the values: KD_ERR_NOMEM without it. */
kd_status kd_heat_scale_of(const float *values, size_t n, int percentile, kd_heat_scale *scale,
                           kd_error *err);

/* Builds a new image out = heat map of values (width x height, painted as
 * kd_colormap_heat over scale's [lo, hi]) with a legend (legend.h) drawn over
 * its bottom rows where it fits: title (short_title on narrow images; NULL:
 * none), the ramp, the values at its ends, "hi+" and the percentile when
 * clipped. out is exactly width x height; it must be zeroed or freed and is
 * left zeroed on failure. */
kd_status kd_heatmap_with_legend(const float *values, int width, int height, const kd_heat_scale *scale,
                                 const char *title, const char *short_title, kd_image *out, kd_error *err);

/* Formats a legend or axis value compactly: integers as integers ("1234"),
 * large values with a k/M/G suffix ("12.5M"), others with 3 significant
 * digits ("0.125"). Writes at most bytes - 1 characters. */
void kd_format_value(double value, char *text, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
