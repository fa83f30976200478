/* scankd stats: statistics of a saved tree, checked against its scene. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"
#include "cpu_build.h"
#include "tree_io.h"
#include "tree_stats.h"

static const char *k_cmd = "stats";

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd stats SCENE.obj --tree FILE [options]\n"
               "\n"
               "Loads a saved tree (scankd build --save), checks that it belongs to the scene\n"
               "(same triangle count, bounds that hold the scene) and prints its statistics:\n"
               "SAH cost relative to the root's surface area, nodes, leaves, empty leaves,\n"
               "leaf depths, references per triangle and SAH-expected work per ray.\n");
}

typedef struct stats_options {
    const char *scene, *tree_path, *json_path;
    bool quiet;
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
     .help = "the tree file (required)"},
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json_path),
     .help = "also write the figures as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_CUSTOM, .name = "--sah-constants", .metavar = "t,i,e", .offset = ARG(constants),
     .parse = kd_cli_sah_constants_option,
     .help = "constants of the SAH cost (1,5,0.5); the empty bonus e is recorded, never applied to "
             "the cost"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet), .help = "no statistics block"},
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

/* The tree must have been built over this mesh: same triangle count, and a
 * root box holding every triangle. */
static bool tree_matches(const kd_tree *tree, const kd_mesh *mesh, const stats_options *o)
{
    if (tree->num_triangles != mesh->num_triangles) {
        kd_cli_error(k_cmd, "%s was built over %u triangles, but %s has %u", o->tree_path,
                     tree->num_triangles, o->scene, mesh->num_triangles);
        return false;
    }
    kd_aabb b = kd_mesh_bounds(mesh);
    for (int a = 0; a < 3; a++)
        if (b.lo[a] < tree->bounds.lo[a] || b.hi[a] > tree->bounds.hi[a]) {
            kd_cli_error(k_cmd, "%s: its root box [%g, %g] on axis %d does not hold %s ([%g, %g])",
                         o->tree_path, tree->bounds.lo[a], tree->bounds.hi[a], a, o->scene,
                         b.lo[a], b.hi[a]);
            return false;
        }
    return true;
}

static void write_json(FILE *f, const stats_options *o, double load_ms, double tree_ms,
                       const kd_tree_stats *stats)
{
    kd_json json;
    kd_json_init(&json, f);
    kd_json_begin_object(&json);
    kd_json_kv_string(&json, "command", "stats");
    kd_json_kv_string(&json, "scene", o->scene);
    kd_json_kv_string(&json, "tree_file", o->tree_path);
    kd_json_kv_number(&json, "load_ms", load_ms);
    kd_json_kv_number(&json, "tree_load_ms", tree_ms);
    kd_json_key(&json, "tree");
    kd_json_begin_object(&json);
    kd_tree_stats_json(&json, stats, NULL);
    kd_json_end_object(&json);
    kd_json_end_object(&json);
}

/* Loads the scene and the tree and checks that they belong together;
 * returns false (message printed, nothing left to free) when not. */
static bool load_both(const stats_options *o, kd_mesh *mesh, double *load_ms, kd_tree *tree, double *tree_ms)
{
    kd_error err;
    kd_error_clear(&err);
    if (!kd_cli_load_mesh(k_cmd, o->scene, mesh, load_ms))
        return false;
    double t0 = kd_build_now_ms();
    if (kd_tree_load(tree, o->tree_path, &err)) {
        kd_cli_error(k_cmd, "%s", err.message);
        kd_mesh_free(mesh);
        return false;
    }
    *tree_ms = kd_build_now_ms() - t0;
    if (!tree_matches(tree, mesh, o)) {
        kd_tree_free(tree);
        kd_mesh_free(mesh);
        return false;
    }
    return true;
}

int kd_cmd_stats(int argc, char **argv)
{
    stats_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    kd_mesh mesh;
    kd_tree tree;
    double load_ms, tree_ms;
    if (!load_both(&o, &mesh, &load_ms, &tree, &tree_ms))
        return KD_EXIT_FAILURE;
    kd_tree_stats stats;
    kd_tree_compute_stats(&tree, &o.constants, &stats);
    code = KD_EXIT_OK;
    if (o.json_path) {
        kd_error err;
        kd_outfile out;
        code = KD_EXIT_FAILURE;
        if (kd_outfile_open(&out, o.json_path, &err) == KD_OK) {
            write_json(out.file, &o, load_ms, tree_ms, &stats);
            if (kd_outfile_commit(&out, &err) == KD_OK)
                code = KD_EXIT_OK;
        }
        if (code != KD_EXIT_OK)
            kd_cli_error(k_cmd, "%s", err.message);
    }
    const bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    if (code == KD_EXIT_OK && !o.quiet && !json_stdout) {
        printf("scene %s: %u triangles, loaded in %.1f ms\n", o.scene, mesh.num_triangles, load_ms);
        printf("tree %s: loaded and checked in %.1f ms\n", o.tree_path, tree_ms);
        kd_tree_stats_print(stdout, &stats, NULL);
    }
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return code;
}
