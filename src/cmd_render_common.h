/* What the render and verify commands share: a progress line on a terminal
 * and the report of how the scene and its tree were prepared. */
#ifndef KD_CMD_RENDER_COMMON_H
#define KD_CMD_RENDER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "camera.h"
#include "cli_util.h"
#include "render_scene.h"

/* A one-line progress meter on stderr: shown only when stderr is a terminal,
 * not quiet, and the work has run for over a second; redrawn at most ten
 * times a second; erased at the end. */
typedef struct kd_cli_progress {
    const char *command, *what;
    double start, last_draw;
    bool enabled, drawn;
} kd_cli_progress;

void kd_cli_progress_start(kd_cli_progress *p, const char *command, const char *what, bool quiet);
/* Matches kd_render_progress_fn and kd_verify_progress_fn (ctx: the meter). */
void kd_cli_progress_update(void *ctx, size_t done, size_t total);
void kd_cli_progress_end(kd_cli_progress *p);

/* "scene ..." and "tree ..." lines of the text report. */
void kd_cli_print_scene(FILE *f, const char *obj_path, const char *tree_path, const kd_scene *scene);
void kd_cli_print_camera(FILE *f, const kd_camera *cam);
/* The same as JSON members of an open object. */
void kd_cli_json_scene(kd_json *json, const char *obj_path, const char *tree_path,
                       const kd_scene *scene);
void kd_cli_json_camera(kd_json *json, const kd_camera *cam);

#endif
