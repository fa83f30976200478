/* What the parts of scankd build share: its options and what a build
 * reports (the report itself is cmd_build_report.c's). */
#ifndef KD_CMD_BUILD_H
#define KD_CMD_BUILD_H

#include <stdbool.h>

#include "cmd_render_common.h"
#include "gpu_build.h"
#include "tree_stats.h"

typedef struct build_options {
    const char *scene, *save_path, *json_path;
    bool quiet;
    int device;               /* kd_cli_device as asked for; resolved to cpu or gpu */
    int large_split;          /* kd_large_split, or -1: the GPU builder's default */
    int reduce_variant;       /* kd_reduce_variant, or -1: the GPU builder's default */
    int small_threshold;      /* small-stage node size, or 0: the GPU builder's default */
    float empty_space;        /* GPU empty-cut fraction, or < 0: the GPU builder's default */
    float max_refs;           /* GPU reference budget per triangle */
    bool profile;
    int warmup;               /* untimed GPU builds before the timed ones */
    int repeats;              /* timed GPU builds, reported as medians */
    uint64_t device_memory_limit; /* the GPU builder's memory cap; 0: none */
    const char *gpu_only;     /* the first GPU-only option given, or NULL */
    kd_build_params params;
    kd_sah_constants report;
} build_options;

/* What the GPU path adds to the report. */
typedef struct gpu_report {
    kd_gpu_build_options opts;
    kd_gpu_build_profile profile;
    int warmup;            /* untimed builds before the reported ones */
    int repeats;           /* timed builds; the profile's times are their medians */
    double first_build_ms; /* the builder's first build (buffers sized) */
} gpu_report;

/* A finished build: the mesh, the tree, its statistics and times, and on the
 * GPU what it adds. */
typedef struct build_result {
    kd_mesh mesh;
    double load_ms;
    kd_tree tree;
    kd_build_timing timing;
    kd_tree_stats stats;
    bool on_gpu;
    gpu_report gpu;        /* when on_gpu */
} build_result;

/* The build's figures as JSON (one object) into json. */
void kd_build_write_json(kd_json *json, const build_options *o, const build_result *r);

/* The text report on stdout: scene, builder, statistics, the GPU profile. */
void kd_build_print_report(const build_options *o, const build_result *r);

#endif
