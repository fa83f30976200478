/* Named views: cameras chosen by name (--view NAME) rather than by
 * coordinates. Two are computed from the scene, so they work on any mesh:
 *   default  the automatic outside framing (kd_camera_setup_mesh);
 *   inside   an eye inside the scene's box, in the roomiest free space found
 *            by probing with rays, looking along the box's longest horizontal
 *            axis: the interior of an architectural scene.
 * More can be kept per scene in a views file (kd_views_file_find). */
#ifndef KD_VIEWS_H
#define KD_VIEWS_H

#include <stdbool.h>
#include <stddef.h>

#include "camera.h"
#include "kd_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The computed views' names, NULL-terminated. */
extern const char *const kd_view_computed_names[];

/* Field of view of the inside view: wide, as a room is seen from within. */
#define KD_VIEW_INSIDE_FOV 65.0f

/* Free space seen from a candidate eye. */
typedef struct kd_view_probe {
    float hit_fraction;   /* of the probe rays that hit a triangle */
    float clearance;      /* nearest hit (INFINITY when none) */
    float mean_distance;  /* over the hits */
} kd_view_probe;

/* Casts the probe rays (26 directions: the cube's faces, edges and corners)
 * from eye through scene. */
kd_view_probe kd_view_probe_at(const kd_trace_scene *scene, const float eye[3]);

/* Sets the parts of req that the named computed view fixes and that req
 * does not give already (explicit --eye, --look, --up, --fov win): nothing
 * for default; eye, look and fov for inside, found by tracing through scene
 * (up: req's, or +y). KD_ERR_INVALID for another name, the message listing
 * the computed views. */
kd_status kd_view_computed(const char *name, const kd_trace_scene *scene, kd_camera_request *req,
                           kd_error *err);

/* A views file: one view a line, '#' starts a comment,
 *     SCENE VIEW eye X,Y,Z look X,Y,Z [up X,Y,Z] [fov DEG]
 * SCENE is the scene's short name (kd_scene_name: the file name without
 * folders, .gz and .obj). kd_views_file_lookup sets req as kd_view_computed
 * does from the line of scene_name and name, and *found says whether there
 * was one (a file that does not exist has none). Fails with KD_ERR_PARSE on
 * a malformed line (its number in the message). names, when not NULL,
 * receives the file's view names for scene_name, comma-separated. */
kd_status kd_views_file_lookup(const char *path, const char *scene_name, const char *name,
                               kd_camera_request *req, bool *found, char *names, size_t names_bytes,
                               kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
