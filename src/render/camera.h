/* Pinhole camera: plain data plus inline ray generation valid in C and CUDA,
 * so both ray casters shoot the very same rays. Auto-framing and option
 * parsing (host only) are in camera.c. */
#ifndef KD_CAMERA_H
#define KD_CAMERA_H

#include <stdbool.h>
#include <stdio.h>

#include "kd_error.h"
#include "kd_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_camera {
    int width, height;        /* image size in pixels */
    float eye[3], look[3], up[3];
    float fov_deg;            /* vertical field of view */
    /* Derived by kd_camera_finish: the ray through pixel (x, y) has direction
     * forward + (2 (x + 0.5) / width - 1) right + (1 - 2 (y + 0.5) / height) upward,
     * right and upward already scaled by the half-extents of the view. */
    float forward[3], right[3], upward[3];
} kd_camera;

/* What the user asked for; anything not given is framed automatically. */
typedef struct kd_camera_request {
    bool has_eye, has_look, has_up, has_fov;
    float eye[3], look[3], up[3];
    float fov_deg;
    int width, height;        /* 0: the command's default */
} kd_camera_request;

enum { KD_CAMERA_DEFAULT_FOV = 40 };

/* Ray through the centre of pixel (x, y), row 0 at the top; unit direction. */
KD_HD kd_ray kd_camera_ray(const kd_camera *cam, int x, int y)
{
    float sx = 2.0f * ((float)x + 0.5f) / (float)cam->width - 1.0f;
    float sy = 1.0f - 2.0f * ((float)y + 0.5f) / (float)cam->height;
    kd_ray ray;
    float len2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        ray.org[a] = cam->eye[a];
        ray.dir[a] = cam->forward[a] + sx * cam->right[a] + sy * cam->upward[a];
        len2 += ray.dir[a] * ray.dir[a];
    }
    float inv_len = 1.0f / sqrtf(len2);
    for (int a = 0; a < 3; a++)
        ray.dir[a] *= inv_len;
    ray.t_max = INFINITY;
    return ray;
}

/* Fills cam from req, framing missing parts on the scene bounds: look at the
 * box centre, eye along a fixed diagonal (from +x, +y, +z), at the distance
 * where every box corner is just inside the view; up +y. default_width and
 * default_height apply when req->width/height are 0. Fails (KD_ERR_INVALID)
 * on an eye equal to look, an up parallel to the view, or a bad fov or size. */
kd_status kd_camera_setup(kd_camera *cam, const kd_camera_request *req, kd_aabb bounds,
                          int default_width, int default_height, kd_error *err);

/* As kd_camera_setup, but an automatic eye is placed so that the mesh's
 * triangles (not just their bounding box) fill the view: the default framing
 * of the commands. */
kd_status kd_camera_setup_mesh(kd_camera *cam, const kd_camera_request *req, const kd_mesh *mesh,
                               int default_width, int default_height, kd_error *err);

/* Derives forward/right/upward from eye, look, up, fov and size. */
kd_status kd_camera_finish(kd_camera *cam, kd_error *err);

/* Parses one camera option at argv[*i] (--eye x,y,z --look x,y,z --up x,y,z
 * --fov deg --size WxH, or the older --size W H). Returns 1 when it consumed
 * an option (advancing *i past its values), 0 when argv[*i] is not a camera
 * option, -1 on a bad or missing value (message in err). */
int kd_camera_parse_option(int argc, char **argv, int *i, kd_camera_request *req, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
