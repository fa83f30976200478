/* RGB images and the colour maps scankd draws with, written as PNG or JPEG
 * through stb_image_write (to a temporary name, renamed into place when
 * complete).
 *
 * Pixels are 8-bit sRGB, 3 bytes each, rows top to bottom. Library calls
 * never print or exit: they return a kd_status and fill a kd_error.
 * Colour maps live in colormap.h, text in font.h, line charts in chart.h. */
#ifndef KD_IMAGE_H
#define KD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_image {
    int width, height;
    uint8_t *rgb;            /* width * height * 3 bytes, row 0 at the top */
} kd_image;

typedef struct kd_rgb {
    uint8_t r, g, b;
} kd_rgb;

/* Largest width or height accepted (keeps every byte count well inside int,
 * which stb's stride argument is). */
enum { KD_IMAGE_MAX_SIDE = 16384 };

/* Allocates a width x height image filled with black. Sides must be in
 * [1, KD_IMAGE_MAX_SIDE]. On failure img is left zeroed. */
kd_status kd_image_create(kd_image *img, int width, int height, kd_error *err);
/* Frees the pixels and zeroes the struct; safe on a zeroed image. */
void kd_image_free(kd_image *img);

/* Pixel access; coordinates outside the image are ignored (set, blend) or
 * return black (get), so drawing code can clip by simply drawing. */
void kd_image_set(kd_image *img, int x, int y, uint8_t r, uint8_t g, uint8_t b);
void kd_image_set_rgb(kd_image *img, int x, int y, kd_rgb c);
kd_rgb kd_image_get(const kd_image *img, int x, int y);
/* Mixes c over the pixel with weight alpha in [0,1] (clamped): used for
 * anti-aliased lines and markers. */
void kd_image_blend(kd_image *img, int x, int y, kd_rgb c, float alpha);
void kd_image_fill(kd_image *img, kd_rgb c);
/* Fills the rectangle [x, x+w) x [y, y+h), clipped to the image. */
void kd_image_fill_rect(kd_image *img, int x, int y, int w, int h, kd_rgb c);

/* Image files are written atomically through kd_outfile (kd_file.h):
 * under a temporary name renamed over path when complete, missing folders
 * created, "-" for stdout; on any failure neither path nor the temporary
 * file remains. */
typedef enum kd_image_format { KD_IMAGE_PNG, KD_IMAGE_JPEG, KD_IMAGE_FORMAT_UNKNOWN } kd_image_format;

/* JPEG quality (1..100): high, since the images are for reading details. */
enum { KD_IMAGE_JPEG_QUALITY = 95 };

/* The format a file name asks for: .png, no extension at all, and "-"
 * (stdout) PNG; .jpg or .jpeg JPEG (in any case); any other extension
 * unknown. */
kd_image_format kd_image_format_of(const char *path);
/* The extension of path's last part, from its dot; "" when it has none. */
const char *kd_image_extension(const char *path);
/* Writes img in the format its name asks for; an unknown one is
 * KD_ERR_INVALID, so that no file carries bytes its name belies. */
kd_status kd_image_write(const kd_image *img, const char *path, kd_error *err);
/* Writes img as PNG whatever the name. */
kd_status kd_image_write_png(const kd_image *img, const char *path, kd_error *err);
/* Reads a PNG of any channel count or bit depth, converted to 8-bit RGB.
 * img must be zeroed or freed; it is left zeroed on failure. */
kd_status kd_image_read_png(kd_image *img, const char *path, kd_error *err);

/* ---- Mismatch overlay --------------------------------------------------- */
/* Paints every pixel whose mask byte is nonzero pure red (255, 0, 0); mask
 * holds width * height bytes, row-major like the image. Returns the number
 * of pixels painted. */
size_t kd_image_overlay_mask(kd_image *img, const uint8_t *mask);

/* ---- Comparison for regression checks ----------------------------------- */
/* Compares a with b channel by channel (differences in 0..255 units):
 *   mean_abs_diff  = sum of |a - b| over every channel of every pixel,
 *                    divided by width * height * 3;
 *   max_diff       = the largest |a - b| of any single channel;
 *   fraction_over  = the fraction of pixels (0..1) having at least one
 *                    channel with |a - b| > k.
 * Identical images give 0, 0, 0. Any of the output pointers may be NULL.
 * Images of different sizes are an error (KD_ERR_INVALID), as is k < 0. */
kd_status kd_image_compare(const kd_image *a, const kd_image *b, int k, double *mean_abs_diff,
                           int *max_diff, double *fraction_over, kd_error *err);
/* Same rule as fraction_over, per pixel: mask[i] = 1 where pixel i differs
 * by more than k in some channel, else 0 (mask holds width * height bytes,
 * ready for kd_image_overlay_mask). *num_marked (may be NULL) receives the
 * number of pixels marked. Same errors as kd_image_compare. */
kd_status kd_image_diff_mask(const kd_image *a, const kd_image *b, int k, uint8_t *mask,
                             size_t *num_marked, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
