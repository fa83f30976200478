/* scankd convert: loads a scene (OBJ or PLY, plain or gzip) and writes its triangles
 * as PLY or OBJ, e.g. to turn a large OBJ into a binary PLY that loads faster. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "cli_util.h"
#include "mesh_internal.h" /* kd_mesh_name_ends_with */
#include "mesh_load.h"
#include "mesh_write.h"

static const char k_cmd[] = "convert";

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd convert SCENE OUT.ply|OUT.obj [--format F]\n"
               "\n"
               "Loads SCENE (OBJ or PLY, plain or gzip-compressed) and writes its triangles to\n"
               "OUT: the vertices as read, and the triangles the loader keeps (polygons\n"
               "fan-triangulated, degenerate triangles dropped), so that OUT loads to the same\n"
               "mesh. The format follows OUT's name (.ply: binary little-endian) unless given;\n"
               "OUT '-' writes to stdout. OUT is checked before the scene is loaded.\n");
}

typedef struct convert_args {
    const char *scene, *out;
    int format;
} convert_args;

static const char *const k_formats[] = {"ply", "ply-be", "ply-ascii", "obj", NULL};

/* The two positionals: the scene, then the output. */
static int take_path(const char *command, int argc, char **argv, int *i, void *dest)
{
    (void)argc;
    convert_args *a = dest;
    if (!a->scene)
        a->scene = argv[*i];
    else if (!a->out)
        a->out = argv[*i];
    else
        return kd_cli_usage_error(command, "unexpected argument '%s' (one scene, one output)", argv[*i]);
    return KD_EXIT_OK;
}

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene out", .parse = take_path},
    {.kind = KD_CLI_ENUM, .name = "--format", .metavar = "F", .offset = offsetof(convert_args, format),
     .names = k_formats,
     .help = "ply (binary little-endian), ply-be (binary big-endian), ply-ascii or obj"},
};

static const kd_cli_command k_command = {
    .name = "convert",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 success, 1 the scene cannot be read or OUT written, 2 usage error.\n",
    .args_size = sizeof(convert_args),
};

int kd_cmd_convert(int argc, char **argv)
{
    convert_args args = {NULL, NULL, KD_MESH_OUT_PLY};
    kd_cli_seen seen;
    int code = kd_cli_parse(&k_command, argc, argv, &args, &seen);
    if (code >= 0)
        return code;
    if (!args.scene || !args.out)
        return kd_cli_usage_error(k_cmd, "usage: scankd convert SCENE OUT.ply|OUT.obj [--format F]");
    if (!kd_cli_given(&k_command, &seen, "--format")) {
        if (kd_mesh_name_ends_with(args.out, ".obj"))
            args.format = KD_MESH_OUT_OBJ;
        else if (!kd_mesh_name_ends_with(args.out, ".ply"))
            return kd_cli_usage_error(k_cmd, "%s: name it .ply or .obj, or give --format", args.out);
    }
    if (!kd_cli_check_outputs(k_cmd, (const char *const[]){args.out}, 1))
        return KD_EXIT_FAILURE;
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    kd_status st = kd_mesh_load_file(args.scene, &mesh, &info, &err);
    if (info.warning[0])
        kd_cli_error(k_cmd, "warning: %s", info.warning);
    if (st == KD_OK)
        st = kd_mesh_save(args.out, &mesh, (kd_mesh_out_format)args.format, &err);
    if (st) {
        kd_cli_error(k_cmd, "%s", err.message);
        kd_mesh_free(&mesh);
        return KD_EXIT_FAILURE;
    }
    if (!kd_cli_is_stdout(args.out))
        printf("%s: %u vertices, %u triangles (%s)\n", args.out, mesh.num_vertices, mesh.num_triangles,
               k_formats[args.format]);
    kd_mesh_free(&mesh);
    return KD_EXIT_OK;
}
