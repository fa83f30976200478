/* scankd stats: statistics of a saved tree, checked against its scene. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"
#include "cpu_build.h"
#include "tree_io.h"
#include "tree_stats.h"

static const char *k_cmd = "stats";

static void print_help(void)
{
    printf("usage: scankd stats SCENE.obj --tree FILE [options]\n"
           "\n"
           "Loads a saved tree (scankd build --save), checks that it belongs to the scene\n"
           "(same triangle count, bounds that hold the scene) and prints its statistics:\n"
           "SAH cost relative to the root's surface area, nodes, leaves, empty leaves,\n"
           "leaf depths, references per triangle and SAH-expected work per ray.\n"
           "\n"
           "options:\n"
           "  --tree FILE              the tree file (required)\n"
           "  --json FILE|-            also write the figures as JSON ('-': stdout, which then\n"
           "                           carries only the JSON)\n"
           "  --sah-constants t,i,e    constants of the SAH cost (1,5,0.5); the empty\n"
           "                           bonus e is recorded, never applied to the cost\n"
           "  --quiet                  no statistics block\n"
           "\n"
           "Exit status: 0 success, 1 failure (unreadable, corrupt or mismatched tree),\n"
           "2 usage error.\n");
}

typedef struct stats_options {
    const char *scene, *tree_path, *json_path;
    bool quiet;
    kd_sah_constants constants;
} stats_options;

static int parse_args(int argc, char **argv, stats_options *o)
{
    memset(o, 0, sizeof *o);
    kd_sah_constants_default(&o->constants);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help();
            return KD_EXIT_OK;
        } else if (strcmp(arg, "--quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(arg, "--tree") == 0 || strcmp(arg, "--json") == 0 ||
                   strcmp(arg, "--sah-constants") == 0) {
            const char *value = kd_cli_option_value(k_cmd, argc, argv, &i);
            if (!value)
                return KD_EXIT_USAGE;
            if (strcmp(arg, "--tree") == 0) {
                o->tree_path = value;
            } else if (strcmp(arg, "--json") == 0) {
                o->json_path = value;
            } else {
                float c[3];
                if (!kd_parse_float_list(value, c, 3) || c[0] < 0.0f || c[1] < 0.0f ||
                    c[2] < 0.0f || c[2] > 1.0f)
                    return kd_cli_usage_error(k_cmd, "--sah-constants takes t,i,e (three numbers "
                                              ">= 0, e <= 1), not '%s'", value);
                o->constants = (kd_sah_constants){c[0], c[1], c[2]};
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return kd_cli_usage_error(k_cmd, "unknown option '%s'", arg);
        } else if (o->scene) {
            return kd_cli_usage_error(k_cmd, "more than one scene given ('%s', '%s')", o->scene,
                                      arg);
        } else {
            o->scene = arg;
        }
    }
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

int kd_cmd_stats(int argc, char **argv)
{
    stats_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;

    kd_error err;
    kd_error_clear(&err);
    kd_mesh mesh;
    double load_ms;
    if (!kd_cli_load_mesh(k_cmd, o.scene, &mesh, &load_ms))
        return KD_EXIT_FAILURE;
    kd_tree tree;
    double t0 = kd_build_now_ms();
    if (kd_tree_load(&tree, o.tree_path, &err)) {
        kd_cli_error(k_cmd, "%s", err.message);
        kd_mesh_free(&mesh);
        return KD_EXIT_FAILURE;
    }
    double tree_ms = kd_build_now_ms() - t0;
    if (!tree_matches(&tree, &mesh, &o)) {
        kd_tree_free(&tree);
        kd_mesh_free(&mesh);
        return KD_EXIT_FAILURE;
    }

    kd_tree_stats stats;
    kd_tree_compute_stats(&tree, &o.constants, &stats);
    code = KD_EXIT_OK;
    if (o.json_path) {
        kd_outfile out;
        if (kd_outfile_open(&out, o.json_path, &err) == KD_OK) {
            kd_json json;
            kd_json_init(&json, out.file);
            kd_json_begin_object(&json);
            kd_json_kv_string(&json, "command", "stats");
            kd_json_kv_string(&json, "scene", o.scene);
            kd_json_kv_string(&json, "tree_file", o.tree_path);
            kd_json_kv_number(&json, "load_ms", load_ms);
            kd_json_kv_number(&json, "tree_load_ms", tree_ms);
            kd_json_key(&json, "tree");
            kd_json_begin_object(&json);
            kd_tree_stats_json(&json, &stats, NULL);
            kd_json_end_object(&json);
            kd_json_end_object(&json);
            if (kd_outfile_commit(&out, &err))
                code = KD_EXIT_FAILURE;
        } else {
            code = KD_EXIT_FAILURE;
        }
        if (code == KD_EXIT_FAILURE)
            kd_cli_error(k_cmd, "%s", err.message);
    }
    if (code == KD_EXIT_OK && !o.quiet && !json_stdout) {
        printf("scene %s: %u triangles, loaded in %.1f ms\n", o.scene, mesh.num_triangles,
               load_ms);
        printf("tree %s: loaded and checked in %.1f ms\n", o.tree_path, tree_ms);
        kd_tree_stats_print(stdout, &stats, NULL);
    }
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return code;
}
