/* Legends inside images: a title, the ramp as a bar, values under it. */
#include "legend.h"

#include <stdio.h>
#include <string.h>

#include "colormap.h"
#include "font.h"

/* Layout, in font pixels (multiplied by the text scale). Values are digits
 * and signs, which need no descender rows. */
enum {
    LEGEND_PAD_TOP = 3,
    LEGEND_GAP_TITLE = 2,
    LEGEND_BAR = 6,
    LEGEND_TICK = 2,
    LEGEND_GAP_VALUES = 1,
    LEGEND_PAD_BOTTOM = 3,
    LEGEND_MARGIN_X = 6
};

static int legend_scale(int width)
{
    return width < 512 ? 1 : (width < 1600 ? 2 : 3);
}

int kd_legend_height(int width)
{
    return legend_scale(width) * (LEGEND_PAD_TOP + KD_FONT_CELL_HEIGHT + LEGEND_GAP_TITLE + LEGEND_BAR +
                                  LEGEND_TICK + LEGEND_GAP_VALUES + KD_FONT_CAP_HEIGHT + LEGEND_PAD_BOTTOM);
}

bool kd_legend_fits(int width, int height)
{
    return width >= KD_LEGEND_MIN_WIDTH && height >= 2 * kd_legend_height(width);
}

void kd_legend_top_label(const kd_legend *legend, char *out, size_t bytes)
{
    char value[32];
    kd_format_value(legend->hi, value, sizeof value);
    snprintf(out, bytes, "%s%s", value, legend->clipped ? "+" : "");
}

/* "st", "nd", "rd" or "th" after n. */
static const char *ordinal_suffix(int n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* The legend's wordings, longest first; returns how many. The tiniest take
 * the short title's first word ("steps"). */
static int title_wordings(const kd_legend *lg, char out[][160])
{
    const char *title = lg->title ? lg->title : "";
    const char *brief = lg->short_title ? lg->short_title : title;
    const int word = (int)strcspn(brief, " ");
    if (!lg->clipped) {
        snprintf(out[0], 160, "%s", title);
        snprintf(out[1], 160, "%s", brief);
        snprintf(out[2], 160, "%.*s", word, brief);
        return 3;
    }
    char max[32];
    kd_format_value(lg->max, max, sizeof max);
    const int p = lg->percentile;
    snprintf(out[0], 160, "%s (top: %d%s percentile, max %s)", title, p, ordinal_suffix(p), max);
    snprintf(out[1], 160, "%s (top: p%d, max %s)", title, p, max);
    snprintf(out[2], 160, "%s (top: p%d, max %s)", brief, p, max);
    snprintf(out[3], 160, "%s, top p%d", brief, p);
    snprintf(out[4], 160, "%.*s, top p%d", word, brief, p);
    snprintf(out[5], 160, "%.*s", word, brief);
    return 6;
}

void kd_legend_title(const kd_legend *legend, int width, char *out, size_t bytes)
{
    const int s = legend_scale(width);
    const int room = width - 2 * LEGEND_MARGIN_X * s;
    char wordings[6][160];
    const int n = title_wordings(legend, wordings);
    int pick = n - 1;
    for (int k = 0; k < n; k++)
        if (kd_font_text_width(wordings[k], s) <= room) {
            pick = k;
            break;
        }
    snprintf(out, bytes, "%s", wordings[pick]);
    /* None fits: cut the shortest at a whole character. */
    size_t len = strlen(out);
    while (len > 0 && kd_font_text_width(out, s) > room)
        out[--len] = '\0';
}

/* The bar over the ramp from x0 to x1 (exclusive), bar_h pixels tall at y. */
static void draw_bar(kd_image *img, const kd_legend *lg, int x0, int x1, int y, int bar_h)
{
    const int span = x1 - 1 - x0;
    for (int px = x0; px < x1; px++) {
        float t = span > 0 ? (float)(px - x0) / (float)span : 0.0f;
        kd_image_fill_rect(img, px, y, 1, bar_h, kd_ramp(lg->reversed ? 1.0f - t : t));
    }
}

/* Ticks at lo, the middle and hi and their values under them; the middle
 * one is left out when it would crowd the ends. */
static void draw_values(kd_image *img, const kd_legend *lg, int x0, int x1, int y, int s, kd_rgb ink)
{
    const int span = x1 - 1 - x0;
    const int tick_x[3] = {x0, x0 + span / 2, x1 - 1};
    char text[3][40];
    kd_format_value(lg->lo, text[0], sizeof text[0]);
    kd_format_value(0.5 * ((double)lg->lo + (double)lg->hi), text[1], sizeof text[1]);
    kd_legend_top_label(lg, text[2], sizeof text[2]);
    int text_x[3];
    for (int k = 0; k < 3; k++) {
        const int w = kd_font_text_width(text[k], s);
        text_x[k] = k == 0 ? x0 : (k == 1 ? tick_x[1] - w / 2 : x1 - w);
    }
    const int gap = KD_FONT_ADVANCE * s;
    const bool show_mid = text_x[1] >= text_x[0] + kd_font_text_width(text[0], s) + gap &&
                          text_x[1] + kd_font_text_width(text[1], s) + gap <= text_x[2];
    const int value_y = y + (LEGEND_TICK + LEGEND_GAP_VALUES) * s;
    for (int k = 0; k < 3; k++) {
        if (k == 1 && !show_mid)
            continue;
        kd_image_fill_rect(img, tick_x[k] - (s - 1) / 2, y, s, LEGEND_TICK * s, ink);
        kd_font_draw(img, text_x[k], value_y, text[k], s, ink);
    }
}

bool kd_legend_draw(kd_image *img, const kd_legend *legend)
{
    if (!kd_legend_fits(img->width, img->height))
        return false;
    const kd_rgb panel = {24, 24, 24}, ink = {235, 235, 235};
    const int s = legend_scale(img->width);
    const int top = img->height - kd_legend_height(img->width);
    kd_image_fill_rect(img, 0, top, img->width, img->height - top, panel);
    const int x0 = LEGEND_MARGIN_X * s, x1 = img->width - LEGEND_MARGIN_X * s; /* the bar spans [x0, x1) */
    int y = top + LEGEND_PAD_TOP * s;
    char title[160];
    kd_legend_title(legend, img->width, title, sizeof title);
    kd_font_draw(img, x0, y, title, s, ink);
    y += (KD_FONT_CELL_HEIGHT + LEGEND_GAP_TITLE) * s;
    draw_bar(img, legend, x0, x1, y, LEGEND_BAR * s);
    draw_values(img, legend, x0, x1, y + LEGEND_BAR * s, s, ink);
    return true;
}
