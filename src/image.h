/* RGB images and the colour maps scankd draws with, written as PNG through
 * stb_image_write (to a temporary name, renamed into place when complete). */
#ifndef KD_IMAGE_H
#define KD_IMAGE_H

#include <stdint.h>

#include "kd_error.h"

typedef struct kd_image {
    int width, height;
    uint8_t *rgb;            /* width * height * 3 bytes, row 0 at the top */
} kd_image;

kd_status kd_image_create(kd_image *img, int width, int height, kd_error *err);
void kd_image_free(kd_image *img);
void kd_image_set(kd_image *img, int x, int y, uint8_t r, uint8_t g, uint8_t b);
kd_status kd_image_write_png(const kd_image *img, const char *path, kd_error *err);
kd_status kd_image_read_png(kd_image *img, const char *path, kd_error *err);

#endif
