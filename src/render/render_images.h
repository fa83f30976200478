/* The ray casters' images: per-pixel buffers (cpu_render.h) to RGB images
 * through the colour maps of colormap.h. */
#ifndef KD_RENDER_IMAGES_H
#define KD_RENDER_IMAGES_H

#include "cpu_render.h"
#include "image.h"

typedef enum kd_render_image_kind {
    KD_RENDER_SHADED, /* eye light: |cos| between ray and geometric normal, grey */
    KD_RENDER_DEPTH,  /* hit distance, near pale to far dark on scankd's ramp, with a legend */
    KD_RENDER_STEPS,  /* heat map of traversal steps per ray up to their 99th percentile, with a legend */
    KD_RENDER_TESTS,  /* heat map of ray-triangle tests per ray, the same way */
    KD_RENDER_NUM_KINDS
} kd_render_image_kind;

/* "shaded", "depth", "steps", "tests". */
const char *kd_render_image_name(kd_render_image_kind kind);
/* Parses a name above; returns -1 when it is none of them. */
int kd_render_image_parse(const char *name);

/* Background of pixels whose ray hit nothing. */
extern const kd_rgb kd_render_background;

/* Makes the image of kind from buf into *img (zeroed or freed beforehand):
 * exactly buf's size, legends drawn over the bottom rows (legend.h) where
 * the image has room for them. */
kd_status kd_render_make_image(const kd_render_buffers *buf, kd_render_image_kind kind,
                               kd_image *img, kd_error *err);

#endif
