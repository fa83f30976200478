/* The bitmap font: every printable ASCII character has its own glyph, and
 * drawing puts exactly those pixels on the image (also rotated). */
#include <string.h>

#include "font.h"
#include "test_support.h"

static int ink_count(char c)
{
    int n = 0;
    for (int y = 0; y < KD_FONT_CELL_HEIGHT; y++)
        for (int x = 0; x < KD_FONT_GLYPH_WIDTH; x++)
            n += kd_font_pixel(c, x, y);
    return n;
}

static bool same_glyph(char a, char b)
{
    for (int y = 0; y < KD_FONT_CELL_HEIGHT; y++)
        for (int x = 0; x < KD_FONT_GLYPH_WIDTH; x++)
            if (kd_font_pixel(a, x, y) != kd_font_pixel(b, x, y))
                return false;
    return true;
}

static bool uses_descender(char c)
{
    for (int y = KD_FONT_CAP_HEIGHT; y < KD_FONT_CELL_HEIGHT; y++)
        for (int x = 0; x < KD_FONT_GLYPH_WIDTH; x++)
            if (kd_font_pixel(c, x, y))
                return true;
    return false;
}

static void test_coverage(void)
{
    /* The characters the brief asks for, then everything printable. */
    const char *required = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           ".,-+/%():= ";
    for (const char *p = required; *p; p++)
        CHECK_MSG(kd_font_has_glyph(*p), "'%c' missing", *p);
    for (int c = KD_FONT_FIRST_CHAR; c <= KD_FONT_LAST_CHAR; c++) {
        CHECK(kd_font_has_glyph((char)c));
        if (c == ' ')
            CHECK(ink_count(' ') == 0);
        else
            CHECK_MSG(ink_count((char)c) >= 2, "'%c' has no glyph", c);
        for (int d = KD_FONT_FIRST_CHAR; d < c; d++)
            CHECK_MSG(!same_glyph((char)c, (char)d), "'%c' and '%c' look the same", c, d);
        /* Descenders only where a reader expects them. */
        bool expect = strchr("gjpqy,;_", c) != NULL;
        CHECK_MSG(uses_descender((char)c) == expect, "'%c' descender", c);
    }
    CHECK(!kd_font_has_glyph('\n'));
    CHECK(!kd_font_has_glyph((char)200));
    /* Unknown characters are drawn as '?'. */
    CHECK(same_glyph('\t', '?'));
    CHECK(!kd_font_pixel('A', 5, 0) && !kd_font_pixel('A', -1, 0) && !kd_font_pixel('A', 0, 9));
}

static void test_drawing(void)
{
    kd_error err;
    kd_image img;
    CHECK(kd_font_text_width("", 3) == 0);
    CHECK(kd_font_text_width("A", 1) == 5);
    CHECK(kd_font_text_width("AB", 2) == 22);
    CHECK(kd_font_text_height(2) == 18);

    const char *text = "Hi 2^10";
    int scale = 2, w = kd_font_text_width(text, scale), h = kd_font_text_height(scale);
    CHECK(kd_image_create(&img, w + 4, h + 4, &err) == KD_OK);
    kd_rgb ink = {9, 200, 30};
    kd_font_draw(&img, 2, 2, text, scale, ink);
    int mismatches = 0;
    for (int y = 0; y < img.height; y++) {
        for (int x = 0; x < img.width; x++) {
            int fx = (x - 2) / scale, fy = (y - 2) / scale;
            bool expect = false;
            if (x >= 2 && y >= 2 && fy < KD_FONT_CELL_HEIGHT) {
                int ch = fx / KD_FONT_ADVANCE, col = fx % KD_FONT_ADVANCE;
                if (ch < (int)strlen(text) && col < KD_FONT_GLYPH_WIDTH)
                    expect = kd_font_pixel(text[ch], col, fy);
            }
            kd_rgb p = kd_image_get(&img, x, y);
            bool inked = p.r == ink.r && p.g == ink.g && p.b == ink.b;
            mismatches += inked != expect;
        }
    }
    CHECK_MSG(mismatches == 0, "%d pixels differ from the glyphs", mismatches);
    kd_image_free(&img);

    /* Rotated: the box is h wide and w tall, and font pixel (x, y) of the
     * first character lands at column y, row (bottom - 1 - x). */
    CHECK(kd_image_create(&img, h, w, &err) == KD_OK);
    kd_font_draw_vertical(&img, 0, 0, "L", 1, ink);
    int lw = kd_font_text_width("L", 1);
    mismatches = 0;
    for (int fy = 0; fy < KD_FONT_CELL_HEIGHT; fy++)
        for (int fx = 0; fx < KD_FONT_GLYPH_WIDTH; fx++) {
            kd_rgb p = kd_image_get(&img, fy, lw - 1 - fx);
            mismatches += (p.g == ink.g) != kd_font_pixel('L', fx, fy);
        }
    CHECK(mismatches == 0);
    /* Clipping: drawing off the edges neither crashes nor wraps. */
    kd_font_draw(&img, -7, -3, "clip", 3, ink);
    kd_font_draw(&img, img.width - 2, img.height - 2, "clip", 3, ink);
    kd_font_draw_vertical(&img, -4, -50, "clip", 2, ink);
    kd_image_free(&img);
}

int main(void)
{
    test_coverage();
    test_drawing();
    return kd_test_finish("image_font");
}
