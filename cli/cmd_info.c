/* scankd info: loads an OBJ scene and reports what it holds and how fast it loaded. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli_options.h"
#include "cli_util.h"
#include "commands.h"
#include "mesh_load.h"
#include "render_scene.h"

static const char k_cmd[] = "info";

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd info SCENE.obj [--json FILE|-]\n"
               "\n"
               "Loads an OBJ or PLY scene (either may be gzip-compressed) and prints its\n"
               "vertices, triangles, faces read, triangles dropped (NaN/infinite coordinates,\n"
               "exactly zero area), bounds, file size, load time and load speed (MB/s of the\n"
               "decompressed file, 1 MB = 10^6 bytes).\n");
}

typedef struct info_args {
    const char *scene, *json_path;
} info_args;

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = offsetof(info_args, scene)},
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = offsetof(info_args, json_path),
     .help = "also write the figures as JSON to FILE ('-': stdout, and then the text report is left "
             "out)"},
};

static const kd_cli_command k_command = {
    .name = "info",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 success, 1 the scene cannot be read or is malformed, 2 usage error.\n",
    .args_size = sizeof(info_args),
};

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void write_json(FILE *f, const char *path, const kd_mesh *mesh, const kd_mesh_load_info *info,
                       const kd_aabb *box, double seconds)
{
    kd_json json;
    kd_json_init(&json, f);
    kd_json_begin_object(&json);
    kd_json_kv_string(&json, "file", path);
    kd_json_kv_int(&json, "file_bytes", (int64_t)info->file_bytes);
    kd_json_kv_int(&json, "text_bytes", (int64_t)info->text_bytes);
    kd_json_kv_bool(&json, "compressed", info->compressed != 0);
    kd_json_kv_int(&json, "vertices", mesh->num_vertices);
    kd_json_kv_int(&json, "faces_read", (int64_t)mesh->num_faces_read);
    kd_json_kv_int(&json, "triangles_read", (int64_t)mesh->num_triangles_read);
    kd_json_kv_int(&json, "triangles", mesh->num_triangles);
    kd_json_kv_int(&json, "dropped_nonfinite", (int64_t)mesh->num_dropped_nonfinite);
    kd_json_kv_int(&json, "dropped_zero_area", (int64_t)mesh->num_dropped_zero_area);
    kd_json_key(&json, "bounds");
    kd_json_begin_object(&json);
    kd_json_key(&json, "lo");
    kd_json_begin_array(&json);
    for (int a = 0; a < 3; a++)
        kd_json_number(&json, box->lo[a]);
    kd_json_end_array(&json);
    kd_json_key(&json, "hi");
    kd_json_begin_array(&json);
    for (int a = 0; a < 3; a++)
        kd_json_number(&json, box->hi[a]);
    kd_json_end_array(&json);
    kd_json_end_object(&json);
    kd_json_kv_number(&json, "load_seconds", seconds);
    kd_json_kv_number(&json, "load_mb_per_s", (double)info->text_bytes / 1e6 / seconds);
    kd_json_end_object(&json);
}

static void print_report(const char *path, const kd_mesh *mesh, const kd_mesh_load_info *info,
                         const kd_aabb *box, double seconds)
{
    uint64_t dropped = mesh->num_dropped_nonfinite + mesh->num_dropped_zero_area;
    printf("scene           %s\n", path);
    if (info->compressed)
        printf("file size       %llu bytes gzip-compressed, %llu bytes of %s data\n",
               (unsigned long long)info->file_bytes, (unsigned long long)info->text_bytes,
               kd_mesh_format_name(info->format));
    else
        printf("file size       %llu bytes\n", (unsigned long long)info->file_bytes);
    printf("vertices        %u\n", mesh->num_vertices);
    printf("faces read      %llu\n", (unsigned long long)mesh->num_faces_read);
    printf("triangles read  %llu\n", (unsigned long long)mesh->num_triangles_read);
    printf("dropped         %llu (%llu with a NaN/infinite coordinate, %llu with zero area)\n",
           (unsigned long long)dropped, (unsigned long long)mesh->num_dropped_nonfinite,
           (unsigned long long)mesh->num_dropped_zero_area);
    printf("triangles       %u\n", mesh->num_triangles);
    printf("bounds          [%g, %g, %g] .. [%g, %g, %g]\n", box->lo[0] + 0.0, box->lo[1] + 0.0,
           box->lo[2] + 0.0, box->hi[0] + 0.0, box->hi[1] + 0.0, box->hi[2] + 0.0); /* + 0.0: no "-0" */
    printf("load time       %.3f ms (%.1f MB/s)\n", seconds * 1e3,
           (double)info->text_bytes / 1e6 / seconds);
}

int kd_cmd_info(int argc, char **argv)
{
    info_args args = {NULL, NULL};
    int code = kd_cli_parse(&k_command, argc, argv, &args, NULL);
    if (code >= 0)
        return code;
    const char *scene = args.scene, *json_path = args.json_path;
    if (!scene)
        return kd_cli_usage_error(k_cmd, "no scene given (usage: scankd info SCENE.obj [--json FILE|-])");

    if (!kd_cli_check_outputs(k_cmd, &json_path, 1))
        return KD_EXIT_FAILURE;
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    kd_cli_progress progress;
    kd_cli_progress_init(&progress, k_cmd, false);
    double start = seconds_now();
    kd_status st = kd_scene_load_mesh(scene, &mesh, &info, &progress, KD_SCENE_GPU_NONE, &err);
    double seconds = seconds_now() - start;
    if (info.warning[0])
        kd_cli_error(k_cmd, "warning: %s", info.warning);
    if (st) {
        kd_cli_error(k_cmd, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    if (seconds <= 0)
        seconds = 1e-9; /* a clock too coarse for a tiny file */
    kd_aabb box = kd_mesh_bounds(&mesh);

    bool json_on_stdout = json_path && strcmp(json_path, "-") == 0;
    if (!json_on_stdout)
        print_report(scene, &mesh, &info, &box, seconds);
    code = KD_EXIT_OK;
    if (json_path) {
        kd_outfile out;
        if (kd_outfile_open(&out, json_path, &err) == KD_OK) {
            write_json(out.file, scene, &mesh, &info, &box, seconds);
            if (kd_outfile_commit(&out, &err) != KD_OK)
                code = KD_EXIT_FAILURE;
        } else {
            code = KD_EXIT_FAILURE;
        }
        if (code != KD_EXIT_OK)
            kd_cli_error(k_cmd, "%s", err.message);
    }
    kd_mesh_free(&mesh);
    return code;
}
