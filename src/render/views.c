/* Named views: the computed ones (default, inside) and the views file. */
#include "views.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kd_parse.h"

const char *const kd_view_computed_names[] = {"default", "inside", NULL};

/* Inside-view search: candidate eyes on a grid of the box, heights tried
 * from a third of the box up (a person's eye in a hall), and how close to
 * geometry an eye may be, as a fraction of the box diagonal. */
static const float k_heights[] = {1.0f / 3.0f, 0.2f, 0.5f};
enum { KD_VIEW_GRID = 5 };
#define KD_VIEW_MIN_CLEARANCE 0.01f
#define KD_VIEW_MIN_ENCLOSED 0.5f

/* Distance to the first hit from eye along dir, in units of dir's length;
 * -1 for none. */
static float hit_distance(const kd_trace_scene *scene, const float eye[3], const float dir[3])
{
    kd_ray ray = {{eye[0], eye[1], eye[2]}, {dir[0], dir[1], dir[2]}, INFINITY};
    kd_trace_hit hit;
    kd_trace_counters c = {0, 0, 0};
    kd_trace_closest(scene, &ray, &hit, &c);
    return hit.tri == KD_TRACE_NO_HIT ? -1.0f : hit.t;
}

kd_view_probe kd_view_probe_at(const kd_trace_scene *scene, const float eye[3])
{
    kd_view_probe p = {0.0f, INFINITY, 0.0f};
    int hits = 0, rays = 0;
    double sum = 0.0;
    for (int i = 0; i < 27; i++) {
        if (i == 13)
            continue; /* the cube's centre: no direction */
        const float dir[3] = {(float)(i % 3 - 1), (float)(i / 3 % 3 - 1), (float)(i / 9 - 1)};
        const float t = hit_distance(scene, eye, dir);
        rays++;
        if (t < 0.0f)
            continue;
        const float d = t * sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        hits++;
        sum += d;
        p.clearance = fminf(p.clearance, d);
    }
    p.hit_fraction = (float)hits / (float)rays;
    p.mean_distance = hits ? (float)(sum / hits) : 0.0f;
    return p;
}

static int dominant_axis(const float v[3])
{
    float ax = fabsf(v[0]), ay = fabsf(v[1]), az = fabsf(v[2]);
    return ax >= ay && ax >= az ? 0 : (ay >= az ? 1 : 2);
}

/* The centre of the largest free space scores high: an eye far from every
 * surface (its clearance), among walls (most probes hit; an open roof lets
 * some out), so enclosed eyes (at least half the probes hit) always beat
 * open ones. An eye inside a solid part, or brushing one, has little
 * clearance and loses. */
static float probe_score(const kd_view_probe *p, float diag)
{
    if (!(p->clearance > KD_VIEW_MIN_CLEARANCE * diag))
        return -1.0f;
    const float room = p->hit_fraction * fminf(p->clearance, diag);
    return p->hit_fraction >= KD_VIEW_MIN_ENCLOSED ? diag + room : room;
}

static float box_diag(kd_aabb b)
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++)
        d2 += (b.hi[a] - b.lo[a]) * (b.hi[a] - b.lo[a]);
    return sqrtf(d2);
}

/* The best candidate eye on the grid; the first candidate (the box centre
 * at a third of its height) when none has room. */
static void inside_eye(const kd_trace_scene *scene, int up, float eye[3])
{
    const kd_aabb b = scene->bounds;
    const int h0 = up == 0 ? 1 : 0, h1 = up == 2 ? 1 : 2;
    const float diag = box_diag(b);
    float best = -INFINITY;
    for (size_t v = 0; v < sizeof k_heights / sizeof k_heights[0]; v++)
        for (int i = 0; i < KD_VIEW_GRID; i++)
            for (int j = 0; j < KD_VIEW_GRID; j++) {
                /* Grid order from the centre outward, so ties keep the central eye. */
                const int gi = (i + KD_VIEW_GRID / 2) % KD_VIEW_GRID, gj = (j + KD_VIEW_GRID / 2) % KD_VIEW_GRID;
                float p[3];
                p[up] = b.lo[up] + k_heights[v] * (b.hi[up] - b.lo[up]);
                p[h0] = b.lo[h0] + (gi + 0.5f) / KD_VIEW_GRID * (b.hi[h0] - b.lo[h0]);
                p[h1] = b.lo[h1] + (gj + 0.5f) / KD_VIEW_GRID * (b.hi[h1] - b.lo[h1]);
                const kd_view_probe probe = kd_view_probe_at(scene, p);
                const float s = probe_score(&probe, diag);
                if (s > best || best == -INFINITY) {
                    best = s;
                    memcpy(eye, p, sizeof p);
                }
            }
}

/* The look-at point: along the longer horizontal axis of the box, toward
 * the side with the farther wall (more of the room in view). */
static void inside_look(const kd_trace_scene *scene, int up, const float eye[3], float look[3])
{
    const kd_aabb b = scene->bounds;
    const int h0 = up == 0 ? 1 : 0, h1 = up == 2 ? 1 : 2;
    const int axis = b.hi[h0] - b.lo[h0] >= b.hi[h1] - b.lo[h1] ? h0 : h1;
    float plus[3] = {0, 0, 0}, minus[3] = {0, 0, 0};
    plus[axis] = 1.0f;
    minus[axis] = -1.0f;
    const float sign = hit_distance(scene, eye, plus) >= hit_distance(scene, eye, minus) ? 1.0f : -1.0f;
    memcpy(look, eye, 3 * sizeof *look);
    look[axis] += sign * 0.5f * (b.hi[axis] - b.lo[axis]);
}

kd_status kd_view_computed(const char *name, const kd_trace_scene *scene, kd_camera_request *req,
                           kd_error *err)
{
    if (strcmp(name, "default") == 0)
        return KD_OK;
    if (strcmp(name, "inside") != 0)
        return kd_error_set(err, KD_ERR_INVALID, "unknown view '%s' (views: default, inside)", name);
    if (scene->num_nodes == 0)
        return kd_error_set(err, KD_ERR_INVALID, "view inside: the scene is empty");
    const float default_up[3] = {0.0f, 1.0f, 0.0f};
    const int up = dominant_axis(req->has_up ? req->up : default_up);
    if (!req->has_eye)
        inside_eye(scene, up, req->eye);
    if (!req->has_look)
        inside_look(scene, up, req->eye, req->look);
    if (!req->has_fov)
        req->fov_deg = KD_VIEW_INSIDE_FOV;
    req->has_eye = req->has_look = req->has_fov = true;
    return KD_OK;
}

/* ---- The views file ------------------------------------------------------ */

/* Reads "KEY VALUE" pairs after the scene and view names into req (only the
 * fields not given already). Returns false on a malformed pair. */
static bool parse_view_fields(char *save, kd_camera_request *req, char *bad, size_t bad_bytes)
{
    kd_camera_request v;
    memset(&v, 0, sizeof v);
    for (char *key; (key = strtok_r(NULL, " \t\r\n", &save));) {
        char *value = strtok_r(NULL, " \t\r\n", &save);
        bool ok = value != NULL;
        if (ok && strcmp(key, "eye") == 0)
            ok = v.has_eye = kd_parse_float_list(value, v.eye, 3);
        else if (ok && strcmp(key, "look") == 0)
            ok = v.has_look = kd_parse_float_list(value, v.look, 3);
        else if (ok && strcmp(key, "up") == 0)
            ok = v.has_up = kd_parse_float_list(value, v.up, 3);
        else if (ok && strcmp(key, "fov") == 0)
            ok = v.has_fov = kd_parse_float(value, &v.fov_deg) && v.fov_deg > 0.0f && v.fov_deg < 180.0f;
        else
            ok = false;
        if (!ok) {
            snprintf(bad, bad_bytes, "'%s %s'", key, value ? value : "");
            return false;
        }
    }
    if (!v.has_eye || !v.has_look) {
        snprintf(bad, bad_bytes, "a view needs eye and look");
        return false;
    }
    if (!req->has_eye)
        memcpy(req->eye, v.eye, sizeof v.eye);
    if (!req->has_look)
        memcpy(req->look, v.look, sizeof v.look);
    if (!req->has_up && v.has_up)
        memcpy(req->up, v.up, sizeof v.up);
    if (!req->has_fov && v.has_fov)
        req->fov_deg = v.fov_deg;
    req->has_eye = req->has_look = true;
    req->has_up |= v.has_up;
    req->has_fov |= v.has_fov;
    return true;
}

static void append_name(char *names, size_t bytes, const char *name)
{
    if (!names || !bytes)
        return;
    size_t len = strlen(names);
    snprintf(names + len, bytes - len, "%s%s", len ? ", " : "", name);
}

kd_status kd_views_file_lookup(const char *path, const char *scene_name, const char *name,
                               kd_camera_request *req, bool *found, char *names, size_t names_bytes,
                               kd_error *err)
{
    *found = false;
    if (names && names_bytes)
        names[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return KD_OK;
    char line[1024], bad[160];
    kd_status st = KD_OK;
    for (int number = 1; st == KD_OK && fgets(line, sizeof line, f); number++) {
        char *hash = strchr(line, '#'), *save = NULL;
        if (hash)
            *hash = '\0';
        const char *scene = strtok_r(line, " \t\r\n", &save);
        const char *view = scene ? strtok_r(NULL, " \t\r\n", &save) : NULL;
        if (!scene || !view || strcmp(scene, scene_name) != 0)
            continue;
        append_name(names, names_bytes, view);
        if (*found || strcmp(view, name) != 0)
            continue;
        if (!parse_view_fields(save, req, bad, sizeof bad))
            st = kd_error_set(err, KD_ERR_PARSE, "%s:%d: view %s of %s: %s", path, number, view, scene, bad);
        *found = st == KD_OK;
    }
    fclose(f);
    return st;
}
