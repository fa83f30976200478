/* The camera: automatic framing keeps every corner of the scene box in view
 * and fills most of the frame, for boxes of any shape (flat, long, a point)
 * and any aspect and field of view; flags override; ray generation; option
 * parsing and its errors. */
#include <math.h>
#include <string.h>

#include "camera.h"
#include "test_support.h"

static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Largest |screen coordinate| over the box corners (1 = at the frame's edge);
 * -1 when a corner is behind the eye. */
static float corner_extent(const kd_camera *cam, kd_aabb box)
{
    float rr = dot3(cam->right, cam->right), uu = dot3(cam->upward, cam->upward), worst = 0.0f;
    for (int c = 0; c < 8; c++) {
        float rel[3];
        for (int a = 0; a < 3; a++)
            rel[a] = ((c >> a) & 1 ? box.hi[a] : box.lo[a]) - cam->eye[a];
        float z = dot3(rel, cam->forward);
        if (!(z > 0.0f))
            return -1.0f;
        float sx = dot3(rel, cam->right) / (rr * z), sy = dot3(rel, cam->upward) / (uu * z);
        worst = fmaxf(worst, fmaxf(fabsf(sx), fabsf(sy)));
    }
    return worst;
}

static int parse(const char *a0, const char *a1, const char *a2, kd_camera_request *req)
{
    char *argv[4] = {(char *)"render", (char *)a0, (char *)a1, (char *)a2};
    int argc = a2 ? 4 : (a1 ? 3 : 2);
    int i = 1;
    kd_error err;
    int r = kd_camera_parse_option(argc, argv, &i, req, &err);
    if (r > 0)
        CHECK(i == argc - 1); /* consumed exactly the option and its values */
    return r;
}

int main(void)
{
    kd_aabb boxes[] = {
        {{0, 0, 0}, {1, 1, 1}},
        {{-10, 0, 0}, {10, 1, 1}},        /* long */
        {{0, 0, 0}, {5, 0, 5}},           /* flat: zero height */
        {{100, 200, 300}, {101, 203, 300.5f}},
        {{0.1f, 0.001f, -0.05f}, {0.15f, 0.16f, 0.06f}}, /* bunny-sized */
    };
    int sizes[][2] = {{64, 64}, {200, 50}, {50, 200}};
    float fovs[] = {20, 40, 90};
    for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; b++)
        for (int s = 0; s < 3; s++)
            for (int f = 0; f < 3; f++) {
                kd_camera_request req;
                memset(&req, 0, sizeof req);
                req.has_fov = true;
                req.fov_deg = fovs[f];
                kd_camera cam;
                kd_error err;
                CHECK(kd_camera_setup(&cam, &req, boxes[b], sizes[s][0], sizes[s][1], &err) == KD_OK);
                float extent = corner_extent(&cam, boxes[b]);
                CHECK_MSG(extent > 0.85f && extent <= 1.0f, "box %zu size %dx%d fov %g: extent %g",
                          b, sizes[s][0], sizes[s][1], (double)fovs[f], (double)extent);
                /* the centre pixel looks (almost) straight ahead */
                kd_ray r = kd_camera_ray(&cam, cam.width / 2, cam.height / 2);
                CHECK(dot3(r.dir, cam.forward) > 0.99f && fabsf(dot3(r.dir, r.dir) - 1.0f) < 1e-5f);
                /* the top-left pixel goes up and left */
                r = kd_camera_ray(&cam, 0, 0);
                CHECK(dot3(r.dir, cam.right) < 0.0f && dot3(r.dir, cam.upward) > 0.0f);
            }
    /* A point-sized box and an empty one still give a usable camera. */
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    kd_camera cam;
    kd_error err;
    kd_aabb point = {{1, 2, 3}, {1, 2, 3}}, empty = {{1, 1, 1}, {-1, -1, -1}};
    CHECK(kd_camera_setup(&cam, &req, point, 32, 32, &err) == KD_OK);
    CHECK(kd_camera_setup(&cam, &req, empty, 32, 32, &err) == KD_OK);

    /* Overrides are taken as given. */
    req.has_eye = req.has_look = req.has_up = true;
    float eye[3] = {1, 2, 3}, look[3] = {0, 0, 0}, up[3] = {0, 0, 1};
    memcpy(req.eye, eye, sizeof eye);
    memcpy(req.look, look, sizeof look);
    memcpy(req.up, up, sizeof up);
    req.width = 10;
    req.height = 20;
    CHECK(kd_camera_setup(&cam, &req, boxes[0], 64, 64, &err) == KD_OK);
    CHECK(memcmp(cam.eye, eye, sizeof eye) == 0 && memcmp(cam.look, look, sizeof look) == 0);
    CHECK(cam.width == 10 && cam.height == 20 && cam.fov_deg == (float)KD_CAMERA_DEFAULT_FOV);
    req.up[0] = 1; /* up along the view direction */
    req.up[1] = 2;
    req.up[2] = 3;
    CHECK(kd_camera_setup(&cam, &req, boxes[0], 64, 64, &err) == KD_ERR_INVALID);
    memcpy(req.look, eye, sizeof eye); /* eye == look */
    CHECK(kd_camera_setup(&cam, &req, boxes[0], 64, 64, &err) == KD_ERR_INVALID);

    /* Parsing. */
    memset(&req, 0, sizeof req);
    CHECK(parse("--eye", "1,2.5,-3e1", NULL, &req) == 1 && req.has_eye && req.eye[2] == -30.0f);
    CHECK(parse("--size", "640", "480", &req) == 1 && req.width == 640 && req.height == 480);
    CHECK(parse("--fov", "35", NULL, &req) == 1 && req.has_fov && req.fov_deg == 35.0f);
    CHECK(parse("--up", "0,0,1", NULL, &req) == 1 && req.has_up);
    CHECK(parse("--look", "0,0,0", NULL, &req) == 1 && req.has_look);
    CHECK(parse("--threads", "2", NULL, &req) == 0); /* not a camera option */
    CHECK(parse("--eye", "1,2", NULL, &req) == -1);
    CHECK(parse("--eye", "1,2,3,4", NULL, &req) == -1);
    CHECK(parse("--eye", "1,x,3", NULL, &req) == -1);
    CHECK(parse("--eye", NULL, NULL, &req) == -1);
    CHECK(parse("--fov", "180", NULL, &req) == -1);
    CHECK(parse("--fov", "0", NULL, &req) == -1);
    CHECK(parse("--fov", "nan", NULL, &req) == -1);
    CHECK(parse("--size", "0", "10", &req) == -1);
    CHECK(parse("--size", "10", "99999", &req) == -1);
    CHECK(parse("--size", "10", NULL, &req) == -1);
    return kd_test_finish("render_camera");
}
