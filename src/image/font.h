/* A tiny built-in bitmap font for labels on images and charts.
 *
 * Every printable ASCII character (32..126) has a glyph 5 pixels wide in a
 * cell 9 pixels tall: capitals and digits stand on rows 0..6, descenders
 * (g j p q y , ;) use rows 7..8. Text is drawn at an integer scale, each
 * font pixel becoming a scale x scale square. Characters outside 32..126
 * are drawn as '?'. */
#ifndef KD_FONT_H
#define KD_FONT_H

#include <stdbool.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KD_FONT_GLYPH_WIDTH = 5,  /* inked columns of a glyph */
    KD_FONT_ADVANCE = 6,      /* glyph plus one blank column */
    KD_FONT_CAP_HEIGHT = 7,   /* rows above the baseline */
    KD_FONT_CELL_HEIGHT = 9,  /* rows including descenders */
    KD_FONT_FIRST_CHAR = 32,
    KD_FONT_LAST_CHAR = 126
};

/* True for the characters the font draws (printable ASCII). */
bool kd_font_has_glyph(char c);
/* True when font pixel (x, y) of c's glyph is inked; x in [0, 5), y in [0, 9). */
bool kd_font_pixel(char c, int x, int y);

/* Size in image pixels of text drawn at scale (no trailing blank column). */
int kd_font_text_width(const char *text, int scale);
int kd_font_text_height(int scale);

/* Draws text with the top-left of its first cell at (x, y), clipped to img. */
void kd_font_draw(kd_image *img, int x, int y, const char *text, int scale, kd_rgb colour);
/* Draws text rotated a quarter turn anticlockwise (reading bottom to top, for
 * a y-axis label); (x, y) is the top-left of the rotated text's box, which
 * is kd_font_text_height wide and kd_font_text_width tall. */
void kd_font_draw_vertical(kd_image *img, int x, int y, const char *text, int scale,
                           kd_rgb colour);

#ifdef __cplusplus
}
#endif
#endif
