/* Heat maps scale to a robust range and carry whole legends: the scale
 * tops out at the 99th percentile (nearest rank) so a few extreme pixels no
 * longer darken the rest, and says so; legend titles fit, uncut, at 256 and
 * 96 pixels wide (the widths the issue measured) and beyond; legends are
 * drawn inside the image, which keeps its size. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colormap.h"
#include "font.h"
#include "legend.h"
#include "test_support.h"

static void test_scale(void)
{
    kd_error err;
    enum { N = 1000 };
    float *v = malloc(N * sizeof *v);
    /* 0..989 once each, then ten huge outliers: the 99th percentile is 989. */
    for (int i = 0; i < N; i++)
        v[i] = i < 990 ? (float)(989 - i) : 100000.0f;
    kd_heat_scale s;
    CHECK(kd_heat_scale_of(v, N, 99, &s, &err) == KD_OK);
    CHECK_MSG(s.lo == 0.0f && s.hi == 989.0f && s.max == 100000.0f && s.clipped, "hi %g max %g", s.hi, s.max);
    CHECK(s.percentile == 99);
    CHECK(v[0] == 989.0f && v[N - 1] == 100000.0f); /* the caller's values untouched */
    CHECK(kd_heat_scale_of(v, N, 100, &s, &err) == KD_OK && s.hi == 100000.0f && !s.clipped);
    /* NaN and infinities are no values; all-equal values need no clipping. */
    for (int i = 0; i < N; i++)
        v[i] = i % 3 == 0 ? NAN : (i % 3 == 1 ? INFINITY : 7.0f);
    CHECK(kd_heat_scale_of(v, N, 99, &s, &err) == KD_OK && s.hi == 7.0f && s.max == 7.0f && !s.clipped);
    /* Mostly zeros (a tests map of a sparse scene): the top falls back to the largest. */
    for (int i = 0; i < N; i++)
        v[i] = i == 5 ? 12.0f : 0.0f;
    CHECK(kd_heat_scale_of(v, N, 99, &s, &err) == KD_OK && s.hi == 12.0f && !s.clipped);
    for (int i = 0; i < N; i++)
        v[i] = 0.0f;
    CHECK(kd_heat_scale_of(v, N, 99, &s, &err) == KD_OK && s.hi == 1.0f && s.max == 0.0f);
    CHECK(kd_heat_scale_of(v, 0, 99, &s, &err) == KD_OK && s.hi == 1.0f);
    /* A long tail, as the bunny's steps (mean 29, worst 457): p99 well below the worst. */
    for (int i = 0; i < N; i++)
        v[i] = (float)(20 + (i * 37) % 20);
    v[17] = 457.0f;
    v[400] = 300.0f;
    CHECK(kd_heat_scale_of(v, N, 99, &s, &err) == KD_OK && s.hi == 39.0f && s.max == 457.0f && s.clipped);
    /* Colours span [lo, hi]: a pixel at p99 is the ramp's top, as is the worst. */
    kd_image img;
    CHECK(kd_heatmap_with_legend(v, N, 1, &s, NULL, NULL, &img, &err) == KD_OK);
    CHECK(img.width == N && img.height == 1);
    kd_rgb top = kd_ramp(1.0f), at_17 = kd_image_get(&img, 17, 0), at_0 = kd_image_get(&img, 0, 0);
    CHECK(at_17.r == top.r && at_17.g == top.g && at_17.b == top.b);
    kd_rgb want = kd_ramp(20.0f / 39.0f);
    CHECK(at_0.r == want.r && at_0.g == want.g && at_0.b == want.b);
    kd_image_free(&img);
    free(v);
}

/* The title shown fits the strip, with room to spare, and still says what
 * the colours mean where there is any room at all. */
static void test_titles(void)
{
    kd_legend lg = {.title = "traversal steps per ray", .short_title = "steps per ray", .lo = 0, .hi = 57,
                    .clipped = true, .percentile = 99, .max = 457};
    const int widths[] = {96, 128, 256, 512, 1024, 2048};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        const int w = widths[i];
        char title[200];
        kd_legend_title(&lg, w, title, sizeof title);
        const int scale = w < 512 ? 1 : (w < 1600 ? 2 : 3);
        CHECK_MSG(kd_font_text_width(title, scale) <= w - 12 * scale, "width %d: '%s' overflows", w, title);
        CHECK_MSG(strstr(title, "steps") && (strstr(title, "p99") || strstr(title, "99th percentile")),
                  "width %d: '%s'", w, title);
    }
    char title[200];
    kd_legend_title(&lg, 256, title, sizeof title);
    CHECK_MSG(strcmp(title, "steps per ray (top: p99, max 457)") == 0, "%s", title);
    kd_legend_title(&lg, 96, title, sizeof title);
    CHECK_MSG(strcmp(title, "steps, top p99") == 0, "%s", title);
    kd_legend_title(&lg, 1024, title, sizeof title);
    CHECK_MSG(strcmp(title, "traversal steps per ray (top: 99th percentile, max 457)") == 0, "%s", title);
    kd_legend_top_label(&lg, title, sizeof title);
    CHECK(strcmp(title, "57+") == 0);
    lg.clipped = false;
    kd_legend_top_label(&lg, title, sizeof title);
    CHECK(strcmp(title, "57") == 0);
    kd_legend_title(&lg, 96, title, sizeof title);
    CHECK_MSG(strcmp(title, "steps per ray") == 0, "%s", title);
}

/* Drawn inside: the size stays; the strip covers the bottom rows only, and
 * only where the image can spare them. */
static void test_inside(void)
{
    const int sizes[][2] = {{96, 96}, {256, 256}, {1024, 768}, {63, 200}, {200, 40}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        const int w = sizes[c][0], h = sizes[c][1];
        kd_image img;
        kd_error err;
        CHECK(kd_image_create(&img, w, h, &err) == KD_OK);
        const kd_rgb fill = {1, 2, 3};
        kd_image_fill(&img, fill);
        kd_legend lg = {.title = "distance from the eye", .short_title = "distance", .lo = 0.25f, .hi = 4.0f,
                        .reversed = true};
        const bool drew = kd_legend_draw(&img, &lg);
        CHECK(drew == (w >= KD_LEGEND_MIN_WIDTH && h >= 2 * kd_legend_height(w)));
        CHECK(img.width == w && img.height == h);
        const int top = drew ? h - kd_legend_height(w) : h;
        kd_rgb above = kd_image_get(&img, w / 2, top - 1), below = kd_image_get(&img, w / 2, h - 1);
        CHECK(above.r == fill.r && above.g == fill.g && above.b == fill.b);
        CHECK(drew == !(below.r == fill.r && below.g == fill.g && below.b == fill.b));
        if (drew) {
            /* Reversed: the bar starts at the ramp's top (near is pale). */
            bool has_pale_left = false;
            for (int y = top; y < h; y++) {
                kd_rgb p = kd_image_get(&img, w < 512 ? 6 : 12, y), pale = kd_ramp(1.0f);
                has_pale_left |= p.r == pale.r && p.g == pale.g && p.b == pale.b;
            }
            CHECK_MSG(has_pale_left, "%dx%d: no pale bar start", w, h);
        }
        kd_image_free(&img);
    }
}

int main(void)
{
    test_scale();
    test_titles();
    test_inside();
    return kd_test_finish("image_legend");
}
