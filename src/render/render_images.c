#include "render_images.h"

#include <string.h>

#include "colormap.h"
#include "legend.h"

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

/* Heat maps run from 0 to the 99th percentile of the counts, so that the
 * few rays that graze many nodes do not darken every other pixel; the
 * legend says so and names the largest count. */
static kd_status heat_image(const float *values, const kd_render_buffers *buf, const char *title,
                            const char *short_title, kd_image *img, kd_error *err)
{
    size_t n = (size_t)buf->width * (size_t)buf->height;
    kd_heat_scale scale;
    KD_TRY(kd_heat_scale_of(values, n, KD_HEAT_PERCENTILE, &scale, err));
    return kd_heatmap_with_legend(values, buf->width, buf->height, &scale, title, short_title, img, err);
}

/* Distance from the eye, near pale to far dark, with its legend. */
static kd_status depth_image(const kd_render_buffers *buf, kd_image *img, kd_error *err)
{
    float near_depth, far_depth;
    size_t n = (size_t)buf->width * (size_t)buf->height;
    if (!kd_depth_range(buf->depth, n, &near_depth, &far_depth)) {
        kd_image_fill(img, kd_render_background); /* every ray missed */
        return KD_OK;
    }
    KD_TRY(kd_colormap_depth(img, buf->depth, near_depth, far_depth, KD_DEPTH_RAMP, kd_render_background,
                             err));
    const kd_legend legend = {.title = "distance from the eye", .short_title = "distance", .lo = near_depth,
                              .hi = far_depth, .reversed = true};
    kd_legend_draw(img, &legend);
    return KD_OK;
}

kd_status kd_render_make_image(const kd_render_buffers *buf, kd_render_image_kind kind,
                               kd_image *img, kd_error *err)
{
    memset(img, 0, sizeof *img);
    if (kind == KD_RENDER_STEPS)
        return heat_image(buf->steps, buf, "traversal steps per ray", "steps per ray", img, err);
    if (kind == KD_RENDER_TESTS)
        return heat_image(buf->tests, buf, "ray-triangle tests per ray", "tests per ray", img, err);
    KD_TRY(kd_image_create(img, buf->width, buf->height, err));
    kd_status st = KD_OK;
    if (kind == KD_RENDER_SHADED) {
        const kd_rgb white = {255, 255, 255};
        kd_colormap_shaded(img, buf->shade, white, kd_render_background);
    } else {
        st = depth_image(buf, img, err);
    }
    if (st)
        kd_image_free(img);
    return st;
}
