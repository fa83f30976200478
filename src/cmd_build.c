/* scankd build: load a scene, build its kd-tree on the CPU, print statistics
 * with load and build times, optionally save the tree. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "cpu_build.h"
#include "obj_loader.h"
#include "tree_io.h"
#include "tree_stats.h"

static const char *k_cmd = "build";

static void print_help(void)
{
    printf("usage: scankd build SCENE.obj [options]\n"
           "\n"
           "Builds a kd-tree over the scene with the CPU reference builder (exact SAH with\n"
           "perfect splits, O(N log N) after Wald and Havran 2006) and prints its statistics\n"
           "with the load and build times.\n"
           "\n"
           "options:\n"
           "  --save FILE              write the tree to FILE (versioned binary format)\n"
           "  --json FILE|-            also write the figures as JSON ('-': stdout, which then\n"
           "                           carries only the JSON)\n"
           "  --quiet                  no statistics block\n"
           "  --threads N              worker threads (default: all cores)\n"
           "\n"
           "build rules (defaults as pbrt-v4):\n"
           "  --traversal-cost C       SAH cost of a traversal step (1)\n"
           "  --intersect-cost C       SAH cost of a triangle test (5)\n"
           "  --empty-bonus B          SAH bonus in [0, 1] for a split with an empty side (0.5)\n"
           "  --max-depth D            depth cap, 0..%u (8 + 1.3 floor(log2 N), rounded)\n"
           "  --max-bad-refines N      leaf once N splits on the path cost more than a leaf (3)\n"
           "  --bad-cost-ratio R       leaf when the best split costs over R x the leaf... (4)\n"
           "  --cost-cutoff-prims N    ...and the node has fewer than N triangles (16)\n"
           "  --max-leaf-prims N       a node with at most N triangles is a leaf (1)\n"
           "  --max-duplication R      beyond pbrt: at most R x N leaf references in all; along\n"
           "                           every path the product of the splits' (nL + nR) / n\n"
           "                           stays within R (64; 0: no bound)\n"
           "\n"
           "reporting:\n"
           "  --sah-constants t,i,e    constants of the reported SAH cost (1,5,0.5); they\n"
           "                           measure the tree and do not change how it is built;\n"
           "                           the empty bonus e is recorded, never applied to it\n"
           "\n"
           "Exit status: 0 success, 1 failure, 2 usage error.\n",
           KD_TREE_DEPTH_LIMIT);
}

typedef struct build_options {
    const char *scene, *save_path, *json_path;
    bool quiet;
    kd_build_params params;
    kd_sah_constants report;
} build_options;

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, build_options *o)
{
    memset(o, 0, sizeof *o);
    kd_build_params_default(&o->params);
    kd_sah_constants_default(&o->report);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        long n;
        float f;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help();
            return KD_EXIT_OK;
        } else if (strcmp(arg, "--quiet") == 0) {
            o->quiet = true;
            continue;
        } else if (arg[0] == '-' && arg[1] == '-') {
            if (!(value = kd_cli_option_value(k_cmd, argc, argv, &i)))
                return KD_EXIT_USAGE;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return kd_cli_usage_error(k_cmd, "unknown option '%s'", arg);
        } else {
            if (o->scene)
                return kd_cli_usage_error(k_cmd, "more than one scene given ('%s', '%s')",
                                          o->scene, arg);
            o->scene = arg;
            continue;
        }

        if (strcmp(arg, "--save") == 0) {
            o->save_path = value;
        } else if (strcmp(arg, "--json") == 0) {
            o->json_path = value;
        } else if (strcmp(arg, "--threads") == 0) {
            if (!kd_parse_int(value, 1, 256, &n))
                return kd_cli_usage_error(k_cmd, "--threads takes an integer 1..256, not '%s'",
                                          value);
            o->params.num_threads = (int)n;
        } else if (strcmp(arg, "--traversal-cost") == 0) {
            if (!kd_parse_float(value, &f) || f < 0.0f)
                return kd_cli_usage_error(k_cmd, "--traversal-cost takes a number >= 0, not '%s'",
                                          value);
            o->params.traversal_cost = f;
        } else if (strcmp(arg, "--intersect-cost") == 0) {
            if (!kd_parse_float(value, &f) || f <= 0.0f)
                return kd_cli_usage_error(k_cmd, "--intersect-cost takes a number > 0, not '%s'",
                                          value);
            o->params.intersect_cost = f;
        } else if (strcmp(arg, "--empty-bonus") == 0) {
            if (!kd_parse_float(value, &f) || f < 0.0f || f > 1.0f)
                return kd_cli_usage_error(k_cmd, "--empty-bonus takes a number in [0, 1], not '%s'",
                                          value);
            o->params.empty_bonus = f;
        } else if (strcmp(arg, "--max-depth") == 0) {
            if (!kd_parse_int(value, 0, KD_TREE_DEPTH_LIMIT, &n))
                return kd_cli_usage_error(k_cmd, "--max-depth takes an integer 0..%u, not '%s'",
                                          KD_TREE_DEPTH_LIMIT, value);
            o->params.max_depth = (int)n;
        } else if (strcmp(arg, "--max-bad-refines") == 0) {
            if (!kd_parse_int(value, 1, 1000, &n))
                return kd_cli_usage_error(k_cmd, "--max-bad-refines takes an integer 1..1000, "
                                          "not '%s'", value);
            o->params.max_bad_refines = (int)n;
        } else if (strcmp(arg, "--bad-cost-ratio") == 0) {
            if (!kd_parse_float(value, &f) || f <= 0.0f)
                return kd_cli_usage_error(k_cmd, "--bad-cost-ratio takes a number > 0, not '%s'",
                                          value);
            o->params.bad_cost_ratio = f;
        } else if (strcmp(arg, "--cost-cutoff-prims") == 0) {
            if (!kd_parse_int(value, 0, 1L << 30, &n))
                return kd_cli_usage_error(k_cmd, "--cost-cutoff-prims takes an integer >= 0, "
                                          "not '%s'", value);
            o->params.max_prims_in_leaf_for_cost_cutoff = (int)n;
        } else if (strcmp(arg, "--max-leaf-prims") == 0) {
            if (!kd_parse_int(value, 0, 1L << 30, &n))
                return kd_cli_usage_error(k_cmd, "--max-leaf-prims takes an integer >= 0, "
                                          "not '%s'", value);
            o->params.max_leaf_prims = (int)n;
        } else if (strcmp(arg, "--max-duplication") == 0) {
            if (!kd_parse_float(value, &f) || (f != 0.0f && f < 1.0f))
                return kd_cli_usage_error(k_cmd, "--max-duplication takes 0 or a number >= 1, "
                                          "not '%s'", value);
            o->params.max_duplication = f;
        } else if (strcmp(arg, "--sah-constants") == 0) {
            float c[3];
            if (!kd_parse_float_list(value, c, 3) || c[0] < 0.0f || c[1] < 0.0f || c[2] < 0.0f ||
                c[2] > 1.0f)
                return kd_cli_usage_error(k_cmd, "--sah-constants takes t,i,e (three numbers "
                                          ">= 0, e <= 1), not '%s'", value);
            o->report = (kd_sah_constants){c[0], c[1], c[2]};
        } else {
            return kd_cli_usage_error(k_cmd, "unknown option '%s'", arg);
        }
    }
    if (!o->scene)
        return kd_cli_usage_error(k_cmd, "no scene given");
    return -1;
}

static void write_json(kd_json *json, const build_options *o, const kd_mesh *mesh, double load_ms,
                       const kd_tree_stats *stats, const kd_build_timing *timing)
{
    const kd_build_params *p = &o->params;
    kd_json_begin_object(json);
    kd_json_kv_string(json, "command", "build");
    kd_json_kv_string(json, "scene", o->scene);
    kd_json_kv_int(json, "triangles", mesh->num_triangles);
    kd_json_kv_int(json, "dropped_zero_area", (int64_t)mesh->num_dropped_zero_area);
    kd_json_kv_int(json, "dropped_nonfinite", (int64_t)mesh->num_dropped_nonfinite);
    kd_json_kv_number(json, "load_ms", load_ms);
    kd_json_kv_string(json, "builder", "cpu");
    kd_json_key(json, "build_params");
    kd_json_begin_object(json);
    kd_json_kv_number(json, "traversal_cost", p->traversal_cost);
    kd_json_kv_number(json, "intersect_cost", p->intersect_cost);
    kd_json_kv_number(json, "empty_bonus", p->empty_bonus);
    kd_json_kv_int(json, "max_depth", kd_build_max_depth(p, mesh->num_triangles));
    kd_json_kv_int(json, "max_bad_refines", p->max_bad_refines);
    kd_json_kv_number(json, "bad_cost_ratio", p->bad_cost_ratio);
    kd_json_kv_int(json, "cost_cutoff_prims", p->max_prims_in_leaf_for_cost_cutoff);
    kd_json_kv_int(json, "max_leaf_prims", p->max_leaf_prims);
    kd_json_kv_number(json, "max_duplication", p->max_duplication);
    kd_json_end_object(json);
    kd_json_key(json, "tree");
    kd_json_begin_object(json);
    kd_tree_stats_json(json, stats, timing);
    kd_json_end_object(json);
    kd_json_key(json, "saved");
    if (o->save_path)
        kd_json_string(json, o->save_path);
    else
        kd_json_null(json);
    kd_json_end_object(json);
}

int kd_cmd_build(int argc, char **argv)
{
    build_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    bool text = !o.quiet && !json_stdout;

    kd_error err;
    kd_error_clear(&err);
    kd_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    double t0 = kd_build_now_ms();
    if (kd_obj_load_file(o.scene, &mesh, &err)) {
        kd_cli_error(k_cmd, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    double load_ms = kd_build_now_ms() - t0;

    kd_tree tree;
    kd_build_timing timing;
    if (kd_build_cpu(&mesh, &o.params, &tree, &timing, &err)) {
        kd_cli_error(k_cmd, "%s: %s", o.scene, err.message);
        kd_mesh_free(&mesh);
        return KD_EXIT_FAILURE;
    }
    kd_tree_stats stats;
    kd_tree_compute_stats(&tree, &o.report, &stats);

    code = KD_EXIT_OK;
    if (o.save_path && kd_tree_save(&tree, o.save_path, &err)) {
        kd_cli_error(k_cmd, "%s", err.message);
        code = KD_EXIT_FAILURE;
    }
    if (code == KD_EXIT_OK && o.json_path) {
        kd_outfile out;
        if (kd_outfile_open(&out, o.json_path, &err) == KD_OK) {
            kd_json json;
            kd_json_init(&json, out.file);
            write_json(&json, &o, &mesh, load_ms, &stats, &timing);
            if (kd_outfile_commit(&out, &err))
                code = KD_EXIT_FAILURE;
        } else {
            code = KD_EXIT_FAILURE;
        }
        if (code)
            kd_cli_error(k_cmd, "%s", err.message);
    }
    if (code == KD_EXIT_OK && text) {
        printf("scene %s: %u triangles", o.scene, mesh.num_triangles);
        if (mesh.num_dropped_zero_area || mesh.num_dropped_nonfinite)
            printf(" (dropped %llu zero-area, %llu non-finite)",
                   (unsigned long long)mesh.num_dropped_zero_area,
                   (unsigned long long)mesh.num_dropped_nonfinite);
        printf(", loaded in %.1f ms\n", load_ms);
        printf("built on the CPU (exact SAH; traversal %g, intersect %g, empty bonus %g, "
               "depth cap %u)\n",
               o.params.traversal_cost, o.params.intersect_cost, o.params.empty_bonus,
               tree.max_depth);
        kd_tree_stats_print(stdout, &stats, &timing);
        if (o.save_path)
            printf("saved %s\n", o.save_path);
    }
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return code;
}
