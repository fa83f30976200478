/* Named views: the inside view of a closed room with a pillar where the box
 * centre is puts the eye in the free space and sees walls in every pixel;
 * explicit camera parts win over the view's; an unknown name lists the
 * computed views; the views file's lines, names and errors. Also the CPU
 * caster's diffuse rays in that room: every primary hit bounces, every
 * bounce hits a wall, and the bounces do not depend on the thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_render.h"
#include "render_test_util.h"
#include "test_support.h"
#include "views.h"

/* Appends the 12 triangles of box [lo, hi] to v (9 floats each). */
static uint32_t add_box(float *v, uint32_t n, const float lo[3], const float hi[3])
{
    static const int faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int f = 0; f < 6; f++)
        for (int t = 0; t < 2; t++) {
            const int corner[3] = {faces[f][0], faces[f][1 + t], faces[f][2 + t]};
            for (int c = 0; c < 3; c++)
                for (int a = 0; a < 3; a++)
                    v[9 * n + 3 * c + a] = (corner[c] >> (2 - a)) & 1 ? hi[a] : lo[a];
            n++;
        }
    return n;
}

typedef struct room {
    float *tri_verts;
    uint32_t n;
    kd_tree tree;
    kd_trace_scene trace;
} room;

/* A closed 10 x 4 x 6 room with a pillar through its centre. */
static const float k_pillar_lo[3] = {4.5f, 0.0f, 2.5f}, k_pillar_hi[3] = {5.5f, 4.0f, 3.5f};

static void room_make(room *r)
{
    const float lo[3] = {0, 0, 0}, hi[3] = {10, 4, 6};
    r->tri_verts = malloc(24 * 9 * sizeof *r->tri_verts);
    r->n = add_box(r->tri_verts, 0, lo, hi);
    r->n = add_box(r->tri_verts, r->n, k_pillar_lo, k_pillar_hi);
    CHECK(kd_test_build_sah(r->tri_verts, r->n, &r->tree));
    kd_error err;
    CHECK(kd_trace_scene_init(&r->trace, &r->tree, r->tri_verts, r->n, &err) == KD_OK);
}

static void room_free(room *r)
{
    kd_tree_free(&r->tree);
    free(r->tri_verts);
}

static bool inside_box(const float p[3], const float lo[3], const float hi[3])
{
    return p[0] > lo[0] && p[0] < hi[0] && p[1] > lo[1] && p[1] < hi[1] && p[2] > lo[2] && p[2] < hi[2];
}

static void render(const room *r, const kd_camera *cam, kd_ray_kind rays, int threads, kd_render_buffers *buf,
                   kd_render_stats *stats)
{
    kd_error err;
    CHECK(kd_render_buffers_alloc(buf, cam->width, cam->height, &err) == KD_OK);
    kd_render_options options = {threads, NULL, NULL, rays, 7};
    CHECK(kd_render_cpu(&r->trace, cam, &options, buf, stats, &err) == KD_OK);
}

static void test_inside(const room *r)
{
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    kd_error err;
    CHECK(kd_view_computed("inside", &r->trace, &req, &err) == KD_OK);
    const float room_lo[3] = {0, 0, 0}, room_hi[3] = {10, 4, 6};
    CHECK_MSG(inside_box(req.eye, room_lo, room_hi) && !inside_box(req.eye, k_pillar_lo, k_pillar_hi),
              "eye %g,%g,%g", req.eye[0], req.eye[1], req.eye[2]);
    CHECK(req.has_eye && req.has_look && req.has_fov && req.fov_deg == KD_VIEW_INSIDE_FOV);
    CHECK(req.look[1] == req.eye[1] && req.look[2] == req.eye[2] && req.look[0] != req.eye[0]); /* along x */
    CHECK(kd_view_probe_at(&r->trace, req.eye).hit_fraction == 1.0f);
    kd_camera cam;
    CHECK(kd_camera_setup(&cam, &req, r->trace.bounds, 64, 48, &err) == KD_OK);
    kd_render_buffers buf;
    kd_render_stats stats;
    render(r, &cam, KD_RAYS_PRIMARY, 1, &buf, &stats);
    CHECK_MSG((double)stats.num_hits > 0.9 * (double)stats.num_rays, "%llu of %llu rays hit",
              (unsigned long long)stats.num_hits, (unsigned long long)stats.num_rays);
    kd_render_buffers_free(&buf);

    /* Explicit parts win; the default view changes nothing. */
    memset(&req, 0, sizeof req);
    req.has_fov = true;
    req.fov_deg = 30.0f;
    CHECK(kd_view_computed("inside", &r->trace, &req, &err) == KD_OK && req.fov_deg == 30.0f);
    kd_camera_request zero, def;
    memset(&zero, 0, sizeof zero);
    memset(&def, 0, sizeof def);
    CHECK(kd_view_computed("default", &r->trace, &def, &err) == KD_OK && memcmp(&def, &zero, sizeof def) == 0);
    CHECK(kd_view_computed("attic", &r->trace, &def, &err) == KD_ERR_INVALID);
    CHECK_MSG(strstr(err.message, "attic") && strstr(err.message, "default") && strstr(err.message, "inside"),
              "%s", err.message);
}

/* Diffuse rays from inside the room: one bounce per hit, all hitting. */
static void test_diffuse(const room *r)
{
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    kd_error err;
    kd_camera cam;
    CHECK(kd_view_computed("inside", &r->trace, &req, &err) == KD_OK);
    CHECK(kd_camera_setup(&cam, &req, r->trace.bounds, 40, 30, &err) == KD_OK);
    kd_render_buffers one, two;
    kd_render_stats s1, s2;
    render(r, &cam, KD_RAYS_DIFFUSE, 1, &one, &s1);
    render(r, &cam, KD_RAYS_DIFFUSE, 2, &two, &s2);
    CHECK(s1.num_bounce_rays == s1.num_hits && s1.num_bounce_hits == s1.num_bounce_rays);
    CHECK(s1.bounce_steps > 0 && s1.bounce_seconds >= 0.0);
    const size_t n = (size_t)cam.width * (size_t)cam.height;
    CHECK(memcmp(one.bounce_tri, two.bounce_tri, n * sizeof *one.bounce_tri) == 0);
    CHECK(memcmp(one.bounce_t, two.bounce_t, n * sizeof *one.bounce_t) == 0);
    size_t bounced = 0, self_hits = 0;
    for (size_t p = 0; p < n; p++) {
        bounced += one.bounce_tri[p] != KD_TRACE_NO_HIT && one.bounce_t[p] > 0.0f;
        self_hits += one.bounce_tri[p] == one.tri[p]; /* a flat triangle cannot see itself */
    }
    CHECK(bounced == s1.num_bounce_hits);
    CHECK_MSG(self_hits == 0, "%zu bounces hit the triangle they left", self_hits);
    kd_render_buffers_free(&one);
    kd_render_buffers_free(&two);
}

static void test_views_file(void)
{
    char path[4096];
    kd_test_tmp_path("render_views.txt", path, sizeof path);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs("# views\nroom door eye 1,2,3 look 4,5,6 fov 50  # by the door\nhall door eye 0,0,0 look 1,0,0\n"
          "room gallery eye 9,3,1 look 0,1,5 up 0,0,1\nroom broken eye 1,2\n",
          f);
    fclose(f);
    kd_camera_request req;
    memset(&req, 0, sizeof req);
    bool found = false;
    char names[256];
    kd_error err;
    CHECK(kd_views_file_lookup(path, "room", "door", &req, &found, names, sizeof names, &err) == KD_OK && found);
    CHECK(req.has_eye && req.eye[2] == 3.0f && req.look[0] == 4.0f && req.has_fov && req.fov_deg == 50.0f &&
          !req.has_up);
    memset(&req, 0, sizeof req);
    req.has_eye = true; /* given: kept */
    CHECK(kd_views_file_lookup(path, "room", "gallery", &req, &found, NULL, 0, &err) == KD_OK && found);
    CHECK(req.eye[0] == 0.0f && req.up[2] == 1.0f && req.look[2] == 5.0f);
    CHECK(kd_views_file_lookup(path, "hall", "gallery", &req, &found, names, sizeof names, &err) == KD_OK &&
          !found && strcmp(names, "door") == 0);
    CHECK(kd_views_file_lookup(path, "room", "broken", &req, &found, names, sizeof names, &err) == KD_ERR_PARSE);
    CHECK_MSG(strstr(err.message, ":5:") != NULL, "%s", err.message);
    CHECK(kd_views_file_lookup("/nonexistent/views.txt", "room", "door", &req, &found, names, sizeof names,
                               &err) == KD_OK && !found && names[0] == '\0');
}

int main(void)
{
    room r;
    room_make(&r);
    test_inside(&r);
    test_diffuse(&r);
    room_free(&r);
    test_views_file();
    return kd_test_finish("render_views");
}
