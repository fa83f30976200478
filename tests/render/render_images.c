/* The render command's images from its buffers: every kind exactly the
 * buffers' size (legends drawn inside); the depth image has a legend too;
 * the heat maps top out at the 99th percentile, so that one pixel of many
 * steps does not squeeze all others into the ramp's bottom. */
#include <math.h>
#include <string.h>

#include "colormap.h"
#include "legend.h"
#include "render_images.h"
#include "test_support.h"

static bool same(kd_rgb a, kd_rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

/* A buffer of w x h: every ray hits at depth 1..2 with 20..39 steps, but one
 * pixel takes 5000 steps. */
static void fill(kd_render_buffers *buf)
{
    const int n = buf->width * buf->height;
    for (int i = 0; i < n; i++) {
        buf->depth[i] = 1.0f + (float)(i % buf->width) / (float)buf->width;
        buf->shade[i] = 0.5f;
        buf->steps[i] = (float)(20 + i % 20);
        buf->tests[i] = (float)(i % 4);
        buf->tri[i] = 0;
    }
    buf->steps[0] = 5000.0f;
}

static bool has_panel(const kd_image *img)
{
    const kd_rgb panel = {24, 24, 24};
    return same(kd_image_get(img, 1, img->height - 1), panel);
}

int main(void)
{
    const int sizes[][2] = {{256, 256}, {96, 96}, {40, 30}, {300, 120}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        const int w = sizes[c][0], h = sizes[c][1];
        kd_render_buffers buf;
        kd_error err;
        CHECK(kd_render_buffers_alloc(&buf, w, h, &err) == KD_OK);
        fill(&buf);
        for (int k = 0; k < KD_RENDER_NUM_KINDS; k++) {
            kd_image img;
            CHECK(kd_render_make_image(&buf, (kd_render_image_kind)k, &img, &err) == KD_OK);
            CHECK_MSG(img.width == w && img.height == h, "%s at %dx%d: %dx%d", kd_render_image_name(k), w, h,
                      img.width, img.height);
            const bool legend = k != KD_RENDER_SHADED && kd_legend_fits(w, h);
            CHECK_MSG(has_panel(&img) == legend, "%s at %dx%d: legend %s", kd_render_image_name(k), w, h,
                      legend ? "missing" : "unexpected");
            if (k == KD_RENDER_STEPS) {
                /* 39 steps (the 99th percentile) reach the ramp's top, as do 5000. */
                CHECK(same(kd_image_get(&img, 0, 0), kd_ramp(1.0f)));
                CHECK(same(kd_image_get(&img, 19, 0), kd_ramp(1.0f)));
                CHECK(same(kd_image_get(&img, 1, 0), kd_ramp(21.0f / 39.0f)));
            }
            kd_image_free(&img);
        }
        kd_render_buffers_free(&buf);
    }
    return kd_test_finish("render_images");
}
