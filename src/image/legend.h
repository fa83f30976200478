/* Legends drawn inside an image: a strip over its bottom rows holding a
 * title, a gradient bar over scankd's ramp (colormap.h) and the values at
 * the bar's ends and middle. Drawing inside keeps an image exactly the size
 * asked for; an image too small to spare the strip gets none. */
#ifndef KD_LEGEND_H
#define KD_LEGEND_H

#include <stdbool.h>
#include <stddef.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_legend {
    const char *title;        /* "traversal steps per ray" */
    const char *short_title;  /* for narrow images ("steps per ray"); NULL: title */
    float lo, hi;             /* the values at the bar's left and right ends */
    bool reversed;            /* the bar runs from the ramp's top down (depth: near is pale) */
    bool clipped;             /* hi is a percentile of the values and higher ones share its colour */
    int percentile;           /* when clipped: which percentile (99) */
    float max;                /* when clipped: the largest value, which the title names */
} kd_legend;

enum {
    KD_LEGEND_MIN_WIDTH = 64  /* narrower images get no legend */
};

/* Height in pixels of the strip on an image of this width (the width picks
 * the text scale). */
int kd_legend_height(int width);
/* Whether an image of this size gets a legend: at least KD_LEGEND_MIN_WIDTH
 * wide and twice the strip tall. */
bool kd_legend_fits(int width, int height);

/* The title the strip shows on an image of this width: the longest of the
 * legend's wordings that fits ("traversal steps per ray (top: 99th
 * percentile, max 457)" down to "steps, top p99" and "steps", the short
 * title's first word), cut only when none fits. */
void kd_legend_title(const kd_legend *legend, int width, char *out, size_t bytes);

/* The value printed under the bar's right end: hi, with a '+' when clipped. */
void kd_legend_top_label(const kd_legend *legend, char *out, size_t bytes);

/* Draws the legend over img's bottom kd_legend_height(width) rows when it
 * fits (kd_legend_fits); returns whether it drew. */
bool kd_legend_draw(kd_image *img, const kd_legend *legend);

#ifdef __cplusplus
}
#endif
#endif
