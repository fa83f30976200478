/* Host-side glue of the GPU builder (kernels/gpu_build.h): options, their
 * checks and the depth cap (from the host library's kd_build_max_depth),
 * names, and the one-call build from a host mesh to a host tree. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_build.h"
#include "gpu_build_internal.h"
#include "kd_median.h"

const char *kd_large_split_name(kd_large_split split)
{
    switch (split) {
    case KD_LARGE_SPLIT_MEDIAN: return "median";
    case KD_LARGE_SPLIT_SAH: return "sah";
    }
    return "?";
}

int kd_large_split_parse(const char *name)
{
    if (strcmp(name, "median") == 0)
        return KD_LARGE_SPLIT_MEDIAN;
    if (strcmp(name, "sah") == 0)
        return KD_LARGE_SPLIT_SAH;
    return -1;
}

const char *kd_gpu_stage_name(kd_gpu_stage stage)
{
    switch (stage) {
    case KD_GPU_STAGE_PREPROCESS: return "preprocess";
    case KD_GPU_STAGE_LARGE: return "large nodes";
    case KD_GPU_STAGE_SMALL: return "small nodes";
    case KD_GPU_STAGE_OUTPUT: return "output";
    case KD_GPU_NUM_STAGES: break;
    }
    return "?";
}

const char *kd_gpu_step_name(kd_gpu_step step)
{
    switch (step) {
    case KD_GPU_STEP_LARGE_BOUNDS: return "large: node bounds";
    case KD_GPU_STEP_LARGE_CHOOSE: return "large: split choice";
    case KD_GPU_STEP_LARGE_CLASSIFY: return "large: sides";
    case KD_GPU_STEP_LARGE_SPLIT: return "large: split by side";
    case KD_GPU_STEP_LARGE_BOOKKEEP: return "large: bookkeeping";
    case KD_GPU_STEP_LARGE_READBACK: return "large: read-back";
    case KD_GPU_STEP_LARGE_SCATTER: return "large: clip and scatter";
    case KD_GPU_STEP_MEDIUM: return "medium: warps per node";
    case KD_GPU_STEP_SMALL_SETUP: return "small: setup";
    case KD_GPU_STEP_SMALL_NODES: return "small: node passes";
    case KD_GPU_STEP_SMALL_CLIP: return "small: clip passes";
    case KD_GPU_STEP_SMALL_READBACK: return "small: read-back";
    case KD_GPU_STEP_OUTPUT_COLLAPSE: return "output: collapse";
    case KD_GPU_STEP_OUTPUT_SIZES: return "output: subtree sizes";
    case KD_GPU_STEP_OUTPUT_READBACK: return "output: read-back";
    case KD_GPU_STEP_OUTPUT_PLACE: return "output: placement";
    case KD_GPU_NUM_STEPS: break;
    }
    return "?";
}

/* The defaults, each chosen by measurement (docs/performance.md, under the
 * option's name): binned SAH keeps the trees within 10% of the exact CPU
 * tree where the median split does not; empty cuts follow the build rules'
 * empty-bonus fraction, as the CPU builder's sweep; the one-launch reduction
 * rung, since in-build reductions are small and launch-bound; the medium
 * stage from a level of 8 nodes of at most 16384 references, its nodes of
 * more than 1024 taken by a block's warps. */
void kd_gpu_build_options_default(kd_gpu_build_options *opts)
{
    memset(opts, 0, sizeof *opts); /* no cap, no profile, no test hooks */
    kd_build_params_default(&opts->params);
    opts->large_split = KD_LARGE_SPLIT_SAH;
    opts->small_node_threshold = KD_GPU_SMALL_NODE_MAX;
    opts->sah_bins = 64;
    opts->empty_space_ratio = -1.0f;
    opts->max_refs_per_triangle = 24.0f;
    opts->reduce_variant = KD_REDUCE8_ONEPASS;
    opts->medium_min_nodes = 8;
    opts->medium_max_refs = 16384;
    opts->medium_block_refs = 1024;
}

float kd_gpu_build_empty_space(const kd_gpu_build_options *opts)
{
    return opts->empty_space_ratio < 0.0f ? opts->params.min_empty_fraction : opts->empty_space_ratio;
}

void kd_gpu_build_profile_timing(const kd_gpu_build_profile *profile, kd_build_timing *timing)
{
    memset(timing, 0, sizeof *timing);
    timing->num_phases = KD_GPU_NUM_STAGES;
    for (int i = 0; i < KD_GPU_NUM_STAGES; i++) {
        timing->phase_names[i] = kd_gpu_stage_name((kd_gpu_stage)i);
        timing->phase_ms[i] = profile->stage_ms[i];
    }
    timing->total_ms = profile->build_ms;
}

static kd_status check_options(const kd_gpu_build_options *o, kd_error *err)
{
    const kd_build_params *p = &o->params;
    if (o->large_split != KD_LARGE_SPLIT_MEDIAN && o->large_split != KD_LARGE_SPLIT_SAH)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: unknown large-node split %d",
                            (int)o->large_split);
    if (o->small_node_threshold < 1 || o->small_node_threshold > KD_GPU_SMALL_NODE_MAX)
        return kd_error_set(err, KD_ERR_INVALID,
                            "GPU build: the small-node threshold must be 1..%d, not %d",
                            KD_GPU_SMALL_NODE_MAX, o->small_node_threshold);
    if (o->sah_bins < 2 || o->sah_bins > 128)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: SAH bins must be 2..128, not %d",
                            o->sah_bins);
    if (!(o->empty_space_ratio <= 1.0f)) /* < 0: the build rules' (checked below) */
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: the empty-space ratio must be 0..1");
    if (!(o->max_refs_per_triangle >= 2.0f))
        return kd_error_set(err, KD_ERR_INVALID,
                            "GPU build: the reference budget must be at least 2 per triangle");
    if ((int)o->reduce_variant < 0 || o->reduce_variant >= KD_REDUCE_NUM_VARIANTS)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: unknown reduction variant %d",
                            (int)o->reduce_variant);
    if (o->medium_min_nodes < 0 || o->medium_max_refs < 0 || o->medium_block_refs < 0 || o->hooks.medium_blocks < 0)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: the medium stage's limits must be >= 0");
    if (!(p->traversal_cost >= 0.0f) || !(p->intersect_cost > 0.0f) ||
        !(p->empty_bonus >= 0.0f && p->empty_bonus <= 1.0f) || p->max_bad_refines < 1 ||
        !(p->min_empty_fraction >= 0.0f && p->min_empty_fraction <= 1.0f) ||
        p->max_leaf_prims < 0 || !(p->bad_cost_ratio > 0.0f))
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: build parameters out of range");
    return KD_OK;
}

kd_status kd_gpu_builder_build(kd_gpu_builder *builder, const kd_gpu_build_options *opts,
                               kd_gpu_build_profile *profile, kd_error *err)
{
    kd_gpu_build_options resolved = *opts;
    kd_status st = check_options(&resolved, err);
    if (st != KD_OK)
        return st;
    resolved.params.max_depth =
        kd_build_max_depth(&resolved.params, kd_gb_num_triangles(builder));
    resolved.empty_space_ratio = kd_gpu_build_empty_space(&resolved);
    return kd_gb_build_resolved(builder, &resolved, profile, err);
}

/* The median over n profiles of the double `offset` bytes into each. */
static double profile_field_median(const kd_gpu_build_profile *profiles, int n, size_t offset)
{
    double v[KD_GPU_PROFILE_MAX_REPEATS];
    for (int k = 0; k < n; k++)
        memcpy(&v[k], (const char *)&profiles[k] + offset, sizeof v[k]);
    return kd_median(v, n);
}

void kd_gpu_build_profile_median(const kd_gpu_build_profile *profiles, int n, kd_gpu_build_profile *out)
{
    if (n > KD_GPU_PROFILE_MAX_REPEATS)
        n = KD_GPU_PROFILE_MAX_REPEATS;
    kd_gpu_build_profile m = profiles[n - 1];
    m.build_ms = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, build_ms));
    m.reduce_ms = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, reduce_ms));
    m.kernel.reduce_ms = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, kernel.reduce_ms));
    m.kernel.all_ms = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, kernel.all_ms));
    m.kernel.busy_ms = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, kernel.busy_ms));
    for (int i = 0; i < KD_GPU_NUM_STAGES; i++)
        m.stage_ms[i] = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, stage_ms) +
                                                              (size_t)i * sizeof m.stage_ms[0]);
    for (int i = 0; i < KD_GPU_NUM_STEPS; i++)
        m.step_ms[i] = profile_field_median(profiles, n, offsetof(kd_gpu_build_profile, step_ms) +
                                                             (size_t)i * sizeof m.step_ms[0]);
    *out = m;
}

/* The kernel clock's tracing slows the host's launches, which the event
 * times would show: so `repeats` more builds with the clock on give the
 * profile its kernel times (medians), and the event times stay the untraced
 * builds'. Where the clock cannot run, kernel.clocked stays 0. */
static kd_status clocked_builds(kd_gpu_builder *builder, const kd_gpu_build_options *opts, int repeats,
                                kd_gpu_build_profile *scratch, kd_gpu_build_profile *profile, kd_error *err)
{
    for (int k = 0; k < repeats; k++) {
        kd_status st = kd_gpu_builder_build(builder, opts, &scratch[k], err);
        if (st != KD_OK)
            return st;
        if (!scratch[k].kernel.clocked) {
            profile->kernel = scratch[k].kernel; // not clocked, and why
            return KD_OK;
        }
    }
    kd_gpu_build_profile m;
    kd_gpu_build_profile_median(scratch, repeats, &m);
    profile->kernel = m.kernel; // medians of the times, the last build's counts
    return KD_OK;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* One builder, `warmup` untimed builds (no profile), then `repeats` reported
 * ones (their profile the medians, its peak memory the most of any build);
 * *first_ms (may be NULL): the first build's host wall time. */
static kd_status build_once(const kd_mesh *mesh, const kd_gpu_build_options *opts, int emulate,
                            int warmup, int repeats, kd_tree *tree, kd_gpu_build_profile *profile,
                            double *first_ms, kd_error *err)
{
    memset(tree, 0, sizeof *tree);
    if (repeats < 1 || repeats > KD_GPU_PROFILE_MAX_REPEATS)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: %d reported builds; 1..%d allowed", repeats,
                            KD_GPU_PROFILE_MAX_REPEATS);
    kd_gpu_build_profile *reported = (kd_gpu_build_profile *)calloc((size_t)repeats, sizeof *reported);
    if (!reported)
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build: out of memory");
    kd_gpu_builder *builder = NULL;
    kd_status st = kd_gpu_builder_create(&builder, emulate, err);
    if (st == KD_OK)
        st = kd_gpu_builder_set_mesh(builder, mesh, err);
    kd_gpu_build_options untimed = *opts;
    untimed.profile = 0;
    kd_gpu_build_profile first, later;
    memset(&first, 0, sizeof first);
    uint64_t peak = 0; /* the most device memory held over every build */
    for (int k = 0; k < warmup && st == KD_OK; k++) {
        st = kd_gpu_builder_build(builder, &untimed, k == 0 ? &first : &later, err);
        peak = max_u64(peak, (k == 0 ? &first : &later)->peak_device_bytes);
    }
    kd_gpu_build_options evented = *opts;
    evented.kernel_clock = 0;
    for (int k = 0; k < repeats && st == KD_OK; k++) {
        st = kd_gpu_builder_build(builder, &evented, &reported[k], err);
        peak = max_u64(peak, reported[k].peak_device_bytes);
    }
    if (st == KD_OK && profile) {
        kd_gpu_build_profile_median(reported, repeats, profile);
        profile->peak_device_bytes = peak;
    }
    if (st == KD_OK && first_ms)
        *first_ms = warmup > 0 ? first.build_ms : reported[0].build_ms;
    if (st == KD_OK && profile && opts->profile && opts->kernel_clock)
        st = clocked_builds(builder, opts, repeats, reported, profile, err); // reuses reported
    if (st == KD_OK)
        st = kd_gpu_builder_download(builder, tree, err);
    kd_gpu_builder_destroy(builder);
    free(reported);
    return st;
}

kd_status kd_build_gpu(const kd_mesh *mesh, const kd_gpu_build_options *opts, kd_tree *tree,
                       kd_gpu_build_profile *profile, kd_error *err)
{
    return build_once(mesh, opts, 0, 0, 1, tree, profile, NULL, err);
}

kd_status kd_build_gpu_warm(const kd_mesh *mesh, const kd_gpu_build_options *opts, int warmup,
                            int repeats, kd_tree *tree, kd_gpu_build_profile *profile,
                            double *first_build_ms, kd_error *err)
{
    return build_once(mesh, opts, 0, warmup, repeats, tree, profile, first_build_ms, err);
}

kd_status kd_build_gpu_emulated(const kd_mesh *mesh, const kd_gpu_build_options *opts,
                                kd_tree *tree, kd_gpu_build_profile *profile, kd_error *err)
{
    return build_once(mesh, opts, 1, 0, 1, tree, profile, NULL, err);
}

/* A fixed generator's small triangles through the unit cube: enough that a
 * build with the default options runs large levels, the medium stage, the
 * small stage and the output (tests/gpu_build checks that it does). */
kd_status kd_gpu_build_warm_mesh(kd_mesh *mesh, kd_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    const uint32_t n = KD_GPU_WARM_TRIANGLES;
    mesh->positions = (float *)malloc(9 * (size_t)n * sizeof(float));
    mesh->indices = (uint32_t *)malloc(3 * (size_t)n * sizeof(uint32_t));
    if (!mesh->positions || !mesh->indices) {
        kd_mesh_free(mesh);
        return kd_error_set(err, KD_ERR_NOMEM, "GPU build warm-up: out of memory");
    }
    uint32_t state = 12345u;
    for (uint32_t t = 0; t < n; t++) {
        float centre[3];
        for (int a = 0; a < 3; a++) {
            state = state * 1664525u + 1013904223u;
            centre[a] = (float)(state >> 8) / 16777216.0f;
        }
        /* A right triangle of side 1/64 at the centre, in a plane by t. */
        float *p = mesh->positions + 9 * (size_t)t;
        for (int v = 0; v < 3; v++) {
            const int axis = v == 0 ? -1 : (int)((t + (uint32_t)v) % 3u);
            for (int a = 0; a < 3; a++)
                p[3 * v + a] = centre[a] + (a == axis ? 1.0f / 64.0f : 0.0f);
            mesh->indices[3 * t + (uint32_t)v] = 3 * t + (uint32_t)v;
        }
    }
    mesh->num_vertices = 3 * n;
    mesh->num_triangles = n;
    mesh->num_faces_read = mesh->num_triangles_read = n;
    return KD_OK;
}

kd_status kd_gpu_build_warm_up(const kd_gpu_build_options *with, kd_error *err)
{
    kd_gpu_build_options opts;
    if (with)
        opts = *with;
    else
        kd_gpu_build_options_default(&opts);
    opts.max_device_bytes = 0; /* the made-up mesh's few MB, given back at once */
    opts.profile = 0;
    kd_mesh mesh;
    KD_TRY(kd_gpu_build_warm_mesh(&mesh, err));
    kd_gpu_builder *builder = NULL;
    kd_status st = kd_gpu_builder_create(&builder, 0, err);
    if (st == KD_OK)
        st = kd_gpu_builder_set_mesh(builder, &mesh, err);
    if (st == KD_OK)
        st = kd_gpu_builder_build(builder, &opts, NULL, err);
    kd_gpu_builder_destroy(builder);
    kd_mesh_free(&mesh);
    return st;
}
