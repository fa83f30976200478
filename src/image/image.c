/* RGB images: allocation, pixel access, PNG files and comparison. */
#include "image.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include "kd_file.h"

kd_status kd_image_create(kd_image *img, int width, int height, kd_error *err)
{
    memset(img, 0, sizeof *img);
    if (width < 1 || height < 1 || width > KD_IMAGE_MAX_SIDE || height > KD_IMAGE_MAX_SIDE)
        return kd_error_set(err, KD_ERR_INVALID, "image size %dx%d out of range (1..%d per side)",
                            width, height, (int)KD_IMAGE_MAX_SIDE);
    img->rgb = calloc((size_t)width * (size_t)height, 3);
    if (!img->rgb)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a %dx%d image", width, height);
    img->width = width;
    img->height = height;
    return KD_OK;
}

void kd_image_free(kd_image *img)
{
    if (!img)
        return;
    free(img->rgb);
    memset(img, 0, sizeof *img);
}

static bool inside(const kd_image *img, int x, int y)
{
    return x >= 0 && y >= 0 && x < img->width && y < img->height;
}

void kd_image_set(kd_image *img, int x, int y, uint8_t r, uint8_t g, uint8_t b)
{
    if (!inside(img, x, y))
        return;
    uint8_t *p = img->rgb + ((size_t)y * (size_t)img->width + (size_t)x) * 3;
    p[0] = r;
    p[1] = g;
    p[2] = b;
}

void kd_image_set_rgb(kd_image *img, int x, int y, kd_rgb c)
{
    kd_image_set(img, x, y, c.r, c.g, c.b);
}

kd_rgb kd_image_get(const kd_image *img, int x, int y)
{
    kd_rgb c = {0, 0, 0};
    if (!inside(img, x, y))
        return c;
    const uint8_t *p = img->rgb + ((size_t)y * (size_t)img->width + (size_t)x) * 3;
    c.r = p[0];
    c.g = p[1];
    c.b = p[2];
    return c;
}

static uint8_t mix(uint8_t under, uint8_t over, float alpha)
{
    return (uint8_t)((float)under + ((float)over - (float)under) * alpha + 0.5f);
}

void kd_image_blend(kd_image *img, int x, int y, kd_rgb c, float alpha)
{
    if (!inside(img, x, y) || !(alpha > 0.0f))
        return;
    if (alpha > 1.0f)
        alpha = 1.0f;
    kd_rgb under = kd_image_get(img, x, y);
    kd_image_set(img, x, y, mix(under.r, c.r, alpha), mix(under.g, c.g, alpha),
                 mix(under.b, c.b, alpha));
}

void kd_image_fill(kd_image *img, kd_rgb c)
{
    kd_image_fill_rect(img, 0, 0, img->width, img->height, c);
}

void kd_image_fill_rect(kd_image *img, int x, int y, int w, int h, kd_rgb c)
{
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    /* Computed in long long so huge w or h cannot overflow. */
    long long x1 = (long long)x + w, y1 = (long long)y + h;
    if (x1 > img->width)
        x1 = img->width;
    if (y1 > img->height)
        y1 = img->height;
    for (int py = y0; py < y1; py++)
        for (int px = x0; px < x1; px++)
            kd_image_set_rgb(img, px, py, c);
}

/* ---- Image files ------------------------------------------------------------ */

/* stb's own file writer ignores short writes; this sink remembers them so a
 * full disk is reported instead of leaving a truncated file. */
typedef struct image_sink {
    FILE *file;
    bool failed;
    int error_number;
} image_sink;

static void image_sink_write(void *context, void *data, int size)
{
    image_sink *sink = context;
    if (sink->failed || size <= 0)
        return;
    if (fwrite(data, 1, (size_t)size, sink->file) != (size_t)size) {
        sink->failed = true;
        sink->error_number = errno;
    }
}

/* The extension of a file name's last part, from its dot ("" for none; a
 * leading dot, as in ".hidden", starts no extension). */
const char *kd_image_extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : base + strlen(base);
}

static bool same_ignoring_case(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    return *a == *b;
}

kd_image_format kd_image_format_of(const char *path)
{
    const char *ext = kd_image_extension(path);
    if (strcmp(path, "-") == 0 || ext[0] == '\0' || same_ignoring_case(ext, ".png"))
        return KD_IMAGE_PNG;
    if (same_ignoring_case(ext, ".jpg") || same_ignoring_case(ext, ".jpeg"))
        return KD_IMAGE_JPEG;
    return KD_IMAGE_FORMAT_UNKNOWN;
}

/* Encodes img into an opened output file in format. */
static kd_status encode(const kd_image *img, kd_image_format format, kd_outfile *out, kd_error *err)
{
    image_sink sink = {out->file, false, 0};
    int ok = format == KD_IMAGE_JPEG
                 ? stbi_write_jpg_to_func(image_sink_write, &sink, img->width, img->height, 3, img->rgb,
                                          KD_IMAGE_JPEG_QUALITY)
                 : stbi_write_png_to_func(image_sink_write, &sink, img->width, img->height, 3, img->rgb,
                                          img->width * 3);
    if (!ok || sink.failed) {
        kd_outfile_abort(out);
        if (!ok)
            return kd_error_set(err, KD_ERR_NOMEM, "%s: %s encoding failed", out->is_stdout ? "stdout" : out->path,
                                format == KD_IMAGE_JPEG ? "JPEG" : "PNG");
        return kd_error_set(err, KD_ERR_IO, "%s: write failed: %s", out->is_stdout ? "stdout" : out->path,
                            strerror(sink.error_number ? sink.error_number : EIO));
    }
    return kd_outfile_commit(out, err);
}

static kd_status write_image(const kd_image *img, const char *path, kd_image_format format, kd_error *err)
{
    if (!img || !img->rgb || img->width < 1 || img->height < 1)
        return kd_error_set(err, KD_ERR_INVALID, "%s: no image to write", path);
    kd_outfile out;
    KD_TRY(kd_outfile_open(&out, path, err));
    return encode(img, format, &out, err);
}

kd_status kd_image_write_png(const kd_image *img, const char *path, kd_error *err)
{
    return write_image(img, path, KD_IMAGE_PNG, err);
}

kd_status kd_image_write(const kd_image *img, const char *path, kd_error *err)
{
    const kd_image_format format = kd_image_format_of(path);
    if (format == KD_IMAGE_FORMAT_UNKNOWN)
        return kd_error_set(err, KD_ERR_INVALID, "%s: scankd writes .png or .jpg images, not %s", path,
                            kd_image_extension(path));
    return write_image(img, path, format, err);
}

kd_status kd_image_read_png(kd_image *img, const char *path, kd_error *err)
{
    memset(img, 0, sizeof *img);
    FILE *file = fopen(path, "rb");
    if (!file)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    int width = 0, height = 0, channels = 0;
    stbi_uc *pixels = stbi_load_from_file(file, &width, &height, &channels, 3);
    fclose(file);
    if (!pixels)
        return kd_error_set(err, KD_ERR_PARSE, "%s: not a readable PNG (%s)", path,
                            stbi_failure_reason());
    if (width > KD_IMAGE_MAX_SIDE || height > KD_IMAGE_MAX_SIDE) {
        stbi_image_free(pixels);
        return kd_error_set(err, KD_ERR_INVALID, "%s: %dx%d is larger than %d per side", path,
                            width, height, (int)KD_IMAGE_MAX_SIDE);
    }
    kd_status st = kd_image_create(img, width, height, err);
    if (st == KD_OK)
        memcpy(img->rgb, pixels, (size_t)width * (size_t)height * 3);
    stbi_image_free(pixels);
    return st;
}

/* ---- Overlay and comparison ------------------------------------------------ */

size_t kd_image_overlay_mask(kd_image *img, const uint8_t *mask)
{
    size_t num_pixels = (size_t)img->width * (size_t)img->height, painted = 0;
    for (size_t i = 0; i < num_pixels; i++) {
        if (!mask[i])
            continue;
        img->rgb[3 * i + 0] = 255;
        img->rgb[3 * i + 1] = 0;
        img->rgb[3 * i + 2] = 0;
        painted++;
    }
    return painted;
}

static kd_status check_comparable(const kd_image *a, const kd_image *b, int k, kd_error *err)
{
    if (!a->rgb || !b->rgb)
        return kd_error_set(err, KD_ERR_INVALID, "cannot compare an empty image");
    if (a->width != b->width || a->height != b->height)
        return kd_error_set(err, KD_ERR_INVALID, "image sizes differ: %dx%d vs %dx%d", a->width,
                            a->height, b->width, b->height);
    if (k < 0)
        return kd_error_set(err, KD_ERR_INVALID, "comparison threshold %d is negative", k);
    return KD_OK;
}

/* Walks both images once; mask may be NULL. */
static void compare_pixels(const kd_image *a, const kd_image *b, int k, uint64_t *sum_abs,
                           int *max_diff, size_t *num_over, uint8_t *mask)
{
    size_t num_pixels = (size_t)a->width * (size_t)a->height;
    uint64_t sum = 0;
    int max = 0;
    size_t over = 0;
    for (size_t i = 0; i < num_pixels; i++) {
        int pixel_max = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)a->rgb[3 * i + c] - (int)b->rgb[3 * i + c]);
            sum += (uint64_t)d;
            if (d > pixel_max)
                pixel_max = d;
        }
        if (pixel_max > max)
            max = pixel_max;
        bool is_over = pixel_max > k;
        over += is_over;
        if (mask)
            mask[i] = is_over;
    }
    *sum_abs = sum;
    *max_diff = max;
    *num_over = over;
}

kd_status kd_image_compare(const kd_image *a, const kd_image *b, int k, double *mean_abs_diff,
                           int *max_diff, double *fraction_over, kd_error *err)
{
    kd_status st = check_comparable(a, b, k, err);
    if (st)
        return st;
    uint64_t sum = 0;
    int max = 0;
    size_t over = 0;
    compare_pixels(a, b, k, &sum, &max, &over, NULL);
    double num_pixels = (double)a->width * (double)a->height;
    if (mean_abs_diff)
        *mean_abs_diff = (double)sum / (num_pixels * 3.0);
    if (max_diff)
        *max_diff = max;
    if (fraction_over)
        *fraction_over = (double)over / num_pixels;
    return KD_OK;
}

kd_status kd_image_diff_mask(const kd_image *a, const kd_image *b, int k, uint8_t *mask,
                             size_t *num_marked, kd_error *err)
{
    kd_status st = check_comparable(a, b, k, err);
    if (st)
        return st;
    uint64_t sum = 0;
    int max = 0;
    size_t over = 0;
    compare_pixels(a, b, k, &sum, &max, &over, mask);
    if (num_marked)
        *num_marked = over;
    return KD_OK;
}
