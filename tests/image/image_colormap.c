/* Colour maps at known values, the heat map legend and the mismatch overlay. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "legend.h"
#include "font.h"
#include "test_support.h"

static bool same(kd_rgb a, kd_rgb b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b;
}

static int luminance(kd_rgb c)
{
    return 2126 * c.r + 7152 * c.g + 722 * c.b;
}

static void test_ramp(void)
{
    CHECK(same(kd_ramp(0.0f), kd_ramp_point(0)));
    CHECK(same(kd_ramp(1.0f), kd_ramp_point(KD_RAMP_NUM_POINTS - 1)));
    CHECK(same(kd_ramp(0.5f), kd_ramp_point(KD_RAMP_NUM_POINTS / 2)));
    CHECK(same(kd_ramp(-3.0f), kd_ramp_point(0)));
    CHECK(same(kd_ramp(7.0f), kd_ramp_point(KD_RAMP_NUM_POINTS - 1)));
    CHECK(same(kd_ramp(NAN), kd_ramp_point(0)));
    /* Halfway between two control points is their average (rounded). */
    kd_rgb a = kd_ramp_point(2), b = kd_ramp_point(3), m = kd_ramp(2.5f / 8.0f);
    CHECK(abs(m.r - (a.r + b.r) / 2) <= 1 && abs(m.g - (a.g + b.g) / 2) <= 1 &&
          abs(m.b - (a.b + b.b) / 2) <= 1);
    /* Perceptual: lightness never falls along the ramp. */
    int previous = -1;
    for (int i = 0; i <= 256; i++) {
        int l = luminance(kd_ramp((float)i / 256.0f));
        CHECK_MSG(l >= previous, "luminance falls at t=%d/256", i);
        previous = l;
    }
    CHECK(luminance(kd_ramp(1.0f)) - luminance(kd_ramp(0.0f)) > 200 * 10000);
}

static void test_shaded(void)
{
    kd_error err;
    kd_image img;
    CHECK(kd_image_create(&img, 5, 1, &err) == KD_OK);
    float shade[5] = {0.0f, 1.0f, 0.5f, KD_SHADE_MISS, NAN};
    kd_rgb white = {255, 255, 255}, sky = {10, 20, 30};
    kd_colormap_shaded(&img, shade, white, sky);
    CHECK(same(kd_image_get(&img, 0, 0), (kd_rgb){0, 0, 0}));
    CHECK(same(kd_image_get(&img, 1, 0), white));
    CHECK(same(kd_image_get(&img, 2, 0), (kd_rgb){128, 128, 128}));
    CHECK(same(kd_image_get(&img, 3, 0), sky));
    CHECK(same(kd_image_get(&img, 4, 0), sky));
    /* A tint scales each channel; values above 1 clamp. */
    float tinted[5] = {0.5f, 2.0f, 0.0f, 0.25f, 1.0f};
    kd_colormap_shaded(&img, tinted, (kd_rgb){200, 100, 50}, sky);
    CHECK(same(kd_image_get(&img, 0, 0), (kd_rgb){100, 50, 25}));
    CHECK(same(kd_image_get(&img, 1, 0), (kd_rgb){200, 100, 50}));
    kd_image_free(&img);
}

static void test_depth(void)
{
    kd_error err;
    kd_image img;
    CHECK(kd_image_create(&img, 6, 1, &err) == KD_OK);
    float depth[6] = {2.0f, 4.0f, 3.0f, INFINITY, NAN, 10.0f};
    float near_d = 0, far_d = 0;
    CHECK(kd_depth_range(depth, 6, &near_d, &far_d));
    CHECK(near_d == 2.0f && far_d == 10.0f);
    kd_rgb bg = {1, 2, 3};
    CHECK(kd_colormap_depth(&img, depth, 2.0f, 4.0f, KD_DEPTH_GREY, bg, &err) == KD_OK);
    CHECK(same(kd_image_get(&img, 0, 0), (kd_rgb){255, 255, 255})); /* near: white */
    CHECK(same(kd_image_get(&img, 1, 0), (kd_rgb){0, 0, 0}));       /* far: black */
    CHECK(same(kd_image_get(&img, 2, 0), (kd_rgb){128, 128, 128})); /* middle */
    CHECK(same(kd_image_get(&img, 3, 0), bg));                      /* miss */
    CHECK(same(kd_image_get(&img, 4, 0), bg));
    CHECK(same(kd_image_get(&img, 5, 0), (kd_rgb){0, 0, 0}));       /* beyond far clamps */
    CHECK(kd_colormap_depth(&img, depth, 2.0f, 4.0f, KD_DEPTH_RAMP, bg, &err) == KD_OK);
    CHECK(same(kd_image_get(&img, 0, 0), kd_ramp(1.0f)));
    CHECK(same(kd_image_get(&img, 1, 0), kd_ramp(0.0f)));
    CHECK(same(kd_image_get(&img, 2, 0), kd_ramp(0.5f)));
    CHECK(same(kd_image_get(&img, 3, 0), bg));
    /* Bad ranges are errors, not silent garbage. */
    CHECK(kd_colormap_depth(&img, depth, 4.0f, 4.0f, KD_DEPTH_GREY, bg, &err) == KD_ERR_INVALID);
    CHECK(kd_colormap_depth(&img, depth, 0.0f, INFINITY, KD_DEPTH_GREY, bg, &err) ==
          KD_ERR_INVALID);
    /* Every ray missed: no range. One depth everywhere: a widened range. */
    float misses[3] = {INFINITY, NAN, INFINITY}, flat[3] = {5.0f, 5.0f, 5.0f};
    CHECK(!kd_depth_range(misses, 3, &near_d, &far_d));
    CHECK(kd_depth_range(flat, 3, &near_d, &far_d));
    CHECK(near_d == 5.0f && far_d > 5.0f);
    kd_image_free(&img);
}

static void test_heat(void)
{
    kd_error err;
    kd_image img;
    CHECK(kd_image_create(&img, 5, 1, &err) == KD_OK);
    float counts[5] = {10.0f, 30.0f, 20.0f, 0.0f, NAN};
    float lo = 0, hi = 0;
    CHECK(kd_value_range(counts, 5, &lo, &hi));
    CHECK(lo == 0.0f && hi == 30.0f);
    kd_rgb bg = {0, 0, 0};
    kd_colormap_heat(&img, counts, 10.0f, 30.0f, bg);
    CHECK(same(kd_image_get(&img, 0, 0), kd_ramp(0.0f)));
    CHECK(same(kd_image_get(&img, 1, 0), kd_ramp(1.0f)));
    CHECK(same(kd_image_get(&img, 2, 0), kd_ramp(0.5f)));
    CHECK(same(kd_image_get(&img, 3, 0), kd_ramp(0.0f)));  /* below lo clamps */
    CHECK(same(kd_image_get(&img, 4, 0), bg));
    /* A flat range: above lo is hot, at lo is cold. */
    kd_colormap_heat(&img, counts, 20.0f, 20.0f, bg);
    CHECK(same(kd_image_get(&img, 1, 0), kd_ramp(1.0f)));
    CHECK(same(kd_image_get(&img, 2, 0), kd_ramp(0.0f)));
    kd_image_free(&img);
}

/* The heat map with its legend is exactly the size asked for; the legend,
 * where it fits, covers the bottom rows and holds the ramp's two ends and
 * light text; elsewhere the render is as kd_colormap_heat paints it. */
static void test_legend(void)
{
    kd_error err;
    const int sizes[3][2] = {{64, 48}, {640, 480}, {2000, 30}};
    for (int c = 0; c < 3; c++) {
        int w = sizes[c][0], h = sizes[c][1];
        float *values = malloc((size_t)w * h * sizeof *values);
        for (int i = 0; i < w * h; i++)
            values[i] = (float)((i % w) * 100 / w); /* 0..99 left to right */
        kd_heat_scale scale = {0.0f, 99.0f, 99.0f, false, 100};
        kd_image out;
        CHECK(kd_heatmap_with_legend(values, w, h, &scale, "steps", NULL, &out, &err) == KD_OK);
        CHECK(out.width == w && out.height == h);
        const bool fits = kd_legend_fits(w, h);
        CHECK(fits == (c == 1));
        const int top = fits ? h - kd_legend_height(w) : h;
        CHECK(kd_legend_height(w) >= 2 * kd_font_text_height(1));
        /* The render above the legend, unchanged by it. */
        CHECK(same(kd_image_get(&out, 0, 0), kd_ramp(0.0f)));
        float last = values[(top - 1) * w + w - 1];
        CHECK(same(kd_image_get(&out, w - 1, top - 1), kd_ramp(last / 99.0f)));
        bool has_low = false, has_high = false, has_text = false;
        for (int y = top; y < out.height; y++) {
            for (int x = 0; x < w; x++) {
                kd_rgb p = kd_image_get(&out, x, y);
                has_low |= same(p, kd_ramp(0.0f));
                has_high |= same(p, kd_ramp(1.0f));
                has_text |= same(p, (kd_rgb){235, 235, 235});
            }
        }
        CHECK(has_low == fits && has_high == fits && has_text == fits);
        if (c == 1) {
            char path[512];
            kd_test_tmp_path("image_colormap_heat.png", path, sizeof path);
            CHECK(kd_image_write_png(&out, path, &err) == KD_OK);
        }
        kd_image_free(&out);
        free(values);
    }
    kd_image out;
    float one = 1.0f;
    kd_heat_scale scale = {0.0f, 1.0f, 1.0f, false, 100};
    CHECK(kd_heatmap_with_legend(&one, 0, 1, &scale, NULL, NULL, &out, &err) == KD_ERR_INVALID);
    CHECK(out.rgb == NULL);
}

static void test_overlay(void)
{
    kd_error err;
    kd_image img;
    CHECK(kd_image_create(&img, 7, 5, &err) == KD_OK);
    kd_image_fill(&img, (kd_rgb){40, 80, 120});
    kd_image_set(&img, 3, 3, 255, 0, 0); /* already red, unmasked: stays, but is not counted */
    uint8_t mask[35] = {0};
    mask[0] = 1;
    mask[8] = 7; /* any nonzero byte marks */
    mask[34] = 1;
    CHECK(kd_image_overlay_mask(&img, mask) == 3);
    for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 7; x++) {
            kd_rgb p = kd_image_get(&img, x, y);
            bool masked = mask[y * 7 + x] != 0;
            if (masked)
                CHECK(same(p, (kd_rgb){255, 0, 0}));
            else if (x == 3 && y == 3)
                CHECK(same(p, (kd_rgb){255, 0, 0}));
            else
                CHECK(same(p, (kd_rgb){40, 80, 120}));
        }
    }
    kd_image_free(&img);
}

static void test_format(void)
{
    char text[32];
    kd_format_value(0.0, text, sizeof text);
    CHECK(strcmp(text, "0") == 0);
    kd_format_value(1234.0, text, sizeof text);
    CHECK(strcmp(text, "1234") == 0);
    kd_format_value(3.5, text, sizeof text);
    CHECK(strcmp(text, "3.5") == 0);
    kd_format_value(12500000.0, text, sizeof text);
    CHECK(strcmp(text, "12.5M") == 0);
    kd_format_value(-250000.0, text, sizeof text);
    CHECK(strcmp(text, "-250k") == 0);
    kd_format_value(0.125, text, sizeof text);
    CHECK(strcmp(text, "0.125") == 0);
}

int main(void)
{
    test_ramp();
    test_shaded();
    test_depth();
    test_heat();
    test_legend();
    test_overlay();
    test_format();
    return kd_test_finish("image_colormap");
}
