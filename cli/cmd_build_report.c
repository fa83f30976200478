/* scankd build: its report, as JSON and as text. */
#include <stdio.h>

#include "cmd_build.h"

static double per_triangle(uint64_t bytes, uint32_t triangles)
{
    return triangles ? (double)bytes / (double)triangles : 0.0;
}

static void write_gpu_profile_json(kd_json *json, const gpu_report *g, uint32_t triangles)
{
    const kd_gpu_build_profile *p = &g->profile;
    kd_json_key(json, "gpu_profile");
    kd_json_begin_object(json);
    kd_json_kv_number(json, "build_ms", p->build_ms);
    kd_json_kv_number(json, "first_build_ms", g->first_build_ms);
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
    kd_json_kv_string(json, "medium_shape", p->medium_wide ? "wide" : "narrow");
    kd_json_kv_int(json, "num_small_retries", p->num_small_retries);
    kd_json_kv_int(json, "num_batches", p->num_batches);
    kd_json_kv_int(json, "num_output_retries", p->num_output_retries);
    kd_json_kv_int(json, "max_large_refs", (int64_t)p->max_large_refs);
    kd_json_kv_int(json, "device_bytes", (int64_t)p->device_bytes);
    kd_json_kv_int(json, "peak_device_bytes", (int64_t)p->peak_device_bytes);
    kd_json_kv_number(json, "peak_device_bytes_per_triangle", per_triangle(p->peak_device_bytes, triangles));
    kd_json_end_object(json);
}

static void write_gpu_json(kd_json *json, const gpu_report *g, uint32_t triangles)
{
    kd_json_key(json, "gpu_options");
    kd_json_begin_object(json);
    kd_json_kv_string(json, "large_split", kd_large_split_name(g->opts.large_split));
    kd_json_kv_int(json, "reduce_variant", g->opts.reduce_variant);
    kd_json_kv_string(json, "reduce_variant_name", kd_reduce_variant_name(g->opts.reduce_variant));
    kd_json_kv_int(json, "small_node_threshold", g->opts.small_node_threshold);
    kd_json_kv_number(json, "empty_space", kd_gpu_build_empty_space(&g->opts));
    kd_json_kv_number(json, "max_refs_per_triangle", g->opts.max_refs_per_triangle);
    kd_json_kv_int(json, "warmup_builds", g->warmup);
    kd_json_kv_int(json, "timed_builds", g->repeats);
    if (g->opts.max_device_bytes)
        kd_json_kv_int(json, "device_memory_limit", (int64_t)g->opts.max_device_bytes);
    kd_json_end_object(json);
    kd_json_kv_number(json, "gpu_first_build_ms", g->first_build_ms);
    kd_json_kv_int(json, "gpu_peak_device_bytes", (int64_t)g->profile.peak_device_bytes);
    kd_json_kv_int(json, "gpu_num_batches", g->profile.num_batches);
    if (g->opts.profile)
        write_gpu_profile_json(json, g, triangles);
}

static void write_params_json(kd_json *json, const kd_build_params *p, uint32_t num_triangles)
{
    kd_json_key(json, "build_params");
    kd_json_begin_object(json);
    kd_json_kv_number(json, "traversal_cost", p->traversal_cost);
    kd_json_kv_number(json, "intersect_cost", p->intersect_cost);
    kd_json_kv_number(json, "empty_bonus", p->empty_bonus);
    kd_json_kv_number(json, "min_empty_fraction", p->min_empty_fraction);
    kd_json_kv_int(json, "max_depth", kd_build_max_depth(p, num_triangles));
    kd_json_kv_int(json, "max_bad_refines", p->max_bad_refines);
    kd_json_kv_number(json, "bad_cost_ratio", p->bad_cost_ratio);
    kd_json_kv_int(json, "cost_cutoff_prims", p->max_prims_in_leaf_for_cost_cutoff);
    kd_json_kv_int(json, "max_leaf_prims", p->max_leaf_prims);
    kd_json_kv_number(json, "max_duplication", p->max_duplication);
    kd_json_end_object(json);
}

void kd_build_write_json(kd_json *json, const build_options *o, const build_result *r)
{
    const kd_mesh *mesh = &r->mesh;
    kd_json_begin_object(json);
    kd_json_kv_string(json, "command", "build");
    kd_json_kv_string(json, "scene", o->scene);
    kd_json_kv_int(json, "triangles", mesh->num_triangles);
    kd_json_kv_int(json, "dropped_zero_area", (int64_t)mesh->num_dropped_zero_area);
    kd_json_kv_int(json, "dropped_nonfinite", (int64_t)mesh->num_dropped_nonfinite);
    kd_json_kv_number(json, "load_ms", r->load_ms);
    kd_json_kv_string(json, "builder", r->on_gpu ? "gpu" : "cpu");
    if (r->on_gpu)
        write_gpu_json(json, &r->gpu, mesh->num_triangles);
    write_params_json(json, &o->params, mesh->num_triangles);
    kd_json_key(json, "tree");
    kd_json_begin_object(json);
    kd_tree_stats_json(json, &r->stats, &r->timing);
    kd_json_end_object(json);
    kd_json_key(json, "saved");
    if (o->save_path)
        kd_json_string(json, o->save_path);
    else
        kd_json_null(json);
    kd_json_end_object(json);
}

/* The first build and the peak memory, the profile's first lines. */
static void print_first_and_peak(const gpu_report *g, uint32_t triangles)
{
    const kd_gpu_build_profile *p = &g->profile;
    printf("  %-26s %12.3f ms  (%.2f M triangles/s; host wall)\n", "build", p->build_ms,
           p->build_ms > 0.0 ? triangles / (p->build_ms * 1e3) : 0.0);
    printf("  %-26s %12.3f ms  (%.2f M triangles/s; it also sizes the buffers)\n",
           "first build", g->first_build_ms, g->first_build_ms > 0.0 ? triangles / (g->first_build_ms * 1e3) : 0.0);
    printf("  %-26s %12.1f MiB (%llu bytes, %.0f per triangle; the most the builder held in any build)\n",
           "peak device memory", (double)p->peak_device_bytes / (1024.0 * 1024.0),
           (unsigned long long)p->peak_device_bytes, per_triangle(p->peak_device_bytes, triangles));
}

static void print_gpu_profile(const gpu_report *g, uint32_t triangles)
{
    const kd_gpu_build_profile *p = &g->profile;
    printf("in-build profile (CUDA events; medians over the timed builds, field by field)\n");
    print_first_and_peak(g, triangles);
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
    printf("  %-26s %12u  (%u of them empty cuts in a row, without a pass; %u taken by a block's warps; "
           "%s shape)\n",
           "medium-stage nodes", p->num_medium_nodes, p->num_medium_cuts, p->num_medium_block_nodes,
           p->medium_wide ? "wide" : "narrow");
    if (p->num_batches)
        printf("  %-26s %12u  (the medium and small stages in runs, to keep under the device memory limit)\n",
               "batches", p->num_batches);
}

/* The lines above the statistics: the scene, the builder and its rules, and
 * on the GPU what the times are medians of. */
static void print_header(const build_options *o, const build_result *r)
{
    const kd_mesh *mesh = &r->mesh;
    const gpu_report *gpu = r->on_gpu ? &r->gpu : NULL;
    printf("scene %s: %u triangles", o->scene, mesh->num_triangles);
    if (mesh->num_dropped_zero_area || mesh->num_dropped_nonfinite)
        printf(" (dropped %llu zero-area, %llu non-finite)", (unsigned long long)mesh->num_dropped_zero_area,
               (unsigned long long)mesh->num_dropped_nonfinite);
    printf(", loaded in %.1f ms\n", r->load_ms);
    if (gpu)
        printf("built on the GPU (%s large-node split with empty cuts >= %g of the node, small "
               "nodes <= %d references by exact SAH, at most %g references a triangle on a path, "
               "reduction rung %d %s; ",
               kd_large_split_name(gpu->opts.large_split), (double)kd_gpu_build_empty_space(&gpu->opts),
               gpu->opts.small_node_threshold, (double)gpu->opts.max_refs_per_triangle, (int)gpu->opts.reduce_variant,
               kd_reduce_variant_name(gpu->opts.reduce_variant));
    else
        printf("built on the CPU (exact SAH; ");
    printf("traversal %g, intersect %g, empty bonus %g for empty sides >= %g of the node, depth cap %u)\n",
           o->params.traversal_cost, o->params.intersect_cost, o->params.empty_bonus,
           o->params.min_empty_fraction, r->tree.max_depth);
    if (gpu && o->warmup > 0)
        printf("times are medians of %d build%s after %d untimed warm-up build%s of the same mesh; "
               "the first build (it also sizes the buffers) took %.1f ms\n",
               o->repeats, o->repeats == 1 ? "" : "s", o->warmup, o->warmup == 1 ? "" : "s",
               gpu->first_build_ms);
    else if (gpu)
        printf("times are medians of %d build%s, the first of them the builder's first (it also "
               "sizes the buffers; it took %.1f ms)\n",
               o->repeats, o->repeats == 1 ? "" : "s", gpu->first_build_ms);
}

void kd_build_print_report(const build_options *o, const build_result *r)
{
    print_header(o, r);
    kd_tree_stats_print(stdout, &r->stats, &r->timing);
    if (r->on_gpu && r->gpu.opts.profile)
        print_gpu_profile(&r->gpu, r->mesh.num_triangles);
    if (o->save_path)
        printf("saved %s\n", o->save_path);
}
