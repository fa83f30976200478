/* scankd build: load a scene, build its kd-tree on the GPU or the CPU, print
 * statistics with load and build times (and on the GPU, optionally, the
 * in-build profile of stages and reductions), optionally save the tree. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "cli_util.h"
#include "cmd_build.h"
#include "commands.h"
#include "cpu_build.h"
#include "tree_io.h"

static const char *const k_cmd = "build";

/* ---- Options ------------------------------------------------------------------ */

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd build SCENE.obj [options]\n"
               "\n"
               "Builds a kd-tree over the scene and prints its statistics with the load and build\n"
               "times. On the GPU: the scan-based GPU builder (after Zhou et al. 2008; build time\n"
               "is host wall time from the triangles in device memory to the finished tree). On\n"
               "the CPU: the reference builder (exact SAH with perfect splits, O(N log N) after\n"
               "Wald and Havran 2006).\n");
}

static void set_defaults(void *args)
{
    build_options *o = args;
    memset(o, 0, sizeof *o);
    kd_build_params_default(&o->params);
    kd_sah_constants_default(&o->report);
    kd_gpu_build_options gpu;
    kd_gpu_build_options_default(&gpu);
    o->large_split = (int)gpu.large_split;
    o->reduce_variant = (int)gpu.reduce_variant;
    o->small_threshold = gpu.small_node_threshold;
    o->empty_space = gpu.empty_space_ratio;
    o->max_refs = gpu.max_refs_per_triangle;
    o->warmup = 1;
    o->repeats = 5;
}

/* --max-duplication: 0 (no bound) or a number >= 1. */
static int parse_max_duplication(const char *command, int argc, char **argv, int *i, void *dest)
{
    const char *value = kd_cli_option_value(command, argc, argv, i);
    float f;
    if (!value)
        return KD_EXIT_USAGE;
    if (!kd_parse_float(value, &f) || (f != 0.0f && f < 1.0f))
        return kd_cli_usage_error(command, "--max-duplication takes 0 or a number >= 1, not '%s'", value);
    *(float *)dest = f;
    return KD_EXIT_OK;
}

/* In kd_large_split's order. */
static const char *const k_large_splits[] = {"median", "sah", NULL};

#define ARG(field) offsetof(build_options, field)
#define PARAM(field) offsetof(build_options, params.field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = ARG(scene)},
    KD_CLI_DEVICE_OPTION(ARG(device), "; gpu without a device fails"),
    {.kind = KD_CLI_STRING, .name = "--save", .metavar = "FILE", .offset = ARG(save_path),
     .help = "write the tree to FILE (versioned binary format, with the mesh's fingerprint and the "
             "builder)"},
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json_path),
     .help = "also write the figures as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet), .help = "no progress line and no statistics block"},
    {.kind = KD_CLI_INT, .name = "--threads", .metavar = "N", .offset = PARAM(num_threads), .min = 1,
     .max = 256, .help = "CPU builder worker threads, %R (default: all cores)"},

    {.kind = KD_CLI_HEADING, .help = "build rules (defaults as pbrt-v4):"},
    {.kind = KD_CLI_FLOAT, .name = "--traversal-cost", .metavar = "C", .offset = PARAM(traversal_cost),
     .min = 0, .max = INFINITY, .help = "SAH cost of a traversal step (%D)"},
    {.kind = KD_CLI_FLOAT, .name = "--intersect-cost", .metavar = "C", .offset = PARAM(intersect_cost),
     .min = 0, .max = INFINITY, .flags = KD_CLI_MIN_OPEN, .help = "SAH cost of a triangle test (%D)"},
    {.kind = KD_CLI_FLOAT, .name = "--empty-bonus", .metavar = "B", .offset = PARAM(empty_bonus), .min = 0,
     .max = 1, .help = "SAH bonus in %R for a split with an empty side (%D)"},
    {.kind = KD_CLI_FLOAT, .name = "--min-empty-fraction", .metavar = "F",
     .offset = PARAM(min_empty_fraction), .min = 0, .max = 1,
     .help = "beyond pbrt: the bonus only for an empty side spanning at least F of the node along "
             "the axis (%D; 0: pbrt's rule)"},
    {.kind = KD_CLI_INT, .name = "--max-depth", .metavar = "D", .offset = PARAM(max_depth), .min = 0,
     .max = KD_TREE_DEPTH_LIMIT, .help = "depth cap, %R (8 + 1.3 floor(log2 N), rounded)"},
    {.kind = KD_CLI_INT, .name = "--max-bad-refines", .metavar = "N", .offset = PARAM(max_bad_refines),
     .min = 1, .max = 1000, .help = "leaf once N splits on the path cost more than a leaf (%D)"},
    {.kind = KD_CLI_FLOAT, .name = "--bad-cost-ratio", .metavar = "R", .offset = PARAM(bad_cost_ratio),
     .min = 0, .max = INFINITY, .flags = KD_CLI_MIN_OPEN,
     .help = "leaf when the best split costs over R x the leaf... (%D)"},
    {.kind = KD_CLI_INT, .name = "--cost-cutoff-prims", .metavar = "N",
     .offset = PARAM(max_prims_in_leaf_for_cost_cutoff), .min = 0, .max = 1 << 30,
     .expects = "an integer >= 0", .help = "...and the node has fewer than N triangles (%D)"},
    {.kind = KD_CLI_INT, .name = "--max-leaf-prims", .metavar = "N", .offset = PARAM(max_leaf_prims),
     .min = 0, .max = 1 << 30, .expects = "an integer >= 0",
     .help = "a node with at most N triangles is a leaf (%D)"},
    {.kind = KD_CLI_CUSTOM, .name = "--max-duplication", .metavar = "R", .offset = PARAM(max_duplication),
     .parse = parse_max_duplication,
     .help = "beyond pbrt: at most R x N leaf references in all; along every path the product of "
             "the splits' (nL + nR) / n stays within R (64; 0: no bound)"},

    {.kind = KD_CLI_HEADING,
     .help = "GPU builder only (a usage error with --device cpu; ignored, with a note, when auto "
             "finds no GPU):"},
    {.kind = KD_CLI_ENUM, .name = "--large-split", .metavar = "KIND", .offset = ARG(large_split),
     .flags = KD_CLI_GPU_ONLY, .names = k_large_splits,
     .help = "large-node split: median (empty-space cut-off or spatial median) or sah (binned "
             "SAH); default %D"},
    {.kind = KD_CLI_FLOAT, .name = "--empty-space", .metavar = "F", .offset = ARG(empty_space), .min = 0,
     .max = 1, .flags = KD_CLI_GPU_ONLY,
     .help = "large and medium stages: an empty slab beside a node's references is a candidate cut "
             "where it spans at least F of the node, %R (default: --min-empty-fraction, as the CPU "
             "builder; 0.25, Zhou et al.'s: finer trees of lower cost on scanned meshes, up to twice "
             "the nodes)"},
    KD_CLI_MAX_REFS_OPTION(ARG(max_refs), KD_CLI_GPU_ONLY),
    KD_CLI_MEMORY_LIMIT_OPTION(ARG(device_memory_limit), KD_CLI_GPU_ONLY),
    {.kind = KD_CLI_INT, .name = "--small-threshold", .metavar = "N", .offset = ARG(small_threshold),
     .min = 1, .max = KD_GPU_SMALL_NODE_MAX, .flags = KD_CLI_GPU_ONLY,
     .help = "nodes of at most N references (%R) go to the small stage, exact SAH over 64-bit masks "
             "(default %D)"},
    {.kind = KD_CLI_INT, .name = "--reduce-variant", .metavar = "K", .offset = ARG(reduce_variant),
     .min = 0, .max = KD_REDUCE_NUM_VARIANTS - 1, .flags = KD_CLI_GPU_ONLY,
     .help = "rung %R of the min/max reduction ladder the builder calls (default %D, one launch)"},
    {.kind = KD_CLI_FLAG, .name = "--profile", .offset = ARG(profile), .flags = KD_CLI_GPU_ONLY,
     .help = "time stages and reductions with CUDA events and print the in-build profile: build and "
             "per-stage ms, time in reductions and their launches, host syncs, levels; then as many "
             "builds again traced by CUPTI for the device time of the reductions' kernels and of all "
             "the build's kernels (without launch gaps)"},
    {.kind = KD_CLI_INT, .name = "--warmup", .metavar = "N", .offset = ARG(warmup), .min = 0, .max = 100,
     .flags = KD_CLI_GPU_ONLY,
     .help = "untimed builds of the same mesh before the timed ones (%R; default %D): a builder's "
             "first build also sizes its buffers (its time is shown as 'first build'; the kernels a "
             "small scene's build runs are loaded while the scene loads)"},
    {.kind = KD_CLI_INT, .name = "--repeats", .metavar = "N", .offset = ARG(repeats), .min = 1,
     .max = KD_GPU_PROFILE_MAX_REPEATS, .flags = KD_CLI_GPU_ONLY,
     .help = "timed builds after the warm-up (%R; default %D): the build time and every profiled "
             "time reported is the median over them (one build's events can be upset by the host), "
             "counts are the last build's"},

    {.kind = KD_CLI_HEADING, .help = "reporting:"},
    {.kind = KD_CLI_CUSTOM, .name = "--sah-constants", .metavar = "t,i,e", .offset = ARG(report),
     .parse = kd_cli_sah_constants_option,
     .help = "constants of the reported SAH cost (1,5,0.5); they measure the tree and do not change "
             "how it is built; the empty bonus e is recorded, never applied to it"},
};

#undef ARG
#undef PARAM

static const kd_cli_command k_command = {
    .name = "build",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 success, 1 failure (--device gpu without a CUDA device included),\n"
              "2 usage error.\n",
    .style = KD_CLI_SAY_TAKES,
    .args_size = sizeof(build_options),
    .defaults = set_defaults,
};

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, build_options *o)
{
    set_defaults(o);
    kd_cli_seen seen;
    const int code = kd_cli_parse(&k_command, argc, argv, o, &seen);
    if (code >= 0)
        return code;
    if (!o->scene)
        return kd_cli_usage_error(k_cmd, "no scene given");
    if (kd_cli_is_stdout(o->save_path))
        return kd_cli_usage_error(k_cmd, "--save takes a file name, not '-'");
    o->gpu_only = seen.first_gpu_only;
    if (o->gpu_only && o->device == KD_CLI_DEVICE_CPU)
        return kd_cli_usage_error(k_cmd, "%s applies to the GPU builder only, not --device cpu", o->gpu_only);
    return -1;
}

/* ---- Steps ---------------------------------------------------------------------- */

/* Resolves --device (auto: the GPU when there is one) and notes GPU-only
 * options left unused; returns -1 to go on, else an exit code. */
static int choose_device(build_options *o)
{
    kd_cli_device device;
    const int code = kd_cli_device_resolve(k_cmd, (kd_cli_device)o->device, o->quiet, "using the CPU builder",
                                           &device);
    if (code >= 0)
        return code;
    o->device = (int)device;
    if (o->gpu_only && o->device == KD_CLI_DEVICE_CPU && !o->quiet)
        fprintf(stderr, "scankd build: note: %s ignored: it applies to the GPU builder only\n", o->gpu_only);
    return -1;
}

/* Builds on the GPU with the options asked for; timing comes from the
 * profile. */
static kd_status build_on_gpu(const build_options *o, build_result *r, kd_error *err)
{
    gpu_report *gpu = &r->gpu;
    kd_gpu_build_options *opts = &gpu->opts;
    kd_gpu_build_options_default(opts);
    opts->params = o->params;
    opts->large_split = (kd_large_split)o->large_split;
    opts->reduce_variant = (kd_reduce_variant)o->reduce_variant;
    opts->small_node_threshold = o->small_threshold;
    opts->empty_space_ratio = o->empty_space;
    opts->max_refs_per_triangle = o->max_refs;
    opts->profile = o->profile;
    opts->kernel_clock = o->profile;
    opts->max_device_bytes = (size_t)o->device_memory_limit;
    gpu->warmup = o->warmup;
    gpu->repeats = o->repeats;
    kd_status st = kd_build_gpu_warm(&r->mesh, opts, o->warmup, o->repeats, &r->tree, &gpu->profile,
                                     &gpu->first_build_ms, err);
    if (st)
        return st;
    kd_gpu_build_profile_timing(&gpu->profile, &r->timing);
    if (!opts->profile) {
        /* Stage times are measured only with --profile: show the whole build
         * as one phase rather than stages of 0 ms. */
        r->timing.num_phases = 1;
        r->timing.phase_names[0] = "device build";
        r->timing.phase_ms[0] = gpu->profile.build_ms;
    }
    return KD_OK;
}

/* Loads the scene and builds its tree on the resolved device, with its
 * statistics; returns false (message printed, nothing left to free) on a
 * failure. */
static bool load_and_build(const build_options *o, build_result *r)
{
    memset(r, 0, sizeof *r);
    kd_cli_progress progress;
    kd_cli_progress_init(&progress, k_cmd, o->quiet);
    if (!kd_cli_load_mesh(k_cmd, o->scene, &progress, o->device == KD_CLI_DEVICE_GPU, &r->mesh, &r->load_ms))
        return false;
    kd_error err;
    kd_error_clear(&err);
    r->on_gpu = o->device == KD_CLI_DEVICE_GPU;
    kd_cli_progress_begin(&progress, r->on_gpu ? "building the tree on the GPU" : "building the tree", NULL);
    kd_status st = r->on_gpu ? build_on_gpu(o, r, &err)
                             : kd_build_cpu_progress(&r->mesh, &o->params, kd_cli_progress_update, &progress,
                                                     &r->tree, &r->timing, &err);
    kd_cli_progress_end(&progress);
    if (st) {
        kd_cli_error(k_cmd, "%s: %s", o->scene, err.message);
        kd_mesh_free(&r->mesh);
        return false;
    }
    kd_tree_compute_stats(&r->tree, &o->report, &r->stats);
    return true;
}

/* Saves the tree and writes the JSON, as asked; returns the exit code. */
static int write_files(const build_options *o, const build_result *r)
{
    kd_error err;
    kd_error_clear(&err);
    kd_tree_origin origin;
    kd_tree_origin_init(&origin, &r->mesh, r->on_gpu ? KD_TREE_BUILDER_GPU : KD_TREE_BUILDER_CPU,
                        r->on_gpu ? kd_scene_gpu_rules_hash(&r->gpu.opts) : kd_tree_rules_hash_cpu(&o->params));
    if (o->save_path && kd_tree_save(&r->tree, &origin, o->save_path, &err)) {
        kd_cli_error(k_cmd, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    if (!o->json_path)
        return KD_EXIT_OK;
    kd_outfile out;
    if (kd_outfile_open(&out, o->json_path, &err) == KD_OK) {
        kd_json json;
        kd_json_init(&json, out.file);
        kd_build_write_json(&json, o, r);
        if (kd_outfile_commit(&out, &err) == KD_OK)
            return KD_EXIT_OK;
    }
    kd_cli_error(k_cmd, "%s", err.message);
    return KD_EXIT_FAILURE;
}

int kd_cmd_build(int argc, char **argv)
{
    build_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    const char *outputs[] = {o.save_path, o.json_path};
    if (!kd_cli_check_outputs(k_cmd, outputs, 2))
        return KD_EXIT_FAILURE;
    code = choose_device(&o);
    if (code >= 0)
        return code;
    build_result r;
    if (!load_and_build(&o, &r))
        return KD_EXIT_FAILURE;
    code = write_files(&o, &r);
    const bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    if (code == KD_EXIT_OK && !o.quiet && !json_stdout)
        kd_build_print_report(&o, &r);
    kd_tree_free(&r.tree);
    kd_mesh_free(&r.mesh);
    return code;
}
