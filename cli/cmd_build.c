/* scankd build: load a scene, build its kd-tree on the GPU or the CPU, print
 * statistics with load and build times (and on the GPU, optionally, the
 * in-build profile of stages and reductions), optionally save the tree. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"
#include "cpu_build.h"
#include "gpu_build.h"
#include "tree_io.h"
#include "tree_stats.h"

static const char *k_cmd = "build";

static void print_help(void)
{
    printf("usage: scankd build SCENE.obj [options]\n"
           "\n"
           "Builds a kd-tree over the scene and prints its statistics with the load and build\n"
           "times. On the GPU: the scan-based GPU builder (after Zhou et al. 2008; build time\n"
           "is host wall time from the triangles in device memory to the finished tree). On\n"
           "the CPU: the reference builder (exact SAH with perfect splits, O(N log N) after\n"
           "Wald and Havran 2006).\n"
           "\n"
           "options:\n"
           "  --device KIND            gpu, cpu or auto (default auto: the GPU when a CUDA\n"
           "                           device exists, else the CPU with a notice on stderr);\n"
           "                           gpu without a device fails\n"
           "  --save FILE              write the tree to FILE (versioned binary format)\n"
           "  --json FILE|-            also write the figures as JSON ('-': stdout, which then\n"
           "                           carries only the JSON)\n"
           "  --quiet                  no statistics block\n"
           "  --threads N              CPU builder worker threads (default: all cores)\n"
           "\n"
           "build rules (defaults as pbrt-v4):\n"
           "  --traversal-cost C       SAH cost of a traversal step (1)\n"
           "  --intersect-cost C       SAH cost of a triangle test (5)\n"
           "  --empty-bonus B          SAH bonus in [0, 1] for a split with an empty side (0.5)\n"
           "  --min-empty-fraction F   beyond pbrt: the bonus only for an empty side spanning at\n"
           "                           least F of the node along the axis (%g; 0: pbrt's rule)\n"
           "  --max-depth D            depth cap, 0..%u (8 + 1.3 floor(log2 N), rounded)\n"
           "  --max-bad-refines N      leaf once N splits on the path cost more than a leaf (3)\n"
           "  --bad-cost-ratio R       leaf when the best split costs over R x the leaf... (4)\n"
           "  --cost-cutoff-prims N    ...and the node has fewer than N triangles (16)\n"
           "  --max-leaf-prims N       a node with at most N triangles is a leaf (1)\n"
           "  --max-duplication R      beyond pbrt: at most R x N leaf references in all; along\n"
           "                           every path the product of the splits' (nL + nR) / n\n"
           "                           stays within R (64; 0: no bound)\n"
           "\n"
           "GPU builder only (a usage error with --device cpu; ignored, with a note, when\n"
           "auto finds no GPU):\n"
           "  --large-split KIND       large-node split: median (empty-space cut-off or\n"
           "                           spatial median) or sah (binned SAH); default sah\n"
           "  --empty-space F          large and medium stages: an empty slab beside a node's\n"
           "                           references is a candidate cut where it spans at least\n"
           "                           F of the node, 0..1 (default: --min-empty-fraction, as\n"
           "                           the CPU builder; 0.25, Zhou et al.'s: finer trees of\n"
           "                           lower cost on scanned meshes, up to twice the nodes)\n"
           "  --small-threshold N      nodes of at most N references (1..%d) go to the small\n"
           "                           stage, exact SAH over 64-bit masks (default %d)\n"
           "  --reduce-variant K       rung 0..%d of the min/max reduction ladder the builder\n"
           "                           calls (default 6, one launch)\n"
           "  --profile                time stages and reductions with CUDA events and print\n"
           "                           the in-build profile: build and per-stage ms, time in\n"
           "                           reductions and their launches, host syncs, levels;\n"
           "                           then as many builds again traced by CUPTI for the\n"
           "                           device time of the reductions' kernels and of all\n"
           "                           the build's kernels (without launch gaps)\n"
           "  --warmup N               untimed builds of the same mesh before the timed ones\n"
           "                           (0..100; default 1): a builder's first build also loads\n"
           "                           its kernels and sizes its buffers (its time is shown as\n"
           "                           'first build')\n"
           "  --repeats N              timed builds after the warm-up (1..%d; default 5): the\n"
           "                           build time and every profiled time reported is the\n"
           "                           median over them (one build's events can be upset by\n"
           "                           the host), counts are the last build's\n"
           "\n"
           "reporting:\n"
           "  --sah-constants t,i,e    constants of the reported SAH cost (1,5,0.5); they\n"
           "                           measure the tree and do not change how it is built;\n"
           "                           the empty bonus e is recorded, never applied to it\n"
           "\n"
           "Exit status: 0 success, 1 failure (--device gpu without a CUDA device included),\n"
           "2 usage error.\n",
           (double)KD_DEFAULT_MIN_EMPTY_FRACTION, KD_TREE_DEPTH_LIMIT, KD_GPU_SMALL_NODE_MAX,
           KD_GPU_SMALL_NODE_MAX, KD_REDUCE_NUM_VARIANTS - 1, KD_GPU_PROFILE_MAX_REPEATS);
}

typedef struct build_options {
    const char *scene, *save_path, *json_path;
    bool quiet;
    kd_cli_device device;     /* as asked for; resolved to cpu or gpu in kd_cmd_build */
    int large_split;          /* kd_large_split, or -1: the GPU builder's default */
    int reduce_variant;       /* kd_reduce_variant, or -1: the GPU builder's default */
    int small_threshold;      /* small-stage node size, or 0: the GPU builder's default */
    float empty_space;        /* GPU empty-cut fraction, or < 0: the GPU builder's default */
    bool profile;
    int warmup;               /* untimed GPU builds first, or -1: the default (1) */
    int repeats;              /* timed GPU builds, reported as medians, or -1: the default (5) */
    const char *gpu_only;     /* the first GPU-only option given, or NULL */
    kd_build_params params;
    kd_sah_constants report;
} build_options;

/* The GPU-only integer options, each in [min, max]: `arg` with `value` into
 * its field. Returns -1 when parsed, -2 when arg is none of them, else an
 * exit code. */
static int gpu_int_option(build_options *o, const char *arg, const char *value)
{
    const struct {
        const char *name;
        long min, max;
        int *dst;
    } options[] = {
        {"--reduce-variant", 0, KD_REDUCE_NUM_VARIANTS - 1, &o->reduce_variant},
        {"--small-threshold", 1, KD_GPU_SMALL_NODE_MAX, &o->small_threshold},
        {"--warmup", 0, 100, &o->warmup},
        {"--repeats", 1, KD_GPU_PROFILE_MAX_REPEATS, &o->repeats},
    };
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        if (strcmp(arg, options[k].name) != 0)
            continue;
        long n;
        if (!kd_parse_int(value, options[k].min, options[k].max, &n))
            return kd_cli_usage_error(k_cmd, "%s takes an integer %ld..%ld, not '%s'", arg, options[k].min,
                                      options[k].max, value);
        *options[k].dst = (int)n;
        o->gpu_only = o->gpu_only ? o->gpu_only : options[k].name;
        return -1;
    }
    return -2;
}

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, build_options *o)
{
    memset(o, 0, sizeof *o);
    o->large_split = -1;
    o->reduce_variant = -1;
    o->warmup = -1;
    o->repeats = -1;
    o->empty_space = -1.0f;
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
        } else if (strcmp(arg, "--profile") == 0) {
            o->profile = true;
            o->gpu_only = o->gpu_only ? o->gpu_only : "--profile";
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

        const int code = gpu_int_option(o, arg, value);
        if (code >= 0)
            return code;
        if (code == -1)
            continue;
        if (strcmp(arg, "--save") == 0) {
            o->save_path = value;
        } else if (strcmp(arg, "--device") == 0) {
            if (kd_cli_device_option(k_cmd, value, &o->device))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "--large-split") == 0) {
            if ((o->large_split = kd_large_split_parse(value)) < 0)
                return kd_cli_usage_error(k_cmd, "--large-split '%s': expected median or sah", value);
            o->gpu_only = o->gpu_only ? o->gpu_only : "--large-split";
        } else if (strcmp(arg, "--empty-space") == 0) {
            if (!kd_parse_float(value, &f) || f < 0.0f || f > 1.0f)
                return kd_cli_usage_error(k_cmd, "--empty-space takes a number in [0, 1], not '%s'",
                                          value);
            o->empty_space = f;
            o->gpu_only = o->gpu_only ? o->gpu_only : "--empty-space";
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
        } else if (strcmp(arg, "--min-empty-fraction") == 0) {
            if (!kd_parse_float(value, &f) || f < 0.0f || f > 1.0f)
                return kd_cli_usage_error(k_cmd, "--min-empty-fraction takes a number in [0, 1], "
                                          "not '%s'", value);
            o->params.min_empty_fraction = f;
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
    if (o->warmup < 0)
        o->warmup = 1;
    if (o->repeats < 0)
        o->repeats = 5;
    if (o->gpu_only && o->device == KD_CLI_DEVICE_CPU)
        return kd_cli_usage_error(k_cmd, "%s applies to the GPU builder only, not --device cpu",
                                  o->gpu_only);
    return -1;
}

/* What the GPU path adds to the report; NULL on the CPU. */
typedef struct gpu_report {
    kd_gpu_build_options opts;
    kd_gpu_build_profile profile;
    int warmup;            /* untimed builds before the reported ones */
    int repeats;           /* timed builds; the profile's times are their medians */
    double first_build_ms; /* the builder's first build (kernels loaded, buffers sized) */
} gpu_report;

static void write_gpu_json(kd_json *json, const gpu_report *g)
{
    kd_json_key(json, "gpu_options");
    kd_json_begin_object(json);
    kd_json_kv_string(json, "large_split", kd_large_split_name(g->opts.large_split));
    kd_json_kv_int(json, "reduce_variant", g->opts.reduce_variant);
    kd_json_kv_string(json, "reduce_variant_name", kd_reduce_variant_name(g->opts.reduce_variant));
    kd_json_kv_int(json, "small_node_threshold", g->opts.small_node_threshold);
    kd_json_kv_number(json, "empty_space", kd_gpu_build_empty_space(&g->opts));
    kd_json_kv_int(json, "warmup_builds", g->warmup);
    kd_json_kv_int(json, "timed_builds", g->repeats);
    kd_json_end_object(json);
    kd_json_kv_number(json, "gpu_first_build_ms", g->first_build_ms);
    if (!g->opts.profile)
        return;
    const kd_gpu_build_profile *p = &g->profile;
    kd_json_key(json, "gpu_profile");
    kd_json_begin_object(json);
    kd_json_kv_number(json, "build_ms", p->build_ms);
    kd_json_key(json, "stage_ms");
    kd_json_begin_object(json);
    for (int i = 0; i < KD_GPU_NUM_STAGES; i++)
        kd_json_kv_number(json, kd_gpu_stage_name((kd_gpu_stage)i), p->stage_ms[i]);
    kd_json_end_object(json);
    kd_json_key(json, "step_ms");
    kd_json_begin_object(json);
    for (int i = 0; i < KD_GPU_NUM_STEPS; i++)
        kd_json_kv_number(json, kd_gpu_step_name((kd_gpu_step)i), p->step_ms[i]);
    kd_json_end_object(json);
    kd_json_kv_number(json, "reduce_ms", p->reduce_ms);
    kd_json_kv_int(json, "num_reduce_calls", p->num_reduce_calls);
    kd_json_kv_bool(json, "kernel_clocked", p->kernel.clocked);
    if (p->kernel.clocked) {
        kd_json_kv_number(json, "reduce_kernel_ms", p->kernel.reduce_ms);
        kd_json_kv_int(json, "num_reduce_kernels", p->kernel.num_reduce);
        kd_json_kv_number(json, "kernel_ms", p->kernel.all_ms);
        kd_json_kv_int(json, "num_kernels", p->kernel.num_all);
        kd_json_kv_number(json, "kernel_busy_ms", p->kernel.busy_ms);
    } else {
        kd_json_kv_string(json, "kernel_clock_error", p->kernel.error);
    }
    kd_json_kv_int(json, "num_host_syncs", p->num_host_syncs);
    kd_json_kv_int(json, "num_large_levels", p->num_large_levels);
    kd_json_kv_int(json, "num_small_roots", p->num_small_roots);
    kd_json_kv_int(json, "num_medium_nodes", p->num_medium_nodes);
    kd_json_kv_int(json, "num_large_cuts", p->num_large_cuts);
    kd_json_kv_int(json, "num_medium_cuts", p->num_medium_cuts);
    kd_json_kv_int(json, "num_medium_block_nodes", p->num_medium_block_nodes);
    kd_json_kv_int(json, "num_small_retries", p->num_small_retries);
    kd_json_kv_int(json, "num_output_retries", p->num_output_retries);
    kd_json_kv_int(json, "max_large_refs", (int64_t)p->max_large_refs);
    kd_json_kv_int(json, "device_bytes", (int64_t)p->device_bytes);
    kd_json_end_object(json);
}

static void write_json(kd_json *json, const build_options *o, const kd_mesh *mesh, double load_ms,
                       const kd_tree_stats *stats, const kd_build_timing *timing,
                       const gpu_report *gpu)
{
    const kd_build_params *p = &o->params;
    kd_json_begin_object(json);
    kd_json_kv_string(json, "command", "build");
    kd_json_kv_string(json, "scene", o->scene);
    kd_json_kv_int(json, "triangles", mesh->num_triangles);
    kd_json_kv_int(json, "dropped_zero_area", (int64_t)mesh->num_dropped_zero_area);
    kd_json_kv_int(json, "dropped_nonfinite", (int64_t)mesh->num_dropped_nonfinite);
    kd_json_kv_number(json, "load_ms", load_ms);
    kd_json_kv_string(json, "builder", gpu ? "gpu" : "cpu");
    if (gpu)
        write_gpu_json(json, gpu);
    kd_json_key(json, "build_params");
    kd_json_begin_object(json);
    kd_json_kv_number(json, "traversal_cost", p->traversal_cost);
    kd_json_kv_number(json, "intersect_cost", p->intersect_cost);
    kd_json_kv_number(json, "empty_bonus", p->empty_bonus);
    kd_json_kv_number(json, "min_empty_fraction", p->min_empty_fraction);
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

/* Builds on the resolved device; on the GPU, gpu receives the options used
 * and the profile, and timing comes from the profile. */
static kd_status build_tree(const build_options *o, const kd_mesh *mesh, kd_tree *tree,
                            kd_build_timing *timing, gpu_report *gpu, kd_error *err)
{
    if (!gpu)
        return kd_build_cpu(mesh, &o->params, tree, timing, err);
    kd_gpu_build_options *opts = &gpu->opts;
    kd_gpu_build_options_default(opts);
    opts->params = o->params;
    if (o->large_split >= 0)
        opts->large_split = (kd_large_split)o->large_split;
    if (o->reduce_variant >= 0)
        opts->reduce_variant = (kd_reduce_variant)o->reduce_variant;
    if (o->small_threshold > 0)
        opts->small_node_threshold = o->small_threshold;
    if (o->empty_space >= 0.0f)
        opts->empty_space_ratio = o->empty_space;
    opts->profile = o->profile;
    opts->kernel_clock = o->profile;
    gpu->warmup = o->warmup;
    gpu->repeats = o->repeats;
    kd_status st = kd_build_gpu_warm(mesh, opts, o->warmup, o->repeats, tree, &gpu->profile,
                                     &gpu->first_build_ms, err);
    if (st)
        return st;
    kd_gpu_build_profile_timing(&gpu->profile, timing);
    if (!opts->profile) {
        /* Stage times are measured only with --profile: show the whole build
         * as one phase rather than stages of 0 ms. */
        timing->num_phases = 1;
        timing->phase_names[0] = "device build";
        timing->phase_ms[0] = gpu->profile.build_ms;
    }
    return KD_OK;
}

static void print_gpu_profile(const kd_gpu_build_profile *p)
{
    printf("in-build profile (CUDA events; medians over the timed builds, field by field)\n");
    printf("  %-26s %12.3f ms\n", "build (host wall)", p->build_ms);
    for (int i = 0; i < KD_GPU_NUM_STAGES; i++)
        printf("  %-26s %12.3f ms\n", kd_gpu_stage_name((kd_gpu_stage)i), p->stage_ms[i]);
    for (int i = 0; i < KD_GPU_NUM_STEPS; i++)
        if (p->step_count[i])
            printf("    %-24s %12.3f ms  (%u times)\n", kd_gpu_step_name((kd_gpu_step)i), p->step_ms[i],
                   p->step_count[i]);
    printf("  %-26s %12.3f ms  (%u calls)\n", "in reductions", p->reduce_ms, p->num_reduce_calls);
    if (p->kernel.clocked) {
        printf("  %-26s %12.3f ms  (%u kernels and memsets; CUPTI, device time only)\n",
               "  their kernels", p->kernel.reduce_ms, p->kernel.num_reduce);
        printf("  %-26s %12.3f ms  (%u kernels and memsets; CUPTI, device time only)\n",
               "all the build's kernels", p->kernel.all_ms, p->kernel.num_all);
        printf("  %-26s %12.3f ms  (overlaps once; the build's wall time less this: the GPU idle,\n"
               "  %-26s %12s     launch gaps and host waits, about %.3f ms)\n",
               "  the GPU busy", p->kernel.busy_ms, "", "", p->build_ms - p->kernel.busy_ms);
    } else {
        printf("  %-26s %12s     (no kernel times: %s)\n", "  their kernels", "-",
               p->kernel.error[0] ? p->kernel.error : "not measured");
    }
    printf("  %-26s %12u\n", "host syncs", p->num_host_syncs);
    printf("  %-26s %12u  (%u small-node roots; %u empty cuts in a row, without a level each)\n",
           "large-node levels", p->num_large_levels, p->num_small_roots, p->num_large_cuts);
    printf("  %-26s %12u  (%u of them empty cuts in a row, without a pass; %u taken by a block's warps)\n",
           "medium-stage nodes", p->num_medium_nodes, p->num_medium_cuts, p->num_medium_block_nodes);
}

int kd_cmd_build(int argc, char **argv)
{
    build_options o;
    int code = parse_args(argc, argv, &o);
    if (code >= 0)
        return code;
    bool json_stdout = o.json_path && strcmp(o.json_path, "-") == 0;
    bool text = !o.quiet && !json_stdout;
    code = kd_cli_device_resolve(k_cmd, o.device, o.quiet, "using the CPU builder", &o.device);
    if (code >= 0)
        return code;
    if (o.gpu_only && o.device == KD_CLI_DEVICE_CPU && !o.quiet)
        fprintf(stderr, "scankd build: note: %s ignored: it applies to the GPU builder only\n",
                o.gpu_only);

    kd_error err;
    kd_error_clear(&err);
    kd_mesh mesh;
    double load_ms;
    if (!kd_cli_load_mesh(k_cmd, o.scene, &mesh, &load_ms))
        return KD_EXIT_FAILURE;

    kd_tree tree;
    kd_build_timing timing;
    gpu_report gpu_storage, *gpu = o.device == KD_CLI_DEVICE_GPU ? &gpu_storage : NULL;
    if (build_tree(&o, &mesh, &tree, &timing, gpu, &err)) {
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
            write_json(&json, &o, &mesh, load_ms, &stats, &timing, gpu);
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
        if (gpu)
            printf("built on the GPU (%s large-node split with empty cuts >= %g of the node, small "
                   "nodes <= %d references by exact SAH, reduction rung %d %s; ",
                   kd_large_split_name(gpu->opts.large_split),
                   (double)kd_gpu_build_empty_space(&gpu->opts), gpu->opts.small_node_threshold,
                   (int)gpu->opts.reduce_variant, kd_reduce_variant_name(gpu->opts.reduce_variant));
        else
            printf("built on the CPU (exact SAH; ");
        printf("traversal %g, intersect %g, empty bonus %g for empty sides >= %g of the node, "
               "depth cap %u)\n",
               o.params.traversal_cost, o.params.intersect_cost, o.params.empty_bonus,
               o.params.min_empty_fraction, tree.max_depth);
        if (gpu && o.warmup > 0)
            printf("times are medians of %d build%s after %d untimed warm-up build%s of the same mesh; "
                   "the first build (it also loads the kernels and sizes the buffers) took %.1f ms\n",
                   o.repeats, o.repeats == 1 ? "" : "s", o.warmup, o.warmup == 1 ? "" : "s",
                   gpu->first_build_ms);
        else if (gpu)
            printf("times are medians of %d build%s, the first of them the builder's first (it also "
                   "loads the kernels and sizes the buffers; it took %.1f ms)\n",
                   o.repeats, o.repeats == 1 ? "" : "s", gpu->first_build_ms);
        kd_tree_stats_print(stdout, &stats, &timing);
        if (gpu && gpu->opts.profile)
            print_gpu_profile(&gpu->profile);
        if (o.save_path)
            printf("saved %s\n", o.save_path);
    }
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return code;
}
