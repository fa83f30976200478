/* scankd stats: statistics of a saved tree, checked against its scene. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"
#include "cpu_build.h"
#include "render_scene.h"
#include "tree_io.h"
#include "tree_stats.h"

static const char *k_cmd = "stats";

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd stats SCENE.obj --tree FILE [options]\n"
               "\n"
               "Loads a saved tree (scankd build --save), checks that it belongs to the scene\n"
               "(the mesh fingerprint the file records, the triangle count, bounds that hold the\n"
               "scene) and prints its statistics:\n"
               "SAH cost relative to the root's surface area, nodes, leaves, empty leaves,\n"
               "leaf depths, references per triangle and SAH-expected work per ray.\n");
}

typedef struct stats_options {
    const char *scene, *tree_path, *json_path;
    bool quiet, force_tree;
    kd_sah_constants constants;
} stats_options;

static void set_defaults(void *args)
{
    stats_options *o = args;
    memset(o, 0, sizeof *o);
    kd_sah_constants_default(&o->constants);
}

#define ARG(field) offsetof(stats_options, field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = ARG(scene)},
    {.kind = KD_CLI_STRING, .name = "--tree", .metavar = "FILE", .offset = ARG(tree_path),
     .help = "the tree file (required); it must have been built over this very scene"},
    KD_CLI_FORCE_TREE_OPTION(ARG(force_tree)),
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json_path),
     .help = "also write the figures as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_CUSTOM, .name = "--sah-constants", .metavar = "t,i,e", .offset = ARG(constants),
     .parse = kd_cli_sah_constants_option,
     .help = "constants of the SAH cost (1,5,0.5); the empty bonus e is recorded, never applied to "
             "the cost"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet), .help = "no progress line and no statistics block"},
};

#undef ARG

static const kd_cli_command k_command = {
    .name = "stats",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 success, 1 failure (unreadable, corrupt or mismatched tree),\n"
              "2 usage error.\n",
    .style = KD_CLI_SAY_TAKES,
    .args_size = sizeof(stats_options),
    .defaults = set_defaults,
};

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, stats_options *o)
{
    set_defaults(o);
    const int code = kd_cli_parse(&k_command, argc, argv, o, NULL);
    if (code >= 0)
        return code;
    if (!o->scene)
        return kd_cli_usage_error(k_cmd, "no scene given");
    if (!o->tree_path)
        return kd_cli_usage_error(k_cmd, "no tree given (--tree FILE)");
    return -1;
}

static void write_json(FILE *f, const stats_options *o, double load_ms, double tree_ms,
                       const kd_tree_origin *origin, const kd_tree_stats *stats)
{
    kd_json json;
    kd_json_init(&json, f);
    kd_json_begin_object(&json);
    kd_json_kv_string(&json, "command", "stats");
    kd_json_kv_string(&json, "scene", o->scene);
    kd_json_kv_string(&json, "tree_file", o->tree_path);
    kd_json_kv_number(&json, "load_ms", load_ms);
    kd_json_kv_number(&json, "tree_load_ms", tree_ms);
    kd_json_kv_string(&json, "builder", kd_tree_builder_name(origin->builder));
    kd_json_kv_int(&json, "file_version", origin->version);
    kd_json_key(&json, "tree");
    kd_json_begin_object(&json);
    kd_tree_stats_json(&json, stats, NULL);
    kd_json_end_object(&json);
    kd_json_end_object(&json);
}

/* Loads the scene and the tree and checks that they belong together;
 * returns false (message printed, nothing left to free) when not. */
static bool load_both(const stats_options *o, kd_mesh *mesh, double *load_ms, kd_tree *tree,
                      kd_tree_origin *origin, double *tree_ms)
{
    kd_error err;
    kd_error_clear(&err);
    if (kd_tree_check_file(o->tree_path, &err) != KD_OK) {
        kd_cli_error(k_cmd, "%s", err.message);
        return false;
    }
    kd_cli_progress progress;
    kd_cli_progress_init(&progress, k_cmd, o->quiet);
    if (!kd_cli_load_mesh(k_cmd, o->scene, &progress, false, mesh, load_ms))
        return false;
    double t0 = kd_build_now_ms();
    char warning[KD_ERROR_MESSAGE_BYTES];
    kd_cli_progress_begin(&progress, "reading the tree", NULL);
    kd_status st = kd_scene_load_tree(o->tree_path, o->scene, mesh, o->force_tree, tree, origin, warning,
                                      sizeof warning, &err);
    kd_cli_progress_end(&progress);
    if (st) {
        kd_cli_error(k_cmd, "%s", err.message);
        kd_mesh_free(mesh);
        return false;
    }
    *tree_ms = kd_build_now_ms() - t0;
    if (warning[0])
        kd_cli_error(k_cmd, "warning: --force-tree: %s", warning);
    return true;
}

int kd_cmd_stats(int argc, char **argv)
{
    stats_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    const char *outputs[] = {o.json_path};
    if (!kd_cli_check_outputs(k_cmd, outputs, 1))
        return KD_EXIT_FAILURE;
    kd_mesh mesh;
    kd_tree tree;
    kd_tree_origin origin;
    double load_ms, tree_ms;
    if (!load_both(&o, &mesh, &load_ms, &tree, &origin, &tree_ms))
        return KD_EXIT_FAILURE;
    kd_tree_stats stats;
    kd_tree_compute_stats(&tree, &o.constants, &stats);
    code = KD_EXIT_OK;
    if (o.json_path) {
        kd_error err;
        kd_outfile out;
        code = KD_EXIT_FAILURE;
        if (kd_outfile_open(&out, o.json_path, &err) == KD_OK) {
            write_json(out.file, &o, load_ms, tree_ms, &origin, &stats);
            if (kd_outfile_commit(&out, &err) == KD_OK)
                code = KD_EXIT_OK;
        }
        if (code != KD_EXIT_OK)
            kd_cli_error(k_cmd, "%s", err.message);
    }
    const bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    if (code == KD_EXIT_OK && !o.quiet && !json_stdout) {
        printf("scene %s: %u triangles, loaded in %.1f ms\n", o.scene, mesh.num_triangles, load_ms);
        printf("tree %s (format version %u, %s builder): loaded and checked in %.1f ms\n", o.tree_path,
               origin.version, kd_tree_builder_name(origin.builder), tree_ms);
        kd_tree_stats_print(stdout, &stats, NULL);
    }
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return code;
}
