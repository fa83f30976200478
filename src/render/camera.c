/* Camera set-up: automatic framing on the scene bounds and option parsing. */
#include "camera.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kd_parse.h"
#include "image.h"

/* Direction from the look-at point toward the eye when none is given: from
 * the front (+z), a little right (+x) and above (+y), which shows most
 * y-up scanned objects (bunny, dragon) and the outside of y-up interiors. */
static const float k_view_dir[3] = {0.6f, 0.5f, 1.0f};

static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const float a[3], const float b[3], float out[3])
{
    float x = a[1] * b[2] - a[2] * b[1];
    float y = a[2] * b[0] - a[0] * b[2];
    float z = a[0] * b[1] - a[1] * b[0];
    out[0] = x;
    out[1] = y;
    out[2] = z;
}

static bool normalize3(float v[3])
{
    float len = sqrtf(dot3(v, v));
    if (isinf(len)) {
        /* The squares overflow (a view across a scene near the float limit):
         * scale down by the largest component first. */
        const float m = fmaxf(fabsf(v[0]), fmaxf(fabsf(v[1]), fabsf(v[2])));
        if (!isfinite(m))
            return false;
        for (int a = 0; a < 3; a++)
            v[a] /= m;
        len = sqrtf(dot3(v, v));
    }
    if (!(len > 0.0f) || !isfinite(len))
        return false;
    for (int a = 0; a < 3; a++)
        v[a] /= len;
    return true;
}

/* Orthonormal camera basis from a view direction f (eye to look) and up. */
static kd_status camera_basis(const float view[3], const float up[3], float f[3], float r[3],
                              float u[3], kd_error *err)
{
    memcpy(f, view, 3 * sizeof f[0]);
    if (!normalize3(f))
        return kd_error_set(err, KD_ERR_INVALID, "the eye and the look-at point coincide");
    float up_n[3] = {up[0], up[1], up[2]};
    if (!normalize3(up_n))
        return kd_error_set(err, KD_ERR_INVALID, "the up direction is zero");
    cross3(f, up_n, r);
    if (sqrtf(dot3(r, r)) < 1e-4f)
        return kd_error_set(err, KD_ERR_INVALID, "the up direction is parallel to the view direction");
    normalize3(r);
    cross3(r, f, u);
    return KD_OK;
}

kd_status kd_camera_finish(kd_camera *cam, kd_error *err)
{
    if (cam->width < 1 || cam->height < 1 || cam->width > KD_IMAGE_MAX_SIDE ||
        cam->height > KD_IMAGE_MAX_SIDE)
        return kd_error_set(err, KD_ERR_INVALID, "image size %dx%d is outside 1..%d", cam->width,
                            cam->height, KD_IMAGE_MAX_SIDE);
    if (!(cam->fov_deg > 0.0f && cam->fov_deg < 180.0f))
        return kd_error_set(err, KD_ERR_INVALID, "field of view %g is not in (0, 180) degrees",
                            (double)cam->fov_deg);
    float view[3] = {cam->look[0] - cam->eye[0], cam->look[1] - cam->eye[1], cam->look[2] - cam->eye[2]};
    float f[3] = {0}, r[3] = {0}, u[3] = {0};
    kd_status st = camera_basis(view, cam->up, f, r, u, err);
    if (st)
        return st;
    float tan_y = tanf(cam->fov_deg * 0.5f * 0.017453292519943295f);
    float tan_x = tan_y * (float)cam->width / (float)cam->height;
    for (int a = 0; a < 3; a++) {
        cam->forward[a] = f[a];
        cam->right[a] = r[a] * tan_x;
        cam->upward[a] = u[a] * tan_y;
    }
    return KD_OK;
}

/* Distance from look along the view direction at which every box corner is
 * inside the view (with a 5% margin) and the eye is outside the box. */
/* The view a framing fits points into: look point, basis and half-angle tangents. */
typedef struct framing {
    const float *look, *f, *r, *u;
    float tan_x, tan_y;
    float dist, depth_max;   /* running results */
} framing;

/* Widens the framing so point p is inside the view with a 5% margin. */
static void framing_fit(framing *fr, const float p[3])
{
    float rel[3] = {p[0] - fr->look[0], p[1] - fr->look[1], p[2] - fr->look[2]};
    float x = dot3(rel, fr->r), y = dot3(rel, fr->u), z = -dot3(rel, fr->f); /* z: toward the eye */
    float need = z + fmaxf(fabsf(x) / (0.95f * fr->tan_x), fabsf(y) / (0.95f * fr->tan_y));
    fr->dist = fmaxf(fr->dist, need);
    fr->depth_max = fmaxf(fr->depth_max, z);
}

/* In double: the extents of a box near the float limit overflow in float. */
static double box_diagonal(kd_aabb bounds)
{
    double diag = 0.0;
    for (int a = 0; a < 3; a++)
        diag += ((double)bounds.hi[a] - bounds.lo[a]) * ((double)bounds.hi[a] - bounds.lo[a]);
    return sqrt(diag);
}

/* Distance from look along the view direction at which the framed points are
 * inside the view and the eye is outside the box. */
static float framing_result(const framing *fr, kd_aabb bounds)
{
    double diag = box_diagonal(bounds);
    if (!(diag > 0.0))
        return 1.0f;
    return (float)fmax(fr->dist, fr->depth_max + 0.01 * diag); /* inf when out of float's range */
}

/* An automatic camera must come out finite: a scene whose coordinates lie
 * near the float limit cannot be framed from outside in single precision. */
static kd_status check_framed(const kd_camera *cam, kd_aabb bounds, kd_error *err)
{
    for (int a = 0; a < 3; a++)
        if (!isfinite(cam->eye[a]) || !isfinite(cam->look[a]))
            return kd_error_set(err, KD_ERR_UNSUPPORTED,
                                "the scene (bounds [%g, %g, %g] .. [%g, %g, %g]) is too large to frame "
                                "automatically in single precision; give --eye and --look",
                                bounds.lo[0] + 0.0, bounds.lo[1] + 0.0, bounds.lo[2] + 0.0,
                                bounds.hi[0] + 0.0, bounds.hi[1] + 0.0, bounds.hi[2] + 0.0);
    return KD_OK;
}

static float framing_distance(kd_aabb bounds, const float look[3], const float f[3],
                              const float r[3], const float u[3], float tan_x, float tan_y)
{
    framing fr = {look, f, r, u, tan_x, tan_y, 0.0f, -INFINITY};
    for (int c = 0; c < 8; c++) {
        float corner[3];
        for (int a = 0; a < 3; a++)
            corner[a] = (c >> a) & 1 ? bounds.hi[a] : bounds.lo[a];
        framing_fit(&fr, corner);
    }
    return framing_result(&fr, bounds);
}

kd_status kd_camera_setup(kd_camera *cam, const kd_camera_request *req, kd_aabb bounds,
                          int default_width, int default_height, kd_error *err)
{
    memset(cam, 0, sizeof *cam);
    cam->width = req->width > 0 ? req->width : default_width;
    cam->height = req->height > 0 ? req->height : default_height;
    cam->fov_deg = req->has_fov ? req->fov_deg : (float)KD_CAMERA_DEFAULT_FOV;
    float up[3] = {0.0f, 1.0f, 0.0f};
    if (req->has_up)
        memcpy(up, req->up, sizeof up);
    memcpy(cam->up, up, sizeof up);
    bool have_bounds = bounds.lo[0] <= bounds.hi[0] && bounds.lo[1] <= bounds.hi[1] &&
                       bounds.lo[2] <= bounds.hi[2];
    for (int a = 0; a < 3; a++)
        cam->look[a] = req->has_look ? req->look[a]
                                     : (have_bounds ? (float)(0.5 * ((double)bounds.lo[a] + bounds.hi[a]))
                                                    : 0.0f); /* the same value as in float, without overflow */
    if (req->has_eye) {
        memcpy(cam->eye, req->eye, sizeof cam->eye);
    } else {
        if (!(cam->width > 0 && cam->height > 0 && cam->fov_deg > 0.0f && cam->fov_deg < 180.0f))
            return kd_camera_finish(cam, err); /* reports what is wrong */
        float view[3] = {-k_view_dir[0], -k_view_dir[1], -k_view_dir[2]};
        float f[3] = {0}, r[3] = {0}, u[3] = {0};
        kd_status st = camera_basis(view, up, f, r, u, err);
        if (st)
            return st;
        float tan_y = tanf(cam->fov_deg * 0.5f * 0.017453292519943295f);
        float tan_x = tan_y * (float)cam->width / (float)cam->height;
        float dist = have_bounds ? framing_distance(bounds, cam->look, f, r, u, tan_x, tan_y) : 1.0f;
        for (int a = 0; a < 3; a++)
            cam->eye[a] = cam->look[a] - dist * f[a];
        KD_TRY(check_framed(cam, bounds, err));
    }
    return kd_camera_finish(cam, err);
}

/* --size WxH, or the older W H: the values at argv[*i + 1] (and + 2). */
static int parse_size(int argc, char **argv, int *i, kd_camera_request *req, kd_error *err)
{
    if (*i + 1 >= argc) {
        kd_error_set(err, KD_ERR_PARSE, "option --size needs a value (WxH)");
        return -1;
    }
    const char *value = argv[*i + 1];
    long w, h;
    if (strpbrk(value, "xX")) {
        if (!kd_parse_size(value, KD_IMAGE_MAX_SIDE, &req->width, &req->height)) {
            kd_error_set(err, KD_ERR_PARSE, "--size '%s': expected WxH, each a whole number in 1..%d", value,
                         KD_IMAGE_MAX_SIDE);
            return -1;
        }
        *i += 1;
        return 1;
    }
    if (*i + 2 >= argc || !kd_parse_int(value, 1, KD_IMAGE_MAX_SIDE, &w) ||
        !kd_parse_int(argv[*i + 2], 1, KD_IMAGE_MAX_SIDE, &h)) {
        kd_error_set(err, KD_ERR_PARSE, "--size '%s%s%s': expected WxH (or W H), each a whole number in 1..%d",
                     value, *i + 2 < argc ? " " : "", *i + 2 < argc ? argv[*i + 2] : "", KD_IMAGE_MAX_SIDE);
        return -1;
    }
    req->width = (int)w;
    req->height = (int)h;
    *i += 2;
    return 1;
}

int kd_camera_parse_option(int argc, char **argv, int *i, kd_camera_request *req, kd_error *err)
{
    const char *opt = argv[*i];
    float *vec = NULL;
    bool *flag = NULL;
    if (strcmp(opt, "--size") == 0)
        return parse_size(argc, argv, i, req, err);
    if (strcmp(opt, "--eye") == 0) {
        vec = req->eye;
        flag = &req->has_eye;
    } else if (strcmp(opt, "--look") == 0) {
        vec = req->look;
        flag = &req->has_look;
    } else if (strcmp(opt, "--up") == 0) {
        vec = req->up;
        flag = &req->has_up;
    } else if (strcmp(opt, "--fov") != 0) {
        return 0;
    }
    if (*i + 1 >= argc) {
        kd_error_set(err, KD_ERR_PARSE, "option %s needs a value", opt);
        return -1;
    }
    const char *value = argv[*i + 1];
    if (vec) {
        if (!kd_parse_float_list(value, vec, 3)) {
            kd_error_set(err, KD_ERR_PARSE, "%s '%s': expected three numbers x,y,z", opt, value);
            return -1;
        }
        *flag = true;
    } else {
        float fov;
        if (!kd_parse_float(value, &fov) || !(fov > 0.0f && fov < 180.0f)) {
            kd_error_set(err, KD_ERR_PARSE, "--fov '%s': expected degrees between 0 and 180", value);
            return -1;
        }
        req->fov_deg = fov;
        req->has_fov = true;
    }
    *i += 1;
    return 1;
}

kd_status kd_camera_setup_mesh(kd_camera *cam, const kd_camera_request *req, const kd_mesh *mesh,
                               int default_width, int default_height, kd_error *err)
{
    kd_aabb bounds = kd_mesh_bounds(mesh);
    kd_status st = kd_camera_setup(cam, req, bounds, default_width, default_height, err);
    if (st || req->has_eye || mesh->num_triangles == 0)
        return st;
    /* Same view as kd_camera_setup, but fitted to the triangles' vertices
     * rather than the box corners, so the object itself fills the frame. */
    float view[3] = {-k_view_dir[0], -k_view_dir[1], -k_view_dir[2]};
    float f[3] = {0}, r[3] = {0}, u[3] = {0};
    if ((st = camera_basis(view, cam->up, f, r, u, err)))
        return st;
    float tan_y = tanf(cam->fov_deg * 0.5f * 0.017453292519943295f);
    float tan_x = tan_y * (float)cam->width / (float)cam->height;
    framing fr = {cam->look, f, r, u, tan_x, tan_y, 0.0f, -INFINITY};
    for (uint64_t i = 0; i < 3ull * mesh->num_triangles; i++)
        framing_fit(&fr, mesh->positions + 3ull * mesh->indices[i]);
    float dist = framing_result(&fr, bounds);
    for (int a = 0; a < 3; a++)
        cam->eye[a] = cam->look[a] - dist * f[a];
    KD_TRY(check_framed(cam, bounds, err));
    return kd_camera_finish(cam, err);
}
