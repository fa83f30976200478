#include "cmd_render_common.h"

#include <string.h>
#include <unistd.h>

#include "cpu_build.h"
#include "cuda_status.h"
#include "obj_loader.h"
#include "tree_stats.h"

const char *const kd_cli_device_names[] = {"auto", "cpu", "gpu", NULL};

bool kd_cli_have_gpu(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = kd_cuda_device_count() > 0;
    return cached != 0;
}

int kd_cli_device_resolve(const char *command, kd_cli_device requested, bool quiet,
                          const char *fallback, kd_cli_device *resolved)
{
    if (requested == KD_CLI_DEVICE_CPU) {
        *resolved = KD_CLI_DEVICE_CPU;
        return -1;
    }
    if (kd_cli_have_gpu()) {
        *resolved = KD_CLI_DEVICE_GPU;
        return -1;
    }
    if (requested == KD_CLI_DEVICE_GPU) {
        kd_cli_error(command, "no CUDA device: --device gpu needs a GPU");
        return KD_EXIT_FAILURE;
    }
    if (!quiet)
        fprintf(stderr, "scankd %s: no CUDA device, %s\n", command, fallback);
    *resolved = KD_CLI_DEVICE_CPU;
    return -1;
}

int kd_cli_sah_constants_option(const char *command, int argc, char **argv, int *i, void *dest)
{
    const char *value = kd_cli_option_value(command, argc, argv, i);
    if (!value)
        return KD_EXIT_USAGE;
    float c[3];
    if (!kd_parse_float_list(value, c, 3) || c[0] < 0.0f || c[1] < 0.0f || c[2] < 0.0f || c[2] > 1.0f)
        return kd_cli_usage_error(command, "--sah-constants takes t,i,e (three numbers >= 0, e <= 1), "
                                           "not '%s'", value);
    *(kd_sah_constants *)dest = (kd_sah_constants){c[0], c[1], c[2]};
    return KD_EXIT_OK;
}

int kd_cli_camera_option(const char *command, int argc, char **argv, int *i, void *dest)
{
    kd_error err;
    if (kd_camera_parse_option(argc, argv, i, dest, &err) < 0)
        return kd_cli_usage_error(command, "%s", err.message);
    return KD_EXIT_OK;
}

bool kd_cli_load_mesh(const char *command, const char *obj_path, kd_mesh *mesh, double *load_ms)
{
    kd_error err;
    memset(mesh, 0, sizeof *mesh);
    double t0 = kd_build_now_ms();
    if (kd_obj_load_file(obj_path, mesh, &err)) {
        kd_cli_error(command, "%s", err.message);
        return false;
    }
    *load_ms = kd_build_now_ms() - t0;
    return true;
}

int kd_cli_scene_and_camera(const char *command, const char *obj_path, const char *tree_path,
                            int threads, kd_cli_device device, const kd_camera_request *req,
                            int default_size, FILE *report, kd_scene *scene, kd_camera *cam)
{
    kd_error err;
    kd_build_params params;
    kd_build_params_default(&params);
    params.num_threads = threads;
    if (kd_scene_prepare_on(scene, obj_path, tree_path, &params,
                            device == KD_CLI_DEVICE_GPU ? KD_SCENE_BUILD_GPU : KD_SCENE_BUILD_CPU,
                            &err)) {
        kd_cli_error(command, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    if (kd_camera_setup_mesh(cam, req, &scene->mesh, default_size, default_size, &err)) {
        kd_scene_free(scene);
        return kd_cli_usage_error(command, "camera: %s", err.message);
    }
    if (report) {
        kd_cli_print_scene(report, obj_path, tree_path, scene);
        kd_cli_print_camera(report, cam);
    }
    return -1;
}

kd_status kd_cli_gpu_cast(const kd_scene *scene, const kd_camera *cam, int launches,
                          kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err)
{
    kd_gpu_scene *gpu_scene = NULL;
    kd_status st = kd_gpu_scene_upload(&gpu_scene, &scene->tree, scene->tri_verts,
                                       scene->mesh.num_triangles, err);
    if (st)
        return st;
    st = kd_gpu_render(gpu_scene, cam, launches, buf, stats, err);
    kd_gpu_scene_destroy(gpu_scene);
    return st;
}

void kd_cli_progress_start(kd_cli_progress *p, const char *command, const char *what, bool quiet)
{
    p->command = command;
    p->what = what;
    p->start = kd_render_now();
    p->last_draw = 0.0;
    p->enabled = !quiet && isatty(fileno(stderr));
    p->drawn = false;
}

void kd_cli_progress_update(void *ctx, size_t done, size_t total)
{
    kd_cli_progress *p = ctx;
    if (!p->enabled || total == 0)
        return;
    double now = kd_render_now();
    if (now - p->start < 1.0 || now - p->last_draw < 0.1)
        return;
    p->last_draw = now;
    p->drawn = true;
    fprintf(stderr, "\rscankd %s: %s %3.0f%% (%zu/%zu)", p->command, p->what,
            100.0 * (double)done / (double)total, done, total);
    fflush(stderr);
}

void kd_cli_progress_end(kd_cli_progress *p)
{
    if (p->drawn) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    p->drawn = false;
}

void kd_cli_print_scene(FILE *f, const char *obj_path, const char *tree_path, const kd_scene *scene)
{
    fprintf(f, "scene       %s: %u triangles (%llu dropped), loaded in %.1f ms\n", obj_path,
            scene->mesh.num_triangles,
            (unsigned long long)(scene->mesh.num_dropped_nonfinite + scene->mesh.num_dropped_zero_area),
            scene->load_seconds * 1e3);
    const kd_tree *t = &scene->tree;
    if (tree_path)
        fprintf(f, "tree        %s, loaded in %.1f ms: %u nodes, %u leaf entries, depth cap %u\n",
                tree_path, scene->tree_seconds * 1e3, t->num_nodes, t->num_leaf_indices, t->max_depth);
    else
        fprintf(f, "tree        built on the %s in %.1f ms: %u nodes, %u leaf entries, depth cap %u\n",
                scene->builder == KD_SCENE_BUILD_GPU ? "GPU (kd_build_gpu, default options)"
                                                     : "CPU (exact SAH)",
                scene->tree_seconds * 1e3, t->num_nodes, t->num_leaf_indices, t->max_depth);
}

void kd_cli_print_camera(FILE *f, const kd_camera *cam)
{
    fprintf(f, "camera      eye %g,%g,%g look %g,%g,%g up %g,%g,%g fov %g, %dx%d\n",
            (double)cam->eye[0], (double)cam->eye[1], (double)cam->eye[2], (double)cam->look[0],
            (double)cam->look[1], (double)cam->look[2], (double)cam->up[0], (double)cam->up[1],
            (double)cam->up[2], (double)cam->fov_deg, cam->width, cam->height);
}

static void json_vec3(kd_json *json, const char *key, const float v[3])
{
    kd_json_key(json, key);
    kd_json_begin_array(json);
    for (int a = 0; a < 3; a++)
        kd_json_number(json, v[a]);
    kd_json_end_array(json);
}

void kd_cli_json_scene(kd_json *json, const char *obj_path, const char *tree_path,
                       const kd_scene *scene)
{
    kd_json_kv_string(json, "scene", obj_path);
    kd_json_kv_int(json, "triangles", scene->mesh.num_triangles);
    kd_json_kv_number(json, "load_seconds", scene->load_seconds);
    kd_json_key(json, "tree");
    kd_json_begin_object(json);
    if (tree_path)
        kd_json_kv_string(json, "file", tree_path);
    else
        kd_json_kv_string(json, "builder",
                          scene->builder == KD_SCENE_BUILD_GPU ? "gpu" : "cpu-sah");
    kd_json_kv_number(json, "seconds", scene->tree_seconds);
    kd_json_kv_int(json, "nodes", scene->tree.num_nodes);
    kd_json_kv_int(json, "leaf_entries", scene->tree.num_leaf_indices);
    kd_json_kv_int(json, "depth_cap", scene->tree.max_depth);
    kd_json_end_object(json);
}

void kd_cli_json_camera(kd_json *json, const kd_camera *cam)
{
    kd_json_key(json, "camera");
    kd_json_begin_object(json);
    json_vec3(json, "eye", cam->eye);
    json_vec3(json, "look", cam->look);
    json_vec3(json, "up", cam->up);
    kd_json_kv_number(json, "fov_deg", cam->fov_deg);
    kd_json_kv_int(json, "width", cam->width);
    kd_json_kv_int(json, "height", cam->height);
    kd_json_end_object(json);
}
