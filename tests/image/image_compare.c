/* Image comparison: zero on identical images, exact figures on a known
 * difference, an error on mismatched sizes. */
#include <math.h>
#include <string.h>

#include "image.h"
#include "test_support.h"

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-12;
}

int main(void)
{
    kd_error err;
    kd_image a, b, small;
    CHECK(kd_image_create(&a, 10, 10, &err) == KD_OK);
    CHECK(kd_image_create(&b, 10, 10, &err) == KD_OK);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) {
            kd_image_set(&a, x, y, (uint8_t)(x * 20), (uint8_t)(y * 20), 100);
            kd_image_set(&b, x, y, (uint8_t)(x * 20), (uint8_t)(y * 20), 100);
        }

    double mean = -1, fraction = -1;
    int max = -1;
    CHECK(kd_image_compare(&a, &b, 0, &mean, &max, &fraction, &err) == KD_OK);
    CHECK(mean == 0.0 && max == 0 && fraction == 0.0);

    /* Known differences in 3 of 100 pixels:
     *   (0,0): red +10            -> per-pixel max 10, channel sum 10
     *   (5,5): green -40, blue +2 -> per-pixel max 40, channel sum 42
     *   (9,9): blue -3            -> per-pixel max 3,  channel sum 3 */
    kd_image_set(&b, 0, 0, 10, 0, 100);
    kd_image_set(&b, 5, 5, 100, 60, 102);
    kd_image_set(&b, 9, 9, 180, 180, 97);
    CHECK(kd_image_compare(&a, &b, 0, &mean, &max, &fraction, &err) == KD_OK);
    CHECK_MSG(near(mean, 55.0 / 300.0), "mean %g", mean);
    CHECK(max == 40);
    CHECK(near(fraction, 0.03));
    CHECK(kd_image_compare(&a, &b, 3, &mean, &max, &fraction, &err) == KD_OK);
    CHECK(near(fraction, 0.02)); /* 3 is not "more than 3" */
    CHECK(kd_image_compare(&a, &b, 10, NULL, NULL, &fraction, &err) == KD_OK);
    CHECK(near(fraction, 0.01));
    CHECK(kd_image_compare(&a, &b, 40, NULL, &max, &fraction, &err) == KD_OK);
    CHECK(fraction == 0.0 && max == 40);
    /* Symmetric. */
    double mean_ba = -1;
    CHECK(kd_image_compare(&b, &a, 0, &mean_ba, NULL, NULL, &err) == KD_OK);
    CHECK(near(mean_ba, mean));

    /* The per-pixel mask follows the same rule and feeds the overlay. */
    uint8_t mask[100];
    size_t marked = 0;
    CHECK(kd_image_diff_mask(&a, &b, 5, mask, &marked, &err) == KD_OK);
    CHECK(marked == 2);
    CHECK(mask[0] == 1 && mask[55] == 1 && mask[99] == 0 && mask[1] == 0);
    CHECK(kd_image_overlay_mask(&b, mask) == 2);
    CHECK(b.rgb[0] == 255 && b.rgb[1] == 0 && b.rgb[2] == 0);

    /* Sizes that differ are an error, as is a negative threshold. */
    CHECK(kd_image_create(&small, 10, 9, &err) == KD_OK);
    kd_error_clear(&err);
    CHECK(kd_image_compare(&a, &small, 0, &mean, &max, &fraction, &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "10x10") != NULL && strstr(err.message, "10x9") != NULL);
    CHECK(kd_image_diff_mask(&a, &small, 0, mask, &marked, &err) == KD_ERR_INVALID);
    CHECK(kd_image_compare(&a, &b, -1, &mean, &max, &fraction, &err) == KD_ERR_INVALID);

    kd_image_free(&a);
    kd_image_free(&b);
    kd_image_free(&small);
    return kd_test_finish("image_compare");
}
