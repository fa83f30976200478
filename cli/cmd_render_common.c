#include "cmd_render_common.h"

#include <string.h>
#include <unistd.h>

#include "cpu_build.h"
#include "cuda_status.h"
#include "tree_io.h"
#include "tree_stats.h"
#include "views.h"

const char *const kd_cli_device_names[] = {"auto", "cpu", "gpu", NULL};
const char *const kd_cli_ray_kind_names[] = {"primary", "diffuse", NULL};

/* Where share/scankd/scenes lies from the executable's folder: an install's
 * <prefix>/bin/../share, or the build tree's copy beside its scankd
 * (cli/CMakeLists.txt), so that scankd finds its files wherever it was
 * installed or built, without a compiled-in path. */
static const char *const k_share_places[] = {"../share/scankd/scenes", "share/scankd/scenes"};
enum { NUM_SHARE_PLACES = sizeof k_share_places / sizeof k_share_places[0] };

/* The folder holding the running executable, or false. */
static bool exe_folder(char *dir, size_t bytes)
{
    ssize_t n = readlink("/proc/self/exe", dir, bytes - 1);
    if (n <= 0)
        return false;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

bool kd_cli_share_file(const char *file, char *path, size_t bytes)
{
    char dir[4096], candidate[2 * 4096];
    if (!exe_folder(dir, sizeof dir)) {
        snprintf(path, bytes, "/proc/self/exe (unreadable, so the executable's folder is unknown)");
        return false;
    }
    for (int i = 0; i < NUM_SHARE_PLACES; i++) {
        snprintf(candidate, sizeof candidate, "%s/%s/%s", dir, k_share_places[i], file);
        if (access(candidate, R_OK) == 0) {
            snprintf(path, bytes, "%s", candidate);
            return true;
        }
    }
    snprintf(path, bytes, "%s/%s/%s and %s/%s/%s", dir, k_share_places[0], file, dir, k_share_places[1], file);
    return false;
}

int kd_cli_views_files(const char *scene_path, char paths[][4096 + 64])
{
    int n = 0;
    const char *slash = strrchr(scene_path, '/');
    if (slash)
        snprintf(paths[n++], 4096 + 64, "%.*s/views.txt", (int)(slash - scene_path), scene_path);
    else
        snprintf(paths[n++], 4096 + 64, "views.txt");
    if (kd_cli_share_file("views.txt", paths[n], 4096 + 64))
        n++;
    return n;
}

int kd_cli_view_resolve(const char *command, const char *scene_path, const char *view, kd_camera_request *req,
                        bool *computed)
{
    *computed = false;
    char files[3][4096 + 64], scene[256], names[1024] = "", found_names[512];
    kd_scene_name(scene_path, scene, sizeof scene);
    const int num_files = kd_cli_views_files(scene_path, files);
    for (int i = 0; i < num_files; i++) {
        bool found = false;
        kd_error err;
        if (kd_views_file_lookup(files[i], scene, view, req, &found, found_names, sizeof found_names, &err)) {
            kd_cli_error(command, "%s", err.message);
            return KD_EXIT_FAILURE;
        }
        if (found)
            return -1;
        if (found_names[0])
            snprintf(names + strlen(names), sizeof names - strlen(names), ", %s (%.200s)", found_names, files[i]);
    }
    for (int i = 0; kd_view_computed_names[i]; i++)
        if (strcmp(view, kd_view_computed_names[i]) == 0) {
            *computed = true;
            return -1;
        }
    return kd_cli_usage_error(command, "--view '%s': no such view of %s; its views: default, inside (computed)%s",
                              view, scene, names);
}

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

bool kd_cli_load_mesh(const char *command, const char *obj_path, kd_cli_progress *progress, bool gpu,
                      kd_mesh *mesh, double *load_ms)
{
    kd_error err;
    memset(mesh, 0, sizeof *mesh);
    double t0 = kd_build_now_ms();
    kd_mesh_load_info info;
    if (kd_scene_load_mesh(obj_path, mesh, &info, progress, gpu ? KD_SCENE_GPU_BUILD : KD_SCENE_GPU_NONE, &err)) {
        kd_cli_error(command, "%s", err.message);
        return false;
    }
    if (info.warning[0])
        kd_cli_error(command, "warning: %s", info.warning);
    *load_ms = kd_build_now_ms() - t0;
    return true;
}

/* Sets the camera up; an impossible request is a usage error, a scene the
 * automatic camera cannot frame a failure. */
static int setup_camera(const char *command, const kd_cli_scene_args *a, const kd_camera_request *req,
                        kd_scene *scene, kd_camera *cam)
{
    kd_error err;
    const kd_status st = kd_camera_setup_mesh(cam, req, &scene->mesh, a->default_size, a->default_size, &err);
    if (st == KD_OK)
        return -1;
    kd_scene_free(scene);
    if (st == KD_ERR_INVALID)
        return kd_cli_usage_error(command, "camera: %s", err.message);
    kd_cli_error(command, "camera: %s", err.message);
    return KD_EXIT_FAILURE;
}

/* A computed view's camera parts, from the scene's tree. */
static int compute_view(const char *command, const char *view, kd_scene *scene, kd_camera_request *req)
{
    kd_trace_scene trace;
    kd_error err;
    if (kd_trace_scene_init(&trace, &scene->tree, scene->tri_verts, scene->mesh.num_triangles, &err) == KD_OK &&
        kd_view_computed(view, &trace, req, &err) == KD_OK)
        return -1;
    kd_scene_free(scene);
    kd_cli_error(command, "--view %s: %s", view, err.message);
    return KD_EXIT_FAILURE;
}

int kd_cli_scene_and_camera(const char *command, const kd_cli_scene_args *a, FILE *report, kd_scene *scene,
                            kd_camera *cam)
{
    kd_error err;
    kd_camera_request camera = *a->camera;
    bool computed = false;
    int code;
    if (a->view && (code = kd_cli_view_resolve(command, a->scene, a->view, &camera, &computed)) >= 0)
        return code;
    if (a->tree && kd_tree_check_file(a->tree, &err) != KD_OK) {
        kd_cli_error(command, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    kd_scene_request req = {.obj_path = a->scene, .tree_path = a->tree, .force_tree = a->force_tree,
                            .builder = a->device == KD_CLI_DEVICE_GPU ? KD_SCENE_BUILD_GPU : KD_SCENE_BUILD_CPU,
                            .gpu = a->device == KD_CLI_DEVICE_GPU,
                            .max_device_bytes = a->max_device_bytes, .progress = a->progress};
    kd_build_params_default(&req.params);
    req.params.num_threads = a->threads;
    if (kd_scene_prepare(scene, &req, &err)) {
        kd_cli_error(command, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    if (scene->load_info.warning[0])
        kd_cli_error(command, "warning: %s", scene->load_info.warning);
    if (scene->warning[0])
        kd_cli_error(command, "warning: --force-tree: %s", scene->warning);
    if (computed && (code = compute_view(command, a->view, scene, &camera)) >= 0)
        return code;
    if ((code = setup_camera(command, a, &camera, scene, cam)) >= 0)
        return code;
    if (report) {
        kd_cli_print_scene(report, a->scene, a->tree, scene);
        kd_cli_print_camera(report, cam);
    }
    return -1;
}

kd_status kd_cli_gpu_cast(const kd_scene *scene, const kd_camera *cam, const kd_gpu_render_options *options,
                          kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err)
{
    kd_gpu_scene *gpu_scene = NULL;
    kd_status st = kd_gpu_scene_upload(&gpu_scene, &scene->tree, scene->tri_verts,
                                       scene->mesh.num_triangles, err);
    if (st)
        return st;
    st = kd_gpu_render_with(gpu_scene, cam, options, buf, stats, err);
    kd_gpu_scene_destroy(gpu_scene);
    return st;
}

void kd_cli_print_scene(FILE *f, const char *obj_path, const char *tree_path, const kd_scene *scene)
{
    fprintf(f, "scene       %s: %u triangles (%llu dropped), loaded in %.1f ms\n", obj_path,
            scene->mesh.num_triangles,
            (unsigned long long)(scene->mesh.num_dropped_nonfinite + scene->mesh.num_dropped_zero_area),
            scene->load_seconds * 1e3);
    const kd_tree *t = &scene->tree;
    if (tree_path)
        fprintf(f, "tree        %s (%s builder; %s), loaded in %.1f ms: %u nodes, %u leaf entries, depth "
                "cap %u\n",
                tree_path, kd_tree_builder_name(scene->origin.builder),
                scene->warning[0] ? "used with --force-tree" : "mesh fingerprint matches",
                scene->tree_seconds * 1e3, t->num_nodes, t->num_leaf_indices, t->max_depth);
    else
        fprintf(f, "tree        built on the %s in %.1f ms: %u nodes, %u leaf entries, depth cap %u\n",
                scene->builder == KD_SCENE_BUILD_GPU ? "GPU (kd_build_gpu, default options)"
                                                     : "CPU (exact SAH)",
                scene->tree_seconds * 1e3, t->num_nodes, t->num_leaf_indices, t->max_depth);
}

void kd_cli_print_camera(FILE *f, const kd_camera *cam)
{
    fprintf(f, "camera      eye %g,%g,%g look %g,%g,%g up %g,%g,%g fov %g, %dx%d\n",
            cam->eye[0] + 0.0, cam->eye[1] + 0.0, cam->eye[2] + 0.0, cam->look[0] + 0.0, cam->look[1] + 0.0,
            cam->look[2] + 0.0, cam->up[0] + 0.0, cam->up[1] + 0.0, cam->up[2] + 0.0, (double)cam->fov_deg,
            cam->width, cam->height); /* + 0.0: -0 prints as 0 */
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
    if (tree_path) {
        kd_json_kv_string(json, "file", tree_path);
        kd_json_kv_bool(json, "fingerprint_matches", scene->warning[0] == '\0');
    } else {
        kd_json_kv_string(json, "builder",
                          scene->builder == KD_SCENE_BUILD_GPU ? "gpu" : "cpu-sah");
    }
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
