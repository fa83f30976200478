/* Line charts: the PNG has the requested size, lines and markers land where
 * kd_chart_data_to_pixel says, a NaN breaks the line, and bad input fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "chart.h"
#include "test_support.h"

enum { NUM_SIZES = 19 }; /* 2^10 .. 2^28, like a profiler sweep */

static bool same(kd_rgb a, kd_rgb b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b;
}

/* True when some pixel within radius r of (px, py) has exactly colour c. */
static bool colour_near(const kd_image *img, double px, double py, int r, kd_rgb c)
{
    for (int y = (int)py - r; y <= (int)py + r; y++)
        for (int x = (int)px - r; x <= (int)px + r; x++)
            if (same(kd_image_get(img, x, y), c))
                return true;
    return false;
}

static void sweep(double *sizes, double *fast, double *slow, double *gappy)
{
    for (int i = 0; i < NUM_SIZES; i++) {
        sizes[i] = exp2(10 + i);
        /* Lines well apart, so each one's pixels are its own. */
        fast[i] = 2000.0 + 50.0 * i;
        slow[i] = 200.0 + 10.0 * i;
        gappy[i] = 1000.0 + 30.0 * i * (i % 3);
    }
    gappy[8] = NAN; /* a size that was not measured */
}

static void test_lines(void)
{
    kd_error err;
    double sizes[NUM_SIZES], fast[NUM_SIZES], slow[NUM_SIZES], gappy[NUM_SIZES];
    sweep(sizes, fast, slow, gappy);
    kd_chart *chart = NULL;
    CHECK(kd_chart_create(&chart, "reduce min, float", "n (elements)", "GB/s", &err) == KD_OK);
    if (!chart)
        return;
    CHECK(kd_chart_set_size(chart, 1000, 600, &err) == KD_OK);
    CHECK(kd_chart_add_series(chart, "fast", sizes, fast, NUM_SIZES, &err) == KD_OK);
    CHECK(kd_chart_add_series(chart, "slow", sizes, slow, NUM_SIZES, &err) == KD_OK);
    CHECK(kd_chart_add_series(chart, "gappy", sizes, gappy, NUM_SIZES, &err) == KD_OK);

    kd_image img;
    CHECK_MSG(kd_chart_render(chart, &img, &err) == KD_OK, "%s", err.message);
    CHECK(img.width == 1000 && img.height == 600);

    const double *series[3] = {fast, slow, gappy};
    for (int s = 0; s < 3; s++) {
        kd_rgb colour = kd_chart_series_colour(s);
        for (int i = 0; i < NUM_SIZES; i++) {
            double px, py;
            if (isnan(series[s][i])) {
                /* No marker where the point is missing... */
                CHECK(kd_chart_data_to_pixel(chart, sizes[i], gappy[i - 1], &px, &py, &err) ==
                      KD_OK);
                double px_next, py_next;
                CHECK(kd_chart_data_to_pixel(chart, sizes[i + 1], gappy[i + 1], &px_next,
                                             &py_next, &err) == KD_OK);
                /* ...and no line bridging the gap from point i-1 to i+1. */
                CHECK_MSG(!colour_near(&img, px, (py + py_next) / 2, 2, colour),
                          "line drawn across the missing point");
                continue;
            }
            CHECK(kd_chart_data_to_pixel(chart, sizes[i], series[s][i], &px, &py, &err) == KD_OK);
            CHECK(px >= 0 && px < img.width && py >= 0 && py < img.height);
            CHECK_MSG(same(kd_image_get(&img, (int)px, (int)py), colour),
                      "series %d point %d: no marker at (%.1f, %.1f)", s, i, px, py);
            if (i + 1 < NUM_SIZES && !isnan(series[s][i + 1])) {
                double qx, qy;
                CHECK(kd_chart_data_to_pixel(chart, sizes[i + 1], series[s][i + 1], &qx, &qy,
                                             &err) == KD_OK);
                CHECK(qx > px);
                CHECK_MSG(colour_near(&img, (px + qx) / 2, (py + qy) / 2, 1, colour),
                          "series %d segment %d: no line at its midpoint", s, i);
            }
        }
    }
    /* Far from every line the plot is background (white or grid grey). */
    double px, py;
    CHECK(kd_chart_data_to_pixel(chart, exp2(11.5), 2800.0, &px, &py, &err) == KD_OK);
    kd_rgb p = kd_image_get(&img, (int)px, (int)py);
    CHECK(same(p, (kd_rgb){255, 255, 255}) || same(p, (kd_rgb){228, 228, 228}));
    /* The y axis starts at 0 on the plot's bottom edge. */
    double py0, py_top;
    CHECK(kd_chart_data_to_pixel(chart, sizes[0], 0.0, &px, &py0, &err) == KD_OK);
    CHECK(kd_chart_data_to_pixel(chart, sizes[0], 3000.0, &px, &py_top, &err) == KD_OK);
    CHECK(py0 > py_top);
    /* The legend, right of the plot, shows every series' colour. */
    double right_edge;
    CHECK(kd_chart_data_to_pixel(chart, exp2(28), 0.0, &right_edge, &py, &err) == KD_OK);
    for (int s = 0; s < 3; s++) {
        bool found = false;
        for (int y = 0; y < img.height && !found; y++)
            for (int x = (int)right_edge + 20; x < img.width && !found; x++)
                found = same(kd_image_get(&img, x, y), kd_chart_series_colour(s));
        CHECK_MSG(found, "legend lacks series %d", s);
    }
    /* Some text (dark ink) in the title strip. */
    bool title_ink = false;
    for (int y = 0; y < 40 && !title_ink; y++)
        for (int x = 0; x < img.width && !title_ink; x++)
            title_ink = same(kd_image_get(&img, x, y), (kd_rgb){30, 30, 30});
    CHECK(title_ink);
    kd_image_free(&img);

    /* Written as a PNG of the requested size. */
    char path[512];
    kd_test_tmp_path("image_chart/reduce.png", path, sizeof path);
    remove(path);
    CHECK_MSG(kd_chart_write_png(chart, path, &err) == KD_OK, "%s", err.message);
    kd_image back;
    CHECK(kd_image_read_png(&back, path, &err) == KD_OK);
    CHECK(back.width == 1000 && back.height == 600);
    kd_image_free(&back);
    kd_chart_free(chart);
}

static void test_many_series_small_size(void)
{
    /* A profiler ladder: ten series, drawn small; every one must get a
     * different colour-and-marker pair and the chart must still render. */
    kd_error err;
    kd_chart *chart = NULL;
    CHECK(kd_chart_create(&chart, "scan", "n", "GB/s", &err) == KD_OK);
    if (!chart)
        return;
    CHECK(kd_chart_set_size(chart, 640, 400, &err) == KD_OK);
    double x[6], y[6];
    for (int s = 0; s < 10; s++) {
        for (int i = 0; i < 6; i++) {
            /* Launch-bound at small sizes, saturating at large ones. */
            x[i] = exp2(16 + 2 * i);
            y[i] = (s + 1) * 300.0 * x[i] / (x[i] + exp2(18 + 0.3 * s));
        }
        char name[32];
        snprintf(name, sizeof name, "Reduce%d", s);
        CHECK(kd_chart_add_series(chart, name, x, y, 6, &err) == KD_OK);
    }
    for (int a = 0; a < 10; a++)
        for (int b = 0; b < a; b++)
            CHECK(!same(kd_chart_series_colour(a), kd_chart_series_colour(b)));
    kd_image img;
    CHECK_MSG(kd_chart_render(chart, &img, &err) == KD_OK, "%s", err.message);
    CHECK(img.width == 640 && img.height == 400);
    char path[512];
    kd_test_tmp_path("image_chart/ladder.png", path, sizeof path);
    CHECK(kd_image_write_png(&img, path, &err) == KD_OK);
    kd_image_free(&img);
    kd_chart_free(chart);
}

static void test_errors(void)
{
    kd_error err;
    kd_chart *chart = NULL;
    kd_image img;
    CHECK(kd_chart_create(&chart, NULL, NULL, NULL, &err) == KD_OK);
    if (!chart)
        return;
    CHECK(kd_chart_render(chart, &img, &err) == KD_ERR_INVALID); /* nothing to plot */
    CHECK(img.rgb == NULL);
    double x[3] = {1024, -5, 4096}, y[3] = {NAN, 2.0, INFINITY};
    CHECK(kd_chart_add_series(chart, "unplottable", x, y, 3, &err) == KD_OK);
    CHECK(kd_chart_render(chart, &img, &err) == KD_ERR_INVALID);
    CHECK(kd_chart_add_series(chart, "bad", x, y, -1, &err) == KD_ERR_INVALID);
    CHECK(kd_chart_add_series(chart, "bad", NULL, y, 2, &err) == KD_ERR_INVALID);
    CHECK(kd_chart_add_series(chart, "empty", NULL, NULL, 0, &err) == KD_OK);
    CHECK(kd_chart_set_size(chart, 100, 600, &err) == KD_ERR_INVALID);
    CHECK(kd_chart_set_size(chart, 600, KD_IMAGE_MAX_SIDE + 1, &err) == KD_ERR_INVALID);
    double px, py;
    CHECK(kd_chart_data_to_pixel(chart, 0.0, 1.0, &px, &py, &err) == KD_ERR_INVALID);

    /* One plottable point is enough (the x axis widens around it). */
    double one_x = 65536, one_y = 12.5;
    CHECK(kd_chart_add_series(chart, "one", &one_x, &one_y, 1, &err) == KD_OK);
    CHECK_MSG(kd_chart_render(chart, &img, &err) == KD_OK, "%s", err.message);
    kd_image_free(&img);
    /* A write that cannot succeed (a file stands where a folder should)
     * leaves no file. */
    char path[512], blocker[512];
    kd_test_tmp_path("image_chart_blocker", blocker, sizeof blocker);
    FILE *f = fopen(blocker, "w");
    if (f)
        fclose(f);
    kd_test_tmp_path("image_chart_blocker/deeper/x.png", path, sizeof path);
    CHECK(kd_chart_write_png(chart, path, &err) == KD_ERR_IO);
    struct stat sb;
    CHECK(stat(path, &sb) != 0);
    remove(blocker);
    for (int i = 0; i < KD_CHART_MAX_SERIES; i++)
        kd_chart_add_series(chart, "more", NULL, NULL, 0, &err);
    CHECK(kd_chart_add_series(chart, "too many", NULL, NULL, 0, &err) == KD_ERR_INVALID);
    kd_chart_free(chart);
    kd_chart_free(NULL);
}

int main(void)
{
    char dir[512];
    kd_test_tmp_path("image_chart", dir, sizeof dir);
    mkdir(dir, 0777);
    test_lines();
    test_many_series_small_size();
    test_errors();
    return kd_test_finish("image_chart");
}
