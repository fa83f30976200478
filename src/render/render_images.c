#include "render_images.h"

#include <string.h>

#include "colormap.h"

const kd_rgb kd_render_background = {28, 30, 38};

static const char *const k_names[KD_RENDER_NUM_KINDS] = {"shaded", "depth", "steps", "tests"};

const char *kd_render_image_name(kd_render_image_kind kind)
{
    return kind < KD_RENDER_NUM_KINDS ? k_names[kind] : "unknown";
}

int kd_render_image_parse(const char *name)
{
    for (int k = 0; k < KD_RENDER_NUM_KINDS; k++)
        if (strcmp(name, k_names[k]) == 0)
            return k;
    return -1;
}

/* Heat maps run from 0 to the largest count, so colours read as absolute
 * amounts and the legend's top is the worst ray. */
static kd_status heat_image(const float *values, const kd_render_buffers *buf, const char *label,
                            kd_image *img, kd_error *err)
{
    size_t n = (size_t)buf->width * (size_t)buf->height;
    float lo = 0.0f, hi = 0.0f;
    float ignored;
    if (!kd_value_range(values, n, &ignored, &hi) || !(hi > 0.0f))
        hi = 1.0f;
    return kd_heatmap_with_legend(values, buf->width, buf->height, lo, hi, label, img, err);
}

kd_status kd_render_make_image(const kd_render_buffers *buf, kd_render_image_kind kind,
                               kd_image *img, kd_error *err)
{
    memset(img, 0, sizeof *img);
    if (kind == KD_RENDER_STEPS)
        return heat_image(buf->steps, buf, "traversal steps per ray", img, err);
    if (kind == KD_RENDER_TESTS)
        return heat_image(buf->tests, buf, "ray-triangle tests per ray", img, err);
    kd_status st = kd_image_create(img, buf->width, buf->height, err);
    if (st)
        return st;
    if (kind == KD_RENDER_SHADED) {
        const kd_rgb white = {255, 255, 255};
        kd_colormap_shaded(img, buf->shade, white, kd_render_background);
        return KD_OK;
    }
    float near_depth, far_depth;
    size_t n = (size_t)buf->width * (size_t)buf->height;
    if (!kd_depth_range(buf->depth, n, &near_depth, &far_depth)) {
        kd_image_fill(img, kd_render_background); /* every ray missed */
        return KD_OK;
    }
    st = kd_colormap_depth(img, buf->depth, near_depth, far_depth, KD_DEPTH_RAMP,
                           kd_render_background, err);
    if (st)
        kd_image_free(img);
    return st;
}
