/* What the parts of scankd bench share: its options and one row of results
 * per scene and device (the table, CSV and JSON are cmd_bench_report.c's). */
#ifndef KD_CMD_BENCH_H
#define KD_CMD_BENCH_H

#include <stdint.h>
#include <stdio.h>

#include "cli_util.h"
#include "tree_stats.h"

enum { BENCH_CPU = 1, BENCH_GPU = 2 };

typedef struct bench_args {
    const char **scenes;
    int num_scenes;
    int device;              /* index in the --device names, as asked for */
    int devices;             /* BENCH_CPU | BENCH_GPU, from device */
    int builds;              /* timed builds per scene and device (--repeats) */
    int threads;             /* CPU builder and ray caster workers; 0: all cores */
    int width, height;
    int render_repeats;      /* GPU timed launches */
    const char *json_path, *csv_path;
    int large_split;         /* kd_large_split */
    int small_threshold;
    float empty_space;       /* < 0: the build rules' min empty fraction */
    float max_refs;          /* GPU reference budget per triangle */
    uint64_t device_memory_limit; /* the GPU builder's memory cap; 0: none */
    bool quiet;              /* no progress line, no scene notes on stderr */
    const char *view;        /* --view NAME; NULL: default */
} bench_args;

typedef struct bench_row {
    char scene[128];
    const char *device;
    uint32_t num_triangles;
    double load_ms;
    double build_median_ms, build_min_ms;
    double first_build_ms;   /* the untimed first build (GPU: buffers sized) */
    uint64_t peak_device_bytes; /* GPU rows: the most the builder held in any build; 0 on CPU rows */
    kd_tree_stats stats;
    double sah_ratio;        /* to the CPU exact-SAH tree */
    double rays_per_second;
    double diffuse_rays_per_second;  /* the bounce rays of --ray-kind diffuse, per second of their own */
    double cpu_tree_rays_per_second; /* GPU rows: the CPU tree on the GPU caster */
    int width, height;
    const char *view;        /* the camera's view name */
} bench_row;

/* Millions of triangles built per second in ms milliseconds (0 for none). */
double kd_bench_mtris_per_second(uint32_t triangles, double ms);

/* The text table. */
void kd_bench_print_table(FILE *f, const bench_row *rows, int n);

/* The CSV and JSON outputs asked for. */
kd_status kd_bench_write_outputs(const bench_args *a, const bench_row *rows, int n, kd_error *err);

#endif
